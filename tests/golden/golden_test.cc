// SPDX-License-Identifier: Apache-2.0
// Golden files (data/*.bkf): filters serialized when file format v1 was frozen.
// Every build must still load them, give the same answer to every query it gave when
// they were written, and write them back byte for byte; the recipes (golden_recipes.h)
// must still produce them. A change to hashing, sizing, the bit layout, a payload or
// the header fails here: such a change needs a new format version, not new golden
// files (README.md).
#include <gtest/gtest.h>
#include <xxhash.h>
#include <zstd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "bloomkit/format.h"
#include "golden_recipes.h"

namespace bloomkit_golden {

// Test names and messages show the file, not the recipe's bytes (found by ADL).
void PrintTo(const Recipe& recipe, std::ostream* os);
void PrintTo(const Recipe& recipe, std::ostream* os) {
  *os << recipe.file;
}

namespace {

// XXH3-64 (seed 0) of each checked-in file: a changed or regenerated file fails here
// even if the code changed with it.
const std::map<std::string, std::uint64_t>& Digests() {
  static const std::map<std::string, std::uint64_t> digests = {
      {"classic_empty.bkf", 0x36663f29afa38e63ULL},
      {"classic_500.bkf", 0x4fb71ad04e028796ULL},
      {"classic_500_zstd.bkf", 0x4eae834c7826dda1ULL},
      {"classic_1000bits_k3.bkf", 0x0c70a0a1dc8835a6ULL},
      {"classic_hashes.bkf", 0xd980177be7714e54ULL},
      {"classic_integers.bkf", 0x6a77ab2c477f23c2ULL},
      {"blocked_500.bkf", 0xe25e649a4de3ffd4ULL},
      {"blocked_500_zstd.bkf", 0x96b55be60affe75dULL},
      {"blocked_k16.bkf", 0x6b27d8a18d1121a7ULL},
      {"counting_500.bkf", 0xc0efe73bd66b7a8cULL},
      {"counting_8bit_removed.bkf", 0x27e407305ae10744ULL},
      {"counting_500_zstd.bkf", 0x465db5f267893c61ULL},
      {"scalable_500.bkf", 0x926401e57d761832ULL},
      {"scalable_g4_r09.bkf", 0x657b5b9c713b8f3bULL},
      {"scalable_nonscaling.bkf", 0x2cc0acf40dce24d5ULL},
      {"scalable_500_words.bkf", 0xb3d5c36b60ac43a3ULL},
      {"cuckoo_500.bkf", 0x7632e0b1ae6bad7aULL},
      {"cuckoo_grown_removed.bkf", 0x78eb903e140138edULL},
      {"cuckoo_victim.bkf", 0xde11e514324d7b47ULL},
      {"blocked256_500.bkf", 0xd842623349edd9dbULL},
      {"blocked256_k5_hashes.bkf", 0x456adb83f455c061ULL},
      {"windowed_300.bkf", 0x621652e8ad1210ebULL},

  };
  return digests;
}

// XXH3-64 of the loaded filter's answers (one '0' or '1' per query) to MayContain of
// key:0 .. key:1999 and absent:0 .. absent:1999: false positives included, so a change
// in how an old file is read fails here even when every added key is still found.
const std::map<std::string, std::uint64_t>& AnswerDigests() {
  static const std::map<std::string, std::uint64_t> digests = {
      {"counting_500.bkf", 0x285f7e91fd58004cULL},         {"counting_8bit_removed.bkf", 0xd3d29aa47f78b75cULL},
      {"counting_500_zstd.bkf", 0x285f7e91fd58004cULL},    {"scalable_500.bkf", 0x839e0764e2909855ULL},
      {"scalable_g4_r09.bkf", 0x5906437e9e746584ULL},      {"scalable_nonscaling.bkf", 0x2973da3c0c1d537eULL},
      {"scalable_500_words.bkf", 0x56e37a1fc56c6ba8ULL},   {"cuckoo_500.bkf", 0xfaf49303feb2bc56ULL},
      {"cuckoo_grown_removed.bkf", 0x141201c326aa5ba4ULL}, {"cuckoo_victim.bkf", 0x3370ee6172961418ULL},
      {"classic_empty.bkf", 0xce90d04fa687a7bdULL},        {"classic_500.bkf", 0x285f7e91fd58004cULL},
      {"classic_500_zstd.bkf", 0x285f7e91fd58004cULL},     {"classic_1000bits_k3.bkf", 0x45fa1d450daff3edULL},
      {"classic_hashes.bkf", 0x64990df8f353fb66ULL},       {"classic_integers.bkf", 0x14605bd3227d2b10ULL},
      {"blocked_500.bkf", 0xa36463c5a91f7625ULL},          {"blocked_500_zstd.bkf", 0xa36463c5a91f7625ULL},
      {"blocked_k16.bkf", 0x9af8de4040040ddaULL},          {"blocked256_500.bkf", 0xd636eda536b89247ULL},
      {"blocked256_k5_hashes.bkf", 0xce8290aed6c488c2ULL}, {"windowed_300.bkf", 0x516a6803014c73fcULL},

  };
  return digests;
}

// The zstd release the compressed golden files were written with. zstd guarantees
// that any later release decodes them, but not that it compresses to the same bytes,
// so byte-for-byte recompression is only asserted under this release.
constexpr unsigned kGoldenZstdVersion = 10504;  // 1.5.4 (Debian 12)

std::vector<std::byte> ReadGolden(const std::string& name) {
  const std::filesystem::path path = std::filesystem::path(BLOOMKIT_GOLDEN_DIR) / name;
  std::ifstream in(path, std::ios::binary);
  if (!in) ADD_FAILURE() << "cannot open golden file " << path;
  const std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) bytes[i] = static_cast<std::byte>(chars[i]);
  return bytes;
}

std::string Hex(std::uint64_t v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%016llxULL", static_cast<unsigned long long>(v));
  return buffer;
}

template <typename Filter>
std::uint64_t AnswerDigest(const Filter& f) {
  std::string answers;
  for (const char* prefix : {"key:", "absent:"}) {
    for (int i = 0; i < 2000; ++i) answers += f.MayContain(prefix + std::to_string(i)) ? '1' : '0';
  }
  return XXH3_64bits(answers.data(), answers.size());
}

template <typename Filter>
void CheckKeys(const Filter& f, const Recipe& recipe) {
  switch (recipe.form) {
    case KeyForm::kStrings:
      for (const std::string& key : Keys(recipe.num_keys)) ASSERT_TRUE(f.MayContain(key)) << key;
      break;
    case KeyForm::kHashes:
      if constexpr (requires { f.MayContainHash(std::uint64_t{0}); }) {
        for (std::uint64_t i = 0; i < recipe.num_keys; ++i) ASSERT_TRUE(f.MayContainHash(i)) << "hash " << i;
      } else {
        FAIL() << recipe.file << ": this kind has no hash form";
      }
      break;
    case KeyForm::kIntegers:
      for (std::int64_t i = -100; i < 100; ++i) ASSERT_TRUE(f.MayContain(bloomkit::IntegerKey(i))) << "integer " << i;
      break;
  }
  // Sanity: a filter that reports everything would pass the loop above.
  std::uint64_t absent_hits = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) absent_hits += f.MayContain("absent:" + std::to_string(i)) ? 1U : 0U;
  EXPECT_LT(absent_hits, 100U) << "the filter reports most absent keys";
}

template <typename Filter>
void CheckLoadsAndRewrites(const Recipe& recipe, const std::vector<std::byte>& bytes, bool exact_zstd) {
  auto loaded = Filter::Deserialize(bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  CheckKeys(loaded.value(), recipe);
  const std::uint64_t answers = AnswerDigest(loaded.value());
  const auto pinned = AnswerDigests().find(recipe.file);
  ASSERT_NE(pinned, AnswerDigests().end()) << "no answer digest for " << recipe.file << "; it is " << Hex(answers);
  EXPECT_EQ(answers, pinned->second) << recipe.file << " answers differently: its answer digest is now "
                                     << Hex(answers);
  if (!recipe.compress || exact_zstd) {
    EXPECT_EQ(loaded->Serialize(bloomkit::SaveOptions{.compress = recipe.compress}), bytes)
        << "re-serializing the loaded filter does not reproduce the file";
  }
}

class GoldenTest : public ::testing::TestWithParam<Recipe> {};

TEST_P(GoldenTest, LoadsAndReproducesByteForByte) {
  const Recipe& recipe = GetParam();
  const std::vector<std::byte> bytes = ReadGolden(recipe.file);
  ASSERT_FALSE(bytes.empty());
  const std::uint64_t digest = XXH3_64bits(bytes.data(), bytes.size());
  const auto pinned = Digests().find(recipe.file);
  ASSERT_NE(pinned, Digests().end()) << "no digest for " << recipe.file << "; it is " << Hex(digest);
  EXPECT_EQ(digest, pinned->second) << recipe.file << " changed on disk: its digest is now " << Hex(digest);

  auto header = bloomkit::InspectBytes(bytes);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_EQ(header->kind, recipe.kind);
  EXPECT_EQ(header->format_version, 1U);
  EXPECT_EQ(header->flags, recipe.compress ? bloomkit::kFlagZstdPayload : 0U);

  const bool exact_zstd = ZSTD_versionNumber() == kGoldenZstdVersion;
  switch (recipe.kind) {
    case bloomkit::FilterKind::kClassic: CheckLoadsAndRewrites<bloomkit::BloomFilter>(recipe, bytes, exact_zstd); break;
    case bloomkit::FilterKind::kBlocked:
      CheckLoadsAndRewrites<bloomkit::BlockedBloomFilter>(recipe, bytes, exact_zstd);
      break;
    case bloomkit::FilterKind::kCounting:
      CheckLoadsAndRewrites<bloomkit::CountingBloomFilter>(recipe, bytes, exact_zstd);
      break;
    case bloomkit::FilterKind::kScalable:
      CheckLoadsAndRewrites<bloomkit::ScalableBloomFilter>(recipe, bytes, exact_zstd);
      break;
    case bloomkit::FilterKind::kCuckoo: CheckLoadsAndRewrites<bloomkit::CuckooFilter>(recipe, bytes, exact_zstd); break;
    case bloomkit::FilterKind::kWindowed:
      CheckLoadsAndRewrites<bloomkit::WindowedBloomFilter>(recipe, bytes, exact_zstd);
      break;
    case bloomkit::FilterKind::kRedisBloomScalable:
    case bloomkit::FilterKind::kRedisBloomCuckoo:
    case bloomkit::FilterKind::kBitsAndBlooms:
    case bloomkit::FilterKind::kGuava:
    case bloomkit::FilterKind::kParquet:
      // Their reference data is the other library's own (redisbloom_test.cc,
      // foreign_test.cc), not a recipe here.
      ADD_FAILURE() << recipe.file << ": no golden recipe for this kind";
      break;
  }
  if (!recipe.compress || exact_zstd) {
    EXPECT_EQ(recipe.build(), bytes) << "building " << recipe.file << " from its recipe gives other bytes";
  } else {
    GTEST_SKIP() << "zstd " << ZSTD_versionString() << " is not the release the file was written with; "
                 << "loading was checked, byte-exact recompression was not";
  }
}

INSTANTIATE_TEST_SUITE_P(Files, GoldenTest, ::testing::ValuesIn(Recipes()),
                         [](const ::testing::TestParamInfo<Recipe>& param_info) {
                           std::string name = param_info.param.file;
                           for (char& c : name) {
                             if (c == '.' || c == '-') c = '_';
                           }
                           return name;
                         });

// Every file in data/ has a recipe (no stale files that nothing checks).
TEST(GoldenDataTest, EveryFileHasARecipe) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(BLOOMKIT_GOLDEN_DIR)) {
    files.push_back(entry.path().filename().string());
  }
  for (const std::string& file : files) {
    bool found = false;
    for (const Recipe& r : Recipes()) found = found || file == r.file;
    EXPECT_TRUE(found) << file << " in data/ has no recipe";
  }
  EXPECT_EQ(files.size(), Recipes().size());
}

// The schema the recipes promise: the counting file holds counts above 1, the scalable
// files several stages, the cuckoo files several sub-filters and a victim, so each part
// of those payloads is pinned by some file.
TEST(GoldenDataTest, FilesCoverEveryPayloadPart) {
  auto counting = bloomkit::CountingBloomFilter::Deserialize(ReadGolden("counting_8bit_removed.bkf"));
  ASSERT_TRUE(counting.ok()) << counting.error().message();
  EXPECT_EQ(counting->counter_bits(), 8U);
  EXPECT_GE(counting->Occurrences("key:0"), 2U);
  EXPECT_EQ(counting->count(), 800U - 300U);

  auto scalable = bloomkit::ScalableBloomFilter::Deserialize(ReadGolden("scalable_500.bkf"));
  ASSERT_TRUE(scalable.ok()) << scalable.error().message();
  EXPECT_EQ(scalable->num_stages(), 3U);
  auto g4 = bloomkit::ScalableBloomFilter::Deserialize(ReadGolden("scalable_g4_r09.bkf"));
  ASSERT_TRUE(g4.ok()) << g4.error().message();
  EXPECT_EQ(g4->options().expansion, 4U);
  EXPECT_GE(g4->num_stages(), 2U);
  auto fixed = bloomkit::ScalableBloomFilter::Deserialize(ReadGolden("scalable_nonscaling.bkf"));
  ASSERT_TRUE(fixed.ok()) << fixed.error().message();
  EXPECT_TRUE(fixed->options().non_scaling);
  EXPECT_FALSE(fixed->AddIfAbsent("absent:0").ok()) << "a full non-scaling filter must refuse a new key";

  auto grown = bloomkit::CuckooFilter::Deserialize(ReadGolden("cuckoo_grown_removed.bkf"));
  ASSERT_TRUE(grown.ok()) << grown.error().message();
  EXPECT_GE(grown->num_stages(), 3U);
  EXPECT_EQ(grown->num_deletes(), 200U);
  auto victim = bloomkit::CuckooFilter::Deserialize(ReadGolden("cuckoo_victim.bkf"));
  ASSERT_TRUE(victim.ok()) << victim.error().message();
  EXPECT_EQ(victim->count(), kCuckooVictimKeys);
  EXPECT_EQ(victim->num_buckets() * victim->bucket_size() + 1, kCuckooVictimKeys)
      << "no fingerprint in the victim slot";
  EXPECT_FALSE(victim->Add("absent:0").ok()) << "a full cuckoo filter with a victim must refuse a new key";
}

}  // namespace
}  // namespace bloomkit_golden
