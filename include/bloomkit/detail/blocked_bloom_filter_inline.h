// SPDX-License-Identifier: Apache-2.0
// Implementation detail of bloomkit/blocked_bloom_filter.h, not part of the documented
// API: included by that header after the class, never on its own.
//
// The AVX2 probe of a kLanes256 filter with hash id 4 that BlockedBloomFilter::Add and
// MayContain run in the caller's code when it is compiled with AVX2 (CallerIsa::kAvx2):
// block FastRange64(h, num_blocks) by mulx, the lane mask by eight 32-bit multiplies
// and a variable shift, one 256-bit load and test (and store, for an insert). The
// library's kernels (src/core/blocked_lanes.cc) compute the same bits; tests pin both.
// Inline on purpose: a call would cost a large share of a cache-resident lookup.
#pragma once

#include <cstdint>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/detail/inline_probe.h"
#include "bloomkit/options.h"

#if defined(__x86_64__)
#include <immintrin.h>

namespace bloomkit {

namespace internal {
// The lane mask of hash h: lane j < k gets bit (lo32(h) * kSalt[j]) >> 27.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i Lanes256MaskAvx2(std::uint64_t h, const std::uint32_t* salts,
                                                                            const std::uint32_t* ones) noexcept {
  const __m256i x = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h)));
  const __m256i bits =
      _mm256_srli_epi32(_mm256_mullo_epi32(x, _mm256_load_si256(reinterpret_cast<const __m256i*>(salts))), 27);
  return _mm256_sllv_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(ones)), bits);
}
}  // namespace internal

[[gnu::target("avx2"), gnu::always_inline]] inline bool BlockedBloomFilter::ContainsShortAvx2(
    std::uint64_t h) const noexcept {
  const auto* block = reinterpret_cast<const __m256i*>(words_.data() + internal::FastRangeMulx(h, num_blocks_) * 4);
  return _mm256_testc_si256(_mm256_load_si256(block), internal::Lanes256MaskAvx2(h, lane_salts_, lane_ones_)) != 0;
}

[[gnu::target("avx2"), gnu::always_inline]] inline bool BlockedBloomFilter::InsertShortAvx2(std::uint64_t h) noexcept {
  auto* block = reinterpret_cast<__m256i*>(words_.data() + internal::FastRangeMulx(h, num_blocks_) * 4);
  const __m256i mask = internal::Lanes256MaskAvx2(h, lane_salts_, lane_ones_);
  const __m256i old = _mm256_load_si256(block);
  _mm256_store_si256(block, _mm256_or_si256(old, mask));
  const bool fresh = _mm256_testc_si256(old, mask) == 0;
  count_ = internal::SaturatedIncrement(count_, fresh);
  return fresh;
}

// Add's inline path: the block OR-ed with the mask, the count raised; the count does not
// wait for the block, so the next key's miss overlaps this one's.
[[gnu::target("avx2"), gnu::always_inline]] inline void BlockedBloomFilter::SetShortAvx2(std::uint64_t h) noexcept {
  auto* block = reinterpret_cast<__m256i*>(words_.data() + internal::FastRangeMulx(h, num_blocks_) * 4);
  const __m256i mask = internal::Lanes256MaskAvx2(h, lane_salts_, lane_ones_);
  count_ = internal::SaturatedIncrement(count_, true);
  _mm256_store_si256(block, _mm256_or_si256(_mm256_load_si256(block), mask));
}
}  // namespace bloomkit
#endif
