// SPDX-License-Identifier: Apache-2.0
// The scalable Bloom filter (scalable_bloom_filter.h).
#include "bloomkit/scalable_bloom_filter.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <string>

#include "bloomkit/sizing.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/filter_common.h"
#include "internal/hash_inline.h"
#include "internal/message.h"

namespace bloomkit {
namespace {

constexpr std::uint64_t kFlagScaling = 1;

std::uint64_t AlignUp64(std::uint64_t bytes) {
  return (bytes + 63) & ~std::uint64_t{63};
}

// Below about 2^-64.5 a classic stage's optimal number of hashes, round(log2(1/p)),
// passes kMaxNumHashes (64): the smallest rate any stage can have.
double SmallestStageRate() noexcept {
  return std::exp2(-64.5);
}

// Why a stage of `capacity` keys at `fp_rate` cannot be sized whatever the memory
// limit ("" if it can): the rate underflowed to 0, or it needs more than 64 hashes.
std::string StageRateProblem(std::uint64_t capacity, double fp_rate) {
  if (!(fp_rate > 0.0)) return "its error rate rounds to 0";
  auto params =
      CalculateParameters(capacity, fp_rate, FilterKind::kClassic, std::numeric_limits<std::uint64_t>::max() / 8);
  if (!params.ok() && params.error().code() == ErrorCode::kInvalidArgument) return params.error().message();
  return {};
}

Status ValidateOptions(const ScalableOptions& o) {
  using internal::MakeError;
  if (o.initial_capacity == 0) {
    return MakeError(ErrorCode::kInvalidArgument, "initial capacity must be at least 1, got 0");
  }
  if (auto st = ValidateFpRate(o.fp_rate); !st.ok()) return st;
  if (o.expansion == 0) return MakeError(ErrorCode::kInvalidArgument, "expansion must be at least 1, got 0");
  if (!(o.tightening > 0.0 && o.tightening < 1.0)) {
    return MakeError(ErrorCode::kInvalidArgument, "tightening ratio must be in (0, 1), got ", o.tightening);
  }
  if (o.max_stages == 0 || o.max_stages > kMaxScalableStages) {
    return MakeError(ErrorCode::kInvalidArgument, "max_stages must be in [1, ", kMaxScalableStages, "], got ",
                     o.max_stages);
  }
  // The first stage gets fp_rate * (1 - r): 5e-324 * 0.5 rounds to 0, and 1e-300 * 0.5
  // needs 998 hashes. Either is an error rate too small, not a filter too large.
  const double share = o.non_scaling ? 1.0 : 1.0 - o.tightening;
  if (const std::string problem = StageRateProblem(o.initial_capacity, o.fp_rate * share); !problem.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "error rate ", o.fp_rate, " is too small: its first stage (", share,
                     " of it) cannot be sized: ", problem, "; the smallest error rate is about ",
                     SmallestStageRate() / share);
  }
  return {};
}

// The batch forms: the newest stages whose lines a group prefetches (with expansion 2 the
// newest 4 hold 15/16 of the keys; an older stage is small enough to stay cached).
constexpr std::size_t kMaxPrefetchStages = 4;

void PrefetchProbes(std::span<const BloomFilter> stages, std::span<const HashPair> hashes, bool for_write) noexcept {
  const std::size_t first = stages.size() > kMaxPrefetchStages ? stages.size() - kMaxPrefetchStages : 0;
  for (std::size_t s = first; s < stages.size(); ++s) {
    const BloomFilter& stage = stages[s];
    const std::uint64_t* words = stage.words().data();
    const bool write = for_write && s + 1 == stages.size();  // adds go into the last stage
    for (const HashPair& h : hashes) {
      ForEachProbe(h, stage.num_bits(), stage.num_hashes(), [&](std::uint64_t bit) {
        if (write) {
          internal::PrefetchWrite(words + (bit >> 6));
        } else {
          internal::PrefetchRead(words + (bit >> 6));
        }
        return true;
      });
    }
  }
}

// Hashes items [0, n) in groups of kBatchGroup (hash_of(i) -> HashPair), prefetches each
// group's probes in the filter's stages as they are then (an add may append one), and
// calls visit(i, hash) in order while it returns true.
template <typename HashOf, typename Visit>
void ForEachGroup(std::size_t n, const HashOf& hash_of, const ScalableBloomFilter& filter, bool for_write,
                  const Visit& visit) {
  std::array<HashPair, internal::kBatchGroup> group{};
  for (std::size_t begin = 0; begin < n; begin += group.size()) {
    const std::size_t size = std::min(group.size(), n - begin);
    for (std::size_t i = 0; i < size; ++i) group[i] = hash_of(begin + i);
    PrefetchProbes(filter.stages(), std::span<const HashPair>(group.data(), size), for_write);
    for (std::size_t i = 0; i < size; ++i) {
      if (!visit(begin + i, group[i])) return;
    }
  }
}

// Gives `stage` a new count: its bits, sizing and `count` in a new BloomFilter (a
// filter's count is its own to keep; merges recompute and CapCounts caps the stages').
void SetCount(BloomFilter& stage, std::uint64_t count) noexcept {
  stage = BloomFilter(std::move(stage.bits()), count, stage.capacity(), stage.fp_rate());
}

}  // namespace

// A new stage uses every bit of the words it occupies: m = 64 * ceil(m_classic / 64),
// k = round(m / n ln 2). The formula's rate (1 - e^{-kn/m})^k underestimates a small
// filter (probe collisions, the spread of its fill): a 100-key stage of 1,103 bits at
// k = 8 measured 0.516% over 400 instances against the 0.500% target, and a default
// BF.ADD chain (capacity 100, rate 1%, expansion 2) grown to 14 stages measured 0.99-1.12%,
// and 24 such chains of 9 stages 1.055% on average. With the word's spare bits (1,152
// for that stage: 0.405%) the 24 chains measure 0.942%
// (scalable_bloom_filter_test, CompoundRateAtDefaultsStaysBelowTarget), in no more
// memory; RedisBloom's stages use whole words too. The stage keeps its target rate as fp_rate(),
// which Deserialize checks; files whose stages were sized without the spare bits load
// and answer as before.
Result<BloomFilter> ScalableBloomFilter::CreateStage(std::uint64_t capacity, double fp_rate,
                                                     std::uint64_t max_memory_bytes, bool whole_words) {
  if (!whole_words)
    return BloomFilter::Create({.capacity = capacity,
                                .fp_rate = fp_rate,
                                .max_memory_bytes = max_memory_bytes,
                                .hash_id = kHashIdXxh3DoubleHashing});
  auto params = CalculateParameters(capacity, fp_rate, FilterKind::kClassic, max_memory_bytes);
  if (!params.ok()) return std::move(params).error();
  const std::uint64_t words = params->bytes / 8;
  const std::uint64_t num_bits = words * 64;
  if (num_bits > BloomFilter::kMaxNumBits) {
    return internal::MakeError(ErrorCode::kTooLarge, "num_bits ", num_bits, " is more than the ",
                               BloomFilter::kMaxNumBits, " a filter can have");
  }
  WordArray array = WordArray::Allocate(words);
  if (!array.ok()) return internal::MakeError(ErrorCode::kTooLarge, "out of memory allocating ", words * 8, " bytes");
  const std::uint32_t num_hashes = OptimalNumHashes(static_cast<double>(num_bits), static_cast<double>(capacity));
  return BloomFilter(internal::ClassicBits(num_bits, num_hashes, kHashIdXxh3DoubleHashing, std::move(array)), 0,
                     capacity, fp_rate);
}

ScalableBloomFilter::ScalableBloomFilter(const ScalableOptions& options) noexcept
    : fp_rate_(options.fp_rate),
      tightening_(options.tightening),
      max_memory_bytes_(options.max_memory_bytes),
      expansion_(options.expansion),
      max_stages_(options.max_stages),
      non_scaling_(options.non_scaling),
      whole_words_(options.whole_word_stages) {}

Status ScalableBloomFilter::AppendStage(BloomFilter stage) {
  try {
    stages_.reserve(stages_.size() + 1);
  } catch (const std::bad_alloc&) {
    return internal::MakeError(ErrorCode::kTooLarge, "out of memory for a table of ", stages_.size() + 1, " stages");
  }
  stages_.push_back(std::move(stage));  // cannot throw: the room is reserved
  return {};
}

ScalableOptions ScalableBloomFilter::options() const noexcept {
  return {.initial_capacity = stages_.empty() ? 0 : stages_[0].capacity(),
          .fp_rate = fp_rate_,
          .expansion = expansion_,
          .tightening = tightening_,
          .non_scaling = non_scaling_,
          .max_stages = max_stages_,
          .max_memory_bytes = max_memory_bytes_,
          .whole_word_stages = whole_words_};
}

Result<StageInfo> ScalableBloomFilter::StageTarget(const ScalableOptions& options, std::uint32_t index) {
  // Rates by repeated multiplication, not pow(): the same doubles on every machine, so a
  // loaded file's stage rates can be checked for equality.
  StageInfo info;
  info.capacity = options.initial_capacity;
  info.fp_rate = options.non_scaling ? options.fp_rate : options.fp_rate * (1.0 - options.tightening);
  for (std::uint32_t i = 0; i < index; ++i) {
    if (!internal::CheckedMul(info.capacity, options.expansion, &info.capacity)) {
      return internal::MakeError(ErrorCode::kTooLarge, "stage ", index, " of a scalable filter with initial capacity ",
                                 options.initial_capacity, " and expansion ", options.expansion,
                                 " would hold more than 2^64 keys");
    }
    info.fp_rate *= options.tightening;
  }
  return info;
}

Result<ScalableBloomFilter> ScalableBloomFilter::Create(const ScalableOptions& options) {
  if (auto st = ValidateOptions(options); !st.ok()) return st.error();
  ScalableBloomFilter filter(options);
  if (auto st = filter.AddStage(options.initial_capacity); !st.ok()) return st.error();
  return filter;
}

Status ScalableBloomFilter::AddStage(std::uint64_t initial_capacity) {
  using internal::MakeError;
  const std::size_t num_stages = stages_.size();
  if (num_stages != 0 && non_scaling_) {
    return MakeError(ErrorCode::kFull, "non scaling filter is full");
  }
  if (num_stages >= max_stages_) {
    return MakeError(ErrorCode::kTooLarge, "scalable filter reached its limit of ", max_stages_,
                     " stages (max_stages)");
  }
  ScalableOptions o = options();
  o.initial_capacity = initial_capacity;
  auto target = StageTarget(o, static_cast<std::uint32_t>(num_stages));
  if (!target.ok()) return target.error();
  // Each stage has r times the previous one's rate, so a chain that grows long enough
  // reaches a rate no stage can have (more than 64 hashes: stage 63 at error rate 0.5,
  // expansion 1, after 63 items in 664 bytes). The filter is full; it is not too large.
  if (const std::string problem = StageRateProblem(target->capacity, target->fp_rate); !problem.empty()) {
    return MakeError(ErrorCode::kFull, "scalable filter is full at ", count(), " items in ", num_stages,
                     " stages: stage ", num_stages, " would have error rate ", target->fp_rate, " (", tightening_,
                     " times the previous stage's), and ", problem);
  }
  const std::uint64_t used = memory_bytes();
  const std::uint64_t budget = max_memory_bytes_ > used ? max_memory_bytes_ - used : 0;
  auto stage = CreateStage(target->capacity, target->fp_rate, budget, whole_words_);
  Status added = stage.ok() ? AppendStage(std::move(stage).value()) : Status(std::move(stage).error());
  if (!added.ok()) {
    return MakeError(ErrorCode::kTooLarge, "cannot add stage ", num_stages, " (capacity ", target->capacity,
                     ", error rate ", target->fp_rate, ") with ", used, " of ", max_memory_bytes_,
                     " bytes in use: ", added.error().message());
  }
  return {};
}

Result<bool> ScalableBloomFilter::AddIfAbsent(std::string_view key) {
  return AddHashPairIfAbsent(internal::HashKeyInline(key));
}

Result<bool> ScalableBloomFilter::AddHashIfAbsent(std::uint64_t hash) {
  return AddHashPairIfAbsent(ExpandHash(hash));
}

Result<bool> ScalableBloomFilter::AddHashPairIfAbsent(HashPair hash) {
  if (MayContainHashPair(hash)) return false;
  // The stages' counts steer the growth and must sum to the file's count: at the most a
  // filter counts (options.h) the add is refused, not counted past what loads.
  if (const std::uint64_t n = count(); n >= kMaxFileCount) {
    return internal::MakeError(ErrorCode::kFull, "scalable filter is full: it counts ", n,
                               " items, the most a filter keeps (2^63 - 1)");
  }
  if (last_stage().count() >= last_stage().capacity()) {
    if (auto st = AddStage(stages_[0].capacity()); !st.ok()) return st.error();
  }
  // Absent from every stage, so this sets at least one new bit and count() rises by 1.
  last_stage().AddHashPair(hash);
  return true;
}

Status ScalableBloomFilter::Add(std::string_view key) {
  auto added = AddIfAbsent(key);
  if (!added.ok()) return std::move(added).error();
  return {};
}

Status ScalableBloomFilter::AddHash(std::uint64_t hash) {
  auto added = AddHashIfAbsent(hash);
  if (!added.ok()) return std::move(added).error();
  return {};
}

Status ScalableBloomFilter::AddBatch(std::span<const std::string_view> keys) {
  Status status;
  ForEachGroup(
      keys.size(), [&](std::size_t i) { return internal::HashKeyInline(keys[i]); }, *this, true,
      [&](std::size_t, HashPair h) {
        auto added = AddHashPairIfAbsent(h);
        const bool ok = added.ok();
        if (!ok) status = std::move(added).error();
        return ok;
      });
  return status;
}

std::size_t ScalableBloomFilter::AddIfAbsentBatch(std::span<const std::string_view> keys, std::span<bool> added,
                                                  Status* error) {
  std::size_t done = 0;
  ForEachGroup(
      keys.size(), [&](std::size_t i) { return internal::HashKeyInline(keys[i]); }, *this, true,
      [&](std::size_t i, HashPair h) {
        auto result = AddHashPairIfAbsent(h);
        if (!result.ok()) {
          *error = std::move(result).error();
          return false;
        }
        added[i] = result.value();
        done = i + 1;
        return true;
      });
  return done;
}

Status ScalableBloomFilter::AddHashBatch(std::span<const std::uint64_t> hashes) {
  Status status;
  ForEachGroup(
      hashes.size(), [&](std::size_t i) { return ExpandHash(hashes[i]); }, *this, true,
      [&](std::size_t, HashPair h) {
        auto added = AddHashPairIfAbsent(h);
        const bool ok = added.ok();
        if (!ok) status = std::move(added).error();
        return ok;
      });
  return status;
}

std::size_t ScalableBloomFilter::MayContainBatch(std::span<const std::string_view> keys,
                                                 std::span<bool> out) const noexcept {
  std::size_t found = 0;
  ForEachGroup(
      keys.size(), [&](std::size_t i) { return internal::HashKeyInline(keys[i]); }, *this, false,
      [&](std::size_t i, HashPair h) {
        out[i] = MayContainHashPair(h);
        found += out[i] ? 1U : 0U;
        return true;
      });
  return found;
}

std::size_t ScalableBloomFilter::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                                     std::span<bool> out) const noexcept {
  std::size_t found = 0;
  ForEachGroup(
      hashes.size(), [&](std::size_t i) { return ExpandHash(hashes[i]); }, *this, false,
      [&](std::size_t i, HashPair h) {
        out[i] = MayContainHashPair(h);
        found += out[i] ? 1U : 0U;
        return true;
      });
  return found;
}

bool ScalableBloomFilter::MayContain(std::string_view key) const noexcept {
  return MayContainHashPair(internal::HashKeyInline(key));
}

bool ScalableBloomFilter::MayContainHash(std::uint64_t hash) const noexcept {
  return MayContainHashPair(ExpandHash(hash));
}

bool ScalableBloomFilter::MayContainHashPair(HashPair hash) const noexcept {
  // Newest first: the last stage holds about half of all keys (s = 2).
  for (std::size_t i = stages_.size(); i-- > 0;) {
    if (stages_[i].MayContainHashPair(hash)) return true;
  }
  return false;
}

Status ScalableBloomFilter::Merge(const ScalableBloomFilter& other) {
  const ScalableOptions a = options();
  const ScalableOptions b = other.options();
  if (a.initial_capacity != b.initial_capacity || a.fp_rate != b.fp_rate || a.expansion != b.expansion ||
      a.tightening != b.tightening || a.non_scaling != b.non_scaling || num_stages() != other.num_stages()) {
    return internal::MakeError(ErrorCode::kIncompatible, "cannot merge scalable filters with different options or ",
                               "stage counts (", num_stages(), " and ", other.num_stages(), " stages)");
  }
  for (std::size_t i = 0; i < stages_.size(); ++i) {
    auto st = stages_[i].Merge(other.stages_[i]);
    CapCounts();
    if (!st.ok()) return st;
  }
  return {};
}

void ScalableBloomFilter::CapCounts() noexcept {
  std::uint64_t left = kMaxFileCount;
  for (BloomFilter& stage : stages_) {
    const std::uint64_t count = std::min(stage.count(), left);
    if (count != stage.count()) SetCount(stage, count);
    left -= count;
  }
}

Status ScalableBloomFilter::MergeFrom(FilterReader& reader) {
  using internal::MakeError;
  const FileHeader& h = reader.header();
  if (h.kind != kKind) {
    return MakeError(ErrorCode::kWrongKind, "holds a ", FilterKindName(h.kind), " filter, not a ",
                     FilterKindName(kKind), " one");
  }
  // Merge's checks on the header's options, then each stage as Deserialize checks it,
  // with the stage's words OR-ed into this filter's stage as they are read.
  const ScalableOptions a = options();
  if (h.params[1] != a.initial_capacity || h.fp_rate != a.fp_rate || h.params[2] != a.expansion ||
      h.params[3] != std::bit_cast<std::uint64_t>(a.tightening) || h.params[4] != (a.non_scaling ? 0 : kFlagScaling) ||
      h.params[0] != stages_.size()) {
    return MakeError(ErrorCode::kIncompatible, "cannot merge scalable filters with different options or ",
                     "stage counts (", stages_.size(), " and ", h.params[0], " stages)");
  }
  const ByteSource payload = reader.payload();
  std::uint64_t rest = h.payload_bytes;
  for (std::size_t i = 0; i < stages_.size(); ++i) {
    BloomFilter& stage = stages_[i];
    auto nested = [&](const Error& e) {
      return MakeError(e.code() == ErrorCode::kIncompatible ? ErrorCode::kIncompatible : ErrorCode::kParameterMismatch,
                       "stage ", i, " of ", stages_.size(), ": ", e.message());
    };
    if (rest < kHeaderBytes + kChecksumBytes) {
      return MakeError(ErrorCode::kParameterMismatch, "payload ends before stage ", i, " of ", stages_.size());
    }
    std::array<std::byte, kHeaderBytes> head{};
    if (Status st = payload(head); !st.ok()) return st;
    auto stage_header = internal::DecodeHeader(head);
    if (!stage_header.ok()) return nested(stage_header.error());
    const FileHeader& sh = stage_header.value();
    if (sh.kind != FilterKind::kClassic || (sh.flags & kFlagZstdPayload) != 0) {
      return MakeError(ErrorCode::kParameterMismatch, "stage ", i, " is not an uncompressed classic filter");
    }
    const std::uint64_t stage_bytes = kHeaderBytes + sh.stored_payload_bytes + kChecksumBytes;
    if (stage_bytes > rest) {
      return MakeError(ErrorCode::kParameterMismatch, "stage ", i, " announces ", stage_bytes, " bytes, only ", rest,
                       " left in the payload");
    }
    auto st = internal::CombineWords("merge", "filters", {stage.num_bits(), stage.num_hashes()},
                                     {sh.params[0], static_cast<std::uint32_t>(std::min<std::uint64_t>(
                                                        sh.params[1], std::numeric_limits<std::uint32_t>::max()))},
                                     {}, {}, internal::WordOp::kOr);
    if (!st.ok()) return nested(st.error());
    if (sh.payload_bytes != stage.memory_bytes() || sh.capacity != stage.capacity() || sh.fp_rate != stage.fp_rate() ||
        sh.count > kMaxFileCount) {
      return MakeError(ErrorCode::kParameterMismatch, "stage ", i, " has ", sh.payload_bytes, " bytes, capacity ",
                       sh.capacity, ", error rate ", sh.fp_rate, " and count ", sh.count, ", this filter's has ",
                       stage.memory_bytes(), " bytes, capacity ", stage.capacity(), " and error rate ",
                       stage.fp_rate());
    }
    for (std::size_t j = 2; j < kNumHeaderParams; ++j) {
      if (sh.params[j] != 0) {
        return MakeError(ErrorCode::kReservedNonZero, "stage ", i, ": unused parameter ", j, " is not zero");
      }
    }
    XXH3_state_t state;
    (void)XXH3_64bits_reset(&state);
    (void)XXH3_64bits_update(&state, head.data(), head.size());
    auto hashed = [&](std::span<std::byte> out) -> Status {
      Status got = payload(out);
      if (got.ok()) (void)XXH3_64bits_update(&state, out.data(), out.size());
      return got;
    };
    st = internal::OrWordsFromSource(ByteSource(hashed), stage.bits().mutable_words(), stage.num_bits());
    // The count also after an error: the bits OR-ed so far are in.
    SetCount(stage, std::min(stage.EstimatedCount(), kMaxFileCount));
    CapCounts();
    if (!st.ok()) return nested(st.error());
    std::array<std::byte, kChecksumBytes> sum{};
    if (st = payload(sum); !st.ok()) return st;
    if (internal::LoadLE<std::uint64_t>(sum.data()) != XXH3_64bits_digest(&state)) {
      return nested(MakeError(ErrorCode::kChecksumMismatch, "checksum mismatch (file is corrupt or truncated)"));
    }
    const std::uint64_t padded = AlignUp64(stage_bytes);
    if (padded > rest) return MakeError(ErrorCode::kParameterMismatch, "stage ", i, " is not padded to 64 bytes");
    std::array<std::byte, 64> padding{};
    if (st = payload(std::span(padding.data(), static_cast<std::size_t>(padded - stage_bytes))); !st.ok()) return st;
    if (std::ranges::any_of(padding, [](std::byte b) { return b != std::byte{0}; })) {
      return MakeError(ErrorCode::kReservedNonZero, "padding after stage ", i, " is not zero");
    }
    rest -= padded;
  }
  return reader.Finish();
}

void ScalableBloomFilter::Clear() noexcept {
  // Back to one stage, in a table of one when there is memory for it (and in the old,
  // larger one otherwise).
  stages_.erase(stages_.begin() + 1, stages_.end());
  try {
    stages_.shrink_to_fit();
  } catch (const std::bad_alloc&) {  // NOLINT(bugprone-empty-catch): the larger table stays
  }
  stages_[0].Clear();
}

std::uint64_t ScalableBloomFilter::count() const noexcept {
  std::uint64_t total = 0;
  for (const BloomFilter& s : stages()) total += s.count();
  return total;
}

std::uint64_t ScalableBloomFilter::capacity() const noexcept {
  std::uint64_t total = 0;
  for (const BloomFilter& s : stages()) total += s.capacity();
  return total;
}

std::uint64_t ScalableBloomFilter::memory_bytes() const noexcept {
  std::uint64_t total = 0;
  for (const BloomFilter& s : stages()) total += s.memory_bytes();
  return total;
}

std::uint64_t ScalableBloomFilter::bytes_held() const noexcept {
  std::uint64_t total = stages_.get_allocator().held(stages_.data(), stages_.capacity());
  for (const BloomFilter& s : stages()) total += s.bytes_held();
  return total;
}

std::uint64_t ScalableBloomFilter::num_bits() const noexcept {
  std::uint64_t total = 0;
  for (const BloomFilter& s : stages()) total += s.num_bits();
  return total;
}

double ScalableBloomFilter::FillRatio() const noexcept {
  std::uint64_t set_bits = 0;
  for (const BloomFilter& s : stages()) set_bits += s.CountSetBits();
  const std::uint64_t bits = num_bits();
  return bits == 0 ? 0.0 : static_cast<double>(set_bits) / static_cast<double>(bits);
}

std::uint64_t ScalableBloomFilter::EstimatedCount() const noexcept {
  std::uint64_t total = 0;
  for (const BloomFilter& s : stages()) {
    if (!internal::CheckedAdd(total, s.EstimatedCount(), &total)) return std::numeric_limits<std::uint64_t>::max();
  }
  return total;
}

std::vector<StageInfo> ScalableBloomFilter::StageInfos() const {
  std::vector<StageInfo> out;
  out.reserve(stages_.size());
  for (const BloomFilter& s : stages()) {
    out.push_back({.capacity = s.capacity(),
                   .count = s.count(),
                   .num_bits = s.num_bits(),
                   .num_hashes = s.num_hashes(),
                   .fp_rate = s.fp_rate(),
                   .memory_bytes = s.memory_bytes()});
  }
  return out;
}

double ScalableBloomFilter::EstimatedFpRate() const noexcept {
  double pass = 1.0;
  for (const BloomFilter& s : stages()) pass *= 1.0 - s.EstimatedFpRate();
  return 1.0 - pass;
}

double ScalableBloomFilter::ExpectedFpRate() const noexcept {
  double pass = 1.0;
  for (const BloomFilter& s : stages()) pass *= 1.0 - s.fp_rate();
  return 1.0 - pass;
}

bool operator==(const ScalableBloomFilter& a, const ScalableBloomFilter& b) noexcept {
  const ScalableOptions x = a.options();
  const ScalableOptions y = b.options();
  return x.initial_capacity == y.initial_capacity && x.fp_rate == y.fp_rate && x.expansion == y.expansion &&
         x.tightening == y.tightening && x.non_scaling == y.non_scaling && x.max_stages == y.max_stages &&
         std::ranges::equal(a.stages(), b.stages());
}

// Header: capacity = sum of stage capacities, count = sum of stage counts, fp_rate = p.
// params[0] = num_stages, [1] = initial_capacity, [2] = expansion, [3] = tightening as
// IEEE-754 binary64 bits, [4] = flags (bit 0: scaling), [5] = max_stages.
// Payload: per stage, a complete uncompressed classic-filter file (kind 1) followed by
// zero bytes up to the next multiple of 64.
std::vector<std::byte> ScalableBloomFilter::Serialize(const SaveOptions& options) const {
  return internal::CollectFile([this](ByteSink sink) { return SerializeTo(sink); }, options);
}

bool ScalableBloomFilter::SerializeTo(ByteSink sink) const noexcept {
  std::uint64_t payload = 0;
  for (const BloomFilter& s : stages()) payload += AlignUp64(kHeaderBytes + s.memory_bytes() + kChecksumBytes);
  FileHeader header;
  header.kind = kKind;
  header.capacity = capacity();
  header.count = count();
  header.fp_rate = fp_rate_;
  header.payload_bytes = payload;
  header.params[0] = stages_.size();
  header.params[1] = stages_[0].capacity();
  header.params[2] = expansion_;
  header.params[3] = std::bit_cast<std::uint64_t>(tightening_);
  header.params[4] = non_scaling_ ? 0 : kFlagScaling;
  header.params[5] = max_stages_;
  internal::FileStream out(sink);
  if (!out.Begin(header)) return false;
  // Each stage streams through `out`, which hashes it into the outer checksum.
  auto into_outer = [&out](std::span<const std::byte> piece) noexcept { return out.Put(piece); };
  for (const BloomFilter& s : stages()) {
    const std::uint64_t stage_bytes = kHeaderBytes + s.memory_bytes() + kChecksumBytes;
    if (!s.SerializeTo(ByteSink(into_outer)) || !out.PutZeros(AlignUp64(stage_bytes) - stage_bytes)) return false;
  }
  return out.Finish();
}

Result<ScalableBloomFilter> ScalableBloomFilter::Deserialize(std::span<const std::byte> bytes,
                                                             const LoadOptions& options) {
  auto reader = FilterReader::OpenBytes(bytes, kKind, options.max_memory_bytes);
  if (!reader.ok()) return std::move(reader).error();
  return reader->Load<ScalableBloomFilter>(options);
}

Result<ScalableBloomFilter> ScalableBloomFilter::Deserialize(const FileHeader& h, ByteSource payload,
                                                             const LoadOptions& options) {
  using internal::MakeError;
  ScalableOptions o;
  o.fp_rate = h.fp_rate;
  o.initial_capacity = h.params[1];
  if (h.params[2] > std::numeric_limits<std::uint32_t>::max()) {
    return MakeError(ErrorCode::kParameterMismatch, "expansion ", h.params[2], " is not a 32-bit value");
  }
  o.expansion = static_cast<std::uint32_t>(h.params[2]);
  o.tightening = std::bit_cast<double>(h.params[3]);
  if ((h.params[4] & ~kFlagScaling) != 0) {
    return MakeError(ErrorCode::kReservedNonZero, "unknown scalable flag bits 0x", std::hex, h.params[4]);
  }
  o.non_scaling = (h.params[4] & kFlagScaling) == 0;
  if (h.params[5] > kMaxScalableStages) {
    return MakeError(ErrorCode::kParameterMismatch, "max_stages ", h.params[5], " is not in [1, ", kMaxScalableStages,
                     "]");
  }
  o.max_stages = static_cast<std::uint32_t>(h.params[5]);
  o.max_memory_bytes = options.max_memory_bytes;
  if (auto st = ValidateOptions(o); !st.ok()) return Error(ErrorCode::kParameterMismatch, st.error().message());
  const std::uint64_t num_stages = h.params[0];
  if (num_stages == 0 || num_stages > o.max_stages || (o.non_scaling && num_stages != 1)) {
    return MakeError(ErrorCode::kParameterMismatch, "number of stages ", num_stages, " is not in [1, ",
                     o.non_scaling ? 1 : o.max_stages, "]");
  }

  ScalableBloomFilter filter(o);
  try {
    filter.stages_.reserve(static_cast<std::size_t>(num_stages));  // filled in order below
  } catch (const std::bad_alloc&) {
    return MakeError(ErrorCode::kTooLarge, "out of memory for ", num_stages, " stages");
  }
  std::uint64_t rest = h.payload_bytes;  // payload bytes not yet read
  std::uint64_t total_count = 0;
  std::uint64_t total_capacity = 0;
  std::uint64_t memory_left = options.max_memory_bytes;
  auto first = StageTarget(o, 0);
  if (!first.ok()) return Error(ErrorCode::kParameterMismatch, first.error().message());
  StageInfo target = first.value();
  for (std::uint32_t i = 0; i < num_stages; ++i) {
    // The stage's own header says how long it is; check that before reading it. A
    // stage that is inconsistent after the outer checksum passed was crafted: its
    // errors are the outer file's parameter errors (except the memory limit).
    auto nested = [&](const Error& e) {
      return MakeError(e.code() == ErrorCode::kTooLarge ? ErrorCode::kTooLarge : ErrorCode::kParameterMismatch,
                       "stage ", i, " of ", num_stages, ": ", e.message());
    };
    if (rest < kHeaderBytes + kChecksumBytes) {
      return MakeError(ErrorCode::kParameterMismatch, "payload ends before stage ", i, " of ", num_stages);
    }
    std::array<std::byte, kHeaderBytes> head{};
    if (Status st = payload(head); !st.ok()) return std::move(st).error();
    auto stage_header = internal::DecodeHeader(head);
    if (!stage_header.ok()) return nested(stage_header.error());
    const FileHeader& sh = stage_header.value();
    if ((sh.flags & kFlagZstdPayload) != 0) {
      return MakeError(ErrorCode::kParameterMismatch, "stage ", i, " is compressed inside the payload");
    }
    const std::uint64_t stage_bytes = kHeaderBytes + sh.stored_payload_bytes + kChecksumBytes;
    if (stage_bytes > rest) {
      return MakeError(ErrorCode::kParameterMismatch, "stage ", i, " announces ", stage_bytes, " bytes, only ", rest,
                       " left in the payload");
    }
    // The checks a stage's own load makes before it allocates (FilterReader); its
    // checksum is computed as its bits stream into the stage and compared after them.
    if (sh.count > kMaxFileCount) {
      return nested(MakeError(ErrorCode::kParameterMismatch, "count ", sh.count,
                              " is over the largest count a filter keeps, ", kMaxFileCount));
    }
    if (sh.kind != FilterKind::kClassic) {
      return nested(MakeError(ErrorCode::kWrongKind, "holds a ", FilterKindName(sh.kind), " filter, not a ",
                              FilterKindName(FilterKind::kClassic), " one"));
    }
    if (sh.payload_bytes > memory_left) {
      return nested(MakeError(ErrorCode::kTooLarge, "filter needs ", sh.payload_bytes,
                              " bytes, over the memory limit of ", memory_left));
    }
    XXH3_state_t state;
    (void)XXH3_64bits_reset(&state);
    (void)XXH3_64bits_update(&state, head.data(), head.size());
    auto hashed = [&](std::span<std::byte> out) -> Status {
      Status st = payload(out);
      if (st.ok()) (void)XXH3_64bits_update(&state, out.data(), out.size());
      return st;
    };
    auto stage = BloomFilter::Deserialize(sh, ByteSource(hashed));
    if (!stage.ok()) return nested(stage.error());
    std::array<std::byte, kChecksumBytes> sum{};
    if (Status st = payload(sum); !st.ok()) return std::move(st).error();
    if (internal::LoadLE<std::uint64_t>(sum.data()) != XXH3_64bits_digest(&state)) {
      return nested(MakeError(ErrorCode::kChecksumMismatch, "checksum mismatch (file is corrupt or truncated)"));
    }
    // Stage i's target from stage i - 1's, by the multiplications StageTarget makes: a
    // call per stage would repeat them from stage 0, quadratic in the stages announced.
    if (i > 0 && !internal::CheckedMul(target.capacity, o.expansion, &target.capacity)) {
      return MakeError(ErrorCode::kParameterMismatch, "stage ", i, " of a scalable filter with initial capacity ",
                       o.initial_capacity, " and expansion ", o.expansion, " would hold more than 2^64 keys");
    }
    if (i > 0) target.fp_rate *= o.tightening;
    if (stage->capacity() != target.capacity || stage->fp_rate() != target.fp_rate) {
      return MakeError(ErrorCode::kParameterMismatch, "stage ", i, " has capacity ", stage->capacity(),
                       " and error rate ", stage->fp_rate(), ", the options give ", target.capacity, " and ",
                       target.fp_rate);
    }
    const std::uint64_t padded = AlignUp64(stage_bytes);
    std::array<std::byte, 64> padding{};
    const auto padding_bytes = static_cast<std::size_t>(std::min(padded, rest) - stage_bytes);
    if (Status st = payload(std::span(padding.data(), padding_bytes)); !st.ok()) return std::move(st).error();
    for (std::size_t j = 0; j < padding_bytes; ++j) {
      if (padding[j] != std::byte{0}) {
        return MakeError(ErrorCode::kReservedNonZero, "padding after stage ", i, " is not zero");
      }
    }
    if (padded > rest) {
      return MakeError(ErrorCode::kParameterMismatch, "stage ", i, " is not padded to 64 bytes");
    }
    rest -= padded;
    memory_left -= stage->memory_bytes();  // the stage's payload was within memory_left
    if (!internal::CheckedAdd(total_count, stage->count(), &total_count) ||
        !internal::CheckedAdd(total_capacity, stage->capacity(), &total_capacity)) {
      return MakeError(ErrorCode::kParameterMismatch, "stage counts or capacities overflow 64 bits");
    }
    filter.stages_.push_back(std::move(stage).value());  // cannot throw: the room is reserved
  }
  if (rest != 0) {
    return MakeError(ErrorCode::kParameterMismatch, rest, " bytes after the last stage");
  }
  if (total_count != h.count || total_capacity != h.capacity) {
    return MakeError(ErrorCode::kParameterMismatch, "header count ", h.count, " and capacity ", h.capacity,
                     " differ from the stages' ", total_count, " and ", total_capacity);
  }
  return filter;
}

}  // namespace bloomkit
