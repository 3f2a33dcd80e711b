# SPDX-License-Identifier: Apache-2.0
"""Memory-mapped, read-only filters: the same answers as the loaded file, files made by
the CLI, a save while mapped, truncation, closing, and the kinds that cannot be mapped."""

from __future__ import annotations

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
