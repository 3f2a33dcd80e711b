# SPDX-License-Identifier: Apache-2.0
"""RedisBloom's own data in bloomkit.so (tests/golden/redisbloom, README.md there).

For every key of an RDB file written by RedisBloom 2.8.20: the file loads with the module's
default arguments; the key has RedisBloom's type; every one of 100,000+ probes answers as
RedisBloom answered, false positives included; BF.INFO/CF.INFO equal RedisBloom's; DUMP and
SCANDUMP of the unchanged key are byte-identical to RedisBloom's, RESTORE and LOADCHUNK of
RedisBloom's bytes give the same key back; after more adds and deletes the key still saves
in RedisBloom's encoding (decoded below by RedisBloom's rules) and reloads with the same
answers."""

import json
import math
import os
import random
import shutil
import struct
import tempfile
import time
import unittest

from harness import ReplyError, Server, Simple, dump_version, main, reseal_dump, scandump, seal_dump, time_limit

HERE = os.path.dirname(os.path.abspath(__file__))
# RedisBloom 2.8.20's own data, shared with the core tests (README.md there).
DATA = os.path.join(HERE, "..", "..", "golden", "redisbloom")
with open(os.path.join(DATA, "manifest.json")) as f:
    MANIFEST = json.load(f)["keys"]
BF_KEYS = sorted(k for k, v in MANIFEST.items() if v["type"] == "bloom")
CF_KEYS = sorted(k for k, v in MANIFEST.items() if v["type"] == "cuckoo")


def item(key, i):
    if key == "bf_binary_items":
        return b"\x00bin\xff" + struct.pack("<I", i) + b"\n\r"
    return b"item:%d" % i


def read(key, name):
    with open(os.path.join(DATA, key, name), "rb") as f:
        return f.read()


def golden_dump(c, key):
    """RedisBloom's DUMP of `key` (recorded on Redis 7.0, RDB version 10) as the server of
    `c` would write it: the same value bytes, that server's RDB version and CRC-64."""
    return reseal_dump(read(key, "dump.bin"), dump_version(c))


def answers(key):
    return read(key, "answers.txt").rstrip(b"\n").decode()


def probe(c, key, count, source=None):
    """The key's answers to probes 0 .. count-1 in the answers.txt alphabet."""
    source = source or key
    out = []
    if MANIFEST[source]["type"] == "bloom":
        step = 1000
        commands = [["BF.MEXISTS", key] + [item(source, i) for i in range(s, min(count, s + step))]
                    for s in range(0, count, step)]
        for reply in c.pipeline(commands):
            assert isinstance(reply, list), reply
            out.extend("1" if r else "0" for r in reply)
    else:
        step = 20000
        for s in range(0, count, step):
            replies = c.pipeline([["CF.COUNT", key, item(source, i)] for i in range(s, min(count, s + step))])
            out.extend(str(min(r, 9)) if isinstance(r, int) else "E" for r in replies)
    return "".join(out)


def info_dict(reply):
    if isinstance(reply, dict):
        return {k.decode(): v for k, v in reply.items()}
    return {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}


# ---- RedisBloom's RDB value encoding, decoded by its rules ---------------------------------
# A DUMP payload is: RDB type 7 (module, v2), the module id (a 64-bit RDB length: 9 name
# characters of 6 bits each, then the 10-bit encoding version), then the values the module
# saved, each after an opcode (1 signed, 2 unsigned, 3 float, 4 double, 5 string), then
# opcode 0; then 2 bytes of RDB version and 8 of CRC-64.
MODULE_ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


class Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def byte(self):
        b = self.data[self.pos]
        self.pos += 1
        return b

    def take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError("truncated")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def length(self):
        """(value, encoded special) of an RDB length."""
        first = self.byte()
        kind = first >> 6
        if kind == 0:
            return first & 0x3F, False
        if kind == 1:
            return ((first & 0x3F) << 8) | self.byte(), False
        if kind == 2:
            if first == 0x80:
                return struct.unpack(">I", self.take(4))[0], False
            if first == 0x81:
                return struct.unpack(">Q", self.take(8))[0], False
            raise ValueError("bad length byte %#x" % first)
        return first & 0x3F, True

    def string(self):
        n, special = self.length()
        if not special:
            return self.take(n)
        if n == 0:
            return str(struct.unpack("b", self.take(1))[0]).encode()
        if n == 1:
            return str(struct.unpack("<h", self.take(2))[0]).encode()
        if n == 2:
            return str(struct.unpack("<i", self.take(4))[0]).encode()
        if n == 3:
            compressed, _ = self.length()
            size, _ = self.length()
            return lzf_decompress(self.take(compressed), size)
        raise ValueError("bad string encoding %d" % n)


def lzf_decompress(data, size):
    out = bytearray()
    i = 0
    while i < len(data):
        ctrl = data[i]
        i += 1
        if ctrl < 32:
            out += data[i:i + ctrl + 1]
            i += ctrl + 1
        else:
            length = ctrl >> 5
            if length == 7:
                length += data[i]
                i += 1
            ref = len(out) - ((ctrl & 0x1F) << 8) - data[i] - 1
            i += 1
            for _ in range(length + 2):
                out.append(out[ref])
                ref += 1
    if len(out) != size:
        raise ValueError("LZF: %d bytes, expected %d" % (len(out), size))
    return bytes(out)


def decode_module_value(payload):
    """(type name, encoding version, [(opcode, value)...]) of a DUMP payload."""
    r = Reader(payload)
    if r.byte() != 7:
        raise ValueError("not a module value")
    module_id, _ = r.length()
    name = "".join(MODULE_ID_CHARS[(module_id >> (64 - 6 * (i + 1))) & 63] for i in range(9))
    encver = module_id & 1023
    values = []
    while True:
        opcode, _ = r.length()
        if opcode == 0:
            break
        if opcode in (1, 2):
            values.append((opcode, r.length()[0]))
        elif opcode == 3:
            values.append((opcode, struct.unpack("<f", r.take(4))[0]))
        elif opcode == 4:
            values.append((opcode, struct.unpack("<d", r.take(8))[0]))
        elif opcode == 5:
            values.append((opcode, r.string()))
        else:
            raise ValueError("bad opcode %d" % opcode)
    if len(payload) - r.pos != 10:
        raise ValueError("%d bytes after the value" % (len(payload) - r.pos - 10))
    return name, encver, values


class Values:
    def __init__(self, values):
        self.values = values
        self.i = 0

    def get(self, opcode):
        op, value = self.values[self.i]
        if op != opcode:
            raise ValueError("value %d: opcode %d, expected %d" % (self.i, op, opcode))
        self.i += 1
        return value

    def done(self):
        return self.i == len(self.values)


def decode_bloom(payload):
    """RedisBloom's MBbloom-- encoding version 4: the chain, then each link."""
    name, encver, values = decode_module_value(payload)
    assert (name, encver) == ("MBbloom--", 4), (name, encver)
    v = Values(values)
    chain = {"size": v.get(2), "nfilters": v.get(2), "options": v.get(2), "growth": v.get(2), "links": []}
    for _ in range(chain["nfilters"]):
        link = {"entries": v.get(2), "error": v.get(4), "hashes": v.get(2), "bpe": v.get(4), "bits": v.get(2),
                "n2": v.get(2), "bf": v.get(5), "size": v.get(2)}
        assert len(link["bf"]) >= math.ceil(link["bits"] / 8), link["bits"]
        assert link["size"] <= link["entries"] or chain["nfilters"] == 1, link
        chain["links"].append(link)
    assert v.done()
    assert chain["size"] == sum(link["size"] for link in chain["links"]), chain["size"]
    return chain


def decode_cuckoo(payload):
    """RedisBloom's MBbloomCF encoding version 4: the filter, then each sub-filter."""
    name, encver, values = decode_module_value(payload)
    assert (name, encver) == ("MBbloomCF", 4), (name, encver)
    v = Values(values)
    cf = {k: v.get(2) for k in ("numFilters", "numBuckets", "numItems", "numDeletes", "bucketSize",
                                 "maxIterations", "expansion")}
    cf["filters"] = []
    for _ in range(cf["numFilters"]):
        buckets = v.get(2)
        data = v.get(5)
        assert len(data) == buckets * cf["bucketSize"], (len(data), buckets)
        cf["filters"].append((buckets, data))
    assert v.done()
    assert cf["filters"][0][0] == cf["numBuckets"]
    return cf


class Writer:
    """A DUMP payload of a module value in the layout described above (strings raw)."""

    def __init__(self, name, encver):
        module_id = 0
        for i, ch in enumerate(name):
            module_id |= MODULE_ID_CHARS.index(ch) << (64 - 6 * (i + 1))
        self.out = bytearray([7]) + self.length(module_id | encver)

    @staticmethod
    def length(v):
        if v < 64:
            return bytes([v])
        if v < 16384:
            return bytes([0x40 | (v >> 8), v & 0xFF])
        if v < 2 ** 32:
            return b"\x80" + struct.pack(">I", v)
        return b"\x81" + struct.pack(">Q", v)

    def unsigned(self, v):
        self.out += self.length(2) + self.length(v)

    def double(self, v):
        self.out += self.length(4) + struct.pack("<d", v)

    def string(self, data):
        self.out += self.length(5) + self.length(len(data)) + data

    def payload(self):
        return seal_dump(bytes(self.out) + self.length(0), b"\x0a\x00")


class RedisBloomDataTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="bloomkit-redisbloom-")
        shutil.copy(os.path.join(DATA, "redisbloom.rdb"), os.path.join(cls.dir, "dump.rdb"))
        # The module's default arguments: a drop-in for RedisBloom changes nothing.
        cls.server = Server(directory=cls.dir, fmt=None)
        cls.server.start(timeout=60)
        cls.c = cls.server.client()

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.server.cleanup()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_rdb_loads_every_key_with_its_type(self):
        self.assertEqual(self.c.call("DBSIZE"), len(MANIFEST))
        for key, m in MANIFEST.items():
            want = "MBbloom--" if m["type"] == "bloom" else "MBbloomCF"
            self.assertEqual(self.c.call("TYPE", key), Simple(want.encode()), key)

    @time_limit(150)
    def test_every_probe_answers_as_redisbloom(self):
        for key in sorted(MANIFEST):
            want = answers(key)
            self.assertEqual(len(want), MANIFEST[key]["probes"], key)
            got = probe(self.c, key, len(want))
            if got != want:
                bad = [i for i in range(len(want)) if got[i] != want[i]]
                self.fail("%s: %d of %d probes differ, first at %d (got %s, RedisBloom %s)" %
                          (key, len(bad), len(want), bad[0], got[bad[0]], want[bad[0]]))

    def test_info_equals_redisbloom(self):
        for key, m in MANIFEST.items():
            command = "BF.INFO" if m["type"] == "bloom" else "CF.INFO"
            self.assertEqual(info_dict(self.c.call(command, key)), m["info"], key)
        # RESP3: the same as a map.
        with self.server.client(protocol=3) as c3:
            for key in BF_KEYS:
                self.assertEqual(info_dict(c3.call("BF.INFO", key)), MANIFEST[key]["info"], key)

    def test_dump_is_byte_identical(self):
        for key in MANIFEST:
            self.assertEqual(self.c.call("DUMP", key), golden_dump(self.c, key), key)

    def test_scandump_is_byte_identical(self):
        for key, m in MANIFEST.items():
            command = "BF.SCANDUMP" if m["type"] == "bloom" else "CF.SCANDUMP"
            got = scandump(self.c, command, key)
            want = [(chunk["iterator"], read(key, chunk["file"])) for chunk in m["scandump_chunks"]]
            self.assertEqual([it for it, _ in got], [it for it, _ in want], key)
            for (_, data), (_, ref), chunk in zip(got, want, m["scandump_chunks"]):
                self.assertEqual(data, ref, "%s %s" % (key, chunk["file"]))

    def test_restore_and_loadchunk_of_redisbloom_bytes(self):
        for key, m in MANIFEST.items():
            family = "BF" if m["type"] == "bloom" else "CF"
            copy = "restored:" + key
            self.assertEqual(self.c.call("RESTORE", copy, 0, read(key, "dump.bin")), Simple(b"OK"), key)
            self.assertEqual(self.c.call("DUMP", copy), golden_dump(self.c, key), key)
            loaded = "loaded:" + key
            for chunk in m["scandump_chunks"]:
                reply = self.c.call(family + ".LOADCHUNK", loaded, chunk["iterator"], read(key, chunk["file"]))
                self.assertEqual(reply, Simple(b"OK"), "%s %s" % (key, chunk["file"]))
            self.assertEqual(self.c.call("DUMP", loaded), golden_dump(self.c, key), key)
            self.assertEqual(self.c.call("DEL", copy, loaded), 2)

    @time_limit(120)
    def test_writes_then_save_in_redisbloom_encoding(self):
        c = self.c
        for key in BF_KEYS:
            m = MANIFEST[key]
            if "reserve" in m and m["reserve"] and "NONSCALING" in m["reserve"]:
                continue
            copy = "grown:" + key
            c.ok("RESTORE", copy, 0, read(key, "dump.bin"))
            # Past the chain's capacity: at least one new link.
            more = [item(key, i) for i in range(m["probes"], m["probes"] + m["info"]["Capacity"] + 100)]
            for s in range(0, len(more), 1000):
                c.call("BF.MADD", copy, *more[s:s + 1000])
            chain = decode_bloom(c.call("DUMP", copy))
            self.assertEqual(chain["size"], c.call("BF.CARD", copy), key)
            self.assertGreater(chain["nfilters"], m["info"]["Number of filters"], key)
            self.assertEqual(chain["nfilters"], info_dict(c.call("BF.INFO", copy))["Number of filters"])
        for key in CF_KEYS:
            m = MANIFEST[key]
            copy = "grown:" + key
            c.ok("RESTORE", copy, 0, read(key, "dump.bin"))
            more = [item(key, i) for i in range(m["probes"], m["probes"] + m["items"] // 2)]
            c.pipeline([["CF.ADD", copy, x] for x in more])
            c.pipeline([["CF.DEL", copy, item(key, i)] for i in range(1, m["items"], 3)])
            cf = decode_cuckoo(c.call("DUMP", copy))
            info = info_dict(c.call("CF.INFO", copy))
            self.assertEqual(cf["numItems"], info["Number of items inserted"], key)
            self.assertEqual(cf["numDeletes"], info["Number of items deleted"], key)
            self.assertEqual(cf["numFilters"], info["Number of filters"], key)
        before = {k: c.call("DUMP", k) for k in c.call("KEYS", "grown:*")}
        answers_before = {k: probe(c, k, 3000, source=k.decode().split(":", 1)[1]) for k in before}
        self.assertEqual(c.call("DEBUG", "RELOAD"), Simple(b"OK"))
        for k, payload in before.items():
            self.assertEqual(c.call("TYPE", k), Simple(b"MBbloom--" if b"bf_" in k else b"MBbloomCF"), k)
            self.assertEqual(c.call("DUMP", k), payload, k)
            self.assertEqual(probe(c, k, 3000, source=k.decode().split(":", 1)[1]), answers_before[k], k)
        self.assertEqual(c.call("DEL", *before.keys()), len(before))

    def test_older_encodings_restore(self):
        # RedisBloom 2.x before 2.2 wrote MBbloom-- version 3 (no growth field: 2) and
        # MBbloomCF version 3 (no deletes, bucket size, iterations or expansion, and no
        # per-filter bucket count). The same filters, re-encoded that way, answer alike.
        c = self.c
        chain = decode_bloom(read("bf_scaled", "dump.bin"))
        self.assertEqual(chain["growth"], 2)
        w = Writer("MBbloom--", 3)
        for field in ("size", "nfilters", "options"):
            w.unsigned(chain[field])
        for link in chain["links"]:
            w.unsigned(link["entries"]), w.double(link["error"]), w.unsigned(link["hashes"])
            w.double(link["bpe"]), w.unsigned(link["bits"]), w.unsigned(link["n2"])
            w.string(link["bf"]), w.unsigned(link["size"])
        self.assertEqual(c.call("RESTORE", "old:bf", 0, w.payload()), Simple(b"OK"))
        cf = decode_cuckoo(read("cf_default", "dump.bin"))
        self.assertEqual((cf["bucketSize"], cf["expansion"]), (2, 1))
        w = Writer("MBbloomCF", 3)
        for field in ("numFilters", "numBuckets", "numItems"):
            w.unsigned(cf[field])
        for _, data in cf["filters"]:
            w.string(data)
        self.assertEqual(c.call("RESTORE", "old:cf", 0, w.payload()), Simple(b"OK"))
        for old, key in (("old:bf", "bf_scaled"), ("old:cf", "cf_default")):
            self.assertEqual(probe(c, old, 20000, source=key), answers(key)[:20000], key)
        self.assertEqual(info_dict(c.call("BF.INFO", "old:bf")), MANIFEST["bf_scaled"]["info"])
        self.assertEqual(info_dict(c.call("CF.INFO", "old:cf"))["Number of items deleted"], 0)
        # Saved again, they are version 4.
        self.assertEqual(c.call("DUMP", "old:bf"), golden_dump(c, "bf_scaled"))
        self.assertEqual(decode_cuckoo(c.call("DUMP", "old:cf"))["numItems"], cf["numItems"])
        self.assertEqual(c.call("DEL", "old:bf", "old:cf"), 2)

    def test_decoder_reads_the_reference_dumps(self):
        # The decoder above, checked on RedisBloom's own bytes.
        for key in BF_KEYS:
            chain = decode_bloom(read(key, "dump.bin"))
            self.assertEqual(chain["nfilters"], MANIFEST[key]["info"]["Number of filters"], key)
            self.assertEqual(chain["size"], MANIFEST[key]["info"]["Number of items inserted"], key)
        for key in CF_KEYS:
            cf = decode_cuckoo(read(key, "dump.bin"))
            self.assertEqual(cf["numBuckets"], MANIFEST[key]["info"]["Number of buckets"], key)
            self.assertEqual(cf["numItems"], MANIFEST[key]["info"]["Number of items inserted"], key)

    @time_limit(120)
    def test_forged_values_are_refused_cleanly(self):
        # Every field of RedisBloom's encoding, damaged: RESTORE either refuses the value or
        # gives a key that answers every command; the server never stops.
        rng = random.Random(20820)
        c = self.c
        for key in ("bf_scaled", "bf_single", "cf_bucket3_odd", "cf_default"):
            payload = read(key, "dump.bin")
            body, version = payload[:-10], payload[-10:-8]
            family = "BF" if key.startswith("bf") else "CF"
            for trial in range(300):
                mutated = bytearray(body)
                if trial % 3 == 0:
                    mutated = mutated[:rng.randrange(1, len(mutated))]
                else:
                    for _ in range(rng.randrange(1, 4)):
                        at = rng.randrange(10, min(len(mutated), 400))
                        mutated[at] = rng.randrange(256)
                reply = c.call("RESTORE", "forged", 0, seal_dump(bytes(mutated), version), "REPLACE")
                if isinstance(reply, ReplyError):
                    continue
                self.assertEqual(reply, Simple(b"OK"))
                c.call(family + ".INFO", "forged")
                c.call(family + ".EXISTS", "forged", "item:1")
                c.call(family + ".ADD", "forged", "item:x")
                c.call("DUMP", "forged")
                it = 0
                for _ in range(100):
                    step = c.call(family + ".SCANDUMP", "forged", it)
                    if isinstance(step, ReplyError) or step[0] == 0:
                        break
                    it = step[0]
                c.call("DEL", "forged")
            self.assertEqual(c.call("PING"), Simple(b"PONG"))
        self.assertIn("bloomkit: rejected a MBbloom", self.server.log())


class RedisBloomCommandsTest(unittest.TestCase):
    """Commands on RedisBloom-format keys, in RESP2 and RESP3, as RedisBloom 2.8 replies."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server(fmt=None)
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def setUp(self):
        with self.server.client() as c:
            c.call("FLUSHALL")

    def test_new_filters_have_redisbloom_format_by_default(self):
        with self.server.client() as c:
            self.assertEqual(c.call("BF.ADD", "b", "x"), 1)
            self.assertEqual(c.call("CF.ADD", "c", "x"), 1)
            self.assertEqual(c.call("TYPE", "b"), Simple(b"MBbloom--"))
            self.assertEqual(c.call("TYPE", "c"), Simple(b"MBbloomCF"))
            c.ok("BF.RESERVE", "r", "0.01", "1000")
            # The first link of BF.RESERVE 0.01 1000: 0.005 per link, 11,072 bits, k = 8.
            self.assertEqual(c.call("BF.DEBUG", "r"),
                             [b"size:0", b"bytes:1384 bits:11072 hashes:8 hashwidth:64 capacity:1000 size:0 ratio:0.005"])
            c.ok("CF.RESERVE", "cr", "1000")
            self.assertEqual(c.call("CF.DEBUG", "cr"),
                             b"bktsize:2 buckets:512 items:0 deletes:0 filters:1 max_iterations:20 expansion:1")

    def test_format_native_keeps_bloomkit_filters(self):
        with Server(["FORMAT", "native"], fmt=None) as server, server.client() as c:
            c.call("BF.ADD", "b", "x")
            c.call("CF.ADD", "c", "x")
            self.assertEqual(c.call("TYPE", "b"), Simple(b"bloomkitB"))
            self.assertEqual(c.call("TYPE", "c"), Simple(b"bloomkitC"))
            # A RedisBloom key restored into a native server still answers as RedisBloom.
            c.ok("RESTORE", "rb", 0, read("bf_single", "dump.bin"))
            self.assertEqual(c.call("BF.MEXISTS", "rb", "item:1", "item:999"), [1, 1])
            self.assertEqual(c.call("TYPE", "rb"), Simple(b"MBbloom--"))

    def test_info_field_is_a_map_under_resp3(self):
        with self.server.client() as c:
            c.ok("BF.RESERVE", "b", "0.01", "100")
            self.assertEqual(c.call("BF.INFO", "b", "CAPACITY"), [100])
            self.assertTrue(c.call("BF.INFO", "b", "nope").message.startswith("Invalid information value"))
        with self.server.client(protocol=3) as c3:
            self.assertEqual(c3.call("BF.INFO", "b", "CAPACITY"), {b"Capacity": 100})
            self.assertEqual(c3.call("BF.INFO", "b", "EXPANSION"), {b"Expansion rate": 2})

    def test_cuckoo_replies(self):
        with self.server.client() as c, self.server.client(protocol=3) as c3:
            # RedisBloom's ranges and texts; unknown words are ignored as RedisBloom does.
            self.assertEqual(c.call("CF.RESERVE", "c", "100", "BUCKETSIZE", "256"),
                             ReplyError("BUCKETSIZE: value must be in the range [1, 255]"))
            c.ok("CF.RESERVE", "c3", "100", "BUCKETSIZE", "3", "IGNORED", "x")
            self.assertEqual(c.call("CF.INFO", "c3")[11], 3)
            # A filter that cannot grow: did-not-fit is -1 under RESP2, false under RESP3.
            c.ok("CF.RESERVE", "tiny", "4", "BUCKETSIZE", "1", "EXPANSION", "0")
            r2 = c.call("CF.INSERT", "tiny", "ITEMS", *["i%d" % i for i in range(20)])
            self.assertIn(-1, r2)
            r3 = c3.call("CF.INSERT", "tiny", "ITEMS", "more1", "more2", "more3")
            self.assertTrue(all(isinstance(x, bool) for x in r3), r3)
            self.assertIn(False, r3)
            self.assertEqual(c.call("CF.ADD", "tiny", "last"), ReplyError("Filter is full"))
            nx = c3.call("CF.INSERTNX", "tiny", "ITEMS", "i0", "zz1", "zz2", "zz3")
            self.assertEqual(nx[0], 0)
            self.assertIn(-1, nx)
            # Keys of another type: nothing there, as RedisBloom answers.
            c.ok("SET", "str", "v")
            self.assertEqual(c.call("CF.MEXISTS", "str", "a", "b"), [0, 0])
            self.assertEqual(c.call("CF.COUNT", "str", "a"), 0)
            self.assertEqual(c.call("CF.EXISTS", "str", "a"), 0)
            self.assertEqual(c.call("CF.DEL", "str", "a"), ReplyError("Not found"))
            self.assertEqual(c3.call("CF.MEXISTS", "str", "a"), [False])
            self.assertEqual(c.call("CF.ADD", "str", "a").message[:9], "WRONGTYPE")
            self.assertEqual(c.call("CF.COMPACT", "nokey"), ReplyError("Cuckoo filter was not found"))
            # An empty filter has nothing to dump.
            c.ok("CF.RESERVE", "empty", "1000")
            self.assertEqual(c.call("CF.SCANDUMP", "empty", 0), [0, None])

    def test_maximum_expansions_refuses_the_whole_insert(self):
        with Server(["CF_MAX_EXPANSIONS", "2"], fmt=None) as server, server.client() as c:
            c.ok("CF.RESERVE", "c", "8", "BUCKETSIZE", "2")
            added = 0
            while c.call("CF.INFO", "c")[5] < 2:
                c.call("CF.ADD", "c", "item%d" % added)
                added += 1
            items = c.call("CF.INFO", "c")[7]
            self.assertEqual(c.call("CF.INSERT", "c", "ITEMS", "a", "b"), ReplyError("Maximum expansions reached"))
            self.assertEqual(c.call("CF.ADD", "c", "a"), ReplyError("Maximum expansions reached"))
            self.assertEqual(c.call("CF.INFO", "c")[7], items)  # nothing went in

    def test_compact_and_deletes(self):
        with self.server.client() as c:
            c.ok("CF.RESERVE", "c", "64", "EXPANSION", "1")
            c.pipeline([["CF.ADD", "c", "i%d" % i] for i in range(200)])
            filters = c.call("CF.INFO", "c")[5]
            self.assertGreater(filters, 1)
            c.pipeline([["CF.DEL", "c", "i%d" % i] for i in range(0, 200, 2)])
            self.assertEqual(c.call("CF.COMPACT", "c"), Simple(b"OK"))
            self.assertLessEqual(c.call("CF.INFO", "c")[5], filters)
            self.assertTrue(all(c.call("CF.MEXISTS", "c", *["i%d" % i for i in range(1, 200, 2)])))

    def test_bloom_insert_and_nonscaling(self):
        with self.server.client() as c:
            # NOCREATE with CAPACITY/ERROR is accepted (and the key must exist).
            self.assertEqual(c.call("BF.INSERT", "b", "NOCREATE", "CAPACITY", "10", "ERROR", "0.1", "ITEMS", "a"),
                             ReplyError("ERR not found"))
            c.ok("BF.RESERVE", "ns", "0.01", "10", "NONSCALING")
            reply = c.call("BF.MADD", "ns", *["n%d" % i for i in range(30)])
            self.assertEqual(reply[-1], ReplyError("ERR non scaling filter is full"))
            self.assertLess(len(reply), 30)
            self.assertEqual(c.call("BF.INFO", "ns", "EXPANSION"), [None])
            self.assertEqual(c.call("BF.RESERVE", "x", "0.01", "10", "EXPANSION"), ReplyError("ERR no expansion"))
            c.ok("BF.RESERVE", "y", "0.01", "10", "WHATEVER")
            self.assertEqual(c.call("BF.SCANDUMP", "y", "x"), ReplyError("Second argument must be numeric"))

    @time_limit(60)
    def test_aof_rewrite_and_restart(self):
        with Server(fmt=None, extra=["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]) as server:
            with server.client() as c:
                for key in ("bf_scaled", "bf_nonscaling", "cf_bucket3_odd", "cf_default"):
                    c.ok("RESTORE", key, 0, read(key, "dump.bin"))
                c.ok("CF.RESERVE", "cf_empty", "1000")
                self.assertEqual(c.call("BGREWRITEAOF"), Simple(b"Background append only file rewriting started"))
                deadline = time.time() + 20
                while time.time() < deadline:
                    info = c.call("INFO", "persistence").decode()
                    if "aof_rewrite_in_progress:0" in info and "aof_rewrite_scheduled:0" in info:
                        break
                    time.sleep(0.05)
                self.assertIn("aof_last_bgrewrite_status:ok", c.call("INFO", "persistence").decode())
                before = {k: c.call("DUMP", k) for k in c.call("KEYS", "*")}
            server.restart()
            with server.client() as c:
                self.assertEqual({k: c.call("DUMP", k) for k in c.call("KEYS", "*")}, before)
                for key in ("bf_scaled", "cf_default"):
                    self.assertEqual(c.call("DUMP", key), golden_dump(c, key))


if __name__ == "__main__":
    main()
