# SPDX-License-Identifier: Apache-2.0
"""Every BF.*, CF.*, CBF.* command: replies and errors, under RESP2 and RESP3.

RedisBloom 2.8 answers booleans under HELLO 3 where RESP2 has integers 0/1, and maps
where RESP2 has flat arrays; these tests check the reply *types*, not just values.
"""

import unittest

from harness import ReplyError, Server, Simple, main, time_limit

WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


class Shapes:
    """Assertions on reply types for one protocol."""

    def __init__(self, test, protocol):
        self.t = test
        self.p = protocol

    def boolean(self, reply, expected):
        if self.p == 3:
            self.t.assertIs(type(reply), bool, reply)
        else:
            self.t.assertIs(type(reply), int, reply)
        self.t.assertEqual(bool(reply), expected)

    def booleans(self, reply, expected):
        self.t.assertIsInstance(reply, list)
        self.t.assertEqual(len(reply), len(expected), reply)
        for r, e in zip(reply, expected):
            self.boolean(r, e)

    def info(self, reply):
        """An INFO reply as an ordered list of (name, value)."""
        if self.p == 3:
            self.t.assertIsInstance(reply, dict)
            return list(reply.items())
        self.t.assertIsInstance(reply, list)
        self.t.assertEqual(len(reply) % 2, 0)
        return list(zip(reply[0::2], reply[1::2]))

    def field(self, reply):
        """The value of BF.INFO key FIELD: a one-entry map under RESP3, a list under RESP2."""
        if self.p == 3:
            self.t.assertIsInstance(reply, dict)
            self.t.assertEqual(len(reply), 1, reply)
            return list(reply.values())[0]
        self.t.assertIsInstance(reply, list)
        self.t.assertEqual(len(reply), 1, reply)
        return reply[0]

    def error(self, reply, prefix):
        self.t.assertIsInstance(reply, ReplyError, reply)
        self.t.assertTrue(reply.message.startswith(prefix), "%r does not start with %r" % (reply.message, prefix))


class CommandTest(unittest.TestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def setUp(self):
        with self.server.client() as c:
            c.ok("FLUSHALL")

    def each_protocol(self, body):
        for protocol in (2, 3):
            with self.subTest(protocol=protocol):
                with self.server.client(protocol) as c:
                    c.ok("FLUSHALL")
                    body(c, Shapes(self, protocol))

    @time_limit(30)
    def test_bf_add_exists_madd_mexists(self):
        def body(c, s):
            s.boolean(c.call("BF.ADD", "bf", "a"), True)
            s.boolean(c.call("BF.ADD", "bf", "a"), False)
            s.boolean(c.call("BF.EXISTS", "bf", "a"), True)
            s.boolean(c.call("BF.EXISTS", "bf", "zzz"), False)
            s.boolean(c.call("BF.EXISTS", "missing", "a"), False)
            s.booleans(c.call("BF.MADD", "bf", "b", "c", "a"), [True, True, False])
            s.booleans(c.call("BF.MEXISTS", "bf", "a", "b", "nope"), [True, True, False])
            s.booleans(c.call("BF.MEXISTS", "missing", "a"), [False])
            self.assertEqual(c.call("BF.CARD", "bf"), 3)
            self.assertEqual(c.call("BF.CARD", "missing"), 0)
            # Auto-created with the defaults: capacity 100, expansion 2.
            info = dict(s.info(c.call("BF.INFO", "bf")))
            self.assertEqual(info[b"Capacity"], 100)
            self.assertEqual(info[b"Expansion rate"], 2)

        self.each_protocol(body)

    @time_limit(30)
    def test_bf_reserve_and_info(self):
        def body(c, s):
            self.assertEqual(c.call("BF.RESERVE", "r", "0.001", "1000"), Simple(b"OK"))
            s.error(c.call("BF.RESERVE", "r", "0.001", "1000"), "ERR item exists")
            pairs = s.info(c.call("BF.INFO", "r"))
            self.assertEqual([k for k, _ in pairs],
                             [b"Capacity", b"Size", b"Number of filters", b"Number of items inserted",
                              b"Expansion rate"])
            values = dict(pairs)
            self.assertEqual(values[b"Capacity"], 1000)
            self.assertEqual(values[b"Number of filters"], 1)
            self.assertEqual(values[b"Number of items inserted"], 0)
            self.assertEqual(values[b"Expansion rate"], 2)
            self.assertGreater(values[b"Size"], 1000 * 14 // 8)  # >= 14.4 bits/key at 0.1%
            for field, expected in (("CAPACITY", 1000), ("FILTERS", 1), ("ITEMS", 0), ("EXPANSION", 2)):
                self.assertEqual(s.field(c.call("BF.INFO", "r", field)), expected)
            self.assertEqual(s.field(c.call("BF.INFO", "r", "size")), values[b"Size"])
            s.error(c.call("BF.INFO", "r", "bogus"), "Invalid information value")
            s.error(c.call("BF.INFO", "missing"), "ERR not found")
            # NONSCALING: expansion reported as nil.
            self.assertEqual(c.call("BF.RESERVE", "ns", "0.01", "10", "NONSCALING"), Simple(b"OK"))
            self.assertIsNone(dict(s.info(c.call("BF.INFO", "ns")))[b"Expansion rate"])
            self.assertEqual(s.field(c.call("BF.INFO", "ns", "EXPANSION")), None)
            self.assertEqual(c.call("BF.RESERVE", "ex", "0.01", "10", "EXPANSION", "4"), Simple(b"OK"))
            self.assertEqual(s.field(c.call("BF.INFO", "ex", "EXPANSION")), 4)

        self.each_protocol(body)

    @time_limit(30)
    def test_bf_reserve_argument_errors_name_the_argument(self):
        with self.server.client() as c:
            e = c.call("BF.RESERVE", "k", "abc", "100")
            self.assertIsInstance(e, ReplyError)
            self.assertTrue(e.message.startswith("ERR bad error rate"), e)
            self.assertIn("'abc'", e.message)
            e = c.call("BF.RESERVE", "k", "1.5", "100")
            self.assertTrue(e.message.startswith("ERR error rate must be in the range (0.000000, 1.000000)"), e)
            self.assertIn("1.5", e.message)
            e = c.call("BF.RESERVE", "k", "0", "100")
            self.assertTrue(e.message.startswith("ERR error rate must be in the range (0.000000, 1.000000)"), e)
            e = c.call("BF.RESERVE", "k", "0.01", "x1")
            self.assertTrue(e.message.startswith("ERR bad capacity"), e)
            self.assertIn("'x1'", e.message)
            e = c.call("BF.RESERVE", "k", "0.01", "0")
            self.assertTrue(e.message.startswith("ERR capacity must be in the range [1, "), e)
            e = c.call("BF.RESERVE", "k", "0.01", "100", "EXPANSION")
            self.assertTrue(e.message.startswith("ERR no expansion"), e)
            e = c.call("BF.RESERVE", "k", "0.01", "100", "EXPANSION", "zz")
            self.assertTrue(e.message.startswith("ERR bad expansion"), e)
            e = c.call("BF.RESERVE", "k", "0.01", "100", "EXPANSION", "-1")
            self.assertTrue(e.message.startswith("ERR expansion must be in the range [0, "), e)
            e = c.call("BF.RESERVE", "k", "0.01", "100", "EXPANSION", "2", "NONSCALING")
            self.assertEqual(e.message, "Nonscaling filters cannot expand")
            e = c.call("BF.RESERVE", "k", "0.01", "100", "WHAT")
            self.assertTrue(e.message.startswith("Unknown argument received"), e)
            self.assertIn("'WHAT'", e.message)
            e = c.call("BF.RESERVE", "k", "0.01")
            self.assertTrue(e.message.startswith("ERR wrong number of arguments"), e)
            e = c.call("BF.ADD", "k")
            self.assertTrue(e.message.startswith("ERR wrong number of arguments"), e)
            # Nothing was created by the failed calls.
            self.assertEqual(c.call("EXISTS", "k"), 0)

    @time_limit(30)
    def test_bf_insert(self):
        def body(c, s):
            s.booleans(c.call("BF.INSERT", "ins", "CAPACITY", "1000", "ERROR", "0.001", "EXPANSION", "3",
                              "ITEMS", "a", "b", "a"), [True, True, False])
            self.assertEqual(s.field(c.call("BF.INFO", "ins", "CAPACITY")), 1000)
            self.assertEqual(s.field(c.call("BF.INFO", "ins", "EXPANSION")), 3)
            # Options are ignored for an existing filter.
            s.booleans(c.call("BF.INSERT", "ins", "CAPACITY", "5", "ITEMS", "c"), [True])
            self.assertEqual(s.field(c.call("BF.INFO", "ins", "CAPACITY")), 1000)
            s.error(c.call("BF.INSERT", "nope", "NOCREATE", "ITEMS", "a"), "ERR not found")
            self.assertEqual(c.call("EXISTS", "nope"), 0)
            s.booleans(c.call("BF.INSERT", "ns", "NONSCALING", "ITEMS", "x"), [True])
            self.assertIsNone(s.field(c.call("BF.INFO", "ns", "EXPANSION")))
            s.error(c.call("BF.INSERT", "k", "CAPACITY", "abc", "ITEMS", "a"), "Bad capacity")
            s.error(c.call("BF.INSERT", "k", "ERROR", "abc", "ITEMS", "a"), "Bad error rate")
            s.error(c.call("BF.INSERT", "k", "EXPANSION", "abc", "ITEMS", "a"), "Bad expansion")
            s.error(c.call("BF.INSERT", "k", "ERROR", "2", "ITEMS", "a"), "Bad error rate")
            s.error(c.call("BF.INSERT", "k", "FOO", "ITEMS", "a"), "Unknown argument received")
            s.error(c.call("BF.INSERT", "k", "CAPACITY", "10", "ITEMS"), "ERR wrong number of arguments")
            s.error(c.call("BF.INSERT", "k", "CAPACITY", "10", "a"), "Unknown argument received")
            s.error(c.call("BF.INSERT", "k", "NOCREATE", "CAPACITY", "10", "ERROR", "0.1", "ITEMS", "a"),
                    "ERR not found")

        self.each_protocol(body)

    @time_limit(30)
    def test_wrongtype(self):
        def body(c, s):
            c.ok("SET", "str", "x")
            for cmd in (("BF.ADD", "str", "a"), ("BF.MADD", "str", "a"), ("BF.EXISTS", "str", "a"),
                        ("BF.INFO", "str"), ("BF.CARD", "str"), ("BF.RESERVE", "str", "0.01", "10"),
                        ("BF.INSERT", "str", "ITEMS", "a"), ("BF.SCANDUMP", "str", "0"),
                        ("CF.ADD", "str", "a"), ("CF.EXISTS", "str", "a"), ("CF.INFO", "str"),
                        ("CF.DEL", "str", "a"), ("CF.COUNT", "str", "a"), ("CF.RESERVE", "str", "100"),
                        ("CBF.ADD", "str", "a"), ("CBF.EXISTS", "str", "a"), ("CBF.INFO", "str")):
                reply = c.call(*cmd)
                self.assertEqual(reply, ReplyError(WRONGTYPE), cmd)
            # A filter of one family is the wrong type for another.
            c.call("BF.ADD", "bf", "a")
            self.assertEqual(c.call("CF.ADD", "bf", "a"), ReplyError(WRONGTYPE))
            self.assertEqual(c.call("CBF.ADD", "bf", "a"), ReplyError(WRONGTYPE))
            self.assertEqual(c.call("GET", "bf"), ReplyError(WRONGTYPE))
            self.assertEqual(c.call("TYPE", "bf"), Simple(b"bloomkitB"))

        self.each_protocol(body)

    @time_limit(30)
    def test_nonscaling_full_and_per_item_errors(self):
        def body(c, s):
            c.ok("BF.RESERVE", "full", "0.01", "10", "NONSCALING")
            added = 0
            items = ["item-%d" % i for i in range(200)]
            reply = c.call("BF.MADD", "full", *items)
            # The array ends at the first error, which is in the array.
            self.assertIsInstance(reply[-1], ReplyError)
            self.assertEqual(reply[-1].message, "ERR non scaling filter is full")
            for r in reply[:-1]:
                s.boolean(r, bool(r))
                added += bool(r)
            self.assertEqual(added, 10)
            self.assertEqual(c.call("BF.CARD", "full"), 10)
            self.assertEqual(c.call("BF.ADD", "full", "another-new-item"), ReplyError("ERR non scaling filter is full"))
            reply = c.call("BF.INSERT", "full", "ITEMS", "x-new-1", "x-new-2")
            self.assertEqual(reply, [ReplyError("ERR non scaling filter is full")])
            # Items already in still answer.
            s.boolean(c.call("BF.EXISTS", "full", "item-0"), True)

        self.each_protocol(body)

    @time_limit(30)
    def test_cf_commands(self):
        def body(c, s):
            self.assertEqual(c.call("CF.RESERVE", "cf", "1000"), Simple(b"OK"))
            s.error(c.call("CF.RESERVE", "cf", "1000"), "ERR item exists")
            s.boolean(c.call("CF.ADD", "cf", "a"), True)
            s.boolean(c.call("CF.ADD", "cf", "a"), True)  # duplicates allowed
            s.boolean(c.call("CF.ADDNX", "cf", "a"), False)
            s.boolean(c.call("CF.ADDNX", "cf", "b"), True)
            self.assertEqual(c.call("CF.COUNT", "cf", "a"), 2)
            self.assertEqual(c.call("CF.COUNT", "cf", "zz"), 0)
            self.assertEqual(c.call("CF.COUNT", "missing", "a"), 0)
            s.boolean(c.call("CF.EXISTS", "cf", "b"), True)
            s.boolean(c.call("CF.EXISTS", "cf", "zz"), False)
            s.boolean(c.call("CF.EXISTS", "missing", "zz"), False)
            s.booleans(c.call("CF.MEXISTS", "cf", "a", "zz", "b"), [True, False, True])
            s.boolean(c.call("CF.DEL", "cf", "a"), True)
            s.boolean(c.call("CF.DEL", "cf", "a"), True)
            s.boolean(c.call("CF.DEL", "cf", "a"), False)
            s.error(c.call("CF.DEL", "missing", "a"), "Not found")
            s.booleans(c.call("CF.INSERT", "cf", "ITEMS", "x", "y"), [True, True])
            reply = c.call("CF.INSERTNX", "cf", "ITEMS", "x", "z")
            self.assertEqual(reply, [0, 1])
            self.assertTrue(all(type(r) is int for r in reply))
            s.booleans(c.call("CF.INSERT", "auto", "CAPACITY", "500", "ITEMS", "q"), [True])
            s.error(c.call("CF.INSERT", "nope", "NOCREATE", "ITEMS", "q"), "ERR not found")
            pairs = s.info(c.call("CF.INFO", "cf"))
            self.assertEqual([k for k, _ in pairs],
                             [b"Size", b"Number of buckets", b"Number of filters", b"Number of items inserted",
                              b"Number of items deleted", b"Bucket size", b"Expansion rate", b"Max iterations"])
            v = dict(pairs)
            # a, a, b; two deletes of a; x, y; z (INSERTNX skips x): 4 fingerprints stored.
            self.assertEqual(v[b"Number of items inserted"], 4)
            self.assertEqual(v[b"Number of items deleted"], 2)
            self.assertEqual(v[b"Bucket size"], 2)
            self.assertEqual(v[b"Expansion rate"], 1)
            self.assertEqual(v[b"Max iterations"], 20)
            self.assertEqual(v[b"Number of filters"], 1)
            self.assertTrue(all(type(x) is int for _, x in pairs))
            s.error(c.call("CF.INFO", "missing"), "ERR not found")
            c.ok("CF.RESERVE", "opts", "1000", "BUCKETSIZE", "4", "MAXITERATIONS", "50", "EXPANSION", "2")
            v = dict(s.info(c.call("CF.INFO", "opts")))
            self.assertEqual((v[b"Bucket size"], v[b"Max iterations"], v[b"Expansion rate"]), (4, 50, 2))

        self.each_protocol(body)

    @time_limit(30)
    def test_cf_errors(self):
        with self.server.client() as c:
            for args, prefix in ((("abc",), "Bad capacity"), (("100", "BUCKETSIZE", "x"), "Couldn't parse BUCKETSIZE"),
                                 (("100", "BUCKETSIZE", "0"), "BUCKETSIZE: value must be in the range [1, 255]"),
                                 (("100", "BUCKETSIZE", "3"), "Couldn't parse BUCKETSIZE"),
                                 (("100", "MAXITERATIONS", "x"), "Couldn't parse MAXITERATIONS"),
                                 (("100", "MAXITERATIONS", "0"), "MAXITERATIONS: value must be in the range [1, 65535]"),
                                 (("100", "EXPANSION", "x"), "Couldn't parse EXPANSION"),
                                 (("100", "EXPANSION", "-1"), "EXPANSION: value must be in the range [0, 32768]"),
                                 (("3",), "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]")):
                reply = c.call("CF.RESERVE", "k", *args)
                self.assertIsInstance(reply, ReplyError, args)
                self.assertTrue(reply.message.startswith(prefix), (args, reply))
            self.assertTrue(c.call("CF.RESERVE", "k").message.startswith("ERR wrong number of arguments"))
            self.assertTrue(c.call("CF.RESERVE", "k", "100", "BUCKETSIZE").message.startswith(
                "ERR wrong number of arguments"))
            self.assertEqual(c.call("EXISTS", "k"), 0)
            # A full, non-expanding filter.
            c.ok("CF.RESERVE", "small", "4", "EXPANSION", "0")
            replies = [c.call("CF.ADD", "small", "i%d" % i) for i in range(64)]
            self.assertIn(ReplyError("Filter is full"), replies)
            # Did not fit: -1 under RESP2, false under RESP3 (INSERTNX: -1 under both).
            self.assertIn(-1, c.call("CF.INSERT", "small", "ITEMS", *["j%d" % i for i in range(16)]))
            with self.server.client(protocol=3) as c3:
                did_not_fit = c3.call("CF.INSERT", "small", "ITEMS", *["l%d" % i for i in range(16)])
                self.assertTrue(all(type(x) is bool for x in did_not_fit), did_not_fit)
                self.assertIn(False, did_not_fit)
                self.assertIn(-1, c3.call("CF.INSERTNX", "small", "ITEMS", *["m%d" % i for i in range(16)]))
            self.assertIn(-1, c.call("CF.INSERTNX", "small", "ITEMS", *["k%d" % i for i in range(16)]))

    @time_limit(30)
    def test_cbf_commands(self):
        def body(c, s):
            self.assertEqual(c.call("CBF.RESERVE", "c", "0.01", "1000"), Simple(b"OK"))
            s.error(c.call("CBF.RESERVE", "c", "0.01", "1000"), "ERR item exists")
            s.boolean(c.call("CBF.ADD", "c", "a"), True)
            s.boolean(c.call("CBF.ADD", "c", "a"), False)
            self.assertEqual(c.call("CBF.COUNT", "c", "a"), 2)
            s.boolean(c.call("CBF.EXISTS", "c", "a"), True)
            s.boolean(c.call("CBF.DEL", "c", "a"), True)
            s.boolean(c.call("CBF.EXISTS", "c", "a"), True)
            s.boolean(c.call("CBF.DEL", "c", "a"), True)
            s.boolean(c.call("CBF.EXISTS", "c", "a"), False)
            s.boolean(c.call("CBF.DEL", "c", "a"), False)
            self.assertEqual(c.call("CBF.COUNT", "c", "a"), 0)
            s.boolean(c.call("CBF.EXISTS", "missing", "a"), False)
            s.error(c.call("CBF.DEL", "missing", "a"), "ERR not found")
            s.error(c.call("CBF.INFO", "missing"), "ERR not found")
            pairs = s.info(c.call("CBF.INFO", "c"))
            self.assertEqual([k for k, _ in pairs],
                             [b"Capacity", b"Size", b"Number of counters", b"Counter bits",
                              b"Number of hash functions", b"Number of items inserted", b"Saturated counters",
                              b"Error rate"])
            v = dict(pairs)
            self.assertEqual(v[b"Capacity"], 1000)
            self.assertEqual(v[b"Counter bits"], 4)
            self.assertEqual(v[b"Number of items inserted"], 0)
            self.assertAlmostEqual(float(v[b"Error rate"]), 0.01)
            c.ok("CBF.RESERVE", "c8", "0.01", "100", "COUNTERBITS", "8")
            self.assertEqual(dict(s.info(c.call("CBF.INFO", "c8")))[b"Counter bits"], 8)
            s.error(c.call("CBF.RESERVE", "bad", "0.01", "100", "COUNTERBITS", "5"), "ERR bad counter bits")
            s.error(c.call("CBF.RESERVE", "bad", "2", "100"), "ERR error rate must be in the range (0.000000, 1.000000)")
            s.boolean(c.call("CBF.ADD", "auto", "z"), True)
            self.assertEqual(dict(s.info(c.call("CBF.INFO", "auto")))[b"Capacity"], 100)

        self.each_protocol(body)

    @time_limit(30)
    def test_cbf_del_of_a_saturated_item(self):
        """Deleting an item whose 4-bit counters all saturated removes nothing: CBF.DEL
        answers 0 every time, the item stays, and "Number of items inserted" keeps its
        adds (not 1 each time with the count falling to 0 while no counter changes)."""
        def items(c):
            info = c.call("CBF.INFO", "s")
            return dict(zip(info[0::2], info[1::2]))[b"Number of items inserted"]

        with self.server.client() as c:
            c.ok("CBF.RESERVE", "s", "0.01", "1000")
            for _ in range(20):
                c.call("CBF.ADD", "s", "hot")
            self.assertEqual(c.call("CBF.COUNT", "s", "hot"), 15)
            self.assertEqual(items(c), 20)
            dump = c.call("DUMP", "s")
            for _ in range(25):
                self.assertEqual(c.call("CBF.DEL", "s", "hot"), 0)
            self.assertEqual(items(c), 20)
            self.assertEqual(c.call("CBF.EXISTS", "s", "hot"), 1)
            self.assertEqual(c.call("DUMP", "s"), dump)
            # An item with some counters free is removed from those: 1, and the count falls.
            c.call("CBF.ADD", "s", "cold")
            self.assertEqual(items(c), 21)
            self.assertEqual(c.call("CBF.DEL", "s", "cold"), 1)
            self.assertEqual(items(c), 20)
            self.assertEqual(c.call("CBF.EXISTS", "s", "cold"), 0)

    @time_limit(30)
    def test_bf_merge(self):
        with self.server.client() as c:
            c.ok("BF.RESERVE", "{m}a", "0.01", "1000")
            c.ok("BF.RESERVE", "{m}b", "0.01", "1000")
            c.call("BF.MADD", "{m}a", *["a%d" % i for i in range(300)])
            c.call("BF.MADD", "{m}b", *["b%d" % i for i in range(300)])
            self.assertEqual(c.call("BF.MERGE", "{m}u", "{m}a", "{m}b"), Simple(b"OK"))
            union = c.call("BF.MEXISTS", "{m}u", *(["a%d" % i for i in range(300)] + ["b%d" % i for i in range(300)]))
            self.assertTrue(all(union))
            # Merging into an existing destination keeps its own items.
            self.assertEqual(c.call("BF.MERGE", "{m}a", "{m}b"), Simple(b"OK"))
            self.assertTrue(all(c.call("BF.MEXISTS", "{m}a", "a0", "b0", "a299", "b299")))
            c.ok("BF.RESERVE", "{m}other", "0.001", "1000")
            e = c.call("BF.MERGE", "{m}a", "{m}other")
            self.assertIsInstance(e, ReplyError)
            self.assertTrue(e.message.startswith("ERR incompatible filters"), e)
            e = c.call("BF.MERGE", "{m}a", "{m}missing")
            self.assertTrue(e.message.startswith("ERR not found"), e)
            self.assertEqual(c.call("COMMAND", "GETKEYS", "BF.MERGE", "d", "s1", "s2"), [b"d", b"s1", b"s2"])

    @time_limit(30)
    def test_command_flags_and_key_specs(self):
        with self.server.client() as c:
            info = c.call("COMMAND", "INFO", "bf.add", "bf.exists", "bf.merge", "cf.del", "bf.scandump")
            by_name = {entry[0]: entry for entry in info}
            self.assertIn(Simple(b"write"), by_name[b"bf.add"][2])
            self.assertIn(Simple(b"denyoom"), by_name[b"bf.add"][2])
            self.assertIn(Simple(b"fast"), by_name[b"bf.add"][2])
            self.assertIn(Simple(b"readonly"), by_name[b"bf.exists"][2])
            self.assertIn(Simple(b"fast"), by_name[b"bf.exists"][2])
            self.assertEqual(by_name[b"bf.add"][3:6], [1, 1, 1])
            self.assertEqual(by_name[b"bf.merge"][3:6], [1, -1, 1])
            # Key specs: read-only access for queries (ACL %R~ selectors rely on them).
            specs = by_name[b"bf.exists"][8]
            self.assertIn(b"RO", specs[0][1])
            specs = by_name[b"bf.merge"][8]
            self.assertIn(b"RW", specs[0][1])
            self.assertIn(b"RO", specs[1][1])
            # An ACL user who may only read keys can query but not add.
            c.ok("ACL", "SETUSER", "reader", "on", "nopass", "+@all", "%R~*")
            c.ok("BF.ADD", "acl", "x")
            c.ok("AUTH", "reader", "pw")
            self.assertIsInstance(c.call("BF.EXISTS", "acl", "x"), int)
            e = c.call("BF.ADD", "acl", "y")
            self.assertIsInstance(e, ReplyError)
            self.assertIn("NOPERM", e.message)


if __name__ == "__main__":
    main()
