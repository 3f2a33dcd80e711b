# SPDX-License-Identifier: Apache-2.0
"""A CF insert that fails ("Filter is full") changes nothing, so a primary, its replica
and an AOF replay after kill -9 hold byte-identical filters (DUMP), and every item the
primary acknowledged is still there. Redis replicates and logs only successful writes:
a failure that moved fingerprints made the replica diverge, and later CF.DEL/CF.ADD
on the diverged copy lost acknowledged items."""

import random
import unittest

from harness import ReplyError, Server, main, time_limit, wait_for

RECIPE = [["CF.RESERVE", "k", "64", "BUCKETSIZE", "2", "MAXITERATIONS", "20", "EXPANSION", "0"]] + \
    [["CF.ADD", "k", "f%d" % i] for i in range(400)]


def run(client, ops):
    """Runs CF.RESERVE/CF.ADD `ops`; returns the items acknowledged, and the failures."""
    present = {}
    failures = 0
    for op, reply in zip(ops, client.pipeline(ops)):
        if op[0] != "CF.ADD":
            continue
        if isinstance(reply, ReplyError):
            failures += 1
            assert "Filter is full" in str(reply), reply
        else:
            present[(op[1], op[2])] = present.get((op[1], op[2]), 0) + 1
    return present, failures


def fill_and_delete(client, seed, count=3000):
    """Adds and deletes on a small key space, so the filter stays full and inserts fail
    often. Deletes name only items acknowledged and not yet deleted (a cuckoo filter's
    contract: remove only what you added)."""
    rng = random.Random(seed)
    client.ok("CF.RESERVE", "r", "100", "BUCKETSIZE", "4", "MAXITERATIONS", "30", "EXPANSION", "0")
    present = {}
    failures = 0
    for _ in range(count):
        held = [k for k, n in present.items() if n > 0]
        if held and rng.random() < 0.3:
            key = rng.choice(held)
            assert client.call("CF.DEL", "r", key[1]) == 1, key
            present[key] -= 1
            continue
        item = "i%d" % rng.randrange(300)
        reply = client.call("CF.ADD", "r", item)
        if isinstance(reply, ReplyError):
            assert "Filter is full" in str(reply), reply
            failures += 1
        else:
            present[("r", item)] = present.get(("r", item), 0) + 1
    return present, failures


def replication_offset(client, field):
    info = client.call("INFO", "replication").decode()
    return int([x for x in info.split("\r\n") if x.startswith(field + ":")][0].split(":")[1])


class CuckooFailedInsertTest(unittest.TestCase):
    def check_present(self, client, present):
        for (key, item), copies in present.items():
            if copies > 0:
                self.assertEqual(client.call("CF.EXISTS", key, item), 1, (key, item))

    @time_limit(120)
    def test_replica_holds_the_same_bytes(self):
        with Server(extra=["--repl-diskless-sync-delay", "0"]) as primary:
            replica = Server(extra=["--replicaof", "127.0.0.1", str(primary.port)])
            with replica, primary.client() as p, replica.client() as r:
                wait_for(lambda: b"master_link_status:up" in r.call("INFO", "replication"), what="sync")
                present, failures = run(p, RECIPE)
                self.assertGreater(failures, 100)
                more, failures = fill_and_delete(p, 1)
                present.update(more)
                self.assertGreater(failures, 100)
                target = replication_offset(p, "master_repl_offset")
                wait_for(lambda: replication_offset(r, "slave_repl_offset") >= target, what="replica offset")
                for key in ("k", "r"):
                    self.assertEqual(r.call("DUMP", key), p.call("DUMP", key), key)
                self.check_present(r, present)

    @time_limit(120)
    def test_aof_replay_after_kill_holds_the_same_bytes(self):
        with Server(extra=["--appendonly", "yes", "--appendfsync", "always"]) as server:
            with server.client() as c:
                present, _ = run(c, RECIPE)
                more, _ = fill_and_delete(c, 2)
                present.update(more)
                before = {key: c.call("DUMP", key) for key in ("k", "r")}
            server.proc.kill()  # SIGKILL: nothing but the AOF survives
            server.proc.wait()
            server.start(timeout=20)
            with server.client() as c:
                for key, dump in before.items():
                    self.assertEqual(c.call("DUMP", key), dump, key)
                self.check_present(c, present)


if __name__ == "__main__":
    main()
