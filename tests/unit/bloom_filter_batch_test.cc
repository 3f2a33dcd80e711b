// SPDX-License-Identifier: Apache-2.0
// bloomkit/bloom_filter.h: the classic filter's batch calls (AddBatch, AddHashBatch,
// MayContainBatch, MayContainHashBatch) against its single-key calls, at every probe
// count, batch length and filter size that takes another path through the batch code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomkit/bloom_filter.h"
#include "contract/test_support.h"
#include "internal/filter_common.h"
#include "unit/classic_filter_support.h"

namespace bloomkit {
namespace {

using bloomkit_test::Key;
using bloomkit_test::KeySet;

// Batch sizes around the prefetch window and group lengths (4, 16), and odd tails.
const std::uint64_t kBatchSizes[] = {0, 1, 3, 4, 5, 15, 16, 17, 33, 1000, 4099};

TEST(BloomFilterBatchTest, MayContainBatchEqualsSingleQueries) {
  auto f = MakeFilter({.capacity = 3000, .fp_rate = 0.05});
  for (std::uint64_t i = 0; i < 3000; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  for (const std::uint64_t n : kBatchSizes) {
    // Present and absent keys (with ~5% false positives) interleaved.
    KeySet present('p', 0, n);
    KeySet absent('a', 0, n);
    std::vector<std::string_view> keys;
    for (std::uint64_t i = 0; i < n; ++i) keys.push_back(i % 2 == 0 ? present.views[i] : absent.views[i]);
    std::unique_ptr<bool[]> out_storage(new bool[n + 3]);
    std::span<bool> out(out_storage.get(), n + 3);
    std::fill(out.begin(), out.end(), true);
    const std::size_t hits = f.MayContainBatch(keys, out);
    std::size_t want_hits = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], f.MayContain(keys[i])) << "batch of " << n << ", key " << i;
      want_hits += f.MayContain(keys[i]) ? 1U : 0U;
    }
    EXPECT_EQ(hits, want_hits) << "batch of " << n;
    for (std::uint64_t i = n; i < n + 3; ++i) EXPECT_TRUE(out[i]) << "wrote past the keys";
  }
}

TEST(BloomFilterBatchTest, AddBatchEqualsRepeatedAdd) {
  for (const std::uint64_t n : kBatchSizes) {
    KeySet keys('p', 0, n);
    auto batched = MakeFilter({.capacity = 2000, .fp_rate = 0.01});
    auto single = MakeFilter({.capacity = 2000, .fp_rate = 0.01});
    EXPECT_TRUE(batched.AddBatch(keys.views).ok());
    for (const auto key : keys.views) EXPECT_TRUE(single.Add(key).ok());
    EXPECT_TRUE(batched == single) << "batch of " << n;
    EXPECT_EQ(batched.Serialize(), single.Serialize()) << "batch of " << n;
    EXPECT_EQ(batched.count(), single.count());
  }
}

// Batch adds fix k once per batch and set the bits from positions stored while their
// lines were prefetched: for every unrolled k (1..16) and the generic loop (17..20),
// under both hashes and for 64-bit hashes, the bits and count equal those of single
// adds. Keys of 2 to 12 bytes take both forms of hash id 4; repeated keys and a small
// filter make many adds set no new bit, so the count is tested too; a batch of 1 and
// a partial last group take the edges.
TEST(BloomFilterBatchTest, AddBatchEqualsRepeatedAddForEveryProbeCount) {
  std::vector<std::string> keys;
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t i = 0; i < 437; ++i) {
    keys.push_back(std::string(Key('p', i % 301).view().substr(0, 2 + i % 301 % 11)));  // 2..12 bytes
    hashes.push_back((i % 301) * 0x9e3779b97f4a7c15ULL);
  }
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  for (const std::uint16_t hash_id : {kHashIdXxh3DoubleHashing, kHashIdShort64}) {
    for (std::uint32_t k = 1; k <= 20; ++k) {
      const BloomOptions options{.num_bits = 6001, .num_hashes = k, .hash_id = hash_id};
      for (const std::size_t n : {std::size_t{1}, views.size()}) {
        auto batched = MakeFilter(options);
        auto single = MakeFilter(options);
        ASSERT_TRUE(batched.AddBatch(std::span(views).first(n)).ok());
        for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(single.Add(views[i]).ok());
        EXPECT_TRUE(std::ranges::equal(batched.words(), single.words())) << "hash " << hash_id << ", k " << k;
        EXPECT_EQ(batched.count(), single.count()) << "hash " << hash_id << ", k " << k;

        auto batched_hashes = MakeFilter(options);
        auto single_hashes = MakeFilter(options);
        ASSERT_TRUE(batched_hashes.AddHashBatch(std::span(hashes).first(n)).ok());
        for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(single_hashes.AddHash(hashes[i]).ok());
        EXPECT_TRUE(std::ranges::equal(batched_hashes.words(), single_hashes.words())) << "k " << k;
        EXPECT_EQ(batched_hashes.count(), single_hashes.count()) << "k " << k;
      }
    }
  }
}

// A batch's answers against single calls: each the same, every even-indexed (added)
// item found, and the returned hit count the number of true answers.
template <typename Items, typename Single>
void ExpectBatchAgrees(const Items& items, const bool* out, std::size_t hits, Single single, std::uint32_t k) {
  std::size_t want = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    ASSERT_EQ(out[i], single(items[i])) << "k " << k << ", item " << i;
    if (i % 2 == 0) {
      ASSERT_TRUE(out[i]) << "k " << k << ", added item " << i << " not found";
    }
    want += out[i] ? 1U : 0U;
  }
  EXPECT_EQ(hits, want);
}

// Filters under 4 MiB answer batches in two branch-free passes (the first 2 probes of
// every key, then the rest for the keys that passed). Filled to capacity at 5%, absent
// keys fail in either pass; k = 7 and 3 take the passes, k = 2 and 1 the one-wave path.
TEST(BloomFilterBatchTest, BatchesOfACachedFilterEqualSingleKeyCalls) {
  for (const std::uint32_t k : {7U, 3U, 2U, 1U}) {
    auto f = MakeFilter({.capacity = 20'000, .num_bits = 20'000 * 6, .num_hashes = k});
    std::vector<std::uint64_t> added;
    for (std::uint64_t i = 0; i < 20'000; ++i) added.push_back(bloomkit_test::SplitMix64(i + 7));
    EXPECT_TRUE(f.AddHashBatch(added).ok());
    std::vector<std::uint64_t> hashes;
    for (std::uint64_t i = 0; i < 20'000; ++i) hashes.push_back(i % 2 == 0 ? added[i] : ~added[i]);
    std::unique_ptr<bool[]> out(new bool[hashes.size()]);
    std::size_t hits = f.MayContainHashBatch(hashes, std::span<bool>(out.get(), hashes.size()));
    ExpectBatchAgrees(
        hashes, out.get(), hits, [&](std::uint64_t h) { return f.MayContainHash(h); }, k);
    EXPECT_GT(hits, 10'000U) << "k " << k << ": some absent keys pass";
    EXPECT_LT(hits, 20'000U) << "k " << k << ": and some fail";

    KeySet present('p', 0, 5'000);
    KeySet absent('a', 0, 5'000);
    EXPECT_TRUE(f.AddBatch(present.views).ok());
    std::vector<std::string_view> keys;
    for (std::size_t i = 0; i < 5'000; ++i) keys.push_back(i % 2 == 0 ? present.views[i] : absent.views[i]);
    hits = f.MayContainBatch(keys, std::span<bool>(out.get(), keys.size()));
    ExpectBatchAgrees(
        keys, out.get(), hits, [&](std::string_view key) { return f.MayContain(key); }, k);
  }
}

// Filters of 4 MiB and more answer batches of k > 3 in rounds over groups of 64 keys
// (probe r of every key still in, then probe r + 1); this one is filled to its capacity
// so that absent keys leave in every round, and k = 7 and k = 2 (one prefetched wave)
// both run.
TEST(BloomFilterBatchTest, BatchesOfAFilterInMemoryEqualSingleKeyCalls) {
  for (const std::uint32_t k : {7U, 2U}) {
    auto f = MakeFilter({.capacity = 3'600'000, .num_bits = std::uint64_t{36} << 20, .num_hashes = k});
    std::vector<std::uint64_t> added;
    for (std::uint64_t i = 0; i < 3'600'000; ++i) added.push_back(bloomkit_test::SplitMix64(i));
    EXPECT_TRUE(f.AddHashBatch(added).ok());
    std::vector<std::uint64_t> hashes;
    for (std::uint64_t i = 0; i < 20'000; ++i) hashes.push_back(i % 2 == 0 ? added[i * 97] : ~added[i * 97]);
    std::unique_ptr<bool[]> out(new bool[hashes.size()]);
    std::size_t hits = f.MayContainHashBatch(hashes, std::span<bool>(out.get(), hashes.size()));
    ExpectBatchAgrees(
        hashes, out.get(), hits, [&](std::uint64_t h) { return f.MayContainHash(h); }, k);
    EXPECT_LT(hits, 10'000U + 2'000U) << "k " << k << ": far more false positives than expected";

    KeySet present('p', 0, 10'000);
    KeySet absent('a', 0, 10'000);
    EXPECT_TRUE(f.AddBatch(present.views).ok());
    std::vector<std::string_view> keys;
    for (std::size_t i = 0; i < 10'000; ++i) keys.push_back(i % 2 == 0 ? present.views[i] : absent.views[i]);
    hits = f.MayContainBatch(keys, std::span<bool>(out.get(), keys.size()));
    ExpectBatchAgrees(
        keys, out.get(), hits, [&](std::string_view key) { return f.MayContain(key); }, k);
  }
}

// The rounds of a filter in DRAM at every length around the group of 64 keys: a batch
// of 1, one group less one, one group, one group and one, two groups and one. The
// filter is 3/4 full, so that absent keys leave at every probe and some (0.75^k) stay
// to the last one; k = 4 and 20 are the shortest and a long walk.
TEST(BloomFilterBatchTest, RoundsOfAFilterInMemoryEqualSingleCallsAtEveryLength) {
  const std::uint64_t num_bits = (internal::kInMemoryFilterBytes + 4096) * 8;
  for (const std::uint32_t k : {4U, 7U, 20U}) {
    auto f = MakeFilter({.num_bits = num_bits, .num_hashes = k});
    const std::uint64_t n = num_bits / k * 14 / 10;
    std::vector<std::uint64_t> added;
    for (std::uint64_t i = 0; i < n; ++i) added.push_back(bloomkit_test::SplitMix64(i));
    ASSERT_TRUE(f.AddHashBatch(added).ok());
    for (const std::size_t length :
         {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{129}, std::size_t{3000}}) {
      std::vector<std::uint64_t> hashes;
      for (std::size_t i = 0; i < length; ++i) hashes.push_back(i % 2 == 0 ? added[i * 31] : ~added[i * 31]);
      std::unique_ptr<bool[]> out(new bool[length]);
      const std::size_t hits = f.MayContainHashBatch(hashes, std::span<bool>(out.get(), length));
      ExpectBatchAgrees(
          hashes, out.get(), hits, [&](std::uint64_t h) { return f.MayContainHash(h); }, k);
      if (length == 3000) {
        EXPECT_GT(hits, 1500U) << "k " << k << ": some absent keys pass every probe";
        EXPECT_LT(hits, 3000U) << "k " << k << ": and most do not";
      }
    }
  }
}

TEST(BloomFilterBatchTest, HashBatchesEqualSingleHashCalls) {
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t i = 0; i < 1000; ++i) hashes.push_back(bloomkit_test::SplitMix64(i * 31 + 5));
  auto batched = MakeFilter({.capacity = 2000, .fp_rate = 0.01});
  auto single = MakeFilter({.capacity = 2000, .fp_rate = 0.01});
  EXPECT_TRUE(batched.AddHashBatch(std::span<const std::uint64_t>(hashes).first(500)).ok());
  for (std::size_t i = 0; i < 500; ++i) EXPECT_TRUE(single.AddHash(hashes[i]).ok());
  EXPECT_TRUE(batched == single);
  std::unique_ptr<bool[]> out(new bool[hashes.size()]);
  const std::size_t hits = batched.MayContainHashBatch(hashes, std::span<bool>(out.get(), hashes.size()));
  std::size_t want = 0;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    ASSERT_EQ(out[i], batched.MayContainHash(hashes[i])) << "hash " << i;
    if (i < 500) {
      ASSERT_TRUE(out[i]) << "added hash " << i << " not found";
    }
    want += out[i] ? 1U : 0U;
  }
  EXPECT_EQ(hits, want);
  EXPECT_LT(hits, 520U) << "far more false positives than 1% of 500 absent hashes";
}

}  // namespace
}  // namespace bloomkit
