# SPDX-License-Identifier: Apache-2.0
"""RedisBloom-format values that LOADCHUNK and RESTORE accept can be exported: a chain
whose first link has RedisBloom 2.0's unhalved error rate (0.7962, over 0.5) loads, answers,
and its SCANDUMP chunks and DUMP payload import into bloomkit files that `bloomkit info`
reads (the file's rate is 0.7962, not twice that). Counts and capacities the file format
cannot hold (an item count of 2^63, links whose capacities overflow 64 bits) are refused
by LOADCHUNK and RESTORE with a reason, and the key is not created. A cuckoo key whose
LOADCHUNK load is incomplete saves and loads again, as in RedisBloom."""

import os
import struct
import tempfile
import unittest

from harness import CLI, ReplyError, Server, Simple, main, run_cli, scandump, seal_dump, time_limit

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "golden", "redisbloom")
ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
NOSCALING = 8


def module_type_id(name, version):
    ident = 0
    for ch in name:
        ident = (ident << 6) | ID_CHARS.index(ch)
    return (ident << 10) | version


def rdb_length(v):
    if v < 1 << 6:
        return bytes([v])
    if v < 1 << 14:
        return bytes([0x40 | (v >> 8), v & 0xFF])
    if v <= 0xFFFFFFFF:
        return b"\x80" + struct.pack(">I", v)
    return b"\x81" + struct.pack(">Q", v)


class Dump:
    """A DUMP payload of a module value, written primitive by primitive."""

    def __init__(self, type_name, version=4):
        self.body = b"\x07\x81" + struct.pack(">Q", module_type_id(type_name, version))

    def unsigned(self, v):
        self.body += rdb_length(2) + rdb_length(v)
        return self

    def double(self, d):
        self.body += rdb_length(4) + struct.pack("<d", d)
        return self

    def string(self, s):
        self.body += rdb_length(5) + rdb_length(len(s)) + s
        return self

    def payload(self):
        return seal_dump(self.body + b"\x00", struct.pack("<H", 10))


def parse_link(header, i):
    """One 53-byte link of a Bloom header chunk: bytes, bits, size, error, bpe, hashes, entries, n2."""
    return struct.unpack_from("<QQQddIQB", header, 20 + 53 * i)


def bloom_dump(options, growth, links):
    """links: (entries, error, hashes, bpe, bits, n2, data, size) each."""
    d = Dump("MBbloom--").unsigned(sum(link[7] for link in links)).unsigned(len(links))
    d.unsigned(options).unsigned(growth)
    for entries, error, hashes, bpe, bits, n2, data, size in links:
        d.unsigned(entries).double(error).unsigned(hashes).double(bpe).unsigned(bits).unsigned(n2)
        d.string(data).unsigned(size)
    return d.payload()


class RedisBloomLoadsTest(unittest.TestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = Server(fmt="redisbloom")
        cls.server.start()
        cls.tmp = tempfile.mkdtemp(prefix="bloomkit-rbloads-", dir=cls.server.dir)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def refused(self, reply, prefix):
        self.assertIsInstance(reply, ReplyError, reply)
        self.assertTrue(reply.message.startswith(prefix), reply)

    def template(self, c, error):
        """The header and data chunks of a one-link NONSCALING chain at `error`. RedisBloom 8
        (and so BF.RESERVE) takes a rate above 0.25 as 0.25, which older RedisBloom did not:
        such a chain is made at 0.25 and its link's error field set to `error`."""
        c.call("DEL", "tmpl")
        c.ok("BF.RESERVE", "tmpl", min(float(error), 0.25), 100, "NONSCALING")
        chunks = scandump(c, "BF.SCANDUMP", "tmpl")
        c.call("DEL", "tmpl")
        if float(error) > 0.25:
            (it, header), rest = chunks[0], chunks[1:]
            header = bytearray(header)
            struct.pack_into("<d", header, 20 + 24, float(error))  # the link's error
            chunks = [(it, bytes(header))] + rest
        return chunks

    def export(self, c, key):
        """Imports the key's chunks and its DUMP into bloomkit files with the CLI; their `info`."""
        out = []
        paths = []
        for n, (_, data) in enumerate(scandump(c, "BF.SCANDUMP", key)):
            paths.append(os.path.join(self.tmp, "%s.%03d" % (key, n)))
            with open(paths[-1], "wb") as f:
                f.write(data)
        dump = os.path.join(self.tmp, key + ".dump")
        with open(dump, "wb") as f:
            f.write(c.call("DUMP", key))
        for name, source in (("chunks", ["--chunks"] + paths), ("dump", ["--dump", dump])):
            filter_file = os.path.join(self.tmp, "%s-%s.bf" % (key, name))
            run = run_cli(["import", "redisbloom", filter_file, "--force"] + source, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            info = run_cli(["info", filter_file], text=True)
            self.assertEqual(info.returncode, 0, info.stderr)
            out.append(info.stdout)
        return out

    @time_limit(60)
    def test_unhalved_first_link_exports(self):
        with self.server.client() as c:
            (_, header), (it, data) = self.template(c, "0.7962")
            scaling = bytearray(header)
            scaling[12] &= ~NOSCALING & 0xFF
            self.assertEqual(c.call("BF.LOADCHUNK", "old", 1, bytes(scaling)), Simple(b"OK"))
            self.assertEqual(c.call("BF.LOADCHUNK", "old", it, data), Simple(b"OK"))
            self.assertEqual(c.call("BF.ADD", "old", "a"), 1)
            self.assertEqual(c.call("BF.EXISTS", "old", "a"), 1)
            nbytes, bits, size, error, bpe, hashes, entries, n2 = parse_link(header, 0)
            c.ok("RESTORE", "old2", 0, bloom_dump(4 | 1, 2, [(entries, error, hashes, bpe, bits, n2, data, 0)]))
            for key in ("old", "old2"):
                for info in self.export(c, key):
                    self.assertRegex(info, r"target fp rate\s+79\.62%", info)

    @time_limit(60)
    def test_forged_counts_are_refused(self):
        with self.server.client() as c:
            (_, header), (it, data) = self.template(c, "0.01")
            forged = bytearray(header)
            forged[0:8] = struct.pack("<Q", 1 << 63)
            forged[20 + 16:20 + 24] = struct.pack("<Q", 1 << 63)
            self.refused(c.call("BF.LOADCHUNK", "big", 1, bytes(forged)), "ERR")
            self.assertEqual(c.call("EXISTS", "big"), 0)

            nbytes, bits, size, error, bpe, hashes, entries, n2 = parse_link(header, 0)
            link = (entries, error, hashes, bpe, bits, n2, data, 1 << 63)
            self.refused(c.call("RESTORE", "big", 0, bloom_dump(5, 2, [link])), "ERR Bad data format")
            wide = (1 << 63, error, hashes, bpe, bits, n2, data, 0)
            self.refused(c.call("RESTORE", "big", 0, bloom_dump(5, 2, [wide, wide])), "ERR Bad data format")
            self.assertEqual(c.call("EXISTS", "big"), 0)
            self.assertIn("capacities overflow", self.server.log())
            self.assertEqual(c.call("PING"), Simple(b"PONG"))

    @time_limit(60)
    def test_incomplete_cuckoo_load_survives_a_reload(self):
        """RedisBloom saves a CF key whose LOADCHUNK stopped after the header chunk (its item
        count, empty slots) and loads it again; bloomkit.so must too, or Redis would not
        start from that RDB. The header is RedisBloom 2.8.20's own (tests/golden)."""
        with open(os.path.join(GOLDEN, "cf_bucket4_expand", "chunk000.bin"), "rb") as f:
            header = f.read()
        with self.server.client() as c:
            self.assertEqual(c.call("CF.LOADCHUNK", "partial", 1, header), Simple(b"OK"))
            before = c.call("CF.INFO", "partial")
            self.assertEqual(c.call("DEBUG", "RELOAD"), Simple(b"OK"))
            self.assertEqual(c.call("CF.INFO", "partial"), before)
            self.assertEqual(c.call("CF.EXISTS", "partial", "item:1"), 0)


if __name__ == "__main__":
    if not CLI or not os.path.exists(CLI):
        raise SystemExit("BLOOMKIT_CLI must name the built bloomkit CLI, got %r" % CLI)
    main()
