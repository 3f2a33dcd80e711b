// SPDX-License-Identifier: Apache-2.0
// Filters past 2^34 bits, in CI's time and memory: the 2 GiB of words are lazily zeroed
// pages (the default allocator maps them fresh; untouched pages cost nothing), and the
// keys are hash pairs chosen to probe the top of the index range, where a 32-bit index
// or a 32-bit intermediate would wrap. Checked: classic and blocked filters (both block
// layouts) set and find the bits at the 64-bit positions the format defines, and a
// sparse file of the classic filter, written field by field as docs/FORMAT.md says,
// answers the same through a memory-mapped view and passes VerifyFile. A RedisBloom-format
// cuckoo sub-filter past 2^32 slots finds what its eviction chain placed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/mapped_filter.h"
#include "bloomkit/redisbloom.h"
#include "contract/test_support.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"
#include "internal/redisbloom_cuckoo.h"

namespace bloomkit {
namespace {

constexpr std::uint64_t k2To34 = std::uint64_t{1} << 34;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// Hash pairs whose first probe is at the top of the range: FastRange64(h1, m) with h1
// near 2^64 is near m - 1. The later probes of each pair spread over the range (h2 is
// large, so that x + h2 lands elsewhere).
std::vector<HashPair> HighPairs() {
  std::vector<HashPair> pairs;
  for (std::uint64_t i = 0; i < 8; ++i) pairs.push_back({kMax - i * 0x1000'0000'0000ULL, (2 * i + 3) * kProbeStep});
  return pairs;
}

TEST(BigFilterTest, ClassicPast2To34BitsUsesFull64BitPositions) {
  // Not a multiple of 64: the last word is partial.
  constexpr std::uint64_t kBits = k2To34 + 4097;
  constexpr std::uint32_t kHashes = 3;
  auto made = BloomFilter::Create({.num_bits = kBits, .num_hashes = kHashes});
  ASSERT_TRUE(made.ok()) << made.error().message();
  BloomFilter& filter = made.value();
  ASSERT_EQ(filter.num_bits(), kBits);
  ASSERT_EQ(filter.words().size(), kBits / 64 + 1);
  std::uint64_t highest = 0;
  for (const HashPair& pair : HighPairs()) {
    EXPECT_FALSE(filter.MayContainHashPair(pair));
    EXPECT_TRUE(filter.AddHashPair(pair));
    ProbeWalk walk(pair);
    for (std::uint32_t i = 0; i < kHashes; ++i) {
      const std::uint64_t pos = walk.Next(kBits);
      ASSERT_LT(pos, kBits);
      highest = std::max(highest, pos);
      // The bit is where the 64-bit position says, and not at the position wrapped to
      // 32 bits (those words are untouched unless another probe hit them).
      EXPECT_EQ((filter.words()[pos >> 6] >> (pos & 63)) & 1U, 1U) << pos;
    }
    EXPECT_TRUE(filter.MayContainHashPair(pair));
  }
  EXPECT_EQ(highest, kBits - 1);  // h1 = 2^64 - 1 probes the very last bit
  EXPECT_EQ(filter.CountSetBits(), HighPairs().size() * kHashes);
  EXPECT_EQ(filter.words()[(kBits - 1) >> 6] >> ((kBits - 1) & 63), 1U);  // nothing past num_bits
  // Keys, one at a time and in batches (the prefetching batch path computes 64-bit offsets too).
  std::vector<std::string> keys;
  keys.reserve(16);
  for (int i = 0; i < 16; ++i) keys.push_back("big:" + std::to_string(i));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  ASSERT_TRUE(filter.AddBatch(views).ok());
  std::unique_ptr<bool[]> out(new bool[views.size()]);
  EXPECT_EQ(filter.MayContainBatch(views, std::span<bool>(out.get(), views.size())), views.size());
  for (const std::string& key : keys) EXPECT_TRUE(filter.MayContain(key));
  int absent_hits = 0;
  for (int i = 0; i < 1000; ++i) absent_hits += filter.MayContain("absent:" + std::to_string(i)) ? 1 : 0;
  EXPECT_EQ(absent_hits, 0);  // ~70 bits set of 2^34: a false positive has odds ~1e-22
}

TEST(BigFilterTest, BlockedPast2To34BitsReachesItsLastBlock) {
  for (const BlockedLayout layout : {BlockedLayout::kLines512, BlockedLayout::kLanes256}) {
    const bool lanes = layout == BlockedLayout::kLanes256;
    const std::uint64_t block_bits = lanes ? 256 : 512;
    auto made =
        BlockedBloomFilter::Create({.num_bits = k2To34 + block_bits, .num_hashes = 4, .blocked_layout = layout});
    ASSERT_TRUE(made.ok()) << made.error().message();
    BlockedBloomFilter& filter = made.value();
    const std::uint64_t num_blocks = filter.num_blocks();
    ASSERT_EQ(num_blocks, k2To34 / block_bits + 1);
    const std::uint64_t words_per_block = block_bits / 64;
    for (const HashPair& pair : HighPairs()) {
      EXPECT_FALSE(filter.MayContainHashPair(pair));
      EXPECT_TRUE(filter.AddHashPair(pair));
      EXPECT_TRUE(filter.MayContainHashPair(pair));
      // The block the format names (h1 picks it in both layouts) holds the key's bits.
      const std::uint64_t block = FastRange64(pair.h1, num_blocks);
      std::uint64_t bits = 0;
      for (std::uint64_t w = 0; w < words_per_block; ++w) {
        bits += static_cast<std::uint64_t>(std::popcount(filter.words()[block * words_per_block + w]));
      }
      EXPECT_GE(bits, 1U) << block;
    }
    // h1 = 2^64 - 1: the last block, past bit 2^34.
    std::uint64_t last = 0;
    for (std::uint64_t w = 0; w < words_per_block; ++w) last |= filter.words()[(num_blocks - 1) * words_per_block + w];
    EXPECT_NE(last, 0U) << block_bits;
    std::vector<std::string> keys;
    keys.reserve(16);
    for (int i = 0; i < 16; ++i) keys.push_back("big:" + std::to_string(i));
    std::vector<std::string_view> views(keys.begin(), keys.end());
    ASSERT_TRUE(filter.AddBatch(views).ok());
    std::unique_ptr<bool[]> out(new bool[views.size()]);
    EXPECT_EQ(filter.MayContainBatch(views, std::span<bool>(out.get(), views.size())), views.size());
  }
}

// The classic filter as a sparse file: the header field by field (docs/FORMAT.md), the
// few non-zero words at their offsets, holes for the rest, and the checksum streamed
// over the 2 GiB. A mapped view answers as the filter did; VerifyFile accepts it.
TEST(BigFilterTest, ASparseFilePast2To34BitsMapsAndVerifies) {
  constexpr std::uint64_t kBits = k2To34 + 4097;
  constexpr std::uint32_t kHashes = 3;
  auto made = BloomFilter::Create({.num_bits = kBits, .num_hashes = kHashes});
  ASSERT_TRUE(made.ok());
  BloomFilter& filter = made.value();
  std::vector<std::uint64_t> touched;
  for (const HashPair& pair : HighPairs()) {
    static_cast<void>(filter.AddHashPair(pair));
    ProbeWalk walk(pair);
    for (std::uint32_t i = 0; i < kHashes; ++i) touched.push_back(walk.Next(kBits) >> 6);
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  const std::uint64_t payload_bytes = filter.words().size() * 8;

  std::byte header[kHeaderBytes] = {};
  for (std::size_t i = 0; i < kFileMagic.size(); ++i) header[i] = static_cast<std::byte>(kFileMagic[i]);
  internal::StoreLE<std::uint32_t>(header + 8, kFormatVersion);
  internal::StoreLE<std::uint32_t>(header + 12, kHeaderBytes);
  internal::StoreLE<std::uint16_t>(header + 16, 1);  // classic
  internal::StoreLE<std::uint16_t>(header + 18, kHashIdXxh3DoubleHashing);
  internal::StoreLE<std::uint64_t>(header + 24, kHashSeed);
  internal::StoreLE<std::uint64_t>(header + 32, filter.capacity());
  internal::StoreLE<std::uint64_t>(header + 40, filter.count());
  internal::StoreLE<std::uint64_t>(header + 48, payload_bytes);
  internal::StoreLE<std::uint64_t>(header + 56, payload_bytes);
  internal::StoreLE<std::uint64_t>(header + 64, std::bit_cast<std::uint64_t>(filter.fp_rate()));
  internal::StoreLE<std::uint64_t>(header + 72, kBits);
  internal::StoreLE<std::uint64_t>(header + 80, kHashes);

  bloomkit_test::TempDir dir;
  const std::filesystem::path path = dir.path() / "big.bf";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, header, kHeaderBytes, 0), static_cast<ssize_t>(kHeaderBytes));
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(kHeaderBytes + payload_bytes)), 0);
  for (const std::uint64_t word : touched) {
    std::byte bytes[8];
    internal::StoreLE<std::uint64_t>(bytes, filter.words()[word]);
    ASSERT_EQ(::pwrite(fd, bytes, 8, static_cast<off_t>(kHeaderBytes + word * 8)), 8);
  }
  // XXH3-64 of header and payload, the zero runs fed from one zero buffer.
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, header, kHeaderBytes);
  const std::vector<std::uint64_t> zeros(std::size_t{1} << 17);  // 1 MiB
  std::uint64_t next = 0;                                        // the next word to feed
  auto feed_zeros = [&](std::uint64_t until) {
    while (next < until) {
      const std::uint64_t n = std::min<std::uint64_t>(until - next, zeros.size());
      XXH3_64bits_update(&state, zeros.data(), n * 8);
      next += n;
    }
  };
  for (const std::uint64_t word : touched) {
    feed_zeros(word);
    std::byte bytes[8];
    internal::StoreLE<std::uint64_t>(bytes, filter.words()[word]);
    XXH3_64bits_update(&state, bytes, 8);
    next = word + 1;
  }
  feed_zeros(filter.words().size());
  std::byte sum[8];
  internal::StoreLE<std::uint64_t>(sum, XXH3_64bits_digest(&state));
  ASSERT_EQ(::pwrite(fd, sum, 8, static_cast<off_t>(kHeaderBytes + payload_bytes)), 8);
  ASSERT_EQ(::close(fd), 0);

  auto view = MappedFilter::Open(path);
  ASSERT_TRUE(view.ok()) << view.error().message();
  const BloomFilter* mapped = view->get_if<BloomFilter>();
  ASSERT_NE(mapped, nullptr);
  EXPECT_EQ(mapped->num_bits(), kBits);
  for (const HashPair& pair : HighPairs()) EXPECT_TRUE(mapped->MayContainHashPair(pair));
  for (std::uint64_t i = 0; i < 100; ++i) {
    const HashPair absent{kMax - 7 * i - 1, 0x1234567 + i};
    EXPECT_EQ(mapped->MayContainHashPair(absent), filter.MayContainHashPair(absent));
  }
  auto verified = VerifyFile(path);
  ASSERT_TRUE(verified.ok()) << verified.error().message();
  EXPECT_EQ(verified->params[0], kBits);
}

// A RedisBloom-format cuckoo sub-filter of more than 2^32 slots: 2^25 buckets of 129
// (4.03 GiB of lazily zeroed pages, of which a few are touched). Both buckets of a key
// whose offset wraps are filled, so its insert goes through the eviction chain; the
// chain must place it where lookups look (a write at the unwrapped offset makes the add
// succeed and the key then go unfound).
TEST(BigFilterTest, RedisCuckooEvictionPast2To32SlotsIsFound) {
  constexpr std::uint64_t kBuckets = std::uint64_t{1} << 25;
  constexpr std::uint32_t kBucketSize = 129;
  auto made = RedisCuckooFilter::Create({.capacity = kBuckets * kBucketSize,
                                         .bucket_size = kBucketSize,
                                         .expansion = 0,
                                         .max_memory_bytes = std::uint64_t{5} << 30});
  if (!made.ok() && made.error().code() == ErrorCode::kTooLarge) {
    GTEST_SKIP() << "no address space for 4 GiB: " << made.error().message();
  }
  ASSERT_TRUE(made.ok()) << made.error().message();
  RedisCuckooFilter& filter = made.value();
  ASSERT_EQ(filter.num_buckets(), kBuckets);
  ASSERT_GT(filter.capacity(), std::uint64_t{1} << 32);

  const std::uint64_t key = kBuckets - 1000;  // its bucket's offset, 129 * key, wraps
  const auto fp = static_cast<std::uint8_t>(key % 255 + 1);
  const std::uint64_t other = internal::RedisCuckooAltHash(fp, key) % kBuckets;
  const std::uint64_t o1 = internal::RedisCuckooSlotOffset(key, kBuckets, kBucketSize);
  const std::uint64_t o2 = internal::RedisCuckooSlotOffset(other, kBuckets, kBucketSize);
  ASSERT_NE(o1, key * kBucketSize);
  ASSERT_TRUE(o1 + kBucketSize <= o2 || o2 + kBucketSize <= o1);
  // Fill both of the key's buckets with other fingerprints: hashes that are the bucket
  // plus multiples of the bucket count have that bucket first.
  std::vector<std::uint64_t> fillers;
  for (const std::uint64_t bucket : {key, other}) {
    std::uint64_t placed = 0;
    for (std::uint64_t j = 1; placed < kBucketSize; ++j) {
      const std::uint64_t h = bucket + j * kBuckets;
      if (h % 255 + 1 == fp) continue;
      ASSERT_TRUE(filter.AddHash(h).ok());
      fillers.push_back(h);
      ++placed;
    }
  }
  ASSERT_FALSE(filter.MayContainHash(key));
  ASSERT_TRUE(filter.AddHash(key).ok());  // both buckets full: an eviction
  EXPECT_TRUE(filter.MayContainHash(key));
  EXPECT_EQ(filter.OccurrencesHash(key), 1U);
  for (const std::uint64_t h : fillers) EXPECT_TRUE(filter.MayContainHash(h)) << h;
  EXPECT_EQ(filter.count(), fillers.size() + 1);
  EXPECT_TRUE(filter.RemoveHash(key));
  EXPECT_FALSE(filter.MayContainHash(key));
}

}  // namespace
}  // namespace bloomkit
