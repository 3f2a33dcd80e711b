// SPDX-License-Identifier: Apache-2.0
// bloomkit::BloomFilter: the classic Bloom filter (Bloom 1970).
//
// Contract:
//  - No false negatives: after Add(key), MayContain(key) is true until Clear().
//  - fp_rate is a target at capacity: with `capacity` distinct keys added the rate of
//    MayContain on absent keys is (1 - e^{-kn/m})^k, ExpectedFpRate(). Rounding k to
//    an integer puts it within a few percent of the request (1.0039% for 1%); past
//    capacity it rises, and EstimatedFpRate() shows it.
//  - Thread safety: const methods may run concurrently with each other; Add, Clear,
//    Merge and Intersect need exclusive access (ConcurrentBloomFilter adds lock-free).
//
// Layout: m bits in ceil(m/64) little-endian 64-bit words; bit i is bit (i % 64) of
// word i / 64. Key -> the short-key hash expanded to a pair (hash id 4, ShortKeyPair:
// the default of new filters, a few instructions for keys of up to 8 bytes) or XXH3-128
// (hash id 1, on request and in older files) -> k positions by enhanced double hashing
// (hash.h), each mapped to [0, m) by a 128-bit multiply, so they reach every bit of a
// filter of any size. m need not be a power of two.
//
//   auto filter = bloomkit::BloomFilter::Create({.capacity = 1'000'000, .fp_rate = 0.01});
//   filter->Add("user:42");
//   filter->MayContain("user:42");   // true
//   filter->MayContain("user:43");   // false, or true with probability ~1%
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/byte_sink.h"
#include "bloomkit/byte_source.h"
#include "bloomkit/detail/classic_bits.h"
#include "bloomkit/detail/inline_probe.h"
#include "bloomkit/filter.h"
#include "bloomkit/hash.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"
#include "bloomkit/word_array.h"

namespace bloomkit {

struct FileHeader;

namespace internal {
enum class WordOp : int;
}  // namespace internal

class FilterReader;

// The verbs are filter.h's; only the classic-specific ones are described here.
class BloomFilter {
 public:
  using Options = BloomOptions;
  static constexpr FilterKind kKind = FilterKind::kClassic;

  // A filter sized from capacity and fp_rate, or from explicit num_bits and num_hashes.
  static Result<BloomFilter> Create(const BloomOptions& options);
  // Parses bytes written by Serialize(); every malformed input is an error.
  static Result<BloomFilter> Deserialize(std::span<const std::byte> bytes, const LoadOptions& options = {});
  // The payload of a file whose header a FilterReader checked (LoadFile does), read
  // straight into the filter's own bit array.
  static Result<BloomFilter> Deserialize(const FileHeader& header, ByteSource payload, const LoadOptions& options = {});
  // File format v1 (docs/FORMAT.md).
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  // The bytes Serialize() returns without compression, handed to `sink` piece by piece
  // (the arrays as views of the filter's own memory); false if the sink stopped early.
  // Allocates nothing, so it cannot fail half-way.
  bool SerializeTo(ByteSink sink) const noexcept;

  // Never fails: Add, AddHash and the batches return Done (result.h). Inline; on
  // x86-64 an 8-byte key of a hash-id-4 filter is hashed and probed in the caller too.
  // Sets the key's bits without reading them first and counts the add (count() below);
  // AddIfAbsent is the add that tells whether the key was new.
  [[gnu::always_inline]] Done Add(std::string_view key) noexcept {
    if (internal::kClassicInlineAdds && TakesInlinePath(key)) {
      SetShort8Inline(key.data());
      return {};
    }
    SetKey(key);
    return {};
  }
  // Adds the key; true if it was new (at least one of its bits was unset).
  Result<bool> AddIfAbsent(std::string_view key) noexcept { return InsertKey(key); }
  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;

  // Precomputed 64-bit hashes of the caller's own (see ExpandHash in hash.h).
  Done AddHash(std::uint64_t hash) noexcept {
    SetHashPair(ExpandHash(hash));
    return {};
  }
  Result<bool> AddHashIfAbsent(std::uint64_t hash) noexcept { return AddHashPair(ExpandHash(hash)); }
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept { return MayContainHashPair(ExpandHash(hash)); }

  // Adds many keys, hashing a group ahead and prefetching its cache lines so that the
  // misses of independent keys overlap.
  Done AddBatch(std::span<const std::string_view> keys) noexcept;
  // out[i] = MayContain(keys[i]); returns how many may be present. out.size() >= keys.size().
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  Done AddHashBatch(std::span<const std::uint64_t> hashes) noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;

  // The probes of one hash pair: true (and counted) if the key set a new bit, as
  // AddIfAbsent.
  bool AddHashPair(HashPair hash) noexcept;
  [[nodiscard]] bool MayContainHashPair(HashPair hash) const noexcept;

  // Removes every key.
  void Clear() noexcept;
  // Union: afterwards this filter contains every key of either. Both filters must have
  // the same num_bits, num_hashes and hash_id; count() becomes EstimatedCount().
  Status Merge(const BloomFilter& other);
  // Merge with the filter of a file without loading it: its bits are read from
  // `reader` (FilterReader::OpenFile) kReadBufferBytes at a time and OR-ed in, so a
  // merge costs one filter's memory, not two. On an error after the first piece, this
  // filter holds the bits OR-ed so far (a superset of its keys: still no false negative).
  Status MergeFrom(FilterReader& reader);
  // Intersection of the bit arrays: contains every key present in both (and may
  // report more false positives than a filter built from the intersection).
  Status Intersect(const BloomFilter& other);

  [[nodiscard]] std::uint64_t num_bits() const noexcept { return bits_.num_bits(); }
  [[nodiscard]] std::uint32_t num_hashes() const noexcept { return bits_.num_hashes(); }
  // kHashIdXxh3DoubleHashing (1) or kHashIdShort64 (4): how keys become probes.
  [[nodiscard]] std::uint16_t hash_id() const noexcept { return bits_.hash_id(); }
  // The most bits a filter may have (2 PiB: far past any memory).
  static constexpr std::uint64_t kMaxNumBits = WordArray::kMaxWords * 64;
  [[nodiscard]] std::uint64_t capacity() const noexcept { return capacity_; }
  // The target rate at capacity the filter was created with.
  [[nodiscard]] double fp_rate() const noexcept { return fp_rate_; }
  // Adds recorded: every Add, AddHash and key of a batch, and each AddIfAbsent,
  // AddHashIfAbsent and AddHashPair that set a new bit (saturating at kMaxFileCount).
  // With plain adds only it is an upper bound on the distinct keys (a repeated key counts
  // again); EstimatedCount() estimates the distinct keys from the bits. After Merge or
  // Intersect it is EstimatedCount().
  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept { return bits_.bytes(); }
  [[nodiscard]] std::uint64_t bytes_held() const noexcept { return bits_.bytes_held(); }
  // Bits set, counted on demand (one popcount per word).
  [[nodiscard]] std::uint64_t CountSetBits() const noexcept;
  // Set bits / num_bits.
  [[nodiscard]] double FillRatio() const noexcept;
  // Distinct keys estimated from the fill (Swamidass & Baldi 2007): -(m/k) ln(1 - X/m).
  [[nodiscard]] std::uint64_t EstimatedCount() const noexcept;
  // The current false-positive rate from the fill: (X/m)^k. Rises past fp_rate() when
  // the filter holds more than its capacity.
  [[nodiscard]] double EstimatedFpRate() const noexcept;
  // The formula's rate once capacity() keys are in: (1 - e^{-k n/m})^k.
  [[nodiscard]] double ExpectedFpRate() const noexcept;

  // The raw words (layout above).
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return bits_.words(); }
  // True when this machine runs the BMI2 copy of the probes (x86-64 with BMI1 and BMI2),
  // and Add hashes and probes an 8-byte key of a hash-id-4 filter in the caller's code.
  [[nodiscard]] static bool UsesBmi2() noexcept;

  // Same parameters, count and bits.
  friend bool operator==(const BloomFilter& a, const BloomFilter& b) noexcept;

  // Internal, for the kinds built on the classic bit array (detail/classic_bits.h; not
  // part of the documented API): a filter over `bits` with `count` adds recorded
  // (<= kMaxFileCount) and the sizing it was made for, and the bits of a filter.
  BloomFilter(internal::ClassicBits bits, std::uint64_t count, std::uint64_t capacity, double fp_rate) noexcept;
  [[nodiscard]] const internal::ClassicBits& bits() const noexcept { return bits_; }
  [[nodiscard]] internal::ClassicBits& bits() noexcept { return bits_; }

 private:
  // AddIfAbsent: true if the key was new.
  bool InsertKey(std::string_view key) noexcept;
  // Add and AddHash: the bits set, the add counted, nothing read first.
  void SetKey(std::string_view key) noexcept;
  void SetHashPair(HashPair hash) noexcept;
  // Whether Add probes `key` in the caller's code (ClassicBits::TakesInlinePath).
  [[nodiscard]] bool TakesInlinePath(std::string_view key) const noexcept { return bits_.TakesInlinePath(key); }
  // InsertKey of an 8-byte key at `p`, inline: the probes of hash id 4 by mulx (the
  // library's BMI2 kernel sets the same bits), with k from the filter.
  bool InsertShort8Inline(const char* p) noexcept;
  void SetShort8Inline(const char* p) noexcept;
  // Merge and Intersect: the shape check, the word operation and the new count.
  Status Combine(const BloomFilter& other, std::string_view operation, internal::WordOp op);

  // What a probe reads is in the bits' first 40 bytes, at the start of the object: one
  // cache line for a scalable filter's 64-byte-aligned stages.
  internal::ClassicBits bits_;
  std::uint64_t count_ = 0;
  std::uint64_t capacity_ = 0;
  double fp_rate_ = 0;
};

static_assert(MergeableFilter<BloomFilter>);

}  // namespace bloomkit

// The definition of the inline Add path above (intrinsics and asm; not part of the API).
#include "bloomkit/detail/bloom_filter_inline.h"  // IWYU pragma: export
