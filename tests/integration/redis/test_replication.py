# SPDX-License-Identifier: Apache-2.0
"""Replication: a replica started with --replicaof ends with filters identical to the
primary's (same SCANDUMP bytes), both for data present at the initial sync (RDB
transfer) and for every write command replicated afterwards, LOADCHUNK included."""

import unittest

from harness import ReplyError, Server, Simple, main, time_limit, wait_for

from test_persistence import FAMILIES, dump_bytes, populate, scandump


class ReplicationTest(unittest.TestCase):
    @time_limit(90)
    def test_replica_has_identical_filters(self):
        with Server(["SCANDUMP_CHUNK_BYTES", "4096"], extra=["--repl-diskless-sync-delay", "0"]) as primary:
            with primary.client() as p:
                populate(p)  # before the replica exists: goes over the initial RDB sync
            replica = Server(["SCANDUMP_CHUNK_BYTES", "4096"], extra=["--replicaof", "127.0.0.1", str(primary.port)])
            with replica:
                with replica.client() as r, primary.client() as p:
                    wait_for(lambda: b"master_link_status:up" in r.call("INFO", "replication"), what="sync")
                    # Writes after the sync travel as replicated commands.
                    p.call("BF.MADD", "bf", *["late-%d" % i for i in range(2000)])
                    p.call("BF.INSERT", "bf:new", "CAPACITY", "50", "ITEMS", *["x%d" % i for i in range(500)])
                    p.call("CF.ADD", "cf", "late")
                    p.call("CF.DEL", "cf", "c1")
                    p.call("CF.ADDNX", "cf:new", "y")
                    p.call("CBF.ADD", "cbf", "late")
                    p.call("CBF.DEL", "cbf", "k1")
                    p.ok("BF.RESERVE", "{g}a", "0.01", "100")
                    p.call("BF.ADD", "{g}a", "merged")
                    p.ok("BF.MERGE", "{g}u", "{g}a")
                    # LOADCHUNK on the primary rebuilds the filter on the replica too.
                    for it, data in scandump(p, "BF.SCANDUMP", "bf"):
                        p.ok("BF.LOADCHUNK", "bf:loaded", it, data)
                    offset = p.call("INFO", "replication")
                    target = int([line for line in offset.decode().split("\r\n")
                                  if line.startswith("master_repl_offset:")][0].split(":")[1])

                    def caught_up():
                        info = r.call("INFO", "replication").decode()
                        line = [x for x in info.split("\r\n") if x.startswith("slave_repl_offset:")][0]
                        return int(line.split(":")[1]) >= target

                    wait_for(caught_up, what="replica offset")
                    keys = sorted(p.call("KEYS", "*"))
                    self.assertEqual(sorted(r.call("KEYS", "*")), keys)
                    for key in keys:
                        family = {b"bloomkitB": "BF", b"bloomkitC": "CF", b"bloomkitN": "CBF"}[
                            bytes(p.call("TYPE", key))]
                        self.assertEqual(dump_bytes(r, family, key), dump_bytes(p, family, key), key)
                    self.assertEqual(r.call("BF.EXISTS", "bf:loaded", "late-5"), 1)
                    # The replica is read-only for writes, readable for queries.
                    self.assertIsInstance(r.call("BF.ADD", "bf", "z"), ReplyError)
                    self.assertEqual(r.call("BF.EXISTS", "{g}u", "merged"), 1)


if __name__ == "__main__":
    main()
