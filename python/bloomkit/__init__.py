# SPDX-License-Identifier: Apache-2.0
"""bloomkit: Bloom, blocked, counting, scalable and cuckoo filters, with files that the
bloomkit CLI, the Redis module and every binding read.

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
from typing import Iterator, Union

from bloomkit._bloomkit import (
    DEFAULT_MAX_MEMORY,
    FORMAT_VERSION,
    BlockedBloomFilter,
    BloomFilter,
    ConcurrentBlockedBloomFilter,
    ConcurrentBloomFilter,
    CountingBloomFilter,
    CuckooFilter,
    ScalableBloomFilter,
    from_bytes,
    inspect,
    load,
)
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
]

#: The filter class of each kind name (as in files, `bloomkit create --kind` and info()).
KINDS = {
    "classic": BloomFilter,
    "blocked": BlockedBloomFilter,
    "counting": CountingBloomFilter,
    "scalable": ScalableBloomFilter,
    "cuckoo": CuckooFilter,
}


@contextlib.contextmanager
def update_file(
    path: Union[str, bytes, os.PathLike], *, max_memory: int = DEFAULT_MAX_MEMORY
) -> Iterator[Filter]:
    """Loads the filter in `path`, yields it, and saves it back atomically when the block
    ends without an exception (compressed if the file was). If the block raises, the
    file keeps its old bytes:

        with bloomkit.update_file("seen.bf") as seen:
            seen.update(new_urls)
    """
    compressed = inspect(path, max_memory=max_memory)["compressed"]
    flt = load(path, max_memory=max_memory)
    yield flt
    flt.save(path, compress=compressed)


__all__ = [
    "DEFAULT_MAX_MEMORY",
    "FORMAT_VERSION",
    "KINDS",
    "BadMagicError",
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
    "Filter",
    "FullError",
    "IncompatibleError",
    "InvalidArgumentError",
    "ParameterMismatchError",
    "ReservedNonZeroError",
    "ScalableBloomFilter",
    "TooLargeError",
    "TruncatedError",
    "UnknownHashError",
    "UnknownKindError",
    "UnsupportedError",
    "UnsupportedVersionError",
    "WrongKindError",
    "from_bytes",
    "inspect",
    "load",
    "update_file",
]
