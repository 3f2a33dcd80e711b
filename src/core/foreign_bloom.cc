// SPDX-License-Identifier: Apache-2.0
// Bloom filters of bits-and-blooms/bloom v3 and Guava (foreign_bloom.h).
//
// The libraries' own layouts, every integer big-endian:
//
//   bits-and-blooms WriteTo           Guava writeTo
//   +----------------------------+    +-------------------------------+
//   | m            uint64        |    | strategy ordinal   int8       |
//   | k            uint64        |    | k                  uint8      |
//   | bitset bits  uint64 (L)    |    | words              int32 (W)  |
//   | ceil(L/64) words uint64    |    | W words            int64      |
//   +----------------------------+    +-------------------------------+
//
// Bit i is bit i mod 64 of word i / 64 in both (Go's bitset, Guava's LockFreeBitArray).
#include "bloomkit/foreign_bloom.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <istream>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define BLOOMKIT_PARQUET_X86 1
#endif

#include "bloomkit/format.h"
#include "bloomkit/hash.h"
#include "bloomkit/sizing.h"
#include "internal/blocked_kernels.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/filter_common.h"
#include "internal/hash_inline.h"
#include "internal/message.h"

namespace bloomkit {
namespace {

using internal::MakeError;

constexpr std::uint64_t kC1 = 0x87c37b91114253d5ULL;
constexpr std::uint64_t kC2 = 0x4cf5ad432745937fULL;

constexpr std::uint64_t Fmix64(std::uint64_t k) noexcept {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

std::uint64_t Load64(const unsigned char* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// MurmurHash3_x64_128's running state: whole 16-byte blocks go through Mix, the tail
// (up to 15 bytes) and the length through Finish.
struct Murmur3State {
  std::uint64_t h1;
  std::uint64_t h2;

  void Mix(std::uint64_t k1, std::uint64_t k2) noexcept {
    k1 *= kC1;
    k1 = std::rotl(k1, 31);
    k1 *= kC2;
    h1 ^= k1;
    h1 = std::rotl(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= kC2;
    k2 = std::rotl(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
    h2 = std::rotl(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }

  [[nodiscard]] Murmur3Hash128 Finish(const unsigned char* tail, std::size_t tail_bytes,
                                      std::uint64_t length) const noexcept {
    std::uint64_t a = h1;
    std::uint64_t b = h2;
    std::uint64_t k1 = 0;
    std::uint64_t k2 = 0;
    for (std::size_t i = tail_bytes; i > 8; --i) k2 = (k2 << 8) | tail[i - 1];
    for (std::size_t i = std::min<std::size_t>(tail_bytes, 8); i > 0; --i) k1 = (k1 << 8) | tail[i - 1];
    if (tail_bytes > 8) {
      k2 *= kC2;
      k2 = std::rotl(k2, 33);
      k2 *= kC1;
      b ^= k2;
    }
    if (tail_bytes > 0) {
      k1 *= kC1;
      k1 = std::rotl(k1, 31);
      k1 *= kC2;
      a ^= k1;
    }
    a ^= length;
    b ^= length;
    a += b;
    b += a;
    a = Fmix64(a);
    b = Fmix64(b);
    a += b;
    b += a;
    return {a, b};
  }
};

// bits-and-blooms' baseHashes: Murmur3 of the key, and of the key followed by 0x01,
// sharing the blocks of the key.
std::array<std::uint64_t, 4> BitsAndBloomsBaseHashes(std::string_view key) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(key.data());
  const std::size_t n = key.size();
  Murmur3State s{0, 0};
  const std::size_t blocks = n / 16;
  for (std::size_t i = 0; i < blocks; ++i) s.Mix(Load64(p + 16 * i), Load64(p + 16 * i + 8));
  const std::size_t tail_bytes = n % 16;
  std::array<unsigned char, 16> tail{};
  std::copy_n(p + 16 * blocks, tail_bytes, tail.begin());
  const Murmur3Hash128 first = s.Finish(tail.data(), tail_bytes, n);
  tail[tail_bytes] = 1;
  Murmur3Hash128 second{};
  if (tail_bytes + 1 == 16) {
    s.Mix(Load64(tail.data()), Load64(tail.data() + 8));
    second = s.Finish(tail.data(), 0, n + 1);
  } else {
    second = s.Finish(tail.data(), tail_bytes + 1, n + 1);
  }
  return {first.h1, first.h2, second.h1, second.h2};
}

// The caller's 64-bit hash (AddHash), expanded to the hash words a key would give.
std::array<std::uint64_t, 4> ExpandToFour(std::uint64_t hash) noexcept {
  const HashPair a = ExpandHash(hash);
  const HashPair b = ExpandHash(a.h2);
  return {a.h1, a.h2, b.h2, ExpandHash(b.h2).h2};
}

// Calls probe(bit) for each of the k bits of a key; stops when probe returns false.
// Returns whether every probe returned true.
template <typename Probe>
bool ForEachBitsAndBlooms(const std::array<std::uint64_t, 4>& h, std::uint64_t m, std::uint32_t k,
                          Probe&& probe) noexcept {
  static constexpr std::array<std::size_t, 4> kSecond = {2, 3, 3, 2};
  for (std::uint64_t i = 0; i < k; ++i) {
    const std::uint64_t x = h[i % 2] + i * h[kSecond[i % 4]];
    if (!probe(x % m)) return false;
  }
  return true;
}

template <typename Probe>
bool ForEachGuava(std::uint64_t h1, std::uint64_t h2, GuavaStrategy strategy, std::uint64_t m, std::uint32_t k,
                  Probe&& probe) noexcept {
  if (strategy == GuavaStrategy::kMurmur128Mitz64) {
    std::uint64_t x = h1;
    for (std::uint32_t i = 0; i < k; ++i) {
      if (!probe((x & 0x7fffffffffffffffULL) % m)) return false;
      x += h2;
    }
    return true;
  }
  // MURMUR128_MITZ_32: Java int arithmetic on the low and high halves of h1.
  const auto a = static_cast<std::uint32_t>(h1);
  const auto b = static_cast<std::uint32_t>(h1 >> 32);
  for (std::uint32_t i = 1; i <= k; ++i) {
    std::uint32_t c = a + i * b;
    if ((c >> 31) != 0) c = ~c;
    if (!probe(std::uint64_t{c} % m)) return false;
  }
  return true;
}

template <typename Scheme>
constexpr bool kIsGuava = Scheme::kKind == FilterKind::kGuava;

template <typename Scheme>
constexpr bool kIsParquet = Scheme::kKind == FilterKind::kParquet;

template <typename Scheme>
constexpr std::string_view kLibrary = kIsGuava<Scheme>     ? "Guava"
                                      : kIsParquet<Scheme> ? "Parquet"
                                                           : "bits-and-blooms";

template <typename Scheme>
constexpr std::uint32_t kMaxHashes = kIsGuava<Scheme>     ? kMaxGuavaNumHashes
                                     : kIsParquet<Scheme> ? kParquetNumHashes
                                                          : kMaxBitsAndBloomsNumHashes;

// Parquet's split block Bloom filter (parquet-format BloomFilter.md): block
// ((h >> 32) * blocks) >> 32 of 256 bits, eight 32-bit lanes; lane i gets bit
// (lo32(h) * salt[i]) >> 27. Lane i is the low (i even) or high (i odd) half of the
// block's little-endian 64-bit word i / 2.
constexpr std::array<std::uint32_t, 8> kParquetSalt = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                                       0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

// Parquet's key hash: XXH64 with seed 0. A string_view's null data comes only with
// length 0, which XXH64 accepts; passing "" then is the same hash, and keeps the static
// analyzer from pairing a null pointer with a length it cannot bound.
std::uint64_t ParquetKeyHash(std::string_view key) noexcept {
  const char* data = key.data();
  if (data == nullptr) data = "";
  return XXH64(data, key.size(), 0);
}

// Block i's first word: words + 4 i.
inline std::uint64_t* ParquetBlock(std::uint64_t* words, std::uint64_t num_bits, std::uint64_t h) noexcept {
  return words + (((h >> 32) * (num_bits / 256)) >> 32) * 4;
}

template <bool kSet>
bool ParquetProbePortable(std::uint64_t* block, std::uint64_t h) noexcept {
  const auto key = static_cast<std::uint32_t>(h);
  bool fresh = false;
  for (std::size_t i = 0; i < 8; ++i) {
    const std::uint32_t bit = (key * kParquetSalt[i]) >> 27;
    const std::uint64_t mask = std::uint64_t{1} << ((i % 2) * 32 + bit);
    if constexpr (kSet) {
      fresh |= (block[i / 2] & mask) == 0;
      block[i / 2] |= mask;
    } else if ((block[i / 2] & mask) == 0) {
      return false;
    }
  }
  return kSet ? fresh : true;
}

#ifdef BLOOMKIT_PARQUET_X86
// The eight lanes at once: 32-bit lane i of the block is bytes 4i..4i+3, as in an AVX2
// register, so lane i's bit is 1 << ((lo32(h) * salt[i]) >> 27) in element i.
template <bool kSet>
[[gnu::target("avx2")]] bool ParquetProbeAvx2(std::uint64_t* block, std::uint64_t h) noexcept {
  const __m256i salts = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kParquetSalt.data()));
  const __m256i x = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h)));
  const __m256i mask = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(_mm256_mullo_epi32(x, salts), 27));
  auto* b = reinterpret_cast<__m256i*>(block);
  const __m256i old = _mm256_loadu_si256(b);
  if constexpr (kSet) _mm256_storeu_si256(b, _mm256_or_si256(old, mask));
  // testc(a, m) is 1 when every bit of m is set in a.
  return kSet ? _mm256_testc_si256(old, mask) == 0 : _mm256_testc_si256(old, mask) != 0;
}
const bool kParquetAvx2 = internal::CpuHasAvx2();
#endif

// Inserts (kSet: true if a bit was new) or tests (true if all eight bits are set) hash h.
template <bool kSet>
bool ParquetProbe(std::uint64_t* words, std::uint64_t num_bits, std::uint64_t h) noexcept {
  std::uint64_t* block = ParquetBlock(words, num_bits, h);
#ifdef BLOOMKIT_PARQUET_X86
  if (kParquetAvx2) return ParquetProbeAvx2<kSet>(block, h);
#endif
  return ParquetProbePortable<kSet>(block, h);
}

// Batches: the hashes of a group of keys first, with their blocks prefetched, then the
// probes, so that the memory of one key's block is fetched while others are probed.
constexpr std::size_t kParquetGroup = 16;

template <bool kSet, typename HashOf>
std::size_t ParquetBatch(std::uint64_t* words, std::uint64_t num_bits, std::size_t n, HashOf hash_of,
                         bool* out) noexcept {
  std::size_t hits = 0;
  std::array<std::uint64_t, kParquetGroup> hashes{};
  for (std::size_t start = 0; start < n; start += kParquetGroup) {
    const std::size_t m = std::min(kParquetGroup, n - start);
    for (std::size_t i = 0; i < m; ++i) {
      hashes[i] = hash_of(start + i);
      __builtin_prefetch(ParquetBlock(words, num_bits, hashes[i]), kSet ? 1 : 0);
    }
    for (std::size_t i = 0; i < m; ++i) {
      const bool r = ParquetProbe<kSet>(words, num_bits, hashes[i]);
      if (out != nullptr) out[start + i] = r;
      hits += r ? 1U : 0U;
    }
  }
  return hits;
}

// Bytes of the Thrift compact BloomFilterHeader Parquet writers put before the bitset:
// field 1 numBytes (i32, zigzag varint), then algorithm BLOCK, hash XXHASH, compression
// UNCOMPRESSED (each a union whose member 1 is an empty struct), then stop.
std::size_t ParquetHeaderBytes(std::uint64_t num_bytes) noexcept {
  std::uint64_t zigzag = num_bytes << 1;
  std::size_t varint = 1;
  while (zigzag >= 0x80) {
    zigzag >>= 7;
    ++varint;
  }
  return 1 + varint + 13;
}

std::uint64_t LoadBE64(const unsigned char* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

void StoreBE64(unsigned char* p, std::uint64_t v) noexcept {
  for (int i = 7; i >= 0; --i) {
    p[i] = static_cast<unsigned char>(v);
    v >>= 8;
  }
}

// Bytes left in a seekable stream, or -1 when it cannot tell.
std::int64_t BytesLeft(std::istream& in) {
  const std::istream::pos_type here = in.tellg();
  if (here == std::istream::pos_type(-1)) {
    in.clear();
    return -1;
  }
  in.seekg(0, std::ios::end);
  const std::istream::pos_type end = in.tellg();
  in.seekg(here);
  if (end == std::istream::pos_type(-1) || !in) {
    in.clear();
    in.seekg(here);
    return -1;
  }
  return static_cast<std::int64_t>(end - here);
}

// Reads `count` big-endian words into `out` (host order), `skip` more words after them
// are read and dropped. A short read is kTruncated naming what was expected.
Status ReadWordsBE(std::istream& in, std::span<std::uint64_t> out, std::uint64_t skip, std::string_view library) {
  constexpr std::size_t kPieceWords = 8192;
  std::array<unsigned char, kPieceWords * 8> piece;
  const std::uint64_t total = out.size() + skip;
  for (std::uint64_t done = 0; done < total;) {
    const std::uint64_t n = std::min<std::uint64_t>(kPieceWords, total - done);
    in.read(reinterpret_cast<char*>(piece.data()), static_cast<std::streamsize>(n * 8));
    if (static_cast<std::uint64_t>(in.gcount()) != n * 8) {
      return MakeError(ErrorCode::kTruncated, "truncated ", library, " filter: its bit array needs ", total * 8,
                       " bytes, the input ends after ", done * 8 + static_cast<std::uint64_t>(in.gcount()));
    }
    for (std::uint64_t i = 0; i < n; ++i) {
      if (done + i < out.size()) out[done + i] = LoadBE64(piece.data() + 8 * i);
    }
    done += n;
  }
  return {};
}

}  // namespace

Murmur3Hash128 Murmur3x64_128(std::string_view key, std::uint32_t seed) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(key.data());
  Murmur3State s{seed, seed};
  const std::size_t blocks = key.size() / 16;
  for (std::size_t i = 0; i < blocks; ++i) s.Mix(Load64(p + 16 * i), Load64(p + 16 * i + 8));
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
Status ForeignBloomFilter<Scheme>::AddBatch(std::span<const std::string_view> keys) noexcept {
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
Status ForeignBloomFilter<Scheme>::AddHashBatch(std::span<const std::uint64_t> hashes) noexcept {
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

template <typename Scheme>
std::uint64_t ForeignBloomFilter<Scheme>::foreign_bytes() const noexcept {
  if constexpr (kIsParquet<Scheme>) return ParquetHeaderBytes(words_.bytes()) + words_.bytes();
  return (kIsGuava<Scheme> ? 6 : 24) + words_.bytes();
}

// Parquet's BloomFilterHeader (Thrift compact protocol) as its writers put it, then
// numBytes bytes of bitset (little-endian 32-bit lanes). Only what the format defines is
// accepted: algorithm BLOCK, hash XXHASH, compression UNCOMPRESSED.
template <typename Scheme>
Result<ForeignBloomFilter<Scheme>> ForeignBloomFilter<Scheme>::ReadParquet(std::istream& in, std::int64_t left,
                                                                           const LoadOptions& options) {
  std::uint64_t consumed = 0;
  auto next = [&in, &consumed]() -> int {
    const int c = in.get();
    if (c != std::char_traits<char>::eof()) ++consumed;
    return c == std::char_traits<char>::eof() ? -1 : c;
  };
  const auto truncated = [&consumed]() {
    return MakeError(ErrorCode::kTruncated, "truncated Parquet filter: its header ends after ", consumed, " bytes");
  };
  int c = next();
  if (c < 0) return truncated();
  if (c != 0x15) {
    return MakeError(ErrorCode::kParameterMismatch, "not a Parquet BloomFilterHeader: byte 0 is 0x", std::hex, c,
                     ", not 0x15 (field 1, numBytes, an i32)");
  }
  std::uint64_t zigzag = 0;
  for (int shift = 0;; shift += 7) {
    c = next();
    if (c < 0) return truncated();
    if (shift > 28) {
      return MakeError(ErrorCode::kParameterMismatch, "Parquet numBytes is not a 32-bit varint");
    }
    zigzag |= static_cast<std::uint64_t>(c & 0x7f) << shift;
    if ((c & 0x80) == 0) break;
  }
  const std::int64_t num_bytes = static_cast<std::int64_t>(zigzag >> 1) ^ -static_cast<std::int64_t>(zigzag & 1);
  if (num_bytes <= 0 || num_bytes % 32 != 0 || num_bytes > static_cast<std::int64_t>(kMaxParquetBytes)) {
    return MakeError(ErrorCode::kParameterMismatch, "Parquet filter of numBytes ", num_bytes,
                     ": must be a positive multiple of 32 (whole 256-bit blocks) of at most ", kMaxParquetBytes);
  }
  constexpr std::array<std::string_view, 3> kFields = {"algorithm BLOCK", "hash XXHASH", "compression UNCOMPRESSED"};
  for (std::size_t field = 0; field < kFields.size(); ++field) {
    std::array<int, 4> got{};
    for (int& b : got) {
      b = next();
      if (b < 0) return truncated();
    }
    if (got != std::array<int, 4>{0x1c, 0x1c, 0x00, 0x00}) {
      return MakeError(field == 1 ? ErrorCode::kUnknownHash : ErrorCode::kParameterMismatch,
                       "Parquet BloomFilterHeader field ", field + 2, " is not ", kFields[field],
                       " (the only one the format defines): bytes ", got[0], " ", got[1], " ", got[2], " ", got[3]);
    }
  }
  c = next();
  if (c < 0) return truncated();
  if (c != 0) return MakeError(ErrorCode::kParameterMismatch, "Parquet BloomFilterHeader has fields past field 4");
  const auto bytes = static_cast<std::uint64_t>(num_bytes);
  if (bytes > options.max_memory_bytes) {
    return MakeError(ErrorCode::kTooLarge, "Parquet filter of ", bytes, " bytes is over the memory limit of ",
                     options.max_memory_bytes, " bytes");
  }
  if (left >= 0 && static_cast<std::uint64_t>(left) < consumed + bytes) {
    return MakeError(ErrorCode::kTruncated, "truncated Parquet filter: ", left, " bytes, its header announces ",
                     consumed + bytes);
  }
  auto f = Make(bytes * 8, kParquetNumHashes, GuavaStrategy::kMurmur128Mitz32, 1, 0, options.max_memory_bytes);
  if (!f.ok()) return f;
  in.read(reinterpret_cast<char*>(f->words_.data()), static_cast<std::streamsize>(bytes));
  if (static_cast<std::uint64_t>(in.gcount()) != bytes) {
    return MakeError(ErrorCode::kTruncated, "truncated Parquet filter: its bitset needs ", bytes,
                     " bytes, the input ends after ", in.gcount());
  }
  if constexpr (std::endian::native != std::endian::little) {
    for (std::uint64_t& w : f->words_.span())
      w = internal::LoadLE<std::uint64_t>(reinterpret_cast<const std::byte*>(&w));
  }
  f->SetImportedStatistics();
  return f;
}

template <typename Scheme>
Result<ForeignBloomFilter<Scheme>> ForeignBloomFilter<Scheme>::ReadForeign(std::istream& in,
                                                                           const LoadOptions& options) {
  const std::string_view library = kLibrary<Scheme>;
  const std::int64_t left = BytesLeft(in);
  if constexpr (kIsParquet<Scheme>) return ReadParquet(in, left, options);
  constexpr std::size_t kHead = kIsGuava<Scheme> ? 6 : 24;
  std::array<unsigned char, 24> head{};
  in.read(reinterpret_cast<char*>(head.data()), kHead);
  if (static_cast<std::size_t>(in.gcount()) != kHead) {
    return MakeError(ErrorCode::kTruncated, "truncated ", library, " filter: ", in.gcount(),
                     " bytes, its header alone needs ", kHead);
  }
  std::uint64_t num_bits = 0;
  std::uint64_t num_hashes = 0;
  std::uint64_t stored_words = 0;  // words in the input
  GuavaStrategy strategy = GuavaStrategy::kMurmur128Mitz32;
  if constexpr (kIsGuava<Scheme>) {
    const auto ordinal = static_cast<std::int8_t>(head[0]);
    if (ordinal != 0 && ordinal != 1) {
      return MakeError(ErrorCode::kUnknownHash, "Guava strategy ordinal ", static_cast<int>(ordinal),
                       " is not 0 (MURMUR128_MITZ_32) or 1 (MURMUR128_MITZ_64)");
    }
    strategy = static_cast<GuavaStrategy>(ordinal);
    num_hashes = head[1];
    const auto words = static_cast<std::int32_t>((std::uint32_t{head[2]} << 24) | (std::uint32_t{head[3]} << 16) |
                                                 (std::uint32_t{head[4]} << 8) | std::uint32_t{head[5]});
    if (words <= 0) {
      return MakeError(ErrorCode::kParameterMismatch, "Guava filter of ", words,
                       " words: the word count must be in [1, 2^31 - 1]");
    }
    stored_words = static_cast<std::uint64_t>(words);
    num_bits = stored_words * 64;
  } else {
    num_bits = LoadBE64(head.data());
    num_hashes = LoadBE64(head.data() + 8);
    const std::uint64_t length = LoadBE64(head.data() + 16);
    if (num_bits == 0) return MakeError(ErrorCode::kParameterMismatch, "bits-and-blooms filter of m = 0 bits");
    if (length < num_bits) {
      return MakeError(ErrorCode::kParameterMismatch, "bits-and-blooms bitset of ", length,
                       " bits is shorter than the filter's m = ", num_bits);
    }
    stored_words = length / 64 + (length % 64 != 0 ? 1 : 0);
  }
  const std::uint32_t max_hashes = kMaxHashes<Scheme>;
  if (num_hashes == 0 || num_hashes > max_hashes) {
    return MakeError(ErrorCode::kParameterMismatch, library, " filter of k = ", num_hashes,
                     " hashes: k must be in [1, ", max_hashes, "]");
  }
  if (stored_words > options.max_memory_bytes / 8) {
    return MakeError(ErrorCode::kTooLarge, library, " filter of ", stored_words, " words (", num_bits,
                     " bits) is over the memory limit of ", options.max_memory_bytes, " bytes");
  }
  if (left >= 0 && static_cast<std::uint64_t>(left) < kHead + stored_words * 8) {
    return MakeError(ErrorCode::kTruncated, "truncated ", library, " filter: ", left, " bytes, its header announces ",
                     kHead + stored_words * 8);
  }
  auto f = Make(num_bits, static_cast<std::uint32_t>(num_hashes), strategy, 1, 0, options.max_memory_bytes);
  if (!f.ok()) return f;
  if (Status st = ReadWordsBE(in, f->words_.span(), stored_words - f->words_.num_words(), library); !st.ok()) {
    return std::move(st).error();
  }
  // Bits at and past m are never probed by the library; bloomkit keeps them zero.
  if (num_bits % 64 != 0) f->words_.span().back() &= (std::uint64_t{1} << (num_bits % 64)) - 1;
  f->SetImportedStatistics();
  return f;
}

namespace {
// A std::streambuf over bytes in memory, for ReadForeign(span).
struct SpanBuf : std::streambuf {
  explicit SpanBuf(std::span<const std::byte> bytes) {
    char* p = const_cast<char*>(reinterpret_cast<const char*>(bytes.data()));
    setg(p, p, p + bytes.size());
  }
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode /*which*/) override {
    char* target = dir == std::ios_base::beg ? eback() + off : dir == std::ios_base::cur ? gptr() + off : egptr() + off;
    if (target < eback() || target > egptr()) return pos_type(off_type(-1));
    setg(eback(), target, egptr());
    return pos_type(target - eback());
  }
  pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
    return seekoff(off_type(pos), std::ios_base::beg, which);
  }
};
}  // namespace

template <typename Scheme>
Result<ForeignBloomFilter<Scheme>> ForeignBloomFilter<Scheme>::ReadForeign(std::span<const std::byte> bytes,
                                                                           const LoadOptions& options) {
  SpanBuf buf(bytes);
  std::istream in(&buf);
  auto f = ReadForeign(in, options);
  if (!f.ok()) return f;
  if (in.peek() != std::char_traits<char>::eof()) {
    const auto used = static_cast<std::uint64_t>(in.tellg());
    return MakeError(ErrorCode::kParameterMismatch, kLibrary<Scheme>, " filter of ", used, " bytes is followed by ",
                     bytes.size() - used, " more bytes");
  }
  return f;
}

template <typename Scheme>
Status ForeignBloomFilter<Scheme>::WriteForeign(std::ostream& out) const {
  std::array<unsigned char, 24> head{};
  std::size_t head_bytes = 0;
  if constexpr (kIsParquet<Scheme>) {
    head[head_bytes++] = 0x15;  // field 1, i32
    for (std::uint64_t zigzag = words_.bytes() << 1;; zigzag >>= 7) {
      head[head_bytes++] = static_cast<unsigned char>((zigzag & 0x7f) | (zigzag >= 0x80 ? 0x80 : 0));
      if (zigzag < 0x80) break;
    }
    // algorithm {BLOCK {}}, hash {XXHASH {}}, compression {UNCOMPRESSED {}}, stop
    for (int i = 0; i < 3; ++i) {
      for (const unsigned char b : std::array<unsigned char, 4>{0x1c, 0x1c, 0x00, 0x00}) head[head_bytes++] = b;
    }
    head[head_bytes++] = 0x00;
    out.write(reinterpret_cast<const char*>(head.data()), static_cast<std::streamsize>(head_bytes));
    constexpr std::size_t kPieceWords = 8192;
    std::array<std::byte, kPieceWords * 8> piece;
    const std::span<const std::uint64_t> words = words_.span();
    for (std::size_t done = 0; done < words.size() && out;) {
      const std::size_t n = std::min(kPieceWords, words.size() - done);
      for (std::size_t i = 0; i < n; ++i) internal::StoreLE<std::uint64_t>(piece.data() + 8 * i, words[done + i]);
      out.write(reinterpret_cast<const char*>(piece.data()), static_cast<std::streamsize>(n * 8));
      done += n;
    }
    if (!out) return MakeError(ErrorCode::kIoError, "writing the Parquet filter failed");
    return {};
  } else if constexpr (kIsGuava<Scheme>) {
    head[0] = static_cast<unsigned char>(strategy_);
    head[1] = static_cast<unsigned char>(num_hashes_);
    const auto words = static_cast<std::uint32_t>(words_.num_words());
    head[2] = static_cast<unsigned char>(words >> 24);
    head[3] = static_cast<unsigned char>(words >> 16);
    head[4] = static_cast<unsigned char>(words >> 8);
    head[5] = static_cast<unsigned char>(words);
    head_bytes = 6;
  } else {
    StoreBE64(head.data(), num_bits_);
    StoreBE64(head.data() + 8, num_hashes_);
    StoreBE64(head.data() + 16, num_bits_);
    head_bytes = 24;
  }
  out.write(reinterpret_cast<const char*>(head.data()), static_cast<std::streamsize>(head_bytes));
  constexpr std::size_t kPieceWords = 8192;
  std::array<unsigned char, kPieceWords * 8> piece;
  const std::span<const std::uint64_t> words = words_.span();
  for (std::size_t done = 0; done < words.size() && out;) {
    const std::size_t n = std::min(kPieceWords, words.size() - done);
    for (std::size_t i = 0; i < n; ++i) StoreBE64(piece.data() + 8 * i, words[done + i]);
    out.write(reinterpret_cast<const char*>(piece.data()), static_cast<std::streamsize>(n * 8));
    done += n;
  }
  if (!out) return MakeError(ErrorCode::kIoError, "writing the ", kLibrary<Scheme>, " filter failed");
  return {};
}

template <typename Scheme>
std::vector<std::byte> ForeignBloomFilter<Scheme>::WriteForeign() const {
  std::ostringstream out(std::ios::binary);
  (void)WriteForeign(out);  // a string stream fails only when out of memory (bad_alloc)
  const std::string s = std::move(out).str();
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

template class ForeignBloomFilter<internal::BitsAndBloomsScheme>;
template class ForeignBloomFilter<internal::GuavaScheme>;
template class ForeignBloomFilter<internal::ParquetScheme>;

}  // namespace bloomkit
