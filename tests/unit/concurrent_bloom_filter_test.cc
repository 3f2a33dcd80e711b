// SPDX-License-Identifier: Apache-2.0
// ConcurrentBloomFilter and ConcurrentBlockedBloomFilter used from one thread: the same
// bits, counts and files as BloomFilter and BlockedBloomFilter. The threaded tests
// (and the ThreadSanitizer run) are in tests/concurrency/.
#include "bloomkit/concurrent_bloom_filter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/hash.h"
#include "contract/test_support.h"

namespace bloomkit_test {
namespace {

using bloomkit::BlockedBloomFilter;
using bloomkit::BloomFilter;
using bloomkit::ConcurrentBlockedBloomFilter;
using bloomkit::ConcurrentBloomFilter;

template <typename Plain, typename Concurrent>
void ExpectSameFilesBothWays() {
  // The concurrent blocked filter has 512-bit blocks only (classic filters ignore this).
  const bloomkit::BloomOptions options{
      .capacity = 50'000, .fp_rate = 0.01, .blocked_layout = bloomkit::BlockedLayout::kLines512};
  auto plain = Plain::Create(options);
  auto concurrent = Concurrent::Create(options);
  ASSERT_TRUE(plain.ok() && concurrent.ok());
  std::uint64_t fresh_plain = 0;
  std::uint64_t fresh_concurrent = 0;
  for (std::uint64_t i = 0; i < 50'000; ++i) {
    fresh_plain += plain->AddIfAbsent(Key(kPresent, i)).value() ? 1U : 0U;
    fresh_concurrent += concurrent->AddIfAbsent(Key(kPresent, i)).value() ? 1U : 0U;
  }
  EXPECT_EQ(fresh_plain, fresh_concurrent) << "AddIfAbsent disagrees";
  EXPECT_EQ(concurrent->count(), plain->count());
  for (const bool compress : {false, true}) {
    const Bytes from_plain = plain->Serialize({.compress = compress});
    const Bytes from_concurrent = concurrent->Serialize({.compress = compress});
    EXPECT_EQ(from_plain, from_concurrent) << "the concurrent form writes another file";
    // A file written by one loads into the other and answers the same.
    auto as_concurrent = Concurrent::Deserialize(from_plain);
    auto as_plain = Plain::Deserialize(from_concurrent);
    ASSERT_TRUE(as_concurrent.ok()) << Describe(as_concurrent);
    ASSERT_TRUE(as_plain.ok()) << Describe(as_plain);
    EXPECT_TRUE(as_plain.value() == plain.value());
    EXPECT_TRUE(as_concurrent->Snapshot() == plain.value());
    for (std::uint64_t i = 0; i < 20'000; ++i) {
      ASSERT_EQ(as_concurrent->MayContain(Key(kAbsent, i)), plain->MayContain(Key(kAbsent, i))) << i;
    }
  }
  for (std::uint64_t i = 0; i < 1000; ++i) {
    ASSERT_EQ(concurrent->MayContainHash(SplitMix64(i)), plain->MayContainHash(SplitMix64(i)));
  }
}

TEST(ConcurrentBloomFilterTest, SameBitsAndFileAsBloomFilter) {
  ExpectSameFilesBothWays<BloomFilter, ConcurrentBloomFilter>();
}

TEST(ConcurrentBloomFilterTest, SameBitsAndFileAsBlockedBloomFilter) {
  ExpectSameFilesBothWays<BlockedBloomFilter, ConcurrentBlockedBloomFilter>();
}

TEST(ConcurrentBloomFilterTest, AdoptsAFilterWithItsKeysAndCount) {
  auto plain = BloomFilter::Create({.capacity = 1000});
  ASSERT_TRUE(plain.ok());
  for (std::uint64_t i = 0; i < 500; ++i) EXPECT_TRUE(plain->Add(Key(kPresent, i)).ok());
  const std::uint64_t count = plain->count();
  ConcurrentBloomFilter f(std::move(plain).value());
  EXPECT_EQ(f.count(), count);
  for (std::uint64_t i = 0; i < 500; ++i) ASSERT_TRUE(f.MayContain(Key(kPresent, i)));
  EXPECT_FALSE(f.AddIfAbsent(Key(kPresent, 0)).value());
  f.Clear();
  EXPECT_EQ(f.count(), 0U);
  EXPECT_FALSE(f.MayContain(Key(kPresent, 0)));
}

// The hash ids are those of the wrapped kind: 1 and 4 for the classic form (4 hashing
// as BloomFilter's short-key hash does, and saved as such), 1 only for the blocked form
// (512-bit blocks); any other is refused, naming it.
TEST(ConcurrentBloomFilterTest, HashIdsAreTheWrappedKinds) {
  const bloomkit::BloomOptions short_keys{.capacity = 1000, .hash_id = bloomkit::kHashIdShort64};
  auto plain = BloomFilter::Create(short_keys);
  auto concurrent = ConcurrentBloomFilter::Create(short_keys);
  ASSERT_TRUE(plain.ok() && concurrent.ok()) << Describe(concurrent);
  EXPECT_EQ(concurrent->hash_id(), bloomkit::kHashIdShort64);
  for (std::uint64_t i = 0; i < 500; ++i) {
    EXPECT_TRUE(plain->Add(Key(kPresent, i)).ok());
    EXPECT_TRUE(concurrent->Add(Key(kPresent, i)).ok());
  }
  EXPECT_EQ(concurrent->Serialize(), plain->Serialize());
  EXPECT_EQ(ConcurrentBloomFilter::Create({.capacity = 1000})->hash_id(), bloomkit::kDefaultClassicHashId);
  EXPECT_TRUE(ConcurrentBlockedBloomFilter::Create({.capacity = 1000, .hash_id = 1}).ok());
  for (const int id : {2, 3, 5}) {
    auto bad = ConcurrentBloomFilter::Create({.capacity = 1000, .hash_id = static_cast<std::uint16_t>(id)});
    ASSERT_FALSE(bad.ok()) << "hash id " << id;
    EXPECT_EQ(bad.error().code(), bloomkit::ErrorCode::kInvalidArgument);
    EXPECT_NE(bad.error().message().find("hash id " + std::to_string(id)), std::string::npos) << bad.error().message();
  }
  for (const int id : {2, 3, 4, 5}) {
    auto bad = ConcurrentBlockedBloomFilter::Create({.capacity = 1000, .hash_id = static_cast<std::uint16_t>(id)});
    ASSERT_FALSE(bad.ok()) << "hash id " << id;
    EXPECT_EQ(bad.error().code(), bloomkit::ErrorCode::kInvalidArgument);
    EXPECT_NE(bad.error().message().find("hash id " + std::to_string(id)), std::string::npos) << bad.error().message();
  }
}

TEST(ConcurrentBloomFilterTest, LoadingAnotherKindIsWrongKind) {
  auto blocked = BlockedBloomFilter::Create({.capacity = 1000});
  ASSERT_TRUE(blocked.ok());
  auto r = ConcurrentBloomFilter::Deserialize(blocked->Serialize());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), bloomkit::ErrorCode::kWrongKind);
  auto too_big = ConcurrentBlockedBloomFilter::Create({.capacity = 1'000'000, .max_memory_bytes = 1000});
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.error().code(), bloomkit::ErrorCode::kTooLarge);
}

}  // namespace
}  // namespace bloomkit_test
