#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of windowed filters in the bloomkit tool: create, dedup, add, query
and info at times set with BLOOMKIT_NOW_MS (milliseconds since the Unix epoch).

Usage: windowed_test.py PATH/TO/bloomkit [TestClass ...]

Same rules as cli_test.py (whose helpers this uses): the built binary as a real process
on real files in a temporary directory.
"""

import json
import os
import sys
import unittest

import cli_test
from cli_test import EXIT_NONE_FOUND, EXIT_OK, EXIT_USAGE, CliTestCase, run

HOUR = 3_600_000
T = 1_700_000_000_000  # a moment in 2023, in milliseconds


def at(ms, *args, stdin=None, check=None):
    """Runs bloomkit with its clock at `ms`."""
    os.environ["BLOOMKIT_NOW_MS"] = str(ms)
    try:
        return run(*args, stdin=stdin, check=check)
    finally:
        del os.environ["BLOOMKIT_NOW_MS"]


def lines(out):
    return out.decode().split()


class WindowedCliTest(CliTestCase):
    def setUp(self):
        super().setUp()
        self.bf = self.path("seen.bf")
        at(T, "create", self.bf, "--kind", "windowed", "--capacity", 1000, "--window", "24h", "--generations", 24,
           check=EXIT_OK)

    def dedup(self, ms, keys):
        _, out, _ = at(ms, "dedup", self.bf, "-q", "--no-progress", stdin="".join(k + "\n" for k in keys),
                       check=EXIT_OK)
        return lines(out)

    def info(self, ms):
        _, out, _ = at(ms, "info", self.bf, "--json", check=EXIT_OK)
        return json.loads(out)

    def test_dedup_forgets_a_key_after_the_window(self):
        self.assertEqual(self.dedup(T, ["a", "b", "a"]), ["a", "b"])
        # Exactly 24 hours later both are still remembered (query: dedup would record a
        # again) ...
        code, _, _ = at(T + 24 * HOUR, "query", self.bf, "--no-progress", "-q", stdin="a\nb\n")
        self.assertEqual(code, EXIT_OK)
        # ... and one generation (1 hour) after the window they are new again.
        self.assertEqual(self.dedup(T + 25 * HOUR, ["a", "b", "c"]), ["a", "b", "c"])

    def test_a_key_seen_again_is_kept_for_another_window(self):
        self.assertEqual(self.dedup(T, ["a", "b"]), ["a", "b"])
        self.assertEqual(self.dedup(T + 20 * HOUR, ["a"]), [])
        self.assertEqual(self.dedup(T + 30 * HOUR, ["a", "b"]), ["b"])

    def test_query_and_add_use_the_clock(self):
        cli_test.write_keys(self.path("k.txt"), ["x", "y"])
        at(T, "add", self.bf, self.path("k.txt"), "--no-progress", check=EXIT_OK)
        code, out, _ = at(T + 24 * HOUR, "query", self.bf, "--no-progress", stdin="x\n")
        self.assertEqual(code, EXIT_OK)
        code, out, _ = at(T + 25 * HOUR, "query", self.bf, "--no-progress", stdin="x\n")
        self.assertEqual(code, EXIT_NONE_FOUND, out)

    def test_info_shows_the_window_and_the_generations(self):
        self.dedup(T, ["a", "b"])
        self.dedup(T + 2 * HOUR, ["c"])
        info = self.info(T + 2 * HOUR)
        self.assertEqual(info["kind"], "windowed")
        self.assertEqual(info["window_ms"], 24 * HOUR)
        self.assertEqual(info["generations"], 24)
        self.assertEqual(info["now_ms"], T + 2 * HOUR)
        self.assertEqual(info["live_generations"], 2)
        self.assertEqual(info["count"], 3)
        self.assertFalse(info["over_capacity"])
        self.assertEqual(self.info(T + 40 * HOUR)["count"], 0)
        _, out, _ = at(T, "info", self.bf, check=EXIT_OK)
        self.assertIn("1d in 24 generations of 1h", out.decode())

    def test_generations_default_to_the_cores_eight(self):
        other = self.path("default.bf")
        at(T, "create", other, "--kind", "windowed", "--capacity", 1000, "--window", "24h", check=EXIT_OK)
        _, out, _ = at(T, "info", other, "--json", check=EXIT_OK)
        self.assertEqual(json.loads(out)["generations"], 8)

    def test_steady_sizing_is_kept_in_the_file_and_spends_fewer_bits(self):
        bits = {}
        for sizing in ("any", "steady"):
            f = self.path(sizing + ".bf")
            at(T, "create", f, "--kind", "windowed", "--capacity", 10000, "--window", "8h", "--sizing", sizing,
               check=EXIT_OK)
            at(T, "add", f, "--no-progress", stdin="".join(f"k{i}\n" for i in range(1000)), check=EXIT_OK)
            _, out, _ = at(T, "info", f, "--json", check=EXIT_OK)
            info = json.loads(out)
            self.assertEqual(info["sizing"], sizing)
            bits[sizing] = info["bits"]
            code, _, _ = at(T, "query", f, "-q", "--no-progress", stdin="k999\n")
            self.assertEqual(code, EXIT_OK)
        self.assertLess(bits["steady"], bits["any"])
        for args, fragment in ((["--kind", "windowed", "--sizing", "fast"], "--sizing must be any or steady, got fast"),
                               (["--kind", "classic", "--sizing", "steady"], "--sizing applies to --kind windowed")):
            code, _, err = at(T, "create", self.path("bad.bf"), "--capacity", 10, *args)
            self.assertEqual(code, EXIT_USAGE, args)
            self.assertOneLineError(err, fragment)

    def test_a_clock_that_goes_back_acts_at_the_latest_time(self):
        self.dedup(T, ["a"])
        self.assertEqual(self.dedup(T - 5 * HOUR, ["a", "b"]), ["b"])
        self.assertEqual(self.info(T - 5 * HOUR)["now_ms"], T)
        # b was recorded at T, not at T - 5h: it is kept until T + 24h.
        self.assertEqual(self.dedup(T + 24 * HOUR, ["b"]), [])

    def test_dedup_can_create_a_windowed_filter_with_the_default_window(self):
        new = self.path("new.bf")
        _, out, _ = at(T, "dedup", new, "--create", "--kind", "windowed", "--capacity", 100, "-q", "--no-progress",
                       stdin="a\na\n", check=EXIT_OK)
        self.assertEqual(lines(out), ["a"])
        _, out, _ = at(T, "info", new, "--json", check=EXIT_OK)
        self.assertEqual(json.loads(out)["window_ms"], 24 * HOUR)

    def test_over_capacity_is_reported(self):
        small = self.path("small.bf")
        at(T, "create", small, "--kind", "windowed", "--capacity", 8, "--window", "4s", "--generations", 4,
           check=EXIT_OK)
        keys = "".join(f"k{i}\n" for i in range(200))
        at(T, "add", small, "--no-progress", stdin=keys, check=EXIT_OK)
        _, out, _ = at(T, "info", small, "--json", check=EXIT_OK)
        info = json.loads(out)
        self.assertTrue(info["over_capacity"])
        self.assertGreater(info["estimated_fp_rate"], info["fp_rate"])

    def test_bad_windows_are_usage_errors(self):
        cases = [
            (["--window", "7s", "--generations", 3], "--window 7s (7000 ms) is not a whole number"),
            (["--window", "soon"], "--window: expected a duration such as 24h"),
            (["--window", "0h"], "--window: must be in [1ms"),
            (["--generations", 0], "--generations must be in [1, 1024], got 0"),
        ]
        for args, fragment in cases:
            code, _, err = at(T, "create", self.path("bad.bf"), "--kind", "windowed", "--capacity", 10, *args)
            self.assertEqual(code, EXIT_USAGE, args)
            self.assertOneLineError(err, fragment)
            self.assertFalse(os.path.exists(self.path("bad.bf")))
        os.environ["BLOOMKIT_NOW_MS"] = "yesterday"
        try:
            code, _, err = run("info", self.bf)
        finally:
            del os.environ["BLOOMKIT_NOW_MS"]
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "BLOOMKIT_NOW_MS must be a whole number of milliseconds, got 'yesterday'")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: windowed_test.py PATH/TO/bloomkit [TestClass ...]")
    cli_test.BLOOMKIT = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[2:]])


if __name__ == "__main__":
    main()
