// SPDX-License-Identifier: Apache-2.0
// The filter contract (filter_contract.h) for the CuckooFilter with 2, 4 and 8 slots
// per bucket (fingerprint bits chosen from the rate, as Create does by default).
#include "bloomkit/cuckoo_filter.h"
#include "contract/filter_contract.h"

namespace bloomkit_test {
namespace {

template <std::uint32_t kBucketSize>
struct CuckooTraits : DefaultFilterTraits<bloomkit::CuckooFilter> {
  static constexpr std::string_view kName = kBucketSize == 2   ? "cuckoo/b2"
                                            : kBucketSize == 4 ? "cuckoo/b4"
                                                               : "cuckoo/b8";
  // bucket_size, fingerprint_bits, max_kicks, expansion, num/max filters, num_deletes.
  static constexpr std::size_t kUsedParams = 6;
  // num_filters (low half of slot 4) sets how many sub-filters the payload holds.
  static constexpr std::size_t kSizeParam = 4;
  static bloomkit::Result<Filter> Make(std::uint64_t capacity, double fp_rate) {
    return Filter::Create({.capacity = capacity, .fp_rate = fp_rate, .bucket_size = kBucketSize});
  }
};

using CuckooKinds = ::testing::Types<CuckooTraits<2>, CuckooTraits<4>, CuckooTraits<8>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Cuckoo, FilterContractTest, CuckooKinds);

}  // namespace
}  // namespace bloomkit_test
