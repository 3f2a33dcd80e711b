// SPDX-License-Identifier: Apache-2.0
// bloomkit/options.h: filter kinds, their names and the option defaults.
#include "bloomkit/options.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomkit {
namespace {

// Kind values are written into files: frozen.
TEST(FilterKindTest, ValuesAndNamesAreFrozen) {
  const std::pair<FilterKind, std::string_view> kinds[] = {
      {FilterKind::kClassic, "classic"},   {FilterKind::kBlocked, "blocked"}, {FilterKind::kCounting, "counting"},
      {FilterKind::kScalable, "scalable"}, {FilterKind::kCuckoo, "cuckoo"},
  };
  int value = 1;
  for (const auto& [kind, name] : kinds) {
    EXPECT_EQ(static_cast<int>(kind), value++);
    EXPECT_EQ(FilterKindName(kind), name);
    auto parsed = ParseFilterKind(name);
    ASSERT_TRUE(parsed.ok()) << name;
    EXPECT_EQ(parsed.value(), kind);
  }
  EXPECT_EQ(FilterKindName(static_cast<FilterKind>(0)), "unknown");
}

TEST(FilterKindTest, UnknownNameIsAnErrorListingTheValidOnes) {
  auto parsed = ParseFilterKind("quotient");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code(), ErrorCode::kInvalidArgument);
  const std::string& message = parsed.error().message();
  EXPECT_NE(message.find("quotient"), std::string::npos) << message;
  EXPECT_NE(message.find("classic"), std::string::npos) << message;
  EXPECT_NE(message.find("cuckoo"), std::string::npos) << message;
  EXPECT_FALSE(ParseFilterKind("").ok());
  EXPECT_FALSE(ParseFilterKind("Classic").ok()) << "names are lower case";
}

TEST(OptionsTest, DefaultsAreTheDocumentedOnes) {
  EXPECT_EQ(kDefaultMaxMemoryBytes, std::uint64_t{4} << 30);
  const BloomOptions bloom;
  EXPECT_EQ(bloom.capacity, 0U);
  EXPECT_DOUBLE_EQ(bloom.fp_rate, 0.01);
  EXPECT_EQ(bloom.num_bits, 0U);
  EXPECT_EQ(bloom.num_hashes, 0U);
  EXPECT_EQ(bloom.max_memory_bytes, kDefaultMaxMemoryBytes);
  EXPECT_FALSE(SaveOptions{}.compress);
  EXPECT_EQ(LoadOptions{}.max_memory_bytes, kDefaultMaxMemoryBytes);
}

}  // namespace
}  // namespace bloomkit
