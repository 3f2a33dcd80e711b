# SPDX-License-Identifier: Apache-2.0
"""The interpreter exits while daemon threads are inside batches of every kind: the process
ends with its own exit code, never "terminate called without an active exception" (SIGABRT)."""

from __future__ import annotations

import pickle

import bloomkit

# A child process: daemon threads loop over batch calls on one filter (or a mapped view),
# each with the GIL released most of the time; the main thread exits once every loop ran.
CHILD = r"""
import pickle, sys, threading
import bloomkit

what, path = sys.argv[1:]
keys = [f"key:{i}" for i in range(30_000)]
out = bytearray(len(keys))
if what == "mapped":
    f = bloomkit.open_mapped(path)
    ops = [lambda: f.contains_many(keys), lambda: f.contains_into(keys, out), lambda: [k in f for k in keys[:100]]]
else:
    with open(path, "rb") as file:
        f = pickle.load(file)
    ops = [
        lambda: f.update(keys),
        lambda: f.update(k for k in keys),  # a generator: Python code runs inside the batch
        lambda: f.contains_many(keys),
        lambda: f.contains_into(keys, out),
        lambda: f.to_bytes(),
        lambda: pickle.dumps(f),
        lambda: [len(f) for _ in range(100)],  # waits for the lock of the batches, GIL released
    ]
ran = []

def loop(op):
    while True:
        try:
            op()
        except bloomkit.FullError:
            pass
        ran.append(op)

for op in ops:
    threading.Thread(target=loop, args=(op,), daemon=True).start()
while len(set(ran)) < len(ops):
    pass
print("exiting", flush=True)
"""



def exits_normally(run_python, what, path):
    for _ in range(2):  # before GilRelease, every run aborted
        result = run_python(CHILD, what, path, timeout=60)
        assert "terminate called" not in result.stderr
        assert result.returncode == 0, result.stderr[-2000:]
        assert result.stdout == "exiting\n"


def test_exit_during_batches_of_every_kind_ends_the_process_normally(make, run_python, tmp_path):
    path = tmp_path / "filter.pickle"
    path.write_bytes(pickle.dumps(make()))
    exits_normally(run_python, "filter", path)


def test_exit_during_batches_of_a_mapped_view_ends_the_process_normally(run_python, tmp_path):
    path = tmp_path / "m.bf"
    f = bloomkit.BlockedBloomFilter(capacity=100_000)
    f.update(f"key:{i}" for i in range(0, 100_000, 2))
    f.save(path)
    exits_normally(run_python, "mapped", path)
