// SPDX-License-Identifier: Apache-2.0
// AnyFilter (any_filter.h): the per-kind mapping lives here.
#include "any_filter.h"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cmath>
#include <type_traits>
#include <utility>

#include "bloomkit/sizing.h"

namespace bloomkit::cli {
namespace {

constexpr std::array<FilterKind, 7> kAllKinds = {FilterKind::kClassic,         FilterKind::kBlocked,
                                                 FilterKind::kCounting,        FilterKind::kScalable,
                                                 FilterKind::kCuckoo,          FilterKind::kRedisBloomScalable,
                                                 FilterKind::kRedisBloomCuckoo};

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

#if BLOOMKIT_CLI_HAVE_COUNTING
Result<CountingBloomFilter> CreateAs(std::type_identity<CountingBloomFilter> /*tag*/, const CreateSpec& s) {
  CountingOptions options;
  options.bloom = {.capacity = s.capacity, .fp_rate = s.fp_rate, .max_memory_bytes = s.max_memory_bytes};
  return CountingBloomFilter::Create(options);
}
#endif

#if BLOOMKIT_CLI_HAVE_SCALABLE
Result<ScalableBloomFilter> CreateAs(std::type_identity<ScalableBloomFilter> /*tag*/, const CreateSpec& s) {
  ScalableOptions options;
  options.initial_capacity = s.capacity;
  options.fp_rate = s.fp_rate;
  options.growth = s.growth;
  options.max_memory_bytes = s.max_memory_bytes;
  return ScalableBloomFilter::Create(options);
}
#endif

#if BLOOMKIT_CLI_HAVE_CUCKOO
Result<CuckooFilter> CreateAs(std::type_identity<CuckooFilter> /*tag*/, const CreateSpec& s) {
  CuckooOptions options;
  options.capacity = s.capacity;
  options.fp_rate = s.fp_rate;
  options.bucket_size = s.bucket_size;
  options.expansion = s.expansion;
  options.max_memory_bytes = s.max_memory_bytes;
  return CuckooFilter::Create(options);
}
#endif

// RedisBloom's kinds: BF.RESERVE capacity error [EXPANSION growth]; CF.RESERVE capacity
// [BUCKETSIZE b] [EXPANSION e] (MAXITERATIONS stays RedisBloom's default of 20).
Result<RedisBloomScalableFilter> CreateAs(std::type_identity<RedisBloomScalableFilter> /*tag*/, const CreateSpec& s) {
  return RedisBloomScalableFilter::Create(
      {.capacity = s.capacity, .fp_rate = s.fp_rate, .expansion = s.growth, .max_memory_bytes = s.max_memory_bytes});
}

Result<RedisCuckooFilter> CreateAs(std::type_identity<RedisCuckooFilter> /*tag*/, const CreateSpec& s) {
  return RedisCuckooFilter::Create({.capacity = s.capacity,
                                    .bucket_size = s.bucket_size,
                                    .expansion = s.expansion,
                                    .max_memory_bytes = s.max_memory_bytes});
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
Result<FilterVariant> DeserializeVariant(FilterKind kind, std::span<const std::byte> bytes,
                                         const LoadOptions& options) {
  if constexpr (I == std::variant_size_v<FilterVariant>) {
    return Error(ErrorCode::kUnsupported, fmt::format("holds a {} filter, which this build cannot read (kind {} is "
                                                      "not available in this build)",
                                                      FilterKindName(kind), FilterKindName(kind)));
  } else {
    using F = std::variant_alternative_t<I, FilterVariant>;
    if (F::kKind != kind) return DeserializeVariant<I + 1>(kind, bytes, options);
    auto parsed = F::Deserialize(bytes, options);
    if (!parsed.ok()) return std::move(parsed).error();
    return FilterVariant(std::in_place_index<I>, std::move(parsed).value());
  }
}

// Normalizes the return types of the kinds' add/remove calls.
inline Result<bool> AsResult(bool value) {
  return value;
}
inline Result<bool> AsResult(Result<bool>&& value) {
  return std::move(value);
}

template <typename F>
constexpr bool kRemovable = requires(F& f, std::string_view key) {
  f.Remove(key);
};

template <typename F>
Result<bool> AddTo(F& filter, std::string_view key) {
  if constexpr (kRemovable<F>) {
    // Multiset semantics: always store a copy, so removing what was added is safe even
    // when the key was a false positive of the test.
    const bool was_present = filter.MayContain(key);
    using AddReturn = decltype(filter.Add(key));
    if constexpr (std::is_void_v<AddReturn>) {
      filter.Add(key);
    } else {
      if (auto st = filter.Add(key); !st.ok()) return st.error();
    }
    return !was_present;
  } else {
    return AsResult(filter.AddIfAbsent(key));
  }
}

template <typename F>
FilterSummary Summarize(const F& f) {
  FilterSummary s;
  s.kind = F::kKind;
  s.capacity = f.capacity();
  s.count = f.count();
  s.memory_bytes = f.memory_bytes();
  s.can_remove = kRemovable<F>;
  s.fp_rate = f.fp_rate();
  s.expected_fp_rate = f.ExpectedFpRate();
  s.estimated_fp_rate = f.EstimatedFpRate();
  if constexpr (requires { f.num_bits(); }) {
    s.num_bits = f.num_bits();
  } else {
    s.num_bits = s.memory_bytes * 8;
  }
  if constexpr (requires { f.num_hashes(); }) s.num_hashes = f.num_hashes();
  if constexpr (requires { f.FillRatio(); }) s.fill_ratio = f.FillRatio();
  if constexpr (requires { f.EstimatedCount(); }) {
    s.estimated_count = f.EstimatedCount();
  } else {
    s.estimated_count = s.count;
  }
  return s;
}

#if BLOOMKIT_CLI_HAVE_COUNTING
FilterSummary Summarize(const CountingBloomFilter& f) {
  FilterSummary s;
  s.kind = CountingBloomFilter::kKind;
  s.capacity = f.capacity();
  s.count = f.count();
  s.memory_bytes = f.memory_bytes();
  s.num_bits = f.num_bits();
  s.num_hashes = f.num_hashes();
  s.can_remove = true;
  s.fp_rate = f.fp_rate();
  s.expected_fp_rate = f.ExpectedFpRate();
  s.estimated_fp_rate = f.EstimatedFpRate();
  // Fill and count as for the classic filter, over counters instead of bits:
  // -(m/k) ln(1 - X/m) with X non-zero counters (Swamidass & Baldi 2007).
  const double m = static_cast<double>(f.num_counters());
  const double nonzero = static_cast<double>(f.CountNonZero());
  s.fill_ratio = m == 0 ? 0.0 : nonzero / m;
  if (nonzero < m) {
    s.estimated_count = static_cast<std::uint64_t>(std::llround(-m / f.num_hashes() * std::log1p(-nonzero / m)));
  } else {
    s.estimated_count = f.count();
  }
  return s;
}
#endif

#if BLOOMKIT_CLI_HAVE_SCALABLE
FilterSummary Summarize(const ScalableBloomFilter& f) {
  FilterSummary s;
  s.kind = ScalableBloomFilter::kKind;
  s.capacity = f.capacity();
  s.count = f.count();
  s.memory_bytes = f.memory_bytes();
  s.fp_rate = f.fp_rate();
  s.expected_fp_rate = f.ExpectedFpRate();
  s.estimated_fp_rate = f.EstimatedFpRate();
  s.stages = f.Stages();
  std::uint64_t set_bits = 0;
  for (const BloomFilter& stage : f.stages()) {
    s.num_bits += stage.num_bits();
    s.num_hashes = stage.num_hashes();
    s.estimated_count += stage.EstimatedCount();
    set_bits += stage.CountSetBits();
  }
  s.fill_ratio = s.num_bits == 0 ? 0.0 : static_cast<double>(set_bits) / static_cast<double>(s.num_bits);
  return s;
}
#endif

#if BLOOMKIT_CLI_HAVE_CUCKOO
FilterSummary Summarize(const CuckooFilter& f) {
  FilterSummary s;
  s.kind = CuckooFilter::kKind;
  s.capacity = f.capacity();
  s.count = f.count();
  s.estimated_count = f.count();
  s.memory_bytes = f.memory_bytes();
  s.num_bits = s.memory_bytes * 8;
  s.can_remove = true;
  s.fp_rate = f.options().fp_rate;
  s.fill_ratio = f.FillRatio();
  s.expected_fp_rate = f.ExpectedFpRate();
  // A query compares its fingerprint with the 2b slots of its two buckets, each holding
  // a fingerprint with probability `load`, each matching with 1/(2^f - 1) (fingerprints
  // are non-zero): 1 - (1 - 1/(2^f - 1))^(2 b load), compounded over sub-filters.
  const double per_slot = 1.0 / (std::ldexp(1.0, static_cast<int>(f.fingerprint_bits())) - 1.0);
  const double slots = 2.0 * f.bucket_size() * s.fill_ratio;
  const double one = -std::expm1(slots * std::log1p(-per_slot));
  s.estimated_fp_rate = -std::expm1(static_cast<double>(f.num_stages()) * std::log1p(-one));
  s.bucket_size = f.bucket_size();
  s.fingerprint_bits = f.fingerprint_bits();
  s.num_buckets = f.num_buckets();
  s.num_filters = f.num_stages();
  s.num_deletes = f.num_deletes();
  s.num_hashes = 2;  // two candidate buckets per key
  return s;
}
#endif

FilterSummary Summarize(const RedisBloomScalableFilter& f) {
  FilterSummary s;
  s.kind = RedisBloomScalableFilter::kKind;
  s.capacity = f.capacity();
  s.count = f.count();
  s.estimated_count = f.count();
  s.memory_bytes = f.memory_bytes();
  s.fp_rate = f.fp_rate();
  s.estimated_fp_rate = f.EstimatedFpRate();
  // At capacity every link is full: 1 - prod(1 - e_i) over the links' error rates.
  double none = 1;
  std::uint64_t set_bits = 0;
  for (std::size_t i = 0; i < f.num_filters(); ++i) {
    const RedisBloomLinkParams& link = f.link(i);
    none *= 1 - link.error;
    s.num_bits += link.bits;
    s.num_hashes = link.hashes;
    for (const std::byte b : f.link_data(i))
      set_bits += static_cast<std::uint64_t>(std::popcount(std::to_integer<unsigned>(b)));
    s.stages.push_back({.capacity = link.entries,
                        .count = link.size,
                        .num_bits = link.bits,
                        .num_hashes = link.hashes,
                        .fp_rate = link.error,
                        .memory_bytes = link.bytes});
  }
  s.expected_fp_rate = 1 - none;
  s.fill_ratio = s.num_bits == 0 ? 0.0 : static_cast<double>(set_bits) / static_cast<double>(s.num_bits);
  return s;
}

FilterSummary Summarize(const RedisCuckooFilter& f) {
  FilterSummary s;
  s.kind = RedisCuckooFilter::kKind;
  s.capacity = f.capacity();
  s.count = f.count();
  s.estimated_count = f.count();
  s.memory_bytes = f.memory_bytes();
  s.num_bits = f.capacity() * 8;
  s.can_remove = true;
  s.fill_ratio = f.capacity() == 0 ? 0.0 : static_cast<double>(f.count()) / static_cast<double>(f.capacity());
  // One full sub-filter: a query meets 2b fingerprints, each matching with 1/255.
  s.fp_rate = 1 - std::pow(1 - 1.0 / 255, 2.0 * f.bucket_size());
  s.expected_fp_rate = s.fp_rate;
  s.estimated_fp_rate = f.EstimatedFpRate();
  s.bucket_size = f.bucket_size();
  s.fingerprint_bits = 8;
  s.num_buckets = f.num_buckets();
  s.num_filters = f.num_filters();
  s.num_deletes = f.num_deletes();
  s.num_hashes = 2;
  return s;
}

}  // namespace

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
  auto header = PeekHeader(bytes);  // the kind; the kind's Deserialize checks the rest
  if (!header.ok()) return std::move(header).error();
  auto parsed = DeserializeVariant(header->kind, bytes, options);
  if (!parsed.ok()) return std::move(parsed).error();
  return AnyFilter(std::move(parsed).value());
}

std::vector<std::byte> AnyFilter::Serialize(const SaveOptions& options) const {
  return std::visit([&](const auto& f) { return f.Serialize(options); }, filter_);
}

FilterKind AnyFilter::kind() const noexcept {
  return std::visit([](const auto& f) { return std::decay_t<decltype(f)>::kKind; }, filter_);
}

bool AnyFilter::CanRemove() const noexcept {
  return std::visit([](const auto& f) { return kRemovable<std::decay_t<decltype(f)>>; }, filter_);
}

Result<bool> AnyFilter::Add(std::string_view key) {
  return std::visit([&](auto& f) { return AddTo(f, key); }, filter_);
}

Result<std::uint64_t> AnyFilter::AddBatch(std::span<const std::string_view> keys) {
  return std::visit(
      [&](auto& f) -> Result<std::uint64_t> {
        using F = std::decay_t<decltype(f)>;
        if constexpr (std::is_same_v<F, BloomFilter> || std::is_same_v<F, BlockedBloomFilter>) {
          // The batch hashes a group of keys ahead and counts the keys that set a new
          // bit, in order: the count grows by exactly what Add would have reported.
          const std::uint64_t before = f.count();
          static_cast<void>(f.AddBatch(keys));
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
        if constexpr (kRemovable<F>) {
          if (f.MayContain(key)) return false;
          return AddTo(f, key);
        } else {
          return AsResult(f.AddIfAbsent(key));
        }
      },
      filter_);
}

std::size_t AnyFilter::MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
  return std::visit(
      [&](const auto& f) -> std::size_t {
        if constexpr (requires { f.MayContainBatch(keys, out); }) {
          return f.MayContainBatch(keys, out);
        } else {
          std::size_t found = 0;
          for (std::size_t i = 0; i < keys.size(); ++i) {
            out[i] = f.MayContain(keys[i]);
            found += out[i] ? std::size_t{1} : std::size_t{0};
          }
          return found;
        }
      },
      filter_);
}

Result<bool> AnyFilter::Remove(std::string_view key) {
  return std::visit(
      [&](auto& f) -> Result<bool> {
        using F = std::decay_t<decltype(f)>;
        if constexpr (kRemovable<F>) {
          return AsResult(f.Remove(key));
        } else {
          return Error(ErrorCode::kUnsupported,
                       fmt::format("a {} filter cannot remove keys (create a counting or cuckoo filter for that)",
                                   FilterKindName(F::kKind)));
        }
      },
      filter_);
}

Status AnyFilter::Merge(const AnyFilter& other) {
  return std::visit(
      [](auto& a, const auto& b) -> Status {
        using A = std::decay_t<decltype(a)>;
        using B = std::decay_t<decltype(b)>;
        if constexpr (!std::is_same_v<A, B>) {
          return Error(ErrorCode::kIncompatible, fmt::format("cannot merge a {} filter with a {} filter",
                                                             FilterKindName(A::kKind), FilterKindName(B::kKind)));
        } else if constexpr (requires { a.Merge(b); }) {
          return a.Merge(b);
        } else {
          return Error(ErrorCode::kUnsupported, fmt::format("{} filters cannot be merged", FilterKindName(A::kKind)));
        }
      },
      filter_, other.filter_);
}

FilterSummary AnyFilter::Summary() const {
  return std::visit([](const auto& f) { return Summarize(f); }, filter_);
}

FilterSummary SummarizeMapped(const MappedFilter& view) {
  if (const auto* classic = view.get_if<BloomFilter>()) return Summarize(*classic);
  return Summarize(*view.get_if<BlockedBloomFilter>());
}

}  // namespace bloomkit::cli
