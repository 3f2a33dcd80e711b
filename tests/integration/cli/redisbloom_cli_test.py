#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""End to end: bloomkit import/export of RedisBloom 2.8.20's own keys.

Usage: redisbloom_cli_test.py PATH/TO/bloomkit FIXTURE_DIR

FIXTURE_DIR is tests/golden/redisbloom: each key's DUMP payload, SCANDUMP chunks and
RedisBloom's answers to its probes. The tool must import a key from either form, answer
`query` as RedisBloom did, show it in `info`, take `add`, and export byte-identical
payloads and chunks.
"""

import json
import os
import sys
import tempfile
import unittest

import cli_test
from cli_test import EXIT_DATA, EXIT_NONE_FOUND, EXIT_OK, EXIT_USAGE, run  # noqa: F401

FIXTURES = None


def read(path):
    with open(path, "rb") as f:
        return f.read()


def manifest():
    with open(os.path.join(FIXTURES, "manifest.json")) as f:
        return json.load(f)["keys"]


def chunk_files(key):
    files = []
    while os.path.exists(os.path.join(FIXTURES, key, f"chunk{len(files):03}.bin")):
        files.append(os.path.join(FIXTURES, key, f"chunk{len(files):03}.bin"))
    return files


class RedisBloomCliTest(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory(prefix="bloomkit-rb-")
        self.dir = self._dir.name

    def tearDown(self):
        self._dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def probes_file(self, count):
        keys = self.path("probes.txt")
        with open(keys, "wb") as f:
            f.write(b"".join(f"item:{i}\n".encode() for i in range(count)))
        return keys

    def test_import_query_export_every_key(self):
        for key, spec in manifest().items():
            if key == "bf_binary_items":
                continue  # its items hold newlines; the core test covers it
            with self.subTest(key=key):
                bf = self.path(key + ".bf")
                run("import", "redisbloom", bf, "--dump", os.path.join(FIXTURES, key, "dump.bin"), check=EXIT_OK)
                # Every probe as RedisBloom answered (for cf_*: present iff CF.COUNT > 0).
                probes = spec["items"] + 100000
                answers = read(os.path.join(FIXTURES, key, "answers.txt"))[:probes]
                code, out, _ = run("query", bf, self.probes_file(probes), "--print", "present")
                self.assertIn(code, (EXIT_OK, EXIT_NONE_FOUND))
                got = set(out.decode().split())
                want = {f"item:{i}" for i in range(probes) if answers[i] != ord("0")}
                self.assertEqual(got, want)
                # info shows the kind and the item count RedisBloom reported.
                _, out, _ = run("info", bf, "--json", check=EXIT_OK)
                info = json.loads(out)
                self.assertEqual(info["kind"], "redisbloom-cf" if key.startswith("cf_") else "redisbloom-bf")
                self.assertEqual(info["count"], spec["info"]["Number of items inserted"])
                # Export gives RedisBloom's bytes back.
                dump = self.path(key + ".dump")
                run("export", bf, "--format", "redisbloom", "--dump", dump, check=EXIT_OK)
                self.assertEqual(read(dump), read(os.path.join(FIXTURES, key, "dump.bin")))
                chunks = self.path(key + ".chunks")
                run("export", bf, "--format", "redisbloom", "--chunks", chunks, check=EXIT_OK)
                for i, expected in enumerate(chunk_files(key)):
                    self.assertEqual(read(os.path.join(chunks, f"chunk{i:03}.bin")), read(expected), i)
                listed = [line.split()[0] for line in read(os.path.join(chunks, "iterators.txt")).decode().splitlines()]
                self.assertEqual(listed, [str(c["iterator"]) for c in spec["scandump_chunks"]])

    def test_import_from_chunks_equals_import_from_dump(self):
        for key in ("bf_scaled", "cf_bucket4_expand"):
            with self.subTest(key=key):
                from_dump, from_chunks = self.path(key + "_d.bf"), self.path(key + "_c.bf")
                run("import", "redisbloom", from_dump, "--dump", os.path.join(FIXTURES, key, "dump.bin"),
                    check=EXIT_OK)
                run("import", "redisbloom", from_chunks, "--chunks", *chunk_files(key), check=EXIT_OK)
                self.assertEqual(read(from_dump), read(from_chunks))

    def test_add_then_export_round_trips(self):
        bf = self.path("scaled.bf")
        run("import", "redisbloom", bf, "--dump", os.path.join(FIXTURES, "bf_scaled", "dump.bin"), check=EXIT_OK)
        run("add", bf, stdin=b"".join(f"new:{i}\n".encode() for i in range(20000)), check=EXIT_OK)
        _, out, _ = run("info", bf, "--json", check=EXIT_OK)
        self.assertGreater(json.loads(out)["count"], 9928 + 19000)
        dump = self.path("scaled.dump")
        run("export", bf, "--format", "redisbloom", "--dump", dump, check=EXIT_OK)
        again = self.path("again.bf")
        run("import", "redisbloom", again, "--dump", dump, check=EXIT_OK)
        self.assertEqual(read(again), read(bf))
        code, _, _ = run("query", again, stdin=b"new:19999\n")
        self.assertEqual(code, EXIT_OK)

    def test_trailing_newline_of_redis_cli_raw_is_accepted(self):
        dump = self.path("nl.dump")
        with open(dump, "wb") as f:
            f.write(read(os.path.join(FIXTURES, "cf_default", "dump.bin")) + b"\n")
        run("import", "redisbloom", self.path("nl.bf"), "--dump", dump, check=EXIT_OK)

    def test_bad_input(self):
        # A corrupted payload fails its CRC; a missing chunk leaves a filter that
        # disagrees with its header; a native filter has no RedisBloom form.
        bad = bytearray(read(os.path.join(FIXTURES, "bf_single", "dump.bin")))
        bad[40] ^= 1
        with open(self.path("bad.dump"), "wb") as f:
            f.write(bad)
        code, _, err = run("import", "redisbloom", self.path("x.bf"), "--dump", self.path("bad.dump"))
        self.assertEqual(code, EXIT_DATA)
        self.assertIn("CRC", err)
        self.assertFalse(os.path.exists(self.path("x.bf")))
        code, _, err = run("import", "redisbloom", self.path("y.bf"), "--chunks", *chunk_files("cf_default")[:2])
        self.assertEqual(code, EXIT_DATA)
        self.assertIn("fingerprints", err)
        run("create", self.path("native.bf"), "--capacity", "100", check=EXIT_OK)
        code, _, err = run("export", self.path("native.bf"), "--format", "redisbloom", "--dump", self.path("n.dump"))
        self.assertEqual(code, EXIT_USAGE)
        self.assertIn("no RedisBloom form", err)
        code, _, _ = run("import", "redisbloom", self.path("z.bf"))
        self.assertEqual(code, EXIT_USAGE)


def main():
    global FIXTURES
    if len(sys.argv) < 3:
        sys.exit("usage: redisbloom_cli_test.py PATH/TO/bloomkit FIXTURE_DIR")
    cli_test.BLOOMKIT = os.path.abspath(sys.argv[1])
    FIXTURES = os.path.abspath(sys.argv[2])
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[3:]])


if __name__ == "__main__":
    main()
