#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of the bloomkit command-line tool.

Usage: cli_test.py PATH/TO/bloomkit [TestClass ...]

Every test runs the built binary as a real process on real files in a temporary
directory and checks stdout, stderr, exit status and the files left behind. Expected
numbers come from the formulas they are defined by (docs/CLI.md, sizing.h), not from
earlier runs.
"""

import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

BLOOMKIT = None  # set from argv in main

EXIT_OK, EXIT_NONE_FOUND, EXIT_USAGE, EXIT_DATA = 0, 1, 2, 3


def run(*args, stdin=None, check=None, timeout=120):
    """Runs bloomkit; returns (exit status, stdout bytes, stderr text)."""
    if isinstance(stdin, str):
        stdin = stdin.encode()
    proc = subprocess.run([BLOOMKIT, *map(str, args)], input=stdin, capture_output=True, timeout=timeout)
    if check is not None and proc.returncode != check:
        raise AssertionError(
            f"bloomkit {' '.join(map(str, args))}: exit {proc.returncode}, expected {check}\n"
            f"stderr: {proc.stderr.decode(errors='replace')}")
    return proc.returncode, proc.stdout, proc.stderr.decode(errors="replace")


def write_keys(path, keys):
    with open(path, "wb") as f:
        f.write(b"".join(k.encode() + b"\n" for k in keys))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


class CliTestCase(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory(prefix="bloomkit-cli-")
        self.dir = self._dir.name

    def tearDown(self):
        self._dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def assertOneLineError(self, stderr, *fragments):
        """The error contract: exactly one line, `bloomkit: ...`, naming the problem."""
        lines = stderr.splitlines()
        self.assertEqual(len(lines), 1, f"expected one stderr line, got: {stderr!r}")
        self.assertTrue(lines[0].startswith("bloomkit: "), lines[0])
        for fragment in fragments:
            self.assertIn(fragment, lines[0])

    def info(self, path):
        _, out, _ = run("info", path, "--json", check=EXIT_OK)
        return json.loads(out)


# The sizing table (docs/ and sizing.h): m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2).
SIZING_TABLE = [
    # capacity, fp_rate, bits, hashes
    (10_000_000, 0.01, 95_850_584, 7),
    (10_000_000, 0.001, 143_775_876, 10),
    (100_000_000, 0.0001, 1_917_011_676, 13),
]


class CalcTest(CliTestCase):
    def test_json_matches_sizing_table(self):
        for capacity, fp_rate, bits, hashes in SIZING_TABLE:
            _, out, _ = run("calc", "--capacity", capacity, "--fp-rate", fp_rate, "--json", check=EXIT_OK)
            doc = json.loads(out)
            self.assertEqual(set(doc), {"kind", "capacity", "fp_rate", "bits", "bytes", "hashes", "bits_per_key",
                                        "expected_fp_rate"})
            self.assertEqual(doc["kind"], "classic")
            self.assertEqual(doc["capacity"], capacity)
            self.assertEqual(doc["fp_rate"], fp_rate)
            self.assertEqual(doc["bits"], bits)
            self.assertEqual(doc["hashes"], hashes)
            # Classic filters store whole 64-bit words.
            self.assertEqual(doc["bytes"], (bits + 63) // 64 * 8)
            self.assertAlmostEqual(doc["bits_per_key"], bits / capacity, places=9)
            theory = (1 - math.exp(-hashes * capacity / bits)) ** hashes
            self.assertAlmostEqual(doc["expected_fp_rate"], theory, delta=theory * 1e-9)
            # The formula rounds m up, so the rate at capacity is within 1% of the target.
            self.assertLess(abs(doc["expected_fp_rate"] - fp_rate), fp_rate * 0.01)

    def test_text_matches_sizing_table(self):
        for capacity, fp_rate, bits, hashes in SIZING_TABLE:
            _, out, _ = run("calc", "--capacity", capacity, "--fp-rate", fp_rate, check=EXIT_OK)
            text = out.decode()
            self.assertIn(f"{bits:,}", text)
            # "label<two or more spaces>value" per line.
            fields = dict(re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in text.splitlines())
            self.assertEqual(fields["bits"], f"{bits:,}")
            self.assertEqual(fields["hashes"], str(hashes))
        _, out, _ = run("calc", "--capacity", "1e7", "--fp-rate", "1%", check=EXIT_OK)
        self.assertIn("11.4 MiB", out.decode())  # 11,981,328 bytes

    def test_number_forms_agree(self):
        outputs = set()
        for capacity in ("10000000", "1e7", "10M", "10_000_000"):
            for rate in ("0.01", "1%", "1e-2"):
                _, out, _ = run("calc", "--capacity", capacity, "--fp-rate", rate, "--json", check=EXIT_OK)
                outputs.add(out)
        self.assertEqual(len(outputs), 1, outputs)

    def test_bits_gives_rate_of_a_size(self):
        _, out, _ = run("calc", "--capacity", "1e7", "--bits", "95850584", "--json", check=EXIT_OK)
        doc = json.loads(out)
        self.assertEqual(doc["bits"], 95_850_584)
        self.assertEqual(doc["hashes"], 7)
        self.assertAlmostEqual(doc["expected_fp_rate"], (1 - math.exp(-7e7 / 95_850_584)) ** 7, delta=1e-12)

    def test_other_kinds_need_more_bits_than_classic(self):
        # The blocked filter pays bits for one cache miss per key (Putze et al. 2007);
        # every kind must still meet the target rate at capacity.
        classic = json.loads(run("calc", "--capacity", "1e6", "--fp-rate", "0.001", "--json", check=0)[1])
        for kind in ("blocked", "counting", "cuckoo"):
            _, out, _ = run("calc", "--capacity", "1e6", "--fp-rate", "0.001", "--kind", kind, "--json",
                            check=EXIT_OK)
            doc = json.loads(out)
            self.assertEqual(doc["kind"], kind)
            self.assertLessEqual(doc["expected_fp_rate"], 0.001 * 1.01, kind)
            if kind in ("blocked", "counting"):
                self.assertGreater(doc["bits"], classic["bits"], kind)
        counting = json.loads(run("calc", "--capacity", "1e6", "--fp-rate", "0.001", "--kind", "counting", "--json",
                                  check=0)[1])
        self.assertEqual(counting["bits"], 4 * classic["bits"])  # 4-bit counters


class RoundTripTest(CliTestCase):
    """create -> add 100,000 keys -> query them (all maybe) -> query 100,000 others."""

    N = 100_000

    def test_create_add_query(self):
        keys = self.path("keys.txt")
        others = self.path("others.txt")
        write_keys(keys, (f"user:{i}" for i in range(self.N)))
        write_keys(others, (f"other:{i}" for i in range(self.N)))
        bf = self.path("seen.bf")
        run("create", bf, "--capacity", self.N, "--fp-rate", "0.01", check=EXIT_OK)
        code, out, err = run("add", bf, keys, check=EXIT_OK)
        self.assertIn(f"read {self.N:,} keys", out.decode())
        self.assertEqual(err, "", "no progress bar or message when stderr is not a terminal")

        code, out, _ = run("query", bf, keys)
        self.assertEqual(code, EXIT_OK)
        lines = out.decode().splitlines()
        self.assertEqual(len(lines), self.N)
        self.assertTrue(all(line.endswith("\tmaybe") for line in lines), "a false negative")
        self.assertEqual(lines[0], "user:0\tmaybe")

        code, out, _ = run("query", bf, others, "--print", "present")
        present = out.decode().splitlines()
        self.assertEqual(code, EXIT_OK if present else EXIT_NONE_FOUND)
        # Binomial bound: with the rate p at capacity, the number of false positives in
        # N queries has sd sqrt(N p (1 - p)) ~ 31; 5 sd keeps a correct filter failing
        # with probability < 1e-6, and a filter off by 20% (~200) fails.
        p = self.info(bf)["expected_fp_rate"]
        sd = math.sqrt(self.N * p * (1 - p))
        self.assertLess(abs(len(present) - self.N * p), 5 * sd, f"{len(present)} false positives, expected {self.N * p:.0f}")
        self.assertTrue(all(k.startswith("other:") for k in present))

        code, out, _ = run("query", bf, others, "--print", "absent")
        self.assertEqual(len(out.decode().splitlines()), self.N - len(present))

    def test_blocked_default_layout_follows_the_rate(self):
        # --kind blocked without --block-bits: 256-bit blocks and hash id 4 at rates of
        # 0.1% and up, 512-bit blocks and hash id 1 below (docs/FILTERS.md, "Default layout").
        for rate, hash_id, layout in ((0.01, 4, 1), (0.001, 4, 1), (0.0001, 1, 0)):
            bf = self.path(f"default_{rate}.bf")
            run("create", bf, "--capacity", 1000, "--fp-rate", rate, "--kind", "blocked", check=EXIT_OK)
            with open(bf, "rb") as f:
                header = f.read(128)
            self.assertEqual(int.from_bytes(header[18:20], "little"), hash_id, rate)
            self.assertEqual(int.from_bytes(header[88:96], "little"), layout, rate)
            calc = json.loads(run("calc", "--capacity", 1000, "--fp-rate", rate, "--kind", "blocked", "--json",
                                  check=EXIT_OK)[1])
            self.assertEqual(calc["bits"], self.info(bf)["bits"], rate)
        bf = self.path("asked.bf")
        run("create", bf, "--capacity", 1000, "--kind", "blocked", "--block-bits", 512, check=EXIT_OK)
        with open(bf, "rb") as f:
            header = f.read(128)
        self.assertEqual(int.from_bytes(header[88:96], "little"), 0)

    def test_blocked_256_bit_blocks(self):
        keys = self.path("keys.txt")
        others = self.path("others.txt")
        write_keys(keys, (f"{i:08d}" for i in range(self.N)))  # 8 bytes: the one-multiply hash
        write_keys(others, (f"o{i:07d}" for i in range(self.N)))
        bf = self.path("lanes.bf")
        run("create", bf, "--capacity", self.N, "--kind", "blocked", "--block-bits", 256, check=EXIT_OK)
        with open(bf, "rb") as f:
            header = f.read(128)
        # hash id 4 (the short-key hash) at offset 18, layout 1 in params[2] at offset 88.
        self.assertEqual(int.from_bytes(header[18:20], "little"), 4)
        self.assertEqual(int.from_bytes(header[88:96], "little"), 1)
        run("add", bf, keys, check=EXIT_OK)
        code, out, _ = run("query", bf, keys, "--print", "absent")
        self.assertEqual(code, EXIT_OK)
        self.assertEqual(out, b"", "a false negative")
        _, out, _ = run("query", bf, others, "--print", "present")
        present = out.decode().splitlines()
        p = self.info(bf)["expected_fp_rate"]
        sd = math.sqrt(self.N * p * (1 - p))
        self.assertLess(abs(len(present) - self.N * p), 5 * sd, f"{len(present)} false positives, expected {self.N * p:.0f}")
        code, _, err = run("create", self.path("x.bf"), "--capacity", 10, "--kind", "blocked", "--block-bits", 128)
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "--block-bits must be 512 or 256, got 128")
        code, _, err = run("create", self.path("y.bf"), "--capacity", 10, "--block-bits", 256)
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "--block-bits applies to --kind blocked only")

    def test_query_exit_status_like_grep(self):
        bf = self.path("s.bf")
        run("create", bf, "--capacity", 1000, check=EXIT_OK)
        run("add", bf, stdin="alpha\nbeta\n", check=EXIT_OK)
        code, out, _ = run("query", bf, stdin="nothing-here\nnor-here\n")
        self.assertEqual(code, EXIT_NONE_FOUND)
        self.assertEqual(out, b"nothing-here\tno\nnor-here\tno\n")
        code, out, _ = run("query", bf, "-", stdin="nothing-here\nbeta\n")
        self.assertEqual(code, EXIT_OK)
        self.assertEqual(out, b"nothing-here\tno\nbeta\tmaybe\n")

    def test_add_reports_new_keys(self):
        bf = self.path("s.bf")
        run("create", bf, "--capacity", 1000, check=EXIT_OK)
        _, out, _ = run("add", bf, stdin="a\nb\nc\n", check=EXIT_OK)
        self.assertIn("read 3 keys, 3 new", out.decode())
        _, out, _ = run("add", bf, stdin="a\nb\nd\n", check=EXIT_OK)
        self.assertIn("read 3 keys, 1 new, 2 already present", out.decode())
        self.assertEqual(self.info(bf)["count"], 4)

    def test_every_kind_round_trips(self):
        keys = [f"k{i}" for i in range(3000)]
        for kind in ("classic", "blocked", "counting", "scalable", "cuckoo"):
            bf = self.path(f"{kind}.bf")
            run("create", bf, "--capacity", 1000 if kind == "scalable" else 5000, "--kind", kind, check=EXIT_OK)
            run("add", bf, stdin="\n".join(keys), check=EXIT_OK)
            code, out, _ = run("query", bf, "--print", "absent", stdin="\n".join(keys))
            self.assertEqual((code, out), (EXIT_OK, b""), f"{kind}: false negatives")
            self.assertEqual(self.info(bf)["kind"], kind)


class KeyFormatTest(CliTestCase):
    """Lines, blank lines, CRLF, a last line without newline, NUL-separated keys."""

    def setUp(self):
        super().setUp()
        self.bf = self.path("k.bf")
        run("create", self.bf, "--capacity", 1000, "--fp-rate", "1e-6", check=EXIT_OK)

    def test_blank_lines_skipped_and_final_line_kept(self):
        _, out, _ = run("add", self.bf, stdin="one\n\n\ntwo\nthree", check=EXIT_OK)
        self.assertIn("read 3 keys", out.decode())
        _, out, _ = run("query", self.bf, stdin="three")
        self.assertEqual(out, b"three\tmaybe\n")

    def test_trailing_cr_dropped_unless_keep_cr(self):
        run("add", self.bf, stdin="win\r\n", check=EXIT_OK)
        self.assertEqual(run("query", self.bf, stdin="win\n")[1], b"win\tmaybe\n")
        self.assertEqual(run("query", self.bf, "--keep-cr", stdin="win\r\n")[1], b"win\r\tno\n")

    def test_null_separated_keys_may_hold_newlines(self):
        run("add", self.bf, "--null", stdin=b"multi\nline\x00tab\tkey\x00", check=EXIT_OK)
        code, out, _ = run("query", self.bf, "-0", "--print", "present", stdin=b"multi\nline\x00multi\x00tab\tkey")
        self.assertEqual(code, EXIT_OK)
        self.assertEqual(out, b"multi\nline\x00tab\tkey\x00")

    def test_several_inputs_and_long_keys(self):
        a, b = self.path("a.txt"), self.path("b.txt")
        long_key = "x" * 3_000_000  # longer than the 1 MiB read buffer
        write_keys(a, ["a1", long_key])
        write_keys(b, ["b1"])
        _, out, _ = run("add", self.bf, a, b, check=EXIT_OK)
        self.assertIn("read 3 keys", out.decode())
        code, out, _ = run("query", self.bf, "--print", "absent", a, b)
        self.assertEqual((code, out), (EXIT_OK, b""))


class DedupTest(CliTestCase):
    def test_prints_each_distinct_line_once(self):
        bf = self.path("d.bf")
        run("create", bf, "--capacity", 10_000, "--fp-rate", "1e-6", check=EXIT_OK)
        stream = [f"url{i % 700}" for i in range(5000)]  # each of 700 URLs about 7 times
        _, out, err = run("dedup", bf, stdin="\n".join(stream) + "\n", check=EXIT_OK)
        expected = list(dict.fromkeys(stream))  # first occurrences, in order
        self.assertEqual(out.decode().splitlines(), expected)
        self.assertIn("read 5,000 keys, printed 700 new", err)
        # The filter was saved: a second run prints only lines not seen before.
        _, out, _ = run("dedup", bf, "-q", stdin="url1\nurl9999\nurl2\nurl9999\n", check=EXIT_OK)
        self.assertEqual(out, b"url9999\n")

    def test_sync_every_saves_while_running(self):
        bf = self.path("d.bf")
        run("create", bf, "--capacity", 10_000, check=EXIT_OK)
        keys = self.path("keys.txt")
        write_keys(keys, (f"k{i}" for i in range(1000)))
        # A missing second input fails after the first was processed; what was saved by
        # --sync-every stays, and every key it holds was printed first.
        code, out, err = run("dedup", bf, "--sync-every", 100, keys, self.path("missing.txt"))
        self.assertEqual(code, EXIT_DATA)  # inputs are opened up front
        self.assertOneLineError(err, "missing.txt", "cannot open")
        self.assertEqual(self.info(bf)["count"], 0)
        _, out, _ = run("dedup", bf, "--sync-every", 100, "-q", keys, check=EXIT_OK)
        self.assertEqual(len(out.decode().splitlines()), 1000)
        self.assertGreaterEqual(self.info(bf)["count"], 990)

    def test_null_output_uses_null_separator(self):
        bf = self.path("d.bf")
        run("create", bf, "--capacity", 100, check=EXIT_OK)
        _, out, _ = run("dedup", bf, "--null", "-q", stdin=b"a\x00b\x00a\x00", check=EXIT_OK)
        self.assertEqual(out, b"a\x00b\x00")


class MergeTest(CliTestCase):
    def test_union_holds_every_key(self):
        a, b, out = self.path("a.bf"), self.path("b.bf"), self.path("u.bf")
        for f in (a, b):
            run("create", f, "--capacity", 10_000, "--fp-rate", "1e-5", check=EXIT_OK)
        run("add", a, stdin="\n".join(f"a{i}" for i in range(2000)), check=EXIT_OK)
        run("add", b, stdin="\n".join(f"b{i}" for i in range(2000)), check=EXIT_OK)
        run("merge", out, a, b, check=EXIT_OK)
        both = "\n".join([f"a{i}" for i in range(2000)] + [f"b{i}" for i in range(2000)])
        self.assertEqual(run("query", out, "--print", "absent", stdin=both)[:2], (EXIT_OK, b""))
        self.assertLess(abs(self.info(out)["estimated_count"] - 4000), 40)
        # In place: OUT may be one of the inputs without --force.
        run("merge", a, a, b, check=EXIT_OK)
        self.assertEqual(read_bytes(a)[128:], read_bytes(out)[128:])

    def test_incompatible_filters_are_an_error(self):
        a, b, c, out = self.path("a.bf"), self.path("b.bf"), self.path("c.bf"), self.path("u.bf")
        run("create", a, "--capacity", 1000, check=EXIT_OK)
        run("create", b, "--capacity", 2000, check=EXIT_OK)
        run("create", c, "--capacity", 1000, "--kind", "blocked", check=EXIT_OK)
        code, _, err = run("merge", out, a, b)
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "cannot merge", "b.bf")
        code, _, err = run("merge", out, a, c)
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "cannot merge a classic filter with a blocked filter")
        self.assertFalse(os.path.exists(out), "a failed merge wrote its output")

    def test_existing_output_needs_force(self):
        a, b, out = self.path("a.bf"), self.path("b.bf"), self.path("u.bf")
        for f in (a, b):
            run("create", f, "--capacity", 1000, check=EXIT_OK)
        with open(out, "w") as f:
            f.write("precious")
        code, _, err = run("merge", out, a, b)
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "u.bf", "--force")
        self.assertEqual(read_bytes(out), b"precious")
        run("merge", out, a, b, "--force", check=EXIT_OK)


class RemoveTest(CliTestCase):
    def test_counting_and_cuckoo_remove(self):
        keep = [f"keep{i}" for i in range(500)]
        drop = [f"drop{i}" for i in range(500)]
        for kind in ("counting", "cuckoo"):
            bf = self.path(f"{kind}.bf")
            run("create", bf, "--capacity", 2000, "--fp-rate", "0.001", "--kind", kind, check=EXIT_OK)
            run("add", bf, stdin="\n".join(keep + drop), check=EXIT_OK)
            _, out, _ = run("remove", bf, stdin="\n".join(drop), check=EXIT_OK)
            self.assertIn("read 500 keys, removed 500", out.decode(), kind)
            self.assertEqual(self.info(bf)["count"], 500, kind)
            # The kept keys are all still there (no false negatives from removal) ...
            self.assertEqual(run("query", bf, "--print", "absent", stdin="\n".join(keep))[1], b"", kind)
            # ... and the removed ones read as absent, up to the filter's rate.
            _, out, _ = run("query", bf, "--print", "present", stdin="\n".join(drop))
            self.assertLessEqual(len(out.splitlines()), 5, kind)  # 500 * 0.001 = 0.5 expected

    def test_kinds_without_removal_refuse(self):
        for kind in ("classic", "blocked", "scalable"):
            bf = self.path(f"{kind}.bf")
            run("create", bf, "--capacity", 100, "--kind", kind, check=EXIT_OK)
            run("add", bf, stdin="x\n", check=EXIT_OK)
            before = read_bytes(bf)
            code, _, err = run("remove", bf, stdin="x\n")
            self.assertEqual(code, EXIT_USAGE, kind)
            self.assertOneLineError(err, f"{kind}.bf", f"a {kind} filter cannot remove keys")
            self.assertEqual(read_bytes(bf), before)


class InfoTest(CliTestCase):
    FIELDS = {"kind", "format_version", "bits", "hashes", "capacity", "count", "estimated_count", "fill_ratio",
              "expected_fp_rate", "estimated_fp_rate", "file_bytes"}

    def test_json_fields(self):
        bf = self.path("i.bf")
        run("create", bf, "--capacity", 10_000, "--fp-rate", "0.01", check=EXIT_OK)
        run("add", bf, stdin="\n".join(f"k{i}" for i in range(5000)), check=EXIT_OK)
        doc = self.info(bf)
        self.assertLessEqual(self.FIELDS, set(doc))
        calc = json.loads(run("calc", "--capacity", 10_000, "--fp-rate", "0.01", "--json", check=0)[1])
        self.assertEqual(doc["kind"], "classic")
        self.assertEqual(doc["format_version"], 1)
        self.assertEqual(doc["bits"], calc["bits"])
        self.assertEqual(doc["hashes"], calc["hashes"])
        self.assertEqual(doc["capacity"], 10_000)
        self.assertLessEqual(doc["count"], 5000)
        self.assertGreater(doc["count"], 4990)
        self.assertLess(abs(doc["estimated_count"] - 5000), 100)  # Swamidass-Baldi, sd ~ 20
        # Fill of m bits after n keys with k hashes: 1 - e^{-kn/m}.
        fill = 1 - math.exp(-doc["hashes"] * 5000 / doc["bits"])
        self.assertAlmostEqual(doc["fill_ratio"], fill, delta=0.01)
        self.assertAlmostEqual(doc["expected_fp_rate"], calc["expected_fp_rate"], places=12)
        self.assertAlmostEqual(doc["estimated_fp_rate"], doc["fill_ratio"] ** doc["hashes"], delta=1e-9)
        self.assertEqual(doc["file_bytes"], os.path.getsize(bf))
        self.assertFalse(doc["overfull"])

    def test_text_and_overfull_warning(self):
        bf = self.path("o.bf")
        run("create", bf, "--capacity", 100, "--fp-rate", "0.01", check=EXIT_OK)
        _, out, err = run("info", bf, check=EXIT_OK)
        self.assertIn("kind                 classic", out.decode())
        self.assertEqual(err, "")
        _, _, err = run("add", bf, stdin="\n".join(f"k{i}" for i in range(500)), check=EXIT_OK)
        self.assertIn("overfull", err)
        _, out, err = run("info", bf, "--json", check=EXIT_OK)
        self.assertTrue(json.loads(out)["overfull"])
        self.assertOneLineError(err, "warning", "o.bf", "overfull")

    def test_scalable_stages(self):
        bf = self.path("s.bf")
        run("create", bf, "--capacity", 1000, "--fp-rate", "0.01", "--kind", "scalable", check=EXIT_OK)
        run("add", bf, stdin="\n".join(f"k{i}" for i in range(5000)), check=EXIT_OK)
        doc = self.info(bf)
        stages = doc["stages"]
        # Stage capacities 1000, 2000, 4000 (growth 2) hold 5000 keys in three stages.
        self.assertEqual([s["capacity"] for s in stages], [1000, 2000, 4000])
        self.assertEqual(sum(s["count"] for s in stages), doc["count"])
        self.assertEqual(doc["capacity"], 7000)
        for i, s in enumerate(stages):  # p0 = p (1 - r), halved per stage
            self.assertAlmostEqual(s["fp_rate"], 0.005 / 2 ** i, places=12)
        self.assertLessEqual(doc["expected_fp_rate"], 0.01)
        self.assertIn("stages               3", run("info", bf, check=0)[1].decode())

    def test_expansion_sizes_every_growing_kind(self):
        # --expansion E: scalable stages E times the last; --growth is its older name.
        files = {}
        for name, args in {"e3": ["--expansion", 3], "g3": ["--growth", 3], "default": []}.items():
            files[name] = self.path(name + ".bf")
            run("create", files[name], "--capacity", 100, "--kind", "scalable", *args, check=EXIT_OK)
            run("add", files[name], stdin="\n".join(f"k{i}" for i in range(500)), check=EXIT_OK)
        capacities = {n: [s["capacity"] for s in self.info(f)["stages"]] for n, f in files.items()}
        self.assertEqual(capacities["e3"], [100, 300, 900])
        self.assertEqual(capacities["g3"], capacities["e3"])
        self.assertEqual(read_bytes(files["g3"]), read_bytes(files["e3"]))
        self.assertEqual(capacities["default"], [100, 200, 400])
        code, _, err = run("create", self.path("bad.bf"), "--capacity", 100, "--kind", "scalable",
                           "--expansion", 0)
        self.assertEqual(code, EXIT_USAGE)
        self.assertIn("--expansion must be in [1, 1024], got 0", err)


class BadInputTest(CliTestCase):
    def make_filter(self, name="s.bf", keys=100):
        bf = self.path(name)
        run("create", bf, "--capacity", 1000, check=EXIT_OK)
        run("add", bf, stdin="\n".join(f"k{i}" for i in range(keys)), check=EXIT_OK)
        return bf

    def assertDataError(self, args, *fragments, stdin="k1\n"):
        for command in (["info"], ["query"], ["add"]):
            code, out, err = run(*command, *args, stdin=stdin)
            self.assertEqual(code, EXIT_DATA, f"{command} {err}")
            self.assertOneLineError(err, *fragments)

    def test_missing_file(self):
        self.assertDataError([self.path("nope.bf")], "nope.bf: cannot open: No such file or directory")

    def test_corrupt_file(self):
        bf = self.make_filter()
        data = bytearray(read_bytes(bf))
        data[200] ^= 0x10  # one bit of the payload
        with open(bf, "wb") as f:
            f.write(data)
        self.assertDataError([bf], "s.bf: checksum mismatch (file is corrupt or truncated)")
        self.assertEqual(read_bytes(bf), bytes(data), "a failed add rewrote the corrupt file")

    def test_truncated_file(self):
        bf = self.make_filter()
        data = read_bytes(bf)
        for size in (0, 7, 100, len(data) - 1):
            with open(bf, "wb") as f:
                f.write(data[:size])
            self.assertDataError([bf], "s.bf: truncated")

    def test_foreign_file(self):
        foreign = self.path("notes.txt")
        with open(foreign, "w") as f:
            f.write("these are not the bytes you are looking for\n" * 10)
        self.assertDataError([foreign], "notes.txt: not a bloomkit filter")
        png = self.path("x.png")
        with open(png, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + bytes(200))
        self.assertDataError([png], "x.png: not a bloomkit filter")

    def test_directory(self):
        self.assertDataError([self.dir], "not a regular file")

    def test_bad_numbers(self):
        cases = [
            (["--capacity", "abc"], "--capacity: expected a whole number"),
            (["--capacity", "1.5"], "--capacity: 1.5 is not a whole number"),
            (["--capacity", "-5"], "--capacity: must not be negative"),
            (["--capacity", "99999999999999999999"], "--capacity: 99999999999999999999 is too large"),
            (["--capacity", "0"], "capacity must be at least 1, got 0"),
            (["--capacity", "1e6", "--fp-rate", "abc"], "--fp-rate: expected a rate"),
        ]
        for args, message in cases:
            for command in ("calc", "create"):
                full = [command] + ([self.path("n.bf")] if command == "create" else []) + args
                if "--fp-rate" not in args:
                    full += ["--fp-rate", "0.01"]
                code, _, err = run(*full)
                self.assertEqual(code, EXIT_USAGE, full)
                self.assertOneLineError(err, message)
        self.assertFalse(os.path.exists(self.path("n.bf")))

    def test_fp_rate_out_of_range(self):
        for rate in ("1.5", "0", "-0.1", "100%", "nan"):
            code, _, err = run("create", self.path("r.bf"), "--capacity", 1000, "--fp-rate", rate)
            self.assertEqual(code, EXIT_USAGE, rate)
            self.assertOneLineError(err, "--fp-rate")
        _, _, err = run("calc", "--capacity", 1000, "--fp-rate", "1.5")
        self.assertOneLineError(err, "error rate must be in (0, 1), got 1.5")

    def test_capacity_needing_terabytes(self):
        code, _, err = run("create", self.path("big.bf"), "--capacity", "1e12", "--fp-rate", "0.01")
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "big.bf", "over the memory limit of 4294967296 bytes", "--max-memory")
        self.assertFalse(os.path.exists(self.path("big.bf")))
        # calc still describes it: 1e12 keys at 1% is 1,198,132,297,171 bytes (1.09 TiB).
        _, out, _ = run("calc", "--capacity", "1e12", "--fp-rate", "0.01", "--json", check=EXIT_OK)
        self.assertEqual(json.loads(out)["bits"], math.ceil(-1e12 * math.log(0.01) / math.log(2) ** 2))

    def test_create_refuses_to_overwrite(self):
        bf = self.make_filter()
        before = read_bytes(bf)
        code, _, err = run("create", bf, "--capacity", 50)
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "s.bf: file exists (use --force to overwrite it)")
        self.assertEqual(read_bytes(bf), before)
        run("create", bf, "--capacity", 50, "--force", check=EXIT_OK)
        self.assertEqual(self.info(bf)["capacity"], 50)

    def test_unknown_kind_and_option(self):
        code, _, err = run("create", self.path("k.bf"), "--capacity", 10, "--kind", "quantum")
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "unknown filter kind 'quantum'", "classic, blocked")
        code, _, err = run("calc", "--capacity", 10, "--fp-rate", "0.1", "--kind", "quantum")
        self.assertEqual(code, EXIT_USAGE)
        code, _, err = run("query", "--frobnicate", self.path("k.bf"))
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "frobnicate")
        code, _, err = run("create", self.path("k.bf"))
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "--capacity is required")
        self.assertFalse(os.path.exists(self.path("k.bf")))
        code, _, err = run("no-such-command")
        self.assertEqual(code, EXIT_USAGE)
        code, _, err = run()
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err)

    def test_failed_add_never_changes_the_file(self):
        bf = self.make_filter()
        before = read_bytes(bf)
        good = self.path("good.txt")
        write_keys(good, (f"new{i}" for i in range(1000)))
        # A missing input after a good one: nothing is added.
        code, _, err = run("add", bf, good, self.path("missing.txt"))
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "missing.txt: cannot open")
        self.assertEqual(read_bytes(bf), before)
        # A cuckoo filter that may not grow fills up part-way through the input.
        cf = self.path("full.cf")
        run("create", cf, "--capacity", 100, "--kind", "cuckoo", "--expansion", 0, check=EXIT_OK)
        run("add", cf, stdin="\n".join(f"c{i}" for i in range(50)), check=EXIT_OK)
        before = read_bytes(cf)
        code, _, err = run("add", cf, good)
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "full.cf")
        self.assertEqual(read_bytes(cf), before)
        # No temporary files are left behind.
        self.assertEqual(sorted(os.listdir(self.dir)), ["full.cf", "good.txt", "s.bf"])

    def test_key_over_the_limit(self):
        # A "key" over 64 MiB means the wrong file (an image, a database): refused, and the
        # filter is untouched.
        bf = self.make_filter()
        before = read_bytes(bf)
        huge = self.path("huge.bin")
        with open(huge, "wb") as f:
            f.write(b"x" * (64 * 1024 * 1024 + 1) + b"\n")
        code, _, err = run("add", bf, huge)
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "huge.bin: a key is longer than the maximum of 67108864 bytes")
        self.assertEqual(read_bytes(bf), before)

    def test_compressed_corrupt_payload(self):
        bf = self.make_filter(keys=10)
        z = self.path("s.z")
        run("compress", bf, z, check=EXIT_OK)
        self.assertTrue(self.info(z)["compressed"])
        data = bytearray(read_bytes(z))
        data[130] ^= 0xFF
        with open(z, "wb") as f:
            f.write(data)
        self.assertDataError([z], "s.z: checksum mismatch")


class KeyLimitTest(CliTestCase):
    """Keys of up to 64 MiB are read, longer ones refused, in every record form: a key of
    exactly 67,108,864 bytes was refused as "longer than the maximum of 67108864 bytes"."""

    LIMIT = 64 * 1024 * 1024

    def test_a_key_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(self):
        bf = self.path("s.bf")
        run("create", bf, "--capacity", 1000, "--fp-rate", 1e-9, check=EXIT_OK)
        key = b"x" * self.LIMIT
        # (name, options, input bytes, keys it holds or None if refused)
        # The forms that reach each edge of the reader: the buffer must hold the key, a
        # '\r' and the separator; a last record without one; a '\r' kept as key bytes.
        # (One byte more mid-input: FailedInputTest, BadInputTest.test_key_over_the_limit.)
        cases = [
            ("line, mid-input, CRLF", [], b"a\n" + key + b"\r\nb\n", 3),
            ("null, last record unterminated", ["--null"], b"a\0" + key, 2),
            ("keep-cr, unterminated, the CR counted", ["--keep-cr"], key[1:] + b"\r", 1),
            ("keep-cr, the CR makes it one byte more", ["--keep-cr"], key + b"\r\n", None),
        ]
        added = []
        for name, options, data, keys in cases:
            with self.subTest(name):
                with open(self.path("keys.in"), "wb") as f:
                    f.write(data)
                before = read_bytes(bf)
                code, out, err = run("add", bf, self.path("keys.in"), "--json", "--no-progress", *options)
                if keys is None:
                    self.assertEqual(code, EXIT_DATA)
                    self.assertOneLineError(err, "keys.in: a key is longer than the maximum of 67108864 bytes")
                    self.assertEqual(read_bytes(bf), before)
                else:
                    self.assertEqual(code, EXIT_OK, err)
                    summary = json.loads(out)
                    self.assertEqual(summary["read"], keys)
                    added.append(summary["added"])
        # a, the 64 MiB key and b are new (the rate is 1e-9); then a and that key again;
        # then a new key of 64 MiB - 1 bytes and a kept '\r'.
        self.assertEqual(added, [3, 0, 1])


class CompressTest(CliTestCase):
    def test_round_trip(self):
        bf, z, back = self.path("s.bf"), self.path("s.z"), self.path("back.bf")
        run("create", bf, "--capacity", 100_000, check=EXIT_OK)
        keys = "\n".join(f"k{i}" for i in range(1000))
        run("add", bf, stdin=keys, check=EXIT_OK)
        run("compress", bf, z, check=EXIT_OK)
        # A sparse filter (1% full) compresses well.
        self.assertLess(os.path.getsize(z), os.path.getsize(bf) / 4)
        run("decompress", z, back, check=EXIT_OK)
        self.assertEqual(read_bytes(back), read_bytes(bf))
        probe = "\n".join(f"k{i}" for i in range(2000))
        self.assertEqual(run("query", z, stdin=probe)[1], run("query", bf, stdin=probe)[1])
        # Adding to a compressed file keeps it compressed.
        run("add", z, stdin="more\n", check=EXIT_OK)
        self.assertTrue(self.info(z)["compressed"])
        code, _, err = run("compress", bf, z)
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "--force")


class ExperimentTest(CliTestCase):
    HEADER = ["kind", "items", "bits", "hashes", "queries", "theoretical_fp_rate", "measured_fp_rate", "ci_low",
              "ci_high"]

    def run_experiment(self, kind):
        csv_path, png_path = self.path(f"{kind}.csv"), self.path(f"{kind}.png")
        # The default table's bits per key (5, 10, 20, 40) at a tenth of the size.
        start = time.monotonic()
        _, out, _ = run("experiment", "fpr", "--kind", kind, "--items", 20_000, "--bits", "100K,200K,400K,800K",
                        "--hashes", "3,5,7,9", "--queries", 300_000, "--seed", 7, "--csv", csv_path, "--plot",
                        png_path, check=EXIT_OK)
        elapsed = time.monotonic() - start
        self.assertLess(elapsed, 20, "experiment fpr with small settings should take seconds")
        with open(csv_path, newline="") as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[0], self.HEADER)
        rows = [dict(zip(self.HEADER, r)) for r in rows[1:]]
        # Paired k plus the optimal k of each m (7 for 200K at 10 bits/key is already paired).
        self.assertGreaterEqual(len(rows), 7)
        with open(png_path, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertGreater(os.path.getsize(png_path), 10_000)
        self.assertIn("95% interval", out.decode())
        return rows

    def check_rows(self, rows, kind, theory):
        outside = 0
        for r in rows:
            self.assertEqual(r["kind"], kind)
            n, m, k, q = int(r["items"]), int(r["bits"]), int(r["hashes"]), int(r["queries"])
            self.assertEqual((n, q), (20_000, 300_000))
            p = float(r["theoretical_fp_rate"])
            self.assertAlmostEqual(p, theory(m, n, k), delta=p * 1e-9 + 1e-300)
            measured, lo, hi = float(r["measured_fp_rate"]), float(r["ci_low"]), float(r["ci_high"])
            self.assertLessEqual(lo, measured)
            self.assertLessEqual(measured, hi)
            hits = round(measured * q)
            # Wilson interval recomputed here.
            z = 1.959963984540054
            c = (measured + z * z / (2 * q)) / (1 + z * z / q)
            h = z / (1 + z * z / q) * math.sqrt(measured * (1 - measured) / q + z * z / (4 * q * q))
            self.assertAlmostEqual(lo, max(0.0, c - h), delta=1e-12)
            self.assertAlmostEqual(hi, min(1.0, c + h), delta=1e-12)
            if not lo <= p <= hi:
                outside += 1
            # Independent of the interval: never more than 5 sd from the theory.
            sd = math.sqrt(q * p * (1 - p))
            self.assertLess(abs(hits - q * p), 5 * sd + 1, r)
        # Each 95% interval misses the truth with probability 5%; for 7-8 rows at most one
        # miss keeps a correct run failing with probability < 6% for an arbitrary seed,
        # and the seed is fixed, so the outcome is reproducible.
        self.assertLessEqual(outside, 1, rows)

    def test_classic_measured_matches_theory(self):
        rows = self.run_experiment("classic")
        self.check_rows(rows, "classic", lambda m, n, k: (1 - math.exp(-k * n / m)) ** k)
        # The optimal k of each m was added: round(m/n ln 2).
        pairs = {(int(r["bits"]), int(r["hashes"])) for r in rows}
        for m in (100_000, 200_000, 400_000, 800_000):
            self.assertIn((m, round(m / 20_000 * math.log(2))), pairs)

    def test_blocked_runs_and_stays_in_bounds(self):
        rows = self.run_experiment("blocked")
        theory = {int(r["bits"]) * 100 + int(r["hashes"]): float(r["theoretical_fp_rate"]) for r in rows}
        # Blocked sizes are whole 512-bit blocks; its theory (the Poisson mixture) is above
        # the classic formula's for the same m and k.
        for r in rows:
            m, k = int(r["bits"]), int(r["hashes"])
            self.assertEqual(m % 512, 0)
            self.assertGreaterEqual(float(r["theoretical_fp_rate"]) * 1.0000001,
                                    (1 - math.exp(-k * 20_000 / m)) ** k)
        self.check_rows(rows, "blocked", lambda m, n, k: theory[m * 100 + k])

    def test_plot_failure_is_one_line_and_keeps_the_csv(self):
        csv_path = self.path("t.csv")
        code, out, err = run("experiment", "fpr", "--items", 1000, "--bits", "10K", "--queries", 1000, "--csv",
                             csv_path, "--plot", self.path("no-such-dir/x.png"))
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "--plot: gnuplot failed", "cannot open file")
        self.assertIn("95% interval", out.decode())
        with open(csv_path) as f:
            self.assertEqual(f.readline().strip(), ",".join(self.HEADER))

    def test_bad_settings(self):
        code, _, err = run("experiment", "fpr", "--bits", "1M,2M", "--hashes", "3,5,7")
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "--hashes")
        code, _, err = run("experiment", "fpr", "--kind", "blocked", "--hashes", "40", "--bits", "1M")
        self.assertEqual(code, EXIT_USAGE)
        self.assertOneLineError(err, "[1, 16]")


class BenchTest(CliTestCase):
    def test_small_bench_reports_every_kind(self):
        _, out, _ = run("bench", "--items", 20_000, check=EXIT_OK)
        text = out.decode()
        for kind in ("classic", "blocked", "counting", "scalable", "cuckoo"):
            line = next((l for l in text.splitlines() if l.startswith(kind + " ")), None)
            self.assertIsNotNone(line, f"{kind} missing from:\n{text}")
            fields = line.split()
            self.assertGreater(float(fields[1]), 0)  # add ns/key
            self.assertTrue(fields[-1].endswith("%"), line)  # measured FPR


class HelpTest(CliTestCase):
    def test_help_everywhere(self):
        code, out, _ = run("--help")
        self.assertEqual(code, EXIT_OK)
        text = out.decode()
        for word in ("calc", "create", "add", "query", "dedup", "remove", "info", "merge", "compress",
                     "decompress", "experiment", "bench", "Exit status"):
            self.assertIn(word, text)
        for command in (["calc"], ["create"], ["add"], ["query"], ["dedup"], ["remove"], ["info"], ["merge"],
                        ["compress"], ["decompress"], ["experiment", "fpr"], ["bench"]):
            code, out, _ = run(*command, "--help")
            self.assertEqual(code, EXIT_OK, command)
            self.assertIn("Examples:", out.decode(), command)


def main():
    global BLOOMKIT
    if len(sys.argv) < 2:
        sys.exit("usage: cli_test.py PATH/TO/bloomkit [TestClass ...]")
    BLOOMKIT = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[2:]])


if __name__ == "__main__":
    main()
