# SPDX-License-Identifier: Apache-2.0
"""Other libraries' filters served by BF.*: a file written by Go's bits-and-blooms/bloom,
Guava (both strategies) or a Parquet writer, imported with `bloomkit import`, loaded into
a key with BF.LOADCHUNK (the file is the key's dump), answers BF.EXISTS / BF.MEXISTS as
the library did (its recorded false positives, tests/golden/foreign), takes BF.ADD with
the library's probes, survives DEBUG RELOAD, SAVE + restart, AOF rewrite + restart,
DUMP/RESTORE and COPY, and comes back out through SCANDUMP and `bloomkit export` with the
bytes the library itself wrote after the same adds.

The same with the real Go library, live: tests/interop/redis_go.py."""

import glob
import os
import subprocess
import sys
import tempfile
import unittest

from harness import CLI, REDIS_CLI, ReplyError, Server, main, run_cli, scandump, time_limit, wait_for

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "golden", "foreign")
PROBES = 100000


# The keys of tests/interop/babtool.go (and GuavaTool.java), as bytes.
def key(i):
    return ("k%d" % i + ("-\u00e9\u65e5" if i % 7 == 0 else "") + "-" + "x" * (i % 37)).encode()


def absent(i):
    return ("a%d-" % i + "y" * (i % 23)).encode()


def added(i):
    return ("n%d-" % i + "z" * (i % 19)).encode()


# golden file prefix: (format for bloomkit import/export, Redis type)
LIBRARIES = {
    "bab": ("bits-and-blooms", b"bloomkitG"),
    "guava": ("guava", b"bloomkitJ"),
    "guava32": ("guava", b"bloomkitJ"),
}


def read(path):
    with open(path, "rb") as f:
        return f.read()


def load_file(server, name, path):
    """BF.LOADCHUNK of a bloomkit file, as docs/CLI.md shows it with redis-cli: the
    128-byte header at iterator 1, the rest at 129."""
    data = read(path)
    for iterator, chunk in ((1, data[:128]), (129, data[128:])):
        out = subprocess.run([REDIS_CLI, "-p", str(server.port), "-x", "BF.LOADCHUNK", name, str(iterator)],
                             input=chunk, capture_output=True, check=True).stdout
        if out.strip() != b"OK":
            raise AssertionError("BF.LOADCHUNK %s %d: %r" % (name, iterator, out))


def mexists(c, name, items, batch=2000):
    out = []
    for i in range(0, len(items), batch):
        out.extend(c.call("BF.MEXISTS", name, *items[i:i + batch]))
    return out


def export(c, name, fmt, work):
    """The key's SCANDUMP bytes (a bloomkit file), exported to the library's layout."""
    dump = os.path.join(work, name + ".bkf")
    with open(dump, "wb") as f:
        for _, chunk in scandump(c, "BF.SCANDUMP", name):
            f.write(chunk)
    out = os.path.join(work, name + ".out")
    run_cli(["export", dump, "--format", fmt, "--to", out, "--force"], check=True)
    return read(out)


@unittest.skipUnless(CLI and os.path.exists(CLI), "needs the bloomkit CLI (BLOOMKIT_CLI)")
class ForeignTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="bloomkit-foreign-")
        self.files = {}
        for name, (fmt, _) in LIBRARIES.items():
            path = os.path.join(self.work, name + ".bkf")
            run_cli(["import", fmt, path, "--from", os.path.join(GOLDEN, name + "_golden.bin")], check=True)
            self.files[name] = path
        self.parquet = os.path.join(self.work, "parquet.bkf")
        run_cli(["import", "parquet", self.parquet, "--from", os.path.join(GOLDEN, "parquet_xxhash.bin")], check=True)

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.work])

    def check_answers(self, c, name, with_added, probes=PROBES):
        """key(0..999) (and added(0..499)) present, absent(i) present exactly for the i in
        the library's .fp file (absent(i) was never added, so adds cannot change them
        unless they set its bits: compared with the library's file for the added filter
        by the caller)."""
        keys = [key(i) for i in range(1000)] + ([added(i) for i in range(500)] if with_added else [])
        self.assertEqual(mexists(c, name, keys), [1] * len(keys), name)
        answers = mexists(c, name, [absent(i) for i in range(probes)])
        return {i for i, a in enumerate(answers) if a == 1}

    def library_fp(self, lib):
        with open(os.path.join(GOLDEN, lib + "_golden.fp")) as f:
            return {int(line) for line in f if line.strip()}

    @time_limit(60)
    def test_serves_each_library_as_it_answers(self):
        # Under either FORMAT: it decides only what commands create.
        for fmt in ("native", None):
            # The AOF without an RDB preamble: its rewrite is BF.LOADCHUNK commands.
            aof = ["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]
            with Server(fmt=fmt, extra=aof) as s, s.client() as c:
                for lib, (export_fmt, redis_type) in LIBRARIES.items():
                    name = "users:" + lib
                    load_file(s, name, self.files[lib])
                    self.assertEqual(c.call("TYPE", name), redis_type)
                    if fmt == "native":
                        self.assertEqual(self.check_answers(c, name, False, 10000),
                                         {i for i in self.library_fp(lib) if i < 10000})
                        continue
                    # Every probe as the library answered, its false positives included.
                    fp = self.check_answers(c, name, with_added=False)
                    self.assertEqual(fp, self.library_fp(lib), lib)
                    self.assertGreater(len(fp), 100, lib)  # a 1% filter: about 1,000 of 100,000
                    self.assertEqual(c.call("BF.EXISTS", name, key(3)), 1)
                    self.assertEqual(c.call("BF.EXISTS", name, absent(min(set(range(PROBES)) - fp))), 0)
                    # BF.ADD and BF.MADD answer "added" exactly when a bit was new, as the
                    # library's TestAndAdd; their bytes are then the library's own.
                    replies = [c.call("BF.ADD", name, added(i)) for i in range(100)]
                    replies += c.call("BF.MADD", name, *[added(i) for i in range(100, 500)])
                    self.assertEqual(len(replies), 500)
                    self.assertEqual(c.call("BF.ADD", name, added(7)), 0)
                    self.assertGreater(sum(replies), 450)  # a 0: the filter (full at 1,000) had it
                    want = read(os.path.join(GOLDEN, lib + "_golden_added.bin"))
                    self.assertEqual(export(c, name, export_fmt, self.work), want, lib)
                    info = dict(zip(*[iter(c.call("BF.INFO", name))] * 2))
                    self.assertEqual(info[b"Number of filters"], 1)
                    self.assertIsNone(info[b"Expansion rate"])
                    self.assertEqual(c.call("BF.CARD", name), info[b"Number of items inserted"])
                if fmt == "native":
                    continue
                # After each way of keeping a key: the same answers (20,000 absent probes
                # each) and the same bytes.
                quick = 20000
                before = {lib: self.check_answers(c, "users:" + lib, True, quick) for lib in LIBRARIES}
                bytes_before = {lib: export(c, "users:" + lib, LIBRARIES[lib][0], self.work) for lib in LIBRARIES}

                def unchanged(what):
                    for lib, (export_fmt, redis_type) in LIBRARIES.items():
                        name = "users:" + lib
                        self.assertEqual(c.call("TYPE", name), redis_type, what)
                        self.assertEqual(self.check_answers(c, name, True, quick), before[lib], what)
                        self.assertEqual(export(c, name, export_fmt, self.work), bytes_before[lib], what)

                self.assertEqual(c.call("DEBUG", "RELOAD"), b"OK")
                unchanged("DEBUG RELOAD")
                self.assertEqual(c.call("BGREWRITEAOF")[:10], b"Background")
                wait_for(lambda: b"aof_rewrite_in_progress:0" in c.call("INFO", "persistence") and
                         b"aof_rewrite_scheduled:0" in c.call("INFO", "persistence"), what="the AOF rewrite")
                base = glob.glob(os.path.join(s.dir, "appendonlydir", "*.base.aof"))
                self.assertEqual(len(base), 1)
                self.assertEqual(read(base[0]).count(b"BF.LOADCHUNK"), 2 * len(LIBRARIES))
                c.close()
                s.stop(save=False)
                s.extra = aof
                s.start()
                c = s.client()
                unchanged("AOF rewrite + restart")
                self.assertEqual(c.call("SAVE"), b"OK")
                s.extra = ["--appendonly", "no"]
                s.stop(save=False)
                s.start()
                c = s.client()
                unchanged("SAVE + restart")
                self.addCleanup(c.close)
                for lib, (export_fmt, redis_type) in LIBRARIES.items():
                    payload = c.call("DUMP", "users:" + lib)
                    self.assertEqual(c.call("RESTORE", "restored:" + lib, 0, payload), b"OK")
                    self.assertEqual(c.call("COPY", "users:" + lib, "copied:" + lib), 1)
                    for name in ("restored:" + lib, "copied:" + lib):
                        self.assertEqual(c.call("TYPE", name), redis_type)
                        self.assertEqual(self.check_answers(c, name, True, quick), before[lib])
                        self.assertEqual(export(c, name, export_fmt, self.work), bytes_before[lib])
                stats = dict(line.split(b":", 1) for line in c.call("INFO", "bloomkit").splitlines()
                             if b":" in line)
                self.assertEqual(stats[b"bloomkit_bf_foreign"], b"%d" % (3 * len(LIBRARIES)))

    @time_limit(60)
    def test_replica_gets_the_same_bytes(self):
        """One key before the replica syncs (RDB transfer), one loaded after (replicated
        BF.LOADCHUNK), both with adds after: the replica's SCANDUMP equals the primary's."""
        with Server(extra=["--repl-diskless-sync-delay", "0"]) as primary, primary.client() as p:
            load_file(primary, "before", self.files["bab"])
            with Server(extra=["--replicaof", "127.0.0.1", str(primary.port)]) as replica, replica.client() as r:
                wait_for(lambda: b"master_link_status:up" in r.call("INFO", "replication"), what="sync")
                load_file(primary, "after", self.files["guava"])
                for name in ("before", "after"):
                    p.call("BF.MADD", name, *[added(i) for i in range(300)])
                p.call("WAIT", 1, 5000)
                for name, redis_type in (("before", b"bloomkitG"), ("after", b"bloomkitJ")):
                    self.assertEqual(r.call("TYPE", name), redis_type)
                    self.assertEqual(b"".join(x for _, x in scandump(r, "BF.SCANDUMP", name)),
                                     b"".join(x for _, x in scandump(p, "BF.SCANDUMP", name)), name)
                    self.assertEqual(r.call("BF.EXISTS", name, added(299)), 1)

    @time_limit(30)
    def test_parquet(self):
        with Server() as s, s.client() as c:
            load_file(s, "col", self.parquet)
            self.assertEqual(c.call("TYPE", "col"), b"bloomkitP")
            self.assertEqual(c.call("BF.MEXISTS", "col", "hello", "parquet", "bloom", "filter"), [1, 1, 1, 1])
            probes = [absent(i) for i in range(2000)]
            want = [1 if line.endswith(b"\tmaybe") else 0
                    for line in run_cli(["query", self.parquet], input=b"\n".join(probes) + b"\n").stdout.splitlines()]
            self.assertEqual(mexists(c, "col", probes), want)
            self.assertEqual(c.call("BF.ADD", "col", "arrow"), 1)
            self.assertEqual(c.call("BF.ADD", "col", "arrow"), 0)
            self.assertEqual(c.call("DEBUG", "RELOAD"), b"OK")
            out = export(c, "col", "parquet", self.work)
            back = os.path.join(self.work, "back.bkf")
            with open(os.path.join(self.work, "back.parquet"), "wb") as f:
                f.write(out)
            run_cli(["import", "parquet", back, "--from", os.path.join(self.work, "back.parquet"), "--force"],
                    check=True)
            got = run_cli(["query", back], input=b"hello\narrow\n").stdout
            self.assertEqual(got, b"hello\tmaybe\narrow\tmaybe\n")

    @time_limit(30)
    def test_commands_that_do_not_apply(self):
        with Server(fmt=None) as s, s.client() as c:
            load_file(s, "g", self.files["bab"])
            self.assertEqual(c.call("BF.RESERVE", "g", 0.01, 100), ReplyError("ERR item exists"))
            self.assertEqual(c.call("CF.EXISTS", "g", "x"), 0)  # RedisBloom's rule for another type
            for args in (("BF.MERGE", "g", "g"), ("BF.DEBUG", "g"), ("CF.ADD", "g", "x")):
                reply = c.call(*args)
                self.assertIsInstance(reply, ReplyError, args)
                self.assertTrue(str(reply).startswith("WRONGTYPE"), (args, reply))
            self.assertEqual(c.call("BF.INSERT", "g", "NOCREATE", "ITEMS", "a", "a"), [1, 0])
            # Its header chunk again: the key exists.
            header = read(self.files["bab"])[:128]
            self.assertEqual(c.call("BF.LOADCHUNK", "g", 1, header), ReplyError("ERR item exists"))
            # A dump whose payload was changed fails its checksum and leaves no key.
            data = bytearray(read(self.files["guava"]))
            data[200] ^= 1
            self.assertEqual(c.call("BF.LOADCHUNK", "bad", 1, bytes(data[:128])), b"OK")
            self.assertEqual(c.call("BF.EXISTS", "bad", "x"), ReplyError("ERR filter is still being loaded (LOADCHUNK)"))
            reply = c.call("BF.LOADCHUNK", "bad", 129, bytes(data[128:]))
            self.assertIsInstance(reply, ReplyError)
            self.assertIn("checksum", str(reply))
            self.assertEqual(c.call("EXISTS", "bad"), 0)
        # A header announcing more than MAX_FILTER_BYTES is refused before anything is kept.
        big = os.path.join(self.work, "big.bkf")  # 2,396,059 bytes
        run_cli(["create", big, "--kind", "bits-and-blooms", "--capacity", "2000000"], check=True)
        with Server(module_args=["MAX_FILTER_BYTES", "1m"]) as s, s.client() as c:
            reply = c.call("BF.LOADCHUNK", "big", 1, read(big)[:128])
            self.assertIsInstance(reply, ReplyError)
            self.assertIn("too large", str(reply))
            self.assertEqual(c.call("EXISTS", "big"), 0)


if __name__ == "__main__":
    sys.exit(main())
