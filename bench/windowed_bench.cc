// SPDX-License-Identifier: Apache-2.0
// Google Benchmark microbenchmarks of the time-windowed filter against a plain blocked
// filter of the same capacity and target rate (1%), 8-byte keys.
//
//   Windowed/G<g>/MayContain/{present,absent}/n   queries at steady state
//   Windowed/G<g>/Add/n                           one window of adds, time moving
//   Windowed/Blocked/MayContain/{present,absent}/n the plain filter holding n keys
//
// Steady state: n keys per window, arriving evenly (n / G per generation), driven
// through three windows so that the ring is full and generations have turned over;
// the present keys are those of the last window. Counters: ns/key, bits/key (memory
// of the live stages * 8 / n), FPR% over the absent keys, and for the windowed filter
// blocked_bits/key@FPR: the bits per key a plain blocked filter needs for the rate the
// windowed filter measured (CalculateParameters), the comparison at equal measured rate.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "bench_keys.h"
#include "bench_registry.h"
#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/sizing.h"
#include "bloomkit/windowed_bloom_filter.h"

namespace bloomkit::bench {
namespace {

constexpr double kFpRate = 0.01;
constexpr std::uint64_t kMaxQueries = std::uint64_t{1} << 20;
constexpr std::uint64_t kSpan = 1000;  // time units per generation
constexpr int kWindows = 3;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "windowed_bench: %s\n", what.c_str());
  std::exit(1);
}

struct Data {
  KeySet keys;    // kWindows * n keys, in arrival order
  KeySet absent;  // never added
};

const Data& KeysFor(std::uint64_t n) {
  static std::map<std::uint64_t, std::unique_ptr<Data>> cache;
  auto& d = cache[n];
  if (!d) {
    d = std::make_unique<Data>();
    d->keys = MakeKeys(KeyShape::k8, 0, kWindows * n);
    d->absent = MakeKeys(KeyShape::k8, kWindows * n, std::min(n, kMaxQueries));
  }
  return *d;
}

// Adds the keys of `windows` windows, n / G per generation, time moving one generation
// per slice; returns the filter at the end of the last generation.
WindowedBloomFilter Steady(std::uint64_t n, std::uint32_t g, int windows) {
  auto made = WindowedBloomFilter::Create({.capacity = n, .fp_rate = kFpRate, .window = kSpan * g, .generations = g});
  if (!made.ok()) Die(made.error().message());
  WindowedBloomFilter f = std::move(made).value();
  const Data& d = KeysFor(n);
  const std::uint64_t per = n / g;
  std::uint64_t next = 0;
  for (std::uint64_t gen = 0; gen < static_cast<std::uint64_t>(windows) * g; ++gen) {
    f.Advance(gen * kSpan);
    for (std::uint64_t i = 0; i < per; ++i) {
      if (!f.Add(d.keys.keys[next++]).ok()) Die("add failed");
    }
  }
  return f;
}

void Rates(benchmark::State& state, std::uint64_t hits, std::uint64_t queries, bool present) {
  state.SetItemsProcessed(static_cast<std::int64_t>(queries));
  state.counters["ns/key"] =
      benchmark::Counter(static_cast<double>(queries), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  if (!present) state.counters["FPR%"] = 100.0 * static_cast<double>(hits) / static_cast<double>(queries);
}

void BM_WindowedMayContain(benchmark::State& state, std::uint64_t n, std::uint32_t g, bool present) {
  const WindowedBloomFilter f = Steady(n, g, kWindows);
  const Data& d = KeysFor(n);
  const std::uint64_t queries = std::min(n, kMaxQueries);
  const std::size_t first = present ? static_cast<std::size_t>((kWindows - 1) * n) : 0;
  const auto& keys = present ? d.keys.keys : d.absent.keys;
  std::uint64_t hits = 0;
  std::uint64_t done = 0;
  for (auto _ : state) {
    for (std::uint64_t i = 0; i < queries; ++i) hits += f.MayContain(keys[first + i]) ? 1U : 0U;
    done += queries;
  }
  benchmark::DoNotOptimize(hits);
  Rates(state, hits, done, present);
  state.counters["bits/key"] = 8.0 * static_cast<double>(f.memory_bytes()) / static_cast<double>(n);
  state.counters["stages"] = static_cast<double>(f.num_stages());
  if (!present && hits > 0) {
    const double measured = static_cast<double>(hits) / static_cast<double>(done);
    auto same = CalculateParameters(n, measured, FilterKind::kBlocked);
    if (same.ok()) state.counters["blocked_bits/key@FPR"] = same->bits_per_key;
  }
}

void BM_WindowedAdd(benchmark::State& state, std::uint64_t n, std::uint32_t g) {
  for (auto _ : state) {
    WindowedBloomFilter f = Steady(n, g, 1);
    benchmark::DoNotOptimize(f);
  }
  const std::uint64_t keys = static_cast<std::uint64_t>(state.iterations()) * (n / g) * g;
  state.counters["ns/key"] =
      benchmark::Counter(static_cast<double>(keys), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_BlockedMayContain(benchmark::State& state, std::uint64_t n, bool present) {
  auto made = BlockedBloomFilter::Create({.capacity = n, .fp_rate = kFpRate});
  if (!made.ok()) Die(made.error().message());
  BlockedBloomFilter f = std::move(made).value();
  const Data& d = KeysFor(n);
  const std::size_t first = static_cast<std::size_t>((kWindows - 1) * n);
  for (std::uint64_t i = 0; i < n; ++i) static_cast<void>(f.Add(d.keys.keys[first + i]));
  const std::uint64_t queries = std::min(n, kMaxQueries);
  const auto& keys = present ? d.keys.keys : d.absent.keys;
  const std::size_t from = present ? first : 0;
  std::uint64_t hits = 0;
  std::uint64_t done = 0;
  for (auto _ : state) {
    for (std::uint64_t i = 0; i < queries; ++i) hits += f.MayContain(keys[from + i]) ? 1U : 0U;
    done += queries;
  }
  benchmark::DoNotOptimize(hits);
  Rates(state, hits, done, present);
  state.counters["bits/key"] = 8.0 * static_cast<double>(f.memory_bytes()) / static_cast<double>(n);
}

void RegisterWindowed(const BenchConfig& config) {
  for (const std::uint64_t n : config.sizes) {
    if (n > 10'000'000) continue;  // three windows of keys are kept in memory
    const std::string suffix = "/" + std::to_string(n);
    for (const bool present : {true, false}) {
      const std::string which = present ? "present" : "absent";
      benchmark::RegisterBenchmark(("Windowed/Blocked/MayContain/" + which + suffix).c_str(), BM_BlockedMayContain, n,
                                   present)
          ->Unit(benchmark::kMillisecond);
      for (const std::uint32_t g : {4U, 8U, 24U}) {
        benchmark::RegisterBenchmark(("Windowed/G" + std::to_string(g) + "/MayContain/" + which + suffix).c_str(),
                                     BM_WindowedMayContain, n, g, present)
            ->Unit(benchmark::kMillisecond);
      }
    }
    for (const std::uint32_t g : {4U, 8U, 24U}) {
      benchmark::RegisterBenchmark(("Windowed/G" + std::to_string(g) + "/Add" + suffix).c_str(), BM_WindowedAdd, n, g)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

const Registration kWindowed(RegisterWindowed);

}  // namespace
}  // namespace bloomkit::bench
