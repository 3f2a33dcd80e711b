# SPDX-License-Identifier: Apache-2.0
"""Argument and sizing errors name their real cause, in both filter formats.

RangeTableTest: every value RedisBloom 8 refuses in a BF.*/CF.* command's arguments
(read from its src/rebloom.c, v8.8.0, one command at a time), and the reply text it
gives. On RedisBloom-format keys bloomkit.so must give exactly that text (its own
detail goes to the server log); native filters, whose ranges differ, give a reply that
starts with it (or with the same sentence and their own bounds).

RedisBloom (src/rebloom.c, deps/bloom/bloom.c) answers BF.RESERVE k 5e-324 1000
with "ERR could not create filter": its first link gets half the rate, which rounds to
0. It accepts 1e-300 (998 hashes). bloomkit's native stages take at most 64 hashes, so
there the reply starts with the same text and names the rate, never "filter too large".
"""

import unittest

from harness import ReplyError, Server, Simple, main, time_limit


WRONG_ARITY = "ERR wrong number of arguments"
BAD_RATE = "ERR error rate must be in the range (0.000000, 1.000000)"
CAPACITY = "ERR capacity must be in the range [1, 1073741824]"
NATIVE_CAPACITY = "ERR capacity must be in the range [1, 9223372036854775807]"
EXPANSION = "ERR expansion must be in the range [0, 32768]"
NATIVE_EXPANSION = "ERR expansion must be in the range [0, 1048576]"
MAXITER = "MAXITERATIONS: value must be in the range [1, 65535]"
BUCKET = "BUCKETSIZE: value must be in the range [1, 255]"
CF_EXPANSION = "EXPANSION: value must be in the range [0, 32768]"
CF_CAPACITY = "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]"
CF_INSERT_CAPACITY = "Capacity must be in the range [cf-bucket-size * 2, 1073741824]"
BIG = "1073741825"  # 2^30 + 1, past RedisBloom 8's capacity limit

# (command and arguments, RedisBloom 8's reply, the native reply's start: None for the
# same text, "" for a value native filters accept or size differently). Keys: bf and cf
# exist (one item each), n does not. Numbers follow Redis' parsers: "inf" is a double
# (then out of range), "1e400" and "1e-400" are not (they overflow or underflow), nor
# is "007".
RANGE_TABLE = [
    # BF.RESERVE key error_rate capacity [EXPANSION e] [NONSCALING]
    (("BF.RESERVE", "n", "0.01"), WRONG_ARITY, None),
    (("BF.RESERVE", "n", "0.01", "100", "EXPANSION", "2", "NONSCALING", "x"), WRONG_ARITY, None),
    (("BF.RESERVE", "n", "x", "100"), "ERR bad error rate", None),
    (("BF.RESERVE", "n", "nan", "100"), "ERR bad error rate", None),
    (("BF.RESERVE", "n", "1e-400", "100"), "ERR bad error rate", None),
    (("BF.RESERVE", "n", "1e400", "100"), "ERR bad error rate", None),
    (("BF.RESERVE", "n", "0", "100"), BAD_RATE, None),
    (("BF.RESERVE", "n", "1", "100"), BAD_RATE, None),
    (("BF.RESERVE", "n", "-0.5", "100"), BAD_RATE, None),
    (("BF.RESERVE", "n", "1.5", "100"), BAD_RATE, None),
    (("BF.RESERVE", "n", "inf", "100"), BAD_RATE, None),
    (("BF.RESERVE", "n", "0.01", "x"), "ERR bad capacity", None),
    (("BF.RESERVE", "n", "0.01", "1.5"), "ERR bad capacity", None),
    (("BF.RESERVE", "n", "0.01", "007"), "ERR bad capacity", None),
    (("BF.RESERVE", "n", "0.01", "99999999999999999999"), "ERR bad capacity", None),
    (("BF.RESERVE", "n", "0.01", "0"), CAPACITY, NATIVE_CAPACITY),
    (("BF.RESERVE", "n", "0.01", "-5"), CAPACITY, NATIVE_CAPACITY),
    (("BF.RESERVE", "n", "0.01", BIG), CAPACITY, ""),
    (("BF.RESERVE", "n", "0.01", "100", "EXPANSION"), "ERR no expansion", None),
    (("BF.RESERVE", "n", "0.01", "100", "EXPANSION", "x"), "ERR bad expansion", None),
    (("BF.RESERVE", "n", "0.01", "100", "EXPANSION", "-1"), EXPANSION, NATIVE_EXPANSION),
    (("BF.RESERVE", "n", "0.01", "100", "EXPANSION", "32769"), EXPANSION, ""),
    (("BF.RESERVE", "n", "0.01", "100", "NONSCALING", "EXPANSION", "2"), "Nonscaling filters cannot expand", None),
    (("BF.RESERVE", "n", "0.01", "100", "EXPANSION", "2", "NONSCALING"), "Nonscaling filters cannot expand", None),
    (("BF.RESERVE", "n", "0.01", "100", "NONSCALING", "EXPANSION", "-1"), "Nonscaling filters cannot expand", None),
    (("BF.RESERVE", "bf", "0.01", "100"), "ERR item exists", None),
    # BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING] ITEMS ...
    (("BF.INSERT", "n", "ITEMS"), WRONG_ARITY, None),
    (("BF.INSERT", "n", "CAPACITY", "100", "ITEMS"), WRONG_ARITY, None),
    (("BF.INSERT", "n", "CAPACITY"), WRONG_ARITY, None),
    (("BF.INSERT", "n", "ERROR", "x", "ITEMS", "a"), "Bad error rate", None),
    (("BF.INSERT", "n", "ERROR", "1e400", "ITEMS", "a"), "Bad error rate", None),
    (("BF.INSERT", "n", "ERROR", "0", "ITEMS", "a"), "Bad error rate", None),
    (("BF.INSERT", "n", "ERROR", "1", "ITEMS", "a"), "Bad error rate", None),
    (("BF.INSERT", "n", "ERROR", "inf", "ITEMS", "a"), "Bad error rate", None),
    (("BF.INSERT", "n", "CAPACITY", "x", "ITEMS", "a"), "Bad capacity", None),
    (("BF.INSERT", "n", "CAPACITY", "0", "ITEMS", "a"), "Bad capacity", None),
    (("BF.INSERT", "n", "CAPACITY", "-1", "ITEMS", "a"), "Bad capacity", None),
    (("BF.INSERT", "n", "CAPACITY", BIG, "ITEMS", "a"), "Bad capacity", ""),
    (("BF.INSERT", "n", "EXPANSION", "x", "ITEMS", "a"), "Bad expansion", None),
    (("BF.INSERT", "n", "EXPANSION", "-1", "ITEMS", "a"), "Bad expansion", None),
    (("BF.INSERT", "n", "EXPANSION", "32769", "ITEMS", "a"), "Bad expansion", ""),
    (("BF.INSERT", "n", "FOO", "ITEMS", "a"), "Unknown argument received", None),
    (("BF.INSERT", "n", "NOCREATE", "ITEMS", "a"), "ERR not found", None),
    # BF.ADD / MADD / EXISTS / MEXISTS / CARD / INFO / SCANDUMP / LOADCHUNK
    (("BF.ADD", "n"), WRONG_ARITY, None),
    (("BF.ADD", "n", "a", "b"), WRONG_ARITY, None),
    (("BF.MADD", "n"), WRONG_ARITY, None),
    (("BF.EXISTS", "n"), WRONG_ARITY, None),
    (("BF.MEXISTS", "n"), WRONG_ARITY, None),
    (("BF.CARD", "n", "x"), WRONG_ARITY, None),
    (("BF.INFO", "bf", "FOO"), "Invalid information value", None),
    (("BF.INFO", "n"), "ERR not found", None),
    (("BF.SCANDUMP", "bf", "x"), "Second argument must be numeric", None),
    (("BF.SCANDUMP", "n", "0"), "ERR not found", None),
    (("BF.LOADCHUNK", "n", "x", "data"), "ERR Second argument must be numeric", None),
    # CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]
    (("CF.RESERVE", "n"), WRONG_ARITY, None),
    (("CF.RESERVE", "n", "100", "BUCKETSIZE"), WRONG_ARITY, None),
    (("CF.RESERVE", "n", "x"), "Bad capacity", None),
    (("CF.RESERVE", "n", "3"), CF_CAPACITY, None),
    (("CF.RESERVE", "n", "0"), CF_CAPACITY, None),
    (("CF.RESERVE", "n", "-5"), CF_CAPACITY, None),
    (("CF.RESERVE", "n", BIG), CF_CAPACITY, ""),
    (("CF.RESERVE", "n", "7", "BUCKETSIZE", "4"), CF_CAPACITY, None),
    (("CF.RESERVE", "n", "100", "BUCKETSIZE", "x"), "Couldn't parse BUCKETSIZE", None),
    (("CF.RESERVE", "n", "100", "BUCKETSIZE", "0"), BUCKET, None),
    (("CF.RESERVE", "n", "100", "BUCKETSIZE", "-1"), BUCKET, None),
    (("CF.RESERVE", "n", "1000", "BUCKETSIZE", "256"), BUCKET, None),
    (("CF.RESERVE", "n", "100", "MAXITERATIONS", "x"), "Couldn't parse MAXITERATIONS", None),
    (("CF.RESERVE", "n", "100", "MAXITERATIONS", "0"), MAXITER, None),
    (("CF.RESERVE", "n", "100", "MAXITERATIONS", "-1"), MAXITER, None),
    (("CF.RESERVE", "n", "100", "MAXITERATIONS", "65536"), MAXITER, None),
    (("CF.RESERVE", "n", "100", "EXPANSION", "x"), "Couldn't parse EXPANSION", None),
    (("CF.RESERVE", "n", "100", "EXPANSION", "-1"), CF_EXPANSION, None),
    (("CF.RESERVE", "n", "100", "EXPANSION", "32769"), CF_EXPANSION, None),
    (("CF.RESERVE", "cf", "100"), "ERR item exists", None),
    # CF.INSERT / CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS ...
    (("CF.INSERT", "n", "ITEMS"), WRONG_ARITY, None),
    (("CF.INSERT", "n", "CAPACITY", "100", "ITEMS"), WRONG_ARITY, None),
    (("CF.INSERT", "n", "CAPACITY", "x", "ITEMS", "a"), "Bad capacity", None),
    (("CF.INSERT", "n", "CAPACITY", "3", "ITEMS", "a"), CF_INSERT_CAPACITY, None),
    (("CF.INSERT", "n", "CAPACITY", "-1", "ITEMS", "a"), CF_INSERT_CAPACITY, None),
    (("CF.INSERT", "n", "CAPACITY", BIG, "ITEMS", "a"), CF_INSERT_CAPACITY, ""),
    (("CF.INSERT", "n", "FOO", "ITEMS", "a"), "Unknown argument received", None),
    (("CF.INSERT", "n", "NOCREATE", "ITEMS", "a"), "ERR not found", None),
    (("CF.INSERTNX", "n", "CAPACITY", "x", "ITEMS", "a"), "Bad capacity", None),
    (("CF.INSERTNX", "n", "CAPACITY", "3", "ITEMS", "a"), CF_INSERT_CAPACITY, None),
    (("CF.INSERTNX", "n", "FOO", "ITEMS", "a"), "Unknown argument received", None),
    (("CF.INSERTNX", "n", "NOCREATE", "ITEMS", "a"), "ERR not found", None),
    # CF.ADD / ADDNX / EXISTS / MEXISTS / COUNT / DEL / INFO / SCANDUMP / LOADCHUNK
    (("CF.ADD", "n"), WRONG_ARITY, None),
    (("CF.ADDNX", "n", "a", "b"), WRONG_ARITY, None),
    (("CF.EXISTS", "n"), WRONG_ARITY, None),
    (("CF.MEXISTS", "n"), WRONG_ARITY, None),
    (("CF.COUNT", "n"), WRONG_ARITY, None),
    (("CF.DEL", "n", "a"), "Not found", None),
    (("CF.INFO", "n"), "ERR not found", None),
    (("CF.SCANDUMP", "cf", "x"), "Invalid position", None),
    (("CF.SCANDUMP", "cf", "-1"), "Invalid position", None),
    (("CF.LOADCHUNK", "n", "0", "data"), "Invalid position", None),
    (("CF.LOADCHUNK", "n", "x", "data"), "Invalid position", None),
]

# Values RedisBloom accepts but a native filter cannot have: refused under FORMAT
# native with bloomkit's text, accepted under FORMAT redisbloom.
NATIVE_ONLY_REFUSALS = [
    (("CF.RESERVE", "n", "1000", "BUCKETSIZE", "3"), "Couldn't parse BUCKETSIZE: native cuckoo filters take 2, 4 or 8"),
    (("BF.RESERVE", "n", "1e-300", "100"), "ERR could not create filter"),
]


class RangeTableTest(unittest.TestCase):
    def run_table(self, fmt):
        with Server(fmt=fmt) as server, server.client() as c:
            c.ok("BF.ADD", "bf", "a")
            c.ok("CF.ADD", "cf", "a")
            mismatches = []
            for args, expected, native in RANGE_TABLE:
                if fmt == "native" and native == "":
                    continue
                reply = c.call(*args)
                # RedisBloom's text exactly on its keys; native filters may add ": detail".
                if fmt == "redisbloom" and expected != WRONG_ARITY:
                    ok = reply == ReplyError(expected)
                else:  # Redis' arity text names the command
                    ok = isinstance(reply, ReplyError) and reply.message.startswith(native or expected)
                if not ok:
                    mismatches.append("%s -> %r, RedisBloom 8: %r" % (" ".join(args), reply, expected))
                self.assertEqual(c.call("EXISTS", "n"), 0, args)
            self.assertEqual(mismatches, [], "\n".join(mismatches))
            for args, expected in NATIVE_ONLY_REFUSALS:
                reply = c.call(*args)
                if fmt == "native":
                    self.assertIsInstance(reply, ReplyError, args)
                    self.assertTrue(reply.message.startswith(expected), (args, reply))
                else:
                    self.assertEqual(reply, Simple(b"OK"), args)
                    c.call("DEL", "n")

    @time_limit(60)
    def test_native(self):
        self.run_table("native")

    @time_limit(60)
    def test_redisbloom_format(self):
        self.run_table("redisbloom")


class ErrorCauseTest(unittest.TestCase):
    def expect(self, reply, prefix, *parts):
        self.assertIsInstance(reply, ReplyError, reply)
        self.assertTrue(reply.message.startswith(prefix), "%r does not start with %r" % (reply.message, prefix))
        for part in parts:
            self.assertIn(part, reply.message)
        self.assertNotIn("too large", reply.message)

    @time_limit(30)
    def test_native_rates_too_small_for_any_stage(self):
        with Server() as server, server.client() as c:
            self.expect(c.call("BF.RESERVE", "k", "5e-324", "1000"), "ERR could not create filter",
                        "5e-324", "too small", "rounds to 0")
            self.expect(c.call("BF.RESERVE", "k", "1e-300", "1000"), "ERR could not create filter",
                        "1e-300", "998 hashes", "more than the maximum of 64")
            self.expect(c.call("BF.INSERT", "k", "ERROR", "1e-300", "ITEMS", "a"), "ERR could not create filter",
                        "998 hashes")
            self.expect(c.call("CBF.RESERVE", "c", "1e-300", "100"), "ERR could not create filter",
                        "997 hashes")
            self.assertEqual(c.call("EXISTS", "k", "c"), 0)
            c.ok("BF.RESERVE", "ok", "1e-19", "1000")

    @time_limit(30)
    def test_native_chain_that_cannot_grow_is_full_not_too_large(self):
        """Error 0.5, expansion 1: stage 63 would need 65 hashes, after 63 items in 664 bytes."""
        with Server() as server, server.client() as c:
            c.ok("BF.RESERVE", "e", "0.5", "1", "EXPANSION", "1")
            replies = [c.call("BF.ADD", "e", "i%d" % i) for i in range(80)]
            errors = [r for r in replies if isinstance(r, ReplyError)]
            self.assertTrue(errors, replies)
            self.expect(errors[0], "ERR problem inserting into filter", "stage 63", "65 hashes")
            self.assertEqual(c.call("BF.INFO", "e", "FILTERS"), [63])
            madd = c.call("BF.MADD", "e", "x1", "x2")
            self.expect(madd[-1], "ERR problem inserting into filter", "65 hashes")
            # A NONSCALING filter that fills up keeps RedisBloom's own text.
            c.ok("BF.RESERVE", "n", "0.01", "2", "NONSCALING")
            self.assertEqual(c.call("BF.MADD", "n", "a", "b", "c")[-1], ReplyError("ERR non scaling filter is full"))

    @time_limit(30)
    def test_redisbloom_format_answers_as_redisbloom(self):
        with Server(fmt="redisbloom", extra=["--loglevel", "verbose"]) as server, server.client() as c:
            # RedisBloom's text alone; the cause is in the log.
            self.assertEqual(c.call("BF.RESERVE", "k", "5e-324", "1000"), ReplyError("ERR could not create filter"))
            self.assertIn("'BF.RESERVE': ERR could not create filter: error rate 5e-324 is too small", server.log())
            self.assertIn("rounds to 0", server.log())
            self.assertEqual(c.call("BF.INSERT", "k", "CAPCITY", "10", "ITEMS", "a"),
                             ReplyError("Unknown argument received"))
            self.assertIn("'BF.INSERT': Unknown argument received: 'CAPCITY' (valid: CAPACITY", server.log())
            self.assertEqual(c.call("EXISTS", "k"), 0)
            # RedisBloom sizes 998 hashes without complaint, and so does its format here.
            c.ok("BF.RESERVE", "k", "1e-300", "1000")
            self.assertEqual(c.call("BF.ADD", "k", "a"), 1)
            self.assertEqual(c.call("BF.EXISTS", "k", "a"), 1)



class RedisBloom8RulesTest(unittest.TestCase):
    """RedisBloom 8: EXPANSION 0 is NONSCALING; rates above 0.25 count as 0.25."""

    def check(self, fmt):
        with Server(fmt=fmt) as server, server.client() as c:
            c.ok("BF.RESERVE", "r", "0.01", "2", "EXPANSION", "0")
            self.assertEqual(c.call("BF.INFO", "r", "EXPANSION"), [None])
            c.ok("BF.RESERVE", "both", "0.01", "2", "NONSCALING", "EXPANSION", "0")
            self.assertEqual(c.call("BF.INSERT", "i", "CAPACITY", "2", "EXPANSION", "0", "ITEMS", "a", "b"), [1, 1])
            for key in ("r", "i"):
                self.assertEqual(c.call("BF.MADD", key, "x", "y", "z")[-1], ReplyError("ERR non scaling filter is full"))
                self.assertEqual(c.call("BF.INFO", key, "FILTERS"), [1])
            c.ok("CF.RESERVE", "c", "4", "BUCKETSIZE", "2", "EXPANSION", "0")
            self.assertEqual(c.call("CF.INFO", "c")[13], 0)

    @time_limit(30)
    def test_redisbloom_format(self):
        self.check("redisbloom")
        with Server(fmt="redisbloom") as server, server.client() as c:
            # A RedisBloom chain made with EXPANSION 0 keeps 0 as its growth (header bytes 16..19).
            c.ok("BF.RESERVE", "r", "0.01", "2", "EXPANSION", "0")
            header = c.call("BF.SCANDUMP", "r", "0")[1]
            self.assertEqual(header[16:20], b"\0\0\0\0")
            # 0.5 is taken as 0.25: the same link as a filter reserved at 0.25.
            c.ok("BF.RESERVE", "half", "0.5", "1000")
            c.ok("BF.RESERVE", "quarter", "0.25", "1000")
            self.assertEqual(c.call("BF.SCANDUMP", "half", "0"), c.call("BF.SCANDUMP", "quarter", "0"))

    @time_limit(30)
    def test_native(self):
        self.check("native")



class ChunkTextsTest(unittest.TestCase):
    """BF/CF.LOADCHUNK on RedisBloom-format keys answer RedisBloom's texts, nothing after them."""

    @time_limit(30)
    def test_loadchunk_texts(self):
        with Server(fmt="redisbloom", extra=["--loglevel", "verbose"]) as server, server.client() as c:
            c.ok("BF.RESERVE", "b", "0.01", "1000")
            c.call("BF.ADD", "b", "x")
            header = c.call("BF.SCANDUMP", "b", "0")[1]
            it, data = c.call("BF.SCANDUMP", "b", "1")
            # Headers RedisBloom cannot use: too short, or a link count of 0.
            self.assertEqual(c.call("BF.LOADCHUNK", "n", "1", b"xxxx"), ReplyError("ERR received bad data"))
            self.assertEqual(c.call("BF.LOADCHUNK", "n", "1", header[:8] + b"\0" * 4 + header[12:]),
                             ReplyError("ERR received bad data"))
            self.assertEqual(c.call("EXISTS", "n"), 0)
            c.ok("BF.LOADCHUNK", "n", "1", header)
            # An iterator smaller than the chunk, a start outside every link, a chunk past its link.
            self.assertEqual(c.call("BF.LOADCHUNK", "n", "2", data), ReplyError("ERR received bad data"))
            self.assertEqual(c.call("BF.LOADCHUNK", "n", str(10 ** 9), b"z"),
                             ReplyError("ERR invalid offset - no link found"))
            self.assertEqual(c.call("BF.LOADCHUNK", "n", str(it + 8), data + b"\0" * 8),
                             ReplyError("ERR invalid chunk - Too big for current filter"))
            c.ok("BF.LOADCHUNK", "n", str(it), data)
            self.assertEqual(c.call("BF.EXISTS", "n", "x"), 1)
            self.assertIn("'BF.LOADCHUNK': ERR invalid chunk - Too big for current filter: chunk of", server.log())

            c.ok("CF.RESERVE", "c", "100")
            c.call("CF.ADD", "c", "x")
            cf_header = c.call("CF.SCANDUMP", "c", "0")[1]
            cf_it, cf_data = c.call("CF.SCANDUMP", "c", "1")
            self.assertEqual(c.call("CF.LOADCHUNK", "m", "1", cf_header[:37]), ReplyError("Invalid header"))
            bad_bucket = cf_header[:32] + b"\x00\x01" + cf_header[34:]  # bucket size 256
            self.assertEqual(c.call("CF.LOADCHUNK", "m", "1", bad_bucket), ReplyError("Couldn't create filter!"))
            c.ok("CF.LOADCHUNK", "m", "1", cf_header)
            self.assertEqual(c.call("CF.LOADCHUNK", "m", str(10 ** 9), cf_data), ReplyError("Couldn't load chunk!"))
            c.ok("CF.LOADCHUNK", "m", str(cf_it), cf_data)
            self.assertEqual(c.call("CF.EXISTS", "m", "x"), 1)


if __name__ == "__main__":
    main()
