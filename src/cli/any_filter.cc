// SPDX-License-Identifier: Apache-2.0
// AnyFilter (any_filter.h): the per-kind mapping lives here.
#include "any_filter.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "bloomkit/filter.h"
#include "cli.h"

namespace bloomkit::cli {
namespace {

constexpr std::array<FilterKind, 11> kAllKinds = {FilterKind::kClassic,          FilterKind::kBlocked,
                                                  FilterKind::kCounting,         FilterKind::kScalable,
                                                  FilterKind::kCuckoo,           FilterKind::kRedisBloomScalable,
                                                  FilterKind::kRedisBloomCuckoo, FilterKind::kWindowed,
                                                  FilterKind::kBitsAndBlooms,    FilterKind::kGuava,
                                                  FilterKind::kParquet};

template <typename F>
constexpr bool kWindowed = std::is_same_v<F, WindowedBloomFilter>;
// Kinds whose plain adds count every key (docs/FILTERS.md, "What count() means"): their
// count cannot tell `add` which keys were new.
template <typename F>
constexpr bool kCountsEveryAdd = std::is_same_v<F, BloomFilter> || std::is_same_v<F, BlockedBloomFilter>;

template <std::size_t I = 0>
constexpr bool InVariant(FilterKind kind) {
  if constexpr (I == std::variant_size_v<FilterVariant>) {
    return false;
  } else {
    return std::variant_alternative_t<I, FilterVariant>::kKind == kind || InVariant<I + 1>(kind);
  }
}

Error NotAvailable(FilterKind kind) {
  return Error(ErrorCode::kUnsupported, fmt::format("kind {} is not available in this build (available: {})",
                                                    FilterKindName(kind), AvailableKinds()));
}

// ---- The create-options mapping: one overload per kind. ----

Result<BloomFilter> CreateAs(std::type_identity<BloomFilter> /*tag*/, const CreateSpec& s) {
  return BloomFilter::Create({.capacity = s.capacity, .fp_rate = s.fp_rate, .max_memory_bytes = s.max_memory_bytes});
}

Result<BlockedBloomFilter> CreateAs(std::type_identity<BlockedBloomFilter> /*tag*/, const CreateSpec& s) {
  return BlockedBloomFilter::Create({.capacity = s.capacity,
                                     .fp_rate = s.fp_rate,
                                     .max_memory_bytes = s.max_memory_bytes,
                                     .blocked_layout = s.blocked_layout});
}

Result<CountingBloomFilter> CreateAs(std::type_identity<CountingBloomFilter> /*tag*/, const CreateSpec& s) {
  CountingOptions options;
  options.bloom = {.capacity = s.capacity, .fp_rate = s.fp_rate, .max_memory_bytes = s.max_memory_bytes};
  return CountingBloomFilter::Create(options);
}

Result<ScalableBloomFilter> CreateAs(std::type_identity<ScalableBloomFilter> /*tag*/, const CreateSpec& s) {
  ScalableOptions options;
  options.initial_capacity = s.capacity;
  options.fp_rate = s.fp_rate;
  options.expansion = s.expansion;
  options.max_memory_bytes = s.max_memory_bytes;
  return ScalableBloomFilter::Create(options);
}

Result<CuckooFilter> CreateAs(std::type_identity<CuckooFilter> /*tag*/, const CreateSpec& s) {
  CuckooOptions options;
  options.capacity = s.capacity;
  options.fp_rate = s.fp_rate;
  options.bucket_size = s.bucket_size;
  options.expansion = s.expansion;
  options.max_memory_bytes = s.max_memory_bytes;
  return CuckooFilter::Create(options);
}

// RedisBloom's kinds: BF.RESERVE capacity error [EXPANSION e]; CF.RESERVE capacity
// [BUCKETSIZE b] [EXPANSION e] (MAXITERATIONS stays RedisBloom's default of 20).
Result<RedisBloomScalableFilter> CreateAs(std::type_identity<RedisBloomScalableFilter> /*tag*/, const CreateSpec& s) {
  return RedisBloomScalableFilter::Create(
      {.capacity = s.capacity, .fp_rate = s.fp_rate, .expansion = s.expansion, .max_memory_bytes = s.max_memory_bytes});
}

Result<RedisCuckooFilter> CreateAs(std::type_identity<RedisCuckooFilter> /*tag*/, const CreateSpec& s) {
  return RedisCuckooFilter::Create({.capacity = s.capacity,
                                    .bucket_size = s.bucket_size,
                                    .expansion = s.expansion,
                                    .max_memory_bytes = s.max_memory_bytes});
}

Result<WindowedBloomFilter> CreateAs(std::type_identity<WindowedBloomFilter> /*tag*/, const CreateSpec& s) {
  return WindowedBloomFilter::Create({.capacity = s.capacity,
                                      .fp_rate = s.fp_rate,
                                      .window = s.window_ms,
                                      .generations = s.generations,
                                      .sizing = s.windowed_sizing,
                                      .start_time = NowMs(),
                                      .max_memory_bytes = s.max_memory_bytes});
}

// The libraries' own sizing: bits-and-blooms' NewWithEstimates(n, p), Guava's
// BloomFilter.create(funnel, n, p) (MURMUR128_MITZ_64).
Result<BitsAndBloomsFilter> CreateAs(std::type_identity<BitsAndBloomsFilter> /*tag*/, const CreateSpec& s) {
  return BitsAndBloomsFilter::Create(
      {.capacity = s.capacity, .fp_rate = s.fp_rate, .max_memory_bytes = s.max_memory_bytes});
}

Result<GuavaBloomFilter> CreateAs(std::type_identity<GuavaBloomFilter> /*tag*/, const CreateSpec& s) {
  return GuavaBloomFilter::Create(
      {.capacity = s.capacity, .fp_rate = s.fp_rate, .max_memory_bytes = s.max_memory_bytes});
}

// Arrow's and parquet-mr's OptimalNumOfBits.
Result<ParquetBloomFilter> CreateAs(std::type_identity<ParquetBloomFilter> /*tag*/, const CreateSpec& s) {
  return ParquetBloomFilter::Create(
      {.capacity = s.capacity, .fp_rate = s.fp_rate, .max_memory_bytes = s.max_memory_bytes});
}

template <std::size_t I = 0>
Result<FilterVariant> CreateVariant(const CreateSpec& spec) {
  if constexpr (I == std::variant_size_v<FilterVariant>) {
    return NotAvailable(spec.kind);
  } else {
    using F = std::variant_alternative_t<I, FilterVariant>;
    if (F::kKind != spec.kind) return CreateVariant<I + 1>(spec);
    auto made = CreateAs(std::type_identity<F>{}, spec);
    if (!made.ok()) return std::move(made).error();
    return FilterVariant(std::in_place_index<I>, std::move(made).value());
  }
}

template <std::size_t I = 0>
Result<FilterVariant> LoadVariant(FilterReader& reader, const LoadOptions& options) {
  const FilterKind kind = reader.header().kind;
  if constexpr (I == std::variant_size_v<FilterVariant>) {
    return Error(ErrorCode::kUnsupported, fmt::format("holds a {} filter, which this build cannot read (kind {} is "
                                                      "not available in this build)",
                                                      FilterKindName(kind), FilterKindName(kind)));
  } else {
    using F = std::variant_alternative_t<I, FilterVariant>;
    if (F::kKind != kind) return LoadVariant<I + 1>(reader, options);
    auto parsed = reader.Load<F>(options);
    if (!parsed.ok()) return std::move(parsed).error();
    return FilterVariant(std::in_place_index<I>, std::move(parsed).value());
  }
}

template <typename F>
Result<bool> AddTo(F& filter, std::string_view key) {
  if constexpr (kWindowed<F>) filter.Advance(NowMs());
  if constexpr (Removable<F>) {
    // Multiset semantics: always store a copy, so removing what was added is safe even
    // when the key was a false positive of the test.
    const bool was_present = filter.MayContain(key);
    if (Status st = filter.Add(key); !st.ok()) return st.error();
    return !was_present;
  } else {
    return filter.AddIfAbsent(key);
  }
}

// What `info` shows beyond filter.h's statistics: each kind's own structure.
void AddDetails(FilterSummary& s, const BloomFilter& f) {
  s.num_hashes = f.num_hashes();
}
void AddDetails(FilterSummary& s, const BlockedBloomFilter& f) {
  s.num_hashes = f.num_hashes();
}
void AddDetails(FilterSummary& s, const CountingBloomFilter& f) {
  s.num_hashes = f.num_hashes();
}
void AddDetails(FilterSummary& s, const ScalableBloomFilter& f) {
  s.stages = f.StageInfos();
  if (!f.stages().empty()) s.num_hashes = f.stages().back().num_hashes();
}
void AddDetails(FilterSummary& s, const CuckooFilter& f) {
  s.bucket_size = f.bucket_size();
  s.fingerprint_bits = f.fingerprint_bits();
  s.num_buckets = f.num_buckets();
  s.num_stages = f.num_stages();
  s.num_deletes = f.num_deletes();
  s.num_hashes = 2;  // two candidate buckets per key
}
void AddDetails(FilterSummary& s, const RedisBloomScalableFilter& f) {
  for (std::size_t i = 0; i < f.num_stages(); ++i) {
    const RedisBloomLinkParams& link = f.link(i);
    s.num_hashes = link.hashes;
    s.stages.push_back({.capacity = link.entries,
                        .count = link.size,
                        .num_bits = link.bits,
                        .num_hashes = link.hashes,
                        .fp_rate = link.error,
                        .memory_bytes = link.bytes});
  }
}
void AddDetails(FilterSummary& s, const WindowedBloomFilter& f) {
  s.window_ms = f.window();
  s.generations = f.generations();
  s.steady_sizing = f.sizing() == WindowedSizing::kSteadyStream;
  s.now_ms = f.now();
  s.live_generations = f.Generations().size();
  s.num_stages = f.num_stages();
  s.max_stages = f.max_stages();
  s.over_capacity = f.over_capacity();
  s.num_hashes = 0;
  auto probe = BlockedBloomFilter::Create({.capacity = f.stage_capacity(), .fp_rate = f.stage_fp_rate()});
  if (probe.ok()) s.num_hashes = probe->num_hashes();
}
void AddDetails(FilterSummary& s, const RedisCuckooFilter& f) {
  s.bucket_size = f.bucket_size();
  s.fingerprint_bits = 8;
  s.num_buckets = f.num_buckets();
  s.num_stages = f.num_stages();
  s.num_deletes = f.num_deletes();
  s.num_hashes = 2;
}

void AddDetails(FilterSummary& s, const BitsAndBloomsFilter& f) {
  s.num_hashes = f.num_hashes();
}
void AddDetails(FilterSummary& s, const GuavaBloomFilter& f) {
  s.num_hashes = f.num_hashes();
}
void AddDetails(FilterSummary& s, const ParquetBloomFilter& f) {
  s.num_hashes = f.num_hashes();
}

// Every figure from the core's own statistics (filter.h); no kind is special here.
template <Filter F>
FilterSummary Summarize(const F& f) {
  FilterSummary s;
  s.kind = F::kKind;
  s.capacity = f.capacity();
  s.count = f.count();
  s.estimated_count = f.EstimatedCount();
  s.memory_bytes = f.memory_bytes();
  s.num_bits = f.num_bits();
  s.can_remove = Removable<F>;
  s.fp_rate = f.fp_rate();
  s.expected_fp_rate = f.ExpectedFpRate();
  s.estimated_fp_rate = f.EstimatedFpRate();
  s.fill_ratio = f.FillRatio();
  AddDetails(s, f);
  return s;
}

}  // namespace

std::uint64_t NowMs() {
  static const std::optional<std::uint64_t> fixed = []() -> std::optional<std::uint64_t> {
    const char* text = std::getenv("BLOOMKIT_NOW_MS");
    if (text == nullptr) return std::nullopt;
    const std::string_view view(text);
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
    if (view.empty() || ec != std::errc() || end != view.data() + view.size()) {
      Fail(kExitUsage, fmt::format("BLOOMKIT_NOW_MS must be a whole number of milliseconds, got '{}'", view));
    }
    return value;
  }();
  if (fixed) return *fixed;
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count();
  return ms < 0 ? 0 : static_cast<std::uint64_t>(ms);
}

bool KindAvailable(FilterKind kind) noexcept {
  return InVariant(kind);
}

std::string AvailableKinds() {
  std::string out;
  for (FilterKind kind : kAllKinds) {
    if (!KindAvailable(kind)) continue;
    if (!out.empty()) out += ", ";
    out += FilterKindName(kind);
  }
  return out;
}

Result<FilterKind> ParseAvailableKind(std::string_view name) {
  auto kind = ParseFilterKind(name);
  if (!kind.ok()) return kind;
  if (!KindAvailable(kind.value())) return NotAvailable(kind.value());
  return kind;
}

Result<AnyFilter> AnyFilter::Create(const CreateSpec& spec) {
  auto made = CreateVariant(spec);
  if (!made.ok()) return std::move(made).error();
  return AnyFilter(std::move(made).value());
}

Result<AnyFilter> AnyFilter::Deserialize(std::span<const std::byte> bytes, const LoadOptions& options) {
  auto reader = FilterReader::OpenBytes(bytes, std::nullopt, options.max_memory_bytes);
  if (!reader.ok()) return std::move(reader).error();
  return Load(reader.value(), options);
}

Result<AnyFilter> AnyFilter::Load(FilterReader& reader, const LoadOptions& options) {
  auto parsed = LoadVariant(reader, options);
  if (!parsed.ok()) return std::move(parsed).error();
  return AnyFilter(std::move(parsed).value());
}

Status AnyFilter::Save(const std::filesystem::path& path, const SaveOptions& options) const {
  return std::visit([&](const auto& f) { return SaveFile(f, path, options); }, filter_);
}

std::vector<std::byte> AnyFilter::Serialize(const SaveOptions& options) const {
  return std::visit([&](const auto& f) { return f.Serialize(options); }, filter_);
}

FilterKind AnyFilter::kind() const {
  return std::visit([](const auto& f) { return std::decay_t<decltype(f)>::kKind; }, filter_);
}

bool AnyFilter::CanRemove() const {
  return std::visit([](const auto& f) { return Removable<std::decay_t<decltype(f)>>; }, filter_);
}

Result<bool> AnyFilter::Add(std::string_view key) {
  return std::visit([&](auto& f) { return AddTo(f, key); }, filter_);
}

Result<std::uint64_t> AnyFilter::AddBatch(std::span<const std::string_view> keys) {
  return std::visit(
      [&](auto& f) -> Result<std::uint64_t> {
        using F = std::decay_t<decltype(f)>;
        // The count of a kind without removal grows only by keys that were absent, so
        // its growth over the core's batch is exactly what Add would have reported, up
        // to kMaxFileCount, where it stops: near that, key by key. On an error the keys
        // before the failing one are in.
        // A windowed filter counts a key again in each generation it is added in: key by
        // key, so that "new" means absent from every live generation. Classic and blocked
        // filters count every plain add: key by key with AddIfAbsent, whose answer is the
        // "new" this reports.
        if (!Removable<F> && !kWindowed<F> && !kCountsEveryAdd<F> && f.count() <= kMaxFileCount - keys.size()) {
          const std::uint64_t before = f.count();
          if (Status st = f.AddBatch(keys); !st.ok()) return st.error();
          return f.count() - before;
        } else {
          std::uint64_t added = 0;
          for (std::string_view key : keys) {
            auto is_new = AddTo(f, key);
            if (!is_new.ok()) return std::move(is_new).error();
            added += is_new.value() ? 1U : 0U;
          }
          return added;
        }
      },
      filter_);
}

Result<bool> AnyFilter::AddIfAbsent(std::string_view key) {
  return std::visit(
      [&](auto& f) -> Result<bool> {
        using F = std::decay_t<decltype(f)>;
        if constexpr (Removable<F>) {
          if (f.MayContain(key)) return false;
          return AddTo(f, key);
        } else {
          if constexpr (kWindowed<F>) f.Advance(NowMs());
          return f.AddIfAbsent(key);
        }
      },
      filter_);
}

std::size_t AnyFilter::MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
  return std::visit(
      [&](const auto& f) -> std::size_t {
        if constexpr (kWindowed<std::decay_t<decltype(f)>>) {
          const std::uint64_t now = NowMs();
          std::size_t found = 0;
          for (std::size_t i = 0; i < keys.size(); ++i) {
            out[i] = f.MayContainAt(keys[i], now);
            found += out[i] ? 1U : 0U;
          }
          return found;
        } else {
          return f.MayContainBatch(keys, out);
        }
      },
      filter_);
}

Result<bool> AnyFilter::Remove(std::string_view key) {
  return std::visit(
      [&](auto& f) -> Result<bool> {
        using F = std::decay_t<decltype(f)>;
        if constexpr (Removable<F>) {
          return f.Remove(key);
        } else {
          return Error(ErrorCode::kUnsupported,
                       fmt::format("a {} filter cannot remove keys (create a counting or cuckoo filter for that)",
                                   FilterKindName(F::kKind)));
        }
      },
      filter_);
}

namespace {

// A kind that merges a file's filter as it reads it (BloomFilter::MergeFrom and the like).
template <typename F>
concept MergesFromFile = requires(F& f, FilterReader& reader) {
  f.MergeFrom(reader);
};

}  // namespace

Status AnyFilter::MergeFrom(FilterReader& reader) {
  return std::visit(
      [&reader](auto& f) -> Status {
        using F = std::decay_t<decltype(f)>;
        const FilterKind theirs = reader.header().kind;
        if (theirs != F::kKind) {
          return Error(ErrorCode::kIncompatible, fmt::format("cannot merge a {} filter with a {} filter",
                                                             FilterKindName(F::kKind), FilterKindName(theirs)));
        }
        if constexpr (MergesFromFile<F>) {
          return f.MergeFrom(reader);
        } else {
          return Error(ErrorCode::kUnsupported, fmt::format("{} filters cannot be merged", FilterKindName(F::kKind)));
        }
      },
      filter_);
}

void AnyFilter::AdvanceClock() {
  if (auto* windowed = std::get_if<WindowedBloomFilter>(&filter_)) windowed->Advance(NowMs());
}

FilterSummary AnyFilter::Summary() const {
  return std::visit([](const auto& f) { return Summarize(f); }, filter_);
}

FilterSummary SummarizeMapped(const MappedFilter& view) {
  if (const auto* classic = view.get_if<BloomFilter>()) return Summarize(*classic);
  return Summarize(*view.get_if<BlockedBloomFilter>());
}

}  // namespace bloomkit::cli
