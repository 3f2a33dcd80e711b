// SPDX-License-Identifier: Apache-2.0
// What each kind's add verbs return (result.h, filter.h): Done where an add cannot fail,
// [[nodiscard]] Status where it can, and one generic function over FilterOperations that
// takes both on every kind. The static_asserts are the contract: a kind that changes
// its add's type, or a Done that gains a member or loses its conversion, stops this
// file compiling. add_outcome_nodiscard.cmake checks the other half: a bare Add compiles
// under -Werror on the infallible kinds and is refused on the fallible ones.
#include <gtest/gtest.h>

#include <concepts>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/concurrent_bloom_filter.h"
#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/filter.h"
#include "bloomkit/foreign_bloom.h"
#include "bloomkit/redisbloom.h"
#include "bloomkit/result.h"
#include "bloomkit/scalable_bloom_filter.h"
#include "bloomkit/synchronized.h"
#include "bloomkit/windowed_bloom_filter.h"
#include "contract/test_support.h"

namespace bloomkit_test {
namespace {

using bloomkit::Done;
using bloomkit::Status;

// Done is nothing but a success: no bytes, nothing to construct or destroy.
static_assert(std::is_empty_v<Done>);
static_assert(std::is_trivially_copyable_v<Done>);
static_assert(std::is_trivially_destructible_v<Done>);
static_assert(std::is_trivially_default_constructible_v<Done>);
static_assert(Done{}.ok());
static_assert(static_cast<bool>(Done{}));
static_assert(std::is_nothrow_convertible_v<Done, Status>);
static_assert(std::is_nothrow_convertible_v<Done, bloomkit::Result<void>>);
static_assert(!std::is_convertible_v<Status, Done>, "an error cannot become a Done");
static_assert(!std::is_convertible_v<Done, bool>, "explicit, as Status's");
static_assert(bloomkit::Outcome<Done> && bloomkit::Outcome<Status>);
static_assert(!bloomkit::Outcome<bloomkit::Result<bool>> && !bloomkit::Outcome<bool> && !bloomkit::Outcome<void>);

// The four add verbs of F, each of the same type T.
template <typename F, typename T>
constexpr bool kAddsReturn = requires(F& f, std::string_view key, std::uint64_t hash,
                                      std::span<const std::string_view> keys, std::span<const std::uint64_t> hashes) {
  { f.Add(key) } -> std::same_as<T>;
  { f.AddHash(hash) } -> std::same_as<T>;
  { f.AddBatch(keys) } -> std::same_as<T>;
  { f.AddHashBatch(hashes) } -> std::same_as<T>;
};

// (a) The kinds whose adds only set bits or saturate counters.
template <typename F>
constexpr bool kInfallible = kAddsReturn<F, Done>&& bloomkit::InfallibleAdd<F>&& bloomkit::FilterOperations<F>;
static_assert(kInfallible<bloomkit::BloomFilter>);
static_assert(kInfallible<bloomkit::BlockedBloomFilter>);
static_assert(kInfallible<bloomkit::ConcurrentBloomFilter>);
static_assert(kInfallible<bloomkit::ConcurrentBlockedBloomFilter>);
static_assert(kInfallible<bloomkit::CountingBloomFilter>);
static_assert(kInfallible<bloomkit::ParquetBloomFilter>);
static_assert(kInfallible<bloomkit::BitsAndBloomsFilter>);
static_assert(kInfallible<bloomkit::GuavaBloomFilter>);
static_assert(kInfallible<bloomkit::Synchronized<bloomkit::BloomFilter>>);

// (b) The kinds whose add may need memory or room it does not get: kFull, kTooLarge.
template <typename F>
constexpr bool kFallible = kAddsReturn<F, Status> && !bloomkit::InfallibleAdd<F> && bloomkit::FilterOperations<F>;
static_assert(kFallible<bloomkit::ScalableBloomFilter>);
static_assert(kFallible<bloomkit::CuckooFilter>);
static_assert(kFallible<bloomkit::WindowedBloomFilter>);
static_assert(kFallible<bloomkit::RedisBloomScalableFilter>);
static_assert(kFallible<bloomkit::RedisCuckooFilter>);
static_assert(kFallible<bloomkit::Synchronized<bloomkit::CuckooFilter>>);

// (c) The concept takes Status or Done, but not another type, nor a kind whose add
// verbs disagree.
struct AddsBool {
  bool Add(std::string_view);
};
struct MixedAdds {
  Done Add(std::string_view);
  Status AddHash(std::uint64_t);
};
template <typename F>
constexpr bool kAddOutcomeOk = requires(F& f, std::string_view key, std::uint64_t hash) {
  { f.Add(key) } -> bloomkit::Outcome;
  { f.AddHash(hash) } -> std::same_as<decltype(f.Add(key))>;
};
static_assert(!kAddOutcomeOk<AddsBool>);
static_assert(!kAddOutcomeOk<MixedAdds>);
static_assert(kAddOutcomeOk<bloomkit::BloomFilter> && kAddOutcomeOk<bloomkit::CuckooFilter>);

// One function for every kind, written only against filter.h: each way callers use the
// add verbs' result. Returns the first error (a fallible kind's), or an ok Status.
template <bloomkit::FilterOperations F>
Status AddEveryWay(F& f, std::span<const std::string_view> keys, std::span<const std::uint64_t> hashes) {
  const std::size_t half = keys.size() / 2;
  for (std::string_view key : keys.first(half)) {
    if (Status st = f.Add(key); !st.ok()) return st;  // the same line on every kind
  }
  if constexpr (bloomkit::InfallibleAdd<F>) {
    f.AddBatch(keys.subspan(half));  // nothing to check
    for (std::uint64_t h : hashes.first(hashes.size() / 2)) f.AddHash(h);
    const Done done = f.AddHashBatch(hashes.subspan(hashes.size() / 2));
    const Status converted = done;  // (d)
    EXPECT_TRUE(converted.ok());
  } else {
    if (Status st = f.AddBatch(keys.subspan(half)); !st.ok()) return st;
    for (std::uint64_t h : hashes.first(hashes.size() / 2)) {
      if (auto st = f.AddHash(h); !st.ok()) return st.error();
    }
    const Status st = f.AddHashBatch(hashes.subspan(hashes.size() / 2));
    if (!st.ok()) return st;
  }
  return {};
}

constexpr std::uint64_t kCapacity = 2000;

template <bloomkit::FilterOperations F>
void HoldsWhatWasAdded(F& f) {
  const KeySet present(kPresent, 0, kCapacity / 2);
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t i = 0; i < 100; ++i) hashes.push_back(SplitMix64(~i));
  const Status st = AddEveryWay(f, present.views, hashes);
  ASSERT_TRUE(st.ok()) << Describe(st);
  for (std::string_view key : present.views) ASSERT_TRUE(f.MayContain(key));
  for (std::uint64_t h : hashes) ASSERT_TRUE(f.MayContainHash(h));
  ASSERT_TRUE(f.Add("once more").ok());  // (d): a Done answers ok() as a Status does
  EXPECT_TRUE(f.MayContain("once more"));
}

template <bloomkit::Filter F>
void CreateAndAdd(const typename F::Options& options) {
  auto made = F::Create(options);
  ASSERT_TRUE(made.ok()) << Describe(made);
  HoldsWhatWasAdded(made.value());
}

TEST(AddOutcomeContractTest, InfallibleKindsAddWithoutAStatus) {
  const bloomkit::BloomOptions bloom{.capacity = kCapacity, .fp_rate = 0.01};
  const bloomkit::ForeignBloomOptions foreign{.capacity = kCapacity, .fp_rate = 0.01};
  CreateAndAdd<bloomkit::BloomFilter>(bloom);
  CreateAndAdd<bloomkit::BlockedBloomFilter>(bloom);
  CreateAndAdd<bloomkit::ConcurrentBloomFilter>(bloom);
  CreateAndAdd<bloomkit::ConcurrentBlockedBloomFilter>(bloom);
  CreateAndAdd<bloomkit::CountingBloomFilter>({.bloom = bloom});
  CreateAndAdd<bloomkit::ParquetBloomFilter>(foreign);
  CreateAndAdd<bloomkit::BitsAndBloomsFilter>(foreign);
  CreateAndAdd<bloomkit::GuavaBloomFilter>(foreign);
  auto classic = bloomkit::BloomFilter::Create(bloom);
  ASSERT_TRUE(classic.ok());
  bloomkit::Synchronized<bloomkit::BloomFilter> shared(std::move(classic).value());
  HoldsWhatWasAdded(shared);
}

TEST(AddOutcomeContractTest, FallibleKindsStillAddThroughAStatus) {
  CreateAndAdd<bloomkit::ScalableBloomFilter>({.initial_capacity = kCapacity / 8, .fp_rate = 0.01});
  CreateAndAdd<bloomkit::CuckooFilter>({.capacity = kCapacity, .fp_rate = 0.01});
  CreateAndAdd<bloomkit::WindowedBloomFilter>({.capacity = kCapacity, .fp_rate = 0.01, .window = 60, .generations = 2});
  CreateAndAdd<bloomkit::RedisBloomScalableFilter>({.capacity = kCapacity / 8, .fp_rate = 0.01});
  CreateAndAdd<bloomkit::RedisCuckooFilter>({.capacity = kCapacity, .bucket_size = 2, .expansion = 2});
  auto cuckoo = bloomkit::CuckooFilter::Create({.capacity = kCapacity, .fp_rate = 0.01});
  ASSERT_TRUE(cuckoo.ok());
  bloomkit::Synchronized<bloomkit::CuckooFilter> shared(std::move(cuckoo).value());
  HoldsWhatWasAdded(shared);
}

// The generic function still sees a fallible kind's error: a non-scaling filter fills.
TEST(AddOutcomeContractTest, AFallibleKindsErrorReachesGenericCode) {
  auto made = bloomkit::ScalableBloomFilter::Create({.initial_capacity = 100, .fp_rate = 0.01, .non_scaling = true});
  ASSERT_TRUE(made.ok());
  const KeySet keys(kPresent, 0, 1000);
  const Status st = AddEveryWay(made.value(), keys.views, std::vector<std::uint64_t>{});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), bloomkit::ErrorCode::kFull) << st.error().message();
}

}  // namespace
}  // namespace bloomkit_test
