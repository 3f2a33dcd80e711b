// SPDX-License-Identifier: Apache-2.0
// bloomkit::CountingBloomFilter: a Bloom filter that supports deletion (Fan, Cao,
// Almeida & Broder, "Summary Cache", 2000). Each of the m positions holds a small
// counter instead of a bit; Add increments the k counters of a key, Remove decrements
// them.
//
// Contract:
//  - No false negatives: after Add(key), MayContain(key) is true until a matching
//    Remove(key) or Clear(). Removing a key that was never added may remove another
//    key (as with every counting filter: remove only what you added).
//  - Positions are the classic filter's: for the same m and k a key touches the same
//    positions as in BloomFilter, so the false-positive rate is the classic one,
//    (1 - e^{-kn/m})^k, and ToBloomFilter() gives the equivalent bit array.
//  - Overflow: a counter that reaches its maximum (15 for 4-bit counters, 255 for
//    8-bit) saturates. A saturated counter is never incremented nor decremented again,
//    so no sequence of Add/Remove can produce a false negative through overflow; the
//    price is that the position stays set forever (a slightly higher FP rate after
//    many removes). saturated_counters() says how many there are. With 4-bit counters
//    and a filter at capacity, a counter reaches 16 with probability below 1.4e-15 *
//    m (Fan et al., section 5.2), i.e. only through repeated adds of the same keys.
//  - Removing a saturated key: a saturated counter has forgotten how many adds it holds,
//    so Remove decrements only the key's counters below max_count(). It removes one
//    occurrence (returns true, count() falls by 1) when at least one of them went down.
//    When every counter of the key is saturated nothing can go down: the key stays
//    present for good, Remove returns false and count() is unchanged, however often it
//    is called (Count(key) == max_count() tells this from an absent key).
//  - Thread safety: const methods may run concurrently with each other; Add, Remove,
//    Clear need exclusive access (wrap in bloomkit::Synchronized<> to share one).
//
// Layout: counter i is bits [c * (i % (64 / c)), ...) of little-endian word
// i / (64 / c), for c = counter_bits. With 4-bit counters that is two per byte, the low
// nibble first:
//
//   byte 0            byte 1
//   +------+------+   +------+------+
//   | c1   | c0   |   | c3   | c2   |  ...   (bits 7..4 | bits 3..0)
//   +------+------+   +------+------+
//
// Memory is counter_bits times the classic filter's: 4x by default.
//
//   auto cbf = bloomkit::CountingBloomFilter::Create({.bloom = {.capacity = 100'000, .fp_rate = 0.01}});
//   cbf->Add("job:7");
//   if (!cbf->Remove("job:7")) { /* was not present */ }
//
// The verbs are filter.h's (a RemovableFilter); only the counting-specific ones are
// described here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/bloom_filter.h"
#include "bloomkit/byte_sink.h"
#include "bloomkit/byte_source.h"
#include "bloomkit/filter.h"
#include "bloomkit/hash.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"
#include "bloomkit/word_array.h"

namespace bloomkit {

struct CountingOptions {
  // Sizing as for the classic filter; in the explicit form num_bits is the number of
  // counters (positions), so positions match a BloomFilter with the same options.
  // bloom.hash_id is 0 or 1 (kHashIdXxh3DoubleHashing), the only hash of counting
  // filters; any other id (4 included) is kInvalidArgument.
  BloomOptions bloom;
  // 4 (two counters per byte, saturating at 15) or 8 (saturating at 255).
  std::uint32_t counter_bits = 4;
};

class CountingBloomFilter {
 public:
  using Options = CountingOptions;
  static constexpr FilterKind kKind = FilterKind::kCounting;

  static Result<CountingBloomFilter> Create(const CountingOptions& options);
  static Result<CountingBloomFilter> Deserialize(std::span<const std::byte> bytes, const LoadOptions& options = {});
  // The payload of a file whose header a FilterReader checked (LoadFile does), read
  // straight into the filter's own counters.
  static Result<CountingBloomFilter> Deserialize(const FileHeader& header, ByteSource payload,
                                                 const LoadOptions& options = {});
  // File format v1 (docs/FORMAT.md, "Payload: counting").
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  // The bytes Serialize() returns without compression, handed to `sink` piece by piece
  // (the arrays as views of the filter's own memory); false if the sink stopped early.
  // Allocates nothing, so it cannot fail half-way.
  bool SerializeTo(ByteSink sink) const noexcept;

  // Never fails: a counter at its maximum saturates. Add, AddHash and the batches
  // return Done (result.h).
  Done Add(std::string_view key) noexcept {
    InsertKey(key);
    return {};
  }
  // Adds the key unless it may already be present: true if added.
  Result<bool> AddIfAbsent(std::string_view key) noexcept { return InsertKeyIfAbsent(key); }
  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;
  // Decrements the key's counters if all are non-zero and returns true; otherwise
  // changes nothing and returns false. Saturated counters stay saturated, so a key
  // whose counters are all saturated cannot be removed: false, nothing changes.
  [[nodiscard]] bool Remove(std::string_view key) noexcept;
  // The smallest of the key's counters: an upper bound on how often it was added
  // (minus removes), or max_count() when that counter saturated.
  [[nodiscard]] std::uint64_t Occurrences(std::string_view key) const noexcept;

  Done AddHash(std::uint64_t hash) noexcept {
    AddHashPair(ExpandHash(hash));
    return {};
  }
  Result<bool> AddHashIfAbsent(std::uint64_t hash) noexcept { return InsertHashIfAbsent(hash); }
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept { return MayContainHashPair(ExpandHash(hash)); }
  [[nodiscard]] bool RemoveHash(std::uint64_t hash) noexcept { return RemoveHashPair(ExpandHash(hash)); }
  [[nodiscard]] std::uint64_t OccurrencesHash(std::uint64_t hash) const noexcept {
    return OccurrencesHashPair(ExpandHash(hash));
  }

  // One key after another (no prefetching: a counter update reads and writes its word).
  Done AddBatch(std::span<const std::string_view> keys) noexcept;
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  Done AddHashBatch(std::span<const std::uint64_t> hashes) noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;

  void AddHashPair(HashPair hash) noexcept;
  [[nodiscard]] bool MayContainHashPair(HashPair hash) const noexcept;
  [[nodiscard]] bool RemoveHashPair(HashPair hash) noexcept;
  [[nodiscard]] std::uint64_t OccurrencesHashPair(HashPair hash) const noexcept;

  void Clear() noexcept;

  // The classic filter with the same m and k whose bit i is set when counter i is
  // non-zero: what a BloomFilter fed the same keys (minus the removed ones) holds.
  [[nodiscard]] Result<BloomFilter> ToBloomFilter() const;

  [[nodiscard]] std::uint64_t num_counters() const noexcept { return num_counters_; }
  // Bits of state: num_counters * counter_bits.
  [[nodiscard]] std::uint64_t num_bits() const noexcept { return num_counters_ * counter_bits_; }
  [[nodiscard]] std::uint32_t num_hashes() const noexcept { return num_hashes_; }
  [[nodiscard]] std::uint32_t counter_bits() const noexcept { return counter_bits_; }
  // The value at which a counter saturates: 15 or 255.
  [[nodiscard]] std::uint32_t max_count() const noexcept { return (1U << counter_bits_) - 1U; }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] double fp_rate() const noexcept { return fp_rate_; }
  // Adds minus successful removes (Remove returned true).
  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept { return counters_.bytes(); }
  [[nodiscard]] std::uint64_t bytes_held() const noexcept { return counters_.bytes_held(); }
  // Counters stuck at max_count(); they never go back down.
  [[nodiscard]] std::uint64_t saturated_counters() const noexcept { return saturated_counters_; }
  // Non-zero counters, counted on demand.
  [[nodiscard]] std::uint64_t CountNonZero() const noexcept;
  // Non-zero counters / m.
  [[nodiscard]] double FillRatio() const noexcept;
  // Distinct keys from the non-zero counters, as the classic filter estimates them from
  // its set bits (ClassicEstimatedCount): keys added twice count once.
  [[nodiscard]] std::uint64_t EstimatedCount() const noexcept;
  // (non-zero counters / m)^k: the current rate.
  [[nodiscard]] double EstimatedFpRate() const noexcept;
  // (1 - e^{-k n/m})^k at n = capacity.
  [[nodiscard]] double ExpectedFpRate() const noexcept;

  // The raw counter words (layout above), for tests and adapters.
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return counters_.span(); }

  friend bool operator==(const CountingBloomFilter& a, const CountingBloomFilter& b) noexcept;

 private:
  // Add, AddIfAbsent and AddHashIfAbsent.
  void InsertKey(std::string_view key) noexcept;
  bool InsertKeyIfAbsent(std::string_view key) noexcept;
  bool InsertHashIfAbsent(std::uint64_t hash) noexcept;
  CountingBloomFilter(std::uint64_t num_counters, std::uint32_t num_hashes, std::uint32_t counter_bits,
                      std::uint64_t capacity, double fp_rate, WordArray counters) noexcept;
  [[nodiscard]] std::uint32_t Get(std::uint64_t index) const noexcept;
  void Set(std::uint64_t index, std::uint32_t value) noexcept;

  std::uint64_t num_counters_ = 0;
  std::uint32_t num_hashes_ = 0;
  std::uint32_t counter_bits_ = 4;
  std::uint64_t capacity_ = 0;
  double fp_rate_ = 0;
  std::uint64_t count_ = 0;
  std::uint64_t saturated_counters_ = 0;
  WordArray counters_;
};

static_assert(RemovableFilter<CountingBloomFilter>);

}  // namespace bloomkit
