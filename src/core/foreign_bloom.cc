// SPDX-License-Identifier: Apache-2.0
// Bloom filters of bits-and-blooms/bloom v3, Guava and Parquet (foreign_bloom.h): sizing,
// adds and queries with each library's probes (internal/foreign_murmur.h,
// internal/foreign_parquet.h), merging, Parquet's folding and the bloomkit file form.
// The libraries' own byte layouts are in foreign_layouts.cc.
#include "bloomkit/foreign_bloom.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "bloomkit/format.h"
#include "bloomkit/hash.h"
#include "bloomkit/sizing.h"
#include "internal/codec.h"
#include "internal/filter_common.h"
#include "internal/foreign_murmur.h"
#include "internal/foreign_parquet.h"
#include "internal/foreign_scheme.h"
#include "internal/message.h"

namespace bloomkit {

using internal::BitsAndBloomsBaseHashes;
using internal::ExpandToFour;
using internal::ForEachBitsAndBlooms;
using internal::ForEachGuava;
using internal::kIsGuava;
using internal::kIsParquet;
using internal::kLibrary;
using internal::kMaxHashes;
using internal::MakeError;
using internal::Murmur3Load64;
using internal::Murmur3State;
using internal::ParquetBatch;
using internal::ParquetKeyHash;
using internal::ParquetProbe;

Murmur3Hash128 Murmur3x64_128(std::string_view key, std::uint32_t seed) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(key.data());
  Murmur3State s{seed, seed};
  const std::size_t blocks = key.size() / 16;
  for (std::size_t i = 0; i < blocks; ++i) s.Mix(Murmur3Load64(p + 16 * i), Murmur3Load64(p + 16 * i + 8));
  return s.Finish(p + 16 * blocks, key.size() % 16, key.size());
}

template <typename Scheme>
Result<ForeignBloomFilter<Scheme>> ForeignBloomFilter<Scheme>::Make(std::uint64_t num_bits, std::uint32_t num_hashes,
                                                                    GuavaStrategy strategy, std::uint64_t capacity,
                                                                    double fp_rate, std::uint64_t max_memory_bytes) {
  const std::uint64_t num_words = num_bits / 64 + (num_bits % 64 != 0 ? 1 : 0);
  if (Status st = ValidateMemory(num_words * 8, max_memory_bytes, std::string(kLibrary<Scheme>) + " filter");
      !st.ok()) {
    return st.error();
  }
  ForeignBloomFilter f;
  f.words_ = WordArray::Allocate(num_words);
  if (!f.words_.ok()) return MakeError(ErrorCode::kTooLarge, "out of memory allocating ", num_words * 8, " bytes");
  f.num_bits_ = num_bits;
  f.num_hashes_ = num_hashes;
  f.strategy_ = kIsGuava<Scheme> ? strategy : GuavaStrategy::kMurmur128Mitz32;
  f.capacity_ = std::max<std::uint64_t>(capacity, 1);
  f.fp_rate_ = fp_rate;
  return f;
}

// The statistics the libraries' layouts do not carry: capacity = m ln 2 / k (where k is
// optimal), fp_rate = the formula's rate there, count = the estimate from the fill.
template <typename Scheme>
void ForeignBloomFilter<Scheme>::SetImportedStatistics() noexcept {
  const double n = std::floor(static_cast<double>(num_bits_) * std::log(2.0) / num_hashes_);
  capacity_ = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(n));
  fp_rate_ = ExpectedFpRate();
  if (!(fp_rate_ >= 0 && fp_rate_ < 1)) fp_rate_ = 0;
  count_ = std::min(EstimatedCount(), kMaxFileCount);
}

template <typename Scheme>
Result<ForeignBloomFilter<Scheme>> ForeignBloomFilter<Scheme>::Create(const ForeignBloomOptions& o) {
  const std::uint32_t max_hashes = kMaxHashes<Scheme>;
  if constexpr (kIsParquet<Scheme>) {
    // Explicit: num_bits rounded up to whole 256-bit blocks. From the workload, Arrow's
    // and parquet-mr's OptimalNumOfBits: m = -8 n / ln(1 - p^(1/8)), at least 256 bits,
    // rounded up to a power of two, at most 128 MiB.
    std::uint64_t bits = 0;
    if (o.num_bits != 0 || o.num_hashes != 0) {
      if (o.num_bits == 0 || (o.num_hashes != 0 && o.num_hashes != kParquetNumHashes)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "a Parquet filter needs num_bits >= 1 and sets 8 bits a key, got ", o.num_bits, " bits and ",
                         o.num_hashes, " hashes");
      }
      bits = (o.num_bits + 255) / 256 * 256;
      if (bits / 8 > kMaxParquetBytes) {
        return MakeError(ErrorCode::kInvalidArgument, "num_bits ", o.num_bits, " is over Parquet's limit of ",
                         kMaxParquetBytes * 8, " (numBytes is an i32)");
      }
    } else {
      if (o.capacity == 0) return MakeError(ErrorCode::kInvalidArgument, "capacity must be at least 1, got 0");
      if (!(o.fp_rate > 0 && o.fp_rate < 1)) {
        return MakeError(ErrorCode::kInvalidArgument, "error rate must be in (0, 1), got ", o.fp_rate);
      }
      constexpr std::uint64_t kMaxBits = std::uint64_t{128} << 23;  // 128 MiB
      const double m = -8.0 * static_cast<double>(o.capacity) / std::log(1 - std::pow(o.fp_rate, 1.0 / 8));
      bits = m < 0 || m > static_cast<double>(kMaxBits) ? kMaxBits : static_cast<std::uint64_t>(m);
      bits = std::max<std::uint64_t>(bits, 256);
      bits = std::min(std::bit_ceil(bits), kMaxBits);
    }
    const std::uint64_t capacity =
        o.capacity != 0 ? o.capacity : static_cast<std::uint64_t>(static_cast<double>(bits) * std::log(2.0) / 8);
    auto f = Make(bits, kParquetNumHashes, GuavaStrategy::kMurmur128Mitz32, capacity, 0, o.max_memory_bytes);
    if (f.ok()) {
      const double rate = f->ExpectedFpRate();
      f->fp_rate_ = o.num_bits == 0 ? o.fp_rate : (rate >= 0 && rate < 1 ? rate : 0);
    }
    return f;
  }
  if (o.num_bits != 0 || o.num_hashes != 0) {
    if (o.num_bits == 0 || o.num_hashes == 0 || o.num_hashes > max_hashes) {
      return MakeError(ErrorCode::kInvalidArgument, "explicit sizing needs num_bits >= 1 and num_hashes in [1, ",
                       max_hashes, "], got ", o.num_bits, " bits and ", o.num_hashes, " hashes");
    }
    std::uint64_t bits = o.num_bits;
    if constexpr (kIsGuava<Scheme>) {
      if (bits > kMaxGuavaWords * 64) {
        return MakeError(ErrorCode::kInvalidArgument, "num_bits ", bits, " is over Guava's limit of ",
                         kMaxGuavaWords * 64, " (2^31 - 1 words)");
      }
      bits = (bits + 63) / 64 * 64;
    }
    const double capacity =
        o.capacity != 0 ? static_cast<double>(o.capacity) : static_cast<double>(bits) * std::log(2.0) / o.num_hashes;
    auto f = Make(bits, o.num_hashes, o.guava_strategy, static_cast<std::uint64_t>(capacity), 0, o.max_memory_bytes);
    if (f.ok()) {
      const double rate = ClassicFpRate(static_cast<double>(bits), static_cast<double>(f->capacity_), o.num_hashes);
      f->fp_rate_ = rate >= 0 && rate < 1 ? rate : 0;
    }
    return f;
  }
  if (o.capacity == 0 && !kIsGuava<Scheme>) {
    return MakeError(ErrorCode::kInvalidArgument, "capacity must be at least 1, got 0");
  }
  if (!(o.fp_rate > 0 && o.fp_rate < 1)) {
    return MakeError(ErrorCode::kInvalidArgument, "error rate must be in (0, 1), got ", o.fp_rate);
  }
  const double ln2 = std::log(2.0);
  const double n = static_cast<double>(std::max<std::uint64_t>(o.capacity, 1));
  const double bits_wanted = -n * std::log(o.fp_rate) / (ln2 * ln2);
  if constexpr (kIsGuava<Scheme>) {
    // BloomFilter.create: (long) (-n ln p / ln2^2) bits, k = max(1, round(-ln p / ln 2)).
    const double k = std::max(1.0, std::floor(-std::log(o.fp_rate) / ln2 + 0.5));
    if (bits_wanted >= static_cast<double>(kMaxGuavaWords * 64) || k > kMaxGuavaNumHashes) {
      return MakeError(ErrorCode::kTooLarge, "capacity ", o.capacity, " at error rate ", o.fp_rate, " needs ",
                       bits_wanted, " bits and ", k, " hashes, over Guava's limits (", kMaxGuavaWords * 64, " bits, ",
                       kMaxGuavaNumHashes, " hashes)");
    }
    const auto bits = static_cast<std::uint64_t>(bits_wanted);
    if (bits == 0) return MakeError(ErrorCode::kInvalidArgument, "capacity ", o.capacity, " gives 0 bits");
    return Make((bits + 63) / 64 * 64, static_cast<std::uint32_t>(k), o.guava_strategy, o.capacity, o.fp_rate,
                o.max_memory_bytes);
  } else {
    // EstimateParameters: m = ceil(-n ln p / ln2^2), k = ceil(ln 2 m / n).
    const double m = std::ceil(bits_wanted);
    if (m >= 1.8e19) {
      return MakeError(ErrorCode::kTooLarge, "capacity ", o.capacity, " at error rate ", o.fp_rate, " needs ", m,
                       " bits");
    }
    const double k = std::ceil(ln2 * m / n);
    if (k < 1 || k > kMaxBitsAndBloomsNumHashes) {
      return MakeError(ErrorCode::kInvalidArgument, "capacity ", o.capacity, " at error rate ", o.fp_rate, " gives ", k,
                       " hashes, not in [1, ", kMaxBitsAndBloomsNumHashes, "]");
    }
    return Make(std::max<std::uint64_t>(1, static_cast<std::uint64_t>(m)), static_cast<std::uint32_t>(k),
                GuavaStrategy::kMurmur128Mitz32, o.capacity, o.fp_rate, o.max_memory_bytes);
  }
}

template <typename Scheme>
bool ForeignBloomFilter<Scheme>::InsertKey(std::string_view key) noexcept {
  std::uint64_t* w = words_.data();
  bool fresh = false;
  auto set = [w, &fresh](std::uint64_t bit) {
    const std::uint64_t mask = std::uint64_t{1} << (bit % 64);
    fresh |= (w[bit / 64] & mask) == 0;
    w[bit / 64] |= mask;
    return true;
  };
  if constexpr (kIsParquet<Scheme>) {
    fresh = ParquetProbe<true>(w, num_bits_, ParquetKeyHash(key));
  } else if constexpr (kIsGuava<Scheme>) {
    const Murmur3Hash128 h = Murmur3x64_128(key);
    ForEachGuava(h.h1, h.h2, strategy_, num_bits_, num_hashes_, set);
  } else {
    ForEachBitsAndBlooms(BitsAndBloomsBaseHashes(key), num_bits_, num_hashes_, set);
  }
  count_ = internal::SaturatedIncrement(count_, fresh);
  return fresh;
}

template <typename Scheme>
bool ForeignBloomFilter<Scheme>::InsertHash(std::uint64_t hash) noexcept {
  std::uint64_t* w = words_.data();
  bool fresh = false;
  auto set = [w, &fresh](std::uint64_t bit) {
    const std::uint64_t mask = std::uint64_t{1} << (bit % 64);
    fresh |= (w[bit / 64] & mask) == 0;
    w[bit / 64] |= mask;
    return true;
  };
  const std::array<std::uint64_t, 4> h = ExpandToFour(hash);
  if constexpr (kIsParquet<Scheme>) {
    fresh = ParquetProbe<true>(w, num_bits_, hash);  // Parquet's hash is the caller's: XXH64 of the value
  } else if constexpr (kIsGuava<Scheme>) {
    ForEachGuava(h[0], h[1], strategy_, num_bits_, num_hashes_, set);
  } else {
    ForEachBitsAndBlooms(h, num_bits_, num_hashes_, set);
  }
  count_ = internal::SaturatedIncrement(count_, fresh);
  return fresh;
}

template <typename Scheme>
bool ForeignBloomFilter<Scheme>::MayContain(std::string_view key) const noexcept {
  const std::uint64_t* w = words_.data();
  auto test = [w](std::uint64_t bit) { return ((w[bit / 64] >> (bit % 64)) & 1) != 0; };
  if constexpr (kIsParquet<Scheme>) {
    return ParquetProbe<false>(const_cast<std::uint64_t*>(w), num_bits_, ParquetKeyHash(key));
  } else if constexpr (kIsGuava<Scheme>) {
    const Murmur3Hash128 h = Murmur3x64_128(key);
    return ForEachGuava(h.h1, h.h2, strategy_, num_bits_, num_hashes_, test);
  } else {
    return ForEachBitsAndBlooms(BitsAndBloomsBaseHashes(key), num_bits_, num_hashes_, test);
  }
}

template <typename Scheme>
bool ForeignBloomFilter<Scheme>::MayContainHash(std::uint64_t hash) const noexcept {
  const std::uint64_t* w = words_.data();
  auto test = [w](std::uint64_t bit) { return ((w[bit / 64] >> (bit % 64)) & 1) != 0; };
  const std::array<std::uint64_t, 4> h = ExpandToFour(hash);
  if constexpr (kIsParquet<Scheme>) {
    return ParquetProbe<false>(const_cast<std::uint64_t*>(w), num_bits_, hash);
  } else if constexpr (kIsGuava<Scheme>) {
    return ForEachGuava(h[0], h[1], strategy_, num_bits_, num_hashes_, test);
  } else {
    return ForEachBitsAndBlooms(h, num_bits_, num_hashes_, test);
  }
}

template <typename Scheme>
Done ForeignBloomFilter<Scheme>::AddBatch(std::span<const std::string_view> keys) noexcept {
  if constexpr (kIsParquet<Scheme>) {
    const std::size_t fresh = ParquetBatch<true>(
        words_.data(), num_bits_, keys.size(), [&](std::size_t i) { return ParquetKeyHash(keys[i]); }, nullptr);
    count_ = internal::SaturatedCount(count_, fresh);
    return {};
  }
  for (std::string_view key : keys) InsertKey(key);
  return {};
}

template <typename Scheme>
Done ForeignBloomFilter<Scheme>::AddHashBatch(std::span<const std::uint64_t> hashes) noexcept {
  if constexpr (kIsParquet<Scheme>) {
    const std::size_t fresh = ParquetBatch<true>(
        words_.data(), num_bits_, hashes.size(), [&](std::size_t i) { return hashes[i]; }, nullptr);
    count_ = internal::SaturatedCount(count_, fresh);
    return {};
  }
  for (std::uint64_t hash : hashes) InsertHash(hash);
  return {};
}

template <typename Scheme>
std::size_t ForeignBloomFilter<Scheme>::MayContainBatch(std::span<const std::string_view> keys,
                                                        std::span<bool> out) const noexcept {
  if constexpr (kIsParquet<Scheme>) {
    return ParquetBatch<false>(
        const_cast<std::uint64_t*>(words_.data()), num_bits_, keys.size(),
        [&](std::size_t i) { return ParquetKeyHash(keys[i]); }, out.data());
  }
  std::size_t found = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out[i] = MayContain(keys[i]);
    found += out[i] ? 1U : 0U;
  }
  return found;
}

template <typename Scheme>
std::size_t ForeignBloomFilter<Scheme>::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                                            std::span<bool> out) const noexcept {
  if constexpr (kIsParquet<Scheme>) {
    return ParquetBatch<false>(
        const_cast<std::uint64_t*>(words_.data()), num_bits_, hashes.size(), [&](std::size_t i) { return hashes[i]; },
        out.data());
  }
  std::size_t found = 0;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    out[i] = MayContainHash(hashes[i]);
    found += out[i] ? 1U : 0U;
  }
  return found;
}

template <typename Scheme>
void ForeignBloomFilter<Scheme>::Clear() noexcept {
  std::fill(words_.span().begin(), words_.span().end(), 0);
  count_ = 0;
}

template <typename Scheme>
Status ForeignBloomFilter<Scheme>::Merge(const ForeignBloomFilter& other) {
  if (strategy_ != other.strategy_) {
    return MakeError(ErrorCode::kIncompatible, "cannot merge Guava filters of strategies ", static_cast<int>(strategy_),
                     " and ", static_cast<int>(other.strategy_), ": both need the same strategy");
  }
  Status st = internal::CombineWords("merge", FilterKindName(kKind), {num_bits_, num_hashes_},
                                     {other.num_bits_, other.num_hashes_}, words_.span(), other.words_.span(),
                                     internal::WordOp::kOr);
  if (st.ok()) count_ = std::min(EstimatedCount(), kMaxFileCount);
  return st;
}

template <typename Scheme>
Status ForeignBloomFilter<Scheme>::MergeFrom(FilterReader& reader) {
  const FileHeader& h = reader.header();
  if (h.kind != kKind) {
    return MakeError(ErrorCode::kWrongKind, "holds a ", FilterKindName(h.kind), " filter, not a ",
                     FilterKindName(kKind), " one");
  }
  if (h.params[2] != static_cast<std::uint64_t>(strategy_)) {
    return MakeError(ErrorCode::kIncompatible, "cannot merge Guava filters of strategies ", static_cast<int>(strategy_),
                     " and ", h.params[2], ": both need the same strategy");
  }
  Status st = internal::CombineWords(
      "merge", FilterKindName(kKind), {num_bits_, num_hashes_},
      {h.params[0], static_cast<std::uint32_t>(std::min<std::uint64_t>(h.params[1], 0xffffffffU))}, {}, {},
      internal::WordOp::kOr);
  if (!st.ok()) return st;
  for (std::size_t i = 3; i < kNumHeaderParams; ++i) {
    if (h.params[i] != 0) return MakeError(ErrorCode::kReservedNonZero, "unused parameter ", i, " is not zero");
  }
  st = internal::OrWordsFrom(reader, words_.span(), num_bits_);
  count_ = std::min(EstimatedCount(), kMaxFileCount);
  return st;
}

template <typename Scheme>
std::uint64_t ForeignBloomFilter<Scheme>::EstimatedCount() const noexcept {
  return ClassicEstimatedCount(num_bits_, internal::PopCount(words_.data(), words_.num_words()), num_hashes_);
}

template <typename Scheme>
double ForeignBloomFilter<Scheme>::FillRatio() const noexcept {
  return static_cast<double>(internal::PopCount(words_.data(), words_.num_words())) / static_cast<double>(num_bits_);
}

template <typename Scheme>
double ForeignBloomFilter<Scheme>::EstimatedFpRate() const noexcept {
  if constexpr (kIsParquet<Scheme>) return FoldedFpRate(0);
  return std::pow(FillRatio(), num_hashes_);
}

// Block i of a filter folded f times is the OR of blocks i 2^f .. (i + 1) 2^f - 1.
template <typename Scheme>
double ForeignBloomFilter<Scheme>::FoldedFpRate(unsigned folds) const noexcept {
  if constexpr (!kIsParquet<Scheme>) return 1.0;
  const std::uint64_t blocks = num_bits_ / 256;
  if (folds >= 64 || blocks == 0 || blocks % (std::uint64_t{1} << folds) != 0) return 1.0;
  const std::uint64_t group = std::uint64_t{1} << folds;
  const std::uint64_t folded_blocks = blocks / group;  // exact: group divides blocks
  const std::uint64_t* w = words_.data();
  double sum = 0;
  for (std::uint64_t i = 0; i < folded_blocks; ++i) {
    std::array<std::uint64_t, 4> block{};
    for (std::uint64_t j = i * group; j < (i + 1) * group; ++j) {
      for (std::size_t x = 0; x < 4; ++x) block[x] |= w[j * 4 + x];
    }
    double pass = 1.0;
    for (std::uint64_t word : block) {
      pass *= static_cast<double>(std::popcount(word & 0xffffffffU)) / 32.0;
      pass *= static_cast<double>(std::popcount(word >> 32)) / 32.0;
    }
    sum += pass;
  }
  return sum / static_cast<double>(folded_blocks);
}

template <typename Scheme>
unsigned ForeignBloomFilter<Scheme>::FoldsWithin(double fp_rate) const noexcept {
  if constexpr (!kIsParquet<Scheme>) return 0;
  unsigned folds = 0;
  while (folds < 63 && FoldedFpRate(folds + 1) <= fp_rate) ++folds;
  return folds;
}

template <typename Scheme>
Result<ForeignBloomFilter<Scheme>> ForeignBloomFilter<Scheme>::Folded(unsigned folds) const {
  if constexpr (!kIsParquet<Scheme>) {
    return MakeError(ErrorCode::kInvalidArgument, "only Parquet filters fold, not ", kLibrary<Scheme>, " filters");
  }
  const std::uint64_t blocks = num_bits_ / 256;
  if (folds >= 64 || blocks % (std::uint64_t{1} << folds) != 0) {
    return MakeError(ErrorCode::kInvalidArgument, "cannot fold a Parquet filter of ", blocks, " blocks ", folds,
                     " times: 2^", folds, " must divide the number of blocks");
  }
  const std::uint64_t group = std::uint64_t{1} << folds;
  auto f = Make(num_bits_ / group, kParquetNumHashes, GuavaStrategy::kMurmur128Mitz32,
                std::max<std::uint64_t>(count_, 1), 0, std::numeric_limits<std::uint64_t>::max());
  if (!f.ok()) return std::move(f).error();
  const std::uint64_t* from = words_.data();
  std::uint64_t* to = f->words_.data();
  for (std::uint64_t j = 0; j < blocks; ++j) {
    for (std::size_t x = 0; x < 4; ++x) to[(j / group) * 4 + x] |= from[j * 4 + x];
  }
  f->count_ = count_;
  f->fp_rate_ = f->FoldedFpRate(0);
  return f;
}

template <typename Scheme>
double ForeignBloomFilter<Scheme>::ExpectedFpRate() const noexcept {
  if constexpr (kIsParquet<Scheme>) {
    return Lanes256FpRate(num_bits_ / 256, static_cast<double>(capacity_), kParquetNumHashes);
  }
  return ClassicFpRate(static_cast<double>(num_bits_), static_cast<double>(capacity_), num_hashes_);
}

// bloomkit file: params[0] = num_bits, params[1] = num_hashes, params[2] = Guava's
// strategy ordinal (0 for bits-and-blooms); payload as the classic kind's.
template <typename Scheme>
std::vector<std::byte> ForeignBloomFilter<Scheme>::Serialize(const SaveOptions& options) const {
  return internal::CollectFile([this](ByteSink sink) { return SerializeTo(sink); }, options);
}

template <typename Scheme>
bool ForeignBloomFilter<Scheme>::SerializeTo(ByteSink sink) const noexcept {
  FileHeader header;
  header.kind = kKind;
  header.capacity = capacity_;
  header.count = count_;
  header.fp_rate = fp_rate_;
  header.payload_bytes = words_.bytes();
  header.params[0] = num_bits_;
  header.params[1] = num_hashes_;
  header.params[2] = kIsGuava<Scheme> ? static_cast<std::uint64_t>(strategy_) : 0;
  internal::FileStream out(sink);
  return out.Begin(header) && out.PutWords(words_.span()) && out.Finish();
}

template <typename Scheme>
Result<ForeignBloomFilter<Scheme>> ForeignBloomFilter<Scheme>::Deserialize(std::span<const std::byte> bytes,
                                                                           const LoadOptions& options) {
  auto reader = FilterReader::OpenBytes(bytes, kKind, options.max_memory_bytes);
  if (!reader.ok()) return std::move(reader).error();
  return reader->template Load<ForeignBloomFilter>(options);
}

template <typename Scheme>
Result<ForeignBloomFilter<Scheme>> ForeignBloomFilter<Scheme>::Deserialize(const FileHeader& h, ByteSource payload,
                                                                           const LoadOptions& options) {
  const std::uint64_t num_bits = h.params[0];
  const std::uint64_t num_hashes = h.params[1];
  const std::uint32_t max_hashes = kMaxHashes<Scheme>;
  if (num_bits == 0 || (kIsGuava<Scheme> && (num_bits % 64 != 0 || num_bits / 64 > kMaxGuavaWords)) ||
      (kIsParquet<Scheme> && (num_bits % 256 != 0 || num_bits / 8 > kMaxParquetBytes))) {
    return MakeError(ErrorCode::kParameterMismatch, "num_bits ", num_bits, " is not valid for a ",
                     FilterKindName(kKind), " filter",
                     kIsGuava<Scheme>     ? " (a multiple of 64, at most 64 * (2^31 - 1))"
                     : kIsParquet<Scheme> ? " (a multiple of 256, at most 8 * (2^31 - 32))"
                                          : " (at least 1)");
  }
  if (num_hashes == 0 || num_hashes > max_hashes || (kIsParquet<Scheme> && num_hashes != kParquetNumHashes)) {
    return MakeError(ErrorCode::kParameterMismatch, "num_hashes ", num_hashes, " is not in [1, ", max_hashes, "]");
  }
  if (h.params[2] > (kIsGuava<Scheme> ? 1U : 0U)) {
    return MakeError(ErrorCode::kParameterMismatch, "strategy ", h.params[2], " is not ",
                     kIsGuava<Scheme> ? "0 or 1" : "0");
  }
  for (std::size_t i = 3; i < kNumHeaderParams; ++i) {
    if (h.params[i] != 0) return MakeError(ErrorCode::kReservedNonZero, "unused parameter ", i, " is not zero");
  }
  if (h.capacity == 0) return MakeError(ErrorCode::kParameterMismatch, "capacity is 0");
  const std::uint64_t num_words = num_bits / 64 + (num_bits % 64 != 0 ? 1 : 0);
  if (h.payload_bytes != num_words * 8) {
    return MakeError(ErrorCode::kParameterMismatch, "payload of ", h.payload_bytes, " bytes does not match ", num_bits,
                     " bits (", num_words * 8, " bytes)");
  }
  auto f = Make(num_bits, static_cast<std::uint32_t>(num_hashes), static_cast<GuavaStrategy>(h.params[2]), h.capacity,
                h.fp_rate, options.max_memory_bytes);
  if (!f.ok()) return f;
  if (Status st = internal::ReadWordsLE(payload, f->words_.span()); !st.ok()) return std::move(st).error();
  if (num_bits % 64 != 0 && (f->words_.span().back() >> (num_bits % 64)) != 0) {
    return MakeError(ErrorCode::kParameterMismatch, "bits past num_bits are set");
  }
  f->count_ = h.count;
  return f;
}

template class ForeignBloomFilter<internal::BitsAndBloomsScheme>;
template class ForeignBloomFilter<internal::GuavaScheme>;
template class ForeignBloomFilter<internal::ParquetScheme>;

}  // namespace bloomkit
