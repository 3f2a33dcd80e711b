// Portable and AVX2 kernels of the blocked filter (internal/blocked_kernels.h).
#include "internal/blocked_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BLOOMKIT_X86 1
#endif

namespace bloomkit::internal {

void MakeLaneEnable(std::uint32_t num_hashes, std::uint64_t* enable) noexcept {
  for (std::uint32_t i = 0; i < 16; ++i) enable[i] = i < num_hashes ? ~std::uint64_t{0} : 0;
}

bool BlockContainsPortable(const std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept {
  std::uint64_t mask[8];
  BlockMaskPortable(h2, enable, mask);
  std::uint64_t missing = 0;
  for (int j = 0; j < 8; ++j) missing |= mask[j] & ~block[j];
  return missing == 0;
}

bool BlockInsertPortable(std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept {
  std::uint64_t mask[8];
  BlockMaskPortable(h2, enable, mask);
  std::uint64_t fresh = 0;
  for (int j = 0; j < 8; ++j) {
    fresh |= mask[j] & ~block[j];
    block[j] |= mask[j];
  }
  return fresh != 0;
}

#ifdef BLOOMKIT_X86

namespace {

// Masks of lanes 0-3 and 4-7 in two registers.
__attribute__((target("avx2"))) inline void MasksAvx2(std::uint64_t h2, const std::uint64_t* enable, __m256i* m_lo,
                                                      __m256i* m_hi) noexcept {
  const __m256i salts0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kBlockSalts));
  const __m256i salts1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kBlockSalts + 8));
  const __m256i w0 = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h2)));
  const __m256i w1 = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h2 >> 32)));
  const __m256i bit0 = _mm256_srli_epi32(_mm256_mullo_epi32(w0, salts0), 26);
  const __m256i bit1 = _mm256_srli_epi32(_mm256_mullo_epi32(w1, salts1), 26);
  const __m256i one = _mm256_set1_epi64x(1);
  const auto* en = reinterpret_cast<const __m256i*>(enable);
  const __m256i r0_lo = _mm256_and_si256(
      _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(bit0))), _mm256_load_si256(en + 0));
  const __m256i r0_hi = _mm256_and_si256(
      _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(bit0, 1))), _mm256_load_si256(en + 1));
  const __m256i r1_lo = _mm256_and_si256(
      _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(bit1))), _mm256_load_si256(en + 2));
  const __m256i r1_hi = _mm256_and_si256(
      _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(bit1, 1))), _mm256_load_si256(en + 3));
  *m_lo = _mm256_or_si256(r0_lo, r1_lo);
  *m_hi = _mm256_or_si256(r0_hi, r1_hi);
}

}  // namespace

__attribute__((target("avx2"))) void BlockMaskAvx2(std::uint64_t h2, const std::uint64_t* enable,
                                                   std::uint64_t mask[8]) noexcept {
  __m256i lo;
  __m256i hi;
  MasksAvx2(h2, enable, &lo, &hi);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(mask), lo);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(mask + 4), hi);
}

__attribute__((target("avx2"))) bool BlockContainsAvx2(const std::uint64_t* block, std::uint64_t h2,
                                                       const std::uint64_t* enable) noexcept {
  __m256i lo;
  __m256i hi;
  MasksAvx2(h2, enable, &lo, &hi);
  const auto* b = reinterpret_cast<const __m256i*>(block);
  // testc(a, m) is 1 when every bit of m is set in a.
  return (_mm256_testc_si256(_mm256_load_si256(b), lo) & _mm256_testc_si256(_mm256_load_si256(b + 1), hi)) != 0;
}

__attribute__((target("avx2"))) bool BlockInsertAvx2(std::uint64_t* block, std::uint64_t h2,
                                                     const std::uint64_t* enable) noexcept {
  __m256i lo;
  __m256i hi;
  MasksAvx2(h2, enable, &lo, &hi);
  auto* b = reinterpret_cast<__m256i*>(block);
  const __m256i old_lo = _mm256_load_si256(b);
  const __m256i old_hi = _mm256_load_si256(b + 1);
  const bool present = (_mm256_testc_si256(old_lo, lo) & _mm256_testc_si256(old_hi, hi)) != 0;
  _mm256_store_si256(b, _mm256_or_si256(old_lo, lo));
  _mm256_store_si256(b + 1, _mm256_or_si256(old_hi, hi));
  return !present;
}

bool CpuHasAvx2() noexcept {
  static const bool has = __builtin_cpu_supports("avx2") != 0;
  return has;
}

#else

void BlockMaskAvx2(std::uint64_t h2, const std::uint64_t* enable, std::uint64_t mask[8]) noexcept {
  BlockMaskPortable(h2, enable, mask);
}
bool BlockContainsAvx2(const std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept {
  return BlockContainsPortable(block, h2, enable);
}
bool BlockInsertAvx2(std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept {
  return BlockInsertPortable(block, h2, enable);
}
bool CpuHasAvx2() noexcept { return false; }

#endif

}  // namespace bloomkit::internal
