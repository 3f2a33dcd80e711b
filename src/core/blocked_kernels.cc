// SPDX-License-Identifier: Apache-2.0
// Portable and AVX2 kernels of the blocked filter, and its whole operations
// (internal/blocked_kernels.h).
#include "internal/blocked_kernels.h"

#include <algorithm>

#include "internal/filter_common.h"
#include "internal/hash_inline.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BLOOMKIT_X86 1
#endif

namespace bloomkit::internal {

void MakeLaneEnable(std::uint32_t num_hashes, std::uint64_t* enable) noexcept {
  for (std::uint32_t i = 0; i < 16; ++i) enable[i] = i < num_hashes ? ~std::uint64_t{0} : 0;
}

namespace {

// Probes of one block; round 1's lanes (probes 8-15) are computed only when kWide.
template <bool kWide>
struct PortableProbe {
  static bool Contains(const std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept {
    std::uint64_t mask[8];
    BlockMaskPortable<kWide>(h2, enable, mask);
    std::uint64_t missing = 0;
    for (int j = 0; j < 8; ++j) missing |= mask[j] & ~block[j];
    return missing == 0;
  }
  static bool Insert(std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept {
    std::uint64_t mask[8];
    BlockMaskPortable<kWide>(h2, enable, mask);
    std::uint64_t fresh = 0;
    for (int j = 0; j < 8; ++j) {
      fresh |= mask[j] & ~block[j];
      block[j] |= mask[j];
    }
    return fresh != 0;
  }
  // Insert without the test of the old bits.
  static void Set(std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept {
    std::uint64_t mask[8];
    BlockMaskPortable<kWide>(h2, enable, mask);
    for (int j = 0; j < 8; ++j) block[j] |= mask[j];
  }
};

#ifdef BLOOMKIT_X86

// kAllLanes: k = 8 exactly (every blocked filter at 1% and 0.1%), so every lane of
// round 0 takes part and the lane enables need not be loaded.
template <bool kWide, bool kAllLanes = false>
struct Avx2Probe {
  static_assert(!(kWide && kAllLanes));
  // Masks of lanes 0-3 and 4-7 in two registers.
  [[gnu::target("avx2")]] static void Masks(std::uint64_t h2, const std::uint64_t* enable, __m256i* m_lo,
                                            __m256i* m_hi) noexcept {
    const __m256i one = _mm256_set1_epi64x(1);
    const auto* en = reinterpret_cast<const __m256i*>(enable);
    const __m256i salts0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kBlockSalts));
    const __m256i w0 = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h2)));
    const __m256i bit0 = _mm256_srli_epi32(_mm256_mullo_epi32(w0, salts0), 26);
    *m_lo = _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(bit0)));
    *m_hi = _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(bit0, 1)));
    if constexpr (!kAllLanes) {
      *m_lo = _mm256_and_si256(*m_lo, _mm256_load_si256(en + 0));
      *m_hi = _mm256_and_si256(*m_hi, _mm256_load_si256(en + 1));
    }
    if constexpr (kWide) {
      const __m256i salts1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kBlockSalts + 8));
      const __m256i w1 = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h2 >> 32)));
      const __m256i bit1 = _mm256_srli_epi32(_mm256_mullo_epi32(w1, salts1), 26);
      *m_lo = _mm256_or_si256(
          *m_lo, _mm256_and_si256(_mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(bit1))),
                                  _mm256_load_si256(en + 2)));
      *m_hi = _mm256_or_si256(
          *m_hi, _mm256_and_si256(_mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(bit1, 1))),
                                  _mm256_load_si256(en + 3)));
    }
  }
  [[gnu::target("avx2")]] static bool Contains(const std::uint64_t* block, std::uint64_t h2,
                                               const std::uint64_t* enable) noexcept {
    __m256i lo;
    __m256i hi;
    Masks(h2, enable, &lo, &hi);
    const auto* b = reinterpret_cast<const __m256i*>(block);
    // testc(a, m) is 1 when every bit of m is set in a.
    return (_mm256_testc_si256(_mm256_load_si256(b), lo) & _mm256_testc_si256(_mm256_load_si256(b + 1), hi)) != 0;
  }
  [[gnu::target("avx2")]] static bool Insert(std::uint64_t* block, std::uint64_t h2,
                                             const std::uint64_t* enable) noexcept {
    __m256i lo;
    __m256i hi;
    Masks(h2, enable, &lo, &hi);
    auto* b = reinterpret_cast<__m256i*>(block);
    const __m256i old_lo = _mm256_load_si256(b);
    const __m256i old_hi = _mm256_load_si256(b + 1);
    const bool present = (_mm256_testc_si256(old_lo, lo) & _mm256_testc_si256(old_hi, hi)) != 0;
    _mm256_store_si256(b, _mm256_or_si256(old_lo, lo));
    _mm256_store_si256(b + 1, _mm256_or_si256(old_hi, hi));
    return !present;
  }
  [[gnu::target("avx2")]] static void Set(std::uint64_t* block, std::uint64_t h2,
                                          const std::uint64_t* enable) noexcept {
    __m256i lo;
    __m256i hi;
    Masks(h2, enable, &lo, &hi);
    auto* b = reinterpret_cast<__m256i*>(block);
    _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), lo));
    _mm256_store_si256(b + 1, _mm256_or_si256(_mm256_load_si256(b + 1), hi));
  }
};

#endif  // BLOOMKIT_X86

// Keys hashed and prefetched ahead of their probes. A blocked key needs one line, so
// the classic filter's 16 keys keep only 16 misses in flight: filters in DRAM (4 MiB
// and more) take groups of 64, which measured 0.60-0.66x the time of 16 at 10^8 keys
// and 0.72-0.78x at 10^7; filters the caches hold stay at 16, where 64 measured up to
// 7% slower.
constexpr std::size_t kSmallGroup = kBatchGroup;
constexpr std::size_t kLargeGroup = 64;

// The batch operations of BlockedOps over one probe kind.
template <typename Probe>
struct Ops {
  static std::uint64_t* BlockOf(const BlockedWords& f, std::uint64_t h1) noexcept {
    return f.words + FastRange64(h1, f.num_blocks) * 8;
  }

  // Hashes a group, prefetches its blocks, then visits each (index, hash).
  template <typename Hasher, bool kForWrite, typename Visit>
  static void Batched(const BlockedWords& f, typename Hasher::Items items, Visit&& visit) noexcept {
    const Hasher hasher{items};
    const std::size_t n = items.size();
    const std::size_t group_size = f.num_blocks * 64 >= kInMemoryFilterBytes ? kLargeGroup : kSmallGroup;
    HashPair group[kLargeGroup];
    for (std::size_t base = 0; base < n; base += group_size) {
      const std::size_t len = std::min(group_size, n - base);
      for (std::size_t j = 0; j < len; ++j) {
        group[j] = hasher(base + j);
        if constexpr (kForWrite) {
          PrefetchWrite(BlockOf(f, group[j].h1));
        } else {
          PrefetchRead(BlockOf(f, group[j].h1));
        }
      }
      for (std::size_t j = 0; j < len; ++j) visit(base + j, group[j]);
    }
  }

  // Batch adds only set the bits: no test of the old block that the next keys would
  // wait for.
  template <typename Hasher>
  static void InsertBatch(const BlockedWords& f, typename Hasher::Items items) noexcept {
    Batched<Hasher, true>(f, items, [&](std::size_t, HashPair h) { Probe::Set(BlockOf(f, h.h1), h.h2, f.enable); });
  }

  template <typename Hasher>
  static std::size_t ContainsBatch(const BlockedWords& f, typename Hasher::Items items, bool* out) noexcept {
    std::size_t hits = 0;
    Batched<Hasher, false>(f, items, [&](std::size_t i, HashPair h) {
      out[i] = Probe::Contains(BlockOf(f, h.h1), h.h2, f.enable);
      hits += out[i] ? 1U : 0U;
    });
    return hits;
  }
};

#ifdef BLOOMKIT_X86

// Batch entry points compiled for AVX2: `flatten` inlines the whole operation (hash,
// loop, probe) into one AVX2 function.
template <bool kWide, bool kAllLanes = false>
struct Avx2Ops {
  using O = Ops<Avx2Probe<kWide, kAllLanes>>;
  template <typename Hasher>
  [[gnu::target("avx2"), gnu::flatten]] static void InsertBatch(const BlockedWords& f,
                                                                typename Hasher::Items items) noexcept {
    O::template InsertBatch<Hasher>(f, items);
  }
  template <typename Hasher>
  [[gnu::target("avx2"), gnu::flatten]] static std::size_t ContainsBatch(const BlockedWords& f,
                                                                         typename Hasher::Items items,
                                                                         bool* out) noexcept {
    return O::template ContainsBatch<Hasher>(f, items, out);
  }
};

#endif  // BLOOMKIT_X86

template <typename Probe, typename Batches>
constexpr BlockedOps MakeTable() noexcept {
  return BlockedOps{&Probe::Insert,
                    &Probe::Set,
                    &Probe::Contains,
                    &Batches::template InsertBatch<KeyHasher>,
                    &Batches::template ContainsBatch<KeyHasher>,
                    &Batches::template InsertBatch<HashExpander>,
                    &Batches::template ContainsBatch<HashExpander>};
}

constexpr BlockedOps kPortableOps[2] = {MakeTable<PortableProbe<false>, Ops<PortableProbe<false>>>(),
                                        MakeTable<PortableProbe<true>, Ops<PortableProbe<true>>>()};
#ifdef BLOOMKIT_X86
constexpr BlockedOps kAvx2Ops[3] = {MakeTable<Avx2Probe<false>, Avx2Ops<false>>(),
                                    MakeTable<Avx2Probe<true>, Avx2Ops<true>>(),
                                    MakeTable<Avx2Probe<false, true>, Avx2Ops<false, true>>()};
#endif

}  // namespace

bool BlockContainsPortable(const std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept {
  return PortableProbe<true>::Contains(block, h2, enable);
}

bool BlockInsertPortable(std::uint64_t* block, std::uint64_t h2, const std::uint64_t* enable) noexcept {
  return PortableProbe<true>::Insert(block, h2, enable);
}

const BlockedOps& GetBlockedOps(BlockedIsa isa, std::uint32_t num_hashes) noexcept {
  const bool wide = num_hashes > 8;
#ifdef BLOOMKIT_X86
  if (isa == BlockedIsa::kAvx2 && CpuHasAvx2()) return kAvx2Ops[num_hashes == 8 ? 2 : (wide ? 1 : 0)];
#else
  (void)isa;
#endif
  return kPortableOps[wide ? 1 : 0];
}

const BlockedOps& BestBlockedOps(std::uint32_t num_hashes) noexcept {
  return GetBlockedOps(BlockedIsa::kAvx2, num_hashes);
}

#ifdef BLOOMKIT_X86

[[gnu::target("avx2")]] void BlockMaskAvx2(std::uint64_t h2, const std::uint64_t* enable,
                                           std::uint64_t mask[8]) noexcept {
  __m256i lo;
  __m256i hi;
  Avx2Probe<true>::Masks(h2, enable, &lo, &hi);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(mask), lo);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(mask + 4), hi);
}

[[gnu::target("avx2")]] bool BlockContainsAvx2(const std::uint64_t* block, std::uint64_t h2,
                                               const std::uint64_t* enable) noexcept {
  return Avx2Probe<true>::Contains(block, h2, enable);
}

[[gnu::target("avx2")]] bool BlockInsertAvx2(std::uint64_t* block, std::uint64_t h2,
                                             const std::uint64_t* enable) noexcept {
  return Avx2Probe<true>::Insert(block, h2, enable);
}

bool CpuHasAvx2() noexcept {
  static const bool has = __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("bmi2") != 0;
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
bool CpuHasAvx2() noexcept {
  return false;
}

#endif

}  // namespace bloomkit::internal
