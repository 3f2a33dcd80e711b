// SPDX-License-Identifier: Apache-2.0
// Where a RedisBloom-format cuckoo filter keeps a bucket. Every slot index of
// RedisCuckooFilter comes from RedisCuckooSlotOffset, on every path: lookup, count,
// free-slot insert, the eviction chain and its rollback, delete, and compaction's moves.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "bloomkit/redisbloom.h"
#include "internal/codec.h"

namespace bloomkit::internal {

inline constexpr std::uint64_t kRedisCuckooAltMultiplier = 0x5bd1e995;

// A fingerprint's other bucket: RedisBloom's getAltHash. `index` is a hash or a bucket
// number; only its value modulo the number of buckets matters to the offset below.
constexpr std::uint64_t RedisCuckooAltHash(std::uint8_t fp, std::uint64_t index) noexcept {
  return index ^ (static_cast<std::uint64_t>(fp) * kRedisCuckooAltMultiplier);
}

// The first slot of the bucket of `hash` in a sub-filter of `num_buckets` buckets (a
// power of two) of `bucket_size` slots. RedisBloom's lookups, free-slot inserts, counts
// and deletes compute (hash % num_buckets) * bucket_size in 64 bits and return it as a
// uint32_t (SubCF_GetIndex), so in a sub-filter of more than 2^32 slots the offset wraps
// to 32 bits. Its eviction chain (Filter_KOInsert) indexes in 64 bits without the wrap,
// so there an item an eviction moves into a bucket past 2^32 / bucket_size is lost to
// lookups. bloomkit wraps on every path: what it places, its lookups and RedisBloom's
// find. The offset plus bucket_size never passes the array: where it wraps, the array
// has more than 2^32 + 255 slots.
constexpr std::uint64_t RedisCuckooSlotOffset(std::uint64_t hash, std::uint64_t num_buckets,
                                              std::uint32_t bucket_size) noexcept {
  return static_cast<std::uint32_t>((hash % num_buckets) * bucket_size);
}

// Whether a slot's position tells its bucket (compaction reads bucket j off slot
// j * bucket_size + s): true where offsets do not wrap, and where they wrap, for bucket
// sizes that are powers of two (bucket j then starts where bucket j mod (2^32 /
// bucket_size) does, which has the same offsets in every older sub-filter). For other
// bucket sizes a wrapped bucket straddles two positional ones.
constexpr bool RedisCuckooSlotsTellBuckets(std::uint64_t num_buckets, std::uint32_t bucket_size) noexcept {
  return num_buckets <= (std::uint64_t{1} << 32) / bucket_size || std::has_single_bit(bucket_size);
}

// Buckets of sub-filter `index`: num_buckets * expansion^index, false past 2^56 - 1.
// In constant time, whatever `index`: loaders check a header's sub-filters one by one,
// and a loop up to `index` made a header announcing 65535 sub-filters cost 2^31 steps.
[[nodiscard]] inline bool RedisCuckooFilterBuckets(std::uint64_t num_buckets, std::uint32_t expansion,
                                                   std::uint64_t index, std::uint64_t* out) noexcept {
  std::uint64_t growth = 1;
  if (expansion != 1) {
    // Expansion 0 gives 0 from index 1 on; from expansion 2 on, 57 steps pass 2^56.
    for (std::uint64_t i = 0; i < std::min<std::uint64_t>(index, 57); ++i) {
      if (!CheckedMul(growth, expansion, &growth) || growth > kRedisCuckooMaxBuckets) return false;
    }
  }
  if (growth == 0 || num_buckets == 0 || growth > kRedisCuckooMaxBuckets / num_buckets) return false;
  *out = num_buckets * growth;
  return true;
}

}  // namespace bloomkit::internal
