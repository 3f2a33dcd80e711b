#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Loads and saves of the bloomkit CLI cost the filter's size plus a bounded buffer.

Each command runs on a 64 MiB filter under an address-space cap (RLIMIT_AS, what
`ulimit -v` sets) of: the least cap under which the same command runs on a tiny filter
(the program's own baseline: libraries, stacks, allocator arenas), plus the filter's
size, plus BOUND. A load that reads the file into a buffer and then copies it into the
filter needs a second filter-sized allocation and fails under that cap, as does a save
that serializes into a buffer or a merge that loads both inputs.

    memory_test.py BLOOMKIT [unittest args]
"""
import os
import resource
import subprocess
import sys
import tempfile
import unittest

BLOOMKIT = sys.argv.pop(1)
MIB = 1 << 20
# kReadBufferBytes (1 MiB), zstd's contexts at level 3 (a few MiB) and slack for the
# allocator's arenas; far below the 64 MiB a second copy of the filter needs.
BOUND = 16 * MIB

# Sanitizers reserve shadow memory as address space of their own: a cap a few MiB over
# the program's use stops the sanitizer itself, so the capped runs are skipped there.
UNDER_SANITIZER = os.environ.get("BLOOMKIT_SANITIZE", "") != ""


def run(args, cap=None, stdin=b""):
    def limit():
        if cap is not None:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    return subprocess.run([BLOOMKIT] + args, input=stdin, capture_output=True, preexec_fn=limit, check=False)


def least_cap(args, stdin=b"", returncode=0):
    """The least address-space cap (to 1 MiB) under which `args` exits with `returncode`."""
    low, high = 1 * MIB, 256 * MIB
    assert run(args, high, stdin).returncode == returncode
    while high - low > MIB:
        mid = (low + high) // 2
        if run(args, mid, stdin).returncode == returncode:
            high = mid
        else:
            low = mid
    return high


@unittest.skipIf(UNDER_SANITIZER, "RLIMIT_AS caps do not apply under sanitizers")
class LoadSaveMemoryTest(unittest.TestCase):
    kind = "classic"
    capacity = 56_000_000  # a filter of about 64 MiB at 1%

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        cls.big = os.path.join(d, "big.bf")
        cls.tiny = os.path.join(d, "tiny.bf")
        for path, capacity in ((cls.big, cls.capacity), (cls.tiny, 1000)):
            done = run(["create", path, "--capacity", str(capacity), "--kind", cls.kind])
            assert done.returncode == 0, done.stderr
        cls.big_bytes = os.path.getsize(cls.big)
        assert 60 * MIB < cls.big_bytes < 80 * MIB, cls.big_bytes
        for src in (cls.big, cls.tiny):  # an empty filter compresses to almost nothing
            done = run(["compress", src, src + ".zst"])
            assert done.returncode == 0, done.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check(self, make_args, stdin=b"", returncode=0):
        """`make_args(path)` runs on the tiny filter to find the baseline, then on the big one,
        which must exit with `returncode` (0: success; 2: a refused merge) under the cap."""
        baseline = least_cap(make_args(self.tiny), stdin, returncode)
        cap = baseline + self.big_bytes + BOUND
        done = run(make_args(self.big), cap, stdin)
        self.assertEqual(done.returncode, returncode,
                         f"{make_args(self.big)} exited {done.returncode} under a cap of baseline "
                         f"{baseline // MIB} MiB + filter {self.big_bytes // MIB} MiB + {BOUND // MIB} MiB: "
                         f"{done.stderr.decode()}")
        return done

    def test_info(self):
        self.check(lambda p: ["info", p])

    def test_info_compressed(self):
        self.check(lambda p: ["info", p + ".zst"])

    def test_query(self):
        self.check(lambda p: ["query", p, "--no-progress"], stdin=b"a\nb\nc\n")

    def test_add(self):
        self.check(lambda p: ["add", p, "--no-progress"], stdin=b"a\nb\nc\n")

    def test_add_compressed(self):
        self.check(lambda p: ["add", p + ".zst", "--no-progress"], stdin=b"a\nb\nc\n")

    def test_compress(self):
        self.check(lambda p: ["compress", p, p + ".out", "--force"])

    def test_decompress(self):
        self.check(lambda p: ["decompress", p + ".zst", p + ".out", "--force"])

    mergeable = True

    def test_merge(self):
        """A mergeable kind ORs the second input in as it reads it; any other kind is refused
        from the second input's header (exit 2), before its payload is read."""
        make_args = lambda p: ["merge", p + ".merged", p, p + ".zst", "--force"]  # noqa: E731
        if self.mergeable:
            self.check(make_args)
        else:
            done = self.check(make_args, returncode=2)
            self.assertIn(b"cannot be merged", done.stderr)


class BlockedMemoryTest(LoadSaveMemoryTest):
    kind = "blocked"
    capacity = 53_000_000


class CountingMemoryTest(LoadSaveMemoryTest):
    kind = "counting"
    capacity = 14_000_000
    mergeable = False


class ScalableMemoryTest(LoadSaveMemoryTest):
    kind = "scalable"
    capacity = 48_000_000


class CuckooMemoryTest(LoadSaveMemoryTest):
    kind = "cuckoo"
    capacity = 42_000_000
    mergeable = False


# RedisBloom's kinds save through SerializeTo as well (a save through a copy would hold twice the filter).
class RedisBloomFilterMemoryTest(LoadSaveMemoryTest):
    kind = "redisbloom-bf"
    capacity = 48_000_000
    mergeable = False


class RedisCuckooFilterMemoryTest(LoadSaveMemoryTest):
    kind = "redisbloom-cf"
    capacity = 56_000_000
    mergeable = False


if __name__ == "__main__":
    unittest.main()
