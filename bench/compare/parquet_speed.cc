// SPDX-License-Identifier: Apache-2.0
// bloomkit_parquet_speed: Parquet's split block filter as a bloomkit kind against
// bloomkit's default blocked filter (256-bit lanes, hash id 4 at 1%), same keys, same
// process, both sized for n keys at 1% by their own rules.
//
//   bloomkit_parquet_speed --n=1e6 --reps=7 --key-bytes=8      # or url
//
// Each repetition times, for each filter (the first one alternates): single Add of the n
// keys into a cleared filter, single MayContain of the n present and n absent keys, then
// AddBatch and MayContainBatch of the same keys in batches of 1024. Thread CPU ns per
// key, medians; bits per key and the measured FPR. The program is built without -mavx2,
// as a typical caller is: both run the library's own code paths.
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
#include "bloomkit/foreign_bloom.h"
#include "cpu_timing.h"
#include "internal/hash_inline.h"

namespace bloomkit::bench {
namespace {

constexpr std::size_t kBatch = 1024;

struct Timing {
  std::vector<double> cells[6];  // add, present, absent, add bulk, present bulk, absent bulk
  std::uint64_t false_positives = 0;
};

template <typename Filter>
void MeasureOnce(Filter& f, const KeySet& in, const KeySet& out, Timing& t) {
  std::vector<bool> unused;
  f.Clear();
  t.cells[0].push_back(NsPerKey(in.count(), [&] {
    for (std::string_view k : in.keys) static_cast<void>(f.Add(k));
  }));
  std::uint64_t hits = 0;
  t.cells[1].push_back(NsPerKey(in.count(), [&] {
    for (std::string_view k : in.keys) hits += f.MayContain(k) ? 1U : 0U;
  }));
  std::uint64_t fps = 0;
  t.cells[2].push_back(NsPerKey(out.count(), [&] {
    for (std::string_view k : out.keys) fps += f.MayContain(k) ? 1U : 0U;
  }));
  f.Clear();
  const std::span<const std::string_view> ins(in.keys);
  const std::span<const std::string_view> outs(out.keys);
  t.cells[3].push_back(NsPerKey(in.count(), [&] {
    for (std::size_t i = 0; i < ins.size(); i += kBatch) {
      static_cast<void>(f.AddBatch(ins.subspan(i, std::min(kBatch, ins.size() - i))));
    }
  }));
  bool answers[kBatch];
  std::uint64_t bulk_hits = 0;
  t.cells[4].push_back(NsPerKey(in.count(), [&] {
    for (std::size_t i = 0; i < ins.size(); i += kBatch) {
      const std::size_t m = std::min(kBatch, ins.size() - i);
      bulk_hits += f.MayContainBatch(ins.subspan(i, m), std::span<bool>(answers, m));
    }
  }));
  std::uint64_t bulk_fps = 0;
  t.cells[5].push_back(NsPerKey(out.count(), [&] {
    for (std::size_t i = 0; i < outs.size(); i += kBatch) {
      const std::size_t m = std::min(kBatch, outs.size() - i);
      bulk_fps += f.MayContainBatch(outs.subspan(i, m), std::span<bool>(answers, m));
    }
  }));
  if (hits != in.count() || bulk_hits != in.count() || bulk_fps != fps) {
    std::fprintf(stderr, "bloomkit_parquet_speed: single and batch answers disagree or a key was lost\n");
    std::exit(2);
  }
  t.false_positives = fps;
}

void Print(const char* name, double bits_per_key, const Timing& t, double q) {
  std::printf("| %s | %.2f | %.3f%% |", name, bits_per_key, 100.0 * static_cast<double>(t.false_positives) / q);
  for (const auto& c : t.cells) std::printf(" %.2f |", Median(c));
  std::printf("\n");
}

int Run(std::uint64_t n, int reps, KeyShape shape) {
  const KeySet in = MakeKeys(shape, 0, n);
  const KeySet out = MakeKeys(shape, n, n);
  auto blocked = BlockedBloomFilter::Create({.capacity = n, .fp_rate = 0.01});
  auto parquet = ParquetBloomFilter::Create({.capacity = n, .fp_rate = 0.01});
  if (!blocked.ok() || !parquet.ok()) return 1;
  // The same bits as the blocked filter (not a power of two: bloomkit's own, not for
  // Parquet readers): the Parquet layout's cost apart from its size.
  auto same = ParquetBloomFilter::Create({.num_bits = blocked->num_bits()});
  if (!same.ok()) return 1;
  Timing tb, tp, ts;
  for (int r = 0; r < reps; ++r) {
    switch (r % 3) {
      case 0:
        MeasureOnce(*blocked, in, out, tb);
        MeasureOnce(*parquet, in, out, tp);
        MeasureOnce(*same, in, out, ts);
        break;
      case 1:
        MeasureOnce(*parquet, in, out, tp);
        MeasureOnce(*same, in, out, ts);
        MeasureOnce(*blocked, in, out, tb);
        break;
      default:
        MeasureOnce(*same, in, out, ts);
        MeasureOnce(*blocked, in, out, tb);
        MeasureOnce(*parquet, in, out, tp);
        break;
    }
  }
  // The hash each format requires, alone: Parquet's XXH64 of the key and bloomkit's hash
  // id 4 (HashKeyShort64Inline), over the present keys.
  std::vector<double> xxh64, short64;
  std::uint64_t sink = 0;
  for (int r = 0; r < reps; ++r) {
    xxh64.push_back(NsPerKey(in.count(), [&] {
      for (std::string_view k : in.keys) sink += XXH64(k.data(), k.size(), 0);
    }));
    short64.push_back(NsPerKey(in.count(), [&] {
      for (std::string_view k : in.keys) sink += internal::HashKeyShort64Inline(k);
    }));
  }
  const double q = static_cast<double>(out.count());
  const double nd = static_cast<double>(n);
  std::printf("n=%llu keys=%s reps=%d; thread CPU ns per key, medians\n", static_cast<unsigned long long>(n),
              std::string(KeyShapeName(shape)).c_str(), reps);
  std::printf("| filter | bits/key | FPR | add | present | absent | add bulk | present bulk | absent bulk |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  Print("blocked (default)", static_cast<double>(blocked->num_bits()) / nd, tb, q);
  Print("parquet (its sizing)", static_cast<double>(parquet->num_bits()) / nd, tp, q);
  Print("parquet (blocked's bits)", static_cast<double>(same->num_bits()) / nd, ts, q);
  std::printf("parquet / blocked:");
  for (int c = 0; c < 6; ++c) std::printf(" %.2f", Median(tp.cells[c]) / Median(tb.cells[c]));
  std::printf("\nparquet at blocked's bits / blocked:");
  for (int c = 0; c < 6; ++c) std::printf(" %.2f", Median(ts.cells[c]) / Median(tb.cells[c]));
  std::printf("\nhash alone: XXH64 %.2f ns, hash id 4 %.2f ns per key (%llu)\n", Median(xxh64), Median(short64),
              static_cast<unsigned long long>(sink % 2));
  return 0;
}

}  // namespace
}  // namespace bloomkit::bench

int main(int argc, char** argv) {
  std::uint64_t n = 1'000'000;
  int reps = 7;
  std::string key_bytes = "8";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--n=")) {
      n = static_cast<std::uint64_t>(std::strtod(argv[i] + 4, nullptr));
    } else if (arg.starts_with("--reps=")) {
      reps = std::atoi(argv[i] + 7);
    } else if (arg.starts_with("--key-bytes=")) {
      key_bytes = std::string(arg.substr(12));
    } else {
      std::fprintf(stderr, "usage: bloomkit_parquet_speed [--n=1e6] [--reps=7] [--key-bytes=8|url]\n");
      return 64;
    }
  }
  if (n == 0 || reps < 1) return 64;
  return bloomkit::bench::Run(n, reps,
                              key_bytes == "url" ? bloomkit::bench::KeyShape::kUrl : bloomkit::bench::KeyShape::k8);
}
