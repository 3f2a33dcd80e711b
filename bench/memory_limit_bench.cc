// SPDX-License-Identifier: Apache-2.0
// The memory floor under the filters' queries: what reading L random, independent cache
// lines per key costs on this machine, with no hashing and no bit logic.
//
//   MemoryLimit/lines:L/loads/n:N      plain loads; the out-of-order core overlaps what
//                                      its window holds
//   MemoryLimit/lines:L/prefetch:G/n:N groups of G keys (16 or 64): prefetch all G x L
//                                      lines, then read them (the filters' batch
//                                      pattern; more lines in flight can pay)
//
// The buffer is the size of a classic filter of N keys at 1% (9.585 bits/key, allocated
// like a filter: WordArray, so huge pages above 8 MiB). L = 1 is the blocked filter's
// one line per key; L = 7 the classic filter's k = 7 lines. ns/key of the faster form
// is the floor for a filter that touches L lines per key: a classic filter cannot beat
// 7 lines' floor, whatever the code, and neither can its peers.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "bench_registry.h"
#include "bloomkit/hash.h"
#include "bloomkit/word_array.h"

namespace bloomkit::bench {
namespace {

constexpr std::uint64_t kKeysPerIteration = std::uint64_t{1} << 20;
constexpr std::uint64_t kWordsPerLine = 8;

// A random line index for (key, probe): a 64-bit mix of the pair, mapped onto the lines.
inline std::uint64_t LineOf(std::uint64_t key, std::uint64_t probe, std::uint64_t num_lines) noexcept {
  std::uint64_t x = (key << 4 | probe) * 0x9e3779b97f4a7c15ULL;
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29;
  return FastRange64(x, num_lines);
}

template <bool kPrefetch>
void RunMemoryLimit(benchmark::State& state, std::uint64_t lines_per_key, std::uint64_t n, std::uint64_t group) {
  const auto bytes = static_cast<std::uint64_t>(static_cast<double>(n) * 9.585 / 8);
  const std::uint64_t num_lines = std::max<std::uint64_t>(1, bytes / 64);
  WordArray buffer = WordArray::Allocate(num_lines * kWordsPerLine);
  if (!buffer.ok()) {
    state.SkipWithError("out of memory");
    return;
  }
  std::uint64_t* words = buffer.data();
  for (std::uint64_t i = 0; i < buffer.num_words(); i += 512) words[i] = i;  // touch every page
  std::uint64_t sum = 0;
  std::uint64_t base = 0;
  for (auto _ : state) {
    for (std::uint64_t key = 0; key < kKeysPerIteration; key += group) {
      if constexpr (kPrefetch) {
        for (std::uint64_t k = key; k < key + group; ++k) {
          for (std::uint64_t p = 0; p < lines_per_key; ++p) {
            __builtin_prefetch(words + LineOf(base + k, p, num_lines) * kWordsPerLine, 0, 3);
          }
        }
      }
      for (std::uint64_t k = key; k < key + group; ++k) {
        for (std::uint64_t p = 0; p < lines_per_key; ++p) sum += words[LineOf(base + k, p, num_lines) * kWordsPerLine];
      }
    }
    base += kKeysPerIteration;
  }
  benchmark::DoNotOptimize(sum);
  state.counters["ns/key"] =
      benchmark::Counter(static_cast<double>(kKeysPerIteration),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["MB"] = static_cast<double>(num_lines * 64) / 1e6;
}

void RegisterMemoryLimit(const BenchConfig& config) {
  for (std::uint64_t n : config.sizes) {
    for (const std::uint64_t lines : {std::uint64_t{1}, std::uint64_t{7}}) {
      // group 0: plain loads; 16 and 64: prefetched groups of that many keys.
      for (const std::uint64_t group : {std::uint64_t{0}, std::uint64_t{16}, std::uint64_t{64}}) {
        std::string name = "MemoryLimit/lines:";
        name += std::to_string(lines);
        name += group == 0 ? "/loads" : "/prefetch:" + std::to_string(group);
        name += "/n:";
        name += std::to_string(n);
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
          if (group == 0) {
            RunMemoryLimit<false>(s, lines, n, 16);
          } else {
            RunMemoryLimit<true>(s, lines, n, group);
          }
        })->Unit(benchmark::kMillisecond);
      }
    }
  }
}

const Registration kMemoryLimit(RegisterMemoryLimit);

}  // namespace
}  // namespace bloomkit::bench
