// SPDX-License-Identifier: Apache-2.0
// Statistical checks of HashKey64 (XXH3-64, hash id 3) and HashKeyShort64 (hash id 4:
// one multiply for keys of up to 8 bytes) on adversarial key sets: sequential integers,
// long common prefixes, tiny alphabets, keys of every short length. A 256-bit blocked filter
// takes its block from the high bits of the hash and its lane bits from the low 32
// bits, so both ends must be uniform, and the filter's measured false-positive rate
// must be the formula's (Lanes256FpRate), which assumes a uniform hash.
//
// A classic filter of hash id 4 expands the 64-bit hash to a probe pair
// (ShortKeyPair); its measured rate on the same key sets must be the classic formula's.
//
// DefaultFiltersStayBelowTheFormulaAtEveryFill is one-sided: the filters a caller gets
// by default must not exceed the formula by more than 3 sigma at any fill tested.
//
// The same checks run on a deliberately weak hash (the key's first 8 bytes), which they
// must reject: that is how these tests are known to be able to fail.
//
// One multiply-fold (OneFold below, the cheaper hash id 4 could have been) fails twice:
// two-sided, it is too regular on sequential integers (TheChecksRejectOneMultiplyFold),
// and one-sided, on integers with a stride of 2^20 it answers absent keys up to 1.8x as
// often as the formula at some filter sizes (OneFoldExceedsTheFormulaOnStridedIntegers),
// which hash id 4 does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/hash.h"
#include "bloomkit/sizing.h"
#include "bloomkit/word_array.h"
#include "internal/blocked_lanes.h"

namespace bloomkit {
namespace {

struct Family {
  const char* name;
  std::function<std::string(std::uint64_t)> key;  // key i; distinct i give distinct keys
};

std::string Base(std::uint64_t i, const char* alphabet, std::size_t radix, std::size_t width) {
  std::string s(width, alphabet[0]);
  for (std::size_t p = width; p-- > 0 && i != 0; i /= radix) s[p] = alphabet[i % radix];
  return s;
}

std::vector<Family> Families() {
  return {
      {"IntegerKey(i)", [](std::uint64_t i) { return std::string(std::string_view(IntegerKey(i))); }},
      {"IntegerKey(i << 32)", [](std::uint64_t i) { return std::string(std::string_view(IntegerKey(i << 32))); }},
      {"4-byte little-endian i",
       [](std::uint64_t i) {
         std::string s(4, '\0');
         for (int b = 0; b < 4; ++b) s[static_cast<std::size_t>(b)] = static_cast<char>((i >> (8 * b)) & 0xff);
         return s;
       }},
      {"decimal i", [](std::uint64_t i) { return std::to_string(i); }},
      {"u:<i>", [](std::uint64_t i) { return "u:" + std::to_string(i); }},
      {"long common prefix",
       [](std::uint64_t i) { return "https://example.com/api/v1/users/profile/" + std::to_string(i); }},
      {"alphabet {a, b}, 20 letters", [](std::uint64_t i) { return Base(i, "ab", 2, 20); }},
      {"alphabet {0..3}, 12 letters", [](std::uint64_t i) { return Base(i, "0123", 4, 12); }},
      // Keys of at most 8 bytes, which HashKeyShort64 hashes with one multiply.
      {"IntegerKey(i << 40)", [](std::uint64_t i) { return std::string(std::string_view(IntegerKey(i << 40))); }},
      {"IntegerKey(i * 2^20 + 1)",
       [](std::uint64_t i) { return std::string(std::string_view(IntegerKey((i << 20) + 1))); }},
      {"3-byte little-endian i",
       [](std::uint64_t i) {
         std::string s(3, '\0');
         for (int b = 0; b < 3; ++b) s[static_cast<std::size_t>(b)] = static_cast<char>((i >> (8 * b)) & 0xff);
         return s;
       }},
      {"alphabet {a..h}, 7 letters", [](std::uint64_t i) { return Base(i, "abcdefgh", 8, 7); }},
      {"alphabet {0, 1}, 1..8 letters, then i in decimal",
       [](std::uint64_t i) { return Base(i % 256, "01", 2, 1 + i % 8) + std::to_string(i); }},
      {"i / 6 as 3..8 little-endian bytes: one value at six lengths",
       [](std::uint64_t i) { return std::string(std::string_view(IntegerKey(i / 6))).substr(0, 3 + i % 6); }},
      {"1..64 x's, then 16 letters of {x, y}",
       [](std::uint64_t i) {
         return std::string(static_cast<std::size_t>(i % 64) + 1, 'x') + Base(i / 64, "xy", 2, 16);
       }},
  };
}

// Chi-square of `values` over 1024 buckets, and whether it is below the 1023-dof
// mean + 6 sd (1023 + 6 * 45.2): a uniform source exceeds it with probability < 1e-7.
bool Uniform1024(const std::vector<std::uint64_t>& buckets_of, double* chi2) {
  std::vector<double> count(1024, 0);
  for (std::uint64_t b : buckets_of) count[b] += 1;
  const double expected = static_cast<double>(buckets_of.size()) / 1024.0;
  *chi2 = 0;
  for (double c : count) *chi2 += (c - expected) * (c - expected) / expected;
  return *chi2 < 1023 + 6 * 45.2;
}

struct Verdict {
  bool high_uniform = false;
  bool low_uniform = false;
  bool rate_at_theory = false;
  std::string detail;
  [[nodiscard]] bool passed() const { return high_uniform && low_uniform && rate_at_theory; }
};

// n keys 0..n-1 of `family` go, through `hash`, into the words of a 256-bit blocked
// filter with k = 8 sized for n at 1% (the layout's own kernels take the hash as is);
// q keys n..n+q-1 are queried. The false positives must be within 5 sd of
// Lanes256FpRate's expectation (~2600 of 2^18). Block and lane bits must also be
// uniform on their own: the top 10 bits of the hashes of the n keys, and bits 17..26.
Verdict Check(const Family& family, const std::function<std::uint64_t(std::string_view)>& hash) {
  constexpr std::uint64_t kN = 1 << 16;
  constexpr std::uint64_t kQ = 1 << 18;
  auto params = CalculateBlockedParameters(kN, 0.01, BlockedLayout::kLanes256);
  EXPECT_TRUE(params.ok());
  const std::uint64_t blocks = params->num_bits / 256;
  const auto& ops = internal::BestLanesOps(8);
  WordArray words = WordArray::Allocate(blocks * 4);
  EXPECT_TRUE(words.ok());
  std::vector<std::uint64_t> high;
  std::vector<std::uint64_t> low;
  for (std::uint64_t i = 0; i < kN; ++i) {
    const std::uint64_t h = hash(family.key(i));
    high.push_back(h >> 54);
    low.push_back((h >> 17) & 1023);
    static_cast<void>(ops.insert_hash(words.data(), blocks, h));
  }
  std::uint64_t false_positives = 0;
  for (std::uint64_t i = kN; i < kN + kQ; ++i) {
    false_positives += ops.contains_hash(words.data(), blocks, hash(family.key(i))) ? 1U : 0U;
  }
  const double expected = Lanes256FpRate(blocks, static_cast<double>(kN), 8) * static_cast<double>(kQ);
  Verdict v;
  double chi_high = 0;
  double chi_low = 0;
  v.high_uniform = Uniform1024(high, &chi_high);
  v.low_uniform = Uniform1024(low, &chi_low);
  v.rate_at_theory = std::abs(static_cast<double>(false_positives) - expected) < 5 * std::sqrt(expected);
  v.detail = std::string(family.name) + ": chi2 of the top bits " + std::to_string(chi_high) + ", of bits 17..26 " +
             std::to_string(chi_low) + " (limit 1294); false positives " + std::to_string(false_positives) +
             ", expected " + std::to_string(expected);
  return v;
}

TEST(HashQualityTest, HashKey64IsUniformOnAdversarialKeys) {
  for (const Family& family : Families()) {
    const Verdict v = Check(family, [](std::string_view key) { return HashKey64(key); });
    EXPECT_TRUE(v.passed()) << v.detail;
  }
}

TEST(HashQualityTest, HashKeyShort64IsUniformOnAdversarialKeys) {
  for (const Family& family : Families()) {
    const Verdict v = Check(family, [](std::string_view key) { return HashKeyShort64(key); });
    EXPECT_TRUE(v.passed()) << v.detail;
  }
}

// n keys 0..n-1 of `family` go, through `pair`, into a classic filter with k = 7 sized
// for n at 1%; q keys n..n+q-1 are queried. The false positives must be within 5 sd
// of ExpectedFpRate's expectation (~2600 of 2^18).
struct ClassicVerdict {
  bool rate_at_theory = false;
  std::string detail;
};

ClassicVerdict CheckClassic(const Family& family, const std::function<HashPair(std::string_view)>& pair) {
  constexpr std::uint64_t kN = 1 << 16;
  constexpr std::uint64_t kQ = 1 << 18;
  auto f = BloomFilter::Create({.capacity = kN, .fp_rate = 0.01});
  EXPECT_TRUE(f.ok());
  for (std::uint64_t i = 0; i < kN; ++i) static_cast<void>(f->AddHashPair(pair(family.key(i))));
  std::uint64_t false_positives = 0;
  for (std::uint64_t i = kN; i < kN + kQ; ++i) false_positives += f->MayContainHashPair(pair(family.key(i))) ? 1U : 0U;
  const double expected = f->ExpectedFpRate() * static_cast<double>(kQ);
  ClassicVerdict v;
  v.rate_at_theory = std::abs(static_cast<double>(false_positives) - expected) < 5 * std::sqrt(expected);
  v.detail = std::string(family.name) + ": false positives " + std::to_string(false_positives) + ", expected " +
             std::to_string(expected);
  return v;
}

TEST(HashQualityTest, ClassicShortKeyPairAtTheoryOnAdversarialKeys) {
  for (const Family& family : Families()) {
    const ClassicVerdict v = CheckClassic(family, [](std::string_view key) { return HashKeyShortPair(key); });
    EXPECT_TRUE(v.rate_at_theory) << v.detail;
  }
}

// End to end through Add and MayContain of a classic filter of hash id 4, whose key
// path must be HashKeyShortPair's.
TEST(HashQualityTest, ClassicFilterOfHashId4AtTheoryOnSequentialIntegers) {
  constexpr std::uint64_t kN = 1 << 16;
  constexpr std::uint64_t kQ = 1 << 18;
  auto f = BloomFilter::Create({.capacity = kN, .fp_rate = 0.01, .hash_id = kHashIdShort64});
  ASSERT_TRUE(f.ok());
  for (std::uint64_t i = 0; i < kN; ++i) ASSERT_TRUE(f->Add(IntegerKey(i)).ok());
  std::uint64_t false_positives = 0;
  for (std::uint64_t i = kN; i < kN + kQ; ++i) false_positives += f->MayContain(IntegerKey(i)) ? 1U : 0U;
  const double expected = f->ExpectedFpRate() * static_cast<double>(kQ);
  EXPECT_NEAR(static_cast<double>(false_positives), expected, 5 * std::sqrt(expected));
}

// The key's first 8 bytes as a little-endian number: what a filter hashing nothing
// would see. Every family must expose it.
TEST(HashQualityTest, TheChecksRejectAWeakHash) {
  const auto weak = [](std::string_view key) {
    std::uint64_t v = 0;
    std::memcpy(&v, key.data(), std::min<std::size_t>(8, key.size()));
    return v;
  };
  for (const Family& family : Families()) {
    const Verdict v = Check(family, weak);
    EXPECT_FALSE(v.passed()) << v.detail;
    // The classic check, with the weak hash expanded as hash id 4 expands its hash.
    const ClassicVerdict c = CheckClassic(family, [&](std::string_view key) { return ShortKeyPair(weak(key)); });
    EXPECT_FALSE(c.rate_at_theory) << c.detail;
  }
}

// Hash id 4 with its first multiply-fold only, for keys of up to 8 bytes (longer keys
// take XXH3-64 as in id 4): the cheaper hash id 4 could have been, and the one Boost.Bloom
// mixes 8-byte integers with. docs/FORMAT.md says why id 4 has two folds; this test and
// OneFoldExceedsTheFormulaOnStridedIntegers are the measurements behind it, kept so that
// they stay true (bench/compare/add_anatomy.cc times what the second fold costs).
std::uint64_t OneFold(std::string_view key) {
  if (key.size() > 8) return HashKey64(key);
  std::uint64_t v = 0;
  for (std::size_t b = 0; b < key.size(); ++b) v |= std::uint64_t{static_cast<unsigned char>(key[b])} << (8 * b);
  return Mulx64(v ^ kHashSeed ^ (key.size() * kShortKeyLengthSalt), kShortKeyMultiplier);
}

// Two-sided: one fold is rejected on 8 of the 15 families, nearly all of them by
// answering absent keys LESS often than the formula (sequential integers: ~29% fewer),
// which is structure rather than harm. Its one-sided failure is the next test's.
TEST(HashQualityTest, TheChecksRejectOneMultiplyFold) {
  // OneFold is id 4 without its second fold: pinned on keys of every short length.
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const std::string key = std::string(std::string_view(IntegerKey(i * 0x9e3779b97f4a7c15ULL))).substr(0, i % 9);
    ASSERT_EQ(Mulx64(OneFold(key), kShortKeyLengthSalt), HashKeyShort64(key)) << key.size();
  }
  std::vector<std::string> rejected;
  for (const Family& family : Families()) {
    const Verdict v = Check(family, OneFold);
    if (!v.passed()) rejected.push_back(v.detail);
  }
  // Sequential integers, the most common keys of all, are among those it fails.
  ASSERT_FALSE(rejected.empty());
  EXPECT_NE(rejected.front().find("IntegerKey(i)"), std::string::npos) << rejected.front();
  for (const std::string& detail : rejected) std::printf("one fold rejected: %s\n", detail.c_str());
}

// One-sided, beyond the 2^14 keys of DefaultFiltersStayBelowTheFormulaAtEveryFill (at
// which one fold stays within formula + 3 sd on all 15 families, measured z at most
// +2.65, as hash id 4's): keys IntegerKey(i * 2^20 + 1) (ids with their low 20 bits
// fixed, as in sharded or timestamped ids) in a 256-bit blocked filter with k = 8 sized for n at 1%, and 2^17
// absent keys of the same family, at 50%, 75%, 100% and 125% of n. With one fold the
// false positives exceed the formula by more than 10 standard deviations at some fill
// for both n below (measured: n = 420,000, 125%: 4,783 against 3,510, z = +21.8;
// n = 660,000, 100%: 2,310 against 1,311, z = +27.7, a rate of 1.76% for 1%). The
// default filter (hash id 4, through Add and MayContain) stays within formula + 3 sd at
// every fill of the same sizes (measured z at most +0.5). Swept over n from 10^4 to 10^6
// the same way, one fold on the four IntegerKey families exceeded formula + 3 sd at 15
// of 22 sizes from 140,000 on (always on this family) and at none below 80,000, hence
// these sizes; hash id 4 reached at most +3.5 on any of the 15 families at any size, as
// ~60 comparisons per size give by chance. bloomkit_strided_fpr prints these counts, and
// Boost.Bloom's beside them.
TEST(HashQualityTest, OneFoldExceedsTheFormulaOnStridedIntegers) {
  constexpr std::uint64_t kQ = 1 << 17;
  const auto key = [](std::uint64_t i) { return std::string(std::string_view(IntegerKey((i << 20) + 1))); };
  for (const std::uint64_t n : {std::uint64_t{420'000}, std::uint64_t{660'000}}) {
    auto def = BlockedBloomFilter::Create({.capacity = n, .fp_rate = 0.01});
    ASSERT_TRUE(def.ok());
    ASSERT_EQ(def->layout(), BlockedLayout::kLanes256);
    ASSERT_EQ(def->num_hashes(), 8U);
    const std::uint64_t blocks = def->num_blocks();
    const auto& ops = internal::BestLanesOps(8);
    WordArray one_fold = WordArray::Allocate(blocks * 4);
    ASSERT_TRUE(one_fold.ok());
    std::vector<std::string> absent;
    for (std::uint64_t i = 0; i < kQ; ++i) absent.push_back(key(2 * n + i));
    std::uint64_t added = 0;
    double worst_one_fold = -1e9;
    for (const std::uint64_t fill : {n / 2, 3 * n / 4, n, 5 * n / 4}) {
      for (; added < fill; ++added) {
        const std::string k = key(added);
        ASSERT_TRUE(def->Add(k).ok());
        ops.set_hash(one_fold.data(), blocks, OneFold(k));
      }
      const double p = Lanes256FpRate(blocks, static_cast<double>(fill), 8);
      const double expected = p * static_cast<double>(kQ);
      const double sd = std::sqrt(expected * (1 - p));
      std::uint64_t fp_default = 0;
      std::uint64_t fp_one_fold = 0;
      for (const std::string& k : absent) {
        fp_default += def->MayContain(k) ? 1U : 0U;
        fp_one_fold += ops.contains_hash(one_fold.data(), blocks, OneFold(k)) ? 1U : 0U;
      }
      EXPECT_LE(static_cast<double>(fp_default), expected + 3 * sd)
          << "hash id 4, n " << n << ", " << fill << " keys: " << fp_default << " false positives, formula "
          << expected;
      const double z = (static_cast<double>(fp_one_fold) - expected) / sd;
      worst_one_fold = std::max(worst_one_fold, z);
      std::printf("n %llu, %llu keys: formula %.0f, hash id 4 %llu, one fold %llu (z %+.1f)\n",
                  static_cast<unsigned long long>(n), static_cast<unsigned long long>(fill), expected,
                  static_cast<unsigned long long>(fp_default), static_cast<unsigned long long>(fp_one_fold), z);
    }
    EXPECT_GT(worst_one_fold, 10.0) << "n " << n;
  }
}

// The filter's own key path is the kernels' path with HashKey64 (blocked_lanes_test
// pins the bits); end to end, sequential integers through Add and MayContain.
TEST(HashQualityTest, FilterRateAtTheoryOnSequentialIntegers) {
  constexpr std::uint64_t kN = 1 << 16;
  constexpr std::uint64_t kQ = 1 << 18;
  auto f = BlockedBloomFilter::Create({.capacity = kN, .fp_rate = 0.01, .blocked_layout = BlockedLayout::kLanes256});
  ASSERT_TRUE(f.ok());
  for (std::uint64_t i = 0; i < kN; ++i) ASSERT_TRUE(f->Add(IntegerKey(i)).ok());
  std::uint64_t false_positives = 0;
  for (std::uint64_t i = kN; i < kN + kQ; ++i) false_positives += f->MayContain(IntegerKey(i)) ? 1U : 0U;
  const double expected = f->ExpectedFpRate() * static_cast<double>(kQ);
  EXPECT_NEAR(static_cast<double>(false_positives), expected, 5 * std::sqrt(expected));
}

// One-sided, at every fill: a filter created with only capacity and fp_rate (the
// defaults: classic with XXH3-128, blocked with 256-bit blocks and hash id 4 at 1%,
// 512-bit blocks and XXH3-128 at 0.01%) must not answer absent keys of any family more
// often than its formula says, plus 3 standard deviations, at 50%, 75%, 100% and 125%
// of capacity. Fewer false positives than the formula are no defect. Levels where the
// formula expects fewer than 5 false positives among the queries are skipped (the
// normal bound means nothing there); at least two levels per filter and family run.
TEST(HashQualityTest, DefaultFiltersStayBelowTheFormulaAtEveryFill) {
  constexpr std::uint64_t kN = 1 << 14;
  constexpr std::uint64_t kQ = 1 << 17;
  struct Subject {
    const char* name;
    std::function<double(std::uint64_t)> formula;  // expected rate with n keys
    std::function<void(const std::string&)> add;
    std::function<bool(const std::string&)> query;
  };
  for (const Family& family : Families()) {
    auto classic = BloomFilter::Create({.capacity = kN, .fp_rate = 0.01});
    auto blocked = BlockedBloomFilter::Create({.capacity = kN, .fp_rate = 0.01});
    auto deep = BlockedBloomFilter::Create({.capacity = kN, .fp_rate = 1e-4});
    ASSERT_TRUE(classic.ok() && blocked.ok() && deep.ok());
    ASSERT_EQ(blocked->layout(), BlockedLayout::kLanes256);
    ASSERT_EQ(deep->layout(), BlockedLayout::kLines512);
    const Subject subjects[] = {
        {"classic 1%",
         [&](std::uint64_t n) {
           return ClassicFpRate(static_cast<double>(classic->num_bits()), static_cast<double>(n),
                                classic->num_hashes());
         },
         [&](const std::string& k) { ASSERT_TRUE(classic->Add(k).ok()); },
         [&](const std::string& k) { return classic->MayContain(k); }},
        {"blocked 1% (256-bit)",
         [&](std::uint64_t n) {
           return Lanes256FpRate(blocked->num_blocks(), static_cast<double>(n), blocked->num_hashes());
         },
         [&](const std::string& k) { ASSERT_TRUE(blocked->Add(k).ok()); },
         [&](const std::string& k) { return blocked->MayContain(k); }},
        {"blocked 0.01% (512-bit)",
         [&](std::uint64_t n) { return BlockedFpRate(deep->num_blocks(), static_cast<double>(n), deep->num_hashes()); },
         [&](const std::string& k) { ASSERT_TRUE(deep->Add(k).ok()); },
         [&](const std::string& k) { return deep->MayContain(k); }},
    };
    std::vector<std::string> absent;
    for (std::uint64_t i = 0; i < kQ; ++i) absent.push_back(family.key(2 * kN + i));
    for (const Subject& subject : subjects) {
      std::uint64_t added = 0;
      int levels = 0;
      for (const std::uint64_t fill : {kN / 2, 3 * kN / 4, kN, 5 * kN / 4}) {
        for (; added < fill; ++added) subject.add(family.key(added));
        const double p = subject.formula(fill);
        const double expected = p * static_cast<double>(kQ);
        if (expected < 5) continue;
        ++levels;
        std::uint64_t false_positives = 0;
        for (const std::string& k : absent) false_positives += subject.query(k) ? 1U : 0U;
        const double bound = expected + 3 * std::sqrt(expected * (1 - p));
        EXPECT_LE(static_cast<double>(false_positives), bound)
            << family.name << ", " << subject.name << ", " << fill << " keys: " << false_positives
            << " false positives of " << kQ << ", formula " << expected;
      }
      EXPECT_GE(levels, 2) << family.name << ", " << subject.name;
    }
  }
}

}  // namespace
}  // namespace bloomkit
