# SPDX-License-Identifier: Apache-2.0
"""Persistence and transfer: DEBUG RELOAD, SAVE + restart, AOF rewrite + restart,
SCANDUMP/LOADCHUNK into a new key and into another server, DUMP/RESTORE, COPY,
DEBUG DIGEST-VALUE and MEMORY USAGE. A filter is "the same" when its SCANDUMP bytes
(the checksummed serialization) are identical."""

import os
import time
import unittest

from harness import ReplyError, Server, Simple, main, scandump, server_version, time_limit

# Small SCANDUMP chunks so that every filter below spans many chunks.
MODULE_ARGS = ["SCANDUMP_CHUNK_BYTES", "4096"]


def dump_bytes(c, family, key):
    return b"".join(data for _, data in scandump(c, family + ".SCANDUMP", key))


def populate(c):
    """One filter of each family, several stages / sub-filters, with known members."""
    c.ok("BF.RESERVE", "bf", "0.01", "500")
    for start in range(0, 5000, 500):
        c.call("BF.MADD", "bf", *["b%d" % i for i in range(start, start + 500)])
    c.ok("BF.RESERVE", "bf:ns", "0.001", "100", "NONSCALING")
    c.call("BF.MADD", "bf:ns", *["n%d" % i for i in range(50)])
    c.ok("CF.RESERVE", "cf", "1000", "EXPANSION", "2")
    c.call("CF.INSERT", "cf", "ITEMS", *["c%d" % i for i in range(3000)])
    c.call("CF.DEL", "cf", "c0")
    c.ok("CBF.RESERVE", "cbf", "0.01", "2000")
    for i in range(500):
        c.call("CBF.ADD", "cbf", "k%d" % i)
    c.call("CBF.DEL", "cbf", "k0")


FAMILIES = (("BF", "bf"), ("BF", "bf:ns"), ("CF", "cf"), ("CBF", "cbf"))


def snapshot(c):
    return {key: dump_bytes(c, family, key) for family, key in FAMILIES}


class PersistenceTest(unittest.TestCase):
    def check_members(self, c):
        self.assertTrue(all(c.call("BF.MEXISTS", "bf", *["b%d" % i for i in range(0, 5000, 7)])))
        self.assertEqual(c.call("BF.CARD", "bf:ns"), 50)
        self.assertTrue(all(c.call("CF.MEXISTS", "cf", *["c%d" % i for i in range(1, 3000, 7)])))
        self.assertEqual(c.call("CBF.COUNT", "cbf", "k1"), 1)

    @time_limit(60)
    def test_debug_reload_and_save_restart(self):
        with Server(MODULE_ARGS) as server:
            with server.client() as c:
                populate(c)
                before = snapshot(c)
                self.assertGreater(len(before["bf"]), 4096 * 2)  # several chunks
                self.assertEqual(c.call("DEBUG", "RELOAD"), Simple(b"OK"))
                self.assertEqual(snapshot(c), before)
                self.check_members(c)
                self.assertEqual(c.call("SAVE"), Simple(b"OK"))
            server.restart()
            with server.client() as c:
                self.assertEqual(c.call("DBSIZE"), 4)
                self.assertEqual(snapshot(c), before)
                self.check_members(c)
                self.assertEqual(c.call("TYPE", "cf"), Simple(b"bloomkitC"))

    @time_limit(60)
    def test_aof_rewrite_and_restart(self):
        # Without the RDB preamble the rewrite writes our LOADCHUNK commands.
        with Server(MODULE_ARGS, extra=["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]) as server:
            with server.client() as c:
                populate(c)
                before = snapshot(c)
                self.assertEqual(c.call("BGREWRITEAOF"), Simple(b"Background append only file rewriting started"))
                deadline = time.time() + 20
                while time.time() < deadline:
                    info = c.call("INFO", "persistence").decode()
                    if "aof_rewrite_in_progress:0" in info and "aof_rewrite_scheduled:0" in info:
                        break
                    time.sleep(0.05)
                self.assertIn("aof_last_bgrewrite_status:ok", c.call("INFO", "persistence").decode())
                c.call("BF.ADD", "bf", "after-rewrite")  # appended after the rewrite
                before["bf"] = dump_bytes(c, "BF", "bf")
            aof_dir = os.path.join(server.dir, "appendonlydir")
            base = [f for f in os.listdir(aof_dir) if ".base." in f]
            self.assertEqual(len(base), 1, os.listdir(aof_dir))
            with open(os.path.join(aof_dir, base[0]), "rb") as f:
                content = f.read()
            self.assertIn(b"BF.LOADCHUNK", content)
            self.assertIn(b"CF.LOADCHUNK", content)
            self.assertIn(b"CBF.LOADCHUNK", content)
            server.restart()
            with server.client() as c:
                self.assertEqual(snapshot(c), before)
                self.check_members(c)
                self.assertEqual(c.call("BF.EXISTS", "bf", "after-rewrite"), 1)

    @time_limit(60)
    def test_scandump_loadchunk_new_key_and_other_server(self):
        with Server(MODULE_ARGS) as a, Server(["SCANDUMP_CHUNK_BYTES", "1mb"]) as b:
            with a.client() as ca, b.client() as cb:
                populate(ca)
                for family, key in FAMILIES:
                    chunks = scandump(ca, family + ".SCANDUMP", key)
                    if key == "bf":
                        self.assertGreater(len(chunks), 3)
                    for it, data in chunks:
                        self.assertEqual(ca.call(family + ".LOADCHUNK", key + ":copy", it, data), Simple(b"OK"))
                        self.assertEqual(cb.call(family + ".LOADCHUNK", key, it, data), Simple(b"OK"))
                    original = dump_bytes(ca, family, key)
                    self.assertEqual(dump_bytes(ca, family, key + ":copy"), original)
                    self.assertEqual(dump_bytes(cb, family, key), original)
                self.check_members(cb)
                # The header chunk of an existing key is refused.
                it, data = scandump(ca, "BF.SCANDUMP", "bf")[0]
                self.assertEqual(ca.call("BF.LOADCHUNK", "bf", it, data), ReplyError("ERR item exists"))
                self.assertEqual(ca.call("BF.SCANDUMP", "nokey", 0), ReplyError("ERR not found"))

    @time_limit(60)
    def test_dump_restore_copy_digest_memory(self):
        with Server(MODULE_ARGS) as server:
            with server.client() as c:
                populate(c)
                for family, key in FAMILIES:
                    payload = c.call("DUMP", key)
                    self.assertEqual(c.call("RESTORE", key + ":r", 0, payload), Simple(b"OK"))
                    self.assertEqual(dump_bytes(c, family, key + ":r"), dump_bytes(c, family, key))
                    self.assertEqual(c.call("COPY", key, key + ":c"), 1)
                    self.assertEqual(dump_bytes(c, family, key + ":c"), dump_bytes(c, family, key))
                    digest = c.call("DEBUG", "DIGEST-VALUE", key, key + ":c")
                    self.assertEqual(digest[0], digest[1])
                    self.assertNotEqual(digest[0], b"0" * 40)
                # The copy is independent of the original.
                c.call("BF.ADD", "bf:c", "only-in-copy")
                self.assertEqual(c.call("BF.EXISTS", "bf", "only-in-copy"), 0)
                d = c.call("DEBUG", "DIGEST-VALUE", "bf", "bf:c")
                self.assertNotEqual(d[0], d[1])

    @time_limit(60)
    def test_memory_usage_and_info_memory(self):
        with Server() as server:
            with server.client() as c:
                used_before = used_memory(c)
                c.ok("BF.RESERVE", "k", "0.01", "1000000")
                usage = c.call("MEMORY", "USAGE", "k")
                # m = -n ln(0.005) / ln(2)^2 = 11,027,754 bits -> 1,378,472 bytes of words.
                self.assertGreaterEqual(usage, 1_378_472)
                print("MEMORY USAGE of BF.RESERVE k 0.01 1000000: %d bytes" % usage)
                # The filter is allocated through Redis: INFO memory sees it.
                self.assertGreater(used_memory(c) - used_before, 1_378_472)
                # MEMORY USAGE is the value's size plus Redis' key (32 bytes with jemalloc;
                # less with a sanitizer's allocator preloaded). Valkey 8.1 keeps the key
                # inside the value's object and counts only the value (object.c,
                # objectComputeSize).
                name, version = server_version(c)
                key_bytes = usage - c.call("BF.INFO", "k", "SIZE")[0]
                if name == "valkey" and version >= (8, 1, 0):
                    self.assertEqual(key_bytes, 0)
                else:
                    self.assertTrue(0 < key_bytes <= 32, key_bytes)

    @time_limit(60)
    def test_memory_usage_is_what_the_allocator_holds(self):
        # jemalloc rounds a large block up to its size class (a 6.9 MB filter takes 8 MiB):
        # MEMORY USAGE reports the rounded blocks, what used_memory grew by, in both
        # formats. It once reported the requested bytes, 10-20% less.
        commands = [
            ("BF.RESERVE", "bf1", "0.01", "1000000"),
            ("BF.RESERVE", "bf5", "0.01", "5000000"),
            ("BF.RESERVE", "bf6", "0.001", "600000", "EXPANSION", "1"),
            ("CF.RESERVE", "cf", "3000000"),
        ]
        for fmt in ("native", "redisbloom"):
            with Server(fmt=fmt) as server:
                with server.client() as c:
                    # The first key and reply grow Redis' own tables and buffers.
                    c.ok("BF.RESERVE", "warm", "0.01", "100")
                    for command in commands:
                        key = command[1]
                        before = used_memory(c)
                        c.ok(*command)
                        grown = used_memory(c) - before
                        usage = c.call("MEMORY", "USAGE", key)
                        print("%s %s: MEMORY USAGE %d, used_memory +%d" % (fmt, " ".join(command), usage, grown))
                        self.assertGreater(grown, 1_000_000)
                        self.assertLess(abs(usage - grown), 0.02 * grown, (fmt, command, usage, grown))


def used_memory(c):
    info = c.call("INFO", "memory").decode()
    return int(dict(line.split(":", 1) for line in info.split("\r\n") if ":" in line)["used_memory"])

if __name__ == "__main__":
    main()
