# SPDX-License-Identifier: Apache-2.0
"""Crash safety of filter files: `bloomkit add FILE keys` is killed with SIGKILL at
random moments (at least 200 kills over several filter kinds, raw and compressed).
After every kill the file on disk must be, byte for byte, either the filter before
that add or the filter after it, and `bloomkit info FILE --json` must load it (magic,
lengths, checksum, parameters all valid); never a torn or partial file.

The filter after each add is computed by running the same add, unkilled, on a copy.
Kill moments are uniform over [0, 1.3 x the unkilled run time], so they land in every
phase: start-up, loading, adding, writing the temporary file, fsync, rename."""

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from faultlib import CLI, cli_main, run_cli

KILLS = 210
TIME_BUDGET_S = 100

# Windowed filters save the time they were last given: one fixed clock for every run, so
# that the reference add (on a copy) and the killed add write the same bytes.
os.environ["BLOOMKIT_NOW_MS"] = "1800000000000"

# kind, create options; sized so that one add of a batch takes a few milliseconds and
# the save writes ~0.1-1 MB (so that kills land inside the write, not only around it).
KINDS = [
    ("classic", ["--kind", "classic", "--capacity", "300000", "--fp-rate", "0.01"]),
    ("classic-zstd", ["--kind", "classic", "--capacity", "300000", "--fp-rate", "0.01", "--compress"]),
    ("scalable", ["--kind", "scalable", "--capacity", "2000", "--fp-rate", "0.01"]),
    ("cuckoo", ["--kind", "cuckoo", "--capacity", "300000", "--fp-rate", "0.01"]),
    ("counting", ["--kind", "counting", "--capacity", "100000", "--fp-rate", "0.01"]),
    ("windowed", ["--kind", "windowed", "--capacity", "300000", "--fp-rate", "0.01", "--window", "24h"]),
    ("guava", ["--kind", "guava", "--capacity", "300000", "--fp-rate", "0.01"]),
]


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class CliSigkillTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bloomkit-sigkill-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def info(self, path):
        r = run_cli(["info", path, "--json"])
        self.assertEqual(r.returncode, 0, "info failed on %s: %s" % (path, r.stderr.decode(errors="replace")))
        return json.loads(r.stdout)

    def test_sigkill_during_add_leaves_old_or_new_file(self):
        rng = random.Random(20261130)
        start = time.time()
        outcomes = {"old": 0, "new": 0}
        kills = 0
        per_kind = (KILLS + len(KINDS) - 1) // len(KINDS)
        for name, create_args in KINDS:
            path = os.path.join(self.dir, name + ".bf")
            shadow = os.path.join(self.dir, name + ".shadow.bf")
            r = run_cli(["create", path] + create_args)
            self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
            for round_ in range(per_kind):
                # A new batch of keys each round: 1,000 to 5,000 fresh keys.
                batch = os.path.join(self.dir, "batch.txt")
                n = rng.randrange(1000, 5000)
                with open(batch, "w") as f:
                    f.write("".join("%s:%d:%d\n" % (name, round_, i) for i in range(n)))
                old = sha(path)
                shutil.copyfile(path, shadow)
                t0 = time.perf_counter()
                r = run_cli(["add", shadow, batch, "--no-progress"])
                unkilled_s = time.perf_counter() - t0
                self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
                new = sha(shadow)
                self.assertNotEqual(old, new, "an add of fresh keys must change the file")

                proc = subprocess.Popen([CLI, "add", path, batch, "--no-progress"], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
                time.sleep(rng.uniform(0, 1.3 * unkilled_s))
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                kills += 1
                now = sha(path)
                self.assertIn(now, (old, new), "%s round %d: the file is neither the old nor the new filter "
                              "after SIGKILL (exit %s)" % (name, round_, proc.returncode))
                outcomes["old" if now == old else "new"] += 1
                summary = self.info(path)
                self.assertEqual(summary.get("kind"), name.split("-")[0], summary)
                if now == old:
                    # The add never took effect: redo it so that the next round starts from
                    # a known filter (the shadow's bytes).
                    shutil.copyfile(shadow, path)
                self.assertLess(time.time() - start, TIME_BUDGET_S, "time budget exceeded after %d kills" % kills)
        leftovers = [f for f in os.listdir(self.dir) if not f.endswith((".bf", ".txt"))]
        print("\nsigkill: %d kills in %.1f s; file was the old filter %d times, the new one %d times; "
              "%d temporary files of killed saves present at the end" % (
                  kills, time.time() - start, outcomes["old"], outcomes["new"], len(leftovers)))
        # One completed save of each file removes the temporaries its killed saves left.
        with open(os.path.join(self.dir, "batch.txt"), "w") as f:
            f.write("final\n")
        for name, _ in KINDS:
            r = run_cli(["add", os.path.join(self.dir, name + ".bf"), os.path.join(self.dir, "batch.txt"),
                     "--no-progress"])
            self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        leftovers = [f for f in os.listdir(self.dir) if not f.endswith((".bf", ".txt"))]
        self.assertEqual(leftovers, [], "temporary files of killed saves survived a completed save")
        self.assertGreaterEqual(kills, 200)
        # Both outcomes must occur, or the kill moments did not cover the save.
        self.assertGreater(outcomes["old"], 0)
        self.assertGreater(outcomes["new"], 0)


if __name__ == "__main__":
    cli_main()
