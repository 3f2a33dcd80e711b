# SPDX-License-Identifier: Apache-2.0
"""Memory-mapped, read-only filters: the same answers as the loaded file, files made by
the CLI, a save while mapped, truncation, closing, and the kinds that cannot be mapped."""

from __future__ import annotations

import ast
import os
import threading

import pytest

import bloomkit

KEYS = [f"user:{i}" for i in range(5_000)]
ABSENT = [f"absent:{i}" for i in range(20_000)]


@pytest.fixture(params=["classic", "blocked"])
def saved(request, tmp_path):
    cls = bloomkit.KINDS[request.param]
    f = cls(capacity=len(KEYS), fp_rate=0.01)
    f.update(KEYS)
    path = tmp_path / f"{request.param}.bf"
    f.save(path)
    return f, path


def test_answers_equal_the_loaded_filter(saved):
    f, path = saved
    with bloomkit.open_mapped(path) as view:
        assert view.kind == f.kind
        assert len(view) == len(f) and view.count == f.count
        assert view.capacity == f.capacity and view.fp_rate == f.fp_rate
        assert view.file_bytes == os.path.getsize(path)
        assert view.header == bloomkit.inspect(path)
        assert all(k in view for k in KEYS)
        assert view.contains_many(KEYS) == [True] * len(KEYS)
        assert view.contains_many(ABSENT) == f.contains_many(ABSENT)  # false positives included
        out = bytearray(len(ABSENT))
        assert view.contains_into(ABSENT, out) == sum(f.contains_many(ABSENT))
        assert list(out) == [int(x) for x in f.contains_many(ABSENT)]
        assert [k in view for k in ABSENT[:500]] == f.contains_many(ABSENT[:500])
        owned = view.to_filter()
        assert type(owned) is type(f) and owned == f
        assert not view.truncated
    assert view.closed
    with pytest.raises(ValueError, match="closed"):
        "user:1" in view  # noqa: B015
    with pytest.raises(ValueError, match="closed"):
        view.contains_many(KEYS)


def test_a_cli_file_maps_and_answers_as_the_cli(cli, tmp_path):
    path = tmp_path / "cli.bf"
    cli("create", path, "--kind", "blocked", "--capacity", "10000")
    cli("add", path, input="\n".join(KEYS).encode() + b"\n")
    view = bloomkit.open_mapped(path, verify=True)
    assert bloomkit.verify(path)["count"] == view.count
    probes = KEYS[:100] + ABSENT[:900]
    cli_answers = cli("query", path, "--print", "present", input="\n".join(probes).encode() + b"\n", check=False).stdout
    present = {line for line in cli_answers.decode().splitlines()}
    assert [k in present for k in probes] == view.contains_many(probes)


def test_a_save_while_mapped_leaves_the_view_on_its_version(saved):
    f, path = saved
    view = bloomkit.open_mapped(path)
    with bloomkit.update_file(path) as g:
        g.update(ABSENT)
    assert all(k in bloomkit.load(path) for k in ABSENT[:100])
    assert view.contains_many(ABSENT) == f.contains_many(ABSENT)  # still the version it opened
    assert all(view.contains_many(KEYS))
    assert not view.truncated


def test_truncation_under_the_view_answers_true_never_crashes(saved):
    _, path = saved
    view = bloomkit.open_mapped(path)
    os.truncate(path, 0)
    assert all(view.contains_many(KEYS + ABSENT))  # never a false negative
    assert view.truncated


def test_kinds_and_files_that_cannot_be_mapped(tmp_path):
    counting = tmp_path / "c.bf"
    bloomkit.CountingBloomFilter(capacity=100).save(counting)
    with pytest.raises(bloomkit.UnsupportedError):
        bloomkit.open_mapped(counting)
    compressed = tmp_path / "z.bf"
    bloomkit.BloomFilter(capacity=100).save(compressed, compress=True)
    with pytest.raises(bloomkit.UnsupportedError):
        bloomkit.open_mapped(compressed)
    (tmp_path / "junk.bf").write_bytes(b"not a filter" * 20)
    with pytest.raises(bloomkit.BadMagicError):
        bloomkit.open_mapped(tmp_path / "junk.bf")


def test_verify_finds_a_flipped_payload_bit(saved):
    _, path = saved
    data = bytearray(path.read_bytes())
    data[-20] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(bloomkit.ChecksumMismatchError):
        bloomkit.verify(path)
    with pytest.raises(bloomkit.ChecksumMismatchError):
        bloomkit.open_mapped(path, verify=True)
    bloomkit.open_mapped(path).close()  # without verify, only the header is checked


def test_threads_query_while_another_closes(saved):
    _, path = saved
    view = bloomkit.open_mapped(path)
    errors = []

    def query():
        for _ in range(20):
            try:
                assert all(view.contains_many(KEYS))
            except ValueError as e:  # closed: a clean error, never a crash
                errors.append(str(e))
                return

    threads = [threading.Thread(target=query) for _ in range(3)]
    for t in threads:
        t.start()
    view.close()
    for t in threads:
        t.join()
    assert all("closed" in e for e in errors)


# A child process: views closed by one thread while others call every member of the view.
CLOSE_RACE = r"""
import random, sys, threading, time
import bloomkit

path, rounds = sys.argv[1], int(sys.argv[2])
keys = [f"user:{i}" for i in range(2_000)]
out = bytearray(len(keys))
CALLS = {
    "__contains__": lambda v: "user:1" in v,
    "__enter__": lambda v: v.__enter__(),
    "__exit__": lambda v: v.__exit__(None, None, None),
    "__len__": len,
    "__repr__": repr,
    "capacity": lambda v: v.capacity,
    "close": lambda v: v.close(),
    "closed": lambda v: v.closed,
    "contains_into": lambda v: v.contains_into(keys, out),
    "contains_many": lambda v: v.contains_many(keys),
    "count": lambda v: v.count,
    "file_bytes": lambda v: v.file_bytes,
    "fp_rate": lambda v: v.fp_rate,
    "header": lambda v: v.header,
    "kind": lambda v: v.kind,
    "to_filter": lambda v: v.to_filter(),
    "truncated": lambda v: v.truncated,
}
# Every member of the class is called: a new one fails here until it is added above.
members = set(vars(bloomkit.MappedFilter)) - {"__init__", "__module__", "__doc__"}
assert members == set(CALLS), sorted(members ^ set(CALLS))
# close() and __exit__ race as the closer does; the others race with it.
QUERIES = [call for name, call in CALLS.items() if name not in ("close", "__exit__")]
errors = {}

def hammer(view, stop):
    while not stop.is_set():
        for call in QUERIES:
            try:
                call(view)
            except ValueError as e:
                errors[str(e)] = errors.get(str(e), 0) + 1

for i in range(rounds):
    view = bloomkit.open_mapped(path)
    stop = threading.Event()
    threads = [threading.Thread(target=hammer, args=(view, stop)) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(random.random() / 1000)
    (view.close if i % 2 else lambda: view.__exit__(None, None, None))()
    time.sleep(random.random() / 2000)
    stop.set()
    for t in threads:
        t.join()
print(errors)
"""


@pytest.mark.parametrize("kind", ["classic", "blocked"])
def test_close_races_every_member_of_the_view_without_a_crash(kind, tmp_path, run_python):
    # `key in view` and to_filter() read the view under its lock: without it, a close() from
    # another thread unmaps it under them (SIGSEGV). A filter of 2.4 MB: to_filter() copies
    # it for a while.
    path = tmp_path / "big.bf"
    bloomkit.KINDS[kind](capacity=2_000_000).save(path)
    result = run_python(CLOSE_RACE, path, 60, timeout=120)
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr[-2000:]}"
    errors = ast.literal_eval(result.stdout)  # {message: count}
    assert set(errors) == {"the mapped filter is closed"}, errors
