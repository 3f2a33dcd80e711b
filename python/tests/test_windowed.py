# SPDX-License-Identifier: Apache-2.0
"""bloomkit.WindowedBloomFilter: the window on an injected clock, the set-like API, files
shared with the CLI, and bad arguments."""

from __future__ import annotations

import os
import pickle
import struct
from datetime import datetime, timedelta, timezone

import pytest

import bloomkit

HOUR = 3600.0


class FakeClock:
    """Seconds since the Unix epoch, moved by the test."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make(clock, capacity=1000, fp_rate=0.01, window=timedelta(hours=24), generations=24):
    return bloomkit.WindowedBloomFilter(capacity, fp_rate, window=window, generations=generations, clock=clock)


def key(i: int) -> bytes:
    return struct.pack("<Q", i)


def test_a_key_is_kept_for_the_window_and_forgotten_one_generation_later():
    clock = FakeClock()
    seen = make(clock)
    assert seen.add_if_absent("url") is True
    clock.now += 24 * HOUR  # exactly the window: still there
    assert "url" in seen
    clock.now += HOUR  # one generation more: gone, and its memory freed
    assert "url" not in seen
    assert len(seen) == 0
    assert seen.memory_bytes == 0


def test_adding_again_keeps_a_key_for_another_window():
    clock = FakeClock()
    seen = make(clock)
    seen.add("a")
    clock.now += 20 * HOUR
    assert seen.add_if_absent("a") is False
    clock.now += 10 * HOUR
    assert "a" in seen


def test_a_clock_that_goes_back_acts_at_the_latest_time():
    clock = FakeClock()
    seen = make(clock)
    seen.add("a")
    start_ms = seen.now_ms
    clock.now -= 5 * HOUR
    seen.add("b")
    assert seen.now_ms == start_ms
    clock.now += 5 * HOUR + 24 * HOUR
    assert "b" in seen  # recorded at the latest time, not 5 hours earlier


def test_a_long_gap_forgets_everything():
    clock = FakeClock()
    seen = make(clock)
    seen.update(key(i) for i in range(5000))
    assert seen.num_stages > 0
    clock.now += 365 * 24 * HOUR
    assert seen.contains_many([key(i) for i in range(5000)]) == [False] * 5000
    assert seen.num_stages == 0
    assert seen.estimated_fp_rate == 0.0


def test_datetime_clocks_and_the_default_clock():
    moment = datetime(2024, 1, 1, tzinfo=timezone.utc)
    seen = make(lambda: moment)
    seen.add("k")
    assert seen.now_ms == int(moment.timestamp() * 1000)
    assert "k" in seen
    real = bloomkit.WindowedBloomFilter(100, 0.01, window=60)
    real.add("k")
    assert "k" in real
    assert real.window == timedelta(seconds=60)


def test_rate_stays_under_the_target_on_a_steady_stream():
    clock = FakeClock()
    n = 20_000
    seen = make(clock, capacity=n, fp_rate=0.01, window=timedelta(hours=8), generations=8)
    added = 0
    for _ in range(3 * 8):  # three windows, n keys per window
        seen.update(key(added + i) for i in range(n // 8))
        added += n // 8
        clock.now += HOUR
    present = [key(i) for i in range(added - n, added)]
    assert all(seen.contains_many(present))
    absent = [key(10**9 + i) for i in range(100_000)]
    rate = sum(seen.contains_many(absent)) / len(absent)
    assert rate <= 0.01
    assert seen.estimated_fp_rate <= 0.01


def test_over_capacity_degrades_and_says_so():
    clock = FakeClock()
    seen = make(clock, capacity=100, window=timedelta(hours=4), generations=4)
    seen.update(key(i) for i in range(2000))
    assert seen.over_capacity
    assert seen.estimated_fp_rate > seen.fp_rate
    assert all(seen.contains_many([key(i) for i in range(2000)]))


def test_generations_default_to_the_cores_eight():
    assert bloomkit.WindowedBloomFilter(100, clock=FakeClock()).info()["generations"] == 8


def test_steady_sizing_spends_fewer_bits_and_survives_a_pickle():
    clock = FakeClock()
    made = {}
    for sizing in ("any", "steady"):
        f = bloomkit.WindowedBloomFilter(10_000, 0.01, window=timedelta(hours=8), clock=clock, sizing=sizing)
        f.update(key(i) for i in range(1000))
        assert f.sizing == sizing
        made[sizing] = f
    assert made["steady"].info()["num_bits"] < made["any"].info()["num_bits"]
    again = pickle.loads(pickle.dumps(made["steady"]))
    again.clock = clock  # a clock is not pickled
    assert again.sizing == "steady" and key(999) in again
    with pytest.raises(bloomkit.InvalidArgumentError, match="sizing"):
        bloomkit.WindowedBloomFilter(10, clock=clock, sizing="fast")


def test_the_set_like_api():
    clock = FakeClock()
    seen = make(clock)
    seen.update(["a", b"b", bytearray(b"c"), memoryview(b"d")])
    assert seen.contains_many(["a", "b", "c", "d", "e"]) == [True, True, True, True, False]
    out = bytearray(3)
    assert seen.contains_into(["a", "x", "d"], out) == 2
    assert bytes(out) == b"\x01\x00\x01"
    assert len(seen) == seen.count == 4
    assert seen.kind == "windowed"
    assert not seen.can_remove
    info = seen.info()
    assert info["window_ms"] == 24 * 3_600_000
    assert info["generations"] == 24
    assert info["count"] == 4
    seen.clear()
    assert "a" not in seen
    with pytest.raises(TypeError):
        seen.add(42)


def test_copies_bytes_pickles_and_files_keep_the_filter(tmp_path):
    clock = FakeClock()
    seen = make(clock)
    seen.update(["a", "b"])
    for copy in (seen.copy(), pickle.loads(pickle.dumps(seen)), bloomkit.from_bytes(seen.to_bytes(compress=True))):
        assert isinstance(copy, bloomkit.WindowedBloomFilter)
        assert copy == seen
    path = tmp_path / "seen.bf"
    seen.save(path)
    loaded = bloomkit.load(path)
    assert isinstance(loaded, bloomkit.WindowedBloomFilter)
    assert loaded == seen
    on_clock = bloomkit.WindowedBloomFilter.load(path, clock=clock)
    assert on_clock.clock is clock
    clock.now += 25 * HOUR
    assert "a" not in on_clock
    assert seen.copy().clock is clock


def test_files_are_shared_with_the_cli(tmp_path, cli):
    clock = FakeClock()
    seen = make(clock)
    seen.update(["a", "b"])
    path = tmp_path / "seen.bf"
    seen.save(path)
    env_ms = str(int((clock.now + 24 * HOUR) * 1000))
    os.environ["BLOOMKIT_NOW_MS"] = env_ms
    try:
        out = cli("dedup", path, "-q", "--no-progress", input=b"a\nc\n").stdout
    finally:
        del os.environ["BLOOMKIT_NOW_MS"]
    assert out == b"c\n"
    back = bloomkit.WindowedBloomFilter.load(path, clock=clock)
    assert back.now_ms == int(env_ms)
    assert "c" in back


@pytest.mark.parametrize(
    "kwargs, error, text",
    [
        ({"capacity": 0}, bloomkit.InvalidArgumentError, "capacity must be at least 1, got 0"),
        ({"fp_rate": 1.5}, bloomkit.InvalidArgumentError, "got 1.5"),
        ({"window": timedelta(0)}, bloomkit.InvalidArgumentError, "window must be at least 1 ms"),
        ({"window": "1h"}, TypeError, "window must be a timedelta or a number of seconds"),
        ({"window": 7, "generations": 3}, bloomkit.InvalidArgumentError, "multiple of generations (3), got 7000"),
        ({"generations": 0}, bloomkit.InvalidArgumentError, "generations must be in [1, 1024], got 0"),
        ({"clock": lambda: "noon"}, TypeError, "the clock must return seconds"),
    ],
)
def test_bad_arguments_name_the_value(kwargs, error, text):
    args = {"capacity": 100, "fp_rate": 0.01, "window": timedelta(hours=1), "generations": 4, "clock": FakeClock()}
    args.update(kwargs)
    with pytest.raises(error) as raised:
        bloomkit.WindowedBloomFilter(**args)
    assert text in str(raised.value)
