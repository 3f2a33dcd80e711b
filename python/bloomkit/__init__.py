# SPDX-License-Identifier: Apache-2.0
"""bloomkit: Bloom, blocked, counting, scalable and cuckoo filters, and RedisBloom's own BF
and CF filters, with files that the bloomkit CLI, the Redis module and every binding read.

    >>> import bloomkit
    >>> seen = bloomkit.BlockedBloomFilter(capacity=1_000_000, fp_rate=0.01)
    >>> seen.add("user:42")
    >>> "user:42" in seen, "user:43" in seen
    (True, False)
    >>> seen.save("seen.bf")                 # `bloomkit query seen.bf` reads it
    >>> bloomkit.load("seen.bf") == seen
    True

Keys are str (hashed as UTF-8: the bytes the CLI hashes for the same text), bytes,
bytearray or memoryview. Docs: docs/PYTHON.md.
"""

from __future__ import annotations

import contextlib
import os
from typing import Callable, Iterator, Optional, Union

from bloomkit._bloomkit import (
    DEFAULT_MAX_MEMORY,
    FORMAT_VERSION,
    BitsAndBloomsFilter,
    BlockedBloomFilter,
    BloomFilter,
    ConcurrentBlockedBloomFilter,
    ConcurrentBloomFilter,
    CountingBloomFilter,
    CuckooFilter,
    FileLock,
    GuavaBloomFilter,
    MappedFilter,
    ParquetBloomFilter,
    RedisBloomFilter,
    RedisCuckooFilter,
    ScalableBloomFilter,
    from_redis_dump,
    inspect,
    open_mapped,
    verify,
)
from bloomkit import _bloomkit
from bloomkit._windowed import WindowedBloomFilter, adopt as _adopt
from bloomkit._errors import (
    BadMagicError,
    ChecksumMismatchError,
    CorruptFileError,
    DecompressFailedError,
    Error,
    FileError,
    FullError,
    IncompatibleError,
    InvalidArgumentError,
    LockedError,
    ParameterMismatchError,
    ReservedNonZeroError,
    TooLargeError,
    TruncatedError,
    UnknownHashError,
    UnknownKindError,
    UnsupportedError,
    UnsupportedVersionError,
    WrongKindError,
)

__version__ = "0.1.0"

Filter = Union[
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

#: The filter class of each kind name (as in files, `bloomkit create --kind` and info()).
KINDS = {
    "classic": BloomFilter,
    "blocked": BlockedBloomFilter,
    "counting": CountingBloomFilter,
    "scalable": ScalableBloomFilter,
    "cuckoo": CuckooFilter,
    "redisbloom-bf": RedisBloomFilter,
    "redisbloom-cf": RedisCuckooFilter,
    "windowed": WindowedBloomFilter,
    "bits-and-blooms": BitsAndBloomsFilter,
    "guava": GuavaBloomFilter,
    "parquet": ParquetBloomFilter,
}


def load(
    path: Union[str, bytes, os.PathLike],
    *,
    max_memory: int = DEFAULT_MAX_MEMORY,
    concurrent: bool = False,
    format: Optional[str] = None,
) -> Filter:
    """Loads a filter file of any kind (its header names it), or another library's file
    with `format` ("bits-and-blooms", "guava", "parquet"); see _bloomkit.load."""
    return _adopt(_bloomkit.load(path, max_memory=max_memory, concurrent=concurrent, format=format))


def from_bytes(data, *, max_memory: int = DEFAULT_MAX_MEMORY, concurrent: bool = False) -> Filter:
    """A filter of any kind from bytes in bloomkit's file format; see _bloomkit.from_bytes."""
    return _adopt(_bloomkit.from_bytes(data, max_memory=max_memory, concurrent=concurrent))



@contextlib.contextmanager
def update_file(
    path: Union[str, bytes, os.PathLike],
    *,
    create: Optional[Callable[[], Filter]] = None,
    wait: float = 60.0,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> Iterator[Filter]:
    """A locked read-modify-write of a filter file: takes the file's exclusive lock (the
    one every `bloomkit` command that rewrites a file takes), loads the filter, yields it,
    and when the block ends without an exception saves it back atomically (compressed if
    the file was) before releasing the lock. If the block raises, the file keeps its old
    bytes. Two writers, in Python or the CLI, never lose each other's keys: the second
    waits up to `wait` seconds, then LockedError.

        with bloomkit.update_file("seen.bf") as seen:
            seen.update(new_urls)

    With `create`, a missing file is created from `create()` (e.g.
    `lambda: bloomkit.BloomFilter(capacity=10**6)`); two writers never both create it.
    Symlinks are followed: the file the link names is updated.
    """
    with FileLock(path, wait=wait, missing_ok=create is not None) as lock:
        target = lock.path
        if create is not None and not os.path.exists(target):
            flt = create()
            compressed = False
        else:
            compressed = inspect(target, max_memory=max_memory)["compressed"]
            flt = load(target, max_memory=max_memory)
        yield flt
        flt.save(target, compress=compressed)


__all__ = [
    "DEFAULT_MAX_MEMORY",
    "FORMAT_VERSION",
    "KINDS",
    "BadMagicError",
    "BitsAndBloomsFilter",
    "BlockedBloomFilter",
    "BloomFilter",
    "ChecksumMismatchError",
    "ConcurrentBlockedBloomFilter",
    "ConcurrentBloomFilter",
    "CorruptFileError",
    "CountingBloomFilter",
    "CuckooFilter",
    "DecompressFailedError",
    "Error",
    "FileError",
    "FileLock",
    "Filter",
    "FullError",
    "GuavaBloomFilter",
    "IncompatibleError",
    "InvalidArgumentError",
    "LockedError",
    "MappedFilter",
    "ParameterMismatchError",
    "ParquetBloomFilter",
    "RedisBloomFilter",
    "RedisCuckooFilter",
    "ReservedNonZeroError",
    "ScalableBloomFilter",
    "TooLargeError",
    "TruncatedError",
    "UnknownHashError",
    "UnknownKindError",
    "UnsupportedError",
    "UnsupportedVersionError",
    "WindowedBloomFilter",
    "WrongKindError",
    "from_bytes",
    "from_redis_dump",
    "inspect",
    "load",
    "open_mapped",
    "update_file",
    "verify",
]
