// SPDX-License-Identifier: Apache-2.0
// RedisBloom-compatible filters: the scalable Bloom filter of RedisBloom's BF.* commands
// (Redis type `MBbloom--`) and the cuckoo filter of its CF.* commands (type `MBbloomCF`),
// reproduced bit for bit from RedisBloom 2.x's rules, so that every answer equals
// RedisBloom's own, false positives included, before and after further adds and deletes.
//
// Why a second scalable and cuckoo filter: bloomkit's own kinds hash with XXH3 and size
// themselves differently, so a RedisBloom filter's bits mean nothing to them. These two
// kinds keep RedisBloom's exact layout and arithmetic instead:
//
// RedisBloomScalableFilter (BF.*): a chain of Bloom filters ("links").
//  - Hash: with option bit kRedisBloomForce64 (every filter RedisBloom 2.x creates)
//    a = MurmurHash64A(key, seed 0xc6a4a7935bd1e995), b = MurmurHash64A(key, seed a);
//    without it (filters from RedisBloom 1.x) a = MurmurHash2(key, 0x9747b28c),
//    b = MurmurHash2(key, a). Probe i of k sets bit (a + i*b) mod M, 64-bit
//    arithmetic, M = 2^n2 when n2 > 0, else M = bits; bit x is bit (x & 7) of byte x >> 3.
//  - Sizing of a link for `entries` items at rate e: bpe = -ln(e) / ln(2)^2 (ln(2)^2 as
//    0.480453013918201), k = ceil(0.693147180559945 * bpe); with kRedisBloomNoRound
//    bits = floor(entries * bpe) rounded up to whole 64-bit words (BF.RESERVE 0.01 1000:
//    the first link gets e = 0.005, bpe 11.03, 11,072 bits, k = 8); otherwise
//    2^(floor(log2(entries * bpe)) + 1) bits and `entries` raised by the spare bits / bpe.
//  - Growth: an item goes to the newest link once it is absent from every link; when the
//    newest link holds `entries` items a new link of entries * expansion items at half
//    the error is added first (the first link already gets half the requested error),
//    unless kRedisBloomNoScaling is set: then the add fails (kFull).
//
// RedisCuckooFilter (CF.*): sub-filters of 1-byte fingerprints.
//  - h = MurmurHash64A(key, seed 0); fingerprint = h mod 255 + 1 (0 marks an empty slot);
//    bucket i1 = h mod n; i2 = (h XOR fp * 0x5bd1e995) mod n, n a power of two. Bucket i
//    starts at slot (i * bucket_size) mod 2^32, as RedisBloom's lookups have it, on every
//    path (RedisBloom's evictions skip the mod 2^32 and lose items in sub-filters of more
//    than 2^32 slots; here they are placed where lookups find them).
//  - Sizing: the first sub-filter has nextpow2(capacity / bucket_size) buckets
//    (CF.RESERVE c 1000 gives 512 buckets of 2), sub-filter j has n * expansion^j, with
//    expansion rounded up to a power of two (0: never grow).
//  - Insert: a free slot in either bucket of any sub-filter, newest first; else up to
//    max_iterations evictions inside the newest sub-filter; if they fail they are undone
//    and a new sub-filter is added (or kFull when expansion is 0).
//  - Delete removes one copy, searching the newest sub-filter first; once deletes exceed
//    10% of the items of a multi-filter chain the chain is compacted (Compact).
//
// Contract: no false negatives for items added (and, for the cuckoo filter, not deleted).
// Const methods may run concurrently; mutation needs exclusive access. Queries are
// noexcept. Memory goes through bloomkit's allocator seam (allocator.h).
//
// The encodings that move these filters in and out of Redis (RDB values, DUMP payloads,
// SCANDUMP chunks) are in redisbloom_codec.h; in bloomkit's file format they are kinds 6
// and 7 (docs/FORMAT.md).
//
// Both speak filter.h's vocabulary (GrowableFilter; the cuckoo filter is also a
// RemovableFilter). Their hash forms take a caller's 64-bit hash: the cuckoo filter uses
// it as RedisBloom's h itself, so AddHash(RedisBloomMurmurHash64A(key, 0)) is Add(key);
// the scalable filter expands it as every kind does (ExpandHash: a = hash, b = its
// SplitMix64 mix; a chain without kRedisBloomForce64 keeps the low 32 bits of each, like
// its MurmurHash2 pair), since RedisBloom's b is a second hash of the key itself. The
// batch forms loop over the single ones (RedisBloom's layout has no block to prefetch).
//
//   auto bf = bloomkit::RedisBloomScalableFilter::Create({.capacity = 1000, .fp_rate = 0.01});
//   bf->AddIfAbsent("item:1");          // true: BF.ADD's 1
//   bf->MayContain("item:1");           // true
//   auto cf = bloomkit::RedisCuckooFilter::Create({.capacity = 1000});   // 512 buckets of 2
//   cf->Add("item:1");  cf->Occurrences("item:1");  cf->Remove("item:1");
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
#include "bloomkit/options.h"
#include "bloomkit/result.h"
#include "bloomkit/word_array.h"

namespace bloomkit {

struct FileHeader;

namespace internal {
class RedisBloomBuilder;
}  // namespace internal

// MurmurHash2 (32-bit) and MurmurHash64A as RedisBloom computes them: little-endian
// blocks, the key's length mixed into the seed as a 32-bit (resp. sign-extended 64-bit)
// int. Known answers are pinned in redisbloom_test.cc.
std::uint32_t RedisBloomMurmurHash2(std::string_view key, std::uint32_t seed) noexcept;
std::uint64_t RedisBloomMurmurHash64A(std::string_view key, std::uint64_t seed) noexcept;

// Option bits of a RedisBloom chain (saved in its encodings).
inline constexpr std::uint32_t kRedisBloomNoRound = 1;     // exact bit counts, no 2^n rounding
inline constexpr std::uint32_t kRedisBloomEntsIsBits = 2;  // capacity is log2 of the bit count
inline constexpr std::uint32_t kRedisBloomForce64 = 4;     // MurmurHash64A (else MurmurHash2)
inline constexpr std::uint32_t kRedisBloomNoScaling = 8;   // NONSCALING: full is an error
inline constexpr std::uint32_t kRedisBloomKnownOptions = 15;

// Limits checked when a chain is created or decoded. Every chain RedisBloom can build
// fits: the smallest positive double error rate needs 1,075 hashes.
inline constexpr std::uint32_t kRedisBloomMaxHashes = 2048;
inline constexpr std::uint64_t kRedisBloomMaxLinks = 1U << 16;

struct RedisBloomOptions {
  std::uint64_t capacity = 100;  // BF.ADD's default; BF.RESERVE's capacity
  double fp_rate = 0.01;         // (0, 1)
  std::uint32_t expansion = 2;   // >= 1: each new link holds `expansion` times more (0 with non_scaling)
  bool non_scaling = false;      // NONSCALING
  std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes;
};

// One link's parameters, exactly the fields RedisBloom saves.
struct RedisBloomLinkParams {
  std::uint64_t entries = 0;  // items the link is sized for
  double error = 0;           // its error rate
  double bpe = 0;             // bits per entry
  std::uint32_t hashes = 0;   // k
  std::uint8_t n2 = 0;        // log2 of the bit modulus, 0 = modulus `bits`
  std::uint64_t bits = 0;     // bytes * 8
  std::uint64_t bytes = 0;    // length of the bit array
  std::uint64_t size = 0;     // items added to this link
  friend bool operator==(const RedisBloomLinkParams&, const RedisBloomLinkParams&) = default;
};

// A whole chain's parameters: what SCANDUMP's header chunk and the RDB value carry
// besides the bit arrays.
struct RedisBloomChainParams {
  std::uint64_t size = 0;       // items added (the sum of the links' sizes)
  std::uint32_t options = 0;    // kRedisBloom* bits
  std::uint32_t expansion = 2;  // RedisBloom's SBChain growth
  std::vector<RedisBloomLinkParams> links;
  friend bool operator==(const RedisBloomChainParams&, const RedisBloomChainParams&) = default;
};

class RedisBloomScalableFilter {
 public:
  using Options = RedisBloomOptions;
  static constexpr FilterKind kKind = FilterKind::kRedisBloomScalable;

  // BF.RESERVE (NOROUND | FORCE64 and, if non_scaling, NOSCALING, as RedisBloom 2.x).
  static Result<RedisBloomScalableFilter> Create(const RedisBloomOptions& options);
  // A chain with these parameters and all-zero bit arrays, to be filled through
  // link_data(): what BF.LOADCHUNK's header chunk and the RDB loader build. Every field
  // is checked as RedisBloom's loaders do, plus memory and hash-count limits.
  static Result<RedisBloomScalableFilter> FromParams(const RedisBloomChainParams& params,
                                                     const LoadOptions& options = {});

  static Result<RedisBloomScalableFilter> Deserialize(std::span<const std::byte> bytes,
                                                      const LoadOptions& options = {});
  // The payload of a file whose header a FilterReader checked (LoadFile does), read
  // straight into the filter's arrays.
  static Result<RedisBloomScalableFilter> Deserialize(const FileHeader& header, ByteSource payload,
                                                      const LoadOptions& options = {});
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  // The bytes Serialize() returns without compression, handed to `sink` piece by piece
  // from the filter's memory (SaveFile streams them); false if the sink stopped.
  bool SerializeTo(ByteSink sink) const noexcept;

  // BF.ADD: true if added, false if it may already be present; kFull for a full
  // non-scaling chain, kTooLarge if a new link would exceed the memory limit.
  Result<bool> AddIfAbsent(std::string_view key);
  // The same, for callers that do not need to know whether it was new.
  Status Add(std::string_view key);
  // BF.MADD: AddIfAbsent of each key in order, with the same answers and the same bits;
  // the cache lines a group of keys will set in the newest link are fetched first, so
  // their misses overlap. Writes added[i] for each key handled and returns how many were
  // handled: all of them, or up to the first that failed (its error in *error). The same
  // verb as ScalableBloomFilter::AddIfAbsentBatch.
  std::size_t AddIfAbsentBatch(std::span<const std::string_view> keys, std::span<bool> added, Status* error);
  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;
  // The hash forms (see the file comment) and the batch forms of filter.h.
  Status AddHash(std::uint64_t hash);
  Result<bool> AddHashIfAbsent(std::uint64_t hash);
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept;
  Status AddBatch(std::span<const std::string_view> keys);
  Status AddHashBatch(std::span<const std::uint64_t> hashes);
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;
  // Back to the state Create gave: the first link, emptied; later links dropped.
  // resize(1) in Clear only shrinks (a filter always has its first link, see Create and
  // the loaders), so it allocates nothing and cannot throw.
  // NOLINTNEXTLINE(bugprone-exception-escape)
  void Clear() noexcept;

  [[nodiscard]] std::uint64_t count() const noexcept { return size_; }  // BF.CARD
  // BF.CARD is exact for a chain: an item counts once, when it set a new bit.
  [[nodiscard]] std::uint64_t EstimatedCount() const noexcept { return size_; }
  [[nodiscard]] std::uint64_t capacity() const noexcept;                           // BF.INFO Capacity
  [[nodiscard]] std::size_t num_stages() const noexcept { return links_.size(); }  // links (BF.INFO Number of filters)
  [[deprecated("use num_stages()")]] [[nodiscard]] std::size_t num_filters() const noexcept { return num_stages(); }
  [[nodiscard]] std::uint32_t expansion() const noexcept { return expansion_; }
  [[nodiscard]] std::uint32_t option_bits() const noexcept { return options_; }
  [[nodiscard]] bool non_scaling() const noexcept { return (options_ & kRedisBloomNoScaling) != 0; }
  // The error rate requested at creation (twice the first link's, as RedisBloom halves it).
  [[nodiscard]] double fp_rate() const noexcept;
  // Estimated false-positive rate now: 1 - prod(1 - (1 - e^(-k n / m))^k) over links.
  [[nodiscard]] double EstimatedFpRate() const noexcept;
  // Every link full at its own error rate: 1 - prod(1 - e_i).
  [[nodiscard]] double ExpectedFpRate() const noexcept;
  // Bits of all links (their byte arrays), and the share of them set.
  [[nodiscard]] std::uint64_t num_bits() const noexcept;
  [[nodiscard]] double FillRatio() const noexcept;
  // BF.INFO Size: RedisBloom's MEMORY USAGE formula, 32 + sum(64 + link bytes).
  [[nodiscard]] std::uint64_t redisbloom_size() const noexcept;
  // Bytes held (bit arrays and the link table).
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept;
  // memory_bytes() as the allocator holds it (filter.h).
  [[nodiscard]] std::uint64_t bytes_held() const noexcept;

  [[nodiscard]] RedisBloomChainParams params() const;
  [[nodiscard]] const RedisBloomLinkParams& link(std::size_t i) const noexcept { return links_[i].params; }
  [[nodiscard]] std::span<const std::byte> link_data(std::size_t i) const noexcept;
  [[nodiscard]] std::span<std::byte> link_data(std::size_t i) noexcept;

  friend bool operator==(const RedisBloomScalableFilter& a, const RedisBloomScalableFilter& b) noexcept;

 private:
  friend class internal::RedisBloomBuilder;
  struct Link {
    RedisBloomLinkParams params;
    WordArray data;  // params.bytes bytes, rounded up to whole words
  };
  struct Hash {
    std::uint64_t a;
    std::uint64_t b;
  };
  [[nodiscard]] Hash HashOf(std::string_view key) const noexcept;
  [[nodiscard]] Hash HashOfHash(std::uint64_t hash) const noexcept;
  Result<bool> AddIfAbsentHashed(Hash h);
  [[nodiscard]] bool MayContainHashed(Hash h) const noexcept;
  [[nodiscard]] static bool LinkHas(const Link& link, Hash h) noexcept;
  static void LinkSet(Link& link, Hash h) noexcept;
  Result<bool> AddHashed(Hash h, const std::uint64_t* newest_positions);
  Status AddLink(std::uint64_t entries, double error);

  std::vector<Link, SeamAllocator<Link>> links_;  // from the allocator seam, like the bits
  std::uint64_t size_ = 0;
  std::uint32_t options_ = 0;
  std::uint32_t expansion_ = 2;
  std::uint64_t max_memory_bytes_ = kDefaultMaxMemoryBytes;
};

// Limits of RedisBloom's cuckoo filter (its CF.RESERVE ranges and struct widths).
inline constexpr std::uint32_t kRedisCuckooMaxBucketSize = 255;
inline constexpr std::uint32_t kRedisCuckooMaxIterations = 65535;
inline constexpr std::uint32_t kRedisCuckooMaxExpansion = 32768;
inline constexpr std::uint64_t kRedisCuckooMaxBuckets = (std::uint64_t{1} << 56) - 1;
inline constexpr std::uint32_t kRedisCuckooMaxFilters = 65535;

struct RedisCuckooOptions {
  std::uint64_t capacity = 1024;      // CF.ADD's default; must be >= 2 * bucket_size
  std::uint32_t bucket_size = 2;      // 1..255
  std::uint32_t max_iterations = 20;  // 1..65535
  std::uint32_t expansion = 1;        // 0..32768, rounded up to a power of two
  std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes;
};

// What SCANDUMP's header chunk carries (the RDB value adds each sub-filter's buckets).
struct RedisCuckooParams {
  std::uint64_t num_items = 0;
  std::uint64_t num_buckets = 0;  // of the first sub-filter, a power of two
  std::uint64_t num_deletes = 0;
  std::uint64_t num_stages = 0;  // sub-filters (RedisBloom's numFilters)
  std::uint32_t bucket_size = 0;
  std::uint32_t max_iterations = 0;
  std::uint32_t expansion = 0;
  friend bool operator==(const RedisCuckooParams&, const RedisCuckooParams&) = default;
};

class RedisCuckooFilter {
 public:
  using Options = RedisCuckooOptions;
  static constexpr FilterKind kKind = FilterKind::kRedisBloomCuckoo;

  static Result<RedisCuckooFilter> Create(const RedisCuckooOptions& options);
  // Empty sub-filters of these parameters (sub-filter j: num_buckets * expansion^j
  // buckets), to be filled through filter_data(); checked as CF.LOADCHUNK checks them.
  static Result<RedisCuckooFilter> FromParams(const RedisCuckooParams& params, const LoadOptions& options = {});

  static Result<RedisCuckooFilter> Deserialize(std::span<const std::byte> bytes, const LoadOptions& options = {});
  // The payload of a file whose header a FilterReader checked (LoadFile does), read
  // straight into the filter's arrays.
  static Result<RedisCuckooFilter> Deserialize(const FileHeader& header, ByteSource payload,
                                               const LoadOptions& options = {});
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  // As RedisBloomScalableFilter::SerializeTo.
  bool SerializeTo(ByteSink sink) const noexcept;

  // CF.ADD: one more copy. kFull when there is no room and expansion is 0, kTooLarge when
  // a new sub-filter would pass the memory limit or RedisBloom's 65,535 sub-filters.
  // The Redis module refuses the command first when num_stages() reached its
  // cf_max_expansions ("Maximum expansions reached"), as RedisBloom does.
  Status Add(std::string_view key);
  // CF.ADDNX: true if added, false if it may already be present.
  Result<bool> AddIfAbsent(std::string_view key);
  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;
  // CF.COUNT: copies of the key's fingerprint in its buckets of every sub-filter.
  [[nodiscard]] std::uint64_t Occurrences(std::string_view key) const noexcept;
  [[deprecated("use Occurrences()")]] [[nodiscard]] std::uint64_t Count(std::string_view key) const noexcept {
    return Occurrences(key);
  }
  // CF.DEL: removes one copy; false if none. May compact (see the file comment).
  [[nodiscard]] bool Remove(std::string_view key) noexcept;
  // The hash forms (hash = RedisBloom's h, see the file comment) and the batch forms of
  // filter.h; AddBatch and AddHashBatch stop at the first error (the keys before it are in).
  Status AddHash(std::uint64_t hash);
  Result<bool> AddHashIfAbsent(std::uint64_t hash);
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept;
  [[nodiscard]] bool RemoveHash(std::uint64_t hash) noexcept;
  Status AddBatch(std::span<const std::string_view> keys);
  Status AddHashBatch(std::span<const std::uint64_t> hashes);
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;
  // CF.COUNT of a hash.
  [[nodiscard]] std::uint64_t OccurrencesHash(std::uint64_t hash) const noexcept;
  // Back to the state Create gave: the first sub-filter, emptied; later ones dropped.
  // resize(1) in Clear only shrinks (a filter always has its first sub-filter, see Create
  // and the loaders), so it allocates nothing and cannot throw.
  // NOLINTNEXTLINE(bugprone-exception-escape)
  void Clear() noexcept;
  // CF.COMPACT (keep_going = true) and the automatic compaction after deletes (false):
  // moves fingerprints of newer sub-filters into free slots of older ones, newest first,
  // drops the newest sub-filter once it is empty, and resets the delete count.
  void Compact(bool keep_going) noexcept;

  [[nodiscard]] std::uint64_t count() const noexcept { return num_items_; }
  // The copies held are counted exactly.
  [[nodiscard]] std::uint64_t EstimatedCount() const noexcept { return num_items_; }
  [[nodiscard]] std::uint64_t num_deletes() const noexcept { return num_deletes_; }
  [[nodiscard]] std::uint64_t num_buckets() const noexcept { return num_buckets_; }  // first sub-filter
  [[nodiscard]] std::size_t num_stages() const noexcept { return filters_.size(); }  // sub-filters
  [[deprecated("use num_stages()")]] [[nodiscard]] std::size_t num_filters() const noexcept { return num_stages(); }
  [[nodiscard]] std::uint32_t bucket_size() const noexcept { return bucket_size_; }
  [[nodiscard]] std::uint32_t max_iterations() const noexcept { return max_iterations_; }
  [[nodiscard]] std::uint32_t expansion() const noexcept { return expansion_; }
  [[nodiscard]] std::uint64_t filter_buckets(std::size_t i) const noexcept { return filters_[i].num_buckets; }
  // Slots of all sub-filters.
  [[nodiscard]] std::uint64_t capacity() const noexcept;
  // Estimated false-positive rate now: per sub-filter, 1 - (1 - 1/255)^(2 b load).
  [[nodiscard]] double EstimatedFpRate() const noexcept;
  // The same with every slot full; fp_rate() is that rate for the first sub-filter alone
  // (RedisBloom takes no error rate for a cuckoo filter).
  [[nodiscard]] double ExpectedFpRate() const noexcept;
  [[nodiscard]] double fp_rate() const noexcept;
  // Bits of the slots (8 per slot), and the share of slots in use.
  [[nodiscard]] std::uint64_t num_bits() const noexcept { return capacity() * 8; }
  [[nodiscard]] double FillRatio() const noexcept;
  // CF.INFO Size: 40 + 16 per sub-filter + all slots.
  [[nodiscard]] std::uint64_t redisbloom_size() const noexcept;
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept;
  // memory_bytes() as the allocator holds it (filter.h).
  [[nodiscard]] std::uint64_t bytes_held() const noexcept;

  [[nodiscard]] RedisCuckooParams params() const noexcept;
  [[nodiscard]] std::span<const std::byte> filter_data(std::size_t i) const noexcept;
  [[nodiscard]] std::span<std::byte> filter_data(std::size_t i) noexcept;
  // Fingerprints stored (non-zero slots), counted: equals count() for any filter
  // RedisBloom's own operations produced.
  [[nodiscard]] std::uint64_t CountOccupiedSlots() const noexcept;

  friend bool operator==(const RedisCuckooFilter& a, const RedisCuckooFilter& b) noexcept;

 private:
  struct SubFilter {
    std::uint64_t num_buckets = 0;
    WordArray data;  // num_buckets * bucket_size one-byte slots
    [[nodiscard]] std::uint8_t* slots() noexcept { return reinterpret_cast<std::uint8_t*>(data.data()); }
    [[nodiscard]] const std::uint8_t* slots() const noexcept {
      return reinterpret_cast<const std::uint8_t*>(data.data());
    }
  };
  struct Lookup {
    std::uint64_t h1;
    std::uint64_t h2;
    std::uint8_t fp;
  };
  static Lookup LookupOf(std::string_view key) noexcept;
  static Lookup LookupOfHash(std::uint64_t hash) noexcept;
  [[nodiscard]] std::uint64_t CountOf(const Lookup& l) const noexcept;
  [[nodiscard]] bool RemoveLookup(const Lookup& l) noexcept;
  Result<bool> AddIfAbsentLookup(const Lookup& l);
  [[nodiscard]] std::uint8_t* FindFree(SubFilter& f, std::uint64_t h1, std::uint64_t h2) const noexcept;
  [[nodiscard]] bool Contains(const Lookup& l) const noexcept;
  Status Insert(const Lookup& l);
  bool KickInsert(SubFilter& f, const Lookup& l) noexcept;
  Status Grow();
  bool CompactOne(std::size_t index) noexcept;

  std::vector<SubFilter, SeamAllocator<SubFilter>> filters_;  // from the allocator seam, like the slots
  std::uint64_t num_buckets_ = 0;
  std::uint64_t num_items_ = 0;
  std::uint64_t num_deletes_ = 0;
  std::uint32_t bucket_size_ = 2;
  std::uint32_t max_iterations_ = 20;
  std::uint32_t expansion_ = 1;
  std::uint64_t max_memory_bytes_ = kDefaultMaxMemoryBytes;
};

static_assert(GrowableFilter<RedisBloomScalableFilter>);
static_assert(RemovableFilter<RedisCuckooFilter> && GrowableFilter<RedisCuckooFilter>);

}  // namespace bloomkit
