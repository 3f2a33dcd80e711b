// SPDX-License-Identifier: Apache-2.0
// ConcurrentBloomFilter and ConcurrentBlockedBloomFilter from several threads: writers
// add disjoint key sets while readers query, with no lock. Afterwards every added key
// is reported (zero false negatives), and while running, every key a writer has
// published (a release store after its Add, an acquire load before the query) is
// reported too. Under ThreadSanitizer (tsan preset) these also prove the absence of
// data races.
#include "bloomkit/concurrent_bloom_filter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "bloomkit/bloom_filter.h"
#include "contract/test_support.h"

namespace bloomkit_test {
namespace {

constexpr int kWriters = 2;
constexpr int kReaders = 2;
// Small enough for ThreadSanitizer's ~10x slowdown on two cores.
constexpr std::uint64_t kKeysPerWriter = 40'000;

char WriterTag(int w) {
  return static_cast<char>('A' + w);
}

template <typename Filter>
void AddDisjointSetsWhileQuerying() {
  auto made = Filter::Create({.capacity = kWriters * kKeysPerWriter, .fp_rate = 0.01});
  ASSERT_TRUE(made.ok()) << Describe(made);
  Filter& filter = made.value();
  // published[w] = keys of writer w whose Add has returned.
  std::atomic<std::uint64_t> published[kWriters] = {};
  std::atomic<std::uint64_t> fresh{0};
  std::atomic<std::uint64_t> missed{0};
  std::atomic<int> writers_done{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      std::uint64_t mine = 0;
      for (std::uint64_t i = 0; i < kKeysPerWriter; ++i) {
        mine += filter.AddIfAbsent(Key(WriterTag(w), i)).value() ? 1U : 0U;
        published[w].store(i + 1, std::memory_order_release);
      }
      fresh.fetch_add(mine);
      writers_done.fetch_add(1);
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      std::uint64_t probe = static_cast<std::uint64_t>(r);
      while (writers_done.load() < kWriters) {
        for (int w = 0; w < kWriters; ++w) {
          const std::uint64_t done = published[w].load(std::memory_order_acquire);
          if (done == 0) continue;
          // A published key (its Add happened before this query) must be reported.
          const std::uint64_t i = SplitMix64(probe++) % done;
          if (!filter.MayContain(Key(WriterTag(w), i))) missed.fetch_add(1);
        }
        (void)filter.MayContain(Key(kAbsent, probe));  // a query racing with inserts
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(missed.load(), 0U) << "published keys were not reported during the run";
  std::uint64_t lost = 0;
  for (int w = 0; w < kWriters; ++w) {
    for (std::uint64_t i = 0; i < kKeysPerWriter; ++i) lost += filter.MayContain(Key(WriterTag(w), i)) ? 0U : 1U;
  }
  EXPECT_EQ(lost, 0U) << "false negatives after concurrent inserts";
  // count() is exact: it equals the AddIfAbsent calls that returned true.
  EXPECT_EQ(filter.count(), fresh.load());
  EXPECT_GE(fresh.load(), kWriters * kKeysPerWriter * 98 / 100);

  // The bits are those of the single-threaded filter fed the same keys in any order.
  // (Concurrent blocked filters have 512-bit blocks; the classic kind ignores the layout.)
  auto plain = decltype(filter.Snapshot())::Create(
      {.capacity = kWriters * kKeysPerWriter, .fp_rate = 0.01, .blocked_layout = bloomkit::BlockedLayout::kLines512});
  ASSERT_TRUE(plain.ok());
  for (int w = 0; w < kWriters; ++w) {
    for (std::uint64_t i = 0; i < kKeysPerWriter; ++i) EXPECT_TRUE(plain->Add(Key(WriterTag(w), i)).ok());
  }
  const auto snapshot = filter.Snapshot();
  EXPECT_TRUE(std::equal(snapshot.words().begin(), snapshot.words().end(), plain->words().begin()))
      << "concurrent inserts set other bits than sequential ones";
}

TEST(ConcurrentBloomFilterThreadsTest, ClassicNoFalseNegativesWithConcurrentWritersAndReaders) {
  AddDisjointSetsWhileQuerying<bloomkit::ConcurrentBloomFilter>();
}

TEST(ConcurrentBloomFilterThreadsTest, BlockedNoFalseNegativesWithConcurrentWritersAndReaders) {
  AddDisjointSetsWhileQuerying<bloomkit::ConcurrentBlockedBloomFilter>();
}

TEST(ConcurrentBloomFilterThreadsTest, SnapshotWhileAddingHoldsEveryFinishedAdd) {
  auto made = bloomkit::ConcurrentBloomFilter::Create({.capacity = 100'000});
  ASSERT_TRUE(made.ok());
  auto& filter = made.value();
  std::atomic<std::uint64_t> published{0};
  std::thread writer([&] {
    for (std::uint64_t i = 0; i < 50'000; ++i) {
      EXPECT_TRUE(filter.Add(Key(kPresent, i)).ok());
      published.store(i + 1, std::memory_order_release);
    }
  });
  std::uint64_t missing = 0;
  for (int round = 0; round < 5; ++round) {
    const std::uint64_t done = published.load(std::memory_order_acquire);
    const bloomkit::BloomFilter snapshot = filter.Snapshot();
    for (std::uint64_t i = 0; i < done; ++i) missing += snapshot.MayContain(Key(kPresent, i)) ? 0U : 1U;
  }
  writer.join();
  EXPECT_EQ(missing, 0U) << "a snapshot lost keys added before it started";
}

}  // namespace
}  // namespace bloomkit_test
