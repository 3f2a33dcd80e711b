#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A failed run never changes a filter file (docs/CLI.md, "Exit status and errors"), and
closed standard streams are never mistaken for files.

Usage: failed_run_test.py PATH/TO/bloomkit [TestClass ...]

FailedOutputTest: every subcommand that writes a file, with its stdout on /dev/full, on
a closed descriptor, and on a pipe nobody reads (killed by SIGPIPE, or EPIPE when SIGPIPE
is ignored): the documented exit status, and the file's bytes as before the run.
FailedInputTest: input that fails part-way (a read error, a key over the limit, a
corrupt second filter, a chunk that cannot be read): the same.
ClosedStreamTest: descriptors 0, 1 or 2 closed when bloomkit starts.

Same rules as cli_test.py (whose helpers this uses): the built binary as a real process
on real files in a temporary directory. Signals in the middle of a run are tested in
tests/integration/faults/test_cli_interrupted.py.
"""

import json
import os
import signal
import subprocess
import sys
import unittest

import cli_test
from cli_test import EXIT_DATA, EXIT_OK, CliTestCase, read_bytes, run, write_keys

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "golden", "redisbloom")


def bloomkit(*args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, close=(), ignore_sigpipe=False):
    """Runs bloomkit with descriptors `close` closed and optionally SIGPIPE ignored;
    returns (returncode, stdout bytes or None, stderr text)."""

    def child():
        if ignore_sigpipe:
            signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        for fd in close:
            os.close(fd)

    proc = subprocess.run([cli_test.BLOOMKIT, *map(str, args)], stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                          preexec_fn=child, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr.decode(errors="replace")


class FailingStdout:
    """The ways stdout fails, with the outcome each must give: (mode, exit, error)."""

    MODES = [
        ("full", EXIT_DATA, "stdout: write failed: No space left on device"),
        ("closed", EXIT_DATA, "stdout: write failed: Bad file descriptor (it is closed)"),
        ("sigpipe", -signal.SIGPIPE, None),
        ("epipe", EXIT_DATA, "stdout: write failed: Broken pipe"),
    ]

    @staticmethod
    def run(mode, *args):
        if mode == "full":
            with open("/dev/full", "wb") as full:
                return bloomkit(*args, stdout=full)
        if mode == "closed":
            return bloomkit(*args, stdout=None, close=(1,))
        read_end, write_end = os.pipe()
        os.close(read_end)  # nobody will read: a write gets SIGPIPE, or EPIPE if ignored
        try:
            return bloomkit(*args, stdout=write_end, ignore_sigpipe=mode == "epipe")
        finally:
            os.close(write_end)


class FileCase(CliTestCase):
    def snapshot(self):
        """Every file of the test directory and its bytes (a failed run leaves all of them)."""
        files = {}
        for root, _, names in os.walk(self.dir):
            for name in names:
                path = os.path.join(root, name)
                files[os.path.relpath(path, self.dir)] = read_bytes(path)
        return files

    def assertFailsUnchanged(self, outcome, code, fragment, what):
        got_code, _, err = outcome
        self.assertEqual(got_code, code, f"{what}: {err}")
        if fragment is not None:
            self.assertOneLineError(err, fragment)

    def counting(self, name="c.cf", keys=100, kind="counting", prefix="k"):
        path = self.path(name)
        run("create", path, "--capacity", 1000, "--kind", kind, check=EXIT_OK)
        run("add", path, stdin="".join(f"{prefix}{i}\n" for i in range(keys)), check=EXIT_OK)
        return path


class FailedOutputTest(FileCase):
    def commands(self):
        """(name, args) of every subcommand that writes a file, on fixtures made here; each
        run, when it succeeds, changes the file it writes."""
        c = self.counting("c.cf")
        b1, b2 = self.counting("a.bf", kind="classic"), self.counting("b.bf", kind="classic", prefix="b")
        z = self.path("z.bf")
        run("compress", b2, z, check=EXIT_OK)
        write_keys(self.path("new.txt"), [f"new{i}" for i in range(50)])
        write_keys(self.path("new2.txt"), [f"other{i}" for i in range(50)])
        write_keys(self.path("old.txt"), [f"k{i}" for i in range(20)])
        # rb.bf, rb.dump and the dump imported over rb.bf: three different filters.
        rb = self.path("rb.bf")
        run("import", "redisbloom", rb, "--dump", os.path.join(GOLDEN, "cf_default", "dump.bin"), check=EXIT_OK)
        with open(os.path.join(GOLDEN, "bf_default", "dump.bin"), "rb") as f, open(self.path("rb.dump"), "wb") as out:
            out.write(f.read())
        dump = os.path.join(GOLDEN, "bf_scaled", "dump.bin")
        return [
            ("add", ["add", c, self.path("new.txt"), "--no-progress"]),
            ("add --json", ["add", c, self.path("new.txt"), "--json", "--no-progress"]),
            ("add --create", ["add", self.path("fresh.bf"), self.path("new.txt"), "--create", "--capacity", 100]),
            ("remove", ["remove", c, self.path("old.txt"), "--no-progress"]),
            ("dedup", ["dedup", b1, self.path("new.txt"), "--no-progress"]),
            ("dedup --sync-every", ["dedup", b1, self.path("new2.txt"), "--sync-every", 1000, "--no-progress"]),
            ("create --force", ["create", c, "--capacity", 10, "--force"]),
            ("create", ["create", self.path("fresh2.bf"), "--capacity", 10]),
            ("merge in place", ["merge", b1, b1, b2]),
            ("compress in place", ["compress", b1, b1]),
            ("decompress in place", ["decompress", z, z]),
            ("import redisbloom", ["import", "redisbloom", rb, "--dump", dump, "--force"]),
            ("export --dump", ["export", rb, "--format", "redisbloom", "--dump", self.path("rb.dump"), "--force"]),
        ]

    def test_a_failed_output_changes_no_file(self):
        for name, args in self.commands():
            for mode, code, fragment in FailingStdout.MODES:
                with self.subTest(command=name, stdout=mode):
                    before = self.snapshot()
                    self.assertFailsUnchanged(FailingStdout.run(mode, *args), code, fragment, f"{name}, {mode}")
                    self.assertEqual(self.snapshot(), before)

    def test_export_chunks_writes_its_listing_only_after_its_output(self):
        # Not filter files: the chunks are written one by one, and iterators.txt, which
        # makes them a usable set, only once the summary is out.
        rb = self.path("rb.bf")
        run("import", "redisbloom", rb, "--dump", os.path.join(GOLDEN, "bf_scaled", "dump.bin"), check=EXIT_OK)
        chunks = self.path("chunks")
        for mode, code, fragment in FailingStdout.MODES:
            with self.subTest(stdout=mode):
                outcome = FailingStdout.run(mode, "export", rb, "--format", "redisbloom", "--chunks", chunks, "--force")
                self.assertFailsUnchanged(outcome, code, fragment, mode)
                self.assertFalse(os.path.exists(os.path.join(chunks, "iterators.txt")))
        run("export", rb, "--format", "redisbloom", "--chunks", chunks, "--force", check=EXIT_OK)
        self.assertTrue(os.path.exists(os.path.join(chunks, "iterators.txt")))

    def test_a_retry_after_a_failed_output_does_not_double_counts(self):
        # `bloomkit add c.cf keys > /dev/full`, then the same add again.
        c = self.counting("c.cf", keys=0)
        write_keys(self.path("keys.txt"), ["a", "b", "c"])
        self.assertFailsUnchanged(FailingStdout.run("full", "add", c, self.path("keys.txt")), EXIT_DATA, "stdout", "add")
        run("add", c, self.path("keys.txt"), check=EXIT_OK)
        self.assertEqual(self.info(c)["count"], 3)
        _, out, _ = run("remove", c, self.path("keys.txt"), check=EXIT_OK)
        code, _, _ = run("query", c, "-q", self.path("keys.txt"))
        self.assertEqual(code, cli_test.EXIT_NONE_FOUND, "one remove takes away the one add")

    def test_a_successful_run_still_saves_and_prints(self):
        # Also proves that each case above would have changed its file.
        for name, args in self.commands():
            with self.subTest(command=name):
                before = self.snapshot()
                code, out, err = bloomkit(*args)
                self.assertEqual(code, EXIT_OK, f"{name}: {err}")
                self.assertTrue(out, name)
                self.assertNotEqual(self.snapshot(), before, name)


class FailedInputTest(FileCase):
    def test_input_that_fails_part_way(self):
        c = self.counting("c.cf")
        b = self.counting("s.bf", kind="classic")
        write_keys(self.path("good.txt"), [f"new{i}" for i in range(5000)] + [f"k{i}" for i in range(50)])
        os.mkdir(self.path("dir"))  # opens, then fails to read: EISDIR
        cases = [
            (["add", c], "dir: read failed: Is a directory"),
            (["remove", c], "dir: read failed: Is a directory"),
            (["dedup", b], "dir: read failed: Is a directory"),
            (["query", b], "dir: read failed: Is a directory"),
        ]
        for args, fragment in cases:
            with self.subTest(command=args[0]):
                before = self.snapshot()
                code, _, err = bloomkit(*args, self.path("good.txt"), self.path("dir"), "--no-progress",
                                        stdout=subprocess.DEVNULL)
                self.assertEqual(code, EXIT_DATA, err)
                self.assertOneLineError(err, fragment)
                self.assertEqual(self.snapshot(), before)

    def test_a_key_over_the_limit_in_the_middle(self):
        c = self.counting("c.cf")
        b = self.counting("s.bf", kind="classic")
        huge = self.path("huge.txt")
        with open(huge, "wb") as f:
            f.write(b"before1\nbefore2\n" + b"x" * (64 * 1024 * 1024 + 1) + b"\nafter\n")
        for args in (["add", c], ["dedup", b]):
            with self.subTest(command=args[0]):
                before = self.snapshot()
                code, _, err = bloomkit(*args, huge, "--no-progress", stdout=subprocess.DEVNULL)
                self.assertEqual(code, EXIT_DATA, err)
                self.assertOneLineError(err, "huge.txt: a key is longer than the maximum of 67108864 bytes")
                self.assertEqual(self.snapshot(), before)

    def test_merge_and_import_with_a_bad_later_input(self):
        a, b, c = (self.counting(n, kind="classic") for n in ("a.bf", "b.bf", "c.bf"))
        data = bytearray(read_bytes(c))
        data[200] ^= 1
        with open(c, "wb") as f:
            f.write(data)
        before = self.snapshot()
        code, _, err = bloomkit("merge", a, a, b, c)
        self.assertEqual(code, EXIT_DATA, err)
        self.assertOneLineError(err, "c.bf: ")
        self.assertEqual(self.snapshot(), before)
        rb = self.path("rb.bf")
        chunks = sorted(os.path.join(GOLDEN, "bf_scaled", n) for n in os.listdir(os.path.join(GOLDEN, "bf_scaled"))
                        if n.startswith("chunk"))
        run("import", "redisbloom", rb, "--chunks", *chunks, check=EXIT_OK)
        os.mkdir(self.path("chunk.dir"))
        before = self.snapshot()
        code, _, err = bloomkit("import", "redisbloom", rb, "--force", "--chunks", *chunks[:-1], self.path("chunk.dir"))
        self.assertEqual(code, EXIT_DATA, err)
        self.assertOneLineError(err, "chunk.dir")
        self.assertEqual(self.snapshot(), before)

    def test_dedup_checkpoints_hold_only_printed_keys(self):
        # --sync-every saves as it goes: a run that then fails keeps its last checkpoint,
        # which records only keys it printed, so a retry prints every key not recorded.
        b = self.path("s.bf")
        run("create", b, "--capacity", 100_000, "--fp-rate", 1e-7, check=EXIT_OK)
        keys = [f"key{i}" for i in range(56)]
        write_keys(self.path("keys.txt"), keys)
        os.mkdir(self.path("dir"))
        code, out, err = bloomkit("dedup", b, self.path("keys.txt"), self.path("dir"), "--sync-every", 10)
        self.assertEqual(code, EXIT_DATA, err)
        printed = out.decode().split()
        self.assertEqual(printed[:50], keys[:50])
        _, out, _ = run("query", b, self.path("keys.txt"), "--print", "present", check=EXIT_OK)
        self.assertEqual(out.decode().split(), keys[:50], "the checkpoint at 50 keys")
        _, out, _ = run("dedup", b, self.path("keys.txt"), "-q", check=EXIT_OK)
        self.assertEqual(out.decode().split(), keys[50:])


class ClosedStreamTest(FileCase):
    def test_closed_stdin_is_an_error_not_the_filter_as_keys(self):
        # `bloomkit add -0 z.bf <&-` opened the filter as descriptor 0 and added its own
        # bytes as keys.
        z = self.path("z.bf")
        run("create", z, "--capacity", 1000, check=EXIT_OK)
        run("add", z, stdin="seed\n", check=EXIT_OK)
        cases = [["add", "-0", z], ["add", z], ["add", z, "-"], ["remove", self.counting()], ["dedup", z],
                 ["query", z], ["add", self.path("new.bf"), "--create", "--capacity", 10]]
        for args in cases:
            with self.subTest(args=args[:2]):
                before = self.snapshot()
                code, out, err = bloomkit(*args, stdin=None, close=(0,))
                self.assertEqual(code, EXIT_DATA, err)
                self.assertOneLineError(err, "(stdin): standard input is closed")
                self.assertEqual(out, b"")
                self.assertEqual(self.snapshot(), before)
        # Keys from a file do not need stdin.
        write_keys(self.path("k.txt"), ["a", "b"])
        code, out, err = bloomkit("add", z, self.path("k.txt"), stdin=None, close=(0,))
        self.assertEqual(code, EXIT_OK, err)
        self.assertIn(b"read 2 keys", out)

    def test_closed_stdout(self):
        z = self.counting("z.bf", kind="classic")
        write_keys(self.path("k.txt"), ["k1", "nope"])
        # Commands that print fail, and change nothing.
        for args in (["add", z, self.path("k.txt")], ["query", z, self.path("k.txt")], ["info", z],
                     ["create", self.path("t.bf"), "--capacity", 10]):
            with self.subTest(args=args[:1]):
                before = self.snapshot()
                code, _, err = bloomkit(*args, stdout=None, close=(1,))
                self.assertEqual(code, EXIT_DATA, err)
                self.assertOneLineError(err, "stdout: write failed: Bad file descriptor (it is closed)")
                self.assertEqual(self.snapshot(), before)
        # One that prints nothing works.
        code, _, err = bloomkit("query", z, self.path("k.txt"), "-q", stdout=None, close=(1,))
        self.assertEqual((code, err), (EXIT_OK, ""))

    def test_closed_stderr(self):
        # Messages are lost, never written into a file; the exit status still tells.
        z = self.counting("z.bf", kind="classic", keys=0)
        write_keys(self.path("k.txt"), [f"k{i}" for i in range(3000)])  # overfull: a warning after the save
        before = self.snapshot()
        code, _, _ = bloomkit("add", z, self.path("k.txt"), self.path("missing.txt"), close=(2,))
        self.assertEqual(code, EXIT_DATA)
        self.assertEqual(self.snapshot(), before)
        code, out, _ = bloomkit("add", z, self.path("k.txt"), "--json", close=(2,))
        self.assertEqual(code, EXIT_OK)
        summary = json.loads(out)
        self.assertEqual(summary["read"], 3000)
        self.assertEqual(self.info(z)["count"], summary["added"])
        self.assertEqual(sorted(self.snapshot()), ["k.txt", "z.bf"])
        self.assertEqual(run("verify", z)[0], EXIT_OK)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: failed_run_test.py PATH/TO/bloomkit [TestClass ...]")
    cli_test.BLOOMKIT = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[2:]])


if __name__ == "__main__":
    main()
