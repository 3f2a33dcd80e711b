// SPDX-License-Identifier: Apache-2.0
// The filter contract (filter_contract.h) for the classic BloomFilter.
#include "bloomkit/bloom_filter.h"
#include "contract/filter_contract.h"

namespace bloomkit_test {
namespace {

struct ClassicTraits : DefaultFilterTraits<bloomkit::BloomFilter> {
  static constexpr std::string_view kName = "classic";
  static constexpr std::uint16_t kHashId = bloomkit::kDefaultClassicHashId;  // what Create gives
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create({.capacity = capacity, .fp_rate = fp_rate});
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(Classic, FilterContractTest, ::testing::Types<ClassicTraits>);

}  // namespace
}  // namespace bloomkit_test
