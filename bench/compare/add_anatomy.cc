// SPDX-License-Identifier: Apache-2.0
// bloomkit_anatomy: what each part of a single-key add costs, for the blocked filter and
// the classic filter.
//
// BlockedBloomFilter (256-bit blocks, hash id 4) and BloomFilter (hash id 4) run the add
// of an 8-byte key in the caller's loop (include/bloomkit/blocked_bloom_filter.h,
// bloom_filter.h). This program times that loop, then copies of it with one part taken
// out at a time, on an array of the same shape:
//
//   library           filter.Add(key): the library's own inline path
//   copy              the same steps written out here; --check proves that it sets the
//                     library's bits and count
//   no count          without the count update (Add counts every add; it reads no old
//                     bits: docs/FILTERS.md, "What count() means")
//   one fold          the 8-byte hash with one multiply-fold instead of hash id 4's two
//                     (a different hash: docs/FORMAT.md says why id 4 has two)
//   one fold, no count
//   Boost's steps     one fold, no count, no key-length test, lane bits from one 64-bit
//                     product by shifts: the work of Boost.Bloom's fast_multiblock32<8>
//   boost-fmb32x8     Boost.Bloom itself, when built with it (bench/CMakeLists.txt)
//
// The classic filter (k = 7) gets the same rows up to "one fold, no count" (its lane
// mask has no counterpart), then Boost's filter<T, 7>.
//
// Each repetition runs every variant once, in turn, on a cleared array, so that the
// host's drift falls on all of them alike; the figures are medians over repetitions of
// the thread's CPU time (bench/cpu_timing.h: time spent descheduled does not count), in
// ns per key and as ratios to the library's and Boost's times in the same runs. The
// blocked filter's queries of absent keys are timed the same way (library, copy, one
// fold, Boost). Results: docs/BENCHMARKS.md.
//
//   bloomkit_anatomy [--n=1e6] [--reps=15] [--check]
//
// Built on x86-64 only, with -mavx2 -mbmi2 (bench/CMakeLists.txt), as a caller that
// gets the inline path is; on a CPU without them it says so and exits 0.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "bench_keys.h"
#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/detail/inline_probe.h"
#include "bloomkit/hash.h"
#include "cpu_timing.h"
#include "internal/blocked_kernels.h"  // kBlockSalts, the format's lane salts

#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
#include <boost/bloom/fast_multiblock32.hpp>
#include <boost/bloom/filter.hpp>
#endif

#if defined(__x86_64__) && defined(__AVX2__) && defined(__BMI2__)
#include <immintrin.h>

namespace {

using bloomkit::BlockedBloomFilter;
using bloomkit::BloomFilter;
using bloomkit::bench::KeySet;
using bloomkit::bench::KeyShape;
using bloomkit::bench::MakeKeys;

// The state a filter's add reads: kept in memory, reached through a reference, as the
// filter's members are, so that a copy reloads what the library's add reloads.
struct Array {
  alignas(32) std::uint32_t salts[8];
  alignas(32) std::uint32_t ones[8];
  std::uint64_t* words;
  std::uint64_t num_blocks;
  std::uint64_t count;
  std::size_t inline_key_bytes;
};

enum class Variant { kCopy, kNoCount, kOneFold, kOneFoldNoCount, kBoostSteps };

std::uint64_t LoadKey(const char* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

// Hash id 4 of an 8-byte key (docs/FORMAT.md), and the same with its first fold only.
std::uint64_t HashTwoFolds(const char* p) {
  return bloomkit::internal::HashShortKey8Mulx(p);
}
std::uint64_t HashOneFold(const char* p) {
  return bloomkit::internal::MulxFold(LoadKey(p) ^ (bloomkit::kHashSeed ^ (8 * bloomkit::kShortKeyLengthSalt)),
                                      bloomkit::kShortKeyMultiplier);
}

// Lane j gets bit (lo32(h) * salt[j]) >> 27: the format's rule.
__m256i MaskBySalts(std::uint64_t h, const Array& a) {
  const __m256i x = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h)));
  const __m256i salts = _mm256_load_si256(reinterpret_cast<const __m256i*>(a.salts));
  const __m256i bits = _mm256_srli_epi32(_mm256_mullo_epi32(x, salts), 27);
  return _mm256_sllv_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(a.ones)), bits);
}

// Boost's way: eight 5-bit fields of one 64-bit product, taken by shifts.
__m256i MaskByShifts(std::uint64_t h) {
  const __m256i x = _mm256_set1_epi64x(static_cast<long long>(h * 0xf1357aea2e62a9c5ULL));
  const __m256i bits = _mm256_srli_epi32(_mm256_sllv_epi64(x, _mm256_setr_epi64x(0, 5, 10, 15)), 27);
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), bits);
}

template <Variant kV>
[[gnu::noinline]] void AddAll(Array& a, const std::vector<std::string_view>& keys) {
  constexpr bool kOneFold = kV == Variant::kOneFold || kV == Variant::kOneFoldNoCount || kV == Variant::kBoostSteps;
  constexpr bool kCount = kV == Variant::kCopy || kV == Variant::kOneFold;
  for (std::string_view key : keys) {
    if constexpr (kV != Variant::kBoostSteps) {
      if (key.size() != a.inline_key_bytes) std::abort();  // every key here is 8 bytes
    }
    const std::uint64_t h = kOneFold ? HashOneFold(key.data()) : HashTwoFolds(key.data());
    auto* block = reinterpret_cast<__m256i*>(a.words + bloomkit::internal::FastRangeMulx(h, a.num_blocks) * 4);
    const __m256i mask = kV == Variant::kBoostSteps ? MaskByShifts(h) : MaskBySalts(h, a);
    if constexpr (kCount) ++a.count;
    _mm256_store_si256(block, _mm256_or_si256(_mm256_load_si256(block), mask));
  }
}

template <bool kOneFold>
[[gnu::noinline]] std::uint64_t QueryAll(const Array& a, const std::vector<std::string_view>& keys) {
  std::uint64_t hits = 0;
  for (std::string_view key : keys) {
    if (key.size() != a.inline_key_bytes) std::abort();
    const std::uint64_t h = kOneFold ? HashOneFold(key.data()) : HashTwoFolds(key.data());
    const auto* block =
        reinterpret_cast<const __m256i*>(a.words + bloomkit::internal::FastRangeMulx(h, a.num_blocks) * 4);
    hits += static_cast<std::uint64_t>(_mm256_testc_si256(_mm256_load_si256(block), MaskBySalts(h, a)));
  }
  return hits;
}

// The classic filter's words and probe count, as BloomFilter holds them.
struct ClassicArray {
  std::uint64_t* words;
  std::uint64_t num_bits;
  std::uint32_t num_hashes;
  std::uint64_t count;
};

// BloomFilter::SetShort8Inline written out, with the same parts to take out.
template <Variant kV>
[[gnu::noinline]] void ClassicAddAll(ClassicArray& a, const std::vector<std::string_view>& keys) {
  constexpr bool kOneFold = kV == Variant::kOneFold || kV == Variant::kOneFoldNoCount;
  constexpr bool kCount = kV == Variant::kCopy || kV == Variant::kOneFold;
  for (std::string_view key : keys) {
    if (key.size() != 8) std::abort();
    const std::uint64_t h1 = kOneFold ? HashOneFold(key.data()) : HashTwoFolds(key.data());
    bloomkit::ProbeWalk walk(
        bloomkit::HashPair{h1, bloomkit::internal::MulxFold(h1, bloomkit::kShortKeyPairMultiplier)});
    std::uint64_t* const words = a.words;
    const std::uint64_t num_bits = a.num_bits;
    if constexpr (kCount) ++a.count;
    std::uint32_t left = a.num_hashes;
    do {
      const std::uint64_t pos = bloomkit::internal::FastRangeMulx(walk.x, num_bits);
      walk.x += walk.y;
      walk.y += bloomkit::kProbeStep;
      words[pos >> 6] |= std::uint64_t{1} << (pos & 63);
    } while (--left != 0);
  }
}

[[gnu::noinline]] void LibraryClassicAddAll(BloomFilter& f, const std::vector<std::string_view>& keys) {
  for (std::string_view key : keys) static_cast<void>(f.Add(key));
}

[[gnu::noinline]] void LibraryAddAll(BlockedBloomFilter& f, const std::vector<std::string_view>& keys) {
  for (std::string_view key : keys) static_cast<void>(f.Add(key));
}
[[gnu::noinline]] std::uint64_t LibraryQueryAll(const BlockedBloomFilter& f,
                                                const std::vector<std::string_view>& keys) {
  std::uint64_t hits = 0;
  for (std::string_view key : keys) hits += f.MayContain(key) ? 1U : 0U;
  return hits;
}

#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
using BoostFilter = boost::bloom::filter<std::uint64_t, 1, boost::bloom::fast_multiblock32<8>>;
[[gnu::noinline]] void BoostAddAll(BoostFilter& f, const std::vector<std::string_view>& keys) {
  for (std::string_view key : keys) f.insert(LoadKey(key.data()));
}
using BoostClassic = boost::bloom::filter<std::uint64_t, 7, boost::bloom::block<unsigned char, 1>>;
[[gnu::noinline]] void BoostClassicAddAll(BoostClassic& f, const std::vector<std::string_view>& keys) {
  for (std::string_view key : keys) f.insert(LoadKey(key.data()));
}
[[gnu::noinline]] std::uint64_t BoostQueryAll(const BoostFilter& f, const std::vector<std::string_view>& keys) {
  std::uint64_t hits = 0;
  for (std::string_view key : keys) hits += f.may_contain(LoadKey(key.data())) ? 1U : 0U;
  return hits;
}
#endif

using bloomkit::bench::NsPerKey;  // thread CPU time: time spent descheduled does not count

// Reads every byte of an array once, so that a timed query starts with the array where a
// cleared one starts an add: in the caches as far as it fits. Without it the filter
// touched last would have an edge.
std::uint64_t Touch(std::span<const unsigned char> bytes) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    std::uint64_t v = 0;
    std::memcpy(&v, bytes.data() + i, std::min<std::size_t>(8, bytes.size() - i));
    sum += v;
  }
  return sum;
}
std::span<const unsigned char> Bytes(const void* p, std::size_t n) {
  return {static_cast<const unsigned char*>(p), n};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

struct Row {
  std::string name;
  std::vector<double> ns;
};

// Times the four copies, in Variant order, into rows[first..first + 3], each on an
// array `clear` empties first. add(std::integral_constant<Variant, V>) runs copy V.
template <typename Clear, typename Add>
void TimeCopies(std::vector<Row>& rows, std::size_t first, std::uint64_t n, Clear&& clear, Add&& add) {
  const auto time = [&]<Variant kV>(std::size_t row) {
    clear();
    rows[row].ns.push_back(NsPerKey(n, [&] { add(std::integral_constant<Variant, kV>{}); }));
  };
  time.template operator()<Variant::kCopy>(first);
  time.template operator()<Variant::kNoCount>(first + 1);
  time.template operator()<Variant::kOneFold>(first + 2);
  time.template operator()<Variant::kOneFoldNoCount>(first + 3);
}

// Medians, as ns per key and as ratios to the first row (the library) and, when Boost is
// built in, to the last (Boost).
void Print(const char* title, const std::vector<Row>& rows, bool last_is_boost) {
  std::printf("%s\n%-20s %7s %11s %9s %14s\n", title, "variant", "ns/key", "/ library", last_is_boost ? "/ Boost" : "",
              "range");
  const double library = Median(rows.front().ns);
  const double boost = Median(rows.back().ns);
  for (const Row& r : rows) {
    const auto [lo, hi] = std::minmax_element(r.ns.begin(), r.ns.end());
    const double m = Median(r.ns);
    std::printf("%-20s %7.2f %11.2f ", r.name.c_str(), m, m / library);
    if (last_is_boost) {
      std::printf("%9.2f ", m / boost);
    } else {
      std::printf("%9s ", "");
    }
    std::printf("%6.2f-%-6.2f\n", *lo, *hi);
  }
}

constexpr bool kBoost =
#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
    true;
#else
    false;
#endif

int RunBlocked(std::uint64_t n, int reps, bool check, const KeySet& present, const KeySet& absent) {
  auto created = BlockedBloomFilter::Create({.capacity = n,
                                             .fp_rate = 0.01,
                                             .blocked_layout = bloomkit::BlockedLayout::kLanes256,
                                             .hash_id = bloomkit::kHashIdShort64});
  if (!created.ok()) {
    std::fprintf(stderr, "bloomkit_anatomy: %s\n", std::string(created.error().message()).c_str());
    return 2;
  }
  BlockedBloomFilter filter = std::move(created).value();
  if (filter.num_hashes() != 8) {
    std::fprintf(stderr, "bloomkit_anatomy: expected k = 8 at 1%%, got %u\n", filter.num_hashes());
    return 2;
  }
  const std::uint64_t bytes = filter.num_blocks() * 32;
  auto* words = static_cast<std::uint64_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
  if (words == nullptr) return 2;
  Array a{};
  for (int j = 0; j < 8; ++j) {
    a.salts[j] = bloomkit::internal::kBlockSalts[j];
    a.ones[j] = 1;
  }
  a.words = words;
  a.num_blocks = filter.num_blocks();
  a.inline_key_bytes = 8;

  if (check) {
    // The copy must be the library's add: same words, same count.
    std::memset(words, 0, bytes);
    AddAll<Variant::kCopy>(a, present.keys);
    AddAll<Variant::kCopy>(a, present.keys);  // every key again: counted again, no bit moves
    LibraryAddAll(filter, present.keys);
    LibraryAddAll(filter, present.keys);
    const auto lib = filter.words();
    const bool same_bits = std::memcmp(lib.data(), words, bytes) == 0;
    const std::uint64_t lib_hits = LibraryQueryAll(filter, absent.keys);
    const std::uint64_t copy_hits = QueryAll<false>(a, absent.keys);
    std::printf("blocked check: bits %s, count library %llu copy %llu, absent hits library %llu copy %llu\n",
                same_bits ? "equal" : "DIFFER", static_cast<unsigned long long>(filter.count()),
                static_cast<unsigned long long>(a.count), static_cast<unsigned long long>(lib_hits),
                static_cast<unsigned long long>(copy_hits));
    const bool ok =
        same_bits && filter.count() == a.count && lib_hits == copy_hits && LibraryQueryAll(filter, present.keys) == n;
    std::free(words);
    return ok ? 0 : 1;
  }

  std::vector<Row> adds = {
      {"library", {}},      {"copy", {}}, {"no count", {}}, {"one fold", {}}, {"one fold, no count", {}},
      {"Boost's steps", {}}};
  std::vector<Row> queries = {{"library", {}}, {"copy", {}}, {"one fold", {}}};
#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
  BoostFilter boost(static_cast<std::size_t>(n), 0.01);
  adds.push_back({"boost-fmb32x8", {}});
  queries.push_back({"boost-fmb32x8", {}});
#endif
  std::uint64_t sink = 0;
  for (int r = 0; r < reps; ++r) {
    const auto& k = present.keys;
    filter.Clear();
    adds[0].ns.push_back(NsPerKey(n, [&] { LibraryAddAll(filter, k); }));
    auto clear = [&] {
      std::memset(words, 0, bytes);
      a.count = 0;
    };
    TimeCopies(adds, 1, n, clear, [&](auto v) { AddAll<decltype(v)::value>(a, k); });
    clear();
    adds[5].ns.push_back(NsPerKey(n, [&] { AddAll<Variant::kBoostSteps>(a, k); }));
    // Queries of absent keys over the library's filled filter (the copy reads it too).
    std::memcpy(words, filter.words().data(), bytes);
    sink += Touch(Bytes(filter.words().data(), bytes));
    queries[0].ns.push_back(NsPerKey(n, [&] { sink += LibraryQueryAll(filter, absent.keys); }));
    sink += Touch(Bytes(words, bytes));
    queries[1].ns.push_back(NsPerKey(n, [&] { sink += QueryAll<false>(a, absent.keys); }));
    sink += Touch(Bytes(words, bytes));
    queries[2].ns.push_back(NsPerKey(n, [&] { sink += QueryAll<true>(a, absent.keys); }));
#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
    boost.clear();
    adds[6].ns.push_back(NsPerKey(n, [&] { BoostAddAll(boost, k); }));
    sink += Touch(Bytes(boost.array().data(), boost.array().size()));
    queries[3].ns.push_back(NsPerKey(n, [&] { sink += BoostQueryAll(boost, absent.keys); }));
#endif
  }
  std::printf("blocked filter: n=%llu 8-byte keys, 1%% target, k=8, %llu-byte array, %d repetitions (medians)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(bytes), reps);
  Print("single-key add", adds, kBoost);
  Print("single-key query, absent keys", queries, kBoost);
  std::printf("(checksum %llu)\n\n", static_cast<unsigned long long>(sink));
  std::free(words);
  return 0;
}

int RunClassic(std::uint64_t n, int reps, bool check, const KeySet& present) {
  auto created = BloomFilter::Create({.capacity = n, .fp_rate = 0.01, .hash_id = bloomkit::kHashIdShort64});
  if (!created.ok()) {
    std::fprintf(stderr, "bloomkit_anatomy: %s\n", std::string(created.error().message()).c_str());
    return 2;
  }
  BloomFilter filter = std::move(created).value();
  if (!BloomFilter::UsesBmi2()) {
    std::printf("bloomkit_anatomy: the classic filter's inline add needs BMI2; skipped\n");
    return 0;
  }
  std::vector<std::uint64_t> words(filter.words().size());
  ClassicArray a{words.data(), filter.num_bits(), filter.num_hashes(), 0};
  const std::size_t bytes = words.size() * 8;
  auto clear = [&] {
    std::fill(words.begin(), words.end(), 0);
    a.count = 0;
  };

  if (check) {
    clear();
    ClassicAddAll<Variant::kCopy>(a, present.keys);
    ClassicAddAll<Variant::kCopy>(a, present.keys);
    LibraryClassicAddAll(filter, present.keys);
    LibraryClassicAddAll(filter, present.keys);
    const bool same_bits = std::memcmp(filter.words().data(), words.data(), bytes) == 0;
    std::printf("classic check: bits %s, count library %llu copy %llu\n", same_bits ? "equal" : "DIFFER",
                static_cast<unsigned long long>(filter.count()), static_cast<unsigned long long>(a.count));
    return same_bits && filter.count() == a.count ? 0 : 1;
  }

  std::vector<Row> adds = {
      {"library", {}}, {"copy", {}}, {"no count", {}}, {"one fold", {}}, {"one fold, no count", {}}};
#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
  BoostClassic boost(static_cast<std::size_t>(n), 0.01);
  adds.push_back({"boost-classic", {}});
#endif
  for (int r = 0; r < reps; ++r) {
    const auto& k = present.keys;
    filter.Clear();
    adds[0].ns.push_back(NsPerKey(n, [&] { LibraryClassicAddAll(filter, k); }));
    TimeCopies(adds, 1, n, clear, [&](auto v) { ClassicAddAll<decltype(v)::value>(a, k); });
#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
    boost.clear();
    adds[5].ns.push_back(NsPerKey(n, [&] { BoostClassicAddAll(boost, k); }));
#endif
  }
  std::printf("classic filter: n=%llu 8-byte keys, 1%% target, k=%u, %zu-byte array, %d repetitions (medians)\n",
              static_cast<unsigned long long>(n), filter.num_hashes(), bytes, reps);
  Print("single-key add", adds, kBoost);
  return 0;
}

int Run(std::uint64_t n, int reps, bool check) {
  const KeySet present = MakeKeys(KeyShape::k8, 0, n);
  const KeySet absent = MakeKeys(KeyShape::k8, n, n);
  const int blocked = RunBlocked(n, reps, check, present, absent);
  const int classic = RunClassic(n, reps, check, present);
  return blocked != 0 ? blocked : classic;
}

}  // namespace

int main(int argc, char** argv) {
  // First, before any code of this AVX2 program could run an AVX2 instruction.
  if (!BlockedBloomFilter::UsesAvx2()) {
    std::printf("bloomkit_anatomy: this CPU lacks AVX2 or BMI2; nothing to time\n");
    return 0;
  }
  std::uint64_t n = 1'000'000;
  int reps = 15;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--n=")) {
      n = static_cast<std::uint64_t>(std::strtod(argv[i] + 4, nullptr));
    } else if (arg.starts_with("--reps=")) {
      reps = std::atoi(argv[i] + 7);
    } else if (arg == "--check") {
      check = true;
    } else {
      std::fprintf(stderr, "usage: bloomkit_anatomy [--n=1e6] [--reps=15] [--check]\n");
      return 2;
    }
  }
  if (n < 1000 || n > 1'000'000'000 || reps < 1 || reps > 1000) {
    std::fprintf(stderr, "bloomkit_anatomy: --n must be in [1e3, 1e9] and --reps in [1, 1000]\n");
    return 2;
  }
  return Run(n, reps, check);
}

#else

int main() {
  std::printf("bloomkit_anatomy: built without AVX2 and BMI2 (x86-64 only); nothing to time here\n");
  return 0;
}

#endif
