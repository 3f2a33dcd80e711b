// SPDX-License-Identifier: Apache-2.0
// The blocked filter's bit pattern (blocked_bloom_filter.h), in a portable and an
// AVX2 form, and the filter's whole operations built on them. Both forms compute the
// same eight 64-bit lane masks for a key; the tests compare them on random input.
//
// Lane j of round r gets bit ((word_r * kBlockSalts[8r + j]) >> 26), where word_0 is
// the low and word_1 the high 32 bits of h2. A lane takes part when its probe index
// 8r + j is below k; `enable` holds all-ones for taking part and zero otherwise. With
// k <= 8 round 1 takes no part, and the "narrow" operations skip computing it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "bloomkit/hash.h"

namespace bloomkit::internal {

// Sixteen odd 32-bit multipliers, drawn once from a PRNG seeded with kHashSeed and
// frozen: changing one changes every blocked filter's bits.
inline constexpr std::uint32_t kBlockSalts[16] = {
    0x204ade81U, 0xf1c1a909U, 0xdea0be2bU, 0x8f4d5fcbU, 0xeeade89bU, 0x302614e7U, 0xb43e9343U, 0x9cf78759U,
    0xbb3edc4fU, 0xa9090bcbU, 0x1716d087U, 0x4039db2bU, 0x88143f9dU, 0xaafc76cdU, 0xfbfc8ba3U, 0x4e2a2da9U,
};

// Per-filter lane enables for k probes, 16 words (64-byte aligned):
// enable[8r + j] = ~0 if 8r + j < k else 0.
void MakeLaneEnable(std::uint32_t num_hashes, std::uint64_t* enable) noexcept;

// The eight lane masks of one key. kWide = false skips round 1, which is right only
// for k <= 8 (its lanes are disabled then).
template <bool kWide = true>
inline void BlockMaskPortable(std::uint64_t h2, const std::uint64_t* enable, std::uint64_t mask[8]) noexcept {
  const auto lo = static_cast<std::uint32_t>(h2);
  const auto hi = static_cast<std::uint32_t>(h2 >> 32);
  for (int j = 0; j < 8; ++j) {
    mask[j] = (std::uint64_t{1} << ((lo * kBlockSalts[j]) >> 26)) & enable[j];
    if constexpr (kWide) mask[j] |= (std::uint64_t{1} << ((hi * kBlockSalts[8 + j]) >> 26)) & enable[8 + j];
  }
}

bool BlockContainsPortable(const std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept;
bool BlockInsertPortable(std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept;

// AVX2 forms; call only when CpuHasAvx2().
void BlockMaskAvx2(std::uint64_t h2, const std::uint64_t* enable, std::uint64_t mask[8]) noexcept;
bool BlockContainsAvx2(const std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept;
bool BlockInsertAvx2(std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept;

// AVX2 and BMI2 together (every CPU with AVX2 has BMI2; the 256-bit kernels use mulx).
bool CpuHasAvx2() noexcept;

// A filter's words as its operations see them.
struct BlockedWords {
  std::uint64_t* words = nullptr;
  std::uint64_t num_blocks = 0;
  const std::uint64_t* enable = nullptr;  // MakeLaneEnable's 16 words
};

// The filter's operations, compiled per instruction set and lane count and chosen once
// per filter. One key: the probe of its block (the caller hashes and picks the block,
// inline). Batches: hashing, block choice, prefetch and probe in one function, so that
// nothing per key is a call (an out-of-line call costs up to half of a cache-resident
// lookup); a group of kBatchGroup keys is hashed and its blocks prefetched before any
// is probed. `insert` returns whether the key set a new bit (AddIfAbsent); `set` and
// the batch inserts only set the bits (Add, AddBatch); batch queries write out[i] and
// return the hits.
struct BlockedOps {
  bool (*insert)(std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept;
  void (*set)(std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept;
  bool (*contains)(const std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept;
  void (*insert_keys)(const BlockedWords& f, std::span<const std::string_view> keys) noexcept;
  std::size_t (*contains_keys)(const BlockedWords& f, std::span<const std::string_view> keys, bool* out) noexcept;
  void (*insert_hashes)(const BlockedWords& f, std::span<const std::uint64_t> hashes) noexcept;
  std::size_t (*contains_hashes)(const BlockedWords& f, std::span<const std::uint64_t> hashes, bool* out) noexcept;
};

enum class BlockedIsa { kPortable, kAvx2 };

// The operations for k probes in one instruction set (kAvx2 only when CpuHasAvx2();
// the tests run both), and the fastest this CPU runs.
const BlockedOps& GetBlockedOps(BlockedIsa isa, std::uint32_t num_hashes) noexcept;
const BlockedOps& BestBlockedOps(std::uint32_t num_hashes) noexcept;

}  // namespace bloomkit::internal
