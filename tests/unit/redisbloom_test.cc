// SPDX-License-Identifier: Apache-2.0
// RedisBloom-compatible kinds and codecs (redisbloom.h, redisbloom_codec.h): hashes,
// sizing, the older RDB encodings and hostile input. RedisBloom's own data is checked in
// tests/golden/redisbloom_test.cc.
#include "bloomkit/redisbloom.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/redisbloom_codec.h"
#include "contract/test_support.h"
#include "internal/redisbloom_cuckoo.h"

namespace bloomkit {
namespace {

std::vector<std::byte> Bytes(std::string_view s) {
  std::vector<std::byte> out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) out[i] = static_cast<std::byte>(s[i]);
  return out;
}

// Known answers computed by an independent Python port of MurmurHash64A/MurmurHash2.
TEST(RedisBloomHash, MurmurKnownAnswers) {
  EXPECT_EQ(RedisBloomMurmurHash64A("", 0), 0U);
  EXPECT_EQ(RedisBloomMurmurHash64A("a", 0), 0x071717d2d36b6b11ULL);
  EXPECT_EQ(RedisBloomMurmurHash64A("item:0", 0), 0x4f7c9d6dfc5bd6a7ULL);
  EXPECT_EQ(RedisBloomMurmurHash64A("hello world!", 0), 0x64db099bd1512951ULL);
  EXPECT_EQ(RedisBloomMurmurHash64A("", 0xc6a4a7935bd1e995ULL), 0x1ab11ea5a7b2c56eULL);
  EXPECT_EQ(RedisBloomMurmurHash64A("item:0", 0xc6a4a7935bd1e995ULL), 0xc8c94e90cedb5f9eULL);
  const std::string binary(
      "\x00"
      "bin\xff\x01\x02\x03\x04\n\r",
      11);
  EXPECT_EQ(RedisBloomMurmurHash64A(binary, 0), 0x058bafdd126a71ecULL);
  EXPECT_EQ(RedisBloomMurmurHash64A(binary, 0xc6a4a7935bd1e995ULL), 0x2be2548d86b44eb6ULL);
  EXPECT_EQ(RedisBloomMurmurHash2("", 0x9747b28c), 0x106e08d9U);
  EXPECT_EQ(RedisBloomMurmurHash2("a", 0x9747b28c), 0xa2d0b27cU);
  EXPECT_EQ(RedisBloomMurmurHash2("hello world!", 0x9747b28c), 0xbfd98d4aU);
  EXPECT_EQ(RedisBloomMurmurHash2(binary, 0x9747b28c), 0xe0fab263U);
}

TEST(RedisBloomCodec, Crc64AndModuleIds) {
  EXPECT_EQ(RedisCrc64(0, Bytes("123456789")), 0xe9c6d914c4b8d9caULL);  // Redis' crc64 self-test
  EXPECT_EQ(ModuleTypeId("MBbloom--", 4), 0x3016e5a289bef804ULL);
  EXPECT_EQ(ModuleTypeId("MBbloomCF", 4) >> 10, ModuleTypeId("MBbloomCF", 0) >> 10);
  EXPECT_EQ(ModuleTypeId("MBbloomCF", 3) & 1023U, 3U);
}

TEST(RedisBloomScalable, SizesAsBfReserve) {
  auto f = RedisBloomScalableFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->link(0).bits, 11072U);
  EXPECT_EQ(f->link(0).hashes, 8U);
  EXPECT_EQ(f->link(0).error, 0.005);
  EXPECT_EQ(f->option_bits(), kRedisBloomForce64 | kRedisBloomNoRound);
  EXPECT_EQ(f->redisbloom_size(), 1480U);
  EXPECT_FALSE(RedisBloomScalableFilter::Create({.capacity = 0}).ok());
  EXPECT_FALSE(RedisBloomScalableFilter::Create({.capacity = 10, .fp_rate = 1.0}).ok());
  EXPECT_FALSE(RedisBloomScalableFilter::Create({.capacity = 10, .expansion = 0}).ok());
  EXPECT_EQ(RedisBloomScalableFilter::Create({.capacity = std::uint64_t{1} << 40, .max_memory_bytes = 1 << 20})
                .error()
                .code(),
            ErrorCode::kTooLarge);
}

// The tables of links and sub-filters come from the allocator seam like the bits, so a
// host that installs its own allocator (the Redis module: Redis' allocator) sees every
// block; each block goes back exactly once.
TEST(RedisBloomKinds, TablesGoThroughTheAllocatorSeam) {
  bloomkit_test::ScopedCountingAllocator counting;
  {
    auto bf = RedisBloomScalableFilter::Create({.capacity = 100, .fp_rate = 0.01});
    ASSERT_TRUE(bf.ok());
    EXPECT_EQ(counting.allocations(), 2U) << "link 0's bits and the table of links";
    const std::uint64_t before = counting.allocations();
    auto cf = RedisCuckooFilter::Create({.capacity = 1000});
    ASSERT_TRUE(cf.ok());
    EXPECT_EQ(counting.allocations() - before, 2U) << "sub-filter 0's slots and the table of sub-filters";
    const RedisBloomScalableFilter bf_copy = bf.value();
    const RedisCuckooFilter cf_copy = cf.value();
    EXPECT_EQ(counting.allocations() - before, 6U) << "the copies' tables and arrays";
  }
  EXPECT_EQ(counting.deallocations(), counting.allocations()) << "every block is freed exactly once";
}

TEST(RedisBloomScalable, NonScalingIsFullAtCapacity) {
  auto f = RedisBloomScalableFilter::Create({.capacity = 50, .fp_rate = 0.01, .non_scaling = true});
  ASSERT_TRUE(f.ok());
  std::uint64_t refused = 0;
  for (int i = 0; i < 200; ++i) {
    auto added = f->AddIfAbsent("k" + std::to_string(i));
    if (!added.ok()) {
      EXPECT_EQ(added.error().code(), ErrorCode::kFull);
      ++refused;
    }
  }
  EXPECT_GT(refused, 0U);
  EXPECT_EQ(f->count(), 50U);
  EXPECT_EQ(f->num_stages(), 1U);
}

TEST(RedisCuckoo, SizesAsCfReserve) {
  auto f = RedisCuckooFilter::Create({.capacity = 1000});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->num_buckets(), 512U);
  EXPECT_EQ(f->bucket_size(), 2U);
  for (std::uint32_t b : {1U, 3U, 7U, 255U}) {
    auto g = RedisCuckooFilter::Create({.capacity = 10000, .bucket_size = b, .expansion = 3});
    ASSERT_TRUE(g.ok()) << b;
    EXPECT_EQ(g->expansion(), 4U);
  }
  EXPECT_FALSE(RedisCuckooFilter::Create({.capacity = 1000, .bucket_size = 0}).ok());
  EXPECT_FALSE(RedisCuckooFilter::Create({.capacity = 1000, .bucket_size = 256}).ok());
  EXPECT_FALSE(RedisCuckooFilter::Create({.capacity = 1000, .max_iterations = 0}).ok());
  EXPECT_FALSE(RedisCuckooFilter::Create({.capacity = 1000, .expansion = 32769}).ok());
  EXPECT_FALSE(RedisCuckooFilter::Create({.capacity = 3, .bucket_size = 2}).ok());
}

TEST(RedisCuckoo, NoExpansionFillsUpWithoutLosingItems) {
  auto f = RedisCuckooFilter::Create({.capacity = 64, .bucket_size = 2, .expansion = 0});
  ASSERT_TRUE(f.ok());
  std::vector<std::string> added;
  for (int i = 0; i < 200; ++i) {
    const std::string key = "k" + std::to_string(i);
    Status s = f->Add(key);
    if (!s.ok()) {
      EXPECT_EQ(s.error().code(), ErrorCode::kFull);
      continue;
    }
    added.push_back(key);
  }
  EXPECT_EQ(f->num_stages(), 1U);
  EXPECT_EQ(f->count(), added.size());
  for (const std::string& k : added) EXPECT_TRUE(f->MayContain(k)) << k;
  EXPECT_EQ(f->CountOccupiedSlots(), f->count());
}

TEST(RedisCuckoo, CompactDropsEmptiedSubFilters) {
  auto f = RedisCuckooFilter::Create({.capacity = 64, .bucket_size = 2, .expansion = 1});
  ASSERT_TRUE(f.ok());
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(f->Add("k" + std::to_string(i)).ok());
  const std::size_t grown = f->num_stages();
  ASSERT_GT(grown, 2U);
  for (int i = 0; i < 280; ++i) EXPECT_TRUE(f->Remove("k" + std::to_string(i))) << i;
  f->Compact(true);
  EXPECT_LT(f->num_stages(), grown);
  EXPECT_EQ(f->num_deletes(), 0U);
  for (int i = 280; i < 300; ++i) EXPECT_TRUE(f->MayContain("k" + std::to_string(i))) << i;
}

// The cuckoo filter's hash form takes RedisBloom's own h: adding by hash or by key
// writes the same bytes and answers alike, removal included.
TEST(RedisCuckoo, HashFormIsTheKeysMurmurHash) {
  auto by_key = RedisCuckooFilter::Create({.capacity = 64, .bucket_size = 2, .expansion = 1});
  auto by_hash = RedisCuckooFilter::Create({.capacity = 64, .bucket_size = 2, .expansion = 1});
  ASSERT_TRUE(by_key.ok() && by_hash.ok());
  for (int i = 0; i < 300; ++i) {
    const std::string key = "k" + std::to_string(i);
    ASSERT_TRUE(by_key->Add(key).ok());
    ASSERT_TRUE(by_hash->AddHash(RedisBloomMurmurHash64A(key, 0)).ok());
  }
  EXPECT_GT(by_hash->num_stages(), 1U);
  EXPECT_TRUE(by_key.value() == by_hash.value());
  EXPECT_TRUE(by_hash->RemoveHash(RedisBloomMurmurHash64A("k7", 0)));
  EXPECT_TRUE(by_key->Remove("k7"));
  EXPECT_TRUE(by_key.value() == by_hash.value());
  EXPECT_EQ(by_hash->OccurrencesHash(RedisBloomMurmurHash64A("k8", 0)), by_key->Occurrences("k8"));
}

// Clear gives back the filter Create made, whatever it grew into.
TEST(RedisBloomKinds, ClearIsAFreshFilter) {
  const RedisBloomOptions bf_options{.capacity = 100, .fp_rate = 0.01};
  auto bf = RedisBloomScalableFilter::Create(bf_options);
  ASSERT_TRUE(bf.ok());
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(bf->Add("k" + std::to_string(i)).ok());
  ASSERT_GT(bf->num_stages(), 2U);
  bf->Clear();
  EXPECT_TRUE(bf.value() == RedisBloomScalableFilter::Create(bf_options).value());

  const RedisCuckooOptions cf_options{.capacity = 64, .bucket_size = 4, .expansion = 2};
  auto cf = RedisCuckooFilter::Create(cf_options);
  ASSERT_TRUE(cf.ok());
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(cf->Add("k" + std::to_string(i)).ok());
  ASSERT_TRUE(cf->Remove("k1"));
  ASSERT_GT(cf->num_stages(), 2U);
  cf->Clear();
  EXPECT_TRUE(cf.value() == RedisCuckooFilter::Create(cf_options).value());
}

// The encodings before version 4 lack fields; a payload written in them decodes with
// RedisBloom's defaults for what is missing.
TEST(RedisBloomCodec, OlderBloomEncodings) {
  auto f = RedisBloomScalableFilter::Create({.capacity = 100, .fp_rate = 0.01, .expansion = 2});
  ASSERT_TRUE(f.ok());
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(f->AddIfAbsent("k" + std::to_string(i)).ok());
  for (int version : {1, 2, 3}) {
    DumpPayloadWriter w(kRedisBloomTypeName, version);
    w.SaveUnsigned(f->count());
    w.SaveUnsigned(f->num_stages());
    if (version >= 2) w.SaveUnsigned(f->option_bits());
    for (std::size_t i = 0; i < f->num_stages(); ++i) {
      const RedisBloomLinkParams& p = f->link(i);
      w.SaveUnsigned(p.entries);
      w.SaveDouble(p.error);
      w.SaveUnsigned(p.hashes);
      w.SaveDouble(p.bpe);
      w.SaveUnsigned(p.bits);
      w.SaveUnsigned(p.n2);
      w.SaveStringBuffer(f->link_data(i));
      w.SaveUnsigned(p.size);
    }
    auto g = DecodeRedisBloomDump(std::move(w).Finish());
    ASSERT_TRUE(g.ok()) << version << ": " << g.error().message();
    EXPECT_EQ(g->expansion(), 2U);
    // Version 1 had no options: MurmurHash2 then, so the same bits answer differently;
    // versions 2 and 3 keep FORCE64 and answer exactly as the original.
    if (version >= 2) {
      EXPECT_TRUE(g.value() == f.value());
    } else {
      EXPECT_EQ(g->option_bits(), 0U);
    }
  }
  DumpPayloadWriter w5(kRedisBloomTypeName, 5);
  w5.SaveUnsigned(1);
  EXPECT_EQ(DecodeRedisBloomDump(std::move(w5).Finish()).error().code(), ErrorCode::kUnsupportedVersion);
}

TEST(RedisBloomCodec, OlderCuckooEncoding) {
  auto f = RedisCuckooFilter::Create({.capacity = 256, .bucket_size = 2, .expansion = 1});
  ASSERT_TRUE(f.ok());
  for (int i = 0; i < 400; ++i) ASSERT_TRUE(f->Add("k" + std::to_string(i)).ok());
  ASSERT_GT(f->num_stages(), 1U);
  DumpPayloadWriter w(kRedisCuckooTypeName, 2);
  w.SaveUnsigned(f->num_stages());
  w.SaveUnsigned(f->num_buckets());
  w.SaveUnsigned(f->count());
  for (std::size_t i = 0; i < f->num_stages(); ++i) w.SaveStringBuffer(f->filter_data(i));
  auto g = DecodeRedisCuckooDump(std::move(w).Finish());
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_EQ(g->max_iterations(), 20U);
  EXPECT_TRUE(g.value() == f.value());
}

// Hostile payloads: every prefix, every single-byte change and forged sizes are refused
// with an error (the checks run before allocating: a 1 MiB limit is never exceeded).
TEST(RedisBloomCodec, ForgedDumpsAreRefused) {
  auto f = RedisCuckooFilter::Create({.capacity = 1024, .bucket_size = 2});
  ASSERT_TRUE(f.ok());
  for (int i = 0; i < 600; ++i) ASSERT_TRUE(f->Add("k" + std::to_string(i)).ok());
  const std::vector<std::byte> dump = EncodeRedisCuckooDump(f.value());
  for (std::size_t n = 0; n < dump.size(); ++n) {
    EXPECT_FALSE(DecodeRedisCuckooDump(std::span(dump).first(n)).ok()) << n;
  }
  for (std::size_t i = 0; i < dump.size(); ++i) {
    std::vector<std::byte> bad = dump;
    bad[i] ^= std::byte{0x01};
    EXPECT_FALSE(DecodeRedisCuckooDump(bad).ok()) << i;  // the CRC catches it
  }
  // A valid CRC over forged fields: 2^40 buckets.
  DumpPayloadWriter w(kRedisCuckooTypeName, 4);
  for (std::uint64_t v : {std::uint64_t{1}, std::uint64_t{1} << 40, std::uint64_t{0}, std::uint64_t{0},
                          std::uint64_t{2}, std::uint64_t{20}, std::uint64_t{1}}) {
    w.SaveUnsigned(v);
  }
  EXPECT_EQ(DecodeRedisCuckooDump(std::move(w).Finish(), {.max_memory_bytes = 1 << 20}).error().code(),
            ErrorCode::kTooLarge);
  // The Bloom decoder gets a cuckoo payload.
  EXPECT_EQ(DecodeRedisBloomDump(dump).error().code(), ErrorCode::kWrongKind);
}

TEST(RedisBloomCodec, ForgedHeaderChunksAreRefused) {
  auto bf = RedisBloomScalableFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_TRUE(bf.ok());
  const std::vector<std::byte> head = EncodeRedisBloomHeaderChunk(bf.value());
  for (std::size_t n = 0; n < head.size(); ++n) EXPECT_FALSE(RedisBloomFromHeaderChunk(std::span(head).first(n)).ok());
  std::vector<std::byte> big = head;
  // bytes = 2^50 and bits = 2^53 in the link: consistent, and far over the limit.
  for (std::size_t i = 0; i < 8; ++i) big[20 + i] = std::byte{0};
  big[20 + 6] = std::byte{0x04};
  for (std::size_t i = 0; i < 8; ++i) big[28 + i] = std::byte{0};
  big[28 + 6] = std::byte{0x20};
  EXPECT_EQ(RedisBloomFromHeaderChunk(big, {.max_memory_bytes = 1 << 20}).error().code(), ErrorCode::kTooLarge);
  std::vector<std::byte> hashes = head;
  hashes[20 + 40] = std::byte{99};  // k no longer ceil(ln 2 * bpe)
  EXPECT_EQ(RedisBloomFromHeaderChunk(hashes).error().code(), ErrorCode::kParameterMismatch);

  auto cf = RedisCuckooFilter::Create({.capacity = 1000});
  ASSERT_TRUE(cf.ok());
  const std::vector<std::byte> ch = EncodeRedisCuckooHeaderChunk(cf.value());
  auto forge = [&](std::size_t at, std::uint8_t v) {
    std::vector<std::byte> b = ch;
    b[at] = std::byte{v};
    return RedisCuckooFromHeaderChunk(b).ok();
  };
  EXPECT_FALSE(forge(8, 3));   // 515 buckets: not a power of two
  EXPECT_FALSE(forge(32, 0));  // bucket size 0
  EXPECT_FALSE(forge(34, 0));  // max iterations 0
  EXPECT_FALSE(forge(36, 3));  // expansion 3
  EXPECT_FALSE(forge(24, 0));  // no sub-filter
  EXPECT_FALSE(forge(31, 1));  // 2^56 + 1 sub-filters
  EXPECT_TRUE(forge(0, 7));    // the item count is not checked against the slots (see below)
}

TEST(RedisBloomCodec, ChunksOutsideTheFilterAreRefused) {
  auto cf = RedisCuckooFilter::Create({.capacity = 1000});
  ASSERT_TRUE(cf.ok());
  const std::vector<std::byte> data(1024, std::byte{1});
  EXPECT_TRUE(LoadRedisCuckooChunk(cf.value(), 1025, data).ok());
  EXPECT_FALSE(LoadRedisCuckooChunk(cf.value(), 1026, data).ok());  // one byte past the end
  EXPECT_FALSE(LoadRedisCuckooChunk(cf.value(), 1024, data).ok());  // iterator before the end
  EXPECT_FALSE(LoadRedisCuckooChunk(cf.value(), -5, data).ok());
  EXPECT_FALSE(LoadRedisCuckooChunk(cf.value(), 2, {}).ok());

  auto bf = RedisBloomScalableFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_TRUE(bf.ok());
  const std::vector<std::byte> bits(1384, std::byte{1});
  EXPECT_TRUE(LoadRedisBloomChunk(bf.value(), 1385, bits).ok());
  EXPECT_FALSE(LoadRedisBloomChunk(bf.value(), 1386, bits).ok());
  EXPECT_FALSE(LoadRedisBloomChunk(bf.value(), 1384, bits).ok());
  EXPECT_FALSE(LoadRedisBloomChunk(bf.value(), std::int64_t{1} << 62, bits).ok());
}

// A cuckoo filter with no items has no chunks, as RedisBloom's SCANDUMP answers 0 at once.
TEST(RedisBloomCodec, EmptyCuckooHasNoChunks) {
  auto cf = RedisCuckooFilter::Create({.capacity = 1000});
  ASSERT_TRUE(cf.ok());
  EXPECT_TRUE(RedisCuckooScanDump(cf.value()).empty());
  ASSERT_TRUE(cf->Add("x").ok());
  EXPECT_EQ(RedisCuckooScanDump(cf.value()).size(), 2U);
}

TEST(RedisBloomCodec, IntegerLookingStringsRoundTrip) {
  // Strings that spell integers are stored as integers, as Redis does.
  for (std::string_view s : {"0", "-1", "127", "-128", "300", "70000", "-2147483648", "2147483647", "01", "-0",
                             "2147483648", "12345678901", " 1"}) {
    DumpPayloadWriter w(kRedisBloomTypeName, 4);
    w.SaveStringBuffer(Bytes(s));
    const std::vector<std::byte> payload = std::move(w).Finish();
    auto r = DumpPayloadReader::Open(payload);
    ASSERT_TRUE(r.ok());
    auto got = r->LoadStringBuffer();
    ASSERT_TRUE(got.ok()) << s;
    EXPECT_EQ(std::vector<std::byte>(got->begin(), got->end()), Bytes(s)) << s;
    EXPECT_TRUE(r->Finish().ok());
  }
}

// What a decoder accepts, bloomkit's file format stores and loads again under the same
// memory limit (the CLI exports RedisBloom keys as files).
template <typename Filter>
void ExpectFileRoundTrip(const Filter& f, std::uint64_t limit) {
  auto back = Filter::Deserialize(f.Serialize(), {.max_memory_bytes = limit});
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_TRUE(back.value() == f);
}

// A header chunk of a chain whose first link has error rate `error`: a NONSCALING chain
// of bloomkit's, with the NONSCALING bit cleared on request.
std::vector<std::byte> ChainHeader(double error, bool scaling) {
  auto f = RedisBloomScalableFilter::Create({.capacity = 100, .fp_rate = error, .non_scaling = true});
  EXPECT_TRUE(f.ok());
  std::vector<std::byte> head = EncodeRedisBloomHeaderChunk(f.value());
  if (scaling) head[12] &= ~std::byte{kRedisBloomNoScaling};
  return head;
}

void Store64(std::vector<std::byte>& b, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) b[at + i] = static_cast<std::byte>(v >> (8 * i));
}

// RedisBloom 2.0 and 1.x gave the first link of a scaling chain the requested rate
// itself (2.2 halves it), so a first link at 0.796 is a BF.RESERVE k 0.796 of theirs:
// it loads, reports 0.796, and saves as a file (its rate is not doubled past 1).
TEST(RedisBloomCodec, UnhalvedFirstLinkSavesAsAFile) {
  for (const double error : {0.4999, 0.5, 0.7962, 0.999}) {
    auto f = RedisBloomFromHeaderChunk(ChainHeader(error, true));
    ASSERT_TRUE(f.ok()) << f.error().message();
    EXPECT_FALSE(f->non_scaling());
    EXPECT_DOUBLE_EQ(f->fp_rate(), error < 0.5 ? 2 * error : error);
    ExpectFileRoundTrip(f.value(), kDefaultMaxMemoryBytes);
    for (int i = 0; i < 20000 && f->num_stages() == 1; ++i) ASSERT_TRUE(f->AddIfAbsent("k" + std::to_string(i)).ok());
    if (error < 0.5) {  // a link of 1 hash at 0.5 or more fills up before its 100 items
      EXPECT_GT(f->num_stages(), 1U);
    }
    auto dumped = DecodeRedisBloomDump(EncodeRedisBloomDump(f.value()));
    ASSERT_TRUE(dumped.ok()) << dumped.error().message();
    ExpectFileRoundTrip(dumped.value(), kDefaultMaxMemoryBytes);
  }
}

// Counts the file format refuses (over 2^63 - 1 items) and capacities that overflow 64
// bits are refused by every decoder, chunks and RDB alike.
TEST(RedisBloomCodec, ForgedCountsAreRefused) {
  std::vector<std::byte> head = ChainHeader(0.01, true);
  Store64(head, 0, std::uint64_t{1} << 63);        // chain size
  Store64(head, 20 + 16, std::uint64_t{1} << 63);  // link size
  auto big = RedisBloomFromHeaderChunk(head);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code(), ErrorCode::kParameterMismatch);
  EXPECT_NE(big.error().message().find("9223372036854775808"), std::string::npos) << big.error().message();

  auto f = RedisBloomFromHeaderChunk(ChainHeader(0.01, true));
  ASSERT_TRUE(f.ok());
  const RedisBloomLinkParams p = f->link(0);
  DumpPayloadWriter w(kRedisBloomTypeName, 4);
  for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{2}, std::uint64_t{kRedisBloomForce64}, std::uint64_t{2}}) {
    w.SaveUnsigned(v);
  }
  for (int i = 0; i < 2; ++i) {  // two links of 2^63 entries each: the capacity overflows
    w.SaveUnsigned(std::uint64_t{1} << 63);
    w.SaveDouble(p.error);
    w.SaveUnsigned(p.hashes);
    w.SaveDouble(p.bpe);
    w.SaveUnsigned(p.bits);
    w.SaveUnsigned(p.n2);
    w.SaveStringBuffer(f->link_data(0));
    w.SaveUnsigned(0);
  }
  auto wide = DecodeRedisBloomDump(std::move(w).Finish());
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.error().message().find("capacities overflow"), std::string::npos) << wide.error().message();
}

// A cuckoo key whose LOADCHUNK load stopped after the header (its count, empty slots) is
// saved by RedisBloom and loaded again; so it is here, from RDB, DUMP and file alike
// (otherwise Redis would not start from such an RDB).
TEST(RedisBloomCodec, IncompleteCuckooLoadsSaveAndLoadAgain) {
  auto cf = RedisCuckooFilter::Create({.capacity = 1000});
  ASSERT_TRUE(cf.ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(cf->Add("k" + std::to_string(i)).ok());
  auto partial = RedisCuckooFromHeaderChunk(EncodeRedisCuckooHeaderChunk(cf.value()));
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(partial->count(), 20U);
  EXPECT_EQ(partial->CountOccupiedSlots(), 0U);
  auto dumped = DecodeRedisCuckooDump(EncodeRedisCuckooDump(partial.value()));
  ASSERT_TRUE(dumped.ok()) << dumped.error().message();
  EXPECT_TRUE(dumped.value() == partial.value());
  ExpectFileRoundTrip(partial.value(), kDefaultMaxMemoryBytes);
}

// The memory limit bounds the file payload (header chunk, arrays, padding): a filter
// that a decoder or a create accepts under a limit saves and loads again under it.
TEST(RedisBloomCodec, LimitsBoundTheFilePayload) {
  auto bf = RedisBloomScalableFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_TRUE(bf.ok());
  const std::vector<std::byte> head = EncodeRedisBloomHeaderChunk(bf.value());
  const std::uint64_t arrays = bf->link(0).bytes;  // 1,384
  int accepted = 0;
  for (std::uint64_t limit = arrays; limit < arrays + 100; ++limit) {
    auto f = RedisBloomFromHeaderChunk(head, {.max_memory_bytes = limit});
    auto made = RedisBloomScalableFilter::Create({.capacity = 1000, .fp_rate = 0.01, .max_memory_bytes = limit});
    if (f.ok()) {
      ++accepted;
      ExpectFileRoundTrip(f.value(), limit);
    } else {
      EXPECT_EQ(f.error().code(), ErrorCode::kTooLarge);
    }
    if (made.ok()) {
      ExpectFileRoundTrip(made.value(), limit);
      auto again = DecodeRedisBloomDump(EncodeRedisBloomDump(made.value()), {.max_memory_bytes = limit});
      EXPECT_TRUE(again.ok()) << limit << ": " << again.error().message();
    }
  }
  EXPECT_EQ(accepted, 100 - 80);  // from 1,384 + 80 bytes (20 + 53 + 7 of padding) on

  auto cf = RedisCuckooFilter::Create({.capacity = 1000});  // 512 buckets of 2
  ASSERT_TRUE(cf.ok());
  const std::vector<std::byte> ch = EncodeRedisCuckooHeaderChunk(cf.value());
  accepted = 0;
  for (std::uint64_t limit = 1024; limit < 1124; ++limit) {
    auto f = RedisCuckooFromHeaderChunk(ch, {.max_memory_bytes = limit});
    auto made = RedisCuckooFilter::Create({.capacity = 1000, .max_memory_bytes = limit});
    if (f.ok()) {
      ++accepted;
      ExpectFileRoundTrip(f.value(), limit);
    }
    if (made.ok()) {
      auto again = DecodeRedisCuckooDump(EncodeRedisCuckooDump(made.value()), {.max_memory_bytes = limit});
      EXPECT_TRUE(again.ok()) << limit << ": " << again.error().message();
      ExpectFileRoundTrip(made.value(), limit);
    }
  }
  EXPECT_EQ(accepted, 100 - 40);  // from 1,024 + 40 bytes (38 + 2 of padding) on
}

// A link's bit count precedes its bit array in the RDB value: one past the limit is
// refused before the array is read (Redis allocates what a string claims to read it).
TEST(RedisBloomCodec, RdbLinkPastTheLimitIsRefusedBeforeItsArray) {
  auto f = RedisBloomScalableFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_TRUE(f.ok());
  const RedisBloomLinkParams p = f->link(0);
  DumpPayloadWriter w(kRedisBloomTypeName, 4);
  for (std::uint64_t v :
       {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{kRedisBloomForce64 | kRedisBloomNoRound}, std::uint64_t{2}}) {
    w.SaveUnsigned(v);
  }
  w.SaveUnsigned(p.entries);
  w.SaveDouble(p.error);
  w.SaveUnsigned(p.hashes);
  w.SaveDouble(p.bpe);
  w.SaveUnsigned(std::uint64_t{1} << 40);  // 128 GiB of bits, then a short array
  w.SaveUnsigned(0);
  w.SaveStringBuffer(f->link_data(0));
  w.SaveUnsigned(0);
  auto big = DecodeRedisBloomDump(std::move(w).Finish(), {.max_memory_bytes = 1 << 20});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code(), ErrorCode::kTooLarge) << big.error().message();
  EXPECT_NE(big.error().message().find("1099511627776 bits"), std::string::npos) << big.error().message();
}

// BF.MADD's batch answers and sets exactly what key-by-key adds do: across new links
// in the middle of a group, links of more hashes than it keeps positions for (1e-12:
// 40), and a full non-scaling chain, where both stop at the same key with kFull.
TEST(RedisBloomScalable, AddIfAbsentBatchEqualsOneByOne) {
  for (const RedisBloomOptions& options : {RedisBloomOptions{.capacity = 50, .fp_rate = 0.01, .expansion = 2},
                                           RedisBloomOptions{.capacity = 7, .fp_rate = 0.2, .expansion = 3},
                                           RedisBloomOptions{.capacity = 100, .fp_rate = 1e-12, .expansion = 2},
                                           RedisBloomOptions{.capacity = 300, .fp_rate = 0.05, .non_scaling = true}}) {
    auto one = RedisBloomScalableFilter::Create(options);
    auto many = RedisBloomScalableFilter::Create(options);
    ASSERT_TRUE(one.ok() && many.ok());
    std::vector<std::string> keys;
    for (int i = 0; i < 1000; ++i) keys.push_back("k" + std::to_string(i % 700));  // 300 repeats
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<char> want;
    for (const std::string_view k : views) {
      auto r = one->AddIfAbsent(k);
      if (!r.ok()) break;
      want.push_back(r.value() ? 1 : 0);
    }
    std::unique_ptr<bool[]> got(new bool[views.size()]);
    Status error;
    const std::size_t done = many->AddIfAbsentBatch(views, std::span<bool>(got.get(), views.size()), &error);
    ASSERT_EQ(done, want.size());
    if (done < views.size()) {
      EXPECT_EQ(error.error().code(), ErrorCode::kFull);
    }
    for (std::size_t i = 0; i < done; ++i) EXPECT_EQ(got[i], want[i] == 1) << i;
    EXPECT_TRUE(one.value() == many.value());
    EXPECT_GT(many->num_stages() + (options.non_scaling ? 1U : 0U), 1U);
  }
}

// ---------------------------------------------------------------------------------------
// Slot offsets of large cuckoo sub-filters (internal/redisbloom_cuckoo.h), without
// allocating them: the index math alone, over bucket counts past 2^32 / bucket size.

std::uint64_t NextRandom(std::uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;  // splitmix64
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The eviction chain carries a bucket number from step to step; whichever bucket it
// holds a fingerprint in, the slot offset must be the one a lookup of that item's hashes
// finds, or the item is lost (CF.ADD answered 1, then CF.EXISTS 0). Past 2^32 slots the
// lookups' offsets wrap to 32 bits; bucket * bucket_size unwrapped, as the chain had it,
// misses them.
TEST(RedisCuckooIndex, EvictionChainLandsWhereLookupsLook) {
  using internal::RedisCuckooAltHash;
  using internal::RedisCuckooSlotOffset;
  struct Layout {
    std::uint64_t buckets;
    std::uint32_t bucket_size;
  };
  const Layout layouts[] = {{1U << 10, 2},   {1ULL << 31, 2},   {1ULL << 31, 3},
                            {1ULL << 32, 1}, {1ULL << 32, 3},   {1ULL << 25, 129},
                            {1ULL << 33, 4}, {1ULL << 40, 255}, {kRedisCuckooMaxBuckets / 2 + 1, 255}};
  std::uint64_t state = 42;
  for (const Layout& layout : layouts) {
    const std::uint64_t n = layout.buckets;
    const std::uint32_t b = layout.bucket_size;
    const bool wraps = n * b > (std::uint64_t{1} << 32);
    std::uint64_t wrapped = 0;
    for (int i = 0; i < 20000; ++i) {
      // Half the hashes land in the top buckets, where offsets wrap.
      std::uint64_t h = NextRandom(state);
      if (i % 2 == 0) h = (h & ~(n - 1)) | (n - 1 - (h % 4096) % n);
      const auto fp = static_cast<std::uint8_t>(h % 255 + 1);
      const std::uint64_t h2 = RedisCuckooAltHash(fp, h);
      const std::uint64_t o1 = RedisCuckooSlotOffset(h, n, b);
      const std::uint64_t o2 = RedisCuckooSlotOffset(h2, n, b);
      ASSERT_LE(o1 + b, n * b) << n << " " << b;
      ASSERT_LE(o2 + b, n * b) << n << " " << b;
      wrapped += o1 != (h % n) * b ? 1U : 0U;
      // bloomkit's chain: a 64-bit bucket number, to the other bucket and back.
      const std::uint64_t bucket = h % n;
      const std::uint64_t other = RedisCuckooAltHash(fp, bucket) % n;
      ASSERT_EQ(RedisCuckooSlotOffset(bucket, n, b), o1);
      ASSERT_EQ(RedisCuckooSlotOffset(other, n, b), o2);
      ASSERT_EQ(RedisCuckooAltHash(fp, other) % n, bucket);
      // A chain that kept the bucket number in 32 bits would land on the same offsets.
      const auto ii = static_cast<std::uint32_t>(h % n);
      const auto alt = static_cast<std::uint32_t>(RedisCuckooAltHash(fp, ii) % n);
      ASSERT_EQ(RedisCuckooSlotOffset(ii, n, b), o1);
      ASSERT_EQ(RedisCuckooSlotOffset(alt, n, b), o2);
    }
    // The layouts past 2^32 slots do wrap: an unwrapped offset would miss these items.
    if (wraps) {
      EXPECT_GT(wrapped, 1000U) << n << " " << b;
    } else {
      EXPECT_EQ(wrapped, 0U) << n << " " << b;
    }
  }
}

// Compaction reads a fingerprint's bucket from its position. Where offsets wrap, that is
// right for bucket sizes that are powers of two only, and only then may it move one.
TEST(RedisCuckooIndex, CompactionMovesOnlyWhereSlotsTellBuckets) {
  using internal::RedisCuckooAltHash;
  using internal::RedisCuckooSlotOffset;
  using internal::RedisCuckooSlotsTellBuckets;
  EXPECT_TRUE(RedisCuckooSlotsTellBuckets(1ULL << 31, 2));
  EXPECT_TRUE(RedisCuckooSlotsTellBuckets(1ULL << 33, 4));
  EXPECT_TRUE(RedisCuckooSlotsTellBuckets(1ULL << 30, 4));
  EXPECT_TRUE(RedisCuckooSlotsTellBuckets(1ULL << 24, 255));
  EXPECT_FALSE(RedisCuckooSlotsTellBuckets(1ULL << 31, 3));
  EXPECT_FALSE(RedisCuckooSlotsTellBuckets(1ULL << 25, 129));
  std::uint64_t state = 7;
  for (const std::uint32_t b : {1U, 2U, 3U, 4U, 5U, 8U, 129U}) {
    const std::uint64_t n = std::uint64_t{1} << 34;  // every layout here wraps
    bool all_right = true;
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t h = NextRandom(state);
      const auto fp = static_cast<std::uint8_t>(h % 255 + 1);
      const std::uint64_t slot = RedisCuckooSlotOffset(h, n, b) + NextRandom(state) % b;
      const std::uint64_t bucket = slot / b;  // what compaction takes for the item's bucket
      for (const std::uint64_t older : {std::uint64_t{1} << 20, std::uint64_t{1} << 33}) {
        const bool right = RedisCuckooSlotOffset(bucket, older, b) == RedisCuckooSlotOffset(h, older, b) &&
                           RedisCuckooSlotOffset(RedisCuckooAltHash(fp, bucket), older, b) ==
                               RedisCuckooSlotOffset(RedisCuckooAltHash(fp, h), older, b);
        all_right = all_right && right;
      }
    }
    EXPECT_EQ(all_right, RedisCuckooSlotsTellBuckets(n, b)) << b;
  }
}

// The sizes of sub-filter i cost the same for every i: a 38-byte header announcing
// 65535 sub-filters was checked in 2^31 steps (6 to 9 seconds in a Redis server). A
// call for index 2^62 returns at once (a loop to it would never end). The expansions
// pass through a volatile, as a header's do: a constant 1 lets the compiler drop a loop.
TEST(RedisCuckooIndex, SubFilterSizesTakeConstantTime) {
  auto RedisCuckooFilterBuckets = [](std::uint64_t num_buckets, std::uint32_t expansion, std::uint64_t index,
                                     std::uint64_t* out) {
    volatile std::uint32_t opaque = expansion;
    return internal::RedisCuckooFilterBuckets(num_buckets, opaque, index, out);
  };
  std::uint64_t out = 0;
  ASSERT_TRUE(RedisCuckooFilterBuckets(1, 1, std::uint64_t{1} << 62, &out));
  EXPECT_EQ(out, 1U);
  ASSERT_TRUE(RedisCuckooFilterBuckets(8, 1, ~std::uint64_t{0}, &out));
  EXPECT_EQ(out, 8U);
  ASSERT_TRUE(RedisCuckooFilterBuckets(1, 0, 0, &out));
  EXPECT_EQ(out, 1U);
  EXPECT_FALSE(RedisCuckooFilterBuckets(1, 0, 1, &out));
  EXPECT_FALSE(RedisCuckooFilterBuckets(1, 0, std::uint64_t{1} << 62, &out));
  ASSERT_TRUE(RedisCuckooFilterBuckets(1, 2, 55, &out));
  EXPECT_EQ(out, std::uint64_t{1} << 55);
  EXPECT_FALSE(RedisCuckooFilterBuckets(1, 2, 56, &out));  // 2^56 > 2^56 - 1
  EXPECT_FALSE(RedisCuckooFilterBuckets(1, 2, std::uint64_t{1} << 62, &out));
  ASSERT_TRUE(RedisCuckooFilterBuckets(4, 32768, 3, &out));
  EXPECT_EQ(out, std::uint64_t{1} << 47);
  EXPECT_FALSE(RedisCuckooFilterBuckets(4, 32768, 4, &out));
  EXPECT_FALSE(RedisCuckooFilterBuckets(kRedisCuckooMaxBuckets, 2, 1, &out));
}

// struct.pack("<QQQQHHH", 0, 1, 0, 65535, 1, 20, 1): 65535 sub-filters of one slot. It
// is a valid filter of 65535 bytes, so it loads (by header chunk and by DUMP payload),
// and a limit below its bytes refuses it.
TEST(RedisCuckooCodec, HeaderOf65535OneSlotSubFiltersLoads) {
  std::vector<std::byte> head(38);
  const std::uint64_t fields[] = {0, 1, 0, 65535};
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 8; ++j) head[8 * i + j] = static_cast<std::byte>((fields[i] >> (8 * j)) & 0xff);
  }
  head[32] = std::byte{1};
  head[34] = std::byte{20};
  head[36] = std::byte{1};
  auto f = RedisCuckooFromHeaderChunk(head);
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_EQ(f->num_stages(), 65535U);
  EXPECT_EQ(f->capacity(), 65535U);
  EXPECT_EQ(f->filter_buckets(65534), 1U);
  EXPECT_TRUE(EncodeRedisCuckooHeaderChunk(f.value()) == head);

  DumpPayloadWriter w(kRedisCuckooTypeName, kRedisCuckooEncodingVersion);
  SaveRedisCuckooRdb(w, f.value());
  const std::vector<std::byte> dump = std::move(w).Finish();
  auto g = DecodeRedisCuckooDump(dump);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_TRUE(g.value() == f.value());

  // Header 38 + 65535 slots, padded to 8: 65576 bytes in bloomkit's file format.
  EXPECT_TRUE(RedisCuckooFromHeaderChunk(head, {.max_memory_bytes = 65576}).ok());
  EXPECT_EQ(RedisCuckooFromHeaderChunk(head, {.max_memory_bytes = 65575}).error().code(), ErrorCode::kTooLarge);
  EXPECT_EQ(DecodeRedisCuckooDump(dump, {.max_memory_bytes = 65534}).error().code(), ErrorCode::kTooLarge);
  // With expansion 2, sub-filter 56 would pass 2^56 buckets: refused at once.
  head[36] = std::byte{2};
  EXPECT_EQ(RedisCuckooFromHeaderChunk(head).error().code(), ErrorCode::kTooLarge);
}

}  // namespace
}  // namespace bloomkit
