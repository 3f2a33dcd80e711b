// SPDX-License-Identifier: Apache-2.0
// RedisBloom 2.8.20's own data (redisbloom/: README.md): for each of its 15 keys, the
// DUMP payload, the SCANDUMP chunks, BF/CF.INFO and RedisBloom's answers to 100,000+
// probes. bloomkit's RedisBloom kinds must decode every payload, answer every probe as
// RedisBloom did (false positives included), re-encode the payload and the chunks byte
// for byte, and rebuild the same filter from the key's recipe (the same adds and deletes
// RedisBloom was given), which pins sizing, growth, evictions and compaction.
#include "bloomkit/redisbloom.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "bloomkit/redisbloom_codec.h"

namespace bloomkit {
namespace {

const std::filesystem::path kDir = BLOOMKIT_REDISBLOOM_DIR;

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) ADD_FAILURE() << "cannot open " << path;
  const std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return {chars.begin(), chars.end()};
}

std::vector<std::byte> ReadBytes(const std::filesystem::path& path) {
  const std::string s = ReadText(path);
  std::vector<std::byte> bytes(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) bytes[i] = static_cast<std::byte>(s[i]);
  return bytes;
}

// The block of manifest.json that describes `key` (up to the next key's name).
std::string ManifestBlock(const std::string& key) {
  static const std::string manifest = ReadText(kDir / "manifest.json");
  const std::size_t begin = manifest.find("\"" + key + "\": {");
  EXPECT_NE(begin, std::string::npos) << key;
  const std::size_t end = manifest.find("\n  },\n", begin);
  return manifest.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// The number after `"field": ` in `block`; nullopt for null or a missing field.
std::optional<std::int64_t> Field(const std::string& block, const std::string& field, std::size_t from = 0) {
  const std::string tag = "\"" + field + "\": ";
  const std::size_t at = block.find(tag, from);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t v = at + tag.size();
  if (block.compare(v, 4, "null") == 0) return std::nullopt;
  return std::stoll(block.substr(v, 24));
}

// The iterators SCANDUMP returned, in order.
std::vector<std::int64_t> Iterators(const std::string& block) {
  std::vector<std::int64_t> out;
  std::size_t at = block.find("\"scandump_chunks\"");
  while ((at = block.find("\"iterator\": ", at)) != std::string::npos) {
    out.push_back(*Field(block, "iterator", at));
    at += 10;
  }
  return out;
}

struct Recipe {
  std::string key;
  bool cuckoo = false;
  std::uint64_t items = 0;  // items 0 .. items-1 were added, in order
  bool via_reserve = true;  // false: created by the first BF.ADD/CF.ADD (defaults)
  RedisBloomOptions bloom;  // BF.RESERVE arguments
  RedisCuckooOptions cuckoo_options;
  std::uint64_t added_twice = 0;   // then items 0 .. added_twice-1 again
  std::uint64_t delete_every = 0;  // then every item i with i % delete_every == 0 deleted
  bool binary_items = false;
};

void PrintTo(const Recipe& r, std::ostream* os) {
  *os << r.key;
}

std::vector<Recipe> Recipes() {
  auto bf = [](std::string key, std::uint64_t items, double rate, std::uint64_t capacity, std::uint32_t expansion,
               bool non_scaling = false) {
    Recipe r;
    r.key = std::move(key);
    r.items = items;
    r.bloom = {.capacity = capacity, .fp_rate = rate, .expansion = expansion, .non_scaling = non_scaling};
    return r;
  };
  auto cf = [](std::string key, std::uint64_t items, RedisCuckooOptions o, std::uint64_t twice, std::uint64_t del) {
    Recipe r;
    r.key = std::move(key);
    r.cuckoo = true;
    r.items = items;
    r.cuckoo_options = o;
    r.added_twice = twice;
    r.delete_every = del;
    return r;
  };
  std::vector<Recipe> all = {
      bf("bf_single", 1000, 0.01, 1000, 2),
      bf("bf_scaled", 10000, 0.01, 1000, 2),
      bf("bf_expansion1", 3000, 0.02, 500, 1),
      bf("bf_expansion4", 20000, 0.001, 800, 4),
      bf("bf_nonscaling", 5000, 0.001, 5000, 2, true),
      bf("bf_default", 1500, 0.01, 100, 2),
      bf("bf_big", 200000, 0.001, 200000, 2),
      bf("bf_tiny_error", 20000, 0.00001, 20000, 2),
      bf("bf_binary_items", 2000, 0.01, 2000, 2),
      cf("cf_default", 1000, {.capacity = 1024}, 0, 10),
      cf("cf_bucket1", 2000, {.capacity = 4000, .bucket_size = 1}, 0, 0),
      cf("cf_bucket2", 900, {.capacity = 1000}, 50, 7),
      cf("cf_bucket4_expand", 12000, {.capacity = 5000, .bucket_size = 4, .max_iterations = 50, .expansion = 2}, 0, 5),
      cf("cf_bucket8", 20000, {.capacity = 20000, .bucket_size = 8}, 100, 0),
      cf("cf_bucket3_odd", 6000, {.capacity = 3000, .bucket_size = 3, .expansion = 3}, 0, 11),
  };
  all[5].via_reserve = false;
  all[8].binary_items = true;
  all[9].via_reserve = false;
  return all;
}

std::string Item(const Recipe& r, std::uint64_t i) {
  if (!r.binary_items) return "item:" + std::to_string(i);
  std::string s(
      "\x00"
      "bin\xff",
      5);
  for (int b = 0; b < 4; ++b) s.push_back(static_cast<char>((i >> (8 * b)) & 0xff));
  return s + "\n\r";
}

std::vector<std::byte> Chunk(const Recipe& r, std::size_t n) {
  char name[32];
  std::snprintf(name, sizeof(name), "chunk%03zu.bin", n);
  return ReadBytes(kDir / r.key / name);
}

std::size_t NumChunkFiles(const Recipe& r) {
  std::size_t n = 0;
  while (std::filesystem::exists(kDir / r.key /
                                 ("chunk" + std::string(n < 10 ? "00" : "0") + std::to_string(n) + ".bin"))) {
    ++n;
  }
  return n;
}

class RedisBloomFixture : public ::testing::TestWithParam<Recipe> {};

// Every probe answers as RedisBloom did: items that were added, and 100,000 that were not.
TEST_P(RedisBloomFixture, EveryProbeAnswersAsRedisBloom) {
  const Recipe& r = GetParam();
  const std::string answers = ReadText(kDir / r.key / "answers.txt");
  const std::size_t probes = r.items + 100000;
  ASSERT_EQ(answers.size(), probes + 1);
  const std::vector<std::byte> dump = ReadBytes(kDir / r.key / "dump.bin");
  std::size_t mismatches = 0;
  std::size_t positives = 0;
  if (r.cuckoo) {
    auto f = DecodeRedisCuckooDump(dump);
    ASSERT_TRUE(f.ok()) << f.error().message();
    for (std::size_t i = 0; i < probes; ++i) {
      const std::uint64_t count = std::min<std::uint64_t>(f->Occurrences(Item(r, i)), 9);
      const char want = answers[i];
      if (static_cast<char>('0' + count) != want) ++mismatches;
      if ((count != 0) != f->MayContain(Item(r, i))) ++mismatches;
      positives += count != 0 ? 1 : 0;
    }
  } else {
    auto f = DecodeRedisBloomDump(dump);
    ASSERT_TRUE(f.ok()) << f.error().message();
    for (std::size_t i = 0; i < probes; ++i) {
      const bool yes = f->MayContain(Item(r, i));
      if ((yes ? '1' : '0') != answers[i]) ++mismatches;
      positives += yes ? 1 : 0;
    }
  }
  EXPECT_EQ(mismatches, 0U);
  EXPECT_EQ(static_cast<std::int64_t>(positives), Field(ManifestBlock(r.key), "probe_positives"));
}

// DUMP, re-encoded, is RedisBloom's payload byte for byte (LZF strings included).
TEST_P(RedisBloomFixture, DumpReencodesByteForByte) {
  const Recipe& r = GetParam();
  const std::vector<std::byte> dump = ReadBytes(kDir / r.key / "dump.bin");
  auto reader = DumpPayloadReader::Open(dump);
  ASSERT_TRUE(reader.ok()) << reader.error().message();
  EXPECT_EQ(reader->type_name(), r.cuckoo ? "MBbloomCF" : "MBbloom--");
  EXPECT_EQ(reader->encoding_version(), 4);
  if (r.cuckoo) {
    auto f = DecodeRedisCuckooDump(dump);
    ASSERT_TRUE(f.ok()) << f.error().message();
    EXPECT_EQ(EncodeRedisCuckooDump(f.value(), reader->rdb_version()), dump);
  } else {
    auto f = DecodeRedisBloomDump(dump);
    ASSERT_TRUE(f.ok()) << f.error().message();
    EXPECT_EQ(EncodeRedisBloomDump(f.value(), reader->rdb_version()), dump);
  }
}

// BF/CF.INFO as RedisBloom reported it.
TEST_P(RedisBloomFixture, InfoFieldsEqualRedisBloom) {
  const Recipe& r = GetParam();
  const std::string block = ManifestBlock(r.key);
  const std::vector<std::byte> dump = ReadBytes(kDir / r.key / "dump.bin");
  if (r.cuckoo) {
    auto f = DecodeRedisCuckooDump(dump);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(static_cast<std::int64_t>(f->redisbloom_size()), Field(block, "Size"));
    EXPECT_EQ(static_cast<std::int64_t>(f->num_buckets()), Field(block, "Number of buckets"));
    EXPECT_EQ(static_cast<std::int64_t>(f->num_stages()), Field(block, "Number of filters"));
    EXPECT_EQ(static_cast<std::int64_t>(f->count()), Field(block, "Number of items inserted"));
    EXPECT_EQ(static_cast<std::int64_t>(f->num_deletes()), Field(block, "Number of items deleted"));
    EXPECT_EQ(static_cast<std::int64_t>(f->bucket_size()), Field(block, "Bucket size"));
    EXPECT_EQ(static_cast<std::int64_t>(f->expansion()), Field(block, "Expansion rate"));
    EXPECT_EQ(static_cast<std::int64_t>(f->max_iterations()), Field(block, "Max iterations"));
  } else {
    auto f = DecodeRedisBloomDump(dump);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(static_cast<std::int64_t>(f->capacity()), Field(block, "Capacity"));
    EXPECT_EQ(static_cast<std::int64_t>(f->redisbloom_size()), Field(block, "Size"));
    EXPECT_EQ(static_cast<std::int64_t>(f->num_stages()), Field(block, "Number of filters"));
    EXPECT_EQ(static_cast<std::int64_t>(f->count()), Field(block, "Number of items inserted"));
    const std::optional<std::int64_t> expansion = Field(block, "Expansion rate");
    if (f->non_scaling()) {
      EXPECT_FALSE(expansion.has_value());
    } else {
      EXPECT_EQ(static_cast<std::int64_t>(f->expansion()), expansion);
    }
  }
}

// SCANDUMP yields RedisBloom's chunks and iterators; LOADCHUNK of them rebuilds the key.
TEST_P(RedisBloomFixture, ScanDumpChunksMatchAndLoad) {
  const Recipe& r = GetParam();
  const std::vector<std::int64_t> iterators = Iterators(ManifestBlock(r.key));
  const std::size_t files = NumChunkFiles(r);
  ASSERT_EQ(iterators.size(), files);
  ASSERT_GE(files, 2U);
  const std::vector<std::byte> dump = ReadBytes(kDir / r.key / "dump.bin");
  if (r.cuckoo) {
    auto f = DecodeRedisCuckooDump(dump);
    ASSERT_TRUE(f.ok());
    const auto chunks = RedisCuckooScanDump(f.value());
    ASSERT_EQ(chunks.size(), files);
    for (std::size_t i = 0; i < files; ++i) {
      EXPECT_EQ(chunks[i].iterator, iterators[i]) << i;
      EXPECT_EQ(chunks[i].bytes, Chunk(r, i)) << i;
    }
    auto loaded = RedisCuckooFromHeaderChunk(Chunk(r, 0));
    ASSERT_TRUE(loaded.ok()) << loaded.error().message();
    for (std::size_t i = 1; i < files; ++i) {
      Status s = LoadRedisCuckooChunk(loaded.value(), iterators[i], Chunk(r, i));
      ASSERT_TRUE(s.ok()) << s.error().message();
    }
    EXPECT_TRUE(loaded.value() == f.value());
  } else {
    auto f = DecodeRedisBloomDump(dump);
    ASSERT_TRUE(f.ok());
    const auto chunks = RedisBloomScanDump(f.value());
    ASSERT_EQ(chunks.size(), files);
    for (std::size_t i = 0; i < files; ++i) {
      EXPECT_EQ(chunks[i].iterator, iterators[i]) << i;
      EXPECT_EQ(chunks[i].bytes, Chunk(r, i)) << i;
    }
    auto loaded = RedisBloomFromHeaderChunk(Chunk(r, 0));
    ASSERT_TRUE(loaded.ok()) << loaded.error().message();
    for (std::size_t i = 1; i < files; ++i) {
      Status s = LoadRedisBloomChunk(loaded.value(), iterators[i], Chunk(r, i));
      ASSERT_TRUE(s.ok()) << s.error().message();
    }
    EXPECT_TRUE(loaded.value() == f.value());
  }
}

// The key's recipe, replayed on a new filter, gives RedisBloom's bytes: sizing, stage
// growth and tightening, evictions, deletes and automatic compaction all match.
TEST_P(RedisBloomFixture, RecipeRebuildsTheSameFilter) {
  const Recipe& r = GetParam();
  const std::vector<std::byte> dump = ReadBytes(kDir / r.key / "dump.bin");
  if (r.cuckoo) {
    auto want = DecodeRedisCuckooDump(dump);
    ASSERT_TRUE(want.ok());
    auto f = RedisCuckooFilter::Create(r.cuckoo_options);
    ASSERT_TRUE(f.ok()) << f.error().message();
    for (std::uint64_t i = 0; i < r.items; ++i) ASSERT_TRUE(f->Add(Item(r, i)).ok()) << i;
    for (std::uint64_t i = 0; i < r.added_twice; ++i) ASSERT_TRUE(f->Add(Item(r, i)).ok()) << i;
    for (std::uint64_t i = 0; r.delete_every != 0 && i < r.items; i += r.delete_every) {
      EXPECT_TRUE(f->Remove(Item(r, i))) << i;
    }
    EXPECT_TRUE(f.value() == want.value());
    EXPECT_EQ(EncodeRedisCuckooDump(f.value()), dump);
  } else {
    auto want = DecodeRedisBloomDump(dump);
    ASSERT_TRUE(want.ok());
    auto f = RedisBloomScalableFilter::Create(r.bloom);
    ASSERT_TRUE(f.ok()) << f.error().message();
    for (std::uint64_t i = 0; i < r.items; ++i) {
      auto added = f->AddIfAbsent(Item(r, i));
      if (!added.ok()) {
        // A full non-scaling filter refuses the item, as BF.ADD did.
        ASSERT_TRUE(r.bloom.non_scaling) << added.error().message();
        EXPECT_EQ(added.error().code(), ErrorCode::kFull);
      }
    }
    EXPECT_TRUE(f.value() == want.value());
    EXPECT_EQ(EncodeRedisBloomDump(f.value()), dump);
  }
}

// bloomkit's file format keeps the filter exactly; more adds and deletes after a load
// still encode to payloads that decode to the same filter.
TEST_P(RedisBloomFixture, FileRoundTripAndFurtherUpdates) {
  const Recipe& r = GetParam();
  const std::vector<std::byte> dump = ReadBytes(kDir / r.key / "dump.bin");
  if (r.cuckoo) {
    auto f = DecodeRedisCuckooDump(dump);
    ASSERT_TRUE(f.ok());
    auto copy = RedisCuckooFilter::Deserialize(f->Serialize());
    ASSERT_TRUE(copy.ok()) << copy.error().message();
    EXPECT_TRUE(copy.value() == f.value());
    for (std::uint64_t i = r.items; i < r.items + 3000; ++i) {
      Status s = f->Add(Item(r, i));
      if (!s.ok()) break;
      if (i % 3 == 0) {
        EXPECT_TRUE(f->Remove(Item(r, i - 1)));
      }
    }
    f->Compact(true);
    auto again = DecodeRedisCuckooDump(EncodeRedisCuckooDump(f.value()));
    ASSERT_TRUE(again.ok()) << again.error().message();
    EXPECT_TRUE(again.value() == f.value());
    EXPECT_EQ(f->CountOccupiedSlots(), f->count());
  } else {
    auto f = DecodeRedisBloomDump(dump);
    ASSERT_TRUE(f.ok());
    auto copy = RedisBloomScalableFilter::Deserialize(f->Serialize({.compress = true}));
    ASSERT_TRUE(copy.ok()) << copy.error().message();
    EXPECT_TRUE(copy.value() == f.value());
    for (std::uint64_t i = r.items; i < r.items + 5000; ++i) {
      if (!f->AddIfAbsent(Item(r, i)).ok()) break;
    }
    for (std::uint64_t i = 0; i < r.items + 5000; i += 7) {
      if (i < r.items) {
        EXPECT_TRUE(f->MayContain(Item(r, i))) << i;
      }
    }
    auto again = DecodeRedisBloomDump(EncodeRedisBloomDump(f.value()));
    ASSERT_TRUE(again.ok()) << again.error().message();
    EXPECT_TRUE(again.value() == f.value());
  }
}

INSTANTIATE_TEST_SUITE_P(Keys, RedisBloomFixture, ::testing::ValuesIn(Recipes()),
                         [](const ::testing::TestParamInfo<Recipe>& p) { return p.param.key; });

}  // namespace
}  // namespace bloomkit
