// SPDX-License-Identifier: Apache-2.0
// Sizing formulas: plain functions, tested against the tables in docs/ and the seeds.
//
// Classic Bloom filter with m bits, k hashes and n keys (Bloom 1970; Broder &
// Mitzenmacher 2004):
//   fp_rate  ~= (1 - e^{-kn/m})^k
//   m         = ceil(-n ln p / (ln 2)^2)     e.g. n = 1e7, p = 1%   -> 95,850,584 bits
//   k         = max(1, round(m/n ln 2))                              -> 7
//
// Blocked filter (512-bit blocks, one cache line per key): keys fall into blocks as a
// Poisson process with mean lambda = 512 n / m, and a crowded block has a much higher
// false-positive rate than the average, so the blocked filter needs more bits than the
// classic one for the same p (Putze, Sanders & Singler 2007):
//   fp_rate = sum_i Poisson(i; lambda) * fp_block(i, k)
// where fp_block is the rate of one 512-bit block holding i keys under bloomkit's bit
// pattern (blocked_bloom_filter.h). BlockedFpRate evaluates it exactly; the sizing
// searches the smallest number of blocks meeting p. Bits per key needed:
//   p = 1%: 10.1 (classic 9.59)   p = 0.1%: 15.7 (14.38)   p = 0.01%: 22.9 (19.17)
// (pinned by sizing_test.cc).
//
// The 256-bit layout (BlockedLayout::kLanes256: one bit in each of k <= 8 32-bit lanes)
// has fp_block(i, k) = (1 - (31/32)^i)^k and needs, with k = 8 at all three rates,
//   p = 1%: 10.53   p = 0.1%: 16.89   p = 0.01%: 26.34 bits per key.
#pragma once

#include <cstdint>

#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit {

// The most hash functions a classic or counting filter accepts (p ~ 2^-64).
inline constexpr std::uint32_t kMaxNumHashes = 64;
// The most bits a blocked filter sets per key (two 8-lane rounds).
inline constexpr std::uint32_t kMaxBlockedNumHashes = 16;

// The most bits a blocked filter of 256-bit blocks sets per key (one per lane).
inline constexpr std::uint32_t kMaxLanes256NumHashes = 8;

// A filter's size and its expected false-positive rate at capacity.
struct FilterParameters {
  FilterKind kind = FilterKind::kClassic;
  std::uint64_t capacity = 0;
  double fp_rate = 0;          // the target
  std::uint64_t num_bits = 0;  // bits of filter state (counters count their width)
  std::uint64_t bytes = 0;     // memory of the filter's arrays
  std::uint32_t num_hashes = 0;
  double bits_per_key = 0;      // num_bits / capacity
  double expected_fp_rate = 0;  // the formula's rate once `capacity` keys are in
};

// Size of a filter of `kind` for `capacity` keys at `fp_rate`.
//   CalculateParameters(10'000'000, 0.01) -> 95,850,584 bits, 7 hashes
Result<FilterParameters> CalculateParameters(std::uint64_t capacity, double fp_rate,
                                             FilterKind kind = FilterKind::kClassic,
                                             std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes);

// The layout of a blocked filter created from capacity and fp_rate alone
// (BloomOptions::blocked_layout left unset): the 256-bit layout, about 2-3x faster per
// key, wherever it needs at most ~5% more bits per key than the 512-bit one, which is
// for fp_rate >= kLanes256DefaultMinFpRate; the 512-bit layout below that, where the
// 256-bit layout's k <= 8 costs more bits. The table behind the threshold is in
// docs/FILTERS.md ("Default layout"; bench/compare/layouts.cc measures it).
//   DefaultBlockedLayout(0.01) -> kLanes256    DefaultBlockedLayout(1e-5) -> kLines512
inline constexpr double kLanes256DefaultMinFpRate = 1e-3;
BlockedLayout DefaultBlockedLayout(double fp_rate) noexcept;

// Size of a blocked filter of `layout` for `capacity` keys at `fp_rate` (kLines512 is
// CalculateParameters(..., FilterKind::kBlocked)); num_bits counts 256-bit blocks for
// kLanes256.
Result<FilterParameters> CalculateBlockedParameters(std::uint64_t capacity, double fp_rate, BlockedLayout layout,
                                                    std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes);

// The inverse: the false-positive rate of `num_bits` bits holding `capacity` keys,
// with the optimal number of hashes for that size.
Result<FilterParameters> CalculateFpRateForBits(std::uint64_t capacity, std::uint64_t num_bits,
                                                FilterKind kind = FilterKind::kClassic);

// (1 - e^{-k n / m})^k: the classic filter's rate with m bits, k hashes and n keys.
double ClassicFpRate(double num_bits, double num_keys, std::uint32_t num_hashes) noexcept;

// Distinct keys in a classic filter of m bits (or counters) and k hashes with x of them
// set, from the fill (Swamidass & Baldi 2007): -(m/k) ln(1 - x/m). A full filter
// (x = m) holds an unbounded number: UINT64_MAX.
std::uint64_t ClassicEstimatedCount(std::uint64_t num_bits, std::uint64_t set_bits, std::uint32_t num_hashes) noexcept;

// The optimal k for m bits and n keys: max(1, round(m/n ln 2)), capped at kMaxNumHashes.
std::uint32_t OptimalNumHashes(double num_bits, double num_keys) noexcept;

// The blocked filter's rate with `num_blocks` 512-bit blocks, n keys and k bits per key.
double BlockedFpRate(std::uint64_t num_blocks, double num_keys, std::uint32_t num_hashes) noexcept;

// The rate of the 256-bit layout with `num_blocks` blocks, n keys and k lanes (k <= 8).
double Lanes256FpRate(std::uint64_t num_blocks, double num_keys, std::uint32_t num_hashes) noexcept;
// The number of keys a classic filter of m bits and k hashes can hold at fp_rate.
double ClassicCapacityAt(double num_bits, std::uint32_t num_hashes, double fp_rate) noexcept;

// Checks that `fp_rate` lies in (0, 1); the error names the value.
Status ValidateFpRate(double fp_rate);
// Checks that `bytes` does not exceed `max_memory_bytes`; the error names both.
Status ValidateMemory(std::uint64_t bytes, std::uint64_t max_memory_bytes, std::string_view what);

}  // namespace bloomkit
