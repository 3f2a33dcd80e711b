# SPDX-License-Identifier: Apache-2.0
"""Counts at their limit, 2^63 - 1, the most a filter keeps and a file holds: a key whose
count was loaded there (BF.LOADCHUNK of a 73-byte RedisBloom header whose chain size and
link size are 2^63 - 1, a cuckoo header of as many items, a native dump resealed with
that count) takes no add that would pass it. A Bloom chain or cuckoo filter refuses the
item with an error, a counting filter's count stops there; BF.CARD and the INFO counts
stay positive, and the key survives DEBUG RELOAD and SAVE + restart (an add past the
limit would make a key that Redis cannot load again, and the restart would fail)."""

import ctypes
import struct
import unittest

from harness import ReplyError, Server, Simple, main, scandump, time_limit

MAX = (1 << 63) - 1
HEADER_BYTES = 128
CHECKSUM_BYTES = 8

_xxh = ctypes.CDLL("libxxhash.so.0")
_xxh.XXH3_64bits.restype = ctypes.c_uint64
_xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


def reseal(data):
    """A bloomkit serialization (or one stage of it) with its XXH3-64 recomputed."""
    body = bytes(data[:-CHECKSUM_BYTES])
    return bytearray(body + struct.pack("<Q", _xxh.XXH3_64bits(body, len(body))))


def with_count(chunks, count, scalable):
    """The native dump `chunks` with the file's count (and a scalable filter's stage 0
    count) set to `count`, resealed and cut at the same iterators."""
    data = bytearray(b"".join(d for _, d in chunks))
    struct.pack_into("<Q", data, 40, count)
    if scalable:  # one stage, a classic file inside the payload
        stored = struct.unpack_from("<Q", data, HEADER_BYTES + 48)[0]
        end = HEADER_BYTES + HEADER_BYTES + stored + CHECKSUM_BYTES
        stage = bytearray(data[HEADER_BYTES:end])
        struct.pack_into("<Q", stage, 40, count)
        data[HEADER_BYTES:end] = reseal(stage)
    data = reseal(data)
    out, at = [], 0
    for it, d in chunks:
        out.append((it, bytes(data[at:at + len(d)])))
        at += len(d)
    return out


def items(info):
    fields = dict(zip(info[::2], info[1::2]))
    return fields[b"Number of items inserted"]


class CountLimitTest(unittest.TestCase):
    def assert_refused(self, reply, *parts):
        self.assertIsInstance(reply, ReplyError, reply)
        for part in parts:
            self.assertIn(part, reply.message)

    @time_limit(60)
    def test_redisbloom_keys_at_the_limit(self):
        with Server(fmt="redisbloom") as server:
            with server.client() as c:
                c.ok("BF.RESERVE", "tmpl", "0.01", 100)
                header = bytearray(scandump(c, "BF.SCANDUMP", "tmpl")[0][1])
                self.assertEqual(len(header), 73)
                struct.pack_into("<Q", header, 0, MAX)  # the chain's size
                struct.pack_into("<Q", header, 20 + 16, MAX)  # its link's size
                self.assertEqual(c.call("BF.LOADCHUNK", "bf", 1, bytes(header)), Simple(b"OK"))
                self.assert_refused(c.call("BF.ADD", "bf", "x"), "ERR problem inserting into filter",
                                    "9223372036854775807")
                reply = c.call("BF.MADD", "bf", "y", "z")
                self.assert_refused(reply[-1], "9223372036854775807")
                self.assertEqual(c.call("BF.CARD", "bf"), MAX)
                self.assertEqual(c.call("BF.INFO", "bf", "ITEMS"), [MAX])
                self.assertEqual(c.call("BF.INFO", "bf", "FILTERS"), [1])  # no link was added

                c.ok("CF.RESERVE", "tmplc", 1000)
                c.call("CF.ADD", "tmplc", "a")  # an empty filter has no chunks
                cuckoo = bytearray(scandump(c, "CF.SCANDUMP", "tmplc")[0][1])
                self.assertEqual(len(cuckoo), 38)
                struct.pack_into("<Q", cuckoo, 0, (1 << 64) - 1)  # items: no write reaches this
                self.assert_refused(c.call("CF.LOADCHUNK", "cf", 1, bytes(cuckoo)), "Couldn't create filter!")  # RedisBloom's text
                struct.pack_into("<Q", cuckoo, 0, MAX)
                struct.pack_into("<Q", cuckoo, 16, MAX)  # deletes
                self.assertEqual(c.call("CF.LOADCHUNK", "cf", 1, bytes(cuckoo)), Simple(b"OK"))
                self.assert_refused(c.call("CF.ADD", "cf", "x"), "Filter is full")
                self.assertEqual(c.call("CF.INSERT", "cf", "ITEMS", "y"), [-1])
                self.assertEqual(c.call("CF.EXISTS", "cf", "x"), 0)
                self.assertEqual(items(c.call("CF.INFO", "cf")), MAX)
                c.call("DEL", "tmpl", "tmplc")

                self.assertEqual(c.call("DEBUG", "RELOAD"), Simple(b"OK"))
                self.assertEqual(c.call("BF.CARD", "bf"), MAX)
                self.assertEqual(items(c.call("CF.INFO", "cf")), MAX)
                self.assertEqual(c.call("SAVE"), Simple(b"OK"))
            server.restart()
            with server.client() as c:
                self.assertEqual(c.call("DBSIZE"), 2)
                self.assertEqual(c.call("BF.CARD", "bf"), MAX)
                self.assertEqual(items(c.call("CF.INFO", "cf")), MAX)

    @time_limit(60)
    def test_native_keys_at_the_limit(self):
        with Server(fmt="native") as server:
            with server.client() as c:
                c.ok("BF.RESERVE", "tmpl", "0.01", 100)
                c.call("BF.ADD", "tmpl", "a")
                for it, data in with_count(scandump(c, "BF.SCANDUMP", "tmpl"), MAX, scalable=True):
                    self.assertEqual(c.call("BF.LOADCHUNK", "bf", it, data), Simple(b"OK"))
                self.assertEqual(c.call("BF.CARD", "bf"), MAX)
                self.assertEqual(c.call("BF.ADD", "bf", "a"), 0)  # present: nothing to count
                self.assert_refused(c.call("BF.ADD", "bf", "x"), "ERR problem inserting into filter",
                                    "9223372036854775807")
                self.assertEqual(c.call("BF.CARD", "bf"), MAX)

                c.ok("CBF.RESERVE", "tmplc", "0.01", 100)
                for it, data in with_count(scandump(c, "CBF.SCANDUMP", "tmplc"), MAX, scalable=False):
                    self.assertEqual(c.call("CBF.LOADCHUNK", "cbf", it, data), Simple(b"OK"))
                self.assertEqual(c.call("CBF.ADD", "cbf", "x"), 1)
                self.assertEqual(items(c.call("CBF.INFO", "cbf")), MAX)  # saturated, not negative
                c.call("DEL", "tmpl", "tmplc")

                self.assertEqual(c.call("DEBUG", "RELOAD"), Simple(b"OK"))
                self.assertEqual(c.call("DBSIZE"), 2)
                self.assertEqual(c.call("BF.CARD", "bf"), MAX)
                self.assertEqual(c.call("CBF.EXISTS", "cbf", "x"), 1)
                self.assertEqual(c.call("SAVE"), Simple(b"OK"))
            server.restart()
            with server.client() as c:
                self.assertEqual(c.call("DBSIZE"), 2)
                self.assertEqual(items(c.call("CBF.INFO", "cbf")), MAX)


if __name__ == "__main__":
    main()
