// SPDX-License-Identifier: Apache-2.0
// bloomkit::WindowedBloomFilter: "was this key seen in the last W time units?" A ring of
// G + 1 generations, each covering S = W / G time units, each a short chain of blocked
// Bloom filters ("stages") that is freed when its generation leaves the window.
//
// Time is a uint64 in the caller's units (milliseconds, seconds, ...), passed to
// Advance() or to the *At verbs; the filter never reads a clock itself, so its answers
// are a function of the keys and times it was given. The filter's time now() is the
// latest time it was given (it never goes back). A key added at time t is recorded at
// t' = max(t, now()) in generation e(t') = floor(t' / S).
//
// Contract (docs/FILTERS.md, "Windowed", has the arithmetic):
//   1. No false negative inside the window: a key added at t answers "maybe" at every
//      time q <= t' + W. (A query at q looks at the G + 1 generations e(q) - G .. e(q);
//      for q <= t' + W, e(q) <= floor((t' + G S) / S) = e(t') + G.)
//   2. Bounded memory of the past: from q >= t' + W + S on, a key not added again since
//      t answers as a never-added key (its generation is no longer looked at, and was
//      freed when time passed it).
//   3. False-positive rate <= fp_rate at any moment as long as no window of W time units
//      received more than `capacity` adds (the default sizing, kAnySchedule). Each stage
//      holds c = ceil(capacity / G) keys at rate r = fp_rate * c / (2 capacity). The
//      G + 1 generations looked at span at most W + S, which holds at most 2 * capacity
//      keys under the precondition; a stage's rate is convex in its keys (k >= 2), so a
//      stage with x <= c keys has rate <= r x / c, and the union of all live stages
//      <= r * 2 capacity / c = fp_rate. A steady stream measures about half of fp_rate
//      (the live span then holds about capacity * (G + 1) / G keys, not twice capacity).
//      With sizing = kSteadyStream, r = fp_rate / (G + 1) and the bound holds only for
//      streams in which no generation receives more than c keys: the G + 1 live
//      generations then hold one stage of <= c keys each, and their union <= (G + 1) r =
//      fp_rate. A burst within capacity (up to 2 capacity keys live) can then reach
//      2 G / (G + 1) * fp_rate. 7-10% fewer bits per key (docs/FILTERS.md).
//   4. More than capacity in a window: a generation that fills its stage gets another
//      (memory follows the load), up to max_stages live stages (default 3G + 1, what the
//      worst schedule within capacity needs). Past that the filter degrades: adds go into
//      the newest stage beyond its capacity, still without false negatives, and
//      EstimatedFpRate() reports the rate from the fill (over_capacity() is true).
//   5. Time going back: an add or query at t < now() acts at now(). A jump forward past
//      W + S frees every generation at once (the cost is G + 1 slots, not the gap).
//
// Memory: at steady load (G + 1) stages of c keys at rate r, i.e. (G + 1) / G times the
// bits per key of a blocked filter at rate r: (G + 1) / G * 1.44 log2(2 G / p) plus the
// blocks' 11-20% for kAnySchedule, least near G = 4..8 (the default G = 8 is within about
// 2% of the least at 1% and 0.1%); docs/FILTERS.md has the measured figures against a
// plain filter and the age-partitioned Bloom filter.
//
// Every add records the key in the current generation (unless a stage of it already
// reports the key), so a key is remembered for W after its latest add; capacity counts
// the distinct keys of each generation, summed over a window.
//
// Keys are hashed once (hash id 4, HashKeyShort64) and the 64-bit hash goes to every
// stage through BlockedBloomFilter::AddHash/MayContainHash. Const methods may run
// concurrently; Advance and the adds need exclusive access.
//
//   auto seen = bloomkit::WindowedBloomFilter::Create(
//       {.capacity = 1'000'000, .fp_rate = 0.01, .window = 24 * 3600 * 1000, .generations = 8});
//   if (seen->AddIfAbsentAt(url, now_ms).value()) crawl(url);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/byte_sink.h"
#include "bloomkit/byte_source.h"
#include "bloomkit/filter.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit {

inline constexpr std::uint32_t kMaxWindowedGenerations = 1024;
// The default G: the fewest bits per key within about 2% at rates 1% and 0.1% (docs/FILTERS.md),
// and a divisor of every whole number of seconds in milliseconds.
inline constexpr std::uint32_t kDefaultWindowedGenerations = 8;

// What the stages are sized for (point 3 of the contract above). Written into files.
enum class WindowedSizing : std::uint8_t {
  kAnySchedule = 0,   // fp_rate holds for any schedule within capacity: r = p c / (2n)
  kSteadyStream = 1,  // fp_rate holds while no generation gets more than c keys: r = p / (G + 1)
};

struct WindowedOptions {
  std::uint64_t capacity = 0;                               // adds a window of `window` time units may receive
  double fp_rate = 0.01;                                    // bound on the false-positive rate at any moment
  std::uint64_t window = 0;                                 // W in the caller's time units; a multiple of generations
  std::uint32_t generations = kDefaultWindowedGenerations;  // G in [1, kMaxWindowedGenerations]
  WindowedSizing sizing = WindowedSizing::kAnySchedule;
  // Live stages at most, in [G + 1, 64 (G + 1)]; 0 picks 3G + 1 (enough for any schedule
  // within capacity). The ring holds at most max_stages + 1 (a new generation's first
  // stage is always allowed).
  std::uint32_t max_stages = 0;
  std::uint64_t start_time = 0;  // now() of the new filter
  // Create refuses options whose max_stages + 1 stages would need more than this.
  std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes;
};

// One live generation, for `bloomkit info` and TBF.INFO.
struct GenerationInfo {
  std::uint64_t epoch = 0;  // floor(time / S) of its keys
  std::uint64_t count = 0;  // keys its stages hold
  std::uint32_t num_stages = 0;
  std::uint64_t memory_bytes = 0;
};

class WindowedBloomFilter {
 public:
  using Options = WindowedOptions;
  static constexpr FilterKind kKind = FilterKind::kWindowed;

  static Result<WindowedBloomFilter> Create(const WindowedOptions& options);
  static Result<WindowedBloomFilter> Deserialize(std::span<const std::byte> bytes, const LoadOptions& options = {});
  static Result<WindowedBloomFilter> Deserialize(const FileHeader& header, ByteSource payload,
                                                 const LoadOptions& options = {});
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  bool SerializeTo(ByteSink sink) const noexcept;

  // Moves now() to `time` if it is later, freeing the generations that leave the window.
  //   seen.Advance(now_ms);  // then Add / MayContain act at now_ms
  void Advance(std::uint64_t time) noexcept;
  [[nodiscard]] std::uint64_t now() const noexcept { return now_; }

  // The verbs at a time: Advance(time), then the verb at now().
  Status AddAt(std::string_view key, std::uint64_t time);
  Result<bool> AddIfAbsentAt(std::string_view key, std::uint64_t time);
  // Const: answers at max(time, now()) without changing the filter.
  [[nodiscard]] bool MayContainAt(std::string_view key, std::uint64_t time) const noexcept;

  // filter.h's verbs, at now(). Add fails only when a stage cannot be allocated
  // (kTooLarge); AddIfAbsent is true when no live generation reported the key (it is
  // recorded in the current generation either way).
  Status Add(std::string_view key);
  Status AddHash(std::uint64_t hash);
  Result<bool> AddIfAbsent(std::string_view key);
  Result<bool> AddHashIfAbsent(std::uint64_t hash);
  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept;
  [[nodiscard]] bool MayContainHashAt(std::uint64_t hash, std::uint64_t time) const noexcept;
  Status AddBatch(std::span<const std::string_view> keys);
  Status AddHashBatch(std::span<const std::uint64_t> hashes);
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;
  // Frees every generation; now() stays.
  void Clear() noexcept;

  // The 64-bit hash of a key (hash id 4), as the *Hash verbs take it.
  static std::uint64_t HashOf(std::string_view key) noexcept;

  [[nodiscard]] std::uint64_t count() const noexcept { return CountAt(now_); }  // keys the live generations hold
  // count() as it will be at max(time, now()), without changing the filter.
  [[nodiscard]] std::uint64_t CountAt(std::uint64_t time) const noexcept;
  [[nodiscard]] std::uint64_t EstimatedCount() const noexcept;
  [[nodiscard]] std::uint64_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] double fp_rate() const noexcept { return fp_rate_; }
  // The bound of point 3: r * 2 capacity / c (<= fp_rate), or r (G + 1) for kSteadyStream.
  [[nodiscard]] double ExpectedFpRate() const noexcept;
  // 1 - prod(1 - stage rate at its fill) over the live stages: the rate now.
  [[nodiscard]] double EstimatedFpRate() const noexcept;
  [[nodiscard]] std::uint64_t num_bits() const noexcept;  // of the allocated stages
  [[nodiscard]] double FillRatio() const noexcept;
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept;
  [[nodiscard]] std::uint64_t bytes_held() const noexcept;

  [[nodiscard]] std::uint64_t window() const noexcept { return window_; }
  [[nodiscard]] std::uint32_t generations() const noexcept { return generations_; }
  [[nodiscard]] WindowedSizing sizing() const noexcept { return sizing_; }
  [[nodiscard]] std::uint64_t generation_span() const noexcept { return span_; }  // S = W / G
  [[nodiscard]] std::uint32_t max_stages() const noexcept { return max_stages_; }
  [[nodiscard]] std::uint64_t stage_capacity() const noexcept { return stage_capacity_; }  // c
  [[nodiscard]] double stage_fp_rate() const noexcept { return stage_fp_rate_; }           // r
  [[nodiscard]] std::uint64_t stage_bytes() const noexcept { return stage_bytes_; }
  [[nodiscard]] std::size_t num_stages() const noexcept;  // allocated (live) stages
  // True when the stage limit made an add go past a stage's capacity in a live generation.
  [[nodiscard]] bool over_capacity() const noexcept;
  [[nodiscard]] std::vector<GenerationInfo> Generations() const;  // live, oldest first
  [[nodiscard]] WindowedOptions options() const noexcept;

  friend bool operator==(const WindowedBloomFilter& a, const WindowedBloomFilter& b) noexcept;

 private:
  struct Generation {
    std::uint64_t epoch = 0;
    std::vector<BlockedBloomFilter> stages;  // empty: holds nothing
    friend bool operator==(const Generation&, const Generation&) = default;
  };
  WindowedBloomFilter() = default;
  [[nodiscard]] std::uint64_t epoch_now() const noexcept { return now_ / span_; }
  // Whether slot `g` is looked at in epoch `e` (written without epoch + G, which wraps
  // for times near 2^64 with S = 1).
  [[nodiscard]] bool Live(const Generation& g, std::uint64_t e) const noexcept {
    return !g.stages.empty() && g.epoch <= e && e - g.epoch <= generations_;
  }
  // Records `hash` in the current generation; true if no stage of it reported the key.
  Result<bool> Record(std::uint64_t hash);

  std::vector<Generation> ring_;  // G + 1 slots; epoch e lives in slot e % (G + 1)
  std::uint64_t capacity_ = 0;
  double fp_rate_ = 0;
  std::uint64_t window_ = 0;
  std::uint64_t span_ = 1;
  std::uint64_t now_ = 0;
  std::uint64_t stage_capacity_ = 0;
  double stage_fp_rate_ = 0;
  std::uint64_t stage_bytes_ = 0;
  std::uint64_t max_memory_bytes_ = kDefaultMaxMemoryBytes;
  std::uint32_t generations_ = 0;
  std::uint32_t max_stages_ = 0;
  WindowedSizing sizing_ = WindowedSizing::kAnySchedule;
};

static_assert(Filter<WindowedBloomFilter>);

}  // namespace bloomkit
