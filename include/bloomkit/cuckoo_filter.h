// SPDX-License-Identifier: Apache-2.0
// bloomkit::CuckooFilter: a filter that supports deletion and counting, in fewer bits
// per key than a Bloom filter at low rates (Fan, Andersen, Kaminsky & Mitzenmacher,
// "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014).
//
// Partial-key cuckoo hashing: a key's f-bit fingerprint lives in one of two buckets of
// b slots, i1 = h(key) and i2 = alt(i1, fingerprint), where alt is an involution so a
// fingerprint can be moved between its buckets without the key. When both buckets are
// full, a random resident is evicted to its other bucket, up to max_kicks times.
//
// Contract: no false negatives for keys added and not removed; Remove(key) of a key
// that was never added may remove another key's fingerprint (as in the paper: remove
// only what you added). A failed insert keeps every previously added key (the last
// evicted fingerprint is kept in a victim slot) and reports kFull. Optional growth
// chains sub-filters, each `expansion` times larger (as RedisBloom's EXPANSION).
// Const methods may run concurrently; mutation needs exclusive access.
//
// Details, and the choices the paper leaves open:
//  - fingerprint = 1 + FastRange64(h2, 2^f - 1): uniform over the 2^f - 1 non-zero
//    values, 0 marks an empty slot.
//  - i1 = FastRange64(h1, num_buckets); i2 = (g(fp) - i1) mod num_buckets with
//    g(fp) = FastRange64(fmix64(fp), num_buckets). Applying it twice gives i1 back for
//    any bucket count, so sizes need not be powers of two (no 2x memory jumps). A
//    sub-filter 2^s times larger than the first splits a bucket into (base, s-bit
//    tail) and flips the tail with s bits of another hash of fp: geometries nest, so
//    removing from a chain of sub-filters never deletes the only copy that answers
//    for another key (cuckoo_filter.cc, AltBucket).
//  - One lookup reads 2 buckets; a false positive needs the query's fingerprint in one
//    of 2b slots: rate = 1 - (1 - 1/(2^f - 1))^(2b) ~ 2b / 2^f at full load, e.g. b = 4:
//    f = 8: 3.1%, f = 12: 0.20%, f = 16: 0.012% (CuckooFpRate).
//  - Sized for load 84% (b = 2), 95% (b = 4), 98% (b = 8): the loads the paper reaches
//    with 500 kicks, and what cuckoo_filter_test.cc checks before the first failure.
//  - Slots are packed: f bits each, a little-endian bit stream (docs/FORMAT.md).
//
// Space per key at full load is f / load: 8.4, 12.6 and 16.8 bits (b = 4) against
// 9.6, 14.4 and 19.2 for a classic filter at 1%, 0.1% and 0.01% targets; see
// docs/FILTERS.md for where each kind wins.
//
//   auto cf = bloomkit::CuckooFilter::Create({.capacity = 1'000'000, .fp_rate = 0.001});
//   cf->Add("session:9");  cf->Remove("session:9");
//
// The verbs are filter.h's (a RemovableFilter and a GrowableFilter); only the
// cuckoo-specific ones are described here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/allocator.h"
#include "bloomkit/byte_sink.h"
#include "bloomkit/byte_source.h"
#include "bloomkit/filter.h"
#include "bloomkit/hash.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"
#include "bloomkit/word_array.h"

namespace bloomkit {

struct FileHeader;

// Limits checked by Create and Deserialize.
inline constexpr std::uint32_t kMaxCuckooKicks = 1U << 20;
inline constexpr std::uint32_t kMaxCuckooExpansion = 1U << 16;
inline constexpr std::uint32_t kMaxCuckooFilters = 1024;

struct CuckooOptions {
  std::uint64_t capacity = 0;          // keys it must hold (at <= 95% load for b = 4)
  double fp_rate = 0.01;               // chooses fingerprint_bits when that is 0
  std::uint32_t bucket_size = 4;       // b: 2, 4 or 8 slots per bucket
  std::uint32_t fingerprint_bits = 0;  // f: 8, 12 or 16; 0 = the smallest meeting fp_rate
  std::uint32_t max_kicks = 500;       // evictions before an insert reports full
  // 0: never grow (a full filter reports kFull). >= 1: add a sub-filter `expansion`
  // times the last one's capacity when full; rounded up to a power of two (as
  // RedisBloom does) so that sub-filter bucket geometries nest and Remove stays exact.
  std::uint32_t expansion = 1;
  std::uint32_t max_filters = 32;  // 1..kMaxCuckooFilters; reaching it is kFull
  std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes;
};

// The size of one cuckoo sub-filter.
struct CuckooSizing {
  std::uint32_t bucket_size = 0;
  std::uint32_t fingerprint_bits = 0;
  std::uint64_t num_buckets = 0;
  std::uint64_t bytes = 0;      // memory of its slots
  double expected_fp_rate = 0;  // CuckooFpRate(bucket_size, fingerprint_bits)
};

// The load a sub-filter of `bucket_size` slots per bucket is sized for: 0.84, 0.95, 0.98.
double CuckooMaxLoad(std::uint32_t bucket_size) noexcept;
// 1 - (1 - 1/(2^f - 1))^(2b): the rate of one full sub-filter.
double CuckooFpRate(std::uint32_t bucket_size, std::uint32_t fingerprint_bits) noexcept;
// Buckets for `capacity` keys at CuckooMaxLoad, and fingerprint bits: the given ones, or
// (fingerprint_bits = 0) the smallest of 8, 12, 16 whose CuckooFpRate <= fp_rate.
//   CalculateCuckooSizing(1'000'000, 0.001) -> 263,158 buckets of 4, f = 16, 2,105,264 bytes
Result<CuckooSizing> CalculateCuckooSizing(std::uint64_t capacity, double fp_rate, std::uint32_t bucket_size = 4,
                                           std::uint32_t fingerprint_bits = 0,
                                           std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes);

namespace internal {
// One sub-filter: num_buckets * bucket_size packed fingerprints, and the victim slot that
// holds the fingerprint left homeless by a failed chain of kicks (0 = empty).
struct CuckooTable {
  std::uint64_t num_buckets = 0;
  WordArray slots;
  std::uint64_t victim_bucket = 0;
  std::uint32_t victim_fingerprint = 0;
  // log2(num_buckets / the first sub-filter's num_buckets): see AltBucket in
  // cuckoo_filter.cc. Derived, not saved.
  std::uint32_t tail_bits = 0;
};
}  // namespace internal

class CuckooFilter {
 public:
  using Options = CuckooOptions;
  static constexpr FilterKind kKind = FilterKind::kCuckoo;

  static Result<CuckooFilter> Create(const CuckooOptions& options);
  static Result<CuckooFilter> Deserialize(std::span<const std::byte> bytes, const LoadOptions& options = {});
  // The payload of a file whose header a FilterReader checked (LoadFile does), read
  // straight into the sub-filters' slots.
  static Result<CuckooFilter> Deserialize(const FileHeader& header, ByteSource payload,
                                          const LoadOptions& options = {});
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  // The bytes Serialize() returns without compression, handed to `sink` piece by piece
  // (the arrays as views of the filter's own memory); false if the sink stopped early.
  // Allocates nothing, so it cannot fail half-way.
  bool SerializeTo(ByteSink sink) const noexcept;

  // Adds one copy (duplicates allowed). kFull if there is no room and no growth.
  Status Add(std::string_view key);
  // Adds the key unless it may be present: true if added.
  Result<bool> AddIfAbsent(std::string_view key);
  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;
  // Removes one copy of the key's fingerprint; false if none was found.
  [[nodiscard]] bool Remove(std::string_view key) noexcept;
  // Copies of the key's fingerprint in its buckets (an upper bound on its adds).
  [[nodiscard]] std::uint64_t Occurrences(std::string_view key) const noexcept;

  Status AddHash(std::uint64_t hash) { return AddHashPair(ExpandHash(hash)); }
  Result<bool> AddHashIfAbsent(std::uint64_t hash);
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept { return MayContainHashPair(ExpandHash(hash)); }
  [[nodiscard]] bool RemoveHash(std::uint64_t hash) noexcept { return RemoveHashPair(ExpandHash(hash)); }
  [[nodiscard]] std::uint64_t OccurrencesHash(std::uint64_t hash) const noexcept {
    return OccurrencesHashPair(ExpandHash(hash));
  }

  // One key after another (an insert may kick residents along a chain: nothing to
  // prefetch ahead). AddBatch stops at the first key that does not fit.
  Status AddBatch(std::span<const std::string_view> keys);
  Status AddHashBatch(std::span<const std::uint64_t> hashes);
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;

  Status AddHashPair(HashPair hash);
  [[nodiscard]] bool MayContainHashPair(HashPair hash) const noexcept;
  [[nodiscard]] bool RemoveHashPair(HashPair hash) noexcept;
  [[nodiscard]] std::uint64_t OccurrencesHashPair(HashPair hash) const noexcept;

  void Clear() noexcept;

  // Restarts the sequence that picks which resident a kick evicts. Two filters with
  // equal contents and equal seeds evolve identically under the same inserts; the Redis
  // module reseeds before every write so that a replica (which loaded the filter from
  // RDB, where the sequence is not saved) stays byte-identical to its primary.
  void SeedKicks(std::uint64_t seed) noexcept { kick_state_ = seed | 1U; }

  // Keys all sub-filters are sized for: options().capacity for the first, `expansion`
  // times the previous one's for each next (num_slots() is more: slots at full load).
  [[nodiscard]] std::uint64_t capacity() const noexcept;
  [[nodiscard]] std::uint64_t num_slots() const noexcept;                // of all sub-filters
  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }  // fingerprints stored
  // count(): a cuckoo filter knows how many fingerprints it holds.
  [[nodiscard]] std::uint64_t EstimatedCount() const noexcept { return count_; }
  [[nodiscard]] double fp_rate() const noexcept { return options_.fp_rate; }
  [[nodiscard]] std::uint64_t num_deletes() const noexcept { return num_deletes_; }
  [[nodiscard]] std::uint64_t num_buckets() const noexcept;  // of all sub-filters
  [[nodiscard]] std::uint32_t bucket_size() const noexcept { return options_.bucket_size; }
  [[nodiscard]] std::uint32_t fingerprint_bits() const noexcept { return options_.fingerprint_bits; }
  [[nodiscard]] std::uint32_t max_kicks() const noexcept { return options_.max_kicks; }
  [[nodiscard]] std::uint32_t expansion() const noexcept { return options_.expansion; }
  [[nodiscard]] std::size_t num_stages() const noexcept;  // sub-filters
  // Bits of the slot arrays (memory_bytes() * 8).
  [[nodiscard]] std::uint64_t num_bits() const noexcept { return memory_bytes() * 8; }
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept;  // the slot arrays
  // The slot arrays and the table of sub-filters.
  [[nodiscard]] std::uint64_t bytes_held() const noexcept;
  [[nodiscard]] const CuckooOptions& options() const noexcept { return options_; }
  [[nodiscard]] double FillRatio() const noexcept;  // count / slots
  // 1 - (1 - 1/(2^f - 1))^(2b) per sub-filter at full load, compounded over sub-filters.
  [[nodiscard]] double ExpectedFpRate() const noexcept;
  // The same at the current fill: a query compares its fingerprint with the 2b slots of
  // its two buckets, each holding one with probability FillRatio(), each matching with
  // 1/(2^f - 1) (fingerprints are non-zero): 1 - (1 - 1/(2^f - 1))^(2b fill),
  // compounded over sub-filters.
  [[nodiscard]] double EstimatedFpRate() const noexcept;

  // Same options (except max_memory_bytes), counts, slots and victims.
  friend bool operator==(const CuckooFilter& a, const CuckooFilter& b) noexcept;

 private:
  using SubFilter = internal::CuckooTable;
  CuckooFilter() = default;
  Status Grow();
  // Places `fingerprint` in filters_[table] starting from `bucket`, evicting up to
  // max_kicks residents; the last homeless fingerprint ends in the victim slot (false).
  bool InsertWithKicks(std::size_t table, std::uint32_t fingerprint, std::uint64_t bucket) noexcept;
  // Reverts the chain of an InsertWithKicks that returned false, just after it.
  void UndoKicks(std::size_t table) noexcept;
  // Appends `table`, the list growing by exactly one; kTooLarge when there is no memory
  // for the list.
  Status AppendTable(SubFilter table);

  CuckooOptions options_;
  std::vector<SubFilter, SeamAllocator<SubFilter>> filters_;  // from the allocator seam, like the slots
  std::uint64_t count_ = 0;
  std::uint64_t num_deletes_ = 0;
  std::uint64_t kick_state_ = 0x9e3779b97f4a7c15ULL;  // xorshift64* state choosing whom to evict; not saved
};

static_assert(RemovableFilter<CuckooFilter> && GrowableFilter<CuckooFilter>);

}  // namespace bloomkit
