# SPDX-License-Identifier: Apache-2.0
"""Saves under memory pressure: a filter that fits in memory, but not twice, is saved
to RDB (SAVE), rewritten to the AOF (BGREWRITEAOF) and dumped with SCANDUMP while the
server's address space is capped (RLIMIT_AS, what `ulimit -v` sets) a few MiB above
what it uses. bloomkit streams every value from the filter's own memory in 64 KiB
pieces, so each save completes, and after a restart (without the cap) every
acknowledged item answers 1 and every other key is still there. A save that
serialized the whole filter into a temporary copy would fail that allocation under the
cap, answer OK with an empty value written in the filter's place, and the restart
would refuse the RDB, losing every key."""

import os
import resource
import time
import unittest

import test_redisbloom as rdb_layout
from harness import ReplyError, Server, main, time_limit

# BF.RESERVE big 0.01 50000000: a 60 MB bit array (pages zeroed lazily, so only the
# pages the adds touch are resident, but all of it counts against RLIMIT_AS).
BIG_CAPACITY = 50_000_000
ITEMS = ["item:%d" % i for i in range(20000)]
# Room above the server's address space when the cap is set: enough for a command, a
# 64 KiB piece and Redis' own buffers, far less than a second copy of the filter.
HEADROOM = 24 << 20
# An AOF rewrite needs less: native values go out in 64 KiB pieces, RedisBloom-format
# ones in 1 MiB LOADCHUNK chunks (Redis copies each into a string of its own in the
# child; with SCANDUMP's 16 MiB chunks a rewrite under this cap failed).
AOF_HEADROOM = 8 << 20


def address_space(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize")


def cap_address_space(server, headroom=HEADROOM):
    limit = address_space(server.proc.pid) + headroom
    resource.prlimit(server.proc.pid, resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
    return limit


def uncap(server):
    resource.prlimit(server.proc.pid, resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def fill(c):
    """The big filter and its neighbours; returns the acknowledged items per key."""
    c.ok("BF.RESERVE", "big", "0.01", str(BIG_CAPACITY))
    for start in range(0, len(ITEMS), 1000):
        replies = c.call("BF.MADD", "big", *ITEMS[start:start + 1000])
        assert all(r in (0, 1) for r in replies), replies
    c.ok("SET", "plain", "value")
    c.ok("CF.RESERVE", "cuckoo", "10000")
    c.ok("CBF.RESERVE", "counting", "0.01", "10000")
    for i in range(500):
        assert c.call("CF.ADD", "cuckoo", "c%d" % i) == 1
        assert c.call("CBF.ADD", "counting", "n%d" % i) in (0, 1)


def check_survivors(test, c):
    test.assertEqual(c.call("GET", "plain"), b"value")
    for start in range(0, len(ITEMS), 1000):
        test.assertEqual(c.call("BF.MEXISTS", "big", *ITEMS[start:start + 1000]), [1] * 1000)
    test.assertEqual(c.call("CF.MEXISTS", "cuckoo", *["c%d" % i for i in range(500)]), [1] * 500)
    for i in range(500):
        test.assertEqual(c.call("CBF.EXISTS", "counting", "n%d" % i), 1)


def scandump(c, key):
    chunks, iterator = [], 0
    while True:
        reply = c.call("BF.SCANDUMP", key, iterator)
        if not isinstance(reply, list):
            return reply
        iterator, data = reply
        if iterator == 0:
            return chunks
        chunks.append((iterator, data))


# AddressSanitizer (the asan-ubsan preset preloads its runtime into redis-server)
# reserves its shadow and allocator regions as address space of its own, so a cap a few
# MiB above the server's use stops ASan itself; the capped saves run in the other presets.
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")


@unittest.skipIf(UNDER_ASAN, "RLIMIT_AS caps do not apply to a server running under AddressSanitizer")
class SaveUnderPressureTest(unittest.TestCase):
    fmt = "native"
    extra = []

    @time_limit(90)
    def test_rdb_save_of_a_filter_that_fits_only_once(self):
        with Server(["MAX_FILTER_BYTES", "1g"], fmt=self.fmt, extra=self.extra) as s:
            with s.client() as c:
                fill(c)
                cap_address_space(s)
                self.assertEqual(c.call("SAVE"), b"OK")
                uncap(s)
                # (After the cap: a digest that built a full copy would leave address
                # space behind for a save to reuse.)
                digest = c.call("DEBUG", "DIGEST-VALUE", "big")
            s.restart(timeout=60)
            with s.client() as c:
                check_survivors(self, c)
                self.assertEqual(c.call("DEBUG", "DIGEST-VALUE", "big"), digest)

    @time_limit(90)
    def test_scandump_of_a_filter_that_fits_only_once(self):
        with Server(["MAX_FILTER_BYTES", "1g"], fmt=self.fmt) as s, Server(["MAX_FILTER_BYTES", "1g"], fmt=self.fmt) as other:
            with s.client() as c:
                fill(c)
                cap_address_space(s)
                chunks = scandump(c, "big")
                uncap(s)
            self.assertIsInstance(chunks, list, chunks)
            self.assertGreater(len(chunks), 5)
            with other.client() as o:
                for iterator, data in chunks:
                    self.assertEqual(o.call("BF.LOADCHUNK", "copy", iterator, data), b"OK")
                for start in range(0, len(ITEMS), 1000):
                    self.assertEqual(o.call("BF.MEXISTS", "copy", *ITEMS[start:start + 1000]), [1] * 1000)

    @time_limit(90)
    def test_aof_rewrite_of_a_filter_that_fits_only_once(self):
        aof = ["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]
        with Server(["MAX_FILTER_BYTES", "1g"], fmt=self.fmt, extra=aof) as s:
            with s.client() as c:
                fill(c)
                cap_address_space(s, AOF_HEADROOM)
                # The rewrite runs in a forked child, under the same cap.
                c.ok("BGREWRITEAOF")
                for _ in range(600):
                    info = c.call("INFO", "persistence").decode()
                    if "aof_rewrite_in_progress:0" in info and "aof_rewrite_scheduled:0" in info:
                        break
                    time.sleep(0.05)
                self.assertIn("aof_last_bgrewrite_status:ok", info)
                uncap(s)
            s.restart(timeout=60)
            with s.client() as c:
                check_survivors(self, c)


class EncodingTest(unittest.TestCase):
    """Encoding version 2 of the native types (src/redis/native_type.h): the header as
    one string, then pieces of at most 64 KiB; version 1 (one string) still loads, and
    forged version-2 values are refused."""

    @time_limit(60)
    def test_version_2_layout_and_version_1_still_loads(self):
        with Server() as s, s.client() as c:
            c.ok("CONFIG", "SET", "rdbcompression", "no")
            c.ok("BF.RESERVE", "f", "0.01", "200000")  # 240 KB: several pieces
            items = ["e%d" % i for i in range(3000)]
            c.call("BF.MADD", "f", *items)
            serialized = b"".join(data for _, data in scandump(c, "f"))
            name, encver, values = rdb_layout.decode_module_value(c.call("DUMP", "f"))
            self.assertEqual((name, encver), ("bloomkitB", 2))
            self.assertEqual(values[0], (2, 0))  # ready
            pieces = [v for op, v in values[1:]]
            self.assertEqual(len(pieces[0]), 128)
            self.assertGreater(len(pieces), 4)
            self.assertTrue(all(0 < len(p) <= 65536 for p in pieces))
            self.assertEqual(b"".join(pieces), serialized)

            def restore(key, writer):
                return c.call("RESTORE", key, 0, writer.payload())

            # Version 1: the whole serialization in one string.
            old = rdb_layout.Writer("bloomkitB", 1)
            old.unsigned(0)
            old.string(serialized)
            self.assertEqual(restore("v1", old), b"OK")
            self.assertEqual(c.call("BF.MEXISTS", "v1", *items), [1] * len(items))
            # Version 1, a dump being loaded: completed by LOADCHUNK.
            partial = rdb_layout.Writer("bloomkitB", 1)
            partial.unsigned(1)
            partial.unsigned(len(serialized))
            partial.string(serialized[:1000])
            self.assertEqual(restore("v1p", partial), b"OK")
            self.assertEqual(c.call("BF.LOADCHUNK", "v1p", 1001, serialized[1000:]), b"OK")
            self.assertEqual(c.call("BF.MEXISTS", "v1p", *items), [1] * len(items))

            def v2(state, strings, received=None):
                w = rdb_layout.Writer("bloomkitB", 2)
                w.unsigned(state)
                if received is not None:
                    w.unsigned(received)
                for data in strings:
                    w.string(data)
                return w

            # Version 2, loading state, then completed by LOADCHUNK.
            self.assertEqual(restore("v2p", v2(1, [serialized[:128], serialized[128:5000]], 5000)), b"OK")
            self.assertEqual(c.call("BF.LOADCHUNK", "v2p", 5001, serialized[5000:]), b"OK")
            self.assertEqual(c.call("BF.MEXISTS", "v2p", *items), [1] * len(items))
            # Any cut into pieces loads.
            self.assertEqual(restore("v2cut", v2(0, [serialized[:128], serialized[128:129], serialized[129:]])), b"OK")
            self.assertEqual(c.call("BF.MEXISTS", "v2cut", *items), [1] * len(items))
            # Forged: a header that is not 128 bytes, an empty piece, a piece past the end,
            # a received count at or past the total, a checksum that fails, a wrong kind.
            flipped = bytearray(serialized)
            flipped[200] ^= 1
            forged = {
                "short header": v2(0, [serialized[:100], serialized[100:]]),
                "empty piece": v2(0, [serialized[:128], b"", serialized[128:]]),
                "piece past the end": v2(0, [serialized[:128], serialized[128:] + b"x"]),
                "received = total": v2(1, [serialized[:128], serialized[128:]], len(serialized)),
                "received < header": v2(1, [serialized[:128]], 100),
                "checksum": v2(0, [bytes(flipped[:128]), bytes(flipped[128:])]),
                "missing pieces": v2(0, [serialized[:128], serialized[128:1000]]),
            }
            cf = rdb_layout.Writer("bloomkitC", 2)
            cf.unsigned(0)
            cf.string(serialized[:128])
            cf.string(serialized[128:])
            forged["a BF dump as CF"] = cf
            for what, writer in forged.items():
                reply = restore("forged", writer)
                self.assertIsInstance(reply, ReplyError, what)
                self.assertEqual(c.call("EXISTS", "forged"), 0, what)
            self.assertEqual(c.call("PING"), b"PONG")


@unittest.skipIf(UNDER_ASAN, "RLIMIT_AS caps do not apply to a server running under AddressSanitizer")
class RedisBloomFormatTest(SaveUnderPressureTest):
    """RedisBloom's types (MBbloom--, MBbloomCF) keep RedisBloom's RDB layout, one RDB
    string per link's bit array, written from the filter's memory. Redis compresses
    every RDB string with LZF into a temporary buffer of the string's size (and stops,
    "Out Of Memory allocating", when that fails), so under the cap these saves need
    `rdbcompression no`; RedisBloom's own saves are the same. SCANDUMP and the AOF
    rewrite cut the links into chunks (16 MiB and 1 MiB) and need no copy of a link."""
    fmt = "redisbloom"
    extra = ["--rdbcompression", "no"]


if __name__ == "__main__":
    main()
