// SPDX-License-Identifier: Apache-2.0
// The blocked filter's 256-bit layout: portable and AVX2 kernels and their whole
// operations (internal/blocked_lanes.h).
#include "internal/blocked_lanes.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <type_traits>
#include <utility>

#include "bloomkit/detail/inline_probe.h"
#include "bloomkit/hash.h"
#include "internal/filter_common.h"
#include "internal/hash_inline.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BLOOMKIT_X86 1
#endif

namespace bloomkit::internal {

namespace {

template <std::uint32_t kK>
struct PortableLanes {
  static std::uint64_t Hash8(const char* p) noexcept { return HashShortKey8(p); }
  static std::uint64_t Range(std::uint64_t h, std::uint64_t n) noexcept { return FastRange64(h, n); }
  static bool Contains(const std::uint64_t* block, std::uint64_t h) noexcept {
    std::uint64_t mask[4];
    LaneMaskPortable(h, kK, mask);
    std::uint64_t missing = 0;
    for (int i = 0; i < 4; ++i) missing |= mask[i] & ~block[i];
    return missing == 0;
  }
  static bool Insert(std::uint64_t* block, std::uint64_t h) noexcept {
    std::uint64_t mask[4];
    LaneMaskPortable(h, kK, mask);
    std::uint64_t fresh = 0;
    for (int i = 0; i < 4; ++i) {
      fresh |= mask[i] & ~block[i];
      block[i] |= mask[i];
    }
    return fresh != 0;
  }
  // Insert without the test of the old bits (Add, AddHash, the batches).
  static void Set(std::uint64_t* block, std::uint64_t h) noexcept {
    std::uint64_t mask[4];
    LaneMaskPortable(h, kK, mask);
    for (int i = 0; i < 4; ++i) block[i] |= mask[i];
  }
};

#ifdef BLOOMKIT_X86

template <std::uint32_t kK>
struct Avx2Lanes {
  [[gnu::target("avx2,bmi2")]] static std::uint64_t Hash8(const char* p) noexcept { return HashShortKey8Mulx(p); }
  [[gnu::target("avx2,bmi2")]] static std::uint64_t Range(std::uint64_t h, std::uint64_t n) noexcept {
    return FastRangeMulx(h, n);
  }
  // One 1 in each of lanes 0..k-1, shifted left by the lane's bit.
  [[gnu::target("avx2,bmi2")]] static __m256i Mask(std::uint64_t h) noexcept {
    const __m256i salts = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kBlockSalts));
    const __m256i x = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h)));
    const __m256i bits = _mm256_srli_epi32(_mm256_mullo_epi32(x, salts), 27);
    const __m256i ones = _mm256_setr_epi32(0 < kK, 1 < kK, 2 < kK, 3 < kK, 4 < kK, 5 < kK, 6 < kK, 7 < kK);
    return _mm256_sllv_epi32(ones, bits);
  }
  [[gnu::target("avx2,bmi2")]] static bool Contains(const std::uint64_t* block, std::uint64_t h) noexcept {
    // testc(a, m) is 1 when every bit of m is set in a.
    return _mm256_testc_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(block)), Mask(h)) != 0;
  }
  [[gnu::target("avx2,bmi2")]] static bool Insert(std::uint64_t* block, std::uint64_t h) noexcept {
    auto* b = reinterpret_cast<__m256i*>(block);
    const __m256i mask = Mask(h);
    const __m256i old = _mm256_load_si256(b);
    _mm256_store_si256(b, _mm256_or_si256(old, mask));
    return _mm256_testc_si256(old, mask) == 0;
  }
  [[gnu::target("avx2,bmi2")]] static void Set(std::uint64_t* block, std::uint64_t h) noexcept {
    auto* b = reinterpret_cast<__m256i*>(block);
    _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), Mask(h)));
  }
};

#endif  // BLOOMKIT_X86

// Keys hashed and prefetched ahead of their probes, as the 512-bit layout does: groups
// of 16 when the filter fits the caches, 64 when it lives in DRAM.
constexpr std::size_t kSmallGroup = kBatchGroup;
constexpr std::size_t kLargeGroup = 64;

// The key hashes of the layout: hash id 3 and hash id 4.
struct Xxh3KeyHash {
  static std::uint64_t Of(std::string_view key) noexcept { return HashKey64Inline(key); }
  // Keys above this length take the out-of-line single-key path.
  static constexpr std::size_t kInlineBytes = 16;
};
struct ShortKeyHash {
  static std::uint64_t Of(std::string_view key) noexcept { return HashKeyShort64Inline(key); }
  static constexpr std::size_t kInlineBytes = 8;
};

// The number of true values of out[0..n), 8 at a time: a bool is one byte, 0 or 1.
inline std::size_t CountTrue(const bool* out, std::size_t n) noexcept {
  std::size_t hits = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t eight = 0;
    std::memcpy(&eight, out + i, 8);
    hits += static_cast<std::size_t>(std::popcount(eight));
  }
  for (; i < n; ++i) hits += out[i] ? 1U : 0U;
  return hits;
}

template <typename Probe, typename KeyHash>
struct LaneOpsOf {
  static std::uint64_t* BlockOf(const std::uint64_t* words, std::uint64_t num_blocks, std::uint64_t h) noexcept {
    return const_cast<std::uint64_t*>(words) + Probe::Range(h, num_blocks) * kLaneWordsPerBlock;
  }
  static bool InsertHash(std::uint64_t* words, std::uint64_t num_blocks, std::uint64_t h) noexcept {
    return Probe::Insert(BlockOf(words, num_blocks, h), h);
  }
  static void SetHash(std::uint64_t* words, std::uint64_t num_blocks, std::uint64_t h) noexcept {
    Probe::Set(BlockOf(words, num_blocks, h), h);
  }
  static bool ContainsHash(const std::uint64_t* words, std::uint64_t num_blocks, std::uint64_t h) noexcept {
    return Probe::Contains(BlockOf(words, num_blocks, h), h);
  }
  static bool InsertKey(std::uint64_t* words, std::uint64_t num_blocks, std::string_view key) noexcept {
    return InsertHash(words, num_blocks, KeyHash::Of(key));
  }
  static void SetKey(std::uint64_t* words, std::uint64_t num_blocks, std::string_view key) noexcept {
    SetHash(words, num_blocks, KeyHash::Of(key));
  }
  static bool ContainsKey(const std::uint64_t* words, std::uint64_t num_blocks, std::string_view key) noexcept {
    return ContainsHash(words, num_blocks, KeyHash::Of(key));
  }

  // Hashes a group, prefetches its blocks, then visits each (index, block, hash); the
  // block of each key is computed once and kept. The prefetches pay even for a filter
  // in L2: without them a batch over a filter of 1.3 MB measured 10-20% slower
  // (docs/BENCHMARKS.md), although it ran fewer instructions.
  template <bool kForWrite, typename Items, typename HashOf, typename Visit>
  static void Batched(const std::uint64_t* words, std::uint64_t num_blocks, Items items, HashOf hash_of,
                      Visit&& visit) noexcept {
    const std::size_t n = items.size();
    const std::size_t group_size = num_blocks * 32 >= kInMemoryFilterBytes ? kLargeGroup : kSmallGroup;
    std::uint64_t group[kLargeGroup];
    std::uint64_t* blocks[kLargeGroup];
    for (std::size_t base = 0; base < n; base += group_size) {
      const std::size_t len = std::min(group_size, n - base);
      for (std::size_t j = 0; j < len; ++j) {
        group[j] = hash_of(items[base + j]);
        blocks[j] = BlockOf(words, num_blocks, group[j]);
        if constexpr (kForWrite) {
          PrefetchWrite(blocks[j]);
        } else {
          PrefetchRead(blocks[j]);
        }
      }
      for (std::size_t j = 0; j < len; ++j) visit(base + j, blocks[j], group[j]);
    }
  }
  // The batch loop of items that hash with no call (8-byte keys under hash id 4, and
  // callers' hashes). A filter the caches hold: one plain loop. A larger one: one pass,
  // in which item i is hashed, its block prefetched and kept in a ring of 64 slots, and
  // item i - 64 is probed. With no call in it, the loop keeps its constants in registers.
  template <bool kForWrite, typename Items, typename HashOf, typename Visit>
  static void Pipelined(const std::uint64_t* words, std::uint64_t num_blocks, Items items, HashOf hash_of,
                        Visit&& visit) noexcept {
    const std::size_t n = items.size();
    if (num_blocks * 32 < kInMemoryFilterBytes) {
      // A filter in the caches: the plain loop, as a caller's loop of single calls runs
      // it; the out-of-order core overlaps the independent probes by itself. The ring's
      // stores, reloads and prefetches cost instructions here and bought nothing: per
      // 8-byte key (callgrind, n = 10^5) a batch add took 33.2 instructions against the
      // single add's 34.0, a batch query 32.1 against 26.0; with this loop 26.1 and 25.0.
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t h = hash_of(items[i]);
        visit(i, BlockOf(words, num_blocks, h), h);
      }
      return;
    }
    const std::size_t ring = kLargeGroup;
    const std::size_t mask = ring - 1;
    std::uint64_t hashes[kLargeGroup];
    std::uint64_t* blocks[kLargeGroup];
    const auto* next = items.data();
    const auto keep = [&](std::size_t slot) {
      const std::uint64_t h = hash_of(*next++);
      hashes[slot] = h;
      blocks[slot] = BlockOf(words, num_blocks, h);
      if constexpr (kForWrite) {
        PrefetchWrite(blocks[slot]);
      } else {
        PrefetchRead(blocks[slot]);
      }
    };
    const std::size_t lead = std::min(ring, n);
    for (std::size_t i = 0; i < lead; ++i) keep(i);
    for (std::size_t i = ring; i < n; ++i) {
      const std::size_t slot = i & mask;
      visit(i - ring, blocks[slot], hashes[slot]);
      keep(slot);
    }
    for (std::size_t i = n - lead; i < n; ++i) visit(i, blocks[i & mask], hashes[i & mask]);
  }
  // Batch adds set the bits without testing them first: nothing waits for the old
  // block, so the misses of a filter in DRAM overlap.
  template <typename Items, typename HashOf>
  static void InsertPipelined(std::uint64_t* words, std::uint64_t num_blocks, Items items, HashOf hash_of) noexcept {
    Pipelined<true>(words, num_blocks, items, hash_of,
                    [&](std::size_t, std::uint64_t* block, std::uint64_t h) { Probe::Set(block, h); });
  }
  template <typename Items, typename HashOf>
  static std::size_t ContainsPipelined(const std::uint64_t* words, std::uint64_t num_blocks, Items items,
                                       HashOf hash_of, bool* out) noexcept {
    Pipelined<false>(
        words, num_blocks, items, hash_of,
        [&](std::size_t i, const std::uint64_t* block, std::uint64_t h) { out[i] = Probe::Contains(block, h); });
    return CountTrue(out, items.size());
  }

  template <typename Items, typename HashOf>
  static void InsertAll(std::uint64_t* words, std::uint64_t num_blocks, Items items, HashOf hash_of) noexcept {
    Batched<true>(words, num_blocks, items, hash_of,
                  [&](std::size_t, std::uint64_t* block, std::uint64_t h) { Probe::Set(block, h); });
  }
  template <typename Items, typename HashOf>
  static std::size_t ContainsAll(const std::uint64_t* words, std::uint64_t num_blocks, Items items, HashOf hash_of,
                                 bool* out) noexcept {
    std::size_t hits = 0;
    Batched<false>(words, num_blocks, items, hash_of, [&](std::size_t i, const std::uint64_t* block, std::uint64_t h) {
      out[i] = Probe::Contains(block, h);
      hits += out[i] ? 1U : 0U;
    });
    return hits;
  }

  static void InsertKeys(std::uint64_t* words, std::uint64_t num_blocks,
                         std::span<const std::string_view> keys) noexcept {
    if constexpr (std::is_same_v<KeyHash, ShortKeyHash>) {
      if (num_blocks * 32 < kInMemoryFilterBytes) {
        return InsertPipelined(words, num_blocks, keys, [](std::string_view k) { return KeyHash::Of(k); });
      }
      if (internal::AllEightBytes(keys)) {
        return InsertPipelined(words, num_blocks, keys, [](std::string_view k) { return Probe::Hash8(k.data()); });
      }
    }
    InsertAll(words, num_blocks, keys, [](std::string_view k) { return KeyHash::Of(k); });
  }
  static std::size_t ContainsKeys(const std::uint64_t* words, std::uint64_t num_blocks,
                                  std::span<const std::string_view> keys, bool* out) noexcept {
    if constexpr (std::is_same_v<KeyHash, ShortKeyHash>) {
      if (num_blocks * 32 < kInMemoryFilterBytes) {
        // A cached filter: the plain loop (Pipelined's cached case) with the hash that
        // takes 8-byte keys on a predicted branch, and no pass over the lengths first.
        // That pass made the batch query of 8-byte keys 7-16% slower than a loop of
        // inline single queries (n = 10^5, bloomkit_batch_vs_single), although this
        // loop runs 3 more instructions per key (28.0 against 25.0, callgrind).
        return ContainsPipelined(
            words, num_blocks, keys, [](std::string_view k) { return KeyHash::Of(k); }, out);
      }
      if (internal::AllEightBytes(keys)) {
        return ContainsPipelined(
            words, num_blocks, keys, [](std::string_view k) { return Probe::Hash8(k.data()); }, out);
      }
    }
    return ContainsAll(
        words, num_blocks, keys, [](std::string_view k) { return KeyHash::Of(k); }, out);
  }
  static void InsertHashes(std::uint64_t* words, std::uint64_t num_blocks,
                           std::span<const std::uint64_t> hashes) noexcept {
    InsertPipelined(words, num_blocks, hashes, [](std::uint64_t h) { return MixCallerHash(h); });
  }
  static std::size_t ContainsHashes(const std::uint64_t* words, std::uint64_t num_blocks,
                                    std::span<const std::uint64_t> hashes, bool* out) noexcept {
    return ContainsPipelined(
        words, num_blocks, hashes, [](std::uint64_t h) { return MixCallerHash(h); }, out);
  }
};

// Single keys of up to KeyHash::kInlineBytes (integer ids, short tokens) take a path
// with the hash inline and no call, so it needs no stack frame; longer keys jump to a
// second copy.
template <typename Probe, typename KeyHash>
struct PortableEntry {
  using O = LaneOpsOf<Probe, KeyHash>;
  [[gnu::noinline]] static bool InsertLongKey(std::uint64_t* w, std::uint64_t nb, std::string_view key) noexcept {
    return O::InsertKey(w, nb, key);
  }
  [[gnu::noinline]] static bool ContainsLongKey(const std::uint64_t* w, std::uint64_t nb,
                                                std::string_view key) noexcept {
    return O::ContainsKey(w, nb, key);
  }
  static bool InsertKey(std::uint64_t* w, std::uint64_t nb, std::string_view key) noexcept {
    if (key.size() > KeyHash::kInlineBytes) [[unlikely]] {
      return InsertLongKey(w, nb, key);
    }
    return O::InsertKey(w, nb, key);
  }
  static bool ContainsKey(const std::uint64_t* w, std::uint64_t nb, std::string_view key) noexcept {
    if (key.size() > KeyHash::kInlineBytes) [[unlikely]] {
      return ContainsLongKey(w, nb, key);
    }
    return O::ContainsKey(w, nb, key);
  }
  [[gnu::noinline]] static void SetLongKey(std::uint64_t* w, std::uint64_t nb, std::string_view key) noexcept {
    O::SetKey(w, nb, key);
  }
  static void SetKey(std::uint64_t* w, std::uint64_t nb, std::string_view key) noexcept {
    if (key.size() > KeyHash::kInlineBytes) [[unlikely]] {
      return SetLongKey(w, nb, key);
    }
    O::SetKey(w, nb, key);
  }
};

template <typename Probe, typename KeyHash>
constexpr LanesOps MakePortable() noexcept {
  using O = LaneOpsOf<Probe, KeyHash>;
  using E = PortableEntry<Probe, KeyHash>;
  return LanesOps{&E::InsertKey, &E::ContainsKey, &O::InsertHash,   &O::ContainsHash, &E::SetKey,
                  &O::SetHash,   &O::InsertKeys,  &O::ContainsKeys, &O::InsertHashes, &O::ContainsHashes};
}

template <typename KeyHash, std::size_t... kI>
constexpr auto PortableTable(std::index_sequence<kI...>) noexcept {
  return std::array<LanesOps, sizeof...(kI)>{
      MakePortable<PortableLanes<static_cast<std::uint32_t>(kI + 1)>, KeyHash>()...};
}
constexpr auto kPortableLanes = PortableTable<Xxh3KeyHash>(std::make_index_sequence<kMaxLaneHashes>());
constexpr auto kPortableLanesShort = PortableTable<ShortKeyHash>(std::make_index_sequence<kMaxLaneHashes>());

#ifdef BLOOMKIT_X86

// Entry points compiled for AVX2: `flatten` inlines hash, block choice and probe (and
// a batch's loop) into one AVX2 function.
template <std::uint32_t kK, typename KeyHash>
struct Avx2Entry {
  using O = LaneOpsOf<Avx2Lanes<kK>, KeyHash>;
  [[gnu::target("avx2,bmi2"), gnu::flatten, gnu::noinline]] static bool InsertLongKey(std::uint64_t* w,
                                                                                      std::uint64_t nb,
                                                                                      std::string_view key) noexcept {
    return O::InsertKey(w, nb, key);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten, gnu::noinline]] static bool ContainsLongKey(const std::uint64_t* w,
                                                                                        std::uint64_t nb,
                                                                                        std::string_view key) noexcept {
    return O::ContainsKey(w, nb, key);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten]] static bool InsertKey(std::uint64_t* w, std::uint64_t nb,
                                                                   std::string_view key) noexcept {
    if (key.size() > KeyHash::kInlineBytes) [[unlikely]] {
      return InsertLongKey(w, nb, key);
    }
    return O::InsertKey(w, nb, key);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten]] static bool ContainsKey(const std::uint64_t* w, std::uint64_t nb,
                                                                     std::string_view key) noexcept {
    if (key.size() > KeyHash::kInlineBytes) [[unlikely]] {
      return ContainsLongKey(w, nb, key);
    }
    return O::ContainsKey(w, nb, key);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten]] static bool InsertHash(std::uint64_t* w, std::uint64_t nb,
                                                                    std::uint64_t h) noexcept {
    return O::InsertHash(w, nb, h);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten, gnu::noinline]] static void SetLongKey(std::uint64_t* w, std::uint64_t nb,
                                                                                   std::string_view key) noexcept {
    O::SetKey(w, nb, key);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten]] static void SetKey(std::uint64_t* w, std::uint64_t nb,
                                                                std::string_view key) noexcept {
    if (key.size() > KeyHash::kInlineBytes) [[unlikely]] {
      return SetLongKey(w, nb, key);
    }
    O::SetKey(w, nb, key);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten]] static void SetHash(std::uint64_t* w, std::uint64_t nb,
                                                                 std::uint64_t h) noexcept {
    O::SetHash(w, nb, h);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten]] static bool ContainsHash(const std::uint64_t* w, std::uint64_t nb,
                                                                      std::uint64_t h) noexcept {
    return O::ContainsHash(w, nb, h);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten]] static void InsertKeys(std::uint64_t* w, std::uint64_t nb,
                                                                    std::span<const std::string_view> keys) noexcept {
    O::InsertKeys(w, nb, keys);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten]] static std::size_t ContainsKeys(const std::uint64_t* w, std::uint64_t nb,
                                                                             std::span<const std::string_view> keys,
                                                                             bool* out) noexcept {
    return O::ContainsKeys(w, nb, keys, out);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten]] static void InsertHashes(std::uint64_t* w, std::uint64_t nb,
                                                                      std::span<const std::uint64_t> hashes) noexcept {
    O::InsertHashes(w, nb, hashes);
  }
  [[gnu::target("avx2,bmi2"), gnu::flatten]] static std::size_t ContainsHashes(const std::uint64_t* w, std::uint64_t nb,
                                                                               std::span<const std::uint64_t> hashes,
                                                                               bool* out) noexcept {
    return O::ContainsHashes(w, nb, hashes, out);
  }
  static constexpr LanesOps kTable = {&InsertKey, &ContainsKey, &InsertHash,   &ContainsHash, &SetKey,
                                      &SetHash,   &InsertKeys,  &ContainsKeys, &InsertHashes, &ContainsHashes};
};

template <typename KeyHash, std::size_t... kI>
constexpr auto Avx2Table(std::index_sequence<kI...>) noexcept {
  return std::array<LanesOps, sizeof...(kI)>{Avx2Entry<static_cast<std::uint32_t>(kI + 1), KeyHash>::kTable...};
}
constexpr auto kAvx2Lanes = Avx2Table<Xxh3KeyHash>(std::make_index_sequence<kMaxLaneHashes>());
constexpr auto kAvx2LanesShort = Avx2Table<ShortKeyHash>(std::make_index_sequence<kMaxLaneHashes>());

#endif  // BLOOMKIT_X86

}  // namespace

const LanesOps& GetLanesOps(BlockedIsa isa, std::uint32_t num_hashes, std::uint16_t hash_id) noexcept {
  const std::size_t i = std::clamp<std::uint32_t>(num_hashes, 1, kMaxLaneHashes) - 1;
  const bool short_keys = hash_id == kHashIdShort64;
#ifdef BLOOMKIT_X86
  if (isa == BlockedIsa::kAvx2 && CpuHasAvx2()) return short_keys ? kAvx2LanesShort[i] : kAvx2Lanes[i];
#else
  (void)isa;
#endif
  return short_keys ? kPortableLanesShort[i] : kPortableLanes[i];
}

const LanesOps& BestLanesOps(std::uint32_t num_hashes, std::uint16_t hash_id) noexcept {
  return GetLanesOps(BlockedIsa::kAvx2, num_hashes, hash_id);
}

}  // namespace bloomkit::internal
