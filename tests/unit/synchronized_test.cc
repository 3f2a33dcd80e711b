// SPDX-License-Identifier: Apache-2.0
// Synchronized<Filter>: the calls it forwards and what they return, for each kind that
// needs it. Threads are exercised in tests/concurrency/synchronized_threads_test.cc.
#include "bloomkit/synchronized.h"

#include <gtest/gtest.h>

#include <type_traits>

#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/scalable_bloom_filter.h"
#include "contract/test_support.h"

namespace bloomkit_test {
namespace {

using bloomkit::Synchronized;

TEST(SynchronizedTest, ForwardsCuckooCallsAndTheirResults) {
  auto made = bloomkit::CuckooFilter::Create({.capacity = 1000});
  ASSERT_TRUE(made.ok());
  Synchronized<bloomkit::CuckooFilter> f(std::move(made).value());
  static_assert(std::is_same_v<decltype(f.Add("k")), bloomkit::Status>);
  EXPECT_TRUE(f.Add("k").ok());
  EXPECT_TRUE(f.Add("k").ok());
  EXPECT_TRUE(f.MayContain("k"));
  EXPECT_EQ(f.Occurrences("k"), 2U);
  EXPECT_TRUE(f.Remove("k"));
  EXPECT_EQ(f.Occurrences("k"), 1U);
  const std::uint64_t count = f.WithRead([](const bloomkit::CuckooFilter& c) { return c.count(); });
  EXPECT_EQ(count, 1U);
  f.WithWrite([](bloomkit::CuckooFilter& c) { c.Clear(); });
  EXPECT_FALSE(f.MayContain("k"));
}

TEST(SynchronizedTest, ForwardsCountingAndScalableCalls) {
  auto counting = bloomkit::CountingBloomFilter::Create({.bloom = {.capacity = 1000}});
  ASSERT_TRUE(counting.ok());
  Synchronized<bloomkit::CountingBloomFilter> c(std::move(counting).value());
  static_assert(std::is_same_v<decltype(c.Add("k")), bloomkit::Done>);  // what CountingBloomFilter::Add returns
  EXPECT_TRUE(c.Add("k").ok());
  EXPECT_EQ(c.Occurrences("k"), 1U);
  EXPECT_TRUE(c.Remove("k"));
  EXPECT_FALSE(c.MayContain("k"));

  auto scalable = bloomkit::ScalableBloomFilter::Create({.initial_capacity = 10});
  ASSERT_TRUE(scalable.ok());
  Synchronized<bloomkit::ScalableBloomFilter> s(std::move(scalable).value());
  for (std::uint64_t i = 0; i < 100; ++i) {
    auto added = s.AddIfAbsent(Key(kPresent, i));
    ASSERT_TRUE(added.ok());
  }
  EXPECT_GT(s.WithRead([](const auto& f) { return f.num_stages(); }), 1U);
  const bloomkit::ScalableBloomFilter copy = s.Snapshot();
  for (std::uint64_t i = 0; i < 100; ++i) ASSERT_TRUE(copy.MayContain(Key(kPresent, i)));
  const bloomkit::ScalableBloomFilter released = std::move(s).Release();
  EXPECT_TRUE(released == copy);
}

}  // namespace
}  // namespace bloomkit_test
