# SPDX-License-Identifier: Apache-2.0
"""INFO bloomkit: filters by type, filter bytes, pending loads, commands and errors.

Read through redis-py's INFO parser (what dashboards and exporters use) and checked
against the operations the test performs; the module sections appear for INFO bloomkit,
INFO bloomkit_<section>, INFO modules and INFO everything, and not in plain INFO.
"""

import unittest

from harness import ReplyError, Server, main, time_limit

FILTER_FIELDS = ["bf_redisbloom", "cf_redisbloom", "bf_native", "cf_native", "cbf_native", "tbf_native", "bf_foreign",
                 "filters", "filter_bytes", "pending_loads"]
COMMAND_FIELDS = ["bf_commands", "bf_errors", "cf_commands", "cf_errors", "cbf_commands", "cbf_errors",
                  "tbf_commands", "tbf_errors"]


def info(r, section="bloomkit", prefix="bloomkit_"):
    raw = r.info(section)
    return {k[len(prefix):]: v for k, v in raw.items() if k.startswith(prefix)}


class InfoTest(unittest.TestCase):
    @time_limit(60)
    def test_native_filters_bytes_pending_loads_and_commands(self):
        with Server() as server:
            r = server.redis_py()
            start = info(r)
            self.assertEqual(sorted(start), sorted(FILTER_FIELDS + COMMAND_FIELDS))
            self.assertTrue(all(v == 0 for v in start.values()), start)

            # Stage 0 at 0.5%: 11,027,754 bits, 1,378,472 bytes; jemalloc rounds the block up
            # to its size class (at most 25% more).
            r.execute_command("BF.RESERVE", "big", "0.01", "1000000")
            r.execute_command("CF.RESERVE", "c", "1000")
            r.execute_command("CBF.ADD", "n", "x")
            now = info(r)
            self.assertEqual((now["bf_native"], now["cf_native"], now["cbf_native"]), (1, 1, 1))
            self.assertEqual((now["bf_redisbloom"], now["cf_redisbloom"], now["filters"]), (0, 0, 3))
            self.assertGreaterEqual(now["filter_bytes"], 1378472)
            self.assertLess(now["filter_bytes"], 1378472 * 1.25 + 64 * 1024)
            self.assertEqual((now["bf_commands"], now["cf_commands"], now["cbf_commands"]), (1, 1, 1))

            # Errors: a whole-command error, a wrong arity, and an error element in an array.
            self.assertRaises(Exception, r.execute_command, "BF.RESERVE", "big", "0.01", "10")
            self.assertRaises(Exception, r.execute_command, "BF.ADD", "big")
            r.execute_command("BF.RESERVE", "tiny", "0.01", "2", "NONSCALING")
            madd = r.execute_command("BF.MADD", "tiny", "a", "b", "c")
            self.assertIsInstance(madd[-1], Exception)
            r.execute_command("BF.EXISTS", "big", "a")
            r.execute_command("CF.EXISTS", "c", "a")
            now = info(r)
            self.assertEqual((now["bf_commands"], now["bf_errors"]), (6, 3))
            self.assertEqual((now["cf_commands"], now["cf_errors"]), (2, 0))
            self.assertEqual((now["cbf_commands"], now["cbf_errors"]), (1, 0))

            # A LOADCHUNK in progress is a pending load until its last chunk, or its DEL.
            chunks = []
            it = 0
            while True:
                it, data = r.execute_command("BF.SCANDUMP", "big", it)
                if it == 0:
                    break
                chunks.append((it, data))
            self.assertGreater(len(chunks), 1)
            for target in ("copy", "dropped"):
                r.execute_command("BF.LOADCHUNK", target, *chunks[0])
            self.assertEqual(info(r)["pending_loads"], 2)
            for chunk in chunks[1:]:
                r.execute_command("BF.LOADCHUNK", "copy", *chunk)
            self.assertEqual(info(r)["pending_loads"], 1)
            r.delete("dropped")
            now = info(r)
            self.assertEqual((now["pending_loads"], now["bf_native"]), (0, 3))

            # Freed filters leave the counts and the bytes.
            before = now["filter_bytes"]
            r.delete("big", "copy")
            now = info(r)
            self.assertEqual((now["bf_native"], now["filters"]), (1, 3))
            self.assertLessEqual(now["filter_bytes"], before - 2 * 1378472)
            # SYNC: Valkey 8 frees a FLUSHALL's keys in the background by default
            # (lazyfree-lazy-user-flush yes), and the counts would drop later.
            r.execute_command("FLUSHALL", "SYNC")
            now = info(r)
            self.assertEqual((now["filters"], now["filter_bytes"], now["pending_loads"]), (0, 0, 0))

    @time_limit(60)
    def test_redisbloom_filters_and_which_info_shows_the_sections(self):
        with Server(fmt="redisbloom") as server:
            r = server.redis_py()
            r.execute_command("BF.ADD", "b", "x")
            r.execute_command("CF.ADD", "c", "x")
            r.execute_command("CF.ADD", "c2", "x")
            now = info(r)
            self.assertEqual((now["bf_redisbloom"], now["cf_redisbloom"], now["filters"]), (1, 2, 3))
            self.assertGreater(now["filter_bytes"], 0)
            self.assertEqual(now["cf_commands"], 2)
            with server.client() as c:
                plain = c.call("INFO").decode()
                self.assertNotIn("# bloomkit_", plain)
                self.assertIn("module:name=bloomkit", plain)
                for section in ("bloomkit", "modules", "everything"):
                    text = c.call("INFO", section).decode()
                    self.assertIn("# bloomkit_filters\r\nbloomkit_bf_redisbloom:1\r\n", text, section)
                    self.assertIn("# bloomkit_commands\r\n", text, section)
                one = c.call("INFO", "bloomkit_commands").decode()
                self.assertIn("bloomkit_cf_commands:2", one)
                self.assertNotIn("bloomkit_filters", one)
                self.assertNotIn("# Server", one)

    @time_limit(30)
    def test_identity_redisbloom_names_the_sections_bf(self):
        with Server(["IDENTITY", "redisbloom"]) as server:
            r = server.redis_py()
            r.execute_command("BF.ADD", "b", "x")
            now = info(r, "bf", "bf_")
            self.assertEqual((now["bf_native"], now["bf_commands"]), (1, 1))


if __name__ == "__main__":
    main()
