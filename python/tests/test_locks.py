# SPDX-License-Identifier: Apache-2.0
"""Locked updates: writers in separate processes, Python and the CLI, never lose each
other's keys; a writer that waits too long gets LockedError; links are followed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import bloomkit

ROUNDS = 50

# One writer process: `rounds` locked read-modify-writes, each adding one key of its own.
# The pause inside the block widens the window in which an unlocked update loses the
# other writer's key (without the lock, rounds lose keys every run).
WRITER = textwrap.dedent(
    """
    import sys, time
    import bloomkit
    path, name, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    create = (lambda: bloomkit.BloomFilter(capacity=10_000)) if len(sys.argv) > 4 else None
    for i in range(rounds):
        with bloomkit.update_file(path, create=create) as f:
            time.sleep(0.002)
            f.add(f"{name}{i}")
    """
)


def start_writer(path, name, rounds, create=False):
    args = [sys.executable, "-c", WRITER, str(path), name, str(rounds)] + (["create"] if create else [])
    return subprocess.Popen(args, env=os.environ.copy())


def test_two_python_writers_lose_nothing(tmp_path):
    path = tmp_path / "seen.bf"
    bloomkit.BloomFilter(capacity=10_000).save(path)
    writers = [start_writer(path, name, ROUNDS) for name in ("a", "b")]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    f = bloomkit.load(path)
    missing = [f"{n}{i}" for n in "ab" for i in range(ROUNDS) if f"{n}{i}" not in f]
    assert missing == []


def test_python_and_cli_writers_lose_nothing(cli, tmp_path):
    path = tmp_path / "seen.bf"
    bloomkit.BloomFilter(capacity=10_000).save(path)
    writer = start_writer(path, "py", ROUNDS)
    for i in range(ROUNDS):
        cli("add", path, input=f"cli{i}\n".encode())
    assert writer.wait(timeout=120) == 0
    f = bloomkit.load(path)
    missing = [k for i in range(ROUNDS) for k in (f"py{i}", f"cli{i}") if k not in f]
    assert missing == []


def test_writers_that_create_the_file_do_not_replace_each_other(tmp_path):
    for round_ in range(10):
        path = tmp_path / f"new{round_}.bf"
        writers = [start_writer(path, name, 1, create=True) for name in ("a", "b")]
        assert [w.wait(timeout=60) for w in writers] == [0, 0]
        f = bloomkit.load(path)
        assert "a0" in f and "b0" in f, f"round {round_}: a writer's key was lost"


def test_a_held_lock_makes_writers_wait_then_fail(cli, tmp_path):
    path = tmp_path / "seen.bf"
    bloomkit.BloomFilter(capacity=100).save(path)
    before = path.read_bytes()
    with bloomkit.FileLock(path) as lock:
        assert lock.held
        with pytest.raises(bloomkit.LockedError, match="locked by another writer"):
            with bloomkit.update_file(path, wait=0.1) as f:
                f.add("never")
        run = cli("add", "--wait", "0.1", path, input=b"never\n", check=False)
        assert run.returncode == 3
        assert b"locked by another writer" in run.stderr
    assert not lock.held
    assert path.read_bytes() == before
    with bloomkit.update_file(path, wait=0.1) as f:
        f.add("now")
    assert "now" in bloomkit.load(path)


def test_lock_errors_are_clear(tmp_path):
    with pytest.raises(bloomkit.FileError, match="cannot open"):
        bloomkit.FileLock(tmp_path / "missing.bf")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(bloomkit.FileError, match="not a regular file"):
        bloomkit.FileLock(tmp_path / "fifo", wait=0)


def test_update_through_a_link_updates_its_target(tmp_path):
    target = tmp_path / "real.bf"
    link = tmp_path / "link.bf"
    bloomkit.BloomFilter(capacity=100).save(target)
    os.symlink(target, link)
    with bloomkit.update_file(link) as f:
        f.add("via-link")
    assert link.is_symlink()
    assert "via-link" in bloomkit.load(target)
    assert bloomkit.FileLock(link).path == str(target)
