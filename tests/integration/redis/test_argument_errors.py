# SPDX-License-Identifier: Apache-2.0
"""Argument and sizing errors name their real cause, in both filter formats.

RedisBloom 2.8.20 (src/rebloom.c, deps/bloom/bloom.c) answers BF.RESERVE k 5e-324 1000
with "ERR could not create filter": its first link gets half the rate, which rounds to
0. It accepts 1e-300 (998 hashes). bloomkit's native stages take at most 64 hashes, so
there the reply starts with the same text and names the rate, never "filter too large".
"""

import unittest

from harness import ReplyError, Server, main, time_limit


class ErrorCauseTest(unittest.TestCase):
    def expect(self, reply, prefix, *parts):
        self.assertIsInstance(reply, ReplyError, reply)
        self.assertTrue(reply.message.startswith(prefix), "%r does not start with %r" % (reply.message, prefix))
        for part in parts:
            self.assertIn(part, reply.message)
        self.assertNotIn("too large", reply.message)

    @time_limit(30)
    def test_native_rates_too_small_for_any_stage(self):
        with Server() as server, server.client() as c:
            self.expect(c.call("BF.RESERVE", "k", "5e-324", "1000"), "ERR could not create filter",
                        "5e-324", "too small", "rounds to 0")
            self.expect(c.call("BF.RESERVE", "k", "1e-300", "1000"), "ERR could not create filter",
                        "1e-300", "998 hashes", "more than the maximum of 64")
            self.expect(c.call("BF.INSERT", "k", "ERROR", "1e-300", "ITEMS", "a"), "ERR could not create filter",
                        "998 hashes")
            self.expect(c.call("CBF.RESERVE", "c", "1e-300", "100"), "ERR could not create filter",
                        "997 hashes")
            self.assertEqual(c.call("EXISTS", "k", "c"), 0)
            c.ok("BF.RESERVE", "ok", "1e-19", "1000")

    @time_limit(30)
    def test_native_chain_that_cannot_grow_is_full_not_too_large(self):
        """Error 0.5, expansion 1: stage 63 would need 65 hashes, after 63 items in 664 bytes."""
        with Server() as server, server.client() as c:
            c.ok("BF.RESERVE", "e", "0.5", "1", "EXPANSION", "1")
            replies = [c.call("BF.ADD", "e", "i%d" % i) for i in range(80)]
            errors = [r for r in replies if isinstance(r, ReplyError)]
            self.assertTrue(errors, replies)
            self.expect(errors[0], "ERR problem inserting into filter", "stage 63", "65 hashes")
            self.assertEqual(c.call("BF.INFO", "e", "FILTERS"), [63])
            madd = c.call("BF.MADD", "e", "x1", "x2")
            self.expect(madd[-1], "ERR problem inserting into filter", "65 hashes")
            # A NONSCALING filter that fills up keeps RedisBloom's own text.
            c.ok("BF.RESERVE", "n", "0.01", "2", "NONSCALING")
            self.assertEqual(c.call("BF.MADD", "n", "a", "b", "c")[-1], ReplyError("ERR non scaling filter is full"))

    @time_limit(30)
    def test_redisbloom_format_answers_as_redisbloom(self):
        with Server(fmt="redisbloom") as server, server.client() as c:
            self.expect(c.call("BF.RESERVE", "k", "5e-324", "1000"), "ERR could not create filter",
                        "5e-324", "rounds to 0")
            self.assertEqual(c.call("EXISTS", "k"), 0)
            # RedisBloom sizes 998 hashes without complaint, and so does its format here.
            c.ok("BF.RESERVE", "k", "1e-300", "1000")
            self.assertEqual(c.call("BF.ADD", "k", "a"), 1)
            self.assertEqual(c.call("BF.EXISTS", "k", "a"), 1)


if __name__ == "__main__":
    main()
