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
  static constexpr bool kSupportsIntersect = false;
  // num_stages, initial_capacity, growth, tightening, flags, max_stages.
  static constexpr std::size_t kUsedParams = 6;
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create({.initial_capacity = capacity, .fp_rate = fp_rate});
  }
  // A scalable filter only adds keys no stage reports.
  static bloomkit::Status Add(Filter& f, std::string_view key) {
    auto added = f.AddIfAbsent(key);
    if (!added.ok()) return std::move(added).error();
    return {};
  }
  // The compound rate of the stages at their current fill, each by the classic formula:
  // 1 - prod(1 - (1 - e^{-k_i n_i / m_i})^{k_i}).
  static double ExpectedFpRate(const Filter& f) {
    double pass = 1.0;
    for (const bloomkit::BloomFilter& s : f.stages()) {
      pass *= 1.0 - bloomkit::ClassicFpRate(static_cast<double>(s.num_bits()), static_cast<double>(s.count()),
                                            s.num_hashes());
    }
    return 1.0 - pass;
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(Scalable, FilterContractTest, ::testing::Types<ScalableTraits>);

}  // namespace
}  // namespace bloomkit_test
