// SPDX-License-Identifier: Apache-2.0
// bloomkit/hash.h: the one frozen hash. Every serialized filter depends on these
// values, so a change to the hash, its seed, the expansion of caller hashes, the range
// reduction or the byte layout of integer keys must fail here.
#include "bloomkit/hash.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "contract/test_support.h"

namespace bloomkit {
namespace {

std::string Bytes(std::string_view s) {
  return std::string(s);
}

// The seed is "bloomkit" in ASCII read big-endian, as hash.h documents.
TEST(HashConstantsTest, SeedAndIdAreTheDocumentedOnes) {
  const std::string_view name = "bloomkit";
  std::uint64_t from_name = 0;
  for (const char c : name) from_name = (from_name << 8) | static_cast<unsigned char>(c);
  EXPECT_EQ(kHashSeed, from_name);
  EXPECT_EQ(kHashSeed, 0x626c6f6f6d6b6974ULL);
  EXPECT_EQ(kHashIdXxh3DoubleHashing, 1);
}

// Independent check: HashKey is XXH3-128 of the bytes with kHashSeed, computed here by
// the system libxxhash, h1 = low half, h2 = high half. Lengths cover each XXH3 code
// path: 0, 1-3, 4-8, 9-16, 17-128, 129-240 and > 240 bytes.
TEST(HashKeyTest, IsXxh3With128BitsAndTheFixedSeed) {
  std::mt19937_64 rng(12345);
  for (const std::size_t length :
       {0UL, 1UL, 3UL, 4UL, 8UL, 9UL, 16UL, 17UL, 64UL, 128UL, 129UL, 200UL, 240UL, 241UL, 1000UL, 4096UL}) {
    std::string key(length, '\0');
    for (char& c : key) c = static_cast<char>(rng() & 0xff);
    const XXH128_hash_t want = XXH3_128bits_withSeed(key.data(), key.size(), kHashSeed);
    const HashPair got = HashKey(key);
    EXPECT_EQ(got.h1, want.low64) << "length " << length;
    EXPECT_EQ(got.h2, want.high64) << "length " << length;
  }
}

// Known answers: the (h1, h2) of a few keys, computed once when the format was frozen
// and cross-checked against the system xxHash above. A change to the hash function,
// the seed or the order of the halves changes these and breaks every saved filter.
TEST(HashKeyTest, KnownAnswers) {
  struct Case {
    std::string_view key;
    std::uint64_t h1;
    std::uint64_t h2;
  };
  const Case cases[] = {
      {"", 0xf9f1ea1d74723dc5ULL, 0xacbead34ec95abd8ULL},
      {"bloomkit", 0x632db025fb33e0ebULL, 0x50ed0dea8f4d8e7bULL},
      {"a", 0x75d83dc74da47ef5ULL, 0x58e9a75c38ac8eacULL},
      {"user:42", 0xf868d76ab50f6a69ULL, 0x52b46f6f042db2e0ULL},
      {"hello world", 0x3aed1a9a5b128f37ULL, 0xd55ffec81c52825bULL},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(HashKey(c.key), (HashPair{c.h1, c.h2})) << "key \"" << c.key << "\"";
  }
}

TEST(HashKeyTest, DependsOnEveryByteAndTheLength) {
  EXPECT_NE(HashKey("bloomkit"), HashKey("bloomkiT"));
  EXPECT_NE(HashKey("bloomkit"), HashKey("Bloomkit"));
  EXPECT_NE(HashKey(std::string_view("a\0", 2)), HashKey("a"));
  EXPECT_NE(HashKey(""), HashKey(std::string_view("\0", 1)));
  // Keys are bytes: equal bytes hash equally whatever owns them.
  const std::string owned = Bytes("user:42");
  EXPECT_EQ(HashKey(owned), HashKey("user:42"));
}

// ExpandHash: h1 = the hash, h2 = SplitMix64's finalizer of hash + 2^64/phi, here
// computed by an independent copy of SplitMix64 (test_support.h).
TEST(ExpandHashTest, IsTheHashAndItsSplitMixFinalizer) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t h = rng();
    const HashPair p = ExpandHash(h);
    EXPECT_EQ(p.h1, h);
    EXPECT_EQ(p.h2, bloomkit_test::SplitMix64(h));
  }
  // Known answers (frozen with the format: AddHash filters depend on them).
  static_assert(ExpandHash(0).h1 == 0);
  static_assert(ExpandHash(0).h2 == 0xe220a8397b1dcdafULL);
  static_assert(ExpandHash(42).h2 == 0xbdd732262feb6e95ULL);
}

// FastRange64 is floor(x * range / 2^64).
TEST(FastRange64Test, MapsOntoTheRangeByMultiplyShift) {
  EXPECT_EQ(FastRange64(0, 1000), 0U);
  EXPECT_EQ(FastRange64(~std::uint64_t{0}, 1000), 999U);
  EXPECT_EQ(FastRange64(std::uint64_t{1} << 63, 1000), 500U);
  EXPECT_EQ(FastRange64(std::uint64_t{1} << 63, 7), 3U);
  EXPECT_EQ(FastRange64(12345, 1), 0U);
  // A power-of-two range takes the top bits.
  EXPECT_EQ(FastRange64(0xfedcba9876543210ULL, std::uint64_t{1} << 16), 0xfedcU);
  // Ranges beyond 2^32 reach indices beyond 2^32 (64-bit sizes).
  const std::uint64_t big = (std::uint64_t{1} << 33) + 7;
  EXPECT_EQ(FastRange64(~std::uint64_t{0}, big), big - 1);
  EXPECT_GT(FastRange64(std::uint64_t{3} << 62, big), std::uint64_t{1} << 32);
  static_assert(FastRange64(std::uint64_t{1} << 62, 4) == 1);
}

TEST(FastRange64Test, IsInRangeAndEvenlySpread) {
  std::mt19937_64 rng(99);
  constexpr std::uint64_t kRange = 10;
  constexpr int kDraws = 100000;
  std::vector<int> counts(kRange, 0);
  for (int i = 0; i < kDraws; ++i) {
    const std::uint64_t v = FastRange64(rng(), kRange);
    ASSERT_LT(v, kRange);
    ++counts[v];
  }
  // Each bucket expects 10,000 with sigma ~95: +-5% is over 5 sigma.
  for (std::uint64_t b = 0; b < kRange; ++b) {
    EXPECT_NEAR(counts[b], kDraws / static_cast<int>(kRange), kDraws / 200) << "bucket " << b;
  }
}

std::string KeyBytes(const IntegerKey& key) {
  return std::string(static_cast<std::string_view>(key));
}

// An integer key is its value widened to 64 bits, as 8 little-endian bytes, whatever
// the integer type and the host.
TEST(IntegerKeyTest, IsEightLittleEndianBytes) {
  const std::string bytes = KeyBytes(IntegerKey(std::uint64_t{0x0102030405060708ULL}));
  ASSERT_EQ(bytes.size(), 8U);
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_EQ(static_cast<std::size_t>(static_cast<unsigned char>(bytes[i])), 8 - i) << "byte " << i;
  EXPECT_EQ(KeyBytes(IntegerKey(1)), std::string("\x01\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(KeyBytes(IntegerKey(0x1234)), std::string("\x34\x12\0\0\0\0\0\0", 8));
}

TEST(IntegerKeyTest, EqualValuesGiveEqualKeysAcrossTypes) {
  const std::string want = KeyBytes(IntegerKey(std::int64_t{42}));
  EXPECT_EQ(KeyBytes(IntegerKey(42)), want);
  EXPECT_EQ(KeyBytes(IntegerKey(42U)), want);
  EXPECT_EQ(KeyBytes(IntegerKey(std::uint8_t{42})), want);
  EXPECT_EQ(KeyBytes(IntegerKey(std::int8_t{42})), want);
  EXPECT_EQ(KeyBytes(IntegerKey(static_cast<short>(42))), want);
  EXPECT_EQ(KeyBytes(IntegerKey(std::uint64_t{42})), want);
  EXPECT_EQ(KeyBytes(IntegerKey(42LL)), want);
  EXPECT_EQ(HashKey(IntegerKey(42)), HashKey(std::string_view("\x2a\0\0\0\0\0\0\0", 8)));
  // Signed values sign-extend: -1 is eight 0xff bytes for every signed type.
  const std::string minus_one(8, '\xff');
  EXPECT_EQ(KeyBytes(IntegerKey(-1)), minus_one);
  EXPECT_EQ(KeyBytes(IntegerKey(std::int8_t{-1})), minus_one);
  EXPECT_EQ(KeyBytes(IntegerKey(std::int64_t{-1})), minus_one);
  EXPECT_EQ(KeyBytes(IntegerKey(std::numeric_limits<std::uint64_t>::max())), minus_one);
  // An unsigned byte 255 zero-extends, so it is not -1.
  EXPECT_EQ(KeyBytes(IntegerKey(std::uint8_t{255})), std::string("\xff\0\0\0\0\0\0\0", 8));
  EXPECT_NE(KeyBytes(IntegerKey(std::uint8_t{255})), KeyBytes(IntegerKey(std::int8_t{-1})));
  EXPECT_NE(KeyBytes(IntegerKey(1)), KeyBytes(IntegerKey(256)));
}

}  // namespace
}  // namespace bloomkit
