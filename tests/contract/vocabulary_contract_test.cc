// SPDX-License-Identifier: Apache-2.0
// One generic function, written only against the concepts of bloomkit/filter.h, run on
// every kind: add, batch add, query, batch query, the hash forms, remove where the kind
// is removable, merge where it is mergeable, serialize and deserialize, the estimated
// count and false-positive rate, and the bytes held. Nothing below names a kind except
// the list of kinds and their options at the bottom.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/concurrent_bloom_filter.h"
#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/filter.h"
#include "bloomkit/foreign_bloom.h"
#include "bloomkit/redisbloom.h"
#include "bloomkit/scalable_bloom_filter.h"
#include "bloomkit/synchronized.h"
#include "contract/test_support.h"

namespace bloomkit_test {
namespace {

constexpr std::uint64_t kCapacity = 4000;
constexpr std::uint64_t kKeys = 2000;  // half by Add, half by AddBatch
constexpr std::uint64_t kHashes = 500;

std::vector<std::uint64_t> Hashes(std::uint64_t first, std::uint64_t count) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t i = 0; i < count; ++i) out.push_back(SplitMix64(first + i));
  return out;
}

// Every verb of FilterOperations, on an empty filter: afterwards it holds `present` and
// `hashes`.
template <bloomkit::FilterOperations F>
void AddAndQuery(F& f, const KeySet& present, const std::vector<std::uint64_t>& hashes) {
  const std::span<const std::string_view> keys(present.views);
  for (std::string_view key : keys.first(kKeys / 2)) ASSERT_TRUE(f.Add(key).ok());
  ASSERT_TRUE(f.AddBatch(keys.subspan(kKeys / 2)).ok());
  const std::span<const std::uint64_t> all_hashes(hashes);
  for (std::uint64_t h : all_hashes.first(kHashes / 2)) ASSERT_TRUE(f.AddHash(h).ok());
  ASSERT_TRUE(f.AddHashBatch(all_hashes.subspan(kHashes / 2)).ok());

  // No false negatives, single and batch forms alike.
  std::unique_ptr<bool[]> out(new bool[kKeys]);
  EXPECT_EQ(f.MayContainBatch(keys, std::span<bool>(out.get(), kKeys)), kKeys);
  for (std::size_t i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(out[i]) << "batch query missed key " << i;
    ASSERT_TRUE(f.MayContain(keys[i])) << "query missed key " << i;
  }
  EXPECT_EQ(f.MayContainHashBatch(all_hashes, std::span<bool>(out.get(), kHashes)), kHashes);
  for (std::uint64_t h : all_hashes) ASSERT_TRUE(f.MayContainHash(h));

  // Batch and single answers agree on absent keys too.
  const KeySet absent(kAbsent, 0, kKeys);
  std::size_t single = 0;
  for (std::string_view key : absent.views) single += f.MayContain(key) ? 1U : 0U;
  EXPECT_EQ(f.MayContainBatch(absent.views, std::span<bool>(out.get(), kKeys)), single);
  EXPECT_LT(single, kKeys / 20) << "absent keys reported far above the target rate";

  // AddIfAbsent: false for what is there, true once for a new key.
  auto again = f.AddIfAbsent(keys[0]);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again.value());
  auto fresh = f.AddIfAbsent("a key added once");
  ASSERT_TRUE(fresh.ok());
  EXPECT_TRUE(fresh.value());
  auto repeat = f.AddHashIfAbsent(hashes[0]);
  ASSERT_TRUE(repeat.ok());
  EXPECT_FALSE(repeat.value());

  // Statistics, from the core (nothing computed here but the truth).
  const double truth = static_cast<double>(kKeys + kHashes + 1);
  EXPECT_NEAR(static_cast<double>(f.EstimatedCount()), truth, truth * 0.1);
  EXPECT_GE(f.count(), kKeys * 9 / 10);
  if constexpr (!bloomkit::GrowableFilter<F>) {
    EXPECT_EQ(f.capacity(), kCapacity);
  }
  EXPECT_GT(f.fp_rate(), 0.0);
  EXPECT_GT(f.ExpectedFpRate(), 0.0);
  EXPECT_GT(f.EstimatedFpRate(), 0.0);
  EXPECT_LT(f.EstimatedFpRate(), 2 * f.ExpectedFpRate()) << "below capacity the rate stays below the bound";
  EXPECT_GT(f.FillRatio(), 0.0);
  EXPECT_LT(f.FillRatio(), 1.0);
  EXPECT_GT(f.num_bits(), 0U);
  EXPECT_LE(f.num_bits(), f.memory_bytes() * 8) << "the bits live in the arrays";
  EXPECT_GE(f.bytes_held(), f.memory_bytes());
}

template <bloomkit::Filter F>
void Exercise(const typename F::Options& options) {
  auto made = F::Create(options);
  ASSERT_TRUE(made.ok()) << Describe(made);
  F f = std::move(made).value();
  const KeySet present(kPresent, 0, kKeys);
  const std::vector<std::uint64_t> hashes = Hashes(1'000'000, kHashes);
  AddAndQuery(f, present, hashes);
  if (::testing::Test::HasFatalFailure()) return;

  // The file form holds everything: the same bytes again, the same answers.
  const std::vector<std::byte> bytes = f.Serialize(bloomkit::SaveOptions{});
  auto loaded = F::Deserialize(bytes, bloomkit::LoadOptions{});
  ASSERT_TRUE(loaded.ok()) << Describe(loaded);
  EXPECT_EQ(loaded->Serialize(bloomkit::SaveOptions{}), bytes);
  EXPECT_EQ(loaded->count(), f.count());
  EXPECT_EQ(loaded->EstimatedCount(), f.EstimatedCount());
  for (std::string_view key : present.views) ASSERT_TRUE(loaded->MayContain(key));

  if constexpr (bloomkit::RemovableFilter<F>) {
    const std::uint64_t before = f.count();
    EXPECT_GE(f.Occurrences(present.views[0]), 1U);
    EXPECT_TRUE(f.Remove(present.views[0]));
    EXPECT_TRUE(f.RemoveHash(hashes[0]));
    EXPECT_EQ(f.count(), before - 2);
    EXPECT_GE(f.OccurrencesHash(hashes[1]), 1U);
    EXPECT_FALSE(f.Remove("never added, and not a false positive")) << "(a false positive would remove)";
  }
  if constexpr (bloomkit::GrowableFilter<F>) {
    EXPECT_GE(f.num_stages(), 2U) << "the options start it small: it must have grown";
  }
  if constexpr (bloomkit::MergeableFilter<F>) {
    // Two filters of the same parameters (for a scalable filter: the same stages).
    auto mine = F::Deserialize(bytes, bloomkit::LoadOptions{});
    auto theirs = F::Deserialize(bytes, bloomkit::LoadOptions{});
    ASSERT_TRUE(mine.ok() && theirs.ok());
    const KeySet extra('m', 0, 100);
    ASSERT_TRUE(theirs->AddBatch(extra.views).ok());
    const bloomkit::Status merged = mine->Merge(theirs.value());
    ASSERT_TRUE(merged.ok()) << Describe(merged);
    for (std::string_view key : extra.views) ASSERT_TRUE(mine->MayContain(key));
    for (std::string_view key : present.views) ASSERT_TRUE(mine->MayContain(key));
  }

  f.Clear();
  EXPECT_EQ(f.count(), 0U);
  std::size_t left = 0;
  for (std::string_view key : present.views) left += f.MayContain(key) ? 1U : 0U;
  EXPECT_EQ(left, 0U);
}

TEST(VocabularyContractTest, Classic) {
  Exercise<bloomkit::BloomFilter>({.capacity = kCapacity, .fp_rate = 0.01});
}
TEST(VocabularyContractTest, Blocked) {
  Exercise<bloomkit::BlockedBloomFilter>({.capacity = kCapacity, .fp_rate = 0.01});
}
TEST(VocabularyContractTest, Counting) {
  Exercise<bloomkit::CountingBloomFilter>({.bloom = {.capacity = kCapacity, .fp_rate = 0.01}});
}
TEST(VocabularyContractTest, Scalable) {
  Exercise<bloomkit::ScalableBloomFilter>({.initial_capacity = kCapacity / 8, .fp_rate = 0.01});
}
TEST(VocabularyContractTest, Cuckoo) {
  Exercise<bloomkit::CuckooFilter>({.capacity = kCapacity / 4, .fp_rate = 0.01, .expansion = 2});
}
TEST(VocabularyContractTest, RedisBloomScalable) {
  Exercise<bloomkit::RedisBloomScalableFilter>({.capacity = kCapacity / 8, .fp_rate = 0.01});
}
TEST(VocabularyContractTest, RedisBloomCuckoo) {
  Exercise<bloomkit::RedisCuckooFilter>({.capacity = kCapacity / 4, .bucket_size = 2, .expansion = 2});
}
TEST(VocabularyContractTest, ConcurrentClassic) {
  Exercise<bloomkit::ConcurrentBloomFilter>({.capacity = kCapacity, .fp_rate = 0.01});
}
TEST(VocabularyContractTest, ConcurrentBlocked) {
  Exercise<bloomkit::ConcurrentBlockedBloomFilter>({.capacity = kCapacity, .fp_rate = 0.01});
}

// Batches are a faster way to make single calls, never another meaning: a filter fed
// by AddBatch / AddHashBatch holds the bytes (bits and count) of one fed key by key, and
// MayContainBatch answers each key as MayContain does. Keys of 8 bytes (the short-key
// path of hash id 4), 16 bytes, and of every length 0..40; a filter the caches hold and
// one past kInMemoryFilterBytes (4 MiB), whose batches prefetch ahead.
std::vector<std::string> BatchKeys(int form, char tag, std::uint64_t count) {
  std::vector<std::string> keys;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::string k(Key(tag, i).view());  // 9 bytes: tag + 8
    const std::uint64_t v = SplitMix64(i ^ static_cast<std::uint64_t>(tag));
    if (form == 0) k = k.substr(1);                              // 8 bytes
    if (form == 1) k += k.substr(2);                             // 16 bytes
    if (form == 2) k = (k + k + k + k + k).substr(0, (v % 41));  // 0..40 bytes
    keys.push_back(std::move(k));
  }
  return keys;
}

template <bloomkit::Filter F>
void BatchAgreesWithSingleCalls(const typename F::Options& options, std::uint64_t num_keys) {
  for (int form = 0; form < 3; ++form) {
    SCOPED_TRACE(testing::Message() << "key form " << form << ", " << num_keys << " keys");
    auto a = F::Create(options);
    auto b = F::Create(options);
    ASSERT_TRUE(a.ok() && b.ok()) << Describe(a);
    const std::vector<std::string> keys = BatchKeys(form, 'k', num_keys);
    std::vector<std::string_view> views(keys.begin(), keys.end());
    views.insert(views.end(), views.begin(), views.begin() + static_cast<std::ptrdiff_t>(num_keys / 10));  // repeats
    for (std::string_view k : views) ASSERT_TRUE(a->Add(k).ok());
    ASSERT_TRUE(b->AddBatch(views).ok());
    const std::vector<std::uint64_t> hashes = Hashes(7, 3000);
    for (std::uint64_t h : hashes) ASSERT_TRUE(a->AddHash(h).ok());
    ASSERT_TRUE(b->AddHashBatch(hashes).ok());
    EXPECT_EQ(a->count(), b->count());
    EXPECT_TRUE(a->Serialize(bloomkit::SaveOptions{}) == b->Serialize(bloomkit::SaveOptions{}))
        << "a batch set other bits or another count than single adds";

    const std::vector<std::string> probes = BatchKeys(form, 'q', 20'000);
    std::vector<std::string_view> probe_views(probes.begin(), probes.end());
    probe_views.insert(probe_views.end(), views.begin(), views.begin() + 2000);
    std::unique_ptr<bool[]> out(new bool[probe_views.size()]);
    const std::size_t hits = b->MayContainBatch(probe_views, std::span<bool>(out.get(), probe_views.size()));
    std::size_t single_hits = 0;
    for (std::size_t i = 0; i < probe_views.size(); ++i) {
      ASSERT_EQ(out[i], b->MayContain(probe_views[i])) << "key " << i;
      single_hits += out[i] ? 1U : 0U;
    }
    EXPECT_EQ(hits, single_hits);
    const std::vector<std::uint64_t> hash_probes = Hashes(1, 6000);  // the first 3000 added
    std::unique_ptr<bool[]> hash_out(new bool[hash_probes.size()]);
    const std::size_t hash_hits =
        b->MayContainHashBatch(hash_probes, std::span<bool>(hash_out.get(), hash_probes.size()));
    std::size_t single_hash_hits = 0;
    for (std::size_t i = 0; i < hash_probes.size(); ++i) {
      ASSERT_EQ(hash_out[i], b->MayContainHash(hash_probes[i])) << "hash " << i;
      single_hash_hits += hash_out[i] ? 1U : 0U;
    }
    EXPECT_EQ(hash_hits, single_hash_hits);
  }
}

// Cached: 20,000 keys at 1%, about 25 KB. In DRAM: sized for 4 million keys (5 MB),
// 30,000 of them added.
TEST(VocabularyContractTest, BatchesAgreeWithSingleCalls) {
  using bloomkit::BlockedLayout;
  for (const std::uint64_t capacity : {std::uint64_t{20'000}, std::uint64_t{4'000'000}}) {
    const std::uint64_t n = std::min<std::uint64_t>(capacity, 30'000);
    BatchAgreesWithSingleCalls<bloomkit::BloomFilter>({.capacity = capacity, .fp_rate = 0.01}, n);
    BatchAgreesWithSingleCalls<bloomkit::BloomFilter>({.capacity = capacity, .fp_rate = 0.01, .hash_id = 4}, n);
    BatchAgreesWithSingleCalls<bloomkit::BlockedBloomFilter>({.capacity = capacity, .fp_rate = 0.01}, n);
    BatchAgreesWithSingleCalls<bloomkit::BlockedBloomFilter>({.capacity = capacity, .fp_rate = 1e-4}, n);
    BatchAgreesWithSingleCalls<bloomkit::BlockedBloomFilter>(
        {.capacity = capacity, .fp_rate = 0.01, .blocked_layout = BlockedLayout::kLines512}, n);
    BatchAgreesWithSingleCalls<bloomkit::BlockedBloomFilter>(
        {.capacity = capacity, .fp_rate = 0.01, .blocked_layout = BlockedLayout::kLanes256, .hash_id = 3}, n);
    BatchAgreesWithSingleCalls<bloomkit::CountingBloomFilter>({.bloom = {.capacity = capacity, .fp_rate = 0.01}}, n);
    BatchAgreesWithSingleCalls<bloomkit::ScalableBloomFilter>({.initial_capacity = capacity / 8, .fp_rate = 0.01}, n);
    BatchAgreesWithSingleCalls<bloomkit::ConcurrentBloomFilter>({.capacity = capacity, .fp_rate = 0.01}, n);
    BatchAgreesWithSingleCalls<bloomkit::ConcurrentBlockedBloomFilter>({.capacity = capacity, .fp_rate = 0.01}, n);
    BatchAgreesWithSingleCalls<bloomkit::ParquetBloomFilter>({.capacity = capacity, .fp_rate = 0.01}, n);
    BatchAgreesWithSingleCalls<bloomkit::BitsAndBloomsFilter>({.capacity = capacity, .fp_rate = 0.01}, n);
    BatchAgreesWithSingleCalls<bloomkit::GuavaBloomFilter>({.capacity = capacity, .fp_rate = 0.01}, n);
    if (HasFatalFailure()) return;
  }
}

// Synchronized<F> has the operations (not construction: it neither moves nor copies).
TEST(VocabularyContractTest, SynchronizedCuckoo) {
  auto made = bloomkit::CuckooFilter::Create({.capacity = kCapacity, .fp_rate = 0.01});
  ASSERT_TRUE(made.ok());
  bloomkit::Synchronized<bloomkit::CuckooFilter> shared(std::move(made).value());
  const KeySet present(kPresent, 0, kKeys);
  AddAndQuery(shared, present, Hashes(1'000'000, kHashes));
  EXPECT_TRUE(shared.Remove(present.views[0]));
}

}  // namespace
}  // namespace bloomkit_test
