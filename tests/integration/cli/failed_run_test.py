#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Closed standard streams are never mistaken for files (docs/CLI.md, "Exit status and
errors").

Usage: failed_run_test.py PATH/TO/bloomkit [TestClass ...]

ClosedStreamTest: descriptors 0, 1 or 2 closed when bloomkit starts.

Same rules as cli_test.py (whose helpers this uses): the built binary as a real process
on real files in a temporary directory.
"""

import json
import os
import signal
import subprocess
import sys
import unittest

import cli_test
from cli_test import EXIT_DATA, EXIT_OK, CliTestCase, read_bytes, run, write_keys

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
        # Commands that print fail.
        for args in (["query", z, self.path("k.txt")], ["info", z]):
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
