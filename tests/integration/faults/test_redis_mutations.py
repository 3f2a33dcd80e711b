# SPDX-License-Identifier: Apache-2.0
"""Hostile bytes at volume: 1,000 mutated DUMP payloads of each filter type (BF, CF,
CBF) through RESTORE, and 1,000 mutated LOADCHUNK sequences. Redis' own DUMP CRC is
always repaired, and for half of the payload mutations the bloomkit checksum too, so
that the bytes reach the module's parameter checks, not only its checksum. Each
command is answered (an error or OK), the server answers PING after every payload and
sequence, and a filter that was accepted passes its own integrity check: its SCANDUMP
loads again through LOADCHUNK into an identical filter, and EXISTS / INFO answer."""

import random
import unittest

from faultlib import (MAGIC, ReplyError, Server, Simple, dump_bytes, main, reseal_filter, scandump, seal_dump,
                      split_dump, time_limit)

PAYLOADS_PER_TYPE = 1000
SEQUENCES = 1000

FAMILIES = {
    # prefix: (create command, add command for one item, exists command)
    "BF": (["BF.RESERVE", "{k}", "0.01", "40"], "BF.ADD", "BF.EXISTS"),
    "CF": (["CF.RESERVE", "{k}", "64", "BUCKETSIZE", "2", "EXPANSION", "1"], "CF.ADD", "CF.EXISTS"),
    "CBF": (["CBF.RESERVE", "{k}", "0.01", "60"], "CBF.ADD", "CBF.EXISTS"),
}
ITEMS = ["item:%d" % i for i in range(90)]  # past the first BF stage and CF sub-filter

# Header fields (docs/FORMAT.md) worth forging with extreme values: version, header
# length, kind/hash, flags, seed, capacity, count, stored and payload lengths, fp rate,
# parameter slots.
FIELD_OFFSETS = [8, 12, 16, 18, 20, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120]
EXTREMES = [0, 1, 2, 3, 7, 8, 64, 127, 128, 255, 256, 1 << 16, 1 << 31, 1 << 32, 1 << 40, 1 << 63, 2**64 - 1]


def mutate_bytes(rng, data, allow_resize=True):
    data = bytearray(data)
    op = rng.randrange(6)
    if op == 0 or not data:  # a few random bytes
        for _ in range(rng.randrange(1, 4)):
            if data:
                data[rng.randrange(len(data))] = rng.getrandbits(8)
    elif op == 1:  # one bit
        bit = rng.randrange(8 * len(data))
        data[bit // 8] ^= 1 << (bit % 8)
    elif op == 2 and len(data) >= 128:  # a header field set to an extreme value
        offset = rng.choice(FIELD_OFFSETS)
        width = rng.choice([1, 2, 4, 8])
        value = rng.choice(EXTREMES) & ((1 << (8 * width)) - 1)
        data[offset:offset + width] = value.to_bytes(width, "little")
    elif op == 3 and allow_resize:  # truncated
        del data[rng.randrange(len(data)):]
    elif op == 4 and allow_resize:  # extended
        data += bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 64)))
    else:  # a run of bytes overwritten
        start = rng.randrange(len(data))
        for i in range(start, min(len(data), start + rng.randrange(1, 32))):
            data[i] = rng.getrandbits(8)
    return bytes(data)


def rdb_string_header_bytes(body, at):
    """Bytes of the module-string opcode (5) and RDB length that start at `at`."""
    assert body[at] == 5, body[at]
    kind = body[at + 1] >> 6
    return 1 + {0: 1, 1: 2, 2: 5}[kind] if kind < 3 and body[at + 1] != 0x81 else 1 + 9


class MutationTest(unittest.TestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = Server(["MAX_FILTER_BYTES", "16mb", "SCANDUMP_CHUNK_BYTES", "64"])
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def alive(self, c, what):
        self.assertEqual(c.call("PING"), Simple(b"PONG"), what)
        self.assertTrue(self.server.alive(), what)

    def integrity(self, c, prefix, key, what):
        """An accepted filter: its SCANDUMP reloads into an identical filter; queries answer."""
        exists = FAMILIES[prefix][2]
        for item in ITEMS[:5] + ["absent"]:
            self.assertIn(c.call(exists, key, item), (0, 1), what)
        self.assertIsInstance(c.call(prefix + ".INFO", key), list, what)
        chunks = scandump(c, prefix, key)
        copy = key + ":copy"
        c.call("DEL", copy)
        for it, data in chunks:
            self.assertEqual(c.call(prefix + ".LOADCHUNK", copy, it, data), Simple(b"OK"), what)
        self.assertEqual(dump_bytes(c, prefix, copy), b"".join(d for _, d in chunks), what)
        c.call("DEL", copy)

    def make(self, c, prefix, key):
        create, add, _ = FAMILIES[prefix]
        c.call("DEL", key)
        self.assertEqual(c.call(*[a.replace("{k}", key) for a in create]), Simple(b"OK"))
        for item in ITEMS:
            self.assertIsInstance(c.call(add, key, item), int)

    @time_limit(120)
    def test_mutated_restore_payloads(self):
        rng = random.Random(2026)
        counts = {}
        with self.server.client() as c:
            c.ok("CONFIG", "SET", "rdbcompression", "no")  # filter bytes stay visible in DUMP
            for prefix in FAMILIES:
                key = "src:" + prefix
                self.make(c, prefix, key)
                serialized = dump_bytes(c, prefix, key)
                body, version = split_dump(c.call("DUMP", key))
                # Encoding version 2: the 128-byte header as one string, then (a filter
                # this small) the rest as a second one: [header][0x05 length][rest].
                start = body.index(MAGIC)
                rest_at = start + 128 + rdb_string_header_bytes(body, start + 128)
                self.assertEqual(body[start:start + 128] + body[rest_at:rest_at + len(serialized) - 128], serialized)
                accepted = rejected = 0
                for n in range(PAYLOADS_PER_TYPE):
                    if n % 2 == 0:  # inside the filter bytes, bloomkit checksum repaired
                        inner = mutate_bytes(rng, serialized, allow_resize=False)
                        if rng.random() < 0.8:
                            inner = reseal_filter(inner)
                        mutated = (body[:start] + inner[:128] + body[start + 128:rest_at] + inner[128:] +
                                   body[rest_at + len(serialized) - 128:])
                    else:  # anywhere in the RDB value (framing, state, lengths)
                        mutated = body[:1] + mutate_bytes(rng, body[1:])
                    what = "%s payload %d" % (prefix, n)
                    reply = c.call("RESTORE", "victim", 0, seal_dump(mutated, version), "REPLACE")
                    self.assertIsInstance(reply, (ReplyError, Simple), what)
                    self.alive(c, what)
                    if isinstance(reply, Simple):
                        accepted += 1
                        if c.call("TYPE", "victim") != Simple(b"none") and \
                                not isinstance(c.call(FAMILIES[prefix][2], "victim", "x"), ReplyError):
                            self.integrity(c, prefix, "victim", what)
                    else:
                        rejected += 1
                        self.assertEqual(c.call("EXISTS", "victim"), 0, what)
                    c.call("DEL", "victim")
                counts[prefix] = (accepted, rejected)
        print("\nrestore: accepted/rejected per type %s" % counts)

    @time_limit(120)
    def test_mutated_loadchunk_sequences(self):
        rng = random.Random(4242)
        outcomes = {"ready": 0, "loading": 0, "absent": 0}
        with self.server.client() as c:
            sources = {}
            for prefix in FAMILIES:
                key = "seq:" + prefix
                self.make(c, prefix, key)
                sources[prefix] = scandump(c, prefix, key)
                self.assertGreater(len(sources[prefix]), 3)
            for n in range(SEQUENCES):
                prefix = rng.choice(list(FAMILIES))
                chunks = [list(ch) for ch in sources[prefix]]
                if rng.random() < 0.3:  # damaged bytes, checksum repaired, cut as SCANDUMP cut them
                    serialized = b"".join(d for _, d in chunks)
                    resealed = reseal_filter(mutate_bytes(rng, serialized, allow_resize=False))
                    offset = 0
                    for ch in chunks:
                        length = len(ch[1])
                        ch[1] = resealed[offset:offset + length]
                        offset += length
                for _ in range(rng.randrange(0 if [tuple(ch) for ch in chunks] != sources[prefix] else 1, 3)):
                    op = rng.randrange(8)
                    i = rng.randrange(len(chunks))
                    if op in (0, 1):  # damaged chunk data
                        chunks[i][1] = mutate_bytes(rng, chunks[i][1])
                    elif op == 2:  # a chunk dropped
                        del chunks[i]
                    elif op == 3:  # a chunk repeated
                        chunks.insert(i, list(chunks[i]))
                    elif op == 4 and len(chunks) > 1:  # two chunks swapped
                        j = rng.randrange(len(chunks))
                        chunks[i], chunks[j] = chunks[j], chunks[i]
                    elif op == 5:  # wrong iterator
                        chunks[i][0] = rng.choice([chunks[i][0] + 1, chunks[i][0] - 1, 0, -1, 2**63 - 1,
                                                   rng.randrange(1, 1 << 20)])
                    elif op == 6:  # a chunk of another family's dump
                        other = sources[rng.choice([p for p in FAMILIES if p != prefix])]
                        chunks[i] = list(other[min(i, len(other) - 1)])
                    else:  # the sequence stops early
                        del chunks[i:]
                        if not chunks:
                            chunks = [list(sources[prefix][0])]
                key = "target:%d" % (n % 5)
                c.call("DEL", key)
                what = "%s sequence %d" % (prefix, n)
                for it, data in chunks:
                    reply = c.call(prefix + ".LOADCHUNK", key, it, data)
                    self.assertIsInstance(reply, (ReplyError, Simple), what)
                self.alive(c, what)
                kind = c.call("TYPE", key)
                if kind == Simple(b"none"):
                    outcomes["absent"] += 1
                    continue
                probe = c.call(FAMILIES[prefix][2], key, "x")
                if isinstance(probe, ReplyError):
                    self.assertIn("still being loaded", probe.message, what)
                    outcomes["loading"] += 1
                else:
                    outcomes["ready"] += 1
                    self.integrity(c, prefix, key, what)
                c.call("DEL", key)
        print("\nloadchunk: %d sequences -> %s" % (SEQUENCES, outcomes))
        self.assertGreater(outcomes["ready"], 0)


if __name__ == "__main__":
    main()
