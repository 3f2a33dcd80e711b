// SPDX-License-Identifier: Apache-2.0
// bloomkit/allocator.h: the seam through which all filter memory goes.
#include "bloomkit/allocator.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/word_array.h"
#include "contract/test_support.h"

namespace bloomkit {
namespace {

TEST(AllocatorTest, DefaultIsInstalledAtStart) {
  EXPECT_EQ(GetAllocator().allocate, DefaultAllocator().allocate);
  EXPECT_EQ(GetAllocator().deallocate, DefaultAllocator().deallocate);
}

TEST(AllocatorTest, DefaultAllocatorZeroesAndAligns) {
  const Allocator& a = DefaultAllocator();
  // Small, and large enough to take the huge-page path (>= 8 MiB).
  for (const std::size_t bytes : {std::size_t{64}, std::size_t{4096} + 64, std::size_t{9} << 20}) {
    for (const std::size_t alignment : {std::size_t{8}, std::size_t{64}, std::size_t{4096}}) {
      void* p = a.allocate(bytes, alignment);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignment, 0U) << bytes << " bytes at " << alignment;
      const auto* c = static_cast<const unsigned char*>(p);
      bool zero = true;
      for (std::size_t i = 0; i < bytes; i += 61) zero = zero && c[i] == 0;
      EXPECT_TRUE(zero && c[bytes - 1] == 0) << bytes << " bytes not zero-filled";
      std::memset(p, 0xab, bytes);  // the memory is really usable
      a.deallocate(p, bytes, alignment);
    }
  }
}

// Filters allocate through the installed allocator, once per array, and free through
// the allocator that allocated, even after another one has been installed.
// Resident memory of this process, from /proc/self/statm (Linux).
std::uint64_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0;
  unsigned long long resident = 0;
  const int read = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return read == 2 ? resident * 4096 : 0;
}

// A large array is zeroed lazily (fresh anonymous pages): allocating 256 MiB commits
// almost nothing until it is written, and reads as zeros. A memset committed it all.
TEST(AllocatorTest, LargeArraysAreZeroedLazily) {
  const Allocator& a = DefaultAllocator();
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  const std::uint64_t before = ResidentBytes();
  ASSERT_NE(before, 0U) << "no /proc/self/statm";
  auto* p = static_cast<unsigned char*>(a.allocate(kBytes, 64));
  ASSERT_NE(p, nullptr);
  const std::uint64_t after = ResidentBytes();
  EXPECT_LT(after, before + (std::uint64_t{32} << 20))
      << "allocating 256 MiB committed " << (after - before) << " bytes";
  for (std::size_t i = 0; i < kBytes; i += std::size_t{1} << 20) ASSERT_EQ(p[i], 0) << i;
  p[kBytes - 1] = 1;
  EXPECT_EQ(p[kBytes - 1], 1);
  a.deallocate(p, kBytes, 64);
}

TEST(AllocatorTest, FiltersUseTheInstalledAllocator) {
  bloomkit_test::ScopedCountingAllocator counting;
  EXPECT_NE(GetAllocator().allocate, DefaultAllocator().allocate);
  {
    auto classic = BloomFilter::Create({.capacity = 10'000, .fp_rate = 0.01});
    ASSERT_TRUE(classic.ok());
    EXPECT_EQ(counting.allocations(), 1U);
    EXPECT_EQ(counting.bytes_requested(), classic->memory_bytes());
    auto blocked = BlockedBloomFilter::Create({.capacity = 10'000, .fp_rate = 0.01});
    ASSERT_TRUE(blocked.ok());
    EXPECT_EQ(counting.allocations(), 2U);
    const BloomFilter copy = classic.value();  // copies allocate too
    EXPECT_EQ(counting.allocations(), 3U);
    auto loaded = BloomFilter::Deserialize(classic->Serialize());
    ASSERT_TRUE(loaded.ok());
    EXPECT_EQ(counting.allocations(), 4U);
    // Switch back to the default: these filters must still be freed by the counter.
    ASSERT_TRUE(SetAllocator(DefaultAllocator()));
  }
  EXPECT_EQ(counting.deallocations(), 4U) << "a filter was freed by an allocator that did not allocate it";
}

// An allocator that rounds every block up to a whole 4 KiB page, and says so.
struct PageRounding {
  static void* Allocate(std::size_t bytes, std::size_t alignment) noexcept {
    return DefaultAllocator().allocate(bytes, alignment);
  }
  static void Deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
    DefaultAllocator().deallocate(p, bytes, alignment);
  }
  static std::size_t Held(const void* /*p*/, std::size_t bytes, std::size_t /*alignment*/) noexcept {
    return (bytes + 4095) / 4096 * 4096;
  }
};

// bytes_held() reports what the allocator holds for each array, not the bytes asked for
// (the Redis module's MEMORY USAGE rests on it).
TEST(AllocatorTest, BytesHeldAreWhatTheAllocatorHolds) {
  const Allocator previous = GetAllocator();
  ASSERT_TRUE(SetAllocator({&PageRounding::Allocate, &PageRounding::Deallocate, &PageRounding::Held}));
  {
    auto classic = BloomFilter::Create({.num_bits = 64 * 1000, .num_hashes = 3});
    ASSERT_TRUE(classic.ok());
    EXPECT_EQ(classic->memory_bytes(), 8000U);
    EXPECT_EQ(classic->bytes_held(), 8192U);
    WordArray empty;
    EXPECT_EQ(empty.bytes_held(), 0U);
    ASSERT_TRUE(SetAllocator(previous));
    // The array keeps the allocator that made it.
    EXPECT_EQ(classic->bytes_held(), 8192U);
  }
  // The default allocator: a mapped block (8 MiB or more) holds whole pages, a calloc
  // block what malloc_usable_size says, at least the bytes asked for.
  auto big = BloomFilter::Create({.num_bits = 8 * ((std::uint64_t{8} << 20) + 8), .num_hashes = 3});
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->bytes_held(), (std::uint64_t{8} << 20) + 4096);
  auto medium = BloomFilter::Create({.num_bits = 8 * ((std::uint64_t{1} << 20) + 8), .num_hashes = 3});
  ASSERT_TRUE(medium.ok());
  EXPECT_GE(medium->bytes_held(), medium->memory_bytes());
  EXPECT_LT(medium->bytes_held(), medium->memory_bytes() + 8192);
}

std::uint64_t MinorFaults() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_minflt);
}

// A filter of a few MiB made and dropped again and again reuses its pages: the third
// 4 MiB block, written whole, faults in (almost) none of its 1,024 pages. When every
// block of 1 MiB or more was a mapping of its own, each one faulted all of them in.
TEST(AllocatorTest, MediumBlocksAreReusedAndStillZero) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers' malloc holds freed blocks back (quarantine), so no block is reused";
#endif
  const Allocator& a = DefaultAllocator();
  constexpr std::size_t kBytes = std::size_t{4} << 20;
  std::uint64_t faults = 0;
  for (int round = 0; round < 3; ++round) {
    auto* p = static_cast<unsigned char*>(a.allocate(kBytes, 64));
    ASSERT_NE(p, nullptr);
    for (std::size_t i = 0; i < kBytes; i += 4096) ASSERT_EQ(p[i], 0) << "round " << round << ", byte " << i;
    ASSERT_EQ(p[kBytes - 1], 0);
    const std::uint64_t before = MinorFaults();
    std::memset(p, 0xab, kBytes);
    faults = MinorFaults() - before;
    a.deallocate(p, kBytes, 64);
  }
  EXPECT_LT(faults, 64U) << "the third 4 MiB block faulted " << faults << " pages in";
}

// Numbered<N>: a distinct allocator per N that counts its frees.
template <int N>
struct Numbered {
  static inline int frees = 0;
  static void* Allocate(std::size_t bytes, std::size_t alignment) noexcept {
    return DefaultAllocator().allocate(bytes, alignment);
  }
  static void Deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
    ++frees;
    DefaultAllocator().deallocate(p, bytes, alignment);
  }
  static Allocator Get() noexcept { return {&Allocate, &Deallocate}; }
};

template <int... N>
std::vector<std::pair<Allocator, const int*>> MakeNumbered(std::integer_sequence<int, N...> /*n*/) {
  return {{Numbered<N>::Get(), &Numbered<N>::frees}...};
}

// An array names its allocator in one byte: the table holds kMaxAllocators, installing
// the same one again takes no entry, a full table refuses (keeping the current one),
// and the last entry still frees what it allocated. Run in a child process, since the
// table cannot be emptied again.
TEST(AllocatorTest, TheTableOfAllocatorsIsBoundedAndReusesEntries) {
  const auto numbered = MakeNumbered(std::make_integer_sequence<int, kMaxAllocators>());
  auto child = [&] {
    std::size_t installed = 0;
    const int* last_frees = nullptr;
    for (const auto& [allocator, frees] : numbered) {
      if (!SetAllocator(allocator)) break;
      if (!SetAllocator(allocator)) std::_Exit(10);  // again: the same entry
      ++installed;
      last_frees = frees;
    }
    // The default and the few allocators of other tests took some entries, the rest were
    // filled once each (installing one twice took one entry).
    if (installed == numbered.size() || installed + 8 < kMaxAllocators) std::_Exit(11);
    if (GetAllocator().deallocate != numbered[installed - 1].first.deallocate) std::_Exit(12);
    {
      auto filter = BloomFilter::Create({.capacity = 1000, .fp_rate = 0.01});
      if (!filter.ok()) std::_Exit(13);
      if (!SetAllocator(DefaultAllocator())) std::_Exit(14);  // entry 0, always there
    }
    std::_Exit(*last_frees == 1 ? 0 : 15);
  };
  EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace bloomkit
