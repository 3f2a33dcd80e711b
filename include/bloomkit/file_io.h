// SPDX-License-Identifier: Apache-2.0
// Safe updates of filter files: an exclusive lock for a whole read-modify-write, and
// saves that land on the file the user named.
//
// Two processes that each load a file, add keys and save it would lose one of the two
// updates (the second rename wins). UpdateFile holds an exclusive lock on the file for
// the whole load-change-save, so a second writer waits for the first and then sees its
// keys:
//
//   auto st = bloomkit::UpdateFile<bloomkit::BloomFilter>("seen.bf", [](bloomkit::BloomFilter& f) {
//     f.Add("user:42");
//     return bloomkit::Status{};
//   });
//
// The lock (docs/RELIABILITY.md, "Writers and locks"):
// - flock(2) LOCK_EX on the target file itself, after resolving symlinks: no lock file
//   is ever left behind, and the lock follows the file whatever name it is reached by.
// - A save replaces the file's inode (rename), so a writer that was waiting on the old
//   inode checks, once it holds the lock, that the path still names that inode; if not
//   it locks the new one. A lock therefore always covers the file the path names now.
// - Advisory: it orders writers that lock (every bloomkit command and UpdateFile);
//   readers never lock and never need to, because a save is an atomic rename: they see
//   the old file or the new one, never a mix.
// - A waiting writer gives up after `wait_seconds` with ErrorCode::kLocked.
// - flock is per open file description: it works across processes and across
//   threads that each call Acquire; it is not reliable on NFS before Linux 2.6.12.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <utility>

#include "bloomkit/format.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit {

// How long a writer waits for another writer's lock before giving up.
inline constexpr double kDefaultLockWaitSeconds = 60.0;

struct LockOptions {
  // Seconds to wait for the lock; 0 = try once.
  double wait_seconds = kDefaultLockWaitSeconds;
  // If the file does not exist, lock its directory instead (until the file exists,
  // the writers that would create it exclude each other there): for commands that may
  // create the file. Without it, a missing file is an error.
  bool missing_ok = false;
};

// An exclusive flock on a regular file, released by the destructor.
class FileLock {
 public:
  // Locks the regular file `path` names (symlinks resolved). Errors: kLocked when
  // another writer held it for longer than options.wait_seconds; kIoError when the
  // file is missing (unless missing_ok) or is not a regular file (FIFO, device,
  // directory: refused without blocking).
  static Result<FileLock> Acquire(const std::filesystem::path& path, const LockOptions& options = {});

  FileLock() = default;
  FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  // True while the lock is held (false only for a moved-from or default lock).
  [[nodiscard]] bool held() const noexcept { return fd_ >= 0; }
  // The file the lock is about, symlinks resolved.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  FileLock(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::filesystem::path path_;
};

// Follows `path` through symlinks (up to 40, as the kernel does) to the name that is
// not a symlink; the last one may not exist yet. A save writes its temporary beside
// that name, so saving through a link updates the link's target.
Result<std::filesystem::path> ResolveSymlinks(const std::filesystem::path& path);

// Reads and checks only the 128-byte header of a filter file (magic, version, kind,
// hash, lengths) and that the file's size is the one the header announces; does not
// read the payload or verify the checksum. Refuses non-regular files without blocking.
//   auto header = bloomkit::ReadFileHeader("seen.bf");  // header->kind, ->count, ...
Result<FileHeader> ReadFileHeader(const std::filesystem::path& path);

struct UpdateOptions {
  LoadOptions load;
  LockOptions lock;
  // Level used when the file was compressed (it stays compressed; a raw file stays raw).
  int compression_level = 3;
};

// Locked read-modify-write of a filter file: locks `path`, loads it, calls
// `change(filter)` (which returns Status), and when that succeeds saves the filter
// atomically before releasing the lock. On any error the file keeps its old bytes.
template <typename Filter, typename Change>
Status UpdateFile(const std::filesystem::path& path, Change&& change, const UpdateOptions& options = {}) {
  auto lock = FileLock::Acquire(path, options.lock);
  if (!lock.ok()) return std::move(lock).error();
  auto header = ReadFileHeader(lock->path());
  if (!header.ok()) return std::move(header).error();
  auto filter = LoadFile<Filter>(lock->path(), options.load);
  if (!filter.ok()) return std::move(filter).error();
  Status changed = std::forward<Change>(change)(filter.value());
  if (!changed.ok()) return changed;
  return SaveFile(
      filter.value(), lock->path(),
      SaveOptions{.compress = (header->flags & kFlagZstdPayload) != 0, .compression_level = options.compression_level});
}

}  // namespace bloomkit
