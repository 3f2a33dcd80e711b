# SPDX-License-Identifier: Apache-2.0
"""bloomkit's exceptions: one class per core error code, all under bloomkit.Error.

The codes and their names are the core's (include/bloomkit/result.h); the CLI maps the
same codes to its exit statuses and messages.
"""

from __future__ import annotations


class Error(Exception):
    """Any error reported by bloomkit. `code` is the core's stable ErrorCode number and
    `code_name` its name (e.g. "checksum_mismatch")."""

    code: int = 0
    code_name: str = "ok"

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class InvalidArgumentError(Error, ValueError):
    """An option out of its valid range (the message names the value and the range)."""

    code, code_name = 1, "invalid_argument"


class TooLargeError(Error, ValueError):
    """The filter would exceed its memory limit (max_memory)."""

    code, code_name = 2, "too_large"


class IncompatibleError(Error, ValueError):
    """Merge or intersection of filters with different parameters."""

    code, code_name = 3, "incompatible"


class CorruptFileError(Error):
    """The bytes are not a valid bloomkit filter: the parent of every format error below."""


class BadMagicError(CorruptFileError):
    """Not a bloomkit file."""

    code, code_name = 4, "bad_magic"


class UnsupportedVersionError(CorruptFileError):
    """A format version this build does not read."""

    code, code_name = 5, "unsupported_version"


class UnknownKindError(CorruptFileError):
    """A filter kind this build does not know."""

    code, code_name = 6, "unknown_kind"


class UnknownHashError(CorruptFileError):
    """A hash id or seed this build does not implement."""

    code, code_name = 7, "unknown_hash"


class TruncatedError(CorruptFileError):
    """Fewer bytes than the header announces."""

    code, code_name = 8, "truncated"


class ChecksumMismatchError(CorruptFileError):
    """The checksum over header and payload does not match: corrupt or truncated."""

    code, code_name = 9, "checksum_mismatch"


class ParameterMismatchError(CorruptFileError):
    """Parameters inconsistent with each other or with the payload."""

    code, code_name = 10, "parameter_mismatch"


class ReservedNonZeroError(CorruptFileError):
    """A reserved header field is not zero."""

    code, code_name = 11, "reserved_nonzero"


class WrongKindError(Error, TypeError):
    """A valid file of another filter kind than the class asked for (bloomkit.load opens any)."""

    code, code_name = 12, "wrong_kind"


class DecompressFailedError(CorruptFileError):
    """The zstd payload does not decompress to its stated size."""

    code, code_name = 13, "decompress_failed"


class FileError(Error, OSError):
    """Opening, reading, writing, fsync or rename failed."""

    code, code_name = 14, "io_error"


class FullError(Error):
    """A filter that cannot grow reached its capacity."""

    code, code_name = 15, "full"


class UnsupportedError(Error):
    """The operation does not apply to this filter kind."""

    code, code_name = 16, "unsupported"


class LockedError(Error, TimeoutError):
    """Another writer held the file's lock for longer than the wait (the CLI's exit 3,
    "locked by another writer")."""

    code, code_name = 17, "locked"


_BY_CODE: dict[int, type[Error]] = {
    cls.code: cls
    for cls in (
        InvalidArgumentError,
        TooLargeError,
        IncompatibleError,
        BadMagicError,
        UnsupportedVersionError,
        UnknownKindError,
        UnknownHashError,
        TruncatedError,
        ChecksumMismatchError,
        ParameterMismatchError,
        ReservedNonZeroError,
        WrongKindError,
        DecompressFailedError,
        FileError,
        FullError,
        UnsupportedError,
        LockedError,
    )
}


def _make(code: int, message: str) -> Error:
    """The exception for a core error (called by the C++ binding)."""
    cls = _BY_CODE.get(code)
    if cls is None:
        error = Error(message, code)
        error.code_name = f"code_{code}"
        return error
    return cls(message)
