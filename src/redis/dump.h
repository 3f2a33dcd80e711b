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

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/allocator.h"
#include "bloomkit/format.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit::redis {

inline constexpr std::uint64_t kDumpHeaderBytes = 128;
// Room for per-stage headers and alignment on top of MAX_FILTER_BYTES of filter arrays:
// a scalable filter stores each of its (at most 1024) stages as a complete file.
inline constexpr std::uint64_t kDumpSlackBytes = std::uint64_t{1} << 20;

// Bytes per RDB string and per rewritten-AOF LOADCHUNK when a filter is streamed out
// (native_type.h): the size of the one stack buffer a save uses (and of the temporary
// Redis' LZF compression allocates for each string).
inline constexpr std::size_t kStreamPieceBytes = std::size_t{64} << 10;

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

// Bytes from bloomkit's allocator (GetAllocator(): in the module Redis' own, so that
// INFO memory, MEMORY USAGE and maxmemory see them), not from the C++ heap.
class ByteBuffer {
 public:
  ByteBuffer() = default;
  ~ByteBuffer() { Release(); }
  // Copies; throws std::bad_alloc when the memory is not available.
  ByteBuffer(const ByteBuffer& other);
  ByteBuffer& operator=(const ByteBuffer& other);
  ByteBuffer(ByteBuffer&& other) noexcept;
  ByteBuffer& operator=(ByteBuffer&& other) noexcept;

  // Makes room for `capacity` bytes, keeping the bytes held; false (nothing changed)
  // when the allocator refuses.
  [[nodiscard]] bool Reserve(std::size_t capacity) noexcept;
  // size() = `size` bytes of room (contents unspecified past the old size); false when
  // the allocator refuses.
  [[nodiscard]] bool Allocate(std::size_t size) noexcept {
    if (!Reserve(size)) return false;
    size_ = size;
    return true;
  }
  // Appends within the capacity reserved (the caller checked it).
  void Append(std::span<const std::byte> bytes) noexcept;

  [[nodiscard]] std::byte* data() noexcept { return data_; }
  [[nodiscard]] const std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }

 private:
  void Release() noexcept;

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  const Allocator* allocator_ = nullptr;  // the one that allocated data_
};

// The bytes of a dump being received: LOADCHUNK's chunks after the header, or the
// state a loading key was saved in (RDB, RESTORE, COPY). Holds at most the total that
// the validated header announced, in Redis' memory (ByteBuffer), and counts itself in
// PendingLoadStats() (pending_loads.h). A failed allocation throws std::bad_alloc
// (the command then answers with Redis' OOM refusal); nothing changes then.
class PendingDump {
 public:
  PendingDump() = default;
  // Starts from `received`, the first bytes of a dump of `total` bytes (the header
  // that ValidateDumpHeader accepted, or more when restoring a saved state).
  // `expected`: the bytes that will arrive in all (reserved at once; at most `total`).
  PendingDump(std::uint64_t total, std::span<const std::byte> received, std::uint64_t expected = 0);
  ~PendingDump();
  PendingDump(const PendingDump& other);
  PendingDump& operator=(const PendingDump& other) = delete;
  PendingDump(PendingDump&& other) noexcept;
  PendingDump& operator=(PendingDump&& other) noexcept;

  // Appends the chunk that starts at byte `offset`. An error if it is not the next
  // chunk (kChunkOutOfOrder) or is empty or runs past the total (kChunkTooLong);
  // true once the dump is complete. Storage grows geometrically, never past the total.
  Result<bool> Append(std::uint64_t offset, std::span<const std::byte> data);

  [[nodiscard]] std::uint64_t total() const noexcept { return total_; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_.bytes(); }
  [[nodiscard]] std::uint64_t reserved_bytes() const noexcept { return bytes_.capacity(); }

 private:
  // Reserves `capacity` bytes and counts them (throws std::bad_alloc).
  void Grow(std::uint64_t capacity);
  void Uncount() noexcept;

  std::uint64_t total_ = 0;
  ByteBuffer bytes_;
};

// The total length (header + payload + checksum) a dump header announces; 0 if
// `header` is not a valid 128-byte header.
std::uint64_t DumpLengthFromHeader(std::span<const std::byte> header) noexcept;

// ---- Streaming a ready filter out (RDB, AOF rewrite, digest) --------------------------

// Cuts a stream of pieces into blocks: the first of `first_bytes` (the 128-byte header,
// which LOADCHUNK and the RDB loader check before anything else), then blocks of
// kStreamPieceBytes, each handed to `emit(offset, bytes)`. Its buffer lives on the
// stack of the save: nothing is allocated.
template <typename Emit>
class BlockWriter {
 public:
  explicit BlockWriter(Emit& emit, std::uint64_t first_bytes = kDumpHeaderBytes) noexcept
      : emit_(emit), limit_(static_cast<std::size_t>(first_bytes)) {}

  bool operator()(std::span<const std::byte> piece) noexcept {
    while (!piece.empty()) {
      const std::size_t n = std::min(piece.size(), limit_ - used_);
      std::memcpy(buffer_.data() + used_, piece.data(), n);
      used_ += n;
      piece = piece.subspan(n);
      if (used_ == limit_) Flush();
    }
    return true;
  }
  // Hands over the last, partial block.
  void Finish() noexcept {
    if (used_ != 0) Flush();
  }

 private:
  void Flush() noexcept {
    emit_(offset_, std::span<const std::byte>(buffer_.data(), used_));
    offset_ += used_;
    used_ = 0;
    limit_ = buffer_.size();
  }

  Emit& emit_;
  std::size_t limit_;
  std::size_t used_ = 0;
  std::uint64_t offset_ = 0;
  std::array<std::byte, kStreamPieceBytes> buffer_;
};

// Streams `filter`'s serialization to `emit(offset, bytes)` in blocks (BlockWriter).
template <typename Filter, typename Emit>
void StreamBlocks(const Filter& filter, Emit&& emit) noexcept {
  BlockWriter<std::remove_reference_t<Emit>> writer(emit);
  (void)filter.SerializeTo(ByteSink(writer));
  writer.Finish();
}

// The length of `filter`'s serialization, from its header (the first piece streamed).
template <typename Filter>
std::uint64_t SerializedLength(const Filter& filter) noexcept {
  std::array<std::byte, kDumpHeaderBytes> header{};
  std::size_t have = 0;
  auto take = [&](std::span<const std::byte> piece) noexcept {
    const std::size_t n = std::min(piece.size(), header.size() - have);
    std::memcpy(header.data() + have, piece.data(), n);
    have += n;
    return have < header.size();
  };
  try {
    (void)filter.SerializeTo(ByteSink(take));
  } catch (...) {
    // The stream's error after the header (the sink stopped it) may fail to allocate its
    // message; the header is what counts, and an incomplete one gives 0 below.
  }
  return DumpLengthFromHeader(header);
}

// ---- Streaming a value in (RDB encoding version 2, native_type.h) -------------------
//
// The loader's checks, without Redis: Start with the value's state (0 ready, 1
// loading), the bytes received (loading only) and the first string, which must be a
// valid 128-byte dump header of `kind`; then Add each further string until done(). The
// bytes expected (ready: the whole serialization; loading: `received`) are checked
// against the header, and so every piece: nothing beyond them is ever kept.
class StreamedLoad {
 public:
  Status Start(std::uint64_t state, std::uint64_t received, std::span<const std::byte> header, FilterKind kind,
               std::uint64_t max_filter_bytes);
  Status Add(std::span<const std::byte> piece);

  [[nodiscard]] bool done() const noexcept { return dump_.bytes().size() == expected_; }
  [[nodiscard]] std::uint64_t expected() const noexcept { return expected_; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return dump_.bytes(); }
  [[nodiscard]] PendingDump TakeDump() && noexcept { return std::move(dump_); }

 private:
  PendingDump dump_;
  std::uint64_t expected_ = 0;
};

}  // namespace bloomkit::redis
