// SPDX-License-Identifier: Apache-2.0
// bloomkit_billion: one filter for 10^9 keys (or --keys N), end to end: insertion and
// query throughput, false-negative check, false-positive rate and peak resident memory.
// Too long for Google Benchmark's repetitions: one timed pass of each phase, run under
// /usr/bin/time -v (docs/BENCHMARKS.md, "10^9 keys").
//
//   bloomkit_billion [--kind classic|blocked] [--keys N] [--fp-rate P] [--absent N] [--present N]
//
// Keys are 8-byte little-endian integers (bloomkit::IntegerKey): 0..N-1 are added in
// batches of 4096 (AddBatch), the first --present of them are queried back (every one
// must be found), and N..N+absent-1, never added, measure the false-positive rate
// (MayContainBatch). Keys are generated per batch, so memory is the filter's alone.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/hash.h"

namespace {

constexpr std::size_t kBatch = 4096;

double CpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

double PeakRssMiB() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// Keys first..first+count-1 as 8-byte strings in `bytes`, views in `keys`.
void MakeKeys(std::uint64_t first, std::size_t count, std::vector<char>& bytes, std::vector<std::string_view>& keys) {
  bytes.resize(count * 8);
  keys.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const bloomkit::IntegerKey key(first + i);
    const std::string_view view = key;
    std::memcpy(bytes.data() + 8 * i, view.data(), 8);
    keys[i] = std::string_view(bytes.data() + 8 * i, 8);
  }
}

struct Phase {
  double wall = 0;
  double cpu = 0;
};

template <typename Filter>
int Run(Filter& filter, std::uint64_t n, std::uint64_t present, std::uint64_t absent) {
  std::vector<char> bytes;
  std::vector<std::string_view> keys;
  std::unique_ptr<bool[]> out(new bool[kBatch]);
  auto timed = [&](auto&& body) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu = CpuSeconds();
    body();
    return Phase{std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), CpuSeconds() - cpu};
  };
  const Phase add = timed([&] {
    for (std::uint64_t i = 0; i < n; i += kBatch) {
      MakeKeys(i, static_cast<std::size_t>(std::min<std::uint64_t>(kBatch, n - i)), bytes, keys);
      static_cast<void>(filter.AddBatch(keys));
    }
  });
  std::uint64_t missed = 0;
  const Phase hit = timed([&] {
    for (std::uint64_t i = 0; i < present; i += kBatch) {
      const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(kBatch, present - i));
      MakeKeys(i, count, bytes, keys);
      missed += count - filter.MayContainBatch(keys, std::span<bool>(out.get(), count));
    }
  });
  std::uint64_t false_positives = 0;
  const Phase miss = timed([&] {
    for (std::uint64_t i = 0; i < absent; i += kBatch) {
      const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(kBatch, absent - i));
      MakeKeys(n + i, count, bytes, keys);
      false_positives += filter.MayContainBatch(keys, std::span<bool>(out.get(), count));
    }
  });
  const double mib = static_cast<double>(filter.memory_bytes()) / (1 << 20);
  std::printf("filter: %.1f MiB, %.2f bits/key, %u hashes\n", mib,
              static_cast<double>(filter.num_bits()) / static_cast<double>(n), filter.num_hashes());
  auto row = [](const char* what, std::uint64_t keys_done, const Phase& p) {
    std::printf("%-22s %14llu keys %8.1f s wall %8.1f s CPU %7.2f M keys/s wall %7.2f M keys/s CPU\n", what,
                static_cast<unsigned long long>(keys_done), p.wall, p.cpu,
                static_cast<double>(keys_done) / p.wall / 1e6, static_cast<double>(keys_done) / p.cpu / 1e6);
  };
  row("insert (AddBatch)", n, add);
  row("query present", present, hit);
  row("query absent", absent, miss);
  std::printf("false negatives: %llu of %llu\n", static_cast<unsigned long long>(missed),
              static_cast<unsigned long long>(present));
  std::printf("false-positive rate: %.4f%% (%llu of %llu), expected %.4f%%\n",
              100.0 * static_cast<double>(false_positives) / static_cast<double>(absent),
              static_cast<unsigned long long>(false_positives), static_cast<unsigned long long>(absent),
              100.0 * filter.ExpectedFpRate());
  std::printf("peak RSS: %.1f MiB\n", PeakRssMiB());
  return missed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string kind = "blocked";
  std::uint64_t n = 1'000'000'000;
  std::uint64_t present = 100'000'000;
  std::uint64_t absent = 100'000'000;
  double fp_rate = 0.01;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--kind") {
      kind = value;
    } else if (flag == "--keys") {
      n = std::strtoull(value, nullptr, 10);
    } else if (flag == "--present") {
      present = std::strtoull(value, nullptr, 10);
    } else if (flag == "--absent") {
      absent = std::strtoull(value, nullptr, 10);
    } else if (flag == "--fp-rate") {
      fp_rate = std::strtod(value, nullptr);
    } else {
      std::fprintf(stderr, "usage: %s [--kind classic|blocked] [--keys N] [--fp-rate P] [--present N] [--absent N]\n",
                   argv[0]);
      return 2;
    }
  }
  present = std::min(present, n);
  const bloomkit::BloomOptions options{.capacity = n, .fp_rate = fp_rate, .max_memory_bytes = std::uint64_t{1} << 40};
  std::printf("%s filter for %llu keys at %g\n", kind.c_str(), static_cast<unsigned long long>(n), fp_rate);
  if (kind == "classic") {
    auto filter = bloomkit::BloomFilter::Create(options);
    if (!filter.ok()) return std::fprintf(stderr, "%s\n", filter.error().message().c_str()), 2;
    return Run(filter.value(), n, present, absent);
  }
  auto filter = bloomkit::BlockedBloomFilter::Create(options);
  if (!filter.ok()) return std::fprintf(stderr, "%s\n", filter.error().message().c_str()), 2;
  return Run(filter.value(), n, present, absent);
}
