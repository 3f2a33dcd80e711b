// SPDX-License-Identifier: Apache-2.0
// Files written by the real libraries (foreign/README.md): bits-and-blooms/bloom v3.3.1
// and Guava 31.1. bloomkit must read them, answer every probe as the library did, build
// the same bytes from the same keys, and write the same bytes after the same adds.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "bloomkit/foreign_bloom.h"

namespace bloomkit {
namespace {

const std::string kDir = BLOOMKIT_FOREIGN_DIR;

std::vector<std::byte> ReadAll(const std::string& path) {
  std::vector<std::byte> out(std::filesystem::file_size(path));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  if (f == nullptr) return {};
  EXPECT_EQ(std::fread(out.data(), 1, out.size(), f), out.size());
  std::fclose(f);
  return out;
}

// The key functions of tests/interop (babtool.go, GuavaTool.java).
std::string Key(int i) {
  std::string s = "k" + std::to_string(i);
  if (i % 7 == 0) s += "-\xc3\xa9\xe6\x97\xa5";
  return s + "-" + std::string(static_cast<std::size_t>(i % 37), 'x');
}
std::string Absent(int i) {
  return "a" + std::to_string(i) + "-" + std::string(static_cast<std::size_t>(i % 23), 'y');
}
std::string Added(int i) {
  return "n" + std::to_string(i) + "-" + std::string(static_cast<std::size_t>(i % 19), 'z');
}

template <typename F>
void CheckGolden(const std::string& name, GuavaStrategy strategy) {
  const std::vector<std::byte> file = ReadAll(kDir + "/" + name + "_golden.bin");
  auto f = F::ReadForeign(file);
  ASSERT_TRUE(f.ok()) << f.error().message();
  // Every probe as the library answered: key(0..999) present, exactly the listed
  // absent(i) false positives.
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(f->MayContain(Key(i))) << i;
  std::set<int> want;
  std::ifstream fp(kDir + "/" + name + "_golden.fp");
  for (int i = 0; fp >> i;) want.insert(i);
  ASSERT_GT(want.size(), 500U);
  std::set<int> got;
  for (int i = 0; i < 100000; ++i) {
    if (f->MayContain(Absent(i))) got.insert(i);
  }
  EXPECT_EQ(got, want);
  // Built here from the same options and keys: the library's bytes.
  auto built = F::Create({.capacity = 1000, .fp_rate = 0.01, .guava_strategy = strategy});
  ASSERT_TRUE(built.ok());
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(built->Add(Key(i)).ok());
  EXPECT_EQ(built->WriteForeign(), file);
  // The same adds as the library: the same bytes.
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(f->Add(Added(i)).ok());
  EXPECT_EQ(f->WriteForeign(), ReadAll(kDir + "/" + name + "_golden_added.bin"));
}

TEST(ForeignGoldenTest, BitsAndBlooms) {
  CheckGolden<BitsAndBloomsFilter>("bab", GuavaStrategy::kMurmur128Mitz64);
}
TEST(ForeignGoldenTest, GuavaMitz64) {
  CheckGolden<GuavaBloomFilter>("guava", GuavaStrategy::kMurmur128Mitz64);
}
TEST(ForeignGoldenTest, GuavaMitz32) {
  CheckGolden<GuavaBloomFilter>("guava32", GuavaStrategy::kMurmur128Mitz32);
}

// parquet-mr's filter of apache/parquet-testing (foreign/README.md): 1,024 bytes holding
// "hello", "parquet", "bloom", "filter".
TEST(ForeignGoldenTest, ParquetTestingXxhash) {
  const std::vector<std::byte> file = ReadAll(kDir + "/parquet_xxhash.bin");
  ASSERT_EQ(file.size(), 1040U);
  auto f = ParquetBloomFilter::ReadForeign(file);
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_EQ(f->num_bits(), 1024U * 8);
  const char* values[] = {"hello", "parquet", "bloom", "filter"};
  for (const char* v : values) EXPECT_TRUE(f->MayContain(v)) << v;
  int positives = 0;
  for (int i = 0; i < 10000; ++i) positives += f->MayContain("absent" + std::to_string(i)) ? 1 : 0;
  EXPECT_LT(positives, 10);  // 4 keys in 32 blocks: about 1 in 2^20 per probe
  EXPECT_EQ(f->WriteForeign(), file);
  auto built = ParquetBloomFilter::Create({.num_bits = 1024 * 8});
  ASSERT_TRUE(built.ok());
  for (const char* v : values) ASSERT_TRUE(built->Add(v).ok());
  EXPECT_EQ(built->WriteForeign(), file);
  // The hash form takes Parquet's XXH64 itself.
  auto by_hash = ParquetBloomFilter::Create({.num_bits = 1024 * 8});
  ASSERT_TRUE(by_hash->AddHash(0x26c7827d889f6da3ULL).ok());  // XXH64("hello", 0)
  EXPECT_TRUE(by_hash->MayContain("hello"));
}

}  // namespace
}  // namespace bloomkit
