// SPDX-License-Identifier: Apache-2.0
// SCANDUMP / LOADCHUNK: a filter's serialized bytes (bloomkit file format v1,
// docs/FORMAT.md) cut into chunks, as plain functions (no Redis needed).
//
//   serialized:  [ header 128 B | payload ............................ | checksum 8 B ]
//   chunks:      [ chunk 1      | chunk 2 (<= C) | chunk 3 (<= C) | ...              ]
//   iterator:      1              129              129 + C          (offset + 1)
//
// The iterator of a chunk is its byte offset plus one, so 0 is free to mean "start"
// (SCANDUMP) and "done" (its reply), as in RedisBloom. The first chunk is exactly the
// 128-byte header: LOADCHUNK checks magic, version, kind, hash and the announced
// lengths against MAX_FILTER_BYTES before it keeps anything. Later chunks must arrive
// in order; the last one completes the bytes, and the filter is built only if the
// checksum and every parameter check pass. Because the loader follows offsets, not a
// chunk size, a dump made with one chunk size loads on a server configured with another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "bloomkit/format.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit::redis {

inline constexpr std::uint64_t kDumpHeaderBytes = 128;
// Room for per-stage headers and alignment on top of MAX_FILTER_BYTES of filter arrays:
// a scalable filter stores each of its (at most 1024) stages as a complete file.
inline constexpr std::uint64_t kDumpSlackBytes = std::uint64_t{1} << 20;

struct DumpChunk {
  std::uint64_t offset = 0;  // into the serialized bytes
  std::uint64_t length = 0;
  std::int64_t iterator = 0;  // offset + 1
};

// The chunk SCANDUMP returns for `iterator` (0 = first call): the one after the chunk
// that `iterator` names. nullopt when the dump is complete; an error for an iterator
// that names no chunk start of a `total_bytes` dump cut at `chunk_bytes`.
Result<std::optional<DumpChunk>> NextDumpChunk(std::int64_t iterator, std::uint64_t total_bytes,
                                               std::uint64_t chunk_bytes);

// The module never writes a compressed value, so it accepts none: a 26-byte zstd
// frame in RESTORE or LOADCHUNK could claim hundreds of MiB and block the server while
// it decompresses. An error (kChunkBadHeader) when `header` announces compression.
Status RequireUncompressed(const FileHeader& header);
// The same for complete dump bytes (RESTORE, RDB): an error if their header announces
// compression. Other header faults are left to Deserialize.
Status RequireUncompressedDump(std::span<const std::byte> bytes);

// Validates the first chunk of a dump for a filter of `kind` and returns the total
// length of the serialized bytes it announces (header + payload + checksum).
Result<std::uint64_t> ValidateDumpHeader(std::span<const std::byte> header, FilterKind kind,
                                         std::uint64_t max_filter_bytes);

// The bytes of a dump being received: LOADCHUNK's chunks after the header, or the
// state a loading key was saved in (RDB, RESTORE, COPY). Holds at most the total that
// the validated header announced.
class PendingDump {
 public:
  PendingDump() = default;
  // Starts from `received`, the first bytes of a dump of `total` bytes (the header
  // that ValidateDumpHeader accepted, or more when restoring a saved state).
  PendingDump(std::uint64_t total, std::span<const std::byte> received) : total_(total) {
    bytes_.assign(received.begin(), received.end());
  }

  // Appends the chunk that starts at byte `offset`. An error if it is not the next
  // chunk (kChunkOutOfOrder) or is empty or runs past the total (kChunkTooLong);
  // true once the dump is complete. Storage grows geometrically, never past the total.
  Result<bool> Append(std::uint64_t offset, std::span<const std::byte> data);

  [[nodiscard]] std::uint64_t total() const noexcept { return total_; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }
  [[nodiscard]] std::uint64_t reserved_bytes() const noexcept { return bytes_.capacity(); }

 private:
  std::uint64_t total_ = 0;
  std::vector<std::byte> bytes_;
};

}  // namespace bloomkit::redis
