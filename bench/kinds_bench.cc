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

// Per-kind glue: how to make one, add, query, and (where it exists) remove.
struct Classic {
  static constexpr const char* kName = "Classic";
  static BloomFilter Make(std::uint64_t n) { return Unwrap(BloomFilter::Create({.capacity = n, .fp_rate = kFpRate})); }
  static void Add(BloomFilter& f, std::string_view k) { f.Add(k); }
};
struct Counting {
  static constexpr const char* kName = "Counting4";
  static CountingBloomFilter Make(std::uint64_t n) {
    return Unwrap(CountingBloomFilter::Create({.bloom = {.capacity = n, .fp_rate = kFpRate}}));
  }
  static void Add(CountingBloomFilter& f, std::string_view k) { f.Add(k); }
  static bool Remove(CountingBloomFilter& f, std::string_view k) { return f.Remove(k); }
};
struct Scalable {
  static constexpr const char* kName = "Scalable";
  static ScalableBloomFilter Make(std::uint64_t n) {
    return Unwrap(
        ScalableBloomFilter::Create({.initial_capacity = std::max<std::uint64_t>(1, n / 100), .fp_rate = kFpRate}));
  }
  static void Add(ScalableBloomFilter& f, std::string_view k) {
    if (!f.AddIfAbsent(k).ok()) Die("scalable filter refused a key");
  }
};
struct Cuckoo {
  static constexpr const char* kName = "Cuckoo";
  static CuckooFilter Make(std::uint64_t n) {
    return Unwrap(CuckooFilter::Create({.capacity = n, .fp_rate = kFpRate}));
  }
  static void Add(CuckooFilter& f, std::string_view k) {
    if (!f.Add(k).ok()) Die("cuckoo filter refused a key");
  }
  static bool Remove(CuckooFilter& f, std::string_view k) { return f.Remove(k); }
};
struct ConcurrentClassic {
  static constexpr const char* kName = "ConcurrentClassic";
  static ConcurrentBloomFilter Make(std::uint64_t n) {
    return Unwrap(ConcurrentBloomFilter::Create({.capacity = n, .fp_rate = kFpRate}));
  }
  static void Add(ConcurrentBloomFilter& f, std::string_view k) { f.Add(k); }
};
struct ConcurrentBlocked {
  static constexpr const char* kName = "ConcurrentBlocked";
  static ConcurrentBlockedBloomFilter Make(std::uint64_t n) {
    return Unwrap(ConcurrentBlockedBloomFilter::Create({.capacity = n, .fp_rate = kFpRate}));
  }
  static void Add(ConcurrentBlockedBloomFilter& f, std::string_view k) { f.Add(k); }
};

template <typename Kind>
auto& FullFilter(std::uint64_t n) {
  using Filter = decltype(Kind::Make(n));
  static std::unique_ptr<Filter> filter;
  static std::uint64_t built_for = 0;
  if (!filter || built_for != n) {
    filter.reset();
    filter = std::make_unique<Filter>(Kind::Make(n));
    for (std::string_view k : Data(n).present.keys) Kind::Add(*filter, k);
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

template <typename Kind>
void BM_Add(benchmark::State& state, std::uint64_t n) {
  const KindsData& d = Data(n);
  for (auto _ : state) {
    state.PauseTiming();
    auto f = Kind::Make(n);
    state.ResumeTiming();
    for (std::string_view k : d.present.keys) Kind::Add(f, k);
    benchmark::DoNotOptimize(f);
    state.PauseTiming();
    SetSpaceCounters(state, f, n);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(Iterations(state) * n));
  state.counters["ns/key"] = benchmark::Counter(static_cast<double>(Iterations(state) * n),
                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <typename Kind>
void BM_MayContain(benchmark::State& state, std::uint64_t n, bool present) {
  const KindsData& d = Data(n);
  auto& f = FullFilter<Kind>(n);
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
template <typename Kind>
void BM_RemoveAdd(benchmark::State& state, std::uint64_t n) {
  const KindsData& d = Data(n);
  auto& f = FullFilter<Kind>(n);
  const std::size_t keys = std::min<std::size_t>(d.present.count(), kMaxQueries);
  std::size_t i = 0;
  for (auto _ : state) {
    const std::string_view k = d.present.keys[i];
    if (!Kind::Remove(f, k)) Die("remove of a present key failed");
    Kind::Add(f, k);
    if (++i == keys) i = 0;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(Iterations(state)));
}

// T threads insert disjoint slices of the n keys into one fresh shared filter (the
// first iteration is a barrier: thread 0 makes the filter before any thread adds).
template <typename Kind>
void BM_ConcurrentAdd(benchmark::State& state, std::uint64_t n) {
  const KindsData& d = Data(n);
  static std::unique_ptr<decltype(Kind::Make(n))> shared;
  if (state.thread_index() == 0) shared = std::make_unique<decltype(Kind::Make(n))>(Kind::Make(n));
  const auto threads = static_cast<std::size_t>(state.threads());
  const std::size_t slice = d.present.count() / threads;
  const std::size_t begin = slice * static_cast<std::size_t>(state.thread_index());
  for (auto _ : state) {
    for (std::size_t i = begin; i < begin + slice; ++i) Kind::Add(*shared, d.present.keys[i]);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(Iterations(state) * slice));
}

template <typename Kind>
void RegisterKind(std::uint64_t n, bool removable) {
  const std::string base = std::string("Kinds/") + Kind::kName;
  const std::string suffix = "/" + std::to_string(n);
  benchmark::RegisterBenchmark((base + "/Add" + suffix).c_str(), BM_Add<Kind>, n)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark((base + "/MayContain/present" + suffix).c_str(), BM_MayContain<Kind>, n, true)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark((base + "/MayContain/absent" + suffix).c_str(), BM_MayContain<Kind>, n, false)
      ->Unit(benchmark::kMillisecond);
  if constexpr (requires(decltype(Kind::Make(n))& f, std::string_view k) { Kind::Remove(f, k); }) {
    if (removable) benchmark::RegisterBenchmark((base + "/RemoveAdd" + suffix).c_str(), BM_RemoveAdd<Kind>, n);
  }
}

void RegisterKinds(const BenchConfig& config) {
  for (const std::uint64_t n : config.sizes) {
    if (n > 100'000'000) continue;  // counting at 10^8: 480 MB per filter
    RegisterKind<Classic>(n, false);
    RegisterKind<Counting>(n, true);
    RegisterKind<Scalable>(n, false);
    RegisterKind<Cuckoo>(n, true);
    for (const char* name : {"ConcurrentClassic", "ConcurrentBlocked"}) {
      const bool classic = std::string(name) == "ConcurrentClassic";
      auto* b = benchmark::RegisterBenchmark(
          (std::string("Kinds/") + name + "/Add/" + std::to_string(n)).c_str(),
          classic ? BM_ConcurrentAdd<ConcurrentClassic> : BM_ConcurrentAdd<ConcurrentBlocked>, n);
      // One pass per run: a second pass would re-add keys whose bits are all set.
      b->Threads(1)->Threads(2)->UseRealTime()->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(true);
      b->Unit(benchmark::kMillisecond);
    }
  }
}

const Registration kKinds(RegisterKinds);

}  // namespace
}  // namespace bloomkit::bench
