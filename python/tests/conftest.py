# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures: the real bloomkit CLI binary (BLOOMKIT_CLI, set by ctest) and
factories of one filter of every kind."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import bloomkit

# One small filter of each kind, built by keyword options as users write them.
FACTORIES = {
    "classic": lambda: bloomkit.BloomFilter(capacity=10_000, fp_rate=0.01),
    "blocked": lambda: bloomkit.BlockedBloomFilter(capacity=10_000, fp_rate=0.01),
    "counting": lambda: bloomkit.CountingBloomFilter(capacity=10_000, fp_rate=0.01),
    "scalable": lambda: bloomkit.ScalableBloomFilter(capacity=1_000, fp_rate=0.01),
    "cuckoo": lambda: bloomkit.CuckooFilter(capacity=10_000, fp_rate=0.01),
    "concurrent": lambda: bloomkit.ConcurrentBloomFilter(capacity=10_000, fp_rate=0.01),
    "concurrent_blocked": lambda: bloomkit.ConcurrentBlockedBloomFilter(capacity=10_000, fp_rate=0.01),
    # RedisBloom's kinds, as BF.RESERVE/CF.RESERVE make them.
    "redisbloom-bf": lambda: bloomkit.RedisBloomFilter(capacity=10_000, error_rate=0.01),
    "redisbloom-cf": lambda: bloomkit.RedisCuckooFilter(capacity=10_000),
    "windowed": lambda: bloomkit.WindowedBloomFilter(capacity=10_000, fp_rate=0.01),
    # Other libraries' filters (Go's bits-and-blooms, Java's Guava, Parquet's split block).
    "bits-and-blooms": lambda: bloomkit.BitsAndBloomsFilter(capacity=10_000, fp_rate=0.01),
    "guava": lambda: bloomkit.GuavaBloomFilter(capacity=10_000, fp_rate=0.01),
    "parquet": lambda: bloomkit.ParquetBloomFilter(capacity=10_000, fp_rate=0.01),
}


@pytest.fixture(params=sorted(FACTORIES))
def make(request):
    """A factory of empty filters of one kind (every kind in turn)."""
    return FACTORIES[request.param]


@pytest.fixture
def cli():
    """Runs the real bloomkit CLI; skipped only where no binary was built."""
    path = os.environ.get("BLOOMKIT_CLI")
    if not path:
        pytest.skip("BLOOMKIT_CLI is not set (ctest sets it to the built CLI)")

    def run(*args, input=None, check=True):
        return subprocess.run(
            [path, *map(str, args)], input=input, capture_output=True, check=check
        )

    return run


@pytest.fixture
def run_python():
    """Runs Python code in a child interpreter (this one, same environment): for what would
    take pytest down with it (a crash, an abort, a hang) and for how a process exits."""

    def run(code, *args, timeout=60):
        return subprocess.run(
            [sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, timeout=timeout
        )

    return run
