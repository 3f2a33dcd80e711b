# SPDX-License-Identifier: Apache-2.0
"""RedisBloom's kinds in Python (RedisBloomFilter, RedisCuckooFilter): the answers, INFO
fields, DUMP payloads and SCANDUMP chunks of real RedisBloom 2.8.20 keys
(tests/golden/redisbloom), the same filters rebuilt from BF.RESERVE/CF.RESERVE options,
and files exchanged with the real CLI both ways."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

import bloomkit

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "golden" / "redisbloom"
MANIFEST = json.loads((FIXTURES / "manifest.json").read_text())["keys"]

# How each key was made in RedisBloom (the manifest's words as options): the constructor's
# keywords, then items 0..n-1 added, items 0..twice-1 added again, and (cuckoo) every item
# i with i % delete_every == 0 deleted once.
RECIPES = {
    "bf_single": dict(capacity=1000, error_rate=0.01),
    "bf_scaled": dict(capacity=1000, error_rate=0.01, expansion=2),
    "bf_expansion1": dict(capacity=500, error_rate=0.02, expansion=1),
    "bf_expansion4": dict(capacity=800, error_rate=0.001, expansion=4),
    "bf_nonscaling": dict(capacity=5000, error_rate=0.001, non_scaling=True),
    "bf_default": dict(),
    "bf_big": dict(capacity=200_000, error_rate=0.001),
    "bf_tiny_error": dict(capacity=20_000, error_rate=0.00001),
    "bf_binary_items": dict(capacity=2000, error_rate=0.01),
    "cf_default": dict(),
    "cf_bucket1": dict(capacity=4000, bucket_size=1),
    "cf_bucket2": dict(capacity=1000),
    "cf_bucket4_expand": dict(capacity=5000, bucket_size=4, max_iterations=50, expansion=2),
    "cf_bucket8": dict(capacity=20_000, bucket_size=8),
    "cf_bucket3_odd": dict(capacity=3000, bucket_size=3, expansion=3),
}
TWICE = {"cf_bucket2": 50, "cf_bucket8": 100}
DELETE_EVERY = {"cf_default": 10, "cf_bucket2": 7, "cf_bucket4_expand": 5, "cf_bucket3_odd": 11}


def item(key: str, i: int) -> bytes:
    if key == "bf_binary_items":
        return b"\x00bin\xff" + struct.pack("<I", i) + b"\n\r"
    return f"item:{i}".encode()


def probes(key: str) -> list[bytes]:
    return [item(key, i) for i in range(MANIFEST[key]["probes"])]


def kind_class(key: str):
    return bloomkit.RedisCuckooFilter if key.startswith("cf_") else bloomkit.RedisBloomFilter


def fixture_chunks(key: str) -> list[tuple[int, bytes]]:
    return [(c["iterator"], (FIXTURES / key / c["file"]).read_bytes()) for c in MANIFEST[key]["scandump_chunks"]]


def redisbloom_answers(key: str) -> bytes:
    """RedisBloom's answer to each probe: b'1'/b'0' (BF.MEXISTS) or CF.COUNT capped at 9."""
    return (FIXTURES / key / "answers.txt").read_bytes()[: MANIFEST[key]["probes"]]


def answers_of(f, key: str, keys: list[bytes]) -> bytes:
    if key.startswith("cf_"):
        return bytes(ord("0") + min(f.key_count(k), 9) for k in keys)
    return bytes(ord("1") if a else ord("0") for a in f.contains_many(keys))


def rebuild(key: str):
    """The key made again as RedisBloom made it: RESERVE options, then its adds and deletes."""
    f = kind_class(key)(**RECIPES[key])
    n = MANIFEST[key]["items"]
    for i in range(n):
        try:
            f.add(item(key, i))
        except bloomkit.FullError:
            assert RECIPES[key].get("non_scaling"), key  # BF.ADD refused it too
    for i in range(TWICE.get(key, 0)):
        f.add(item(key, i))
    every = DELETE_EVERY.get(key, 0)
    for i in range(0, n if every else 0, every or 1):
        assert f.discard(item(key, i)), (key, i)
    return f


@pytest.mark.parametrize("key", sorted(MANIFEST))
def test_redisbloom_keys_answer_as_redisbloom(key):
    payload = (FIXTURES / key / "dump.bin").read_bytes()
    f = kind_class(key).from_dump(payload)
    keys = probes(key)
    # Every probe, false positives included, as RedisBloom answered it.
    assert answers_of(f, key, keys) == redisbloom_answers(key)
    # BF.INFO / CF.INFO, field by field, under RedisBloom's names.
    info = f.info()
    assert {name: info[name] for name in MANIFEST[key]["info"]} == MANIFEST[key]["info"]
    assert len(f) == MANIFEST[key]["info"]["Number of items inserted"]
    # The same filter from its SCANDUMP chunks, and both encodings back byte for byte.
    assert kind_class(key).from_scandump(fixture_chunks(key)) == f
    assert kind_class(key).from_scandump([data for _, data in fixture_chunks(key)]) == f
    assert f.scandump() == fixture_chunks(key)
    assert f.dump() == payload
    assert type(bloomkit.from_redis_dump(payload)) is kind_class(key)
    # Through bloomkit's file format and pickle, unchanged.
    assert bloomkit.from_bytes(f.to_bytes(compress=True)) == f
    assert f.copy() == f


@pytest.mark.parametrize("key", sorted(MANIFEST))
def test_reserve_options_rebuild_redisbloom_keys(key):
    f = rebuild(key)
    assert f == kind_class(key).from_dump((FIXTURES / key / "dump.bin").read_bytes())
    assert f.dump() == (FIXTURES / key / "dump.bin").read_bytes()


def test_defaults_are_bf_add_and_cf_add_defaults():
    bf = bloomkit.RedisBloomFilter()
    assert bf.info()["Capacity"] == 100 and bf.info()["Expansion rate"] == 2 and bf.fp_rate == 0.01
    cf = bloomkit.RedisCuckooFilter()
    info = cf.info()
    assert (info["Number of buckets"], info["Bucket size"], info["Max iterations"], info["Expansion rate"]) == (
        512,
        2,
        20,
        1,
    )


def test_non_scaling_filter_is_full_and_reports_no_expansion():
    f = bloomkit.RedisBloomFilter(capacity=100, error_rate=0.01, non_scaling=True)
    assert f.info()["Expansion rate"] is None
    with pytest.raises(bloomkit.FullError):
        f.update(f"k{i}" for i in range(1000))
    assert len(f) == 100 and f.info()["Number of filters"] == 1


def test_cuckoo_copies_deletes_and_compact():
    f = bloomkit.RedisCuckooFilter(capacity=64, bucket_size=2)
    for _ in range(3):
        f.add("dup")
    assert f.key_count("dup") == 3 and len(f) == 3
    assert f.add_if_absent("dup") is False  # CF.ADDNX
    f.update(f"k{i}" for i in range(500))  # past 64 slots: sub-filters are added
    grown = f.info()["Number of filters"]
    assert grown > 1
    for i in range(500):
        f.remove(f"k{i}")
    f.compact()
    assert f.info()["Number of filters"] < grown
    assert f.key_count("dup") == 3
    f.discard("dup")
    assert f.key_count("dup") == 2
    with pytest.raises(KeyError):
        f.remove("never added")


def test_cuckoo_that_cannot_grow_is_full():
    f = bloomkit.RedisCuckooFilter(capacity=8, bucket_size=1, expansion=0)
    with pytest.raises(bloomkit.FullError):
        for i in range(100):
            f.add(f"k{i}")


@pytest.mark.parametrize(
    "call",
    [
        lambda: bloomkit.RedisBloomFilter(capacity=100, error_rate=1.5),
        lambda: bloomkit.RedisBloomFilter(capacity=0),
        lambda: bloomkit.RedisBloomFilter(capacity=100, expansion=0),
        lambda: bloomkit.RedisCuckooFilter(capacity=100, bucket_size=0),
        lambda: bloomkit.RedisCuckooFilter(capacity=100, bucket_size=256),
        lambda: bloomkit.RedisCuckooFilter(capacity=100, max_iterations=0),
    ],
)
def test_bad_reserve_options_are_invalid_argument(call):
    with pytest.raises(bloomkit.InvalidArgumentError) as raised:
        call()
    assert str(raised.value)


def test_bad_redis_payloads_and_chunks_are_clear_errors():
    payload = (FIXTURES / "bf_scaled" / "dump.bin").read_bytes()
    flipped = bytearray(payload)
    flipped[20] ^= 1
    with pytest.raises(bloomkit.Error):
        bloomkit.RedisBloomFilter.from_dump(bytes(flipped))
    with pytest.raises(bloomkit.Error):
        bloomkit.RedisCuckooFilter.from_dump(payload)  # a BF key's payload
    with pytest.raises(bloomkit.Error):
        bloomkit.from_redis_dump(b"not a dump payload")
    chunks = fixture_chunks("bf_scaled")
    with pytest.raises(bloomkit.TruncatedError, match="a chunk is missing"):
        bloomkit.RedisBloomFilter.from_scandump(chunks[:-1])
    with pytest.raises(bloomkit.InvalidArgumentError, match="missing or out of order"):
        bloomkit.RedisBloomFilter.from_scandump([chunks[0], chunks[2], chunks[1]] + chunks[3:])
    with pytest.raises(bloomkit.InvalidArgumentError, match="header chunk"):
        bloomkit.RedisBloomFilter.from_scandump(chunks[1:])
    with pytest.raises(bloomkit.InvalidArgumentError, match="no SCANDUMP chunks"):
        bloomkit.RedisCuckooFilter.from_scandump([])
    with pytest.raises(TypeError, match="SCANDUMP chunk"):
        bloomkit.RedisBloomFilter.from_scandump([chunks[0], "text"])
    # A cuckoo header with another key's slots: the fingerprint count gives it away.
    cf = fixture_chunks("cf_default")
    other = fixture_chunks("cf_bucket2")
    with pytest.raises(bloomkit.ParameterMismatchError, match="fingerprints"):
        bloomkit.RedisCuckooFilter.from_scandump([cf[0]] + other[1:])


def test_empty_cuckoo_has_no_chunks():
    f = bloomkit.RedisCuckooFilter()
    assert f.scandump() == []  # CF.SCANDUMP answers iterator 0 at once
    assert bloomkit.RedisCuckooFilter.from_dump(f.dump()) == f


# ---- Files exchanged with the CLI ----


def query(cli, path, keys: list[bytes]) -> list[bool]:
    out = cli("query", path, input=b"".join(k + b"\n" for k in keys), check=False)
    assert out.returncode in (0, 1), out.stderr
    return [line.rsplit(b"\t", 1)[1] == b"maybe" for line in out.stdout.splitlines()]


@pytest.mark.parametrize("key", ["bf_scaled", "bf_nonscaling", "cf_bucket2", "cf_bucket4_expand"])
def test_cli_import_loads_in_python_and_answers_as_redisbloom(cli, tmp_path, key):
    path = tmp_path / "imported.bf"
    cli("import", "redisbloom", path, "--dump", FIXTURES / key / "dump.bin")
    f = bloomkit.load(path)
    assert type(f) is kind_class(key) and f.kind == bloomkit.inspect(path)["kind"]
    keys = probes(key)
    answers = redisbloom_answers(key)
    assert f.contains_many(keys) == [a != ord("0") for a in answers]
    assert answers_of(f, key, keys) == answers
    assert f == kind_class(key).from_dump((FIXTURES / key / "dump.bin").read_bytes())
    assert json.loads(cli("info", path, "--json").stdout)["count"] == len(f)


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize(
    "make",
    [
        lambda: bloomkit.RedisBloomFilter(capacity=500, error_rate=0.01, expansion=2),
        lambda: bloomkit.RedisCuckooFilter(capacity=500, bucket_size=4, expansion=2),
    ],
)
def test_python_file_answers_the_same_in_the_cli(cli, tmp_path, make, compress):
    f = make()
    keys = [f"user:{i}".encode() for i in range(2000)] + ["grüße".encode()]
    f.update(keys)
    if f.can_remove:
        for k in keys[:100]:
            f.remove(k)
    path = tmp_path / "py.bf"
    f.save(path, compress=compress)
    probe = keys + [f"absent:{i}".encode() for i in range(20_000)]
    assert query(cli, path, probe) == f.contains_many(probe)
    # The CLI's export is Python's dump() and scandump(), byte for byte.
    cli("export", path, "--format", "redisbloom", "--dump", tmp_path / "x.dump")
    assert (tmp_path / "x.dump").read_bytes() == f.dump()
    cli("export", path, "--format", "redisbloom", "--chunks", tmp_path / "chunks")
    listed = (tmp_path / "chunks" / "iterators.txt").read_text().split()
    assert [(int(it), (tmp_path / "chunks" / name).read_bytes()) for it, name in zip(listed[::2], listed[1::2])] == (
        f.scandump()
    )
    # Python's chunks, written as files, are what `bloomkit import --chunks` takes.
    files = []
    for n, (_, data) in enumerate(f.scandump()):
        files.append(tmp_path / f"c{n:03}.bin")
        files[-1].write_bytes(data)
    cli("import", "redisbloom", tmp_path / "from-chunks.bf", "--chunks", *files)
    assert bloomkit.load(tmp_path / "from-chunks.bf") == f
    # The CLI adds (and removes) in the Python file; Python sees it, as RedisBloom would.
    cli("add", path, "--no-progress", input=b"from the cli\n")
    g = bloomkit.load(path)
    f.add("from the cli")
    assert g == f
    if f.can_remove:
        cli("remove", path, "--no-progress", input=b"from the cli\n")
        f.remove("from the cli")
        assert bloomkit.load(path) == f


@pytest.mark.parametrize("kind, options", [("redisbloom-bf", []), ("redisbloom-cf", ["--bucket-size", "2"])])
def test_cli_file_loads_in_python_and_answers_the_same(cli, tmp_path, kind, options):
    path = tmp_path / "cli.bf"
    keys = [f"user:{i}".encode() for i in range(3000)]
    cli("create", path, "--capacity", 1000, "--kind", kind, *options)
    cli("add", path, "--no-progress", input=b"".join(k + b"\n" for k in keys))
    f = bloomkit.load(path)
    assert f.kind == kind
    probe = keys + [f"absent:{i}".encode() for i in range(20_000)]
    assert f.contains_many(probe) == query(cli, path, probe)
    assert all(f.contains_many(keys))
    # The same options and keys in Python make the same filter.
    same = bloomkit.RedisBloomFilter(capacity=1000) if kind == "redisbloom-bf" else bloomkit.RedisCuckooFilter(
        capacity=1000, bucket_size=2
    )
    same.update(keys)
    assert same == f


def test_update_file_and_cli_writers_lose_nothing(cli, tmp_path):
    from test_locks import start_writer

    path = tmp_path / "seen.bf"
    bloomkit.RedisCuckooFilter(capacity=1000).save(path)
    rounds = 20
    writer = start_writer(path, "py", rounds)
    for i in range(rounds):
        cli("add", path, input=f"cli{i}\n".encode())
    assert writer.wait(timeout=120) == 0
    f = bloomkit.load(path)
    assert type(f) is bloomkit.RedisCuckooFilter
    assert [k for i in range(rounds) for k in (f"py{i}", f"cli{i}") if f.key_count(k) != 1] == []
