# SPDX-License-Identifier: Apache-2.0
"""Filters of Go's bits-and-blooms/bloom and Java's Guava: bloomkit.load(path, format=...)
reads the files the libraries wrote (tests/golden/foreign), save(path, format=...) writes
them back byte for byte."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import bloomkit

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden" / "foreign"


def key(i: int) -> str:
    return f"k{i}" + ("-\u00e9\u65e5" if i % 7 == 0 else "") + "-" + "x" * (i % 37)


def absent(i: int) -> str:
    return f"a{i}-" + "y" * (i % 23)


def added(i: int) -> str:
    return f"n{i}-" + "z" * (i % 19)


@pytest.mark.parametrize(
    "name,fmt,cls",
    [
        ("bab", "bits-and-blooms", bloomkit.BitsAndBloomsFilter),
        ("guava", "guava", bloomkit.GuavaBloomFilter),
        ("guava32", "guava", bloomkit.GuavaBloomFilter),
    ],
)
def test_library_files_load_answer_and_save_back(tmp_path, name, fmt, cls):
    f = bloomkit.load(GOLDEN / f"{name}_golden.bin", format=fmt)
    assert isinstance(f, cls)
    assert all(key(i) in f for i in range(1000))
    want = {int(line) for line in (GOLDEN / f"{name}_golden.fp").read_text().split()}
    assert {i for i in range(100_000) if absent(i) in f} == want
    # Unchanged: the library's bytes.
    f.save(tmp_path / "same.bin", format=fmt)
    assert (tmp_path / "same.bin").read_bytes() == (GOLDEN / f"{name}_golden.bin").read_bytes()
    # The library's adds give the library's bytes.
    f.update(added(i) for i in range(500))
    f.save(tmp_path / "added.bin", format=fmt)
    assert (tmp_path / "added.bin").read_bytes() == (GOLDEN / f"{name}_golden_added.bin").read_bytes()
    # And the bloomkit file form keeps the kind.
    f.save(tmp_path / "f.bf")
    assert bloomkit.load(tmp_path / "f.bf") == f


def test_guava_sizing_and_long_funnel():
    f = bloomkit.GuavaBloomFilter(1000, 0.01)
    assert f.info()["num_bits"] == 9600 and f.strategy == 1
    # Funnels.longFunnel(): each long as 8 bytes little-endian.
    f.update(struct.pack("<q", v) for v in range(100))
    assert all(struct.pack("<q", v) in f for v in range(100))


def test_bad_files_and_formats(tmp_path):
    (tmp_path / "short.bin").write_bytes(b"\x01\x07\x00\x00\x00\x02" + b"\x00" * 8)
    with pytest.raises(bloomkit.TruncatedError, match="truncated Guava filter"):
        bloomkit.load(tmp_path / "short.bin", format="guava")
    (tmp_path / "k0.bin").write_bytes(struct.pack(">QQQ", 64, 0, 64) + b"\x00" * 8)
    with pytest.raises(bloomkit.ParameterMismatchError, match="k = 0"):
        bloomkit.load(tmp_path / "k0.bin", format="bits-and-blooms")
    (tmp_path / "huge.bin").write_bytes(struct.pack(">QQQ", 1 << 40, 3, 1 << 40))
    with pytest.raises(bloomkit.TooLargeError):
        bloomkit.load(tmp_path / "huge.bin", format="bits-and-blooms")
    with pytest.raises(bloomkit.InvalidArgumentError, match="format must be"):
        bloomkit.load(tmp_path / "k0.bin", format="parquet-v9")
    with pytest.raises(bloomkit.UnsupportedError, match="has no 'guava' form"):
        bloomkit.BloomFilter(100).save(tmp_path / "x.bin", format="guava")
    with pytest.raises(bloomkit.UnsupportedError):
        bloomkit.BitsAndBloomsFilter(100).save(tmp_path / "x.bin", format="guava")


def test_parquet_testing_file(tmp_path):
    # apache/parquet-testing's bloom_filter.xxhash.bin (tests/golden/foreign/README.md).
    f = bloomkit.load(GOLDEN / "parquet_xxhash.bin", format="parquet")
    assert isinstance(f, bloomkit.ParquetBloomFilter)
    assert all(v in f for v in ("hello", "parquet", "bloom", "filter"))
    f.save(tmp_path / "same.bin", format="parquet")
    assert (tmp_path / "same.bin").read_bytes() == (GOLDEN / "parquet_xxhash.bin").read_bytes()


def test_parquet_folding_gives_the_smaller_filter_of_the_same_values(tmp_path):
    planned = bloomkit.ParquetBloomFilter(1_000_000, 0.01)  # sized for the most a chunk may hold
    values = ["value:%d" % i for i in range(20_000)]
    planned.update(values)
    folds = planned.folds_within(0.01)
    assert folds > 0 and planned.folded_fp_rate(folds) <= 0.01 < planned.folded_fp_rate(folds + 1)
    small = planned.folded(fp_rate=0.01)
    assert all(v in small for v in values)
    # Bit for bit the filter of that size the same values build.
    built = bloomkit.ParquetBloomFilter(num_bits=(1 << 24) >> folds)
    built.update(values)
    small.save(tmp_path / "small.bin", format="parquet")
    built.save(tmp_path / "built.bin", format="parquet")
    assert (tmp_path / "small.bin").read_bytes() == (tmp_path / "built.bin").read_bytes()
    assert planned.folded(folds).to_bytes() == small.to_bytes()
    with pytest.raises(bloomkit.InvalidArgumentError):
        planned.folded(3, fp_rate=0.01)
    with pytest.raises(bloomkit.InvalidArgumentError, match="3 blocks"):
        bloomkit.ParquetBloomFilter(num_bits=256 * 3).folded(1)
