# SPDX-License-Identifier: Apache-2.0
"""Redis killed with SIGKILL (no shutdown, no save) while clients write, then
restarted from the same directory:
  - AOF with appendfsync always: every add the server acknowledged is present after
    the restart (zero false negatives), across three kill/restart rounds, one of them
    after an AOF rewrite (the module's LOADCHUNK-based aof_rewrite);
  - RDB: the filter after the restart is, byte for byte, the one the last SAVE wrote,
    whatever was added after it."""

import random
import threading
import time
import unittest

from faultlib import Server, Simple, dump_bytes, kill9, main, missing, time_limit, wait_for


class Writer(threading.Thread):
    """Adds fresh items in batches until the connection fails; keeps what was acknowledged."""

    def __init__(self, port, tag, command, key, batch=50):
        super().__init__(daemon=True)
        self.port, self.tag, self.command, self.key, self.batch = port, tag, command, key, batch
        self.acked = []
        self.errors = []

    def run(self):
        from faultlib import Resp
        try:
            c = Resp(self.port, timeout=10)
        except OSError as e:
            self.errors.append(e)
            return
        n = 0
        try:
            while True:
                items = ["%s:%d" % (self.tag, n + i) for i in range(self.batch)]
                n += self.batch
                if self.command == "CF.ADD":
                    for item in items:
                        reply = c.call("CF.ADD", self.key, item)
                        if reply != 1:
                            self.errors.append(reply)
                            return
                        self.acked.append(item)
                    continue
                reply = c.call(self.command, self.key, *items)
                if not isinstance(reply, list):
                    self.errors.append(reply)
                    return
                self.acked.extend(items)
        except (ConnectionError, OSError):
            return  # the server died mid-command: that command was never acknowledged
        finally:
            c.close()


class KillTest(unittest.TestCase):
    @time_limit(90)
    def test_aof_always_keeps_every_acknowledged_add(self):
        rng = random.Random(7)
        extra = ["--appendonly", "yes", "--appendfsync", "always", "--aof-use-rdb-preamble", "no"]
        server = Server(extra=extra)
        server.start()
        acked = {"bf": [], "cf": []}
        try:
            with server.client() as c:
                self.assertEqual(c.call("BF.RESERVE", "bf", "0.01", "20000"), Simple(b"OK"))
                self.assertEqual(c.call("CF.RESERVE", "cf", "50000"), Simple(b"OK"))
            for round_ in range(3):
                writers = [Writer(server.port, "r%d-bf" % round_, "BF.MADD", "bf"),
                           Writer(server.port, "r%d-cf" % round_, "CF.ADD", "cf")]
                for w in writers:
                    w.start()
                time.sleep(0.3)
                if round_ == 1:
                    with server.client() as c:  # the rewrite emits LOADCHUNK commands
                        self.assertIsInstance(c.call("BGREWRITEAOF"), Simple)
                        done = lambda: all(f in c.call("INFO", "persistence") for f in (
                            b"aof_rewrite_in_progress:0", b"aof_rewrite_scheduled:0"))
                        wait_for(done, what="AOF rewrite")
                        self.assertIn(b"aof_last_bgrewrite_status:ok", c.call("INFO", "persistence"))
                time.sleep(rng.uniform(0.3, 0.8))
                kill9(server)
                for w in writers:
                    w.join(10)
                    self.assertFalse(w.is_alive())
                    self.assertEqual(w.errors, [], "writer failed before the kill")
                    self.assertGreater(len(w.acked), 0, "no add was acknowledged before the kill")
                acked["bf"] += writers[0].acked
                acked["cf"] += writers[1].acked
                server.start(timeout=30)
                with server.client() as c:
                    lost_bf = missing(c, "BF.MEXISTS", "bf", acked["bf"])
                    lost_cf = missing(c, "CF.MEXISTS", "cf", acked["cf"])
                    self.assertEqual(lost_bf, [], "round %d: acknowledged BF adds lost" % round_)
                    self.assertEqual(lost_cf, [], "round %d: acknowledged CF adds lost" % round_)
            print("\naof: %d BF and %d CF acknowledged adds survived 3 kill -9 rounds" %
                  (len(acked["bf"]), len(acked["cf"])))
        finally:
            server.cleanup()

    @time_limit(60)
    def test_rdb_restart_gives_the_last_snapshot(self):
        server = Server(extra=["--dbfilename", "dump.rdb"])
        server.start()
        try:
            with server.client() as c:
                self.assertEqual(c.call("BF.RESERVE", "bf", "0.01", "5000"), Simple(b"OK"))
                self.assertEqual(c.call("CF.RESERVE", "cf", "5000"), Simple(b"OK"))
                self.assertEqual(c.call("CBF.RESERVE", "cbf", "0.01", "5000"), Simple(b"OK"))
                c.call("BF.MADD", "bf", *["a%d" % i for i in range(3000)])
                for i in range(500):
                    c.call("CF.ADD", "cf", "a%d" % i)
                    c.call("CBF.ADD", "cbf", "a%d" % i)
                self.assertEqual(c.call("SAVE"), Simple(b"OK"))
                snapshot = {p: dump_bytes(c, p, k) for p, k in (("BF", "bf"), ("CF", "cf"), ("CBF", "cbf"))}
                # Writes after the snapshot, never saved.
                c.call("BF.MADD", "bf", *["b%d" % i for i in range(3000)])
                for i in range(200):
                    c.call("CF.ADD", "cf", "b%d" % i)
                    c.call("CBF.ADD", "cbf", "b%d" % i)
                self.assertNotEqual(dump_bytes(c, "BF", "bf"), snapshot["BF"])
            kill9(server)
            server.start(timeout=30)
            with server.client() as c:
                for prefix, key in (("BF", "bf"), ("CF", "cf"), ("CBF", "cbf")):
                    self.assertEqual(dump_bytes(c, prefix, key), snapshot[prefix],
                                     "%s after restart differs from the last snapshot" % key)
                self.assertEqual(missing(c, "BF.MEXISTS", "bf", ["a%d" % i for i in range(3000)]), [])
        finally:
            server.cleanup()


if __name__ == "__main__":
    main()
