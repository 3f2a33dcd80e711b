// SPDX-License-Identifier: Apache-2.0
// File format v1: one portable, versioned, checksummed container for every filter kind.
//
//   +---------------------------+  offset 0
//   | header (128 bytes)        |  magic, version, kind, hash id + seed, parameters,
//   |                           |  item count, payload lengths, reserved (zero)
//   +---------------------------+  offset 128 (64-byte aligned: mmap-able)
//   | payload (stored_bytes)    |  the filter's arrays, little-endian; zstd if flagged
//   +---------------------------+
//   | checksum (8 bytes)        |  XXH3-64 (seed 0) of header + stored payload
//   +---------------------------+
//
// All integers are little-endian and written field by field. The byte table of the
// header and of each kind's payload is in docs/FORMAT.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "bloomkit/byte_sink.h"
#include "bloomkit/byte_source.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit {

inline constexpr std::array<std::uint8_t, 8> kFileMagic = {0x89, 'B', 'L', 'K', '\r', '\n', 0x1a, '\n'};
inline constexpr std::uint32_t kFormatVersion = 1;
inline constexpr std::size_t kHeaderBytes = 128;
inline constexpr std::size_t kChecksumBytes = 8;
inline constexpr std::size_t kPayloadAlignment = 64;
// Header flag bits.
inline constexpr std::uint32_t kFlagZstdPayload = 1U << 0;
// Kind-specific parameter slots in the header.
inline constexpr std::size_t kNumHeaderParams = 6;

// The decoded header of a bloomkit file.
struct FileHeader {
  std::uint32_t format_version = kFormatVersion;
  FilterKind kind = FilterKind::kClassic;
  std::uint16_t hash_id = 0;
  std::uint32_t flags = 0;
  std::uint64_t hash_seed = 0;
  std::uint64_t capacity = 0;
  std::uint64_t count = 0;
  std::uint64_t stored_payload_bytes = 0;                // bytes after the header (compressed or not)
  std::uint64_t payload_bytes = 0;                       // bytes of the uncompressed payload
  double fp_rate = 0;                                    // the target rate the filter was sized for
  std::array<std::uint64_t, kNumHeaderParams> params{};  // per kind, see docs/FORMAT.md
};

// Validates a whole serialized filter (magic, version, kind, hash, lengths, checksum,
// compressed payload) and returns its header without building the filter. A payload
// over `max_memory_bytes` is refused before it is decompressed.
Result<FileHeader> InspectBytes(std::span<const std::byte> bytes,
                                std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes);

// Decodes and checks the 128-byte header at the start of `bytes` (magic, version, kind,
// hash, flags, lengths); nothing else: neither the checksum nor the payload.
//   auto header = bloomkit::PeekHeader(bytes);  // header->kind, header->payload_bytes
Result<FileHeader> PeekHeader(std::span<const std::byte> bytes);

// kMaxFileCount, the largest count a file may hold, is in options.h.

// Reads a whole file into memory, refusing files larger than the serialized size of a
// filter of `max_memory_bytes` (checked before allocating).
Result<std::vector<std::byte>> ReadFileBytes(const std::filesystem::path& path,
                                             std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes);

// Writes `bytes` to `path` atomically: a temporary file in the same directory, fsync,
// rename over `path`, fsync of the directory. On error `path` is untouched. After a
// successful save, temporaries of the same target left by saves whose process died
// (their names carry its pid) are removed.
Status WriteFileAtomically(const std::filesystem::path& path, std::span<const std::byte> bytes);
// The same, calling `before_commit` (if set) before the rename, as SaveOptions::before_commit.
Status WriteFileAtomically(const std::filesystem::path& path, std::span<const std::byte> bytes,
                           const std::function<Status(std::uint64_t)>& before_commit);

// Saves, as WriteFileAtomically, the file that `serialize_to` (a filter's SerializeTo)
// streams, without a buffer of the file's size: a raw file goes from the filter's
// memory to the file piece by piece; a compressed one through a zstd stream (its
// output in pieces of ZSTD_CStreamOutSize(), about 128 KiB, plus zstd's working memory
// for the level), then the header and checksum, read back in kReadBufferBytes pieces.
// The bytes are those of Serialize(options).
Status SaveStreamed(const std::filesystem::path& path, const std::function<bool(ByteSink)>& serialize_to,
                    const SaveOptions& options = {});

// Reads one serialized filter from a stream: the header first, then exactly the bytes
// it announces (checked against `max_memory_bytes` before allocating).
Result<std::vector<std::byte>> ReadStreamBytes(std::istream& in,
                                               std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes);
// Writes `bytes` to a stream; an error if the stream fails.
Status WriteStreamBytes(std::ostream& out, std::span<const std::byte> bytes);
// Writes to a stream the file that `serialize_to` streams, the bytes of
// Serialize(options), without a buffer of the file's size: a raw file goes from the
// filter's memory to the stream piece by piece. A compressed file's header holds the
// size of its compressed payload, which a stream cannot seek back to write, so the
// file is first written to an unlinked temporary file in the temporary directory
// (TMPDIR, else /tmp, as std::filesystem::temp_directory_path) and then copied to the
// stream in kReadBufferBytes pieces. The file is opened with O_TMPFILE; where the file
// system or kernel refuses that (EOPNOTSUPP, e.g. on NFS; EISDIR before Linux 3.11;
// EINVAL), with mkostemp in the same directory and unlinked at once. Its descriptor is
// closed on every path, so no file is left behind. When neither way works, the error
// is kIoError naming the directory and each errno text:
//   cannot create a temporary file in /mnt/nfs: O_TMPFILE: Operation not supported;
//   mkostemp: Permission denied
Status WriteStreamed(std::ostream& out, const std::function<bool(ByteSink)>& serialize_to,
                     const SaveOptions& options = {});

// Bytes of the one buffer a streamed load reads through (FilterReader): the checksum
// pass and a compressed payload's input. A raw payload is read straight into the
// filter's memory.
inline constexpr std::size_t kReadBufferBytes = std::size_t{1} << 20;

// A serialized filter opened for a streamed load, as LoadFile and every kind's
// Deserialize use it. Opening checks, in this order and before anything of the
// filter's size is allocated: the header, the file's size against the header, the
// checksum (one pass over the stored bytes through a kReadBufferBytes buffer), the
// count, the kind, the payload against the memory limit, and that a zstd frame
// declares the header's payload length. Read() then delivers the uncompressed payload
// in order into the caller's memory (a filter's own arrays), decompressing as it goes.
//   auto reader = bloomkit::FilterReader::OpenFile("seen.bf", std::nullopt);
//   reader->header().kind;  // then e.g. reader->Load<bloomkit::BloomFilter>()
// Loading costs the filter's size plus kReadBufferBytes (plus zstd's window for a
// compressed payload read in several pieces: cuckoo and RedisBloom kinds).
class FilterReader {
 public:
  // `expected_kind` empty: any kind (the caller dispatches on header().kind).
  static Result<FilterReader> OpenFile(const std::filesystem::path& path, std::optional<FilterKind> expected_kind,
                                       std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes);
  // The same for a serialization in memory; `bytes` must outlive the reader.
  static Result<FilterReader> OpenBytes(std::span<const std::byte> bytes, std::optional<FilterKind> expected_kind,
                                        std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes);
  // A temporary buffer would be gone before the first read: name it first.
  static Result<FilterReader> OpenBytes(std::vector<std::byte>&& bytes, std::optional<FilterKind> expected_kind,
                                        std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes) = delete;
  // The next serialized filter of a stream (ReadFrom), read once and in order: the
  // header and its checks except the checksum, which is computed as the stored bytes
  // arrive and compared by Finish (or VerifyRest) after the payload was read. Takes
  // exactly the filter's bytes off the stream. A compressed payload is read through a
  // kReadBufferBytes buffer, a raw one straight into the filter's memory. `in` must
  // outlive the reader.
  static Result<FilterReader> OpenStream(std::istream& in, std::optional<FilterKind> expected_kind,
                                         std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes);

  FilterReader(FilterReader&&) noexcept;
  FilterReader& operator=(FilterReader&&) noexcept;
  FilterReader(const FilterReader&) = delete;
  FilterReader& operator=(const FilterReader&) = delete;
  ~FilterReader();

  [[nodiscard]] const FileHeader& header() const noexcept;
  [[nodiscard]] std::uint64_t file_bytes() const noexcept;
  // The next out.size() bytes of the uncompressed payload.
  Status Read(std::span<std::byte> out);
  // The payload as a ByteSource, for a kind's Deserialize(header, source, options).
  [[nodiscard]] ByteSource payload() noexcept { return ByteSource(*this); }
  Status operator()(std::span<std::byte> out) { return Read(out); }
  // Every payload byte was read (and a zstd frame ended exactly there); for a stream,
  // first the checksum (VerifyRest).
  Status Finish() const;
  // For a stream: reads the rest of its stored bytes and compares the checksum (an error
  // means the input is damaged or truncated). For a file or bytes, checked when opened:
  // always ok.
  Status VerifyRest() const;

  // Builds a `Filter` from the payload: its Deserialize(header, source, options), then
  // Finish. A stream's refused payload is reported as damage when its checksum fails.
  template <typename Filter>
  Result<Filter> Load(const LoadOptions& options = {}) {
    auto filter = Filter::Deserialize(header(), payload(), options);
    if (!filter.ok()) {
      if (Status st = VerifyRest(); !st.ok()) return std::move(st).error();
      return filter;
    }
    if (Status st = Finish(); !st.ok()) return std::move(st).error();
    return filter;
  }

 private:
  struct Impl;
  explicit FilterReader(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

// True for a filter type that loads from a ByteSource (every kind's Deserialize).
template <typename Filter>
inline constexpr bool kStreamedLoad = requires(const FileHeader& h, ByteSource s, const LoadOptions& o) {
  Filter::Deserialize(h, s, o);
};
// True for a filter type that saves into a ByteSink (every kind's SerializeTo; not the
// Synchronized wrapper, which saves a copy taken under its lock).
template <typename Filter>
inline constexpr bool kStreamedSave = requires(const Filter& f, ByteSink sink) {
  f.SerializeTo(sink);
};

// Save/Load for any filter type with Serialize and Deserialize:
//   bloomkit::SaveFile(filter, "seen.bf");
//   auto loaded = bloomkit::LoadFile<bloomkit::BloomFilter>("seen.bf");
template <typename Filter>
Status SaveFile(const Filter& filter, const std::filesystem::path& path, const SaveOptions& options = {}) {
  if constexpr (kStreamedSave<Filter>) {
    return SaveStreamed(
        path, [&filter](ByteSink sink) { return filter.SerializeTo(sink); }, options);
  } else {
    const std::vector<std::byte> bytes = filter.Serialize(options);
    return WriteFileAtomically(path, bytes, options.before_commit);
  }
}

// Loads with a peak of the filter's size plus kReadBufferBytes (FilterReader).
template <typename Filter>
Result<Filter> LoadFile(const std::filesystem::path& path, const LoadOptions& options = {}) {
  if constexpr (kStreamedLoad<Filter>) {
    auto reader = FilterReader::OpenFile(path, Filter::kKind, options.max_memory_bytes);
    if (!reader.ok()) return std::move(reader).error();
    return reader->template Load<Filter>(options);
  } else {
    auto bytes = ReadFileBytes(path, options.max_memory_bytes);
    if (!bytes.ok()) return std::move(bytes).error();
    return Filter::Deserialize(bytes.value(), options);
  }
}

// Writes with a peak of the filter's size plus a bounded buffer (WriteStreamed) for
// every kind that streams its file (SerializeTo).
template <typename Filter>
Status WriteTo(const Filter& filter, std::ostream& out, const SaveOptions& options = {}) {
  if constexpr (kStreamedSave<Filter>) {
    return WriteStreamed(
        out, [&filter](ByteSink sink) { return filter.SerializeTo(sink); }, options);
  } else {
    return WriteStreamBytes(out, filter.Serialize(options));
  }
}

// Reads one filter off a stream with a peak of the filter's size plus kReadBufferBytes
// (FilterReader::OpenStream): the payload goes straight into the filter's memory, the
// checksum is compared at the end.
template <typename Filter>
Result<Filter> ReadFrom(std::istream& in, const LoadOptions& options = {}) {
  if constexpr (kStreamedLoad<Filter>) {
    auto reader = FilterReader::OpenStream(in, Filter::kKind, options.max_memory_bytes);
    if (!reader.ok()) return std::move(reader).error();
    return reader->template Load<Filter>(options);
  } else {
    auto bytes = ReadStreamBytes(in, options.max_memory_bytes);
    if (!bytes.ok()) return std::move(bytes).error();
    return Filter::Deserialize(bytes.value(), options);
  }
}

}  // namespace bloomkit
