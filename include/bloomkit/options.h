// SPDX-License-Identifier: Apache-2.0
// Options shared by every filter kind: how to size a filter, how much memory it may
// take, how to save and load it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "bloomkit/result.h"

namespace bloomkit {

// The default memory limit of one filter: 4 GiB (2^35 bits). Raise it per filter with
// BloomOptions::max_memory_bytes or LoadOptions::max_memory_bytes.
inline constexpr std::uint64_t kDefaultMaxMemoryBytes = std::uint64_t{4} << 30;

// The kinds of filter, as written in file headers (docs/FORMAT.md). Values are frozen.
enum class FilterKind : std::uint16_t {
  kClassic = 1,             // BloomFilter
  kBlocked = 2,             // BlockedBloomFilter
  kCounting = 3,            // CountingBloomFilter
  kScalable = 4,            // ScalableBloomFilter
  kCuckoo = 5,              // CuckooFilter
  kRedisBloomScalable = 6,  // RedisBloomScalableFilter (RedisBloom's BF.* chain)
  kRedisBloomCuckoo = 7,    // RedisCuckooFilter (RedisBloom's CF.* filter)
  kWindowed = 8,            // WindowedBloomFilter (keys seen in a time window)
  kBitsAndBlooms = 9,       // BitsAndBloomsFilter (Go's bits-and-blooms/bloom v3, foreign_bloom.h)
  kGuava = 10,              // GuavaBloomFilter (Java's Guava BloomFilter, foreign_bloom.h)
  kParquet = 11,            // ParquetBloomFilter (Apache Parquet's split block filter, foreign_bloom.h)
};

// "classic", "blocked", "counting", "scalable", "cuckoo", "redisbloom-bf", "redisbloom-cf",
// "windowed", "bits-and-blooms", "guava", "parquet".
std::string_view FilterKindName(FilterKind kind) noexcept;
// The inverse of FilterKindName; an error names the valid kinds.
Result<FilterKind> ParseFilterKind(std::string_view name);

// The block layout of a blocked filter (blocked_bloom_filter.h), as written in its file
// header (params[2]; docs/FORMAT.md). Values are frozen.
enum class BlockedLayout : std::uint8_t {
  // 512-bit blocks of eight 64-bit lanes, 1..16 bits per key, XXH3-128 (hash id 1).
  kLines512 = 0,
  // 256-bit blocks of eight 32-bit lanes, one bit in each of k <= 8 lanes, one 64-bit
  // hash per key (hash id 4, or 3: XXH3-64): about half the time per key, ~4% more
  // bits at 1%.
  kLanes256 = 1,
};

// How to size a Bloom filter. Two forms:
//   - from the workload: `capacity` (distinct keys it is designed for) and `fp_rate`
//     (false-positive rate once it holds `capacity` keys), as Guava and RedisBloom do;
//       {.capacity = 10'000'000, .fp_rate = 0.001}
//   - explicit: `num_bits` and `num_hashes` both set (fp_rate is then ignored;
//     capacity, if 0, becomes the number of keys for which num_hashes is optimal).
//       {.num_bits = 1 << 20, .num_hashes = 7}
struct BloomOptions {
  std::uint64_t capacity = 0;
  double fp_rate = 0.01;
  std::uint64_t num_bits = 0;
  std::uint32_t num_hashes = 0;
  // Creating a filter larger than this is an error, not an allocation attempt.
  std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes;
  // Blocked filters only: the block layout (other kinds ignore it). Unset: sized from
  // capacity and fp_rate, DefaultBlockedLayout(fp_rate) (sizing.h): 256-bit blocks for
  // fp_rate >= 0.1%, 512-bit ones below; sized by num_bits and num_hashes, kLines512.
  std::optional<BlockedLayout> blocked_layout = std::nullopt;
  // The hash id (hash.h). Blocked filters of 256-bit blocks: kHashIdShort64 or
  // kHashIdXxh3x64, and 0 picks kHashIdShort64. Classic filters: kHashIdShort64 (0 picks
  // it, kDefaultClassicHashId) or kHashIdXxh3DoubleHashing, the hash of classic filters
  // created before hash id 4 became their default (their files keep it). 512-bit blocked
  // filters and counting filters (CountingOptions::bloom): 0 or kHashIdXxh3DoubleHashing,
  // their only hash. Any other id is kInvalidArgument, never quietly replaced.
  std::uint16_t hash_id = 0;
};

// The largest count a filter keeps and a file may hold: 2^63 - 1, so that a count is
// never negative as a signed 64-bit number (BF.CARD, CF.INFO). Every loader accepts any
// count up to it, and every write keeps each count (items, a stage's or link's items,
// deletes) at or below it, so that whatever a filter can reach loads again: a Bloom
// filter's count, an estimate of the keys inserted, stops there (saturates); a kind
// whose counts steer it (scalable chains, which grow by them; RedisBloom cuckoo
// filters, whose deletes compact by them) refuses the add with kFull instead.
inline constexpr std::uint64_t kMaxFileCount = (std::uint64_t{1} << 63) - 1;

namespace internal {
// `count` + `n`, saturated at kMaxFileCount (a count already over it stays as it is).
constexpr std::uint64_t SaturatedCount(std::uint64_t count, std::uint64_t n) noexcept {
  if (count >= kMaxFileCount) return count;
  return n > kMaxFileCount - count ? kMaxFileCount : count + n;
}
// SaturatedCount(count, fresh ? 1 : 0) for a count of at most kMaxFileCount, without a
// branch or compare on the single-add paths: 2^63 is taken back to 2^63 - 1.
constexpr std::uint64_t SaturatedIncrement(std::uint64_t count, bool fresh) noexcept {
  const std::uint64_t next = count + (fresh ? 1U : 0U);
  return next - (next >> 63);
}
}  // namespace internal

struct SaveOptions {
  // Compress the payload with zstd. Worth it for sparse filters (see docs/FORMAT.md);
  // a compressed file can't be memory-mapped.
  bool compress = false;
  int compression_level = 3;
  // Saves to a file (SaveFile, WriteFileAtomically) only: called with the new file's
  // size once its bytes are written and synced, just before the rename that puts them
  // under the name. An error from it cancels the save: the temporary file is removed,
  // the old file keeps its bytes, and the error is returned. What a caller must have
  // done before the file may change goes here (the CLI flushes its output).
  std::function<Status(std::uint64_t file_bytes)> before_commit = nullptr;
};

struct LoadOptions {
  // A file whose filter would need more memory than this is rejected before any
  // allocation.
  std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes;
};

}  // namespace bloomkit
