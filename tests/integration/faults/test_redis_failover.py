# SPDX-License-Identifier: Apache-2.0
"""Primary and replica: a client adds to a filter on the primary and, after each
batch, asks WAIT 1 whether the replica has it. The primary is killed with SIGKILL
mid-stream and the replica promoted (REPLICAOF NO ONE): every add acknowledged by the
primary and confirmed replicated by WAIT before the kill is present on the new
primary, for BF, CF and CBF filters. Adds after the promotion work."""

import random
import unittest

from faultlib import Server, Simple, kill9, main, missing, time_limit, wait_for


class FailoverTest(unittest.TestCase):
    @time_limit(90)
    def test_promoted_replica_keeps_every_replicated_add(self):
        rng = random.Random(11)
        primary = Server()
        primary.start()
        replica = Server(extra=["--replicaof", "127.0.0.1", str(primary.port)])
        replica.start()
        try:
            with replica.client() as r:
                wait_for(lambda: b"master_link_status:up" in r.call("INFO", "replication"), what="replica link")
            replicated = {"bf": [], "cf": [], "cbf": []}
            unconfirmed = 0
            with primary.client() as c:
                self.assertEqual(c.call("BF.RESERVE", "bf", "0.01", "10000"), Simple(b"OK"))
                self.assertEqual(c.call("CF.RESERVE", "cf", "10000"), Simple(b"OK"))
                self.assertEqual(c.call("CBF.RESERVE", "cbf", "0.01", "10000"), Simple(b"OK"))
                kill_after = rng.randrange(40, 60)
                for n in range(kill_after):
                    bf_items = ["bf:%d:%d" % (n, i) for i in range(100)]
                    cf_item, cbf_item = "cf:%d" % n, "cbf:%d" % n
                    replies = c.pipeline([["BF.MADD", "bf"] + bf_items, ["CF.ADD", "cf", cf_item],
                                          ["CBF.ADD", "cbf", cbf_item]])
                    self.assertIsInstance(replies[0], list, replies)
                    self.assertEqual(replies[1:], [1, 1], replies)
                    if c.call("WAIT", 1, 2000) == 1:
                        replicated["bf"] += bf_items
                        replicated["cf"].append(cf_item)
                        replicated["cbf"].append(cbf_item)
                    else:
                        unconfirmed += 1
                # Acknowledged but not waited for: may or may not survive (not checked).
                c.send("BF.MADD", "bf", *["late:%d" % i for i in range(1000)])
            kill9(primary)
            with replica.client() as r:
                self.assertEqual(r.call("REPLICAOF", "NO", "ONE"), Simple(b"OK"))
                self.assertEqual(missing(r, "BF.MEXISTS", "bf", replicated["bf"]), [])
                self.assertEqual(missing(r, "CF.MEXISTS", "cf", replicated["cf"]), [])
                lost_cbf = [i for i in replicated["cbf"] if r.call("CBF.EXISTS", "cbf", i) != 1]
                self.assertEqual(lost_cbf, [])
                # The promoted replica takes writes.
                self.assertEqual(r.call("BF.ADD", "bf", "after-promotion"), 1)
                self.assertEqual(r.call("BF.EXISTS", "bf", "after-promotion"), 1)
            self.assertGreater(len(replicated["bf"]), 0)
            print("\nfailover: %d BF, %d CF, %d CBF adds confirmed by WAIT before the kill, all present after "
                  "promotion (%d batches unconfirmed)" % (len(replicated["bf"]), len(replicated["cf"]),
                                                          len(replicated["cbf"]), unconfirmed))
        finally:
            replica.cleanup()
            primary.cleanup()


if __name__ == "__main__":
    main()
