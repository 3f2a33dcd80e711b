// SPDX-License-Identifier: Apache-2.0
// SCANDUMP / LOADCHUNK chunking (dump.h).
#include "dump.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "bloomkit/format.h"
#include "internal/codec.h"
#include "pending_loads.h"
#include "replies.h"

namespace bloomkit::redis {
namespace {

constexpr std::size_t kBufferAlignment = 16;

// PendingLoadStats(): the module runs commands and loads on one thread, but the
// counters are atomic so that no caller has to know that.
std::atomic<std::uint64_t> g_pending_count{0};
std::atomic<std::uint64_t> g_pending_held{0};
std::atomic<std::uint64_t> g_pending_announced{0};

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
  auto header = PeekHeader(bytes);
  if (!header.ok()) return {};
  return RequireUncompressed(header.value());
}

Result<std::uint64_t> ValidateDumpHeader(std::span<const std::byte> header, FilterKind kind,
                                         std::uint64_t max_filter_bytes) {
  if (header.size() != kDumpHeaderBytes) {
    return DumpError(reply::kChunkBadHeader, "the first chunk must be the " + std::to_string(kDumpHeaderBytes) +
                                                 "-byte header, got " + std::to_string(header.size()) + " bytes");
  }
  auto decoded = PeekHeader(header);
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

ByteBuffer::ByteBuffer(const ByteBuffer& other) {
  if (!Allocate(other.size_)) throw std::bad_alloc();
  if (size_ != 0) std::memcpy(data_, other.data_, size_);
}

ByteBuffer& ByteBuffer::operator=(const ByteBuffer& other) {
  if (this != &other) {
    ByteBuffer copy(other);
    *this = std::move(copy);
  }
  return *this;
}

ByteBuffer::ByteBuffer(ByteBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)),
      allocator_(std::exchange(other.allocator_, nullptr)) {}

ByteBuffer& ByteBuffer::operator=(ByteBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    allocator_ = std::exchange(other.allocator_, nullptr);
  }
  return *this;
}

bool ByteBuffer::Reserve(std::size_t capacity) noexcept {
  if (capacity <= capacity_) return true;
  const Allocator& allocator = GetAllocator();
  auto* fresh = static_cast<std::byte*>(allocator.allocate(capacity, kBufferAlignment));
  if (fresh == nullptr) return false;
  if (size_ != 0) std::memcpy(fresh, data_, size_);
  const std::size_t size = size_;
  Release();
  data_ = fresh;
  size_ = size;
  capacity_ = capacity;
  allocator_ = &allocator;
  return true;
}

void ByteBuffer::Append(std::span<const std::byte> bytes) noexcept {
  if (bytes.empty()) return;
  std::memcpy(data_ + size_, bytes.data(), bytes.size());
  size_ += bytes.size();
}

void ByteBuffer::Release() noexcept {
  if (data_ != nullptr) allocator_->deallocate(data_, capacity_, kBufferAlignment);
  data_ = nullptr;
  size_ = 0;
  capacity_ = 0;
  allocator_ = nullptr;
}

std::uint64_t DumpLengthFromHeader(std::span<const std::byte> header) noexcept {
  if (header.size() != kDumpHeaderBytes) return 0;
  try {
    auto decoded = internal::DecodeHeader(header);
    if (!decoded.ok()) return 0;
    return kHeaderBytes + decoded->stored_payload_bytes + kChecksumBytes;
  } catch (...) {
    return 0;  // the error message of an invalid header could not be allocated
  }
}

Status StreamedLoad::Start(std::uint64_t state, std::uint64_t received, std::span<const std::byte> header,
                           FilterKind kind, std::uint64_t max_filter_bytes) {
  if (state > 1) return DumpError(reply::kChunkInvalid, "unknown value state " + std::to_string(state));
  auto total = ValidateDumpHeader(header, kind, max_filter_bytes);
  if (!total.ok()) return std::move(total).error();
  const std::uint64_t expected = state == 0 ? total.value() : received;
  if (state == 1 && (received < kDumpHeaderBytes || received >= total.value())) {
    return DumpError(reply::kChunkInvalid, "a partial dump of " + std::to_string(received) + " bytes, of " +
                                               std::to_string(total.value()) + " announced");
  }
  dump_ = PendingDump(total.value(), header, expected);
  expected_ = expected;
  return {};
}

Status StreamedLoad::Add(std::span<const std::byte> piece) {
  const std::uint64_t at = dump_.bytes().size();
  if (expected_ == 0) return DumpError(reply::kChunkInvalid, "a piece before the header");
  if (piece.empty() || piece.size() > expected_ - at) {
    return DumpError(reply::kChunkTooLong, "a piece of " + std::to_string(piece.size()) + " bytes at offset " +
                                               std::to_string(at) + " of " + std::to_string(expected_));
  }
  auto appended = dump_.Append(at, piece);
  if (!appended.ok()) return std::move(appended).error();
  return {};
}

PendingLoads PendingLoadStats() noexcept {
  PendingLoads out;
  out.count = g_pending_count.load(std::memory_order_relaxed);
  out.bytes_held = g_pending_held.load(std::memory_order_relaxed);
  out.bytes_announced = g_pending_announced.load(std::memory_order_relaxed);
  return out;
}

PendingDump::PendingDump(std::uint64_t total, std::span<const std::byte> received, std::uint64_t expected)
    : total_(total) {
  if (total_ != 0) {
    g_pending_count.fetch_add(1, std::memory_order_relaxed);
    g_pending_announced.fetch_add(total_, std::memory_order_relaxed);
  }
  try {
    Grow(std::max<std::uint64_t>(received.size(), std::min(expected, total)));
  } catch (...) {
    Uncount();
    throw;
  }
  bytes_.Append(received);
}

PendingDump::~PendingDump() {
  Uncount();
}

PendingDump::PendingDump(const PendingDump& other) : PendingDump(other.total_, other.bytes(), other.bytes().size()) {}

PendingDump::PendingDump(PendingDump&& other) noexcept
    : total_(std::exchange(other.total_, 0)), bytes_(std::move(other.bytes_)) {}

PendingDump& PendingDump::operator=(PendingDump&& other) noexcept {
  if (this != &other) {
    Uncount();
    total_ = std::exchange(other.total_, 0);
    bytes_ = std::move(other.bytes_);
  }
  return *this;
}

void PendingDump::Grow(std::uint64_t capacity) {
  const std::size_t before = bytes_.capacity();
  if (capacity <= before) return;
  if (!bytes_.Reserve(static_cast<std::size_t>(capacity))) throw std::bad_alloc();
  g_pending_held.fetch_add(bytes_.capacity() - before, std::memory_order_relaxed);
}

// A moved-from dump (total 0, no buffer) counts for nothing.
void PendingDump::Uncount() noexcept {
  if (total_ == 0) return;
  g_pending_count.fetch_sub(1, std::memory_order_relaxed);
  g_pending_announced.fetch_sub(total_, std::memory_order_relaxed);
  g_pending_held.fetch_sub(bytes_.capacity(), std::memory_order_relaxed);
  total_ = 0;
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
    Grow(std::min<std::uint64_t>(total_, std::max<std::uint64_t>(needed, 2 * std::uint64_t{bytes_.capacity()})));
  }
  bytes_.Append(data);
  return bytes_.size() == total_;
}

}  // namespace bloomkit::redis
