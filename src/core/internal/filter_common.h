// SPDX-License-Identifier: Apache-2.0
// Pieces shared by the filter implementations: option checks, prefetch, batch size.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit::internal {

// Lookups kept in flight by the batch APIs: enough to hide a DRAM miss (~100-200 ns)
// behind the hashing of the other keys, few enough to stay in L1 and the line-fill
// buffers (a Zen 3 core tracks ~24 outstanding L1 misses).
inline constexpr std::size_t kBatchGroup = 16;

// Filters of this many bytes or more are taken to live in DRAM (the benchmark machine of
// docs/BENCHMARKS.md keeps only a few MiB of its 32 MiB L3 as cache), where the batch
// loops are bound by misses in flight rather than by instructions: the classic filter
// queries in rounds over 64 keys, the blocked filter works 64 keys ahead.
inline constexpr std::uint64_t kInMemoryFilterBytes = std::uint64_t{4} << 20;

// Whether every key of a batch is 8 bytes long (one pass, no branch per key): such
// batches of hash id 4 take the 8-byte hash alone.
inline bool AllEightBytes(std::span<const std::string_view> keys) noexcept {
  std::size_t other = 0;
  for (std::string_view key : keys) other |= key.size() ^ 8;
  return other == 0;
}

inline void PrefetchRead(const void* p) noexcept {
  __builtin_prefetch(p, 0, 3);
}
inline void PrefetchWrite(const void* p) noexcept {
  __builtin_prefetch(p, 1, 3);
}

// use(k) with k the number of probes of a key: a std::integral_constant for 1..16, so
// that the probe loop of each common k is unrolled into straight-line code (a loop of
// runtime length costs a compare, a branch and loop-carried registers per probe), the
// plain number otherwise. Every call has the same result type.
template <typename Use>
[[gnu::always_inline]] inline auto WithProbeCount(std::uint32_t num_probes, Use&& use) {
  switch (num_probes) {
    case 1: return use(std::integral_constant<std::uint32_t, 1>{});
    case 2: return use(std::integral_constant<std::uint32_t, 2>{});
    case 3: return use(std::integral_constant<std::uint32_t, 3>{});
    case 4: return use(std::integral_constant<std::uint32_t, 4>{});
    case 5: return use(std::integral_constant<std::uint32_t, 5>{});
    case 6: return use(std::integral_constant<std::uint32_t, 6>{});
    case 7: return use(std::integral_constant<std::uint32_t, 7>{});
    case 8: return use(std::integral_constant<std::uint32_t, 8>{});
    case 9: return use(std::integral_constant<std::uint32_t, 9>{});
    case 10: return use(std::integral_constant<std::uint32_t, 10>{});
    case 11: return use(std::integral_constant<std::uint32_t, 11>{});
    case 12: return use(std::integral_constant<std::uint32_t, 12>{});
    case 13: return use(std::integral_constant<std::uint32_t, 13>{});
    case 14: return use(std::integral_constant<std::uint32_t, 14>{});
    case 15: return use(std::integral_constant<std::uint32_t, 15>{});
    case 16: return use(std::integral_constant<std::uint32_t, 16>{});
    default: return use(num_probes);
  }
}

// Validates BloomOptions' explicit form (num_bits and num_hashes both set).
Status ValidateExplicit(const BloomOptions& options, std::uint32_t max_hashes);

// Set bits of an array of words.
std::uint64_t PopCount(const std::uint64_t* words, std::uint64_t num_words) noexcept;

// What two bit-array filters must share to be merged or intersected.
struct BitShape {
  std::uint64_t num_bits = 0;
  std::uint32_t num_hashes = 0;
};

enum class WordOp : int { kOr, kAnd };

// Merge (kOr) or intersect (kAnd) `theirs` into `mine`, after checking that both
// filters have the same shape; otherwise kIncompatible naming both shapes and
// `operation` ("merge", "intersect") of `what` ("filters", "blocked filters").
Status CombineWords(std::string_view operation, std::string_view what, BitShape mine_shape, BitShape their_shape,
                    std::span<std::uint64_t> mine, std::span<const std::uint64_t> theirs, WordOp op);

}  // namespace bloomkit::internal
