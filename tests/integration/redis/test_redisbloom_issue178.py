# SPDX-License-Identifier: Apache-2.0
"""RedisBloom's test for its issue 178: BF.RESERVE bf 0.000001 300000000 (a 1.1 GB link).

RedisBloom accepts it, so bloomkit.so must too under its default module arguments: a
RedisBloom-format filter has no size limit unless MAX_FILTER_BYTES is given. The bit
array is zeroed lazily, so the reserve commits almost nothing: the server's RSS grows by
the pages the adds touch, not by 1.1 GB. heavy_redisbloom_issue178_restart.py saves and
reloads such a filter (label heavy: 2.2 GB at its peak while Redis loads the RDB).
"""

import unittest

from harness import ReplyError, Server, main, time_limit


def memory(c):
    info = c.call("INFO", "memory").decode()
    fields = dict(line.split(":", 1) for line in info.split("\r\n") if ":" in line)
    return int(fields["used_memory"]), int(fields["used_memory_rss"])


class Issue178Test(unittest.TestCase):
    @time_limit(60)
    def test_reserve_is_accepted_with_default_arguments(self):
        with Server(fmt=None) as s, s.client() as c:
            _, rss_before = memory(c)
            c.ok("BF.RESERVE", "bf", "0.000001", "300000000")
            self.assertEqual(c.call("BF.INFO", "bf", "SIZE"), [1132420232])
            self.assertEqual(c.call("BF.MADD", "bf", *["item%d" % i for i in range(100)]), [1] * 100)
            self.assertEqual(c.call("BF.EXISTS", "bf", "item7"), 1)
            self.assertEqual(c.call("BF.EXISTS", "bf", "absent"), 0)
            used, rss = memory(c)
            self.assertGreater(used, 1132420232)  # Redis counts the whole array
            # 100 items of 21 hashes touch at most 2100 pages (8.2 MiB; under ASan as many
            # shadow pages again); the rest of the 1.1 GB was never committed.
            self.assertLess(rss - rss_before, 64 << 20, (rss_before, rss))
            # A MAX_FILTER_BYTES that was given still applies.
        with Server(["MAX_FILTER_BYTES", "512mb"], fmt=None) as s, s.client() as c:
            reply = c.call("BF.RESERVE", "bf", "0.000001", "300000000")
            self.assertIsInstance(reply, ReplyError)
            self.assertTrue(reply.message.startswith("ERR filter too large"), reply)

    @time_limit(60)
    def test_cuckoo_at_redisbloom_capacity_limit(self):
        """CF.RESERVE at RedisBloom 8's largest capacity, 2^30 (512 MiB of buckets)."""
        with Server(fmt=None) as s, s.client() as c:
            c.ok("CF.RESERVE", "cf", str(1 << 30))
            self.assertEqual(c.call("CF.ADD", "cf", "x"), 1)
            self.assertEqual(c.call("CF.EXISTS", "cf", "x"), 1)


if __name__ == "__main__":
    main()
