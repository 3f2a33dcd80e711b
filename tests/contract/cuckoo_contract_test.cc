// SPDX-License-Identifier: Apache-2.0
// The filter contract (filter_contract.h) for the CuckooFilter with 2, 4 and 8 slots
// per bucket (fingerprint bits chosen from the rate, as Create does by default).
#include <cmath>

#include "bloomkit/cuckoo_filter.h"
#include "contract/filter_contract.h"

namespace bloomkit_test {
namespace {

template <std::uint32_t kBucketSize>
struct CuckooTraits : DefaultFilterTraits<bloomkit::CuckooFilter> {
  static constexpr std::string_view kName = kBucketSize == 2   ? "cuckoo/b2"
                                            : kBucketSize == 4 ? "cuckoo/b4"
                                                               : "cuckoo/b8";
  static constexpr bool kSupportsMerge = false;
  static constexpr bool kSupportsIntersect = false;
  // bucket_size, fingerprint_bits, max_kicks, expansion, num/max filters, num_deletes.
  static constexpr std::size_t kUsedParams = 6;
  // num_filters (low half of slot 4) sets how many sub-filters the payload holds.
  static constexpr std::size_t kSizeParam = 4;
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create({.capacity = capacity, .fp_rate = fp_rate, .bucket_size = kBucketSize});
  }
  // A query compares its fingerprint with the 2b slots of its two buckets, each occupied
  // with probability `load` and equal with probability 1 / (2^f - 1):
  // 1 - (1 - 1/(2^f - 1))^(2 b load), compounded over sub-filters (one here).
  static double ExpectedFpRate(const Filter& f) {
    const double values = std::ldexp(1.0, static_cast<int>(f.fingerprint_bits())) - 1.0;
    const double per_filter = -std::expm1(2.0 * f.bucket_size() * f.LoadFactor() * std::log1p(-1.0 / values));
    return -std::expm1(static_cast<double>(f.num_filters()) * std::log1p(-per_filter));
  }
};

using CuckooKinds = ::testing::Types<CuckooTraits<2>, CuckooTraits<4>, CuckooTraits<8>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Cuckoo, FilterContractTest, CuckooKinds);

}  // namespace
}  // namespace bloomkit_test
