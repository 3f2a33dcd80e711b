// SPDX-License-Identifier: Apache-2.0
// The container of file format v1 (format.h, docs/FORMAT.md): header, payload and
// checksum. Each filter kind fills the header's parameters and writes its payload; the
// codec does magic, versions, lengths, compression and the checksum.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <vector>

#include "bloomkit/byte_sink.h"
#include "bloomkit/byte_source.h"
#include "bloomkit/format.h"
#include "bloomkit/word_array.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"
#include "internal/unique_fd.h"

namespace bloomkit::internal {

// Serializes a filter: `write_payload` fills exactly header.payload_bytes bytes.
// The header's flags, hash id/seed, version and stored length are set here.
std::vector<std::byte> EncodeFile(FileHeader header, const std::function<void(std::span<std::byte>)>& write_payload,
                                  const SaveOptions& options);

// Streams a file in the bytes EncodeFile writes without compression, with no buffer
// of the file's size: Begin sends the header, Put/PutWords/PutZeros the payload
// pieces (hashed as they pass), Finish the checksum. Each returns false once the sink
// stopped the stream (later calls then send nothing). Allocates nothing.
class FileStream {
 public:
  explicit FileStream(ByteSink sink) noexcept : sink_(sink) {}
  FileStream(const FileStream&) = delete;
  FileStream& operator=(const FileStream&) = delete;
  FileStream(FileStream&&) = delete;
  FileStream& operator=(FileStream&&) = delete;
  ~FileStream() = default;

  // `header` as for EncodeFile; its payload_bytes must equal what is Put before Finish.
  bool Begin(FileHeader header) noexcept;
  bool Put(std::span<const std::byte> bytes) noexcept;
  // 64-bit words as little-endian bytes (views of `words` on little-endian hosts).
  bool PutWords(std::span<const std::uint64_t> words) noexcept;
  bool PutZeros(std::uint64_t count) noexcept;
  bool Finish() noexcept;

 private:
  ByteSink sink_;
  bool open_ = true;
  XXH3_state_t state_{};
};

// The file that `serialize_to` (a filter's SerializeTo) streams, collected into one
// buffer, and compressed when `options` asks: the Serialize() of every kind that streams,
// so each kind writes its layout in one place.
std::vector<std::byte> CollectFile(const std::function<bool(ByteSink)>& serialize_to, const SaveOptions& options);

struct DecodedFile {
  FileHeader header;
  std::span<const std::byte> payload;  // into the input, or into `decompressed`
  WordArray decompressed;              // lazily zeroed pages: a frame that lies costs what it writes
};

// Validates the container and returns the (decompressed) payload. `expected_kind` is
// checked so that loading a cuckoo file as a BloomFilter is a clear error.
// Does not validate kind-specific parameters: each filter's Deserialize does.
Result<DecodedFile> DecodeFile(std::span<const std::byte> bytes, FilterKind expected_kind,
                               std::uint64_t max_memory_bytes);

// Writes the 128 header bytes of `header` as they are (no stamping).
void EncodeHeader(const FileHeader& header, std::byte* out) noexcept;

// Parses and checks the fixed header fields (not the checksum or the payload).
Result<FileHeader> DecodeHeader(std::span<const std::byte> bytes);

// A regular file opened for reading whose header and size were checked, and whose
// file size and payload are within the memory limit (the checks ReadFileBytes makes
// before reading the payload).
struct ReadableFile {
  UniqueFd fd;
  std::uint64_t file_bytes = 0;
  FileHeader header;
};
Result<ReadableFile> OpenForReading(const std::filesystem::path& path, std::uint64_t max_memory_bytes);

// Reads `words` (stored little-endian) from `source` straight into their memory, and
// puts them in host order in place (nothing to do on a little-endian host).
inline Status ReadWordsLE(const ByteSource& source, std::span<std::uint64_t> words) {
  if (Status st = source(std::as_writable_bytes(words)); !st.ok()) return st;
  if constexpr (std::endian::native != std::endian::little) {
    for (std::uint64_t& w : words) w = LoadLE<std::uint64_t>(reinterpret_cast<const std::byte*>(&w));
  }
  return {};
}

// ORs the payload of `reader` (words stored little-endian, as many as `words` holds)
// into `words`, kReadBufferBytes at a time, then checks that the bits at and past
// `num_bits` stayed zero and that the payload ended (FilterReader::Finish).
Status OrWordsFrom(FilterReader& reader, std::span<std::uint64_t> words, std::uint64_t num_bits);
// The same for words.size() little-endian words read from `source` (no Finish): a
// scalable filter's stages, one after the other in one payload.
Status OrWordsFromSource(const ByteSource& source, std::span<std::uint64_t> words, std::uint64_t num_bits);

// Overflow-safe a * b; false if it overflows.
[[nodiscard]] inline bool CheckedMul(std::uint64_t a, std::uint64_t b, std::uint64_t* out) noexcept {
  return !__builtin_mul_overflow(a, b, out);
}
[[nodiscard]] inline bool CheckedAdd(std::uint64_t a, std::uint64_t b, std::uint64_t* out) noexcept {
  return !__builtin_add_overflow(a, b, out);
}

}  // namespace bloomkit::internal
