// SPDX-License-Identifier: Apache-2.0
// bloomkit experiment fpr: insert N random keys into filters of each size m and hash
// count k, query Q keys that were not inserted, and compare the measured false-positive
// rate with the theory:
//   classic: (1 - e^{-kn/m})^k                 (sizing.h ClassicFpRate)
//   blocked: the Poisson mixture of 512-bit blocks (sizing.h BlockedFpRate)
// Each measured rate comes with its 95% Wilson score interval (Wilson 1927), which
// behaves at rates near 0 where the normal approximation does not. The interval covers
// the sampling of the queries for the one filter built; that filter's own rate also
// varies around the theory (the formula is an average over filters). The spread is
// negligible for the classic filter but visible for a blocked one with few blocks at a
// high rate: 1954 blocks, k = 3, 5 bits/key gives 0.5088, 0.5123, 0.5106 for seeds 1-3
// against a theory of 0.5106, each with an interval of +-0.0005.
//
// Defaults reproduce the table of the seeds: n = 200,000; m = 1M, 2M, 4M, 8M bits (10^6)
// paired with k = 3, 5, 7, 9, plus the optimal k for each m. Q = 4,000,000: the 95%
// interval's half-width relative to the rate is 1.96 sqrt((1 - p) / (p Q)), under 10%
// for every p >= 1e-4 (p = 1e-4: 9.8%); the default table's rates below that, 5.5e-7 and
// ~1e-8, expect 2 and 0.02 hits, and only an upper bound is meaningful for them.
// Cost: every query key is hashed once and probed in all filters (~1 s for the defaults).
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/format.h"
#include "bloomkit/hash.h"
#include "bloomkit/sizing.h"
#include "cli.h"
#include "numbers.h"
#include "output.h"

extern char** environ;

namespace bloomkit::cli {
namespace {

constexpr double kZ95 = 1.959963984540054;

struct FprOptions {
  std::string items = "200000";
  std::vector<std::string> bits;
  std::vector<std::string> hashes;
  std::string queries = "4000000";
  std::string kind = "classic";
  std::string csv;
  std::string plot;
  std::string seed = "1";
  bool no_optimal = false;
  bool json = false;
};

struct Row {
  std::uint64_t requested_bits = 0;
  std::uint64_t num_bits = 0;  // after rounding (blocked: whole blocks)
  std::uint32_t num_hashes = 0;
  double theory = 0;
  std::uint64_t hits = 0;
  double measured = 0;
  double ci_low = 0;
  double ci_high = 0;
};

// SplitMix64 (Steele, Lea & Flood 2014): a seeded stream, identical on every machine.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// A random 16-byte key: `prefix` then 15 characters of a 64-letter alphabet (90 random
// bits). Inserted and query keys get different prefixes, so no query was inserted.
void RandomKey(Random& random, char prefix, std::array<char, 16>& key) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::uint64_t a = random.Next();
  std::uint64_t b = random.Next();
  key[0] = prefix;
  for (std::size_t i = 1; i < 11; ++i, a >>= 6) key[i] = kAlphabet[a & 63U];
  for (std::size_t i = 11; i < 16; ++i, b >>= 6) key[i] = kAlphabet[b & 63U];
}

// Wilson score interval for `hits` successes in `trials`.
void WilsonInterval(std::uint64_t hits, std::uint64_t trials, double* low, double* high) {
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(hits) / n;
  const double z2 = kZ95 * kZ95;
  const double denom = 1.0 + z2 / n;
  const double center = (p + z2 / (2 * n)) / denom;
  const double half = kZ95 / denom * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  *low = std::max(0.0, center - half);
  *high = std::min(1.0, center + half);
}

std::uint32_t BlockedOptimalHashes(std::uint64_t num_blocks, double n) {
  std::uint32_t best_k = 1;
  double best = 2.0;
  for (std::uint32_t k = 1; k <= kMaxBlockedNumHashes; ++k) {
    const double rate = BlockedFpRate(num_blocks, n, k);
    if (rate < best) {
      best = rate;
      best_k = k;
    }
  }
  return best_k;
}

template <typename Filter>
void Measure(std::vector<Row>& rows, std::uint64_t items, std::uint64_t queries, std::uint64_t seed) {
  std::vector<Filter> filters;
  filters.reserve(rows.size());
  for (Row& row : rows) {
    auto f = Filter::Create({.num_bits = row.requested_bits, .num_hashes = row.num_hashes});
    filters.push_back(Take(std::move(f), fmt::format("--bits {} --hashes {}", row.requested_bits, row.num_hashes)));
    row.num_bits = filters.back().num_bits();
  }
  Random random(seed);
  std::array<char, 16> key{};
  for (std::uint64_t i = 0; i < items; ++i) {
    RandomKey(random, 'i', key);
    const HashPair h = HashKey(std::string_view(key.data(), key.size()));
    for (Filter& f : filters) static_cast<void>(f.AddHashPair(h));
  }
  std::vector<std::uint64_t> hits(filters.size(), 0);
  for (std::uint64_t q = 0; q < queries; ++q) {
    RandomKey(random, 'q', key);
    const HashPair h = HashKey(std::string_view(key.data(), key.size()));
    for (std::size_t j = 0; j < filters.size(); ++j) hits[j] += filters[j].MayContainHashPair(h) ? 1U : 0U;
  }
  for (std::size_t j = 0; j < rows.size(); ++j) rows[j].hits = hits[j];
}

std::string Sci(double value) {
  return value == 0 ? "0" : fmt::format("{:.3e}", value);
}

std::string Table(const std::vector<Row>& rows, std::string_view kind, std::uint64_t items, std::uint64_t queries,
                  std::uint64_t seed, double seconds) {
  std::string out = fmt::format("{} filter, n = {} keys, {} queries of absent keys per filter, seed {}\n", kind,
                                GroupThousands(items), GroupThousands(queries), seed);
  out += fmt::format("{:>12}  {:>8}  {:>3}  {:>11}  {:>11}  {:>25}  {:>10}\n", "m (bits)", "bits/key", "k",
                     "theoretical", "measured", "95% interval", "hits");
  std::size_t outside = 0;
  for (const Row& r : rows) {
    const bool inside = r.theory >= r.ci_low && r.theory <= r.ci_high;
    outside += inside ? 0 : 1;
    out += fmt::format("{:>12}  {:>8.2f}  {:>3}  {:>11}  {:>11}  {:>25}  {:>10}{}\n", GroupThousands(r.num_bits),
                       static_cast<double>(r.num_bits) / static_cast<double>(items), r.num_hashes, Sci(r.theory),
                       Sci(r.measured), fmt::format("[{}, {}]", Sci(r.ci_low), Sci(r.ci_high)), GroupThousands(r.hits),
                       inside ? "" : "  *");
  }
  out += fmt::format("{} of {} theoretical rates lie inside the measured 95% interval{} ({:.1f} s)\n",
                     rows.size() - outside, rows.size(),
                     outside == 0 ? ""
                                  : " (* = outside: expected for ~5% of rows, and more for small filters at high "
                                    "rates, whose own rate varies around the theory; see docs/CLI.md)",
                     seconds);
  return out;
}

std::string Json(const std::vector<Row>& rows, std::string_view kind, std::uint64_t items, std::uint64_t queries,
                 std::uint64_t seed, double seconds) {
  std::string out = fmt::format("{{\"kind\":{},\"items\":{},\"queries\":{},\"seed\":{},\"seconds\":{},\"rows\":[",
                                JsonString(kind), items, queries, seed, JsonNumber(seconds));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    out += fmt::format(
        "{}{{\"bits\":{},\"bits_per_key\":{},\"hashes\":{},\"theoretical_fp_rate\":{},\"measured_fp_rate\":{},"
        "\"ci_low\":{},\"ci_high\":{},\"hits\":{},\"inside\":{}}}",
        i == 0 ? "" : ",", r.num_bits, JsonNumber(static_cast<double>(r.num_bits) / static_cast<double>(items)),
        r.num_hashes, JsonNumber(r.theory), JsonNumber(r.measured), JsonNumber(r.ci_low), JsonNumber(r.ci_high), r.hits,
        r.theory >= r.ci_low && r.theory <= r.ci_high);
  }
  out += "]}\n";
  return out;
}

void WriteCsv(const std::string& path, const std::vector<Row>& rows, std::string_view kind, std::uint64_t items,
              std::uint64_t queries) {
  std::string text = "kind,items,bits,hashes,queries,theoretical_fp_rate,measured_fp_rate,ci_low,ci_high\n";
  for (const Row& r : rows) {
    text += fmt::format("{},{},{},{},{},{},{},{},{}\n", kind, items, r.num_bits, r.num_hashes, queries,
                        JsonNumber(r.theory), JsonNumber(r.measured), JsonNumber(r.ci_low), JsonNumber(r.ci_high));
  }
  Check(WriteFileAtomically(path, std::as_bytes(std::span(text.data(), text.size()))), path, kExitData);
}

std::string GnuplotQuote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

// Runs `gnuplot script` with its stderr in `log`; on failure, the error names gnuplot's
// own complaint (its last message lines), keeping the one-line error contract.
void RunGnuplot(const std::filesystem::path& script, const std::filesystem::path& log) {
  const std::string script_path = script.string();
  const std::string log_path = log.string();
  const char* argv[] = {"gnuplot", script_path.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  // posix_spawnp takes char* const[] for historical reasons; it does not modify them.
  const int rc = ::posix_spawnp(&pid, "gnuplot", &actions, nullptr, const_cast<char* const*>(argv), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    Fail(kExitData, fmt::format("--plot needs gnuplot (Debian package gnuplot-nox): {}", std::strerror(rc)));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) Fail(kExitData, fmt::format("--plot: waiting for gnuplot failed: {}", std::strerror(errno)));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::ifstream in(log);
  std::string line;
  std::string complaint;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t^");
    if (first == std::string::npos) continue;
    if (!complaint.empty()) complaint += "; ";
    complaint += line.substr(first);
    if (complaint.size() > 300) complaint.erase(0, complaint.size() - 300);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    Fail(kExitData, "--plot needs gnuplot (Debian package gnuplot-nox), which was not found");
  }
  Fail(kExitData, fmt::format("--plot: gnuplot failed: {}", complaint.empty() ? "no message" : complaint));
}

void WritePlot(const std::string& path, const std::vector<Row>& rows, FilterKind kind, std::uint64_t items,
               std::uint64_t queries) {
  // One theory curve per m over k (continuous for the classic formula, whole k for
  // blocked), the measured rates as points with their 95% interval, and zero-hit rows
  // as the interval's upper bound (a log scale cannot show 0).
  std::vector<std::uint64_t> sizes;
  for (const Row& r : rows) {
    if (std::find(sizes.begin(), sizes.end(), r.num_bits) == sizes.end()) sizes.push_back(r.num_bits);
  }
  std::uint32_t max_k = 1;
  double min_rate = 1.0;
  for (const Row& r : rows) {
    max_k = std::max(max_k, r.num_hashes);
    if (r.theory > 0) min_rate = std::min(min_rate, r.theory);
    if (r.ci_high > 0) min_rate = std::min(min_rate, r.ci_high);
  }
  const double x_max = std::ceil(static_cast<double>(max_k) * 1.15) + 1;
  const double y_min = std::pow(10.0, std::floor(std::log10(std::max(min_rate, 1e-300))) - 1);
  const double n = static_cast<double>(items);

  std::string script;
  script += "set terminal pngcairo size 1100,950 enhanced font \"Sans,13\"\n";
  script += fmt::format("set output {}\n", GnuplotQuote(path));
  script += "set encoding utf8\n";
  script +=
      fmt::format("set title {}\n",
                  GnuplotQuote(fmt::format("{} Bloom filter: false-positive rate against k\nn = {} keys "
                                           "inserted, {} absent keys queried per filter",
                                           FilterKindName(kind), GroupThousands(items), GroupThousands(queries))));
  script += "set xlabel \"hash functions k\"\nset ylabel \"false-positive rate (log scale)\"\n";
  script += "set logscale y\nset format y \"10^{%L}\"\n";
  script += fmt::format("set xrange [0:{}]\nset yrange [{}:1]\n", x_max, y_min);
  script += "set grid xtics ytics lc rgb \"#cccccc\"\nset key below center vertical nobox spacing 1.2\n";
  script += fmt::format("set xtics {}\nset mxtics 2\n", x_max > 24 ? 4 : 2);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double m = static_cast<double>(sizes[i]);
    script += fmt::format("$theory{} << EOD\n", i);
    if (kind == FilterKind::kBlocked) {
      for (std::uint32_t k = 1; k <= kMaxBlockedNumHashes; ++k) {
        script += fmt::format("{} {}\n", k, JsonNumber(BlockedFpRate(sizes[i] / 512, n, k)));
      }
    } else {
      // k = 0.5, 0.75, ...: quarters are exact in binary, so k is exactly q / 4.
      for (std::uint32_t q = 2; q * 0.25 <= x_max + 1e-9; ++q) {
        const double k = q * 0.25;
        const double rate = std::pow(-std::expm1(-k * n / m), k);
        script += fmt::format("{} {}\n", k, JsonNumber(rate));
      }
    }
    script += "EOD\n";
    script += fmt::format("$measured{} << EOD\n", i);
    bool any = false;
    for (const Row& r : rows) {
      if (r.num_bits != sizes[i] || r.hits == 0) continue;
      script += fmt::format("{} {} {} {}\n", r.num_hashes, JsonNumber(r.measured), JsonNumber(r.ci_low),
                            JsonNumber(r.ci_high));
      any = true;
    }
    if (!any) script += "NaN NaN NaN NaN\n";
    script += "EOD\n";
    script += fmt::format("$bound{} << EOD\n", i);
    any = false;
    for (const Row& r : rows) {
      if (r.num_bits != sizes[i] || r.hits != 0) continue;
      script += fmt::format("{} {}\n", r.num_hashes, JsonNumber(r.ci_high));
      any = true;
    }
    if (!any) script += "NaN NaN\n";
    script += "EOD\n";
  }
  script += "plot \\\n";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::size_t color = i + 1;
    const std::string title =
        fmt::format("m = {} bits ({:.1f} bits/key)", GroupThousands(sizes[i]), static_cast<double>(sizes[i]) / n);
    script += fmt::format("  $theory{} using 1:2 with lines lw 2 lc {} title {}, \\\n", i, color, GnuplotQuote(title));
    script += fmt::format("  $measured{} using 1:2:3:4 with yerrorbars pt 7 ps 1.3 lw 2 lc {} notitle, \\\n", i, color);
    script += fmt::format("  $bound{} using 1:2 with points pt 11 ps 2 lc {} notitle, \\\n", i, color);
  }
  script += "  keyentry with yerrorbars pt 7 ps 1.3 lw 2 lc rgb \"black\" title \"measured, 95% interval\", \\\n";
  script += fmt::format(
      "  keyentry with points pt 11 ps 2 lc rgb \"black\" title {}\n",
      GnuplotQuote(fmt::format("no false positive in {} queries: 95% upper bound", GroupThousands(queries))));

  // The script goes in a private temporary directory next to nothing else.
  std::string dir_template = (std::filesystem::temp_directory_path() / "bloomkit-plot.XXXXXX").string();
  if (::mkdtemp(dir_template.data()) == nullptr) {
    Fail(kExitData, fmt::format("--plot: cannot create a temporary directory: {}", std::strerror(errno)));
  }
  const std::filesystem::path dir(dir_template);
  const std::filesystem::path script_path = dir / "fpr.gp";
  {
    std::ofstream file(script_path, std::ios::binary);
    file << script;
    if (!file) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
      Fail(kExitData, fmt::format("--plot: cannot write {}", script_path.string()));
    }
  }
  try {
    RunGnuplot(script_path, dir / "gnuplot.log");
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    throw;
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

int RunFpr(const FprOptions& o, const GlobalOptions& global) {
  const FilterKind kind = Take(ParseFilterKind(o.kind), "--kind");
  if (kind != FilterKind::kClassic && kind != FilterKind::kBlocked) {
    Fail(kExitUsage, fmt::format("--kind: experiment fpr supports classic and blocked, got {}", o.kind));
  }
  const std::uint64_t items = Take(ParseCount(o.items, "--items"), "");
  const std::uint64_t queries = Take(ParseCount(o.queries, "--queries"), "");
  const std::uint64_t seed = Take(ParseCount(o.seed, "--seed"), "");
  if (items == 0) Fail(kExitUsage, "--items must be at least 1, got 0");
  if (queries == 0) Fail(kExitUsage, "--queries must be at least 1, got 0");
  const std::vector<std::string> bits_text = o.bits.empty() ? std::vector<std::string>{"1M", "2M", "4M", "8M"} : o.bits;
  const std::vector<std::string> hashes_text =
      o.hashes.empty() && o.bits.empty() ? std::vector<std::string>{"3", "5", "7", "9"} : o.hashes;
  if (!hashes_text.empty() && hashes_text.size() != 1 && hashes_text.size() != bits_text.size()) {
    Fail(kExitUsage, fmt::format("give one --hashes value per --bits value, or one for all ({} bits values, {} "
                                 "hashes values)",
                                 bits_text.size(), hashes_text.size()));
  }
  const std::uint32_t max_k = kind == FilterKind::kBlocked ? kMaxBlockedNumHashes : kMaxNumHashes;
  const std::uint64_t max_bytes = global.MaxMemoryBytes();
  std::vector<Row> rows;
  auto add_row = [&](std::uint64_t bits, std::uint32_t k) {
    for (const Row& r : rows) {
      if (r.requested_bits == bits && r.num_hashes == k) return;
    }
    Row row;
    row.requested_bits = bits;
    row.num_hashes = k;
    rows.push_back(row);
  };
  for (std::size_t i = 0; i < bits_text.size(); ++i) {
    const std::uint64_t bits = Take(ParseCount(bits_text[i], "--bits"), "");
    if (bits == 0) Fail(kExitUsage, "--bits must be at least 1, got 0");
    Check(ValidateMemory(bits / 8, max_bytes, fmt::format("--bits {}", bits_text[i])), "");
    if (!hashes_text.empty()) {
      const std::string& k_text = hashes_text.size() == 1 ? hashes_text[0] : hashes_text[i];
      const std::uint64_t k = Take(ParseCount(k_text, "--hashes"), "");
      if (k < 1 || k > max_k) {
        Fail(kExitUsage, fmt::format("--hashes must be in [1, {}] for a {} filter, got {}", max_k, o.kind, k_text));
      }
      add_row(bits, static_cast<std::uint32_t>(k));
    }
    if (!o.no_optimal || hashes_text.empty()) {
      const double n = static_cast<double>(items);
      const std::uint32_t k = kind == FilterKind::kBlocked ? BlockedOptimalHashes((bits + 511) / 512, n)
                                                           : OptimalNumHashes(static_cast<double>(bits), n);
      add_row(bits, k);
    }
  }

  const auto start = std::chrono::steady_clock::now();
  if (kind == FilterKind::kBlocked) {
    Measure<BlockedBloomFilter>(rows, items, queries, seed);
  } else {
    Measure<BloomFilter>(rows, items, queries, seed);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double n = static_cast<double>(items);
  for (Row& r : rows) {
    r.theory = kind == FilterKind::kBlocked ? BlockedFpRate(r.num_bits / 512, n, r.num_hashes)
                                            : ClassicFpRate(static_cast<double>(r.num_bits), n, r.num_hashes);
    r.measured = static_cast<double>(r.hits) / static_cast<double>(queries);
    WilsonInterval(r.hits, queries, &r.ci_low, &r.ci_high);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.num_bits != b.num_bits ? a.num_bits < b.num_bits : a.num_hashes < b.num_hashes;
  });

  Output out;
  out.Append(o.json ? Json(rows, FilterKindName(kind), items, queries, seed, seconds)
                    : Table(rows, FilterKindName(kind), items, queries, seed, seconds));
  out.Flush();
  if (!o.csv.empty()) WriteCsv(o.csv, rows, FilterKindName(kind), items, queries);
  if (!o.plot.empty()) WritePlot(o.plot, rows, kind, items, queries);
  return kExitOk;
}

}  // namespace

Command AddExperimentFprCommand(CLI::App& experiment, const GlobalOptions& global) {
  auto o = std::make_shared<FprOptions>();
  CLI::App* app = experiment.add_subcommand("fpr", "measured vs theoretical false-positive rates");
  app->add_option("--items", o->items, "keys inserted into every filter (default 200000)");
  app->add_option("--bits", o->bits, "filter sizes m in bits (default 1M 2M 4M 8M; 1M = 10^6)")->delimiter(',');
  app->add_option("--hashes", o->hashes, "hash counts k paired with --bits, or one for all (default 3 5 7 9)")
      ->delimiter(',');
  app->add_flag("--no-optimal", o->no_optimal, "do not add the optimal k for each m");
  app->add_option("--queries", o->queries,
                  "absent keys queried per filter (default 4M: rates >= 1e-4 measured within 10%)");
  app->add_option("--kind", o->kind, "classic (default) or blocked");
  app->add_option("--csv", o->csv, "also write the table as CSV to this file");
  app->add_option("--plot", o->plot, "also draw the table with gnuplot to this PNG file");
  app->add_option("--seed", o->seed, "seed of the random keys (default 1): same seed, same table");
  app->add_flag("--json", o->json,
                "print one JSON object instead of the table: kind, items, queries, seed, seconds, rows: [{bits, "
                "bits_per_key, hashes, theoretical_fp_rate, measured_fp_rate, ci_low, ci_high, hits, inside}]");
  app->footer(R"(
Inserted and queried keys are random 16-byte strings with different first bytes, so
every hit is a false positive. The 95% interval is Wilson's score interval.

Examples:
  bloomkit experiment fpr
  bloomkit experiment fpr --kind blocked --csv blocked.csv --plot blocked.png
  bloomkit experiment fpr --items 1e6 --bits 10M,20M --hashes 7,14 --queries 1e7)");
  return {app, [o, &global] { return RunFpr(*o, global); }};
}

}  // namespace bloomkit::cli
