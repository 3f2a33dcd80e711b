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
//   auto cf = bloomkit::CuckooFilter::Create({.capacity = 1'000'000, .fp_rate = 0.001});
//   cf->Add("session:9");  cf->Remove("session:9");
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/hash.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"
#include "bloomkit/word_array.h"

namespace bloomkit {

struct CuckooOptions {
  std::uint64_t capacity = 0;          // keys it must hold (at <= 95% load for b = 4)
  double fp_rate = 0.01;               // chooses fingerprint_bits when that is 0
  std::uint32_t bucket_size = 4;       // b: 2, 4 or 8 slots per bucket
  std::uint32_t fingerprint_bits = 0;  // f: 8, 12 or 16; 0 = the smallest meeting fp_rate
  std::uint32_t max_kicks = 500;       // evictions before an insert reports full
  // 0: never grow (a full filter reports kFull). >= 1: add a sub-filter `expansion`
  // times the last one's capacity when full.
  std::uint32_t expansion = 1;
  std::uint32_t max_filters = 32;
  std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes;
};

class CuckooFilter {
 public:
  static constexpr FilterKind kKind = FilterKind::kCuckoo;

  static Result<CuckooFilter> Create(const CuckooOptions& options);
  static Result<CuckooFilter> Deserialize(std::span<const std::byte> bytes, const LoadOptions& options = {});
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;

  // Adds one copy (duplicates allowed). kFull if there is no room and no growth.
  Status Add(std::string_view key);
  // Adds the key unless it may be present: true if added.
  Result<bool> AddIfAbsent(std::string_view key);
  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;
  // Removes one copy of the key's fingerprint; false if none was found.
  [[nodiscard]] bool Remove(std::string_view key) noexcept;
  // Copies of the key's fingerprint in its buckets (an upper bound on its adds).
  [[nodiscard]] std::uint64_t Count(std::string_view key) const noexcept;

  Status AddHashPair(HashPair hash);
  [[nodiscard]] bool MayContainHashPair(HashPair hash) const noexcept;
  [[nodiscard]] bool RemoveHashPair(HashPair hash) noexcept;
  [[nodiscard]] std::uint64_t CountHashPair(HashPair hash) const noexcept;

  void Clear() noexcept;

  [[nodiscard]] std::uint64_t capacity() const noexcept;  // slots of all sub-filters
  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }  // fingerprints stored
  [[nodiscard]] std::uint64_t num_deletes() const noexcept { return num_deletes_; }
  [[nodiscard]] std::uint64_t num_buckets() const noexcept;  // of all sub-filters
  [[nodiscard]] std::uint32_t bucket_size() const noexcept { return options_.bucket_size; }
  [[nodiscard]] std::uint32_t fingerprint_bits() const noexcept { return options_.fingerprint_bits; }
  [[nodiscard]] std::uint32_t max_kicks() const noexcept { return options_.max_kicks; }
  [[nodiscard]] std::uint32_t expansion() const noexcept { return options_.expansion; }
  [[nodiscard]] std::size_t num_filters() const noexcept;
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept;
  [[nodiscard]] const CuckooOptions& options() const noexcept { return options_; }
  [[nodiscard]] double LoadFactor() const noexcept;  // count / slots
  // 1 - (1 - 2^-f)^(2b) per sub-filter at full load, compounded over sub-filters.
  [[nodiscard]] double ExpectedFpRate() const noexcept;

  friend bool operator==(const CuckooFilter& a, const CuckooFilter& b) noexcept;

 private:
  struct SubFilter;  // defined in cuckoo_filter.cc
  CuckooFilter() = default;

  CuckooOptions options_;
  std::vector<SubFilter> filters_;
  std::uint64_t count_ = 0;
  std::uint64_t num_deletes_ = 0;
};

}  // namespace bloomkit
