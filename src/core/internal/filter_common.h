// Pieces shared by the filter implementations: option checks, prefetch, batch size.
#pragma once

#include <cstdint>

#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit::internal {

// Lookups kept in flight by the batch APIs: enough to hide a DRAM miss (~100-200 ns)
// behind the hashing of the other keys, few enough to stay in L1 and the line-fill
// buffers (a Zen 3 core tracks ~24 outstanding L1 misses).
inline constexpr std::size_t kBatchGroup = 16;

inline void PrefetchRead(const void* p) noexcept { __builtin_prefetch(p, 0, 3); }
inline void PrefetchWrite(const void* p) noexcept { __builtin_prefetch(p, 1, 3); }

// Validates BloomOptions' explicit form (num_bits and num_hashes both set).
Status ValidateExplicit(const BloomOptions& options, std::uint32_t max_hashes);

// Set bits of an array of words.
std::uint64_t PopCount(const std::uint64_t* words, std::uint64_t num_words) noexcept;

}  // namespace bloomkit::internal
