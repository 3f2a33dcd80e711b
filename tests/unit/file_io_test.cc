// SPDX-License-Identifier: Apache-2.0
// file_io.h: the writers' lock, UpdateFile from concurrent processes, saves through
// symlinks, kept modes, refused special files and hard links, header-first reads.
#include "bloomkit/file_io.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bloomkit/bloom_filter.h"
#include "bloomkit/counting_bloom_filter.h"
#include "contract/test_support.h"

namespace bloomkit {
namespace {

namespace fs = std::filesystem;
using bloomkit_test::TempDir;

std::string Key(int writer, int i) {
  return "w" + std::to_string(writer) + ":" + std::to_string(i);
}

template <typename Filter, typename Options>
void CreateFile(const fs::path& path, const Options& options) {
  auto made = Filter::Create(options);
  ASSERT_TRUE(made.ok()) << made.error().message();
  ASSERT_TRUE(SaveFile(made.value(), path).ok());
}

// Two processes each run 100 UpdateFile calls of one key: every key must be there.
// Without the lock, a load-add-save of one process regularly overwrites the other's.
template <typename Filter>
void TwoProcessesUpdate(const fs::path& path) {
  constexpr int kUpdates = 100;
  std::vector<pid_t> children;
  for (int writer = 0; writer < 2; ++writer) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int failures = 0;
      for (int i = 0; i < kUpdates; ++i) {
        const Status st = UpdateFile<Filter>(path, [&](Filter& f) -> Status { return f.Add(Key(writer, i)); });
        failures += st.ok() ? 0 : 1;
      }
      ::_exit(failures == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed";
  }
  auto loaded = LoadFile<Filter>(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  int lost = 0;
  for (int writer = 0; writer < 2; ++writer) {
    for (int i = 0; i < kUpdates; ++i) lost += loaded->MayContain(Key(writer, i)) ? 0 : 1;
  }
  EXPECT_EQ(lost, 0) << "keys lost by concurrent updates";
}

TEST(UpdateFileTest, TwoProcessesLoseNothingClassic) {
  TempDir dir;
  CreateFile<BloomFilter>(dir / "c.bf", BloomOptions{.capacity = 10'000, .fp_rate = 0.01});
  TwoProcessesUpdate<BloomFilter>(dir / "c.bf");
}

TEST(UpdateFileTest, TwoProcessesLoseNothingCounting) {
  TempDir dir;
  CreateFile<CountingBloomFilter>(dir / "n.bf", CountingOptions{.bloom = {.capacity = 10'000, .fp_rate = 0.01}});
  TwoProcessesUpdate<CountingBloomFilter>(dir / "n.bf");
}

TEST(UpdateFileTest, FailedChangeKeepsTheFile) {
  TempDir dir;
  const fs::path path = dir / "f.bf";
  CreateFile<BloomFilter>(path, BloomOptions{.capacity = 100, .fp_rate = 0.01});
  const Status st = UpdateFile<BloomFilter>(path, [](BloomFilter& f) -> Status {
    static_cast<void>(f.AddIfAbsent("never saved"));
    return Error(ErrorCode::kInvalidArgument, "changed my mind");
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message(), "changed my mind");
  EXPECT_FALSE(LoadFile<BloomFilter>(path)->MayContain("never saved"));
}

TEST(FileLockTest, SecondLockWaitsThenGivesUpWithLocked) {
  TempDir dir;
  const fs::path path = dir / "f.bf";
  CreateFile<BloomFilter>(path, BloomOptions{.capacity = 100, .fp_rate = 0.01});
  auto first = FileLock::Acquire(path);
  ASSERT_TRUE(first.ok()) << first.error().message();
  const auto t0 = std::chrono::steady_clock::now();
  auto second = FileLock::Acquire(path, LockOptions{.wait_seconds = 0.2});
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code(), ErrorCode::kLocked);
  EXPECT_GE(waited, 0.19);
  EXPECT_NE(second.error().message().find("locked by another writer"), std::string::npos);
  // Through a symlink, it is the same file and the same lock.
  fs::create_symlink("f.bf", dir / "link.bf");
  auto via_link = FileLock::Acquire(dir / "link.bf", LockOptions{.wait_seconds = 0});
  ASSERT_FALSE(via_link.ok());
  EXPECT_EQ(via_link.error().code(), ErrorCode::kLocked);
  first = FileLock();  // released
  auto third = FileLock::Acquire(dir / "link.bf", LockOptions{.wait_seconds = 0});
  ASSERT_TRUE(third.ok()) << third.error().message();
  EXPECT_EQ(third->path(), dir / "f.bf");
}

TEST(FileLockTest, MissingFileNeedsMissingOk) {
  TempDir dir;
  auto missing = FileLock::Acquire(dir / "none.bf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kIoError);
  // A missing file's would-be creators exclude each other on the directory.
  auto fine = FileLock::Acquire(dir / "none.bf", LockOptions{.missing_ok = true});
  ASSERT_TRUE(fine.ok());
  EXPECT_TRUE(fine->held());
  auto second = FileLock::Acquire(dir / "none.bf", LockOptions{.wait_seconds = 0, .missing_ok = true});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code(), ErrorCode::kLocked);
}

TEST(SaveTargetTest, SymlinkModeSpecialFilesAndHardLinks) {
  TempDir dir;
  auto filter = BloomFilter::Create({.capacity = 100, .fp_rate = 0.01});
  ASSERT_TRUE(filter.ok());
  const fs::path real = dir / "real.bf";
  ASSERT_TRUE(SaveFile(filter.value(), real).ok());
  ASSERT_EQ(::chmod(real.c_str(), 0600), 0);
  fs::create_symlink("real.bf", dir / "link.bf");
  ASSERT_TRUE(filter->AddIfAbsent("k").value());
  ASSERT_TRUE(SaveFile(filter.value(), dir / "link.bf").ok());
  EXPECT_TRUE(fs::is_symlink(dir / "link.bf"));
  EXPECT_TRUE(LoadFile<BloomFilter>(real)->MayContain("k"));
  struct stat st {};
  ASSERT_EQ(::stat(real.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600U);
  // A FIFO is refused without blocking, and stays a FIFO.
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  const Status fifo = SaveFile(filter.value(), dir / "fifo");
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message().find("not a regular file (a FIFO)"), std::string::npos) << fifo.error().message();
  auto read_fifo = LoadFile<BloomFilter>(dir / "fifo");
  ASSERT_FALSE(read_fifo.ok());
  EXPECT_TRUE(fs::is_fifo(dir / "fifo"));
  // A file with two names is refused: a rename would split them.
  fs::create_hard_link(real, dir / "second-name.bf");
  const Status linked = SaveFile(filter.value(), real);
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.error().message().find("hard links"), std::string::npos) << linked.error().message();
  EXPECT_EQ(fs::hard_link_count(real), 2U);
}

TEST(ReadFileHeaderTest, ChecksTheHeaderAndTheSizeOnly) {
  TempDir dir;
  auto filter = BloomFilter::Create({.capacity = 1000, .fp_rate = 0.01});
  ASSERT_TRUE(filter.ok());
  ASSERT_TRUE(SaveFile(filter.value(), dir / "f.bf").ok());
  auto header = ReadFileHeader(dir / "f.bf");
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_EQ(header->kind, FilterKind::kClassic);
  EXPECT_EQ(header->capacity, 1000U);
  fs::resize_file(dir / "f.bf", fs::file_size(dir / "f.bf") + 1);
  auto longer = ReadFileHeader(dir / "f.bf");
  ASSERT_FALSE(longer.ok());
  EXPECT_EQ(longer.error().code(), ErrorCode::kParameterMismatch);
}

}  // namespace
}  // namespace bloomkit
