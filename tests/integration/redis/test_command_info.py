# SPDX-License-Identifier: Apache-2.0
"""COMMAND INFO shows RedisBloom's command tips, and BF.DEBUG / CF.DEBUG answer as RedisBloom's.

RedisBloom (src/cmd_info/bf_info.c and cf_info.c, v8.9.80) gives BF.INFO, BF.DEBUG,
BF.SCANDUMP, CF.INFO, CF.DEBUG and CF.SCANDUMP the tip "dont_cache" (their replies
describe the filter, so client-side caches must not keep them); the other commands
have none.
"""

import unittest

from harness import Server, main, time_limit

DONT_CACHE = {"bf.info", "bf.debug", "bf.scandump", "cf.info", "cf.debug", "cf.scandump"}
OTHERS = ["bf.reserve", "bf.add", "bf.madd", "bf.insert", "bf.exists", "bf.mexists", "bf.card", "bf.loadchunk",
          "cf.reserve", "cf.add", "cf.addnx", "cf.insert", "cf.insertnx", "cf.exists", "cf.mexists", "cf.count",
          "cf.del", "cf.compact", "cf.loadchunk"]


class CommandInfoTest(unittest.TestCase):
    @time_limit(30)
    def test_tips(self):
        with Server(fmt=None) as s, s.client() as c:
            for name in sorted(DONT_CACHE) + OTHERS:
                info = c.call("COMMAND", "INFO", name)[0]
                self.assertEqual(info[0], name.encode())
                tips = info[7]  # name, arity, flags, first, last, step, ACL categories, tips, ...
                self.assertEqual(tips, [b"dont_cache"] if name in DONT_CACHE else [], name)

    @time_limit(30)
    def test_debug_replies(self):
        with Server(fmt=None) as s, s.client() as c:
            c.ok("BF.RESERVE", "b", "0.01", "10")
            c.call("BF.MADD", "b", *["i%d" % i for i in range(15)])
            # RedisBloom's bloom_init: bits = entries * -ln(error) / ln(2)^2, rounded up to
            # 64-bit words; hashes = ceil(ln 2 * bits per entry). Link 0: 10 items at 0.005
            # (110 bits -> 128), link 1: 20 at 0.0025 (249 bits -> 256).
            self.assertEqual(c.call("BF.DEBUG", "b"), [
                b"size:15",
                b"bytes:16 bits:128 hashes:8 hashwidth:64 capacity:10 size:10 ratio:0.005",
                b"bytes:32 bits:256 hashes:9 hashwidth:64 capacity:20 size:5 ratio:0.0025"])
            c.ok("CF.RESERVE", "c", "100", "BUCKETSIZE", "4", "MAXITERATIONS", "7", "EXPANSION", "2")
            c.call("CF.ADD", "c", "x")
            c.call("CF.ADD", "c", "y")
            c.call("CF.DEL", "c", "y")
            self.assertEqual(c.call("CF.DEBUG", "c"),
                             b"bktsize:4 buckets:32 items:1 deletes:1 filters:1 max_iterations:7 expansion:2")


if __name__ == "__main__":
    main()
