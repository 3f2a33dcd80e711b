// SPDX-License-Identifier: Apache-2.0
// Streamed loads (format.h, FilterReader): checks a serialized filter in one pass over
// its stored bytes, then hands its payload to the filter piece by piece.
//
// Memory: besides the filter itself, a load holds one buffer of kReadBufferBytes (the
// checksum pass and the compressed input) and, for a compressed payload that is read
// in several pieces (cuckoo and RedisBloom kinds), zstd's window (2 MiB at level 3,
// 8 MiB at 19, up to 128 MiB at the ultra levels 20-22). A payload read in one piece
// (classic, blocked, counting) is decompressed straight into the filter's array
// (ZSTD_d_stableOutBuffer), with no window of its own.
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_d_stableOutBuffer (a parameter since zstd 1.4.4)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <istream>
#include <limits>
#include <string>
#include <vector>

#include "bloomkit/format.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"
#include "internal/message.h"
#include "internal/unique_fd.h"

namespace bloomkit {

using internal::MakeError;

struct FilterReader::Impl {
  internal::UniqueFd fd;             // a file, read with pread, or
  std::istream* stream = nullptr;    // a stream, read in order, or
  std::span<const std::byte> bytes;  // bytes in memory
  std::uint64_t file_bytes = 0;
  FileHeader header;
  std::vector<std::byte> buffer;    // kReadBufferBytes, for a file or a compressed stream
  std::uint64_t stored_offset = 0;  // next stored payload byte to read
  std::uint64_t payload_left = 0;   // uncompressed payload bytes not yet delivered
  ZSTD_DCtx* zstd = nullptr;        // for a compressed payload
  ZSTD_inBuffer in{nullptr, 0, 0};  // compressed input not yet consumed
  bool frame_ended = false;
  bool first_read = true;
  // A stream is read once, in order: its checksum is computed as the bytes arrive and
  // compared at the end (VerifyStream), not before the payload is read.
  XXH3_state_t stream_hash{};
  std::uint64_t stream_offset = 0;  // bytes taken off the stream
  bool stream_verified = false;
  Status stream_result;  // VerifyStream's answer once it ran

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    fd.reset();
    ZSTD_freeDCtx(zstd);
  }

  // Bytes [offset, offset + out.size()) of the input; a stream's are its next bytes.
  Status ReadAt(std::uint64_t offset, std::span<std::byte> out) {
    if (stream != nullptr) return ReadStream(offset, out, /*hash=*/true);
    if (!fd.valid()) {
      if (!out.empty()) std::memcpy(out.data(), bytes.data() + offset, out.size());
      return {};
    }
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t got = ::pread(fd.get(), out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        return MakeError(ErrorCode::kIoError,
                         "read failed: ", got < 0 ? std::strerror(errno) : "file shrank while reading");
      }
      done += static_cast<std::size_t>(got);
    }
    return {};
  }

  Status ReadStream(std::uint64_t offset, std::span<std::byte> out, bool hash) {
    if (offset != stream_offset) return MakeError(ErrorCode::kIoError, "a stream is read in order");
    stream->read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size()));
    const auto got = static_cast<std::size_t>(stream->gcount());
    if (hash) (void)XXH3_64bits_update(&stream_hash, out.data(), got);
    stream_offset += got;
    if (got != out.size()) {
      return MakeError(ErrorCode::kTruncated, "truncated: stream ended after ", stream_offset,
                       " bytes, the header announces ", kHeaderBytes + header.stored_payload_bytes + kChecksumBytes);
    }
    return {};
  }

  // For a stream: reads what is left of the stored payload (through the buffer) and the
  // checksum, and compares it with the hash of everything read. Its answer is kept: a
  // stream is verified once.
  Status VerifyStream() {
    if (stream == nullptr || stream_verified) return stream_result;
    stream_verified = true;
    const std::uint64_t body = kHeaderBytes + header.stored_payload_bytes;
    if (buffer.empty() && stream_offset < body) buffer.resize(kReadBufferBytes);
    while (stream_offset < body) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), body - stream_offset));
      if (Status st = ReadStream(stream_offset, std::span(buffer.data(), n), true); !st.ok()) {
        return stream_result = std::move(st);
      }
    }
    std::array<std::byte, kChecksumBytes> stored_sum{};
    if (Status st = ReadStream(stream_offset, stored_sum, false); !st.ok()) return stream_result = std::move(st);
    if (internal::LoadLE<std::uint64_t>(stored_sum.data()) != XXH3_64bits_digest(&stream_hash)) {
      stream_result = MakeError(ErrorCode::kChecksumMismatch, "checksum mismatch (stream is corrupt or truncated)");
    }
    return stream_result;
  }

  // Hashes bytes [0, end) of the input; a file is read in pieces of the buffer's size.
  Result<std::uint64_t> Checksum(std::uint64_t end) {
    if (!fd.valid()) return internal::Checksum64(bytes.data(), static_cast<std::size_t>(end));
    XXH3_state_t state;
    (void)XXH3_64bits_reset(&state);
    for (std::uint64_t offset = 0; offset < end;) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), end - offset));
      if (Status st = ReadAt(offset, std::span(buffer.data(), n)); !st.ok()) return std::move(st).error();
      (void)XXH3_64bits_update(&state, buffer.data(), n);
      offset += n;
    }
    return XXH3_64bits_digest(&state);
  }

  // After the header and the size: the checks of a whole-buffer decode, in its order
  // (checksum, count, kind, memory limit, the frame's declared size), before the
  // caller allocates anything of the filter's size.
  Status CheckBody(std::optional<FilterKind> expected_kind, std::uint64_t max_memory_bytes) {
    const FileHeader& h = header;
    const std::uint64_t body = kHeaderBytes + h.stored_payload_bytes;
    if (stream == nullptr) {  // a stream's checksum is compared once it was read (VerifyStream)
      std::array<std::byte, kChecksumBytes> stored_sum{};
      if (Status st = ReadAt(body, stored_sum); !st.ok()) return st;
      auto sum = Checksum(body);
      if (!sum.ok()) return std::move(sum).error();
      if (internal::LoadLE<std::uint64_t>(stored_sum.data()) != sum.value()) {
        return MakeError(ErrorCode::kChecksumMismatch, "checksum mismatch (file is corrupt or truncated)");
      }
    }
    // After the checksum, so that a damaged count field reads as damage, not as a count.
    if (h.count > kMaxFileCount) {
      return MakeError(ErrorCode::kParameterMismatch, "count ", h.count, " is over the largest count a filter keeps, ",
                       kMaxFileCount);
    }
    if (expected_kind && h.kind != *expected_kind) {
      return MakeError(ErrorCode::kWrongKind, "holds a ", FilterKindName(h.kind), " filter, not a ",
                       FilterKindName(*expected_kind), " one");
    }
    if (h.payload_bytes > max_memory_bytes) {
      return MakeError(ErrorCode::kTooLarge, "filter needs ", h.payload_bytes, " bytes, over the memory limit of ",
                       max_memory_bytes);
    }
    stored_offset = kHeaderBytes;
    payload_left = h.payload_bytes;
    if ((h.flags & kFlagZstdPayload) == 0) return {};
    // Any prefix of at least ZSTD_FRAMEHEADERSIZE_MAX bytes gives the whole frame's answer.
    std::array<std::byte, ZSTD_FRAMEHEADERSIZE_MAX> head{};
    const auto head_bytes = static_cast<std::size_t>(std::min<std::uint64_t>(head.size(), h.stored_payload_bytes));
    const std::byte* head_data = head.data();
    if (stream != nullptr) {  // the first piece of compressed input, kept as the decoder's input
      buffer.resize(kReadBufferBytes);
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), h.stored_payload_bytes));
      if (Status st = ReadAt(kHeaderBytes, std::span(buffer.data(), n)); !st.ok()) return st;
      in = {buffer.data(), n, 0};
      stored_offset += n;
      head_data = buffer.data();
    } else if (Status st = ReadAt(kHeaderBytes, std::span(head.data(), head_bytes)); !st.ok()) {
      return st;
    }
    if (ZSTD_getFrameContentSize(head_data, head_bytes) != h.payload_bytes) {
      return MakeError(ErrorCode::kDecompressFailed, "compressed payload does not declare its size of ",
                       h.payload_bytes, " bytes");
    }
    zstd = ZSTD_createDCtx();
    if (zstd == nullptr) return MakeError(ErrorCode::kTooLarge, "out of memory for a zstd context");
    return {};
  }

  Status Corrupt(std::size_t code) const {
    return MakeError(ErrorCode::kDecompressFailed, "compressed payload is corrupt: ",
                     ZSTD_isError(code) != 0 ? ZSTD_getErrorName(code) : "short output");
  }

  Status ReadPayload(std::span<std::byte> out) {
    if (out.size() > payload_left) {
      return MakeError(ErrorCode::kParameterMismatch, "payload of ", header.payload_bytes,
                       " bytes ends before the filter's arrays");
    }
    const bool whole = first_read && out.size() == payload_left;
    first_read = false;
    payload_left -= out.size();
    if (zstd == nullptr) {
      Status st = ReadAt(stored_offset, out);
      stored_offset += out.size();
      return st;
    }
    if (whole) {  // one array holds the whole payload: decompress into it, with no window
      const std::size_t set = ZSTD_DCtx_setParameter(zstd, ZSTD_d_stableOutBuffer, 1);
      if (ZSTD_isError(set) != 0) return Corrupt(set);
    }
    ZSTD_outBuffer dst{out.data(), out.size(), 0};
    const std::uint64_t stored_end = kHeaderBytes + header.stored_payload_bytes;
    while (dst.pos < dst.size) {
      if (frame_ended) return Corrupt(0);
      if (in.pos == in.size) {
        if (stored_offset == stored_end) return Corrupt(0);
        const bool in_memory = !fd.valid() && stream == nullptr;
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(
            in_memory ? stored_end - stored_offset : buffer.size(), stored_end - stored_offset));
        if (in_memory) {
          in = {bytes.data() + stored_offset, n, 0};
        } else {
          if (Status st = ReadAt(stored_offset, std::span(buffer.data(), n)); !st.ok()) return st;
          in = {buffer.data(), n, 0};
        }
        stored_offset += n;
      }
      const std::size_t got = ZSTD_decompressStream(zstd, &dst, &in);
      if (ZSTD_isError(got) != 0) return Corrupt(got);
      frame_ended = got == 0;
    }
    return {};
  }

  // For a stream, the checksum first: damage reads as damage, not as a short payload.
  Status Finish() {
    if (Status st = VerifyStream(); !st.ok()) return st;
    if (payload_left != 0) {
      return MakeError(ErrorCode::kParameterMismatch, "payload of ", header.payload_bytes, " bytes has ", payload_left,
                       " bytes after the filter's arrays");
    }
    if (zstd != nullptr &&
        (!frame_ended || in.pos != in.size || stored_offset != kHeaderBytes + header.stored_payload_bytes)) {
      return MakeError(ErrorCode::kDecompressFailed, "compressed payload is corrupt: ",
                       frame_ended ? "data after the frame" : "the frame does not end with the payload");
    }
    return {};
  }
};

FilterReader::FilterReader(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
FilterReader::FilterReader(FilterReader&&) noexcept = default;
FilterReader& FilterReader::operator=(FilterReader&&) noexcept = default;
FilterReader::~FilterReader() = default;

const FileHeader& FilterReader::header() const noexcept {
  return impl_->header;
}

std::uint64_t FilterReader::file_bytes() const noexcept {
  return impl_->file_bytes;
}

Status FilterReader::Read(std::span<std::byte> out) {
  return impl_->ReadPayload(out);
}

Status FilterReader::Finish() const {
  return impl_->Finish();
}

Status FilterReader::VerifyRest() const {
  return impl_->VerifyStream();
}

namespace internal {

Status OrWordsFromSource(const ByteSource& source, std::span<std::uint64_t> words, std::uint64_t num_bits) {
  std::vector<std::uint64_t> piece(std::min(kReadBufferBytes / sizeof(std::uint64_t), words.size()));
  for (std::size_t done = 0; done < words.size();) {
    const std::size_t n = std::min(piece.size(), words.size() - done);
    const std::span<std::uint64_t> theirs(piece.data(), n);
    if (Status st = ReadWordsLE(source, theirs); !st.ok()) return st;
    if (done + n == words.size() && num_bits % 64 != 0 && (theirs.back() >> (num_bits % 64)) != 0) {
      return MakeError(ErrorCode::kParameterMismatch, "bits past num_bits are set");
    }
    for (std::size_t i = 0; i < n; ++i) words[done + i] |= theirs[i];
    done += n;
  }
  return {};
}

Status OrWordsFrom(FilterReader& reader, std::span<std::uint64_t> words, std::uint64_t num_bits) {
  if (reader.header().payload_bytes != words.size_bytes()) {
    return MakeError(ErrorCode::kParameterMismatch, "payload of ", reader.header().payload_bytes,
                     " bytes does not match the ", words.size_bytes(), " bytes of the filter's bits");
  }
  if (Status st = OrWordsFromSource(reader.payload(), words, num_bits); !st.ok()) return st;
  return reader.Finish();
}

}  // namespace internal

Result<FilterReader> FilterReader::OpenBytes(std::span<const std::byte> bytes, std::optional<FilterKind> expected_kind,
                                             std::uint64_t max_memory_bytes) {
  auto impl = std::make_unique<Impl>();
  impl->bytes = bytes;
  impl->file_bytes = bytes.size();
  auto header = internal::DecodeHeader(bytes);
  if (!header.ok()) return std::move(header).error();
  impl->header = header.value();
  const std::uint64_t total = kHeaderBytes + header->stored_payload_bytes + kChecksumBytes;
  if (bytes.size() < total) {
    return MakeError(ErrorCode::kTruncated, "truncated: ", bytes.size(), " bytes, the header announces ", total);
  }
  if (bytes.size() > total) {
    return MakeError(ErrorCode::kParameterMismatch, bytes.size() - total, " unexpected bytes after the checksum");
  }
  if (Status st = impl->CheckBody(expected_kind, max_memory_bytes); !st.ok()) return std::move(st).error();
  return FilterReader(std::move(impl));
}

Result<FilterReader> FilterReader::OpenStream(std::istream& in, std::optional<FilterKind> expected_kind,
                                              std::uint64_t max_memory_bytes) {
  auto impl = std::make_unique<Impl>();
  std::array<std::byte, kHeaderBytes> head{};
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  const auto got = static_cast<std::size_t>(in.gcount());
  auto header = internal::DecodeHeader(std::span<const std::byte>(head.data(), got));
  if (!header.ok()) return std::move(header).error();
  impl->stream = &in;
  impl->header = header.value();
  impl->file_bytes = kHeaderBytes + header->stored_payload_bytes + kChecksumBytes;
  impl->stream_offset = kHeaderBytes;
  (void)XXH3_64bits_reset(&impl->stream_hash);
  (void)XXH3_64bits_update(&impl->stream_hash, head.data(), head.size());
  if (Status st = impl->CheckBody(expected_kind, max_memory_bytes); !st.ok()) {
    // Over the limit: refused before anything more is read. Any other refusal may be
    // damage, which the checksum tells.
    if (st.error().code() != ErrorCode::kTooLarge) {
      if (Status sum = impl->VerifyStream(); !sum.ok()) return std::move(sum).error();
    }
    return std::move(st).error();
  }
  return FilterReader(std::move(impl));
}

Result<FilterReader> FilterReader::OpenFile(const std::filesystem::path& path, std::optional<FilterKind> expected_kind,
                                            std::uint64_t max_memory_bytes) {
  auto impl = std::make_unique<Impl>();
  auto opened = internal::OpenForReading(path, max_memory_bytes);
  if (!opened.ok()) return std::move(opened).error();
  impl->fd = std::move(opened->fd);
  impl->file_bytes = opened->file_bytes;
  impl->header = opened->header;
  impl->buffer.resize(kReadBufferBytes);
  if (Status st = impl->CheckBody(expected_kind, max_memory_bytes); !st.ok()) return std::move(st).error();
  return FilterReader(std::move(impl));
}

}  // namespace bloomkit
