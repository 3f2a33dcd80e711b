#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end: `bloomkit export --format parquet --fold-to RATE`, a Parquet filter sized
for the most values a column chunk may hold and folded to what it held.

Usage: parquet_fold_test.py PATH/TO/bloomkit [TestClass ...]

Same rules as cli_test.py (whose helpers this uses): the built binary as a real process
on real files in a temporary directory.
"""

import os
import sys
import unittest

import cli_test
from cli_test import EXIT_OK, EXIT_USAGE, CliTestCase, run, write_keys

HELD = 20_000


class ParquetFoldCliTest(CliTestCase):
    def setUp(self):
        super().setUp()
        self.bf = self.path("chunk.bf")
        run("create", self.bf, "--kind", "parquet", "--capacity", 1_000_000, "--fp-rate", 0.01, check=EXIT_OK)
        self.present = self.path("present.txt")
        write_keys(self.present, [f"value:{i}" for i in range(HELD)])
        run("add", self.bf, self.present, "--no-progress", check=EXIT_OK)

    def export(self, name, *extra, check=EXIT_OK):
        out = self.path(name)
        code, stdout, stderr = run("export", self.bf, "--format", "parquet", "--to", out, *extra, check=check)
        return out, stdout.decode(), stderr

    def test_folded_file_is_smaller_finds_every_value_and_keeps_the_rate(self):
        plain, _, _ = self.export("plain.parquet-bloom")
        folded, summary, _ = self.export("folded.parquet-bloom", "--fold-to", 0.01)
        self.assertIn("folded", summary)
        self.assertLess(os.path.getsize(folded) * 16, os.path.getsize(plain))
        run("import", "parquet", self.path("back.bf"), "--from", folded, check=EXIT_OK)
        info = self.info(self.path("back.bf"))
        bits = info["bits"]
        self.assertEqual(bits & (bits - 1), 0, "Parquet readers take powers of two")
        self.assertLessEqual(info["estimated_fp_rate"], 0.01)
        # No value it held is lost ...
        _, out, _ = run("query", self.path("back.bf"), self.present, "--print", "absent", "-c", "--no-progress")
        self.assertEqual(int(out.decode().split()[0]), 0)
        # ... and absent values meet about the rate its bits give (99.9% interval).
        absent = self.path("absent.txt")
        write_keys(absent, [f"other:{i}" for i in range(50_000)])
        _, out, _ = run("query", self.path("back.bf"), absent, "--count", "--no-progress")
        hits = int(out.decode().split()[0])
        p = info["estimated_fp_rate"]
        self.assertLess(abs(hits / 50_000 - p), 3.3 * (p * (1 - p) / 50_000) ** 0.5 + 1e-4, (hits, p))
        # A tighter rate folds less.
        tighter, _, _ = self.export("tighter.parquet-bloom", "--fold-to", 0.0001)
        self.assertGreater(os.path.getsize(tighter), os.path.getsize(folded))

    def test_fold_is_for_parquet_filters_only(self):
        guava = self.path("g.bf")
        run("create", guava, "--kind", "guava", "--capacity", 100, "--fp-rate", 0.01, check=EXIT_OK)
        _, _, err = run("export", guava, "--format", "guava", "--to", self.path("g.guava"), "--fold-to", 0.01,
                        check=EXIT_USAGE)
        self.assertOneLineError(err, "--fold-to", "Parquet")
        self.assertFalse(os.path.exists(self.path("g.guava")))
        self.export("bad.parquet-bloom", "--fold-to", 2, check=EXIT_USAGE)


if __name__ == "__main__":
    cli_test.BLOOMKIT = sys.argv[1]
    unittest.main(argv=[sys.argv[0], *sys.argv[2:]])
