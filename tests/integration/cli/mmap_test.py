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
import shutil
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


class MappedReadFaultTest(CliTestCase):
    """A sparse filter on a full tmpfs: reading a hole through the mapping needs a page
    tmpfs cannot give (ENOSPC), and the kernel raises SIGBUS as for a truncated file.
    The file kept its size, so it is not a truncation: bloomkit warns and reads the file
    with read(), where holes read as zeros without taking space.

    Needs root to mount a 1 MiB tmpfs in a private mount namespace (unshare -m); skipped
    otherwise."""

    SCRIPT = r'''
mnt=$1 bf=$2 bloomkit=$3 keys=$4 out=$5
mount -t tmpfs -o size=1M bloomkit-test "$mnt" || exit 90
cp --sparse=always "$bf" "$mnt/s.bf" || exit 91
dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null  # until the file system is full
df -k "$mnt" | tail -n 1 > "$out/df"
"$bloomkit" query "$mnt/s.bf" --mmap --no-progress "$keys" > "$out/query.out" 2> "$out/query.err"
echo $? > "$out/query.code"
"$bloomkit" info "$mnt/s.bf" --mmap --json > "$out/info.out" 2> "$out/info.err"
echo $? > "$out/info.code"
'''

    def test_a_hole_that_cannot_be_read_is_not_a_truncation(self):
        if os.geteuid() != 0 or shutil.which("unshare") is None:
            self.skipTest("needs root and unshare(1) to mount a small tmpfs in a private mount namespace")
        if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
            self.skipTest("unshare -m is not permitted here (no CAP_SYS_ADMIN in this container)")
        # 3.4 MiB of filter, almost all zero: cp --sparse=always leaves it as holes.
        bf = self.path("s.bf")
        run("create", bf, "--capacity", 3_000_000, check=EXIT_OK)
        run("add", bf, "--no-progress", stdin="a\nb\nc\n", check=EXIT_OK)
        keys = self.path("keys.txt")
        write_keys(keys, ["a", "b", "c"] + [f"absent:{i}" for i in range(300)])
        code, loaded, _ = run("query", bf, keys, "--no-progress")
        info = json.loads(run("info", bf, "--json", check=EXIT_OK)[1])
        mnt, out = self.path("mnt"), self.path("out")
        os.mkdir(mnt)
        os.mkdir(out)
        r = subprocess.run(["unshare", "-m", "sh", "-c", self.SCRIPT, "sh", mnt, bf, cli_test.BLOOMKIT, keys, out],
                           capture_output=True, timeout=120)
        if r.returncode == 90:
            self.skipTest(f"cannot mount a tmpfs: {r.stderr.decode(errors='replace').strip()}")
        self.assertEqual(r.returncode, 0, r.stderr)

        def result(name):
            with open(os.path.join(out, name), "rb") as f:
                return f.read()

        self.assertTrue(result("df").split()[3] == b"0", f"the tmpfs is not full: {result('df')!r}")
        warning = "a page of the file could not be read through the mapping, though the file kept its"
        self.assertEqual(int(result("query.code")), code, result("query.err"))
        self.assertEqual(result("query.out"), loaded)
        self.assertOneLineError(result("query.err").decode(), "bloomkit: warning:", warning,
                                "reading the file instead of mapping it")
        self.assertEqual(int(result("info.code")), EXIT_OK, result("info.err"))
        self.assertEqual(json.loads(result("info.out")) | {"file": bf}, info)  # read, not mapped: no "mapped"
        self.assertOneLineError(result("info.err").decode(), "bloomkit: warning:", warning)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: mmap_test.py PATH/TO/bloomkit [TestClass ...]")
    cli_test.BLOOMKIT = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[2:]])


if __name__ == "__main__":
    main()
