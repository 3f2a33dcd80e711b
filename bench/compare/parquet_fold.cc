// SPDX-License-Identifier: Apache-2.0
// bloomkit_parquet_fold: how small a Parquet split block filter gets once it is folded
// to what its column chunk held, bloomkit's rule against the rule Parquet writers use.
//
//   bloomkit_parquet_fold                        # planned 10^6 values at 1%, targets 1% and 0.1%
//   bloomkit_parquet_fold --planned=1e6 --probes=1e6
//
// A writer sizes the filter for the most distinct values a chunk may hold (Parquet's
// OptimalNumOfBits for `planned` values at 1%), inserts the values the chunk held (n of
// them, from 0.1% to 100% of the plan), and folds: ORs block pairs, halving the filter,
// as long as the folded filter's rate stays at or below the target.
//   - bloomkit: ParquetBloomFilter::FoldsWithin, the rate as the bits give it exactly
//     (mean over blocks of the product over the eight lanes of bits set / 32);
//   - fill^8: the estimate Arrow's and arrow-rs' writers fold by, (bits set / bits)^8 of
//     the whole folded filter (written here from their documented rule).
// Printed for each: the bytes written, the rate each rule predicts, and the rate
// measured over `probes` absent values. A rule is only as good as its measured rate is
// at or below the target: a smaller filter above the target is not "the same rate".
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_keys.h"
#include "bloomkit/foreign_bloom.h"

namespace bloomkit::bench {
namespace {

double Arg(int argc, char** argv, const char* name, double fallback) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return std::atof(argv[i] + prefix.size());
  }
  return fallback;
}

// (bits set / bits)^8 of the filter folded `folds` times.
double FillEstimate(const ParquetBloomFilter& f, unsigned folds) {
  const std::uint64_t blocks = f.num_bits() / 256;
  const std::uint64_t group = std::uint64_t{1} << folds;
  if (blocks % group != 0) return 1.0;
  const std::span<const std::uint64_t> w = f.words();
  std::uint64_t set = 0;
  for (std::uint64_t i = 0; i < blocks / group; ++i) {
    for (std::size_t x = 0; x < 4; ++x) {
      std::uint64_t word = 0;
      for (std::uint64_t j = i * group; j < (i + 1) * group; ++j) word |= w[j * 4 + x];
      set += static_cast<std::uint64_t>(std::popcount(word));
    }
  }
  const double fill = static_cast<double>(set) / (static_cast<double>(blocks / group) * 256.0);
  const double sq = fill * fill;
  return sq * sq * sq * sq;
}

unsigned FillFolds(const ParquetBloomFilter& f, double target) {
  unsigned folds = 0;
  while (folds < 63 && FillEstimate(f, folds + 1) <= target) ++folds;
  return folds;
}

double Measured(const ParquetBloomFilter& f, const KeySet& absent) {
  std::uint64_t hits = 0;
  for (std::string_view key : absent.keys) hits += f.MayContain(key) ? 1U : 0U;
  return static_cast<double>(hits) / static_cast<double>(absent.keys.size());
}

}  // namespace
}  // namespace bloomkit::bench

int main(int argc, char** argv) {
  using namespace bloomkit;
  using namespace bloomkit::bench;
  const auto planned = static_cast<std::uint64_t>(Arg(argc, argv, "planned", 1e6));
  const auto probes = static_cast<std::uint64_t>(Arg(argc, argv, "probes", 1e6));
  const KeySet absent = MakeKeys(KeyShape::kUrl, std::uint64_t{1} << 40, probes);
  std::printf("planned %llu values at 1%%; url keys; rates measured over %llu absent values\n",
              static_cast<unsigned long long>(planned), static_cast<unsigned long long>(probes));
  std::printf(
      "| held n | target | unfolded bytes | bloomkit bytes | predicted | measured | fill^8 bytes | predicted | "
      "measured |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (double share : {0.001, 0.01, 0.05, 0.1, 0.3, 1.0}) {
    const auto n = static_cast<std::uint64_t>(share * static_cast<double>(planned));
    auto f = ParquetBloomFilter::Create({.capacity = planned, .fp_rate = 0.01});
    if (!f.ok()) return 1;
    const KeySet present = MakeKeys(KeyShape::kUrl, 0, n);
    for (std::string_view key : present.keys) (void)f->Add(key);
    for (double target : {0.01, 0.001}) {
      const unsigned ours = f->FoldsWithin(target);
      const unsigned fill = FillFolds(*f, target);
      auto a = f->Folded(ours);
      auto b = f->Folded(fill);
      if (!a.ok() || !b.ok()) return 1;
      std::printf("| %llu | %g%% | %llu | %llu | %.4f%% | %.4f%% | %llu | %.4f%% | %.4f%% |\n",
                  static_cast<unsigned long long>(n), target * 100, static_cast<unsigned long long>(f->num_bits() / 8),
                  static_cast<unsigned long long>(a->num_bits() / 8), 100 * f->FoldedFpRate(ours),
                  100 * Measured(*a, absent), static_cast<unsigned long long>(b->num_bits() / 8),
                  100 * FillEstimate(*f, fill), 100 * Measured(*b, absent));
    }
  }
  return 0;
}
