# SPDX-License-Identifier: Apache-2.0
"""Counts at their limit, 2^63 - 1, the most a filter keeps and a file holds: a filter of
every kind loaded with its counts there (bytes patched, checksum resealed) is added to,
removed from and merged, and what it then saves loads again. A Bloom filter's count stops
at the limit; a scalable filter and RedisBloom's two kinds refuse the new key with
bloomkit.FullError, which names the limit."""

from __future__ import annotations

import ctypes
import pickle
import struct

import pytest

import bloomkit
from conftest import FACTORIES

MAX = (1 << 63) - 1
HEADER = 128
COUNT = 40
DELETES = 72 + 8 * 5  # params[5] of a cuckoo file

_xxh = ctypes.CDLL("libxxhash.so.0")
_xxh.XXH3_64bits.restype = ctypes.c_uint64
_xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


def reseal(data: bytearray) -> bytearray:
    body = bytes(data[:-8])
    return bytearray(body + struct.pack("<Q", _xxh.XXH3_64bits(body, len(body))))


def put(data: bytearray, offset: int, value: int) -> None:
    struct.pack_into("<Q", data, offset, value)


def at_limit(kind: str, data: bytearray) -> bytearray:
    """The serialization `data` of a filter of `kind` with its counts at the limit."""
    if kind == "cuckoo":  # the count is the fingerprints stored; deletes are free
        put(data, DELETES, MAX)
    elif kind == "scalable":  # one stage, a classic file inside the payload
        put(data, COUNT, MAX)
        stored = struct.unpack_from("<Q", data, HEADER + 48)[0]
        end = HEADER + HEADER + stored + 8
        stage = bytearray(data[HEADER:end])
        put(stage, COUNT, MAX)
        data[HEADER:end] = reseal(stage)
    elif kind == "windowed":  # slot records; the one live slot holds one blocked stage
        put(data, COUNT, MAX)
        offset = HEADER
        for _ in range(struct.unpack_from("<Q", data, 72 + 8)[0] + 1):  # generations + 1 slots
            stages = struct.unpack_from("<Q", data, offset + 8)[0]
            offset += 64
            if stages:
                stored = struct.unpack_from("<Q", data, offset + 48)[0]
                end = offset + HEADER + stored + 8
                stage = bytearray(data[offset:end])
                put(stage, COUNT, MAX)
                data[offset:end] = reseal(stage)
                break
    elif kind == "redisbloom-bf":  # the link table: the chain's size, then link 0's
        put(data, COUNT, MAX)
        put(data, HEADER, MAX)
        put(data, HEADER + 20 + 16, MAX)
    elif kind == "redisbloom-cf":  # the cuckoo header: items, then deletes
        put(data, COUNT, MAX)
        put(data, DELETES, MAX)
        put(data, HEADER, MAX)
        put(data, HEADER + 16, MAX)
    else:
        put(data, COUNT, MAX)
    return reseal(data)


REFUSING = {"scalable", "redisbloom-bf", "redisbloom-cf"}


@pytest.mark.parametrize("kind", sorted(FACTORIES))
def test_a_filter_at_the_count_limit_saves_what_loads(kind):
    empty = FACTORIES[kind]()
    empty.add(b"present")
    cls = type(empty)
    full = cls.from_bytes(bytes(at_limit(kind, bytearray(empty.to_bytes()))))
    assert b"present" in full
    if kind in REFUSING:
        assert len(full) == MAX
        with pytest.raises(bloomkit.FullError, match="9223372036854775807"):
            full.add(b"new key")
        with pytest.raises(bloomkit.FullError):
            full.update([b"a", b"b"])
        assert b"new key" not in full
        assert len(full) == MAX
    else:
        full.add(b"new key")
        full.update([b"k%d" % i for i in range(100)])
        assert b"new key" in full
        if kind != "cuckoo":
            assert len(full) == MAX
    if hasattr(full, "discard"):
        assert full.discard(b"present")
    if hasattr(full, "union"):
        full |= full.copy()
        assert len(full) <= MAX
    again = cls.from_bytes(full.to_bytes())
    assert again == full
    assert len(again) <= MAX
    assert pickle.loads(pickle.dumps(full)) == full
    if hasattr(full, "dump"):
        assert cls.from_dump(full.dump()) == full


def test_merged_full_filters_save_what_loads():
    for cls, bits, hashes in ((bloomkit.BloomFilter, 64, 1), (bloomkit.BlockedBloomFilter, 512, 8)):
        f = cls(num_bits=bits, num_hashes=hashes)
        i = 0
        while f.info()["fill_ratio"] < 1 and i < 1000:
            f.update([b"%d:%d" % (i, j) for j in range(64)])
            i += 1
        f |= f.copy()  # every bit set: the estimate is 2^64 - 1, the count stops at 2^63 - 1
        assert len(f) <= MAX
        assert cls.from_bytes(f.to_bytes()) == f


def test_counts_past_the_limit_are_refused_on_load():
    f = bloomkit.RedisCuckooFilter(capacity=1000)
    data = bytearray(f.to_bytes())
    put(data, HEADER, MAX + 1)
    put(data, COUNT, MAX + 1)
    with pytest.raises(bloomkit.CorruptFileError, match="9223372036854775808"):
        bloomkit.RedisCuckooFilter.from_bytes(bytes(reseal(data)))
    c = bloomkit.CuckooFilter(capacity=1000, fp_rate=0.01)
    data = bytearray(c.to_bytes())
    put(data, DELETES, (1 << 64) - 1)
    with pytest.raises(bloomkit.CorruptFileError, match="18446744073709551615"):
        bloomkit.CuckooFilter.from_bytes(bytes(reseal(data)))
