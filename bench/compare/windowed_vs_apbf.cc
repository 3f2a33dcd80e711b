// SPDX-License-Identifier: Apache-2.0
// bloomkit_windowed_compare: what a window costs, in one run. For the same window capacity
// n and target rate p, side by side:
//   classic   a plain classic Bloom filter holding n keys: the memory floor
//   windowed  bloomkit's WindowedBloomFilter at several G, sized for any schedule within
//             capacity (the default) and sized for steady streams (kSteadyStream)
//   apbf      the age-partitioned Bloom filter (bench/compare/apbf.h) at the paper's (k, l)
// on two schedules of 8-byte keys, each over `--windows` windows of W = 24000 time units:
//   steady    n keys per window, evenly spread (key i at time floor(i W / n)); measured at
//             ends of generations (all G + 1 looked at full: the worst moment) and between
//   bursty    n keys at one instant every W + 1 time units: no window of W holds two bursts,
//             yet just after a burst the windowed filter still looks at the previous one
//             (2n keys live: the worst case its default sizing is for)
// At `--moments` moments after the first two windows (bursty: just after each burst and
// half-way to the next) it measures, for every contender:
//   bits/key  memory allocated at that moment * 8 / n (mean and max over the moments)
//   FPR       over distinct never-added keys, >= 10^6 in all per contender: mean over all the
//             moments, mean over the worst half (ends of generations; just after a burst),
//             and the largest single moment (2^16 keys: its excess is mostly sampling noise)
//   bound     the rate the contender promises (windowed: ExpectedFpRate; APBF: the paper's model)
//   FN        keys added within the last W (time t >= now - W) that answer "absent": must be 0.
//             The APBF counts its window in keys; it keeps the last n keys, which hold every
//             key of the last W as long as a window receives at most n.
// and prints one markdown table per (p, schedule), with "classic bits at that FPR": the
// bits per key a classic filter needs for the rate the contender measured.
//
//   bloomkit_windowed_compare                      # n = 1e6, p = 1% and 0.1%
//   bloomkit_windowed_compare --n=1e5 --windows=4
//   bloomkit_windowed_compare --check              # small n; exit 1 if a guarantee fails
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bench_keys.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/sizing.h"
#include "bloomkit/windowed_bloom_filter.h"
#include "compare/apbf.h"
#include "cpu_timing.h"

namespace bloomkit::bench {
namespace {

constexpr std::uint64_t kWindow = 24'000;  // a multiple of every G below
constexpr std::uint64_t kAbsentBase = std::uint64_t{1} << 62;

// Key i: SplitMix64(i) little-endian, 8 bytes (bench_keys.h's k8 shape), hashed as the
// windowed filter hashes keys; the APBF takes the same 64-bit hash.
std::uint64_t KeyHash(std::uint64_t i) {
  char bytes[8];
  const std::uint64_t id = SplitMix64(i);
  std::memcpy(bytes, &id, 8);
  return WindowedBloomFilter::HashOf(std::string_view(bytes, 8));
}

enum class Schedule { kSteady, kBursty };

struct Config {
  std::uint64_t n = 1'000'000;
  int windows = 6;
  int moments = 16;
  std::uint64_t absent_total = 1'048'576;
  std::vector<double> rates = {0.01, 0.001};
  bool check = false;
};

// Time of key i.
std::uint64_t TimeOf(const Config& c, Schedule s, std::uint64_t i) {
  if (s == Schedule::kSteady) return i * kWindow / c.n;  // i < 2^40 here: no overflow
  return (i / c.n) * (kWindow + 1);
}

// The moments, as (keys added before it, time): after the first two windows.
std::vector<std::pair<std::uint64_t, std::uint64_t>> Moments(const Config& c, Schedule s) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  const std::uint64_t total = static_cast<std::uint64_t>(c.windows) * c.n;
  if (s == Schedule::kSteady) {
    // Half at the end of a half window, which ends a generation for every G here (all even):
    // the G + 1 generations looked at are then all full, a steady stream's worst moment.
    // The other half n / 7 keys earlier, at other phases of each G's generations.
    const std::uint64_t pairs = static_cast<std::uint64_t>(std::max(1, c.moments / 2));
    const std::uint64_t half = c.n / 2;
    const std::uint64_t step = std::max<std::uint64_t>(half, (total - 2 * c.n) / pairs / half * half);
    for (std::uint64_t j = 1; j <= pairs && 2 * c.n + j * step <= total; ++j) {
      const std::uint64_t end = 2 * c.n + j * step;
      out.emplace_back(end - c.n / 7, TimeOf(c, s, end - c.n / 7 - 1));
      out.emplace_back(end, TimeOf(c, s, end - 1));
    }
    return out;
  }
  for (int b = 1; b < c.windows; ++b) {
    const std::uint64_t added = static_cast<std::uint64_t>(b + 1) * c.n;
    const std::uint64_t t = TimeOf(c, s, added - 1);
    out.emplace_back(added, t);                // just after burst b: bursts b - 1 and b live
    out.emplace_back(added, t + kWindow / 2);  // half-way to the next
  }
  return out;
}

struct Measured {
  std::string name;
  double bits_mean = 0;
  double bits_max = 0;
  double fpr_mean = 0;
  double fpr_max = 0;
  double fpr_worst = 0;  // mean over the worst moments: generation ends (steady), just after a burst
  std::uint64_t false_negatives = 0;
  std::uint64_t present_queries = 0;
  std::uint64_t absent_queries = 0;
  double bound = 0;             // the rate the contender promises on this schedule
  double absent_ns = 0;         // CPU ns per absent query
  bool bound_applies = true;    // false: the schedule is outside the contender's precondition
  bool bound_is_model = false;  // the APBF's: the paper's estimate at its worst moment, not a bound
};

// Contenders through one shape: Add(hash, time), MayContain(hash, time), memory.
struct WindowedContender {
  WindowedBloomFilter f;
  void Add(std::uint64_t h, std::uint64_t t) {
    f.Advance(t);
    if (!f.AddHash(h).ok()) {
      std::fprintf(stderr, "windowed add failed\n");
      std::exit(2);
    }
  }
  void Advance(std::uint64_t t) { f.Advance(t); }
  [[nodiscard]] bool MayContain(std::uint64_t h, std::uint64_t t) const { return f.MayContainHashAt(h, t); }
  [[nodiscard]] std::uint64_t memory() const { return f.memory_bytes(); }
};

struct ApbfContender {
  AgePartitionedBloomFilter f;
  void Add(std::uint64_t h, std::uint64_t /*t*/) { f.AddHash(h); }
  void Advance(std::uint64_t /*t*/) {}
  [[nodiscard]] bool MayContain(std::uint64_t h, std::uint64_t /*t*/) const { return f.MayContainHash(h); }
  [[nodiscard]] std::uint64_t memory() const { return f.memory_bytes(); }
};

template <typename C>
Measured Drive(const Config& c, Schedule s, C& contender, std::string name, double bound) {
  Measured m;
  m.name = std::move(name);
  m.bound = bound;
  const auto moments = Moments(c, s);
  const std::uint64_t per_moment = (c.absent_total + moments.size() - 1) / moments.size();
  std::uint64_t added = 0;
  std::uint64_t absent_next = kAbsentBase;
  double absent_seconds = 0;
  double worst_moments = 0;
  for (std::size_t index = 0; index < moments.size(); ++index) {
    const auto [until, t] = moments[index];
    // Moments come in pairs: steady (between, end of a generation); bursty (just after, half-way).
    const bool worst = (index % 2 == 1) == (s == Schedule::kSteady);
    for (; added < until; ++added) contender.Add(KeyHash(added), TimeOf(c, s, added));
    contender.Advance(t);
    // No false negative for keys added at times >= t - W: the first such key by binary
    // search (times are non-decreasing), then the first 1000 (the edge) and every 16th.
    std::uint64_t lo = 0;
    std::uint64_t hi = added;
    const std::uint64_t edge = t >= kWindow ? t - kWindow : 0;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (TimeOf(c, s, mid) < edge) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    for (std::uint64_t i = lo; i < added; i += (i - lo < 1000 ? 1 : 16)) {
      ++m.present_queries;
      m.false_negatives += contender.MayContain(KeyHash(i), t) ? 0U : 1U;
    }
    std::vector<std::uint64_t> hashes(per_moment);
    for (std::uint64_t& h : hashes) h = KeyHash(absent_next++);
    std::uint64_t hits = 0;
    const double t0 = ThreadSeconds();
    for (const std::uint64_t h : hashes) hits += contender.MayContain(h, t) ? 1U : 0U;
    absent_seconds += ThreadSeconds() - t0;
    const double fpr = static_cast<double>(hits) / static_cast<double>(per_moment);
    const double bits = 8.0 * static_cast<double>(contender.memory()) / static_cast<double>(c.n);
    m.fpr_mean += fpr / static_cast<double>(moments.size());
    m.fpr_max = std::max(m.fpr_max, fpr);
    if (worst) {
      m.fpr_worst += fpr;
      ++worst_moments;
    }
    m.bits_mean += bits / static_cast<double>(moments.size());
    m.bits_max = std::max(m.bits_max, bits);
    m.absent_queries += per_moment;
  }
  m.absent_ns = absent_seconds * 1e9 / static_cast<double>(m.absent_queries);
  m.fpr_worst /= std::max(1.0, worst_moments);
  return m;
}

Measured Classic(const Config& c, double p) {
  auto made = BloomFilter::Create({.capacity = c.n, .fp_rate = p});
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", made.error().message().c_str());
    std::exit(2);
  }
  BloomFilter f = std::move(made).value();
  char bytes[8];
  auto key = [&bytes](std::uint64_t i) {
    const std::uint64_t id = SplitMix64(i);
    std::memcpy(bytes, &id, 8);
    return std::string_view(bytes, 8);
  };
  for (std::uint64_t i = 0; i < c.n; ++i) static_cast<void>(f.Add(key(i)));
  Measured m;
  m.name = "classic, n keys (floor)";
  m.bound = p;
  std::uint64_t hits = 0;
  const double t0 = ThreadSeconds();
  for (std::uint64_t i = 0; i < c.absent_total; ++i) hits += f.MayContain(key(kAbsentBase + i)) ? 1U : 0U;
  m.absent_ns = (ThreadSeconds() - t0) * 1e9 / static_cast<double>(c.absent_total);
  for (std::uint64_t i = 0; i < c.n; i += 16) m.false_negatives += f.MayContain(key(i)) ? 0U : 1U;
  m.present_queries = (c.n + 15) / 16;
  m.absent_queries = c.absent_total;
  m.fpr_mean = m.fpr_max = m.fpr_worst = static_cast<double>(hits) / static_cast<double>(c.absent_total);
  m.bits_mean = m.bits_max = 8.0 * static_cast<double>(f.memory_bytes()) / static_cast<double>(c.n);
  return m;
}

std::string Pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f%%", 100 * x);
  return buf;
}

// Half-width of the 99.9% binomial interval of rate p over n trials.
double Bound(double p, double n) {
  return 3.2905 * std::sqrt(p * (1.0 - p) / n);
}

int Run(const Config& c) {
  int failures = 0;
  for (const double p : c.rates) {
    const int digits = static_cast<int>(std::lround(-std::log10(p)));
    for (const Schedule s : {Schedule::kSteady, Schedule::kBursty}) {
      std::vector<Measured> rows;
      rows.push_back(Classic(c, p));
      const double classic_bits = rows[0].bits_mean;
      struct WindowedRun {
        std::uint32_t g;
        WindowedSizing sizing;
      };
      const std::uint32_t dflt = kDefaultWindowedGenerations;
      const WindowedRun runs[] = {{dflt, WindowedSizing::kAnySchedule},  {4, WindowedSizing::kAnySchedule},
                                  {6, WindowedSizing::kAnySchedule},     {12, WindowedSizing::kAnySchedule},
                                  {24, WindowedSizing::kAnySchedule},    {6, WindowedSizing::kSteadyStream},
                                  {dflt, WindowedSizing::kSteadyStream}, {24, WindowedSizing::kSteadyStream}};
      for (const WindowedRun& r : runs) {
        auto made = WindowedBloomFilter::Create(
            {.capacity = c.n, .fp_rate = p, .window = kWindow, .generations = r.g, .sizing = r.sizing});
        if (!made.ok()) {
          std::fprintf(stderr, "%s\n", made.error().message().c_str());
          return 2;
        }
        WindowedContender w{std::move(made).value()};
        const bool steady = r.sizing == WindowedSizing::kSteadyStream;
        std::string name = "windowed G = " + std::to_string(r.g) + (r.g == dflt ? " (default)" : "") +
                           (steady ? ", steady sizing" : "");
        const double bound = w.f.ExpectedFpRate();
        rows.push_back(Drive(c, s, w, name, bound));
        // The steady sizing promises p only while no generation gets more than n / G keys.
        rows.back().bound_applies = !(steady && s == Schedule::kBursty);
      }
      for (const int level : {4, 5}) {
        const auto shape = AgePartitionedBloomFilter::PaperShape(digits, level);
        if (!shape) continue;
        ApbfContender a{AgePartitionedBloomFilter(*shape, c.n)};
        const std::string name = "APBF k = " + std::to_string(shape->k) + ", l = " + std::to_string(shape->l) +
                                 " (level " + std::to_string(level) + ")";
        rows.push_back(Drive(c, s, a, name, AgePartitionedBloomFilter::ModelFpRate(shape->k, shape->l)));
        rows.back().bound_is_model = true;
      }
      std::printf("\n### p = %s, n = %llu, %s schedule (%d windows)\n\n", Pct(p).c_str(),
                  static_cast<unsigned long long>(c.n), s == Schedule::kSteady ? "steady" : "bursty", c.windows);
      std::printf(
          "| filter | bits/key (mean) | max | x classic | FPR (mean) | FPR (worst moments) | largest moment | bound "
          "| classic bits at that FPR | FN | absent query |\n");
      std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      for (const Measured& m : rows) {
        auto same = CalculateParameters(c.n, std::max(m.fpr_mean, 1e-9), FilterKind::kClassic);
        std::printf("| %s | %.2f | %.2f | %.3f | %s | %s | %s | %s%s | %.2f | %llu/%llu | %.1f ns |\n", m.name.c_str(),
                    m.bits_mean, m.bits_max, m.bits_mean / classic_bits, Pct(m.fpr_mean).c_str(),
                    Pct(m.fpr_worst).c_str(), Pct(m.fpr_max).c_str(), Pct(m.bound).c_str(),
                    m.bound_is_model  ? " (model)"
                    : m.bound_applies ? ""
                                      : " (not this schedule)",
                    same.ok() ? same->bits_per_key : 0.0, static_cast<unsigned long long>(m.false_negatives),
                    static_cast<unsigned long long>(m.present_queries), m.absent_ns);
        if (m.false_negatives != 0) {
          std::fprintf(stderr, "FAIL %s: %llu false negatives\n", m.name.c_str(),
                       static_cast<unsigned long long>(m.false_negatives));
          ++failures;
        }
        // At the worst moments (half the queries) the rate must be within the 99.9% interval
        // of the bound.
        const double limit = m.bound + Bound(m.bound, static_cast<double>(m.absent_queries) / 2);
        if (c.check && m.bound_applies && !m.bound_is_model && m.fpr_worst > limit) {
          std::fprintf(stderr, "FAIL %s: FPR %.5f over its bound %.5f\n", m.name.c_str(), m.fpr_worst, limit);
          ++failures;
        }
      }
      std::fflush(stdout);
    }
  }
  return failures == 0 ? 0 : 1;
}

double ParseNumber(const char* text) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v > 0)) {
    std::fprintf(stderr, "bloomkit_windowed_compare: not a positive number: %s\n", text);
    std::exit(2);
  }
  return v;
}

}  // namespace
}  // namespace bloomkit::bench

int main(int argc, char** argv) {
  using bloomkit::bench::Config;
  using bloomkit::bench::ParseNumber;
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.starts_with("--n=")) {
      c.n = static_cast<std::uint64_t>(ParseNumber(argv[i] + 4));
    } else if (a.starts_with("--windows=")) {
      c.windows = std::max(3, static_cast<int>(ParseNumber(argv[i] + 10)));
    } else if (a.starts_with("--moments=")) {
      c.moments = static_cast<int>(ParseNumber(argv[i] + 10));
    } else if (a.starts_with("--absent=")) {
      c.absent_total = static_cast<std::uint64_t>(ParseNumber(argv[i] + 9));
    } else if (a == "--check") {
      c.check = true;
      c.n = 24'000;
      c.windows = 4;
      c.moments = 8;
      c.absent_total = 200'000;
    } else {
      std::fprintf(stderr,
                   "usage: bloomkit_windowed_compare [--n=1e6] [--windows=6] [--moments=16] [--absent=1048576] "
                   "[--check]\n");
      return 2;
    }
  }
#ifndef NDEBUG
  std::fprintf(stderr, "warning: built with assertions on; timings are not representative\n");
#endif
  return bloomkit::bench::Run(c);
}
