# SPDX-License-Identifier: Apache-2.0
"""DEBUG DIGEST-VALUE of a RedisBloom-format filter streams the filter from its own memory,
as a native filter's digest does, instead of building the filter's whole DUMP payload
first, a copy outside Redis' accounting (for a 1 GiB filter, 969 MiB of RSS). A filter of
64 MiB filled with random bits (so that no copy compresses) takes its digest with the
server's peak RSS growing by far less than the filter; and digests tell filters apart:
equal for equal filters, different after an add."""

import os
import struct
import unittest

from harness import Server, Simple, main, time_limit

CAPACITY = 56000000  # NONSCALING, error rate 0.01: one link of 67,095,416 bytes
CHUNK = 16 << 20


def status_kib(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


def reset_peak(pid):
    """Resets VmHWM to the current RSS (Linux 4.0 and later); False where refused."""
    try:
        with open("/proc/%d/clear_refs" % pid, "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


class RedisBloomDigestTest(unittest.TestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = Server(fmt=None)  # the default: RedisBloom format
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def digest(self, c, *keys):
        return c.call("DEBUG", "DIGEST-VALUE", *keys)

    @time_limit(120)
    def test_digest_of_a_large_filter_makes_no_copy(self):
        pid = self.server.proc.pid
        with self.server.client() as c:
            c.ok("BF.RESERVE", "big", "0.01", CAPACITY, "NONSCALING")
            it, header = c.call("BF.SCANDUMP", "big", 0)
            self.assertEqual(it, 1)
            link_bytes = struct.unpack_from("<Q", header, 20)[0]
            self.assertGreater(link_bytes, 60 << 20)
            # Random bits: a DUMP payload of them does not compress (LZF gives up).
            for offset in range(0, link_bytes, CHUNK):
                n = min(CHUNK, link_bytes - offset)
                c.ok("BF.LOADCHUNK", "big", 1 + offset + n, os.urandom(n))
            first = self.digest(c, "big")
            rss = status_kib(pid, "VmRSS")
            exact = reset_peak(pid)
            peak_before = status_kib(pid, "VmHWM")
            self.assertEqual(self.digest(c, "big"), first)
            growth = status_kib(pid, "VmHWM") - (rss if exact else peak_before)
            self.assertLess(growth * 1024, link_bytes // 8,
                            "DEBUG DIGEST-VALUE of a %d-byte filter raised the peak RSS by %d KiB%s"
                            % (link_bytes, growth, "" if exact else " (VmHWM not resettable)"))
            self.assertEqual(c.call("PING"), Simple(b"PONG"))
            c.call("DEL", "big")

    @time_limit(60)
    def test_digests_tell_filters_apart(self):
        with self.server.client() as c:
            for kind, make, add in (("BF", ("BF.RESERVE", "0.01", 1000, "EXPANSION", 2), "BF.ADD"),
                                    ("CF", ("CF.RESERVE", 1000, "EXPANSION", 2), "CF.ADD")):
                one, two = kind + ":one", kind + ":two"
                c.ok(make[0], one, *make[1:])
                c.ok(make[0], two, *make[1:])
                # The BF grows a second link, the CF more sub-filters.
                c.pipeline([(add, key, "k%d" % i) for key in (one, two) for i in range(3000)])
                a, b = self.digest(c, one, two)
                self.assertEqual(a, b, kind)
                self.assertNotEqual(a, b"0" * 40, kind)
                self.assertEqual(c.call(add, two, "another"), 1)
                a, b = self.digest(c, one, two)
                self.assertNotEqual(a, b, kind)
                self.assertEqual(c.call("DEBUG", "RELOAD"), Simple(b"OK"))
                self.assertEqual(self.digest(c, one, two), [a, b], kind)


if __name__ == "__main__":
    main()
