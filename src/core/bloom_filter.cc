// SPDX-License-Identifier: Apache-2.0
// The classic Bloom filter (bloom_filter.h).
#include "bloomkit/bloom_filter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

#include "bloomkit/hash.h"
#include "bloomkit/sizing.h"
#include "internal/classic_kernels.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/filter_common.h"
#include "internal/hash_inline.h"
#include "internal/message.h"

#if defined(__x86_64__)
#define BLOOMKIT_X86 1
#endif

namespace bloomkit {

namespace internal {

Status ValidateExplicit(const BloomOptions& options, std::uint32_t max_hashes) {
  if (options.num_bits == 0) {
    return MakeError(ErrorCode::kInvalidArgument, "num_bits must be at least 1 when num_hashes is given, got 0");
  }
  if (options.num_hashes == 0 || options.num_hashes > max_hashes) {
    return MakeError(ErrorCode::kInvalidArgument, "num_hashes must be in [1, ", max_hashes, "], got ",
                     options.num_hashes);
  }
  return {};
}

std::uint64_t PopCount(const std::uint64_t* words, std::uint64_t num_words) noexcept {
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < num_words; ++i) total += static_cast<std::uint64_t>(std::popcount(words[i]));
  return total;
}

Status CombineWords(std::string_view operation, std::string_view what, BitShape mine_shape, BitShape their_shape,
                    std::span<std::uint64_t> mine, std::span<const std::uint64_t> theirs, WordOp op) {
  if (mine_shape.num_bits != their_shape.num_bits || mine_shape.num_hashes != their_shape.num_hashes ||
      mine.size() != theirs.size()) {
    return MakeError(ErrorCode::kIncompatible, "cannot ", operation, " ", what, " of ", mine_shape.num_bits, " bits/",
                     mine_shape.num_hashes, " hashes and ", their_shape.num_bits, " bits/", their_shape.num_hashes,
                     " hashes: both need the same bits and hashes");
  }
  if (op == WordOp::kOr) {
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] |= theirs[i];
  } else {
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] &= theirs[i];
  }
  return {};
}

}  // namespace internal

namespace {

constexpr double kLn2 = 0.69314718055994530942;

std::uint64_t WordsFor(std::uint64_t num_bits) {
  return num_bits / 64 + (num_bits % 64 != 0 ? 1 : 0);
}

// Which copy of the probes this CPU runs (the table WithOps below calls), chosen once,
// at static initialization. A filter used by another file's static initializer before
// this one has run sees false and takes the portable copy, which sets the same bits.
const bool kUseBmi2 = internal::CpuHasBmi2();

}  // namespace

BloomFilter::BloomFilter(internal::ClassicBits bits, std::uint64_t count, std::uint64_t capacity,
                         double fp_rate) noexcept
    : bits_(std::move(bits)), count_(count), capacity_(capacity), fp_rate_(fp_rate) {}

Result<BloomFilter> BloomFilter::Create(const BloomOptions& options) {
  using internal::MakeError;
  std::uint64_t num_bits = 0;
  std::uint32_t num_hashes = 0;
  std::uint64_t capacity = options.capacity;
  double fp_rate = options.fp_rate;
  if (options.hash_id != 0 && options.hash_id != kHashIdXxh3DoubleHashing && options.hash_id != kHashIdShort64) {
    return MakeError(ErrorCode::kInvalidArgument, "hash id ", options.hash_id,
                     " is not a hash of classic filters: 1 (XXH3-128) or 4 (short-key hash)");
  }
  // New filters take hash id 4 unless they ask: its FPR matched the formula's on every
  // adversarial key family at 10^6, 10^8 and past 2^32 bits, and it hashes keys of up
  // to 8 bytes in a few instructions (docs/FILTERS.md, "The classic filter's hash").
  const std::uint16_t hash_id = options.hash_id == 0 ? kDefaultClassicHashId : options.hash_id;
  if (options.num_bits != 0 || options.num_hashes != 0) {
    if (auto st = internal::ValidateExplicit(options, kMaxNumHashes); !st.ok()) return st.error();
    num_bits = options.num_bits;
    num_hashes = options.num_hashes;
    if (capacity == 0) {
      capacity = std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(std::round(static_cast<double>(num_bits) * kLn2 / num_hashes)));
    }
    fp_rate = ClassicFpRate(static_cast<double>(num_bits), static_cast<double>(capacity), num_hashes);
    if (auto st = ValidateMemory(WordsFor(num_bits) * 8, options.max_memory_bytes, "a filter of this size"); !st.ok()) {
      return st.error();
    }
  } else {
    auto params = CalculateParameters(options.capacity, options.fp_rate, kKind, options.max_memory_bytes);
    if (!params.ok()) return std::move(params).error();
    num_bits = params->num_bits;
    num_hashes = params->num_hashes;
  }
  if (num_bits > kMaxNumBits) {
    return MakeError(ErrorCode::kTooLarge, "num_bits ", num_bits, " is more than the ", kMaxNumBits,
                     " a filter can have");
  }
  WordArray words = WordArray::Allocate(WordsFor(num_bits));
  if (!words.ok()) {
    return MakeError(ErrorCode::kTooLarge, "out of memory allocating ", WordsFor(num_bits) * 8, " bytes");
  }
  return BloomFilter(internal::ClassicBits(num_bits, num_hashes, hash_id, std::move(words)), 0, capacity, fp_rate);
}

namespace internal {
namespace {

// The probes of one key, inlined (with the hash of hash id 4) into each instruction
// set's copy below. The lambdas are always inlined too: a copy that GCC left out of
// line would be compiled for the portable instruction set.

// Probe `walk`'s next position, FastRange64 by mulx (bloomkit/hash.h) when kMulx.
template <bool kMulx>
[[gnu::always_inline]] inline std::uint64_t NextProbe(ProbeWalk& walk, std::uint64_t num_bits) noexcept {
#ifdef BLOOMKIT_X86
  if constexpr (kMulx) {
    std::uint64_t lo = 0;
    const std::uint64_t hi = MulxHigh(num_bits, walk.x, &lo);
    walk.x += walk.y;
    walk.y += kProbeStep;
    return hi;
  }
#endif
  return walk.Next(num_bits);
}

// kTest: whether the old bits are read to tell a new key (AddIfAbsent). Add sets the
// bits without it, and nothing it does waits for a word to arrive.
template <bool kMulx, bool kTest = true>
[[gnu::always_inline]] inline bool InsertProbes(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                                                HashPair hash) noexcept {
  if constexpr (!kTest) {
    WithProbeCount(
        num_hashes, [&](auto num_probes) __attribute__((always_inline)) {
          ProbeWalk walk(hash);
          for (std::uint32_t i = 0; i < num_probes; ++i) {
            const std::uint64_t pos = NextProbe<kMulx>(walk, num_bits);
            words[pos >> 6] |= std::uint64_t{1} << (pos & 63);
          }
          return true;
        });
    return true;
  }
  return WithProbeCount(
      num_hashes, [&](auto num_probes) __attribute__((always_inline)) {
        // The OR of the words' changes: non-zero when one of the bits was unset. (An AND
        // of the old bits instead keeps every old word live to the end of the probes.)
        std::uint64_t changed = 0;
        ProbeWalk walk(hash);
        for (std::uint32_t i = 0; i < num_probes; ++i) {
          const std::uint64_t pos = NextProbe<kMulx>(walk, num_bits);
          std::uint64_t& word = words[pos >> 6];
          const std::uint64_t old = word;
          const std::uint64_t updated = old | (std::uint64_t{1} << (pos & 63));
          changed |= old ^ updated;
          word = updated;
        }
        return changed != 0;
      });
}

// The query of a filter in DRAM, out of line: one DRAM miss outweighs the call, and the
// branch-free probe of cached filters keeps its registers. Each probe's line is asked
// for two tests ahead: the first two lines before any bit is tested, and line i + 2
// before probe i's bit. A key that passes a probe finds the next line on the way, and
// one that passes two (a quarter of the absent keys) the one after it too.
template <bool kMulx>
[[gnu::noinline]] bool ContainsInDram(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_probes,
                                      HashPair hash) noexcept {
  ProbeWalk walk(hash);
  std::uint64_t pos = NextProbe<kMulx>(walk, num_bits);
  if (num_probes == 1) return ((words[pos >> 6] >> (pos & 63)) & 1U) != 0;
  std::uint64_t next = NextProbe<kMulx>(walk, num_bits);
  PrefetchRead(words + (next >> 6));
  for (std::uint32_t i = 2; i < num_probes; ++i) {
    const std::uint64_t after = NextProbe<kMulx>(walk, num_bits);
    PrefetchRead(words + (after >> 6));
    if (((words[pos >> 6] >> (pos & 63)) & 1U) == 0) return false;
    pos = next;
    next = after;
  }
  if (((words[pos >> 6] >> (pos & 63)) & 1U) == 0) return false;
  return ((words[next >> 6] >> (next & 63)) & 1U) != 0;
}

// A filter the caches hold is probed branch-free: all k words are read and their bits
// ANDed. An early exit at the first zero bit saves loads for absent keys but mispredicts
// about once per absent key (each bit is set with probability ~1/2), and after the
// mispredict the remaining loads start late; reading all k lets them all be in flight at
// once. A filter in DRAM (kInMemoryFilterBytes and up) stops at the first zero bit: an
// absent key then waits for ~2 lines instead of fetching k. At 10^8 keys, in alternating
// runs against Boost.Bloom's classic filter, an absent key's query measured 1.24-1.26
// of Boost's time branch-free and 1.17-1.18 with the early exit; asking for each next
// line before testing the current bit then gave 0.95-1.05 against 0.94-1.30, and
// present keys 0.72-0.78 against 0.82-1.11; asking two lines ahead instead of one,
// 0.96-1.03 against 1.09-1.10 for absent keys (docs/BENCHMARKS.md).
// (The batch forms, whose lines are already prefetched, stop at the first zero too: see
// ProbePrefetched.)
template <bool kMulx>
[[gnu::always_inline]] inline bool ContainsProbes(const std::uint64_t* words, std::uint64_t num_bits,
                                                  std::uint32_t num_hashes, HashPair hash) noexcept {
  if (num_bits >= kInMemoryFilterBytes * 8) [[unlikely]] {
    return ContainsInDram<kMulx>(words, num_bits, num_hashes, hash);
  }
  return WithProbeCount(
      num_hashes, [&](auto num_probes) __attribute__((always_inline)) {
        std::uint64_t set = 1;
        ProbeWalk walk(hash);
        for (std::uint32_t i = 0; i < num_probes; ++i) {
          const std::uint64_t pos = NextProbe<kMulx>(walk, num_bits);
          set &= words[pos >> 6] >> (pos & 63);
        }
        return (set & 1U) != 0;
      });
}

bool InsertPortable(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes, HashPair hash) noexcept {
  return InsertProbes<false>(words, num_bits, num_hashes, hash);
}
void SetPortable(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes, HashPair hash) noexcept {
  InsertProbes<false, false>(words, num_bits, num_hashes, hash);
}
void SetShortKeyPortable(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                         std::string_view key) noexcept {
  InsertProbes<false, false>(words, num_bits, num_hashes, HashKeyShortPairInline(key));
}
bool ContainsPortable(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                      HashPair hash) noexcept {
  return ContainsProbes<false>(words, num_bits, num_hashes, hash);
}
bool InsertShortKeyPortable(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                            std::string_view key) noexcept {
  return InsertProbes<false>(words, num_bits, num_hashes, HashKeyShortPairInline(key));
}
bool ContainsShortKeyPortable(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                              std::string_view key) noexcept {
  return ContainsProbes<false>(words, num_bits, num_hashes, HashKeyShortPairInline(key));
}

#ifdef BLOOMKIT_X86

// The same code with BMI1/BMI2: mulx takes its multiplicand from any register and
// writes any pair, shlx/shrx take their count from any register, andn spares a copy.
// Without them every 128-bit multiply goes through rax:rdx and every variable shift
// through cl, and the unrolled probes of k = 7 spill registers to the stack.
[[gnu::target("bmi,bmi2")]] bool InsertBmi2(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                                            HashPair hash) noexcept {
  return InsertProbes<true>(words, num_bits, num_hashes, hash);
}
[[gnu::target("bmi,bmi2")]] void SetBmi2(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                                         HashPair hash) noexcept {
  InsertProbes<true, false>(words, num_bits, num_hashes, hash);
}
[[gnu::target("bmi,bmi2")]] void SetShortKeyBmi2(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                                                 std::string_view key) noexcept {
  InsertProbes<true, false>(words, num_bits, num_hashes, HashKeyShortPairInline(key));
}
[[gnu::target("bmi,bmi2")]] bool ContainsBmi2(const std::uint64_t* words, std::uint64_t num_bits,
                                              std::uint32_t num_hashes, HashPair hash) noexcept {
  return ContainsProbes<true>(words, num_bits, num_hashes, hash);
}
[[gnu::target("bmi,bmi2")]] bool InsertShortKeyBmi2(std::uint64_t* words, std::uint64_t num_bits,
                                                    std::uint32_t num_hashes, std::string_view key) noexcept {
  return InsertProbes<true>(words, num_bits, num_hashes, HashKeyShortPairInline(key));
}
[[gnu::target("bmi,bmi2")]] bool ContainsShortKeyBmi2(const std::uint64_t* words, std::uint64_t num_bits,
                                                      std::uint32_t num_hashes, std::string_view key) noexcept {
  return ContainsProbes<true>(words, num_bits, num_hashes, HashKeyShortPairInline(key));
}

#endif

}  // namespace

}  // namespace internal

namespace {

// The probe of a key whose k lines were prefetched: stops at the first zero bit, so an
// absent key waits for ~2 of its lines instead of all k while the others are still
// arriving. At 10^8 keys the branch-free probe measured 16-21% slower here.
bool ProbePrefetched(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                     HashPair hash) noexcept {
  bool all = true;
  ForEachProbe(hash, num_bits, num_hashes, [&](std::uint64_t pos) {
    all = ((words[pos >> 6] >> (pos & 63)) & 1U) != 0;
    return all;
  });
  return all;
}

// Hashes items [base, base + len) into `group` and asks for the next group's key bytes.
// One out-of-line copy per input kind serves every batch loop of this file: inlined into
// each, XXH3's code outgrows the inliner's budget and ends up called per key anyway.
template <typename Hasher>
[[gnu::noinline]] void HashGroup(const Hasher& hasher, std::size_t n, std::size_t base, std::size_t len,
                                 HashPair* group) noexcept {
  for (std::size_t j = 0; j < len; ++j) {
    if (base + internal::kBatchGroup + j < n) hasher.Prefetch(base + internal::kBatchGroup + j);
    group[j] = hasher(base + j);
  }
}

// Hashes a group, prefetches all k lines of every key, then runs `op` on each: the
// misses of the group overlap instead of queueing one after another.
template <typename Hasher, typename Op>
void RunBatched(std::size_t n, const Hasher& hasher, const std::uint64_t* words, std::uint64_t num_bits,
                std::uint32_t num_hashes, bool for_write, Op&& op) noexcept {
  HashPair group[internal::kBatchGroup];
  for (std::size_t base = 0; base < n; base += internal::kBatchGroup) {
    const std::size_t len = std::min(internal::kBatchGroup, n - base);
    HashGroup(hasher, n, base, len, group);
    for (std::size_t j = 0; j < len; ++j) {
      ForEachProbe(group[j], num_bits, num_hashes, [&](std::uint64_t pos) {
        if (for_write)
          internal::PrefetchWrite(words + (pos >> 6));
        else
          internal::PrefetchRead(words + (pos >> 6));
        return true;
      });
    }
    for (std::size_t j = 0; j < len; ++j) op(base + j, group[j]);
  }
}

// Batch adds. The probe count is fixed once per batch, so that each key's probes are
// unrolled, and each position is computed once: stored while its line is prefetched,
// then read back to set the bit. The bits are set without being tested (a batch add
// counts every key). k > 16 takes the generic RunBatched walk. Compiled portable and
// with BMI2, as the single-key probes.
template <bool kMulx, typename Hasher>
[[gnu::always_inline]] inline void AddBatched(std::size_t n, const Hasher& hasher, std::uint64_t* words,
                                              std::uint64_t num_bits, std::uint32_t num_hashes) noexcept {
  internal::WithProbeCount(
      num_hashes, [&](auto num_probes) __attribute__((always_inline))->bool {
        if constexpr (std::is_same_v<decltype(num_probes), std::uint32_t>) {
          RunBatched(n, hasher, words, num_bits, num_probes, true, [&](std::size_t, HashPair hash) {
            ForEachProbe(hash, num_bits, num_probes, [&](std::uint64_t pos) {
              words[pos >> 6] |= std::uint64_t{1} << (pos & 63);
              return true;
            });
          });
        } else {
          constexpr std::uint32_t kProbes = decltype(num_probes)::value;
          HashPair group[internal::kBatchGroup];
          std::uint64_t positions[internal::kBatchGroup][kProbes];
          for (std::size_t base = 0; base < n; base += internal::kBatchGroup) {
            const std::size_t len = std::min(internal::kBatchGroup, n - base);
            HashGroup(hasher, n, base, len, group);
            for (std::size_t j = 0; j < len; ++j) {
              ProbeWalk walk(group[j]);
              for (std::uint32_t i = 0; i < kProbes; ++i) {
                const std::uint64_t pos = internal::NextProbe<kMulx>(walk, num_bits);
                positions[j][i] = pos;
                internal::PrefetchWrite(words + (pos >> 6));
              }
            }
            for (std::size_t j = 0; j < len; ++j) {
              for (std::uint32_t i = 0; i < kProbes; ++i) {
                const std::uint64_t pos = positions[j][i];
                words[pos >> 6] |= std::uint64_t{1} << (pos & 63);
              }
            }
          }
        }
        return true;
      });
}

// Batch queries of a filter in DRAM, in rounds over groups of 64 keys. Round r tests
// probe r of each key of the group that passed probes 0..r-1, whose line round r - 1
// asked for, and asks for the line of its probe r + 1 (the key's own line again when
// the bit was 0: the key has left, and the round has no branch on a bit). An absent key
// costs ~2 lines, and up to 64 lines are in flight. The next group's first lines are
// asked for as this group's answers are written. A filter the caches hold is bound by
// instructions instead, and QueryCached is faster there (QueryBatched chooses).
constexpr std::size_t kRoundKeys = 64;
// Filters of fewer probes keep the one-wave prefetched path (RunBatched with
// ProbePrefetched); the rounds were measured at k = 7 only.
constexpr std::uint32_t kMinRoundProbes = 4;

template <bool kMulx, typename Hasher>
std::size_t QueryRounds(std::size_t n, const Hasher& hasher, const std::uint64_t* words, std::uint64_t num_bits,
                        std::uint32_t num_hashes, bool* out) noexcept {
  // Slot j of the group: the key's next probe and the walk's state after it.
  std::uint64_t pos[kRoundKeys];
  std::uint64_t walk_x[kRoundKeys];
  std::uint64_t walk_y[kRoundKeys];
  const auto start = [&](std::size_t i, std::size_t j) {
    if (i + kRoundKeys < n) hasher.Prefetch(i + kRoundKeys);
    ProbeWalk walk(hasher(i));
    pos[j] = internal::NextProbe<kMulx>(walk, num_bits);
    walk_x[j] = walk.x;
    walk_y[j] = walk.y;
    internal::PrefetchRead(words + (pos[j] >> 6));
  };
  for (std::size_t j = 0; j < std::min(kRoundKeys, n); ++j) start(j, j);
  std::size_t hits = 0;
  for (std::size_t base = 0; base < n; base += kRoundKeys) {
    const std::size_t len = std::min(kRoundKeys, n - base);
    std::uint64_t live = len == kRoundKeys ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
    for (std::uint32_t r = 0; r < num_hashes && live != 0; ++r) {
      const bool last = r + 1 == num_hashes;
      for (std::uint64_t m = live; m != 0; m &= m - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(m));
        const std::uint64_t line = pos[j] >> 6;
        const std::uint64_t set = (words[line] >> (pos[j] & 63)) & 1U;
        live &= ~((set ^ 1U) << j);
        if (!last) {
          ProbeWalk walk(HashPair{walk_x[j], walk_y[j]});
          pos[j] = internal::NextProbe<kMulx>(walk, num_bits);
          walk_x[j] = walk.x;
          walk_y[j] = walk.y;
          internal::PrefetchRead(words + (set != 0 ? pos[j] >> 6 : line));
        }
      }
    }
    for (std::size_t j = 0; j < len; ++j) {
      out[base + j] = ((live >> j) & 1U) != 0;
      if (base + kRoundKeys + j < n) start(base + kRoundKeys + j, j);
    }
    hits += static_cast<std::size_t>(std::popcount(live));
  }
  return hits;
}

// Batch queries of a filter the caches hold, in two passes per group with no branch on
// a bit: pass 1 reads the first kFirstPass probes of every key and lists the keys whose
// bits are all set; pass 2 reads the remaining probes of those keys only. An absent key
// costs ~2 probes without the mispredicted early exit of ProbePrefetched (which made
// absent batches slower than present ones), a present key its k probes in two runs, and
// no line is prefetched: the loads hit the caches and, free of branches, overlap.
constexpr std::uint32_t kFirstPass = 2;

template <bool kMulx, typename Hasher>
[[gnu::always_inline]] inline std::size_t QueryCached(std::size_t n, const Hasher& hasher, const std::uint64_t* words,
                                                      std::uint64_t num_bits, std::uint32_t num_hashes,
                                                      bool* out) noexcept {
  // k fixed once per batch (unrolled pass 2 for k <= 16); pass 2 resumes each walk from
  // the state pass 1 left instead of computing it again.
  return internal::WithProbeCount(
      num_hashes, [&](auto num_probes) __attribute__((always_inline))->std::size_t {
        const auto bit = [&](std::uint64_t pos) __attribute__((always_inline)) {
          return words[pos >> 6] >> (pos & 63);
        };
        HashPair group[internal::kBatchGroup];
        std::size_t rest[internal::kBatchGroup];
        std::uint64_t rest_x[internal::kBatchGroup];
        std::uint64_t rest_y[internal::kBatchGroup];
        std::size_t hits = 0;
        for (std::size_t base = 0; base < n; base += internal::kBatchGroup) {
          const std::size_t len = std::min(internal::kBatchGroup, n - base);
          HashGroup(hasher, n, base, len, group);
          std::size_t num_rest = 0;
          for (std::size_t j = 0; j < len; ++j) {
            ProbeWalk walk(group[j]);
            std::uint64_t all = 1;
            for (std::uint32_t i = 0; i < kFirstPass; ++i) all &= bit(internal::NextProbe<kMulx>(walk, num_bits));
            out[base + j] = false;
            rest[num_rest] = j;
            rest_x[num_rest] = walk.x;
            rest_y[num_rest] = walk.y;
            num_rest += all & 1U;
          }
          for (std::size_t r = 0; r < num_rest; ++r) {
            ProbeWalk walk(HashPair{rest_x[r], rest_y[r]});
            std::uint64_t all = 1;
            for (std::uint32_t i = kFirstPass; i < num_probes; ++i)
              all &= bit(internal::NextProbe<kMulx>(walk, num_bits));
            out[base + rest[r]] = (all & 1U) != 0;
            hits += all & 1U;
          }
        }
        return hits;
      });
}

template <bool kMulx, typename Hasher>
[[gnu::always_inline]] inline std::size_t QueryBatched(std::size_t n, const Hasher& hasher, const std::uint64_t* words,
                                                       std::uint64_t num_bits, std::uint32_t num_hashes,
                                                       bool* out) noexcept {
  const bool cached = num_bits / 8 < internal::kInMemoryFilterBytes;
  if (!cached && num_hashes >= kMinRoundProbes) return QueryRounds<kMulx>(n, hasher, words, num_bits, num_hashes, out);
  if (cached && num_hashes > kFirstPass) return QueryCached<kMulx>(n, hasher, words, num_bits, num_hashes, out);
  std::size_t hits = 0;
  RunBatched(n, hasher, words, num_bits, num_hashes, false, [&](std::size_t i, HashPair h) {
    out[i] = ProbePrefetched(words, num_bits, num_hashes, h);
    hits += out[i] ? 1U : 0U;
  });
  return hits;
}

}  // namespace

namespace internal {
namespace {

// The batch adds and queries of each input kind, in both instruction sets.
void AddKeysPortable(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                     std::span<const std::string_view> keys) noexcept {
  AddBatched<false>(keys.size(), KeyHasher{keys}, words, num_bits, num_hashes);
}
void AddShortKeysPortable(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                          std::span<const std::string_view> keys) noexcept {
  AddBatched<false>(keys.size(), ShortKeyHasher{keys}, words, num_bits, num_hashes);
}
void AddHashesPortable(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                       std::span<const std::uint64_t> hashes) noexcept {
  AddBatched<false>(hashes.size(), HashExpander{hashes}, words, num_bits, num_hashes);
}
std::size_t ContainsKeysPortable(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                                 std::span<const std::string_view> keys, bool* out) noexcept {
  return QueryBatched<false>(keys.size(), KeyHasher{keys}, words, num_bits, num_hashes, out);
}
std::size_t ContainsShortKeysPortable(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                                      std::span<const std::string_view> keys, bool* out) noexcept {
  return QueryBatched<false>(keys.size(), ShortKeyHasher{keys}, words, num_bits, num_hashes, out);
}
std::size_t ContainsHashesPortable(const std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                                   std::span<const std::uint64_t> hashes, bool* out) noexcept {
  return QueryBatched<false>(hashes.size(), HashExpander{hashes}, words, num_bits, num_hashes, out);
}

#ifdef BLOOMKIT_X86

[[gnu::target("bmi,bmi2")]] void AddKeysBmi2(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                                             std::span<const std::string_view> keys) noexcept {
  AddBatched<true>(keys.size(), KeyHasher{keys}, words, num_bits, num_hashes);
}
[[gnu::target("bmi,bmi2")]] void AddShortKeysBmi2(std::uint64_t* words, std::uint64_t num_bits,
                                                  std::uint32_t num_hashes,
                                                  std::span<const std::string_view> keys) noexcept {
  AddBatched<true>(keys.size(), ShortKeyHasher{keys}, words, num_bits, num_hashes);
}
[[gnu::target("bmi,bmi2")]] void AddHashesBmi2(std::uint64_t* words, std::uint64_t num_bits, std::uint32_t num_hashes,
                                               std::span<const std::uint64_t> hashes) noexcept {
  AddBatched<true>(hashes.size(), HashExpander{hashes}, words, num_bits, num_hashes);
}
[[gnu::target("bmi,bmi2")]] std::size_t ContainsKeysBmi2(const std::uint64_t* words, std::uint64_t num_bits,
                                                         std::uint32_t num_hashes,
                                                         std::span<const std::string_view> keys, bool* out) noexcept {
  return QueryBatched<true>(keys.size(), KeyHasher{keys}, words, num_bits, num_hashes, out);
}
[[gnu::target("bmi,bmi2")]] std::size_t ContainsShortKeysBmi2(const std::uint64_t* words, std::uint64_t num_bits,
                                                              std::uint32_t num_hashes,
                                                              std::span<const std::string_view> keys,
                                                              bool* out) noexcept {
  return QueryBatched<true>(keys.size(), ShortKeyHasher{keys}, words, num_bits, num_hashes, out);
}
[[gnu::target("bmi,bmi2")]] std::size_t ContainsHashesBmi2(const std::uint64_t* words, std::uint64_t num_bits,
                                                           std::uint32_t num_hashes,
                                                           std::span<const std::uint64_t> hashes, bool* out) noexcept {
  return QueryBatched<true>(hashes.size(), HashExpander{hashes}, words, num_bits, num_hashes, out);
}

#endif

}  // namespace

namespace {

constexpr ClassicOps kPortableOps = {InsertPortable,
                                     SetPortable,
                                     ContainsPortable,
                                     InsertShortKeyPortable,
                                     SetShortKeyPortable,
                                     ContainsShortKeyPortable,
                                     AddKeysPortable,
                                     AddShortKeysPortable,
                                     AddHashesPortable,
                                     ContainsKeysPortable,
                                     ContainsShortKeysPortable,
                                     ContainsHashesPortable};
#ifdef BLOOMKIT_X86
constexpr ClassicOps kBmi2Ops = {
    InsertBmi2,  SetBmi2,          ContainsBmi2,  InsertShortKeyBmi2, SetShortKeyBmi2,       ContainsShortKeyBmi2,
    AddKeysBmi2, AddShortKeysBmi2, AddHashesBmi2, ContainsKeysBmi2,   ContainsShortKeysBmi2, ContainsHashesBmi2};
#else
constexpr ClassicOps kBmi2Ops = kPortableOps;  // no BMI2 copy off x86-64
#endif
// The one dispatch of the probes: every call of ClassicBits and BloomFilter runs `call`
// on the table of the CPU's copy, and the tests take either table by GetClassicOps.
// Both tables are constants, so each branch calls its kernel directly: a table chosen
// at run time made every call indirect, and single-key queries measured 5-12% slower.
template <typename Call>
[[gnu::always_inline]] inline auto WithOps(const Call& call) noexcept {
  return kUseBmi2 ? call(kBmi2Ops) : call(kPortableOps);
}

}  // namespace

bool CpuHasBmi2() noexcept {
#ifdef BLOOMKIT_X86
  __builtin_cpu_init();  // may run before the constructors, from kUseBmi2's initializer
  return __builtin_cpu_supports("bmi") != 0 && __builtin_cpu_supports("bmi2") != 0;
#else
  return false;
#endif
}

const ClassicOps& GetClassicOps(ClassicIsa isa) noexcept {
  return isa == ClassicIsa::kBmi2 && CpuHasBmi2() ? kBmi2Ops : kPortableOps;
}

static_assert(sizeof(ClassicBits) <= 40, "what a probe reads must stay in the first 40 bytes of a BloomFilter");

ClassicBits::ClassicBits(std::uint64_t num_bits, std::uint32_t num_hashes, std::uint16_t hash_id,
                         WordArray words) noexcept
    : num_bits_(num_bits), words_(std::move(words)), num_hashes_(num_hashes), hash_id_(hash_id) {
  // Only where the library itself takes its BMI2 kernels (kUseBmi2): the inline path
  // runs mulx.
  no_inline_ = hash_id == kHashIdShort64 && kUseBmi2 && num_hashes >= 1 ? 0 : 1;
}

namespace {

// The single-key probes through WithOps on a bit array's words and geometry, file-local
// so that BloomFilter's members below inline them: under -fPIC an exported member such
// as ClassicBits::ContainsKey stays out of line even in its own file, a jump more per key.
// A key of hash id 1 is hashed and then probed by the out-of-line member (Insert, Set,
// Contains), so that the path of hash id 4 needs no register saved across the hash.
bool InsertPair(ClassicBits& bits, HashPair hash) noexcept {
  return WithOps([&](const ClassicOps& ops) __attribute__((always_inline)) {
    return ops.insert(bits.mutable_words().data(), bits.num_bits(), bits.num_hashes(), hash);
  });
}
void SetPair(ClassicBits& bits, HashPair hash) noexcept {
  WithOps([&](const ClassicOps& ops) __attribute__((always_inline)) {
    return ops.set(bits.mutable_words().data(), bits.num_bits(), bits.num_hashes(), hash);
  });
}
bool ContainsPair(const ClassicBits& bits, HashPair hash) noexcept {
  return WithOps([&](const ClassicOps& ops) __attribute__((always_inline)) {
    return ops.contains(bits.words().data(), bits.num_bits(), bits.num_hashes(), hash);
  });
}
bool InsertKeyInto(ClassicBits& bits, std::string_view key) noexcept {
  if (bits.hash_id() != kHashIdShort64) return bits.Insert(HashKeyInline(key));
  return WithOps([&](const ClassicOps& ops) __attribute__((always_inline)) {
    return ops.insert_short_key(bits.mutable_words().data(), bits.num_bits(), bits.num_hashes(), key);
  });
}
void SetKeyInto(ClassicBits& bits, std::string_view key) noexcept {
  if (bits.hash_id() != kHashIdShort64) return bits.Set(HashKeyInline(key));
  WithOps([&](const ClassicOps& ops) __attribute__((always_inline)) {
    return ops.set_short_key(bits.mutable_words().data(), bits.num_bits(), bits.num_hashes(), key);
  });
}
bool ContainsKeyIn(const ClassicBits& bits, std::string_view key) noexcept {
  if (bits.hash_id() != kHashIdShort64) return bits.Contains(HashKeyInline(key));
  return WithOps([&](const ClassicOps& ops) __attribute__((always_inline)) {
    return ops.contains_short_key(bits.words().data(), bits.num_bits(), bits.num_hashes(), key);
  });
}

}  // namespace

bool ClassicBits::Insert(HashPair hash) noexcept {
  return InsertPair(*this, hash);
}
void ClassicBits::Set(HashPair hash) noexcept {
  SetPair(*this, hash);
}
bool ClassicBits::Contains(HashPair hash) const noexcept {
  return ContainsPair(*this, hash);
}
bool ClassicBits::InsertKey(std::string_view key) noexcept {
  return InsertKeyInto(*this, key);
}
void ClassicBits::SetKey(std::string_view key) noexcept {
  SetKeyInto(*this, key);
}
bool ClassicBits::ContainsKey(std::string_view key) const noexcept {
  return ContainsKeyIn(*this, key);
}

void ClassicBits::SetKeys(std::span<const std::string_view> keys) noexcept {
  WithOps([&](const ClassicOps& ops) {
    (hash_id_ == kHashIdShort64 ? ops.add_short_keys : ops.add_keys)(words_.data(), num_bits_, num_hashes_, keys);
  });
}
std::size_t ClassicBits::ContainsKeys(std::span<const std::string_view> keys, bool* out) const noexcept {
  return WithOps([&](const ClassicOps& ops) {
    return (hash_id_ == kHashIdShort64 ? ops.contains_short_keys : ops.contains_keys)(words_.data(), num_bits_,
                                                                                      num_hashes_, keys, out);
  });
}
void ClassicBits::SetHashes(std::span<const std::uint64_t> hashes) noexcept {
  WithOps([&](const ClassicOps& ops) { ops.add_hashes(words_.data(), num_bits_, num_hashes_, hashes); });
}
std::size_t ClassicBits::ContainsHashes(std::span<const std::uint64_t> hashes, bool* out) const noexcept {
  return WithOps(
      [&](const ClassicOps& ops) { return ops.contains_hashes(words_.data(), num_bits_, num_hashes_, hashes, out); });
}

}  // namespace internal

bool BloomFilter::UsesBmi2() noexcept {
  return kUseBmi2;
}

bool BloomFilter::InsertKey(std::string_view key) noexcept {
  const bool fresh = internal::InsertKeyInto(bits_, key);
  count_ = internal::SaturatedIncrement(count_, fresh);
  return fresh;
}

void BloomFilter::SetKey(std::string_view key) noexcept {
  internal::SetKeyInto(bits_, key);
  count_ = internal::SaturatedIncrement(count_, true);
}

void BloomFilter::SetHashPair(HashPair hash) noexcept {
  internal::SetPair(bits_, hash);
  count_ = internal::SaturatedIncrement(count_, true);
}

bool BloomFilter::MayContain(std::string_view key) const noexcept {
  return internal::ContainsKeyIn(bits_, key);
}

bool BloomFilter::AddHashPair(HashPair hash) noexcept {
  const bool fresh = internal::InsertPair(bits_, hash);
  count_ = internal::SaturatedIncrement(count_, fresh);
  return fresh;
}

bool BloomFilter::MayContainHashPair(HashPair hash) const noexcept {
  return internal::ContainsPair(bits_, hash);
}

Done BloomFilter::AddBatch(std::span<const std::string_view> keys) noexcept {
  count_ = internal::SaturatedCount(count_, keys.size());
  bits_.SetKeys(keys);
  return {};
}

std::size_t BloomFilter::MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept {
  return bits_.ContainsKeys(keys, out.data());
}

Done BloomFilter::AddHashBatch(std::span<const std::uint64_t> hashes) noexcept {
  count_ = internal::SaturatedCount(count_, hashes.size());
  bits_.SetHashes(hashes);
  return {};
}

std::size_t BloomFilter::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                             std::span<bool> out) const noexcept {
  return bits_.ContainsHashes(hashes, out.data());
}

void BloomFilter::Clear() noexcept {
  bits_.Clear();
  count_ = 0;
}

Status BloomFilter::Combine(const BloomFilter& other, std::string_view operation, internal::WordOp op) {
  if (hash_id() != other.hash_id()) {
    return internal::MakeError(ErrorCode::kIncompatible, "cannot ", operation, " filters of hash id ", hash_id(),
                               " and ", other.hash_id(), ": both need the same hash");
  }
  auto st = internal::CombineWords(operation, "filters", {num_bits(), num_hashes()},
                                   {other.num_bits(), other.num_hashes()}, bits_.mutable_words(), other.words(), op);
  if (st.ok()) count_ = std::min(EstimatedCount(), kMaxFileCount);  // a full filter's estimate is 2^64 - 1
  return st;
}

Status BloomFilter::Merge(const BloomFilter& other) {
  return Combine(other, "merge", internal::WordOp::kOr);
}

Status BloomFilter::MergeFrom(FilterReader& reader) {
  const FileHeader& h = reader.header();
  if (h.kind != kKind) {
    return internal::MakeError(ErrorCode::kWrongKind, "holds a ", FilterKindName(h.kind), " filter, not a ",
                               FilterKindName(kKind), " one");
  }
  if (h.hash_id != hash_id()) {
    return internal::MakeError(ErrorCode::kIncompatible, "cannot merge filters of hash id ", hash_id(), " and ",
                               h.hash_id, ": both need the same hash");
  }
  // The same shape as this filter's (so a valid one), then the rest a load checks.
  auto st = internal::CombineWords("merge", "filters", {num_bits(), num_hashes()},
                                   {h.params[0], static_cast<std::uint32_t>(std::min<std::uint64_t>(
                                                     h.params[1], std::numeric_limits<std::uint32_t>::max()))},
                                   {}, {}, internal::WordOp::kOr);
  if (!st.ok()) return st;
  if (h.capacity == 0) return internal::MakeError(ErrorCode::kParameterMismatch, "capacity is 0");
  for (std::size_t i = 2; i < kNumHeaderParams; ++i) {
    if (h.params[i] != 0) {
      return internal::MakeError(ErrorCode::kReservedNonZero, "unused parameter ", i, " is not zero");
    }
  }
  st = internal::OrWordsFrom(reader, bits_.mutable_words(), num_bits());
  count_ = std::min(EstimatedCount(), kMaxFileCount);  // also after an error: the bits OR-ed so far are in
  return st;
}

Status BloomFilter::Intersect(const BloomFilter& other) {
  return Combine(other, "intersect", internal::WordOp::kAnd);
}

std::uint64_t BloomFilter::CountSetBits() const noexcept {
  return bits_.CountSetBits();
}

double BloomFilter::FillRatio() const noexcept {
  return static_cast<double>(CountSetBits()) / static_cast<double>(num_bits());
}

std::uint64_t BloomFilter::EstimatedCount() const noexcept {
  return ClassicEstimatedCount(num_bits(), CountSetBits(), num_hashes());
}

double BloomFilter::EstimatedFpRate() const noexcept {
  return std::pow(FillRatio(), num_hashes());
}

double BloomFilter::ExpectedFpRate() const noexcept {
  return ClassicFpRate(static_cast<double>(num_bits()), static_cast<double>(capacity_), num_hashes());
}

bool operator==(const BloomFilter& a, const BloomFilter& b) noexcept {
  return a.capacity_ == b.capacity_ && a.count_ == b.count_ && a.fp_rate_ == b.fp_rate_ && a.bits_ == b.bits_;
}

// Payload: ceil(num_bits / 64) little-endian words; params[0] = num_bits,
// params[1] = num_hashes; the header's hash id is hash_id(). Bits at and past num_bits
// in the last word are zero.
std::vector<std::byte> BloomFilter::Serialize(const SaveOptions& options) const {
  return internal::CollectFile([this](ByteSink sink) { return SerializeTo(sink); }, options);
}

bool BloomFilter::SerializeTo(ByteSink sink) const noexcept {
  FileHeader header;
  header.kind = kKind;
  header.hash_id = hash_id();
  header.capacity = capacity_;
  header.count = count_;
  header.fp_rate = fp_rate_;
  header.payload_bytes = bits_.bytes();
  header.params[0] = num_bits();
  header.params[1] = num_hashes();
  internal::FileStream out(sink);
  return out.Begin(header) && out.PutWords(bits_.words()) && out.Finish();
}

Result<BloomFilter> BloomFilter::Deserialize(std::span<const std::byte> bytes, const LoadOptions& options) {
  auto reader = FilterReader::OpenBytes(bytes, kKind, options.max_memory_bytes);
  if (!reader.ok()) return std::move(reader).error();
  return reader->Load<BloomFilter>(options);
}

Result<BloomFilter> BloomFilter::Deserialize(const FileHeader& header, ByteSource payload,
                                             const LoadOptions& /*options*/) {
  auto bits = internal::ClassicBits::FromPayload(header, {}, &payload);
  if (!bits.ok()) return std::move(bits).error();
  return BloomFilter(std::move(bits).value(), header.count, header.capacity, header.fp_rate);
}

}  // namespace bloomkit
