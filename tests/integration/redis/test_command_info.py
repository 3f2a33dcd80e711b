# SPDX-License-Identifier: Apache-2.0
"""COMMAND INFO shows RedisBloom's command tips, and BF.DEBUG / CF.DEBUG answer as RedisBloom's.

RedisBloom (src/cmd_info/bf_info.c and cf_info.c, v8.9.80) gives BF.INFO, BF.DEBUG,
BF.SCANDUMP, CF.INFO, CF.DEBUG and CF.SCANDUMP the tip "dont_cache" (their replies
describe the filter, so client-side caches must not keep them); the other commands
have none.

COMMAND DOCS lists each BF.* / CF.* command's arguments as RedisBloom 8 declares them
(RedisBloom's tests/flow/test_docs_help.py, v8.9.80): names, types, tokens, flags and
nesting; TBF.* (bloomkit's own) in the same style. Each argument is written below as (name, type, token, flags, sub-arguments).
"""

import unittest

from harness import Server, main, time_limit

DONT_CACHE = {"bf.info", "bf.debug", "bf.scandump", "cf.info", "cf.debug", "cf.scandump"}
OTHERS = ["bf.reserve", "bf.add", "bf.madd", "bf.insert", "bf.exists", "bf.mexists", "bf.card", "bf.loadchunk",
          "cf.reserve", "cf.add", "cf.addnx", "cf.insert", "cf.insertnx", "cf.exists", "cf.mexists", "cf.count",
          "cf.del", "cf.compact", "cf.loadchunk"]

OPT = ("optional",)
MULTI = ("multiple",)


def a(name, kind, token=None, flags=(), sub=None):
    return (name, kind, token, tuple(flags), sub)


KEY = a("key", "key")
ITEM = a("item", "string")
ITEMS = a("item", "string", flags=MULTI)


def option(name, token, kind="integer"):
    """[TOKEN value]: an optional block carrying the token, holding one value."""
    return a(name, "block", token, OPT, [a(name, kind)])


SCANDUMP = [KEY, a("iterator", "integer")]
LOADCHUNK = [KEY, a("iterator", "integer"), a("data", "string")]
CF_INSERT = [KEY, a("capacity", "block", None, OPT, [a("capacity", "pure-token", "CAPACITY"), a("capacity", "integer")]),
             a("nocreate", "pure-token", "NOCREATE", OPT), a("items", "pure-token", "ITEMS"), ITEMS]
ARGUMENTS = {
    "bf.reserve": [KEY, a("error_rate", "double"), a("capacity", "integer"), option("expansion", "EXPANSION"),
                   a("nonscaling", "pure-token", "NONSCALING", OPT)],
    "bf.add": [KEY, ITEM],
    "bf.madd": [KEY, ITEMS],
    "bf.insert": [KEY, option("capacity", "CAPACITY"), option("error", "ERROR", "double"),
                  option("expansion", "EXPANSION"), a("nocreate", "pure-token", "NOCREATE", OPT),
                  a("nonscaling", "pure-token", "NONSCALING", OPT), a("items", "pure-token", "ITEMS"), ITEMS],
    "bf.exists": [KEY, ITEM],
    "bf.mexists": [KEY, ITEMS],
    "bf.info": [KEY, a("single_value", "oneof", None, OPT,
                       [a(n.lower(), "pure-token", n) for n in ("CAPACITY", "SIZE", "FILTERS", "ITEMS", "EXPANSION")])],
    "bf.card": [KEY],
    "bf.debug": [KEY],
    "bf.scandump": SCANDUMP,
    "bf.loadchunk": LOADCHUNK,
    "cf.reserve": [KEY, a("capacity", "integer"), option("bucketsize", "BUCKETSIZE"),
                   option("maxiterations", "MAXITERATIONS"), option("expansion", "EXPANSION")],
    "cf.add": [KEY, ITEM],
    "cf.addnx": [KEY, ITEM],
    "cf.insert": CF_INSERT,
    "cf.insertnx": CF_INSERT,
    "cf.exists": [KEY, ITEM],
    "cf.mexists": [KEY, ITEMS],
    "cf.count": [KEY, ITEM],
    "cf.del": [KEY, ITEM],
    "cf.info": [KEY],
    "cf.debug": [KEY],
    "cf.scandump": SCANDUMP,
    "cf.loadchunk": LOADCHUNK,
    # bloomkit's own (docs/REDIS.md): TBF.RESERVE key error_rate capacity WINDOW seconds
    # [GENERATIONS g] [SIZING ANY|STEADY] [AT ms], TBF.MADDAT key ms item [item ...], the rest as for BF.
    "tbf.reserve": [KEY, a("error_rate", "double"), a("capacity", "integer"),
                    a("window", "block", "WINDOW", (), [a("seconds", "integer")]),
                    option("generations", "GENERATIONS"),
                    a("sizing", "oneof", "SIZING", OPT, [a("any", "pure-token", "ANY"), a("steady", "pure-token", "STEADY")]),
                    a("at", "block", "AT", OPT, [a("ms", "integer")])],
    "tbf.add": [KEY, ITEM],
    "tbf.madd": [KEY, ITEMS],
    "tbf.maddat": [KEY, a("ms", "integer"), ITEMS],
    "tbf.exists": [KEY, ITEM],
    "tbf.mexists": [KEY, ITEMS],
    "tbf.info": [KEY],
    "tbf.card": [KEY],
    "tbf.scandump": SCANDUMP,
    "tbf.loadchunk": LOADCHUNK,
}


def pairs(flat):
    return {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}


def parse_arguments(docs):
    out = []
    for entry in docs:
        f = pairs(entry)
        token = f.get("token")
        sub = f.get("arguments")
        out.append((f["name"].decode(), f["type"].decode(), token.decode() if token is not None else None,
                    tuple(x.decode() for x in f.get("flags", [])), parse_arguments(sub) if sub is not None else None))
        if f["type"] == b"key":
            assert f["key_spec_index"] == 0, entry
    return out


class CommandInfoTest(unittest.TestCase):
    @time_limit(30)
    def test_tips(self):
        with Server(fmt=None) as s, s.client() as c:
            for name in sorted(DONT_CACHE) + OTHERS:
                info = c.call("COMMAND", "INFO", name)[0]
                self.assertEqual(info[0], name.encode())
                tips = info[7]  # name, arity, flags, first, last, step, ACL categories, tips, ...
                self.assertEqual(tips, [b"dont_cache"] if name in DONT_CACHE else [], name)

    @time_limit(30)
    def test_docs_arguments(self):
        with Server(fmt=None) as s, s.client() as c:
            for name, expected in ARGUMENTS.items():
                reply = c.call("COMMAND", "DOCS", name)
                self.assertEqual(reply[0], name.encode())
                docs = pairs(reply[1])
                self.assertEqual(parse_arguments(docs.get("arguments", [])), expected, name)
                # RedisBloom's prose is not carried over; its test checks these only when present.
                for field in ("summary", "complexity", "since"):
                    self.assertNotIn(field, docs, name)
            # CF.COMPACT is bloomkit's own: no declared argument list.
            self.assertNotIn("arguments", pairs(c.call("COMMAND", "DOCS", "cf.compact")[1]))

    @time_limit(30)
    def test_debug_replies(self):
        with Server(fmt=None) as s, s.client() as c:
            c.ok("BF.RESERVE", "b", "0.01", "10")
            c.call("BF.MADD", "b", *["i%d" % i for i in range(15)])
            # RedisBloom's bloom_init: bits = entries * -ln(error) / ln(2)^2, rounded up to
            # 64-bit words; hashes = ceil(ln 2 * bits per entry). Link 0: 10 items at 0.005
            # (110 bits -> 128), link 1: 20 at 0.0025 (249 bits -> 256).
            self.assertEqual(c.call("BF.DEBUG", "b"), [
                b"size:15",
                b"bytes:16 bits:128 hashes:8 hashwidth:64 capacity:10 size:10 ratio:0.005",
                b"bytes:32 bits:256 hashes:9 hashwidth:64 capacity:20 size:5 ratio:0.0025"])
            c.ok("CF.RESERVE", "c", "100", "BUCKETSIZE", "4", "MAXITERATIONS", "7", "EXPANSION", "2")
            c.call("CF.ADD", "c", "x")
            c.call("CF.ADD", "c", "y")
            c.call("CF.DEL", "c", "y")
            self.assertEqual(c.call("CF.DEBUG", "c"),
                             b"bktsize:4 buckets:32 items:1 deletes:1 filters:1 max_iterations:7 expansion:2")


if __name__ == "__main__":
    main()
