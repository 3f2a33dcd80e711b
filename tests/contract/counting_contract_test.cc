// SPDX-License-Identifier: Apache-2.0
// The filter contract (filter_contract.h) for the CountingBloomFilter, with 4-bit and
// 8-bit counters.
#include "bloomkit/counting_bloom_filter.h"
#include "contract/filter_contract.h"

namespace bloomkit_test {
namespace {

template <std::uint32_t kCounterBits>
struct CountingTraits : DefaultFilterTraits<bloomkit::CountingBloomFilter> {
  static constexpr std::string_view kName = kCounterBits == 4 ? "counting/4" : "counting/8";
  // No Merge or Intersect (not a MergeableFilter): a union of counters would
  // double-count keys in both.
  // num_counters, num_hashes, counter_bits, saturated counters.
  static constexpr std::size_t kUsedParams = 4;
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create({.bloom = {.capacity = capacity, .fp_rate = fp_rate}, .counter_bits = kCounterBits});
  }
};

using CountingKinds = ::testing::Types<CountingTraits<4>, CountingTraits<8>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Counting, FilterContractTest, CountingKinds);

}  // namespace
}  // namespace bloomkit_test
