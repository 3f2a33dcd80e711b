// SPDX-License-Identifier: Apache-2.0
// The inline single-key path of blocked filters of 256-bit blocks (hash id 4), which
// code compiled with AVX2 runs in the caller (blocked_bloom_filter.h): this file is
// compiled with -mavx2 (tests/unit/CMakeLists.txt), so its Add and MayContain are that
// path, and they must set and read exactly the bits of the library's own kernels.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "blocked_inline_library.h"
#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/hash.h"

#if defined(__x86_64__) && !defined(__AVX2__)
#error "blocked_inline_test must be compiled with AVX2 enabled: it tests the inline path"
#endif

namespace bloomkit {
namespace {

BlockedBloomFilter Make(const BloomOptions& options) {
  auto f = BlockedBloomFilter::Create(options);
  EXPECT_TRUE(f.ok()) << f.error().message();
  return std::move(f).value();
}

TEST(BlockedInlineTest, InlineAddAndQueryMatchTheLibrary) {
  if (!BlockedBloomFilter::UsesAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  for (std::uint32_t k = 1; k <= 8; ++k) {
    const BloomOptions options{
        .num_bits = 256 * 301, .num_hashes = k, .blocked_layout = BlockedLayout::kLanes256, .hash_id = kHashIdShort64};
    BlockedBloomFilter inline_adds = Make(options);
    BlockedBloomFilter library_adds = Make(options);
    std::vector<std::string> keys;
    for (std::uint64_t i = 0; i < 2000; ++i) {
      // 0..12 bytes: the inline path takes up to 8, the library the rest.
      keys.push_back(std::string(std::string_view(IntegerKey(i * 0x9e3779b9ULL))).substr(0, i % 9) +
                     std::string(i % 5 == 0 ? 4 : 0, 'x'));
    }
    std::vector<std::string_view> views(keys.begin(), keys.end());
    for (const auto& key : keys) ASSERT_TRUE(inline_adds.Add(key).ok());
    ASSERT_TRUE(library_adds.AddBatch(views).ok());
    ASSERT_EQ(inline_adds, library_adds) << "k = " << k;  // words and count
    // Every add is counted, the repeated keys (the empty key, "xxxx") too.
    ASSERT_EQ(inline_adds.count(), keys.size());

    std::vector<std::string> probes;
    for (std::uint64_t i = 0; i < 20000; ++i) {
      probes.push_back(std::string(std::string_view(IntegerKey(i * 7 + 3))).substr(0, 1 + i % 8));
    }
    std::vector<std::string_view> probe_views(probes.begin(), probes.end());
    std::vector<char> out(probes.size());
    library_adds.MayContainBatch(probe_views, {reinterpret_cast<bool*>(out.data()), out.size()});
    std::size_t hits = 0;
    for (std::size_t i = 0; i < probes.size(); ++i) {
      ASSERT_EQ(inline_adds.MayContain(probes[i]), out[i] != 0) << "k = " << k << ", probe " << i;
      hits += out[i] != 0 ? 1U : 0U;
    }
    EXPECT_GT(hits, 0U);             // some probes hit (the filter is full at k = 1)
    EXPECT_LT(hits, probes.size());  // and some miss: the comparison saw both answers
    for (const auto& key : keys) ASSERT_TRUE(inline_adds.MayContain(key));
  }
}

// A program whose translation units are compiled with and without AVX2 links two
// different Add and MayContain functions, each with one definition: if they were one
// inline function compiled two ways, the linker would keep one copy for every caller.
TEST(BlockedInlineTest, CallersWithAndWithoutAvx2LinkDifferentFunctions) {
  const inline_test::BlockedMayContainFn may_contain = &BlockedBloomFilter::MayContain;
  const inline_test::BlockedAddFn add = &BlockedBloomFilter::Add;
  const inline_test::BlockedMayContainFn library_may_contain = inline_test::LibraryCallerMayContain();
  const inline_test::BlockedAddFn library_add = inline_test::LibraryCallerAdd();
  EXPECT_NE(may_contain, library_may_contain);
  EXPECT_NE(add, library_add);
  if (!BlockedBloomFilter::UsesAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";

  // Through the functions themselves (not inlined here): the same bits and answers.
  const BloomOptions options{.capacity = 1000, .fp_rate = 0.01, .blocked_layout = BlockedLayout::kLanes256};
  BlockedBloomFilter a = Make(options);
  BlockedBloomFilter b = Make(options);
  ASSERT_EQ(a.hash_id(), kHashIdShort64);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const IntegerKey key(i * 0x9e3779b97f4a7c15ULL);
    ASSERT_TRUE((a.*add)(key).ok());
    ASSERT_TRUE((b.*library_add)(key).ok());
  }
  ASSERT_EQ(a, b);
  std::size_t hits = 0;
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const IntegerKey key(i * 0x9e3779b97f4a7c15ULL);
    const bool answer = (a.*may_contain)(key);
    ASSERT_EQ(answer, (a.*library_may_contain)(key)) << i;
    hits += answer ? 1U : 0U;
  }
  EXPECT_GE(hits, 1000U);
  EXPECT_LT(hits, 20000U);
}

}  // namespace
}  // namespace bloomkit
