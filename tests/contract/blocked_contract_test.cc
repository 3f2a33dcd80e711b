// The filter contract (filter_contract.h) for the cache-blocked BlockedBloomFilter.
// ExpectedFpRate is the Poisson-mixture rate of sizing.h's BlockedFpRate, so the FPR
// test also checks that formula against the real bit pattern.
#include "bloomkit/blocked_bloom_filter.h"
#include "contract/filter_contract.h"

namespace bloomkit_test {
namespace {

struct BlockedTraits : DefaultFilterTraits<bloomkit::BlockedBloomFilter> {
  static constexpr std::string_view kName = "blocked";
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create({.capacity = capacity, .fp_rate = fp_rate});
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(Blocked, FilterContractTest, ::testing::Types<BlockedTraits>);

}  // namespace
}  // namespace bloomkit_test
