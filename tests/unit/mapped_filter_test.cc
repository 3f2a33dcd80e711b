// SPDX-License-Identifier: Apache-2.0
// mapped_filter.h: views answer as loaded filters do, refuse what they cannot map,
// survive a save that replaces the file and a truncation under them, and VerifyFile
// checks files with a bounded buffer.
#include "bloomkit/mapped_filter.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/file_io.h"
#include "contract/test_support.h"

namespace bloomkit {
namespace {

namespace fs = std::filesystem;
using bloomkit_test::TempDir;

std::vector<std::string> Keys(const char* prefix, int n) {
  std::vector<std::string> keys;
  keys.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) keys.push_back(prefix + std::to_string(i));
  return keys;
}

template <typename Filter>
Filter Filled(const BloomOptions& options, const std::vector<std::string>& keys) {
  auto made = Filter::Create(options);
  EXPECT_TRUE(made.ok()) << made.error().message();
  Filter filter = std::move(made).value();
  for (const std::string& key : keys) static_cast<void>(filter.Add(key));
  return filter;
}

// The view answers every key, one at a time and in batches, and every hash exactly as
// the loaded file does, and reports the same shape.
template <typename Filter>
void ExpectSameAnswers(const Filter& filter, const fs::path& path) {
  ASSERT_TRUE(SaveFile(filter, path).ok());
  auto view = MappedFilter::Open(path);
  ASSERT_TRUE(view.ok()) << view.error().message();
  auto loaded = LoadFile<Filter>(path);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(view->kind(), Filter::kKind);
  EXPECT_EQ(view->file_bytes(), fs::file_size(path));
  const Filter* inner = view->template get_if<Filter>();
  ASSERT_NE(inner, nullptr);
  EXPECT_TRUE(*inner == loaded.value());
  const std::vector<std::string> probes = Keys("k", 6000);  // 3000 added, 3000 absent
  std::vector<std::string_view> views(probes.begin(), probes.end());
  std::unique_ptr<bool[]> out(new bool[views.size()]);
  std::size_t expected_hits = 0;
  for (const std::string& key : probes) {
    ASSERT_EQ(view->MayContain(key), loaded->MayContain(key)) << key;
    expected_hits += loaded->MayContain(key) ? 1U : 0U;
  }
  EXPECT_EQ(view->MayContainBatch(views, std::span<bool>(out.get(), views.size())), expected_hits);
  for (std::size_t i = 0; i < views.size(); ++i) EXPECT_EQ(out[i], loaded->MayContain(views[i]));
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t i = 0; i < 4000; ++i) hashes.push_back(i * 0x9e3779b97f4a7c15ULL);
  std::size_t hash_hits = 0;
  for (std::uint64_t h : hashes) {
    ASSERT_EQ(view->MayContainHash(h), loaded->MayContainHash(h));
    hash_hits += loaded->MayContainHash(h) ? 1U : 0U;
  }
  EXPECT_EQ(view->MayContainHashBatch(hashes, std::span<bool>(out.get(), hashes.size())), hash_hits);
  EXPECT_FALSE(view->truncated());
}

TEST(MappedFilterTest, ClassicAnswersAsLoaded) {
  TempDir dir;
  auto keys = Keys("k", 3000);
  ExpectSameAnswers(Filled<BloomFilter>({.capacity = 5000, .fp_rate = 0.01}, keys), dir.path() / "c.bf");
  // num_bits not a multiple of 64: the last word is partial.
  ExpectSameAnswers(Filled<BloomFilter>({.num_bits = 100'003, .num_hashes = 5}, keys), dir.path() / "odd.bf");
}

TEST(MappedFilterTest, BlockedAnswersAsLoadedInBothLayouts) {
  TempDir dir;
  auto keys = Keys("k", 3000);
  ExpectSameAnswers(Filled<BlockedBloomFilter>({.capacity = 5000, .fp_rate = 0.01}, keys), dir.path() / "b.bf");
  ExpectSameAnswers(Filled<BlockedBloomFilter>({.num_bits = 1 << 16, .num_hashes = 12}, keys), dir.path() / "b12.bf");
  ExpectSameAnswers(
      Filled<BlockedBloomFilter>({.capacity = 5000, .fp_rate = 0.01, .blocked_layout = BlockedLayout::kLanes256}, keys),
      dir.path() / "l.bf");
}

TEST(MappedFilterTest, ACopyOfTheMappedFilterIsAnOrdinaryFilter) {
  TempDir dir;
  const fs::path path = dir.path() / "c.bf";
  ASSERT_TRUE(SaveFile(Filled<BloomFilter>({.capacity = 1000, .fp_rate = 0.01}, Keys("k", 100)), path).ok());
  auto view = MappedFilter::Open(path);
  ASSERT_TRUE(view.ok());
  BloomFilter copy = *view->get_if<BloomFilter>();
  static_cast<void>(copy.Add("new key"));  // writes the copy's own words, not the read-only mapping
  EXPECT_TRUE(copy.MayContain("new key"));
  EXPECT_TRUE(copy.MayContain("k7"));
  EXPECT_EQ(view->get_if<BlockedBloomFilter>(), nullptr);
}

TEST(MappedFilterTest, RefusesWhatItCannotMapWithClearErrors) {
  TempDir dir;
  const fs::path compressed = dir.path() / "z.bf";
  ASSERT_TRUE(SaveFile(Filled<BloomFilter>({.capacity = 100'000, .fp_rate = 0.01}, Keys("k", 10)), compressed,
                       SaveOptions{.compress = true})
                  .ok());
  auto z = MappedFilter::Open(compressed);
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.error().code(), ErrorCode::kUnsupported);
  EXPECT_NE(z.error().message().find("compressed"), std::string::npos) << z.error().message();

  const fs::path cuckoo = dir.path() / "cf.bf";
  auto cf = CuckooFilter::Create({.capacity = 1000});
  ASSERT_TRUE(cf.ok());
  ASSERT_TRUE(SaveFile(cf.value(), cuckoo).ok());
  auto c = MappedFilter::Open(cuckoo);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code(), ErrorCode::kUnsupported);
  EXPECT_NE(c.error().message().find("cuckoo"), std::string::npos) << c.error().message();

  auto missing = MappedFilter::Open(dir.path() / "none.bf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kIoError);
  auto directory = MappedFilter::Open(dir.path());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().code(), ErrorCode::kIoError);
}

// Header and size are checked at open; the payload's bytes are not read.
TEST(MappedFilterTest, ChecksHeaderAndSizeButReadsThePayloadOnlyWhenAsked) {
  TempDir dir;
  const fs::path path = dir.path() / "c.bf";
  ASSERT_TRUE(SaveFile(Filled<BloomFilter>({.capacity = 1000, .fp_rate = 0.01}, Keys("k", 100)), path).ok());
  const auto size = fs::file_size(path);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(kHeaderBytes + 10));
    f.put('\x5a');
  }
  auto unchecked = MappedFilter::Open(path);
  EXPECT_TRUE(unchecked.ok());
  auto checked = MappedFilter::Open(path, MapOptions{.verify_checksum = true});
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().code(), ErrorCode::kChecksumMismatch);
  auto verified = VerifyFile(path);
  ASSERT_FALSE(verified.ok());
  EXPECT_EQ(verified.error().code(), ErrorCode::kChecksumMismatch);

  {  // a count no filter keeps: refused at open, as by a load
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    const char count[8] = {0, 0, 0, 0, 0, 0, 0, '\x80'};
    f.write(count, 8);
  }
  auto huge_count = MappedFilter::Open(path);
  ASSERT_FALSE(huge_count.ok());
  EXPECT_EQ(huge_count.error().code(), ErrorCode::kParameterMismatch);
  EXPECT_NE(huge_count.error().message().find("count"), std::string::npos);

  fs::resize_file(path, size - 1);
  auto short_file = MappedFilter::Open(path);
  ASSERT_FALSE(short_file.ok());
  EXPECT_EQ(short_file.error().code(), ErrorCode::kTruncated);
  EXPECT_EQ(VerifyFile(path).error().code(), ErrorCode::kTruncated);
  fs::resize_file(path, size + 1);
  EXPECT_EQ(MappedFilter::Open(path).error().code(), ErrorCode::kParameterMismatch);
  fs::resize_file(path, 0);
  EXPECT_EQ(MappedFilter::Open(path).error().code(), ErrorCode::kTruncated);
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << "not a filter at all, but long enough to hold a header of 128 bytes..................................";
  }
  EXPECT_EQ(MappedFilter::Open(path).error().code(), ErrorCode::kBadMagic);
  EXPECT_EQ(VerifyFile(path).error().code(), ErrorCode::kBadMagic);
}

TEST(MappedFilterTest, VerifyFileAcceptsIntactFilesOfEveryForm) {
  TempDir dir;
  const fs::path raw = dir.path() / "c.bf";
  const fs::path packed = dir.path() / "z.bf";
  // Over 1 MiB, so that the checksum streams over several buffers.
  const BloomFilter filter = Filled<BloomFilter>({.capacity = 2'000'000, .fp_rate = 0.01}, Keys("k", 1000));
  ASSERT_TRUE(SaveFile(filter, raw).ok());
  ASSERT_TRUE(SaveFile(filter, packed, SaveOptions{.compress = true}).ok());
  auto a = VerifyFile(raw);
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(a->kind, FilterKind::kClassic);
  EXPECT_EQ(a->count, filter.count());
  auto b = VerifyFile(packed);
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_NE(b->flags & kFlagZstdPayload, 0U);
  EXPECT_TRUE(MappedFilter::Open(raw, MapOptions{.verify_checksum = true}).ok());
}

// A save writes a new inode and renames it over the name; the view keeps the old one,
// whose pages do not change, and answers from the version it opened.
TEST(MappedFilterTest, ASaveOverTheFileLeavesTheViewOnTheOldVersion) {
  TempDir dir;
  const fs::path path = dir.path() / "c.bf";
  const auto old_keys = Keys("old", 2000);
  const auto new_keys = Keys("new", 2000);
  ASSERT_TRUE(SaveFile(Filled<BloomFilter>({.capacity = 100'000, .fp_rate = 0.001}, old_keys), path).ok());
  auto view = MappedFilter::Open(path);
  ASSERT_TRUE(view.ok());
  auto updated = LoadFile<BloomFilter>(path);
  ASSERT_TRUE(updated.ok());
  for (const std::string& key : new_keys) static_cast<void>(updated->Add(key));
  ASSERT_TRUE(SaveFile(updated.value(), path).ok());
  for (const std::string& key : old_keys) ASSERT_TRUE(view->MayContain(key));
  unsigned new_found = 0;
  for (const std::string& key : new_keys) new_found += view->MayContain(key) ? 1U : 0U;
  EXPECT_LT(new_found, 20U);  // false positives only (0.1% of 2000 expected: 2)
  EXPECT_FALSE(view->truncated());
  auto reopened = MappedFilter::Open(path);
  ASSERT_TRUE(reopened.ok());
  for (const std::string& key : new_keys) ASSERT_TRUE(reopened->MayContain(key));
}

// Another program truncates the file in place: without the guard the next query would
// die of SIGBUS. With it the view is marked truncated and answers "may be present".
TEST(MappedFilterTest, ATruncationUnderTheViewIsReportedNotACrash) {
  TempDir dir;
  for (const bool blocked : {false, true}) {
    const fs::path path = dir.path() / (blocked ? "b.bf" : "c.bf");
    const auto keys = Keys("k", 2000);
    const BloomOptions options{.capacity = 100'000, .fp_rate = 0.01};
    if (blocked) {
      ASSERT_TRUE(SaveFile(Filled<BlockedBloomFilter>(options, keys), path).ok());
    } else {
      ASSERT_TRUE(SaveFile(Filled<BloomFilter>(options, keys), path).ok());
    }
    auto view = MappedFilter::Open(path);
    ASSERT_TRUE(view.ok());
    EXPECT_FALSE(view->MayContain("absent key 1"));
    ASSERT_EQ(::truncate(path.c_str(), 0), 0);
    EXPECT_TRUE(view->MayContain("absent key 1"));
    EXPECT_TRUE(view->truncated());
    const Status fault = view->FaultStatus();
    ASSERT_FALSE(fault.ok());
    EXPECT_EQ(fault.error().code(), ErrorCode::kTruncated);
    EXPECT_NE(fault.error().message().find("the file shrank while it was mapped"), std::string::npos);
    const auto probes = Keys("absent", 100);
    std::vector<std::string_view> views(probes.begin(), probes.end());
    std::unique_ptr<bool[]> out(new bool[views.size()]);
    EXPECT_EQ(view->MayContainBatch(views, std::span<bool>(out.get(), views.size())), views.size());
    // Another view of another file is not affected.
    const fs::path other = dir.path() / "other.bf";
    ASSERT_TRUE(SaveFile(Filled<BloomFilter>(options, keys), other).ok());
    auto second = MappedFilter::Open(other);
    ASSERT_TRUE(second.ok());
    EXPECT_FALSE(second->truncated());
    EXPECT_TRUE(second->FaultStatus().ok());
    EXPECT_FALSE(second->MayContain("absent key 1"));
  }
}

// Without the guard the access faults: the test above can fail. (Killed by SIGBUS; an
// AddressSanitizer build reports the fault and exits non-zero or aborts instead.)
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
bool DiedOfTheFault(int status) {
  if (WIFSIGNALED(status)) return WTERMSIG(status) == SIGBUS || (kAddressSanitizer && WTERMSIG(status) == SIGABRT);
  return WIFEXITED(status) && WEXITSTATUS(status) != 0 && (WEXITSTATUS(status) < 20 || WEXITSTATUS(status) > 23);
}

TEST(MappedFilterDeathTest, WithoutTheGuardATruncationRaisesSigbus) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TempDir dir;
  const fs::path path = dir.path() / "c.bf";
  ASSERT_TRUE(SaveFile(Filled<BloomFilter>({.capacity = 100'000, .fp_rate = 0.01}, Keys("k", 10)), path).ok());
  EXPECT_EXIT(
      {
        auto view = MappedFilter::Open(path, MapOptions{.guard_truncation = false});
        if (!view.ok()) std::_Exit(20);
        if (::truncate(path.c_str(), 0) != 0) std::_Exit(21);
        std::_Exit(view->MayContain("absent key 1") ? 22 : 23);
      },
      DiedOfTheFault, "");
}

}  // namespace
}  // namespace bloomkit
