// SPDX-License-Identifier: Apache-2.0
// bloomkit::ScalableBloomFilter: a Bloom filter that grows when it fills up, for when
// the number of keys is not known in advance (Almeida, Baquero, Preguica & Hutchison,
// "Scalable Bloom Filters", 2007).
//
// A chain of stages. Stage i has capacity n0 * s^i and false-positive rate p0 * r^i,
// with p0 = p * (1 - r), so that the compound rate 1 - prod(1 - p0 r^i) stays below
// p = fp_rate for any number of stages (sum of p0 r^i = p0 / (1 - r) = p). New keys go
// into the last stage; when it holds its capacity a new stage is added. Queries check
// every stage (hashing the key once). With the defaults s = 2, r = 0.5 this is
// RedisBloom's BF layout: first stage at half the error, each next one twice as large
// with half the error. A non-scaling filter has one stage, at rate p itself.
//
// Memory: stage i needs -n0 s^i ln(p0 r^i) / ln^2 2 bits. The tightening adds ln(1/r)
// / ln^2 2 = 1.44 bits per key per stage index, and the newest stage is allocated for
// more keys than it holds, so at p = 1% the chain measured 21.6 bits per key at 10x
// and 23.5 at 100x its initial capacity (scalable_bloom_filter_test), against 9.6 for
// a classic filter sized in advance: the price of not knowing n (docs/FILTERS.md).
//
// Serialized form (docs/FORMAT.md, "Payload: scalable"): every stage is a complete
// classic-filter file, 64-byte aligned inside the payload, so each loads through
// BloomFilter::Deserialize with all of its checks.
//
// Contract: no false negatives; the compound rate stays below fp_rate at any size;
// AddIfAbsent never re-adds a key that any stage reports. Const methods may run
// concurrently; mutation needs exclusive access (see Synchronized<>).
//
//   auto seen = bloomkit::ScalableBloomFilter::Create({.initial_capacity = 1000, .fp_rate = 0.001});
//   if (auto added = seen->AddIfAbsent(url); added.ok() && added.value()) crawl(url);
//
// The verbs are filter.h's (a GrowableFilter and a MergeableFilter); only the
// scalable-specific ones are described here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/allocator.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/byte_sink.h"
#include "bloomkit/byte_source.h"
#include "bloomkit/filter.h"
#include "bloomkit/hash.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit {

// The most stages a scalable filter may have (its rates shrink by r per stage, so a chain
// this long is already far past any useful rate).
inline constexpr std::uint32_t kMaxScalableStages = 1024;

struct ScalableOptions {
  std::uint64_t initial_capacity = 100;  // n0: keys the first stage holds
  double fp_rate = 0.01;                 // p: compound target for the whole chain
  std::uint32_t expansion = 2;           // s: stage i + 1 holds s times stage i (>= 1)
  double tightening = 0.5;               // r: stage i + 1 has r times stage i's rate, in (0, 1)
  // true: one stage only, at rate fp_rate; AddIfAbsent of a new key into a full filter
  // is kFull ("non scaling filter is full"). RedisBloom's NONSCALING.
  bool non_scaling = false;
  // Limits: reaching either is an error (kTooLarge), never an unbounded allocation.
  // max_stages is in [1, kMaxScalableStages].
  std::uint32_t max_stages = 64;
  std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes;
  // true: each new stage uses every bit of its 64-bit words (k chosen for them), which
  // keeps the measured compound rate under fp_rate for small first stages. false: stages
  // of exactly ceil(-n ln p / ln^2 2) bits, as bloomkit wrote them before (reproduces
  // older files bit for bit). Not saved: a loaded filter grows with whole-word stages.
  bool whole_word_stages = true;
};

// One stage, for `bloomkit info` and BF.INFO.
struct StageInfo {
  std::uint64_t capacity = 0;
  std::uint64_t count = 0;
  std::uint64_t num_bits = 0;
  std::uint32_t num_hashes = 0;
  double fp_rate = 0;  // the stage's target rate at its capacity
  std::uint64_t memory_bytes = 0;
};

class ScalableBloomFilter {
 public:
  using Options = ScalableOptions;
  static constexpr FilterKind kKind = FilterKind::kScalable;

  static Result<ScalableBloomFilter> Create(const ScalableOptions& options);
  static Result<ScalableBloomFilter> Deserialize(std::span<const std::byte> bytes, const LoadOptions& options = {});
  // The payload of a file whose header a FilterReader checked (LoadFile does), read
  // stage by stage straight into the stages' bit arrays.
  static Result<ScalableBloomFilter> Deserialize(const FileHeader& header, ByteSource payload,
                                                 const LoadOptions& options = {});
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  // The bytes Serialize() returns without compression, handed to `sink` piece by piece
  // (the arrays as views of the filter's own memory); false if the sink stopped early.
  // Allocates nothing, so it cannot fail half-way.
  bool SerializeTo(ByteSink sink) const noexcept;

  // Adds the key unless some stage already reports it. Returns true if it was added,
  // false if it may already be present; an error when a new stage is needed and not
  // allowed: kFull for a non-scaling filter, and for a chain whose next stage's rate
  // would need more than kMaxNumHashes hashes (rate 0.5, expansion 1: after 63 stages);
  // kTooLarge at max_stages/max_memory_bytes. Create refuses (kInvalidArgument) an
  // fp_rate whose first stage would need more than kMaxNumHashes hashes (below about
  // 7.7e-20 for r = 0.5, 3.8e-20 non-scaling).
  Result<bool> AddIfAbsent(std::string_view key);
  Result<bool> AddHashIfAbsent(std::uint64_t hash);
  Result<bool> AddHashPairIfAbsent(HashPair hash);
  // AddIfAbsent without the answer: a key some stage reports is not added again (each
  // stage's count is the number of keys it holds), so Add is AddIfAbsent.
  Status Add(std::string_view key);
  Status AddHash(std::uint64_t hash);
  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept;
  [[nodiscard]] bool MayContainHashPair(HashPair hash) const noexcept;

  // Groups of 16 keys are hashed first and the cache lines of their probes in the
  // newest 4 stages (the largest: with expansion 2 they hold 15/16 of the keys) are
  // prefetched, so that the misses of independent keys overlap. AddBatch stops at the
  // first key that needs a stage it may not add (the keys before it are in).
  Status AddBatch(std::span<const std::string_view> keys);
  // AddIfAbsent of each key in order, its answer in added[i] (BF.MADD). Returns how many
  // keys were handled: all, or the index of the first that failed, whose error goes to
  // *error (the keys before it are in and answered).
  std::size_t AddIfAbsentBatch(std::span<const std::string_view> keys, std::span<bool> added, Status* error);
  Status AddHashBatch(std::span<const std::uint64_t> hashes);
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;

  // Union with a filter of the same options and stage layout (an error otherwise).
  Status Merge(const ScalableBloomFilter& other);
  // Merge with the filter of a file without loading it: each stage's bits are read from
  // `reader` (FilterReader::OpenFile) kReadBufferBytes at a time and OR-ed into this
  // filter's stage, so a merge costs one filter's memory, not two. On an error after
  // the first piece, this filter holds the bits OR-ed so far (no false negative).
  Status MergeFrom(FilterReader& reader);
  void Clear() noexcept;  // back to one empty first stage

  [[nodiscard]] std::uint64_t count() const noexcept;     // keys added (AddIfAbsent true)
  [[nodiscard]] std::uint64_t capacity() const noexcept;  // sum of stage capacities
  [[nodiscard]] std::size_t num_stages() const noexcept { return stages_.size(); }
  [[nodiscard]] std::uint64_t num_bits() const noexcept;  // of all stages
  [[nodiscard]] double FillRatio() const noexcept;        // set bits / bits, all stages
  // Sum of the stages' estimates from their fill (BloomFilter::EstimatedCount).
  [[nodiscard]] std::uint64_t EstimatedCount() const noexcept;
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept;  // the stages' bit arrays
  // The bit arrays and the table of stages.
  [[nodiscard]] std::uint64_t bytes_held() const noexcept;
  // The options it was created (or loaded) with; max_memory_bytes is the current limit.
  [[nodiscard]] ScalableOptions options() const noexcept;
  [[nodiscard]] double fp_rate() const noexcept { return fp_rate_; }
  [[nodiscard]] std::uint32_t expansion() const noexcept { return expansion_; }
  [[nodiscard]] bool non_scaling() const noexcept { return non_scaling_; }
  // One StageInfo per stage, oldest first (stages() gives the stages themselves).
  [[nodiscard]] std::vector<StageInfo> StageInfos() const;
  [[deprecated("use StageInfos()")]] [[nodiscard]] std::vector<StageInfo> Stages() const { return StageInfos(); }
  [[nodiscard]] std::span<const BloomFilter> stages() const noexcept { return stages_; }
  // 1 - prod(1 - stage rate at its current fill): the chain's current rate.
  [[nodiscard]] double EstimatedFpRate() const noexcept;
  // 1 - prod(1 - stage target rate): the bound the chain keeps at its current size.
  [[nodiscard]] double ExpectedFpRate() const noexcept;

  // Capacity and target rate of stage `index` for `options` (no stage needs to exist):
  // n0 * s^i and p0 * r^i, or an error when the capacity overflows 64 bits.
  static Result<StageInfo> StageTarget(const ScalableOptions& options, std::uint32_t index);

  // Same options (except max_memory_bytes), stages and counts.
  friend bool operator==(const ScalableBloomFilter& a, const ScalableBloomFilter& b) noexcept;

  // Copies are deep (std::bad_alloc when there is no memory for them). A moved-from
  // filter has no stages: assign to it or destroy it.

 private:
  explicit ScalableBloomFilter(const ScalableOptions& options) noexcept;
  // Appends stage num_stages() of a chain whose first stage holds `initial_capacity`.
  Status AddStage(std::uint64_t initial_capacity);
  // A stage for `capacity` keys at `fp_rate`, in whole 64-bit words.
  static Result<BloomFilter> CreateStage(std::uint64_t capacity, double fp_rate, std::uint64_t max_memory_bytes,
                                         bool whole_words);
  BloomFilter& last_stage() noexcept { return stages_.back(); }
  // Appends `stage`, the table growing by exactly one (stages are few, and each holds
  // far more memory than the table); kTooLarge when there is no memory for the table.
  Status AppendStage(BloomFilter stage);
  // Lowers the stages' counts, the newest first, until they sum to at most kMaxFileCount,
  // what a file holds: after a merge, whose stage counts are estimates (2^63 - 1 for a
  // stage with every bit set).
  void CapCounts() noexcept;

  // The stages, in a table from the allocator seam aligned to a cache line (a probe
  // starts from a stage's first 40 bytes: with the table at malloc's 16-byte alignment
  // more stages split them across two lines, and absent-key queries of 7 stages ran
  // 6-8% slower). The initial capacity is stage 0's. Stage i's count() is the number of
  // keys added to it: a key goes into the last stage only when no stage reports it, so
  // every such add sets a new bit.
  std::vector<BloomFilter, SeamAllocator<BloomFilter>> stages_;  // >= 1 once created, <= max_stages_
  double fp_rate_ = 0.01;
  double tightening_ = 0.5;
  std::uint64_t max_memory_bytes_ = kDefaultMaxMemoryBytes;
  std::uint32_t expansion_ = 2;
  std::uint32_t max_stages_ = 64;  // <= kMaxScalableStages
  bool non_scaling_ = false;
  bool whole_words_ = true;  // ScalableOptions::whole_word_stages
};

static_assert(GrowableFilter<ScalableBloomFilter> && MergeableFilter<ScalableBloomFilter>);

}  // namespace bloomkit
