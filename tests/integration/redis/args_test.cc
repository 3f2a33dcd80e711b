// SPDX-License-Identifier: Apache-2.0
// The module's argument parsers and dump chunking (src/redis/args.h, dump.h), without
// Redis: every rule a command relies on, and every error naming the bad argument.
#include "args.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bloomkit/scalable_bloom_filter.h"
#include "dump.h"

namespace bloomkit::redis {
namespace {

std::vector<std::string_view> V(std::initializer_list<std::string_view> list) {
  return list;
}

TEST(ParseNumbers, IntegersAreStrict) {
  EXPECT_EQ(ParseInt64("42"), 42);
  EXPECT_EQ(ParseInt64("-7"), -7);
  EXPECT_EQ(ParseInt64("9223372036854775807"), INT64_MAX);
  EXPECT_FALSE(ParseInt64("9223372036854775808"));
  EXPECT_FALSE(ParseInt64(""));
  EXPECT_FALSE(ParseInt64(" 1"));
  EXPECT_FALSE(ParseInt64("1 "));
  EXPECT_FALSE(ParseInt64("+1"));
  EXPECT_FALSE(ParseInt64("1.0"));
  EXPECT_FALSE(ParseInt64(std::string_view("1\0", 2)));
}

TEST(ParseNumbers, DoublesAreFiniteAndWhole) {
  EXPECT_DOUBLE_EQ(*ParseDouble("0.01"), 0.01);
  EXPECT_DOUBLE_EQ(*ParseDouble("1e-3"), 0.001);
  EXPECT_FALSE(ParseDouble("nan"));
  // As Redis' string2d: inf is a number (ranges refuse it), overflow and underflow are not.
  EXPECT_TRUE(ParseDouble("inf"));
  EXPECT_FALSE(ParseDouble("1e400"));
  EXPECT_FALSE(ParseDouble("1e-400"));
  EXPECT_DOUBLE_EQ(*ParseDouble("5e-324"), 5e-324);
  EXPECT_FALSE(ParseDouble(""));
  EXPECT_FALSE(ParseDouble("0.01x"));
  EXPECT_FALSE(ParseDouble(" 0.01"));
  EXPECT_FALSE(ParseDouble(std::string_view("0.1\0", 4)));
}

TEST(ParseNumbers, BytesTakeSuffixes) {
  EXPECT_EQ(ParseBytes("4096"), 4096U);
  EXPECT_EQ(ParseBytes("64mb"), 64U << 20);
  EXPECT_EQ(ParseBytes("2G"), 2ULL << 30);
  EXPECT_EQ(ParseBytes("3k"), 3072U);
  EXPECT_FALSE(ParseBytes("-1"));
  EXPECT_FALSE(ParseBytes("mb"));
  EXPECT_FALSE(ParseBytes("99999999999999999gb"));
}

TEST(ModuleArgs, DefaultsMatchRedisBloom) {
  auto config = ParseModuleArgs({});
  ASSERT_TRUE(config.ok());
  EXPECT_DOUBLE_EQ(config->error_rate, 0.01);
  EXPECT_EQ(config->initial_size, 100U);
  EXPECT_EQ(config->expansion, 2U);
  EXPECT_EQ(config->cf_bucket_size, 2U);
  EXPECT_EQ(config->cf_max_iterations, 20U);
  EXPECT_EQ(config->cf_expansion, 1U);
  EXPECT_EQ(config->max_filter_bytes, 512ULL << 20);
  EXPECT_EQ(config->format, FilterFormat::kRedisBloom);
  EXPECT_EQ(config->identity, ModuleIdentity::kBloomkit);
}

TEST(ModuleArgs, FormatAndIdentity) {
  auto native = ParseModuleArgs(V({"format", "NATIVE", "IDENTITY", "redisbloom"}));
  ASSERT_TRUE(native.ok()) << native.error().message();
  EXPECT_EQ(native->format, FilterFormat::kNative);
  EXPECT_EQ(native->identity, ModuleIdentity::kRedisBloom);
  auto redisbloom = ParseModuleArgs(V({"FORMAT", "redisbloom", "identity", "bloomkit"}));
  ASSERT_TRUE(redisbloom.ok()) << redisbloom.error().message();
  EXPECT_EQ(redisbloom->format, FilterFormat::kRedisBloom);
  EXPECT_EQ(redisbloom->identity, ModuleIdentity::kBloomkit);
}

TEST(ModuleArgs, ParsesEveryName) {
  const auto args = V({"error_rate",          "0.001", "INITIAL_SIZE",         "1000",
                       "EXPANSION",           "4",     "CF_INITIAL_SIZE",      "64",
                       "CF_BUCKETSIZE",       "4",     "CF_MAX_ITERATIONS",    "50",
                       "CF_EXPANSION",        "2",     "CF_MAX_EXPANSIONS",    "8",
                       "CF_FINGERPRINT_BITS", "16",    "CBF_COUNTER_BITS",     "8",
                       "MAX_FILTER_BYTES",    "64mb",  "SCANDUMP_CHUNK_BYTES", "1k"});
  auto config = ParseModuleArgs(args);
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_DOUBLE_EQ(config->error_rate, 0.001);
  EXPECT_EQ(config->initial_size, 1000U);
  EXPECT_EQ(config->expansion, 4U);
  EXPECT_EQ(config->cf_initial_size, 64U);
  EXPECT_EQ(config->cf_bucket_size, 4U);
  EXPECT_EQ(config->cf_max_iterations, 50U);
  EXPECT_EQ(config->cf_expansion, 2U);
  EXPECT_EQ(config->cf_max_expansions, 8U);
  EXPECT_EQ(config->cf_fingerprint_bits, 16U);
  EXPECT_EQ(config->cbf_counter_bits, 8U);
  EXPECT_EQ(config->max_filter_bytes, 64ULL << 20);
  EXPECT_EQ(config->scandump_chunk_bytes, 1024U);
  EXPECT_TRUE(config->max_filter_bytes_given);
}

TEST(ModuleArgs, TakesRedisBloom8ConfigNames) {
  const auto args =
      V({"bf-error-rate", "0.5", "bf-initial-size", "7", "BF-EXPANSION-FACTOR", "0", "cf-bucket-size", "3",
         "cf-initial-size", "10", "cf-max-iterations", "9", "cf-expansion-factor", "4", "cf-max-expansions", "65536"});
  auto config = ParseModuleArgs(args);
  ASSERT_TRUE(config.ok()) << config.error().message();
  EXPECT_DOUBLE_EQ(config->error_rate, 0.25);  // capped, as RedisBloom 8 does
  EXPECT_EQ(config->initial_size, 7U);
  EXPECT_EQ(config->expansion, 0U);
  EXPECT_EQ(config->cf_bucket_size, 3U);
  EXPECT_EQ(config->cf_initial_size, 10U);
  EXPECT_EQ(config->cf_max_iterations, 9U);
  EXPECT_EQ(config->cf_expansion, 4U);
  EXPECT_EQ(config->cf_max_expansions, 65536U);
  EXPECT_FALSE(config->max_filter_bytes_given);
  EXPECT_EQ(RedisBloomFilterLimit(config.value()), kNoFilterLimit);
}

TEST(ModuleArgs, BadArgumentsNameTheProblem) {
  struct Case {
    std::vector<std::string_view> args;
    std::string expected;
  };
  const Case cases[] = {
      {{"ERROR_RATE"}, "odd count"},
      {{"ERROR_RATE", "1.5"}, "ERROR_RATE must be a number in (0, 1), got '1.5'"},
      {{"ERROR_RATE", "x"}, "got 'x'"},
      {{"INITIAL_SIZE", "0"}, "INITIAL_SIZE must be an integer in [1, "},
      {{"INITIAL_SIZE", "1073741825"}, "INITIAL_SIZE must be an integer in [1, 1073741824]"},
      {{"EXPANSION", "-1"}, "EXPANSION must be an integer in [0, 32768], got '-1'"},
      {{"bf-expansion-factor", "32769"}, "bf-expansion-factor must be an integer in [0, 32768], got '32769'"},
      {{"CF_BUCKETSIZE", "256"}, "CF_BUCKETSIZE must be an integer in [1, 255], got '256'"},
      {{"cf-max-expansions", "65537"}, "cf-max-expansions must be an integer in [1, 65536]"},
      {{"CF_BUCKETSIZE", "8", "CF_INITIAL_SIZE", "10"}, "CF_INITIAL_SIZE 10 is below twice CF_BUCKETSIZE 8"},
      {{"MAX_FILTER_BYTES", "12"}, "MAX_FILTER_BYTES must be a byte count in [4096, 1tb]"},
      {{"NOPE", "1"}, "unknown module argument 'NOPE'"},
      {{"FORMAT", "bloom"}, "FORMAT must be redisbloom or native, got 'bloom'"},
      {{"IDENTITY", "bf"}, "IDENTITY must be bloomkit or redisbloom, got 'bf'"},
  };
  for (const Case& c : cases) {
    auto config = ParseModuleArgs(c.args);
    ASSERT_FALSE(config.ok()) << c.expected;
    EXPECT_NE(config.error().message().find(c.expected), std::string::npos) << config.error().message();
  }
}

TEST(BfReserve, ParsesOptionsAndRejectsRanges) {
  const ModuleConfig config;
  auto ok = ParseBfReserve(V({"0.001", "5000", "EXPANSION", "3"}), config);
  ASSERT_TRUE(ok.ok());
  EXPECT_DOUBLE_EQ(ok->error_rate, 0.001);
  EXPECT_EQ(ok->capacity, 5000U);
  EXPECT_EQ(ok->expansion, 3U);
  EXPECT_FALSE(ok->nonscaling);
  auto ns = ParseBfReserve(V({"0.01", "10", "nonscaling"}), config);
  ASSERT_TRUE(ns.ok());
  EXPECT_TRUE(ns->nonscaling);

  EXPECT_EQ(ParseBfReserve(V({"abc", "10"}), config).error().message(), "ERR bad error rate: 'abc' is not a number");
  EXPECT_EQ(ParseBfReserve(V({"1", "10"}), config).error().message(),
            "ERR error rate must be in the range (0.000000, 1.000000): got 1");
  EXPECT_EQ(ParseBfReserve(V({"0.1", "-5"}), config).error().message(),
            "ERR capacity must be in the range [1, 9223372036854775807]: got -5");
  // RedisBloom 8: EXPANSION 0 means NONSCALING, and so does an expansion default of 0.
  auto zero = ParseBfReserve(V({"0.01", "10", "EXPANSION", "0"}), config);
  ASSERT_TRUE(zero.ok());
  EXPECT_TRUE(zero->nonscaling);
  ModuleConfig nonscaling_default;
  nonscaling_default.expansion = 0;
  auto by_default = ParseBfReserve(V({"0.01", "10"}), nonscaling_default);
  ASSERT_TRUE(by_default.ok());
  EXPECT_TRUE(by_default->nonscaling);
  EXPECT_EQ(ParseBfReserve(V({"0.01", "10", "EXPANSION", "2"}), nonscaling_default).error().message(),
            "Nonscaling filters cannot expand");
  EXPECT_EQ(ParseBfReserve(V({"0.1", "5", "EXPANSION"}), config).error().message(),
            "ERR no expansion: EXPANSION needs a value");
  EXPECT_EQ(ParseBfReserve(V({"0.1", "5", "EXPANSION", "1", "NONSCALING"}), config).error().message(),
            "Nonscaling filters cannot expand");
}

TEST(BfInsert, FindsItemsAfterOptions) {
  const ModuleConfig config;
  // NOCREATE with CAPACITY/ERROR is accepted, as RedisBloom accepts it (they are unused).
  auto parsed = ParseBfInsert(V({"CAPACITY", "10", "ERROR", "0.5", "NOCREATE", "ITEMS", "a", "b"}), config);
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->nocreate);
  parsed = ParseBfInsert(V({"CAPACITY", "10", "ERROR", "0.5", "ITEMS", "ITEMS", "b"}), config);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->first_item, 5U);  // "ITEMS" after ITEMS is an item
  EXPECT_EQ(parsed->create.capacity, 10U);
  EXPECT_DOUBLE_EQ(parsed->create.error_rate, 0.5);
  parsed = ParseBfInsert(V({"NOCREATE", "ITEMS", "a"}), config);
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->nocreate);
  EXPECT_EQ(ParseBfInsert(V({"ITEMS"}), config).error().code(), kArityError);
  EXPECT_EQ(ParseBfInsert(V({"CAPACITY"}), config).error().code(), kArityError);
  EXPECT_EQ(ParseBfInsert(V({"a", "b"}), config).error().message(),
            "Unknown argument received: 'a' (valid: CAPACITY, ERROR, EXPANSION, NOCREATE, NONSCALING, ITEMS)");
}

TEST(CfReserve, BucketSizesAndCapacity) {
  const ModuleConfig config;
  auto parsed = ParseCfReserve(V({"1000", "BUCKETSIZE", "4", "MAXITERATIONS", "30", "EXPANSION", "0"}), config);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->bucket_size, 4U);
  EXPECT_EQ(parsed->max_iterations, 30U);
  EXPECT_EQ(parsed->expansion, 0U);
  EXPECT_NE(ParseCfReserve(V({"1000", "BUCKETSIZE", "3"}), config).error().message().find("2, 4 or 8"),
            std::string::npos);
  EXPECT_EQ(ParseCfReserve(V({"7", "BUCKETSIZE", "4"}), config).error().message(),
            "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]: capacity 7, bucket size 4");
}

TEST(ScanIterator, Ranges) {
  EXPECT_EQ(ParseScanIterator("0", false).value(), 0);
  EXPECT_FALSE(ParseScanIterator("0", true).ok());
  EXPECT_FALSE(ParseScanIterator("-1", false).ok());
  EXPECT_FALSE(ParseScanIterator("x", false).ok());
}

TEST(DumpChunks, CoverEveryByteOnceInOrder) {
  for (std::uint64_t total : {136ULL, 137ULL, 1000ULL, 4096ULL + 136ULL}) {
    for (std::uint64_t chunk : {16ULL, 100ULL, 1ULL << 20}) {
      std::uint64_t expected_offset = 0;
      std::int64_t iterator = 0;
      int guard = 0;
      for (;;) {
        auto next = NextDumpChunk(iterator, total, chunk);
        ASSERT_TRUE(next.ok()) << next.error().message();
        if (!next.value()) break;
        EXPECT_EQ(next.value()->offset, expected_offset);
        EXPECT_EQ(next.value()->iterator, static_cast<std::int64_t>(expected_offset + 1));
        EXPECT_EQ(next.value()->length,
                  expected_offset == 0 ? kDumpHeaderBytes : std::min(chunk, total - expected_offset));
        expected_offset += next.value()->length;
        iterator = next.value()->iterator;
        ASSERT_LT(++guard, 10000);
      }
      EXPECT_EQ(expected_offset, total);
    }
  }
  EXPECT_FALSE(NextDumpChunk(5, 1000, 100).ok());     // not a chunk start
  EXPECT_FALSE(NextDumpChunk(2000, 1000, 100).ok());  // past the end
}

TEST(DumpHeader, ValidatesKindAndSizeBeforeAllocating) {
  auto filter = ScalableBloomFilter::Create({.initial_capacity = 1000, .fp_rate = 0.01});
  ASSERT_TRUE(filter.ok());
  const auto bytes = filter->Serialize();
  const std::span<const std::byte> header(bytes.data(), kDumpHeaderBytes);
  auto total = ValidateDumpHeader(header, FilterKind::kScalable, 512ULL << 20);
  ASSERT_TRUE(total.ok()) << total.error().message();
  EXPECT_EQ(total.value(), bytes.size());
  EXPECT_FALSE(ValidateDumpHeader(header, FilterKind::kCuckoo, 512ULL << 20).ok());
  EXPECT_FALSE(ValidateDumpHeader(header.first(100), FilterKind::kScalable, 512ULL << 20).ok());
  // A header announcing more than MAX_FILTER_BYTES (+ slack) is refused: the stored and
  // payload lengths are the little-endian words at offsets 48 and 56 (docs/FORMAT.md).
  std::vector<std::byte> forged(header.begin(), header.end());
  for (std::size_t offset : {48U, 56U}) {
    for (std::size_t i = 0; i < 8; ++i) forged[offset + i] = std::byte{i == 5 ? std::uint8_t{1} : std::uint8_t{0}};
  }
  auto huge = ValidateDumpHeader(forged, FilterKind::kScalable, 512ULL << 20);  // announces 2^40 bytes
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().code(), ErrorCode::kTooLarge);
  EXPECT_TRUE(ValidateDumpHeader(forged, FilterKind::kScalable, 2ULL << 40).ok());
  std::vector<std::byte> garbage(kDumpHeaderBytes, std::byte{0x41});
  EXPECT_FALSE(ValidateDumpHeader(garbage, FilterKind::kScalable, 512ULL << 20).ok());
}

// LOADCHUNK's append step: chunks must come in order, be non-empty and end within the
// announced total; the bytes come out exactly as sent, completion is reported on the
// last byte, and the storage never grows past the total.
TEST(PendingDump, AppendsInOrderUpToTheTotal) {
  std::vector<std::byte> dump(1000);
  for (std::size_t i = 0; i < dump.size(); ++i) dump[i] = static_cast<std::byte>(i * 7 + 3);
  const std::span<const std::byte> all(dump);
  PendingDump pending(dump.size(), all.first(kDumpHeaderBytes));
  EXPECT_EQ(pending.total(), 1000U);

  auto out_of_order = pending.Append(200, all.subspan(200, 10));
  ASSERT_FALSE(out_of_order.ok());
  EXPECT_EQ(out_of_order.error().message(), "ERR invalid chunk iterator: expected iterator 129, got 201");
  auto empty = pending.Append(128, {});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message(),
            "ERR chunk runs past the end of the dump: 0 bytes at offset 128 of a 1000-byte dump");
  auto too_long = pending.Append(128, std::span<const std::byte>(dump.data() + 128, 873));
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.error().message().find("873 bytes at offset 128"), std::string::npos);
  EXPECT_EQ(pending.bytes().size(), kDumpHeaderBytes) << "a refused chunk must not be kept";

  std::uint64_t offset = kDumpHeaderBytes;
  for (const std::uint64_t length : {1ULL, 300ULL, 71ULL, 500ULL}) {
    auto complete = pending.Append(offset, all.subspan(offset, length));
    ASSERT_TRUE(complete.ok()) << complete.error().message();
    offset += length;
    EXPECT_EQ(complete.value(), offset == dump.size()) << "at offset " << offset;
    EXPECT_LE(pending.reserved_bytes(), pending.total());
  }
  ASSERT_EQ(pending.bytes().size(), dump.size());
  EXPECT_TRUE(std::equal(dump.begin(), dump.end(), pending.bytes().begin()));
  EXPECT_FALSE(pending.Append(offset, all.first(1)).ok()) << "nothing fits after the last byte";
}

}  // namespace
}  // namespace bloomkit::redis
