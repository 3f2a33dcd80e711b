// Golden files (data/*.bkf): filters serialized when file format v1 was frozen.
// Every build must still load them, answer for their keys, and write them back
// byte for byte; the recipes (golden_recipes.h) must still produce them. A change to
// hashing, sizing, the bit layout or the header fails here: such a change needs a new
// format version, not new golden files (README.md).
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
      {"classic_empty.bkf", 0x36663f29afa38e63ULL},    {"classic_500.bkf", 0x4fb71ad04e028796ULL},
      {"classic_500_zstd.bkf", 0x4eae834c7826dda1ULL}, {"classic_1000bits_k3.bkf", 0x0c70a0a1dc8835a6ULL},
      {"classic_hashes.bkf", 0xd980177be7714e54ULL},   {"classic_integers.bkf", 0x6a77ab2c477f23c2ULL},
      {"blocked_500.bkf", 0xe25e649a4de3ffd4ULL},      {"blocked_500_zstd.bkf", 0x96b55be60affe75dULL},
      {"blocked_k16.bkf", 0x6b27d8a18d1121a7ULL},
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
void CheckKeys(const Filter& f, const Recipe& recipe) {
  switch (recipe.form) {
    case KeyForm::kStrings:
      for (const std::string& key : Keys(recipe.num_keys)) ASSERT_TRUE(f.MayContain(key)) << key;
      break;
    case KeyForm::kHashes:
      for (std::uint64_t i = 0; i < recipe.num_keys; ++i) ASSERT_TRUE(f.MayContainHash(i)) << "hash " << i;
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
  if (recipe.kind == bloomkit::FilterKind::kClassic) {
    CheckLoadsAndRewrites<bloomkit::BloomFilter>(recipe, bytes, exact_zstd);
  } else {
    CheckLoadsAndRewrites<bloomkit::BlockedBloomFilter>(recipe, bytes, exact_zstd);
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

}  // namespace
}  // namespace bloomkit_golden
