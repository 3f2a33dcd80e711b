// SPDX-License-Identifier: Apache-2.0
// bloomkit/format.h: the file format's constants and its file and stream I/O, on real
// files in a temporary directory. The byte-level checks of malformed files are in the
// contract suite (tests/contract/filter_contract.h), run for every filter kind.
#include "bloomkit/format.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/concurrent_bloom_filter.h"
#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/mapped_filter.h"
#include "bloomkit/scalable_bloom_filter.h"
#include "contract/test_support.h"

namespace bloomkit {
namespace {

namespace fs = std::filesystem;
using bloomkit_test::Bytes;
using bloomkit_test::Key;
using bloomkit_test::TempDir;

BloomFilter SampleFilter(std::uint64_t capacity = 5000, std::uint64_t keys = 1000) {
  auto f = BloomFilter::Create({.capacity = capacity, .fp_rate = 0.01});
  if (!f.ok()) throw std::runtime_error(f.error().message());
  for (std::uint64_t i = 0; i < keys; ++i) EXPECT_TRUE(f->Add(Key('p', i)).ok());
  return std::move(f).value();
}

Bytes ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Bytes bytes(chars.size());
  if (!chars.empty()) std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

void WriteAll(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Names in `dir`, to show that no temporary file was left behind.
std::vector<std::string> Listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(FormatConstantsTest, AreTheDocumentedOnes) {
  const std::array<std::uint8_t, 8> magic = {0x89, 0x42, 0x4c, 0x4b, 0x0d, 0x0a, 0x1a, 0x0a};  // "\x89BLK\r\n\x1a\n"
  EXPECT_EQ(kFileMagic, magic);
  EXPECT_EQ(kFormatVersion, 1U);
  EXPECT_EQ(kHeaderBytes, 128U);
  EXPECT_EQ(kChecksumBytes, 8U);
  EXPECT_EQ(kPayloadAlignment, 64U);
  EXPECT_EQ(kHeaderBytes % kPayloadAlignment, 0U) << "the payload must start aligned";
  EXPECT_EQ(kFlagZstdPayload, 1U);
  EXPECT_EQ(kNumHeaderParams, 6U);
}

// ---------------------------------------------------------------------- files

TEST(FileTest, SaveAndLoadRoundTrip) {
  TempDir dir;
  const BloomFilter classic = SampleFilter();
  auto blocked = BlockedBloomFilter::Create({.capacity = 5000, .fp_rate = 0.01});
  ASSERT_TRUE(blocked.ok());
  for (std::uint64_t i = 0; i < 1000; ++i) EXPECT_TRUE(blocked->Add(Key('p', i)).ok());
  for (const bool compress : {false, true}) {
    SCOPED_TRACE(compress ? "compressed" : "raw");
    const SaveOptions options{.compress = compress};
    const fs::path classic_path = dir / "classic.bkf";
    const fs::path blocked_path = dir / "blocked.bkf";
    ASSERT_TRUE(SaveFile(classic, classic_path, options).ok());
    ASSERT_TRUE(SaveFile(blocked.value(), blocked_path, options).ok());
    EXPECT_EQ(ReadAll(classic_path), classic.Serialize(options)) << "the file is not the serialized bytes";
    auto loaded = LoadFile<BloomFilter>(classic_path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message();
    EXPECT_TRUE(loaded.value() == classic);
    auto loaded_blocked = LoadFile<BlockedBloomFilter>(blocked_path);
    ASSERT_TRUE(loaded_blocked.ok()) << loaded_blocked.error().message();
    EXPECT_TRUE(loaded_blocked.value() == blocked.value());
    // Each kind refuses the other's file.
    auto wrong = LoadFile<BloomFilter>(blocked_path);
    ASSERT_FALSE(wrong.ok());
    EXPECT_EQ(wrong.error().code(), ErrorCode::kWrongKind);
    struct stat st {};
    ASSERT_EQ(::stat(classic_path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644U);
  }
  EXPECT_EQ(Listing(dir.path()), (std::vector<std::string>{"blocked.bkf", "classic.bkf"})) << "temporary files left";
}

// Every kind saves by streaming (SaveFile: the bytes of Serialize) and loads through
// FilterReader (LoadFile), raw and compressed, to an equal filter.
template <typename Filter>
void ExpectStreamedRoundTrip(const Filter& filter, const fs::path& path) {
  for (const bool compress : {false, true}) {
    SCOPED_TRACE(compress ? "compressed" : "raw");
    const SaveOptions options{.compress = compress};
    ASSERT_TRUE(SaveFile(filter, path, options).ok());
    EXPECT_EQ(ReadAll(path), filter.Serialize(options));
    auto loaded = LoadFile<Filter>(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message();
    EXPECT_EQ(loaded->Serialize(), filter.Serialize());
  }
}

TEST(FileTest, EveryKindLoadsAndSavesStreamed) {
  TempDir dir;
  auto counting = CountingBloomFilter::Create({.bloom = {.capacity = 5000, .fp_rate = 0.01}});
  auto cuckoo = CuckooFilter::Create({.capacity = 5000, .fp_rate = 0.01});
  auto scalable = ScalableBloomFilter::Create({.initial_capacity = 100, .fp_rate = 0.01});
  ASSERT_TRUE(counting.ok() && cuckoo.ok() && scalable.ok());
  for (std::uint64_t i = 0; i < 1000; ++i) {
    ASSERT_TRUE(counting->Add(Key('c', i)).ok());
    ASSERT_TRUE(cuckoo->Add(Key('k', i)).ok());
    ASSERT_TRUE(scalable->Add(Key('s', i)).ok());
  }
  ASSERT_GT(scalable->num_stages(), 1U);
  ExpectStreamedRoundTrip(SampleFilter(), dir / "classic.bkf");
  ExpectStreamedRoundTrip(counting.value(), dir / "counting.bkf");
  ExpectStreamedRoundTrip(cuckoo.value(), dir / "cuckoo.bkf");
  ExpectStreamedRoundTrip(scalable.value(), dir / "scalable.bkf");
}

// A compressed save of a payload that does not shrink stores it raw, as Serialize does.
TEST(FileTest, StreamedCompressedSaveOfRandomBitsIsRaw) {
  TempDir dir;
  const BloomFilter full = SampleFilter(1000, 1000);  // at capacity: half the bits set, at random
  ASSERT_TRUE(SaveFile(full, dir / "full.bkf", {.compress = true}).ok());
  EXPECT_EQ(ReadAll(dir / "full.bkf"), full.Serialize());
  EXPECT_EQ(Listing(dir.path()), (std::vector<std::string>{"full.bkf"}));
}

// MergeFrom ORs a file's bits in as they are read: the union Merge computes.
TEST(FileTest, MergeFromAFileIsMerge) {
  TempDir dir;
  const BloomFilter a = SampleFilter();
  BloomFilter b = SampleFilter();
  for (std::uint64_t i = 0; i < 500; ++i) ASSERT_TRUE(b.Add(Key('b', i)).ok());
  for (const bool compress : {false, true}) {
    ASSERT_TRUE(SaveFile(b, dir / "b.bkf", {.compress = compress}).ok());
    BloomFilter expected = a;
    ASSERT_TRUE(expected.Merge(b).ok());
    BloomFilter merged = a;
    auto reader = FilterReader::OpenFile(dir / "b.bkf", std::nullopt);
    ASSERT_TRUE(reader.ok()) << reader.error().message();
    const Status st = merged.MergeFrom(reader.value());
    ASSERT_TRUE(st.ok()) << st.error().message();
    EXPECT_TRUE(merged == expected);
  }
  // A file of another shape is refused before any bit changes.
  auto other = BloomFilter::Create({.num_bits = 4096, .num_hashes = 3});
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(SaveFile(other.value(), dir / "other.bkf").ok());
  auto reader = FilterReader::OpenFile(dir / "other.bkf", std::nullopt);
  ASSERT_TRUE(reader.ok());
  BloomFilter merged = a;
  const Status st = merged.MergeFrom(reader.value());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kIncompatible);
  EXPECT_TRUE(merged == a);
}

// A classic filter of hash id 4 writes id 4 into its header and loads back with it,
// from bytes, a file (raw and compressed), a mapping and as a concurrent filter, all
// answering as the original; MergeFrom refuses a file of the other id unchanged.
TEST(FileTest, ClassicHashId4RoundTrips) {
  TempDir dir;
  auto made = BloomFilter::Create({.capacity = 5000, .fp_rate = 0.01, .hash_id = kHashIdShort64});
  ASSERT_TRUE(made.ok());
  BloomFilter f = std::move(made).value();
  for (std::uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(f.Add(IntegerKey(i)).ok());
  const Bytes bytes = f.Serialize();
  EXPECT_EQ(bloomkit_test::LoadU16(bytes, bloomkit_test::layout::kHashId), kHashIdShort64);
  const auto answers = [](const auto& filter) {
    std::vector<bool> out;
    for (std::uint64_t i = 0; i < 3000; ++i) out.push_back(filter.MayContain(IntegerKey(i)));
    return out;
  };
  const std::vector<bool> expected = answers(f);
  auto back = BloomFilter::Deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->hash_id(), kHashIdShort64);
  EXPECT_TRUE(back.value() == f);
  for (const bool compress : {false, true}) {
    ASSERT_TRUE(SaveFile(f, dir / "short.bkf", {.compress = compress}).ok());
    auto loaded = LoadFile<BloomFilter>(dir / "short.bkf");
    ASSERT_TRUE(loaded.ok()) << loaded.error().message();
    EXPECT_EQ(loaded->hash_id(), kHashIdShort64);
    EXPECT_EQ(answers(loaded.value()), expected);
  }
  ASSERT_TRUE(SaveFile(f, dir / "short.bkf").ok());
  auto mapped = MappedFilter::Open(dir / "short.bkf");
  ASSERT_TRUE(mapped.ok()) << mapped.error().message();
  EXPECT_EQ(answers(mapped.value()), expected);
  auto concurrent = ConcurrentBloomFilter::Deserialize(bytes);
  ASSERT_TRUE(concurrent.ok()) << concurrent.error().message();
  EXPECT_EQ(concurrent->hash_id(), kHashIdShort64);
  EXPECT_EQ(answers(concurrent.value()), expected);
  EXPECT_EQ(concurrent->Serialize(), bytes);
  // Id 4 is a hash of classic and blocked filters only.
  auto scalable = ScalableBloomFilter::Create({.initial_capacity = 1000});
  ASSERT_TRUE(scalable.ok());
  Bytes scalable_bytes = scalable->Serialize();
  bloomkit_test::StoreLE(scalable_bytes, bloomkit_test::layout::kHashId, kHashIdShort64, 2);
  bloomkit_test::FixChecksum(scalable_bytes);
  auto refused = ScalableBloomFilter::Deserialize(scalable_bytes);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::kUnknownHash);

  auto other = BloomFilter::Create({.capacity = 5000, .fp_rate = 0.01, .hash_id = kHashIdXxh3DoubleHashing});
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(SaveFile(other.value(), dir / "xxh3.bkf").ok());
  auto reader = FilterReader::OpenFile(dir / "xxh3.bkf", std::nullopt);
  ASSERT_TRUE(reader.ok());
  BloomFilter merged = f;
  const Status st = merged.MergeFrom(reader.value());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kIncompatible);
  EXPECT_NE(st.error().message().find("hash id 4 and 1"), std::string::npos) << st.error().message();
  EXPECT_TRUE(merged == f);
}

// A scalable filter's MergeFrom ORs each stage in as it reads it: the union Merge
// computes, for raw and compressed files; another stage count is refused unchanged.
TEST(FileTest, ScalableMergeFromAFileIsMerge) {
  TempDir dir;
  auto make = [](char prefix, std::uint64_t keys) {
    auto f = ScalableBloomFilter::Create({.initial_capacity = 50, .fp_rate = 0.01});
    EXPECT_TRUE(f.ok());
    for (std::uint64_t i = 0; i < keys; ++i) EXPECT_TRUE(f->Add(Key(prefix, i)).ok());
    return std::move(f).value();
  };
  const ScalableBloomFilter a = make('a', 300);
  const ScalableBloomFilter b = make('b', 320);
  ASSERT_GT(a.num_stages(), 2U);
  ASSERT_EQ(a.num_stages(), b.num_stages());
  for (const bool compress : {false, true}) {
    ASSERT_TRUE(SaveFile(b, dir / "b.bkf", {.compress = compress}).ok());
    ScalableBloomFilter expected = a;
    ASSERT_TRUE(expected.Merge(b).ok());
    ScalableBloomFilter merged = a;
    auto reader = FilterReader::OpenFile(dir / "b.bkf", std::nullopt);
    ASSERT_TRUE(reader.ok()) << reader.error().message();
    const Status st = merged.MergeFrom(reader.value());
    ASSERT_TRUE(st.ok()) << st.error().message();
    EXPECT_TRUE(merged == expected);
  }
  const ScalableBloomFilter fewer = make('c', 10);
  ASSERT_LT(fewer.num_stages(), a.num_stages());
  ASSERT_TRUE(SaveFile(fewer, dir / "fewer.bkf").ok());
  auto reader = FilterReader::OpenFile(dir / "fewer.bkf", std::nullopt);
  ASSERT_TRUE(reader.ok());
  ScalableBloomFilter merged = a;
  const Status st = merged.MergeFrom(reader.value());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kIncompatible);
  EXPECT_TRUE(merged == a);
}

TEST(FileTest, SaveReplacesAnExistingFile) {
  TempDir dir;
  const fs::path path = dir / "f.bkf";
  WriteAll(path, "old contents");
  const BloomFilter f = SampleFilter();
  ASSERT_TRUE(SaveFile(f, path).ok());
  EXPECT_EQ(ReadAll(path), f.Serialize());
  EXPECT_EQ(Listing(dir.path()), (std::vector<std::string>{"f.bkf"}));
}

TEST(FileTest, LoadingBadFilesGivesTheirErrors) {
  TempDir dir;
  const BloomFilter f = SampleFilter();
  Bytes bytes = f.Serialize();
  bytes.resize(bytes.size() - 1);
  ASSERT_TRUE(WriteFileAtomically(dir / "short.bkf", bytes).ok());
  auto truncated = LoadFile<BloomFilter>(dir / "short.bkf");
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error().code(), ErrorCode::kTruncated);
  WriteAll(dir / "text.txt", "just some text\n");
  auto text = LoadFile<BloomFilter>(dir / "text.txt");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code(), ErrorCode::kBadMagic);
  WriteAll(dir / "empty", "");
  auto empty = LoadFile<BloomFilter>(dir / "empty");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code(), ErrorCode::kTruncated);
}

TEST(FileTest, ReadFileBytesErrorsNameTheReason) {
  TempDir dir;
  auto missing = ReadFileBytes(dir / "missing.bkf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kIoError);
  EXPECT_NE(missing.error().message().find("No such file or directory"), std::string::npos)
      << missing.error().message();
  auto directory = ReadFileBytes(dir.path());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().code(), ErrorCode::kIoError);
  EXPECT_NE(directory.error().message().find("not a regular file"), std::string::npos) << directory.error().message();
  // A file larger than a filter under the limit could be is refused before reading.
  WriteAll(dir / "big", std::string(10'000, 'x'));
  auto big = ReadFileBytes(dir / "big", 1000);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code(), ErrorCode::kTooLarge);
  EXPECT_NE(big.error().message().find("10000"), std::string::npos) << big.error().message();
  // Under the limit, the header is read and refused before the rest of the file.
  auto text = ReadFileBytes(dir / "big", 10'000);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code(), ErrorCode::kBadMagic);
}

TEST(FileTest, SaveIntoAMissingDirectoryFailsAndCreatesNothing) {
  TempDir dir;
  const fs::path path = dir / "no" / "such" / "f.bkf";
  const Status st = SaveFile(SampleFilter(), path);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kIoError);
  EXPECT_NE(st.error().message().find("No such file or directory"), std::string::npos) << st.error().message();
  EXPECT_NE(st.error().message().find((dir / "no" / "such").string()), std::string::npos)
      << "the message should name the directory: " << st.error().message();
  EXPECT_FALSE(fs::exists(dir / "no"));
  EXPECT_TRUE(Listing(dir.path()).empty());
}

TEST(FileTest, SaveIntoAReadOnlyDirectoryKeepsTheOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  TempDir dir;
  const fs::path sub = dir / "ro";
  fs::create_directory(sub);
  const fs::path path = sub / "f.bkf";
  WriteAll(path, "old contents");
  fs::permissions(sub, fs::perms::owner_read | fs::perms::owner_exec);
  const Status st = SaveFile(SampleFilter(), path);
  fs::permissions(sub, fs::perms::owner_all);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kIoError);
  EXPECT_NE(st.error().message().find("Permission denied"), std::string::npos) << st.error().message();
  const Bytes old = ReadAll(path);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(old.data()), old.size()), "old contents");
  EXPECT_EQ(Listing(sub), (std::vector<std::string>{"f.bkf"}));
}

// A write that fails half-way (the file-size limit, EFBIG) leaves the old file as it
// was and removes the temporary file. Works as root, unlike directory permissions.
TEST(FileTest, FailedWriteKeepsTheOldFile) {
  TempDir dir;
  const fs::path path = dir / "f.bkf";
  WriteAll(path, "old contents");
  const BloomFilter f = SampleFilter(100'000, 0);  // ~120 KB
  struct rlimit saved {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  struct sigaction ignore {};
  struct sigaction previous {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGXFSZ, &ignore, &previous), 0);  // EFBIG instead of a signal
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const Status st = SaveFile(f, path);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::sigaction(SIGXFSZ, &previous, nullptr);
  ASSERT_FALSE(st.ok()) << "a write over the file-size limit succeeded";
  EXPECT_EQ(st.error().code(), ErrorCode::kIoError);
  EXPECT_NE(st.error().message().find("write failed"), std::string::npos) << st.error().message();
  const Bytes old = ReadAll(path);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(old.data()), old.size()), "old contents");
  EXPECT_EQ(Listing(dir.path()), (std::vector<std::string>{"f.bkf"})) << "temporary file left behind";
}

// SaveOptions::before_commit runs once the new file is written, with its size, before
// the rename: an error from it cancels the save (old bytes kept, no temporary left); a
// success lets the save complete. Raw and compressed, streamed and not.
TEST(FileTest, BeforeCommitRunsBeforeTheRenameAndItsErrorCancelsTheSave) {
  TempDir dir;
  const fs::path path = dir / "f.bkf";
  const BloomFilter f = SampleFilter(100'000, 1000);
  for (const bool compress : {false, true}) {
    WriteAll(path, "old contents");
    std::uint64_t seen = 0;
    SaveOptions options{.compress = compress};
    options.before_commit = [&](std::uint64_t file_bytes) -> Status {
      seen = file_bytes;
      const Bytes now = ReadAll(path);
      EXPECT_EQ(std::string(reinterpret_cast<const char*>(now.data()), now.size()), "old contents");
      return Error(ErrorCode::kIoError, "output failed");
    };
    const Status st = SaveFile(f, path, options);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().message(), "output failed");
    EXPECT_EQ(Listing(dir.path()), (std::vector<std::string>{"f.bkf"})) << "temporary file left behind";
    EXPECT_EQ(ReadAll(path).size(), 12U);
    options.before_commit = [&](std::uint64_t file_bytes) -> Status {
      EXPECT_EQ(file_bytes, seen);
      return {};
    };
    ASSERT_TRUE(SaveFile(f, path, options).ok());
    EXPECT_EQ(fs::file_size(path), seen);
    EXPECT_EQ(f.Serialize(SaveOptions{.compress = compress}).size(), seen);
  }
  // The non-streamed path (WriteFileAtomically) honours it too.
  const Bytes bytes(100, std::byte{7});
  const Status st = WriteFileAtomically(
      path, bytes, [](std::uint64_t n) { return n == 100 ? Status(Error(ErrorCode::kIoError, "no")) : Status(); });
  EXPECT_FALSE(st.ok());
  EXPECT_NE(ReadAll(path).size(), 100U);
}

// A rename that fails (the target is a directory) removes the temporary file and
// leaves the target alone.
// A save never replaces what is not a regular file; it refuses before creating its
// temporary, so nothing is left behind.
TEST(FileTest, SaveOverADirectoryIsRefusedAndLeavesNoTemporary) {
  TempDir dir;
  const fs::path target = dir / "taken";
  fs::create_directory(target);
  WriteAll(target / "inside", "x");
  const Status st = SaveFile(SampleFilter(), target);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kIoError);
  EXPECT_NE(st.error().message().find("not a regular file (a directory); refusing to replace it"), std::string::npos)
      << st.error().message();
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_EQ(Listing(dir.path()), (std::vector<std::string>{"taken"}));
  EXPECT_EQ(Listing(target), (std::vector<std::string>{"inside"}));
}

// A save killed between creating its temporary and the rename leaves the temporary
// behind; the next successful save of the same target removes those whose process is
// gone, and nothing else: not a live process's (a concurrent save), not one without a
// pid, not another target's.
TEST(FileTest, SaveRemovesTemporariesOfDeadSaves) {
  TempDir dir;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // `child` is now a pid with no process
  const std::string dead = std::to_string(child);
  const std::string live = std::to_string(::getppid());
  const std::vector<std::string> kept = {
      ".f.bkf.tmp." + live + ".aaaaaa",   // a concurrent save by a live process
      ".f.bkf.tmp.x" + dead + ".bbbbbb",  // no pid
      ".f.bkf.tmp." + dead,               // no suffix after the pid
      ".g.bkf.tmp." + dead + ".cccccc",   // another target
  };
  for (const auto& name : kept) WriteAll(dir / name, "x");
  WriteAll(dir / (".f.bkf.tmp." + dead + ".dddddd"), "left by a killed save");
  ASSERT_TRUE(SaveFile(SampleFilter(), dir / "f.bkf").ok());
  std::vector<std::string> expected = kept;
  expected.push_back("f.bkf");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(Listing(dir.path()), expected);
}

// ---------------------------------------------------------------------- streams

TEST(StreamTest, WriteToAndReadFromRoundTrip) {
  const BloomFilter a = SampleFilter(5000, 100);
  const BloomFilter b = SampleFilter(7000, 700);
  std::stringstream stream;
  ASSERT_TRUE(WriteTo(a, stream).ok());
  ASSERT_TRUE(WriteTo(b, stream, SaveOptions{.compress = true}).ok());
  stream << "trailing";
  // Each ReadFrom takes exactly one filter off the stream.
  auto first = ReadFrom<BloomFilter>(stream);
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_TRUE(first.value() == a);
  auto second = ReadFrom<BloomFilter>(stream);
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_TRUE(second.value() == b);
  std::string rest;
  stream >> rest;
  EXPECT_EQ(rest, "trailing");
}

TEST(StreamTest, TruncatedStreamIsTruncated) {
  const Bytes bytes = SampleFilter().Serialize();
  for (const std::size_t length : {std::size_t{0}, std::size_t{5}, std::size_t{127}, std::size_t{128}, std::size_t{129},
                                   std::size_t{500}, bytes.size() - 8, bytes.size() - 1}) {
    std::stringstream stream(std::string(reinterpret_cast<const char*>(bytes.data()), length));
    auto loaded = ReadFrom<BloomFilter>(stream);
    ASSERT_FALSE(loaded.ok()) << "length " << length;
    EXPECT_EQ(loaded.error().code(), ErrorCode::kTruncated) << "length " << length << ": " << loaded.error().message();
  }
}

TEST(StreamTest, HugeAnnouncedPayloadIsTooLargeBeforeReading) {
  Bytes bytes = SampleFilter().Serialize();
  bytes.resize(kHeaderBytes);
  bloomkit_test::StoreLE(bytes, bloomkit_test::layout::kStoredBytes, std::uint64_t{1} << 50);
  bloomkit_test::StoreLE(bytes, bloomkit_test::layout::kPayloadBytes, std::uint64_t{1} << 50);
  std::stringstream stream(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  const auto start = std::chrono::steady_clock::now();
  auto loaded = ReadFrom<BloomFilter>(stream);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code(), ErrorCode::kTooLarge) << loaded.error().message();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  // Under an explicit limit too.
  Bytes real = SampleFilter().Serialize();
  std::stringstream small(std::string(reinterpret_cast<const char*>(real.data()), real.size()));
  auto limited = ReadFrom<BloomFilter>(small, LoadOptions{.max_memory_bytes = 100});
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.error().code(), ErrorCode::kTooLarge);
}

// A stream loads straight into the filter: a damaged payload is a checksum mismatch
// (found after the payload was read), and each kind round-trips raw and compressed.
TEST(StreamTest, EveryKindReadsFromAStream) {
  auto counting = CountingBloomFilter::Create({.bloom = {.capacity = 2000, .fp_rate = 0.01}});
  auto cuckoo = CuckooFilter::Create({.capacity = 2000, .fp_rate = 0.01});
  auto scalable = ScalableBloomFilter::Create({.initial_capacity = 100, .fp_rate = 0.01});
  ASSERT_TRUE(counting.ok() && cuckoo.ok() && scalable.ok());
  for (std::uint64_t i = 0; i < 500; ++i) {
    ASSERT_TRUE(counting->Add(Key('c', i)).ok());
    ASSERT_TRUE(cuckoo->Add(Key('k', i)).ok());
    ASSERT_TRUE(scalable->Add(Key('s', i)).ok());
  }
  auto round_trip = [](const auto& filter) {
    using Filter = std::decay_t<decltype(filter)>;
    for (const bool compress : {false, true}) {
      std::stringstream stream;
      ASSERT_TRUE(WriteTo(filter, stream, SaveOptions{.compress = compress}).ok());
      stream << "next";
      auto loaded = ReadFrom<Filter>(stream);
      ASSERT_TRUE(loaded.ok()) << loaded.error().message();
      EXPECT_EQ(loaded->Serialize(), filter.Serialize());
      std::string rest;
      stream >> rest;
      EXPECT_EQ(rest, "next");
    }
  };
  round_trip(counting.value());
  round_trip(cuckoo.value());
  round_trip(scalable.value());
  round_trip(SampleFilter());
}

TEST(StreamTest, DamagedStreamIsAChecksumMismatch) {
  const BloomFilter f = SampleFilter(5000, 500);
  for (const bool compress : {false, true}) {
    const Bytes good = f.Serialize(SaveOptions{.compress = compress});
    // A flipped bit in the payload, in the checksum, and in the count field.
    for (const std::size_t at : {kHeaderBytes + 3, good.size() - 2, std::size_t{40}}) {
      Bytes bytes = good;
      bytes[at] ^= std::byte{0x10};
      std::stringstream stream(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
      auto loaded = ReadFrom<BloomFilter>(stream);
      ASSERT_FALSE(loaded.ok()) << "byte " << at;
      EXPECT_EQ(loaded.error().code(), ErrorCode::kChecksumMismatch)
          << "byte " << at << ": " << loaded.error().message();
    }
  }
}

// Runs `load` in a child process whose address space is capped at what the child maps
// when it starts plus `extra` bytes; true if `load` returned true there. A load that
// reads the whole input into a buffer before it fills the filter needs twice the
// filter and fails under filter + a few MiB.
bool WithinAddressSpace(std::uint64_t extra, const std::function<bool()>& load) {
  const pid_t child = ::fork();
  if (child == 0) {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0;
    statm >> pages;
    const std::uint64_t cap = pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) + extra;
    const rlimit limit{cap, cap};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(2);
    bool ok = false;
    try {
      ok = load();
    } catch (...) {  // std::bad_alloc of a buffer over the cap
      ok = false;
    }
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

constexpr std::uint64_t kBigFilterBits = std::uint64_t{64} << 23;  // 64 MiB of bits
constexpr std::uint64_t kLoadBound = std::uint64_t{16} << 20;      // kReadBufferBytes + slack

TEST(StreamTest, ReadFromCostsTheFilterPlusABoundedBuffer) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers reserve address space of their own";
#endif
  TempDir dir;
  {
    auto big = BloomFilter::Create({.num_bits = kBigFilterBits, .num_hashes = 3});
    ASSERT_TRUE(big.ok());
    ASSERT_TRUE(big->Add("k").ok());
    ASSERT_TRUE(SaveFile(big.value(), dir / "big.bkf").ok());
    ASSERT_TRUE(SaveFile(big.value(), dir / "big.zst.bkf", {.compress = true}).ok());
  }
  for (const char* name : {"big.bkf", "big.zst.bkf"}) {
    const fs::path path = dir / name;
    EXPECT_TRUE(WithinAddressSpace(kBigFilterBits / 8 + kLoadBound, [&] {
      std::ifstream in(path, std::ios::binary);
      auto loaded = ReadFrom<BloomFilter>(in);
      return loaded.ok() && loaded->MayContain("k");
    })) << name;
  }
}

// The concurrent kinds load through FilterReader like the others.
TEST(FileTest, ConcurrentLoadFileCostsTheFilterPlusABoundedBuffer) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers reserve address space of their own";
#endif
  TempDir dir;
  {
    auto classic = BloomFilter::Create({.num_bits = kBigFilterBits, .num_hashes = 3});
    auto blocked = BlockedBloomFilter::Create({.num_bits = kBigFilterBits, .num_hashes = 6});
    ASSERT_TRUE(classic.ok() && blocked.ok());
    ASSERT_TRUE(classic->Add("k").ok() && blocked->Add("k").ok());
    ASSERT_TRUE(SaveFile(classic.value(), dir / "classic.bkf").ok());
    ASSERT_TRUE(SaveFile(blocked.value(), dir / "blocked.bkf").ok());
  }
  EXPECT_TRUE(WithinAddressSpace(kBigFilterBits / 8 + kLoadBound, [&] {
    auto loaded = LoadFile<ConcurrentBloomFilter>(dir / "classic.bkf");
    return loaded.ok() && loaded->MayContain("k");
  }));
  EXPECT_TRUE(WithinAddressSpace(kBigFilterBits / 8 + kLoadBound, [&] {
    auto loaded = LoadFile<ConcurrentBlockedBloomFilter>(dir / "blocked.bkf");
    return loaded.ok() && loaded->MayContain("k");
  }));
}

// A snapshot of a concurrent filter costs one more filter: its words are copied with
// atomic loads into the new filter (through the file form it needed the file's bytes
// too, three filters in all). Each child builds its filter under the cap.
TEST(FileTest, ConcurrentSnapshotCostsOneMoreFilter) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers reserve address space of their own";
#endif
  constexpr std::uint64_t kCap = 2 * (kBigFilterBits / 8) + kLoadBound;
  EXPECT_TRUE(WithinAddressSpace(kCap, [] {
    auto f = ConcurrentBloomFilter::Create({.num_bits = kBigFilterBits, .num_hashes = 3});
    if (!f.ok() || !f->Add("k").ok()) return false;
    const BloomFilter copy = f->Snapshot();
    return copy.MayContain("k") && copy.count() == 1 && copy.num_bits() == kBigFilterBits;
  }));
  EXPECT_TRUE(WithinAddressSpace(kCap, [] {
    auto f = ConcurrentBlockedBloomFilter::Create({.num_bits = kBigFilterBits, .num_hashes = 6});
    if (!f.ok() || !f->Add("k").ok()) return false;
    const BlockedBloomFilter copy = f->Snapshot();
    return copy.MayContain("k") && copy.count() == 1 && copy.num_bits() == kBigFilterBits;
  }));
}

// Saves stream from the filter's memory: a raw or compressed WriteTo, and SaveFile of
// the concurrent kinds (whose words are read with atomic loads), cost the filter plus
// a bounded buffer. Each child builds its filter under the cap, so a save that
// collects the file into one buffer first needs twice the filter and fails.
TEST(StreamTest, SavesCostTheFilterPlusABoundedBuffer) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers reserve address space of their own";
#endif
  TempDir dir;
  for (const bool compress : {false, true}) {
    const fs::path path = dir / (compress ? "written.zst.bkf" : "written.bkf");
    EXPECT_TRUE(WithinAddressSpace(kBigFilterBits / 8 + kLoadBound, [&] {
      auto big = BloomFilter::Create({.num_bits = kBigFilterBits, .num_hashes = 3});
      if (!big.ok() || !big->Add("k").ok()) return false;
      std::ofstream out(path, std::ios::binary);
      return WriteTo(big.value(), out, {.compress = compress}).ok();
    })) << path;
    std::ifstream in(path, std::ios::binary);
    auto loaded = ReadFrom<BloomFilter>(in);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message();
    EXPECT_TRUE(loaded->MayContain("k"));
    EXPECT_EQ(loaded->num_bits(), kBigFilterBits);
    EXPECT_EQ(fs::file_size(path) < kBigFilterBits / 8, compress);  // a zstd frame of mostly zeros, or the raw bits

    const fs::path classic = dir / (compress ? "classic.zst.bkf" : "classic.bkf");
    EXPECT_TRUE(WithinAddressSpace(kBigFilterBits / 8 + kLoadBound, [&] {
      auto made = BloomFilter::Create({.num_bits = kBigFilterBits, .num_hashes = 3});
      if (!made.ok()) return false;
      ConcurrentBloomFilter f(std::move(made).value());
      static_cast<void>(f.Add("k"));
      return SaveFile(f, classic, {.compress = compress}).ok();
    })) << classic;
    auto classic_loaded = LoadFile<BloomFilter>(classic);
    ASSERT_TRUE(classic_loaded.ok()) << classic_loaded.error().message();
    EXPECT_TRUE(classic_loaded->MayContain("k"));

    const fs::path blocked = dir / (compress ? "blocked.zst.bkf" : "blocked.bkf");
    EXPECT_TRUE(WithinAddressSpace(kBigFilterBits / 8 + kLoadBound, [&] {
      auto f = ConcurrentBlockedBloomFilter::Create({.num_bits = kBigFilterBits, .num_hashes = 6});
      if (!f.ok()) return false;
      static_cast<void>(f->Add("k"));
      return SaveFile(f.value(), blocked, {.compress = compress}).ok();
    })) << blocked;
    auto blocked_loaded = LoadFile<BlockedBloomFilter>(blocked);
    ASSERT_TRUE(blocked_loaded.ok()) << blocked_loaded.error().message();
    EXPECT_TRUE(blocked_loaded->MayContain("k"));
  }
}

// A streamed WriteTo writes the bytes of Serialize, raw and compressed, for the kinds
// that stream and for the concurrent ones.
TEST(StreamTest, WriteToWritesTheBytesOfSerialize) {
  const BloomFilter f = SampleFilter(5000, 1000);
  auto concurrent = ConcurrentBloomFilter(SampleFilter(5000, 1000));
  for (const bool compress : {false, true}) {
    const SaveOptions options{.compress = compress};
    std::stringstream a;
    ASSERT_TRUE(WriteTo(f, a, options).ok());
    const Bytes expected = f.Serialize(options);
    EXPECT_EQ(a.str(), std::string(reinterpret_cast<const char*>(expected.data()), expected.size()));
    std::stringstream b;
    ASSERT_TRUE(WriteTo(concurrent, b, options).ok());
    const Bytes expected_concurrent = concurrent.Serialize(options);
    EXPECT_EQ(b.str(),
              std::string(reinterpret_cast<const char*>(expected_concurrent.data()), expected_concurrent.size()));
    EXPECT_EQ(expected_concurrent, expected);
  }
}

TEST(StreamTest, WritingToAFailedStreamIsAnError) {
  std::stringstream stream;
  stream.setstate(std::ios::badbit);
  const Status st = WriteTo(SampleFilter(), stream);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kIoError);
}

// ---------------------------------------------------------------------- inspect, compression

TEST(InspectTest, ReportsTheHeaderOfAValidFile) {
  const BloomFilter f = SampleFilter(5000, 1000);
  for (const bool compress : {false, true}) {
    const Bytes bytes = f.Serialize(SaveOptions{.compress = compress});
    auto header = InspectBytes(bytes);
    ASSERT_TRUE(header.ok()) << header.error().message();
    EXPECT_EQ(header->format_version, 1U);
    EXPECT_EQ(header->kind, FilterKind::kClassic);
    EXPECT_EQ(header->hash_id, kDefaultClassicHashId);
    EXPECT_EQ(header->hash_seed, kHashSeed);
    EXPECT_EQ(header->capacity, 5000U);
    EXPECT_EQ(header->count, f.count());
    EXPECT_DOUBLE_EQ(header->fp_rate, 0.01);
    EXPECT_EQ(header->payload_bytes, f.memory_bytes());
    EXPECT_EQ(header->params[0], f.num_bits());
    EXPECT_EQ(header->params[1], f.num_hashes());
    EXPECT_EQ(header->flags, compress ? kFlagZstdPayload : 0U);
    EXPECT_EQ(header->stored_payload_bytes, bytes.size() - kHeaderBytes - kChecksumBytes);
  }
  Bytes damaged = f.Serialize();
  damaged[200] ^= std::byte{1};
  auto bad = InspectBytes(damaged);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kChecksumMismatch);
}

// A compressed payload over the limit is refused before it is decompressed, by
// InspectBytes (what `bloomkit info` runs) as by Deserialize.
TEST(InspectTest, CompressedPayloadOverTheLimitIsRefusedBeforeDecompressing) {
  const BloomFilter sparse = SampleFilter(1'000'000, 1000);  // 1.2 MB, compresses to a few KB
  const Bytes packed = sparse.Serialize(SaveOptions{.compress = true});
  ASSERT_LT(packed.size(), 100'000U);
  ASSERT_TRUE(InspectBytes(packed).ok());
  auto inspected = InspectBytes(packed, 100'000);
  ASSERT_FALSE(inspected.ok());
  EXPECT_EQ(inspected.error().code(), ErrorCode::kTooLarge) << inspected.error().message();
  EXPECT_NE(inspected.error().message().find("100000"), std::string::npos) << inspected.error().message();
  auto loaded = BloomFilter::Deserialize(packed, LoadOptions{.max_memory_bytes = 100'000});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code(), ErrorCode::kTooLarge);
}

// zstd pays off for sparse filters and is skipped when it would not shrink the payload
// (a filter at capacity is half ones: random bits do not compress).
TEST(CompressionTest, SparseFiltersShrinkFullOnesStayRaw) {
  const BloomFilter sparse = SampleFilter(1'000'000, 1000);  // 1.2 MB, 0.6% of bits set
  const Bytes raw = sparse.Serialize();
  const Bytes packed = sparse.Serialize(SaveOptions{.compress = true});
  EXPECT_LT(packed.size() * 10, raw.size()) << "a 0.1%-full filter should compress over 10x";
  EXPECT_EQ(bloomkit_test::LoadU32(packed, bloomkit_test::layout::kFlags), kFlagZstdPayload);

  const BloomFilter full = SampleFilter(20'000, 20'000);
  const Bytes full_raw = full.Serialize();
  const Bytes full_packed = full.Serialize(SaveOptions{.compress = true});
  EXPECT_EQ(bloomkit_test::LoadU32(full_packed, bloomkit_test::layout::kFlags), 0U)
      << "an incompressible payload should be stored raw";
  EXPECT_EQ(full_packed, full_raw);
}

}  // namespace
}  // namespace bloomkit
