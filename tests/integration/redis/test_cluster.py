# SPDX-License-Identifier: Apache-2.0
"""Redis Cluster: three primaries created with `redis-cli --cluster create`, filters
in different slots on different nodes, routing by key (MOVED, CROSSSLOT for BF.MERGE
across slots), and a slot holding filters of every family (BF, CF, CBF, TBF) resharded
(SETSLOT + MIGRATE) to another node with their contents intact."""

import unittest

from harness import ReplyError, Simple, main, start_cluster, time_limit, wait_for

from test_persistence import dump_bytes


class ClusterTest(unittest.TestCase):
    @time_limit(120)
    def test_three_node_cluster_and_resharding(self):
        nodes = start_cluster(3)
        try:
            clients = {n.port: n.client() for n in nodes}

            def all_ok():
                return all(b"cluster_state:ok" in c.call("CLUSTER", "INFO") for c in clients.values())

            wait_for(all_ok, what="cluster_state:ok")
            ids = {port: c.call("CLUSTER", "MYID").decode() for port, c in clients.items()}

            def owner(slot):
                for start, end, primary, *_ in clients[nodes[0].port].call("CLUSTER", "SLOTS"):
                    if start <= slot <= end:
                        return primary[1]
                raise AssertionError("slot %d unassigned" % slot)

            # Filters on every node: pick keys until each node owns at least one.
            keys_by_port = {}
            i = 0
            while len(keys_by_port) < 3 or any(len(v) < 2 for v in keys_by_port.values()):
                key = "filter:%d" % i
                i += 1
                slot = clients[nodes[0].port].call("CLUSTER", "KEYSLOT", key)
                keys_by_port.setdefault(owner(slot), []).append(key)
                if i > 10000:
                    break
            for port, keys in keys_by_port.items():
                c = clients[port]
                for key in keys[:2]:
                    self.assertEqual(c.call("BF.RESERVE", key, "0.01", "1000"), Simple(b"OK"))
                    c.call("BF.MADD", key, *["%s:%d" % (key, j) for j in range(1500)])
                    self.assertEqual(c.call("BF.INFO", key, "FILTERS"), [2])
            # A key sent to the wrong node is redirected.
            port_a, port_b = nodes[0].port, nodes[1].port
            key_on_a = keys_by_port[port_a][0]
            moved = clients[port_b].call("BF.EXISTS", key_on_a, "x")
            self.assertIsInstance(moved, ReplyError)
            self.assertTrue(moved.message.startswith("MOVED "), moved)
            # BF.MERGE needs all its keys in one slot.
            key_on_b = keys_by_port[port_b][0]
            crossed = clients[port_a].call("BF.MERGE", key_on_a, key_on_a, key_on_b)
            self.assertIsInstance(crossed, ReplyError)
            self.assertTrue(crossed.message.startswith("CROSSSLOT") or crossed.message.startswith("MOVED"),
                            crossed)
            c = clients[port_a]
            self.assertEqual(c.call("BF.ADD", "{%s}:src" % key_on_a, "same-slot"), 1)
            self.assertEqual(c.call("BF.INSERT", "{%s}:dst" % key_on_a, "ITEMS", "mine"), [1])
            self.assertEqual(c.call("BF.MERGE", "{%s}:dst" % key_on_a, "{%s}:src" % key_on_a), Simple(b"OK"))
            self.assertEqual(c.call("BF.MEXISTS", "{%s}:dst" % key_on_a, "same-slot", "mine"), [1, 1])

            # Every other kind in the same slot moves with it: a cuckoo filter, a counting
            # filter and a windowed filter (whose clock moves with its bytes).
            cf, cbf, tbf = ("{%s}:%s" % (key_on_a, kind) for kind in ("cf", "cbf", "tbf"))
            c.call("CF.RESERVE", cf, 1000)
            c.call("CF.INSERT", cf, "ITEMS", *["c%d" % j for j in range(500)])
            c.call("CBF.RESERVE", cbf, "0.01", 1000)
            for j in range(200):
                c.call("CBF.ADD", cbf, "n%d" % j)
            self.assertEqual(c.call("TBF.RESERVE", tbf, "0.01", 1000, "WINDOW", 3600), Simple(b"OK"))
            c.call("TBF.MADD", tbf, *["t%d" % j for j in range(500)])
            dumps = {key: c.call("DUMP", key) for key in (cf, cbf, tbf)}

            # Reshard the slot of key_on_a from node A to node B.
            slot = c.call("CLUSTER", "KEYSLOT", key_on_a)
            before = dump_bytes(c, "BF", key_on_a)
            dst, src = clients[port_b], clients[port_a]
            self.assertEqual(dst.call("CLUSTER", "SETSLOT", slot, "IMPORTING", ids[port_a]), Simple(b"OK"))
            self.assertEqual(src.call("CLUSTER", "SETSLOT", slot, "MIGRATING", ids[port_b]), Simple(b"OK"))
            keys = src.call("CLUSTER", "GETKEYSINSLOT", slot, 100)
            self.assertIn(key_on_a.encode(), keys)
            self.assertEqual(src.call("MIGRATE", "127.0.0.1", port_b, "", 0, 10000, "KEYS", *keys), Simple(b"OK"))
            for port in (port_a, port_b, nodes[2].port):
                self.assertEqual(clients[port].call("CLUSTER", "SETSLOT", slot, "NODE", ids[port_b]), Simple(b"OK"))
            wait_for(lambda: owner(slot) == port_b, what="slot ownership")
            self.assertEqual(dump_bytes(dst, "BF", key_on_a), before)
            self.assertTrue(all(dst.call("BF.MEXISTS", key_on_a, *["%s:%d" % (key_on_a, j) for j in range(1500)])))
            self.assertEqual(dst.call("BF.MEXISTS", "{%s}:dst" % key_on_a, "same-slot", "mine"), [1, 1])
            for key, dumped in dumps.items():
                self.assertEqual(dst.call("DUMP", key), dumped, key)
            self.assertEqual(dst.call("CF.MEXISTS", cf, *["c%d" % j for j in range(500)]), [1] * 500)
            self.assertEqual(dst.call("CBF.COUNT", cbf, "n7"), 1)
            self.assertEqual(dst.call("TBF.MEXISTS", tbf, *["t%d" % j for j in range(500)]), [1] * 500)
            self.assertEqual(dst.call("TBF.CARD", tbf), 500)
            moved = src.call("BF.EXISTS", key_on_a, "x")
            self.assertTrue(isinstance(moved, ReplyError) and moved.message.startswith("MOVED"), moved)
            for client in clients.values():
                client.close()
        finally:
            for node in nodes:
                node.cleanup()


if __name__ == "__main__":
    main()
