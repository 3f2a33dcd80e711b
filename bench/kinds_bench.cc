// SPDX-License-Identifier: Apache-2.0
// Google Benchmark microbenchmarks of the counting, scalable, cuckoo and concurrent
// filters beside the classic filter, all sized for n keys at fp_rate 1% (cuckoo: the
// 12-bit fingerprints that rate needs), 8-byte keys.
//
//   Kinds/<kind>/Add/n             insert n keys into a cleared filter
//   Kinds/<kind>/MayContain/present/n, .../absent/n   query up to 2^20 keys
//   Kinds/<kind>/RemoveAdd/n       Remove then Add one present key (counting, cuckoo)
//   Kinds/Concurrent*/Add/n/threads:T   T threads inserting disjoint slices, lock-free
// Counters: ns/key, bits/key (memory * 8 / n) and FPR% measured over the absent keys of
// the full filter. The scalable filter starts at n / 100 and grows to n (7 stages);
// its bits/key include that growth.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "bench_keys.h"
#include "bench_registry.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/concurrent_bloom_filter.h"
#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/filter.h"
#include "bloomkit/scalable_bloom_filter.h"

namespace bloomkit::bench {
namespace {

constexpr double kFpRate = 0.01;
constexpr std::uint64_t kMaxQueries = std::uint64_t{1} << 20;

struct KindsData {
  std::uint64_t n = 0;
  KeySet present;
  KeySet absent;
};

const KindsData& Data(std::uint64_t n) {
  static std::unique_ptr<KindsData> data;
  if (!data || data->n != n) {
    data.reset();
    auto d = std::make_unique<KindsData>();
    d->n = n;
    d->present = MakeKeys(KeyShape::k8, 0, n);
    d->absent = MakeKeys(KeyShape::k8, n, std::min(n, kMaxQueries));
    data = std::move(d);
  }
  return *data;
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "kinds_bench: %s\n", what.c_str());
  std::exit(1);
}

template <typename R>
auto Unwrap(R&& result) {
  if (!result.ok()) Die(result.error().message());
  return std::forward<R>(result).value();
}

// Per kind: its name and options; everything else is filter.h's vocabulary.
template <Filter F>
struct Kind;
template <>
struct Kind<BloomFilter> {
  static constexpr const char* kName = "Classic";
  static BloomOptions Options(std::uint64_t n) { return {.capacity = n, .fp_rate = kFpRate}; }
};
template <>
struct Kind<CountingBloomFilter> {
  static constexpr const char* kName = "Counting4";
  static CountingOptions Options(std::uint64_t n) { return {.bloom = {.capacity = n, .fp_rate = kFpRate}}; }
};
template <>
struct Kind<ScalableBloomFilter> {
  static constexpr const char* kName = "Scalable";
  static ScalableOptions Options(std::uint64_t n) {
    return {.initial_capacity = std::max<std::uint64_t>(1, n / 100), .fp_rate = kFpRate};
  }
};
template <>
struct Kind<CuckooFilter> {
  static constexpr const char* kName = "Cuckoo";
  static CuckooOptions Options(std::uint64_t n) { return {.capacity = n, .fp_rate = kFpRate}; }
};
template <>
struct Kind<ConcurrentBloomFilter> {
  static constexpr const char* kName = "ConcurrentClassic";
  static BloomOptions Options(std::uint64_t n) { return {.capacity = n, .fp_rate = kFpRate}; }
};
template <>
struct Kind<ConcurrentBlockedBloomFilter> {
  static constexpr const char* kName = "ConcurrentBlocked";
  static BloomOptions Options(std::uint64_t n) { return {.capacity = n, .fp_rate = kFpRate}; }
};

template <Filter F>
F Make(std::uint64_t n) {
  return Unwrap(F::Create(Kind<F>::Options(n)));
}

template <Filter F>
void Add(F& f, std::string_view k) {
  if (!f.Add(k).ok()) Die(std::string(Kind<F>::kName) + " filter refused a key");
}

template <Filter F>
F& FullFilter(std::uint64_t n) {
  static std::unique_ptr<F> filter;
  static std::uint64_t built_for = 0;
  if (!filter || built_for != n) {
    filter.reset();
    filter = std::make_unique<F>(Make<F>(n));
    for (std::string_view k : Data(n).present.keys) Add(*filter, k);
    built_for = n;
  }
  return *filter;
}

std::uint64_t Iterations(const benchmark::State& state) {
  return static_cast<std::uint64_t>(state.iterations());
}

template <typename Filter>
void SetSpaceCounters(benchmark::State& state, const Filter& f, std::uint64_t n) {
  state.counters["bits/key"] = 8.0 * static_cast<double>(f.memory_bytes()) / static_cast<double>(n);
}

template <Filter F>
void BM_Add(benchmark::State& state, std::uint64_t n) {
  const KindsData& d = Data(n);
  for (auto _ : state) {
    state.PauseTiming();
    auto f = Make<F>(n);
    state.ResumeTiming();
    for (std::string_view k : d.present.keys) Add(f, k);
    benchmark::DoNotOptimize(f);
    state.PauseTiming();
    SetSpaceCounters(state, f, n);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(Iterations(state) * n));
  state.counters["ns/key"] = benchmark::Counter(static_cast<double>(Iterations(state) * n),
                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <Filter F>
void BM_MayContain(benchmark::State& state, std::uint64_t n, bool present) {
  const KindsData& d = Data(n);
  const F& f = FullFilter<F>(n);
  const auto& keys = present ? d.present.keys : d.absent.keys;
  const std::size_t queries = std::min<std::size_t>(keys.size(), kMaxQueries);
  std::uint64_t hits = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < queries; ++i) hits += f.MayContain(keys[i]) ? 1U : 0U;
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(static_cast<std::int64_t>(Iterations(state) * queries));
  state.counters["ns/key"] = benchmark::Counter(static_cast<double>(Iterations(state) * queries),
                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  if (!present) {
    state.counters["FPR%"] = 100.0 * static_cast<double>(hits) / static_cast<double>(Iterations(state) * queries);
  }
  SetSpaceCounters(state, f, n);
}

// One Remove and one Add of a present key per item: the steady state of a filter
// that tracks a changing set at capacity.
template <RemovableFilter F>
void BM_RemoveAdd(benchmark::State& state, std::uint64_t n) {
  const KindsData& d = Data(n);
  F& f = FullFilter<F>(n);
  const std::size_t keys = std::min<std::size_t>(d.present.count(), kMaxQueries);
  std::size_t i = 0;
  for (auto _ : state) {
    const std::string_view k = d.present.keys[i];
    if (!f.Remove(k)) Die("remove of a present key failed");
    Add(f, k);
    if (++i == keys) i = 0;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(Iterations(state)));
}

// T threads insert disjoint slices of the n keys into one fresh shared filter (the
// first iteration is a barrier: thread 0 makes the filter before any thread adds).
template <Filter F>
void BM_ConcurrentAdd(benchmark::State& state, std::uint64_t n) {
  const KindsData& d = Data(n);
  static std::unique_ptr<F> shared;
  if (state.thread_index() == 0) shared = std::make_unique<F>(Make<F>(n));
  const auto threads = static_cast<std::size_t>(state.threads());
  const std::size_t slice = d.present.count() / threads;
  const std::size_t begin = slice * static_cast<std::size_t>(state.thread_index());
  for (auto _ : state) {
    for (std::size_t i = begin; i < begin + slice; ++i) Add(*shared, d.present.keys[i]);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(Iterations(state) * slice));
}

template <Filter F>
void RegisterKind(std::uint64_t n) {
  const std::string base = std::string("Kinds/") + Kind<F>::kName;
  const std::string suffix = "/" + std::to_string(n);
  benchmark::RegisterBenchmark((base + "/Add" + suffix).c_str(), BM_Add<F>, n)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark((base + "/MayContain/present" + suffix).c_str(), BM_MayContain<F>, n, true)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark((base + "/MayContain/absent" + suffix).c_str(), BM_MayContain<F>, n, false)
      ->Unit(benchmark::kMillisecond);
  if constexpr (RemovableFilter<F>) {
    benchmark::RegisterBenchmark((base + "/RemoveAdd" + suffix).c_str(), BM_RemoveAdd<F>, n);
  }
}

void RegisterKinds(const BenchConfig& config) {
  for (const std::uint64_t n : config.sizes) {
    if (n > 100'000'000) continue;  // counting at 10^8: 480 MB per filter
    RegisterKind<BloomFilter>(n);
    RegisterKind<CountingBloomFilter>(n);
    RegisterKind<ScalableBloomFilter>(n);
    RegisterKind<CuckooFilter>(n);
    for (const char* name : {"ConcurrentClassic", "ConcurrentBlocked"}) {
      const bool classic = std::string(name) == "ConcurrentClassic";
      auto* b = benchmark::RegisterBenchmark(
          (std::string("Kinds/") + name + "/Add/" + std::to_string(n)).c_str(),
          classic ? BM_ConcurrentAdd<ConcurrentBloomFilter> : BM_ConcurrentAdd<ConcurrentBlockedBloomFilter>, n);
      // One pass per run: a second pass would re-add keys whose bits are all set.
      b->Threads(1)->Threads(2)->UseRealTime()->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(true);
      b->Unit(benchmark::kMillisecond);
    }
  }
}

const Registration kKinds(RegisterKinds);

}  // namespace
}  // namespace bloomkit::bench
