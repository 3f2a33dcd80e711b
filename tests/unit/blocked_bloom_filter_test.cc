// SPDX-License-Identifier: Apache-2.0
// bloomkit/blocked_bloom_filter.h: the cache-blocked filter, its AVX2 and portable
// kernels (src/core/internal/blocked_kernels.h), and its pinned bit pattern.
#include "bloomkit/blocked_bloom_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomkit/bloom_filter.h"
#include "bloomkit/sizing.h"
#include "contract/test_support.h"
#include "internal/blocked_kernels.h"

namespace bloomkit {
namespace {

using bloomkit_test::Key;
using bloomkit_test::KeySet;
namespace kernels = bloomkit::internal;

// The filters of this file have 512-bit blocks (blocked_lanes_test.cc has the 256-bit
// layout's tests): a filter sized by rate asks for them, as the default layout at these
// rates is the 256-bit one.
BlockedBloomFilter MakeFilter(BloomOptions options) {
  if (!options.blocked_layout) options.blocked_layout = BlockedLayout::kLines512;
  auto f = BlockedBloomFilter::Create(options);
  if (!f.ok()) throw std::runtime_error("Create failed: " + f.error().message());
  return std::move(f).value();
}

// Lane enables, 64-byte aligned as the AVX2 kernels load them.
struct alignas(64) Enable {
  std::uint64_t words[16];
  explicit Enable(std::uint32_t k) { kernels::MakeLaneEnable(k, words); }
};

struct alignas(64) Block {
  std::uint64_t lanes[8] = {};
  friend bool operator==(const Block& a, const Block& b) { return std::equal(a.lanes, a.lanes + 8, b.lanes); }
};

// The lane masks of blocked_bloom_filter.h, written out from its documentation:
// lane j gets bit (lo32(h2) * salt[j]) >> 26 when j < k, and bit
// (hi32(h2) * salt[8 + j]) >> 26 when 8 + j < k.
std::array<std::uint64_t, 8> ReferenceMasks(std::uint64_t h2, std::uint32_t k) {
  static constexpr std::uint32_t kSalts[16] = {
      0x204ade81U, 0xf1c1a909U, 0xdea0be2bU, 0x8f4d5fcbU, 0xeeade89bU, 0x302614e7U, 0xb43e9343U, 0x9cf78759U,
      0xbb3edc4fU, 0xa9090bcbU, 0x1716d087U, 0x4039db2bU, 0x88143f9dU, 0xaafc76cdU, 0xfbfc8ba3U, 0x4e2a2da9U,
  };
  const auto lo = static_cast<std::uint32_t>(h2);
  const auto hi = static_cast<std::uint32_t>(h2 >> 32);
  std::array<std::uint64_t, 8> masks{};
  for (std::uint32_t j = 0; j < 8; ++j) {
    if (j < k) masks[j] |= std::uint64_t{1} << ((lo * kSalts[j]) >> 26);
    if (8 + j < k) masks[j] |= std::uint64_t{1} << ((hi * kSalts[8 + j]) >> 26);
  }
  return masks;
}

// ---------------------------------------------------------------------- kernels

TEST(BlockedKernelsTest, SaltsAreTheFrozenOnes) {
  const auto ref = ReferenceMasks(0x0123456789abcdefULL, 16);
  Enable enable(16);
  std::uint64_t mask[8];
  kernels::BlockMaskPortable(0x0123456789abcdefULL, enable.words, mask);
  EXPECT_TRUE(std::equal(ref.begin(), ref.end(), mask));
  for (const std::uint32_t salt : kernels::kBlockSalts) EXPECT_EQ(salt & 1U, 1U) << "salts must be odd";
}

TEST(BlockedKernelsTest, LaneEnablesCoverTheFirstKProbes) {
  for (std::uint32_t k = 0; k <= 16; ++k) {
    Enable enable(k);
    for (std::uint32_t i = 0; i < 16; ++i) EXPECT_EQ(enable.words[i], i < k ? ~std::uint64_t{0} : 0U) << k << "/" << i;
  }
}

TEST(BlockedKernelsTest, PortableMasksFollowTheDocumentedPattern) {
  std::mt19937_64 rng(2024);
  for (std::uint32_t k = 1; k <= 16; ++k) {
    Enable enable(k);
    for (int trial = 0; trial < 2000; ++trial) {
      const std::uint64_t h2 = rng();
      std::uint64_t mask[8];
      kernels::BlockMaskPortable(h2, enable.words, mask);
      const auto ref = ReferenceMasks(h2, k);
      ASSERT_TRUE(std::equal(ref.begin(), ref.end(), mask)) << "k=" << k << " h2=" << h2;
      // Lane j carries one bit per probe assigned to it (two probes may coincide).
      for (std::uint32_t j = 0; j < 8; ++j) {
        const std::uint32_t probes = (j < k ? 1U : 0U) + (8 + j < k ? 1U : 0U);
        const auto bits = static_cast<std::uint32_t>(std::popcount(mask[j]));
        ASSERT_LE(bits, probes);
        ASSERT_GE(bits, probes == 0 ? 0U : 1U);
      }
    }
  }
}

// The AVX2 and portable kernels agree bit for bit: masks, Contains and Insert (its
// result and the block it leaves) for every k in 1..16, on random h2 and blocks of
// every density from empty to nearly full.
TEST(BlockedKernelsTest, Avx2AndPortableAgree) {
  if (!kernels::CpuHasAvx2()) GTEST_SKIP() << "this CPU has no AVX2";
  std::mt19937_64 rng(77);
  for (std::uint32_t k = 1; k <= 16; ++k) {
    Enable enable(k);
    for (int trial = 0; trial < 3000; ++trial) {
      const std::uint64_t h2 = rng();
      std::uint64_t portable_mask[8];
      std::uint64_t avx2_mask[8];
      kernels::BlockMaskPortable(h2, enable.words, portable_mask);
      kernels::BlockMaskAvx2(h2, enable.words, avx2_mask);
      ASSERT_TRUE(std::equal(portable_mask, portable_mask + 8, avx2_mask)) << "k=" << k << " h2=" << h2;

      // A block with a density of 0..~100% set bits (AND/OR of random words).
      Block block;
      const int density = trial % 6;
      for (auto& lane : block.lanes) {
        std::uint64_t w = density == 0 ? 0 : rng();
        for (int d = 1; d < density; ++d) w |= rng();
        lane = w;
      }
      if (trial % 7 == 0) {  // sometimes a block that holds this very key
        for (int j = 0; j < 8; ++j) block.lanes[j] |= portable_mask[j];
      }
      ASSERT_EQ(kernels::BlockContainsPortable(block.lanes, h2, enable.words),
                kernels::BlockContainsAvx2(block.lanes, h2, enable.words))
          << "k=" << k << " h2=" << h2;
      Block a = block;
      Block b = block;
      const bool fresh_portable = kernels::BlockInsertPortable(a.lanes, h2, enable.words);
      const bool fresh_avx2 = kernels::BlockInsertAvx2(b.lanes, h2, enable.words);
      ASSERT_EQ(fresh_portable, fresh_avx2) << "k=" << k << " h2=" << h2;
      ASSERT_TRUE(a == b) << "k=" << k << " h2=" << h2 << ": the kernels left different blocks";
      ASSERT_EQ(fresh_portable, !kernels::BlockContainsPortable(block.lanes, h2, enable.words));
      ASSERT_TRUE(kernels::BlockContainsPortable(a.lanes, h2, enable.words));
    }
  }
}

// Whole-filter differential: a filter built the normal way (AVX2 where available)
// holds exactly the words that the portable kernel produces for the same keys, and
// every query of the filter equals the portable kernel run on the filter's words.
TEST(BlockedKernelsTest, FilterMatchesThePortableKernel) {
  for (const std::uint32_t k : {1U, 5U, 8U, 9U, 16U}) {
    SCOPED_TRACE(testing::Message() << "k=" << k << (BlockedBloomFilter::UsesAvx2() ? " (avx2)" : " (portable)"));
    auto f = MakeFilter({.num_bits = std::uint64_t{20'000} * 12, .num_hashes = k});
    const std::uint64_t blocks = f.num_blocks();
    Enable enable(k);
    std::vector<Block> portable(blocks);
    for (std::uint64_t i = 0; i < 20'000; ++i) {
      const Key key('p', i);
      EXPECT_TRUE(f.Add(key).ok());
      const HashPair h = HashKey(key);
      kernels::BlockInsertPortable(portable[FastRange64(h.h1, blocks)].lanes, h.h2, enable.words);
    }
    ASSERT_EQ(f.words().size(), blocks * 8);
    ASSERT_EQ(std::memcmp(f.words().data(), portable.data(), f.memory_bytes()), 0)
        << "the filter's bits differ from the portable kernel's";
    for (const char tag : {'p', 'a'}) {
      for (std::uint64_t i = 0; i < 20'000; ++i) {
        const Key key(tag, i);
        const HashPair h = HashKey(key);
        const std::uint64_t* block = f.words().data() + FastRange64(h.h1, blocks) * 8;
        ASSERT_EQ(f.MayContain(key), kernels::BlockContainsPortable(block, h.h2, enable.words)) << tag << " key " << i;
      }
    }
  }
}

// Every operations table (portable and AVX2, narrow k <= 8 and wide k > 8) against the
// reference masks written out above: single-block insert and query, and the batch
// forms over keys and over hashes, including the partial last group and the count of
// keys that set a new bit.
TEST(BlockedKernelsTest, EveryOpsTableMatchesTheReference) {
  std::vector<kernels::BlockedIsa> isas = {kernels::BlockedIsa::kPortable};
  if (kernels::CpuHasAvx2()) isas.push_back(kernels::BlockedIsa::kAvx2);
  constexpr std::uint64_t kBlocks = 257;
  constexpr std::size_t kKeys = 3'000 + 7;  // not a multiple of the batch group
  KeySet present('p', 0, kKeys);
  KeySet absent('a', 0, kKeys);
  std::vector<std::uint64_t> hashes(kKeys);
  std::mt19937_64 rng(5);
  for (auto& h : hashes) h = rng();
  for (const kernels::BlockedIsa isa : isas) {
    for (const std::uint32_t k : {1U, 6U, 8U, 9U, 13U, 16U}) {
      SCOPED_TRACE(testing::Message() << (isa == kernels::BlockedIsa::kAvx2 ? "avx2" : "portable") << " k=" << k);
      const kernels::BlockedOps& ops = kernels::GetBlockedOps(isa, k);
      Enable enable(k);
      // The reference: sequential inserts with the written-out masks.
      auto reference_insert = [&](std::vector<Block>& blocks, HashPair h) {
        Block& b = blocks[FastRange64(h.h1, kBlocks)];
        const auto masks = ReferenceMasks(h.h2, k);
        bool fresh = false;
        for (std::size_t j = 0; j < 8; ++j) {
          fresh = fresh || (masks[j] & ~b.lanes[j]) != 0;
          b.lanes[j] |= masks[j];
        }
        return fresh;
      };
      auto reference_contains = [&](const std::vector<Block>& blocks, HashPair h) {
        const Block& b = blocks[FastRange64(h.h1, kBlocks)];
        const auto masks = ReferenceMasks(h.h2, k);
        for (std::size_t j = 0; j < 8; ++j) {
          if ((masks[j] & ~b.lanes[j]) != 0) return false;
        }
        return true;
      };
      std::vector<Block> expected(kBlocks);
      std::vector<bool> expected_fresh;
      for (std::string_view key : present.views) expected_fresh.push_back(reference_insert(expected, HashKey(key)));

      std::vector<Block> batch(kBlocks);
      const kernels::BlockedWords view{batch.front().lanes, kBlocks, enable.words};
      ops.insert_keys(view, present.views);
      ASSERT_EQ(std::memcmp(batch.data(), expected.data(), kBlocks * 64), 0) << "insert_keys left other bits";

      // insert tells a new key as the reference does; set sets the same bits untested.
      std::vector<Block> single(kBlocks);
      std::vector<Block> set(kBlocks);
      for (std::size_t i = 0; i < present.views.size(); ++i) {
        const HashPair h = HashKey(present.views[i]);
        ASSERT_EQ(ops.insert(single[FastRange64(h.h1, kBlocks)].lanes, h.h2, enable.words), expected_fresh[i]) << i;
        ops.set(set[FastRange64(h.h1, kBlocks)].lanes, h.h2, enable.words);
      }
      ASSERT_EQ(std::memcmp(single.data(), expected.data(), kBlocks * 64), 0) << "insert left other bits";
      ASSERT_EQ(std::memcmp(set.data(), expected.data(), kBlocks * 64), 0) << "set left other bits";

      for (const KeySet* keys : {&present, &absent}) {
        std::unique_ptr<bool[]> out(new bool[kKeys]);
        std::size_t expected_hits = 0;
        for (std::size_t i = 0; i < kKeys; ++i) {
          const HashPair h = HashKey(keys->views[i]);
          const bool want = reference_contains(expected, h);
          expected_hits += want ? 1U : 0U;
          ASSERT_EQ(ops.contains(expected[FastRange64(h.h1, kBlocks)].lanes, h.h2, enable.words), want) << i;
        }
        ASSERT_EQ(ops.contains_keys(view, keys->views, out.get()), expected_hits);
        for (std::size_t i = 0; i < kKeys; ++i) {
          ASSERT_EQ(out[i], reference_contains(expected, HashKey(keys->views[i]))) << i;
        }
      }

      std::vector<Block> by_hash(kBlocks);
      for (std::uint64_t h : hashes) static_cast<void>(reference_insert(by_hash, ExpandHash(h)));
      std::vector<Block> hash_batch(kBlocks);
      const kernels::BlockedWords hash_view{hash_batch.front().lanes, kBlocks, enable.words};
      ops.insert_hashes(hash_view, hashes);
      ASSERT_EQ(std::memcmp(hash_batch.data(), by_hash.data(), kBlocks * 64), 0) << "insert_hashes left other bits";
      std::unique_ptr<bool[]> out(new bool[kKeys]);
      ASSERT_EQ(ops.contains_hashes(hash_view, hashes, out.get()), kKeys) << "a false negative";
      for (std::size_t i = 0; i < kKeys; ++i) ASSERT_TRUE(out[i]) << i;
    }
  }
}

// Known answers: block index (of 1000) and the eight lane words after adding one key,
// computed once when the format was frozen. They pin HashKey, the block choice
// FastRange64(h1, num_blocks), the salts and the lane layout: a change fails here.
TEST(BlockedBloomFilterHashingTest, KnownBlocksAndLanes) {
  struct Case {
    std::string_view key;
    std::uint32_t k;
    std::uint64_t block;
    std::array<std::uint64_t, 8> lanes;
  };
  const Case cases[] = {
      {"",
       8,
       976,
       {0x0000080000000000ULL, 0x0000000000000002ULL, 0x0000000400000000ULL, 0x0000000080000000ULL,
        0x0010000000000000ULL, 0x0000000000000800ULL, 0x0000000000400000ULL, 0x0000004000000000ULL}},
      {"bloomkit",
       8,
       387,
       {0x0000000000000002ULL, 0x0000000010000000ULL, 0x0000000000400000ULL, 0x4000000000000000ULL,
        0x0000100000000000ULL, 0x0000002000000000ULL, 0x0000000000000002ULL, 0x0000000000000200ULL}},
      {"user:42",
       8,
       970,
       {0x0000000010000000ULL, 0x0000000000000004ULL, 0x0000040000000000ULL, 0x0000000000001000ULL,
        0x0000000000000010ULL, 0x0200000000000000ULL, 0x0000000000000200ULL, 0x0000010000000000ULL}},
      {"",
       16,
       976,
       {0x0000080000000040ULL, 0x0000002000000002ULL, 0x0000001400000000ULL, 0x0000100080000000ULL,
        0x0010000000000002ULL, 0x0000000000008800ULL, 0x0000000000400001ULL, 0x0010004000000000ULL}},
      {"bloomkit",
       16,
       387,
       {0x8000000000000002ULL, 0x0000000010100000ULL, 0x0000000100400000ULL, 0x4000000000000000ULL,
        0x0000100000800000ULL, 0x0000002000000400ULL, 0x0000000000800002ULL, 0x0000080000000200ULL}},
      {"user:42", 3, 970, {0x0000000010000000ULL, 0x0000000000000004ULL, 0x0000040000000000ULL, 0, 0, 0, 0, 0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "key \"" << c.key << "\" k=" << c.k);
    auto f = MakeFilter({.num_bits = std::uint64_t{1000} * 512, .num_hashes = c.k});
    ASSERT_EQ(f.num_blocks(), 1000U);
    EXPECT_EQ(FastRange64(HashKey(c.key).h1, 1000), c.block);
    EXPECT_EQ(ReferenceMasks(HashKey(c.key).h2, c.k), c.lanes);
    EXPECT_TRUE(f.Add(c.key).ok());
    const auto words = f.words();
    for (std::uint64_t b = 0; b < 1000; ++b) {
      for (std::uint64_t j = 0; j < 8; ++j) {
        const std::uint64_t want = b == c.block ? c.lanes[j] : 0;
        ASSERT_EQ(words[b * 8 + j], want) << "block " << b << " lane " << j;
      }
    }
  }
}

// ---------------------------------------------------------------------- creation

TEST(BlockedBloomFilterCreateTest, SizesWithTheBlockedFormula) {
  auto f = MakeFilter({.capacity = 1'000'000, .fp_rate = 0.01});
  auto params = CalculateParameters(1'000'000, 0.01, FilterKind::kBlocked);
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(f.num_bits(), params->num_bits);
  EXPECT_EQ(f.num_hashes(), params->num_hashes);
  EXPECT_EQ(f.num_blocks() * 512, f.num_bits());
  EXPECT_EQ(f.memory_bytes(), f.num_bits() / 8);
  EXPECT_LE(f.ExpectedFpRate(), 0.01);
  EXPECT_DOUBLE_EQ(f.ExpectedFpRate(), BlockedFpRate(f.num_blocks(), 1e6, f.num_hashes()));
  EXPECT_GT(f.num_bits(), 9'585'059U) << "a blocked filter needs more bits than a classic one";
  EXPECT_EQ(BlockedBloomFilter::UsesAvx2(), kernels::CpuHasAvx2());
  // The AVX2 kernels use aligned loads: blocks must sit on 64-byte boundaries.
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(f.words().data()) % 64, 0U);
  const BlockedBloomFilter copy = f;  // NOLINT(performance-unnecessary-copy-initialization): the copy is under test
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(copy.words().data()) % 64, 0U);
}

TEST(BlockedBloomFilterCreateTest, ExplicitBitsRoundUpToBlocks) {
  auto f = MakeFilter({.num_bits = 1000, .num_hashes = 6});
  EXPECT_EQ(f.num_blocks(), 2U);
  EXPECT_EQ(f.num_bits(), 1024U);
  EXPECT_EQ(f.num_hashes(), 6U);
  EXPECT_EQ(f.capacity(), static_cast<std::uint64_t>(std::round(1024 * std::log(2.0) / 6)));
  EXPECT_DOUBLE_EQ(f.fp_rate(), BlockedFpRate(2, static_cast<double>(f.capacity()), 6));
  EXPECT_TRUE(BlockedBloomFilter::Create({.num_bits = 1, .num_hashes = 16}).ok());
}

// A filter given only capacity and fp_rate gets DefaultBlockedLayout(fp_rate): 256-bit
// blocks and hash id 4 where they need at most 7.5% more bits per key than 512-bit ones
// (sizing.h; docs/FILTERS.md, "Default layout"), 512-bit blocks below 0.1% and whenever
// it is sized by num_bits and num_hashes.
TEST(BlockedBloomFilterCreateTest, DefaultLayoutFollowsTheRate) {
  for (const double p : {0.3, 0.1, 0.05, 0.01, 0.005, 0.002, 0.001, 9e-4, 5e-4, 1e-4, 1e-5, 1e-6, 1e-9}) {
    SCOPED_TRACE(p);
    auto lines = CalculateBlockedParameters(100'000, p, BlockedLayout::kLines512);
    auto lanes = CalculateBlockedParameters(100'000, p, BlockedLayout::kLanes256);
    ASSERT_TRUE(lines.ok() && lanes.ok());
    const bool want_lanes = lanes->bits_per_key <= 1.075 * lines->bits_per_key;
    EXPECT_EQ(DefaultBlockedLayout(p), want_lanes ? BlockedLayout::kLanes256 : BlockedLayout::kLines512)
        << "256-bit: " << lanes->bits_per_key << " bits/key, 512-bit: " << lines->bits_per_key;
    auto f = BlockedBloomFilter::Create({.capacity = 100'000, .fp_rate = p});
    ASSERT_TRUE(f.ok()) << f.error().message();
    EXPECT_EQ(f->layout(), DefaultBlockedLayout(p));
    EXPECT_EQ(f->num_bits(), want_lanes ? lanes->num_bits : lines->num_bits);
    EXPECT_EQ(f->hash_id(), want_lanes ? kHashIdShort64 : kHashIdXxh3DoubleHashing);
  }
  EXPECT_EQ(DefaultBlockedLayout(0.01), BlockedLayout::kLanes256);
  EXPECT_EQ(DefaultBlockedLayout(1e-4), BlockedLayout::kLines512);
  // Sized explicitly: 512-bit blocks (k may be up to 16 there).
  EXPECT_EQ(MakeFilter({.num_bits = 4096, .num_hashes = 7}).layout(), BlockedLayout::kLines512);
  auto explicit_bits = BlockedBloomFilter::Create({.num_bits = 4096, .num_hashes = 7});
  ASSERT_TRUE(explicit_bits.ok());
  EXPECT_EQ(explicit_bits->layout(), BlockedLayout::kLines512);
  // Asked for, a layout is kept at any rate.
  auto asked =
      BlockedBloomFilter::Create({.capacity = 1000, .fp_rate = 0.01, .blocked_layout = BlockedLayout::kLines512});
  ASSERT_TRUE(asked.ok());
  EXPECT_EQ(asked->layout(), BlockedLayout::kLines512);
  asked = BlockedBloomFilter::Create({.capacity = 1000, .fp_rate = 1e-6, .blocked_layout = BlockedLayout::kLanes256});
  ASSERT_TRUE(asked.ok());
  EXPECT_EQ(asked->layout(), BlockedLayout::kLanes256);
}

void ExpectCreateError(const BloomOptions& options, ErrorCode code, const std::string& fragment) {
  auto f = BlockedBloomFilter::Create(options);
  ASSERT_FALSE(f.ok()) << "expected an error mentioning " << fragment;
  EXPECT_EQ(f.error().code(), code) << f.error().message();
  EXPECT_NE(f.error().message().find(fragment), std::string::npos)
      << "message \"" << f.error().message() << "\" should contain \"" << fragment << "\"";
}

TEST(BlockedBloomFilterCreateTest, BadOptionsAreErrorsNamingTheValue) {
  ExpectCreateError({.capacity = 0, .fp_rate = 0.01}, ErrorCode::kInvalidArgument,
                    "capacity must be at least 1, got 0");
  for (const double p : {0.0, 1.0, 1.5, -0.1}) {
    std::ostringstream want;
    want << "(0, 1), got " << p;
    ExpectCreateError({.capacity = 100, .fp_rate = p}, ErrorCode::kInvalidArgument, want.str());
  }
  ExpectCreateError({.capacity = 100, .fp_rate = std::nan("")}, ErrorCode::kInvalidArgument, "got nan");
  ExpectCreateError({.num_bits = 1000, .num_hashes = 0}, ErrorCode::kInvalidArgument,
                    "num_hashes must be in [1, 16], got 0");
  ExpectCreateError({.num_bits = 1000, .num_hashes = 17}, ErrorCode::kInvalidArgument,
                    "num_hashes must be in [1, 16], got 17");
  ExpectCreateError({.num_bits = 0, .num_hashes = 8}, ErrorCode::kInvalidArgument, "num_bits must be at least 1");
}

TEST(BlockedBloomFilterCreateTest, OverTheMemoryLimitIsTooLargeWithoutAllocating) {
  bloomkit_test::ScopedCountingAllocator counting;
  const auto start = std::chrono::steady_clock::now();
  ExpectCreateError({.capacity = 10'000'000'000'000ULL, .fp_rate = 0.01}, ErrorCode::kTooLarge,
                    "capacity 10000000000000");
  ExpectCreateError({.capacity = 1'000'000, .fp_rate = 0.01, .max_memory_bytes = 1'000'000}, ErrorCode::kTooLarge,
                    "1000000");
  ExpectCreateError({.num_bits = std::uint64_t{1} << 40, .num_hashes = 8}, ErrorCode::kTooLarge, "137438953472");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(counting.allocations(), 0U) << "an oversized Create allocated memory";
  EXPECT_LT(seconds, 1.0) << "an oversized Create must fail fast";
}

TEST(BlockedBloomFilterCreateTest, AllocatorWithoutMemoryIsAnError) {
  bloomkit_test::ScopedFailingAllocator failing;
  auto f = BlockedBloomFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code(), ErrorCode::kTooLarge);
  EXPECT_NE(f.error().message().find("out of memory"), std::string::npos) << f.error().message();
}

// ---------------------------------------------------------------------- queries

TEST(BlockedBloomFilterTest, EstimatesFollowTheFill) {
  constexpr std::uint64_t kKeys = 100'000;
  auto f = MakeFilter({.capacity = kKeys, .fp_rate = 0.01});
  EXPECT_EQ(f.EstimatedCount(), 0U);
  EXPECT_EQ(f.EstimatedFpRate(), 0.0);
  for (std::uint64_t i = 0; i < kKeys; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  EXPECT_LE(f.count(), kKeys);
  EXPECT_GE(f.count(), kKeys * 97 / 100);
  EXPECT_NEAR(static_cast<double>(f.EstimatedCount()), kKeys, kKeys * 0.03);
  EXPECT_NEAR(f.EstimatedFpRate(), f.ExpectedFpRate(), f.ExpectedFpRate() * 0.2);
  for (std::uint64_t i = kKeys; i < 3 * kKeys; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  EXPECT_GT(f.EstimatedFpRate(), 10 * f.fp_rate()) << "an overfull filter must show it";
}

TEST(BlockedBloomFilterTest, ClearAndAddIfAbsent) {
  auto f = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  EXPECT_TRUE(f.AddIfAbsent("x").value());
  EXPECT_FALSE(f.AddIfAbsent("x").value());
  EXPECT_EQ(f.count(), 1U);
  for (std::uint64_t i = 0; i < 1000; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  f.Clear();
  EXPECT_EQ(f.CountSetBits(), 0U);
  EXPECT_EQ(f.count(), 0U);
  EXPECT_TRUE(f == MakeFilter({.capacity = 1000, .fp_rate = 0.01}));
}

// count() is the adds recorded (docs/FILTERS.md): every Add, AddHash and batch key
// counts, a repeated key too, while AddIfAbsent and AddHashIfAbsent count only keys that
// set a new bit; all of them set the same bits. For both layouts (the 256-bit one with
// hash id 4 and 8-byte keys, the inline path of -mavx2 callers, and longer keys).
TEST(BlockedBloomFilterTest, AddCountsEveryAddAndAddIfAbsentOnlyNewKeys) {
  for (const BlockedLayout layout : {BlockedLayout::kLanes256, BlockedLayout::kLines512}) {
    SCOPED_TRACE(testing::Message() << "layout " << static_cast<int>(layout));
    const BloomOptions options{.capacity = 2000, .fp_rate = 0.01, .blocked_layout = layout};
    auto plain = MakeFilter(options);
    auto if_absent = MakeFilter(options);
    auto batched = MakeFilter(options);
    std::vector<std::string> keys;
    for (std::uint64_t i = 0; i < 1000; ++i)
      keys.push_back(std::string(Key('c', i % 500).view().substr(0, 5 + i % 500 % 7)));
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    std::uint64_t fresh = 0;
    for (std::size_t i = 0; i < views.size(); ++i) {
      ASSERT_TRUE(plain.Add(views[i]).ok());
      ASSERT_EQ(plain.count(), i + 1) << "a plain add is counted, repeated or not";
      const bool added = if_absent.AddIfAbsent(views[i]).value();
      if (i >= 500) {
        ASSERT_FALSE(added) << "key " << i << " was added before";
      }
      fresh += added ? 1U : 0U;
      ASSERT_EQ(if_absent.count(), fresh);
    }
    EXPECT_GE(fresh, 490U);  // 500 distinct keys, a few false positives at most
    ASSERT_TRUE(batched.AddBatch(views).ok());
    EXPECT_EQ(batched.count(), views.size());
    EXPECT_TRUE(std::ranges::equal(plain.words(), if_absent.words()));
    EXPECT_TRUE(std::ranges::equal(plain.words(), batched.words()));
    EXPECT_NEAR(static_cast<double>(plain.EstimatedCount()), 500, 50);
    // Caller hashes: AddHash and AddHashBatch count every call, AddHashIfAbsent new ones.
    auto hashed = MakeFilter(options);
    for (std::uint64_t i = 0; i < 300; ++i) ASSERT_TRUE(hashed.AddHash(i % 100).ok());
    EXPECT_EQ(hashed.count(), 300U);
    std::vector<std::uint64_t> hashes(300);
    for (std::uint64_t i = 0; i < 300; ++i) hashes[i] = i % 100;
    ASSERT_TRUE(hashed.AddHashBatch(hashes).ok());
    EXPECT_EQ(hashed.count(), 600U);
    for (std::uint64_t i = 0; i < 100; ++i) EXPECT_FALSE(hashed.AddHashIfAbsent(i).value());
    EXPECT_TRUE(hashed.AddHashIfAbsent(1000).value());
    EXPECT_EQ(hashed.count(), 601U);
  }
}

TEST(BlockedBloomFilterTest, AddHashUsesTheExpandedHash) {
  auto a = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  auto b = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  EXPECT_TRUE(a.AddHash(42).ok());
  b.AddHashPair(ExpandHash(42));
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a.MayContainHash(42));
  EXPECT_FALSE(a.AddHashIfAbsent(42).value());
  EXPECT_TRUE(a.AddHashIfAbsent(43).value());
}

// Single-key calls take a short-key and a long-key path (hash_inline.h); both must hash
// as HashKey does, across every length class of XXH3 (0, 1-3, 4-8, 9-16, 17-128,
// 129-240, longer).
TEST(BlockedBloomFilterTest, SingleKeyCallsHashAsHashKeyAtEveryLength) {
  std::mt19937_64 rng(7);
  for (std::size_t len = 0; len <= 300; ++len) {
    std::string key(len, '\0');
    for (char& c : key) c = static_cast<char>(rng());
    auto by_key = MakeFilter({.capacity = 100, .fp_rate = 0.01});
    auto by_hash = MakeFilter({.capacity = 100, .fp_rate = 0.01});
    EXPECT_TRUE(by_key.Add(key).ok());
    by_hash.AddHashPair(HashKey(key));
    ASSERT_TRUE(by_key == by_hash) << "Add, key of " << len << " bytes";
    ASSERT_TRUE(by_hash.MayContain(key)) << len;
    ASSERT_FALSE(by_hash.AddIfAbsent(key).value()) << len;
    auto fresh = MakeFilter({.capacity = 100, .fp_rate = 0.01});
    ASSERT_TRUE(fresh.AddIfAbsent(key).value()) << len;
    ASSERT_TRUE(fresh == by_hash) << "AddIfAbsent, key of " << len << " bytes";
  }
}

const std::uint64_t kBatchSizes[] = {0, 1, 3, 15, 16, 17, 31, 33, 1000, 4099};

TEST(BlockedBloomFilterBatchTest, BatchesEqualSingleKeyCalls) {
  auto f = MakeFilter({.capacity = 3000, .fp_rate = 0.05});
  for (std::uint64_t i = 0; i < 3000; ++i) EXPECT_TRUE(f.Add(Key('p', i)).ok());
  for (const std::uint64_t n : kBatchSizes) {
    KeySet present('p', 0, n);
    KeySet absent('a', 0, n);
    std::vector<std::string_view> keys;
    for (std::uint64_t i = 0; i < n; ++i) keys.push_back(i % 2 == 0 ? present.views[i] : absent.views[i]);
    std::unique_ptr<bool[]> out(new bool[n + 1]);
    out[n] = true;
    const std::size_t hits = f.MayContainBatch(keys, std::span<bool>(out.get(), n + 1));
    std::size_t want = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], f.MayContain(keys[i])) << "batch of " << n << ", key " << i;
      want += out[i] ? 1U : 0U;
    }
    EXPECT_EQ(hits, want);
    EXPECT_TRUE(out[n]) << "wrote past the keys";

    auto batched = MakeFilter({.capacity = 2000, .fp_rate = 0.01});
    auto single = MakeFilter({.capacity = 2000, .fp_rate = 0.01});
    EXPECT_TRUE(batched.AddBatch(present.views).ok());
    for (const auto key : present.views) EXPECT_TRUE(single.Add(key).ok());
    EXPECT_TRUE(batched == single) << "batch of " << n;
    EXPECT_EQ(batched.Serialize(), single.Serialize()) << "batch of " << n;
  }
}

// Filters of 4 MiB and more hash and prefetch 64 keys ahead instead of 16; the batch
// sizes below end inside a group, on its edge and past it.
TEST(BlockedBloomFilterBatchTest, BatchesOfAFilterInMemoryEqualSingleKeyCalls) {
  auto f = MakeFilter({.capacity = 500'000, .num_bits = std::uint64_t{40} << 20, .num_hashes = 8});
  ASSERT_GE(f.memory_bytes(), std::uint64_t{4} << 20);
  KeySet present('p', 0, 5'000);
  KeySet absent('a', 0, 5'000);
  auto single = f;
  EXPECT_TRUE(f.AddBatch(present.views).ok());
  for (const auto key : present.views) EXPECT_TRUE(single.Add(key).ok());
  ASSERT_TRUE(f == single);
  for (const std::size_t n : {std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{5'000}}) {
    std::vector<std::string_view> keys;
    for (std::size_t i = 0; i < n; ++i) keys.push_back(i % 2 == 0 ? present.views[i] : absent.views[i]);
    std::unique_ptr<bool[]> out(new bool[n]);
    const std::size_t hits = f.MayContainBatch(keys, std::span<bool>(out.get(), n));
    std::size_t want = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], f.MayContain(keys[i])) << "batch of " << n << ", key " << i;
      if (i % 2 == 0) {
        ASSERT_TRUE(out[i]) << "added key " << i << " not found";
      }
      want += out[i] ? 1U : 0U;
    }
    EXPECT_EQ(hits, want) << "batch of " << n;
  }
}

TEST(BlockedBloomFilterBatchTest, HashBatchesEqualSingleHashCalls) {
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t i = 0; i < 1000; ++i) hashes.push_back(bloomkit_test::SplitMix64(i * 17 + 3));
  auto batched = MakeFilter({.capacity = 2000, .fp_rate = 0.01});
  auto single = MakeFilter({.capacity = 2000, .fp_rate = 0.01});
  EXPECT_TRUE(batched.AddHashBatch(std::span<const std::uint64_t>(hashes).first(500)).ok());
  for (std::size_t i = 0; i < 500; ++i) EXPECT_TRUE(single.AddHash(hashes[i]).ok());
  EXPECT_TRUE(batched == single);
  std::unique_ptr<bool[]> out(new bool[hashes.size()]);
  const std::size_t hits = batched.MayContainHashBatch(hashes, std::span<bool>(out.get(), hashes.size()));
  std::size_t want = 0;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    ASSERT_EQ(out[i], batched.MayContainHash(hashes[i])) << "hash " << i;
    if (i < 500) {
      ASSERT_TRUE(out[i]) << "added hash " << i << " not found";
    }
    want += out[i] ? 1U : 0U;
  }
  EXPECT_EQ(hits, want);
}

// ---------------------------------------------------------------------- merge

TEST(BlockedBloomFilterMergeTest, UnionAndIntersectionOfBits) {
  auto a = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  auto b = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  for (std::uint64_t i = 0; i < 300; ++i) EXPECT_TRUE(a.Add(Key('A', i)).ok());
  for (std::uint64_t i = 0; i < 300; ++i) EXPECT_TRUE(b.Add(Key('B', i)).ok());
  auto merged = a;
  ASSERT_TRUE(merged.Merge(b).ok());
  auto intersected = a;
  ASSERT_TRUE(intersected.Intersect(b).ok());
  for (std::size_t w = 0; w < a.words().size(); ++w) {
    EXPECT_EQ(merged.words()[w], a.words()[w] | b.words()[w]) << "word " << w;
    EXPECT_EQ(intersected.words()[w], a.words()[w] & b.words()[w]) << "word " << w;
  }
  EXPECT_EQ(merged.count(), merged.EstimatedCount());
  EXPECT_NEAR(static_cast<double>(merged.count()), 600, 30);
}

TEST(BlockedBloomFilterMergeTest, DifferentBlocksOrHashesAreIncompatible) {
  auto a = MakeFilter({.num_bits = 5120, .num_hashes = 8});
  auto more_blocks = MakeFilter({.num_bits = 5632, .num_hashes = 8});
  auto more_hashes = MakeFilter({.num_bits = 5120, .num_hashes = 9});
  for (const BlockedBloomFilter* other : {&more_blocks, &more_hashes}) {
    const Status merge = a.Merge(*other);
    ASSERT_FALSE(merge.ok());
    EXPECT_EQ(merge.error().code(), ErrorCode::kIncompatible);
    EXPECT_NE(merge.error().message().find("5120 bits/8 hashes"), std::string::npos) << merge.error().message();
    const Status intersect = a.Intersect(*other);
    ASSERT_FALSE(intersect.ok());
    EXPECT_EQ(intersect.error().code(), ErrorCode::kIncompatible);
  }
}

// ---------------------------------------------------------------------- value type, loading

TEST(BlockedBloomFilterValueTest, CopiesAreDeepAndMovesSteal) {
  auto a = MakeFilter({.capacity = 1000, .fp_rate = 0.01});
  EXPECT_TRUE(a.Add("one").ok());
  BlockedBloomFilter copy = a;
  EXPECT_TRUE(copy.Add("two").ok());
  EXPECT_FALSE(a.MayContain("two"));
  EXPECT_TRUE(copy.MayContain("one"));
  const std::uint64_t* data = copy.words().data();
  BlockedBloomFilter moved = std::move(copy);
  EXPECT_EQ(moved.words().data(), data);
  EXPECT_TRUE(moved.MayContain("two"));
  a = moved;
  EXPECT_TRUE(a == moved);
}

TEST(BlockedBloomFilterLoadTest, AClassicFileIsTheWrongKind) {
  auto classic = BloomFilter::Create({.capacity = 100, .fp_rate = 0.01});
  ASSERT_TRUE(classic.ok());
  auto loaded = BlockedBloomFilter::Deserialize(classic->Serialize());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code(), ErrorCode::kWrongKind);
  EXPECT_NE(loaded.error().message().find("classic"), std::string::npos) << loaded.error().message();
}

TEST(BlockedBloomFilterLoadTest, HashCountOutOfRangeIsRejected) {
  auto f = MakeFilter({.num_bits = 5120, .num_hashes = 8});
  for (const std::uint64_t k : {0ULL, 17ULL, 64ULL}) {
    auto bytes = f.Serialize();
    bloomkit_test::StoreLE(bytes, bloomkit_test::layout::kParams + 8, k);
    bloomkit_test::FixChecksum(bytes);
    auto loaded = BlockedBloomFilter::Deserialize(bytes);
    ASSERT_FALSE(loaded.ok()) << "k=" << k;
    EXPECT_EQ(loaded.error().code(), ErrorCode::kParameterMismatch) << loaded.error().message();
  }
  // A block count whose byte size overflows 64 bits is a mismatch, not a wraparound.
  auto bytes = f.Serialize();
  bloomkit_test::StoreLE(bytes, bloomkit_test::layout::kParams, (std::uint64_t{1} << 58) + 10);
  bloomkit_test::FixChecksum(bytes);
  auto loaded = BlockedBloomFilter::Deserialize(bytes);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code(), ErrorCode::kParameterMismatch) << loaded.error().message();
}

}  // namespace
}  // namespace bloomkit
