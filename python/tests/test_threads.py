# SPDX-License-Identifier: Apache-2.0
"""Filters shared by Python threads: batches run with the GIL released while other
threads add and query the same filter; nothing is lost and nothing crashes."""

from __future__ import annotations

import copy
import pickle
import threading

import pytest

import bloomkit


def run_threads(targets):
    errors = []

    def wrap(fn):
        def run():
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        return run

    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_every_kind_survives_batches_and_single_calls_from_threads(make):
    f = make()
    parts = [[f"t{t}:{i}" for i in range(20_000)] for t in range(3)]

    def batch(keys):
        return lambda: [f.update(keys[j : j + 5000]) for j in range(0, len(keys), 5000)]

    def singles():
        for i in range(5_000):
            f.add(f"single:{i}")
            assert f"single:{i}" in f

    def reader():
        for _ in range(20):
            f.contains_many(parts[0][:1000])
            f.info()

    run_threads([batch(parts[0]), batch(parts[1]), singles, reader, batch(parts[2])])
    for keys in parts:
        assert all(f.contains_many(keys))
    assert all(f.contains_many([f"single:{i}" for i in range(5_000)]))


@pytest.mark.parametrize("cls", [bloomkit.ConcurrentBloomFilter, bloomkit.ConcurrentBlockedBloomFilter])
def test_concurrent_kinds_add_from_threads_and_save_like_the_plain_kind(cls, tmp_path):
    f = cls(capacity=100_000)
    parts = [[f"w{t}:{i}".encode() for i in range(25_000)] for t in range(4)]
    run_threads([lambda keys=keys: f.update(keys) for keys in parts])
    plain = f.snapshot()
    assert all(plain.contains_many([k for keys in parts for k in keys]))
    f.save(tmp_path / "c.bf")
    assert bloomkit.load(tmp_path / "c.bf") == plain


def test_pickles_taken_during_an_update_load_and_hold_all_of_it_or_none(make, tmp_path):
    # __getstate__ takes the lock that to_bytes() takes: a pickle taken while another thread
    # is inside add_file() (one locked update, GIL released) waits for it. Without the lock
    # it reads the filter mid-update: a checksum or count mismatch, or half of the file's keys.
    f = type(make())(400_000)  # room for the keys in every kind
    keys = [f"file:{i}" for i in range(200_000)]
    path = tmp_path / "keys.txt"
    path.write_text("\n".join(keys) + "\n")
    started = threading.Event()

    def writer():
        started.set()
        f.add_file(path)

    t = threading.Thread(target=writer)
    t.start()
    started.wait()
    pickles = []
    while t.is_alive() or not pickles:  # the first pickle waits for add_file to finish
        pickles.append(pickle.dumps(f))
    t.join()
    loaded = [pickle.loads(s) for s in pickles]
    loaded += [type(f).from_bytes(copy.deepcopy(f).to_bytes()), type(f).from_bytes(f.to_bytes())]
    if type(f).__name__.startswith("Concurrent"):
        return  # adds run in parallel with reads by design: every state loads, none is torn
    empty = type(f)(400_000)
    for g in loaded:  # before the lock was taken, or after the update
        assert g == empty or (g == f and all(g.contains_many(keys))), f"a state with {len(g)} of {len(f)} keys"


# A child process (a crash must not take pytest down): pickles of a small filter taken in a
# loop while another thread adds keys, the growing kinds adding stages under them; 3 rounds.
PICKLE_WHILE_GROWING = r"""
import pickle, sys, threading
import bloomkit

with open(sys.argv[1], "rb") as file:
    empty = file.read()
keys = [f"k{i}" for i in range(100_000)]
for _ in range(3):
    f = pickle.loads(empty)
    done = threading.Event()

    def writer():
        try:
            for j in range(0, len(keys), 5_000):
                f.update(keys[j : j + 5_000])
        except bloomkit.FullError:
            pass
        finally:
            done.set()

    t = threading.Thread(target=writer)
    t.start()
    taken = 0
    while not done.is_set() or not taken:
        state = pickle.dumps(f)
        taken += 1
    t.join()
    pickle.loads(state)
    print(taken)
"""


def test_pickles_of_a_filter_growing_in_another_thread_never_crash(make, tmp_path, run_python):
    # A cuckoo filter growing while it is pickled: pickling without the filter's lock crashes
    # the process (SIGSEGV) in about half of the rounds.
    path = tmp_path / "small.pickle"
    path.write_bytes(pickle.dumps(type(make())(1_000)))
    result = run_python(PICKLE_WHILE_GROWING, path, timeout=60)
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr[-2000:]}"
    assert len(result.stdout.split()) == 3


@pytest.mark.parametrize(
    "cls", [bloomkit.CountingBloomFilter, bloomkit.CuckooFilter, bloomkit.RedisCuckooFilter]
)
def test_key_count_reads_its_key_before_it_waits_for_the_lock(cls, tmp_path):
    # key_count() waits for the filter's lock with the GIL released. A bytearray key changed
    # by another thread meanwhile must not change the answer: the key is copied first (as
    # discard() copies it). A view of the bytearray's buffer would count whatever the buffer
    # held when the lock came free (or freed memory, after a resize).
    f = cls(400_000)
    key = bytearray(b"present-key-0001")
    f.add(bytes(key))
    path = tmp_path / "keys.txt"
    path.write_text("\n".join(f"file:{i}" for i in range(200_000)) + "\n")
    started = threading.Event()
    answers = []

    def writer():
        started.set()
        f.add_file(path)  # one locked update, GIL released

    def reader():
        answers.append(f.key_count(key))

    w = threading.Thread(target=writer)
    w.start()
    started.wait()
    r = threading.Thread(target=reader)
    r.start()
    while w.is_alive() and r.is_alive():
        key[:] = b"absent!-key-0001"  # same length: the buffer stays, its bytes change
        key[:] = b"present-key-0001"
        key[:] = b"absent!-key-0001"
    w.join()
    r.join()
    assert answers == [1]
