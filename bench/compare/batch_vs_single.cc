// SPDX-License-Identifier: Apache-2.0
// bloomkit_batch_vs_single: every kind's batch calls against a loop of its single calls,
// over key lengths and filter sizes, in one process (docs/BENCHMARKS.md, "Batches
// against single calls").
//
//   bloomkit_batch_vs_single                      # n = 1e5, 1e6, 1e7; 8B, 16B, url keys
//   bloomkit_batch_vs_single --n=1e6 --reps=15 --key-bytes=8
//
// For each filter (classic and blocked as Create({.capacity, .fp_rate}) makes them, and
// blocked with each layout asked for), sized for n keys at 1%: insert n keys with Add
// in a loop and with AddBatch (chunks of 1024), query n present and n absent keys with
// MayContain in a loop and MayContainBatch (chunks of 1024). The four single/batch pairs
// alternate inside each repetition (which goes first flips every repetition), and each
// is timed in CPU time of the thread (CLOCK_THREAD_CPUTIME_ID), so time spent
// descheduled on a shared machine does not count. Reported: medians in ns per key and
// batch / single (at or below 1.00: the batch is no slower). Built with -mavx2 on
// x86-64, so the single calls of a 256-bit filter take the inline AVX2 probe: the
// fastest single path there is.
#include <time.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench_keys.h"
#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "cpu_timing.h"

namespace bloomkit::bench {
namespace {

constexpr std::size_t kChunk = 1024;

// Keys of exactly `bytes` bytes (8 or 16): SplitMix64 of the index, then of its
// complement.
KeySet FixedKeys(std::size_t bytes, std::uint64_t first, std::uint64_t count) {
  if (bytes == 0) return MakeKeys(KeyShape::kUrl, first, count);
  KeySet set;
  set.bytes.resize(static_cast<std::size_t>(count) * bytes);
  for (std::uint64_t i = 0; i < count; ++i) {
    for (std::size_t b = 0; b < bytes; ++b) {
      const std::uint64_t word = b < 8 ? SplitMix64(first + i) : SplitMix64(~(first + i));
      set.bytes[static_cast<std::size_t>(i) * bytes + b] = static_cast<char>((word >> (8 * (b % 8))) & 0xffU);
    }
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    set.keys.emplace_back(set.bytes.data() + static_cast<std::size_t>(i) * bytes, bytes);
  }
  return set;
}

enum Metric { kInsert, kPresent, kAbsent, kNumMetrics };

template <typename Filter>
struct Samples {
  std::array<std::vector<double>, kNumMetrics> single, batch;
};

template <typename Filter>
double TimeInsert(Filter& f, std::span<const std::string_view> keys, bool batch) {
  f.Clear();
  const double t0 = ThreadSeconds();
  if (batch) {
    for (std::size_t i = 0; i < keys.size(); i += kChunk) {
      static_cast<void>(f.AddBatch(keys.subspan(i, std::min(kChunk, keys.size() - i))));
    }
  } else {
    for (std::string_view k : keys) static_cast<void>(f.Add(k));
  }
  return (ThreadSeconds() - t0) * 1e9 / static_cast<double>(keys.size());
}

template <typename Filter>
double TimeQuery(const Filter& f, std::span<const std::string_view> keys, bool batch, std::uint64_t& hits) {
  bool out[kChunk];
  const double t0 = ThreadSeconds();
  if (batch) {
    for (std::size_t i = 0; i < keys.size(); i += kChunk) {
      const std::size_t len = std::min(kChunk, keys.size() - i);
      hits += f.MayContainBatch(keys.subspan(i, len), std::span<bool>(out, len));
    }
  } else {
    for (std::string_view k : keys) hits += f.MayContain(k) ? 1U : 0U;
  }
  return (ThreadSeconds() - t0) * 1e9 / static_cast<double>(keys.size());
}

template <typename Filter>
void Row(const char* name, Filter f, const KeySet& in, const KeySet& out, int reps, const char* keys_name,
         std::uint64_t n) {
  Samples<Filter> s;
  std::uint64_t hits = 0;
  for (int r = -1; r < reps; ++r) {  // r = -1: warm-up, not kept
    for (int m = 0; m < kNumMetrics; ++m) {
      for (int step = 0; step < 2; ++step) {
        const bool batch = (step + r + m) % 2 == 1;
        double ns = 0;
        if (m == kInsert) {
          ns = TimeInsert(f, in.keys, batch);
        } else {
          ns = TimeQuery(f, m == kPresent ? in.keys : out.keys, batch, hits);
        }
        if (r >= 0) (batch ? s.batch : s.single)[static_cast<std::size_t>(m)].push_back(ns);
      }
    }
  }
  std::printf("%-9.0e %-4s %-12s", static_cast<double>(n), keys_name, name);
  double worst = 0;
  for (int m = 0; m < kNumMetrics; ++m) {
    const double one = Median(s.single[static_cast<std::size_t>(m)]);
    const double many = Median(s.batch[static_cast<std::size_t>(m)]);
    worst = std::max(worst, many / one);
    std::printf(" | %6.2f %6.2f %5.2f", one, many, many / one);
  }
  std::printf(" | %5.2f%s\n", worst, hits == 0 ? " (no hits?)" : "");
  std::fflush(stdout);
}

void Run(std::uint64_t n, std::size_t key_bytes, int reps) {
  const KeySet in = FixedKeys(key_bytes, 0, n);
  const KeySet out = FixedKeys(key_bytes, n, n);
  const std::string keys_name = key_bytes == 0 ? "url" : std::to_string(key_bytes) + "B";
  const auto make_blocked = [&](std::optional<BlockedLayout> layout) {
    auto f = BlockedBloomFilter::Create({.capacity = n, .fp_rate = 0.01, .blocked_layout = layout});
    if (!f.ok()) std::exit(3);
    return std::move(f).value();
  };
  auto classic = BloomFilter::Create({.capacity = n, .fp_rate = 0.01});
  if (!classic.ok()) std::exit(3);
  Row("classic", std::move(classic).value(), in, out, reps, keys_name.c_str(), n);
  Row("blocked", make_blocked(std::nullopt), in, out, reps, keys_name.c_str(), n);
  Row("blocked512", make_blocked(BlockedLayout::kLines512), in, out, reps, keys_name.c_str(), n);
  Row("blocked256", make_blocked(BlockedLayout::kLanes256), in, out, reps, keys_name.c_str(), n);
}

}  // namespace
}  // namespace bloomkit::bench

int main(int argc, char** argv) {
  std::vector<std::uint64_t> sizes = {100'000, 1'000'000, 10'000'000};
  std::vector<std::size_t> key_bytes = {8, 16, 0};
  int reps = 11;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--n=")) {
      sizes = {static_cast<std::uint64_t>(std::strtod(argv[i] + 4, nullptr))};
    } else if (arg.starts_with("--reps=")) {
      reps = std::atoi(argv[i] + 7);
    } else if (arg == "--key-bytes=8" || arg == "--key-bytes=16") {
      key_bytes = {static_cast<std::size_t>(std::atoi(argv[i] + 12))};
    } else if (arg == "--key-bytes=url") {
      key_bytes = {0};
    } else {
      std::fprintf(stderr, "usage: bloomkit_batch_vs_single [--n=1e6] [--reps=11] [--key-bytes=8|16|url]\n");
      return 64;
    }
  }
  if (sizes[0] == 0 || reps < 1) {
    std::fprintf(stderr, "bloomkit_batch_vs_single: --n and --reps must be at least 1\n");
    return 64;
  }
  std::printf("p = 1%%, medians of %d alternating repetitions, thread CPU ns per key; ratio = batch / single\n", reps);
  std::printf("%-9s %-4s %-12s | %-20s | %-20s | %-20s | %s\n", "n", "keys", "filter", "insert: 1   batch  b/1",
              "present: 1 batch b/1", "absent: 1  batch b/1", "worst b/1");
  for (const std::uint64_t n : sizes) {
    for (const std::size_t kb : key_bytes) bloomkit::bench::Run(n, kb, reps);
  }
  return 0;
}
