// SPDX-License-Identifier: Apache-2.0
// bloomkit/bloom_filter.h: the classic filter's own behaviour. What every filter kind
// shares (no false negatives at 10^6 keys, FPR bound, round trips, malformed files)
// is in tests/contract/.
#include "bloomkit/bloom_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/sizing.h"
#include "contract/test_support.h"
#include "internal/classic_kernels.h"
#include "internal/filter_common.h"
#include "unit/classic_filter_support.h"

namespace bloomkit {
namespace {

using bloomkit_test::Key;
using bloomkit_test::KeySet;

bool BitSet(const BloomFilter& f, std::uint64_t pos) {
  return ((f.words()[pos / 64] >> (pos % 64)) & 1U) != 0;
}

// The probe sequence of hash.h, written out from its documentation:
//   x = h1, y = h2; position_i = (x * m) >> 64; x += y; y += i + 1.
std::vector<std::uint64_t> ReferencePositions(std::string_view key, std::uint64_t m, std::uint32_t k) {
  const HashPair h = HashKey(key);
  std::uint64_t x = h.h1;
  std::uint64_t y = h.h2;
  std::vector<std::uint64_t> out;
  for (std::uint32_t i = 0; i < k; ++i) {
    out.push_back(static_cast<std::uint64_t>((static_cast<Uint128>(x) * m) >> 64));
    x += y;
    y += 0x9e3779b97f4a7c15ULL;  // kProbeStep, written out so the reference is independent
  }
  return out;
}

// ------------------------------------------------------------ instruction sets

// The BMI2 copy of the single-key probes against the portable one, each called
// explicitly, for every unrolled k and the generic loop: the same bits, the same "new
// key" answers, and the same answers for added and absent keys, by hash pair (hash id
// 1, AddHash) and by key under hash id 4 (keys of 1 to 12 bytes: both of its forms),
// and the batch adds' bits and counts and the batch queries' answers.
// On a CPU without BMI2 both are the portable copy and the test compares it with itself.
TEST(BloomFilterIsaTest, Bmi2ProbesEqualPortableProbes) {
  const auto& portable = internal::GetClassicOps(internal::ClassicIsa::kPortable);
  const auto& bmi2 = internal::GetClassicOps(internal::ClassicIsa::kBmi2);
  if (!internal::CpuHasBmi2()) GTEST_LOG_(INFO) << "this CPU has no BMI2: only the portable copy runs";
  std::vector<std::string> keys;
  for (std::uint64_t i = 0; i < 600; ++i) keys.push_back(std::string(Key('i', i).view().substr(0, 1 + i % 12)));
  for (std::uint32_t k = 1; k <= 18; ++k) {
    // A size that is not a multiple of 64 and one that is.
    for (const std::uint64_t num_bits : {std::uint64_t{5003}, std::uint64_t{64} * 1021}) {
      const std::size_t num_words = (num_bits + 63) / 64;
      std::vector<std::uint64_t> words_p(num_words);
      std::vector<std::uint64_t> words_b(num_words);
      std::vector<std::uint64_t> short_p(num_words);
      std::vector<std::uint64_t> short_b(num_words);
      for (std::size_t i = 0; i < keys.size(); i += 2) {
        const HashPair h = HashKey(keys[i]);
        ASSERT_EQ(portable.insert(words_p.data(), num_bits, k, h), bmi2.insert(words_b.data(), num_bits, k, h))
            << "k " << k << ", key " << i;
        ASSERT_EQ(portable.insert_short_key(short_p.data(), num_bits, k, keys[i]),
                  bmi2.insert_short_key(short_b.data(), num_bits, k, keys[i]))
            << "k " << k << ", key " << i;
      }
      ASSERT_EQ(words_p, words_b) << "k " << k << ", " << num_bits << " bits";
      ASSERT_EQ(short_p, short_b) << "k " << k << ", " << num_bits << " bits";
      // The untested sets (Add, AddHash) leave the same bits in both copies.
      for (const auto* ops : {&portable, &bmi2}) {
        std::vector<std::uint64_t> set(num_words);
        std::vector<std::uint64_t> set_short(num_words);
        for (std::size_t i = 0; i < keys.size(); i += 2) {
          ops->set(set.data(), num_bits, k, HashKey(keys[i]));
          ops->set_short_key(set_short.data(), num_bits, k, keys[i]);
        }
        ASSERT_EQ(set, words_p) << "k " << k << ", " << num_bits << " bits";
        ASSERT_EQ(set_short, short_p) << "k " << k << ", " << num_bits << " bits";
      }
      std::size_t hits = 0;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const HashPair h = HashKey(keys[i]);
        const bool found = portable.contains(words_p.data(), num_bits, k, h);
        ASSERT_EQ(found, bmi2.contains(words_p.data(), num_bits, k, h)) << "k " << k << ", key " << i;
        const bool found_short = portable.contains_short_key(short_p.data(), num_bits, k, keys[i]);
        ASSERT_EQ(found_short, bmi2.contains_short_key(short_p.data(), num_bits, k, keys[i]))
            << "k " << k << ", key " << i;
        if (i % 2 == 0) {
          ASSERT_TRUE(found && found_short) << "k " << k << ", added key " << i;
        }
        hits += found ? 1U : 0U;
      }
      EXPECT_LT(hits, keys.size()) << "k " << k << ": absent keys must not all be found";

      // Batch adds of the same keys (each twice), by key under both hashes and by hash.
      std::vector<std::string_view> views(keys.begin(), keys.end());
      views.insert(views.end(), keys.begin(), keys.end());
      std::vector<std::uint64_t> hashes;
      for (std::size_t i = 0; i < views.size(); ++i) hashes.push_back(HashKey64(views[i]));
      std::vector<std::uint64_t> batch_b(num_words);
      std::vector<std::uint64_t> batch_p(num_words);
      portable.add_keys(batch_p.data(), num_bits, k, views);
      bmi2.add_keys(batch_b.data(), num_bits, k, views);
      EXPECT_EQ(batch_p, batch_b) << "k " << k;
      std::fill(batch_p.begin(), batch_p.end(), 0);
      std::fill(batch_b.begin(), batch_b.end(), 0);
      portable.add_short_keys(batch_p.data(), num_bits, k, views);
      bmi2.add_short_keys(batch_b.data(), num_bits, k, views);
      EXPECT_EQ(batch_p, batch_b) << "k " << k;
      std::fill(batch_p.begin(), batch_p.end(), 0);
      std::fill(batch_b.begin(), batch_b.end(), 0);
      portable.add_hashes(batch_p.data(), num_bits, k, hashes);
      bmi2.add_hashes(batch_b.data(), num_bits, k, hashes);
      EXPECT_EQ(batch_p, batch_b) << "k " << k;

      // Batch queries of the first half of the hashes (added above) and of the keys
      // added one by one (every other key): each answer that of the single query.
      const auto half = std::span<const std::uint64_t>(hashes).first(hashes.size() / 2);
      std::unique_ptr<bool[]> out_p(new bool[views.size()]);
      std::unique_ptr<bool[]> out_b(new bool[views.size()]);
      std::vector<std::uint64_t> absent;
      for (std::size_t i = 0; i < half.size(); ++i) absent.push_back(half[i] + (i % 2));  // odd i: absent
      EXPECT_EQ(portable.contains_hashes(batch_p.data(), num_bits, k, absent, out_p.get()),
                bmi2.contains_hashes(batch_p.data(), num_bits, k, absent, out_b.get()))
          << "k " << k;
      for (std::size_t i = 0; i < absent.size(); ++i) {
        ASSERT_EQ(out_p[i], out_b[i]) << "k " << k << ", hash " << i;
        if (i % 2 == 0) {
          ASSERT_TRUE(out_p[i]) << "k " << k << ", added hash " << i;
        }
      }
      const auto keys_half = std::span<const std::string_view>(views).first(keys.size());
      EXPECT_EQ(portable.contains_keys(words_p.data(), num_bits, k, keys_half, out_p.get()),
                bmi2.contains_keys(words_p.data(), num_bits, k, keys_half, out_b.get()))
          << "k " << k;
      for (std::size_t i = 0; i < keys_half.size(); ++i) {
        ASSERT_EQ(out_b[i], portable.contains(words_p.data(), num_bits, k, HashKey(keys_half[i]))) << "k " << k;
        ASSERT_EQ(out_p[i], out_b[i]) << "k " << k << ", key " << i;
      }
      EXPECT_EQ(portable.contains_short_keys(short_p.data(), num_bits, k, keys_half, out_p.get()),
                bmi2.contains_short_keys(short_p.data(), num_bits, k, keys_half, out_b.get()))
          << "k " << k;
      for (std::size_t i = 0; i < keys_half.size(); ++i) {
        ASSERT_EQ(out_b[i], portable.contains_short_key(short_p.data(), num_bits, k, keys_half[i])) << "k " << k;
        ASSERT_EQ(out_p[i], out_b[i]) << "k " << k << ", key " << i;
      }
    }
  }
}

// The BMI2 copy's batch adds set their bits with bts and count the bits set already
// with adc: in both copies, for k = 1..18 and batches of 1, 17 and 2 x 700 8-byte keys
// of hash id 4 (each added twice), the bits equal those of single adds, and every batch
// answer that of a single query.
TEST(BloomFilterIsaTest, EightByteKeyBatchesEqualSingleAdds) {
  const auto& portable = internal::GetClassicOps(internal::ClassicIsa::kPortable);
  const auto& bmi2 = internal::GetClassicOps(internal::ClassicIsa::kBmi2);
  const std::uint64_t num_bits = 20'011;
  const std::size_t num_words = (num_bits + 63) / 64;
  for (const std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{700}}) {
    std::vector<std::string> keys;
    for (std::uint64_t i = 0; i < n; ++i) keys.push_back(std::string(Key('e', i).view().substr(0, 8)));
    std::vector<std::string_view> views(keys.begin(), keys.end());
    views.insert(views.end(), keys.begin(), keys.end());
    for (std::uint32_t k = 1; k <= 18; ++k) {
      std::vector<std::uint64_t> single(num_words);
      for (std::string_view key : views) static_cast<void>(portable.insert_short_key(single.data(), num_bits, k, key));
      for (const auto* ops : {&portable, &bmi2}) {
        std::vector<std::uint64_t> batch(num_words);
        ops->add_short_keys(batch.data(), num_bits, k, views);
        EXPECT_EQ(batch, single) << "k " << k << ", n " << n;
        // Queries of the added keys and of as many others, against a half-full filter.
        std::vector<std::string> others;
        for (std::uint64_t i = 0; i < n; ++i) others.push_back(std::string(Key('o', i).view().substr(0, 8)));
        std::vector<std::string_view> probes(keys.begin(), keys.end());
        probes.insert(probes.end(), others.begin(), others.end());
        std::unique_ptr<bool[]> out(new bool[probes.size()]);
        std::size_t hits = 0;
        for (std::size_t i = 0; i < probes.size(); ++i) {
          hits += portable.contains_short_key(single.data(), num_bits, k, probes[i]) ? 1U : 0U;
        }
        EXPECT_EQ(ops->contains_short_keys(single.data(), num_bits, k, probes, out.get()), hits) << "k " << k;
        for (std::size_t i = 0; i < probes.size(); ++i) {
          ASSERT_EQ(out[i], portable.contains_short_key(single.data(), num_bits, k, probes[i]))
              << "k " << k << ", n " << n << ", probe " << i;
        }
      }
    }
  }
}

// The filter takes the BMI2 copy on a CPU that has it: its bits equal those that the
// portable copy sets for the same keys.
TEST(BloomFilterIsaTest, FilterBitsEqualPortableProbes) {
  const auto& portable = internal::GetClassicOps(internal::ClassicIsa::kPortable);
  for (const std::uint32_t k : {7U, 10U}) {
    auto f = MakeFilter({.num_bits = 70'001, .num_hashes = k, .hash_id = kHashIdShort64});
    std::vector<std::uint64_t> words((f.num_bits() + 63) / 64);
    for (std::uint64_t i = 0; i < 3000; ++i) {
      const Key key('f', i);
      const std::string_view view = key.view().substr(0, 8);
      ASSERT_EQ(f.AddIfAbsent(view).value(), portable.insert_short_key(words.data(), f.num_bits(), k, view));
      ASSERT_TRUE(f.MayContain(view));
    }
    EXPECT_TRUE(std::ranges::equal(f.words(), words)) << "k " << k;
  }
}

// Add of an 8-byte key of a hash-id-4 filter runs in this file's code on a CPU with
// BMI2 (bloom_filter.h): the bits it leaves equal the portable copy's, for keys of
// every length from 0 to 9 (only the 8-byte ones take that path), for k = 1 (one
// probe), 7, 16 and 20, and every add is counted, a repeated key too.
TEST(BloomFilterIsaTest, InlineAddsEqualPortableProbes) {
  if (!BloomFilter::UsesBmi2()) GTEST_LOG_(INFO) << "this CPU has no BMI2: Add calls the library";
  const auto& portable = internal::GetClassicOps(internal::ClassicIsa::kPortable);
  for (const std::uint32_t k : {1U, 7U, 16U, 20U}) {
    auto f = MakeFilter({.num_bits = 50'021, .num_hashes = k, .hash_id = kHashIdShort64});
    std::vector<std::uint64_t> words((f.num_bits() + 63) / 64);
    for (std::uint64_t i = 0; i < 4000; ++i) {
      const Key key('i', i / 2);  // each key twice: the second add is not new
      const std::string_view view = key.view().substr(0, i % 10 < 4 ? 8 : i % 10);
      ASSERT_TRUE(f.Add(view).ok());
      static_cast<void>(portable.insert_short_key(words.data(), f.num_bits(), k, view));
      ASSERT_EQ(f.count(), i + 1) << "k " << k << " key " << i;
    }
    EXPECT_TRUE(std::ranges::equal(f.words(), words)) << "k " << k;
  }
}

// A filter in DRAM (kInMemoryFilterBytes and up) stops a query at the first zero bit
// instead of reading all k: every answer is still "all k bits set", for unrolled and
// generic k, both hashes, by key and by hash.
TEST(BloomFilterTest, FilterInDramAnswersAsAllItsBitsSay) {
  const std::uint64_t num_bits = internal::kInMemoryFilterBytes * 8 + 5003;
  for (const std::uint16_t hash_id : {kHashIdXxh3DoubleHashing, kHashIdShort64}) {
    // k = 2 and 3: the query's first two lines are asked for before any test, and the
    // loop of later lines runs once or not at all.
    for (const std::uint32_t k : {2U, 3U, 7U, 20U}) {
      auto f = MakeFilter({.num_bits = num_bits, .num_hashes = k, .hash_id = hash_id});
      // Enough keys that 3/4 of the bits are set (k >= 7), or 2/5 (k <= 3, fewer adds):
      // absent keys stop at every probe, and some (0.75^k: 13% at k = 7, 0.3% at
      // k = 20; 16% and 6% at k = 2 and 3) pass all k.
      const std::uint64_t n = k <= 3 ? num_bits / k / 2 : num_bits / k * 14 / 10;
      std::vector<std::uint64_t> hashes(n);
      for (std::uint64_t i = 0; i < n; ++i) hashes[i] = i * 0x9e3779b97f4a7c15ULL;
      ASSERT_TRUE(f.AddHashBatch(hashes).ok());
      const auto all_set = [&](HashPair h) {
        bool all = true;
        ForEachProbe(h, num_bits, k, [&](std::uint64_t bit) {
          all = all && ((f.words()[bit >> 6] >> (bit & 63)) & 1U) != 0;
          return true;
        });
        return all;
      };
      std::size_t hits = 0;
      for (std::uint64_t i = 0; i < 20'000; ++i) {
        const Key key('d', i);
        const HashPair h = hash_id == kHashIdShort64 ? ShortKeyPair(HashKeyShort64(key.view())) : HashKey(key.view());
        const bool expected = all_set(h);
        ASSERT_EQ(f.MayContain(key.view()), expected) << "hash id " << hash_id << ", k " << k << ", key " << i;
        ASSERT_EQ(f.MayContainHash(i * 0x9e3779b97f4a7c15ULL), true) << "added hash " << i;
        hits += expected ? 1U : 0U;
      }
      EXPECT_GT(hits, 0U) << "hash id " << hash_id << ", k " << k;  // some absent keys hit all k bits
      EXPECT_LT(hits, 20'000U) << "hash id " << hash_id << ", k " << k;
    }
  }
}

// ---------------------------------------------------------------------- creation

TEST(BloomFilterCreateTest, SizesFromCapacityAndRate) {
  auto f = MakeFilter({.capacity = 10'000'000, .fp_rate = 0.01});
  EXPECT_EQ(f.num_bits(), 95'850'584U);
  EXPECT_EQ(f.num_hashes(), 7U);
  EXPECT_EQ(f.capacity(), 10'000'000U);
  EXPECT_DOUBLE_EQ(f.fp_rate(), 0.01);
  EXPECT_EQ(f.memory_bytes(), (95'850'584U + 63) / 64 * 8);
  EXPECT_EQ(f.words().size(), (95'850'584U + 63) / 64);
  EXPECT_EQ(f.count(), 0U);
  EXPECT_EQ(f.CountSetBits(), 0U);
  EXPECT_DOUBLE_EQ(f.ExpectedFpRate(), ClassicFpRate(95'850'584, 1e7, 7));
}

TEST(BloomFilterCreateTest, ExplicitBitsAndHashes) {
  auto f = MakeFilter({.num_bits = 1000, .num_hashes = 5});
  EXPECT_EQ(f.num_bits(), 1000U);
  EXPECT_EQ(f.num_hashes(), 5U);
  EXPECT_EQ(f.memory_bytes(), 128U);  // 16 words
  // Capacity 0 becomes the number of keys for which 5 hashes are optimal.
  EXPECT_EQ(f.capacity(), static_cast<std::uint64_t>(std::round(1000 * std::log(2.0) / 5)));
  EXPECT_DOUBLE_EQ(f.fp_rate(), ClassicFpRate(1000, static_cast<double>(f.capacity()), 5));
  auto with_capacity = MakeFilter({.capacity = 50, .num_bits = 1000, .num_hashes = 5});
  EXPECT_EQ(with_capacity.capacity(), 50U);
  EXPECT_DOUBLE_EQ(with_capacity.fp_rate(), ClassicFpRate(1000, 50, 5));
  EXPECT_TRUE(BloomFilter::Create({.num_bits = 1, .num_hashes = 1}).ok());
  EXPECT_TRUE(BloomFilter::Create({.num_bits = 64, .num_hashes = kMaxNumHashes}).ok());
}

void ExpectCreateError(const BloomOptions& options, ErrorCode code, const std::string& fragment) {
  auto f = BloomFilter::Create(options);
  ASSERT_FALSE(f.ok()) << "expected an error mentioning " << fragment;
  EXPECT_EQ(f.error().code(), code) << f.error().message();
  EXPECT_NE(f.error().message().find(fragment), std::string::npos)
      << "message \"" << f.error().message() << "\" should contain \"" << fragment << "\"";
}

TEST(BloomFilterCreateTest, BadOptionsAreErrorsNamingTheValue) {
  ExpectCreateError({.capacity = 0, .fp_rate = 0.01}, ErrorCode::kInvalidArgument,
                    "capacity must be at least 1, got 0");
  ExpectCreateError({.capacity = 100, .fp_rate = 0}, ErrorCode::kInvalidArgument, "(0, 1), got 0");
  ExpectCreateError({.capacity = 100, .fp_rate = 1}, ErrorCode::kInvalidArgument, "(0, 1), got 1");
  ExpectCreateError({.capacity = 100, .fp_rate = 1.5}, ErrorCode::kInvalidArgument, "(0, 1), got 1.5");
  ExpectCreateError({.capacity = 100, .fp_rate = -0.1}, ErrorCode::kInvalidArgument, "(0, 1), got -0.1");
  ExpectCreateError({.capacity = 100, .fp_rate = std::nan("")}, ErrorCode::kInvalidArgument, "got nan");
  ExpectCreateError({.num_bits = 1000, .num_hashes = 0}, ErrorCode::kInvalidArgument,
                    "num_hashes must be in [1, 64], got 0");
  ExpectCreateError({.num_bits = 1000, .num_hashes = 65}, ErrorCode::kInvalidArgument,
                    "num_hashes must be in [1, 64], got 65");
  ExpectCreateError({.num_bits = 0, .num_hashes = 3}, ErrorCode::kInvalidArgument, "num_bits must be at least 1");
}

TEST(BloomFilterCreateTest, OverTheMemoryLimitIsTooLargeWithoutAllocating) {
  bloomkit_test::ScopedCountingAllocator counting;
  const auto start = std::chrono::steady_clock::now();
  // 10^13 keys at 1% would need ~12 TB.
  ExpectCreateError({.capacity = 10'000'000'000'000ULL, .fp_rate = 0.01}, ErrorCode::kTooLarge,
                    "capacity 10000000000000");
  ExpectCreateError({.capacity = 10'000'000'000'000ULL, .fp_rate = 0.01}, ErrorCode::kTooLarge,
                    "memory limit of 4294967296 bytes");
  // 10^6 keys at 1% need 1.2 MB: over a 1 MB limit, under a 2 MB one.
  ExpectCreateError({.capacity = 1'000'000, .fp_rate = 0.01, .max_memory_bytes = 1'000'000}, ErrorCode::kTooLarge,
                    "1000000");
  // Explicit sizes are checked too: 2^40 bits are 128 GiB.
  ExpectCreateError({.num_bits = std::uint64_t{1} << 40, .num_hashes = 3}, ErrorCode::kTooLarge, "137438953472");
  ExpectCreateError({.num_bits = std::numeric_limits<std::uint64_t>::max(), .num_hashes = 3}, ErrorCode::kTooLarge,
                    "bytes");
  // With no memory limit, the most bits a filter can hold ((2^48 - 1) words) still stops it.
  ExpectCreateError({.num_bits = std::uint64_t{1} << 54,
                     .num_hashes = 3,
                     .max_memory_bytes = std::numeric_limits<std::uint64_t>::max()},
                    ErrorCode::kTooLarge, "num_bits 18014398509481984 is more than the 18014398509481920");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(counting.allocations(), 0U) << "an oversized Create allocated memory";
  EXPECT_LT(seconds, 1.0) << "an oversized Create must fail fast";
  auto fits = BloomFilter::Create({.capacity = 1'000'000, .fp_rate = 0.01, .max_memory_bytes = 2'000'000});
  ASSERT_TRUE(fits.ok()) << fits.error().message();
  EXPECT_EQ(counting.allocations(), 1U);
  EXPECT_EQ(counting.bytes_requested(), fits->memory_bytes());
}

TEST(BloomFilterCreateTest, AllocatorWithoutMemoryIsAnError) {
  bloomkit_test::ScopedFailingAllocator failing;
  auto f = BloomFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code(), ErrorCode::kTooLarge);
  EXPECT_NE(f.error().message().find("out of memory"), std::string::npos) << f.error().message();
}

// ---------------------------------------------------------------------- hashing

// Known answers: the k = 7 positions of three keys in a filter of m = 1,000,003 bits
// (prime, not a multiple of 64), computed once when the format was frozen. They pin
// HashKey, the enhanced double hashing and the 128-bit range reduction together, and
// the bit layout: position p is bit p % 64 of word p / 64. A change to any of them
// must fail here.
TEST(BloomFilterHashingTest, KnownPositions) {
  constexpr std::uint64_t kBits = 1'000'003;
  constexpr std::uint32_t kHashes = 7;
  struct Case {
    std::string_view key;
    std::vector<std::uint64_t> positions;
  };
  const Case cases[] = {
      {"", {976350, 651134, 943953, 854805, 383690, 530611, 295565}},
      {"bloomkit", {387417, 703535, 637686, 189869, 360089, 148342, 554630}},
      {"user:42", {970352, 293416, 234515, 793651, 970819, 766020, 179254}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "key \"" << c.key << "\"");
    EXPECT_EQ(ReferencePositions(c.key, kBits, kHashes), c.positions);
    auto f = MakeFilter({.num_bits = kBits, .num_hashes = kHashes, .hash_id = kHashIdXxh3DoubleHashing});
    EXPECT_TRUE(f.Add(c.key).ok());
    const std::set<std::uint64_t> distinct(c.positions.begin(), c.positions.end());
    EXPECT_EQ(f.CountSetBits(), distinct.size()) << "bits set other than the key's positions";
    for (const std::uint64_t pos : c.positions) EXPECT_TRUE(BitSet(f, pos)) << "position " << pos;
  }
}

// The golden-ratio step keeps a degenerate hash pair from putting all probes on one
// bit: with h2 = 0 and x just below the 64-bit wrap, x = 2^64-3, 2^64-3, then
// G-3 and 3G-3 (G = kProbeStep ~ 0.618 * 2^64), giving positions 999, 999, 618, 854 for
// m = 1000. A step of i + 1 (the textbook enhanced variant) would give 999, 999, 999, 0,
// because the range reduction keeps the high bits of x.
TEST(BloomFilterHashingTest, ProbeIncrementsArePinned) {
  auto f = MakeFilter({.num_bits = 1000, .num_hashes = 4});
  const HashPair pair{~std::uint64_t{0} - 2, 0};
  f.AddHashPair(pair);
  EXPECT_EQ(f.CountSetBits(), 3U);
  EXPECT_TRUE(BitSet(f, 999));
  EXPECT_TRUE(BitSet(f, 618));
  EXPECT_TRUE(BitSet(f, 854));
  EXPECT_TRUE(f.MayContainHashPair(pair));
}

// Every key's bits are where the documented probe sequence puts them.
TEST(BloomFilterHashingTest, MatchesTheDocumentedProbeSequence) {
  for (const std::uint32_t k : {1U, 2U, 7U, 13U, 64U}) {
    auto f = MakeFilter({.num_bits = 100'003, .num_hashes = k, .hash_id = kHashIdXxh3DoubleHashing});
    for (std::uint64_t i = 0; i < 200; ++i) {
      const Key key('p', i);
      EXPECT_TRUE(f.Add(key).ok());
      for (const std::uint64_t pos : ReferencePositions(key, f.num_bits(), k)) {
        ASSERT_TRUE(BitSet(f, pos)) << "k=" << k << " key " << i << " position " << pos;
      }
    }
  }
}

// 64-bit sizes: a filter of 2^33 + 7 bits (1 GiB) sets and finds bits past 2^32.
TEST(BloomFilterLargeTest, BitsAboveTwoToThe32Work) {
  const std::uint64_t kBits = (std::uint64_t{1} << 33) + 7;
  auto f = MakeFilter({.num_bits = kBits, .num_hashes = 3, .hash_id = kHashIdXxh3DoubleHashing});
  ASSERT_EQ(f.num_bits(), kBits);
  ASSERT_EQ(f.words().size(), (kBits + 63) / 64);
  // Pinned: "bloomkit" probes 3327877198, 6043302950 (> 2^32) and 5477665645 (> 2^32).
  EXPECT_EQ(ReferencePositions("bloomkit", kBits, 3), (std::vector<std::uint64_t>{3327877198, 6043302950, 5477665645}));
  EXPECT_TRUE(f.Add("bloomkit").ok());
  EXPECT_TRUE(BitSet(f, 6043302950));
  EXPECT_TRUE(f.MayContain("bloomkit"));
  std::uint64_t above = 0;
  constexpr std::uint64_t kKeys = 2000;
  for (std::uint64_t i = 0; i < kKeys; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  for (std::uint64_t i = 0; i < kKeys; ++i) {
    const Key key('p', i);
    ASSERT_TRUE(f.MayContain(key)) << "key " << i;
    for (const std::uint64_t pos : ReferencePositions(key, kBits, 3)) {
      ASSERT_LT(pos, kBits);
      ASSERT_TRUE(BitSet(f, pos)) << "key " << i << " position " << pos;
      above += pos >= (std::uint64_t{1} << 32) ? 1U : 0U;
    }
  }
  // Half of the 6000 positions lie above 2^32; truncation to 32 bits would lose them.
  EXPECT_GT(above, 2500U);
  EXPECT_LT(above, 3500U);
  // The set bits in the upper half of the array are found through the words span.
  std::uint64_t upper_bits = 0;
  const auto words = f.words();
  for (std::size_t w = (std::size_t{1} << 32) / 64; w < words.size(); ++w) {
    upper_bits += static_cast<std::uint64_t>(std::popcount(words[w]));
  }
  EXPECT_EQ(upper_bits, above + 2);  // + "bloomkit"'s two (no collisions among 6003 of 2^33)
  EXPECT_FALSE(f.MayContain("not added"));
}

// ---------------------------------------------------------------------- hash id 4

// Hash id 4's probes, written out from hash.h: h1 = HashKeyShort64(key) (pinned in
// blocked_lanes_test), h2 = the xor of the halves of h1 * 0x94d049bb133111eb, then the
// probe sequence of ReferencePositions.
std::vector<std::uint64_t> ShortReferencePositions(std::string_view key, std::uint64_t m, std::uint32_t k) {
  const std::uint64_t h1 = HashKeyShort64(key);
  const Uint128 product = static_cast<Uint128>(h1) * 0x94d049bb133111ebULL;
  std::uint64_t x = h1;
  std::uint64_t y = static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
  std::vector<std::uint64_t> out;
  for (std::uint32_t i = 0; i < k; ++i) {
    out.push_back(static_cast<std::uint64_t>((static_cast<Uint128>(x) * m) >> 64));
    x += y;
    y += 0x9e3779b97f4a7c15ULL;
  }
  return out;
}

TEST(BloomFilterShortHashTest, IdIsChosenByTheOptionsAndDefaultsToFour) {
  EXPECT_EQ(kDefaultClassicHashId, kHashIdShort64);
  EXPECT_EQ(MakeFilter({.capacity = 1000}).hash_id(), kHashIdShort64);
  EXPECT_EQ(MakeFilter({.num_bits = 1000, .num_hashes = 3}).hash_id(), kHashIdShort64);
  EXPECT_EQ(MakeFilter({.capacity = 1000, .hash_id = 1}).hash_id(), kHashIdXxh3DoubleHashing);
  const BloomFilter f = MakeFilter({.capacity = 1000, .hash_id = 4});
  EXPECT_EQ(f.hash_id(), kHashIdShort64);
  EXPECT_EQ(f.num_hashes(), 7U);
  EXPECT_EQ(MakeFilter({.num_bits = 1000, .num_hashes = 64, .hash_id = 4}).num_hashes(), 64U);
  for (const int id : {2, 3, 5, 65535}) {
    auto bad = BloomFilter::Create({.capacity = 1000, .hash_id = static_cast<std::uint16_t>(id)});
    ASSERT_FALSE(bad.ok()) << id;
    EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(bad.error().message().find(std::to_string(id)), std::string::npos) << bad.error().message();
  }
}

// Single and batch paths set and read the documented probes; a known key set's bits
// and answers are pinned.
TEST(BloomFilterShortHashTest, KeysTakeTheDocumentedProbes) {
  for (const std::uint32_t k : {1U, 7U, 64U}) {
    BloomFilter single = MakeFilter({.num_bits = 100'003, .num_hashes = k, .hash_id = 4});
    BloomFilter batch = MakeFilter({.num_bits = 100'003, .num_hashes = k, .hash_id = 4});
    std::vector<std::string> keys;
    for (std::uint64_t i = 0; i < 200; ++i) {
      keys.push_back(i % 2 == 0 ? std::string(std::string_view(IntegerKey(i))) : std::string(Key('p', i).view()));
    }
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    ASSERT_TRUE(batch.AddBatch(views).ok());
    std::set<std::uint64_t> expected_bits;
    for (const std::string& key : keys) {
      EXPECT_TRUE(single.Add(key).ok());
      for (const std::uint64_t pos : ShortReferencePositions(key, single.num_bits(), k)) {
        ASSERT_TRUE(BitSet(single, pos)) << "k=" << k << " key " << key << " position " << pos;
        expected_bits.insert(pos);
      }
    }
    EXPECT_EQ(single.CountSetBits(), expected_bits.size());
    EXPECT_TRUE(single == batch);
    std::vector<char> out(views.size());
    EXPECT_EQ(batch.MayContainBatch(views, std::span<bool>(reinterpret_cast<bool*>(out.data()), out.size())),
              views.size());
    for (const std::string& key : keys) EXPECT_TRUE(single.MayContain(key));
  }
  // Pinned: IntegerKey(42) and "bloomkit" in 1000 bits with k = 4.
  EXPECT_EQ(ShortReferencePositions(IntegerKey(42), 1000, 4), (std::vector<std::uint64_t>{90, 893, 315, 354}));
  EXPECT_EQ(ShortReferencePositions("bloomkit", 1000, 4), (std::vector<std::uint64_t>{940, 106, 889, 291}));
  // Pinned answers: 1000 integers in a filter sized for them at 1% take these bits and
  // report this many of the next 10000 integers.
  BloomFilter f = MakeFilter({.capacity = 1000, .fp_rate = 0.01, .hash_id = 4});
  for (std::uint64_t i = 0; i < 1000; ++i) EXPECT_TRUE(f.Add(IntegerKey(i)).ok());
  std::uint64_t false_positives = 0;
  for (std::uint64_t i = 1000; i < 11'000; ++i) false_positives += f.MayContain(IntegerKey(i)) ? 1U : 0U;
  EXPECT_EQ(f.CountSetBits(), 4976U);
  EXPECT_EQ(false_positives, 111U);  // 1.11%, target 1%
  // Id 1 sets other bits for the same keys.
  BloomFilter classic = MakeFilter({.capacity = 1000, .fp_rate = 0.01, .hash_id = kHashIdXxh3DoubleHashing});
  for (std::uint64_t i = 0; i < 1000; ++i) EXPECT_TRUE(classic.Add(IntegerKey(i)).ok());
  EXPECT_FALSE(std::equal(f.words().begin(), f.words().end(), classic.words().begin()));
}

// Filters of different hash ids set different bits for one key: merging or intersecting
// them is refused, and neither changes.
TEST(BloomFilterShortHashTest, MergeAndIntersectRefuseAnotherHashId) {
  BloomFilter a = MakeFilter({.num_bits = 4096, .num_hashes = 3, .hash_id = kHashIdXxh3DoubleHashing});
  BloomFilter b = MakeFilter({.num_bits = 4096, .num_hashes = 3, .hash_id = 4});
  EXPECT_TRUE(a.Add("a").ok());
  EXPECT_TRUE(b.Add("b").ok());
  const BloomFilter a0 = a;
  const BloomFilter b0 = b;
  for (const bool intersect : {false, true}) {
    const Status st = intersect ? a.Intersect(b) : a.Merge(b);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), ErrorCode::kIncompatible);
    EXPECT_NE(st.error().message().find("hash id 1 and 4"), std::string::npos) << st.error().message();
    const Status back = intersect ? b.Intersect(a) : b.Merge(a);
    ASSERT_FALSE(back.ok());
    EXPECT_EQ(back.error().code(), ErrorCode::kIncompatible);
  }
  EXPECT_TRUE(a == a0);
  EXPECT_TRUE(b == b0);
  EXPECT_FALSE(MakeFilter({.num_bits = 4096, .num_hashes = 3, .hash_id = kHashIdXxh3DoubleHashing}) ==
               MakeFilter({.num_bits = 4096, .num_hashes = 3, .hash_id = 4}));
  BloomFilter c = MakeFilter({.num_bits = 4096, .num_hashes = 3, .hash_id = 4});
  EXPECT_TRUE(c.Add("c").ok());
  ASSERT_TRUE(c.Merge(b).ok());
  EXPECT_TRUE(c.MayContain("b"));
  EXPECT_TRUE(c.MayContain("c"));
}

// 64-bit sizes under hash id 4: a filter of 2^33 + 7 bits (1 GiB, mostly untouched)
// sets and finds bits past 2^32.
TEST(BloomFilterShortHashTest, BitsAboveTwoToThe32Work) {
  const std::uint64_t kBits = (std::uint64_t{1} << 33) + 7;
  auto f = MakeFilter({.num_bits = kBits, .num_hashes = 3, .hash_id = 4});
  std::uint64_t above = 0;
  constexpr std::uint64_t kKeys = 2000;
  for (std::uint64_t i = 0; i < kKeys; ++i) EXPECT_TRUE(f.Add(IntegerKey(i)).ok());
  for (std::uint64_t i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(f.MayContain(IntegerKey(i))) << "key " << i;
    for (const std::uint64_t pos : ShortReferencePositions(IntegerKey(i), kBits, 3)) {
      ASSERT_LT(pos, kBits);
      ASSERT_TRUE(BitSet(f, pos)) << "key " << i << " position " << pos;
      above += pos >= (std::uint64_t{1} << 32) ? 1U : 0U;
    }
  }
  // Half of the 6000 positions lie above 2^32; truncation to 32 bits would lose them.
  EXPECT_GT(above, 2500U);
  EXPECT_LT(above, 3500U);
  std::uint64_t upper_bits = 0;
  const auto words = f.words();
  for (std::size_t w = (std::size_t{1} << 32) / 64; w < words.size(); ++w) {
    upper_bits += static_cast<std::uint64_t>(std::popcount(words[w]));
  }
  EXPECT_EQ(upper_bits, above);  // no collisions among 6000 of 2^33
  EXPECT_FALSE(f.MayContain(IntegerKey(kKeys)));
}

// ---------------------------------------------------------------------- queries

TEST(BloomFilterTest, CountAndEstimatedCount) {
  constexpr std::uint64_t kKeys = 100'000;
  auto f = MakeFilter({.capacity = kKeys, .fp_rate = 0.01});
  EXPECT_EQ(f.EstimatedCount(), 0U);
  for (std::uint64_t i = 0; i < kKeys; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  // count() counts every Add: the adds recorded, an upper bound on the distinct keys.
  EXPECT_EQ(f.count(), kKeys);
  // Swamidass-Baldi from the fill: within 2% of the truth at capacity.
  EXPECT_NEAR(static_cast<double>(f.EstimatedCount()), kKeys, kKeys * 0.02);
  // Adding the same keys again changes no bit and no estimate, and counts the adds.
  const std::vector<std::uint64_t> bits(f.words().begin(), f.words().end());
  const std::uint64_t estimate = f.EstimatedCount();
  for (std::uint64_t i = 0; i < kKeys; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  EXPECT_EQ(f.count(), 2 * kKeys);
  EXPECT_TRUE(std::ranges::equal(f.words(), bits));
  EXPECT_EQ(f.EstimatedCount(), estimate);
  // AddIfAbsent of keys already in adds nothing to the count.
  for (std::uint64_t i = 0; i < 1000; ++i) EXPECT_FALSE(f.AddIfAbsent(Key('p', i)).value());
  EXPECT_EQ(f.count(), 2 * kKeys);
}

TEST(BloomFilterTest, EstimatedFpRateShowsAnOverfullFilter) {
  constexpr std::uint64_t kCapacity = 10'000;
  auto f = MakeFilter({.capacity = kCapacity, .fp_rate = 0.01});
  EXPECT_EQ(f.EstimatedFpRate(), 0.0);
  for (std::uint64_t i = 0; i < kCapacity; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  EXPECT_NEAR(f.EstimatedFpRate(), 0.01, 0.002);
  EXPECT_NEAR(f.FillRatio(), 0.5, 0.02) << "an optimally sized filter is half full at capacity";
  for (std::uint64_t i = kCapacity; i < 3 * kCapacity; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  // 3x over capacity: the fill is ~1 - e^{-2.1} = 0.88 and the rate ~0.88^7 = 41%.
  EXPECT_GT(f.EstimatedFpRate(), 0.3);
  EXPECT_GT(f.EstimatedFpRate(), 10 * f.fp_rate());
  // ExpectedFpRate stays the design rate at capacity.
  EXPECT_DOUBLE_EQ(f.ExpectedFpRate(), ClassicFpRate(static_cast<double>(f.num_bits()), kCapacity, f.num_hashes()));
}

TEST(BloomFilterTest, SaturatedFilterEstimatesUnbounded) {
  auto f = MakeFilter({.num_bits = 64, .num_hashes = 1});
  for (std::uint64_t i = 0; i < 5000; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  ASSERT_EQ(f.CountSetBits(), 64U);
  EXPECT_EQ(f.EstimatedCount(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(f.EstimatedFpRate(), 1.0);
}

TEST(BloomFilterTest, ClearZeroesEveryWord) {
  auto f = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  for (std::uint64_t i = 0; i < 1000; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  ASSERT_GT(f.CountSetBits(), 0U);
  f.Clear();
  EXPECT_EQ(f.CountSetBits(), 0U);
  EXPECT_EQ(f.count(), 0U);
  EXPECT_TRUE(std::all_of(f.words().begin(), f.words().end(), [](std::uint64_t w) { return w == 0; }));
  EXPECT_TRUE(f == MakeFilter({.capacity = 1000, .fp_rate = 0.01}));
}

// count() is the adds recorded (docs/FILTERS.md): every Add, AddHash and batch key
// counts, a repeated key too; AddIfAbsent counts only keys that set a new bit; all of
// them set the same bits. Under both hashes, with 8-byte keys (hash id 4's inline path)
// and other lengths.
TEST(BloomFilterTest, AddCountsEveryAddAndAddIfAbsentOnlyNewKeys) {
  for (const std::uint16_t hash_id : {kHashIdXxh3DoubleHashing, kHashIdShort64}) {
    SCOPED_TRACE(testing::Message() << "hash id " << hash_id);
    const BloomOptions options{.capacity = 2000, .fp_rate = 0.01, .hash_id = hash_id};
    auto plain = MakeFilter(options);
    auto if_absent = MakeFilter(options);
    auto batched = MakeFilter(options);
    std::vector<std::string> keys;
    for (std::uint64_t i = 0; i < 1000; ++i)
      keys.push_back(std::string(Key('c', i % 500).view().substr(0, 5 + i % 500 % 7)));
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    std::uint64_t fresh = 0;
    for (std::size_t i = 0; i < views.size(); ++i) {
      ASSERT_TRUE(plain.Add(views[i]).ok());
      ASSERT_EQ(plain.count(), i + 1) << "a plain add is counted, repeated or not";
      const bool added = if_absent.AddIfAbsent(views[i]).value();
      if (i >= 500) {
        ASSERT_FALSE(added) << "key " << i << " was added before";
      }
      fresh += added ? 1U : 0U;
      ASSERT_EQ(if_absent.count(), fresh);
    }
    EXPECT_GE(fresh, 490U);
    ASSERT_TRUE(batched.AddBatch(views).ok());
    EXPECT_EQ(batched.count(), views.size());
    EXPECT_TRUE(std::ranges::equal(plain.words(), if_absent.words()));
    EXPECT_TRUE(std::ranges::equal(plain.words(), batched.words()));
    EXPECT_NEAR(static_cast<double>(plain.EstimatedCount()), 500, 50);
    auto hashed = MakeFilter(options);
    for (std::uint64_t i = 0; i < 300; ++i) ASSERT_TRUE(hashed.AddHash(i % 100).ok());
    EXPECT_EQ(hashed.count(), 300U);
    std::vector<std::uint64_t> hashes(300);
    for (std::uint64_t i = 0; i < 300; ++i) hashes[i] = i % 100;
    ASSERT_TRUE(hashed.AddHashBatch(hashes).ok());
    EXPECT_EQ(hashed.count(), 600U);
    for (std::uint64_t i = 0; i < 100; ++i) EXPECT_FALSE(hashed.AddHashIfAbsent(i).value());
    EXPECT_TRUE(hashed.AddHashIfAbsent(1000).value());
    EXPECT_EQ(hashed.count(), 601U);
  }
}

TEST(BloomFilterTest, AddIfAbsentCountsOnlyNewKeys) {
  auto f = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  EXPECT_TRUE(f.AddIfAbsent("x").value());
  EXPECT_EQ(f.count(), 1U);
  EXPECT_FALSE(f.AddIfAbsent("x").value());
  EXPECT_EQ(f.count(), 1U);
  EXPECT_TRUE(f.MayContain("x"));
}

// AddHash(h) is AddHashPair(ExpandHash(h)): the caller's hash replaces HashKey.
TEST(BloomFilterTest, AddHashUsesTheExpandedHash) {
  auto a = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  auto b = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  EXPECT_TRUE(a.AddHash(42).ok());
  b.AddHashPair(ExpandHash(42));
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a.MayContainHash(42));
  EXPECT_TRUE(a.MayContainHashPair(ExpandHash(42)));
  EXPECT_FALSE(a.AddHashIfAbsent(42).value());
  EXPECT_TRUE(a.AddHashIfAbsent(43).value());
  // A key and its HashKey pair are the same thing under hash id 1, its ShortKeyPair
  // under hash id 4.
  auto c = MakeFilter({.capacity = 1000, .fp_rate = 0.01, .hash_id = kHashIdXxh3DoubleHashing});
  c.AddHashPair(HashKey("k"));
  EXPECT_TRUE(c.MayContain("k"));
  auto d = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  d.AddHashPair(HashKeyShortPair("k"));
  EXPECT_TRUE(d.MayContain("k"));
}

// ---------------------------------------------------------------------- merge

TEST(BloomFilterMergeTest, UnionAndIntersectionOfBits) {
  auto a = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  auto b = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  for (std::uint64_t i = 0; i < 300; ++i) EXPECT_TRUE(a.Add(Key('A', i)).ok());
  for (std::uint64_t i = 0; i < 300; ++i) EXPECT_TRUE(b.Add(Key('B', i)).ok());
  auto merged = a;
  ASSERT_TRUE(merged.Merge(b).ok());
  auto intersected = a;
  ASSERT_TRUE(intersected.Intersect(b).ok());
  for (std::size_t w = 0; w < a.words().size(); ++w) {
    EXPECT_EQ(merged.words()[w], a.words()[w] | b.words()[w]) << "word " << w;
    EXPECT_EQ(intersected.words()[w], a.words()[w] & b.words()[w]) << "word " << w;
  }
  for (std::uint64_t i = 0; i < 300; ++i) {
    EXPECT_TRUE(merged.MayContain(Key('A', i)));
    EXPECT_TRUE(merged.MayContain(Key('B', i)));
  }
  // count() after a merge is the estimate from the bits: ~600 distinct keys.
  EXPECT_EQ(merged.count(), merged.EstimatedCount());
  EXPECT_NEAR(static_cast<double>(merged.count()), 600, 30);
  EXPECT_EQ(intersected.count(), intersected.EstimatedCount());
}

TEST(BloomFilterMergeTest, DifferentBitsOrHashesAreIncompatible) {
  auto a = MakeFilter({.num_bits = 1000, .num_hashes = 3});
  auto more_bits = MakeFilter({.num_bits = 1024, .num_hashes = 3});
  auto more_hashes = MakeFilter({.num_bits = 1000, .num_hashes = 4});
  for (const BloomFilter* other : {&more_bits, &more_hashes}) {
    const Status merge = a.Merge(*other);
    ASSERT_FALSE(merge.ok());
    EXPECT_EQ(merge.error().code(), ErrorCode::kIncompatible);
    EXPECT_NE(merge.error().message().find("1000 bits/3 hashes"), std::string::npos) << merge.error().message();
    const Status intersect = a.Intersect(*other);
    ASSERT_FALSE(intersect.ok());
    EXPECT_EQ(intersect.error().code(), ErrorCode::kIncompatible);
  }
  // Same bits and hashes, different capacity: compatible (the bits mean the same).
  auto other_capacity = MakeFilter({.capacity = 7, .num_bits = 1000, .num_hashes = 3});
  EXPECT_TRUE(a.Merge(other_capacity).ok());
}

// ---------------------------------------------------------------------- value type

TEST(BloomFilterValueTest, CopiesAreDeepAndMovesSteal) {
  auto a = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  EXPECT_TRUE(a.Add("one").ok());
  BloomFilter copy = a;
  EXPECT_TRUE(copy.Add("two").ok());
  EXPECT_TRUE(copy.MayContain("one"));
  EXPECT_FALSE(a.MayContain("two")) << "the copy shares words with the original";
  EXPECT_NE(a.words().data(), copy.words().data());
  EXPECT_FALSE(a == copy);
  const std::uint64_t* data = copy.words().data();
  BloomFilter moved = std::move(copy);
  EXPECT_EQ(moved.words().data(), data);
  EXPECT_TRUE(moved.MayContain("two"));
  a = moved;
  EXPECT_TRUE(a == moved);
  EXPECT_TRUE(a.MayContain("two"));
}

TEST(BloomFilterValueTest, EqualityComparesParametersCountAndBits) {
  auto a = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  auto b = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a.Add("k").ok());
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(b.Add("k").ok());
  EXPECT_TRUE(a == b);
  // The same bits with another count (the header's count field, checksum repaired).
  bloomkit_test::Bytes bytes = b.Serialize();
  bloomkit_test::StoreLE(bytes, bloomkit_test::layout::kCount, 5);
  bloomkit_test::FixChecksum(bytes);
  auto counted = bloomkit::BloomFilter::Deserialize(bytes);
  ASSERT_TRUE(counted.ok()) << counted.error().message();
  EXPECT_EQ(counted->count(), 5U);
  EXPECT_FALSE(a == counted.value());
  EXPECT_FALSE(MakeFilter({.capacity = 1000, .fp_rate = 0.01}) == MakeFilter({.capacity = 1001, .fp_rate = 0.01}));
}

// A filter built from the bits of another (as the counting, concurrent and scalable
// filters build theirs, detail/classic_bits.h) with its count and sizing is that filter:
// equal, the same file bytes and answers, and the inline Add path of hash id 4 kept.
TEST(BloomFilterValueTest, FilterOverBitsOfAnotherIsThatFilter) {
  for (const std::uint16_t hash_id : {kHashIdXxh3DoubleHashing, kHashIdShort64}) {
    auto a = MakeFilter({.capacity = 2000, .fp_rate = 0.01, .hash_id = hash_id});
    for (std::uint64_t i = 0; i < 1500; ++i) ASSERT_TRUE(a.Add(Key('v', i).view()).ok());
    WordArray words = WordArray::Allocate(a.words().size());
    ASSERT_TRUE(words.ok());
    std::ranges::copy(a.words(), words.span().begin());
    BloomFilter b(internal::ClassicBits(a.num_bits(), a.num_hashes(), a.hash_id(), std::move(words)), a.count(),
                  a.capacity(), a.fp_rate());
    EXPECT_TRUE(a == b) << "hash id " << hash_id;
    EXPECT_TRUE(a.bits() == b.bits());
    EXPECT_EQ(a.Serialize(), b.Serialize());
    for (std::uint64_t i = 0; i < 1500; ++i) ASSERT_TRUE(b.MayContain(Key('v', i).view()));
    EXPECT_EQ(b.bits().TakesInlinePath(Key('w', 0).view().substr(0, 8)),
              a.bits().TakesInlinePath(Key('w', 0).view().substr(0, 8)));
    // Words written through bits() are the filter's own.
    b.bits().mutable_words()[0] ^= 1;
    EXPECT_FALSE(a == b);
    EXPECT_FALSE(a.bits() == b.bits());
  }
}

// ---------------------------------------------------------------------- loading

TEST(BloomFilterLoadTest, ABlockedFileIsTheWrongKind) {
  auto blocked = BlockedBloomFilter::Create({.capacity = 100, .fp_rate = 0.01});
  ASSERT_TRUE(blocked.ok());
  auto loaded = BloomFilter::Deserialize(blocked->Serialize());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code(), ErrorCode::kWrongKind);
  EXPECT_NE(loaded.error().message().find("blocked"), std::string::npos) << loaded.error().message();
}

TEST(BloomFilterLoadTest, BitsPastNumBitsAreRejected) {
  auto f = MakeFilter({.num_bits = 100, .num_hashes = 3});  // 2 words, 28 spare bits
  auto bytes = f.Serialize();
  // Bit 100 is bit 36 of word 1: byte 128 + 8 + 4, bit 4.
  bytes[bloomkit_test::layout::kHeaderBytes + 12] |= std::byte{0x10};
  bloomkit_test::FixChecksum(bytes);
  auto loaded = BloomFilter::Deserialize(bytes);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code(), ErrorCode::kParameterMismatch);
  // Bit 99, the last real one, is fine.
  bytes = f.Serialize();
  bytes[bloomkit_test::layout::kHeaderBytes + 12] |= std::byte{0x08};
  bloomkit_test::FixChecksum(bytes);
  EXPECT_TRUE(BloomFilter::Deserialize(bytes).ok());
}

TEST(BloomFilterLoadTest, HashCountOutOfRangeIsRejected) {
  auto f = MakeFilter({.num_bits = 1000, .num_hashes = 3});
  for (const std::uint64_t k : {0ULL, 65ULL, 1ULL << 40}) {
    auto bytes = f.Serialize();
    bloomkit_test::StoreLE(bytes, bloomkit_test::layout::kParams + 8, k);
    bloomkit_test::FixChecksum(bytes);
    auto loaded = BloomFilter::Deserialize(bytes);
    ASSERT_FALSE(loaded.ok()) << "k=" << k;
    EXPECT_EQ(loaded.error().code(), ErrorCode::kParameterMismatch) << loaded.error().message();
    EXPECT_NE(loaded.error().message().find(std::to_string(k)), std::string::npos) << loaded.error().message();
  }
}

}  // namespace
}  // namespace bloomkit
