// SPDX-License-Identifier: Apache-2.0
// src/core/internal/temp_file.h: the unlinked temporary file of a compressed
// WriteStreamed, made with O_TMPFILE or, where that is refused, with mkostemp and an
// immediate unlink. Real files in real directories: both ways are run on this machine's
// temporary directory (the fallback forced by TempFileOptions::try_o_tmpfile), /proc
// refuses O_TMPFILE for real (to root; other users are refused by its permissions
// first), and every case checks that no file is left behind.
#include "internal/temp_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "bloomkit/bloom_filter.h"
#include "bloomkit/format.h"
#include "contract/test_support.h"

namespace bloomkit {
namespace {

namespace fs = std::filesystem;
using bloomkit_test::Bytes;
using bloomkit_test::Key;
using bloomkit_test::TempDir;
using internal::OpenUnlinkedTempFile;
using internal::TempFileOptions;

// Sparse enough to compress (1000 keys in a filter sized for 100000), so a compressed
// write goes through the temporary file and not the raw fallback.
BloomFilter SparseFilter() {
  auto f = BloomFilter::Create({.capacity = 100000, .fp_rate = 0.01});
  EXPECT_TRUE(f.ok());
  for (std::uint64_t i = 0; i < 1000; ++i) EXPECT_TRUE(f->Add(Key('t', i)).ok());
  return std::move(f).value();
}

std::vector<std::string> Entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  return names;
}

// What /proc/self/fd/<fd> names: "<dir>/<name> (deleted)" for an unlinked file.
std::string FdTarget(int fd) {
  std::error_code ec;
  const fs::path target = fs::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
  return ec ? std::string() : target.string();
}

// The open descriptors of this process that name an unlinked file directly in `dir`,
// as FdTarget shows them.
std::vector<std::string> UnlinkedFilesIn(const fs::path& dir) {
  std::vector<std::string> found;
  const std::string prefix = dir.string() + "/";
  const std::string suffix = " (deleted)";
  for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
    const std::string target = FdTarget(std::stoi(entry.path().filename().string()));
    if (target.starts_with(prefix) && target.ends_with(suffix) &&
        target.find('/', prefix.size()) == std::string::npos) {
      found.push_back(target.substr(prefix.size(), target.size() - prefix.size() - suffix.size()));
    }
  }
  return found;
}

std::string AsString(const Bytes& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Sets an environment variable for the scope and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name); old != nullptr) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ScopedEnv(ScopedEnv&&) = delete;
  ScopedEnv& operator=(ScopedEnv&&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// ------------------------------------------------------------------- OpenUnlinkedTempFile

TEST(OpenUnlinkedTempFileTest, BothWaysGiveAnUnlinkedReadWriteFileInTheDirectory) {
  for (const bool try_o_tmpfile : {true, false}) {
    SCOPED_TRACE(try_o_tmpfile ? "O_TMPFILE" : "mkostemp fallback");
    TempDir dir;
    int fd = -1;
    {
      auto file = OpenUnlinkedTempFile({.dir = dir.path(), .try_o_tmpfile = try_o_tmpfile});
      ASSERT_TRUE(file.ok()) << file.error().message();
      fd = file->get();
      struct stat st {};
      struct stat dir_st {};
      ASSERT_EQ(::fstat(fd, &st), 0);
      ASSERT_EQ(::stat(dir.path().c_str(), &dir_st), 0);
      EXPECT_TRUE(S_ISREG(st.st_mode));
      EXPECT_EQ(st.st_nlink, 0U);           // no name in the file system
      EXPECT_EQ(st.st_dev, dir_st.st_dev);  // on the directory's file system
      EXPECT_TRUE(Entries(dir.path()).empty());
      EXPECT_NE(::fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
      // The file lives in that directory; the fallback's had the mkostemp name.
      const std::vector<std::string> unlinked = UnlinkedFilesIn(dir.path());
      ASSERT_EQ(unlinked.size(), 1U) << FdTarget(fd);
      EXPECT_EQ(unlinked[0].starts_with(internal::kStreamTempPrefix), !try_o_tmpfile) << unlinked[0];
      // Readable and writable.
      const char kText[] = "bloomkit";
      ASSERT_EQ(::pwrite(fd, kText, sizeof(kText), 0), static_cast<ssize_t>(sizeof(kText)));
      char back[sizeof(kText)] = {};
      ASSERT_EQ(::pread(fd, back, sizeof(back), 0), static_cast<ssize_t>(sizeof(back)));
      EXPECT_EQ(std::memcmp(back, kText, sizeof(kText)), 0);
    }
    // Closed with the UniqueFd, and nothing left in the directory.
    EXPECT_EQ(::fcntl(fd, F_GETFD), -1);
    EXPECT_TRUE(Entries(dir.path()).empty());
  }
}

TEST(OpenUnlinkedTempFileTest, AMissingDirectoryIsAClearErrorAndCreatesNothing) {
  TempDir dir;
  const fs::path missing = dir / "missing";
  for (const bool try_o_tmpfile : {true, false}) {
    SCOPED_TRACE(try_o_tmpfile ? "O_TMPFILE" : "mkostemp fallback");
    auto file = OpenUnlinkedTempFile({.dir = missing, .try_o_tmpfile = try_o_tmpfile});
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.error().code(), ErrorCode::kIoError);
    const std::string& message = file.error().message();
    EXPECT_NE(message.find("cannot create a temporary file in " + missing.string()), std::string::npos) << message;
    EXPECT_NE(message.find(std::strerror(ENOENT)), std::string::npos) << message;
    EXPECT_NE(message.find(try_o_tmpfile ? "O_TMPFILE: " : "mkostemp: "), std::string::npos) << message;
    EXPECT_TRUE(Entries(dir.path()).empty());
  }
}

TEST(OpenUnlinkedTempFileTest, ADirectoryThatCannotHoldFilesIsAClearErrorAndLeavesNothing) {
  TempDir dir;
  // A regular file where the directory should be: ENOTDIR both ways, the file untouched.
  const fs::path file_path = dir / "plain";
  std::ofstream(file_path) << "x";
  for (const bool try_o_tmpfile : {true, false}) {
    auto file = OpenUnlinkedTempFile({.dir = file_path, .try_o_tmpfile = try_o_tmpfile});
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.error().code(), ErrorCode::kIoError);
    EXPECT_NE(file.error().message().find(file_path.string()), std::string::npos) << file.error().message();
    EXPECT_NE(file.error().message().find(std::strerror(ENOTDIR)), std::string::npos) << file.error().message();
    EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"plain"});
    EXPECT_EQ(fs::file_size(file_path), 1U);
  }
  // Read-only for a user without CAP_DAC_OVERRIDE (root writes there regardless).
  if (::geteuid() != 0) {
    const fs::path read_only = dir / "read-only";
    fs::create_directory(read_only);
    fs::permissions(read_only, fs::perms::owner_read | fs::perms::owner_exec);
    for (const bool try_o_tmpfile : {true, false}) {
      auto file = OpenUnlinkedTempFile({.dir = read_only, .try_o_tmpfile = try_o_tmpfile});
      ASSERT_FALSE(file.ok());
      EXPECT_EQ(file.error().code(), ErrorCode::kIoError);
      EXPECT_NE(file.error().message().find(read_only.string()), std::string::npos) << file.error().message();
      EXPECT_NE(file.error().message().find(std::strerror(EACCES)), std::string::npos) << file.error().message();
      EXPECT_TRUE(Entries(read_only).empty());
    }
  }
}

// What O_TMPFILE in `dir` fails with (0 if it works). In /proc: EOPNOTSUPP for root,
// since procfs has no tmpfile operation (as NFS has none); EACCES for any other user,
// whose permission check comes first.
int OTmpfileErrno(const char* dir) {
  const int fd = ::open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return 0;
  }
  return errno;
}

// The message /proc gives: O_TMPFILE's error, and where that is a refusal the fallback's
// error after it (no file can be created in /proc either way).
void ExpectProcError(const std::string& message) {
  const int err = OTmpfileErrno("/proc");
  ASSERT_NE(err, 0);
  const std::string first = "cannot create a temporary file in /proc: O_TMPFILE: " + std::string(std::strerror(err));
  EXPECT_NE(message.find(first), std::string::npos) << message;
  const bool refused = err == EOPNOTSUPP || err == EISDIR || err == EINVAL;
  EXPECT_EQ(message.find(first + "; mkostemp: ") != std::string::npos, refused) << message;
}

TEST(OpenUnlinkedTempFileTest, WhenO_TMPFILEIsRefusedTheFallbackRunsAndBothErrorsAreNamed) {
  auto file = OpenUnlinkedTempFile({.dir = "/proc"});
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().code(), ErrorCode::kIoError);
  ExpectProcError(file.error().message());
}

// ------------------------------------------------------------------- WriteStreamed

// A compressed WriteStreamed through either kind of temporary file writes exactly the
// bytes of Serialize, reads back to the same filter, and leaves the directory empty.
// While the filter streams, the one temporary file is open, unlinked, in that directory.
TEST(WriteStreamedTest, BothWaysWriteTheBytesOfSerialize) {
  const BloomFilter f = SparseFilter();
  const SaveOptions options{.compress = true};
  const Bytes expected = f.Serialize(options);
  auto header = InspectBytes(expected);
  ASSERT_TRUE(header.ok()) << header.error().message();
  ASSERT_NE(header->flags & kFlagZstdPayload, 0U);  // compressed: went through the temporary file
  for (const bool try_o_tmpfile : {true, false}) {
    SCOPED_TRACE(try_o_tmpfile ? "O_TMPFILE" : "mkostemp fallback");
    TempDir dir;
    std::vector<std::string> seen;
    auto serialize_to = [&](ByteSink sink) {
      seen = UnlinkedFilesIn(dir.path());
      return f.SerializeTo(sink);
    };
    std::stringstream out;
    const Status st =
        internal::WriteStreamed(out, serialize_to, options, {.dir = dir.path(), .try_o_tmpfile = try_o_tmpfile});
    ASSERT_TRUE(st.ok()) << st.error().message();
    EXPECT_EQ(out.str(), AsString(expected));
    ASSERT_EQ(seen.size(), 1U);
    EXPECT_EQ(seen[0].starts_with(internal::kStreamTempPrefix), !try_o_tmpfile) << seen[0];
    EXPECT_TRUE(Entries(dir.path()).empty());
    EXPECT_TRUE(UnlinkedFilesIn(dir.path()).empty());  // and its descriptor closed

    auto loaded = ReadFrom<BloomFilter>(out);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message();
    EXPECT_EQ(loaded->Serialize(), f.Serialize());
  }
}

// A failed temporary file fails the write before anything reaches the stream.
TEST(WriteStreamedTest, AMissingDirectoryFailsBeforeTheStreamIsWritten) {
  TempDir dir;
  const BloomFilter f = SparseFilter();
  for (const bool try_o_tmpfile : {true, false}) {
    std::stringstream out;
    const Status st =
        internal::WriteStreamed(out, [&f](ByteSink sink) { return f.SerializeTo(sink); }, {.compress = true},
                                {.dir = dir / "missing", .try_o_tmpfile = try_o_tmpfile});
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), ErrorCode::kIoError);
    EXPECT_NE(st.error().message().find((dir / "missing").string()), std::string::npos) << st.error().message();
    EXPECT_TRUE(out.str().empty());
    EXPECT_TRUE(Entries(dir.path()).empty());
  }
}

// The public WriteStreamed (and so WriteTo) uses $TMPDIR, as
// std::filesystem::temp_directory_path does.
TEST(WriteStreamedTest, ThePublicWriteUsesTMPDIR) {
  TempDir dir;
  const ScopedEnv tmpdir("TMPDIR", dir.path().string());
  const BloomFilter f = SparseFilter();
  std::vector<std::string> seen;
  std::stringstream out;
  const Status st = WriteStreamed(out,
                                  [&](ByteSink sink) {
                                    seen = UnlinkedFilesIn(dir.path());
                                    return f.SerializeTo(sink);
                                  },
                                  {.compress = true});
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(seen.size(), 1U);
  EXPECT_EQ(out.str(), AsString(f.Serialize({.compress = true})));
  EXPECT_TRUE(Entries(dir.path()).empty());
}

// With $TMPDIR on a file system that refuses O_TMPFILE, WriteTo tries the fallback
// before it reports the error (here /proc, where the fallback cannot succeed either).
TEST(WriteStreamedTest, WriteToTriesTheFallbackWhenTMPDIRRefusesO_TMPFILE) {
  const ScopedEnv tmpdir("TMPDIR", "/proc");
  std::stringstream out;
  const Status st = WriteTo(SparseFilter(), out, {.compress = true});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kIoError);
  ExpectProcError(st.error().message());
  EXPECT_TRUE(out.str().empty());
}

// A $TMPDIR that is not a directory is named in the error.
TEST(WriteStreamedTest, ATMPDIRThatIsNotADirectoryIsNamed) {
  TempDir dir;
  const ScopedEnv tmpdir("TMPDIR", (dir / "missing").string());
  std::stringstream out;
  const Status st = WriteTo(SparseFilter(), out, {.compress = true});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kIoError);
  EXPECT_NE(st.error().message().find((dir / "missing").string()), std::string::npos) << st.error().message();
  EXPECT_TRUE(Entries(dir.path()).empty());
}

}  // namespace
}  // namespace bloomkit
