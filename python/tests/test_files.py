# SPDX-License-Identifier: Apache-2.0
"""Files and bytes: save/load of every kind, compressed or not, the error class of each
bad file, the atomic update, add_file, and files exchanged with the real CLI both ways."""

from __future__ import annotations

import json
import os

import pytest

import bloomkit

KEYS = [f"user:{i}" for i in range(1_000)]


def test_save_load_every_kind(make, tmp_path):
    f = make()
    f.update(KEYS)
    for compress in (False, True):
        path = tmp_path / f"f{compress}.bf"
        f.save(path, compress=compress)
        assert bloomkit.inspect(path)["compressed"] is compress
        g = bloomkit.load(path)
        kind_class = bloomkit.KINDS[f.kind]
        assert type(g) is kind_class
        assert g.to_bytes() == kind_class.from_bytes(f.to_bytes()).to_bytes()
        assert all(g.contains_many(KEYS))
        assert type(f).load(path) == f


def test_bytes_round_trip(make):
    f = make()
    f.update(KEYS[:10])
    data = f.to_bytes()
    assert type(f).from_bytes(data) == f
    assert type(f).from_bytes(bytearray(data)) == f
    assert type(f).from_bytes(memoryview(data)) == f
    assert bloomkit.from_bytes(data).to_bytes() == data
    assert len(f.to_bytes(compress=True)) < len(data)


def test_concurrent_load(tmp_path):
    # The concurrent blocked filter has 512-bit blocks; at 1% the default layout is 256-bit.
    f = bloomkit.BlockedBloomFilter(capacity=1000, block_bits=512)
    f.update(KEYS)
    f.save(tmp_path / "b.bf")
    g = bloomkit.load(tmp_path / "b.bf", concurrent=True)
    assert type(g) is bloomkit.ConcurrentBlockedBloomFilter
    assert g.snapshot() == f
    bloomkit.BlockedBloomFilter(capacity=1000).save(tmp_path / "b256.bf")
    with pytest.raises(bloomkit.UnsupportedError, match="512-bit blocks"):
        bloomkit.load(tmp_path / "b256.bf", concurrent=True)
    with pytest.raises(bloomkit.UnsupportedError):
        c = bloomkit.CuckooFilter(capacity=100)
        bloomkit.from_bytes(c.to_bytes(), concurrent=True)


def test_wrong_kind(tmp_path):
    bloomkit.BloomFilter(capacity=100).save(tmp_path / "c.bf")
    with pytest.raises(bloomkit.WrongKindError):
        bloomkit.CuckooFilter.load(tmp_path / "c.bf")


def corrupt_cases(data: bytes):
    flipped = bytearray(data)
    flipped[-20] ^= 0x01
    bad_version = bytearray(data)
    bad_version[8] = 99
    return [
        (b"", bloomkit.CorruptFileError),
        (b"PNG not a filter" * 10, bloomkit.BadMagicError),
        (data[: len(data) // 2], bloomkit.TruncatedError),
        (bytes(flipped), bloomkit.ChecksumMismatchError),
        (bytes(bad_version), bloomkit.CorruptFileError),
    ]


def test_bad_files_raise_their_error_class(tmp_path):
    f = bloomkit.BloomFilter(capacity=1000)
    f.update(KEYS)
    for i, (data, error) in enumerate(corrupt_cases(f.to_bytes())):
        path = tmp_path / f"bad{i}.bf"
        path.write_bytes(data)
        with pytest.raises(error) as raised:
            bloomkit.load(path)
        assert isinstance(raised.value, bloomkit.CorruptFileError)
        assert str(path) in str(raised.value)
        with pytest.raises(error):
            bloomkit.from_bytes(data)


def test_missing_file_is_a_file_error(tmp_path):
    with pytest.raises(bloomkit.FileError) as raised:
        bloomkit.load(tmp_path / "missing.bf")
    assert isinstance(raised.value, OSError)
    with pytest.raises(bloomkit.FileError):
        bloomkit.BloomFilter(capacity=10).save(tmp_path / "no-such-dir" / "x.bf")


def test_max_memory_is_checked_before_loading(tmp_path):
    f = bloomkit.BloomFilter(capacity=1_000_000)
    f.save(tmp_path / "big.bf")
    with pytest.raises(bloomkit.Error):
        bloomkit.load(tmp_path / "big.bf", max_memory=1 << 16)


def test_update_file_saves_on_success_only(tmp_path):
    path = tmp_path / "seen.bf"
    bloomkit.CuckooFilter(capacity=1000).save(path, compress=True)
    with bloomkit.update_file(path) as f:
        f.add("kept")
    assert "kept" in bloomkit.load(path)
    assert bloomkit.inspect(path)["compressed"] is True
    before = path.read_bytes()
    with pytest.raises(RuntimeError):
        with bloomkit.update_file(path) as f:
            f.add("lost")
            raise RuntimeError("stop")
    assert path.read_bytes() == before


def test_save_is_atomic_over_an_existing_file(tmp_path):
    path = tmp_path / "f.bf"
    bloomkit.BloomFilter(capacity=100).save(path)
    inode = os.stat(path).st_ino
    bloomkit.BloomFilter(capacity=200).save(path)
    assert os.stat(path).st_ino != inode  # a new file renamed over the old one
    assert bloomkit.load(path).capacity == 200
    assert [p.name for p in tmp_path.iterdir()] == ["f.bf"]


def test_add_file_follows_the_cli_record_rules(tmp_path, make):
    path = tmp_path / "keys.txt"
    path.write_bytes(b"a\r\nb\n\n\nc\nlast-without-newline")
    f = make()
    assert f.add_file(path) == 4
    assert all(k in f for k in ("a", "b", "c", "last-without-newline"))
    assert "a\r" not in f
    g = make()
    g.add_file(path, keep_cr=True)
    assert "a\r" in g
    z = tmp_path / "keys0"
    z.write_bytes(b"x\0y\0")
    h = make()
    assert h.add_file(z, separator=b"\0") == 2 and "y" in h
    with pytest.raises(bloomkit.FileError):
        h.add_file(tmp_path / "missing.txt")
    with pytest.raises(ValueError):
        h.add_file(z, separator=b"ab")


def test_add_file_of_many_keys_crosses_read_buffers(tmp_path):
    keys = [f"https://example.com/page/{i}" for i in range(60_000)]  # ~2 MB: two 1 MiB reads
    path = tmp_path / "urls.txt"
    path.write_text("\n".join(keys) + "\n")
    f = bloomkit.BlockedBloomFilter(capacity=len(keys))
    assert f.add_file(path) == len(keys)
    assert all(f.contains_many(keys))
    g = bloomkit.BlockedBloomFilter(capacity=len(keys))
    g.update(keys)
    assert g == f


KINDS = ["classic", "blocked", "counting", "scalable", "cuckoo"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("compress", [False, True])
def test_cli_file_loads_in_python_and_answers_the_same(cli, tmp_path, kind, compress):
    path = tmp_path / "cli.bf"
    keys = "".join(f"{k}\n" for k in KEYS + ["grüße", "emoji 🙂"]).encode()
    cli("create", path, "--capacity", 2000, "--kind", kind, *(["--compress"] if compress else []))
    cli("add", path, "--no-progress", input=keys)
    f = bloomkit.load(path)
    assert f.kind == kind
    assert bloomkit.inspect(path)["compressed"] is compress
    probes = KEYS + ["grüße", "emoji 🙂"] + [f"absent:{i}" for i in range(3000)]
    cli_answers = cli("query", path, input="".join(f"{k}\n" for k in probes).encode(), check=False)
    assert cli_answers.returncode == 0
    expected = [line.rsplit("\t", 1)[1] == "maybe" for line in cli_answers.stdout.decode().splitlines()]
    assert f.contains_many(probes) == expected
    assert all(expected[: len(KEYS) + 2])
    info = json.loads(cli("info", path, "--json").stdout)
    assert info["count"] == len(f)


@pytest.mark.parametrize("kind", KINDS)
def test_python_file_loads_in_the_cli_and_answers_the_same(cli, tmp_path, kind):
    f = bloomkit.KINDS[kind](capacity=2000)
    f.update(KEYS)
    f.update(["grüße", b"raw bytes"])
    path = tmp_path / "py.bf"
    f.save(path)
    probes = KEYS + ["grüße", "raw bytes"] + [f"absent:{i}" for i in range(3000)]
    out = cli("query", path, input="".join(f"{k}\n" for k in probes).encode()).stdout.decode()
    cli_answers = [line.rsplit("\t", 1)[1] == "maybe" for line in out.splitlines()]
    assert cli_answers == f.contains_many(probes)
    assert all(cli_answers[: len(KEYS) + 2])
    # The CLI adds to the Python file; Python sees its keys.
    cli("add", path, "--no-progress", input=b"from the cli\n")
    assert "from the cli" in bloomkit.load(path)


def test_same_keys_same_file_in_both(cli, tmp_path):
    cli_path = tmp_path / "cli.bf"
    cli("create", cli_path, "--capacity", 5000, "--kind", "blocked")
    cli("add", cli_path, "--no-progress", input="".join(f"{k}\n" for k in KEYS).encode())
    f = bloomkit.BlockedBloomFilter(capacity=5000)
    f.update(KEYS)
    assert bloomkit.load(cli_path) == f
    assert cli_path.read_bytes() == f.to_bytes()


def test_cli_reports_a_python_corrupted_file(cli, tmp_path):
    path = tmp_path / "x.bf"
    bloomkit.BloomFilter(capacity=100).save(path)
    data = bytearray(path.read_bytes())
    data[-20] ^= 1
    path.write_bytes(bytes(data))
    result = cli("info", path, check=False)
    assert result.returncode == 3 and b"checksum" in result.stderr
    with pytest.raises(bloomkit.ChecksumMismatchError):
        bloomkit.load(path)
