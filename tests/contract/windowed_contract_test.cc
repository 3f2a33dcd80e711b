// SPDX-License-Identifier: Apache-2.0
// The filter contract (filter_contract.h) for the WindowedBloomFilter, with every key
// added at one time (time 0): the window's own guarantees are in
// tests/unit/windowed_bloom_filter_test.cc.
#include "bloomkit/windowed_bloom_filter.h"
#include "contract/filter_contract.h"

namespace bloomkit_test {
namespace {

struct WindowedTraits : DefaultFilterTraits<bloomkit::WindowedBloomFilter> {
  static constexpr std::string_view kName = "windowed";
  static constexpr std::size_t kUsedParams = 6;  // W, G, max_stages, now, stages, sizing
  static constexpr std::size_t kSizeParam = 4;
  static constexpr std::uint16_t kHashId = bloomkit::kHashIdShort64;
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create({.capacity = capacity, .fp_rate = fp_rate, .window = 4000, .generations = 4});
  }
  // ExpectedFpRate() is the bound for the worst schedule within capacity (twice the keys
  // of a window in the G + 1 generations looked at); the rate at the current fill is
  // EstimatedFpRate(), as for the growable kinds.
  static double ExpectedFpRate(const Filter& f) { return f.EstimatedFpRate(); }
};

INSTANTIATE_TYPED_TEST_SUITE_P(Windowed, FilterContractTest, ::testing::Types<WindowedTraits>);

}  // namespace
}  // namespace bloomkit_test
