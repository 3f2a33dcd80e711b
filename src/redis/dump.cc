// SPDX-License-Identifier: Apache-2.0
// SCANDUMP / LOADCHUNK chunking (dump.h).
#include "dump.h"

#include <algorithm>
#include <string>

#include "bloomkit/format.h"
#include "internal/codec.h"
#include "replies.h"

namespace bloomkit::redis {
namespace {

Error DumpError(std::string_view base, const std::string& detail) {
  return Error(ErrorCode::kInvalidArgument, std::string(base) + ": " + detail);
}

}  // namespace

Result<std::optional<DumpChunk>> NextDumpChunk(std::int64_t iterator, std::uint64_t total_bytes,
                                               std::uint64_t chunk_bytes) {
  if (iterator < 0) return DumpError(reply::kChunkOutOfOrder, "negative iterator " + std::to_string(iterator));
  if (total_bytes < kDumpHeaderBytes || chunk_bytes == 0) {
    return DumpError(reply::kChunkInvalid, "dump of " + std::to_string(total_bytes) + " bytes");
  }
  if (iterator == 0) return std::optional<DumpChunk>(DumpChunk{0, kDumpHeaderBytes, 1});
  const auto previous = static_cast<std::uint64_t>(iterator) - 1;
  if (previous >= total_bytes ||
      (previous != 0 && (previous < kDumpHeaderBytes || (previous - kDumpHeaderBytes) % chunk_bytes != 0))) {
    return DumpError(reply::kChunkOutOfOrder,
                     "iterator " + std::to_string(iterator) + " does not start a chunk of this dump");
  }
  const std::uint64_t previous_length = previous == 0 ? kDumpHeaderBytes : chunk_bytes;
  const std::uint64_t next = previous + previous_length;  // no overflow: previous < total
  if (next >= total_bytes) return std::optional<DumpChunk>();
  const std::uint64_t length = std::min(chunk_bytes, total_bytes - next);
  return std::optional<DumpChunk>(DumpChunk{next, length, static_cast<std::int64_t>(next + 1)});
}

Status RequireUncompressed(const FileHeader& header) {
  if ((header.flags & kFlagZstdPayload) != 0) {
    return DumpError(reply::kChunkBadHeader,
                     "the payload is zstd-compressed; bloomkit.so writes and accepts only uncompressed dumps");
  }
  return {};
}

Status RequireUncompressedDump(std::span<const std::byte> bytes) {
  auto header = internal::DecodeHeader(bytes);
  if (!header.ok()) return {};
  return RequireUncompressed(header.value());
}

Result<std::uint64_t> ValidateDumpHeader(std::span<const std::byte> header, FilterKind kind,
                                         std::uint64_t max_filter_bytes) {
  if (header.size() != kDumpHeaderBytes) {
    return DumpError(reply::kChunkBadHeader, "the first chunk must be the " + std::to_string(kDumpHeaderBytes) +
                                                 "-byte header, got " + std::to_string(header.size()) + " bytes");
  }
  auto decoded = internal::DecodeHeader(header);
  if (!decoded.ok()) return DumpError(reply::kChunkBadHeader, decoded.error().message());
  const FileHeader& h = decoded.value();
  if (auto plain = RequireUncompressed(h); !plain.ok()) return plain.error();
  if (h.kind != kind) {
    return DumpError(reply::kChunkBadHeader, "a " + std::string(FilterKindName(h.kind)) + " filter, not a " +
                                                 std::string(FilterKindName(kind)) + " one");
  }
  const std::uint64_t limit = max_filter_bytes + kDumpSlackBytes;
  if (h.stored_payload_bytes > limit || h.payload_bytes > limit) {
    return Error(ErrorCode::kTooLarge, std::string(reply::kTooLarge) + ": the dump announces " +
                                           std::to_string(h.payload_bytes) + " bytes, MAX_FILTER_BYTES is " +
                                           std::to_string(max_filter_bytes));
  }
  return kHeaderBytes + h.stored_payload_bytes + kChecksumBytes;
}

Result<bool> PendingDump::Append(std::uint64_t offset, std::span<const std::byte> data) {
  if (offset != bytes_.size()) {
    return DumpError(reply::kChunkOutOfOrder,
                     "expected iterator " + std::to_string(bytes_.size() + 1) + ", got " + std::to_string(offset + 1));
  }
  if (data.empty() || data.size() > total_ - bytes_.size()) {
    return DumpError(reply::kChunkTooLong, std::to_string(data.size()) + " bytes at offset " + std::to_string(offset) +
                                               " of a " + std::to_string(total_) + "-byte dump");
  }
  const std::uint64_t needed = bytes_.size() + data.size();
  if (needed > bytes_.capacity()) {
    bytes_.reserve(static_cast<std::size_t>(
        std::min<std::uint64_t>(total_, std::max<std::uint64_t>(needed, 2 * bytes_.capacity()))));
  }
  bytes_.insert(bytes_.end(), data.begin(), data.end());
  return bytes_.size() == total_;
}

}  // namespace bloomkit::redis
