// SPDX-License-Identifier: Apache-2.0
// Parquet's split block Bloom filter (foreign_bloom.h, parquet-format BloomFilter.md): the
// key hash, the block of a hash, its eight-bit probe in a portable and an AVX2 form (the
// same bits; the foreign contract and golden tests pin them), and the prefetching batch.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define BLOOMKIT_PARQUET_X86 1
#endif

#include "internal/blocked_kernels.h"
#include "internal/hash_inline.h"

namespace bloomkit::internal {

// Parquet's split block Bloom filter (parquet-format BloomFilter.md): block
// ((h >> 32) * blocks) >> 32 of 256 bits, eight 32-bit lanes; lane i gets bit
// (lo32(h) * salt[i]) >> 27. Lane i is the low (i even) or high (i odd) half of the
// block's little-endian 64-bit word i / 2.
inline constexpr std::array<std::uint32_t, 8> kParquetSalt = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                                              0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

// Parquet's key hash: XXH64 with seed 0. A string_view's null data comes only with
// length 0, which XXH64 accepts; passing "" then is the same hash, and keeps the static
// analyzer from pairing a null pointer with a length it cannot bound.
inline std::uint64_t ParquetKeyHash(std::string_view key) noexcept {
  const char* data = key.data();
  if (data == nullptr) data = "";
  return XXH64(data, key.size(), 0);
}

// Block i's first word: words + 4 i.
inline std::uint64_t* ParquetBlock(std::uint64_t* words, std::uint64_t num_bits, std::uint64_t h) noexcept {
  return words + (((h >> 32) * (num_bits / 256)) >> 32) * 4;
}

template <bool kSet>
inline bool ParquetProbePortable(std::uint64_t* block, std::uint64_t h) noexcept {
  const auto key = static_cast<std::uint32_t>(h);
  bool fresh = false;
  for (std::size_t i = 0; i < 8; ++i) {
    const std::uint32_t bit = (key * kParquetSalt[i]) >> 27;
    const std::uint64_t mask = std::uint64_t{1} << ((i % 2) * 32 + bit);
    if constexpr (kSet) {
      fresh |= (block[i / 2] & mask) == 0;
      block[i / 2] |= mask;
    } else if ((block[i / 2] & mask) == 0) {
      return false;
    }
  }
  return kSet ? fresh : true;
}

#ifdef BLOOMKIT_PARQUET_X86
// The eight lanes at once: 32-bit lane i of the block is bytes 4i..4i+3, as in an AVX2
// register, so lane i's bit is 1 << ((lo32(h) * salt[i]) >> 27) in element i.
template <bool kSet>
[[gnu::target("avx2")]] inline bool ParquetProbeAvx2(std::uint64_t* block, std::uint64_t h) noexcept {
  const __m256i salts = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kParquetSalt.data()));
  const __m256i x = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h)));
  const __m256i mask = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(_mm256_mullo_epi32(x, salts), 27));
  auto* b = reinterpret_cast<__m256i*>(block);
  const __m256i old = _mm256_loadu_si256(b);
  if constexpr (kSet) _mm256_storeu_si256(b, _mm256_or_si256(old, mask));
  // testc(a, m) is 1 when every bit of m is set in a.
  return kSet ? _mm256_testc_si256(old, mask) == 0 : _mm256_testc_si256(old, mask) != 0;
}
inline const bool kParquetAvx2 = CpuHasAvx2();
#endif

// Inserts (kSet: true if a bit was new) or tests (true if all eight bits are set) hash h.
template <bool kSet>
inline bool ParquetProbe(std::uint64_t* words, std::uint64_t num_bits, std::uint64_t h) noexcept {
  std::uint64_t* block = ParquetBlock(words, num_bits, h);
#ifdef BLOOMKIT_PARQUET_X86
  if (kParquetAvx2) return ParquetProbeAvx2<kSet>(block, h);
#endif
  return ParquetProbePortable<kSet>(block, h);
}

// Batches: the hashes of a group of keys first, with their blocks prefetched, then the
// probes, so that the memory of one key's block is fetched while others are probed.
inline constexpr std::size_t kParquetGroup = 16;

template <bool kSet, typename HashOf>
inline std::size_t ParquetBatch(std::uint64_t* words, std::uint64_t num_bits, std::size_t n, HashOf hash_of,
                                bool* out) noexcept {
  std::size_t hits = 0;
  std::array<std::uint64_t, kParquetGroup> hashes{};
  for (std::size_t start = 0; start < n; start += kParquetGroup) {
    const std::size_t m = std::min(kParquetGroup, n - start);
    for (std::size_t i = 0; i < m; ++i) {
      hashes[i] = hash_of(start + i);
      __builtin_prefetch(ParquetBlock(words, num_bits, hashes[i]), kSet ? 1 : 0);
    }
    for (std::size_t i = 0; i < m; ++i) {
      const bool r = ParquetProbe<kSet>(words, num_bits, hashes[i]);
      if (out != nullptr) out[start + i] = r;
      hits += r ? 1U : 0U;
    }
  }
  return hits;
}

}  // namespace bloomkit::internal
