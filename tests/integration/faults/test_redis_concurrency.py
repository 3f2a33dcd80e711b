# SPDX-License-Identifier: Apache-2.0
"""Concurrency: eight clients at once for a bounded time, four adding (BF.MADD of
fresh items, CF.ADD) and four querying (BF.MEXISTS / BF.EXISTS of items whose add was
already acknowledged, plus absent ones). No query ever reports an acknowledged item
missing while the adds go on, and afterwards every acknowledged add is present:
zero false negatives."""

import random
import threading
import time
import unittest

from faultlib import Resp, Server, Simple, main, missing, time_limit

DURATION_S = 6


class ConcurrencyTest(unittest.TestCase):
    @time_limit(60)
    def test_concurrent_madd_and_exists(self):
        server = Server()
        server.start()
        try:
            with server.client() as c:
                self.assertEqual(c.call("BF.RESERVE", "bf", "0.01", "1000", "EXPANSION", "2"), Simple(b"OK"))
                self.assertEqual(c.call("CF.RESERVE", "cf", "1000", "EXPANSION", "2"), Simple(b"OK"))
            stop = threading.Event()
            lock = threading.Lock()
            acked = {"bf": [], "cf": []}
            failures = []
            queries = [0]

            def adder(n):
                rng = random.Random(n)
                try:
                    with Resp(server.port) as c:
                        i = 0
                        while not stop.is_set():
                            items = ["w%d:%d" % (n, i + j) for j in range(rng.randrange(1, 200))]
                            i += len(items)
                            reply = c.call("BF.MADD", "bf", *items)
                            if not isinstance(reply, list):
                                failures.append(("BF.MADD", reply))
                                return
                            item = "w%d:%d" % (n, i)
                            i += 1
                            if c.call("CF.ADD", "cf", item) != 1:
                                failures.append(("CF.ADD", item))
                                return
                            with lock:
                                acked["bf"].extend(items)
                                acked["cf"].append(item)
                except Exception as e:
                    failures.append(repr(e))

            def querier(n):
                rng = random.Random(100 + n)
                try:
                    with Resp(server.port) as c:
                        while not stop.is_set():
                            with lock:
                                pool = acked["bf"][-5000:]
                                cf_pool = acked["cf"][-500:]
                            if not pool:
                                time.sleep(0.001)
                                continue
                            sample = [rng.choice(pool) for _ in range(100)]
                            reply = c.call("BF.MEXISTS", "bf", *(sample + ["absent:%d" % n]))
                            if reply[:-1] != [1] * len(sample):
                                failures.append(("false negative during adds", sample, reply))
                                return
                            if c.call("BF.EXISTS", "bf", rng.choice(pool)) != 1:
                                failures.append("BF.EXISTS false negative")
                                return
                            if c.call("CF.EXISTS", "cf", rng.choice(cf_pool)) != 1:
                                failures.append("CF.EXISTS false negative")
                                return
                            queries[0] += 1
                except Exception as e:
                    failures.append(repr(e))

            threads = [threading.Thread(target=adder, args=(n,), daemon=True) for n in range(4)]
            threads += [threading.Thread(target=querier, args=(n,), daemon=True) for n in range(4)]
            for t in threads:
                t.start()
            time.sleep(DURATION_S)
            stop.set()
            for t in threads:
                t.join(20)
                self.assertFalse(t.is_alive())
            self.assertEqual(failures, [])
            with server.client() as c:
                self.assertEqual(missing(c, "BF.MEXISTS", "bf", acked["bf"]), [])
                self.assertEqual(missing(c, "CF.MEXISTS", "cf", acked["cf"]), [])
                stages = c.call("BF.INFO", "bf", "FILTERS")[0]
            self.assertGreater(stages, 1, "the filter should have grown while being read")
            print("\nconcurrency: %d BF and %d CF acknowledged adds, %d query rounds, %d BF stages; no false "
                  "negative" % (len(acked["bf"]), len(acked["cf"]), queries[0], stages))
        finally:
            server.cleanup()


if __name__ == "__main__":
    main()
