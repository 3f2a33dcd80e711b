// SPDX-License-Identifier: Apache-2.0
// Synchronized<Filter> from several threads: writers add (and, for kinds that can,
// remove) disjoint key sets while readers query under the shared lock. Afterwards
// every key still added is reported. Under ThreadSanitizer this also checks that the
// wrapper leaves no unsynchronized access.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/scalable_bloom_filter.h"
#include "bloomkit/synchronized.h"
#include "contract/test_support.h"

namespace bloomkit_test {
namespace {

constexpr int kWriters = 2;
constexpr int kReaders = 2;
constexpr std::uint64_t kKeysPerWriter = 10'000;

char WriterTag(int w) {
  return static_cast<char>('A' + w);
}

// Runs writers calling add(filter, key) / remove(filter, key) for every third key,
// and readers checking published keys; returns the number of keys readers missed.
template <typename Filter, typename AddFn, typename RemoveFn>
std::uint64_t RunThreads(bloomkit::Synchronized<Filter>& filter, AddFn add, RemoveFn remove) {
  std::atomic<std::uint64_t> published[kWriters] = {};
  std::atomic<std::uint64_t> missed{0};
  std::atomic<int> writers_done{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (std::uint64_t i = 0; i < kKeysPerWriter; ++i) {
        EXPECT_TRUE(add(filter, Key(WriterTag(w), i))) << "writer " << w << " key " << i;
        published[w].store(i + 1, std::memory_order_release);
      }
      for (std::uint64_t i = 0; i < kKeysPerWriter; i += 3) {
        EXPECT_TRUE(remove(filter, Key(WriterTag(w), i))) << "writer " << w << " remove " << i;
      }
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
          std::uint64_t i = SplitMix64(probe++) % done;
          if (i % 3 == 0) i = i + 1 < done ? i + 1 : i - 1;  // never a key that may be removed
          if (i >= done) continue;
          if (!filter.MayContain(Key(WriterTag(w), i))) missed.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  return missed.load();
}

template <typename Filter>
std::uint64_t LostAfterwards(const bloomkit::Synchronized<Filter>& filter, bool removed_every_third) {
  std::uint64_t lost = 0;
  for (int w = 0; w < kWriters; ++w) {
    for (std::uint64_t i = 0; i < kKeysPerWriter; ++i) {
      if (removed_every_third && i % 3 == 0) continue;
      lost += filter.MayContain(Key(WriterTag(w), i)) ? 0U : 1U;
    }
  }
  return lost;
}

TEST(SynchronizedThreadsTest, CuckooAddRemoveAndQueryFromManyThreads) {
  auto made = bloomkit::CuckooFilter::Create({.capacity = 4000, .expansion = 2});  // grows while shared
  ASSERT_TRUE(made.ok());
  bloomkit::Synchronized<bloomkit::CuckooFilter> filter(std::move(made).value());
  const std::uint64_t missed = RunThreads(
      filter, [](auto& f, std::string_view k) { return f.Add(k).ok(); },
      [](auto& f, std::string_view k) { return f.Remove(k); });
  EXPECT_EQ(missed, 0U);
  EXPECT_EQ(LostAfterwards(filter, true), 0U);
  EXPECT_GT(filter.WithRead([](const auto& f) { return f.num_stages(); }), 1U);
}

TEST(SynchronizedThreadsTest, CountingAddRemoveAndQueryFromManyThreads) {
  auto made = bloomkit::CountingBloomFilter::Create({.bloom = {.capacity = kWriters * kKeysPerWriter}});
  ASSERT_TRUE(made.ok());
  bloomkit::Synchronized<bloomkit::CountingBloomFilter> filter(std::move(made).value());
  const std::uint64_t missed = RunThreads(
      filter, [](auto& f, std::string_view k) { return f.Add(k).ok(); },
      [](auto& f, std::string_view k) { return f.Remove(k); });
  EXPECT_EQ(missed, 0U);
  EXPECT_EQ(LostAfterwards(filter, true), 0U);
}

TEST(SynchronizedThreadsTest, ScalableGrowsWhileShared) {
  auto made = bloomkit::ScalableBloomFilter::Create({.initial_capacity = 500, .fp_rate = 0.01});
  ASSERT_TRUE(made.ok());
  bloomkit::Synchronized<bloomkit::ScalableBloomFilter> filter(std::move(made).value());
  const std::uint64_t missed = RunThreads(
      filter, [](auto& f, std::string_view k) { return f.AddIfAbsent(k).ok(); },
      [](auto&, std::string_view) { return true; });  // no Remove: every key stays
  EXPECT_EQ(missed, 0U);
  EXPECT_EQ(LostAfterwards(filter, false), 0U);
  EXPECT_GT(filter.WithRead([](const auto& f) { return f.num_stages(); }), 3U);
}

}  // namespace
}  // namespace bloomkit_test
