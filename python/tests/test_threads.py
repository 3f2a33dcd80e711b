# SPDX-License-Identifier: Apache-2.0
"""Filters shared by Python threads: batches run with the GIL released while other
threads add and query the same filter; nothing is lost and nothing crashes."""

from __future__ import annotations

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
