// SPDX-License-Identifier: Apache-2.0
// The counting Bloom filter (counting_bloom_filter.h).
#include "bloomkit/counting_bloom_filter.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "bloomkit/sizing.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/filter_common.h"
#include "internal/hash_inline.h"
#include "internal/message.h"

namespace bloomkit {
namespace {

constexpr double kLn2 = 0.69314718055994530942;

// Words holding `num_counters` counters of `counter_bits` bits; false on overflow.
bool WordsFor(std::uint64_t num_counters, std::uint32_t counter_bits, std::uint64_t* words) noexcept {
  const std::uint64_t per_word = 64 / counter_bits;
  *words = num_counters / per_word + (num_counters % per_word != 0 ? 1 : 0);
  std::uint64_t bytes = 0;
  return internal::CheckedMul(*words, 8, &bytes);
}

}  // namespace

CountingBloomFilter::CountingBloomFilter(std::uint64_t num_counters, std::uint32_t num_hashes,
                                         std::uint32_t counter_bits, std::uint64_t capacity, double fp_rate,
                                         WordArray counters) noexcept
    : num_counters_(num_counters),
      num_hashes_(num_hashes),
      counter_bits_(counter_bits),
      capacity_(capacity),
      fp_rate_(fp_rate),
      counters_(std::move(counters)) {}

Result<CountingBloomFilter> CountingBloomFilter::Create(const CountingOptions& options) {
  using internal::MakeError;
  const BloomOptions& bloom = options.bloom;
  if (options.counter_bits != 4 && options.counter_bits != 8) {
    return MakeError(ErrorCode::kInvalidArgument, "counter_bits must be 4 or 8, got ", options.counter_bits);
  }
  // Keys are hashed with id 1 only (the classic positions, which ToBloomFilter relies
  // on): another id is refused rather than quietly replaced.
  if (bloom.hash_id != 0 && bloom.hash_id != kHashIdXxh3DoubleHashing) {
    return MakeError(ErrorCode::kInvalidArgument, "hash id ", bloom.hash_id,
                     " is not 1 (XXH3-128), the only hash of counting filters (0 picks it)");
  }
  std::uint64_t num_counters = 0;
  std::uint32_t num_hashes = 0;
  std::uint64_t capacity = bloom.capacity;
  double fp_rate = bloom.fp_rate;
  if (bloom.num_bits != 0 || bloom.num_hashes != 0) {
    if (auto st = internal::ValidateExplicit(bloom, kMaxNumHashes); !st.ok()) return st.error();
    num_counters = bloom.num_bits;
    num_hashes = bloom.num_hashes;
    if (capacity == 0) {
      capacity = std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(std::round(static_cast<double>(num_counters) * kLn2 / num_hashes)));
    }
    fp_rate = ClassicFpRate(static_cast<double>(num_counters), static_cast<double>(capacity), num_hashes);
  } else {
    // The classic sizing gives the positions; memory is checked below for the counters.
    auto params = CalculateParameters(bloom.capacity, bloom.fp_rate, FilterKind::kClassic,
                                      std::numeric_limits<std::uint64_t>::max() / 8);
    if (!params.ok()) return std::move(params).error();
    num_counters = params->num_bits;
    num_hashes = params->num_hashes;
  }
  std::uint64_t num_words = 0;
  if (!WordsFor(num_counters, options.counter_bits, &num_words)) {
    return MakeError(ErrorCode::kTooLarge, num_counters, " counters overflow a 64-bit byte count");
  }
  if (auto st = ValidateMemory(num_words * 8, bloom.max_memory_bytes, "a counting filter of this size"); !st.ok()) {
    return st.error();
  }
  WordArray counters = WordArray::Allocate(num_words);
  if (!counters.ok()) return MakeError(ErrorCode::kTooLarge, "out of memory allocating ", num_words * 8, " bytes");
  return CountingBloomFilter(num_counters, num_hashes, options.counter_bits, capacity, fp_rate, std::move(counters));
}

// Counters per word are 16 or 8: index >> 4 or >> 3 finds the word, the low bits the
// counter in it (a shift instead of a division on every probe).
std::uint32_t CountingBloomFilter::Get(std::uint64_t index) const noexcept {
  const unsigned per_word_log2 = counter_bits_ == 4 ? 4U : 3U;
  const std::uint64_t word = counters_.data()[index >> per_word_log2];
  const auto shift = static_cast<unsigned>((index & ((1U << per_word_log2) - 1)) * counter_bits_);
  return static_cast<std::uint32_t>((word >> shift) & max_count());
}

void CountingBloomFilter::Set(std::uint64_t index, std::uint32_t value) noexcept {
  const unsigned per_word_log2 = counter_bits_ == 4 ? 4U : 3U;
  std::uint64_t& word = counters_.data()[index >> per_word_log2];
  const auto shift = static_cast<unsigned>((index & ((1U << per_word_log2) - 1)) * counter_bits_);
  const std::uint64_t mask = std::uint64_t{max_count()} << shift;
  word = (word & ~mask) | (std::uint64_t{value} << shift);
}

void CountingBloomFilter::InsertKey(std::string_view key) noexcept {
  AddHashPair(internal::HashKeyInline(key));
}

bool CountingBloomFilter::InsertKeyIfAbsent(std::string_view key) noexcept {
  const HashPair h = internal::HashKeyInline(key);
  if (MayContainHashPair(h)) return false;
  AddHashPair(h);
  return true;
}

bool CountingBloomFilter::InsertHashIfAbsent(std::uint64_t hash) noexcept {
  const HashPair h = ExpandHash(hash);
  if (MayContainHashPair(h)) return false;
  AddHashPair(h);
  return true;
}

Done CountingBloomFilter::AddBatch(std::span<const std::string_view> keys) noexcept {
  for (std::string_view key : keys) AddHashPair(internal::HashKeyInline(key));
  return {};
}

std::size_t CountingBloomFilter::MayContainBatch(std::span<const std::string_view> keys,
                                                 std::span<bool> out) const noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out[i] = MayContainHashPair(internal::HashKeyInline(keys[i]));
    found += out[i] ? 1U : 0U;
  }
  return found;
}

Done CountingBloomFilter::AddHashBatch(std::span<const std::uint64_t> hashes) noexcept {
  for (std::uint64_t hash : hashes) AddHashPair(ExpandHash(hash));
  return {};
}

std::size_t CountingBloomFilter::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                                     std::span<bool> out) const noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    out[i] = MayContainHashPair(ExpandHash(hashes[i]));
    found += out[i] ? 1U : 0U;
  }
  return found;
}

bool CountingBloomFilter::MayContain(std::string_view key) const noexcept {
  return MayContainHashPair(internal::HashKeyInline(key));
}

bool CountingBloomFilter::Remove(std::string_view key) noexcept {
  return RemoveHashPair(internal::HashKeyInline(key));
}

std::uint64_t CountingBloomFilter::Occurrences(std::string_view key) const noexcept {
  return OccurrencesHashPair(internal::HashKeyInline(key));
}

void CountingBloomFilter::AddHashPair(HashPair hash) noexcept {
  const std::uint32_t max = max_count();
  ForEachProbe(hash, num_counters_, num_hashes_, [&](std::uint64_t pos) {
    const std::uint32_t c = Get(pos);
    if (c == max) return true;  // saturated: stays at max forever
    Set(pos, c + 1);
    if (c + 1 == max) ++saturated_counters_;
    return true;
  });
  count_ = internal::SaturatedCount(count_, 1);
}

bool CountingBloomFilter::MayContainHashPair(HashPair hash) const noexcept {
  bool all = true;
  ForEachProbe(hash, num_counters_, num_hashes_, [&](std::uint64_t pos) {
    all = Get(pos) != 0;
    return all;
  });
  return all;
}

bool CountingBloomFilter::RemoveHashPair(HashPair hash) noexcept {
  // Two probes of one key may hit the same counter (probability ~k^2/2m): the key then
  // added 2 to it, and removing it must find at least 2 there. Collect, sort, and check
  // each distinct position against its multiplicity before changing anything.
  std::uint64_t positions[kMaxNumHashes];
  std::uint32_t n = 0;
  ForEachProbe(hash, num_counters_, num_hashes_, [&](std::uint64_t pos) {
    positions[n++] = pos;
    return true;
  });
  std::sort(positions, positions + n);
  const std::uint32_t max = max_count();
  bool any_unsaturated = false;
  for (std::uint32_t i = 0; i < n;) {
    std::uint32_t j = i + 1;
    while (j < n && positions[j] == positions[i]) ++j;
    const std::uint32_t c = Get(positions[i]);
    if (c != max && c < j - i) return false;
    any_unsaturated = any_unsaturated || c != max;
    i = j;
  }
  // Every counter saturated: none can go down, so no occurrence is removed and the key
  // stays present for good (header, "Overflow").
  if (!any_unsaturated) return false;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t c = Get(positions[i]);
    if (c != max) Set(positions[i], c - 1);
  }
  if (count_ > 0) --count_;
  return true;
}

std::uint64_t CountingBloomFilter::OccurrencesHashPair(HashPair hash) const noexcept {
  std::uint32_t least = max_count();
  ForEachProbe(hash, num_counters_, num_hashes_, [&](std::uint64_t pos) {
    least = std::min(least, Get(pos));
    return least != 0;
  });
  return least;
}

void CountingBloomFilter::Clear() noexcept {
  std::fill(counters_.span().begin(), counters_.span().end(), 0);
  count_ = 0;
  saturated_counters_ = 0;
}

Result<BloomFilter> CountingBloomFilter::ToBloomFilter() const {
  auto bloom = BloomFilter::Create({.capacity = capacity_,
                                    .num_bits = num_counters_,
                                    .num_hashes = num_hashes_,
                                    .max_memory_bytes = std::numeric_limits<std::uint64_t>::max(),
                                    .hash_id = kHashIdXxh3DoubleHashing});
  if (!bloom.ok()) return bloom;
  std::uint64_t* bits = bloom->bits().mutable_words().data();
  for (std::uint64_t i = 0; i < num_counters_; ++i) {
    if (Get(i) != 0) bits[i >> 6] |= std::uint64_t{1} << (i & 63);
  }
  return BloomFilter(std::move(bloom->bits()), count_, bloom->capacity(), bloom->fp_rate());
}

std::uint64_t CountingBloomFilter::CountNonZero() const noexcept {
  std::uint64_t nonzero = 0;
  for (std::uint64_t i = 0; i < num_counters_; ++i) nonzero += Get(i) != 0 ? 1U : 0U;
  return nonzero;
}

double CountingBloomFilter::FillRatio() const noexcept {
  return num_counters_ == 0 ? 0.0 : static_cast<double>(CountNonZero()) / static_cast<double>(num_counters_);
}

std::uint64_t CountingBloomFilter::EstimatedCount() const noexcept {
  return ClassicEstimatedCount(num_counters_, CountNonZero(), num_hashes_);
}

double CountingBloomFilter::EstimatedFpRate() const noexcept {
  return std::pow(FillRatio(), num_hashes_);
}

double CountingBloomFilter::ExpectedFpRate() const noexcept {
  return ClassicFpRate(static_cast<double>(num_counters_), static_cast<double>(capacity_), num_hashes_);
}

bool operator==(const CountingBloomFilter& a, const CountingBloomFilter& b) noexcept {
  if (a.num_counters_ != b.num_counters_ || a.num_hashes_ != b.num_hashes_ || a.counter_bits_ != b.counter_bits_ ||
      a.capacity_ != b.capacity_ || a.fp_rate_ != b.fp_rate_ || a.count_ != b.count_ ||
      a.saturated_counters_ != b.saturated_counters_) {
    return false;
  }
  return std::equal(a.counters_.span().begin(), a.counters_.span().end(), b.counters_.span().begin());
}

// Payload: the counter words, little-endian (layout in the header). params[0] =
// num_counters, [1] = num_hashes, [2] = counter_bits, [3] = saturated counters.
std::vector<std::byte> CountingBloomFilter::Serialize(const SaveOptions& options) const {
  return internal::CollectFile([this](ByteSink sink) { return SerializeTo(sink); }, options);
}

bool CountingBloomFilter::SerializeTo(ByteSink sink) const noexcept {
  FileHeader header;
  header.kind = kKind;
  header.capacity = capacity_;
  header.count = count_;
  header.fp_rate = fp_rate_;
  header.payload_bytes = counters_.bytes();
  header.params[0] = num_counters_;
  header.params[1] = num_hashes_;
  header.params[2] = counter_bits_;
  header.params[3] = saturated_counters_;
  internal::FileStream out(sink);
  return out.Begin(header) && out.PutWords(counters_.span()) && out.Finish();
}

Result<CountingBloomFilter> CountingBloomFilter::Deserialize(std::span<const std::byte> bytes,
                                                             const LoadOptions& options) {
  auto reader = FilterReader::OpenBytes(bytes, kKind, options.max_memory_bytes);
  if (!reader.ok()) return std::move(reader).error();
  return reader->Load<CountingBloomFilter>(options);
}

Result<CountingBloomFilter> CountingBloomFilter::Deserialize(const FileHeader& h, ByteSource payload,
                                                             const LoadOptions& /*options*/) {
  using internal::MakeError;
  const std::uint64_t num_counters = h.params[0];
  const std::uint64_t num_hashes = h.params[1];
  const std::uint64_t counter_bits = h.params[2];
  const std::uint64_t saturated = h.params[3];
  if (num_counters == 0) return MakeError(ErrorCode::kParameterMismatch, "num_counters is 0");
  if (num_hashes == 0 || num_hashes > kMaxNumHashes) {
    return MakeError(ErrorCode::kParameterMismatch, "num_hashes ", num_hashes, " is not in [1, ", kMaxNumHashes, "]");
  }
  if (counter_bits != 4 && counter_bits != 8) {
    return MakeError(ErrorCode::kParameterMismatch, "counter_bits ", counter_bits, " is not 4 or 8");
  }
  if (h.hash_id != kHashIdXxh3DoubleHashing) {
    return MakeError(ErrorCode::kUnknownHash, "hash id ", h.hash_id,
                     " is not 1 (XXH3-128), the only hash of counting filters");
  }
  if (h.capacity == 0) return MakeError(ErrorCode::kParameterMismatch, "capacity is 0");
  for (std::size_t i = 4; i < kNumHeaderParams; ++i) {
    if (h.params[i] != 0) return MakeError(ErrorCode::kReservedNonZero, "unused parameter ", i, " is not zero");
  }
  const auto bits = static_cast<std::uint32_t>(counter_bits);
  std::uint64_t num_words = 0;
  if (!WordsFor(num_counters, bits, &num_words) || h.payload_bytes != num_words * 8) {
    return MakeError(ErrorCode::kParameterMismatch, "payload of ", h.payload_bytes, " bytes does not match ",
                     num_counters, " counters of ", counter_bits, " bits");
  }
  if (saturated > num_counters) {
    return MakeError(ErrorCode::kParameterMismatch, saturated, " saturated counters of only ", num_counters);
  }
  WordArray counters = WordArray::Allocate(num_words);
  if (!counters.ok()) return MakeError(ErrorCode::kTooLarge, "out of memory allocating ", h.payload_bytes, " bytes");
  if (Status st = internal::ReadWordsLE(payload, counters.span()); !st.ok()) return std::move(st).error();
  const std::uint64_t per_word = 64 / bits;
  if (num_counters % per_word != 0 && (counters.span().back() >> ((num_counters % per_word) * bits)) != 0) {
    return MakeError(ErrorCode::kParameterMismatch, "counters past num_counters are not zero");
  }
  CountingBloomFilter filter(num_counters, static_cast<std::uint32_t>(num_hashes), bits, h.capacity, h.fp_rate,
                             std::move(counters));
  std::uint64_t found = 0;
  for (std::uint64_t i = 0; i < num_counters; ++i) found += filter.Get(i) == filter.max_count() ? 1U : 0U;
  if (found != saturated) {
    return MakeError(ErrorCode::kParameterMismatch, "header says ", saturated, " saturated counters, payload has ",
                     found);
  }
  filter.count_ = h.count;
  filter.saturated_counters_ = saturated;
  return filter;
}

}  // namespace bloomkit
