// SPDX-License-Identifier: Apache-2.0
// The filter contract (filter_contract.h) for ConcurrentBloomFilter and
// ConcurrentBlockedBloomFilter, used from one thread: the same answers and files as
// the single-threaded kinds (the threaded tests are in tests/concurrency/).
#include "bloomkit/concurrent_bloom_filter.h"
#include "bloomkit/sizing.h"
#include "contract/filter_contract.h"

namespace bloomkit_test {
namespace {

struct ConcurrentClassicTraits : DefaultFilterTraits<bloomkit::ConcurrentBloomFilter> {
  static constexpr std::string_view kName = "concurrent classic";
  static constexpr std::uint16_t kHashId = bloomkit::kDefaultClassicHashId;  // what Create gives
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create({.capacity = capacity, .fp_rate = fp_rate});
  }
};

struct ConcurrentBlockedTraits : DefaultFilterTraits<bloomkit::ConcurrentBlockedBloomFilter> {
  static constexpr std::string_view kName = "concurrent blocked";
  static constexpr std::size_t kUsedParams = 3;  // num_blocks, num_hashes, block layout
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create({.capacity = capacity, .fp_rate = fp_rate});
  }
};

using ConcurrentKinds = ::testing::Types<ConcurrentClassicTraits, ConcurrentBlockedTraits>;
INSTANTIATE_TYPED_TEST_SUITE_P(Concurrent, FilterContractTest, ConcurrentKinds);

}  // namespace
}  // namespace bloomkit_test
