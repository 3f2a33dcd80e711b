#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of memory-mapped reads: `bloomkit query --mmap`, `info --mmap` and
`verify`, including a file replaced by a save and a file truncated by another program
while a query process holds it mapped.

Usage: mmap_test.py PATH/TO/bloomkit [TestClass ...]

Same rules as cli_test.py (whose helpers this uses): the built binary as a real process
on real files in a temporary directory.
"""

import json
import os
import subprocess
import sys
import time
import unittest

import cli_test
from cli_test import EXIT_DATA, EXIT_OK, CliTestCase, run, write_keys


class MappedQueryTest(CliTestCase):
    def make(self, name, kind, keys):
        bf = self.path(name)
        run("create", bf, "--capacity", 20000, "--kind", kind, check=EXIT_OK)
        run("add", bf, "--no-progress", stdin="".join(k + "\n" for k in keys), check=EXIT_OK)
        return bf

    def test_answers_and_info_match_the_loaded_filter(self):
        keys = [f"key:{i}" for i in range(5000)]
        probes = "".join(f"key:{i}\n" for i in range(10000))
        for kind in ("classic", "blocked"):
            bf = self.make(f"{kind}.bf", kind, keys)
            loaded = run("query", bf, "--no-progress", stdin=probes, check=EXIT_OK)[1]
            mapped = run("query", bf, "--mmap", "--no-progress", stdin=probes, check=EXIT_OK)[1]
            self.assertEqual(mapped, loaded)
            info_loaded = json.loads(run("info", bf, "--json", check=EXIT_OK)[1])
            info_mapped = json.loads(run("info", bf, "--json", "--mmap", check=EXIT_OK)[1])
            self.assertTrue(info_mapped.pop("mapped"))
            self.assertEqual(info_mapped, info_loaded)
            self.assertIn(b"memory-mapped", run("info", bf, "--mmap", check=EXIT_OK)[1])

    def test_files_that_cannot_be_mapped_are_loaded(self):
        keys = [f"key:{i}" for i in range(100)]
        bf = self.make("c.bf", "classic", keys)
        run("compress", bf, self.path("z.bf"), check=EXIT_OK)
        cf = self.make("cf.bf", "cuckoo", keys)
        for name in ("z.bf", "cf.bf"):
            code, out, _ = run("query", self.path(name), "--mmap", "--no-progress", stdin="key:7\nnope\n")
            self.assertEqual(code, EXIT_OK)
            self.assertEqual(out.splitlines()[0], b"key:7\tmaybe")
            info = json.loads(run("info", self.path(name), "--json", "--mmap", check=EXIT_OK)[1])
            self.assertNotIn("mapped", info)
        self.assertEqual(cf, self.path("cf.bf"))

    def test_a_bad_file_is_a_data_error(self):
        bf = self.make("c.bf", "classic", ["a"])
        with open(bf, "r+b") as f:
            f.truncate(os.path.getsize(bf) - 3)
        code, _, err = run("query", bf, "--mmap", stdin="a\n")
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "c.bf: truncated")

    def test_verify(self):
        bf = self.make("c.bf", "classic", ["a", "b"])
        code, out, _ = run("verify", bf)
        self.assertEqual(code, EXIT_OK)
        self.assertIn(b"c.bf: ok (classic filter", out)
        with open(bf, "r+b") as f:
            f.seek(200)
            byte = f.read(1)
            f.seek(200)
            f.write(bytes([byte[0] ^ 1]))
        code, _, err = run("verify", bf)
        self.assertEqual(code, EXIT_DATA)
        self.assertOneLineError(err, "c.bf: checksum mismatch")
        # The mapped query does not read the checksum: it answers (from damaged bits).
        code, _, _ = run("query", bf, "--mmap", "-q", stdin="a\n")
        self.assertEqual(code, EXIT_OK)


class MappedWhileChangedTest(CliTestCase):
    """A query process maps the file and waits for its keys on a pipe; meanwhile the file
    is replaced by a save, or truncated in place, by another process."""

    def start_query(self, bf):
        proc = subprocess.Popen([cli_test.BLOOMKIT, "query", bf, "--mmap", "--no-progress"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # Mapped once /proc shows the file among its mappings.
        real = os.path.realpath(bf)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with open(f"/proc/{proc.pid}/maps") as maps:
                    if any(line.rstrip().endswith(real) for line in maps):
                        return proc
            except FileNotFoundError:
                break
            time.sleep(0.01)
        proc.kill()
        proc.communicate()
        self.fail(f"bloomkit query did not map {bf}")

    def test_a_save_replaces_the_file_and_the_view_keeps_the_old_one(self):
        old = [f"old:{i}" for i in range(3000)]
        new = [f"new:{i}" for i in range(3000)]
        bf = self.path("c.bf")
        run("create", bf, "--capacity", 100000, "--fp-rate", "0.001", check=EXIT_OK)
        write_keys(self.path("old.txt"), old)
        write_keys(self.path("new.txt"), new)
        run("add", bf, self.path("old.txt"), "--no-progress", check=EXIT_OK)
        run("query", bf, self.path("new.txt"), "-c", "--no-progress")  # warm
        proc = self.start_query(bf)
        inode = os.stat(bf).st_ino
        run("add", bf, self.path("new.txt"), "--no-progress", check=EXIT_OK)
        self.assertNotEqual(os.stat(bf).st_ino, inode)  # the save gave the name a new inode
        out, err = proc.communicate("".join(k + "\n" for k in old + new).encode(), timeout=60)
        self.assertEqual(proc.returncode, EXIT_OK, err)
        answers = dict(line.split(b"\t") for line in out.splitlines())
        self.assertTrue(all(answers[k.encode()] == b"maybe" for k in old))
        found_new = sum(answers[k.encode()] == b"maybe" for k in new)
        self.assertLess(found_new, 30)  # the old version: false positives only (~3 expected)
        code, out, _ = run("query", bf, self.path("new.txt"), "--mmap", "-c", "--no-progress")
        self.assertEqual(out, b"3000\n")  # a new view sees the new version

    def test_a_truncation_by_another_program_is_a_clear_error(self):
        for kind in ("classic", "blocked"):
            bf = self.path(f"{kind}.bf")
            run("create", bf, "--capacity", 100000, "--kind", kind, "--force", check=EXIT_OK)
            run("add", bf, "--no-progress", stdin="a\nb\n", check=EXIT_OK)
            proc = self.start_query(bf)
            os.truncate(bf, 0)  # what `truncate -s 0` does
            out, err = proc.communicate(b"".join(b"k%d\n" % i for i in range(1000)), timeout=60)
            self.assertEqual(proc.returncode, EXIT_DATA, f"killed by a signal? {proc.returncode} {err!r}")
            self.assertOneLineError(err.decode(), f"{kind}.bf: the file shrank while it was mapped")
            self.assertEqual(out, b"")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: mmap_test.py PATH/TO/bloomkit [TestClass ...]")
    cli_test.BLOOMKIT = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[2:]])


if __name__ == "__main__":
    main()
