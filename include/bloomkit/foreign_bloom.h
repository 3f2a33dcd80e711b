// SPDX-License-Identifier: Apache-2.0
// Bloom filters of other libraries, bit for bit: a filter file written by Go's
// bits-and-blooms/bloom (v3) or Java's Guava (com.google.common.hash.BloomFilter) is
// read here, answers every query as that library does (false positives included), takes
// more keys with the library's own probes, and is written back in the library's own
// layout, which the library reads and finds every key in.
//
//   BitsAndBloomsFilter (kind 9, "bits-and-blooms"): bits-and-blooms/bloom v3.
//     Hash: MurmurHash3 x64 128, seed 0, of the key's bytes -> (h0, h1), and of the key's
//     bytes followed by one byte 0x01 -> (h2, h3) (the library's baseHashes). Probe i of k
//     is bit (h[i mod 2] + i * h[2 + ((i + i mod 2) mod 4) / 2]) mod m, 64-bit
//     arithmetic: the second term takes h2, h3, h3, h2 for i mod 4 = 0, 1, 2, 3.
//     Sizing (NewWithEstimates(n, p)): m = ceil(-n ln p / ln(2)^2),
//     k = ceil(ln 2 * m / n). Any m >= 1 (not rounded to words).
//   GuavaBloomFilter (kind 10, "guava"): Guava's BloomFilter of 64-bit words.
//     Hash: MurmurHash3 x64 128, seed 0, of the bytes the funnel puts (h1 = the low 8
//     bytes read little-endian, h2 = the high 8). Strategy MURMUR128_MITZ_64 (ordinal 1,
//     every filter since Guava 12): x = h1; probe i is bit (x & 2^63-1) mod m, then
//     x += h2. MURMUR128_MITZ_32 (ordinal 0): 32-bit a = low half of h1, b = high half;
//     probe i (1..k) is c = a + i b (32-bit wrap), c = ~c if negative, bit c mod m.
//     Sizing (create(funnel, n, p)): bits = floor(-n ln p / ln(2)^2), rounded up to whole
//     64-bit words (m = 64 * words), k = max(1, round(-ln p / ln 2)).
//   ParquetBloomFilter (kind 11, "parquet"): Apache Parquet's split block Bloom filter
//     (parquet-format BloomFilter.md), as parquet-mr, Arrow and every Parquet writer
//     store it in a file. Hash: XXH64, seed 0, of the value's plain encoding (a string
//     or byte array: its bytes with no length; INT32/INT64/FLOAT/DOUBLE: 4 or 8 bytes
//     little-endian). Block b = ((h >> 32) * blocks) >> 32 of 256 bits; lane i of its
//     eight 32-bit lanes gets bit (lo32(h) * salt[i]) >> 27. AddHash(h) takes h as that
//     XXH64 itself (Arrow's InsertHash), so AddHash(XXH64(v, 0)) is Add(v). Sizing
//     (Arrow's and parquet-mr's OptimalNumOfBits): m = -8 n / ln(1 - p^(1/8)), at least
//     256, rounded up to a power of two, at most 128 MiB.
//
// Keys are bytes. For Guava they are the bytes the filter's Funnel writes into the
// hasher (docs/FORMAT.md has the table): Funnels.stringFunnel(UTF_8) -> the string's
// UTF-8 bytes; Funnels.byteArrayFunnel() -> the array; Funnels.longFunnel() -> 8 bytes
// little-endian; Funnels.integerFunnel() -> 4 bytes little-endian;
// Funnels.unencodedCharsFunnel() -> each UTF-16 code unit as 2 bytes little-endian.
// For bits-and-blooms the key is the []byte given to Add (AddString: the string's bytes).
//
// Inside bloomkit they are kinds of the one file format (docs/FORMAT.md, kinds 9, 10 and 11,
// hash ids 5, 6 and 7), so every command (add, query, info, verify, merge) works on them.
// ReadForeign / WriteForeign move them in and out of the library's own layout:
//
//   std::ifstream in("users.bloom", std::ios::binary);         // Go's f.WriteTo(file)
//   auto f = bloomkit::BitsAndBloomsFilter::ReadForeign(in);
//   f->Add("user:42");
//   std::ofstream out("users2.bloom", std::ios::binary);
//   f->WriteForeign(out);                                       // Go's f.ReadFrom(file)
//
// The hash forms (AddHash, MayContainHash) take a caller's 64-bit hash and expand it
// (ExpandHash) into the library's hash words: such keys are bloomkit's alone, the other
// library cannot query them. Contract as every Bloom filter: no false negatives; const
// methods may run concurrently, mutation needs exclusive access; queries are noexcept.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/byte_sink.h"
#include "bloomkit/byte_source.h"
#include "bloomkit/filter.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"
#include "bloomkit/word_array.h"

namespace bloomkit {

struct FileHeader;
class FilterReader;

// MurmurHash3 x64 128 (Austin Appleby's MurmurHash3_x64_128): h1 and h2 as the
// reference implementation returns them (Guava's HashCode bytes are h1 then h2, each
// little-endian). Murmur3x64_128("hello") = {0xcbd8a7b341bd9b02, 0x5b1e906a48ae1d19}.
struct Murmur3Hash128 {
  std::uint64_t h1;
  std::uint64_t h2;
  friend constexpr bool operator==(const Murmur3Hash128&, const Murmur3Hash128&) = default;
};
// Named after the algorithm, MurmurHash3_x64_128.
// NOLINTNEXTLINE(readability-identifier-naming)
Murmur3Hash128 Murmur3x64_128(std::string_view key, std::uint32_t seed = 0) noexcept;

// The hash ids of kinds 9, 10 and 11 in bloomkit files (their seed field is 0).
inline constexpr std::uint16_t kHashIdBitsAndBlooms = 5;
inline constexpr std::uint16_t kHashIdGuava = 6;
inline constexpr std::uint16_t kHashIdParquet = 7;

// Guava's BloomFilterStrategies, by ordinal (the first byte of its writeTo form).
enum class GuavaStrategy : std::uint8_t {
  kMurmur128Mitz32 = 0,
  kMurmur128Mitz64 = 1,  // what BloomFilter.create uses
};

// Limits: Guava keeps k in an unsigned byte and its words in an int-sized array;
// bits-and-blooms has no limit of its own on k, bloomkit takes up to 65,535 probes.
inline constexpr std::uint32_t kMaxGuavaNumHashes = 255;
inline constexpr std::uint64_t kMaxGuavaWords = (std::uint64_t{1} << 31) - 1;
inline constexpr std::uint32_t kMaxBitsAndBloomsNumHashes = 65535;
// Parquet's split block filter sets one bit in each of the eight 32-bit lanes of a
// 256-bit block; its numBytes is an i32 of whole 32-byte blocks.
inline constexpr std::uint32_t kParquetNumHashes = 8;
inline constexpr std::uint64_t kMaxParquetBytes = (std::uint64_t{1} << 31) - 32;

// How to size one: from the workload (capacity = the library's n, fp_rate its p, with
// the library's own formulas above) or explicit (num_bits and num_hashes; Guava rounds
// num_bits up to whole 64-bit words).
struct ForeignBloomOptions {
  std::uint64_t capacity = 0;
  double fp_rate = 0.01;
  std::uint64_t num_bits = 0;
  std::uint32_t num_hashes = 0;
  GuavaStrategy guava_strategy = GuavaStrategy::kMurmur128Mitz64;  // Guava only
  std::uint64_t max_memory_bytes = kDefaultMaxMemoryBytes;
};

namespace internal {
struct BitsAndBloomsScheme;
struct GuavaScheme;
struct ParquetScheme;
}  // namespace internal

// One class for the three libraries: `Scheme` names the library (its kind), from which
// the probes, the sizing and the library's byte layout are chosen at compile time; the
// instantiations are BitsAndBloomsFilter, GuavaBloomFilter and ParquetBloomFilter below.
template <typename Scheme>
class ForeignBloomFilter {
 public:
  using Options = ForeignBloomOptions;
  static constexpr FilterKind kKind = Scheme::kKind;

  static Result<ForeignBloomFilter> Create(const ForeignBloomOptions& options);
  static Result<ForeignBloomFilter> Deserialize(std::span<const std::byte> bytes, const LoadOptions& options = {});
  static Result<ForeignBloomFilter> Deserialize(const FileHeader& header, ByteSource payload,
                                                const LoadOptions& options = {});
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  bool SerializeTo(ByteSink sink) const noexcept;

  // The library's own layout (docs/FORMAT.md): every length is checked against the
  // memory limit, and against the bytes left when the stream can tell (a file), before
  // anything of the filter's size is allocated. Reads exactly the filter's bytes.
  // Errors: kTruncated, kParameterMismatch (k = 0, k or a length past its limit),
  // kUnknownHash (a Guava strategy other than 0 or 1), kTooLarge.
  static Result<ForeignBloomFilter> ReadForeign(std::istream& in, const LoadOptions& options = {});
  static Result<ForeignBloomFilter> ReadForeign(std::span<const std::byte> bytes, const LoadOptions& options = {});
  // Writes the library's layout; kIoError if the stream fails.
  Status WriteForeign(std::ostream& out) const;
  [[nodiscard]] std::vector<std::byte> WriteForeign() const;
  // Bytes WriteForeign writes.
  [[nodiscard]] std::uint64_t foreign_bytes() const noexcept;

  // Never fails: Add, AddHash and the batches return Done (result.h).
  Done Add(std::string_view key) noexcept {
    InsertKey(key);
    return {};
  }
  Result<bool> AddIfAbsent(std::string_view key) noexcept { return InsertKey(key); }
  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;
  Done AddHash(std::uint64_t hash) noexcept {
    InsertHash(hash);
    return {};
  }
  Result<bool> AddHashIfAbsent(std::uint64_t hash) noexcept { return InsertHash(hash); }
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept;
  Done AddBatch(std::span<const std::string_view> keys) noexcept;
  Done AddHashBatch(std::span<const std::uint64_t> hashes) noexcept;
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;
  void Clear() noexcept;

  // Folding, Parquet filters only (other kinds: FoldedFpRate 1, FoldsWithin 0, Folded
  // kInvalidArgument), the way Parquet writers size a filter after the fact (a writer
  // sizes for the most values a column chunk may hold, then folds to what it held). ORing
  // blocks 2i and 2i + 1 of a filter of 2z blocks into block i gives, bit for bit, the
  // filter of z blocks that the same values build: the block of hash h among z blocks,
  // ((h >> 32) z) >> 32, is its block among 2z halved. Each fold halves the bytes.
  //
  // FoldedFpRate(f): the false-positive rate after f folds, as the bits give it exactly:
  // the mean over blocks of the product over the eight lanes of (bits set / 32), the
  // chance that an absent value finds its eight bits set. FoldedFpRate(0) is
  // EstimatedFpRate(). 1 when 2^f does not divide the number of blocks.
  [[nodiscard]] double FoldedFpRate(unsigned folds) const noexcept;
  // The most folds after which FoldedFpRate stays at or below `fp_rate` (0 when even the
  // filter as it is is above it): the smallest filter at that rate. FoldedFpRate grows
  // with every fold, so the search stops at the first fold above the rate.
  [[nodiscard]] unsigned FoldsWithin(double fp_rate) const noexcept;
  // This filter folded `folds` times: count() kept, capacity() the values it holds
  // (count(), at least 1), fp_rate() its FoldedFpRate. kInvalidArgument when 2^folds does
  // not divide the number of blocks; kTooLarge without memory for the copy.
  [[nodiscard]] Result<ForeignBloomFilter> Folded(unsigned folds) const;

  // Union with a filter of the same bits, hashes (and Guava strategy); kIncompatible
  // otherwise. MergeFrom ORs a file's payload in as it is read.
  Status Merge(const ForeignBloomFilter& other);
  Status MergeFrom(FilterReader& reader);

  // Adds that set a new bit (a filter read from the library's layout starts from the
  // estimate of its fill, which the layout does not record).
  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  [[nodiscard]] std::uint64_t EstimatedCount() const noexcept;
  // Keys it was sized for: the capacity given to Create, or for a filter read from the
  // library's layout the n at which its k is optimal, m ln 2 / k.
  [[nodiscard]] std::uint64_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] double fp_rate() const noexcept { return fp_rate_; }
  [[nodiscard]] double ExpectedFpRate() const noexcept;
  [[nodiscard]] double EstimatedFpRate() const noexcept;
  [[nodiscard]] std::uint64_t num_bits() const noexcept { return num_bits_; }
  [[nodiscard]] std::uint32_t num_hashes() const noexcept { return num_hashes_; }
  [[nodiscard]] GuavaStrategy guava_strategy() const noexcept { return strategy_; }
  [[nodiscard]] double FillRatio() const noexcept;
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept { return words_.bytes(); }
  [[nodiscard]] std::uint64_t bytes_held() const noexcept { return words_.bytes_held(); }
  // Bit i is bit i mod 64 of word i / 64, in both libraries.
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return words_.span(); }

  friend bool operator==(const ForeignBloomFilter& a, const ForeignBloomFilter& b) noexcept {
    return a.num_bits_ == b.num_bits_ && a.num_hashes_ == b.num_hashes_ && a.strategy_ == b.strategy_ &&
           a.count_ == b.count_ && a.capacity_ == b.capacity_ && a.fp_rate_ == b.fp_rate_ &&
           std::equal(a.words_.span().begin(), a.words_.span().end(), b.words_.span().begin(), b.words_.span().end());
  }

 private:
  ForeignBloomFilter() = default;
  bool InsertKey(std::string_view key) noexcept;
  bool InsertHash(std::uint64_t hash) noexcept;
  static Result<ForeignBloomFilter> ReadParquet(std::istream& in, std::int64_t left, const LoadOptions& options);
  static Result<ForeignBloomFilter> Make(std::uint64_t num_bits, std::uint32_t num_hashes, GuavaStrategy strategy,
                                         std::uint64_t capacity, double fp_rate, std::uint64_t max_memory_bytes);
  void SetImportedStatistics() noexcept;

  WordArray words_;
  std::uint64_t num_bits_ = 0;
  std::uint32_t num_hashes_ = 0;
  GuavaStrategy strategy_ = GuavaStrategy::kMurmur128Mitz64;
  std::uint64_t count_ = 0;
  std::uint64_t capacity_ = 0;
  double fp_rate_ = 0;

  friend Scheme;
};

using BitsAndBloomsFilter = ForeignBloomFilter<internal::BitsAndBloomsScheme>;
using GuavaBloomFilter = ForeignBloomFilter<internal::GuavaScheme>;
using ParquetBloomFilter = ForeignBloomFilter<internal::ParquetScheme>;

namespace internal {
struct BitsAndBloomsScheme {
  static constexpr FilterKind kKind = FilterKind::kBitsAndBlooms;
};
struct GuavaScheme {
  static constexpr FilterKind kKind = FilterKind::kGuava;
};
struct ParquetScheme {
  static constexpr FilterKind kKind = FilterKind::kParquet;
};
}  // namespace internal

extern template class ForeignBloomFilter<internal::BitsAndBloomsScheme>;
extern template class ForeignBloomFilter<internal::GuavaScheme>;
extern template class ForeignBloomFilter<internal::ParquetScheme>;

static_assert(MergeableFilter<BitsAndBloomsFilter>);
static_assert(MergeableFilter<GuavaBloomFilter>);
static_assert(MergeableFilter<ParquetBloomFilter>);

}  // namespace bloomkit
