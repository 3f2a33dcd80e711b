// SPDX-License-Identifier: Apache-2.0
// bloomkit_strided_fpr: the false-positive rate of 256-bit blocked filters (k = 8, sized
// for n keys at 1%) on integer keys with a stride, against the formula (Lanes256FpRate),
// at 50%, 75%, 100% and 125% of n:
//
//   hash id 4     BlockedBloomFilter::Create({.capacity = n, .fp_rate = 0.01}), the
//                 default, through Add and MayContain
//   one fold      hash id 4 with its first multiply-fold only, through the same layout's
//                 kernels (the cheaper hash docs/FORMAT.md "Why hash id 4" rejects)
//   boost-fmb32x8 Boost.Bloom's filter<std::uint64_t, 1, fast_multiblock32<8>>, when
//                 built with it (bench/CMakeLists.txt): the same block shape, its own
//                 hash of a 64-bit integer (one multiply-fold)
//
// Keys i * 2^stride + 1 for i = 0..n-1 are added (8 bytes, IntegerKey; Boost takes the
// integer); 2^17 keys from i = 2n on, never added, are queried. Stride 0 means the keys
// i. Printed: false positives of each, the formula's expectation, and z = (measured -
// expected) / sd; a z above 3 is the one-sided failure of tests/unit/hash_quality_test.cc.
//
//   bloomkit_strided_fpr [--n=140000,420000,660000,860000] [--stride=20]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/hash.h"
#include "bloomkit/sizing.h"
#include "bloomkit/word_array.h"
#include "internal/blocked_lanes.h"

#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
#include <boost/bloom/fast_multiblock32.hpp>
#include <boost/bloom/filter.hpp>
#endif

namespace {

using bloomkit::IntegerKey;

constexpr std::uint64_t kQueries = 1 << 17;

// Hash id 4 of an 8-byte key with its first fold only (docs/FORMAT.md).
std::uint64_t OneFold(std::uint64_t v) {
  return bloomkit::Mulx64(v ^ bloomkit::kHashSeed ^ (8 * bloomkit::kShortKeyLengthSalt), bloomkit::kShortKeyMultiplier);
}

double Z(std::uint64_t measured, double expected, double p) {
  return (static_cast<double>(measured) - expected) / std::sqrt(expected * (1 - p));
}

int Run(std::uint64_t n, unsigned stride) {
  const auto key = [stride](std::uint64_t i) { return stride == 0 ? i : (i << stride) + 1; };
  auto created = bloomkit::BlockedBloomFilter::Create({.capacity = n, .fp_rate = 0.01});
  if (!created.ok() || created->layout() != bloomkit::BlockedLayout::kLanes256 || created->num_hashes() != 8) {
    std::fprintf(stderr, "bloomkit_strided_fpr: expected a 256-bit filter with k = 8 for n = %llu\n",
                 static_cast<unsigned long long>(n));
    return 2;
  }
  bloomkit::BlockedBloomFilter& def = *created;
  const std::uint64_t blocks = def.num_blocks();
  const auto& ops = bloomkit::internal::BestLanesOps(8);
  bloomkit::WordArray one_fold = bloomkit::WordArray::Allocate(blocks * 4);
  if (!one_fold.ok()) return 2;
#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
  boost::bloom::filter<std::uint64_t, 1, boost::bloom::fast_multiblock32<8>> boost_filter(static_cast<std::size_t>(n),
                                                                                          0.01);
  const std::uint64_t boost_blocks = boost_filter.capacity() / 256;
#endif
  std::uint64_t added = 0;
  for (const std::uint64_t fill : {n / 2, 3 * n / 4, n, 5 * n / 4}) {
    for (; added < fill; ++added) {
      const IntegerKey k(key(added));
      static_cast<void>(def.Add(k));
      ops.set_hash(one_fold.data(), blocks, OneFold(key(added)));
#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
      boost_filter.insert(key(added));
#endif
    }
    std::uint64_t fp_def = 0;
    std::uint64_t fp_one = 0;
    for (std::uint64_t i = 2 * n; i < 2 * n + kQueries; ++i) {
      fp_def += def.MayContain(IntegerKey(key(i))) ? 1U : 0U;
      fp_one += ops.contains_hash(one_fold.data(), blocks, OneFold(key(i))) ? 1U : 0U;
    }
    const double p = bloomkit::Lanes256FpRate(blocks, static_cast<double>(fill), 8);
    const double expected = p * kQueries;
    std::printf("%9llu %9llu %9.0f | %7llu %+6.1f | %7llu %+6.1f", static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(fill), expected, static_cast<unsigned long long>(fp_def),
                Z(fp_def, expected, p), static_cast<unsigned long long>(fp_one), Z(fp_one, expected, p));
#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
    std::uint64_t fp_boost = 0;
    for (std::uint64_t i = 2 * n; i < 2 * n + kQueries; ++i) fp_boost += boost_filter.may_contain(key(i)) ? 1U : 0U;
    const double pb = bloomkit::Lanes256FpRate(boost_blocks, static_cast<double>(fill), 8);
    std::printf(" | %7llu %+6.1f", static_cast<unsigned long long>(fp_boost), Z(fp_boost, pb * kQueries, pb));
#endif
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::uint64_t> sizes = {140'000, 420'000, 660'000, 860'000};
  unsigned stride = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--n=")) {
      sizes.clear();
      for (const char* p = argv[i] + 4; *p != '\0';) {
        char* end = nullptr;
        const double v = std::strtod(p, &end);
        if (end == p || v < 1000 || v > 1e9) {
          std::fprintf(stderr, "bloomkit_strided_fpr: --n takes sizes in [1000, 1e9], got %s\n", argv[i] + 4);
          return 2;
        }
        sizes.push_back(static_cast<std::uint64_t>(v));
        p = *end == ',' ? end + 1 : end;
      }
    } else if (arg.starts_with("--stride=")) {
      stride = static_cast<unsigned>(std::atoi(argv[i] + 9));
      if (stride > 40) {
        std::fprintf(stderr, "bloomkit_strided_fpr: --stride must be in [0, 40], got %s\n", argv[i] + 9);
        return 2;
      }
    } else {
      std::fprintf(stderr, "usage: bloomkit_strided_fpr [--n=140000,420000,...] [--stride=20]\n");
      return 2;
    }
  }
  const std::string keys = stride == 0 ? "i" : "i * 2^" + std::to_string(stride) + " + 1";
  std::printf("keys %s (8 bytes), %llu absent keys per fill; false positives and z per filter\n", keys.c_str(),
              static_cast<unsigned long long>(kQueries));
  std::printf("%9s %9s %9s | %14s | %14s", "n", "keys", "formula", "hash id 4", "one fold");
#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
  std::printf(" | %14s", "boost-fmb32x8");
#endif
  std::printf("\n");
  for (const std::uint64_t n : sizes) {
    if (const int rc = Run(n, stride); rc != 0) return rc;
  }
  return 0;
}
