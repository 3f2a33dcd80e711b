# SPDX-License-Identifier: Apache-2.0
"""An RDB holding RedisBloom's issue-178 filter (1.1 GB) loads after a restart.

Label heavy: the save compresses 1.1 GB (about 8 s) and loading holds the RDB string and
the filter at once (2.2 GB resident at the peak, about 20 s). Run it with
`ctest --preset release -L heavy`.
"""

import unittest

from harness import Server, main, time_limit


class Issue178RestartTest(unittest.TestCase):
    @time_limit(150)
    def test_rdb_with_issue178_filter_loads(self):
        with Server(fmt=None) as s:
            with s.client() as c:
                c.ok("BF.RESERVE", "bf", "0.000001", "300000000")
                self.assertEqual(c.call("BF.MADD", "bf", "a", "b", "c"), [1, 1, 1])
                c.ok("SAVE")
            s.restart(timeout=120)
            with s.client() as c:
                self.assertEqual(c.call("BF.MEXISTS", "bf", "a", "b", "c", "d"), [1, 1, 1, 0])
                self.assertEqual(c.call("BF.INFO", "bf", "SIZE"), [1132420232])
                self.assertEqual(c.call("BF.CARD", "bf"), 3)


if __name__ == "__main__":
    main()
