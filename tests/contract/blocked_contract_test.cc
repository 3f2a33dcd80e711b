// SPDX-License-Identifier: Apache-2.0
// The filter contract (filter_contract.h) for the cache-blocked BlockedBloomFilter.
// ExpectedFpRate is the Poisson-mixture rate of sizing.h's BlockedFpRate, so the FPR
// test also checks that formula against the real bit pattern.
#include "bloomkit/blocked_bloom_filter.h"
#include "contract/filter_contract.h"

namespace bloomkit_test {
namespace {

struct BlockedTraits : DefaultFilterTraits<bloomkit::BlockedBloomFilter> {
  static constexpr std::string_view kName = "blocked";
  // num_blocks, num_hashes, block layout.
  static constexpr std::size_t kUsedParams = 3;
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create(
        {.capacity = capacity, .fp_rate = fp_rate, .blocked_layout = bloomkit::BlockedLayout::kLines512});
  }
};

// The 256-bit layout (new filters: hash id 4): ExpectedFpRate is sizing.h's Lanes256FpRate.
struct Blocked256Traits : DefaultFilterTraits<bloomkit::BlockedBloomFilter> {
  static constexpr std::string_view kName = "blocked 256-bit";
  static constexpr std::size_t kUsedParams = 3;
  static constexpr std::uint16_t kHashId = bloomkit::kHashIdShort64;
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create(
        {.capacity = capacity, .fp_rate = fp_rate, .blocked_layout = bloomkit::BlockedLayout::kLanes256});
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(Blocked, FilterContractTest, ::testing::Types<BlockedTraits>);
INSTANTIATE_TYPED_TEST_SUITE_P(Blocked256, FilterContractTest, ::testing::Types<Blocked256Traits>);

}  // namespace
}  // namespace bloomkit_test
