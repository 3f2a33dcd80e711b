// SPDX-License-Identifier: Apache-2.0
// What a filter can reach through its own API, every loader of it accepts: counts stop
// at kMaxFileCount (2^63 - 1), the most a file holds, or the write that would pass it
// is refused (options.h). Each kind is loaded with its counts at that limit (a file
// resealed after the count was patched, or RedisBloom's header chunks), then added to,
// removed from and merged, and must then save and load again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.h"
#include "bloomkit/redisbloom_codec.h"
#include "contract/test_support.h"

namespace {

using bloomkit::ErrorCode;
using bloomkit::kMaxFileCount;
using bloomkit_test::Bytes;
using bloomkit_test::FixChecksum;
using bloomkit_test::LoadU64;
using bloomkit_test::StoreLE;
namespace layout = bloomkit_test::layout;

constexpr std::uint64_t kTop = ~std::uint64_t{0};

template <typename Filter>
Bytes WithCount(const Filter& filter, std::uint64_t count) {
  Bytes b = filter.Serialize();
  StoreLE(b, layout::kCount, count);
  FixChecksum(b);
  return b;
}

// Serializes, loads, and checks the loaded filter equals `filter`.
template <typename Filter>
void ExpectLoadsAgain(const Filter& filter) {
  auto again = Filter::Deserialize(filter.Serialize());
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(again->count(), filter.count());
  EXPECT_TRUE(again.value() == filter);
}

template <typename Filter>
void BloomKindSaturates(Filter filter) {
  auto full = Filter::Deserialize(WithCount(filter, kMaxFileCount));
  ASSERT_TRUE(full.ok()) << full.error().message();
  ASSERT_EQ(full->count(), kMaxFileCount);
  ASSERT_TRUE(full->Add("one more").ok());
  EXPECT_TRUE(full->MayContain("one more"));
  EXPECT_EQ(full->count(), kMaxFileCount);  // saturated, not 2^63
  const std::vector<std::string_view> keys = {"b1", "b2", "b3", "b4"};
  ASSERT_TRUE(full->AddBatch(keys).ok());
  ASSERT_TRUE(full->AddHash(12345).ok());
  const std::vector<std::uint64_t> hashes = {1, 2, 3};
  ASSERT_TRUE(full->AddHashBatch(hashes).ok());
  EXPECT_EQ(full->count(), kMaxFileCount);
  ExpectLoadsAgain(full.value());
}

TEST(CountLimit, ClassicCountSaturates) {
  for (const std::uint16_t hash_id : {bloomkit::kHashIdXxh3DoubleHashing, bloomkit::kHashIdShort64}) {
    auto f = bloomkit::BloomFilter::Create({.num_bits = 1000, .num_hashes = 3, .hash_id = hash_id});
    ASSERT_TRUE(f.ok());
    BloomKindSaturates(std::move(f).value());
  }
}

TEST(CountLimit, BlockedCountSaturates) {
  for (const auto layout : {bloomkit::BlockedLayout::kLines512, bloomkit::BlockedLayout::kLanes256}) {
    auto f = bloomkit::BlockedBloomFilter::Create({.capacity = 100, .fp_rate = 0.01, .blocked_layout = layout});
    ASSERT_TRUE(f.ok());
    BloomKindSaturates(std::move(f).value());
  }
}

TEST(CountLimit, ConcurrentCountSaturates) {
  auto f = bloomkit::BloomFilter::Create({.num_bits = 1000, .num_hashes = 3});
  ASSERT_TRUE(f.ok());
  auto full = bloomkit::ConcurrentBloomFilter::Deserialize(WithCount(f.value(), kMaxFileCount));
  ASSERT_TRUE(full.ok()) << full.error().message();
  ASSERT_TRUE(full->Add("one more").ok());
  EXPECT_EQ(full->count(), kMaxFileCount);
  auto again = bloomkit::ConcurrentBloomFilter::Deserialize(full->Serialize());
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(again->count(), kMaxFileCount);
}

TEST(CountLimit, CountingCountSaturatesAndRemoves) {
  auto f = bloomkit::CountingBloomFilter::Create({.bloom = {.num_bits = 200, .num_hashes = 3}});
  ASSERT_TRUE(f.ok());
  auto full = bloomkit::CountingBloomFilter::Deserialize(WithCount(f.value(), kMaxFileCount));
  ASSERT_TRUE(full.ok()) << full.error().message();
  ASSERT_TRUE(full->Add("k").ok());
  ASSERT_TRUE(full->Add("k").ok());
  EXPECT_EQ(full->count(), kMaxFileCount);
  ExpectLoadsAgain(full.value());
  EXPECT_TRUE(full->Remove("k"));
  EXPECT_EQ(full->count(), kMaxFileCount - 1);
  ExpectLoadsAgain(full.value());
}

// Merging full filters: the estimate of a filter with every bit set is 2^64 - 1, which
// no file holds; the merged count stops at the limit.
TEST(CountLimit, MergedFullClassicAndBlockedFiltersLoadAgain) {
  auto classic = bloomkit::BloomFilter::Create({.num_bits = 64, .num_hashes = 1});
  ASSERT_TRUE(classic.ok());
  for (int i = 0; classic->FillRatio() < 1 && i < 100000; ++i) ASSERT_TRUE(classic->Add(std::to_string(i)).ok());
  ASSERT_EQ(classic->FillRatio(), 1);
  const bloomkit::BloomFilter copy = classic.value();
  ASSERT_TRUE(classic->Merge(copy).ok());
  EXPECT_LE(classic->count(), kMaxFileCount);
  ExpectLoadsAgain(classic.value());
  ASSERT_TRUE(classic->Intersect(copy).ok());
  ExpectLoadsAgain(classic.value());
  const std::vector<std::byte> bytes = copy.Serialize();  // the reader reads it, and does not own it
  auto reader = bloomkit::FilterReader::OpenBytes(bytes, std::nullopt);
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE(classic->MergeFrom(reader.value()).ok());
  ExpectLoadsAgain(classic.value());

  auto blocked = bloomkit::BlockedBloomFilter::Create({.num_bits = 512, .num_hashes = 8});
  ASSERT_TRUE(blocked.ok());
  for (int i = 0; blocked->FillRatio() < 1 && i < 100000; ++i) ASSERT_TRUE(blocked->Add(std::to_string(i)).ok());
  ASSERT_EQ(blocked->FillRatio(), 1);
  const bloomkit::BlockedBloomFilter blocked_copy = blocked.value();
  ASSERT_TRUE(blocked->Merge(blocked_copy).ok());
  EXPECT_LE(blocked->count(), kMaxFileCount);
  ExpectLoadsAgain(blocked.value());
  const std::vector<std::byte> blocked_bytes = blocked_copy.Serialize();
  auto blocked_reader = bloomkit::FilterReader::OpenBytes(blocked_bytes, std::nullopt);
  ASSERT_TRUE(blocked_reader.ok());
  ASSERT_TRUE(blocked->MergeFrom(blocked_reader.value()).ok());
  ExpectLoadsAgain(blocked.value());
}

// A scalable filter's file: the outer header, then each stage as a classic file padded
// to 64 bytes. Applies `edit` to each stage's bytes, reseals every stage, then the file.
template <typename Edit>
Bytes EditStages(Bytes b, Edit edit) {
  std::size_t at = layout::kHeaderBytes;
  for (std::size_t i = 0; at + layout::kHeaderBytes < b.size() - layout::kChecksumBytes; ++i) {
    const std::size_t stage_bytes =
        layout::kHeaderBytes + LoadU64(b, at + layout::kStoredBytes) + layout::kChecksumBytes;
    Bytes stage(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + stage_bytes));
    edit(i, stage);
    FixChecksum(stage);
    std::copy(stage.begin(), stage.end(), b.begin() + static_cast<std::ptrdiff_t>(at));
    at += (stage_bytes + 63) / 64 * 64;
  }
  FixChecksum(b);
  return b;
}

TEST(CountLimit, ScalableRefusesAnAddPastTheLimit) {
  auto f = bloomkit::ScalableBloomFilter::Create({.initial_capacity = 16, .fp_rate = 0.01});
  ASSERT_TRUE(f.ok());
  Bytes b = f->Serialize();
  StoreLE(b, layout::kCount, kMaxFileCount);
  b = EditStages(b, [](std::size_t, Bytes& stage) { StoreLE(stage, layout::kCount, kMaxFileCount); });
  auto full = bloomkit::ScalableBloomFilter::Deserialize(b);
  ASSERT_TRUE(full.ok()) << full.error().message();
  ASSERT_EQ(full->count(), kMaxFileCount);
  auto added = full->AddIfAbsent("one more");
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.error().code(), ErrorCode::kFull);
  EXPECT_NE(added.error().message().find("9223372036854775807"), std::string::npos) << added.error().message();
  const std::vector<std::string_view> keys = {"b1", "b2"};
  EXPECT_FALSE(full->AddBatch(keys).ok());
  EXPECT_EQ(full->num_stages(), 1U);  // no stage was added for the refused key
  ExpectLoadsAgain(full.value());
  // One below the limit: the next key goes in, the one after is refused.
  StoreLE(b, layout::kCount, kMaxFileCount - 1);
  b = EditStages(b, [](std::size_t, Bytes& stage) { StoreLE(stage, layout::kCount, kMaxFileCount - 1); });
  auto almost = bloomkit::ScalableBloomFilter::Deserialize(b);
  ASSERT_TRUE(almost.ok()) << almost.error().message();
  ASSERT_TRUE(almost->Add("one more").ok());
  EXPECT_EQ(almost->count(), kMaxFileCount);
  EXPECT_FALSE(almost->Add("and another").ok());
  ExpectLoadsAgain(almost.value());
}

// Two stages with every bit set: each stage's estimate is the limit, their sum is more.
TEST(CountLimit, MergedFullScalableFilterLoadsAgain) {
  auto f = bloomkit::ScalableBloomFilter::Create({.initial_capacity = 4, .fp_rate = 0.01});
  ASSERT_TRUE(f.ok());
  for (int i = 0; f->num_stages() < 2; ++i) ASSERT_TRUE(f->Add(std::to_string(i)).ok());
  const Bytes b = EditStages(f->Serialize(), [](std::size_t, Bytes& stage) {
    const std::uint64_t num_bits = LoadU64(stage, layout::kParams);  // every bit of the stage set
    for (std::uint64_t i = 0; i < num_bits; ++i) {
      stage[layout::kHeaderBytes + i / 8] |= std::byte{static_cast<unsigned char>(1U << (i % 8))};
    }
  });
  auto saturated = bloomkit::ScalableBloomFilter::Deserialize(b);
  ASSERT_TRUE(saturated.ok()) << saturated.error().message();
  const bloomkit::ScalableBloomFilter copy = saturated.value();
  ASSERT_TRUE(saturated->Merge(copy).ok());
  EXPECT_LE(saturated->count(), kMaxFileCount);
  ExpectLoadsAgain(saturated.value());
  auto reader = bloomkit::FilterReader::OpenBytes(b, std::nullopt);
  ASSERT_TRUE(reader.ok());
  bloomkit::ScalableBloomFilter from_file = copy;
  ASSERT_TRUE(from_file.MergeFrom(reader.value()).ok());
  EXPECT_LE(from_file.count(), kMaxFileCount);
  ExpectLoadsAgain(from_file);
}

// A cuckoo filter's count is its fingerprints; its delete count is loaded as written.
TEST(CountLimit, CuckooDeleteCountStopsAtTheLimit) {
  auto f = bloomkit::CuckooFilter::Create({.capacity = 100, .fp_rate = 0.01});
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->Add("k").ok());
  ASSERT_TRUE(f->Add("k").ok());
  constexpr std::size_t kDeletes = layout::kParams + std::size_t{8} * 5;
  Bytes b = f->Serialize();
  StoreLE(b, kDeletes, kMaxFileCount);
  FixChecksum(b);
  auto full = bloomkit::CuckooFilter::Deserialize(b);
  ASSERT_TRUE(full.ok()) << full.error().message();
  EXPECT_TRUE(full->Remove("k"));
  EXPECT_EQ(full->num_deletes(), kMaxFileCount);
  ExpectLoadsAgain(full.value());
  ASSERT_TRUE(full->Add("k2").ok());
  ExpectLoadsAgain(full.value());
  // What no write reaches, no loader takes: a delete count over the limit.
  StoreLE(b, kDeletes, kTop);
  FixChecksum(b);
  auto over = bloomkit::CuckooFilter::Deserialize(b);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code(), ErrorCode::kParameterMismatch);
  EXPECT_NE(over.error().message().find("18446744073709551615"), std::string::npos) << over.error().message();
}

// The recipe of BF.LOADCHUNK with a 73-byte header whose chain size and link size are
// 2^63 - 1: the next new key is refused, before a link is added.
TEST(CountLimit, RedisBloomChainRefusesAnAddPastTheLimit) {
  auto made = bloomkit::RedisBloomScalableFilter::Create({.capacity = 100, .fp_rate = 0.01});
  ASSERT_TRUE(made.ok());
  std::vector<std::byte> head = bloomkit::EncodeRedisBloomHeaderChunk(made.value());
  ASSERT_EQ(head.size(), 73U);
  StoreLE(head, 0, kMaxFileCount);        // the chain's size
  StoreLE(head, 20 + 16, kMaxFileCount);  // link 0's size
  auto chain = bloomkit::RedisBloomFromHeaderChunk(head);
  ASSERT_TRUE(chain.ok()) << chain.error().message();
  auto added = chain->AddIfAbsent("x");
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.error().code(), ErrorCode::kFull);
  EXPECT_NE(added.error().message().find("9223372036854775807"), std::string::npos) << added.error().message();
  const std::vector<std::string_view> keys = {"y", "z"};
  EXPECT_FALSE(chain->AddBatch(keys).ok());
  EXPECT_EQ(chain->num_stages(), 1U);
  EXPECT_EQ(chain->count(), kMaxFileCount);
  ExpectLoadsAgain(chain.value());
  auto dumped = bloomkit::DecodeRedisBloomDump(bloomkit::EncodeRedisBloomDump(chain.value()));
  ASSERT_TRUE(dumped.ok()) << dumped.error().message();
  auto rechunked = bloomkit::RedisBloomFromHeaderChunk(bloomkit::EncodeRedisBloomHeaderChunk(chain.value()));
  ASSERT_TRUE(rechunked.ok()) << rechunked.error().message();
}

TEST(CountLimit, RedisCuckooCountsStayWithinTheLimit) {
  auto made = bloomkit::RedisCuckooFilter::Create({.capacity = 1000});
  ASSERT_TRUE(made.ok());
  std::vector<std::byte> head = bloomkit::EncodeRedisCuckooHeaderChunk(made.value());
  ASSERT_EQ(head.size(), 38U);
  StoreLE(head, 0, kMaxFileCount);   // items
  StoreLE(head, 16, kMaxFileCount);  // deletes
  auto full = bloomkit::RedisCuckooFromHeaderChunk(head);
  ASSERT_TRUE(full.ok()) << full.error().message();
  auto added = full->Add("x");
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.error().code(), ErrorCode::kFull);
  EXPECT_NE(added.error().message().find("9223372036854775807"), std::string::npos) << added.error().message();
  EXPECT_FALSE(full->MayContain("x"));
  EXPECT_EQ(full->count(), kMaxFileCount);
  ExpectLoadsAgain(full.value());

  // A count below the fingerprints stored (a LOADCHUNK that stopped after its header,
  // then the slots of a filter with items): deletes stop at 0 instead of wrapping.
  StoreLE(head, 0, 0);
  auto empty = bloomkit::RedisCuckooFromHeaderChunk(head);
  ASSERT_TRUE(empty.ok()) << empty.error().message();
  ASSERT_TRUE(made->Add("k").ok());
  auto slots = made->filter_data(0);
  std::copy(slots.begin(), slots.end(), empty->filter_data(0).begin());
  ASSERT_TRUE(empty->Remove("k"));
  EXPECT_EQ(empty->count(), 0U);
  EXPECT_EQ(empty->num_deletes(), kMaxFileCount);
  ExpectLoadsAgain(empty.value());
  auto dumped = bloomkit::DecodeRedisCuckooDump(bloomkit::EncodeRedisCuckooDump(empty.value()));
  ASSERT_TRUE(dumped.ok()) << dumped.error().message();

  // Counts no write reaches are refused by every loader: header chunk, DUMP and file.
  for (const std::size_t offset : {std::size_t{0}, std::size_t{16}}) {
    std::vector<std::byte> over = bloomkit::EncodeRedisCuckooHeaderChunk(made.value());
    StoreLE(over, offset, kMaxFileCount + 1);
    auto refused = bloomkit::RedisCuckooFromHeaderChunk(over);
    ASSERT_FALSE(refused.ok()) << offset;
    EXPECT_EQ(refused.error().code(), ErrorCode::kParameterMismatch);
    EXPECT_NE(refused.error().message().find("9223372036854775808"), std::string::npos) << refused.error().message();
  }
}

}  // namespace
