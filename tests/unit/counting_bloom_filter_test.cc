// SPDX-License-Identifier: Apache-2.0
// CountingBloomFilter: sizing, Remove/Count semantics, saturation, the classic layout,
// and its serialized form beyond the contract suite.
#include "bloomkit/counting_bloom_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/bloom_filter.h"
#include "bloomkit/byte_source.h"
#include "bloomkit/format.h"
#include "bloomkit/hash.h"
#include "contract/test_support.h"

namespace bloomkit_test {
namespace {

using bloomkit::CountingBloomFilter;
using bloomkit::CountingOptions;
using bloomkit::ErrorCode;

CountingBloomFilter Make(std::uint64_t capacity, double fp_rate, std::uint32_t counter_bits = 4) {
  auto f =
      CountingBloomFilter::Create({.bloom = {.capacity = capacity, .fp_rate = fp_rate}, .counter_bits = counter_bits});
  EXPECT_TRUE(f.ok()) << Describe(f);
  return std::move(f).value();
}

// Sum of all counters, read from the documented layout.
std::uint64_t CounterSum(const CountingBloomFilter& f) {
  const std::uint32_t c = f.counter_bits();
  const std::uint64_t per_word = 64 / c;
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < f.num_counters(); ++i) {
    sum += (f.words()[i / per_word] >> ((i % per_word) * c)) & f.max_count();
  }
  return sum;
}

TEST(CountingBloomFilterTest, RejectsBadOptionsNamingTheValue) {
  auto bits = CountingBloomFilter::Create({.bloom = {.capacity = 100}, .counter_bits = 3});
  ASSERT_FALSE(bits.ok());
  EXPECT_EQ(bits.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bits.error().message().find("got 3"), std::string::npos) << bits.error().message();

  auto rate = CountingBloomFilter::Create({.bloom = {.capacity = 100, .fp_rate = 1.5}});
  ASSERT_FALSE(rate.ok());
  EXPECT_EQ(rate.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(rate.error().message().find("1.5"), std::string::npos) << rate.error().message();

  auto capacity = CountingBloomFilter::Create({.bloom = {.capacity = 0}});
  ASSERT_FALSE(capacity.ok());
  EXPECT_EQ(capacity.error().code(), ErrorCode::kInvalidArgument);

  auto hashes = CountingBloomFilter::Create({.bloom = {.num_bits = 1000, .num_hashes = 65}});
  ASSERT_FALSE(hashes.ok());
  EXPECT_EQ(hashes.error().code(), ErrorCode::kInvalidArgument);
}

// Counting filters hash with id 1 only: asking for another (4, the classic filter's
// short-key hash, included) is an error, not a filter that quietly hashes with id 1.
TEST(CountingBloomFilterTest, RefusesHashIdsItDoesNotImplement) {
  for (const std::uint16_t id : {std::uint16_t{0}, bloomkit::kHashIdXxh3DoubleHashing}) {
    auto f = CountingBloomFilter::Create({.bloom = {.capacity = 100, .hash_id = id}});
    ASSERT_TRUE(f.ok()) << "hash id " << id << ": " << Describe(f);
    EXPECT_EQ(LoadU16(f->Serialize(), layout::kHashId), bloomkit::kHashIdXxh3DoubleHashing);
  }
  for (const int id : {2, 3, 4, 5, 65535}) {
    const auto hash_id = static_cast<std::uint16_t>(id);
    for (const bloomkit::BloomOptions& bloom :
         {bloomkit::BloomOptions{.capacity = 100, .hash_id = hash_id},
          bloomkit::BloomOptions{.num_bits = 1000, .num_hashes = 3, .hash_id = hash_id}}) {
      auto bad = CountingBloomFilter::Create({.bloom = bloom});
      ASSERT_FALSE(bad.ok()) << "hash id " << id << " was accepted";
      EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(bad.error().message().find("hash id " + std::to_string(id)), std::string::npos)
          << bad.error().message();
      EXPECT_NE(bad.error().message().find("1 (XXH3-128)"), std::string::npos) << bad.error().message();
    }
  }
}

// The streamed load takes a header its caller decoded: one naming another hash is
// refused there too, as a file carrying it is by the header check.
TEST(CountingBloomFilterTest, StreamedLoadRefusesAHeaderOfAnotherHash) {
  CountingBloomFilter f = Make(100, 0.01);
  for (std::uint64_t i = 0; i < 20; ++i) EXPECT_TRUE(f.Add(Key(kPresent, i)).ok());
  const Bytes bytes = f.Serialize();
  auto header = bloomkit::PeekHeader(bytes);
  ASSERT_TRUE(header.ok()) << Describe(header);
  auto load = [&](std::uint16_t hash_id) {
    bloomkit::FileHeader h = header.value();
    h.hash_id = hash_id;
    std::size_t at = layout::kHeaderBytes;
    auto read = [&](std::span<std::byte> out) -> bloomkit::Status {
      std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), out.size(), out.begin());
      at += out.size();
      return {};
    };
    return CountingBloomFilter::Deserialize(h, bloomkit::ByteSource(read));
  };
  auto good = load(bloomkit::kHashIdXxh3DoubleHashing);
  ASSERT_TRUE(good.ok()) << Describe(good);
  EXPECT_TRUE(good.value() == f);
  for (const std::uint16_t id : {std::uint16_t{0}, bloomkit::kHashIdXxh3x64, bloomkit::kHashIdShort64}) {
    auto bad = load(id);
    ASSERT_FALSE(bad.ok()) << "hash id " << id << " was loaded";
    EXPECT_EQ(bad.error().code(), ErrorCode::kUnknownHash);
    EXPECT_NE(bad.error().message().find("hash id " + std::to_string(id)), std::string::npos) << bad.error().message();
  }
}

TEST(CountingBloomFilterTest, MemoryLimitIsCheckedForTheCountersNotTheBits) {
  // 10^6 keys at 1%: 9,585,059 positions = 1.2 MB as bits, 4.8 MB as 4-bit counters.
  auto f = CountingBloomFilter::Create({.bloom = {.capacity = 1'000'000, .max_memory_bytes = 2'000'000}});
  ASSERT_FALSE(f.ok()) << "a 4.8 MB counting filter fit in 2 MB";
  EXPECT_EQ(f.error().code(), ErrorCode::kTooLarge);
  EXPECT_NE(f.error().message().find("2000000"), std::string::npos) << f.error().message();
  EXPECT_TRUE(CountingBloomFilter::Create({.bloom = {.capacity = 1'000'000, .max_memory_bytes = 5'000'000}}).ok());
}

TEST(CountingBloomFilterTest, SizedLikeTheClassicFilterWithWiderCells) {
  auto classic = bloomkit::BloomFilter::Create({.capacity = 100'000, .fp_rate = 0.001});
  ASSERT_TRUE(classic.ok());
  for (const std::uint32_t bits : {4U, 8U}) {
    const CountingBloomFilter f = Make(100'000, 0.001, bits);
    EXPECT_EQ(f.num_counters(), classic->num_bits());
    EXPECT_EQ(f.num_hashes(), classic->num_hashes());
    EXPECT_EQ(f.num_bits(), classic->num_bits() * bits);
    EXPECT_EQ(f.max_count(), (1U << bits) - 1);
    // Whole 64-bit words: within 8 bytes of counters * bits / 8.
    EXPECT_GE(f.memory_bytes() * 8, f.num_bits());
    EXPECT_LT(f.memory_bytes() * 8, f.num_bits() + 64);
    EXPECT_DOUBLE_EQ(f.ExpectedFpRate(), classic->ExpectedFpRate());
  }
}

TEST(CountingBloomFilterTest, PositionsAreTheClassicFiltersPositions) {
  // Counting filters probe with hash id 1 (XXH3-128), as classic filters that ask for it.
  auto classic = bloomkit::BloomFilter::Create(
      {.capacity = 20'000, .fp_rate = 0.01, .hash_id = bloomkit::kHashIdXxh3DoubleHashing});
  ASSERT_TRUE(classic.ok());
  CountingBloomFilter f = Make(20'000, 0.01);
  for (std::uint64_t i = 0; i < 20'000; ++i) {
    EXPECT_TRUE(classic->Add(Key(kPresent, i)).ok());
    EXPECT_TRUE(f.Add(Key(kPresent, i)).ok());
  }
  auto bits = f.ToBloomFilter();
  ASSERT_TRUE(bits.ok()) << Describe(bits);
  EXPECT_TRUE(std::equal(bits->words().begin(), bits->words().end(), classic->words().begin()))
      << "counting positions differ from the classic filter's";
}

TEST(CountingBloomFilterTest, RemoveUndoesAddAndCountIsTheMinimum) {
  CountingBloomFilter f = Make(1000, 0.01);
  const Key key(kPresent, 1);
  EXPECT_EQ(f.Occurrences(key), 0U);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(f.Add(key).ok());
  EXPECT_EQ(f.Occurrences(key), 3U);  // the only key: every one of its counters holds 3
  EXPECT_EQ(f.count(), 3U);
  EXPECT_TRUE(f.Remove(key));
  EXPECT_EQ(f.Occurrences(key), 2U);
  EXPECT_TRUE(f.Remove(key));
  EXPECT_TRUE(f.Remove(key));
  EXPECT_FALSE(f.MayContain(key));
  EXPECT_EQ(f.CountNonZero(), 0U);
  EXPECT_EQ(f.count(), 0U);
  EXPECT_FALSE(f.Remove(key)) << "removed a key that is no longer there";
}

TEST(CountingBloomFilterTest, FailedRemoveChangesNothing) {
  CountingBloomFilter f = Make(1000, 0.01);
  for (std::uint64_t i = 0; i < 500; ++i) EXPECT_TRUE(f.Add(Key(kPresent, i)).ok());
  const Bytes before = f.Serialize();
  std::uint64_t refused = 0;
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const Key absent(kAbsent, i);
    if (f.MayContain(absent)) continue;  // a false positive would be removed: skip it
    ASSERT_FALSE(f.Remove(absent)) << "absent key " << i;
    ++refused;
  }
  EXPECT_GT(refused, 1900U);
  EXPECT_EQ(f.Serialize(), before) << "a refused Remove changed the filter";
}

TEST(CountingBloomFilterTest, RemoveTakesRepeatedPositionsIntoAccount) {
  // 8 counters and 4 probes: most keys hit some counter twice. Whatever the mix of adds
  // and removes, a Remove that succeeds takes exactly k from the counters (no counter
  // wraps below zero), and one that fails takes nothing.
  auto made = CountingBloomFilter::Create({.bloom = {.num_bits = 8, .num_hashes = 4}, .counter_bits = 8});
  ASSERT_TRUE(made.ok()) << Describe(made);
  CountingBloomFilter& f = made.value();
  for (std::uint64_t i = 0; i < 3000; ++i) {
    const Key key(kPresent, SplitMix64(i) % 6);
    const std::uint64_t sum = CounterSum(f);
    if (SplitMix64(i + 7777) % 2 == 0 && sum < 8 * 200) {
      EXPECT_TRUE(f.Add(key).ok());
      ASSERT_EQ(CounterSum(f), sum + 4) << "op " << i;
    } else if (f.Remove(key)) {
      ASSERT_EQ(CounterSum(f) + 4, sum) << "op " << i << ": a counter went below zero";
    } else {
      ASSERT_EQ(CounterSum(f), sum) << "op " << i << ": a refused Remove changed counters";
    }
  }
  EXPECT_EQ(f.saturated_counters(), 0U);
}

// Counter overflow: one key added 20 times with 4-bit counters, then
// removed 20 times, among other keys: no other key may become a false negative.
TEST(CountingBloomFilterTest, SaturatedCountersNeverCauseFalseNegatives) {
  CountingBloomFilter f = Make(2000, 0.01, 4);
  constexpr std::uint64_t kOthers = 1500;
  for (std::uint64_t i = 0; i < kOthers; ++i) EXPECT_TRUE(f.Add(Key(kPresent, i)).ok());
  const Key hot('h', 0);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f.Add(hot).ok());
  // Its counters passed 15: at least its distinct positions saturated.
  EXPECT_GE(f.saturated_counters(), 1U);
  EXPECT_EQ(f.Occurrences(hot), 15U) << "a saturated minimum reads as max_count()";
  // Every counter of the hot key is saturated: no remove can take an occurrence off,
  // so each one says so and the count of items stays (it once went down to 0 while
  // nothing was decremented).
  const std::uint64_t count = f.count();
  const std::vector<std::uint64_t> words(f.words().begin(), f.words().end());
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(f.Remove(hot)) << "remove " << i;
  EXPECT_EQ(f.count(), count);
  EXPECT_TRUE(std::equal(words.begin(), words.end(), f.words().begin())) << "a refused Remove changed counters";
  std::uint64_t lost = 0;
  for (std::uint64_t i = 0; i < kOthers; ++i) lost += f.MayContain(Key(kPresent, i)) ? 0U : 1U;
  EXPECT_EQ(lost, 0U) << "overflow produced false negatives";
  // Saturated counters stay put: the hot key still reads as present.
  EXPECT_TRUE(f.MayContain(hot));
  EXPECT_GE(f.saturated_counters(), 1U);
  // Removing the others one by one still never loses a remaining one.
  for (std::uint64_t i = 0; i < kOthers; i += 2) ASSERT_TRUE(f.Remove(Key(kPresent, i))) << i;
  for (std::uint64_t i = 1; i < kOthers; i += 2) ASSERT_TRUE(f.MayContain(Key(kPresent, i))) << i;
}

// A key with some counters saturated and some not: a remove takes the occurrence off the
// ones below max_count() and counts as a removal.
TEST(CountingBloomFilterTest, PartlySaturatedKeyRemovesFromTheOthers) {
  CountingBloomFilter f = Make(2000, 0.01, 4);
  const Key hot('h', 0);
  for (int i = 0; i < 15; ++i) ASSERT_TRUE(f.Add(hot).ok());  // every counter of hot at 15: saturated
  ASSERT_FALSE(f.Remove(hot));
  // Find another key sharing at least one (saturated) counter with hot but not all.
  const std::uint64_t before_saturated = f.saturated_counters();
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const Key other(kPresent, i);
    if (f.MayContain(other)) continue;
    std::uint64_t shared = 0;
    CountingBloomFilter probe = Make(2000, 0.01, 4);
    ASSERT_TRUE(probe.Add(other).ok());
    const auto pw = probe.words();
    const auto fw = f.words();
    for (std::size_t w = 0; w < pw.size(); ++w) {
      for (unsigned c = 0; c < 16; ++c) {
        if (((pw[w] >> (4 * c)) & 15U) != 0 && ((fw[w] >> (4 * c)) & 15U) == 15U) ++shared;
      }
    }
    if (shared == 0) continue;
    ASSERT_TRUE(f.Add(other).ok());
    const std::uint64_t count = f.count();
    EXPECT_TRUE(f.Remove(other));
    EXPECT_EQ(f.count(), count - 1);
    EXPECT_EQ(f.saturated_counters(), before_saturated);
    EXPECT_TRUE(f.MayContain(hot));
    return;
  }
  FAIL() << "no key shares a counter with the hot key";
}

TEST(CountingBloomFilterTest, EightBitCountersDoNotSaturateAtTwenty) {
  CountingBloomFilter f = Make(2000, 0.01, 8);
  const Key hot('h', 0);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f.Add(hot).ok());
  EXPECT_EQ(f.saturated_counters(), 0U);
  EXPECT_EQ(f.Occurrences(hot), 20U);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(f.Remove(hot));
  EXPECT_FALSE(f.MayContain(hot));
  EXPECT_EQ(f.CountNonZero(), 0U);
}

TEST(CountingBloomFilterTest, HashFormsMatchTheKeyForms) {
  CountingBloomFilter f = Make(1000, 0.01);
  for (std::uint64_t i = 0; i < 500; ++i) EXPECT_TRUE(f.AddHash(SplitMix64(i)).ok());
  for (std::uint64_t i = 0; i < 500; ++i) ASSERT_TRUE(f.MayContainHash(SplitMix64(i)));
  for (std::uint64_t i = 0; i < 500; ++i) ASSERT_TRUE(f.RemoveHash(SplitMix64(i)));
  EXPECT_EQ(f.CountNonZero(), 0U);
  EXPECT_EQ(f.OccurrencesHashPair(bloomkit::HashKey("x")), f.Occurrences("x"));
}

TEST(CountingBloomFilterTest, RoundTripKeepsSaturatedCounters) {
  CountingBloomFilter f = Make(500, 0.01);
  for (std::uint64_t i = 0; i < 300; ++i) EXPECT_TRUE(f.Add(Key(kPresent, i)).ok());
  for (int i = 0; i < 18; ++i) EXPECT_TRUE(f.Add("hot").ok());
  ASSERT_GT(f.saturated_counters(), 0U);
  for (const bool compress : {false, true}) {
    const Bytes bytes = f.Serialize({.compress = compress});
    EXPECT_EQ(LoadU64(bytes, layout::kParams + 8 * 3), f.saturated_counters());
    auto loaded = CountingBloomFilter::Deserialize(bytes);
    ASSERT_TRUE(loaded.ok()) << Describe(loaded);
    EXPECT_TRUE(loaded.value() == f);
    EXPECT_EQ(loaded->saturated_counters(), f.saturated_counters());
    EXPECT_EQ(loaded->Serialize({.compress = compress}), bytes);
  }
}

TEST(CountingBloomFilterTest, PayloadIsTheDocumentedNibbleLayout) {
  // One counter set through the API shows up where docs/FORMAT.md says: counter i is
  // nibble i % 2 (low first) of payload byte i / 2.
  auto made = CountingBloomFilter::Create({.bloom = {.num_bits = 64, .num_hashes = 1}});
  ASSERT_TRUE(made.ok());
  CountingBloomFilter& f = made.value();
  const bloomkit::HashPair h = bloomkit::HashKey("k");
  const std::uint64_t pos = bloomkit::FastRange64(h.h1, 64);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(f.Add("k").ok());
  const Bytes bytes = f.Serialize();
  const unsigned byte = std::to_integer<unsigned>(bytes[layout::kHeaderBytes + pos / 2]);
  EXPECT_EQ((pos % 2 == 0 ? byte : byte >> 4) & 0xfU, 5U) << "counter " << pos;
}

TEST(CountingBloomFilterTest, CraftedPayloadsAreRejected) {
  CountingBloomFilter f = Make(100, 0.01);
  for (std::uint64_t i = 0; i < 20; ++i) EXPECT_TRUE(f.Add(Key(kPresent, i)).ok());
  const Bytes good = f.Serialize();
  auto load = [](Bytes b) {
    FixChecksum(b);
    return CountingBloomFilter::Deserialize(b);
  };
  {
    Bytes b = good;
    StoreLE(b, layout::kParams + 8 * 3, 7);  // claims 7 saturated counters, payload has 0
    auto r = load(b);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), ErrorCode::kParameterMismatch) << Describe(r);
  }
  {
    Bytes b = good;
    StoreLE(b, layout::kParams + 8 * 2, 5);  // 5-bit counters
    auto r = load(b);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), ErrorCode::kParameterMismatch) << Describe(r);
    EXPECT_NE(r.error().message().find('5'), std::string::npos);
  }
  {
    Bytes b = good;
    StoreLE(b, layout::kParams + 8 * 1, 65);  // 65 hashes
    auto r = load(b);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), ErrorCode::kParameterMismatch) << Describe(r);
  }
  {
    // A counter past num_counters (the last payload byte's high nibble, when unused).
    Bytes b = good;
    ASSERT_NE(f.num_counters() % 16, 0U) << "pick a capacity whose counters do not fill the last word";
    b[b.size() - layout::kChecksumBytes - 1] |= std::byte{0xf0};
    auto r = load(b);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), ErrorCode::kParameterMismatch) << Describe(r);
  }
}

TEST(CountingBloomFilterTest, ClearResetsCountersAndSaturation) {
  CountingBloomFilter f = Make(100, 0.01);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f.Add("hot").ok());
  ASSERT_GT(f.saturated_counters(), 0U);
  f.Clear();
  EXPECT_EQ(f.saturated_counters(), 0U);
  EXPECT_EQ(f.CountNonZero(), 0U);
  EXPECT_EQ(f.count(), 0U);
  EXPECT_FALSE(f.MayContain("hot"));
}

}  // namespace
}  // namespace bloomkit_test
