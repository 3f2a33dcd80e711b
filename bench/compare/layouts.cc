// SPDX-License-Identifier: Apache-2.0
// bloomkit_layouts: the measurements behind the blocked filter's default layout
// (DefaultBlockedLayout, sizing.h; docs/FILTERS.md, "Default layout").
//
//   bloomkit_layouts                       # p = 10% .. 1e-6, n = 1e6, 8-byte and url keys
//   bloomkit_layouts --n=1e6 --reps=7 --key-bytes=8
//
// For each target rate p it prints the bits per key of the classic filter and of both
// blocked layouts (sizing formulas), then builds both layouts for n keys and times, in
// the same process and alternating which layout goes first each repetition, a loop of
// single Add calls (after Clear), and single MayContain on the n present and n absent
// keys. Reported: medians in thread CPU ns per key and the measured FPR. The program is built
// without -mavx2, as a typical caller is, so both layouts run the library's kernels.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bench_keys.h"
#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/sizing.h"
#include "cpu_timing.h"

namespace bloomkit::bench {
namespace {

struct Timing {
  std::vector<double> insert, present, absent;
  std::uint64_t false_positives = 0;
};

void MeasureOnce(BlockedBloomFilter& f, const KeySet& in, const KeySet& out, Timing& t) {
  f.Clear();
  t.insert.push_back(NsPerKey(in.count(), [&] {
    for (std::string_view k : in.keys) static_cast<void>(f.Add(k));
  }));
  std::uint64_t hits = 0;
  t.present.push_back(NsPerKey(in.count(), [&] {
    for (std::string_view k : in.keys) hits += f.MayContain(k) ? 1U : 0U;
  }));
  if (hits != in.count()) {
    std::fprintf(stderr, "bloomkit_layouts: false negative (%llu of %zu found)\n",
                 static_cast<unsigned long long>(hits), in.count());
    std::exit(2);
  }
  std::uint64_t fps = 0;
  t.absent.push_back(NsPerKey(out.count(), [&] {
    for (std::string_view k : out.keys) fps += f.MayContain(k) ? 1U : 0U;
  }));
  t.false_positives = fps;
}

int Run(std::uint64_t n, int reps, KeyShape shape) {
  const KeySet in = MakeKeys(shape, 0, n);
  const KeySet out = MakeKeys(shape, n, n);
  std::printf("n=%llu keys=%s reps=%d (medians, ns per key; library kernels)\n", static_cast<unsigned long long>(n),
              std::string(KeyShapeName(shape)).c_str(), reps);
  std::printf("%-9s | %-7s | %-11s | %-11s | %-6s | %-7s | %-22s | %-22s | %s\n", "target p", "classic", "512 bits/k",
              "256 bits/k", "256/512", "default", "512: ins pos neg FPR%", "256: ins pos neg FPR%",
              "512 ns / 256 ns (ins pos neg)");
  for (const double p : {0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 5e-4, 2e-4, 1e-4, 1e-5, 1e-6}) {
    const auto classic = CalculateParameters(n, p, FilterKind::kClassic);
    const auto lines = CalculateBlockedParameters(n, p, BlockedLayout::kLines512);
    const auto lanes = CalculateBlockedParameters(n, p, BlockedLayout::kLanes256);
    if (!classic.ok() || !lines.ok() || !lanes.ok()) return 1;
    auto f512 = BlockedBloomFilter::Create({.capacity = n, .fp_rate = p, .blocked_layout = BlockedLayout::kLines512});
    auto f256 = BlockedBloomFilter::Create({.capacity = n, .fp_rate = p, .blocked_layout = BlockedLayout::kLanes256});
    if (!f512.ok() || !f256.ok()) return 1;
    Timing t512, t256;
    for (int r = 0; r < reps; ++r) {
      if (r % 2 == 0) {
        MeasureOnce(*f512, in, out, t512);
        MeasureOnce(*f256, in, out, t256);
      } else {
        MeasureOnce(*f256, in, out, t256);
        MeasureOnce(*f512, in, out, t512);
      }
    }
    const double q = static_cast<double>(out.count());
    const char* def = DefaultBlockedLayout(p) == BlockedLayout::kLanes256 ? "256" : "512";
    std::printf(
        "%-9g | %7.2f | %6.2f k=%-2u | %6.2f k=%-2u | %6.3f | %-7s | %4.1f %4.1f %4.1f %6.4f | %4.1f %4.1f %4.1f %6.4f "
        "| %4.2f %4.2f %4.2f\n",
        p, classic->bits_per_key, lines->bits_per_key, lines->num_hashes, lanes->bits_per_key, lanes->num_hashes,
        lanes->bits_per_key / lines->bits_per_key, def, Median(t512.insert), Median(t512.present), Median(t512.absent),
        100.0 * static_cast<double>(t512.false_positives) / q, Median(t256.insert), Median(t256.present),
        Median(t256.absent), 100.0 * static_cast<double>(t256.false_positives) / q,
        Median(t512.insert) / Median(t256.insert), Median(t512.present) / Median(t256.present),
        Median(t512.absent) / Median(t256.absent));
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace bloomkit::bench

int main(int argc, char** argv) {
  std::uint64_t n = 1'000'000;
  int reps = 5;
  std::string key_bytes = "all";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--n=")) {
      n = static_cast<std::uint64_t>(std::strtod(argv[i] + 4, nullptr));
    } else if (arg.starts_with("--reps=")) {
      reps = std::atoi(argv[i] + 7);
    } else if (arg.starts_with("--key-bytes=")) {
      key_bytes = std::string(arg.substr(12));
    } else {
      std::fprintf(stderr, "usage: bloomkit_layouts [--n=1e6] [--reps=5] [--key-bytes=8|url|all]\n");
      return 64;
    }
  }
  if (n == 0 || reps < 1) {
    std::fprintf(stderr, "bloomkit_layouts: --n and --reps must be at least 1\n");
    return 64;
  }
  int rc = 0;
  if (key_bytes == "8" || key_bytes == "all") rc |= bloomkit::bench::Run(n, reps, bloomkit::bench::KeyShape::k8);
  if (key_bytes == "url" || key_bytes == "all") rc |= bloomkit::bench::Run(n, reps, bloomkit::bench::KeyShape::kUrl);
  return rc;
}
