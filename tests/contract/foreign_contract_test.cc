// SPDX-License-Identifier: Apache-2.0
// The filter contract (filter_contract.h) for the filters of other libraries
// (foreign_bloom.h): bits-and-blooms, Guava and Parquet, sized as each library sizes them.
#include "bloomkit/foreign_bloom.h"
#include "contract/filter_contract.h"

namespace bloomkit_test {
namespace {

template <typename F, const char* kLabel, std::uint16_t kId>
struct ForeignTraits : DefaultFilterTraits<F> {
  static constexpr std::string_view kName = kLabel;
  static constexpr std::uint16_t kHashId = kId;
  static constexpr std::size_t kUsedParams = 3;  // bits, hashes, Guava's strategy
  static constexpr std::uint64_t kSeed = 0;
  static bloomkit::Result<F> Make(std::uint64_t capacity, double fp_rate) {
    return F::Create({.capacity = capacity, .fp_rate = fp_rate});
  }
};

constexpr char kBitsAndBlooms[] = "bits-and-blooms";
constexpr char kGuava[] = "guava";
constexpr char kParquet[] = "parquet";

using BitsAndBloomsTraits =
    ForeignTraits<bloomkit::BitsAndBloomsFilter, kBitsAndBlooms, bloomkit::kHashIdBitsAndBlooms>;
using GuavaTraits = ForeignTraits<bloomkit::GuavaBloomFilter, kGuava, bloomkit::kHashIdGuava>;
using ParquetTraits = ForeignTraits<bloomkit::ParquetBloomFilter, kParquet, bloomkit::kHashIdParquet>;
using ForeignKinds = ::testing::Types<BitsAndBloomsTraits, GuavaTraits, ParquetTraits>;

INSTANTIATE_TYPED_TEST_SUITE_P(Foreign, FilterContractTest, ForeignKinds);

}  // namespace
}  // namespace bloomkit_test
