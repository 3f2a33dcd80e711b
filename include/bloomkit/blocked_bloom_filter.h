// SPDX-License-Identifier: Apache-2.0
// bloomkit::BlockedBloomFilter: all k bits of a key in one 64-byte block, so a lookup
// costs one cache miss instead of k (Putze, Sanders & Singler 2007).
//
// Contract: as BloomFilter (no false negatives; fp_rate is met at capacity; const
// methods may run concurrently, mutation needs exclusive access).
//
// Layout: num_blocks blocks of 8 little-endian 64-bit words ("lanes"):
//
//   block b = FastRange64(h1, num_blocks)
//   +--------+--------+--------+--------+--------+--------+--------+--------+
//   | lane 0 | lane 1 | lane 2 | lane 3 | lane 4 | lane 5 | lane 6 | lane 7 |  512 bits
//   +--------+--------+--------+--------+--------+--------+--------+--------+
//   round 0 (probes 0..7):  lane j gets bit ((lo32(h2) * kSalt[j])     >> 26)
//   round 1 (probes 8..15): lane j gets bit ((hi32(h2) * kSalt[8 + j]) >> 26)
//
// Probe i uses lane i % 8 in round i / 8, so with k <= 8 every probe has its own lane
// and with k in 9..16 lanes 0..k-9 carry two bits. The multiply-shift pattern maps to
// AVX2 (eight 32-bit multiplies, two 64-bit variable shifts); a portable path computes
// the same bits and is used where AVX2 is missing. Both are pinned equal by tests.
//
// The price of one miss per key is bits: a blocked filter needs more bits per key than
// the classic one for the same rate. Sizing uses the exact Poisson mixture (sizing.h).
//
// A second layout, BlockedLayout::kLanes256 (BloomOptions::blocked_layout), trades ~4%
// more bits at 1% for about half the time per key: one 64-bit hash h per key (hash id
// 4, HashKeyShort64, for new filters; hash id 3, XXH3-64, on request and in older
// files), block FastRange64(h, num_blocks) of 256 bits, and one bit in each 32-bit lane
// j < k:
//
//   +------+------+------+------+------+------+------+------+
//   |lane 0|lane 1|lane 2|lane 3|lane 4|lane 5|lane 6|lane 7|  256 bits (4 words)
//   +------+------+------+------+------+------+------+------+
//   lane j gets bit ((lo32(h) * kSalt[j]) >> 27), k = 1..8
//
// One block load, one SIMD compare. Its files carry hash id 4 or 3 and params[2] = 1
// (docs/FORMAT.md). A caller's hash (AddHash) passes through the SplitMix64 finalizer;
// a HashPair's h1 is used as the 64-bit hash.
//
// Code compiled with AVX2 enabled (-mavx2, -march=x86-64-v3 or newer) runs the
// single-key Add and MayContain of such a filter with hash id 4 and keys of up to 8
// bytes inline, in the caller's loop: hash, block and probe are a dozen instructions,
// and independent lookups overlap in the out-of-order core. Other code calls the
// library, which picks its AVX2 or portable kernels at run time; both give the same
// bits. The two are different functions: Add and MayContain are templates on
// CallerIsa whose default is the caller's instruction set, so a program that mixes
// translation units compiled with and without AVX2 links Add<CallerIsa::kAvx2> and
// Add<CallerIsa::kLibrary>, each with one definition, and never runs AVX2 code for a
// caller compiled without it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/byte_sink.h"
#include "bloomkit/byte_source.h"
#include "bloomkit/detail/inline_probe.h"
#include "bloomkit/filter.h"
#include "bloomkit/hash.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"
#include "bloomkit/word_array.h"

namespace bloomkit {

struct FileHeader;

namespace internal {
struct BlockedOps;
struct BlockedWords;
struct LanesOps;
enum class WordOp : int;
}  // namespace internal

class ConcurrentBlockedBloomFilter;
class FilterReader;

// The single-key path a caller of BlockedBloomFilter::Add and MayContain is compiled
// for: kAvx2 runs the probe of a kLanes256 filter with hash id 4 inline (x86 code
// compiled with AVX2 only), kLibrary calls the library's run-time dispatched kernels.
enum class CallerIsa : std::uint8_t { kLibrary, kAvx2 };

namespace internal {
// The default CallerIsa of this translation unit. It has internal linkage (a
// namespace-scope constexpr variable) and names a different specialization of Add and
// MayContain under different compiler flags, which is what keeps them apart.
#if defined(__x86_64__) && defined(__AVX2__)
constexpr CallerIsa kThisCallerIsa = CallerIsa::kAvx2;
#else
constexpr CallerIsa kThisCallerIsa = CallerIsa::kLibrary;
#endif
}  // namespace internal

// The verbs are filter.h's; only the blocked-specific ones are described here.
class BlockedBloomFilter {
 public:
  using Options = BloomOptions;
  static constexpr FilterKind kKind = FilterKind::kBlocked;
  static constexpr std::uint64_t kBlockBits = 512;
  static constexpr std::uint64_t kWordsPerBlock = 8;

  // Sized from capacity and fp_rate with the blocked formula, or explicit num_bits
  // (rounded up to whole blocks) and num_hashes (1..16).
  static Result<BlockedBloomFilter> Create(const BloomOptions& options);
  static Result<BlockedBloomFilter> Deserialize(std::span<const std::byte> bytes, const LoadOptions& options = {});
  // The payload of a file whose header a FilterReader checked (LoadFile does), read
  // straight into the filter's own blocks.
  static Result<BlockedBloomFilter> Deserialize(const FileHeader& header, ByteSource payload,
                                                const LoadOptions& options = {});
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  // The bytes Serialize() returns without compression, handed to `sink` piece by piece
  // (the blocks as a view of the filter's own memory); false if the sink stopped early.
  bool SerializeTo(ByteSink sink) const noexcept;

  // Never fail: Add, AddHash and the batches return Done (result.h). Inline. kIsa
  // is left to its default (see CallerIsa above); both specializations set and read the
  // same bits. Add, AddHash and the batches set the key's bits without reading them
  // first and count every key (count() below); AddIfAbsent tests them and counts only
  // the keys that set a new bit.
  template <CallerIsa kIsa = internal::kThisCallerIsa>
  [[gnu::always_inline]] Done Add(std::string_view key) noexcept {
    if constexpr (kIsa == CallerIsa::kAvx2) {
      if (TakesInlinePath(key)) {
        SetShortAvx2(internal::HashShortKey8Mulx(key.data()));
        return {};
      }
    }
    SetKey(key);
    return {};
  }
  Result<bool> AddIfAbsent(std::string_view key) noexcept { return InsertKey(key); }
  template <CallerIsa kIsa = internal::kThisCallerIsa>
  [[nodiscard]] [[gnu::always_inline]] bool MayContain(std::string_view key) const noexcept {
    if constexpr (kIsa == CallerIsa::kAvx2) {
      if (TakesInlinePath(key)) return ContainsShortAvx2(internal::HashShortKey8Mulx(key.data()));
    }
    return ContainsKey(key);
  }

  Done AddHash(std::uint64_t hash) noexcept {
    SetHash(hash);
    return {};
  }
  Result<bool> AddHashIfAbsent(std::uint64_t hash) noexcept { return InsertHash(hash); }
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept;

  Done AddBatch(std::span<const std::string_view> keys) noexcept;
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  Done AddHashBatch(std::span<const std::uint64_t> hashes) noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;

  // The probes of one hash pair; true (and counted) if the key set a new bit, as
  // AddIfAbsent.
  bool AddHashPair(HashPair hash) noexcept;
  [[nodiscard]] bool MayContainHashPair(HashPair hash) const noexcept;

  void Clear() noexcept;
  Status Merge(const BlockedBloomFilter& other);
  // Merge with the filter of a file without loading it (as BloomFilter::MergeFrom).
  Status MergeFrom(FilterReader& reader);
  Status Intersect(const BlockedBloomFilter& other);

  [[nodiscard]] std::uint64_t num_bits() const noexcept { return num_blocks_ * block_bits(); }
  [[nodiscard]] BlockedLayout layout() const noexcept { return layout_; }
  // 512 or 256, by layout.
  [[nodiscard]] std::uint64_t block_bits() const noexcept {
    return layout_ == BlockedLayout::kLanes256 ? 256 : kBlockBits;
  }
  [[nodiscard]] std::uint64_t num_blocks() const noexcept { return num_blocks_; }
  [[nodiscard]] std::uint32_t num_hashes() const noexcept { return num_hashes_; }
  // kHashIdXxh3DoubleHashing (512-bit blocks), kHashIdShort64 or kHashIdXxh3x64.
  [[nodiscard]] std::uint16_t hash_id() const noexcept { return hash_id_; }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] double fp_rate() const noexcept { return fp_rate_; }
  // Adds recorded: every Add, AddHash and key of a batch, and each AddIfAbsent,
  // AddHashIfAbsent and AddHashPair that set a new bit (saturating at kMaxFileCount).
  // With plain adds only it is an upper bound on the distinct keys (a repeated key counts
  // again); EstimatedCount() estimates the distinct keys from the bits. After Merge or
  // Intersect it is EstimatedCount().
  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept { return words_.bytes(); }
  [[nodiscard]] std::uint64_t bytes_held() const noexcept { return words_.bytes_held(); }
  [[nodiscard]] std::uint64_t CountSetBits() const noexcept;
  [[nodiscard]] double FillRatio() const noexcept;
  // Distinct keys estimated from the set bits of each lane (Swamidass & Baldi per lane).
  [[nodiscard]] std::uint64_t EstimatedCount() const noexcept;
  // BlockedFpRate at EstimatedCount(): rises past fp_rate() when overfull.
  [[nodiscard]] double EstimatedFpRate() const noexcept;
  // BlockedFpRate at capacity().
  [[nodiscard]] double ExpectedFpRate() const noexcept;

  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return words_.span(); }
  // True when queries and inserts use the AVX2 path on this machine (AVX2 and BMI2).
  [[nodiscard]] static bool UsesAvx2() noexcept;

  friend bool operator==(const BlockedBloomFilter& a, const BlockedBloomFilter& b) noexcept;

 private:
  // The inline-key size of filters whose keys all call the library: no string_view is
  // this long.
  static constexpr std::size_t kNoInlineKeys = ~std::size_t{0};
  // It writes the words of a filter it owns.
  friend class ConcurrentBlockedBloomFilter;
  friend class MappedFilter;  // builds a read-only filter over a mapped payload
  // Checks a file's blocked parameters and builds the filter over its raw payload:
  // read from `source` into owned words, or borrowed in place (as
  // internal::ClassicBits::FromPayload).
  static Result<BlockedBloomFilter> FromPayload(const FileHeader& header, std::span<const std::byte> mapped,
                                                const ByteSource* source);
  BlockedBloomFilter(BlockedLayout layout, std::uint16_t hash_id, std::uint64_t num_blocks, std::uint32_t num_hashes,
                     std::uint64_t capacity, double fp_rate, WordArray words) noexcept;
  [[nodiscard]] bool lanes() const noexcept { return layout_ == BlockedLayout::kLanes256; }
  // Whether `key` takes the inline probe: one compare. Only 8-byte keys do, so that the
  // caller's loop holds one straight-line hash; other lengths call the library, whose
  // kernels inline the hash of every length up to 8.
  [[nodiscard]] bool TakesInlinePath(std::string_view key) const noexcept { return key.size() == inline_key_bytes_; }
  // AddIfAbsent and AddHashIfAbsent: true if the key was new.
  bool InsertKey(std::string_view key) noexcept;
  // Add and AddHash: the bits set, the add counted, nothing read first.
  void SetKey(std::string_view key) noexcept;
  void SetHash(std::uint64_t hash) noexcept;
  // MayContain through the library.
  [[nodiscard]] bool ContainsKey(std::string_view key) const noexcept;
  // kLanes256 with hash id 4: the probe of hash h in the caller's code (the kernels of
  // blocked_lanes.cc compute the same bits). AVX2 functions, inlined only into code
  // compiled with AVX2 (Add<kAvx2>, MayContain<kAvx2>); declared everywhere so that
  // those templates parse, defined on x86-64.
  [[nodiscard]] bool ContainsShortAvx2(std::uint64_t h) const noexcept;
  bool InsertShortAvx2(std::uint64_t h) noexcept;
  void SetShortAvx2(std::uint64_t h) noexcept;
  bool InsertHash(std::uint64_t hash) noexcept;
  // Merge and Intersect: the shape check, the word operation and the new count.
  Status Combine(const BlockedBloomFilter& other, std::string_view operation, internal::WordOp op);
  [[nodiscard]] internal::BlockedWords View() const noexcept;
  // EstimatedCount from the set bits of each lane over all blocks.
  static std::uint64_t EstimateFromLanes(const std::array<std::uint64_t, kWordsPerBlock>& lane_bits,
                                         std::uint64_t num_blocks, std::uint32_t num_hashes) noexcept;
  // One key's probe, inlined into every single-key operation.
  [[nodiscard]] bool ContainsAt(HashPair hash) const noexcept;
  bool InsertAt(HashPair hash) noexcept;
  void SetAt(HashPair hash) noexcept;

  // Lane enables of the bit pattern: word 8r + j is all-ones when probe 8r + j < k.
  alignas(64) std::uint64_t lane_enable_[16] = {};
  // kLanes256: the salts of lanes 0..7 and a 1 in each lane j < k (the inline probe).
  alignas(32) std::uint32_t lane_salts_[8] = {};
  alignas(32) std::uint32_t lane_ones_[8] = {};
  // The operations for this k on this CPU (AVX2 or portable), chosen at creation.
  const internal::BlockedOps* ops_ = nullptr;
  // kLanes256 only: its operations for this k on this CPU.
  const internal::LanesOps* lanes_ops_ = nullptr;
  WordArray words_;
  std::uint64_t num_blocks_ = 0;
  std::uint64_t capacity_ = 0;
  std::uint64_t count_ = 0;
  double fp_rate_ = 0;
  std::uint32_t num_hashes_ = 0;
  BlockedLayout layout_ = BlockedLayout::kLines512;
  std::uint16_t hash_id_ = kHashIdXxh3DoubleHashing;
  // kLanes256 with hash id 4: 8, keys of 8 bytes take the inline probe; otherwise a
  // size no key has, and none does.
  std::size_t inline_key_bytes_ = kNoInlineKeys;
};

static_assert(MergeableFilter<BlockedBloomFilter>);

}  // namespace bloomkit

// The definitions of the inline AVX2 probe above (intrinsics; not part of the API).
#include "bloomkit/detail/blocked_bloom_filter_inline.h"  // IWYU pragma: export
