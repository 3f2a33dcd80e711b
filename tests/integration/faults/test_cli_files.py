# SPDX-License-Identifier: Apache-2.0
"""Filter files under attack: two writers at once, saves through links, files that are
not regular files, headers that lie about their payload.

Every test runs the built `bloomkit` as real processes on real files in a temporary
directory. The two-writer test runs enough rounds (50 per kind) that a lost update,
which an unlocked read-modify-write shows in about half of the rounds, is caught
every time."""

import os
import shutil
import stat
import struct
import subprocess
import tempfile
import threading
import time
import unittest

from faultlib import CLI, cli_main, run_cli, xxh3_64

EXIT_DATA = 3
WRITER_ROUNDS = 50


def reseal(body):
    """A filter file from its header and stored payload: the XXH3-64 checksum appended."""
    return body + struct.pack("<Q", xxh3_64(body))


def run_rss(args, stdin=b""):
    """Runs bloomkit with `stdin` (from a file: a command that does not read it cannot
    break a pipe); returns (exit status, stderr, peak resident KiB of that process)."""
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as err:
        given.write(stdin)
        given.seek(0)
        proc = subprocess.Popen([CLI] + [str(a) for a in args], stdin=given, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return proc.returncode, err.read(), usage.ru_maxrss


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def absent_keys(path, keys):
    """Keys of `keys` the filter says are certainly absent (a lost add)."""
    r = run_cli(["query", path, "--print", "absent", "--no-progress"], input=b"".join(k + b"\n" for k in keys))
    if r.returncode not in (0, 1):
        raise AssertionError("query failed: " + r.stderr.decode(errors="replace"))
    return [k for k in r.stdout.split(b"\n") if k]


class FilesTestCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bloomkit-files-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def create(self, name, *extra):
        path = self.path(name)
        r = run_cli(["create", path, "--capacity", "100000"] + list(extra))
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        return path


class TwoWritersTest(FilesTestCase):
    """Two `bloomkit add` processes on one file: both writers' keys must survive."""

    def check_kind(self, kind):
        path = self.create(kind + ".bf", "--kind", kind)
        lost_rounds = 0
        for round_ in range(WRITER_ROUNDS):
            batches = [[b"%s-%d-%d-%d" % (kind.encode(), round_, w, i) for i in range(2000)] for w in range(2)]
            procs = [subprocess.Popen([CLI, "add", path, "--no-progress"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in batches]
            threads = [threading.Thread(target=p.communicate, args=(b"".join(k + b"\n" for k in keys),))
                       for p, keys in zip(procs, batches)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for p in procs:
                self.assertEqual(p.returncode, 0, "a writer failed in round %d" % round_)
            lost = absent_keys(path, batches[0] + batches[1])
            if lost:
                lost_rounds += 1
        self.assertEqual(lost_rounds, 0, "%s: acknowledged keys lost in %d of %d rounds" %
                         (kind, lost_rounds, WRITER_ROUNDS))

    def test_classic(self):
        self.check_kind("classic")

    def test_counting(self):
        self.check_kind("counting")

    def test_cuckoo(self):
        self.check_kind("cuckoo")

    def test_two_creating_writers(self):
        """`add --create` by two writers on a missing file: the second must add to the
        file the first created, not replace it (they exclude each other on the directory)."""
        path = self.path("new.bf")
        for round_ in range(20):
            if os.path.exists(path):
                os.unlink(path)
            batches = [[b"c-%d-%d-%d" % (round_, w, i) for i in range(500)] for w in range(2)]
            procs = [subprocess.Popen([CLI, "add", path, "--create", "--capacity", "10000", "--no-progress"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                     for _ in batches]
            threads = [threading.Thread(target=p.communicate, args=(b"".join(k + b"\n" for k in keys),))
                       for p, keys in zip(procs, batches)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for p in procs:
                self.assertEqual(p.returncode, 0, "a writer failed in round %d" % round_)
            self.assertEqual(absent_keys(path, batches[0] + batches[1]), [], "round %d" % round_)

    def test_second_writer_gives_up_after_wait(self):
        """A writer that cannot get the lock within --wait fails with exit 3, file unchanged."""
        path = self.create("held.bf")
        before = read_bytes(path)
        # A first writer that holds the lock while it waits for its keys on stdin.
        holder = subprocess.Popen([CLI, "add", path, "--no-progress"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            time.sleep(0.3)  # let it take the lock
            t0 = time.monotonic()
            r = run_cli(["add", path, "--no-progress", "--wait", "0.5"], input=b"late\n")
            waited = time.monotonic() - t0
            self.assertEqual(r.returncode, EXIT_DATA, r.stderr)
            self.assertIn(b"locked", r.stderr)
            self.assertGreaterEqual(waited, 0.45)
            self.assertLess(waited, 10)
            self.assertEqual(read_bytes(path), before)
        finally:
            out, err = holder.communicate(b"early\n")
        self.assertEqual(holder.returncode, 0, err)
        self.assertEqual(absent_keys(path, [b"early"]), [])



class SaveTargetTest(FilesTestCase):
    """A save updates the file the user named, keeps its mode, and never replaces
    something that is not a regular file."""

    def add(self, path, *keys, **kwargs):
        return run_cli(["add", path, "--no-progress"], input=b"".join(k + b"\n" for k in keys), **kwargs)

    def test_save_through_symlink_updates_the_target(self):
        target = self.create("real.bf")
        os.makedirs(self.path("links"))
        link = os.path.join(self.path("links"), "link.bf")
        os.symlink(os.path.join("..", "real.bf"), link)  # relative, from another directory
        chain = self.path("chain.bf")
        os.symlink(link, chain)  # a link to a link
        r = self.add(chain, b"through-the-link")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.islink(link) and os.path.islink(chain), "a link was replaced by a file")
        self.assertEqual(absent_keys(target, [b"through-the-link"]), [])
        self.assertEqual(sorted(os.listdir(self.dir)), ["chain.bf", "links", "real.bf"])

    def test_mode_is_kept_and_new_files_honour_the_umask(self):
        path = self.create("private.bf")
        os.chmod(path, 0o600)
        self.assertEqual(self.add(path, b"k").returncode, 0)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        os.chmod(path, 0o640)
        self.assertEqual(run_cli(["compress", path, path]).returncode, 0)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o640)
        old = os.umask(0o077)
        try:
            fresh = self.create("fresh.bf")
        finally:
            os.umask(old)
        self.assertEqual(stat.S_IMODE(os.stat(fresh).st_mode), 0o600)
        old = os.umask(0o002)
        try:
            shared = self.create("shared.bf")
        finally:
            os.umask(old)
        self.assertEqual(stat.S_IMODE(os.stat(shared).st_mode), 0o664)

    def test_non_regular_files_are_refused_not_replaced(self):
        fifo = self.path("fifo.bf")
        os.mkfifo(fifo)
        for args in (["info", fifo], ["query", fifo, "--no-progress"], ["add", fifo, "--no-progress"],
                     ["create", fifo, "--capacity", "10", "--force"]):
            r = run_cli(args, input=b"k\n", timeout=10)  # an open() of a FIFO would block forever
            self.assertEqual(r.returncode, EXIT_DATA, (args, r.stderr))
            self.assertIn(b"not a regular file", r.stderr)
            self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO was replaced")
        os.symlink("/dev/null", self.path("null.bf"))
        r = run_cli(["create", self.path("null.bf"), "--capacity", "10", "--force"])
        self.assertEqual(r.returncode, EXIT_DATA, r.stderr)
        self.assertIn(b"not a regular file (a device)", r.stderr)
        self.assertTrue(stat.S_ISCHR(os.stat("/dev/null").st_mode))
        os.mkdir(self.path("dir.bf"))
        r = run_cli(["merge", self.path("dir.bf"), self.create("a.bf"), self.create("b.bf"), "--force"])
        self.assertEqual(r.returncode, EXIT_DATA, r.stderr)
        self.assertTrue(os.path.isdir(self.path("dir.bf")))

    def test_hard_linked_file_is_refused_and_unchanged(self):
        path = self.create("linked.bf")
        other = self.path("other-name.bf")
        os.link(path, other)
        before = read_bytes(path)
        r = self.add(path, b"k")
        self.assertEqual(r.returncode, EXIT_DATA, r.stderr)
        self.assertIn(b"hard links", r.stderr)
        self.assertEqual(read_bytes(path), before)
        self.assertEqual(os.stat(path).st_ino, os.stat(other).st_ino)
        os.unlink(other)
        self.assertEqual(self.add(path, b"k").returncode, 0)



class HeaderFirstTest(FilesTestCase):
    """Files that lie about their size: refused after reading their header, with no
    allocation of what they claim.

    Resident memory is compared with the same binary's peak on a small valid file, so
    the bound holds in every build (a sanitizer's runtime adds tens of MiB to both): a
    claim here is 512 MiB or 1 GiB, the allowed growth 32 MiB."""

    GROWTH_KIB = 32 * 1024

    def baseline_kib(self):
        path = self.create("baseline.bf")
        peaks = []
        for command in (["info", path], ["query", path, "--no-progress"]):
            code, err, rss = run_rss(command, stdin=b"k\n")
            self.assertIn(code, (0, 1), err)  # query: 1 = a key is absent
            peaks.append(rss)
        return max(peaks)

    def test_large_non_filter_is_refused_after_its_header(self):
        bound = self.baseline_kib() + self.GROWTH_KIB
        path = self.path("big.log")
        with open(path, "wb") as f:
            f.write(b"2026-12-01 12:00:00 a log line\n" * 1024)
            f.truncate(512 * 1024 * 1024)  # sparse: no disk, but read() returns zeros
        code, err, rss = run_rss(["info", path])
        self.assertEqual(code, EXIT_DATA, err)
        self.assertIn(b"bad magic", err)
        self.assertLess(rss, bound, "the whole file was read before its magic was checked")

    def bomb(self, num_bits, claim):
        """A classic file whose 17-byte zstd frame claims `claim` bytes and holds 128 KiB."""
        frame = b"\x28\xb5\x2f\xfd" + b"\xe0" + struct.pack("<Q", claim)  # single segment, 8-byte size
        block = (131072 << 3) | (1 << 1) | 1  # last block, RLE, 128 KiB
        frame += struct.pack("<I", block)[:3] + b"\x00"
        header = bytearray(128)
        header[0:8] = b"\x89BLK\r\n\x1a\n"
        struct.pack_into("<IIHHIQQQQQd", header, 8, 1, 128, 1, 1, 1, 0x626C6F6F6D6B6974, 1000, 0, len(frame), claim,
                         0.01)
        struct.pack_into("<QQ", header, 72, num_bits, 7)
        return reseal(bytes(header) + frame)

    def test_decompression_bomb_allocates_nothing_it_claims(self):
        bound = self.baseline_kib() + self.GROWTH_KIB
        claim = 1 << 30
        # (file, bits in the header, extra options, what the error must say)
        cases = [("consistent.bf", claim * 8, [], b"compressed payload is corrupt"),
                 ("consistent-limited.bf", claim * 8, ["--max-memory", "64MiB"], b"over the memory limit"),
                 ("inconsistent.bf", 1024, [], b""),
                 ("inconsistent-limited.bf", 1024, ["--max-memory", "64MiB"], b"over the memory limit")]
        for name, num_bits, extra, message in cases:
            path = self.path(name)
            with open(path, "wb") as f:
                f.write(self.bomb(num_bits, claim))
            for command in (["info", path], ["query", path, "--no-progress"]):
                code, err, rss = run_rss(command + extra, stdin=b"k\n")
                self.assertIn(code, (EXIT_DATA, 2), err)
                self.assertIn(message, err)
                self.assertLess(rss, bound, "%s %s: %d KiB resident for a %d-byte file" %
                                (command[0], name, rss, os.path.getsize(path)))

    def test_count_at_the_top_of_its_range_is_refused(self):
        path = self.create("count.bf")
        body = bytearray(read_bytes(path)[:-8])
        struct.pack_into("<Q", body, 40, (1 << 64) - 1)
        with open(path, "wb") as f:
            f.write(reseal(bytes(body)))
        r = run_cli(["add", path, "--no-progress"], input=b"k\n")
        self.assertEqual(r.returncode, EXIT_DATA, r.stderr)
        self.assertIn(b"count 18446744073709551615", r.stderr)


class CountLimitTest(FilesTestCase):
    """A file whose count is resealed at 2^63 - 1, the most a filter keeps: what `add` and
    `remove` make of it, `info` loads. A Bloom filter's count stops there; a scalable
    filter, whose stage counts steer its growth, refuses the new key and keeps its file."""

    MAX = (1 << 63) - 1

    def resealed(self, kind, edit, name=None):
        path = self.create((name or kind) + ".bf", "--kind", kind)
        data = bytearray(read_bytes(path))
        edit(data)
        with open(path, "wb") as f:
            f.write(reseal(bytes(data[:-8])))
        return path

    def loads(self, path):
        r = run_cli(["info", path])
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        return r.stdout.decode()

    def test_bloom_counts_stop_at_the_limit(self):
        for kind in ("classic", "blocked", "counting"):
            path = self.resealed(kind, lambda d: struct.pack_into("<Q", d, 40, self.MAX))
            r = run_cli(["add", path, "--no-progress"], input=b"k1\nk2\nk3\n")
            self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
            self.assertIn("9,223,372,036,854,775,807", self.loads(path), kind)
            r = run_cli(["query", path, "--no-progress"], input=b"k1\n")
            self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))

    def test_scalable_refuses_a_key_past_the_limit(self):
        def at_limit(d):
            struct.pack_into("<Q", d, 40, self.MAX)
            stored = struct.unpack_from("<Q", d, 128 + 48)[0]
            end = 128 + 128 + stored + 8
            stage = bytearray(d[128:end])
            struct.pack_into("<Q", stage, 40, self.MAX)
            d[128:end] = reseal(bytes(stage[:-8]))

        path = self.resealed("scalable", at_limit)
        before = read_bytes(path)
        r = run_cli(["add", path, "--no-progress"], input=b"k1\n")
        self.assertEqual(r.returncode, EXIT_DATA, r.stderr)
        self.assertIn(b"9223372036854775807", r.stderr)
        self.assertEqual(read_bytes(path), before)
        self.loads(path)

    def test_cuckoo_delete_count_stops_at_the_limit(self):
        deletes = 72 + 8 * 5
        path = self.resealed("cuckoo", lambda d: struct.pack_into("<Q", d, deletes, self.MAX))
        self.assertEqual(run_cli(["add", path, "--no-progress"], input=b"k1\n").returncode, 0)
        r = run_cli(["remove", path, "--no-progress"], input=b"k1\n")
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        self.loads(path)
        over = self.resealed("cuckoo", lambda d: struct.pack_into("<Q", d, deletes, (1 << 64) - 1), "over")
        r = run_cli(["info", over])
        self.assertEqual(r.returncode, EXIT_DATA, r.stderr)
        self.assertIn(b"delete count 18446744073709551615", r.stderr)


if __name__ == "__main__":
    cli_main()
