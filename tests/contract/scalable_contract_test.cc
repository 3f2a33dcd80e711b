// SPDX-License-Identifier: Apache-2.0
// The filter contract (filter_contract.h) for the ScalableBloomFilter. Make(n, p) is a
// chain whose first stage holds n keys; the contract's tests stay within it, and
// scalable_bloom_filter_test.cc covers growth.
#include "bloomkit/scalable_bloom_filter.h"
#include "bloomkit/sizing.h"
#include "contract/filter_contract.h"

namespace bloomkit_test {
namespace {

struct ScalableTraits : DefaultFilterTraits<bloomkit::ScalableBloomFilter> {
  static constexpr std::string_view kName = "scalable";
  // num_stages, initial_capacity, growth, tightening, flags, max_stages.
  static constexpr std::size_t kUsedParams = 6;
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create({.initial_capacity = capacity, .fp_rate = fp_rate});
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(Scalable, FilterContractTest, ::testing::Types<ScalableTraits>);

}  // namespace
}  // namespace bloomkit_test
