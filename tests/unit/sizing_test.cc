// SPDX-License-Identifier: Apache-2.0
// bloomkit/sizing.h: the sizing formulas, against a table of known sizes, their own
// inverses, and (for the blocked filter) a measurement on a real filter.
#include "bloomkit/sizing.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "bloomkit/blocked_bloom_filter.h"
#include "contract/test_support.h"

namespace bloomkit {
namespace {

using bloomkit_test::Key;

constexpr double kLn2 = 0.69314718055994530942;

// Classic filter sizes by RedisBloom's and Guava's formula:
// m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2); m may be rounded up to a word.
TEST(ClassicSizingTest, ReproducesTheTable) {
  struct Row {
    std::uint64_t capacity;
    double fp_rate;
    std::uint64_t num_bits;
    std::uint32_t num_hashes;
  };
  const Row rows[] = {
      {10'000'000, 0.01, 95'850'584, 7},
      {10'000'000, 0.001, 143'775'876, 10},
      {100'000'000, 0.0001, 1'917'011'676, 13},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(testing::Message() << "n=" << row.capacity << " p=" << row.fp_rate);
    auto params = CalculateParameters(row.capacity, row.fp_rate);
    ASSERT_TRUE(params.ok()) << params.error().message();
    EXPECT_GE(params->num_bits, row.num_bits);
    EXPECT_LT(params->num_bits, row.num_bits + 64) << "rounded up by more than a word";
    EXPECT_EQ(params->num_hashes, row.num_hashes);
    EXPECT_EQ(params->kind, FilterKind::kClassic);
    EXPECT_EQ(params->capacity, row.capacity);
    EXPECT_EQ(params->bytes, (row.num_bits + 63) / 64 * 8);
    EXPECT_NEAR(params->bits_per_key, static_cast<double>(row.num_bits) / static_cast<double>(row.capacity), 1e-6);
    // (1 - e^{-kn/m})^k, computed here from the definition.
    const double k = row.num_hashes;
    const double want =
        std::pow(1.0 - std::exp(-k * static_cast<double>(row.capacity) / static_cast<double>(params->num_bits)), k);
    EXPECT_NEAR(params->expected_fp_rate, want, want * 1e-9);
    // Rounding k to an integer costs a little: within 1% of the target.
    EXPECT_NEAR(params->expected_fp_rate, row.fp_rate, row.fp_rate * 0.01);
  }
  // 1e8 keys at 0.01%: 228.5 MiB.
  auto big = CalculateParameters(100'000'000, 0.0001);
  ASSERT_TRUE(big.ok());
  EXPECT_NEAR(static_cast<double>(big->bytes) / (1 << 20), 228.5, 0.05);
}

TEST(ClassicSizingTest, FormulasMatchTheirDefinitions) {
  // n = m/10, k = 7: (1 - e^{-0.7})^7.
  EXPECT_NEAR(ClassicFpRate(1000, 100, 7), std::pow(1 - std::exp(-0.7), 7), 1e-15);
  EXPECT_DOUBLE_EQ(ClassicFpRate(1000, 0, 7), 0.0);
  EXPECT_NEAR(ClassicFpRate(1e6, 1e6, 1), 1 - std::exp(-1.0), 1e-12);
  EXPECT_EQ(ClassicFpRate(0, 10, 3), 1.0) << "no bits: everything is a false positive";
  // k = max(1, round(m/n ln 2)), capped at kMaxNumHashes.
  EXPECT_EQ(OptimalNumHashes(95'850'584, 1e7), 7U);
  EXPECT_EQ(OptimalNumHashes(1000, 1000), 1U);  // 0.69 rounds to 1
  EXPECT_EQ(OptimalNumHashes(1000, 1e9), 1U);   // 0 would mean no probes
  EXPECT_EQ(OptimalNumHashes(1e9, 1), kMaxNumHashes);
  EXPECT_EQ(OptimalNumHashes(10, 0), 1U);
  for (double bpk = 1; bpk < 40; bpk += 0.37) {
    EXPECT_EQ(OptimalNumHashes(bpk * 1000, 1000), static_cast<std::uint32_t>(std::max(1.0, std::round(bpk * kLn2))));
  }
}

TEST(ClassicSizingTest, CapacityAtIsTheInverseOfTheRate) {
  for (const std::uint32_t k : {1U, 3U, 7U, 13U}) {
    for (const double p : {0.1, 0.01, 0.0001}) {
      const double m = 1e7;
      const double n = ClassicCapacityAt(m, k, p);
      ASSERT_GT(n, 0) << "k=" << k << " p=" << p;
      EXPECT_NEAR(ClassicFpRate(m, n, k), p, p * 1e-9) << "k=" << k << " p=" << p;
    }
  }
}

TEST(FpRateForBitsTest, InvertsCalculateParameters) {
  for (const FilterKind kind : {FilterKind::kClassic, FilterKind::kBlocked}) {
    for (const std::uint64_t n : {1000ULL, 1'000'000ULL, 10'000'000ULL}) {
      for (const double p : {0.01, 0.001, 0.0001}) {
        SCOPED_TRACE(testing::Message() << FilterKindName(kind) << " n=" << n << " p=" << p);
        auto forward = CalculateParameters(n, p, kind);
        ASSERT_TRUE(forward.ok()) << forward.error().message();
        auto back = CalculateFpRateForBits(n, forward->num_bits, kind);
        ASSERT_TRUE(back.ok()) << back.error().message();
        EXPECT_EQ(back->num_bits, forward->num_bits);
        EXPECT_EQ(back->bytes, forward->bytes);
        EXPECT_EQ(back->capacity, n);
        if (kind == FilterKind::kClassic) {
          EXPECT_EQ(back->num_hashes, forward->num_hashes);
          EXPECT_DOUBLE_EQ(back->expected_fp_rate, forward->expected_fp_rate);
        } else {
          // The inverse picks the best k for the size, which can only do better.
          EXPECT_LE(back->expected_fp_rate, forward->expected_fp_rate * (1 + 1e-12));
          EXPECT_LE(back->expected_fp_rate, p);
        }
        EXPECT_DOUBLE_EQ(back->fp_rate, back->expected_fp_rate);
        // More bits never raise the rate; fewer never lower it.
        auto more = CalculateFpRateForBits(n, forward->num_bits * 2, kind);
        auto fewer = CalculateFpRateForBits(n, forward->num_bits / 2, kind);
        ASSERT_TRUE(more.ok() && fewer.ok());
        EXPECT_LT(more->expected_fp_rate, back->expected_fp_rate);
        EXPECT_GT(fewer->expected_fp_rate, back->expected_fp_rate);
      }
    }
  }
  auto zero_bits = CalculateFpRateForBits(100, 0);
  ASSERT_FALSE(zero_bits.ok());
  EXPECT_EQ(zero_bits.error().code(), ErrorCode::kInvalidArgument);
  auto zero_keys = CalculateFpRateForBits(0, 100);
  ASSERT_FALSE(zero_keys.ok());
  EXPECT_EQ(zero_keys.error().code(), ErrorCode::kInvalidArgument);
}

// The blocked filter is sized with the Poisson-mixture rate so that it meets p; it
// needs more bits than the classic filter, and no smaller number of blocks would do
// for any k.
TEST(BlockedSizingTest, MeetsTheTargetWithTheFewestBlocks) {
  for (const std::uint64_t n : {10'000ULL, 1'000'000ULL, 10'000'000ULL}) {
    for (const double p : {0.01, 0.001, 0.0001}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " p=" << p);
      auto blocked = CalculateParameters(n, p, FilterKind::kBlocked);
      auto classic = CalculateParameters(n, p, FilterKind::kClassic);
      ASSERT_TRUE(blocked.ok()) << blocked.error().message();
      ASSERT_TRUE(classic.ok());
      EXPECT_EQ(blocked->num_bits % 512, 0U);
      EXPECT_EQ(blocked->bytes, blocked->num_bits / 8);
      const std::uint64_t blocks = blocked->num_bits / 512;
      ASSERT_GE(blocked->num_hashes, 1U);
      ASSERT_LE(blocked->num_hashes, kMaxBlockedNumHashes);
      const double rate = BlockedFpRate(blocks, static_cast<double>(n), blocked->num_hashes);
      EXPECT_LE(rate, p);
      EXPECT_DOUBLE_EQ(blocked->expected_fp_rate, rate);
      EXPECT_GT(blocked->num_bits, classic->num_bits);
      for (std::uint32_t k = 1; k <= kMaxBlockedNumHashes; ++k) {
        EXPECT_GT(BlockedFpRate(blocks - 1, static_cast<double>(n), k), p)
            << "k=" << k << " meets p with one block less";
      }
    }
  }
}

// The bits per key the blocked filter needs, as sizing.h documents them (n = 10^7).
// The classic filter needs 9.59, 14.38 and 19.17.
TEST(BlockedSizingTest, BitsPerKeyAreTheDocumentedOnes) {
  const std::pair<double, double> table[] = {{0.01, 10.10}, {0.001, 15.72}, {0.0001, 22.88}};
  for (const auto& [p, bits_per_key] : table) {
    auto params = CalculateParameters(10'000'000, p, FilterKind::kBlocked);
    ASSERT_TRUE(params.ok());
    EXPECT_NEAR(params->bits_per_key, bits_per_key, 0.01) << "p=" << p;
  }
}

TEST(BlockedSizingTest, RateFormulaLimits) {
  EXPECT_EQ(BlockedFpRate(0, 10, 8), 1.0);
  EXPECT_EQ(BlockedFpRate(10, 0, 8), 0.0);
  // A blocked filter is worse than a classic one of the same size (uneven load).
  const double blocks = 20'000;
  const double n = 1'000'000;
  EXPECT_GT(BlockedFpRate(20'000, n, 8), ClassicFpRate(blocks * 512, n, 8));
  // One key per block on average, k = 1: a query's block holds i keys with
  // probability Poisson(i; 1), and is a false positive with 1 - (63/64)^i.
  double want = 0;
  double pmf = std::exp(-1.0);
  for (int i = 0; i < 40; ++i) {
    want += pmf * (1 - std::pow(63.0 / 64.0, i));
    pmf /= (i + 1);
  }
  EXPECT_NEAR(BlockedFpRate(1'000'000, 1'000'000, 1), want, 1e-9);
}

// BlockedFpRate against the rate measured on real BlockedBloomFilters with k from 4
// to 16 (one and two bits per lane): within the 99.9% binomial bound of 5 * 10^5
// absent keys.
TEST(BlockedSizingTest, RateFormulaMatchesARealFilter) {
  constexpr std::uint64_t kKeys = 200'000;
  constexpr std::uint64_t kQueries = 500'000;
  for (const std::uint32_t k : {4U, 8U, 12U, 16U}) {
    // About 10 bits per key: rates of 0.5% to 3%.
    auto filter = BlockedBloomFilter::Create({.num_bits = kKeys * 10, .num_hashes = k});
    ASSERT_TRUE(filter.ok());
    for (std::uint64_t i = 0; i < kKeys; ++i) EXPECT_TRUE(filter->Add(Key('p', i)).ok());
    std::uint64_t positives = 0;
    for (std::uint64_t i = 0; i < kQueries; ++i) positives += filter->MayContain(Key('a', i)) ? 1U : 0U;
    const double measured = static_cast<double>(positives) / kQueries;
    const double expected = BlockedFpRate(filter->num_blocks(), kKeys, k);
    const double bound = 3.2905 * std::sqrt(expected * (1 - expected) / kQueries);
    EXPECT_NEAR(measured, expected, bound) << "k=" << k;
  }
}

// At 1%, the sized blocked filter measures within the binomial bound of its formula
// and below the target (plus the bound).
TEST(BlockedSizingTest, SizedFilterMeetsOnePercent) {
  constexpr std::uint64_t kKeys = 200'000;
  constexpr std::uint64_t kQueries = 1'000'000;
  auto filter = BlockedBloomFilter::Create({.capacity = kKeys, .fp_rate = 0.01});
  ASSERT_TRUE(filter.ok());
  for (std::uint64_t i = 0; i < kKeys; ++i) EXPECT_TRUE(filter->Add(Key('p', i)).ok());
  std::uint64_t positives = 0;
  for (std::uint64_t i = 0; i < kQueries; ++i) positives += filter->MayContain(Key('a', i)) ? 1U : 0U;
  const double measured = static_cast<double>(positives) / kQueries;
  const double expected = filter->ExpectedFpRate();
  const double bound = 3.2905 * std::sqrt(expected * (1 - expected) / kQueries);
  EXPECT_LE(expected, 0.01);
  EXPECT_NEAR(measured, expected, bound);
  EXPECT_LE(measured, 0.01 + bound);
}

// Counting filters use the classic formula with 4-bit counters.
TEST(CountingSizingTest, IsFourBitsPerClassicBit) {
  auto classic = CalculateParameters(1'000'000, 0.01, FilterKind::kClassic);
  auto counting = CalculateParameters(1'000'000, 0.01, FilterKind::kCounting);
  ASSERT_TRUE(classic.ok() && counting.ok());
  EXPECT_EQ(counting->num_hashes, classic->num_hashes);
  EXPECT_EQ(counting->num_bits, 4 * 9'585'059ULL);
  EXPECT_DOUBLE_EQ(counting->expected_fp_rate, classic->expected_fp_rate);
}

// ---------------------------------------------------------------------- errors

void ExpectInvalid(const Result<FilterParameters>& r, ErrorCode code, const std::string& fragment) {
  ASSERT_FALSE(r.ok()) << "expected an error mentioning " << fragment;
  EXPECT_EQ(r.error().code(), code) << r.error().message();
  EXPECT_NE(r.error().message().find(fragment), std::string::npos)
      << "message \"" << r.error().message() << "\" should contain \"" << fragment << "\"";
}

TEST(SizingErrorsTest, BadArgumentsNameTheValueAndTheRange) {
  for (const FilterKind kind : {FilterKind::kClassic, FilterKind::kBlocked}) {
    SCOPED_TRACE(FilterKindName(kind));
    ExpectInvalid(CalculateParameters(0, 0.01, kind), ErrorCode::kInvalidArgument,
                  "capacity must be at least 1, got 0");
    ExpectInvalid(CalculateParameters(100, 0, kind), ErrorCode::kInvalidArgument, "must be in (0, 1), got 0");
    ExpectInvalid(CalculateParameters(100, 1, kind), ErrorCode::kInvalidArgument, "must be in (0, 1), got 1");
    ExpectInvalid(CalculateParameters(100, 1.5, kind), ErrorCode::kInvalidArgument, "must be in (0, 1), got 1.5");
    ExpectInvalid(CalculateParameters(100, -0.1, kind), ErrorCode::kInvalidArgument, "must be in (0, 1), got -0.1");
    ExpectInvalid(CalculateParameters(100, std::nan(""), kind), ErrorCode::kInvalidArgument, "got nan");
    ExpectInvalid(CalculateParameters(100, std::numeric_limits<double>::infinity(), kind), ErrorCode::kInvalidArgument,
                  "got inf");
  }
  // p = 1e-30 needs k = 100 > 64.
  ExpectInvalid(CalculateParameters(100, 1e-30), ErrorCode::kInvalidArgument, "64");
}

TEST(SizingErrorsTest, OverTheMemoryLimitIsTooLargeAndQuick) {
  const auto start = std::chrono::steady_clock::now();
  // 10^13 keys at 1% need ~12 TB.
  for (const FilterKind kind : {FilterKind::kClassic, FilterKind::kBlocked}) {
    SCOPED_TRACE(FilterKindName(kind));
    ExpectInvalid(CalculateParameters(10'000'000'000'000ULL, 0.01, kind), ErrorCode::kTooLarge,
                  "capacity 10000000000000");
    ExpectInvalid(CalculateParameters(10'000'000'000'000ULL, 0.01, kind), ErrorCode::kTooLarge, "4294967296");
    // A limit of 1 MB: 10^6 keys at 1% need 1.2 MB.
    ExpectInvalid(CalculateParameters(1'000'000, 0.01, kind, 1'000'000), ErrorCode::kTooLarge, "1000000");
    EXPECT_TRUE(CalculateParameters(1'000'000, 0.01, kind, 2'000'000).ok());
  }
  ExpectInvalid(CalculateParameters(std::numeric_limits<std::uint64_t>::max(), 0.5), ErrorCode::kTooLarge,
                "memory limit");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 2.0) << "sizing an impossible filter must fail fast";
}

TEST(SizingErrorsTest, ValidatorsNameTheValues) {
  EXPECT_TRUE(ValidateFpRate(0.5).ok());
  const Status bad = ValidateFpRate(1.5);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "error rate must be in (0, 1), got 1.5");
  EXPECT_TRUE(ValidateMemory(100, 100, "x").ok());
  const Status big = ValidateMemory(101, 100, "a filter");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code(), ErrorCode::kTooLarge);
  EXPECT_NE(big.error().message().find("a filter needs 101 bytes"), std::string::npos) << big.error().message();
  EXPECT_NE(big.error().message().find("100 bytes"), std::string::npos) << big.error().message();
}

}  // namespace
}  // namespace bloomkit
