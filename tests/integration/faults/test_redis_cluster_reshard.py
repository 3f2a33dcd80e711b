# SPDX-License-Identifier: Apache-2.0
"""Redis Cluster (three primaries, `redis-cli --cluster create`): the slot holding a
filter is resharded to another node and back (SETSLOT IMPORTING/MIGRATING, MIGRATE,
SETSLOT NODE) while three clients keep adding to it, following MOVED and ASK
redirects as cluster clients do. Afterwards every acknowledged add is present on the
slot's final owner: zero false negatives."""

import threading
import time
import unittest

from faultlib import ReplyError, Resp, Simple, main, missing, start_cluster, time_limit, wait_for


class ClusterClient:
    """Sends one command for one key, following MOVED (new owner) and ASK (ASKING first)."""

    def __init__(self, port):
        self.conns = {}
        self.owner_port = port
        self.redirects = {"MOVED": 0, "ASK": 0, "TRYAGAIN": 0}

    def conn(self, port):
        if port not in self.conns:
            self.conns[port] = Resp(port, timeout=20)
        return self.conns[port]

    def call(self, *args):
        port, asking = self.owner_port, False
        for _ in range(50):
            c = self.conn(port)
            if asking:
                c.send("ASKING")
                c.send(*args)
                asking_reply = c.read()
                assert asking_reply == Simple(b"OK"), asking_reply
                reply = c.read()
            else:
                reply = c.call(*args)
            if isinstance(reply, ReplyError):
                kind = reply.message.split(" ")[0]
                if kind in ("MOVED", "ASK"):
                    self.redirects[kind] += 1
                    port = int(reply.message.split(" ")[2].rsplit(":", 1)[1])
                    asking = kind == "ASK"
                    if kind == "MOVED":
                        self.owner_port = port
                    continue
                if kind == "TRYAGAIN":
                    self.redirects[kind] += 1
                    time.sleep(0.01)
                    continue
            return reply
        raise AssertionError("too many redirects for %r" % (args[:2],))

    def close(self):
        for c in self.conns.values():
            c.close()


class Adder(threading.Thread):
    def __init__(self, port, key, tag, stop):
        super().__init__(daemon=True)
        self.client = ClusterClient(port)
        self.key, self.tag, self.stop = key, tag, stop
        self.acked = []
        self.failures = []

    def run(self):
        n = 0
        try:
            while not self.stop.is_set():
                items = ["%s:%d" % (self.tag, n + i) for i in range(20)]
                n += 20
                reply = self.client.call("BF.MADD", self.key, *items)
                if isinstance(reply, list) and len(reply) == len(items):
                    self.acked.extend(items)
                else:
                    self.failures.append(reply)
                    return
        except Exception as e:  # reported by the test
            self.failures.append(repr(e))
        finally:
            self.client.close()


class ClusterReshardTest(unittest.TestCase):
    @time_limit(120)
    def test_reshard_under_writes_loses_no_acknowledged_add(self):
        nodes = start_cluster(3)
        try:
            admin = {n.port: n.client() for n in nodes}
            wait_for(lambda: all(b"cluster_state:ok" in c.call("CLUSTER", "INFO") for c in admin.values()),
                     what="cluster_state:ok")
            ids = {port: c.call("CLUSTER", "MYID").decode() for port, c in admin.items()}
            key = "reshard-filter"
            slot = admin[nodes[0].port].call("CLUSTER", "KEYSLOT", key)

            def owner():
                for start, end, primary, *_ in admin[nodes[0].port].call("CLUSTER", "SLOTS"):
                    if start <= slot <= end:
                        return primary[1]
                raise AssertionError("slot unassigned")

            setup = ClusterClient(nodes[0].port)
            self.assertEqual(setup.call("BF.RESERVE", key, "0.001", "200000"), Simple(b"OK"))
            setup.close()

            stop = threading.Event()
            adders = [Adder(nodes[i].port, key, "c%d" % i, stop) for i in range(3)]
            for a in adders:
                a.start()
            moves = 0
            for _ in range(2):  # to another node, then on to the third
                time.sleep(0.4)
                src = owner()
                dst = next(n.port for n in nodes if n.port != src)
                self.assertEqual(admin[dst].call("CLUSTER", "SETSLOT", slot, "IMPORTING", ids[src]), Simple(b"OK"))
                self.assertEqual(admin[src].call("CLUSTER", "SETSLOT", slot, "MIGRATING", ids[dst]), Simple(b"OK"))
                time.sleep(0.2)  # adders keep writing to the migrating slot (ASK once the key moved)
                keys = admin[src].call("CLUSTER", "GETKEYSINSLOT", slot, 100)
                if keys:
                    self.assertEqual(admin[src].call("MIGRATE", "127.0.0.1", dst, "", 0, 10000, "KEYS", *keys),
                                     Simple(b"OK"))
                time.sleep(0.2)
                for port in (dst, src) + tuple(n.port for n in nodes if n.port not in (src, dst)):
                    self.assertEqual(admin[port].call("CLUSTER", "SETSLOT", slot, "NODE", ids[dst]), Simple(b"OK"))
                wait_for(lambda: owner() == dst, what="slot ownership")
                moves += 1
            time.sleep(0.4)
            stop.set()
            for a in adders:
                a.join(30)
                self.assertFalse(a.is_alive())
                self.assertEqual(a.failures, [])
            acked = [item for a in adders for item in a.acked]
            redirects = {k: sum(a.client.redirects[k] for a in adders) for k in ("MOVED", "ASK", "TRYAGAIN")}
            final = admin[owner()]
            self.assertEqual(missing(final, "BF.MEXISTS", key, acked), [])
            self.assertGreater(redirects["MOVED"], 0, "the adders never followed a redirect")
            print("\ncluster: %d acknowledged adds across %d reshards, all present; redirects followed %s" %
                  (len(acked), moves, redirects))
            for c in admin.values():
                c.close()
        finally:
            for node in nodes:
                node.cleanup()


if __name__ == "__main__":
    main()
