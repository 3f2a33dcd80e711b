# SPDX-License-Identifier: Apache-2.0
"""bloomkit.WindowedBloomFilter: "seen in the last `window`" on a clock.

The C++ class (bloomkit._bloomkit.WindowedBloomFilter) keeps its own time in milliseconds,
moved only by advance(); this subclass reads `clock` (seconds since the Unix epoch, as
time.time returns; a datetime is accepted too) before every call and advances the filter
to it, so every answer is "as of now". Files keep milliseconds since the Unix epoch, as
the bloomkit CLI does, so a file written here is a window the CLI continues, and back.

    >>> from datetime import timedelta
    >>> seen = bloomkit.WindowedBloomFilter(1_000_000, 0.01, window=timedelta(hours=24))
    >>> seen.add_if_absent("https://example.com/")   # True: not seen in the last 24 hours
"""

from __future__ import annotations

import math
import time
from datetime import datetime, timedelta
from typing import Any, Callable, Iterable, Optional, Union

from bloomkit import _bloomkit
from bloomkit._errors import InvalidArgumentError

Clock = Callable[[], Union[float, int, datetime]]
_Base = _bloomkit.WindowedBloomFilter


def _window_ms(window: Union[timedelta, int, float]) -> int:
    if isinstance(window, timedelta):
        ms = window // timedelta(milliseconds=1)
    elif isinstance(window, (int, float)) and not isinstance(window, bool):
        ms = math.floor(window * 1000)  # seconds
    else:
        raise TypeError(f"window must be a timedelta or a number of seconds, not {type(window).__name__}")
    if ms <= 0:
        raise InvalidArgumentError(f"window must be at least 1 ms, got {window!r}")
    return ms


def _read_clock(clock: Optional[Clock]) -> int:
    now = (clock or time.time)()
    if isinstance(now, datetime):
        now = now.timestamp()
    if isinstance(now, bool) or not isinstance(now, (int, float)) or not math.isfinite(now):
        raise TypeError(f"the clock must return seconds since the Unix epoch (int or float) or a datetime, got {now!r}")
    return max(0, math.floor(now * 1000))


class WindowedBloomFilter(_Base):
    """Keys seen in the last `window` (a timedelta, or seconds).

    WindowedBloomFilter(capacity, fp_rate=0.01, window=timedelta(hours=24), generations=8,
    clock=None, *, max_stages=0, max_memory=4 GiB, sizing="any")

    No false negative within the window: a key added at t is `in` the filter until t + window.
    It is forgotten at the latest window / generations later. The false-positive rate stays
    below fp_rate while no window receives more than `capacity` keys; past that the filter
    grows up to max_stages stages, then degrades (over_capacity, estimated_fp_rate say so).
    Every add records the key again, so a key seen repeatedly is kept for a window after
    its latest add. `clock` (default time.time) returns seconds since the Unix epoch or a
    datetime; it is read before every call. A clock that goes back is ignored until it
    passes the latest time seen. sizing="steady" spends about 10% fewer bits and keeps
    fp_rate only while no generation receives more than capacity / generations keys (a
    steady stream); "any" (the default) keeps it for any schedule within capacity.
    """

    def __init__(
        self,
        capacity: int,
        fp_rate: float = 0.01,
        window: Union[timedelta, int, float] = timedelta(hours=24),
        generations: int = _bloomkit.DEFAULT_WINDOWED_GENERATIONS,
        clock: Optional[Clock] = None,
        *,
        max_stages: int = 0,
        max_memory: int = _bloomkit.DEFAULT_MAX_MEMORY,
        sizing: str = "any",
    ) -> None:
        self._clock = clock
        super().__init__(
            capacity,
            fp_rate,
            window_ms=_window_ms(window),
            generations=generations,
            start_ms=_read_clock(clock),
            max_stages=max_stages,
            max_memory=max_memory,
            sizing=sizing,
        )

    # -- the clock
    @property
    def clock(self) -> Optional[Clock]:
        """The clock read before each call (None: time.time)."""
        return getattr(self, "_clock", None)

    @clock.setter
    def clock(self, clock: Optional[Clock]) -> None:
        self._clock = clock

    @property
    def window(self) -> timedelta:
        """The window, as a timedelta."""
        return timedelta(milliseconds=self.window_ms)

    def _tick(self) -> None:
        _Base.advance(self, _read_clock(self.clock))

    # -- the set-like API, each at the clock's time
    def add(self, key: Any, /) -> None:
        self._tick()
        _Base.add(self, key)

    def add_if_absent(self, key: Any, /) -> bool:
        self._tick()
        return _Base.add_if_absent(self, key)

    def __contains__(self, key: object, /) -> bool:
        self._tick()
        return _Base.__contains__(self, key)

    def update(self, keys: Iterable[Any]) -> None:
        self._tick()
        _Base.update(self, keys)

    def contains_many(self, keys: Iterable[Any]) -> list[bool]:
        self._tick()
        return _Base.contains_many(self, keys)

    def contains_into(self, keys: Iterable[Any], out: Any) -> int:
        self._tick()
        return _Base.contains_into(self, keys, out)

    def add_file(self, path: Any, separator: bytes = b"\n", keep_cr: bool = False) -> int:
        self._tick()
        return _Base.add_file(self, path, separator, keep_cr)

    def __len__(self) -> int:
        self._tick()
        return _Base.__len__(self)

    @property
    def count(self) -> int:
        """Keys the live generations hold (a key added in several generations counts in each)."""
        self._tick()
        return _Base.count.__get__(self)

    def estimated_count(self) -> int:
        self._tick()
        return _Base.estimated_count(self)

    @property
    def estimated_fp_rate(self) -> float:
        """The false-positive rate now, from the fill of the live generations."""
        self._tick()
        return _Base.estimated_fp_rate.__get__(self)

    @property
    def memory_bytes(self) -> int:
        """Bytes of the live generations' stages."""
        self._tick()
        return _Base.memory_bytes.__get__(self)

    @property
    def num_stages(self) -> int:
        """Stages held now."""
        self._tick()
        return _Base.num_stages.__get__(self)

    @property
    def over_capacity(self) -> bool:
        """True when a live window received more keys than the filter holds at its target rate."""
        self._tick()
        return _Base.over_capacity.__get__(self)

    def info(self) -> dict[str, Any]:
        self._tick()
        out = _Base.info(self)
        out.update(window_ms=self.window_ms, generations=self.generations, now_ms=self.now_ms,
                   num_stages=_Base.num_stages.__get__(self), over_capacity=_Base.over_capacity.__get__(self))
        return out

    def __eq__(self, other: object) -> bool:
        """Same parameters and contents at the same time: both are first brought to this
        filter's clock (an equal copy stays equal however the clock has moved)."""
        if isinstance(other, _Base):
            now = _read_clock(self.clock)
            _Base.advance(self, now)
            _Base.advance(other, now)
        return _Base.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    # -- copies, bytes and files keep the class and the clock
    @classmethod
    def _adopt(cls, base: _Base, clock: Optional[Clock] = None) -> "WindowedBloomFilter":
        obj = cls.__new__(cls)
        obj._clock = clock
        obj.__setstate__(base.to_bytes())
        return obj

    def copy(self) -> "WindowedBloomFilter":
        return type(self)._adopt(self, self.clock)

    def __copy__(self) -> "WindowedBloomFilter":
        return self.copy()

    def __deepcopy__(self, memo: Any) -> "WindowedBloomFilter":
        return self.copy()

    @classmethod
    def from_bytes(  # type: ignore[override]
        cls, data: Any, *, max_memory: int = _bloomkit.DEFAULT_MAX_MEMORY, clock: Optional[Clock] = None
    ) -> "WindowedBloomFilter":
        """A windowed filter from bytes written by to_bytes(), save() or the CLI."""
        return cls._adopt(_Base.from_bytes(data, max_memory=max_memory), clock)

    @classmethod
    def load(  # type: ignore[override]
        cls, path: Any, *, max_memory: int = _bloomkit.DEFAULT_MAX_MEMORY, clock: Optional[Clock] = None
    ) -> "WindowedBloomFilter":
        """Loads a windowed filter file (bloomkit.load() opens any kind)."""
        return cls._adopt(_Base.load(path, max_memory=max_memory), clock)


def adopt(filter: Any) -> Any:
    """bloomkit.load() and from_bytes(): a windowed filter comes back with the clock."""
    if type(filter) is _Base:
        return WindowedBloomFilter._adopt(filter)
    return filter
