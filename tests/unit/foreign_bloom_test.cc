// SPDX-License-Identifier: Apache-2.0
// foreign_bloom.h: MurmurHash3 known answers, the libraries' sizing, the bloomkit file
// form, merge, and every refusal of a bad foreign file (the real libraries' own files
// are checked in tests/golden/foreign_test.cc and tests/interop).
#include "bloomkit/foreign_bloom.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "bloomkit/format.h"

namespace bloomkit {
namespace {

std::vector<std::byte> Bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

void PutBE64(std::vector<std::byte>& out, std::uint64_t v) {
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
}

// Values from Guava 31.1's Hashing.murmur3_128() (h1, h2 = its bytes 0-7 and 8-15,
// little-endian), covering an empty key, 15 and 31 bytes (full tails), 32 bytes.
TEST(Murmur3Test, MatchesGuava) {
  EXPECT_EQ(Murmur3x64_128(""), (Murmur3Hash128{0, 0}));
  EXPECT_EQ(Murmur3x64_128("hello"), (Murmur3Hash128{0xcbd8a7b341bd9b02ULL, 0x5b1e906a48ae1d19ULL}));
  EXPECT_EQ(Murmur3x64_128("The quick brown fox jumps over t"),
            (Murmur3Hash128{0xdf6af91bb29bdacfULL, 0x91a341c58df1f3a6ULL}));
  EXPECT_EQ(Murmur3x64_128("0123456789abcde"), (Murmur3Hash128{0xa62dd5f6c0bf2351ULL, 0x4fccf50c7c544cf0ULL}));
  EXPECT_EQ(Murmur3x64_128("0123456789abcdef0123456789abcde"),
            (Murmur3Hash128{0x9afbac977e4daf00ULL, 0x89fe4cda7efd8251ULL}));
}

// bits-and-blooms' EstimateParameters and Guava's optimalNumOf*, as the libraries
// compute them (the interop tests compare with the libraries themselves).
TEST(ForeignSizingTest, LibraryFormulas) {
  auto bab = BitsAndBloomsFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_TRUE(bab.ok());
  EXPECT_EQ(bab->num_bits(), 9586U);  // ceil(1000 * 4.60517 / 0.480453)
  EXPECT_EQ(bab->num_hashes(), 7U);   // ceil(0.693147 * 9586 / 1000)
  auto guava = GuavaBloomFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_TRUE(guava.ok());
  EXPECT_EQ(guava->num_bits(), 9600U);  // floor(9585.06) = 9585 bits, rounded up to 150 words
  EXPECT_EQ(guava->num_hashes(), 7U);   // round(6.64)
  EXPECT_EQ(guava->guava_strategy(), GuavaStrategy::kMurmur128Mitz64);
  EXPECT_EQ(GuavaBloomFilter::Create({.capacity = 1000, .fp_rate = 0.03})->num_hashes(), 5U);  // Guava's note
}

// Arrow's and parquet-mr's OptimalNumOfBits: -8 * 1000 / ln(1 - 0.01^(1/8)) = 9,682 bits,
// rounded up to a power of two.
TEST(ForeignSizingTest, ParquetOptimalNumOfBits) {
  auto f = ParquetBloomFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->num_bits(), 16384U);
  EXPECT_EQ(f->num_hashes(), 8U);
  EXPECT_EQ(ParquetBloomFilter::Create({.capacity = 1, .fp_rate = 0.5})->num_bits(), 256U);  // the minimum
  EXPECT_EQ(ParquetBloomFilter::Create({.num_bits = 300})->num_bits(), 512U);                // whole blocks
  EXPECT_EQ(ParquetBloomFilter::Create({.num_bits = 256, .num_hashes = 7}).error().code(), ErrorCode::kInvalidArgument);
}

TEST(ForeignSizingTest, BadOptions) {
  EXPECT_EQ(BitsAndBloomsFilter::Create({.capacity = 0}).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(GuavaBloomFilter::Create({.capacity = 10, .fp_rate = 1.5}).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(GuavaBloomFilter::Create({.num_bits = 64, .num_hashes = 256}).error().code(), ErrorCode::kInvalidArgument);
  const auto big =
      BitsAndBloomsFilter::Create({.capacity = 1'000'000'000, .fp_rate = 0.01, .max_memory_bytes = 1 << 20});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code(), ErrorCode::kTooLarge);
}

template <typename F>
class ForeignFilterTest : public ::testing::Test {};
using Kinds = ::testing::Types<BitsAndBloomsFilter, GuavaBloomFilter, ParquetBloomFilter>;
TYPED_TEST_SUITE(ForeignFilterTest, Kinds);

TYPED_TEST(ForeignFilterTest, AddQueryRoundTrips) {
  auto f = TypeParam::Create({.capacity = 2000, .fp_rate = 0.01});
  ASSERT_TRUE(f.ok());
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(f->Add("key" + std::to_string(i)).ok());
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(f->MayContain("key" + std::to_string(i)));
  ASSERT_TRUE(f->AddHash(12345).ok());
  EXPECT_TRUE(f->MayContainHash(12345));
  int fp = 0;
  for (int i = 0; i < 20000; ++i) fp += f->MayContain("absent" + std::to_string(i)) ? 1 : 0;
  EXPECT_LT(fp, 20000 * 0.02);
  // bloomkit file form, raw and compressed.
  for (bool compress : {false, true}) {
    auto back = TypeParam::Deserialize(f->Serialize({.compress = compress}));
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_TRUE(back.value() == f.value());
  }
  // The library's layout: reads back to the same bits.
  auto foreign = TypeParam::ReadForeign(f->WriteForeign());
  ASSERT_TRUE(foreign.ok()) << foreign.error().message();
  EXPECT_TRUE(std::equal(foreign->words().begin(), foreign->words().end(), f->words().begin()));
  EXPECT_EQ(foreign->num_bits(), f->num_bits());
  EXPECT_EQ(foreign->WriteForeign(), f->WriteForeign());
}

TYPED_TEST(ForeignFilterTest, MergeNeedsTheSameShape) {
  auto a = TypeParam::Create({.capacity = 1000, .fp_rate = 0.01});
  auto b = TypeParam::Create({.capacity = 1000, .fp_rate = 0.01});
  auto c = TypeParam::Create({.capacity = 5000, .fp_rate = 0.01});
  ASSERT_TRUE(a->Add("left").ok());
  ASSERT_TRUE(b->Add("right").ok());
  ASSERT_TRUE(a->Merge(b.value()).ok());
  EXPECT_TRUE(a->MayContain("left") && a->MayContain("right"));
  EXPECT_EQ(a->Merge(c.value()).error().code(), ErrorCode::kIncompatible);
}

TEST(ForeignFileTest, HashIdAndKindAreWritten) {
  auto f = GuavaBloomFilter::Create({.capacity = 100, .fp_rate = 0.01});
  const std::vector<std::byte> file = f->Serialize();
  auto header = PeekHeader(file);
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->kind, FilterKind::kGuava);
  EXPECT_EQ(header->hash_id, kHashIdGuava);
  EXPECT_EQ(header->hash_seed, 0U);
  EXPECT_EQ(header->params[2], 1U);  // MURMUR128_MITZ_64
  // A Guava file is not a bits-and-blooms one.
  EXPECT_EQ(BitsAndBloomsFilter::Deserialize(file).error().code(), ErrorCode::kWrongKind);
}

// ---- Bad foreign files: a clear error, before anything of the stated size is allocated.

std::vector<std::byte> BabHeader(std::uint64_t m, std::uint64_t k, std::uint64_t length) {
  std::vector<std::byte> out;
  PutBE64(out, m);
  PutBE64(out, k);
  PutBE64(out, length);
  return out;
}

TEST(ForeignReadTest, BitsAndBloomsRefusals) {
  const auto code = [](const std::vector<std::byte>& bytes) {
    auto f = BitsAndBloomsFilter::ReadForeign(bytes, {.max_memory_bytes = 1 << 20});
    EXPECT_FALSE(f.ok());
    return f.ok() ? ErrorCode::kOk : f.error().code();
  };
  EXPECT_EQ(code(Bytes({0, 0, 0})), ErrorCode::kTruncated);
  EXPECT_EQ(code(BabHeader(128, 3, 128)), ErrorCode::kTruncated);            // no words
  EXPECT_EQ(code(BabHeader(0, 3, 0)), ErrorCode::kParameterMismatch);        // m = 0
  EXPECT_EQ(code(BabHeader(64, 0, 64)), ErrorCode::kParameterMismatch);      // k = 0
  EXPECT_EQ(code(BabHeader(64, 65536, 64)), ErrorCode::kParameterMismatch);  // k past the limit
  EXPECT_EQ(code(BabHeader(128, 3, 64)), ErrorCode::kParameterMismatch);     // bitset shorter than m
  // 2^40 bits: over the 1 MiB limit, refused from the header.
  EXPECT_EQ(code(BabHeader(std::uint64_t{1} << 40, 3, std::uint64_t{1} << 40)), ErrorCode::kTooLarge);
  EXPECT_EQ(code(BabHeader(~std::uint64_t{0}, 3, ~std::uint64_t{0})), ErrorCode::kTooLarge);
  auto trailing = BabHeader(64, 3, 64);
  PutBE64(trailing, 1);
  trailing.push_back(std::byte{0});
  EXPECT_EQ(code(trailing), ErrorCode::kParameterMismatch);
  // A stream that cannot tell its size: truncation is found while reading.
  struct OneWay : std::streambuf {  // std::streambuf's seekoff fails: a pipe
    explicit OneWay(std::vector<std::byte>& bytes) {
      char* p = reinterpret_cast<char*>(bytes.data());
      setg(p, p, p + bytes.size());
    }
  };
  auto header = BabHeader(640, 3, 640);
  OneWay buf(header);
  std::istream unseekable(&buf);
  auto f = BitsAndBloomsFilter::ReadForeign(unseekable);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code(), ErrorCode::kTruncated);
  EXPECT_NE(f.error().message().find("needs 80 bytes"), std::string::npos) << f.error().message();
}

TEST(ForeignReadTest, BitsAndBloomsKeepsWhatItsReaderAccepts) {
  // FromWithM: a bitset of 128 bits for m = 70; the words past m are dropped, and so
  // are bits at and past m (the library never probes them).
  auto bytes = BabHeader(70, 3, 128);
  PutBE64(bytes, 0x8000000000000001ULL);
  PutBE64(bytes, 0xffffffffffffffffULL);
  auto f = BitsAndBloomsFilter::ReadForeign(bytes);
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_EQ(f->num_bits(), 70U);
  ASSERT_EQ(f->words().size(), 2U);
  EXPECT_EQ(f->words()[0], 0x8000000000000001ULL);
  EXPECT_EQ(f->words()[1], 0x3fULL);
}

TEST(ForeignReadTest, GuavaRefusals) {
  const auto code = [](const std::vector<std::byte>& bytes) {
    auto f = GuavaBloomFilter::ReadForeign(bytes, {.max_memory_bytes = 1 << 20});
    EXPECT_FALSE(f.ok());
    if (!f.ok()) {
      EXPECT_FALSE(f.error().message().empty());
    }
    return f.ok() ? ErrorCode::kOk : f.error().code();
  };
  EXPECT_EQ(code(Bytes({1, 7, 0, 0})), ErrorCode::kTruncated);
  EXPECT_EQ(code(Bytes({1, 7, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0})), ErrorCode::kTruncated);
  EXPECT_EQ(code(Bytes({2, 7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})), ErrorCode::kUnknownHash);        // ordinal 2
  EXPECT_EQ(code(Bytes({0xff, 7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})), ErrorCode::kUnknownHash);     // ordinal -1
  EXPECT_EQ(code(Bytes({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})), ErrorCode::kParameterMismatch);  // k = 0
  EXPECT_EQ(code(Bytes({1, 7, 0, 0, 0, 0})), ErrorCode::kParameterMismatch);                          // 0 words
  EXPECT_EQ(code(Bytes({1, 7, 0x80, 0, 0, 0})), ErrorCode::kParameterMismatch);                       // negative
  EXPECT_EQ(code(Bytes({1, 7, 0x7f, 0xff, 0xff, 0xff})), ErrorCode::kTooLarge);                       // 16 GiB
  auto ok = Bytes({1, 7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5});
  auto f = GuavaBloomFilter::ReadForeign(ok);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->words()[0], 5U);
  EXPECT_EQ(f->num_bits(), 64U);
}

std::vector<std::byte> ParquetHeader(int num_bytes_zigzag_varint_first, std::initializer_list<int> rest) {
  std::vector<std::byte> out = Bytes({0x15, num_bytes_zigzag_varint_first});
  for (int b : rest) out.push_back(static_cast<std::byte>(b));
  return out;
}

TEST(ForeignReadTest, ParquetRefusals) {
  const auto code = [](const std::vector<std::byte>& bytes) {
    auto f = ParquetBloomFilter::ReadForeign(bytes, {.max_memory_bytes = 1 << 20});
    EXPECT_FALSE(f.ok());
    if (!f.ok()) {
      EXPECT_FALSE(f.error().message().empty());
    }
    return f.ok() ? ErrorCode::kOk : f.error().code();
  };
  const std::initializer_list<int> kRest = {0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0};
  // numBytes 32 (zigzag 64 = 0x40) and no bitset.
  EXPECT_EQ(code(ParquetHeader(0x40, kRest)), ErrorCode::kTruncated);
  EXPECT_EQ(code(Bytes({0x15})), ErrorCode::kTruncated);
  EXPECT_EQ(code(Bytes({0x16, 0x40})), ErrorCode::kParameterMismatch);         // not field 1 as an i32
  EXPECT_EQ(code(ParquetHeader(0x3e, kRest)), ErrorCode::kParameterMismatch);  // 31 bytes: not whole blocks
  EXPECT_EQ(code(ParquetHeader(0x3f, kRest)), ErrorCode::kParameterMismatch);  // -32
  EXPECT_EQ(code(ParquetHeader(0x00, kRest)), ErrorCode::kParameterMismatch);  // 0
  // hash member 2 (not XXHASH): an unknown hash.
  EXPECT_EQ(code(ParquetHeader(0x40, {0x1c, 0x1c, 0, 0, 0x1c, 0x2c, 0, 0, 0x1c, 0x1c, 0, 0, 0})),
            ErrorCode::kUnknownHash);
  // numBytes 2^30 (zigzag 2^31: 80 80 80 80 08): over the 1 MiB limit, before allocating.
  std::vector<std::byte> huge = Bytes({0x15, 0x80, 0x80, 0x80, 0x80, 0x08});
  for (int b : kRest) huge.push_back(static_cast<std::byte>(b));
  EXPECT_EQ(code(huge), ErrorCode::kTooLarge);
  std::vector<std::byte> ok = ParquetHeader(0x40, kRest);
  ok.resize(ok.size() + 32);
  auto f = ParquetBloomFilter::ReadForeign(ok);
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_EQ(f->num_bits(), 256U);
  EXPECT_EQ(f->WriteForeign(), ok);
}

// Folding: a filter sized for many values and folded is bit for bit the filter of the
// smaller size the same values build; FoldedFpRate is the rate the folded bits give to
// absent values; FoldsWithin finds the smallest filter at a rate.
TEST(ParquetFoldTest, AFoldedFilterIsTheSmallerFilterOfTheSameValues) {
  auto big = ParquetBloomFilter::Create({.num_bits = 256 * 4096});
  ASSERT_TRUE(big.ok());
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(big->Add("v" + std::to_string(i)).ok());
  for (unsigned folds : {1U, 3U, 12U}) {
    auto small = ParquetBloomFilter::Create({.num_bits = std::uint64_t{256 * 4096} >> folds});
    ASSERT_TRUE(small.ok());
    for (int i = 0; i < 3000; ++i) ASSERT_TRUE(small->Add("v" + std::to_string(i)).ok());
    auto folded = big->Folded(folds);
    ASSERT_TRUE(folded.ok()) << folded.error().message();
    EXPECT_EQ(folded->num_bits(), small->num_bits());
    EXPECT_TRUE(std::ranges::equal(folded->words(), small->words())) << folds << " folds";
    EXPECT_EQ(folded->count(), big->count());
    EXPECT_DOUBLE_EQ(folded->fp_rate(), big->FoldedFpRate(folds));
    EXPECT_DOUBLE_EQ(folded->EstimatedFpRate(), big->FoldedFpRate(folds));
    // The Parquet form of the folded filter reads back as it is.
    auto again = ParquetBloomFilter::ReadForeign(folded->WriteForeign());
    ASSERT_TRUE(again.ok()) << again.error().message();
    EXPECT_TRUE(std::ranges::equal(again->words(), folded->words()));
  }
}

TEST(ParquetFoldTest, FoldedFpRateIsTheRateAbsentValuesMeet) {
  auto big = ParquetBloomFilter::Create({.num_bits = 256 * 8192});
  ASSERT_TRUE(big.ok());
  for (int i = 0; i < 20000; ++i) ASSERT_TRUE(big->Add("present" + std::to_string(i)).ok());
  constexpr int kProbes = 200000;
  for (unsigned folds = 0; folds <= 4; ++folds) {
    auto folded = big->Folded(folds);
    ASSERT_TRUE(folded.ok());
    int hits = 0;
    for (int i = 0; i < kProbes; ++i) hits += folded->MayContain("absent" + std::to_string(i)) ? 1 : 0;
    for (int i = 0; i < 20000; i += 97) ASSERT_TRUE(folded->MayContain("present" + std::to_string(i)));
    const double p = big->FoldedFpRate(folds);
    const double measured = static_cast<double>(hits) / kProbes;
    // 99.9% binomial interval, plus a floor for the rates near zero.
    EXPECT_NEAR(measured, p, 3.3 * std::sqrt(p * (1 - p) / kProbes) + 2.0 / kProbes) << folds << " folds";
  }
  EXPECT_LT(big->FoldedFpRate(0), big->FoldedFpRate(1));
}

TEST(ParquetFoldTest, FoldsWithinGivesTheSmallestFilterAtTheRate) {
  auto big = ParquetBloomFilter::Create({.capacity = 1000000, .fp_rate = 0.01});  // what a writer plans for
  ASSERT_TRUE(big.ok());
  for (int i = 0; i < 10000; ++i) ASSERT_TRUE(big->Add("v" + std::to_string(i)).ok());  // what the chunk held
  for (double rate : {0.01, 0.001}) {
    const unsigned folds = big->FoldsWithin(rate);
    EXPECT_GT(folds, 0U);
    EXPECT_LE(big->FoldedFpRate(folds), rate);
    EXPECT_GT(big->FoldedFpRate(folds + 1), rate);
  }
  EXPECT_GT(big->FoldsWithin(0.01), big->FoldsWithin(0.001));
  EXPECT_EQ(big->FoldsWithin(0.0), 0U);  // no fold keeps a rate of 0 once a value is in
}

TEST(ParquetFoldTest, FoldsThatDoNotDivideTheBlocksAreRefused) {
  auto three = ParquetBloomFilter::Create({.num_bits = 256 * 3});
  ASSERT_TRUE(three.ok());
  auto folded = three->Folded(1);
  ASSERT_FALSE(folded.ok());
  EXPECT_EQ(folded.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(folded.error().message().find("3 blocks"), std::string::npos) << folded.error().message();
  EXPECT_EQ(three->FoldedFpRate(1), 1.0);
  EXPECT_EQ(three->FoldsWithin(0.5), 0U);
  EXPECT_FALSE(three->Folded(64).ok());
  EXPECT_TRUE(three->Folded(0).ok());
}

}  // namespace
}  // namespace bloomkit
