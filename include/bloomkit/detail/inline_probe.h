// SPDX-License-Identifier: Apache-2.0
// Implementation detail of bloomkit's public headers, not part of the documented API:
// names here may change or go away in any release. Include the public headers
// (bloomkit/bloom_filter.h, bloomkit/blocked_bloom_filter.h) instead.
//
// The instruction-level helpers of the single-key paths that run inline in the caller
// (BloomFilter::Add, BlockedBloomFilter::Add and MayContain): 128-bit products by BMI2's
// mulx, the bts/adc bit-set-and-count, and the switch that enables the classic inline
// path. They compute exactly the values of their portable counterparts in hash.h
// (Mulx64, FastRange64, HashShortKey8), which the known-answer tests pin.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "bloomkit/hash.h"

namespace bloomkit::internal {

// Whether BloomFilter::Add may probe 8-byte keys of hash id 4 in the caller (x86-64;
// each filter also checks that the CPU has BMI2).
#if defined(__x86_64__)
inline constexpr bool kClassicInlineAdds = true;
#else
inline constexpr bool kClassicInlineAdds = false;
#endif

#if defined(__x86_64__)
// The high 64 bits of the 128-bit product a * b, by BMI2's mulx; the low 64 bits go to
// *lo. For code that runs only where the CPU has BMI2 (the AVX2 and BMI2 kernels, and
// the callers' inline paths that the library enables only there). GCC 12 does not
// choose mulx for a 128-bit product even where BMI2 is enabled (nor for _mulx_u64,
// which it implements with one): mul needs one factor in rax and writes rdx, which
// costs moves and clobbered registers in probe loops, and sometimes a trip through the
// stack. mulx reads both factors before it writes either half.
inline std::uint64_t MulxHigh(std::uint64_t a, std::uint64_t b, std::uint64_t* lo) noexcept {
  std::uint64_t hi = 0;
  asm("mulx %3, %0, %1" : "=r"(*lo), "=r"(hi) : "d"(a), "rm"(b));
  return hi;
}
// Mulx64 and FastRange64 by mulx, where BMI2 is known to be there: the same values.
inline std::uint64_t MulxFold(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t lo = 0;
  const std::uint64_t hi = MulxHigh(a, b, &lo);
  return lo ^ hi;
}
inline std::uint64_t FastRangeMulx(std::uint64_t x, std::uint64_t range) noexcept {
  std::uint64_t lo = 0;
  return MulxHigh(x, range, &lo);
}
#else
// Elsewhere the same names compute with the plain 128-bit product, so that code naming
// them parses on every target.
constexpr std::uint64_t MulxFold(std::uint64_t a, std::uint64_t b) noexcept {
  return Mulx64(a, b);
}
constexpr std::uint64_t FastRangeMulx(std::uint64_t x, std::uint64_t range) noexcept {
  return FastRange64(x, range);
}
#endif

// HashShortKey8 by MulxFold: the same value.
inline std::uint64_t HashShortKey8Mulx(const char* p) noexcept {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return MulxFold(MulxFold(v ^ (kHashSeed ^ (8 * kShortKeyLengthSalt)), kShortKeyMultiplier), kShortKeyLengthSalt);
}

// Sets bit (pos mod 64) of `word` and adds 1 to `already` if it was set: bts and adc
// on x86-64 (base instructions, so the portable and BMI2 copies both use them).
[[gnu::always_inline]] inline void SetBitCountSet(std::uint64_t& word, std::uint64_t pos,
                                                  std::uint32_t& already) noexcept {
#if defined(__x86_64__)
  asm("btsq %[pos], %[word]\n\tadcl $0, %[already]"
      : [word] "+r"(word), [already] "+r"(already)
      : [pos] "r"(pos)
      : "cc");
#else
  already += static_cast<std::uint32_t>((word >> (pos & 63)) & 1U);
  word |= std::uint64_t{1} << (pos & 63);
#endif
}

}  // namespace bloomkit::internal
