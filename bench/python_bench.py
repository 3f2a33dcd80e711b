#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Side-by-side speed and memory of bloomkit's Python binding, in one process.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python_bench.py [--keys 1000000] [--rounds 5]

On N short str keys ("user:123456"), 1% FPR, one thread, it times per key:
  - update(list) and contains_many(list) of the blocked and classic filters,
  - a Python loop of single calls (f.add(k), `k in f`) on the same filters,
  - a loop of `k in s` for a Python set s of the same keys,
  - a pure-Python Bloom filter (bytearray + blake2b double hashing) as the baseline,
and the memory of each filter against the set. Every measurement is repeated `rounds`
times, alternating the contenders, and the median is printed (the machine may be shared:
medians and ratios from the same run, not absolute numbers, are what to compare).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import statistics
import sys
import time

import bloomkit


class PurePythonBloom:
    """A textbook Bloom filter in pure Python: what the binding replaces."""

    def __init__(self, capacity: int, fp_rate: float) -> None:
        import math

        self.m = max(8, int(-capacity * math.log(fp_rate) / math.log(2) ** 2))
        self.k = max(1, round(self.m / capacity * math.log(2)))
        self.bits = bytearray((self.m + 7) // 8)

    def _positions(self, key: str):
        digest = hashlib.blake2b(key.encode(), digest_size=16).digest()
        h1 = int.from_bytes(digest[:8], "little")
        h2 = int.from_bytes(digest[8:], "little") | 1
        return ((h1 + i * h2) % self.m for i in range(self.k))

    def add(self, key: str) -> None:
        for p in self._positions(key):
            self.bits[p >> 3] |= 1 << (p & 7)

    def __contains__(self, key: str) -> bool:
        return all(self.bits[p >> 3] & (1 << (p & 7)) for p in self._positions(key))


# CPU time of this thread (every timed call runs on it, GIL released or not): on a
# shared machine it leaves out the time other processes hold the cores. --wall uses
# elapsed time instead.
CLOCK = time.thread_time


def timed(fn) -> float:
    gc.collect()
    start = CLOCK()
    fn()
    return CLOCK() - start


def loop_add(f, keys):
    add = f.add
    for k in keys:
        add(k)


def loop_in(c, keys):
    for k in keys:
        k in c  # noqa: B015 - the lookup is what is timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pure-keys", type=int, default=100_000, help="keys for the pure-Python baseline")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--wall", action="store_true", help="elapsed time instead of thread CPU time")
    parser.add_argument("--redisbloom", action="store_true",
                        help="also RedisBloom's kinds (BF.RESERVE key 0.01 N, CF.RESERVE key N) and the scalable kind")
    args = parser.parse_args()
    if args.wall:
        global CLOCK
        CLOCK = time.perf_counter
    n = args.keys
    keys = [f"user:{i:06d}" for i in range(n)]
    absent = [f"user:{i:06d}" for i in range(n, 2 * n)]
    probes = keys[: n // 2] + absent[: n // 2]
    s = set(keys)

    kinds = {"blocked": bloomkit.BlockedBloomFilter, "classic": bloomkit.BloomFilter}
    if args.redisbloom:
        kinds["scalable"] = bloomkit.ScalableBloomFilter
        kinds["redisbloom-bf"] = lambda capacity, fp_rate: bloomkit.RedisBloomFilter(capacity, error_rate=fp_rate)
        kinds["redisbloom-cf"] = lambda capacity, fp_rate: bloomkit.RedisCuckooFilter(capacity)
    times: dict[str, list[float]] = {}

    def record(name, seconds, count):
        times.setdefault(name, []).append(seconds / count * 1e9)

    f_hot = bloomkit.BlockedBloomFilter(capacity=n, fp_rate=0.01)
    f_hot.update(keys)
    for _ in range(args.rounds):
        for kind, cls in kinds.items():
            f = cls(capacity=n, fp_rate=0.01)
            record(f"{kind} update(list)", timed(lambda: f.update(keys)), n)
            record(f"{kind} contains_many(list)", timed(lambda: f.contains_many(probes)), n)
            out = bytearray(n)
            record(f"{kind} contains_into(list, bytearray)", timed(lambda: f.contains_into(probes, out)), n)
            g = cls(capacity=n, fp_rate=0.01)
            record(f"{kind} loop f.add(k)", timed(lambda: loop_add(g, keys)), n)
            record(f"{kind} loop k in f", timed(lambda: loop_in(f, probes)), n)
        record("set loop k in s", timed(lambda: loop_in(s, probes)), n)
        # One key asked again and again: the call's own cost, everything in cache.
        hot = [keys[12345]] * n
        record("set loop same k in s", timed(lambda: loop_in(s, hot)), n)
        record("blocked loop same k in f", timed(lambda: loop_in(f_hot, hot)), n)
        record("set update(list)", timed(lambda: set().update(keys)), n)
        pure = PurePythonBloom(n, 0.01)
        few = keys[: args.pure_keys]
        record("pure-Python loop add(k)", timed(lambda: loop_add(pure, few)), len(few))
        record("pure-Python loop k in f", timed(lambda: loop_in(pure, few)), len(few))

    med = {name: statistics.median(v) for name, v in times.items()}
    blocked = bloomkit.BlockedBloomFilter(capacity=n, fp_rate=0.01)
    classic = bloomkit.BloomFilter(capacity=n, fp_rate=0.01)
    set_table = sys.getsizeof(s)
    set_with_keys = set_table + sum(sys.getsizeof(k) for k in keys)
    memory = {
        "blocked filter bytes": blocked.memory_bytes,
        "classic filter bytes": classic.memory_bytes,
        "set table bytes": set_table,
        "set table + str keys bytes": set_with_keys,
    }
    ratios = {
        "blocked update(list) M keys/s": 1e3 / med["blocked update(list)"],
        "blocked contains_many(list) M keys/s": 1e3 / med["blocked contains_many(list)"],
        "blocked update(list) vs loop f.add(k)": med["blocked loop f.add(k)"] / med["blocked update(list)"],
        "blocked contains_many vs loop k in f": med["blocked loop k in f"] / med["blocked contains_many(list)"],
        "blocked k in f / set k in s (time)": med["blocked loop k in f"] / med["set loop k in s"],
        "classic k in f / set k in s (time)": med["classic loop k in f"] / med["set loop k in s"],
        "blocked same k in f / same k in s (time)": med["blocked loop same k in f"] / med["set loop same k in s"],
        "set table / blocked filter (memory)": set_table / blocked.memory_bytes,
        "set table + keys / blocked filter (memory)": set_with_keys / blocked.memory_bytes,
        "pure-Python add / blocked update(list)": med["pure-Python loop add(k)"] / med["blocked update(list)"],
    }
    if args.json:
        print(json.dumps({"ns_per_key": med, "memory": memory, "ratios": ratios}, indent=2))
        return 0
    print(f"{n:,} keys like {keys[1]!r}, 1% FPR, one thread, median of {args.rounds} rounds "
          f"(pure Python: {args.pure_keys:,} keys); AVX2: {bloomkit._bloomkit._uses_avx2()}; "
          f"{'elapsed' if args.wall else 'thread CPU'} time")
    print(f"{'operation':42} {'ns/key':>9} {'M keys/s':>9}")
    for name, ns in med.items():
        print(f"{name:42} {ns:9.1f} {1e3 / ns:9.2f}")
    print()
    for name, value in memory.items():
        print(f"{name:42} {value:>14,}")
    print()
    for name, value in ratios.items():
        print(f"{name:42} {value:9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
