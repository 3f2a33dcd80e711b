# SPDX-License-Identifier: Apache-2.0
"""Hostile input: garbage and crafted LOADCHUNK chunks and RESTORE payloads (with a
valid DUMP checksum, so they reach the module's loader) are answered with errors, and
the server keeps running (PING after each). Also: bad module arguments fail the load
with a logged reason."""

import random
import struct
import unittest

from harness import ReplyError, Server, Simple, crc64_redis, main, seal_dump, time_limit

from test_persistence import scandump

MAGIC = b"\x89BLK\r\n\x1a\n"


class HostileTest(unittest.TestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = Server(["MAX_FILTER_BYTES", "64mb", "SCANDUMP_CHUNK_BYTES", "4096"])
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def alive(self, c):
        self.assertEqual(c.call("PING"), Simple(b"PONG"))
        self.assertTrue(self.server.alive())

    def test_crc64_matches_redis(self):
        self.assertEqual(crc64_redis(b"123456789"), 0xE9C6D914C4B8D9CA)

    @time_limit(60)
    def test_loadchunk_garbage_and_crafted(self):
        with self.server.client() as c:
            c.ok("BF.RESERVE", "src", "0.01", "2000")
            c.call("BF.MADD", "src", *["s%d" % i for i in range(3000)])
            chunks = scandump(c, "BF.SCANDUMP", "src")
            header = chunks[0][1]
            self.assertEqual(len(header), 128)
            self.assertTrue(header.startswith(MAGIC))

            def expect_error(reply, prefix):
                self.assertIsInstance(reply, ReplyError, reply)
                self.assertTrue(reply.message.startswith(prefix), reply)
                self.alive(c)

            expect_error(c.call("BF.LOADCHUNK", "k", "x", header), "ERR Second argument must be numeric")
            expect_error(c.call("BF.LOADCHUNK", "k", "0", header), "ERR invalid chunk iterator")
            expect_error(c.call("BF.LOADCHUNK", "k", "-5", header), "ERR invalid chunk iterator")
            expect_error(c.call("BF.LOADCHUNK", "k", 1, header[:100]), "ERR invalid dump header")
            expect_error(c.call("BF.LOADCHUNK", "k", 1, b"\x00" * 128), "ERR invalid dump header")
            expect_error(c.call("BF.LOADCHUNK", "k", 1, b"garbage"), "ERR invalid dump header")
            expect_error(c.call("CF.LOADCHUNK", "k", 1, header), "ERR invalid dump header")  # a BF header
            expect_error(c.call("BF.LOADCHUNK", "k", 129, chunks[1][1]), "ERR not found")
            # A header announcing 2^40 bytes: refused before anything is allocated.
            forged = bytearray(header)
            forged[48:56] = struct.pack("<Q", 1 << 40)
            forged[56:64] = struct.pack("<Q", 1 << 40)
            expect_error(c.call("BF.LOADCHUNK", "k", 1, bytes(forged)), "ERR filter too large")
            forged[48:56] = struct.pack("<Q", 2**64 - 1)
            forged[56:64] = struct.pack("<Q", 2**64 - 1)
            expect_error(c.call("BF.LOADCHUNK", "k", 1, bytes(forged)), "ERR invalid dump header")
            self.assertEqual(c.call("EXISTS", "k"), 0)

            # A valid header, then chunks out of order, too long, and a corrupted body.
            self.assertEqual(c.call("BF.LOADCHUNK", "k", 1, header), Simple(b"OK"))
            self.assertEqual(c.call("TYPE", "k"), Simple(b"bloomkitB"))
            expect_error(c.call("BF.EXISTS", "k", "s1"), "ERR filter is still being loaded")
            expect_error(c.call("BF.LOADCHUNK", "k", 1, header), "ERR item exists")
            expect_error(c.call("BF.LOADCHUNK", "k", 500, chunks[1][1]), "ERR invalid chunk iterator")
            total = sum(len(d) for _, d in chunks)
            expect_error(c.call("BF.LOADCHUNK", "k", 129, b"\x00" * (total + 1)), "ERR chunk runs past the end")
            for it, data in chunks[1:-1]:
                self.assertEqual(c.call("BF.LOADCHUNK", "k", it, data), Simple(b"OK"))
            it, data = chunks[-1]
            corrupted = bytearray(data)
            corrupted[0] ^= 0xFF
            expect_error(c.call("BF.LOADCHUNK", "k", it, bytes(corrupted)), "ERR invalid dump")
            self.assertEqual(c.call("EXISTS", "k"), 0)  # a failed dump leaves no key behind

            # Random garbage in every position.
            rng = random.Random(1234)
            for n in range(300):
                data = bytes(rng.getrandbits(8) for _ in range(rng.choice([1, 16, 127, 128, 129, 300])))
                if n % 3 == 0:
                    data = MAGIC + data
                it = rng.choice([1, 1, 129, rng.randrange(1, 1 << 40)])
                reply = c.call(rng.choice(["BF.LOADCHUNK", "CF.LOADCHUNK", "CBF.LOADCHUNK"]), "g%d" % (n % 7), it,
                               data)
                self.assertIsInstance(reply, (ReplyError, Simple))
            self.alive(c)

    @time_limit(60)
    def test_restore_crafted_payloads(self):
        with self.server.client() as c:
            # Raw (not LZF-compressed) strings in DUMP, so the filter bytes can be edited.
            c.ok("CONFIG", "SET", "rdbcompression", "no")
            c.ok("BF.RESERVE", "victim", "0.01", "1000")
            c.call("BF.MADD", "victim", *["v%d" % i for i in range(500)])
            c.ok("CF.RESERVE", "cvictim", "1000")
            c.call("CF.ADD", "cvictim", "x")
            for key in ("victim", "cvictim"):
                payload = c.call("DUMP", key)
                body, version, crc = payload[:-10], payload[-10:-8], payload[-8:]
                self.assertEqual(struct.unpack("<Q", crc)[0], crc64_redis(body + version))
                self.assertEqual(c.call("RESTORE", key + ":ok", 0, seal_dump(body, version)), Simple(b"OK"))
                start = body.index(MAGIC)

                def restore(mutated_body, what):
                    reply = c.call("RESTORE", key + ":bad", 0, seal_dump(bytes(mutated_body), version))
                    self.assertIsInstance(reply, ReplyError, what)
                    self.assertEqual(c.call("EXISTS", key + ":bad"), 0, what)
                    self.alive(c)

                for offset, value, what in ((48, 1 << 40, "stored length 2^40"), (56, 1 << 40, "payload 2^40"),
                                            (48, 2**64 - 1, "stored length 2^64-1"), (32, 0, "capacity 0"),
                                            (16, 9, "unknown kind"), (8, 2, "format version 2")):
                    mutated = bytearray(body)
                    mutated[start + offset:start + offset + 8] = struct.pack("<Q", value)
                    restore(mutated, what)
                # Flipped payload byte: checksum mismatch.
                mutated = bytearray(body)
                mutated[start + 200] ^= 0x01
                restore(mutated, "flipped byte")
                # Truncated string (the RDB length says more than there is).
                restore(body[:start + 64], "truncated")
                # Random bytes anywhere, including the RDB framing and the value state.
                rng = random.Random(99)
                for _ in range(200):
                    mutated = bytearray(body)
                    for _ in range(rng.randrange(1, 4)):
                        pos = rng.randrange(1, len(mutated))
                        mutated[pos] = rng.getrandbits(8)
                    reply = c.call("RESTORE", key + ":fuzz", 0, seal_dump(bytes(mutated), version), "REPLACE")
                    self.assertIsInstance(reply, (ReplyError, Simple))
                    if isinstance(reply, Simple):
                        # Accepted only if the loaded filter is complete and consistent.
                        c.call("DEL", key + ":fuzz")
                self.alive(c)
            self.assertEqual(c.call("BF.EXISTS", "victim:ok", "v1"), 1)

    @time_limit(60)
    def test_bad_module_arguments_fail_the_load(self):
        for args, reason in ((["ERROR_RATE", "2"], "ERROR_RATE must be a number in (0, 1)"),
                             (["MAX_FILTER_BYTES", "10"], "MAX_FILTER_BYTES must be a byte count"),
                             (["BOGUS", "1"], "unknown module argument 'BOGUS'"),
                             (["IDENTITY", "bf"], "IDENTITY must be bloomkit or redisbloom"),
                             (["EXPANSION"], "odd count")):
            server = Server(args)
            try:
                self.assertFalse(server.start(expect_failure=True))
                self.assertIn(reason, server.log())
                self.assertIn("bloomkit: not loaded", server.log())
            finally:
                server.cleanup()
        with Server(["ERROR_RATE", "0.001", "INITIAL_SIZE", "5000", "EXPANSION", "4"]) as server:
            with server.client() as c:
                c.call("BF.ADD", "d", "x")
                self.assertEqual(c.call("BF.INFO", "d", "CAPACITY"), [5000])
                self.assertEqual(c.call("BF.INFO", "d", "EXPANSION"), [4])

    @time_limit(60)
    def test_identity_option_names_the_module(self):
        def modules(server):
            with server.client() as c:
                return [(entry[1], entry[3]) for entry in c.call("MODULE", "LIST")]

        with Server() as server:
            self.assertEqual(modules(server), [(b"bloomkit", 100)])
        # As RedisBloom 2.8.20 names itself, for tools that look for "bf" and a version.
        with Server(["IDENTITY", "redisbloom"]) as server:
            self.assertEqual(modules(server), [(b"bf", 20820)])
            with server.client() as c:
                self.assertEqual(c.call("BF.ADD", "k", "x"), 1)

    @time_limit(60)
    def test_max_filter_bytes_bounds_creation(self):
        with self.server.client() as c:
            reply = c.call("BF.RESERVE", "huge", "0.0001", "1000000000")
            self.assertIsInstance(reply, ReplyError)
            self.assertTrue(reply.message.startswith("ERR filter too large"), reply)
            reply = c.call("CF.RESERVE", "huge", "1000000000")
            self.assertTrue(reply.message.startswith("ERR filter too large"), reply)
            reply = c.call("CBF.RESERVE", "huge", "0.01", "1000000000")
            self.assertTrue(reply.message.startswith("ERR filter too large"), reply)
            self.assertEqual(c.call("EXISTS", "huge"), 0)
            self.alive(c)


if __name__ == "__main__":
    main()
