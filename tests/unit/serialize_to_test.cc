// SPDX-License-Identifier: Apache-2.0
// SerializeTo: the serialization streamed piece by piece (what the Redis module saves to
// RDB, rewrites to the AOF and cuts into SCANDUMP chunks) is byte for byte what
// Serialize() returns, for every kind that has it and in every state (empty, filled,
// several stages or sub-filters, cuckoo victims), and a sink can stop it early.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/bloom_filter.h"
#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/format.h"
#include "bloomkit/scalable_bloom_filter.h"

namespace bloomkit {
namespace {

struct Collected {
  std::vector<std::byte> bytes;
  std::size_t pieces = 0;
  std::size_t largest = 0;
};

template <typename Filter>
Collected Stream(const Filter& filter) {
  Collected out;
  auto sink = [&out](std::span<const std::byte> piece) noexcept {
    out.bytes.insert(out.bytes.end(), piece.begin(), piece.end());
    ++out.pieces;
    out.largest = std::max(out.largest, piece.size());
    return true;
  };
  EXPECT_TRUE(filter.SerializeTo(ByteSink(sink)));
  return out;
}

// Every prefix of pieces: a sink that stops after piece k gets exactly k pieces, which
// are the first bytes of the serialization, and SerializeTo reports the stop.
template <typename Filter>
void ExpectStopsEarly(const Filter& filter, const Collected& whole) {
  for (std::size_t stop = 1; stop < whole.pieces; stop += 1 + whole.pieces / 7) {
    std::vector<std::byte> got;
    std::size_t calls = 0;
    auto sink = [&](std::span<const std::byte> piece) noexcept {
      ++calls;
      got.insert(got.end(), piece.begin(), piece.end());
      return calls < stop;
    };
    EXPECT_FALSE(filter.SerializeTo(ByteSink(sink))) << "stop after " << stop;
    EXPECT_EQ(calls, stop);
    ASSERT_LE(got.size(), whole.bytes.size());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), whole.bytes.begin()));
  }
}

// A sink that declines the checksum gets every byte before it, the same as a full
// stream's, and no checksum; SerializeTo reports that it ended early.
template <typename Filter>
void ExpectWithoutChecksumStopsBeforeIt(const Filter& filter, const Collected& whole) {
  std::vector<std::byte> got;
  auto sink = [&](std::span<const std::byte> piece) noexcept {
    got.insert(got.end(), piece.begin(), piece.end());
    return true;
  };
  EXPECT_FALSE(filter.SerializeTo(ByteSink(sink).WithoutChecksum()));
  ASSERT_EQ(got.size() + kChecksumBytes, whole.bytes.size());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), whole.bytes.begin()));
}

template <typename Filter>
void ExpectSameAsSerialize(const Filter& filter) {
  const std::vector<std::byte> expected = filter.Serialize();
  const Collected streamed = Stream(filter);
  ASSERT_EQ(streamed.bytes.size(), expected.size());
  EXPECT_TRUE(streamed.bytes == expected);
  EXPECT_GE(streamed.pieces, 3U);  // header, arrays, checksum at least
  ExpectStopsEarly(filter, streamed);
  ExpectWithoutChecksumStopsBeforeIt(filter, streamed);
  auto loaded = Filter::Deserialize(streamed.bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  EXPECT_TRUE(loaded.value() == filter);
}

TEST(SerializeToTest, ClassicEmptyAndFilled) {
  auto f = BloomFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_TRUE(f.ok());
  ExpectSameAsSerialize(f.value());
  for (int i = 0; i < 700; ++i) ASSERT_TRUE(f->Add("key" + std::to_string(i)).ok());
  ExpectSameAsSerialize(f.value());
  // One piece is the whole bit array: a view of the filter, not a copy of it.
  EXPECT_EQ(Stream(f.value()).largest, f->memory_bytes());
}

TEST(SerializeToTest, ClassicOddSizes) {
  for (std::uint64_t bits : {1ULL, 63ULL, 64ULL, 65ULL, 4097ULL}) {
    auto f = BloomFilter::Create({.num_bits = bits, .num_hashes = 3});
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(f->Add("x").ok());
    ExpectSameAsSerialize(f.value());
  }
}

TEST(SerializeToTest, Counting4And8Bits) {
  for (std::uint32_t bits : {4U, 8U}) {
    auto f = CountingBloomFilter::Create({.bloom = {.capacity = 500, .fp_rate = 0.01}, .counter_bits = bits});
    ASSERT_TRUE(f.ok());
    ExpectSameAsSerialize(f.value());
    for (int i = 0; i < 400; ++i)
      ASSERT_TRUE(f->Add("k" + std::to_string(i % 37)).ok());  // repeats saturate some counters
    ExpectSameAsSerialize(f.value());
  }
}

TEST(SerializeToTest, ScalableWithManyStages) {
  auto f = ScalableBloomFilter::Create({.initial_capacity = 10, .fp_rate = 0.01});
  ASSERT_TRUE(f.ok());
  ExpectSameAsSerialize(f.value());
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(f->AddIfAbsent("s" + std::to_string(i)).ok());
  ASSERT_GE(f->num_stages(), 5U);
  ExpectSameAsSerialize(f.value());
}

TEST(SerializeToTest, CuckooGrownWithVictims) {
  for (std::uint32_t fp_bits : {8U, 12U, 16U}) {
    auto f = CuckooFilter::Create(
        {.capacity = 64, .bucket_size = 2, .fingerprint_bits = fp_bits, .max_kicks = 20, .expansion = 2});
    ASSERT_TRUE(f.ok());
    ExpectSameAsSerialize(f.value());
    for (int i = 0; i < 600; ++i) {
      if (!f->Add("c" + std::to_string(i)).ok()) break;
    }
    ASSERT_GE(f->num_stages(), 2U);
    ExpectSameAsSerialize(f.value());
  }
}

}  // namespace
}  // namespace bloomkit
