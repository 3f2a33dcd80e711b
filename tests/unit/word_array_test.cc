// SPDX-License-Identifier: Apache-2.0
// bloomkit/word_array.h: the owner of every filter's words.
#include "bloomkit/word_array.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "contract/test_support.h"

namespace bloomkit {
namespace {

bool Aligned64(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 64 == 0;
}

TEST(WordArrayTest, AllocatesZeroedAlignedWords) {
  WordArray a = WordArray::Allocate(1000);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.num_words(), 1000U);
  EXPECT_EQ(a.bytes(), 8000U);
  EXPECT_EQ(a.span().size(), 1000U);
  EXPECT_TRUE(Aligned64(a.data()));
  EXPECT_TRUE(std::all_of(a.span().begin(), a.span().end(), [](std::uint64_t w) { return w == 0; }));
}

TEST(WordArrayTest, EmptyArrayIsOk) {
  WordArray empty = WordArray::Allocate(0);
  EXPECT_TRUE(empty.ok());
  EXPECT_EQ(empty.num_words(), 0U);
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_TRUE(empty.span().empty());
  const WordArray defaulted;
  EXPECT_TRUE(defaulted.ok());
  WordArray copy = empty;  // copying nothing allocates nothing
  EXPECT_TRUE(copy.ok());
  EXPECT_EQ(copy.data(), nullptr);
}

TEST(WordArrayTest, NoMemoryIsNotOk) {
  {
    bloomkit_test::ScopedFailingAllocator failing;
    WordArray a = WordArray::Allocate(10);
    EXPECT_FALSE(a.ok());
    EXPECT_EQ(a.data(), nullptr);
  }
  // A size whose byte count overflows size_t is not an empty success.
  bloomkit_test::ScopedCountingAllocator counting;
  WordArray huge = WordArray::Allocate(std::numeric_limits<std::uint64_t>::max() / 4);
  EXPECT_FALSE(huge.ok()) << "an impossible size must not look like a successful empty array";
  EXPECT_EQ(huge.data(), nullptr);
  EXPECT_EQ(counting.allocations(), 0U) << "an overflowing size reached the allocator";
}

TEST(WordArrayTest, CopiesAreDeep) {
  WordArray a = WordArray::Allocate(16);
  ASSERT_TRUE(a.ok());
  for (std::size_t i = 0; i < 16; ++i) a.span()[i] = i * 3 + 1;
  WordArray b = a;
  ASSERT_TRUE(b.ok());
  EXPECT_NE(b.data(), a.data());
  EXPECT_TRUE(Aligned64(b.data()));
  EXPECT_TRUE(std::equal(a.span().begin(), a.span().end(), b.span().begin(), b.span().end()));
  b.span()[0] = 999;
  EXPECT_EQ(a.span()[0], 1U);
  WordArray c = WordArray::Allocate(2);
  c = a;
  EXPECT_EQ(c.num_words(), 16U);
  EXPECT_EQ(c.span()[15], 46U);
  const WordArray& same = c;
  c = same;  // self-assignment keeps the contents
  EXPECT_EQ(c.num_words(), 16U);
  EXPECT_EQ(c.span()[15], 46U);
}

TEST(WordArrayTest, MovesStealAndFreeOnce) {
  bloomkit_test::ScopedCountingAllocator counting;
  {
    WordArray a = WordArray::Allocate(8);
    const std::uint64_t* data = a.data();
    WordArray b = std::move(a);
    EXPECT_EQ(b.data(), data);
    EXPECT_EQ(b.num_words(), 8U);
    EXPECT_EQ(a.num_words(), 0U);  // NOLINT(bugprone-use-after-move): moved-from is empty
    WordArray c = WordArray::Allocate(4);
    c = std::move(b);  // frees c's old words
    EXPECT_EQ(c.data(), data);
    EXPECT_EQ(counting.allocations(), 2U);
    EXPECT_EQ(counting.deallocations(), 1U);
  }
  EXPECT_EQ(counting.deallocations(), 2U) << "every allocation is freed exactly once";
}

}  // namespace
}  // namespace bloomkit
