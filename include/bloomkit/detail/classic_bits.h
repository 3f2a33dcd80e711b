// SPDX-License-Identifier: Apache-2.0
// Implementation detail of bloomkit's public headers, not part of the documented API:
// names here may change or go away in any release. Include bloomkit/bloom_filter.h.
//
// internal::ClassicBits: the bit array of the classic Bloom filter, the one core of every
// kind built on it. It holds the words and their geometry (m bits, k probes, the hash
// id) and sets and tests the bits of keys; it knows no count and no sizing.
//
//   BloomFilter            = ClassicBits + count + capacity + fp_rate (bloom_filter.h)
//   ConcurrentBloomFilter  sets its filter's bits with atomic operations on the words
//   CountingBloomFilter    ToBloomFilter writes the words of a new filter's bits
//   ScalableBloomFilter    stages are BloomFilters over whole-word bit arrays; a merge
//                          from a file ORs a stage's words
//   MappedFilter           a BloomFilter over bits borrowed from a mapped file
//
// They reach a BloomFilter's bits through BloomFilter::bits() and build a BloomFilter
// from bits with its internal constructor; nothing else of BloomFilter is theirs.
//
// Layout: m bits in ceil(m/64) little-endian 64-bit words; bit i is bit (i % 64) of
// word i / 64; the bits at and past m in the last word are zero. What a probe reads
// (num_bits_, the words' pointer, num_hashes_, hash_id_) is in the first 40 bytes:
//
//   0         8                           32            36        38          40
//   | num_bits | words (ptr, count, alloc) | num_hashes | hash_id | no_inline |
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "bloomkit/byte_source.h"
#include "bloomkit/hash.h"
#include "bloomkit/result.h"
#include "bloomkit/word_array.h"

namespace bloomkit {

struct FileHeader;

namespace internal {

class ClassicBits {
 public:
  ClassicBits() noexcept = default;
  // Bits over `words`: ceil(num_bits / 64) of them with the bits past num_bits zero,
  // 1 <= num_hashes <= kMaxNumHashes, hash id 1 or 4 (the callers check all of these).
  ClassicBits(std::uint64_t num_bits, std::uint32_t num_hashes, std::uint16_t hash_id, WordArray words) noexcept;
  // Checks a classic file's header (parameters, hash id, capacity, reserved fields,
  // payload length) and the bits of its payload: read from `source` into owned words,
  // or (`source` null) borrowed in place from `mapped` (a mapped file's payload, 8-byte
  // aligned, on a little-endian host). Every malformed input is an error.
  static Result<ClassicBits> FromPayload(const FileHeader& header, std::span<const std::byte> mapped,
                                         const ByteSource* source);

  [[nodiscard]] std::uint64_t num_bits() const noexcept { return num_bits_; }
  [[nodiscard]] std::uint32_t num_hashes() const noexcept { return num_hashes_; }
  [[nodiscard]] std::uint16_t hash_id() const noexcept { return hash_id_; }
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return words_.span(); }
  // For the writers of whole words (merges, ToBloomFilter, atomic adds): they leave the
  // bits past num_bits zero.
  [[nodiscard]] std::span<std::uint64_t> mutable_words() noexcept { return words_.span(); }
  [[nodiscard]] std::uint64_t bytes() const noexcept { return words_.bytes(); }
  [[nodiscard]] std::uint64_t bytes_held() const noexcept { return words_.bytes_held(); }

  // The probes of one key, each in the copy chosen for the CPU (classic_kernels.h).
  // Insert* set the bits and return true if one was unset; Set* only set them;
  // Contains* only read them. Keys are hashed by hash_id().
  bool Insert(HashPair hash) noexcept;
  void Set(HashPair hash) noexcept;
  [[nodiscard]] bool Contains(HashPair hash) const noexcept;
  bool InsertKey(std::string_view key) noexcept;
  void SetKey(std::string_view key) noexcept;
  [[nodiscard]] bool ContainsKey(std::string_view key) const noexcept;
  // Batches: the lines of a group of keys prefetched before they are probed.
  void SetKeys(std::span<const std::string_view> keys) noexcept;
  void SetHashes(std::span<const std::uint64_t> hashes) noexcept;
  std::size_t ContainsKeys(std::span<const std::string_view> keys, bool* out) const noexcept;
  std::size_t ContainsHashes(std::span<const std::uint64_t> hashes, bool* out) const noexcept;

  // Whether BloomFilter::Add probes `key` in the caller's code: an 8-byte key of hash
  // id 4 on a CPU with BMI2 (no_inline_ == 0). One test and one branch.
  [[nodiscard]] bool TakesInlinePath(std::string_view key) const noexcept {
    return ((key.size() ^ 8U) | no_inline_) == 0;
  }

  [[nodiscard]] std::uint64_t CountSetBits() const noexcept;
  void Clear() noexcept;

  // Same geometry and words.
  friend bool operator==(const ClassicBits& a, const ClassicBits& b) noexcept;

 private:
  std::uint64_t num_bits_ = 0;  // <= BloomFilter::kMaxNumBits
  WordArray words_;
  std::uint32_t num_hashes_ = 0;                      // <= kMaxNumHashes
  std::uint16_t hash_id_ = kHashIdXxh3DoubleHashing;  // 1 or 4
  // 0 when 8-byte keys take Add's inline path (TakesInlinePath), 1 otherwise.
  std::uint8_t no_inline_ = 1;
};

}  // namespace internal
}  // namespace bloomkit
