# SPDX-License-Identifier: Apache-2.0
"""MAX_FILTER_BYTES bounds RedisBloom-format filters as it bounds native ones: BF.RESERVE
and CF.RESERVE past it are refused, a scalable BF or an expanding CF stops growing at it
(the items already in keep answering, and the key saves and loads again), and
LOADCHUNK, RESTORE and the RDB of RedisBloom 2.8.20's own 395,512-byte filter
(tests/golden/redisbloom/bf_big) are refused under a smaller limit. The bound is the
filter's bytes in bloomkit's file format: bf_big's link table (73 bytes) and link,
rounded up to whole 8-byte words, 395,592 bytes: it loads at that limit, not a byte below."""

import os
import shutil
import unittest

from harness import ReplyError, Server, Simple, main, time_limit

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "golden", "redisbloom")
BF_BIG_BYTES = 395592


def golden(key, name):
    with open(os.path.join(GOLDEN, key, name), "rb") as f:
        return f.read()


class RedisBloomLimitsTest(unittest.TestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = Server(["MAX_FILTER_BYTES", "256kb"], fmt=None)  # the default: RedisBloom format
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def too_large(self, reply):
        self.assertIsInstance(reply, ReplyError, reply)
        self.assertTrue(reply.message.startswith("ERR filter too large"), reply)

    def test_reserves_past_the_limit_are_refused(self):
        with self.server.client() as c:
            self.too_large(c.call("BF.RESERVE", "bf", "0.01", "1000000"))
            self.too_large(c.call("CF.RESERVE", "cf", "1000000"))
            self.too_large(c.call("BF.INSERT", "bi", "CAPACITY", "1000000", "ITEMS", "a"))
            self.assertEqual(c.call("EXISTS", "bf", "cf", "bi"), 0)
            c.ok("BF.RESERVE", "fits", "0.01", "100000")  # 119,816 bytes
            self.assertEqual(c.call("TYPE", "fits"), Simple(b"MBbloom--"))

    @time_limit(60)
    def test_growth_stops_at_the_limit(self):
        with self.server.client() as c:
            c.ok("BF.RESERVE", "bs", "0.01", "5000", "EXPANSION", "4")  # links of 6 KB, 28 KB, 129 KB, 590 KB
            items = ["b%d" % i for i in range(120000)]
            replies = c.pipeline([("BF.MADD", "bs", *items[i:i + 1000]) for i in range(0, len(items), 1000)])
            flat = [r for reply in replies for r in reply]
            errors = [i for i, r in enumerate(flat) if isinstance(r, ReplyError)]
            self.assertTrue(errors, "the filter grew past MAX_FILTER_BYTES")
            self.too_large(flat[errors[0]])
            self.assertEqual(c.call("BF.INFO", "bs", "FILTERS"), [3])
            self.assertEqual(c.call("BF.MEXISTS", "bs", *items[:errors[0]]), [1] * errors[0])

            c.ok("CF.RESERVE", "cs", "16384", "EXPANSION", "4")  # sub-filters of 16 KB, 64 KB, 256 KB
            keys = ["c%d" % i for i in range(100000)]
            replies = c.pipeline([("CF.ADD", "cs", k) for k in keys])
            errors = [i for i, r in enumerate(replies) if isinstance(r, ReplyError)]
            self.assertTrue(errors, "the cuckoo filter grew past MAX_FILTER_BYTES")
            self.too_large(replies[errors[0]])
            self.assertEqual(c.call("CF.INFO", "cs")[5], 2)  # Number of filters
            self.assertEqual(c.call("CF.MEXISTS", "cs", *keys[:errors[0]]), [1] * errors[0])

            # Both save and load again under the same limit.
            before = [c.call("BF.INFO", "bs"), c.call("CF.INFO", "cs")]
            self.assertEqual(c.call("DEBUG", "RELOAD"), Simple(b"OK"))
            self.assertEqual([c.call("BF.INFO", "bs"), c.call("CF.INFO", "cs")], before)

    def test_loadchunk_and_restore_past_the_limit_are_refused(self):
        with self.server.client() as c:
            self.too_large(c.call("BF.LOADCHUNK", "lc", 1, golden("bf_big", "chunk000.bin")))
            reply = c.call("RESTORE", "rs", 0, golden("bf_big", "dump.bin"))
            self.assertIsInstance(reply, ReplyError, reply)
            self.assertTrue(reply.message.startswith("ERR Bad data format"), reply)
            self.assertEqual(c.call("EXISTS", "lc", "rs"), 0)
            self.assertIn("past the limit of 262144 bytes", self.server.log())

    @time_limit(60)
    def test_the_bound_is_the_file_size_of_the_filter(self):
        for limit, loads in ((BF_BIG_BYTES - 1, False), (BF_BIG_BYTES, True)):
            with Server(["MAX_FILTER_BYTES", str(limit)], fmt=None) as s, s.client() as c:
                chunk = c.call("BF.LOADCHUNK", "lc", 1, golden("bf_big", "chunk000.bin"))
                restore = c.call("RESTORE", "rs", 0, golden("bf_big", "dump.bin"))
                if loads:
                    self.assertEqual((chunk, restore), (Simple(b"OK"), Simple(b"OK")))
                    self.assertEqual(c.call("BF.EXISTS", "rs", "item:1"), 1)
                else:
                    self.too_large(chunk)
                    self.assertIsInstance(restore, ReplyError, restore)

    @time_limit(60)
    def test_an_rdb_past_the_limit_does_not_load(self):
        for limit, loads in (("256kb", False), (str(BF_BIG_BYTES), True)):
            s = Server(["MAX_FILTER_BYTES", limit], fmt=None)
            try:
                shutil.copy(os.path.join(GOLDEN, "redisbloom.rdb"), os.path.join(s.dir, "dump.rdb"))
                self.assertEqual(s.start(expect_failure=not loads), True if loads else False)
                if loads:
                    with s.client() as c:
                        self.assertEqual(c.call("BF.CARD", "bf_big"), 199984)
                else:
                    self.assertIn("past the limit of 262144 bytes", s.log())
            finally:
                s.cleanup()


if __name__ == "__main__":
    main()
