// File format v1: header codec, checksum, compression and atomic file I/O.
//
// Header, 128 bytes, little-endian (docs/FORMAT.md has the same table):
//   off size field
//     0    8 magic 89 42 4c 4b 0d 0a 1a 0a  ("\x89BLK\r\n\x1a\n": catches text-mode
//                                             transfers and truncation, as PNG's does)
//     8    4 format_version (1)
//    12    4 header_bytes (128)
//    16    2 kind (FilterKind)
//    18    2 hash_id (1 = XXH3-128 + enhanced double hashing; 2 = RedisBloom's murmur, kinds 6, 7;
//              3 = XXH3-64, blocked filters of 256-bit blocks only)
//    20    4 flags (bit 0: payload is one zstd frame; other bits zero)
//    24    8 hash_seed (kHashSeed; 0 with hash_id 2)
//    32    8 capacity
//    40    8 count
//    48    8 stored_payload_bytes
//    56    8 payload_bytes (uncompressed)
//    64    8 fp_rate (IEEE-754 binary64)
//    72   48 params[6] (per kind)
//   120    8 reserved (zero)
//   128      payload, then 8 bytes XXH3-64 of bytes [0, 128 + stored_payload_bytes)
#include "bloomkit/format.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <istream>
#include <limits>
#include <ostream>
#include <string>

#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"
#include "internal/message.h"

namespace bloomkit {
namespace internal {
namespace {

constexpr std::size_t kOffVersion = 8;
constexpr std::size_t kOffHeaderBytes = 12;
constexpr std::size_t kOffKind = 16;
constexpr std::size_t kOffHashId = 18;
constexpr std::size_t kOffFlags = 20;
constexpr std::size_t kOffSeed = 24;
constexpr std::size_t kOffCapacity = 32;
constexpr std::size_t kOffCount = 40;
constexpr std::size_t kOffStored = 48;
constexpr std::size_t kOffPayload = 56;
constexpr std::size_t kOffFpRate = 64;
constexpr std::size_t kOffParams = 72;
constexpr std::size_t kOffReserved = 120;
constexpr std::uint32_t kKnownFlags = kFlagZstdPayload;

bool KnownKind(std::uint16_t kind) {
  return kind >= 1 && kind <= 7;
}

bool IsRedisBloomKind(FilterKind kind) {
  return kind == FilterKind::kRedisBloomScalable || kind == FilterKind::kRedisBloomCuckoo;
}

void WriteHeader(const FileHeader& h, std::byte* out) {
  std::memset(out, 0, kHeaderBytes);
  for (std::size_t i = 0; i < kFileMagic.size(); ++i) out[i] = static_cast<std::byte>(kFileMagic[i]);
  StoreLE<std::uint32_t>(out + kOffVersion, h.format_version);
  StoreLE<std::uint32_t>(out + kOffHeaderBytes, static_cast<std::uint32_t>(kHeaderBytes));
  StoreLE<std::uint16_t>(out + kOffKind, static_cast<std::uint16_t>(h.kind));
  StoreLE<std::uint16_t>(out + kOffHashId, h.hash_id);
  StoreLE<std::uint32_t>(out + kOffFlags, h.flags);
  StoreLE<std::uint64_t>(out + kOffSeed, h.hash_seed);
  StoreLE<std::uint64_t>(out + kOffCapacity, h.capacity);
  StoreLE<std::uint64_t>(out + kOffCount, h.count);
  StoreLE<std::uint64_t>(out + kOffStored, h.stored_payload_bytes);
  StoreLE<std::uint64_t>(out + kOffPayload, h.payload_bytes);
  StoreLE<std::uint64_t>(out + kOffFpRate, std::bit_cast<std::uint64_t>(h.fp_rate));
  for (std::size_t i = 0; i < kNumHeaderParams; ++i) StoreLE<std::uint64_t>(out + kOffParams + 8 * i, h.params[i]);
}

std::string ErrnoText() {
  return std::strerror(errno);
}

}  // namespace

Result<FileHeader> DecodeHeader(std::span<const std::byte> bytes) {
  const std::size_t magic_checked = std::min(bytes.size(), kFileMagic.size());
  for (std::size_t i = 0; i < magic_checked; ++i) {
    if (bytes[i] != static_cast<std::byte>(kFileMagic[i])) {
      return MakeError(ErrorCode::kBadMagic, "not a bloomkit filter (bad magic bytes)");
    }
  }
  if (bytes.size() < kHeaderBytes) {
    return MakeError(ErrorCode::kTruncated, "truncated: ", bytes.size(), " bytes, the header alone needs ",
                     kHeaderBytes);
  }
  const std::byte* p = bytes.data();
  FileHeader h;
  h.format_version = LoadLE<std::uint32_t>(p + kOffVersion);
  if (h.format_version != kFormatVersion) {
    return MakeError(ErrorCode::kUnsupportedVersion, "unsupported format version ", h.format_version,
                     " (this build reads version ", kFormatVersion, ")");
  }
  const auto header_bytes = LoadLE<std::uint32_t>(p + kOffHeaderBytes);
  if (header_bytes != kHeaderBytes) {
    return MakeError(ErrorCode::kParameterMismatch, "header length ", header_bytes, " is not ", kHeaderBytes);
  }
  const auto kind = LoadLE<std::uint16_t>(p + kOffKind);
  if (!KnownKind(kind)) return MakeError(ErrorCode::kUnknownKind, "unknown filter kind ", kind, " (valid: 1..7)");
  h.kind = static_cast<FilterKind>(kind);
  h.hash_id = LoadLE<std::uint16_t>(p + kOffHashId);
  h.hash_seed = LoadLE<std::uint64_t>(p + kOffSeed);
  // Hash id 3 (XXH3-64) is defined only for blocked filters, which check it against
  // their block layout.
  const bool known_hash =
      h.hash_id == kHashIdXxh3DoubleHashing || (h.hash_id == kHashIdXxh3x64 && h.kind == FilterKind::kBlocked);
  if (IsRedisBloomKind(h.kind)) {
    if (h.hash_id != kHashIdRedisBloomMurmur || h.hash_seed != 0) {
      return MakeError(ErrorCode::kUnknownHash, "unknown hash for a ", FilterKindName(h.kind), " filter: id ",
                       h.hash_id, " seed 0x", std::hex, h.hash_seed, " (expected id 2, seed 0)");
    }
  } else if (!known_hash || h.hash_seed != kHashSeed) {
    return MakeError(ErrorCode::kUnknownHash, "unknown hash: id ", h.hash_id, " seed 0x", std::hex, h.hash_seed,
                     " for a ", FilterKindName(h.kind), " filter (this build implements id 1, and id 3 for blocked",
                     " filters, seed 0x", kHashSeed, ")");
  }
  h.flags = LoadLE<std::uint32_t>(p + kOffFlags);
  if ((h.flags & ~kKnownFlags) != 0) {
    return MakeError(ErrorCode::kReservedNonZero, "unknown flag bits 0x", std::hex, h.flags & ~kKnownFlags);
  }
  if (LoadLE<std::uint64_t>(p + kOffReserved) != 0) {
    return MakeError(ErrorCode::kReservedNonZero, "reserved header field is not zero");
  }
  h.capacity = LoadLE<std::uint64_t>(p + kOffCapacity);
  h.count = LoadLE<std::uint64_t>(p + kOffCount);
  h.stored_payload_bytes = LoadLE<std::uint64_t>(p + kOffStored);
  h.payload_bytes = LoadLE<std::uint64_t>(p + kOffPayload);
  h.fp_rate = std::bit_cast<double>(LoadLE<std::uint64_t>(p + kOffFpRate));
  for (std::size_t i = 0; i < kNumHeaderParams; ++i) h.params[i] = LoadLE<std::uint64_t>(p + kOffParams + 8 * i);
  if (!std::isfinite(h.fp_rate) || h.fp_rate < 0 || h.fp_rate >= 1) {
    return MakeError(ErrorCode::kParameterMismatch, "fp_rate ", h.fp_rate, " is not in [0, 1)");
  }
  if ((h.flags & kFlagZstdPayload) == 0 && h.stored_payload_bytes != h.payload_bytes) {
    return MakeError(ErrorCode::kParameterMismatch, "stored payload of ", h.stored_payload_bytes,
                     " bytes differs from the uncompressed length ", h.payload_bytes);
  }
  if (h.stored_payload_bytes > std::numeric_limits<std::uint64_t>::max() - kHeaderBytes - kChecksumBytes) {
    return MakeError(ErrorCode::kParameterMismatch, "payload length ", h.stored_payload_bytes, " overflows");
  }
  return h;
}

std::vector<std::byte> EncodeFile(FileHeader header, const std::function<void(std::span<std::byte>)>& write_payload,
                                  const SaveOptions& options) {
  header.format_version = kFormatVersion;
  // A blocked filter of 256-bit blocks sets hash id 3; every other filter gets its kind's id.
  if (IsRedisBloomKind(header.kind)) {
    header.hash_id = kHashIdRedisBloomMurmur;
  } else if (header.hash_id != kHashIdXxh3x64) {
    header.hash_id = kHashIdXxh3DoubleHashing;
  }
  header.hash_seed = IsRedisBloomKind(header.kind) ? 0 : kHashSeed;
  header.flags = 0;
  const auto raw_bytes = static_cast<std::size_t>(header.payload_bytes);
  std::vector<std::byte> out;
  if (options.compress) {
    std::vector<std::byte> raw(raw_bytes);
    write_payload(raw);
    std::vector<std::byte> packed(ZSTD_compressBound(raw_bytes));
    const std::size_t packed_bytes =
        ZSTD_compress(packed.data(), packed.size(), raw.data(), raw.size(), options.compression_level);
    if (ZSTD_isError(packed_bytes) == 0 && packed_bytes < raw_bytes) {
      header.flags |= kFlagZstdPayload;
      header.stored_payload_bytes = packed_bytes;
      out.resize(kHeaderBytes + packed_bytes + kChecksumBytes);
      std::memcpy(out.data() + kHeaderBytes, packed.data(), packed_bytes);
    } else {  // incompressible: store it raw, which loads faster and can be mapped
      header.stored_payload_bytes = raw_bytes;
      out.resize(kHeaderBytes + raw_bytes + kChecksumBytes);
      if (raw_bytes != 0) std::memcpy(out.data() + kHeaderBytes, raw.data(), raw_bytes);
    }
  } else {
    header.stored_payload_bytes = raw_bytes;
    out.resize(kHeaderBytes + raw_bytes + kChecksumBytes);
    write_payload(std::span<std::byte>(out.data() + kHeaderBytes, raw_bytes));
  }
  WriteHeader(header, out.data());
  const std::size_t body = out.size() - kChecksumBytes;
  StoreLE<std::uint64_t>(out.data() + body, Checksum64(out.data(), body));
  return out;
}

Result<DecodedFile> DecodeFile(std::span<const std::byte> bytes, FilterKind expected_kind,
                               std::uint64_t max_memory_bytes) {
  auto header = DecodeHeader(bytes);
  if (!header.ok()) return std::move(header).error();
  DecodedFile file{header.value(), {}, {}};
  const FileHeader& h = file.header;
  const std::uint64_t total = kHeaderBytes + h.stored_payload_bytes + kChecksumBytes;
  if (bytes.size() < total) {
    return MakeError(ErrorCode::kTruncated, "truncated: ", bytes.size(), " bytes, the header announces ", total);
  }
  if (bytes.size() > total) {
    return MakeError(ErrorCode::kParameterMismatch, bytes.size() - total, " unexpected bytes after the checksum");
  }
  const std::size_t body = static_cast<std::size_t>(total) - kChecksumBytes;
  const auto stored_sum = LoadLE<std::uint64_t>(bytes.data() + body);
  if (stored_sum != Checksum64(bytes.data(), body)) {
    return MakeError(ErrorCode::kChecksumMismatch, "checksum mismatch (file is corrupt or truncated)");
  }
  if (h.kind != expected_kind) {
    return MakeError(ErrorCode::kWrongKind, "holds a ", FilterKindName(h.kind), " filter, not a ",
                     FilterKindName(expected_kind), " one");
  }
  if (h.payload_bytes > max_memory_bytes) {
    return MakeError(ErrorCode::kTooLarge, "filter needs ", h.payload_bytes, " bytes, over the memory limit of ",
                     max_memory_bytes);
  }
  const auto stored = bytes.subspan(kHeaderBytes, static_cast<std::size_t>(h.stored_payload_bytes));
  if ((h.flags & kFlagZstdPayload) == 0) {
    file.payload = stored;
    return file;
  }
  const unsigned long long frame_size = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (frame_size != h.payload_bytes) {
    return MakeError(ErrorCode::kDecompressFailed, "compressed payload does not declare its size of ", h.payload_bytes,
                     " bytes");
  }
  file.decompressed.resize(static_cast<std::size_t>(h.payload_bytes));
  const std::size_t got =
      ZSTD_decompress(file.decompressed.data(), file.decompressed.size(), stored.data(), stored.size());
  if (ZSTD_isError(got) != 0 || got != h.payload_bytes) {
    return MakeError(ErrorCode::kDecompressFailed, "compressed payload is corrupt: ",
                     ZSTD_isError(got) != 0 ? ZSTD_getErrorName(got) : "short output");
  }
  file.payload = file.decompressed;
  return file;
}

}  // namespace internal

Result<FileHeader> InspectBytes(std::span<const std::byte> bytes) {
  auto header = internal::DecodeHeader(bytes);
  if (!header.ok()) return header;
  auto file = internal::DecodeFile(bytes, header->kind, std::numeric_limits<std::uint64_t>::max());
  if (!file.ok()) return std::move(file).error();
  return file->header;
}

Result<std::vector<std::byte>> ReadFileBytes(const std::filesystem::path& path, std::uint64_t max_memory_bytes) {
  using internal::MakeError;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return MakeError(ErrorCode::kIoError, "cannot open: ", internal::ErrnoText());
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return MakeError(ErrorCode::kIoError, "not a regular file");
  }
  const auto file_bytes = static_cast<std::uint64_t>(st.st_size);
  const std::uint64_t limit = max_memory_bytes > std::numeric_limits<std::uint64_t>::max() - 4096
                                  ? std::numeric_limits<std::uint64_t>::max()
                                  : max_memory_bytes + kHeaderBytes + kChecksumBytes;
  if (file_bytes > limit) {
    ::close(fd);
    return MakeError(ErrorCode::kTooLarge, "file of ", file_bytes, " bytes is over the memory limit of ",
                     max_memory_bytes);
  }
  std::vector<std::byte> bytes(static_cast<std::size_t>(file_bytes));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      const std::string why = got < 0 ? internal::ErrnoText() : "file shrank while reading";
      ::close(fd);
      return MakeError(ErrorCode::kIoError, "read failed: ", why);
    }
    done += static_cast<std::size_t>(got);
  }
  ::close(fd);
  return bytes;
}

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

}  // namespace

Status WriteFileAtomically(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  using internal::MakeError;
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  // ".<name>.tmp.<pid>.XXXXXX": the pid lets a later save tell a leftover of a killed
  // save from a concurrent one. Built with append(), not operator+: g++ 12 at -O3
  // reports a false -Wrestrict there.
  std::string prefix(".");
  prefix.append(path.filename().string()).append(".tmp.");
  std::string name = prefix;
  name.append(std::to_string(::getpid())).append(".XXXXXX");
  std::string tmpl = (dir / name).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0)
    return MakeError(ErrorCode::kIoError, "cannot create a temporary file in ", dir.string(), ": ",
                     internal::ErrnoText());
  auto fail = [&](const char* what) {
    const std::string why = internal::ErrnoText();
    ::close(fd);
    ::unlink(tmpl.c_str());
    return MakeError(ErrorCode::kIoError, what, ": ", why);
  };
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return fail("write failed");
    done += static_cast<std::size_t>(put);
  }
  if (::fchmod(fd, 0644) != 0) return fail("chmod failed");
  if (::fsync(fd) != 0) return fail("fsync failed");
  if (::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    return MakeError(ErrorCode::kIoError, "close failed: ", internal::ErrnoText());
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string why = internal::ErrnoText();
    ::unlink(tmpl.c_str());
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

Result<std::vector<std::byte>> ReadStreamBytes(std::istream& in, std::uint64_t max_memory_bytes) {
  using internal::MakeError;
  std::vector<std::byte> bytes(kHeaderBytes);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(kHeaderBytes));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  auto header = internal::DecodeHeader(bytes);
  if (!header.ok()) return std::move(header).error();
  if (header->stored_payload_bytes > max_memory_bytes) {
    return MakeError(ErrorCode::kTooLarge, "filter of ", header->stored_payload_bytes,
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
  if (!out) return internal::MakeError(ErrorCode::kIoError, "write to stream failed");
  return {};
}

}  // namespace bloomkit
