// SPDX-License-Identifier: Apache-2.0
// The kernels of the blocked filter's 256-bit layout (BlockedLayout::kLanes256,
// blocked_bloom_filter.h), portable and AVX2, one table of whole operations per k.
//
// A key's 64-bit hash h (HashKeyShort64, hash id 4, or XXH3-64, hash id 3) picks block FastRange64(h, num_blocks) of
// 32 bytes, four 64-bit words; lane j is the 32-bit half j % 2 (0: low) of word j / 2,
// which is the j-th little-endian 32-bit word of the block. For j < k lane j gets bit
// (lo32(h) * kBlockSalts[j]) >> 27; lanes k..7 get none. The block index comes from the
// high bits of h and the lane bits from its low 32 bits, so they are independent for any
// filter below 2^32 blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "internal/blocked_kernels.h"

namespace bloomkit::internal {

inline constexpr std::uint64_t kLaneWordsPerBlock = 4;
inline constexpr std::uint32_t kMaxLaneHashes = 8;

// The four words of a key's bit pattern for k lanes.
inline void LaneMaskPortable(std::uint64_t h, std::uint32_t num_hashes, std::uint64_t mask[4]) noexcept {
  const auto lo = static_cast<std::uint32_t>(h);
  std::uint64_t m[8];
  for (std::uint32_t j = 0; j < 8; ++j) {
    m[j] = j < num_hashes ? std::uint64_t{1} << ((lo * kBlockSalts[j]) >> 27) : 0;
  }
  for (std::size_t i = 0; i < 4; ++i) mask[i] = m[2 * i] | (m[2 * i + 1] << 32);
}

// A caller-supplied 64-bit hash (AddHash, MayContainHash) passes through the SplitMix64
// finalizer first, so that integers used as their own hash spread over the blocks.
constexpr std::uint64_t MixCallerHash(std::uint64_t hash) noexcept {
  return ExpandHash(hash).h2;
}

// The layout's operations for one k and one instruction set. Single keys: hash, block
// and probe in one call. *_hash take the final 64-bit hash (the key hash of a key, or
// MixCallerHash of a caller's hash); batches of hashes take callers' hashes and mix them.
// insert_* return whether the key set a new bit (AddIfAbsent); set_* and the batch
// inserts only set the bits (Add, AddHash, AddBatch: nothing waits on the old block);
// batch queries write out[i] and return the hits.
struct LanesOps {
  bool (*insert_key)(std::uint64_t* words, std::uint64_t num_blocks, std::string_view key) noexcept;
  bool (*contains_key)(const std::uint64_t* words, std::uint64_t num_blocks, std::string_view key) noexcept;
  bool (*insert_hash)(std::uint64_t* words, std::uint64_t num_blocks, std::uint64_t hash) noexcept;
  bool (*contains_hash)(const std::uint64_t* words, std::uint64_t num_blocks, std::uint64_t hash) noexcept;
  void (*set_key)(std::uint64_t* words, std::uint64_t num_blocks, std::string_view key) noexcept;
  void (*set_hash)(std::uint64_t* words, std::uint64_t num_blocks, std::uint64_t hash) noexcept;
  void (*insert_keys)(std::uint64_t* words, std::uint64_t num_blocks, std::span<const std::string_view> keys) noexcept;
  std::size_t (*contains_keys)(const std::uint64_t* words, std::uint64_t num_blocks,
                               std::span<const std::string_view> keys, bool* out) noexcept;
  void (*insert_hashes)(std::uint64_t* words, std::uint64_t num_blocks, std::span<const std::uint64_t> hashes) noexcept;
  std::size_t (*contains_hashes)(const std::uint64_t* words, std::uint64_t num_blocks,
                                 std::span<const std::uint64_t> hashes, bool* out) noexcept;
};

// The operations for k in 1..8 and a key hash (kHashIdShort64 or kHashIdXxh3x64) in
// one instruction set (kAvx2 only when CpuHasAvx2(); the tests run both), and the
// fastest this CPU runs.
const LanesOps& GetLanesOps(BlockedIsa isa, std::uint32_t num_hashes, std::uint16_t hash_id = kHashIdXxh3x64) noexcept;
const LanesOps& BestLanesOps(std::uint32_t num_hashes, std::uint16_t hash_id = kHashIdXxh3x64) noexcept;

}  // namespace bloomkit::internal
