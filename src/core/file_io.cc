// SPDX-License-Identifier: Apache-2.0
// File I/O of filter files (format.h, file_io.h): header-first reads, atomic replace
// that keeps the named file's target, mode and owner, temporary clean-up, and the
// writers' lock. The byte codec is in format.cc.
#include "bloomkit/file_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <istream>
#include <limits>
#include <ostream>
#include <string>
#include <thread>

#include "internal/codec.h"
#include "internal/message.h"

namespace bloomkit {
namespace {

using internal::MakeError;

std::string ErrnoText(int err = errno) {
  return std::strerror(err);
}

// Opens for reading without ever blocking: O_NONBLOCK makes open() of a FIFO with no
// writer return at once (it would otherwise wait forever), and the caller then refuses
// it as not a regular file. O_NOCTTY keeps a terminal device from becoming ours.
int OpenNoBlock(const std::filesystem::path& path) {
  return ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
}

Error NotRegular(const struct stat& st) {
  const char* what = S_ISDIR(st.st_mode)                          ? "a directory"
                     : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                     : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                  : "a special file";
  return MakeError(ErrorCode::kIoError, "not a regular file (", what, ")");
}

Status ReadExactly(int fd, std::byte* out, std::size_t bytes) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t got = ::read(fd, out + done, bytes - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      return MakeError(ErrorCode::kIoError, "read failed: ", got < 0 ? ErrnoText() : "file shrank while reading");
    }
    done += static_cast<std::size_t>(got);
  }
  return {};
}

// Reads the header of the open file `fd` of `file_bytes` bytes and checks it and the
// file's length before anything else is read (a 1 GiB log passed by mistake costs 128
// bytes, not 1 GiB).
Result<FileHeader> ReadHeaderOf(int fd, std::uint64_t file_bytes, std::byte* header_out) {
  const auto head = static_cast<std::size_t>(std::min<std::uint64_t>(file_bytes, kHeaderBytes));
  if (Status st = ReadExactly(fd, header_out, head); !st.ok()) return std::move(st).error();
  auto header = internal::DecodeHeader(std::span<const std::byte>(header_out, head));
  if (!header.ok()) return header;
  const std::uint64_t total = kHeaderBytes + header->stored_payload_bytes + kChecksumBytes;
  if (file_bytes < total) {
    return MakeError(ErrorCode::kTruncated, "truncated: ", file_bytes, " bytes, the header announces ", total);
  }
  if (file_bytes > total) {
    return MakeError(ErrorCode::kParameterMismatch, file_bytes - total, " unexpected bytes after the checksum");
  }
  return header;
}

struct OpenedFile {
  int fd = -1;
  struct stat st {};
  ~OpenedFile() {
    if (fd >= 0) ::close(fd);
  }
};

// Refuses a name that is not a regular file before opening it: opening a device can
// have effects of its own (a tape rewinds), and open() of a FIFO waits for a writer.
Status StatRegular(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return NotRegular(st);
  return {};
}

Status OpenRegular(const std::filesystem::path& path, OpenedFile* file) {
  if (Status st = StatRegular(path); !st.ok()) return st;
  file->fd = OpenNoBlock(path);
  if (file->fd < 0) return MakeError(ErrorCode::kIoError, "cannot open: ", ErrnoText());
  if (::fstat(file->fd, &file->st) != 0) return MakeError(ErrorCode::kIoError, "cannot stat: ", ErrnoText());
  if (!S_ISREG(file->st.st_mode)) return NotRegular(file->st);
  return {};
}

}  // namespace

Result<FileHeader> ReadFileHeader(const std::filesystem::path& path) {
  OpenedFile file;
  if (Status st = OpenRegular(path, &file); !st.ok()) return std::move(st).error();
  std::array<std::byte, kHeaderBytes> head{};
  return ReadHeaderOf(file.fd, static_cast<std::uint64_t>(file.st.st_size), head.data());
}

Result<std::vector<std::byte>> ReadFileBytes(const std::filesystem::path& path, std::uint64_t max_memory_bytes) {
  OpenedFile file;
  if (Status st = OpenRegular(path, &file); !st.ok()) return std::move(st).error();
  const auto file_bytes = static_cast<std::uint64_t>(file.st.st_size);
  const std::uint64_t limit = max_memory_bytes > std::numeric_limits<std::uint64_t>::max() - 4096
                                  ? std::numeric_limits<std::uint64_t>::max()
                                  : max_memory_bytes + kHeaderBytes + kChecksumBytes;
  if (file_bytes > limit) {
    return MakeError(ErrorCode::kTooLarge, "file of ", file_bytes, " bytes is over the memory limit of ",
                     max_memory_bytes);
  }
  std::array<std::byte, kHeaderBytes> head{};
  auto header = ReadHeaderOf(file.fd, file_bytes, head.data());
  if (!header.ok()) return std::move(header).error();
  if (header->payload_bytes > max_memory_bytes) {
    return MakeError(ErrorCode::kTooLarge, "filter needs ", header->payload_bytes, " bytes, over the memory limit of ",
                     max_memory_bytes);
  }
  std::vector<std::byte> bytes(static_cast<std::size_t>(file_bytes));
  std::memcpy(bytes.data(), head.data(), kHeaderBytes);
  if (Status st = ReadExactly(file.fd, bytes.data() + kHeaderBytes, bytes.size() - kHeaderBytes); !st.ok()) {
    return std::move(st).error();
  }
  return bytes;
}

Result<std::filesystem::path> ResolveSymlinks(const std::filesystem::path& path) {
  std::filesystem::path current = path;
  for (int hops = 0; hops <= 40; ++hops) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(current, ec);
    if (ec) return MakeError(ErrorCode::kIoError, "cannot read the symlink ", current.string(), ": ", ec.message());
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  return MakeError(ErrorCode::kIoError, "too many levels of symbolic links");
}

// ---------------------------------------------------------------------------------
// The writers' lock.

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

Result<FileLock> FileLock::Acquire(const std::filesystem::path& path, const LockOptions& options) {
  auto resolved = ResolveSymlinks(path);
  if (!resolved.ok()) return std::move(resolved).error();
  const std::filesystem::path& real = resolved.value();
  using Clock = std::chrono::steady_clock;
  const auto wait = std::chrono::duration<double>(std::max(0.0, options.wait_seconds));
  const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(wait);
  auto pause = std::chrono::milliseconds(1);
  const std::filesystem::path dir = real.has_parent_path() ? real.parent_path() : std::filesystem::path(".");
  while (true) {
    if (Status st = StatRegular(real); !st.ok()) return std::move(st).error();
    int fd = OpenNoBlock(real);
    const bool missing = fd < 0 && errno == ENOENT;
    if (fd < 0 && !(missing && options.missing_ok)) return MakeError(ErrorCode::kIoError, "cannot open: ", ErrnoText());
    if (missing) {
      // Nothing to lock yet: writers that would create the file lock its directory
      // instead, so that two of them do not both create it (the second would replace
      // the first's keys). Once the file exists, writers lock the file.
      fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) return MakeError(ErrorCode::kIoError, "cannot open the directory ", dir.string(), ": ", ErrnoText());
    }
    struct stat locked {};
    if (::fstat(fd, &locked) != 0 || !(missing ? S_ISDIR(locked.st_mode) : S_ISREG(locked.st_mode))) {
      Error error = missing || !S_ISREG(locked.st_mode) ? NotRegular(locked)
                                                        : MakeError(ErrorCode::kIoError, "cannot stat: ", ErrnoText());
      ::close(fd);
      return error;
    }
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) {
        const std::string why = ErrnoText();
        ::close(fd);
        return MakeError(ErrorCode::kIoError, "cannot lock: ", why);
      }
      if (Clock::now() >= deadline) {
        ::close(fd);
        return MakeError(ErrorCode::kLocked, "locked by another writer; gave up after ", options.wait_seconds,
                         " s (wait longer with --wait SECONDS)");
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
    // The writer we waited for may have replaced the file (a save renames a new inode
    // over the name): our lock is then on the old inode, so lock the new one instead.
    struct stat now {};
    const bool exists = ::stat(real.c_str(), &now) == 0;
    if (missing ? !exists && errno == ENOENT : exists && now.st_dev == locked.st_dev && now.st_ino == locked.st_ino) {
      return FileLock(fd, real);
    }
    ::close(fd);
  }
}

// ---------------------------------------------------------------------------------
// Atomic replace.

namespace {

// Removes the temporary files that saves of the same target left behind when their
// process died between creating the temporary and the rename (SIGKILL, power loss).
// A temporary is named `<prefix><pid>.XXXXXX`; only those whose pid is no longer a
// process on this machine are removed, so a concurrent save is never disturbed. Best
// effort: errors are ignored, the save has already succeeded.
void RemoveStaleTemporaries(const std::filesystem::path& dir, std::string_view prefix) noexcept {
  try {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!name.starts_with(prefix)) continue;
      const std::string_view rest = std::string_view(name).substr(prefix.size());
      long long pid = 0;
      const auto [next, err] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
      if (err != std::errc() || next == rest.data() || next == rest.data() + rest.size() || *next != '.' || pid <= 0 ||
          pid > std::numeric_limits<pid_t>::max() || pid == ::getpid()) {
        continue;
      }
      if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
      ::unlink(it->path().c_str());
    }
  } catch (...) {  // allocation failure while listing: leave the leftovers
  }
}

// Creates `<dir>/<prefix><pid>.XXXXXX` exclusively. The mode 0666 is reduced by the
// process umask as for any new file (mkstemp would force 0600).
int CreateTemporary(const std::filesystem::path& dir, const std::string& prefix, std::string* name_out) {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::uint64_t state = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                        (static_cast<std::uint64_t>(::getpid()) << 32);
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = prefix;
    name.append(std::to_string(::getpid())).append(".");
    for (int i = 0; i < 6; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      name.push_back(kLetters[(state >> 33) % (sizeof(kLetters) - 1)]);
    }
    *name_out = (dir / name).string();
    const int fd = ::open(name_out->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

Status WriteFileAtomically(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  // Through a symlink, the file to replace is the link's target: the temporary goes
  // beside it (same file system, so the rename is atomic) and the link stays a link.
  auto resolved = ResolveSymlinks(path);
  if (!resolved.ok()) return std::move(resolved).error();
  const std::filesystem::path& target = resolved.value();
  struct stat old {};
  const bool exists = ::stat(target.c_str(), &old) == 0;
  if (!exists && errno != ENOENT) return MakeError(ErrorCode::kIoError, "cannot stat: ", ErrnoText());
  if (exists && !S_ISREG(old.st_mode)) {
    Error why = NotRegular(old);
    return MakeError(ErrorCode::kIoError, why.message(), "; refusing to replace it");
  }
  if (exists && old.st_nlink > 1) {
    // A rename would give this name a new inode and leave the other names on the old
    // bytes: the links would silently diverge. Refuse instead.
    return MakeError(ErrorCode::kIoError, "has ", old.st_nlink,
                     " hard links; a save would split them (use a symlink, or copy the file to break the link)");
  }
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  // ".<name>.tmp.<pid>.XXXXXX": the pid lets a later save tell a leftover of a killed
  // save from a concurrent one. Built with append(), not operator+: g++ 12 at -O3
  // reports a false -Wrestrict there.
  std::string prefix(".");
  prefix.append(target.filename().string()).append(".tmp.");
  std::string tmp;
  const int fd = CreateTemporary(dir, prefix, &tmp);
  if (fd < 0) {
    return MakeError(ErrorCode::kIoError, "cannot create a temporary file in ", dir.string(), ": ", ErrnoText());
  }
  auto fail = [&](const char* what) {
    const std::string why = ErrnoText();
    ::close(fd);
    ::unlink(tmp.c_str());
    return MakeError(ErrorCode::kIoError, what, ": ", why);
  };
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return fail("write failed");
    done += static_cast<std::size_t>(put);
  }
  if (exists) {
    // Keep the replaced file's owner, group and mode. Owner first: chown clears the
    // set-id bits. Only root may give a file away; anyone may keep their own file's
    // group if they belong to it. What cannot be kept stays the saver's (documented).
    if ((old.st_uid != ::geteuid() || old.st_gid != ::getegid()) && ::fchown(fd, old.st_uid, old.st_gid) != 0) {
      static_cast<void>(::fchown(fd, static_cast<uid_t>(-1), old.st_gid));  // best effort: the group alone
    }
    if (::fchmod(fd, old.st_mode & 07777) != 0) return fail("chmod failed");
  }
  if (::fsync(fd) != 0) return fail("fsync failed");
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return MakeError(ErrorCode::kIoError, "close failed: ", ErrnoText());
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const std::string why = ErrnoText();
    ::unlink(tmp.c_str());
    return MakeError(ErrorCode::kIoError, "rename failed: ", why);
  }
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {  // make the rename itself durable
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  RemoveStaleTemporaries(dir, prefix);
  return {};
}

// ---------------------------------------------------------------------------------
// Streams.

Result<std::vector<std::byte>> ReadStreamBytes(std::istream& in, std::uint64_t max_memory_bytes) {
  std::vector<std::byte> bytes(kHeaderBytes);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(kHeaderBytes));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  auto header = internal::DecodeHeader(bytes);
  if (!header.ok()) return std::move(header).error();
  if (header->stored_payload_bytes > max_memory_bytes || header->payload_bytes > max_memory_bytes) {
    return MakeError(ErrorCode::kTooLarge, "filter of ", std::max(header->stored_payload_bytes, header->payload_bytes),
                     " bytes is over the memory limit of ", max_memory_bytes);
  }
  // Read in chunks, so a header that announces gigabytes costs memory only as the bytes
  // actually arrive.
  const std::uint64_t total = kHeaderBytes + header->stored_payload_bytes + kChecksumBytes;
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 20;
  while (bytes.size() < total) {
    const std::size_t have = bytes.size();
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, total - have));
    bytes.resize(have + want);
    in.read(reinterpret_cast<char*>(bytes.data() + have), static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got != want) {
      return MakeError(ErrorCode::kTruncated, "truncated: stream ended after ", have + got,
                       " bytes, the header announces ", total);
    }
  }
  return bytes;
}

Status WriteStreamBytes(std::ostream& out, std::span<const std::byte> bytes) {
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  if (!out) return MakeError(ErrorCode::kIoError, "write to stream failed");
  return {};
}

}  // namespace bloomkit
