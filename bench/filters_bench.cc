// SPDX-License-Identifier: Apache-2.0
// Google Benchmark microbenchmarks of the classic and blocked Bloom filters.
//
// Per filter kind, key shape (8-byte ids, 32-64-byte URLs) and n (capacity = keys
// inserted, fp_rate 1%):
//   Add, AddBatch              insert all n keys into a cleared filter; ns/key
//   AddHash, AddHashBatch      the same from precomputed 64-bit hashes
//   MayContain{,Batch}/present query up to 2^20 inserted keys
//   MayContain{,Batch}/absent  query up to 2^20 keys never inserted
//   MayContainHash{,Batch}/... the hash forms
// Counters beside the time: ns/key, bits/key (num_bits / n), FPR% (measured over the
// absent keys on the full filter) and expected FPR% from the sizing formula.
//
// Keys and hashes are generated before timing; a filter is built once per dataset
// and kept while every benchmark of that dataset runs. n = 10^6 (1.2 MB: in L2/L3) runs
// by default; n = 10^8 (~120 MB: DRAM) with --bloomkit_n=1e8 (it adds 10^8 keys a few
// times: minutes).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "bench_keys.h"
#include "bench_registry.h"
#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"

namespace bloomkit::bench {
namespace {

constexpr double kFpRate = 0.01;
// Queries per iteration: enough to leave the caches at large n, small enough that an
// iteration of a DRAM-bound query stays well under a second.
constexpr std::uint64_t kMaxQueries = std::uint64_t{1} << 20;
// Batch calls take this many keys at a time (the size of a typical caller's buffer).
constexpr std::size_t kBatchKeys = 1024;

struct Dataset {
  std::uint64_t generation = 0;  // distinct for every dataset built in this process
  KeyShape shape = KeyShape::k8;
  std::uint64_t n = 0;
  KeySet present;  // n keys, all inserted
  KeySet absent;   // min(n, kMaxQueries) keys, never inserted
  std::vector<std::uint64_t> present_hashes;
  std::vector<std::uint64_t> absent_hashes;

  [[nodiscard]] std::uint64_t num_queries() const { return absent.count(); }
};

// One dataset in memory at a time: benchmarks are registered grouped by (n, shape), so
// a 10^8 key set is built once and freed before the next.
Dataset& GetDataset(KeyShape shape, std::uint64_t n) {
  static std::unique_ptr<Dataset> current;
  static std::uint64_t generations = 0;
  if (!current || current->shape != shape || current->n != n) {
    current.reset();
    auto d = std::make_unique<Dataset>();
    d->generation = ++generations;
    d->shape = shape;
    d->n = n;
    d->present = MakeKeys(shape, 0, n);
    d->absent = MakeKeys(shape, n, std::min(n, kMaxQueries));
    d->present_hashes = MakeHashes(0, n);
    d->absent_hashes = MakeHashes(n, std::min(n, kMaxQueries));
    current = std::move(d);
  }
  return *current;
}

template <typename Filter>
Filter NewFilter(std::uint64_t n) {
  auto filter = Filter::Create({.capacity = n, .fp_rate = kFpRate});
  if (!filter.ok()) {
    std::fprintf(stderr, "cannot create filter: %s\n", std::string(filter.error().message()).c_str());
    std::abort();
  }
  return std::move(filter).value();
}

// A filter holding every key (or hash) of a dataset, with its measured FPR.
template <typename Filter>
struct Built {
  Filter filter;
  double measured_fpr = 0;
};

template <typename Filter, bool kHashes>
Built<Filter>& GetBuilt(const Dataset& d) {
  static std::unique_ptr<Built<Filter>> built;
  static std::uint64_t built_for = 0;  // Dataset::generation
  if (!built || built_for != d.generation) {
    built.reset();
    auto b = std::make_unique<Built<Filter>>(Built<Filter>{NewFilter<Filter>(d.n), 0});
    std::uint64_t hits = 0;
    if constexpr (kHashes) {
      static_cast<void>(b->filter.AddHashBatch(d.present_hashes));
      for (std::uint64_t h : d.absent_hashes) hits += static_cast<std::uint64_t>(b->filter.MayContainHash(h));
    } else {
      static_cast<void>(b->filter.AddBatch(d.present.keys));
      for (std::string_view k : d.absent.keys) hits += static_cast<std::uint64_t>(b->filter.MayContain(k));
    }
    b->measured_fpr = static_cast<double>(hits) / static_cast<double>(d.num_queries());
    built = std::move(b);
    built_for = d.generation;
  }
  return *built;
}

template <typename Filter>
void SetCounters(benchmark::State& state, const Filter& filter, std::uint64_t n, double measured_fpr,
                 std::uint64_t keys_per_iteration) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(keys_per_iteration));
  state.counters["ns/key"] =
      benchmark::Counter(static_cast<double>(keys_per_iteration),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["bits/key"] = static_cast<double>(filter.num_bits()) / static_cast<double>(n);
  state.counters["FPR%"] = 100 * measured_fpr;
  state.counters["expFPR%"] = 100 * filter.ExpectedFpRate();
}

enum class Form { kSingle, kBatch };

template <typename Filter, bool kHashes, Form kForm>
void BM_Add(benchmark::State& state, KeyShape shape, std::uint64_t n) {
  const Dataset& d = GetDataset(shape, n);
  Filter filter = NewFilter<Filter>(n);
  for (auto _ : state) {
    state.PauseTiming();
    filter.Clear();
    state.ResumeTiming();
    if constexpr (kHashes && kForm == Form::kSingle) {
      for (std::uint64_t h : d.present_hashes) static_cast<void>(filter.AddHash(h));
    } else if constexpr (kHashes) {
      const std::span<const std::uint64_t> all(d.present_hashes);
      for (std::size_t i = 0; i < all.size(); i += kBatchKeys) {
        static_cast<void>(filter.AddHashBatch(all.subspan(i, std::min(kBatchKeys, all.size() - i))));
      }
    } else if constexpr (kForm == Form::kSingle) {
      for (std::string_view k : d.present.keys) static_cast<void>(filter.Add(k));
    } else {
      const std::span<const std::string_view> all(d.present.keys);
      for (std::size_t i = 0; i < all.size(); i += kBatchKeys) {
        static_cast<void>(filter.AddBatch(all.subspan(i, std::min(kBatchKeys, all.size() - i))));
      }
    }
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(filter.count());
  SetCounters(state, filter, n, GetBuilt<Filter, kHashes>(d).measured_fpr, n);
}

template <typename Filter, bool kHashes, Form kForm>
void BM_MayContain(benchmark::State& state, KeyShape shape, std::uint64_t n, bool present) {
  const Dataset& d = GetDataset(shape, n);
  const Built<Filter>& built = GetBuilt<Filter, kHashes>(d);
  const Filter& filter = built.filter;
  const std::uint64_t q = d.num_queries();
  const std::span<const std::string_view> keys =
      std::span<const std::string_view>(present ? d.present.keys : d.absent.keys).first(q);
  const std::span<const std::uint64_t> hashes =
      std::span<const std::uint64_t>(present ? d.present_hashes : d.absent_hashes).first(q);
  bool out[kBatchKeys];
  std::uint64_t hits = 0;
  for (auto _ : state) {
    if constexpr (kHashes && kForm == Form::kSingle) {
      for (std::uint64_t h : hashes) hits += static_cast<std::uint64_t>(filter.MayContainHash(h));
    } else if constexpr (kHashes) {
      for (std::size_t i = 0; i < hashes.size(); i += kBatchKeys) {
        hits += filter.MayContainHashBatch(hashes.subspan(i, std::min(kBatchKeys, hashes.size() - i)), out);
      }
    } else if constexpr (kForm == Form::kSingle) {
      for (std::string_view k : keys) hits += static_cast<std::uint64_t>(filter.MayContain(k));
    } else {
      for (std::size_t i = 0; i < keys.size(); i += kBatchKeys) {
        hits += filter.MayContainBatch(keys.subspan(i, std::min(kBatchKeys, keys.size() - i)), out);
      }
    }
    benchmark::DoNotOptimize(hits);
  }
  SetCounters(state, filter, n, built.measured_fpr, q);
  state.counters["hit%"] =
      100 * static_cast<double>(hits) / (static_cast<double>(q) * static_cast<double>(state.iterations()));
  if (present && hits != q * static_cast<std::uint64_t>(state.iterations()))
    state.SkipWithError("false negative: a present key was missed");
}

template <typename Filter, bool kHashes>
void RegisterKind(std::string_view kind, KeyShape shape, std::uint64_t n) {
  const std::string suffix =
      std::string(kind) + "/" + std::string(kHashes ? "hash" : KeyShapeName(shape)) + "/n:" + std::to_string(n);
  const bool large = n >= 10'000'000;
  auto add = [&](const std::string& name, auto fn) {
    auto* b = benchmark::RegisterBenchmark(name.c_str(), fn);
    b->Unit(benchmark::kMillisecond);
    if (large) b->Iterations(1);
  };
  auto query = [&](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)->Unit(benchmark::kMillisecond);
  };
  const std::string op = kHashes ? "AddHash" : "Add";
  const std::string q = kHashes ? "MayContainHash" : "MayContain";
  add(op + "/" + suffix, [=](benchmark::State& s) { BM_Add<Filter, kHashes, Form::kSingle>(s, shape, n); });
  add(op + "Batch/" + suffix, [=](benchmark::State& s) { BM_Add<Filter, kHashes, Form::kBatch>(s, shape, n); });
  for (bool present : {true, false}) {
    const std::string which = present ? "/present" : "/absent";
    query(q + which + "/" + suffix,
          [=](benchmark::State& s) { BM_MayContain<Filter, kHashes, Form::kSingle>(s, shape, n, present); });
    query(q + "Batch" + which + "/" + suffix,
          [=](benchmark::State& s) { BM_MayContain<Filter, kHashes, Form::kBatch>(s, shape, n, present); });
  }
}

void RegisterFilters(const BenchConfig& config) {
  for (std::uint64_t n : config.sizes) {
    for (KeyShape shape : {KeyShape::k8, KeyShape::kUrl}) {
      if (shape == KeyShape::kUrl && n > 10'000'000 && !config.url_keys_at_large_n) continue;
      RegisterKind<BloomFilter, false>("classic", shape, n);
      RegisterKind<BlockedBloomFilter, false>("blocked", shape, n);
      // The hash forms do not depend on the key shape: run them once per n.
      if (shape == KeyShape::k8) {
        RegisterKind<BloomFilter, true>("classic", shape, n);
        RegisterKind<BlockedBloomFilter, true>("blocked", shape, n);
      }
    }
  }
}

const Registration kFilters(RegisterFilters);

}  // namespace
}  // namespace bloomkit::bench
