#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of what a new user of the bloomkit tool runs into: misspelt
commands, missing files, grep's habits (-q, -c), machine-readable summaries, compressed
or binary key input, failed writes to stdout, and removals of keys never added.

Usage: usability_test.py PATH/TO/bloomkit [TestClass ...]

Same rules as cli_test.py (whose helpers this uses): the built binary as a real process
on real files in a temporary directory.
"""

import gzip
import json
import math
import os
import subprocess
import sys
import unittest

import cli_test
from cli_test import EXIT_DATA, EXIT_NONE_FOUND, EXIT_OK, EXIT_USAGE, CliTestCase, read_bytes, run, write_keys


class DidYouMeanTest(CliTestCase):
    def test_misspelt_command_gets_a_suggestion(self):
        code, _, err = run("qeury", "seen.bf")
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "unknown command 'qeury' (did you mean 'query'?)")
        code, _, err = run("--max-memory", "1GiB", "dedpu", "seen.bf")
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "unknown command 'dedpu' (did you mean 'dedup'?)")
        code, _, err = run("experiment", "fpx")
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "unknown command 'experiment fpx' (did you mean 'experiment fpr'?)")

    def test_unrelated_word_lists_the_commands(self):
        code, _, err = run("xyzzy")
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "unknown command 'xyzzy'", "commands: calc, create, add, query")
        self.assertNotIn("did you mean", err)

    def test_known_command_keeps_its_own_error(self):
        code, _, err = run("add")
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "FILE is required")


class StdoutErrorTest(CliTestCase):
    """Every write to stdout is checked: /dev/full makes each command fail with exit 3."""

    def run_to_full(self, *args, stdin=None):
        with open("/dev/full", "wb") as full:
            proc = subprocess.run([cli_test.BLOOMKIT, *map(str, args)], input=stdin, stdout=full,
                                  stderr=subprocess.PIPE, timeout=60)
        return proc.returncode, proc.stderr.decode()

    def test_every_printing_command_reports_a_full_disk(self):
        bf = self.path("s.bf")
        run("create", bf, "--capacity", 1000, check=EXIT_OK)
        write_keys(self.path("k.txt"), ["a", "b"])
        cases = [
            ("calc", "--capacity", "1M", "--fp-rate", "1%"),
            ("calc", "--capacity", "1M", "--fp-rate", "1%", "--json"),
            ("create", self.path("t.bf"), "--capacity", 1000),
            ("add", bf, self.path("k.txt"), "--no-progress"),
            ("query", bf, self.path("k.txt"), "--no-progress"),
            ("info", bf),
            ("info", bf, "--json"),
            ("--help",),
            ("--version",),
        ]
        for args in cases:
            code, err = self.run_to_full(*args)
            self.assertEqual(code, EXIT_DATA, args)
            self.assertOneLineError(err, "stdout: write failed: No space left on device")


class GrepHabitsTest(CliTestCase):
    def setUp(self):
        super().setUp()
        self.bf = self.path("s.bf")
        run("create", self.bf, "--capacity", 10_000, "--fp-rate", "0.0001", check=EXIT_OK)
        write_keys(self.path("in.txt"), [f"k{i}" for i in range(100)])
        run("add", self.bf, self.path("in.txt"), "--no-progress", check=EXIT_OK)

    def test_quiet_prints_nothing_and_answers_by_status(self):
        code, out, err = run("query", self.bf, "-q", "--no-progress", stdin="zz1\nk7\nzz2\n")
        self.assertEqual((code, out, err), (EXIT_OK, b"", ""))
        code, out, err = run("query", self.bf, "--quiet", "--no-progress", stdin="zz1\nzz2\n")
        self.assertEqual((code, out, err), (EXIT_NONE_FOUND, b"", ""))

    def test_count_counts_what_print_selects(self):
        keys = "".join(f"k{i}\n" for i in range(0, 100, 2)) + "".join(f"absent{i}\n" for i in range(30))
        code, out, _ = run("query", self.bf, "-c", "--no-progress", stdin=keys)
        self.assertEqual(code, EXIT_OK)
        # 50 added keys (no false negatives); at 0.01% the 30 absent ones add 0 or rarely 1.
        present = int(out.decode())
        self.assertIn(present, (50, 51))
        code, out, _ = run("query", self.bf, "--count", "--print", "absent", "--no-progress", stdin=keys)
        self.assertEqual(int(out.decode()), 80 - present)
        code, out, _ = run("query", self.bf, "-c", "--no-progress", stdin="zz\n")
        self.assertEqual((code, out), (EXIT_NONE_FOUND, b"0\n"))


class JsonSummaryTest(CliTestCase):
    def test_add_remove_dedup_info_summaries(self):
        cf = self.path("c.cf")
        run("create", cf, "--capacity", 1000, "--kind", "counting", check=EXIT_OK)
        write_keys(self.path("k.txt"), ["a", "b", "c", "a"])
        _, out, _ = run("add", cf, self.path("k.txt"), "--no-progress", "--json", check=EXIT_OK)
        doc = json.loads(out)
        self.assertEqual(doc["file"], cf)
        self.assertEqual((doc["read"], doc["count"], doc["capacity"]), (4, 4, 1000))
        self.assertEqual(doc["added"] + doc["already_present"], 4)
        self.assertGreaterEqual(doc["already_present"], 1)  # the second "a"
        _, out, _ = run("remove", cf, "--no-progress", "--json", stdin="a\nb\n", check=EXIT_OK)
        doc = json.loads(out)
        self.assertEqual((doc["read"], doc["removed"], doc["not_found"], doc["count"]), (2, 2, 0, 2))
        self.assertEqual(doc["estimated_false_removals"], 0)
        bf = self.path("d.bf")
        run("create", bf, "--capacity", 1000, check=EXIT_OK)
        code, out, err = run("dedup", bf, "--no-progress", "--json", stdin="x\ny\nx\n")
        self.assertEqual(code, EXIT_OK)
        self.assertEqual(out, b"x\ny\n")  # stdout keeps the keys
        doc = json.loads(err)
        self.assertEqual((doc["file"], doc["read"], doc["printed"], doc["count"]), (bf, 3, 2, 2))
        info = json.loads(run("info", bf, "--json", check=EXIT_OK)[1])
        self.assertEqual(info["file"], bf)

    def test_bench_json(self):
        _, out, _ = run("bench", "--items", 5000, "--kind", "classic,cuckoo", "--json", check=EXIT_OK)
        doc = json.loads(out)
        self.assertEqual((doc["items"], doc["seed"]), (5000, 1))
        self.assertEqual([k["kind"] for k in doc["kinds"]], ["classic", "cuckoo"])
        for k in doc["kinds"]:
            self.assertGreater(k["add_keys_per_s"], 0)
            self.assertAlmostEqual(k["measured_fp_rate"], k["false_positives"] / 5000)

    def test_experiment_json_matches_csv(self):
        args = ("experiment", "fpr", "--items", 2000, "--bits", "20K,40K", "--queries", 20_000)
        _, out, _ = run(*args, "--json", "--csv", self.path("t.csv"), check=EXIT_OK)
        doc = json.loads(out)
        self.assertEqual((doc["kind"], doc["items"], doc["queries"], doc["seed"]), ("classic", 2000, 20_000, 1))
        with open(self.path("t.csv")) as f:
            rows = list(__import__("csv").DictReader(f))
        self.assertEqual(len(doc["rows"]), len(rows))
        for row, csv_row in zip(doc["rows"], rows):
            self.assertEqual(row["bits"], int(csv_row["bits"]))
            self.assertEqual(row["hashes"], int(csv_row["hashes"]))
            self.assertEqual(row["hits"], round(float(csv_row["measured_fp_rate"]) * 20_000))
            self.assertEqual(row["theoretical_fp_rate"], float(csv_row["theoretical_fp_rate"]))


class RemoveWarningTest(CliTestCase):
    def test_removing_never_added_keys_warns_with_an_estimate(self):
        cf = self.path("c.cf")
        run("create", cf, "--capacity", 2000, "--fp-rate", "0.05", "--kind", "counting", check=EXIT_OK)
        write_keys(self.path("in.txt"), [f"in{i}" for i in range(2000)])
        run("add", cf, self.path("in.txt"), "--no-progress", check=EXIT_OK)
        rate = json.loads(run("info", cf, "--json", check=EXIT_OK)[1])["estimated_fp_rate"]
        write_keys(self.path("out.txt"), [f"out{i}" for i in range(2000)])
        code, out, err = run("remove", cf, self.path("out.txt"), "--no-progress", "--json")
        self.assertEqual(code, EXIT_OK)
        doc = json.loads(out)
        # Every removal here is a false positive; the estimate from the keys not found is
        # within a few standard deviations of the truth (binomial, n = 2000, p ~ 5%).
        self.assertGreater(doc["removed"], 0)
        estimate = doc["not_found"] * rate / (1 - rate)
        self.assertAlmostEqual(doc["estimated_false_removals"], min(estimate, doc["removed"]), places=6)
        sigma = math.sqrt(2000 * rate)
        self.assertLess(abs(doc["estimated_false_removals"] - doc["removed"]), 5 * sigma + 5)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith(f"bloomkit: warning: {cf}: "), err)
        self.assertIn(f"of the {doc['removed']} removals may have removed other keys' entries", err)

    def test_removing_added_keys_is_silent(self):
        cf = self.path("c.cf")
        run("create", cf, "--capacity", 100, "--kind", "cuckoo", check=EXIT_OK)
        run("add", cf, "--no-progress", stdin="a\nb\n", check=EXIT_OK)
        code, _, err = run("remove", cf, "--no-progress", stdin="a\nb\n")
        self.assertEqual((code, err), (EXIT_OK, ""))

    def test_help_documents_the_risk(self):
        _, out, _ = run("remove", "--help", check=EXIT_OK)
        self.assertIn("never-added key is found, and removed, with the filter's false-positive rate", out.decode())


class CompressedInputTest(CliTestCase):
    """Key files compressed with gzip or zstd are read as their text; binary is refused."""

    KEYS = [f"url:{i}" for i in range(5000)]

    def setUp(self):
        super().setUp()
        self.text = "".join(k + "\n" for k in self.KEYS).encode()

    def added_keys(self, *inputs, stdin=None):
        bf = self.path("s.bf")
        if os.path.exists(bf):
            os.remove(bf)
        run("create", bf, "--capacity", 20_000, "--fp-rate", "1e-6", check=EXIT_OK)
        code, out, err = run("add", bf, *inputs, "--no-progress", "--json", stdin=stdin)
        return code, (json.loads(out) if code == EXIT_OK else None), err

    def test_gzip_and_zstd_files_give_the_plain_keys(self):
        with open(self.path("k.gz"), "wb") as f:
            f.write(gzip.compress(self.text))
        with open(self.path("k.zst"), "wb") as f:
            f.write(subprocess.run(["zstd", "-q", "-c"], input=self.text, capture_output=True, check=True).stdout)
        for name in ("k.gz", "k.zst"):
            code, doc, err = self.added_keys(self.path(name))
            self.assertEqual(code, EXIT_OK, err)
            self.assertEqual(doc["read"], 5000, name)
            self.assertEqual(doc["count"], 5000, name)  # 5000 distinct keys at 1e-6: no repeats
            _, out, _ = run("query", self.path("s.bf"), "-c", "--no-progress", stdin=self.text, check=EXIT_OK)
            self.assertEqual(out, b"5000\n", name)

    def test_stdin_and_concatenated_members(self):
        half = len(self.text) // 2
        cut = self.text.rindex(b"\n", 0, half) + 1
        joined = gzip.compress(self.text[:cut]) + gzip.compress(self.text[cut:])
        code, doc, err = self.added_keys(stdin=joined)
        self.assertEqual(code, EXIT_OK, err)
        self.assertEqual(doc["read"], 5000)

    def test_truncated_and_corrupt_streams_are_errors(self):
        packed = gzip.compress(self.text)
        with open(self.path("cut.gz"), "wb") as f:
            f.write(packed[: len(packed) // 2])
        code, _, err = self.added_keys(self.path("cut.gz"))
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "cut.gz: truncated gzip input")
        bad = bytearray(packed)
        bad[20:40] = b"\xff" * 20
        with open(self.path("bad.gz"), "wb") as f:
            f.write(bytes(bad))
        code, _, err = self.added_keys(self.path("bad.gz"))
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "bad.gz: ")
        self.assertNotIn("Traceback", err)

    def test_binary_input_is_refused_and_the_filter_unchanged(self):
        bf = self.path("s.bf")
        run("create", bf, "--capacity", 1000, check=EXIT_OK)
        before = read_bytes(bf)
        with open(self.path("bin"), "wb") as f:
            f.write(b"ok\n" + bytes(range(256)) * 4)
        code, _, err = run("add", bf, self.path("bin"), "--no-progress")
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "bin: binary input (a NUL byte at offset 3)", "--null")
        self.assertEqual(read_bytes(bf), before)
        xz = subprocess.run(["xz", "-c"], input=self.text, capture_output=True, check=True).stdout
        code, _, err = run("add", bf, "--no-progress", stdin=xz)
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "(stdin): xz-compressed input is not supported")
        # --null keys may hold any byte but NUL, so binary data is fine there.
        code, _, err = run("add", bf, self.path("bin"), "--null", "--no-progress")
        self.assertEqual(code, EXIT_OK, err)


class MissingFileTest(CliTestCase):
    def test_missing_filter_file_hints_at_create(self):
        for command, has_create in (("add", True), ("dedup", True), ("query", False), ("remove", False)):
            code, _, err = run(command, self.path("seen2.bf"), "--no-progress", stdin="a\n")
            self.assertEqual(code, EXIT_DATA, command)
            self.assertOneLineError(err, "seen2.bf: cannot open: No such file or directory (create it with: bloomkit create ")
            self.assertEqual("--create --capacity N" in err, has_create, command)
            self.assertFalse(os.path.exists(self.path("seen2.bf")))

    def test_add_and_dedup_create_with_sizing_options(self):
        bf = self.path("new.bf")
        code, out, err = run("add", bf, "--create", "--capacity", "1K", "--fp-rate", "0.1%", "--kind", "blocked",
                             "--no-progress", "--json", stdin="a\nb\n")
        self.assertEqual(code, EXIT_OK, err)
        self.assertEqual(json.loads(out)["count"], 2)
        info = self.info(bf)
        self.assertEqual((info["kind"], info["capacity"], info["fp_rate"]), ("blocked", 1000, 0.001))
        # An existing file is used as it is: the sizing options do not recreate it.
        run("add", bf, "--create", "--capacity", "5K", "--no-progress", stdin="c\n", check=EXIT_OK)
        info = self.info(bf)
        self.assertEqual((info["capacity"], info["count"]), (1000, 3))
        # dedup --create, with a compressed payload; no keys still writes the file.
        d = self.path("d.bf")
        code, out, _ = run("dedup", d, "--create", "--capacity", 100, "--compress", "--no-progress", "-q",
                           stdin="x\ny\nx\n")
        self.assertEqual((code, out), (EXIT_OK, b"x\ny\n"))
        self.assertTrue(self.info(d)["compressed"])
        e = self.path("e.bf")
        run("add", e, "--create", "--capacity", 10, "--no-progress", stdin="", check=EXIT_OK)
        self.assertEqual(self.info(e)["count"], 0)

    def test_create_needs_a_capacity(self):
        code, _, err = run("add", self.path("n.bf"), "--create", "--no-progress", stdin="a\n")
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "n.bf: --create needs --capacity N")
        self.assertFalse(os.path.exists(self.path("n.bf")))


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: usability_test.py PATH/TO/bloomkit [TestClass ...]")
    cli_test.BLOOMKIT = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[2:]])


if __name__ == "__main__":
    main()
