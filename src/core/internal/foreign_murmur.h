// SPDX-License-Identifier: Apache-2.0
// The probes of the two Murmur3 libraries (foreign_bloom.h): MurmurHash3 x64 128 as
// Austin Appleby's reference computes it, bits-and-blooms/bloom v3's baseHashes and probe
// sequence, and Guava's MURMUR128_MITZ_64 and MURMUR128_MITZ_32 strategies. Every bit
// position here is one the library itself sets or tests for the same key.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bloomkit/foreign_bloom.h"
#include "bloomkit/hash.h"
#include "internal/hash_inline.h"

namespace bloomkit::internal {

inline constexpr std::uint64_t kMurmur3C1 = 0x87c37b91114253d5ULL;
inline constexpr std::uint64_t kMurmur3C2 = 0x4cf5ad432745937fULL;

inline std::uint64_t Murmur3Load64(const unsigned char* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// MurmurHash3_x64_128's running state: whole 16-byte blocks go through Mix, the tail
// (up to 15 bytes) and the length through Finish.
struct Murmur3State {
  std::uint64_t h1;
  std::uint64_t h2;

  void Mix(std::uint64_t k1, std::uint64_t k2) noexcept {
    k1 *= kMurmur3C1;
    k1 = std::rotl(k1, 31);
    k1 *= kMurmur3C2;
    h1 ^= k1;
    h1 = std::rotl(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= kMurmur3C2;
    k2 = std::rotl(k2, 33);
    k2 *= kMurmur3C1;
    h2 ^= k2;
    h2 = std::rotl(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }

  [[nodiscard]] Murmur3Hash128 Finish(const unsigned char* tail, std::size_t tail_bytes,
                                      std::uint64_t length) const noexcept {
    std::uint64_t a = h1;
    std::uint64_t b = h2;
    std::uint64_t k1 = 0;
    std::uint64_t k2 = 0;
    for (std::size_t i = tail_bytes; i > 8; --i) k2 = (k2 << 8) | tail[i - 1];
    for (std::size_t i = std::min<std::size_t>(tail_bytes, 8); i > 0; --i) k1 = (k1 << 8) | tail[i - 1];
    if (tail_bytes > 8) {
      k2 *= kMurmur3C2;
      k2 = std::rotl(k2, 33);
      k2 *= kMurmur3C1;
      b ^= k2;
    }
    if (tail_bytes > 0) {
      k1 *= kMurmur3C1;
      k1 = std::rotl(k1, 31);
      k1 *= kMurmur3C2;
      a ^= k1;
    }
    a ^= length;
    b ^= length;
    a += b;
    b += a;
    a = Murmur3Fmix64(a);
    b = Murmur3Fmix64(b);
    a += b;
    b += a;
    return {a, b};
  }
};

// bits-and-blooms' baseHashes: Murmur3 of the key, and of the key followed by 0x01,
// sharing the blocks of the key.
inline std::array<std::uint64_t, 4> BitsAndBloomsBaseHashes(std::string_view key) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(key.data());
  const std::size_t n = key.size();
  Murmur3State s{0, 0};
  const std::size_t blocks = n / 16;
  for (std::size_t i = 0; i < blocks; ++i) s.Mix(Murmur3Load64(p + 16 * i), Murmur3Load64(p + 16 * i + 8));
  const std::size_t tail_bytes = n % 16;
  std::array<unsigned char, 16> tail{};
  std::copy_n(p + 16 * blocks, tail_bytes, tail.begin());
  const Murmur3Hash128 first = s.Finish(tail.data(), tail_bytes, n);
  tail[tail_bytes] = 1;
  Murmur3Hash128 second{};
  if (tail_bytes + 1 == 16) {
    s.Mix(Murmur3Load64(tail.data()), Murmur3Load64(tail.data() + 8));
    second = s.Finish(tail.data(), 0, n + 1);
  } else {
    second = s.Finish(tail.data(), tail_bytes + 1, n + 1);
  }
  return {first.h1, first.h2, second.h1, second.h2};
}

// The caller's 64-bit hash (AddHash), expanded to the hash words a key would give.
inline std::array<std::uint64_t, 4> ExpandToFour(std::uint64_t hash) noexcept {
  const HashPair a = ExpandHash(hash);
  const HashPair b = ExpandHash(a.h2);
  return {a.h1, a.h2, b.h2, ExpandHash(b.h2).h2};
}

// Calls probe(bit) for each of the k bits of a key; stops when probe returns false.
// Returns whether every probe returned true.
template <typename Probe>
inline bool ForEachBitsAndBlooms(const std::array<std::uint64_t, 4>& h, std::uint64_t m, std::uint32_t k,
                                 Probe&& probe) noexcept {
  static constexpr std::array<std::size_t, 4> kSecond = {2, 3, 3, 2};
  for (std::uint64_t i = 0; i < k; ++i) {
    const std::uint64_t x = h[i % 2] + i * h[kSecond[i % 4]];
    if (!probe(x % m)) return false;
  }
  return true;
}

template <typename Probe>
inline bool ForEachGuava(std::uint64_t h1, std::uint64_t h2, GuavaStrategy strategy, std::uint64_t m, std::uint32_t k,
                         Probe&& probe) noexcept {
  if (strategy == GuavaStrategy::kMurmur128Mitz64) {
    std::uint64_t x = h1;
    for (std::uint32_t i = 0; i < k; ++i) {
      if (!probe((x & 0x7fffffffffffffffULL) % m)) return false;
      x += h2;
    }
    return true;
  }
  // MURMUR128_MITZ_32: Java int arithmetic on the low and high halves of h1.
  const auto a = static_cast<std::uint32_t>(h1);
  const auto b = static_cast<std::uint32_t>(h1 >> 32);
  for (std::uint32_t i = 1; i <= k; ++i) {
    std::uint32_t c = a + i * b;
    if ((c >> 31) != 0) c = ~c;
    if (!probe(std::uint64_t{c} % m)) return false;
  }
  return true;
}

}  // namespace bloomkit::internal
