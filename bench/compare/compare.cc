// SPDX-License-Identifier: Apache-2.0
// bloomkit_compare: bloomkit's classic and blocked filters against libbloom 1.6
// (Debian libbloom-dev), over the same keys, in the same process, alternating.
//
//   bloomkit_compare                          # n = 1e6,1e7; 8B and url keys; p = 1%, 0.1%
//   bloomkit_compare --n=1e8 --key-bytes=8 --fp-rate=0.01
//   bloomkit_compare --quick --json=out.json  # the ctest smoke run (n = 4e4)
//
// Method (docs/BENCHMARKS.md):
//  - Keys are generated before timing (bench_keys.h): n inserted keys and q absent keys
//    (q = min(n, --queries)); the positive queries are q of the inserted keys.
//  - Every filter is sized for n keys at the target rate, filled once untimed (warm-up:
//    page faults, caches, branch predictors), then measured --reps times (default 5).
//    Inside a repetition every measurement runs for each filter in turn, starting with
//    a different filter each repetition, so the filters share the machine's noise and
//    the ratios within a run are meaningful even when absolute times drift.
//  - Reported: the median of the repetitions, in ns per key (wall time / keys; with
//    --cpu-time, single-thread timings are the thread's CPU time / keys).
//    insert: Reset + add all n keys; batch insert: AddBatch in chunks of 1024 keys.
//    queries: single-key MayContain and MayContainBatch (chunks of 1024) on present and
//    absent keys; with 2 threads each thread queries half the keys of the same const
//    filter and ns/key is wall time / all keys (throughput).
//  - Results are accumulated into hit counters so the optimizer keeps every query;
//    the counters also give the measured FPR and a false-negative check.
//  - speedup = libbloom ns / filter ns in the same run. libbloom has no batch form, so
//    batch columns are compared against libbloom's single-key time.
//  - With Boost.Bloom's headers (bench/CMakeLists.txt: BLOOMKIT_BOOST_INCLUDE_DIRS) two
//    more contenders run: boost-fmb32x8, filter<K, 1, fast_multiblock32<8>>, and
//    boost-classic, filter<K, 7>, where K is std::uint64_t for 8-byte keys (the key's
//    bytes read as an integer) and std::string_view otherwise; their batches are Boost's
//    bulk insert and may_contain. A second table gives bloomkit ns / Boost ns (below 1:
//    bloomkit is faster): blocked rows against boost-fmb32x8, classic against
//    boost-classic.
//  - classic and blocked are what Create({.capacity, .fp_rate}) gives (the defaults:
//    blocked is DefaultBlockedLayout's layout for the rate); blocked512 and blocked256
//    ask for a layout, classic4 for hash id 4 (the short-key hash, the classic default)
//    and classic1 for hash id 1 (XXH3-128).
#include <bloom.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>

#include "bench_keys.h"

#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
#include <boost/bloom.hpp>
#include <iterator>
#endif
#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/sizing.h"

namespace bloomkit::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kBatchKeys = 1024;

// ---------------------------------------------------------------------------------
// The contenders, all with one shape so the timing loops are templates (no virtual
// call per key).

class Libbloom {
 public:
  static constexpr bool kHasBatch = false;
  static constexpr std::string_view kName = "libbloom";

  Libbloom(std::uint64_t n, double fp_rate) {
    if (bloom_init(&bloom_, static_cast<int>(n), fp_rate) != 0) {
      std::fprintf(stderr, "bloomkit_compare: libbloom bloom_init(%llu, %g) failed\n",
                   static_cast<unsigned long long>(n), fp_rate);
      std::exit(3);
    }
  }
  ~Libbloom() { bloom_free(&bloom_); }
  Libbloom(const Libbloom&) = delete;
  Libbloom& operator=(const Libbloom&) = delete;

  void Reset() { bloom_reset(&bloom_); }
  void Add(std::string_view key) { bloom_add(&bloom_, key.data(), static_cast<int>(key.size())); }
  void AddBatch(std::span<const std::string_view> keys) {
    for (std::string_view k : keys) Add(k);
  }
  // bloom_check only reads the filter; its parameter is not const in the C API.
  [[nodiscard]] bool MayContain(std::string_view key) const {
    return bloom_check(const_cast<struct bloom*>(&bloom_), key.data(), static_cast<int>(key.size())) == 1;
  }
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
    std::size_t hits = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      out[i] = MayContain(keys[i]);
      hits += static_cast<std::size_t>(out[i]);
    }
    return hits;
  }
  [[nodiscard]] double num_bits() const { return static_cast<double>(bloom_.bits); }
  [[nodiscard]] std::uint32_t num_hashes() const { return static_cast<std::uint32_t>(bloom_.hashes); }
  [[nodiscard]] std::uint64_t memory_bytes() const { return static_cast<std::uint64_t>(bloom_.bytes); }
  [[nodiscard]] double ExpectedFpRate(std::uint64_t n) const {
    return ClassicFpRate(num_bits(), static_cast<double>(n), num_hashes());
  }

 private:
  struct bloom bloom_ {};
};

// kLayout: kDefaultLayout leaves BloomOptions::blocked_layout unset (what a caller of
// Create({.capacity, .fp_rate}) gets: DefaultBlockedLayout), else the BlockedLayout value.
inline constexpr int kDefaultLayout = -1;

template <typename Filter, int kLayout = kDefaultLayout, std::uint16_t kHashId = 0>
class Bloomkit {
 public:
  static constexpr bool kHasBatch = true;
  static constexpr std::string_view kName =
      Filter::kKind == FilterKind::kClassic                   ? (kHashId == kHashIdShort64             ? "bloomkit-classic4"
                                                                 : kHashId == kHashIdXxh3DoubleHashing ? "bloomkit-classic1"
                                                                                                       : "bloomkit-classic")
      : kLayout == kDefaultLayout                             ? "bloomkit-blocked"
      : kLayout == static_cast<int>(BlockedLayout::kLanes256) ? "bloomkit-blocked256"
                                                              : "bloomkit-blocked512";

  Bloomkit(std::uint64_t n, double fp_rate) : filter_(Make(n, fp_rate)) {}

  void Reset() { filter_.Clear(); }
  // The classic and blocked filters' adds cannot fail.
  void Add(std::string_view key) { static_cast<void>(filter_.Add(key)); }
  void AddBatch(std::span<const std::string_view> keys) { static_cast<void>(filter_.AddBatch(keys)); }
  [[nodiscard]] bool MayContain(std::string_view key) const { return filter_.MayContain(key); }
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
    return filter_.MayContainBatch(keys, out);
  }
  [[nodiscard]] double num_bits() const { return static_cast<double>(filter_.num_bits()); }
  [[nodiscard]] std::uint32_t num_hashes() const { return filter_.num_hashes(); }
  [[nodiscard]] std::uint64_t memory_bytes() const { return filter_.memory_bytes(); }
  [[nodiscard]] double ExpectedFpRate(std::uint64_t) const { return filter_.ExpectedFpRate(); }

 private:
  static std::optional<BlockedLayout> Layout() {
    if constexpr (kLayout == kDefaultLayout) {
      return std::nullopt;
    } else {
      return static_cast<BlockedLayout>(kLayout);
    }
  }
  static Filter Make(std::uint64_t n, double fp_rate) {
    auto filter = Filter::Create({.capacity = n,
                                  .fp_rate = fp_rate,
                                  .max_memory_bytes = std::uint64_t{64} << 30,
                                  .blocked_layout = Layout(),
                                  .hash_id = kHashId});
    if (!filter.ok()) {
      std::fprintf(stderr, "bloomkit_compare: %s\n", std::string(filter.error().message()).c_str());
      std::exit(3);
    }
    return std::move(filter).value();
  }

  Filter filter_;
};

constexpr int kLines512 = static_cast<int>(BlockedLayout::kLines512);
constexpr int kLanes256 = static_cast<int>(BlockedLayout::kLanes256);

#ifdef BLOOMKIT_HAVE_BOOST_BLOOM

// A range of keys seen by Boost.Bloom's bulk operations as values of its key type.
template <typename Key>
class BoostKeyIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = Key;
  using difference_type = std::ptrdiff_t;
  using pointer = const Key*;
  using reference = Key;

  BoostKeyIterator() = default;
  explicit BoostKeyIterator(const std::string_view* p) : p_(p) {}
  Key operator*() const { return Convert(*p_); }
  BoostKeyIterator& operator++() {
    ++p_;
    return *this;
  }
  BoostKeyIterator operator++(int) {
    BoostKeyIterator old = *this;
    ++p_;
    return old;
  }
  friend bool operator==(BoostKeyIterator a, BoostKeyIterator b) { return a.p_ == b.p_; }
  friend difference_type operator-(BoostKeyIterator a, BoostKeyIterator b) { return a.p_ - b.p_; }

  static Key Convert(std::string_view key) {
    if constexpr (std::is_same_v<Key, std::uint64_t>) {
      std::uint64_t v = 0;
      std::memcpy(&v, key.data(), sizeof(v));
      return v;
    } else {
      return key;
    }
  }

 private:
  const std::string_view* p_ = nullptr;
};

// boost::bloom::filter<Key, K, Block> sized by Boost for n keys at fp_rate.
template <typename Key, std::size_t K, typename Block, std::uint32_t kBitsPerKey>
class Boost {
 public:
  static constexpr bool kHasBatch = true;
  static constexpr std::string_view kName = K == 1 ? "boost-fmb32x8" : "boost-classic";
  using Filter = boost::bloom::filter<Key, K, Block>;
  using It = BoostKeyIterator<Key>;

  Boost(std::uint64_t n, double fp_rate) : filter_(static_cast<std::size_t>(n), fp_rate) {}

  void Reset() { filter_.clear(); }
  void Add(std::string_view key) { filter_.insert(It::Convert(key)); }
  void AddBatch(std::span<const std::string_view> keys) {
    filter_.insert(It(keys.data()), It(keys.data() + keys.size()));
  }
  [[nodiscard]] bool MayContain(std::string_view key) const { return filter_.may_contain(It::Convert(key)); }
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
    std::size_t i = 0;
    std::size_t hits = 0;
    filter_.may_contain(It(keys.data()), It(keys.data() + keys.size()), [&](const Key&, bool res) {
      out[i++] = res;
      hits += res ? 1U : 0U;
    });
    return hits;
  }
  [[nodiscard]] double num_bits() const { return static_cast<double>(filter_.capacity()); }
  [[nodiscard]] std::uint32_t num_hashes() const { return kBitsPerKey; }
  [[nodiscard]] std::uint64_t memory_bytes() const { return filter_.capacity() / 8; }
  [[nodiscard]] double ExpectedFpRate(std::uint64_t n) const {
    return Filter::fpr_for(static_cast<std::size_t>(n), filter_.capacity());
  }

 private:
  Filter filter_;
};

template <typename Key>
using BoostFmb32 = Boost<Key, 1, boost::bloom::fast_multiblock32<8>, 8>;
template <typename Key>
using BoostClassic = Boost<Key, 7, boost::bloom::block<unsigned char, 1>, 7>;

using Contender =
    std::variant<Libbloom, Bloomkit<BloomFilter>, Bloomkit<BlockedBloomFilter>, Bloomkit<BlockedBloomFilter, kLines512>,
                 Bloomkit<BlockedBloomFilter, kLanes256>, Bloomkit<BloomFilter, kDefaultLayout, kHashIdShort64>,
                 Bloomkit<BloomFilter, kDefaultLayout, kHashIdXxh3DoubleHashing>, BoostFmb32<std::uint64_t>,
                 BoostFmb32<std::string_view>, BoostClassic<std::uint64_t>, BoostClassic<std::string_view>>;
constexpr bool kHaveBoost = true;

#else

using Contender =
    std::variant<Libbloom, Bloomkit<BloomFilter>, Bloomkit<BlockedBloomFilter>, Bloomkit<BlockedBloomFilter, kLines512>,
                 Bloomkit<BlockedBloomFilter, kLanes256>, Bloomkit<BloomFilter, kDefaultLayout, kHashIdShort64>,
                 Bloomkit<BloomFilter, kDefaultLayout, kHashIdXxh3DoubleHashing>>;
constexpr bool kHaveBoost = false;

#endif  // BLOOMKIT_HAVE_BOOST_BLOOM

// ---------------------------------------------------------------------------------
// Measurements.

enum Metric : int {
  kInsert,
  kInsertBatch,
  kPos,
  kNeg,
  kPosBatch,
  kNegBatch,
  kPos2t,
  kNeg2t,
  kPosBatch2t,
  kNegBatch2t,
  kNumMetrics
};
constexpr std::string_view kMetricNames[kNumMetrics] = {"insert",       "insert_batch", "pos",    "neg",
                                                        "pos_batch",    "neg_batch",    "pos_2t", "neg_2t",
                                                        "pos_batch_2t", "neg_batch_2t"};
constexpr std::string_view kMetricHeads[kNumMetrics] = {"insert", "ins-b", "pos", "neg",   "pos-b",
                                                        "neg-b",  "pos",   "neg", "pos-b", "neg-b"};
// The libbloom metric a bloomkit metric is compared with (libbloom has no batch form).
constexpr Metric kBaseline[kNumMetrics] = {kInsert, kInsert, kPos, kNeg, kPos, kNeg, kPos2t, kNeg2t, kPos2t, kNeg2t};

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// --cpu-time: single-thread timings in the thread's CPU time (CLOCK_THREAD_CPUTIME_ID)
// instead of wall time, so that time the thread spends descheduled on a loaded machine
// does not count. The two-thread timings stay wall time.
bool g_cpu_time = false;

double SingleThreadNow() {
  if (g_cpu_time) {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

template <typename C>
std::uint64_t QueryRange(const C& c, std::span<const std::string_view> keys, bool batch) {
  std::uint64_t hits = 0;
  if (batch) {
    bool out[kBatchKeys];
    for (std::size_t i = 0; i < keys.size(); i += kBatchKeys) {
      hits += c.MayContainBatch(keys.subspan(i, std::min(kBatchKeys, keys.size() - i)), out);
    }
  } else {
    for (std::string_view k : keys) hits += static_cast<std::uint64_t>(c.MayContain(k));
  }
  return hits;
}

// Queries `keys` on `threads` threads, each taking a contiguous share; returns wall
// seconds from the start signal to the last join, and the total hits.
template <typename C>
double TimeQueries(const C& c, std::span<const std::string_view> keys, bool batch, int threads, std::uint64_t* hits) {
  if (threads == 1) {
    const double t0 = SingleThreadNow();
    *hits = QueryRange(c, keys, batch);
    return SingleThreadNow() - t0;
  }
  std::atomic<bool> go{false};
  std::vector<std::uint64_t> partial(static_cast<std::size_t>(threads), 0);
  std::vector<std::thread> pool;
  const std::size_t share = (keys.size() + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
  for (int t = 0; t < threads; ++t) {
    const std::size_t begin = std::min(keys.size(), share * static_cast<std::size_t>(t));
    const std::size_t len = std::min(share, keys.size() - begin);
    pool.emplace_back([&, begin, len, t] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      partial[static_cast<std::size_t>(t)] = QueryRange(c, keys.subspan(begin, len), batch);
    });
  }
  const auto t0 = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : pool) th.join();
  const double s = Seconds(t0, Clock::now());
  *hits = 0;
  for (std::uint64_t h : partial) *hits += h;
  return s;
}

template <typename C>
double TimeInsert(C& c, std::span<const std::string_view> keys, bool batch) {
  c.Reset();
  const double t0 = SingleThreadNow();
  if (batch) {
    for (std::size_t i = 0; i < keys.size(); i += kBatchKeys) {
      c.AddBatch(keys.subspan(i, std::min(kBatchKeys, keys.size() - i)));
    }
  } else {
    for (std::string_view k : keys) c.Add(k);
  }
  return SingleThreadNow() - t0;
}

// ---------------------------------------------------------------------------------
// Options.

struct Options {
  std::vector<std::uint64_t> sizes = {1'000'000, 10'000'000};
  std::vector<KeyShape> shapes = {KeyShape::k8, KeyShape::kUrl};
  std::vector<double> fp_rates = {0.01, 0.001};
  std::vector<std::string> filters =
      kHaveBoost ? std::vector<std::string>{"libbloom", "classic", "blocked", "boost-fmb32x8", "boost-classic"}
                 : std::vector<std::string>{"libbloom", "classic", "blocked"};
  std::uint64_t max_queries = 1'000'000;
  int reps = 5;
  bool two_threads = true;  // --threads=1 skips the two-thread measurements
  bool json = false;
  std::string json_path;  // empty: JSON replaces the tables on stdout
};

[[noreturn]] void Usage(const std::string& error) {
  std::cerr
      << "bloomkit_compare: " << error << "\n"
      << "usage: bloomkit_compare [--n=1e6,1e7] [--key-bytes=8,url] [--fp-rate=0.01,0.001]\n"
         "                        "
         "[--filters=libbloom,classic,classic1,classic4,blocked,blocked512,blocked256,boost-fmb32x8,boost-classic]\n"
         "                        [--reps=5] [--queries=1e6] [--threads=2] [--cpu-time]\n"
         "                        [--quick] [--json[=FILE]]\n";
  std::exit(2);
}

std::vector<std::string> SplitList(std::string_view list) {
  std::vector<std::string> items;
  while (true) {
    const std::size_t comma = list.find(',');
    items.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list = list.substr(comma + 1);
  }
  return items;
}

std::optional<double> ParseNumber(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::uint64_t ParseCount(const std::string& flag, const std::string& s, double lo, double hi) {
  const auto v = ParseNumber(s);
  if (!v || *v < lo || *v > hi || *v != std::floor(*v)) {
    std::ostringstream msg;
    msg << flag << " must be a whole number in [" << lo << ", " << hi << "], got '" << s << "'";
    Usage(msg.str());
  }
  return static_cast<std::uint64_t>(*v);
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (const std::size_t eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto need = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) Usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--n") {
      o.sizes.clear();
      // libbloom takes an int capacity.
      for (const auto& s : SplitList(need())) o.sizes.push_back(ParseCount("--n", s, 1000, 2e9));
    } else if (arg == "--key-bytes") {
      o.shapes.clear();
      for (const auto& s : SplitList(need())) {
        if (s == "8")
          o.shapes.push_back(KeyShape::k8);
        else if (s == "url")
          o.shapes.push_back(KeyShape::kUrl);
        else
          Usage("--key-bytes must be 8 or url (or both, comma-separated), got '" + s + "'");
      }
    } else if (arg == "--fp-rate") {
      o.fp_rates.clear();
      for (const auto& s : SplitList(need())) {
        const auto p = ParseNumber(s);
        if (!p || !(*p > 0 && *p < 0.5)) Usage("--fp-rate must be in (0, 0.5), got '" + s + "'");
        o.fp_rates.push_back(*p);
      }
    } else if (arg == "--filters") {
      o.filters.clear();
      for (const auto& s : SplitList(need())) {
        const bool boost = s == "boost-fmb32x8" || s == "boost-classic";
        if (s != "libbloom" && s != "classic" && s != "classic1" && s != "classic4" && s != "blocked" &&
            s != "blocked512" && s != "blocked256" && !boost) {
          Usage(
              "--filters takes libbloom, classic, classic1, classic4, blocked, blocked512, blocked256, boost-fmb32x8, "
              "boost-classic; got '" +
              s + "'");
        }
        if (boost && !kHaveBoost) {
          Usage("--filters=" + s + " needs Boost.Bloom's headers at build time (BLOOMKIT_BOOST_INCLUDE_DIRS)");
        }
        o.filters.push_back(s);
      }
    } else if (arg == "--reps") {
      o.reps = static_cast<int>(ParseCount("--reps", need(), 1, 1000));
    } else if (arg == "--threads") {
      o.two_threads = ParseCount("--threads", need(), 1, 2) == 2;
    } else if (arg == "--queries") {
      o.max_queries = ParseCount("--queries", need(), 1000, 1e9);
    } else if (arg == "--cpu-time") {
      g_cpu_time = true;
    } else if (arg == "--quick") {
      // Fewer queries than keys, so the positives are a spread-out subset, as in full runs.
      o.sizes = {40'000};
      o.max_queries = 20'000;
    } else if (arg == "--json") {
      o.json = true;
      if (has_value) o.json_path = value;
    } else if (arg == "--help" || arg == "-h") {
      Usage("help");
    } else {
      Usage("unknown flag '" + std::string(argv[i]) + "'");
    }
  }
  return o;
}

// ---------------------------------------------------------------------------------
// One workload.

struct Row {
  std::string filter;
  double bits_per_key = 0;
  std::uint32_t num_hashes = 0;
  std::uint64_t memory_bytes = 0;
  double expected_fpr = 0;
  double measured_fpr = 0;
  std::uint64_t false_negatives = 0;
  bool has_batch = false;
  double ns[kNumMetrics] = {};  // medians; NaN when not applicable
};

struct Workload {
  std::uint64_t n = 0;
  KeyShape shape = KeyShape::k8;
  double mean_key_bytes = 0;
  double fp_rate = 0;
  std::uint64_t queries = 0;
  int reps = 0;
  double optimal_bits_per_key = 0;  // -ln p / ln^2 2
  std::vector<Row> rows;
};

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

Workload RunWorkload(const Options& o, std::uint64_t n, KeyShape shape, double fp_rate) {
  const std::uint64_t q = std::min(n, o.max_queries);
  std::cerr << "workload n=" << n << " keys=" << KeyShapeName(shape) << " fp=" << fp_rate << ": generating keys\n";
  const KeySet inserted = MakeKeys(shape, 0, n);
  const KeySet absent = MakeKeys(shape, n, q);
  const std::span<const std::string_view> all(inserted.keys);
  // Positive queries: q inserted keys spread over the whole insertion order, copied
  // into a buffer of their own as a caller's query batch would be (views into the
  // 10^7-key buffer would add a cache and TLB miss per URL key to every query).
  KeySet positive_set;
  for (std::uint64_t i = 0; i < q; ++i) AppendKey(shape, i * n / q, positive_set.bytes);
  std::size_t offset = 0;
  for (std::uint64_t i = 0; i < q; ++i) {
    const std::size_t len = inserted.keys[static_cast<std::size_t>(i * n / q)].size();
    positive_set.keys.emplace_back(positive_set.bytes.data() + offset, len);
    offset += len;
  }
  const std::vector<std::string_view>& positives = positive_set.keys;
  const std::span<const std::string_view> neg(absent.keys);

  // Filters are neither copied nor moved (libbloom's struct owns its array).
  std::vector<std::unique_ptr<Contender>> contenders;
  for (const auto& f : o.filters) {
    if (f == "libbloom") contenders.push_back(std::make_unique<Contender>(std::in_place_type<Libbloom>, n, fp_rate));
    if (f == "classic") {
      contenders.push_back(std::make_unique<Contender>(std::in_place_type<Bloomkit<BloomFilter>>, n, fp_rate));
    }
    if (f == "classic1") {
      contenders.push_back(std::make_unique<Contender>(
          std::in_place_type<Bloomkit<BloomFilter, kDefaultLayout, kHashIdXxh3DoubleHashing>>, n, fp_rate));
    }
    if (f == "classic4") {
      contenders.push_back(std::make_unique<Contender>(
          std::in_place_type<Bloomkit<BloomFilter, kDefaultLayout, kHashIdShort64>>, n, fp_rate));
    }
    if (f == "blocked") {
      contenders.push_back(std::make_unique<Contender>(std::in_place_type<Bloomkit<BlockedBloomFilter>>, n, fp_rate));
    }
    if (f == "blocked512") {
      contenders.push_back(
          std::make_unique<Contender>(std::in_place_type<Bloomkit<BlockedBloomFilter, kLines512>>, n, fp_rate));
    }
    if (f == "blocked256") {
      contenders.push_back(
          std::make_unique<Contender>(std::in_place_type<Bloomkit<BlockedBloomFilter, kLanes256>>, n, fp_rate));
    }
#ifdef BLOOMKIT_HAVE_BOOST_BLOOM
    const bool k8 = shape == KeyShape::k8;
    if (f == "boost-fmb32x8" && k8) {
      contenders.push_back(std::make_unique<Contender>(std::in_place_type<BoostFmb32<std::uint64_t>>, n, fp_rate));
    }
    if (f == "boost-fmb32x8" && !k8) {
      contenders.push_back(std::make_unique<Contender>(std::in_place_type<BoostFmb32<std::string_view>>, n, fp_rate));
    }
    if (f == "boost-classic" && k8) {
      contenders.push_back(std::make_unique<Contender>(std::in_place_type<BoostClassic<std::uint64_t>>, n, fp_rate));
    }
    if (f == "boost-classic" && !k8) {
      contenders.push_back(std::make_unique<Contender>(std::in_place_type<BoostClassic<std::string_view>>, n, fp_rate));
    }
#endif
  }
  const std::size_t nc = contenders.size();
  std::vector<std::array<std::vector<double>, kNumMetrics>> samples(nc);
  std::vector<std::uint64_t> neg_hits(nc, 0);
  std::vector<std::uint64_t> false_negatives(nc, 0);
  std::uint64_t sink = 0;

  std::cerr << "  warm-up\n";
  for (auto& c : contenders) {
    std::visit(
        [&](auto& f) {
          TimeInsert(f, all, false);
          sink += QueryRange(f, positives, false) + QueryRange(f, neg, false);
        },
        *c);
  }

  for (int rep = 0; rep < o.reps; ++rep) {
    std::cerr << "  repetition " << rep + 1 << "/" << o.reps << "\n";
    for (int m = 0; m < kNumMetrics; ++m) {
      const auto metric = static_cast<Metric>(m);
      for (std::size_t step = 0; step < nc; ++step) {
        const std::size_t ci = (step + static_cast<std::size_t>(rep)) % nc;  // rotate who goes first
        std::visit(
            [&](auto& f) {
              using C = std::decay_t<decltype(f)>;
              const bool batch = metric == kInsertBatch || metric == kPosBatch || metric == kNegBatch ||
                                 metric == kPosBatch2t || metric == kNegBatch2t;
              if (batch && !C::kHasBatch) return;
              if (metric >= kPos2t && !o.two_threads) return;
              if (metric == kInsert || metric == kInsertBatch) {
                samples[ci][static_cast<std::size_t>(m)].push_back(TimeInsert(f, all, batch) * 1e9 /
                                                                   static_cast<double>(n));
                return;
              }
              const bool positive = metric == kPos || metric == kPosBatch || metric == kPos2t || metric == kPosBatch2t;
              const int threads = metric >= kPos2t ? 2 : 1;
              std::uint64_t hits = 0;
              const auto keys = positive ? std::span<const std::string_view>(positives) : neg;
              const double s = TimeQueries(f, keys, batch, threads, &hits);
              samples[ci][static_cast<std::size_t>(m)].push_back(s * 1e9 / static_cast<double>(q));
              sink += hits;
              if (positive) false_negatives[ci] += q - hits;
              if (metric == kNeg) neg_hits[ci] = hits;
            },
            *contenders[ci]);
      }
    }
  }

  Workload w;
  w.n = n;
  w.shape = shape;
  w.mean_key_bytes = inserted.mean_key_bytes();
  w.fp_rate = fp_rate;
  w.queries = q;
  w.reps = o.reps;
  w.optimal_bits_per_key = -std::log(fp_rate) / (std::log(2.0) * std::log(2.0));
  for (std::size_t ci = 0; ci < nc; ++ci) {
    Row r;
    std::visit(
        [&](const auto& f) {
          using C = std::decay_t<decltype(f)>;
          r.filter = std::string(C::kName);
          r.has_batch = C::kHasBatch;
          r.bits_per_key = f.num_bits() / static_cast<double>(n);
          r.num_hashes = f.num_hashes();
          r.memory_bytes = f.memory_bytes();
          r.expected_fpr = f.ExpectedFpRate(n);
        },
        *contenders[ci]);
    r.measured_fpr = static_cast<double>(neg_hits[ci]) / static_cast<double>(q);
    r.false_negatives = false_negatives[ci];
    for (int m = 0; m < kNumMetrics; ++m) r.ns[m] = Median(samples[ci][static_cast<std::size_t>(m)]);
    w.rows.push_back(r);
  }
  if (sink == 0) std::cerr << "  (no hits at all?)\n";
  return w;
}

// ---------------------------------------------------------------------------------
// Output.

const Row* FindLibbloom(const Workload& w) {
  for (const auto& r : w.rows) {
    if (r.filter == "libbloom") return &r;
  }
  return nullptr;
}

std::string Cell(double v, int width, int precision) {
  char buf[64];
  if (std::isnan(v))
    std::snprintf(buf, sizeof(buf), "%*s", width, "-");
  else
    std::snprintf(buf, sizeof(buf), "%*.*f", width, precision, v);
  return buf;
}

const Row* FindRow(const Workload& w, std::string_view filter) {
  for (const auto& r : w.rows) {
    if (r.filter == filter) return &r;
  }
  return nullptr;
}

// bloomkit ns / Boost ns for the same metric (below 1: bloomkit is faster).
void PrintBoostRatios(const Workload& w) {
  bool header = false;
  for (const auto& r : w.rows) {
    if (!r.filter.starts_with("bloomkit-")) continue;
    const Row* peer = FindRow(w, r.filter.starts_with("bloomkit-classic") ? "boost-classic" : "boost-fmb32x8");
    if (peer == nullptr) continue;
    if (!header) {
      std::printf("bloomkit / Boost (bloomkit ns / Boost ns, same run; below 1: bloomkit is faster):\n");
      header = true;
    }
    double s[kNumMetrics];
    for (int m = 0; m < kNumMetrics; ++m) s[m] = r.ns[m] / peer->ns[m];
    std::printf("%-17s %8s %2s %7s %7s | %s %s | %s %s %s %s |            %s %s %s %s  (vs %s)\n", r.filter.c_str(), "",
                "", "", "", Cell(s[kInsert], 8, 2).c_str(), Cell(s[kInsertBatch], 8, 2).c_str(),
                Cell(s[kPos], 7, 2).c_str(), Cell(s[kNeg], 7, 2).c_str(), Cell(s[kPosBatch], 7, 2).c_str(),
                Cell(s[kNegBatch], 7, 2).c_str(), Cell(s[kPos2t], 6, 2).c_str(), Cell(s[kNeg2t], 6, 2).c_str(),
                Cell(s[kPosBatch2t], 6, 2).c_str(), Cell(s[kNegBatch2t], 6, 2).c_str(), peer->filter.c_str());
  }
}

void PrintTable(const Workload& w) {
  std::printf(
      "\n== n=%llu  keys=%s (mean %.1f bytes)  target FPR=%g%%  queries=%llu  reps=%d  "
      "(medians, %s ns per key) ==\n",
      static_cast<unsigned long long>(w.n), std::string(KeyShapeName(w.shape)).c_str(), w.mean_key_bytes,
      100 * w.fp_rate, static_cast<unsigned long long>(w.queries), w.reps, g_cpu_time ? "thread CPU" : "wall");
  std::printf("optimum for a classic filter: -ln p / ln^2 2 = %.3f bits/key\n", w.optimal_bits_per_key);
  std::printf("%-17s %8s %2s %7s %7s | %8s %8s | %7s %7s %7s %7s | 2 threads: %6s %6s %6s %6s\n", "filter", "bits/key",
              "k", "expFPR%", "FPR%", "insert", "ins-b", "pos", "neg", "pos-b", "neg-b", "pos", "neg", "pos-b",
              "neg-b");
  for (const auto& r : w.rows) {
    std::printf("%-17s %8.3f %2u %7.3f %7.3f | %s %s | %s %s %s %s |            %s %s %s %s%s\n", r.filter.c_str(),
                r.bits_per_key, r.num_hashes, 100 * r.expected_fpr, 100 * r.measured_fpr,
                Cell(r.ns[kInsert], 8, 1).c_str(), Cell(r.ns[kInsertBatch], 8, 1).c_str(),
                Cell(r.ns[kPos], 7, 1).c_str(), Cell(r.ns[kNeg], 7, 1).c_str(), Cell(r.ns[kPosBatch], 7, 1).c_str(),
                Cell(r.ns[kNegBatch], 7, 1).c_str(), Cell(r.ns[kPos2t], 6, 1).c_str(), Cell(r.ns[kNeg2t], 6, 1).c_str(),
                Cell(r.ns[kPosBatch2t], 6, 1).c_str(), Cell(r.ns[kNegBatch2t], 6, 1).c_str(),
                r.false_negatives != 0 ? "  FALSE NEGATIVES!" : "");
  }
  PrintBoostRatios(w);
  const Row* base = FindLibbloom(w);
  if (base == nullptr) return;
  std::printf("speedup vs libbloom (libbloom ns / filter ns, same run; batch vs libbloom single-key):\n");
  for (const auto& r : w.rows) {
    if (&r == base) continue;
    double s[kNumMetrics];
    for (int m = 0; m < kNumMetrics; ++m) s[m] = base->ns[kBaseline[m]] / r.ns[m];
    std::printf("%-17s %8s %2s %7s %7s | %s %s | %s %s %s %s |            %s %s %s %s\n", r.filter.c_str(), "", "", "",
                "", Cell(s[kInsert], 7, 2).append("x").c_str(), Cell(s[kInsertBatch], 7, 2).append("x").c_str(),
                Cell(s[kPos], 6, 2).append("x").c_str(), Cell(s[kNeg], 6, 2).append("x").c_str(),
                Cell(s[kPosBatch], 6, 2).append("x").c_str(), Cell(s[kNegBatch], 6, 2).append("x").c_str(),
                Cell(s[kPos2t], 5, 2).append("x").c_str(), Cell(s[kNeg2t], 5, 2).append("x").c_str(),
                Cell(s[kPosBatch2t], 5, 2).append("x").c_str(), Cell(s[kNegBatch2t], 5, 2).append("x").c_str());
  }
  std::fflush(stdout);
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("model name")) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(std::min(line.size(), colon + 2));
    }
  }
  return "unknown";
}

std::string ToJson(const std::vector<Workload>& workloads) {
  std::ostringstream j;
  j << "{\n  \"tool\": \"bloomkit_compare\",\n  \"cpu\": \"" << CpuModel()
    << "\",\n  \"hardware_threads\": " << std::thread::hardware_concurrency() << ",\n  \"compiler\": \"" << __VERSION__
    << "\",\n  \"libbloom\": \"" << bloom_version() << "\",\n  \"boost_bloom\": " << (kHaveBoost ? "true" : "false")
    << ",\n  \"warnings\": \"" << BuildWarnings() << "\",\n  \"workloads\": [";
  for (std::size_t wi = 0; wi < workloads.size(); ++wi) {
    const Workload& w = workloads[wi];
    const Row* base = FindLibbloom(w);
    j << (wi ? "," : "") << "\n    {\"n\": " << w.n << ", \"keys\": \"" << KeyShapeName(w.shape)
      << "\", \"mean_key_bytes\": " << JsonNumber(w.mean_key_bytes) << ", \"fp_rate\": " << JsonNumber(w.fp_rate)
      << ", \"queries\": " << w.queries << ", \"reps\": " << w.reps
      << ", \"optimal_bits_per_key\": " << JsonNumber(w.optimal_bits_per_key) << ",\n     \"results\": [";
    for (std::size_t ri = 0; ri < w.rows.size(); ++ri) {
      const Row& r = w.rows[ri];
      j << (ri ? "," : "") << "\n      {\"filter\": \"" << r.filter
        << "\", \"bits_per_key\": " << JsonNumber(r.bits_per_key) << ", \"num_hashes\": " << r.num_hashes
        << ", \"memory_bytes\": " << r.memory_bytes << ", \"expected_fpr\": " << JsonNumber(r.expected_fpr)
        << ", \"measured_fpr\": " << JsonNumber(r.measured_fpr) << ", \"false_negatives\": " << r.false_negatives
        << ",\n       \"ns_per_key\": {";
      for (int m = 0; m < kNumMetrics; ++m) {
        j << (m ? ", " : "") << "\"" << kMetricNames[m] << "\": " << JsonNumber(r.ns[m]);
      }
      j << "},\n       \"speedup_vs_libbloom\": {";
      for (int m = 0; m < kNumMetrics; ++m) {
        const double s = base != nullptr ? base->ns[kBaseline[m]] / r.ns[m] : std::nan("");
        j << (m ? ", " : "") << "\"" << kMetricNames[m] << "\": " << JsonNumber(s);
      }
      j << "}}";
    }
    j << "]}";
  }
  j << "\n  ]\n}\n";
  return j.str();
}

}  // namespace
}  // namespace bloomkit::bench

int main(int argc, char** argv) {
  using namespace bloomkit::bench;
  const Options o = ParseOptions(argc, argv);
  if (const std::string warnings = BuildWarnings(); !warnings.empty()) std::cerr << warnings << '\n';
  const bool tables = !o.json || !o.json_path.empty();
  if (tables) {
    std::printf("bloomkit_compare: cpu %s, %u hardware threads, %s, libbloom %s\n", CpuModel().c_str(),
                std::thread::hardware_concurrency(), __VERSION__, bloom_version());
  }
  std::vector<Workload> workloads;
  for (std::uint64_t n : o.sizes) {
    for (KeyShape shape : o.shapes) {
      for (double p : o.fp_rates) {
        workloads.push_back(RunWorkload(o, n, shape, p));
        if (tables) PrintTable(workloads.back());
      }
    }
  }
  if (o.json) {
    const std::string json = ToJson(workloads);
    if (o.json_path.empty()) {
      std::fputs(json.c_str(), stdout);
    } else {
      std::ofstream out(o.json_path);
      out << json;
      if (!out) {
        std::cerr << "bloomkit_compare: cannot write " << o.json_path << '\n';
        return 4;
      }
    }
  }
  for (const auto& w : workloads) {
    for (const auto& r : w.rows) {
      if (r.false_negatives != 0) return 1;
    }
  }
  return 0;
}
