# SPDX-License-Identifier: Apache-2.0
"""A header costs time linear in what it announces. The 38-byte cuckoo header
struct.pack("<QQQQHHH", 0, 1, 0, 65535, 1, 20, 1) announces 65535 sub-filters of one
slot (a valid filter of 65535 bytes); checking their sizes took time quadratic in their
number, and CF.LOADCHUNK, RESTORE or an RDB value of that shape stalled the server for
6 to 9 seconds, once per key. Each now answers within 2 seconds (in 0.05 s in release,
well under a second under ASan), with the right outcome, and the server keeps answering."""

import struct
import time
import unittest

from harness import ReplyError, Server, Simple, main, seal_dump, time_limit
from test_redisbloom_loads import module_type_id, rdb_length

SUB_FILTERS = 65535
HEADER = struct.pack("<QQQQHHH", 0, 1, 0, SUB_FILTERS, 1, 20, 1)
QUICK = 2.0  # seconds, for a server under ASan on a busy machine; the quadratic check took 5.5 to 9


def cuckoo_dump(sub_filters):
    """A DUMP payload of the header's shape: 65535 sub-filters of one bucket of one slot,
    `sub_filters` of them written out (joined once: appending to bytes is quadratic)."""
    unsigned = lambda v: rdb_length(2) + rdb_length(v)
    parts = [b"\x07\x81" + struct.pack(">Q", module_type_id("MBbloomCF", 4))]
    # filters, buckets, items, deletes, bucket size, max iterations, expansion
    parts += [unsigned(v) for v in (SUB_FILTERS, 1, 0, 0, 1, 20, 1)]
    parts += [unsigned(1) + rdb_length(5) + rdb_length(1) + b"\x00"] * sub_filters
    return seal_dump(b"".join(parts) + b"\x00", struct.pack("<H", 10))


class HeaderCostTest(unittest.TestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = Server(fmt=None)  # the default: RedisBloom format
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def timed(self, c, *args):
        start = time.monotonic()
        reply = c.call(*args)
        took = time.monotonic() - start
        self.assertLess(took, QUICK, "%s took %.2f s: %r" % (args[0], took, reply))
        return reply

    def check_sub_filters(self, c, key):
        info = c.call("CF.INFO", key)
        self.assertEqual(info[4:6], [b"Number of filters", SUB_FILTERS])
        self.assertEqual(info[0:2], [b"Size", 40 + 16 * SUB_FILTERS + SUB_FILTERS])
        self.assertEqual(c.call("PING"), Simple(b"PONG"))

    @time_limit(60)
    def test_loadchunk_of_the_header_answers_at_once(self):
        with self.server.client() as c:
            for key in ("lc1", "lc2", "lc3"):  # once per key, as an attack would repeat it
                self.assertEqual(self.timed(c, "CF.LOADCHUNK", key, 1, HEADER), Simple(b"OK"))
                self.check_sub_filters(c, key)
            # Saved and loaded again through the RDB, as quickly.
            self.assertEqual(c.call("DEL", "lc2", "lc3"), 2)
            self.assertEqual(self.timed(c, "DEBUG", "RELOAD"), Simple(b"OK"))
            self.check_sub_filters(c, "lc1")
            self.assertEqual(c.call("CF.EXISTS", "lc1", "x"), 0)

    @time_limit(60)
    def test_restore_of_that_shape_answers_at_once(self):
        whole = cuckoo_dump(SUB_FILTERS)
        truncated = cuckoo_dump(0)  # the header fields only: refused after the sizes are checked
        with self.server.client() as c:
            self.assertEqual(self.timed(c, "RESTORE", "rs", 0, whole), Simple(b"OK"))
            self.check_sub_filters(c, "rs")
            reply = self.timed(c, "RESTORE", "bad", 0, truncated)
            self.assertIsInstance(reply, ReplyError, reply)
            self.assertIn("Bad data format", reply.message)
            self.assertEqual(c.call("EXISTS", "bad"), 0)
            self.assertEqual(c.call("PING"), Simple(b"PONG"))


if __name__ == "__main__":
    main()
