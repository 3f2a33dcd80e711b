# SPDX-License-Identifier: Apache-2.0
"""TBF.*: time-windowed filters on a real redis-server with 1-3 second windows. The
window on the server's clock; errors; RDB, AOF and DUMP/RESTORE keep the same bytes; a
replica and an AOF replayed later apply every write at the primary's time (TBF.MADDAT
key ms ...), so their bytes equal the primary's although their clock has moved on."""

import contextlib
import os
import struct
import tempfile
import time
import unittest

from harness import ReplyError, Server, Simple, main, scandump, time_limit, wait_for


def tbf_bytes(c, key):
    return b"".join(data for _, data in scandump(c, "TBF.SCANDUMP", key))


def wait_offset(primary, replica):
    info = primary.call("INFO", "replication").decode()
    target = int([x for x in info.split("\r\n") if x.startswith("master_repl_offset:")][0].split(":")[1])

    def caught_up():
        rinfo = replica.call("INFO", "replication").decode()
        return int([x for x in rinfo.split("\r\n") if x.startswith("slave_repl_offset:")][0].split(":")[1]) >= target

    wait_for(caught_up, what="replica offset")


class WindowTest(unittest.TestCase):
    @time_limit(60)
    def test_items_are_kept_for_the_window_then_forgotten(self):
        with Server() as server, server.client() as c:
            self.assertEqual(c.call("TBF.RESERVE", "seen", "0.01", "1000", "WINDOW", "2", "GENERATIONS", "4"),
                             Simple(b"OK"))
            self.assertEqual(c.call("TYPE", "seen"), Simple(b"bloomkitT"))
            self.assertEqual(c.call("TBF.ADD", "seen", "a"), 1)
            self.assertEqual(c.call("TBF.ADD", "seen", "a"), 0)
            self.assertEqual(c.call("TBF.MADD", "seen", "b", "a"), [1, 0])
            self.assertEqual(c.call("TBF.MEXISTS", "seen", "a", "b", "zzz"), [1, 1, 0])
            self.assertEqual(c.call("TBF.CARD", "seen"), 2)
            info = c.call("TBF.INFO", "seen")
            fields = dict(zip(info[::2], info[1::2]))
            self.assertEqual(fields[b"Window ms"], 2000)
            self.assertEqual(fields[b"Generations"], 4)
            self.assertEqual(fields[b"Capacity"], 1000)
            time.sleep(1.2)  # inside the window
            self.assertEqual(c.call("TBF.EXISTS", "seen", "a"), 1)
            time.sleep(1.5)  # past W + W/G = 2.5 s since the adds
            self.assertEqual(c.call("TBF.EXISTS", "seen", "a"), 0)
            self.assertEqual(c.call("TBF.CARD", "seen"), 0)
            self.assertEqual(c.call("TBF.ADD", "seen", "a"), 1)
            stats = dict(line.split(":", 1) for line in c.call("INFO", "bloomkit").decode().split("\r\n")
                         if line.startswith("bloomkit_"))
            self.assertEqual(stats["bloomkit_tbf_native"], "1")
            self.assertEqual(stats["bloomkit_tbf_commands"], "11")
            self.assertEqual(stats["bloomkit_bf_commands"], "0")

    @time_limit(30)
    def test_bad_arguments_are_error_replies(self):
        with Server() as server, server.client() as c:
            cases = [
                (["TBF.ADD", "missing", "x"], "ERR not found"),
                (["TBF.RESERVE", "k", "2", "100", "WINDOW", "10"], "ERR error rate must be"),
                (["TBF.RESERVE", "k", "0.01", "0", "WINDOW", "10"], "ERR bad capacity"),
                (["TBF.RESERVE", "k", "0.01", "100", "WINDOW", "0"], "ERR bad window"),
                (["TBF.RESERVE", "k", "0.01", "100", "WINDOW", "1", "GENERATIONS", "24"],
                 "ERR bad window: WINDOW 1 seconds (1000 ms)"),
                (["TBF.RESERVE", "k", "0.01", "100", "WINDOW", "10", "GENERATIONS", "0"], "ERR bad generations"),
                (["TBF.RESERVE", "k", "0.01", "100", "SPAN", "10"], "ERR syntax"),
                (["TBF.RESERVE", "k", "0.01", "100", "WINDOW", "10", "AT"], "ERR syntax"),
                (["TBF.RESERVE", "k", "0.01", "100", "WINDOW", "10", "SIZING", "FAST"], "ERR bad sizing"),
                (["TBF.MADDAT", "k", "soon", "x"], "ERR bad time"),
                (["TBF.ADD", "k"], "ERR wrong number of arguments"),
            ]
            for args, text in cases:
                reply = c.call(*args)
                self.assertIsInstance(reply, ReplyError, args)
                self.assertTrue(reply.message.startswith(text), (args, reply.message))
            c.ok("TBF.RESERVE", "k", "0.01", "100", "WINDOW", "10", "GENERATIONS", "10")
            self.assertEqual(c.call("TBF.RESERVE", "k", "0.01", "100", "WINDOW", "10", "GENERATIONS", "5"),
                             ReplyError("ERR item exists"))
            c.ok("SET", "str", "v")
            self.assertTrue(c.call("TBF.ADD", "str", "x").message.startswith("WRONGTYPE"))
            self.assertEqual(c.call("TBF.EXISTS", "missing", "x"), 0)
            # Without GENERATIONS: the core's default G = 8, which divides any whole second.
            c.ok("TBF.RESERVE", "d", "0.01", "100", "WINDOW", "1")
            info = c.call("TBF.INFO", "d")
            self.assertEqual(dict(zip(info[::2], info[1::2]))[b"Generations"], 8)
            self.assertEqual(dict(zip(info[::2], info[1::2]))[b"Sizing"], b"any")

    @time_limit(60)
    def test_steady_sizing_spends_fewer_bytes_and_is_kept(self):
        with Server() as server, server.client() as c:
            sizes = {}
            for sizing in ("ANY", "STEADY"):
                key = "t:" + sizing
                c.ok("TBF.RESERVE", key, "0.01", "80000", "WINDOW", "3600", "SIZING", sizing)
                c.call("TBF.MADD", key, *["k%d" % i for i in range(5000)])
                info = c.call("TBF.INFO", key)
                fields = dict(zip(info[::2], info[1::2]))
                self.assertEqual(fields[b"Sizing"], sizing.lower().encode())
                sizes[sizing] = fields[b"Size"]
                self.assertEqual(c.call("TBF.EXISTS", key, "k4999"), 1)
            self.assertLess(sizes["STEADY"], sizes["ANY"])
            before = tbf_bytes(c, "t:STEADY")
            self.assertEqual(c.call("DEBUG", "RELOAD"), Simple(b"OK"))
            self.assertEqual(tbf_bytes(c, "t:STEADY"), before)


class PersistenceTest(unittest.TestCase):
    @time_limit(60)
    def test_rdb_dump_restore_and_aof_rewrite_keep_the_bytes(self):
        extra = ["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]
        with Server(["SCANDUMP_CHUNK_BYTES", "4096"], extra=extra) as server:
            with server.client() as c:
                c.ok("TBF.RESERVE", "t", "0.01", "5000", "WINDOW", "3600", "GENERATIONS", "4")
                c.call("TBF.MADD", "t", *["k%d" % i for i in range(3000)])
                before = tbf_bytes(c, "t")
                self.assertEqual(c.call("DEBUG", "RELOAD"), Simple(b"OK"))
                self.assertEqual(tbf_bytes(c, "t"), before)
                payload = c.call("DUMP", "t")
                c.ok("RESTORE", "t:copy", 0, payload)
                self.assertEqual(tbf_bytes(c, "t:copy"), before)
                c.call("BGREWRITEAOF")
                wait_for(lambda: "aof_rewrite_in_progress:0" in c.call("INFO", "persistence").decode()
                         and "aof_rewrite_scheduled:0" in c.call("INFO", "persistence").decode(), what="rewrite")
                self.assertIn("aof_last_bgrewrite_status:ok", c.call("INFO", "persistence").decode())
            aof_dir = os.path.join(server.dir, "appendonlydir")
            base = [f for f in os.listdir(aof_dir) if ".base." in f]
            with open(os.path.join(aof_dir, base[0]), "rb") as f:
                self.assertIn(b"TBF.LOADCHUNK", f.read())
            server.restart()
            with server.client() as c:
                self.assertEqual(tbf_bytes(c, "t"), before)
                self.assertEqual(c.call("TBF.EXISTS", "t", "k7"), 1)

    @time_limit(60)
    def test_an_aof_replayed_later_applies_writes_at_their_own_time(self):
        # Writes in two generations of a 2 s window, then a restart 3 s later: a replay at
        # the restart's clock would put every key into one later generation (other bytes),
        # or drop them all as expired.
        with Server(extra=["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]) as server:
            with server.client() as c:
                c.ok("TBF.RESERVE", "t", "0.01", "1000", "WINDOW", "2", "GENERATIONS", "4")
                c.call("TBF.MADD", "t", *["a%d" % i for i in range(200)])
                time.sleep(0.6)
                c.call("TBF.ADD", "t", "late")
                before = tbf_bytes(c, "t")
            aof_dir = os.path.join(server.dir, "appendonlydir")
            incr = [f for f in os.listdir(aof_dir) if ".incr." in f]
            with open(os.path.join(aof_dir, incr[0]), "rb") as f:
                content = f.read()
            self.assertIn(b"TBF.MADDAT", content)
            self.assertNotIn(b"TBF.MADD\r\n", content)
            time.sleep(3)
            server.restart()
            with server.client() as c:
                self.assertEqual(tbf_bytes(c, "t"), before)


class ReplicationTest(unittest.TestCase):
    @time_limit(90)
    def test_replica_applies_writes_at_the_primary_time(self):
        with Server(extra=["--repl-diskless-sync-delay", "0"]) as primary:
            with primary.client() as p:
                p.ok("TBF.RESERVE", "t", "0.01", "1000", "WINDOW", "2", "GENERATIONS", "4")
                p.call("TBF.MADD", "t", *["before-%d" % i for i in range(300)])
            replica = Server(extra=["--replicaof", "127.0.0.1", str(primary.port)])
            with replica, replica.client() as r, primary.client() as p:
                wait_for(lambda: b"master_link_status:up" in r.call("INFO", "replication"), what="sync")
                p.ok("TBF.RESERVE", "u", "0.01", "1000", "WINDOW", "3", "GENERATIONS", "3", "SIZING", "STEADY")
                for round in range(4):  # across generation turnovers
                    p.call("TBF.MADD", "t", *["r%d-%d" % (round, i) for i in range(100)])
                    p.call("TBF.ADD", "u", "r%d" % round)
                    time.sleep(0.4)
                wait_offset(p, r)
                for key in ("t", "u"):
                    self.assertEqual(tbf_bytes(r, key), tbf_bytes(p, key), key)
                self.assertEqual(r.call("TBF.EXISTS", "t", "r3-5"), 1)
                self.assertIsInstance(r.call("TBF.ADD", "t", "z"), ReplyError)


class ShiftedClock:
    """The wall clock of the servers started inside `preloaded()`, moved by `set(seconds)`
    (clock_shift.cc, preloaded into redis-server): a jump, or hours spent stopped."""

    def __init__(self):
        fd, self.path = tempfile.mkstemp(prefix="bloomkit-clock-")
        os.close(fd)
        self.set(0)

    def set(self, seconds):
        with open(self.path, "r+b" if os.path.getsize(self.path) else "wb") as f:
            f.write(struct.pack("<q", int(seconds * 1_000_000)))

    @contextlib.contextmanager
    def preloaded(self):
        saved = {k: os.environ.get(k) for k in ("LD_PRELOAD", "BLOOMKIT_CLOCK_SHIFT_FILE")}
        shim = os.environ["BLOOMKIT_TEST_CLOCK_SHIFT"]
        os.environ["LD_PRELOAD"] = (saved["LD_PRELOAD"] + ":" + shim) if saved["LD_PRELOAD"] else shim
        os.environ["BLOOMKIT_CLOCK_SHIFT_FILE"] = self.path
        try:
            yield
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def close(self):
        os.unlink(self.path)


def server_seconds(c):
    seconds, micros = c.call("TIME")
    return int(seconds) + int(micros) / 1e6


class ClockTest(unittest.TestCase):
    """Time that is not wall time: the server's clock jumps back and forward, or the server
    stays stopped for longer than the window. The window is wall time: a jump forward, or
    hours stopped, ages every item by that much; a jump back never shortens an item's stay
    (the filter acts at the latest time it saw until the clock passes it again)."""

    def setUp(self):
        self.clock = ShiftedClock()
        self.addCleanup(self.clock.close)

    def filter_time(self, c):
        info = c.call("TBF.INFO", "t")
        return dict(zip(info[::2], info[1::2]))[b"Time ms"]

    @time_limit(60)
    def test_a_jump_back_keeps_items_and_a_jump_forward_ages_them(self):
        with self.clock.preloaded(), Server() as server, server.client() as c:
            now = server_seconds(c)
            c.ok("TBF.RESERVE", "t", "0.01", "1000", "WINDOW", "60", "GENERATIONS", "4")
            c.call("TBF.MADD", "t", "a", "b")
            latest = self.filter_time(c)

            self.clock.set(-3600)  # an hour back, as after a wrong NTP step is corrected
            self.assertLess(server_seconds(c), now - 3500, "the shifted clock is not in effect")
            self.assertEqual(c.call("TBF.MEXISTS", "t", "a", "b", "never"), [1, 1, 0])
            self.assertEqual(c.call("TBF.ADD", "t", "c"), 1)
            self.assertEqual(self.filter_time(c), latest)  # acts at the latest time it saw

            self.clock.set(40)  # inside the window of every add
            self.assertEqual(c.call("TBF.MEXISTS", "t", "a", "b", "c"), [1, 1, 1])

            self.clock.set(76)  # past W + W/G = 75 s after the adds, "c"'s included
            self.assertEqual(c.call("TBF.MEXISTS", "t", "a", "b", "c"), [0, 0, 0])
            self.assertEqual(c.call("TBF.CARD", "t"), 0)
            self.assertEqual(c.call("TBF.ADD", "t", "a"), 1)

    @time_limit(60)
    def test_reload_and_restart_inside_the_window_keep_items_and_a_long_stop_forgets_them(self):
        with self.clock.preloaded(), Server() as server:
            with server.client() as c:
                c.ok("TBF.RESERVE", "t", "0.01", "1000", "WINDOW", "60", "GENERATIONS", "4")
                c.call("TBF.MADD", "t", *["k%d" % i for i in range(500)])
                self.clock.set(30)
                self.assertEqual(c.call("DEBUG", "RELOAD"), Simple(b"OK"))
                self.assertEqual(c.call("TBF.MEXISTS", "t", "k1", "k499"), [1, 1])
                self.assertEqual(c.call("SAVE"), Simple(b"OK"))
            server.restart()  # still inside the window
            with server.client() as c:
                self.assertEqual(c.call("TBF.MEXISTS", "t", "k1", "k499"), [1, 1])
                self.assertEqual(c.call("TBF.CARD", "t"), 500)
                self.assertEqual(c.call("SAVE"), Simple(b"OK"))
            server.stop()
            self.clock.set(30 + 7200)  # the server stayed stopped for two hours
            server.start()
            with server.client() as c:
                self.assertEqual(c.call("TBF.MEXISTS", "t", "k1", "k499"), [0, 0])
                self.assertEqual(c.call("TBF.CARD", "t"), 0)
                self.assertEqual(c.call("TBF.ADD", "t", "k1"), 1)


class KeyTtlTest(unittest.TestCase):
    """A TBF key's own TTL is a Redis key's TTL: adds keep it, reloads keep it, and the key
    is gone when it runs out, whatever its window."""

    @time_limit(30)
    def test_adds_and_reloads_keep_the_ttl_and_the_key_expires(self):
        with Server() as server, server.client() as c:
            c.ok("TBF.RESERVE", "t", "0.01", "1000", "WINDOW", "3600", "GENERATIONS", "4")
            self.assertEqual(c.call("EXPIRE", "t", 100), 1)
            c.call("TBF.MADD", "t", "a", "b")
            self.assertEqual(c.call("TBF.ADD", "t", "c"), 1)
            self.assertGreater(c.call("TTL", "t"), 90)
            self.assertEqual(c.call("DEBUG", "RELOAD"), Simple(b"OK"))
            self.assertGreater(c.call("TTL", "t"), 90)
            self.assertEqual(c.call("TBF.EXISTS", "t", "a"), 1)
            self.assertEqual(c.call("PERSIST", "t"), 1)
            self.assertEqual(c.call("TTL", "t"), -1)
            self.assertEqual(c.call("PEXPIRE", "t", 300), 1)
            time.sleep(0.5)
            self.assertEqual(c.call("EXISTS", "t"), 0)
            self.assertEqual(c.call("TBF.EXISTS", "t", "a"), 0)
            self.assertEqual(c.call("TBF.ADD", "t", "a"), ReplyError("ERR not found"))


if __name__ == "__main__":
    main()
