# SPDX-License-Identifier: Apache-2.0
"""Memory limits: a command that allocates a new filter, stage or pending dump is
refused with an OOM error when that would take used_memory past maxmemory (Redis
checks maxmemory only before a command runs), and never evicts other keys to make
room. A large reserve is zeroed lazily: it commits only the pages it touches."""

import struct
import unittest

from harness import ReplyError, Server, main, time_limit


def info_field(client, section, field):
    text = client.call("INFO", section).decode()
    return [line for line in text.split("\r\n") if line.startswith(field + ":")][0].split(":", 1)[1]


def resident_bytes(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


class MemoryLimitTest(unittest.TestCase):
    def assertOom(self, reply):
        self.assertIsInstance(reply, ReplyError)
        self.assertTrue(str(reply).startswith("OOM"), reply)

    @time_limit(60)
    def test_reserves_past_maxmemory_are_refused(self):
        with Server(["MAX_FILTER_BYTES", "2g"], extra=["--maxmemory", "50mb", "--maxmemory-policy", "noeviction"]) as s:
            with s.client() as c:
                self.assertOom(c.call("BF.RESERVE", "big", "0.01", "350000000"))
                self.assertOom(c.call("CF.RESERVE", "big", "400000000"))
                self.assertOom(c.call("CBF.RESERVE", "big", "0.01", "100000000"))
                self.assertOom(c.call("BF.INSERT", "big", "CAPACITY", "350000000", "ITEMS", "a"))
                self.assertEqual(c.call("EXISTS", "big"), 0)
                self.assertLess(int(info_field(c, "memory", "used_memory")), 50 << 20)
                # What fits is still created.
                self.assertEqual(c.call("BF.RESERVE", "small", "0.01", "100000"), b"OK")
                # A filter that grows past maxmemory stops growing with OOM, and keeps
                # every key it acknowledged.
                c.ok("BF.RESERVE", "grow", "0.01", "100000", "EXPANSION", "256")  # 120 KB, next stage 40 MB
                c.ok("BF.RESERVE", "fill", "0.01", "25000000")  # 30 MB: 38 MB more does not fit
                replies = c.pipeline([["BF.MADD", "grow"] + ["k%d:%d" % (j, i) for i in range(1000)]
                                      for j in range(110)])
                errors = [r for row in replies for r in row if isinstance(r, ReplyError)]
                self.assertTrue(errors, "the filter grew past maxmemory")
                self.assertOom(errors[0])
                self.assertLess(int(info_field(c, "memory", "used_memory")), 50 << 20)
                self.assertEqual(c.call("BF.EXISTS", "grow", "k0:0"), 1)

    @time_limit(60)
    def test_loadchunk_header_past_maxmemory_is_refused(self):
        with Server(["MAX_FILTER_BYTES", "1g"]) as big, Server(
                ["MAX_FILTER_BYTES", "1g"], extra=["--maxmemory", "50mb", "--maxmemory-policy", "noeviction"]) as small:
            with big.client() as b, small.client() as c:
                b.ok("BF.RESERVE", "f", "0.01", "60000000")  # 72 MB of bits
                iterator, header = b.call("BF.SCANDUMP", "f", "0")
                self.assertOom(c.call("BF.LOADCHUNK", "f", iterator, header))
                self.assertEqual(c.call("EXISTS", "f"), 0)

    @time_limit(60)
    def test_compressed_dumps_are_refused(self):
        """The module writes only uncompressed dumps, so a header announcing a zstd payload
        (which could claim hundreds of MiB in a few bytes) is refused before anything is kept."""
        with Server() as s:
            with s.client() as c:
                for family, create in (("BF", ["BF.RESERVE", "f", "0.01", "1000"]),
                                       ("CF", ["CF.RESERVE", "f", "1000"]),
                                       ("CBF", ["CBF.RESERVE", "f", "0.01", "1000"])):
                    c.ok(*create)
                    iterator, header = c.call(family + ".SCANDUMP", "f", "0")
                    forged = bytearray(header)
                    forged[20] |= 1  # flags bit 0: one zstd frame
                    forged[48:56] = struct.pack("<Q", 26)  # stored bytes: a tiny frame
                    reply = c.call(family + ".LOADCHUNK", "g", iterator, bytes(forged))
                    self.assertIsInstance(reply, ReplyError, family)
                    self.assertIn("compressed", str(reply))
                    self.assertEqual(c.call("EXISTS", "g"), 0)
                    c.call("DEL", "f")

    @time_limit(90)
    def test_large_reserves_evict_no_other_key(self):
        with Server(["MAX_FILTER_BYTES", "2g"], extra=["--maxmemory", "50mb", "--maxmemory-policy", "allkeys-lru"]) as s:
            with s.client() as c:
                c.pipeline([["SET", "key:%d" % i, "v" * 100] for i in range(20000)])
                self.assertEqual(c.call("DBSIZE"), 20000)
                self.assertOom(c.call("BF.RESERVE", "big1", "0.01", "350000000"))
                self.assertOom(c.call("BF.RESERVE", "big2", "0.01", "350000000"))
                c.call("PING")  # a next command, where Redis would evict
                self.assertEqual(c.call("DBSIZE"), 20000)
                self.assertEqual(int(info_field(c, "stats", "evicted_keys")), 0)

    @time_limit(60)
    def test_a_large_reserve_commits_only_what_it_touches(self):
        with Server() as s:
            with s.client() as c:
                pid = int(info_field(c, "server", "process_id"))
                before = resident_bytes(pid)
                c.ok("BF.RESERVE", "big", "0.001", "100000000")  # 180 MB of bits
                grown = resident_bytes(pid) - before
                self.assertLess(grown, 48 << 20, "a 180 MB reserve committed %d bytes" % grown)
                self.assertEqual(c.call("BF.ADD", "big", "x"), 1)
                self.assertEqual(c.call("BF.EXISTS", "big", "x"), 1)
                self.assertEqual(c.call("BF.EXISTS", "big", "y"), 0)


if __name__ == "__main__":
    main()
