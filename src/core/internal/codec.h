// SPDX-License-Identifier: Apache-2.0
// The container of file format v1 (format.h, docs/FORMAT.md): header, payload and
// checksum. Each filter kind fills the header's parameters and writes its payload; the
// codec does magic, versions, lengths, compression and the checksum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "bloomkit/format.h"

namespace bloomkit::internal {

// Serializes a filter: `write_payload` fills exactly header.payload_bytes bytes.
// The header's flags, hash id/seed, version and stored length are set here.
std::vector<std::byte> EncodeFile(FileHeader header, const std::function<void(std::span<std::byte>)>& write_payload,
                                  const SaveOptions& options);

struct DecodedFile {
  FileHeader header;
  std::span<const std::byte> payload;  // into the input, or into `decompressed`
  std::vector<std::byte> decompressed;
};

// Validates the container and returns the (decompressed) payload. `expected_kind` is
// checked so that loading a cuckoo file as a BloomFilter is a clear error.
// Does not validate kind-specific parameters: each filter's Deserialize does.
Result<DecodedFile> DecodeFile(std::span<const std::byte> bytes, FilterKind expected_kind,
                               std::uint64_t max_memory_bytes);

// Parses and checks the fixed header fields (not the checksum or the payload).
Result<FileHeader> DecodeHeader(std::span<const std::byte> bytes);

// Overflow-safe a * b; false if it overflows.
[[nodiscard]] inline bool CheckedMul(std::uint64_t a, std::uint64_t b, std::uint64_t* out) noexcept {
  return !__builtin_mul_overflow(a, b, out);
}
[[nodiscard]] inline bool CheckedAdd(std::uint64_t a, std::uint64_t b, std::uint64_t* out) noexcept {
  return !__builtin_add_overflow(a, b, out);
}

}  // namespace bloomkit::internal
