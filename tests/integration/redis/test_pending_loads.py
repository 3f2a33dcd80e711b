# SPDX-License-Identifier: Apache-2.0
"""LOADCHUNK's pending buffers live in Redis' memory: INFO memory, MEMORY USAGE and
maxmemory see them, so loads that outgrow maxmemory are refused with OOM instead of
growing unseen; and MAX_PENDING_LOAD_BYTES bounds what the loads in progress on all
keys may announce. Buffers outside Redis' allocator would let a `maxmemory 50mb`
server accept three loads of 30 MB each while used_memory stayed at about 1 MB."""

import unittest

from harness import ReplyError, Server, main, time_limit


def info_field(client, section, field):
    text = client.call("INFO", section).decode()
    return int([line for line in text.split("\r\n") if line.startswith(field + ":")][0].split(":", 1)[1])


def dump_of(capacity, items):
    """SCANDUMP chunks (1 MiB) of a native BF of `capacity` holding `items`."""
    with Server(["MAX_FILTER_BYTES", "1g", "SCANDUMP_CHUNK_BYTES", "1mb"]) as s, s.client() as c:
        c.ok("BF.RESERVE", "src", "0.01", str(capacity))
        c.call("BF.MADD", "src", *items)
        chunks, iterator = [], 0
        while True:
            iterator, data = c.call("BF.SCANDUMP", "src", iterator)
            if iterator == 0:
                return chunks
            chunks.append((iterator, data))


ITEMS = ["p%d" % i for i in range(2000)]


class PendingLoadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chunks = dump_of(25_000_000, ITEMS)  # a 34.5 MB bit array (stage rate 0.5%) in 33 chunks
        cls.total = sum(len(data) for _, data in cls.chunks)

    @time_limit(90)
    def test_pending_bytes_are_counted_and_refused_past_maxmemory(self):
        limits = ["--maxmemory", "50mb", "--maxmemory-policy", "noeviction"]
        with Server(["MAX_FILTER_BYTES", "1g"], extra=limits) as s, s.client() as c:
            base = info_field(c, "memory", "used_memory")
            keys = ["k1", "k2", "k3"]
            for key in keys:
                self.assertEqual(c.call("BF.LOADCHUNK", key, *self.chunks[0]), b"OK")
            received = {key: len(self.chunks[0][1]) for key in keys}
            refused = None
            for iterator, data in self.chunks[1:]:
                for key in keys:
                    reply = c.call("BF.LOADCHUNK", key, iterator, data)
                    if isinstance(reply, ReplyError):
                        refused = reply
                        break
                    self.assertEqual(reply, b"OK")
                    received[key] += len(data)
                    # What a loading key holds is in used_memory and in MEMORY USAGE.
                    self.assertGreaterEqual(c.call("MEMORY", "USAGE", key), received[key])
                    used = info_field(c, "memory", "used_memory")
                    self.assertGreaterEqual(used - base, 0.9 * sum(received.values()),
                                            "pending bytes missing from used_memory")
                if refused:
                    break
            # 90 MB announced on a 50 MB server: a chunk is refused before the limit passes.
            self.assertIsNotNone(refused, "every chunk of 90 MB was accepted under maxmemory 50mb")
            self.assertTrue(str(refused).startswith("OOM"), refused)
            self.assertLessEqual(info_field(c, "memory", "used_memory"), (50 << 20) + (2 << 20))
            # Deleting the loading keys gives their memory back.
            self.assertEqual(c.call("DEL", "k1", "k2", "k3"), 3)
            self.assertLess(info_field(c, "memory", "used_memory"), base + (4 << 20))

    @time_limit(60)
    def test_max_pending_load_bytes_bounds_the_loads_of_all_keys(self):
        with Server(["MAX_FILTER_BYTES", "1g", "MAX_PENDING_LOAD_BYTES", "80mb"]) as s, s.client() as c:
            header = self.chunks[0]
            self.assertEqual(c.call("BF.LOADCHUNK", "a", *header), b"OK")
            self.assertEqual(c.call("BF.LOADCHUNK", "b", *header), b"OK")
            reply = c.call("BF.LOADCHUNK", "c", *header)
            self.assertIsInstance(reply, ReplyError)
            self.assertTrue(str(reply).startswith("ERR too many pending loads (MAX_PENDING_LOAD_BYTES): this dump "
                                                  "announces %d bytes, 2 loads in progress announce %d" %
                                                  (self.total, 2 * self.total)), reply)
            self.assertIn("MAX_PENDING_LOAD_BYTES is 83886080", str(reply))
            self.assertEqual(c.call("EXISTS", "c"), 0)
            # Deleting a loading key, or completing its load, gives its share back.
            self.assertEqual(c.call("DEL", "a"), 1)
            reply = c.call("BF.LOADCHUNK", "c", *header)
            self.assertEqual(reply, b"OK", reply)
            for iterator, data in self.chunks[1:]:
                self.assertEqual(c.call("BF.LOADCHUNK", "b", iterator, data), b"OK")
            self.assertEqual(c.call("BF.MEXISTS", "b", *ITEMS), [1] * len(ITEMS))
            self.assertEqual(c.call("BF.LOADCHUNK", "d", *header), b"OK")
            self.assertIsInstance(c.call("BF.LOADCHUNK", "e", *header), ReplyError)

    @time_limit(30)
    def test_bad_max_pending_load_bytes_fails_the_load(self):
        for value in ("10", "abc", "3tb"):
            s = Server(["MAX_PENDING_LOAD_BYTES", value])
            try:
                self.assertFalse(s.start(expect_failure=True))
                self.assertIn("MAX_PENDING_LOAD_BYTES must be a byte count in [4096, 2tb], got", s.log())
            finally:
                s.cleanup()


if __name__ == "__main__":
    main()
