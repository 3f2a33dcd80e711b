// SPDX-License-Identifier: Apache-2.0
// AnyFilter: one handle over every filter kind, for the CLI edge only.
//
// The core keeps each filter a concrete type with no virtual calls per key; the CLI
// needs to open a file without knowing its kind, so it holds a std::variant and
// dispatches once per batch of keys. Adding a kind to the tool is one place: the
// FilterVariant alternatives below plus its CreateAs() overload in any_filter.cc. A file
// of a kind outside the variant (written by a newer bloomkit) reports "not available in
// this build".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/foreign_bloom.h"
#include "bloomkit/format.h"
#include "bloomkit/mapped_filter.h"
#include "bloomkit/options.h"
#include "bloomkit/redisbloom.h"
#include "bloomkit/result.h"
#include "bloomkit/scalable_bloom_filter.h"
#include "bloomkit/windowed_bloom_filter.h"

namespace bloomkit::cli {

using FilterVariant = std::variant<BloomFilter, BlockedBloomFilter, CountingBloomFilter, ScalableBloomFilter,
                                   CuckooFilter, RedisBloomScalableFilter, RedisCuckooFilter, WindowedBloomFilter,
                                   BitsAndBloomsFilter, GuavaBloomFilter, ParquetBloomFilter>;

// The time windowed filters live in: milliseconds since the Unix epoch, from the system
// clock, or from the environment variable BLOOMKIT_NOW_MS when it is set (a whole
// number of milliseconds: tests and replays set the clock with it). A malformed value
// fails the command (exit 2) naming it.
std::uint64_t NowMs();

// True if this build can create and read filters of `kind`.
bool KindAvailable(FilterKind kind) noexcept;
// "classic, blocked, ..." : the kinds of this build.
std::string AvailableKinds();
// Parses --kind: unknown names and kinds missing from this build are usage errors.
Result<FilterKind> ParseAvailableKind(std::string_view name);

// What `bloomkit create` asks for. Kind-specific fields are ignored by other kinds.
struct CreateSpec {
  FilterKind kind = FilterKind::kClassic;
  std::uint64_t capacity = 0;
  double fp_rate = 0.01;
  std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes;
  // Scalable chains: each new stage holds this many times the last (>= 1); cuckoo
  // filters: the growth factor of a new sub-filter, 0 = never grow.
  std::uint32_t expansion = 1;
  std::uint32_t bucket_size = 4;                               // cuckoo
  std::optional<BlockedLayout> blocked_layout = std::nullopt;  // blocked; unset: DefaultBlockedLayout
  std::uint64_t window_ms = 24 * std::uint64_t{3'600'000};     // windowed: W in milliseconds
  std::uint32_t generations = kDefaultWindowedGenerations;     // windowed: G
  WindowedSizing windowed_sizing = WindowedSizing::kAnySchedule;
};

// Everything `bloomkit info` shows, for any kind.
struct FilterSummary {
  FilterKind kind = FilterKind::kClassic;
  std::uint64_t num_bits = 0;    // bits of filter state (all stages / sub-filters)
  std::uint32_t num_hashes = 0;  // probes per key (scalable: of the newest stage)
  std::uint64_t capacity = 0;
  std::uint64_t count = 0;
  std::uint64_t estimated_count = 0;
  double fill_ratio = 0;         // set bits / bits; cuckoo: occupied slots / slots
  double fp_rate = 0;            // the target the filter was created with
  double expected_fp_rate = 0;   // the formula's rate at capacity
  double estimated_fp_rate = 0;  // the rate now, from the fill
  std::uint64_t memory_bytes = 0;
  bool can_remove = false;
  std::vector<StageInfo> stages;  // scalable only
  std::uint64_t num_stages = 0;   // cuckoo: sub-filters; windowed: live stages (0 otherwise)
  // Cuckoo only (0 otherwise).
  std::uint32_t bucket_size = 0;
  std::uint32_t fingerprint_bits = 0;
  std::uint64_t num_buckets = 0;
  std::uint64_t num_deletes = 0;
  // Windowed only (0 otherwise).
  std::uint64_t window_ms = 0;
  std::uint32_t generations = 0;
  bool steady_sizing = false;  // windowed: WindowedSizing::kSteadyStream
  std::uint64_t now_ms = 0;
  std::uint64_t live_generations = 0;
  std::uint32_t max_stages = 0;
  bool over_capacity = false;
};

class AnyFilter {
 public:
  static Result<AnyFilter> Create(const CreateSpec& spec);
  // Parses the bytes as the kind their header names; that kind's Deserialize validates
  // them (lengths, checksum, payload) in one pass.
  static Result<AnyFilter> Deserialize(std::span<const std::byte> bytes, const LoadOptions& options = {});
  // The kind the reader's header names, read from its payload (FilterReader::Load).
  static Result<AnyFilter> Load(FilterReader& reader, const LoadOptions& options = {});
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  // SaveFile of the kind: streamed from the filter's memory where the kind streams.
  Status Save(const std::filesystem::path& path, const SaveOptions& options = {}) const;

  [[nodiscard]] FilterKind kind() const;
  [[nodiscard]] bool CanRemove() const;

  // Adds the key; true if it was not present before. Bloom kinds add only absent keys;
  // counting and cuckoo filters always add a copy (so a later remove of the same key
  // is safe) and report whether it looked new. Errors: a full filter that cannot grow.
  Result<bool> Add(std::string_view key);
  // Add of every key in order; returns how many were new. Classic and blocked filters
  // take the batch path of the core (hashing a group ahead); on an error (a full
  // filter) the keys before the failing one are added.
  Result<std::uint64_t> AddBatch(std::span<const std::string_view> keys);
  // Test-and-add for every kind: adds the key only if it may not be present yet; true
  // if it was added (what dedup prints).
  Result<bool> AddIfAbsent(std::string_view key);
  // out[i] = may keys[i] be present; returns how many may be.
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const;
  // Removes one copy of the key: true if found. kUnsupported for kinds without removal.
  Result<bool> Remove(std::string_view key);
  // Merge with the filter `reader` reads, without loading it: every mergeable kind
  // (classic, blocked, scalable) ORs its bits in as they are read, so the other filter
  // is never in memory. kIncompatible for another kind, kUnsupported for a kind that
  // does not merge (both before any payload byte is read).
  Status MergeFrom(FilterReader& reader);

  [[nodiscard]] FilterSummary Summary() const;
  // A windowed filter moves to NowMs() (its expired generations are freed); other kinds
  // have no clock. Loading a file does this, and every add and query of a windowed
  // filter acts at NowMs() of its own moment.
  void AdvanceClock();

  // The concrete filter, for commands that need one kind (export).
  [[nodiscard]] const FilterVariant& variant() const noexcept { return filter_; }
  // A handle over a filter built elsewhere (import).
  static AnyFilter Wrap(FilterVariant filter) { return AnyFilter(std::move(filter)); }

 private:
  explicit AnyFilter(FilterVariant filter) : filter_(std::move(filter)) {}
  FilterVariant filter_;
};

// The summary of a memory-mapped filter, as Summary() of the same file loaded (the
// fill ratio and estimated count read every page of the mapping once).
FilterSummary SummarizeMapped(const MappedFilter& view);

}  // namespace bloomkit::cli
