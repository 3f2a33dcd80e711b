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
#include <zstd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <istream>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"
#include "internal/message.h"
#include "internal/temp_file.h"

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
  internal::UniqueFd fd;
  struct stat st {};
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
  file->fd.reset(OpenNoBlock(path));
  if (!file->fd.valid()) return MakeError(ErrorCode::kIoError, "cannot open: ", ErrnoText());
  if (::fstat(file->fd.get(), &file->st) != 0) return MakeError(ErrorCode::kIoError, "cannot stat: ", ErrnoText());
  if (!S_ISREG(file->st.st_mode)) return NotRegular(file->st);
  return {};
}

}  // namespace

Result<FileHeader> ReadFileHeader(const std::filesystem::path& path) {
  OpenedFile file;
  if (Status st = OpenRegular(path, &file); !st.ok()) return std::move(st).error();
  std::array<std::byte, kHeaderBytes> head{};
  return ReadHeaderOf(file.fd.get(), static_cast<std::uint64_t>(file.st.st_size), head.data());
}

namespace internal {

Result<ReadableFile> OpenForReading(const std::filesystem::path& path, std::uint64_t max_memory_bytes) {
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
  auto header = ReadHeaderOf(file.fd.get(), file_bytes, head.data());
  if (!header.ok()) return std::move(header).error();
  if (header->payload_bytes > max_memory_bytes) {
    return MakeError(ErrorCode::kTooLarge, "filter needs ", header->payload_bytes, " bytes, over the memory limit of ",
                     max_memory_bytes);
  }
  return ReadableFile{std::move(file.fd), file_bytes, header.value()};
}

}  // namespace internal

Result<std::vector<std::byte>> ReadFileBytes(const std::filesystem::path& path, std::uint64_t max_memory_bytes) {
  auto file = internal::OpenForReading(path, max_memory_bytes);
  if (!file.ok()) return std::move(file).error();
  const int fd = file->fd.get();
  std::vector<std::byte> bytes(static_cast<std::size_t>(file->file_bytes));
  if (::lseek(fd, 0, SEEK_SET) != 0) return MakeError(ErrorCode::kIoError, "cannot seek: ", ErrnoText());
  if (Status st = ReadExactly(fd, bytes.data(), bytes.size()); !st.ok()) return std::move(st).error();
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
    internal::UniqueFd fd(OpenNoBlock(real));
    const bool missing = !fd.valid() && errno == ENOENT;
    if (!fd.valid() && !(missing && options.missing_ok)) {
      return MakeError(ErrorCode::kIoError, "cannot open: ", ErrnoText());
    }
    if (missing) {
      // Nothing to lock yet: writers that would create the file lock its directory
      // instead, so that two of them do not both create it (the second would replace
      // the first's keys). Once the file exists, writers lock the file.
      fd.reset(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (!fd.valid()) {
        return MakeError(ErrorCode::kIoError, "cannot open the directory ", dir.string(), ": ", ErrnoText());
      }
    }
    struct stat locked {};
    if (::fstat(fd.get(), &locked) != 0 || !(missing ? S_ISDIR(locked.st_mode) : S_ISREG(locked.st_mode))) {
      return missing || !S_ISREG(locked.st_mode) ? NotRegular(locked)
                                                 : MakeError(ErrorCode::kIoError, "cannot stat: ", ErrnoText());
    }
    while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) return MakeError(ErrorCode::kIoError, "cannot lock: ", ErrnoText());
      if (Clock::now() >= deadline) {
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
      return FileLock(fd.release(), real);
    }
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

// Creates `<dir>/<prefix><pid>.XXXXXX` exclusively, for reading and writing (a compressed
// save reads its output back for the checksum). The mode 0666 is reduced by the
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
    const int fd = ::open(name_out->c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

namespace {

// Writes all of `bytes` at the descriptor's position.
Status WriteAll(int fd, std::span<const std::byte> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return MakeError(ErrorCode::kIoError, "write failed: ", ErrnoText());
    done += static_cast<std::size_t>(put);
  }
  return {};
}

// Writes what `serialize_to` streams (a raw file) to `fd`, piece by piece.
Status WriteRaw(int fd, const std::function<bool(ByteSink)>& serialize_to) {
  Status status;
  auto put = [&](std::span<const std::byte> piece) noexcept {
    status = WriteAll(fd, piece);
    return status.ok();
  };
  if (!serialize_to(ByteSink(put)) && status.ok()) {
    return MakeError(ErrorCode::kIoError, "the filter did not serialize");
  }
  return status;
}

// The compressed file of the raw one `serialize_to` streams: a placeholder header,
// the payload through a zstd stream in pieces of ZSTD_CStreamOutSize(), then the final
// header and the checksum of header + stored payload, read back in kReadBufferBytes
// pieces. `*shrank` is false (and the file must be rewritten raw) when the payload
// does not get smaller, as EncodeFile decides.
Status WriteCompressed(int fd, const std::function<bool(ByteSink)>& serialize_to, int level, bool* shrank) {
  *shrank = false;
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  if (cctx == nullptr) return MakeError(ErrorCode::kTooLarge, "out of memory for a zstd context");
  const std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> free_cctx(cctx, &ZSTD_freeCCtx);
  std::vector<std::byte> out(ZSTD_CStreamOutSize());
  std::array<std::byte, kHeaderBytes> head{};
  std::size_t head_have = 0;
  FileHeader header;
  std::uint64_t payload_left = 0;
  std::uint64_t stored = 0;
  Status status;
  auto drain = [&](ZSTD_inBuffer* in, ZSTD_EndDirective mode) {
    while (true) {
      ZSTD_outBuffer dst{out.data(), out.size(), 0};
      const std::size_t left = ZSTD_compressStream2(cctx, &dst, in, mode);
      if (ZSTD_isError(left) != 0) return false;  // stored raw, as EncodeFile does
      status = WriteAll(fd, std::span(out.data(), dst.pos));
      if (!status.ok()) return false;
      stored += dst.pos;
      const bool done = mode == ZSTD_e_end ? left == 0 : in->pos == in->size;
      if (done) return true;
    }
  };
  auto put = [&](std::span<const std::byte> piece) noexcept {
    if (head_have < head.size()) {  // the raw header: the first piece
      const std::size_t n = std::min(piece.size(), head.size() - head_have);
      std::memcpy(head.data() + head_have, piece.data(), n);
      head_have += n;
      piece = piece.subspan(n);
      if (head_have < head.size()) return true;
      auto decoded = internal::DecodeHeader(head);
      if (!decoded.ok()) return false;
      header = decoded.value();
      payload_left = header.payload_bytes;
      if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)) != 0 ||
          ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(cctx, payload_left)) != 0) {
        return false;
      }
      const std::array<std::byte, kHeaderBytes> placeholder{};
      status = WriteAll(fd, placeholder);
      if (!status.ok()) return false;
    }
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), payload_left));
    if (n == 0) return true;  // the raw checksum: not part of the compressed file
    ZSTD_inBuffer in{piece.data(), n, 0};
    payload_left -= n;
    return drain(&in, ZSTD_e_continue);
  };
  if (!serialize_to(ByteSink(put)) || !status.ok()) return status;
  ZSTD_inBuffer none{nullptr, 0, 0};
  if (!drain(&none, ZSTD_e_end)) return status;
  if (stored >= header.payload_bytes) return {};  // incompressible: stored raw
  header.flags |= kFlagZstdPayload;
  header.stored_payload_bytes = stored;
  internal::EncodeHeader(header, head.data());
  if (::pwrite(fd, head.data(), head.size(), 0) != static_cast<ssize_t>(head.size())) {
    return MakeError(ErrorCode::kIoError, "write failed: ", ErrnoText());
  }
  XXH3_state_t state;
  (void)XXH3_64bits_reset(&state);
  std::vector<std::byte> buffer(
      static_cast<std::size_t>(std::min<std::uint64_t>(kReadBufferBytes, kHeaderBytes + stored)));
  for (std::uint64_t offset = 0; offset < kHeaderBytes + stored;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), kHeaderBytes + stored - offset));
    const ssize_t got = ::pread(fd, buffer.data(), n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return MakeError(ErrorCode::kIoError, "read back failed: ", got < 0 ? ErrnoText() : "short file");
    (void)XXH3_64bits_update(&state, buffer.data(), static_cast<std::size_t>(got));
    offset += static_cast<std::uint64_t>(got);
  }
  std::array<std::byte, kChecksumBytes> sum{};
  internal::StoreLE<std::uint64_t>(sum.data(), XXH3_64bits_digest(&state));
  if (Status st = WriteAll(fd, sum); !st.ok()) return st;
  *shrank = true;
  return {};
}

}  // namespace

// The atomic replace of WriteFileAtomically, with the bytes written by `write` into the
// temporary's descriptor (positioned at 0); it returns errno's text on failure.
// `before_commit` (SaveOptions::before_commit) runs between the sync and the rename.
Status WriteAtomically(const std::filesystem::path& path, const std::function<Status(int fd)>& write,
                       const std::function<Status(std::uint64_t)>& before_commit) {
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
  internal::UniqueFd fd(CreateTemporary(dir, prefix, &tmp));
  if (!fd.valid()) {
    return MakeError(ErrorCode::kIoError, "cannot create a temporary file in ", dir.string(), ": ", ErrnoText());
  }
  auto fail = [&](const char* what) {
    const std::string why = ErrnoText();
    fd.reset();  // closed before the unlink
    ::unlink(tmp.c_str());
    return MakeError(ErrorCode::kIoError, what, ": ", why);
  };
  if (Status written = write(fd.get()); !written.ok()) {
    fd.reset();
    ::unlink(tmp.c_str());
    return written;
  }
  if (exists) {
    // Keep the replaced file's owner, group and mode. Owner first: chown clears the
    // set-id bits. Only root may give a file away; anyone may keep their own file's
    // group if they belong to it. What cannot be kept stays the saver's (documented).
    if ((old.st_uid != ::geteuid() || old.st_gid != ::getegid()) && ::fchown(fd.get(), old.st_uid, old.st_gid) != 0) {
      static_cast<void>(::fchown(fd.get(), static_cast<uid_t>(-1), old.st_gid));  // best effort: the group alone
    }
    if (::fchmod(fd.get(), old.st_mode & 07777) != 0) return fail("chmod failed");
  }
  if (::fsync(fd.get()) != 0) return fail("fsync failed");
  struct stat written {};
  if (before_commit && ::fstat(fd.get(), &written) != 0) return fail("cannot stat");
  if (::close(fd.release()) != 0) {  // a failed close is reported: it may be a lost write
    ::unlink(tmp.c_str());
    return MakeError(ErrorCode::kIoError, "close failed: ", ErrnoText());
  }
  if (before_commit) {
    if (Status ready = before_commit(static_cast<std::uint64_t>(written.st_size)); !ready.ok()) {
      ::unlink(tmp.c_str());
      return ready;
    }
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const std::string why = ErrnoText();
    ::unlink(tmp.c_str());
    return MakeError(ErrorCode::kIoError, "rename failed: ", why);
  }
  if (const internal::UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); dir_fd.valid()) {
    ::fsync(dir_fd.get());  // make the rename itself durable
  }
  RemoveStaleTemporaries(dir, prefix);
  return {};
}

Status WriteFileAtomically(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  return WriteFileAtomically(path, bytes, nullptr);
}

Status WriteFileAtomically(const std::filesystem::path& path, std::span<const std::byte> bytes,
                           const std::function<Status(std::uint64_t)>& before_commit) {
  const auto write = [bytes](int fd) { return WriteAll(fd, bytes); };
  return WriteAtomically(path, write, before_commit);
}

Status SaveStreamed(const std::filesystem::path& path, const std::function<bool(ByteSink)>& serialize_to,
                    const SaveOptions& options) {
  const auto write = [&](int fd) -> Status {
    if (options.compress) {
      bool shrank = false;
      if (Status st = WriteCompressed(fd, serialize_to, options.compression_level, &shrank); !st.ok()) return st;
      if (shrank) return {};
      // Incompressible: the raw file instead, which loads faster and can be mapped.
      if (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0) {
        return MakeError(ErrorCode::kIoError, "truncate failed: ", ErrnoText());
      }
    }
    return WriteRaw(fd, serialize_to);
  };
  return WriteAtomically(path, write, options.before_commit);
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

namespace internal {

Result<UniqueFd> OpenUnlinkedTempFile(const TempFileOptions& options) {
  std::filesystem::path dir = options.dir;
  if (dir.empty()) {
    std::error_code ec;
    dir = std::filesystem::temp_directory_path(ec);
    if (ec) {
      // temp_directory_path takes the first of these variables that is set, else /tmp;
      // its error does not say which directory it refused.
      std::string where = "/tmp";
      for (const char* name : {"TMPDIR", "TMP", "TEMP", "TEMPDIR"}) {
        if (const char* value = std::getenv(name); value != nullptr) {
          where = std::string(name).append("=").append(value);
          break;
        }
      }
      return MakeError(ErrorCode::kIoError, "no temporary directory for a compressed stream (", where,
                       "): ", ec.message());
    }
  }
  std::string tried;
  if (options.try_o_tmpfile) {
    const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return UniqueFd(fd);
    const int err = errno;
    tried.append("O_TMPFILE: ").append(ErrnoText(err));
    // Refused by the file system (EOPNOTSUPP) or the kernel (EISDIR before Linux 3.11,
    // EINVAL): a named file instead. Any other error (no such directory, no permission,
    // no space) would stop mkostemp the same way.
    if (err != EOPNOTSUPP && err != EISDIR && err != EINVAL) {
      return MakeError(ErrorCode::kIoError, "cannot create a temporary file in ", dir.string(), ": ", tried);
    }
    tried.append("; ");
  }
  std::string name = (dir / kStreamTempPrefix).string();
  name.append("XXXXXX");
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    tried.append("mkostemp: ").append(ErrnoText());
    return MakeError(ErrorCode::kIoError, "cannot create a temporary file in ", dir.string(), ": ", tried);
  }
  UniqueFd file(fd);
  if (::unlink(name.c_str()) != 0) {
    const std::string why = ErrnoText();
    return MakeError(ErrorCode::kIoError, "cannot unlink the temporary file ", name, ": ", why);
  }
  return file;
}

Status WriteStreamed(std::ostream& out, const std::function<bool(ByteSink)>& serialize_to, const SaveOptions& options,
                     const TempFileOptions& temp) {
  auto fail = [] { return MakeError(ErrorCode::kIoError, "write to stream failed"); };
  if (!out) return fail();
  auto raw = [&]() -> Status {
    auto put = [&out](std::span<const std::byte> piece) noexcept {
      out.write(reinterpret_cast<const char*>(piece.data()), static_cast<std::streamsize>(piece.size()));
      return static_cast<bool>(out);
    };
    const bool done = serialize_to(ByteSink(put));
    out.flush();
    if (!out) return fail();
    if (!done) return MakeError(ErrorCode::kIoError, "the filter did not serialize");
    return {};
  };
  if (!options.compress) return raw();

  auto file = OpenUnlinkedTempFile(temp);
  if (!file.ok()) return std::move(file).error();
  const int fd = file->get();
  bool shrank = false;
  if (Status st = WriteCompressed(fd, serialize_to, options.compression_level, &shrank); !st.ok()) return st;
  if (!shrank) return raw();  // incompressible: the raw file, as SaveStreamed writes
  std::vector<std::byte> buffer(kReadBufferBytes);
  for (off_t at = 0;;) {
    const ssize_t got = ::pread(fd, buffer.data(), buffer.size(), at);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return MakeError(ErrorCode::kIoError, "read of the temporary file failed: ", ErrnoText());
    if (got == 0) break;
    out.write(reinterpret_cast<const char*>(buffer.data()), static_cast<std::streamsize>(got));
    if (!out) return fail();
    at += got;
  }
  out.flush();
  if (!out) return fail();
  return {};
}

}  // namespace internal

Status WriteStreamed(std::ostream& out, const std::function<bool(ByteSink)>& serialize_to, const SaveOptions& options) {
  return internal::WriteStreamed(out, serialize_to, options, internal::TempFileOptions{});
}

}  // namespace bloomkit
