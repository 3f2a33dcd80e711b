// SPDX-License-Identifier: Apache-2.0
// The blocked filter's 256-bit layout (BlockedLayout::kLanes256): its bit pattern written
// out from blocked_bloom_filter.h, the portable and AVX2 kernels against each other,
// the file fields that keep older readers out, and the filter's behaviour.
#include "internal/blocked_lanes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/concurrent_bloom_filter.h"
#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/format.h"
#include "bloomkit/hash.h"
#include "bloomkit/sizing.h"
#include "internal/filter_common.h"
#include "internal/hash_inline.h"

namespace bloomkit {
namespace {

namespace kernels = bloomkit::internal;

BlockedBloomFilter Make(const BloomOptions& options) {
  auto f = BlockedBloomFilter::Create(options);
  EXPECT_TRUE(f.ok()) << f.error().message();
  return std::move(f).value();
}

BloomOptions Lanes(BloomOptions options) {
  options.blocked_layout = BlockedLayout::kLanes256;
  return options;
}

// The pattern as documented: block FastRange64(h, blocks); lane j < k (the j-th
// little-endian 32-bit word of the block) gets bit (lo32(h) * salt[j]) >> 27.
void ReferenceInsert(std::vector<std::uint32_t>& lanes, std::uint64_t num_blocks, std::uint32_t k, std::uint64_t h) {
  static constexpr std::uint32_t kSalts[8] = {0x204ade81U, 0xf1c1a909U, 0xdea0be2bU, 0x8f4d5fcbU,
                                              0xeeade89bU, 0x302614e7U, 0xb43e9343U, 0x9cf78759U};
  const std::uint64_t block = FastRange64(h, num_blocks);
  for (std::uint32_t j = 0; j < k; ++j) {
    lanes[block * 8 + j] |= 1U << ((static_cast<std::uint32_t>(h) * kSalts[j]) >> 27);
  }
}

std::vector<std::uint32_t> LanesOf(const BlockedBloomFilter& f) {
  std::vector<std::uint32_t> lanes;
  for (std::uint64_t w : f.words()) {
    lanes.push_back(static_cast<std::uint32_t>(w));
    lanes.push_back(static_cast<std::uint32_t>(w >> 32));
  }
  return lanes;
}

// The key hash of a hash id, as documented.
std::uint64_t KeyHash(std::uint16_t hash_id, std::string_view key) {
  return hash_id == kHashIdShort64 ? HashKeyShort64(key) : HashKey64(key);
}

TEST(BlockedLanesTest, BitsAreTheDocumentedPattern) {
  for (const std::uint16_t hash_id : {kHashIdShort64, kHashIdXxh3x64}) {
    for (std::uint32_t k = 1; k <= 8; ++k) {
      BlockedBloomFilter f = Make(Lanes({.num_bits = 256 * 37, .num_hashes = k, .hash_id = hash_id}));
      ASSERT_EQ(f.layout(), BlockedLayout::kLanes256);
      ASSERT_EQ(f.hash_id(), hash_id);
      ASSERT_EQ(f.num_blocks(), 37U);
      ASSERT_EQ(f.words().size(), 37U * 4);
      std::vector<std::uint32_t> expected(37 * 8, 0);
      for (int i = 0; i < 300; ++i) {
        // Keys of 1..20 bytes: both sides of the 8-byte limit of hash id 4.
        const auto u = static_cast<std::size_t>(i);
        const std::string key = std::string(std::string_view(IntegerKey(u * 7919))).substr(0, 1 + u % 8) +
                                std::string(u % 3 == 0 ? u % 13 : 0, 'k');
        ASSERT_TRUE(f.Add(key).ok());
        ReferenceInsert(expected, 37, k, KeyHash(hash_id, key));
        ASSERT_TRUE(f.AddHash(static_cast<std::uint64_t>(i)).ok());
        ReferenceInsert(expected, 37, k, ExpandHash(static_cast<std::uint64_t>(i)).h2);
      }
      EXPECT_EQ(LanesOf(f), expected) << "k = " << k << ", hash id " << hash_id;
    }
  }
}

TEST(BlockedLanesTest, NewFiltersTakeHashId4) {
  EXPECT_EQ(Make(Lanes({.capacity = 100})).hash_id(), kHashIdShort64);
  EXPECT_EQ(Make({.capacity = 100, .blocked_layout = BlockedLayout::kLines512}).hash_id(), kHashIdXxh3DoubleHashing);
  // A hash a layout does not define is refused, naming it.
  for (const BloomOptions& bad :
       {Lanes({.capacity = 100, .hash_id = kHashIdXxh3DoubleHashing}), Lanes({.capacity = 100, .hash_id = 9}),
        BloomOptions{.capacity = 100, .blocked_layout = BlockedLayout::kLines512, .hash_id = 4},
        BloomOptions{.capacity = 100, .blocked_layout = BlockedLayout::kLines512, .hash_id = 3}}) {
    auto f = BlockedBloomFilter::Create(bad);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(f.error().message().find(std::to_string(bad.hash_id)), std::string::npos) << f.error().message();
  }
  // Id 3 is a hash of 256-bit blocks only (a classic filter's ids: bloom_filter_test).
  auto classic = BloomFilter::Create({.capacity = 100, .hash_id = kHashIdXxh3x64});
  ASSERT_FALSE(classic.ok());
  EXPECT_EQ(classic.error().code(), ErrorCode::kInvalidArgument);
}

TEST(BlockedLanesTest, HashKey64IsSeededXxh3) {
  // Known answers, pinned: changing them changes every file of hash id 3.
  EXPECT_EQ(HashKey64(""), 0x0d22255919fe708aULL);
  EXPECT_EQ(HashKey64("key:0"), 0x8bb7c101f5014b47ULL);
}

// Hash id 4 written out from docs/FORMAT.md: up to 8 bytes as a zero-extended
// little-endian integer v, two multiply-folds; longer keys: XXH3-64 (hash id 3).
std::uint64_t ReferenceShort64(std::string_view key) {
  if (key.size() > 8) return HashKey64(key);
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < key.size(); ++i) v |= std::uint64_t{static_cast<unsigned char>(key[i])} << (8 * i);
  const auto fold = [](std::uint64_t a, std::uint64_t b) {
    const Uint128 p = static_cast<Uint128>(a) * b;
    return static_cast<std::uint64_t>(p) ^ static_cast<std::uint64_t>(p >> 64);
  };
  const std::uint64_t x = v ^ 0x626c6f6f6d6b6974ULL ^ (key.size() * 0xbf58476d1ce4e5b9ULL);
  return fold(fold(x, 0x9e3779b97f4a7c15ULL), 0xbf58476d1ce4e5b9ULL);
}

TEST(BlockedLanesTest, HashKeyShort64IsTheDocumentedHash) {
  std::mt19937_64 rng(11);
  for (std::size_t len = 0; len <= 24; ++len) {
    for (int i = 0; i < 200; ++i) {
      std::string key(len, '\0');
      for (char& c : key) c = static_cast<char>(rng() & 0xff);
      ASSERT_EQ(HashKeyShort64(key), ReferenceShort64(key)) << "length " << len;
      ASSERT_EQ(kernels::HashKeyShort64Inline(key), ReferenceShort64(key)) << "length " << len;
    }
  }
  // The length keeps a value apart at every length: "ab" and "ab\0".
  EXPECT_NE(HashKeyShort64(std::string_view("ab", 2)), HashKeyShort64(std::string_view("ab\0", 3)));
  // Known answers, pinned: changing them changes every file of hash id 4.
  EXPECT_EQ(HashKeyShort64(""), ReferenceShort64(""));
  EXPECT_EQ(HashKeyShort64("key:0"), 0x5dce9fc9a7ca5730ULL);
  EXPECT_EQ(HashKeyShort64(IntegerKey(42)), 0x171ee392d77d3694ULL);
}

// Portable and AVX2 kernels set the same bits and give the same answers, for every k,
// single keys and batches, short and long keys, and callers' hashes.
TEST(BlockedLanesTest, PortableAndAvx2Agree) {
  if (!BlockedBloomFilter::UsesAvx2()) GTEST_SKIP() << "no AVX2 on this CPU: only the portable kernels run";
  std::mt19937_64 rng(7);
  for (std::uint32_t round = 0; round < 16; ++round) {
    const std::uint32_t k = 1 + round % 8;
    const std::uint16_t hash_id = round < 8 ? kHashIdShort64 : kHashIdXxh3x64;
    const auto& portable = kernels::GetLanesOps(kernels::BlockedIsa::kPortable, k, hash_id);
    const auto& avx2 = kernels::GetLanesOps(kernels::BlockedIsa::kAvx2, k, hash_id);
    ASSERT_NE(&portable, &avx2);
    constexpr std::uint64_t kBlocks = 61;
    alignas(64) std::array<std::uint64_t, kBlocks * 4> a{};
    alignas(64) std::array<std::uint64_t, kBlocks * 4> b{};
    std::vector<std::string> keys;
    for (int i = 0; i < 400; ++i)
      keys.push_back(std::string(static_cast<std::size_t>(i % 40), 'k') + std::to_string(i));
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::uint64_t h = rng();
      switch (i % 4) {
        case 0:
          EXPECT_EQ(portable.insert_key(a.data(), kBlocks, keys[i]), avx2.insert_key(b.data(), kBlocks, keys[i]));
          break;
        case 1: EXPECT_EQ(portable.insert_hash(a.data(), kBlocks, h), avx2.insert_hash(b.data(), kBlocks, h)); break;
        case 2:
          portable.set_key(a.data(), kBlocks, keys[i]);
          avx2.set_key(b.data(), kBlocks, keys[i]);
          break;
        default:
          portable.set_hash(a.data(), kBlocks, h);
          avx2.set_hash(b.data(), kBlocks, h);
          break;
      }
      ASSERT_EQ(a, b) << "k = " << k << " after " << i;
    }
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<std::uint64_t> hashes(500);
    for (auto& h : hashes) h = rng();
    portable.insert_hashes(a.data(), kBlocks, hashes);
    avx2.insert_hashes(b.data(), kBlocks, hashes);
    ASSERT_EQ(a, b);
    std::vector<std::string> probes;
    for (int i = 0; i < 2000; ++i)
      probes.push_back("probe:" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 20), 'x'));
    std::vector<std::string_view> probe_views(probes.begin(), probes.end());
    std::vector<char> out_a(probes.size());
    std::vector<char> out_b(probes.size());
    const std::size_t hits_a =
        portable.contains_keys(a.data(), kBlocks, probe_views, reinterpret_cast<bool*>(out_a.data()));
    const std::size_t hits_b =
        avx2.contains_keys(b.data(), kBlocks, probe_views, reinterpret_cast<bool*>(out_b.data()));
    EXPECT_EQ(hits_a, hits_b);
    EXPECT_EQ(out_a, out_b);
    for (std::size_t i = 0; i < probes.size(); ++i) {
      ASSERT_EQ(portable.contains_key(a.data(), kBlocks, probes[i]), avx2.contains_key(b.data(), kBlocks, probes[i]));
      const std::uint64_t h = rng();
      ASSERT_EQ(portable.contains_hash(a.data(), kBlocks, h), avx2.contains_hash(b.data(), kBlocks, h));
    }
  }
}

TEST(BlockedLanesTest, BatchesMatchSingleKeys) {
  // A filter the caches hold (visited key by key) and one of 8 MiB, past
  // kInMemoryFilterBytes (hashed and prefetched a group ahead).
  struct Shape {
    BloomOptions options;
    std::uint64_t num_keys;
  };
  const Shape shapes[] = {{{.capacity = 2'000, .fp_rate = 0.01}, 2'000},
                          {{.num_bits = std::uint64_t{1} << 26, .num_hashes = 8}, 400'000}};
  for (const Shape& shape : shapes) {
    BlockedBloomFilter single = Make(Lanes(shape.options));
    BlockedBloomFilter batch = Make(Lanes(shape.options));
    ASSERT_EQ(batch.memory_bytes() >= internal::kInMemoryFilterBytes, shape.options.num_bits != 0);
    std::vector<std::string> keys;
    for (std::uint64_t i = 0; i < shape.num_keys; ++i) keys.push_back("k" + std::to_string(i * 7919));
    std::vector<std::string_view> views(keys.begin(), keys.end());
    for (const auto& key : keys) ASSERT_TRUE(single.Add(key).ok());
    ASSERT_TRUE(batch.AddBatch(views).ok());
    std::vector<std::uint64_t> hashes;
    for (std::uint64_t i = 0; i < 1000; ++i) hashes.push_back(i * 31);
    for (std::uint64_t h : hashes) ASSERT_TRUE(single.AddHash(h).ok());
    ASSERT_TRUE(batch.AddHashBatch(hashes).ok());
    EXPECT_EQ(single, batch);
    std::vector<std::string> probes;
    for (std::uint64_t i = 0; i < 5000; ++i) probes.push_back("p" + std::to_string(i));
    std::vector<std::string_view> probe_views(probes.begin(), probes.end());
    std::vector<char> out(probes.size());
    const std::size_t hits = batch.MayContainBatch(probe_views, {reinterpret_cast<bool*>(out.data()), out.size()});
    std::size_t expected_hits = 0;
    for (std::size_t i = 0; i < probes.size(); ++i) {
      ASSERT_EQ(out[i] != 0, single.MayContain(probes[i]));
      expected_hits += out[i] != 0 ? 1U : 0U;
    }
    EXPECT_EQ(hits, expected_hits);
    std::vector<char> hash_out(hashes.size());
    EXPECT_EQ(batch.MayContainHashBatch(hashes, {reinterpret_cast<bool*>(hash_out.data()), hash_out.size()}),
              hashes.size());
  }
}

// Batches whose keys are all 8 bytes long (and batches of callers' hashes) take a
// plain loop (a filter the caches hold) or a one-pass ring of 64 slots (a larger one).
// Every batch length around the ring's size: batches set the bits and count of single
// adds, answer as single queries do, and the portable and AVX2 kernels agree.
TEST(BlockedLanesTest, EightByteKeyBatchesMatchSingleKeysAtEveryRingLength) {
  const BloomOptions shapes[] = {{.capacity = 3'000, .fp_rate = 0.01},
                                 {.num_bits = std::uint64_t{1} << 26, .num_hashes = 7}};
  for (const BloomOptions& shape : shapes) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17}, std::size_t{63},
                                std::size_t{64}, std::size_t{65}, std::size_t{3000}}) {
      SCOPED_TRACE(testing::Message() << "num_bits " << shape.num_bits << ", n = " << n);
      BlockedBloomFilter single = Make(Lanes(shape));
      BlockedBloomFilter batch = Make(Lanes(shape));
      std::vector<IntegerKey> keys;
      // Every key twice, so that some adds of the batch set no new bit.
      for (std::size_t i = 0; i < n; ++i) keys.emplace_back((i / 2) * 0x9e3779b97f4a7c15ULL + 1);
      std::vector<std::string_view> views(keys.begin(), keys.end());
      for (std::string_view key : views) ASSERT_TRUE(single.Add(key).ok());
      ASSERT_TRUE(batch.AddBatch(views).ok());
      ASSERT_EQ(single, batch);  // words and count

      std::vector<IntegerKey> probes;
      for (std::size_t i = 0; i < n + 2000; ++i) probes.emplace_back(i * 0x9e3779b97f4a7c15ULL + 1);
      std::vector<std::string_view> probe_views(probes.begin(), probes.end());
      std::vector<char> out(probes.size());
      const std::size_t hits = batch.MayContainBatch(probe_views, {reinterpret_cast<bool*>(out.data()), out.size()});
      std::size_t expected_hits = 0;
      for (std::size_t i = 0; i < probes.size(); ++i) {
        ASSERT_EQ(out[i] != 0, single.MayContain(probe_views[i])) << i;
        expected_hits += out[i] != 0 ? 1U : 0U;
      }
      EXPECT_EQ(hits, expected_hits);
      EXPECT_GE(hits, (n + 1) / 2);  // the keys added are among the probes

      if (!BlockedBloomFilter::UsesAvx2()) continue;
      const auto& portable = kernels::GetLanesOps(kernels::BlockedIsa::kPortable, batch.num_hashes(), kHashIdShort64);
      const auto& avx2 = kernels::GetLanesOps(kernels::BlockedIsa::kAvx2, batch.num_hashes(), kHashIdShort64);
      const std::uint64_t num_blocks = batch.num_bits() / 256;
      std::vector<std::uint64_t> a(num_blocks * 4 + 4);
      std::vector<std::uint64_t> b(num_blocks * 4 + 4);
      // 32-byte aligned blocks, as a filter's own words are.
      auto* wa =
          reinterpret_cast<std::uint64_t*>((reinterpret_cast<std::uintptr_t>(a.data()) + 31) & ~std::uintptr_t{31});
      auto* wb =
          reinterpret_cast<std::uint64_t*>((reinterpret_cast<std::uintptr_t>(b.data()) + 31) & ~std::uintptr_t{31});
      portable.insert_keys(wa, num_blocks, views);
      avx2.insert_keys(wb, num_blocks, views);
      ASSERT_TRUE(std::equal(wa, wa + num_blocks * 4, wb));
      std::vector<char> out_a(probes.size());
      std::vector<char> out_b(probes.size());
      EXPECT_EQ(portable.contains_keys(wa, num_blocks, probe_views, reinterpret_cast<bool*>(out_a.data())),
                avx2.contains_keys(wb, num_blocks, probe_views, reinterpret_cast<bool*>(out_b.data())));
      EXPECT_EQ(out_a, out_b);
    }
  }
}

TEST(BlockedLanesTest, NoFalseNegativesAndRateAtTheory) {
  const std::uint64_t n = 100'000;
  BlockedBloomFilter f = Make(Lanes({.capacity = n, .fp_rate = 0.01}));
  EXPECT_EQ(f.num_hashes(), 8U);
  EXPECT_NEAR(static_cast<double>(f.num_bits()) / static_cast<double>(n), 10.53, 0.01);
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_TRUE(f.Add(IntegerKey(i)).ok());
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_TRUE(f.MayContain(IntegerKey(i))) << i;
  std::uint64_t fp = 0;
  const std::uint64_t q = 200'000;
  for (std::uint64_t i = n; i < n + q; ++i) fp += f.MayContain(IntegerKey(i)) ? 1U : 0U;
  const double expected = f.ExpectedFpRate() * static_cast<double>(q);  // ~2000, sd ~45
  EXPECT_NEAR(static_cast<double>(fp), expected, 5 * std::sqrt(expected));
  EXPECT_NEAR(static_cast<double>(f.EstimatedCount()), static_cast<double>(n), 0.02 * static_cast<double>(n));
  EXPECT_NEAR(static_cast<double>(f.count()), static_cast<double>(n), 0.01 * static_cast<double>(n));
}

TEST(BlockedLanesTest, SizingPinned) {
  // Bits per key of the 256-bit layout at 1%, 0.1% and 0.01% (sizing.h), k = 8.
  for (const auto& [p, bits] : {std::pair{0.01, 10.53}, std::pair{0.001, 16.89}, std::pair{0.0001, 26.34}}) {
    auto params = CalculateBlockedParameters(1'000'000, p, BlockedLayout::kLanes256);
    ASSERT_TRUE(params.ok());
    EXPECT_NEAR(params->bits_per_key, bits, 0.01) << p;
    EXPECT_EQ(params->num_hashes, 8U);
    EXPECT_LE(params->expected_fp_rate, p);
    EXPECT_EQ(params->num_bits % 256, 0U);
    EXPECT_GT(Lanes256FpRate(params->num_bits / 256 - 1, 1e6, 8), p);  // the smallest that meets p
  }
  EXPECT_FALSE(CalculateBlockedParameters(1000, 0.01, static_cast<BlockedLayout>(7)).ok());
  EXPECT_FALSE(BlockedBloomFilter::Create(Lanes({.num_bits = 1024, .num_hashes = 9})).ok());
  EXPECT_FALSE(BlockedBloomFilter::Create({.capacity = 10, .blocked_layout = static_cast<BlockedLayout>(2)}).ok());
}

TEST(BlockedLanesTest, RoundTripAndFileFields) {
  BlockedBloomFilter f = Make(Lanes({.capacity = 1000, .fp_rate = 0.01}));
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(f.Add("key:" + std::to_string(i)).ok());
  for (const bool compress : {false, true}) {
    const std::vector<std::byte> bytes = f.Serialize({.compress = compress});
    auto header = InspectBytes(bytes);
    ASSERT_TRUE(header.ok()) << header.error().message();
    EXPECT_EQ(header->hash_id, kHashIdShort64);
    EXPECT_EQ(header->params[2], 1U);
    EXPECT_EQ(header->payload_bytes, f.num_blocks() * 32);
    auto loaded = BlockedBloomFilter::Deserialize(bytes);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message();
    EXPECT_EQ(loaded.value(), f);
    EXPECT_EQ(loaded->layout(), BlockedLayout::kLanes256);
    for (int i = 0; i < 500; ++i) EXPECT_TRUE(loaded->MayContain("key:" + std::to_string(i)));
  }
}

// Byte offsets of the v1 header (docs/FORMAT.md).
constexpr std::size_t kOffHashId = 18;
constexpr std::size_t kOffParam2 = 72 + 16;

// Rewrites the trailing checksum (XXH3-64 of everything before it) after a patch.
void Reseal(std::vector<std::byte>& bytes) {
  const std::size_t body = bytes.size() - 8;
  std::uint64_t sum = kernels::Checksum64(bytes.data(), body);
  for (std::size_t i = 0; i < 8; ++i, sum >>= 8) bytes[body + i] = static_cast<std::byte>(sum & 0xff);
}

void Patch16(std::vector<std::byte>& bytes, std::size_t at, std::uint16_t v) {
  bytes[at] = static_cast<std::byte>(v & 0xff);
  bytes[at + 1] = static_cast<std::byte>(v >> 8);
  Reseal(bytes);
}

TEST(BlockedLanesTest, MismatchedFieldsAreRefused) {
  BlockedBloomFilter lanes = Make(Lanes({.capacity = 100}));
  BlockedBloomFilter lines = Make({.capacity = 100, .blocked_layout = BlockedLayout::kLines512});
  // Hash id 3 with layout 0, hash id 1 with layout 1: kUnknownHash, whatever the checksum.
  std::vector<std::byte> a = lines.Serialize();
  Patch16(a, kOffHashId, kHashIdXxh3x64);
  std::vector<std::byte> b = lanes.Serialize();
  Patch16(b, kOffHashId, kHashIdXxh3DoubleHashing);
  for (auto* bytes : {&a, &b}) {
    auto loaded = BlockedBloomFilter::Deserialize(*bytes);
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().code(), ErrorCode::kUnknownHash) << loaded.error().message();
  }
  // Hash id 4 with layout 0, hash id 5 with layout 1.
  std::vector<std::byte> e = lines.Serialize();
  Patch16(e, kOffHashId, kHashIdShort64);
  std::vector<std::byte> g = lanes.Serialize();
  Patch16(g, kOffHashId, 5);
  for (auto* bytes : {&e, &g}) {
    auto loaded = BlockedBloomFilter::Deserialize(*bytes);
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().code(), ErrorCode::kUnknownHash) << loaded.error().message();
  }
  // Hash id 3 is defined for blocked filters only, 4 for blocked and classic ones.
  auto classic_bytes = BloomFilter::Create({.capacity = 100})->Serialize();
  Patch16(classic_bytes, kOffHashId, kHashIdXxh3x64);
  auto classic = BloomFilter::Deserialize(classic_bytes);
  ASSERT_FALSE(classic.ok());
  EXPECT_EQ(classic.error().code(), ErrorCode::kUnknownHash);
  for (const std::uint16_t id : {kHashIdXxh3x64, kHashIdShort64}) {
    auto counting_bytes = CountingBloomFilter::Create({.bloom = {.capacity = 100}})->Serialize();
    Patch16(counting_bytes, kOffHashId, id);
    auto counting = CountingBloomFilter::Deserialize(counting_bytes);
    ASSERT_FALSE(counting.ok());
    EXPECT_EQ(counting.error().code(), ErrorCode::kUnknownHash);
  }
  // An unknown layout value.
  std::vector<std::byte> d = lanes.Serialize();
  d[kOffParam2] = std::byte{2};
  Reseal(d);
  auto unknown = BlockedBloomFilter::Deserialize(d);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code(), ErrorCode::kParameterMismatch) << unknown.error().message();
  // The concurrent blocked filter implements the 512-bit layout only.
  auto concurrent = ConcurrentBlockedBloomFilter::Deserialize(lanes.Serialize());
  ASSERT_FALSE(concurrent.ok());
  EXPECT_EQ(concurrent.error().code(), ErrorCode::kUnsupported);
  EXPECT_FALSE(ConcurrentBlockedBloomFilter::Create(Lanes({.capacity = 100})).ok());
}

TEST(BlockedLanesTest, RoundTripOfEitherHash) {
  for (const std::uint16_t hash_id : {kHashIdShort64, kHashIdXxh3x64}) {
    BlockedBloomFilter f = Make(Lanes({.capacity = 1000, .fp_rate = 0.01, .hash_id = hash_id}));
    for (int i = 0; i < 500; ++i) ASSERT_TRUE(f.Add(IntegerKey(i)).ok());
    const std::vector<std::byte> bytes = f.Serialize();
    EXPECT_EQ(InspectBytes(bytes)->hash_id, hash_id);
    auto loaded = BlockedBloomFilter::Deserialize(bytes);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message();
    EXPECT_EQ(loaded->hash_id(), hash_id);
    EXPECT_EQ(loaded.value(), f);
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(loaded->MayContain(IntegerKey(i)), f.MayContain(IntegerKey(i)));
    EXPECT_EQ(loaded->Serialize(), bytes);
  }
}

TEST(BlockedLanesTest, MergeNeedsTheSameHash) {
  BlockedBloomFilter a = Make(Lanes({.num_bits = 256 * 8, .num_hashes = 8, .hash_id = kHashIdShort64}));
  BlockedBloomFilter b = Make(Lanes({.num_bits = 256 * 8, .num_hashes = 8, .hash_id = kHashIdXxh3x64}));
  auto st = a.Merge(b);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kIncompatible);
  EXPECT_NE(st.error().message().find("hash ids 4 and 3"), std::string::npos) << st.error().message();
  EXPECT_FALSE(a.Intersect(b).ok());
  EXPECT_FALSE(a == Make(Lanes({.num_bits = 256 * 8, .num_hashes = 8, .hash_id = kHashIdXxh3x64})));
}

TEST(BlockedLanesTest, MergeNeedsTheSameLayout) {
  BlockedBloomFilter a = Make(Lanes({.num_bits = 512 * 8, .num_hashes = 8}));
  BlockedBloomFilter b = Make({.num_bits = 512 * 8, .num_hashes = 8});
  ASSERT_EQ(a.num_bits(), b.num_bits());
  auto st = a.Merge(b);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kIncompatible);
  BlockedBloomFilter c = Make(Lanes({.num_bits = 512 * 8, .num_hashes = 8}));
  ASSERT_TRUE(a.Add("x").ok());
  ASSERT_TRUE(c.Add("y").ok());
  ASSERT_TRUE(a.Merge(c).ok());
  EXPECT_TRUE(a.MayContain("x"));
  EXPECT_TRUE(a.MayContain("y"));
}

}  // namespace
}  // namespace bloomkit
