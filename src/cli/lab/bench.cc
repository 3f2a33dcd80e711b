// SPDX-License-Identifier: Apache-2.0
// bloomkit bench: a quick look at add and query throughput on this machine, through
// the same paths the CLI uses (AnyFilter::Add per key, MayContainBatch per 4096 keys).
// For careful numbers use bench/ (Google Benchmark) and filter_bench.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "any_filter.h"
#include "bloomkit/sizing.h"
#include "cli.h"
#include "numbers.h"
#include "output.h"

namespace bloomkit::cli {
namespace {

struct BenchOptions {
  std::vector<std::string> kinds;
  std::string items = "1M";
  std::string fp_rate = "0.01";
  std::string seed = "1";
  bool json = false;
};

// Keys "k:<index>:<16 hex digits>" in one arena, views into it.
class KeySet {
 public:
  KeySet(std::uint64_t count, char tag, std::uint64_t seed) {
    views_.reserve(count);
    offsets_.reserve(count + 1);
    std::uint64_t state = seed ^ (static_cast<std::uint64_t>(static_cast<unsigned char>(tag)) << 56);
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      offsets_.push_back(arena_.size());
      fmt::format_to(std::back_inserter(arena_), "{}:{}:{:016x}", tag, i, z ^ (z >> 31));
    }
    offsets_.push_back(arena_.size());
    for (std::uint64_t i = 0; i < count; ++i) {
      views_.emplace_back(arena_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
    }
  }
  [[nodiscard]] const std::vector<std::string_view>& views() const { return views_; }

 private:
  std::string arena_;
  std::vector<std::size_t> offsets_;
  std::vector<std::string_view> views_;
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Queries every key in batches; returns how many may be present.
std::uint64_t QueryAll(const AnyFilter& filter, const std::vector<std::string_view>& keys) {
  constexpr std::size_t kBatch = 4096;
  std::unique_ptr<bool[]> out(new bool[kBatch]);
  std::uint64_t found = 0;
  for (std::size_t i = 0; i < keys.size(); i += kBatch) {
    const std::size_t n = std::min(kBatch, keys.size() - i);
    found += filter.MayContainBatch(std::span(keys).subspan(i, n), std::span<bool>(out.get(), n));
  }
  return found;
}

int RunBench(const BenchOptions& o, const GlobalOptions& global) {
  const std::uint64_t items = Take(ParseCount(o.items, "--items"), "");
  if (items == 0 || items > 100'000'000) Fail(kExitUsage, fmt::format("--items must be in [1, 100M], got {}", o.items));
  const double fp_rate = Take(ParseRate(o.fp_rate, "--fp-rate"), "");
  Check(ValidateFpRate(fp_rate), "--fp-rate");
  const std::uint64_t seed = Take(ParseCount(o.seed, "--seed"), "");
  std::vector<FilterKind> kinds;
  if (o.kinds.empty()) {
    for (FilterKind k : {FilterKind::kClassic, FilterKind::kBlocked, FilterKind::kCounting, FilterKind::kScalable,
                         FilterKind::kCuckoo}) {
      if (KindAvailable(k)) kinds.push_back(k);
    }
  } else {
    for (const std::string& name : o.kinds) kinds.push_back(Take(ParseAvailableKind(name), "--kind"));
  }

  Output out;
#if !defined(__OPTIMIZE__) || !defined(NDEBUG)
  constexpr bool kOptimized = false;
#else
  constexpr bool kOptimized = true;
#endif
  if (!kOptimized) {
    std::fprintf(stderr,
                 "bloomkit: warning: this bloomkit was built without optimization or with assertions; numbers are "
                 "not representative\n");
  }
  std::string json_rows;
  if (!o.json) {
    out.Append(fmt::format("{} keys per filter (about 20 bytes each), target rate {}, {} queries of absent keys\n",
                           GroupThousands(items), Percent(fp_rate), GroupThousands(items)));
    out.Append(fmt::format("{:<9} {:>10} {:>12} {:>12} {:>12} {:>12} {:>9} {:>10}\n", "kind", "add ns/key",
                           "add keys/s", "hit ns/key", "miss ns/key", "query keys/s", "bits/key", "measured"));
    out.Flush();
  }
  const KeySet present(items, 'p', seed);
  const KeySet absent(items, 'a', seed);
  for (FilterKind kind : kinds) {
    CreateSpec spec;
    spec.kind = kind;
    spec.capacity = items;
    spec.fp_rate = fp_rate;
    spec.max_memory_bytes = global.MaxMemoryBytes();
    AnyFilter filter = Take(AnyFilter::Create(spec), FilterKindName(kind));

    auto start = std::chrono::steady_clock::now();
    for (std::string_view key : present.views()) {
      static_cast<void>(Take(filter.Add(key), FilterKindName(kind), kExitData));
    }
    const double add_s = Seconds(start);
    start = std::chrono::steady_clock::now();
    const std::uint64_t hits = QueryAll(filter, present.views());
    const double hit_s = Seconds(start);
    start = std::chrono::steady_clock::now();
    const std::uint64_t false_positives = QueryAll(filter, absent.views());
    const double miss_s = Seconds(start);
    if (hits != items) {
      Fail(kExitData, fmt::format("{}: {} of {} added keys were not found (a false negative: this is a bug)",
                                  FilterKindName(kind), items - hits, items));
    }
    const double n = static_cast<double>(items);
    const FilterSummary s = filter.Summary();
    if (o.json) {
      json_rows += fmt::format(
          "{}{{\"kind\":{},\"add_ns_per_key\":{},\"add_keys_per_s\":{},\"hit_ns_per_key\":{},"
          "\"miss_ns_per_key\":{},\"query_keys_per_s\":{},\"bits_per_key\":{},\"false_positives\":{},"
          "\"measured_fp_rate\":{}}}",
          json_rows.empty() ? "" : ",", JsonString(FilterKindName(kind)), JsonNumber(add_s * 1e9 / n),
          JsonNumber(n / add_s), JsonNumber(hit_s * 1e9 / n), JsonNumber(miss_s * 1e9 / n),
          JsonNumber(2 * n / (hit_s + miss_s)), JsonNumber(static_cast<double>(s.memory_bytes) * 8.0 / n),
          false_positives, JsonNumber(static_cast<double>(false_positives) / n));
      continue;
    }
    out.Append(fmt::format("{:<9} {:>10.1f} {:>12} {:>12.1f} {:>12.1f} {:>12} {:>9.2f} {:>10}\n", FilterKindName(kind),
                           add_s * 1e9 / n, GroupThousands(static_cast<std::uint64_t>(n / add_s)), hit_s * 1e9 / n,
                           miss_s * 1e9 / n, GroupThousands(static_cast<std::uint64_t>(2 * n / (hit_s + miss_s))),
                           static_cast<double>(s.memory_bytes) * 8.0 / n,
                           Percent(static_cast<double>(false_positives) / n)));
    out.Flush();
  }
  if (o.json) {
    out.Append(fmt::format("{{\"items\":{},\"fp_rate\":{},\"seed\":{},\"optimized\":{},\"kinds\":[{}]}}\n", items,
                           JsonNumber(fp_rate), seed, kOptimized, json_rows));
    out.Flush();
  }
  return kExitOk;
}

}  // namespace

Command AddBenchCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* app = parent.add_subcommand("bench", "quick add/query throughput of each filter kind on this machine");
  app->add_option("--kind", o->kinds, "kinds to run (default: every kind of this build)")->delimiter(',');
  app->add_option("--items", o->items, "keys per filter (default 1M)");
  app->add_option("--fp-rate", o->fp_rate, "target rate of each filter (default 0.01)");
  app->add_option("--seed", o->seed, "seed of the keys (default 1)");
  app->add_flag("--json", o->json,
                "one JSON object: items, fp_rate, seed, optimized, kinds: [{kind, add_ns_per_key, add_keys_per_s, "
                "hit_ns_per_key, miss_ns_per_key, query_keys_per_s, bits_per_key, false_positives, "
                "measured_fp_rate}]");
  app->footer(R"(
Columns: add ns/key and keys/s (test-and-add of each key), hit/miss ns/key (queries of
added and of never-added keys, 4096 per batch), bits/key of memory, measured
false-positive rate over the never-added keys.

Examples:
  bloomkit bench
  bloomkit bench --kind blocked --items 10M --fp-rate 0.001)");
  return {app, [o, &global] { return RunBench(*o, global); }};
}

}  // namespace bloomkit::cli
