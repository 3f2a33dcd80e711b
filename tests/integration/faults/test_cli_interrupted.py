# SPDX-License-Identifier: Apache-2.0
"""A bloomkit run interrupted by a signal applies all of its changes or none of them,
and its exit status says which: ended by the signal = the file as before; exit 0 = the
whole run saved. (docs/CLI.md: the save's rename is the commit; from then on the signals
that would end the process are held until it exits.)

- SIGINT, SIGTERM and SIGHUP while add, remove or dedup wait for more keys on stdin:
  the process ends by the signal and the file is unchanged.
- A signal after the rename: stderr is a pipe nobody reads, and the run writes to stderr
  only after its save (add's overfull warning, remove's warning, dedup's summary), which
  raised SIGPIPE there. The run must end with exit 0, as its file changed.
- SIGINT or SIGTERM at a moment uniform over [0, 1.3 x the run time] of an add of 100,000
  keys to counting and cuckoo filters (where a retry of an applied run would count every
  key twice): after each run, ended by the signal => the old bytes, exit 0 => the bytes of
  the same add run to completion, and no temporary file is left behind.
"""

import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from faultlib import CLI, cli_main, run_cli

ROUNDS = 40
TIME_BUDGET_S = 15


def read(path):
    with open(path, "rb") as f:
        return f.read()


class CliInterruptedTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bloomkit-interrupted-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def make(self, name, kind, capacity, keys):
        path = self.path(name)
        self.assertEqual(run_cli(["create", path, "--kind", kind, "--capacity", capacity]).returncode, 0)
        if keys:
            r = run_cli(["add", path], input="".join(f"k{i}\n" for i in range(keys)).encode())
            self.assertEqual(r.returncode, 0, r.stderr)
        return path

    def test_a_signal_while_keys_are_read_changes_nothing(self):
        counting = self.make("c.cf", "counting", 10000, 500)
        classic = self.make("s.bf", "classic", 10000, 500)
        for command, path in (("add", counting), ("remove", counting), ("dedup", classic)):
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                with self.subTest(command=command, signal=sig.name):
                    before = read(path)
                    proc = subprocess.Popen([CLI, command, path, "--no-progress"], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                    proc.stdin.write("".join(f"k{i}\n" for i in range(300)).encode())
                    proc.stdin.flush()
                    time.sleep(0.2)  # the keys are read; the run waits for more
                    proc.send_signal(sig)
                    proc.communicate(timeout=60)
                    self.assertEqual(proc.returncode, -sig)
                    self.assertEqual(read(path), before)
                    self.assertEqual(sorted(os.listdir(self.dir)), ["c.cf", "s.bf"])

    def test_a_run_that_changed_the_file_does_not_end_by_a_signal(self):
        overfull = self.make("o.bf", "classic", 100, 0)
        counting = self.make("c.cf", "counting", 1000, 200)
        classic = self.make("s.bf", "classic", 1000, 0)
        keys = "".join(f"k{i}\n" for i in range(300)).encode()  # k200..k299 were never added to c.cf
        for command, path in (("add", overfull), ("remove", counting), ("dedup", classic)):
            with self.subTest(command=command):
                before = read(path)
                read_end, write_end = os.pipe()
                os.close(read_end)  # stderr: a write there raises SIGPIPE
                try:
                    r = run_cli([command, path, "--no-progress"], input=keys, stderr=write_end)
                finally:
                    os.close(write_end)
                self.assertNotEqual(read(path), before, "the run saved its changes")
                self.assertEqual(r.returncode, 0, "the run saved, so it must not end by a signal")

    def test_random_interrupts_apply_all_or_nothing(self):
        keys = self.path("keys.txt")
        with open(keys, "w") as f:
            f.write("".join(f"key:{i}\n" for i in range(100_000)))
        deadline = time.monotonic() + TIME_BUDGET_S
        outcomes = {"none": 0, "all": 0}
        for kind in ("counting", "cuckoo"):
            path = self.make(f"{kind}.bf", kind, 300_000, 1000)
            old = read(path)
            copy = self.path("reference.bf")
            shutil.copyfile(path, copy)
            start = time.monotonic()
            self.assertEqual(run_cli(["add", copy, keys]).returncode, 0)
            took = time.monotonic() - start
            new = read(copy)
            os.remove(copy)
            for i in range(ROUNDS):
                if time.monotonic() > deadline:
                    break
                sig = (signal.SIGINT, signal.SIGTERM)[i % 2]
                proc = subprocess.Popen([CLI, "add", path, keys], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                time.sleep(random.uniform(0, 1.3 * took))
                proc.send_signal(sig)
                proc.communicate(timeout=60)
                got = read(path)
                if proc.returncode == -sig:
                    self.assertEqual(got, old, f"{kind}: ended by {sig.name}, but the file changed")
                    outcomes["none"] += 1
                else:
                    self.assertEqual(proc.returncode, 0, f"{kind}: exit {proc.returncode}")
                    self.assertEqual(got, new, f"{kind}: exit 0, but not the completed add")
                    outcomes["all"] += 1
                with open(path, "wb") as f:  # back to the old filter for the next round
                    f.write(old)
        print(f"interrupted runs: {outcomes['none']} applied nothing, {outcomes['all']} applied everything")
        self.assertGreater(outcomes["none"] + outcomes["all"], 10)
        # The signals are held while a save writes its temporary file: none is left.
        self.assertEqual(sorted(os.listdir(self.dir)), ["counting.bf", "cuckoo.bf", "keys.txt"])


if __name__ == "__main__":
    cli_main()
