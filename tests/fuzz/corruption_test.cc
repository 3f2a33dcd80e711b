// SPDX-License-Identifier: Apache-2.0
// Every single-bit flip and every truncation of a small saved filter of each kind is
// detected: Deserialize, InspectBytes (what `bloomkit info` runs) and LoadFile all
// reject it with an error that says why. The contract suite (tests/contract) flips
// whole bytes (xor 0x01 and 0xff) and checks which error each header field gives; this
// test covers the other six bits of every byte, through memory and through files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.h"

namespace bloomkit_test {
namespace {

using Bytes = std::vector<std::byte>;

template <typename Filter>
struct Sample {
  std::string name;
  Filter filter;
};

std::string Key(int i) {
  return "key:" + std::to_string(i);
}

std::vector<Sample<bloomkit::BloomFilter>> Samples(bloomkit::BloomFilter* /*tag*/) {
  auto f = bloomkit::BloomFilter::Create({.num_bits = 512, .num_hashes = 3});
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f->Add(Key(i)).ok());
  return {{"classic", std::move(f).value()}};
}
std::vector<Sample<bloomkit::BlockedBloomFilter>> Samples(bloomkit::BlockedBloomFilter* /*tag*/) {
  auto f = bloomkit::BlockedBloomFilter::Create({.num_bits = 1024, .num_hashes = 4});
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f->Add(Key(i)).ok());
  return {{"blocked", std::move(f).value()}};
}
std::vector<Sample<bloomkit::CountingBloomFilter>> Samples(bloomkit::CountingBloomFilter* /*tag*/) {
  auto f = bloomkit::CountingBloomFilter::Create({.bloom = {.num_bits = 256, .num_hashes = 3}});
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f->Add(Key(i)).ok());
  return {{"counting", std::move(f).value()}};
}
std::vector<Sample<bloomkit::ScalableBloomFilter>> Samples(bloomkit::ScalableBloomFilter* /*tag*/) {
  auto f = bloomkit::ScalableBloomFilter::Create({.initial_capacity = 8, .fp_rate = 0.05});
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f->AddIfAbsent(Key(i)).ok());
  EXPECT_GE(f->num_stages(), 2U) << "the sample should hold more than one stage";
  return {{"scalable", std::move(f).value()}};
}
std::vector<Sample<bloomkit::CuckooFilter>> Samples(bloomkit::CuckooFilter* /*tag*/) {
  auto f = bloomkit::CuckooFilter::Create({.capacity = 32, .fp_rate = 0.01, .bucket_size = 4});
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f->Add(Key(i)).ok());
  return {{"cuckoo", std::move(f).value()}};
}

std::vector<Sample<bloomkit::WindowedBloomFilter>> Samples(bloomkit::WindowedBloomFilter* /*tag*/) {
  auto f = bloomkit::WindowedBloomFilter::Create({.capacity = 16, .fp_rate = 0.05, .window = 4, .generations = 4});
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f->AddAt(Key(i), static_cast<std::uint64_t>(i / 5)).ok());
  EXPECT_GE(f->num_stages(), 3U) << "the sample should hold several generations";
  return {{"windowed", std::move(f).value()}};
}

template <typename Filter>
class CorruptionTest : public ::testing::Test {
 protected:
  static std::vector<Sample<Filter>> Make() { return Samples(static_cast<Filter*>(nullptr)); }

  // The reasons a load can give; empty if it was accepted.
  static std::string Rejection(const Bytes& bytes) {
    auto loaded = Filter::Deserialize(bytes);
    if (loaded.ok()) return {};
    EXPECT_FALSE(loaded.error().message().empty());
    auto inspected = bloomkit::InspectBytes(bytes);
    EXPECT_FALSE(inspected.ok()) << "InspectBytes accepted what Deserialize rejected: " << loaded.error().message();
    return std::string(bloomkit::ErrorCodeName(loaded.error().code())) + ": " + loaded.error().message();
  }
};

using Kinds = ::testing::Types<bloomkit::BloomFilter, bloomkit::BlockedBloomFilter, bloomkit::CountingBloomFilter,
                               bloomkit::ScalableBloomFilter, bloomkit::CuckooFilter, bloomkit::WindowedBloomFilter>;
TYPED_TEST_SUITE(CorruptionTest, Kinds);

TYPED_TEST(CorruptionTest, EverySingleBitFlipIsDetected) {
  for (const auto& sample : this->Make()) {
    for (const bool compress : {false, true}) {
      SCOPED_TRACE(sample.name + (compress ? " compressed" : " raw"));
      const Bytes good = sample.filter.Serialize({.compress = compress});
      ASSERT_TRUE(TypeParam::Deserialize(good).ok()) << "the unmodified sample must load";
      std::size_t flips = 0;
      for (std::size_t offset = 0; offset < good.size(); ++offset) {
        for (unsigned bit = 0; bit < 8; ++bit) {
          Bytes bad = good;
          bad[offset] ^= static_cast<std::byte>(1U << bit);
          ASSERT_FALSE(this->Rejection(bad).empty())
              << "bit " << bit << " of byte " << offset << " of " << good.size() << " flipped: accepted";
          ++flips;
        }
      }
      EXPECT_EQ(flips, 8 * good.size());
    }
  }
}

TYPED_TEST(CorruptionTest, EveryTruncationIsDetected) {
  for (const auto& sample : this->Make()) {
    for (const bool compress : {false, true}) {
      SCOPED_TRACE(sample.name + (compress ? " compressed" : " raw"));
      const Bytes good = sample.filter.Serialize({.compress = compress});
      for (std::size_t length = 0; length < good.size(); ++length) {
        const Bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(length));
        ASSERT_FALSE(this->Rejection(cut).empty()) << "truncated to " << length << " of " << good.size();
      }
    }
  }
}

// The same through the file API a tool uses: SaveFile, damage the file on disk, LoadFile.
TYPED_TEST(CorruptionTest, DamagedFilesAreRejectedByLoadFile) {
  std::string type = ::testing::UnitTest::GetInstance()->current_test_info()->type_param();
  for (char& c : type) {
    if (c == ':') c = '_';
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("bloomkit-corruption-" + std::to_string(::getpid()) + "-" + type);
  std::filesystem::create_directories(dir);
  const auto path = dir / "sample.bf";
  for (const auto& sample : this->Make()) {
    ASSERT_TRUE(bloomkit::SaveFile(sample.filter, path).ok());
    auto reloaded = bloomkit::LoadFile<TypeParam>(path);
    ASSERT_TRUE(reloaded.ok()) << reloaded.error().message();
    EXPECT_TRUE(reloaded.value() == sample.filter);
    const Bytes good = sample.filter.Serialize();
    // Every 13th bit (all bit positions and header fields get hit) and a few truncations.
    for (std::size_t bit = 0; bit < 8 * good.size(); bit += 13) {
      Bytes bad = good;
      bad[bit / 8] ^= static_cast<std::byte>(1U << (bit % 8));
      {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(bad.data()), static_cast<std::streamsize>(bad.size()));
      }
      auto loaded = bloomkit::LoadFile<TypeParam>(path);
      ASSERT_FALSE(loaded.ok()) << "bit " << bit << " flipped in the file: accepted";
      EXPECT_FALSE(loaded.error().message().empty());
    }
    for (const std::size_t keep : {std::size_t{0}, std::size_t{1}, bloomkit::kHeaderBytes, good.size() - 1}) {
      std::filesystem::resize_file(path, keep);
      ASSERT_FALSE(bloomkit::LoadFile<TypeParam>(path).ok()) << "file cut to " << keep << " bytes: accepted";
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bloomkit_test
