# SPDX-License-Identifier: Apache-2.0
# Type stubs of the extension module bloomkit._bloomkit (re-exported by bloomkit).
from __future__ import annotations

import os
from typing import Any, ClassVar, Iterable, Optional, TypeVar, Union


Key = Union[str, bytes, bytearray, memoryview]
Buffer = Union[bytes, bytearray, memoryview]
WritableBuffer = Union[bytearray, memoryview]
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

DEFAULT_MAX_MEMORY: int
DEFAULT_WINDOWED_GENERATIONS: int
FORMAT_VERSION: int

_F = TypeVar("_F", bound="_AnyKind")

class _AnyKind:
    """What every kind has (not a real base class at runtime)."""

    kind: ClassVar[str]
    can_remove: ClassVar[bool]
    def add(self, key: Key, /) -> None: ...
    def add_if_absent(self, key: Key, /) -> bool: ...
    def __contains__(self, key: object, /) -> bool: ...
    def update(self, keys: Iterable[Key]) -> None: ...
    def contains_many(self, keys: Iterable[Key]) -> list[bool]: ...
    def contains_into(self, keys: Iterable[Key], out: WritableBuffer) -> int: ...
    def add_file(self, path: PathLike, separator: bytes = b"\n", keep_cr: bool = False) -> int: ...
    def __len__(self) -> int: ...
    @property
    def count(self) -> int: ...
    def estimated_count(self) -> int: ...
    @property
    def estimated_fp_rate(self) -> float: ...
    @property
    def expected_fp_rate(self) -> float: ...
    @property
    def fp_rate(self) -> float: ...
    @property
    def capacity(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    def info(self) -> dict[str, Any]: ...
    def copy(self: _F) -> _F: ...
    def __copy__(self: _F) -> _F: ...
    def __deepcopy__(self: _F, memo: Any) -> _F: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]
    def to_bytes(self, *, compress: bool = False) -> bytes: ...
    @classmethod
    def from_bytes(cls: type[_F], data: Buffer, *, max_memory: int = ...) -> _F: ...
    def save(self, path: PathLike, *, compress: bool = False, format: Optional[str] = None) -> None: ...
    @classmethod
    def load(cls: type[_F], path: PathLike, *, max_memory: int = ...) -> _F: ...
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: bytes) -> None: ...

class _Filter(_AnyKind):
    """bloomkit's own kinds: they can also be cleared."""

    def clear(self) -> None: ...

class _Mergeable(_Filter):
    def __or__(self: _F, other: _F) -> _F: ...
    def __ior__(self: _F, other: _F) -> _F: ...
    def union(self: _F, other: _F) -> _F: ...

class _Intersectable(_Mergeable):
    def __and__(self: _F, other: _F) -> _F: ...
    def __iand__(self: _F, other: _F) -> _F: ...
    def intersection(self: _F, other: _F) -> _F: ...

class _Removable(_Filter):
    def discard(self, key: Key) -> bool: ...
    def remove(self, key: Key) -> None: ...
    def key_count(self, key: Key) -> int: ...

class BloomFilter(_Intersectable):
    def __init__(
        self,
        capacity: int = 0,
        fp_rate: float = 0.01,
        *,
        num_bits: int = 0,
        num_hashes: int = 0,
        max_memory: int = ...,
    ) -> None: ...

class BlockedBloomFilter(_Intersectable):
    def __init__(
        self,
        capacity: int = 0,
        fp_rate: float = 0.01,
        *,
        num_bits: int = 0,
        num_hashes: int = 0,
        max_memory: int = ...,
        block_bits: int = 0,
    ) -> None: ...

class ConcurrentBloomFilter(_Filter):
    def __init__(
        self,
        capacity: int = 0,
        fp_rate: float = 0.01,
        *,
        num_bits: int = 0,
        num_hashes: int = 0,
        max_memory: int = ...,
    ) -> None: ...
    def snapshot(self) -> BloomFilter: ...

class ConcurrentBlockedBloomFilter(_Filter):
    def __init__(
        self,
        capacity: int = 0,
        fp_rate: float = 0.01,
        *,
        num_bits: int = 0,
        num_hashes: int = 0,
        max_memory: int = ...,
    ) -> None: ...
    def snapshot(self) -> BlockedBloomFilter: ...

class CountingBloomFilter(_Removable):
    def __init__(
        self,
        capacity: int = 0,
        fp_rate: float = 0.01,
        *,
        counter_bits: int = 4,
        num_counters: int = 0,
        num_hashes: int = 0,
        max_memory: int = ...,
    ) -> None: ...

class ScalableBloomFilter(_Mergeable):
    def __init__(
        self,
        capacity: int = 100,
        fp_rate: float = 0.01,
        *,
        expansion: Optional[int] = None,  # 2 when neither it nor growth is given
        tightening: float = 0.5,
        non_scaling: Optional[bool] = None,  # False when neither it nor scaling is given
        max_stages: int = 64,
        max_memory: int = ...,
        growth: Optional[int] = None,  # the older name of expansion
        scaling: Optional[bool] = None,  # the older opposite of non_scaling
    ) -> None: ...

class WindowedBloomFilter(_Filter):
    """The time-windowed filter at its own time in milliseconds (bloomkit.WindowedBloomFilter
    derives from it and reads a clock before every call)."""

    def __init__(
        self,
        capacity: int,
        fp_rate: float = 0.01,
        *,
        window_ms: int,
        generations: int = ...,
        start_ms: int = 0,
        max_stages: int = 0,
        max_memory: int = ...,
    ) -> None: ...
    def advance(self, ms: int) -> None: ...
    def add_at(self, key: Key, ms: int) -> bool: ...
    def contains_at(self, key: Key, ms: int) -> bool: ...
    @property
    def now_ms(self) -> int: ...
    @property
    def window_ms(self) -> int: ...
    @property
    def generations(self) -> int: ...
    @property
    def max_stages(self) -> int: ...
    @property
    def num_stages(self) -> int: ...
    @property
    def over_capacity(self) -> bool: ...

class CuckooFilter(_Removable):
    def __init__(
        self,
        capacity: int = 0,
        fp_rate: float = 0.01,
        *,
        bucket_size: int = 4,
        fingerprint_bits: int = 0,
        max_kicks: int = 500,
        expansion: int = 1,
        max_filters: int = 32,
        max_memory: int = ...,
    ) -> None: ...

class _RedisBloomTransfer(_AnyKind):
    """dump/scandump of RedisBloom's kinds: their forms in Redis (DUMP payload, SCANDUMP chunks)."""

    def dump(self, *, rdb_version: int = 10) -> bytes: ...
    @classmethod
    def from_dump(cls: type[_F], payload: Buffer, *, max_memory: int = ...) -> _F: ...
    def scandump(self) -> list[tuple[int, bytes]]: ...
    @classmethod
    def from_scandump(
        cls: type[_F], chunks: Iterable[Union[Buffer, tuple[int, Buffer]]], *, max_memory: int = ...
    ) -> _F: ...

class RedisBloomFilter(_RedisBloomTransfer):
    def __init__(
        self,
        capacity: int = 100,
        error_rate: float = 0.01,
        *,
        expansion: int = 2,
        non_scaling: bool = False,
        max_memory: int = ...,
    ) -> None: ...

class RedisCuckooFilter(_RedisBloomTransfer):
    def __init__(
        self,
        capacity: int = 1024,
        *,
        bucket_size: int = 2,
        max_iterations: int = 20,
        expansion: int = 1,
        max_memory: int = ...,
    ) -> None: ...
    def discard(self, key: Key) -> bool: ...
    def remove(self, key: Key) -> None: ...
    def key_count(self, key: Key) -> int: ...
    def compact(self) -> None: ...

class BitsAndBloomsFilter(_Mergeable):
    def __init__(
        self,
        capacity: int = 0,
        fp_rate: float = 0.01,
        *,
        num_bits: int = 0,
        num_hashes: int = 0,
        max_memory: int = ...,
    ) -> None: ...

class GuavaBloomFilter(_Mergeable):
    def __init__(
        self,
        capacity: int = 0,
        fp_rate: float = 0.03,
        *,
        num_bits: int = 0,
        num_hashes: int = 0,
        strategy: int = 1,
        max_memory: int = ...,
    ) -> None: ...
    @property
    def strategy(self) -> int: ...

class ParquetBloomFilter(_Mergeable):
    def __init__(
        self,
        capacity: int = 0,
        fp_rate: float = 0.01,
        *,
        num_bits: int = 0,
        max_memory: int = ...,
    ) -> None: ...

AnyFilter = Union[
    BloomFilter,
    BlockedBloomFilter,
    CountingBloomFilter,
    ScalableBloomFilter,
    CuckooFilter,
    ConcurrentBloomFilter,
    ConcurrentBlockedBloomFilter,
    RedisBloomFilter,
    RedisCuckooFilter,
    WindowedBloomFilter,
    BitsAndBloomsFilter,
    GuavaBloomFilter,
    ParquetBloomFilter,
]

class FileLock:
    """An exclusive lock on a filter file (flock on the file the path names)."""

    def __init__(self, path: PathLike, *, wait: float = 60.0, missing_ok: bool = False) -> None: ...
    @property
    def path(self) -> str: ...
    @property
    def held(self) -> bool: ...
    def release(self) -> None: ...
    def __enter__(self) -> FileLock: ...
    def __exit__(self, *args: object) -> bool: ...

class MappedFilter:
    """A classic or blocked filter file opened read-only and memory-mapped."""

    def __contains__(self, key: object, /) -> bool: ...
    def contains_many(self, keys: Iterable[Key]) -> list[bool]: ...
    def contains_into(self, keys: Iterable[Key], out: WritableBuffer) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def header(self) -> dict[str, Any]: ...
    def __len__(self) -> int: ...
    @property
    def count(self) -> int: ...
    @property
    def capacity(self) -> int: ...
    @property
    def fp_rate(self) -> float: ...
    @property
    def file_bytes(self) -> int: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def closed(self) -> bool: ...
    def to_filter(self) -> Union[BloomFilter, BlockedBloomFilter]: ...
    def close(self) -> None: ...
    def __enter__(self) -> MappedFilter: ...
    def __exit__(self, *args: object) -> bool: ...

def load(
    path: PathLike, *, max_memory: int = ..., concurrent: bool = False, format: Optional[str] = None
) -> AnyFilter: ...
def from_bytes(data: Buffer, *, max_memory: int = ..., concurrent: bool = False) -> AnyFilter: ...
def from_redis_dump(payload: Buffer, *, max_memory: int = ...) -> Union[RedisBloomFilter, RedisCuckooFilter]: ...
def inspect(path: PathLike, *, max_memory: int = ...) -> dict[str, Any]: ...
def open_mapped(path: PathLike, *, verify: bool = False) -> MappedFilter: ...
def verify(path: PathLike) -> dict[str, Any]: ...
def error_code_name(code: int) -> str: ...
