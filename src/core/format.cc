// SPDX-License-Identifier: Apache-2.0
// File format v1: the byte codec (header, checksum, compression). File I/O (atomic
// replace, locking, header-first reads) is in file_io.cc.
//
// Header, 128 bytes, little-endian (docs/FORMAT.md has the same table):
//   off size field
//     0    8 magic 89 42 4c 4b 0d 0a 1a 0a  ("\x89BLK\r\n\x1a\n": catches text-mode
//                                             transfers and truncation, as PNG's does)
//     8    4 format_version (1)
//    12    4 header_bytes (128)
//    16    2 kind (FilterKind)
//    18    2 hash_id (1 = XXH3-128 + enhanced double hashing; 2 = RedisBloom's murmur, kinds 6, 7;
//              3 = XXH3-64, blocked filters of 256-bit blocks only; 4 = short-key hash,
//              blocked filters of 256-bit blocks, classic and windowed filters)
//              blocked filters of 256-bit blocks and classic filters; 5 = bits-and-blooms'
//              murmur, kind 8; 6 = Guava's murmur strategies, kind 9; 7 = Parquet's
//              XXH64 split block filter, kind 10)
//    20    4 flags (bit 0: payload is one zstd frame; other bits zero)
//    24    8 hash_seed (kHashSeed; 0 with hash_id 2, 5, 6 and 7)
//    32    8 capacity
//    40    8 count
//    48    8 stored_payload_bytes
//    56    8 payload_bytes (uncompressed)
//    64    8 fp_rate (IEEE-754 binary64)
//    72   48 params[6] (per kind)
//   120    8 reserved (zero)
//   128      payload, then 8 bytes XXH3-64 of bytes [0, 128 + stored_payload_bytes)
#include "bloomkit/format.h"

#include <zstd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "bloomkit/foreign_bloom.h"
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
  return kind >= 1 && kind <= 11;
}

// Kinds 9, 10 and 11 (foreign_bloom.h) hash as their library does, with its own seed (0):
// the hash id is the kind's own, the seed field 0.
std::uint16_t ForeignHashId(FilterKind kind) {
  if (kind == FilterKind::kBitsAndBlooms) return kHashIdBitsAndBlooms;
  if (kind == FilterKind::kGuava) return kHashIdGuava;
  if (kind == FilterKind::kParquet) return kHashIdParquet;
  return 0;
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

}  // namespace

void EncodeHeader(const FileHeader& header, std::byte* out) noexcept {
  WriteHeader(header, out);
}

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
  if (!KnownKind(kind)) return MakeError(ErrorCode::kUnknownKind, "unknown filter kind ", kind, " (valid: 1..11)");
  h.kind = static_cast<FilterKind>(kind);
  h.hash_id = LoadLE<std::uint16_t>(p + kOffHashId);
  h.hash_seed = LoadLE<std::uint64_t>(p + kOffSeed);
  // Hash id 3 (XXH3-64) is defined only for blocked filters, which check it against
  // their block layout; id 4 (short-key hash) for blocked and classic filters.
  const bool known_hash =
      h.hash_id == kHashIdXxh3DoubleHashing ||
      ((h.hash_id == kHashIdXxh3x64 || h.hash_id == kHashIdShort64) && h.kind == FilterKind::kBlocked) ||
      (h.hash_id == kHashIdShort64 && (h.kind == FilterKind::kClassic || h.kind == FilterKind::kWindowed));
  if (const std::uint16_t foreign = ForeignHashId(h.kind); foreign != 0) {
    if (h.hash_id != foreign || h.hash_seed != 0) {
      return MakeError(ErrorCode::kUnknownHash, "unknown hash for a ", FilterKindName(h.kind), " filter: id ",
                       h.hash_id, " seed 0x", std::hex, h.hash_seed, " (expected id ", std::dec, foreign, ", seed 0)");
    }
  } else if (IsRedisBloomKind(h.kind)) {
    if (h.hash_id != kHashIdRedisBloomMurmur || h.hash_seed != 0) {
      return MakeError(ErrorCode::kUnknownHash, "unknown hash for a ", FilterKindName(h.kind), " filter: id ",
                       h.hash_id, " seed 0x", std::hex, h.hash_seed, " (expected id 2, seed 0)");
    }
  } else if (!known_hash || h.hash_seed != kHashSeed) {
    return MakeError(ErrorCode::kUnknownHash, "unknown hash: id ", h.hash_id, " seed 0x", std::hex, h.hash_seed,
                     " for a ", FilterKindName(h.kind),
                     " filter (this build implements id 1, ids 3 and 4 for blocked and id 4 for classic and windowed",
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

namespace {

// The fields every writer sets the same way: version, hash id and seed, no flags.
void StampHeader(FileHeader& header) noexcept {
  header.format_version = kFormatVersion;
  // A blocked filter of 256-bit blocks sets hash id 4 or 3, a classic filter 4 or 1, a
  // windowed filter 4;
  // every other filter gets its kind's id.
  if (const std::uint16_t foreign = ForeignHashId(header.kind); foreign != 0) {
    header.hash_id = foreign;
  } else if (IsRedisBloomKind(header.kind)) {
    header.hash_id = kHashIdRedisBloomMurmur;
  } else if (!((header.hash_id == kHashIdXxh3x64 && header.kind == FilterKind::kBlocked) ||
               (header.hash_id == kHashIdShort64 &&
                (header.kind == FilterKind::kBlocked || header.kind == FilterKind::kClassic ||
                 header.kind == FilterKind::kWindowed)))) {
    header.hash_id = kHashIdXxh3DoubleHashing;
  }
  header.hash_seed = IsRedisBloomKind(header.kind) || ForeignHashId(header.kind) != 0 ? 0 : kHashSeed;
  header.flags = 0;
}

}  // namespace

bool FileStream::Begin(FileHeader header) noexcept {
  StampHeader(header);
  header.stored_payload_bytes = header.payload_bytes;
  std::array<std::byte, kHeaderBytes> bytes;
  WriteHeader(header, bytes.data());
  (void)XXH3_64bits_reset(&state_);
  return Put(bytes);
}

bool FileStream::Put(std::span<const std::byte> bytes) noexcept {
  if (!open_) return false;
  if (bytes.empty()) return true;
  if (sink_.wants_checksum()) (void)XXH3_64bits_update(&state_, bytes.data(), bytes.size());
  open_ = sink_(bytes);
  return open_;
}

bool FileStream::PutWords(std::span<const std::uint64_t> words) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    return Put(std::as_bytes(words));
  } else {
    std::array<std::byte, 4096> buffer;
    constexpr std::size_t kWordsPerPiece = buffer.size() / 8;
    for (std::size_t i = 0; i < words.size(); i += kWordsPerPiece) {
      const auto piece = words.subspan(i, std::min(kWordsPerPiece, words.size() - i));
      StoreWordsLE(buffer.data(), piece);
      if (!Put(std::span<const std::byte>(buffer.data(), piece.size_bytes()))) return false;
    }
    return open_;
  }
}

bool FileStream::PutZeros(std::uint64_t count) noexcept {
  static constexpr std::array<std::byte, 64> kZeros{};
  while (count != 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(count, kZeros.size()));
    if (!Put(std::span<const std::byte>(kZeros.data(), n))) return false;
    count -= n;
  }
  return open_;
}

bool FileStream::Finish() noexcept {
  if (!open_) return false;
  if (!sink_.wants_checksum()) {  // the sink stops before the checksum: it has none to get
    open_ = false;
    return false;
  }
  std::array<std::byte, kChecksumBytes> sum;
  StoreLE<std::uint64_t>(sum.data(), XXH3_64bits_digest(&state_));
  open_ = sink_(sum);
  return open_;
}

std::vector<std::byte> EncodeFile(FileHeader header, const std::function<void(std::span<std::byte>)>& write_payload,
                                  const SaveOptions& options) {
  StampHeader(header);
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

std::vector<std::byte> CollectFile(const std::function<bool(ByteSink)>& serialize_to, const SaveOptions& options) {
  // The header first (the first piece), for the size to reserve: the pieces are then
  // appended without reallocating, which a noexcept sink must not do.
  std::array<std::byte, kHeaderBytes> head{};
  std::size_t have = 0;
  auto take = [&](std::span<const std::byte> piece) noexcept {
    const std::size_t n = std::min(piece.size(), head.size() - have);
    std::memcpy(head.data() + have, piece.data(), n);
    have += n;
    return have < head.size();
  };
  (void)serialize_to(ByteSink(take));
  auto header = DecodeHeader(head);
  if (!header.ok()) return {};  // a filter's own header always decodes
  std::vector<std::byte> file;
  file.reserve(static_cast<std::size_t>(kHeaderBytes + header->payload_bytes + kChecksumBytes));
  auto append = [&file](std::span<const std::byte> piece) noexcept {
    if (piece.size() > file.capacity() - file.size()) return false;
    file.insert(file.end(), piece.begin(), piece.end());
    return true;
  };
  if (!serialize_to(ByteSink(append))) return {};
  if (!options.compress) return file;
  return EncodeFile(
      header.value(),
      [&file](std::span<std::byte> out) {
        if (!out.empty()) std::memcpy(out.data(), file.data() + kHeaderBytes, out.size());
      },
      options);
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
  // After the checksum, so that a damaged count field reads as damage, not as a count.
  if (h.count > kMaxFileCount) {
    return MakeError(ErrorCode::kParameterMismatch, "count ", h.count, " is over the largest count a filter keeps, ",
                     kMaxFileCount);
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
  // Large arrays are fresh anonymous pages (allocator.h): a frame that claims more than
  // it holds costs only the pages it writes before decompression stops with an error.
  file.decompressed = WordArray::Allocate((h.payload_bytes + 7) / 8);
  if (!file.decompressed.ok()) {
    return MakeError(ErrorCode::kTooLarge, "out of memory allocating ", h.payload_bytes, " bytes");
  }
  auto* out = reinterpret_cast<std::byte*>(file.decompressed.data());
  const std::size_t got = ZSTD_decompress(out, static_cast<std::size_t>(h.payload_bytes), stored.data(), stored.size());
  if (ZSTD_isError(got) != 0 || got != h.payload_bytes) {
    return MakeError(ErrorCode::kDecompressFailed, "compressed payload is corrupt: ",
                     ZSTD_isError(got) != 0 ? ZSTD_getErrorName(got) : "short output");
  }
  file.payload = std::span<const std::byte>(out, static_cast<std::size_t>(h.payload_bytes));
  return file;
}

}  // namespace internal

Result<FileHeader> PeekHeader(std::span<const std::byte> bytes) {
  return internal::DecodeHeader(bytes);
}

Result<FileHeader> InspectBytes(std::span<const std::byte> bytes, std::uint64_t max_memory_bytes) {
  auto header = internal::DecodeHeader(bytes);
  if (!header.ok()) return header;
  auto file = internal::DecodeFile(bytes, header->kind, max_memory_bytes);
  if (!file.ok()) return std::move(file).error();
  return file->header;
}

}  // namespace bloomkit
