// SPDX-License-Identifier: Apache-2.0
// Read-only views of filter files (mapped_filter.h): open, the truncation guard, and
// the streaming checksum of VerifyFile.
#include "bloomkit/mapped_filter.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"
#include "internal/message.h"
#include "internal/unique_fd.h"

namespace bloomkit {
namespace {

using internal::MakeError;

// ---------------------------------------------------------------------------------
// The truncation guard.
//
// A page of a MAP_SHARED file mapping that lies past the file's end (another program
// truncated the file) raises SIGBUS on access. The handler looks the faulting address
// up among the live views; if it is in one, it marks that view and maps anonymous zero
// pages over all of it (MAP_FIXED replaces the file mapping in one step), then returns,
// so the faulting load is retried and reads 0. The view's queries check the mark after
// probing and answer true, which a Bloom filter may always do. A fault anywhere else is
// handed to the handler installed before ours, or, if that was the default, re-raised
// with the default action.
//
// The table is fixed and lock-free for the handler: a slot is claimed under a mutex by
// Open, published by storing `end` then `begin` (begin != 0 means live), and retired by
// clearing `begin` before the range is unmapped.
struct GuardSlot {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<bool> hit{false};
  bool claimed = false;  // under g_guard_mutex
};

GuardSlot g_slots[MappedFilter::kMaxGuardedViews];
std::mutex g_guard_mutex;
struct sigaction g_previous_sigbus {};
bool g_guard_installed = false;  // under g_guard_mutex

void OnSigbus(int signal_number, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (GuardSlot& slot : g_slots) {
    const std::uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    if (begin == 0 || address < begin) continue;
    const std::uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (address >= end) continue;
    slot.hit.store(true, std::memory_order_seq_cst);
    void* zeros = ::mmap(reinterpret_cast<void*>(begin),  // NOLINT(performance-no-int-to-ptr): the view's own address
                         end - begin, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    if (zeros != MAP_FAILED) return;  // the faulting load is retried and reads 0
    break;
  }
  if ((g_previous_sigbus.sa_flags & SA_SIGINFO) != 0 && g_previous_sigbus.sa_sigaction != nullptr) {
    g_previous_sigbus.sa_sigaction(signal_number, info, context);
    return;
  }
  if ((g_previous_sigbus.sa_flags & SA_SIGINFO) == 0 && g_previous_sigbus.sa_handler != SIG_DFL &&
      g_previous_sigbus.sa_handler != SIG_IGN) {
    g_previous_sigbus.sa_handler(signal_number);
    return;
  }
  // The default action: restore it and return; the access faults again and the
  // process ends as it would have without us.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  ::sigaction(SIGBUS, &fallback, nullptr);
}

// Claims a slot for [begin, begin + bytes) and installs the handler once; -1 when every
// slot is taken.
int ClaimGuardSlot(const void* begin, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(g_guard_mutex);
  if (!g_guard_installed) {
    struct sigaction action {};
    action.sa_sigaction = &OnSigbus;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (::sigaction(SIGBUS, &action, &g_previous_sigbus) != 0) return -1;
    g_guard_installed = true;
  }
  for (std::size_t i = 0; i < MappedFilter::kMaxGuardedViews; ++i) {
    GuardSlot& slot = g_slots[i];
    if (slot.claimed) continue;
    slot.claimed = true;
    slot.hit.store(false, std::memory_order_relaxed);
    const auto start = reinterpret_cast<std::uintptr_t>(begin);
    slot.end.store(start + bytes, std::memory_order_release);
    slot.begin.store(start, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void ReleaseGuardSlot(int index) {
  if (index < 0) return;
  GuardSlot& slot = g_slots[index];
  slot.begin.store(0, std::memory_order_release);
  std::lock_guard<std::mutex> lock(g_guard_mutex);
  slot.end.store(0, std::memory_order_relaxed);
  slot.claimed = false;
}

// ---------------------------------------------------------------------------------
// Files.

std::string ErrnoText(int err = errno) {
  return std::strerror(err);
}

// Opens a regular file for reading without blocking on a FIFO or taking a terminal,
// and returns its size.
Result<std::uint64_t> OpenRegular(const std::filesystem::path& path, internal::UniqueFd* file) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return MakeError(ErrorCode::kIoError, "not a regular file");
  }
  file->reset(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!file->valid()) return MakeError(ErrorCode::kIoError, "cannot open: ", ErrnoText());
  if (::fstat(file->get(), &st) != 0) return MakeError(ErrorCode::kIoError, "cannot stat: ", ErrnoText());
  if (!S_ISREG(st.st_mode)) return MakeError(ErrorCode::kIoError, "not a regular file");
  return static_cast<std::uint64_t>(st.st_size);
}

// Reads up to `bytes` at the current offset; fewer only at the end of the file.
Result<std::size_t> ReadUpTo(int fd, std::byte* out, std::size_t bytes) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t got = ::read(fd, out + done, bytes - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return MakeError(ErrorCode::kIoError, "read failed: ", ErrnoText());
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

// The header of a file of `file_bytes` whose first bytes are `head`, checked against
// the file's size (the messages of file_io.cc's header-first reads).
Result<FileHeader> HeaderForSize(std::span<const std::byte> head, std::uint64_t file_bytes) {
  auto header = PeekHeader(head);
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

}  // namespace

struct MappedFilter::State {
  State(void* base_in, std::size_t bytes_in, int slot_in, const FileHeader& header_in, internal::UniqueFd file_in)
      : base(base_in), bytes(bytes_in), slot(slot_in), header(header_in), file(std::move(file_in)) {}
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  State(State&&) = delete;
  State& operator=(State&&) = delete;
  ~State() {
    filter.reset();
    ReleaseGuardSlot(slot);  // before the range can be reused by another mapping
    ::munmap(base, bytes);
  }
  void* base;
  std::size_t bytes;
  int slot;
  FileHeader header;
  internal::UniqueFd file;  // kept open to tell a truncation from a read fault (FaultStatus)
  std::optional<Variant> filter;
};

MappedFilter::MappedFilter(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
MappedFilter::MappedFilter(MappedFilter&&) noexcept = default;
MappedFilter& MappedFilter::operator=(MappedFilter&&) noexcept = default;
MappedFilter::~MappedFilter() = default;

const FileHeader& MappedFilter::header() const noexcept {
  return state_->header;
}
std::uint64_t MappedFilter::file_bytes() const noexcept {
  return state_->bytes;
}
const MappedFilter::Variant& MappedFilter::filter() const noexcept {
  return *state_->filter;
}

bool MappedFilter::truncated() const noexcept {
  return state_->slot >= 0 && g_slots[state_->slot].hit.load(std::memory_order_seq_cst);
}

Status MappedFilter::FaultStatus() const {
  if (!truncated()) return {};
  // SIGBUS says only that a page could not be read. Past the end of the file it was a
  // truncation; within it, the file system failed the read (a page of a hole that
  // tmpfs cannot back once full: ENOSPC; a disk's I/O error).
  struct stat st {};
  if (::fstat(state_->file.get(), &st) != 0) return MakeError(ErrorCode::kIoError, "cannot stat: ", ErrnoText());
  const auto now = static_cast<std::uint64_t>(st.st_size);
  if (now < state_->bytes) {
    return MakeError(ErrorCode::kTruncated, "the file shrank while it was mapped (from ", state_->bytes, " to ", now,
                     " bytes)");
  }
  return MakeError(ErrorCode::kIoError, "a page of the file could not be read through the mapping, though the file ",
                   "kept its ", state_->bytes,
                   " bytes (a hole of a sparse file on a full file system such as tmpfs, or an I/O error)");
}

namespace {

// `op(filter)` for the view's kind, without std::visit's exception path.
template <typename Variant, typename Op>
auto WithFilter(const Variant& filter, Op&& op) noexcept {
  if (const auto* classic = std::get_if<BloomFilter>(&filter)) return op(*classic);
  return op(*std::get_if<BlockedBloomFilter>(&filter));
}

}  // namespace

// Each query reads the mark after its probes: a probe that read one of the handler's
// zero pages did so after the mark was stored, so it is seen here and the answer is
// the always-safe "may be present".
bool MappedFilter::MayContain(std::string_view key) const noexcept {
  const bool found = WithFilter(filter(), [key](const auto& f) { return f.MayContain(key); });
  return found || truncated();
}

bool MappedFilter::MayContainHash(std::uint64_t hash) const noexcept {
  const bool found = WithFilter(filter(), [hash](const auto& f) { return f.MayContainHash(hash); });
  return found || truncated();
}

std::size_t MappedFilter::MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept {
  const std::size_t hits = WithFilter(filter(), [&](const auto& f) { return f.MayContainBatch(keys, out); });
  if (!truncated()) return hits;
  std::fill_n(out.begin(), keys.size(), true);
  return keys.size();
}

std::size_t MappedFilter::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                              std::span<bool> out) const noexcept {
  const std::size_t hits = WithFilter(filter(), [&](const auto& f) { return f.MayContainHashBatch(hashes, out); });
  if (!truncated()) return hits;
  std::fill_n(out.begin(), hashes.size(), true);
  return hashes.size();
}

Result<MappedFilter> MappedFilter::Open(const std::filesystem::path& path, const MapOptions& options) {
  if constexpr (std::endian::native != std::endian::little) {
    return MakeError(ErrorCode::kUnsupported, "memory-mapped filters need a little-endian host (the file's words are ",
                     "little-endian); load the file instead");
  }
  internal::UniqueFd file;
  auto size = OpenRegular(path, &file);
  if (!size.ok()) return std::move(size).error();
  const std::uint64_t file_bytes = size.value();
  std::byte head[kHeaderBytes];
  auto got = ReadUpTo(file.get(), head, kHeaderBytes);
  if (!got.ok()) return std::move(got).error();
  auto header = HeaderForSize(std::span<const std::byte>(head, got.value()), file_bytes);
  if (!header.ok()) return std::move(header).error();
  const FileHeader& h = header.value();
  // As a load: a count past 2^63 - 1 is damage (adds after a load could wrap it).
  constexpr std::uint64_t kMaxCount = (std::uint64_t{1} << 63) - 1;
  if (h.count > kMaxCount) {
    return MakeError(ErrorCode::kParameterMismatch, "count ", h.count, " is over the largest count a filter keeps, ",
                     kMaxCount);
  }
  if ((h.flags & kFlagZstdPayload) != 0) {
    return MakeError(ErrorCode::kUnsupported, "the payload is zstd-compressed and cannot be mapped (",
                     "`bloomkit decompress` it, or load it)");
  }
  if (h.kind != FilterKind::kClassic && h.kind != FilterKind::kBlocked) {
    return MakeError(ErrorCode::kUnsupported, "a ", FilterKindName(h.kind),
                     " filter has no mapped form (classic and blocked filters do); load it instead");
  }
  if (file_bytes > std::numeric_limits<std::size_t>::max()) {
    return MakeError(ErrorCode::kTooLarge, "file of ", file_bytes, " bytes is larger than the address space");
  }
  const auto bytes = static_cast<std::size_t>(file_bytes);
  void* base = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, file.get(), 0);
  if (base == MAP_FAILED) return MakeError(ErrorCode::kIoError, "cannot map ", bytes, " bytes: ", ErrnoText());
  // A query touches a few scattered pages: no read-ahead around them.
  ::madvise(base, bytes, options.verify_checksum ? MADV_SEQUENTIAL : MADV_RANDOM);
  int slot = -1;
  if (options.guard_truncation) {
    slot = ClaimGuardSlot(base, bytes);
    if (slot < 0) {
      ::munmap(base, bytes);
      return MakeError(ErrorCode::kUnsupported, "more than ", kMaxGuardedViews,
                       " mapped filters are open in this process (close one, or open without guard_truncation)");
    }
  }
  auto state = std::make_unique<State>(base, bytes, slot, h, std::move(file));
  MappedFilter view(std::move(state));
  const auto* data = static_cast<const std::byte*>(base);
  if (options.verify_checksum) {
    const std::size_t body = bytes - kChecksumBytes;
    if (internal::LoadLE<std::uint64_t>(data + body) != internal::Checksum64(data, body)) {
      return MakeError(ErrorCode::kChecksumMismatch, "checksum mismatch (file is corrupt or truncated)");
    }
    ::madvise(base, bytes, MADV_RANDOM);
  }
  const std::span<const std::byte> payload(data + kHeaderBytes, static_cast<std::size_t>(h.payload_bytes));
  if (h.kind == FilterKind::kClassic) {
    auto bits = internal::ClassicBits::FromPayload(h, payload, /*source=*/nullptr);
    if (!bits.ok()) return std::move(bits).error();
    view.state_->filter.emplace(std::in_place_type<BloomFilter>, std::move(bits).value(), h.count, h.capacity,
                                h.fp_rate);
  } else {
    auto filter = BlockedBloomFilter::FromPayload(h, payload, /*source=*/nullptr);
    if (!filter.ok()) return std::move(filter).error();
    view.state_->filter.emplace(std::in_place_type<BlockedBloomFilter>, std::move(filter).value());
  }
  if (Status intact = view.FaultStatus(); !intact.ok()) return std::move(intact).error();
  return view;
}

Result<FileHeader> VerifyFile(const std::filesystem::path& path) {
  internal::UniqueFd file;
  auto size = OpenRegular(path, &file);
  if (!size.ok()) return std::move(size).error();
  ::posix_fadvise(file.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  std::byte head[kHeaderBytes];
  auto got = ReadUpTo(file.get(), head, kHeaderBytes);
  if (!got.ok()) return std::move(got).error();
  auto header = HeaderForSize(std::span<const std::byte>(head, got.value()), size.value());
  if (!header.ok()) return header;
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, head, kHeaderBytes);
  constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
  std::vector<std::byte> buffer(kBufferBytes);
  std::uint64_t left = header->stored_payload_bytes;
  while (left > 0) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(left, kBufferBytes));
    auto read = ReadUpTo(file.get(), buffer.data(), want);
    if (!read.ok()) return std::move(read).error();
    if (read.value() != want) return MakeError(ErrorCode::kTruncated, "truncated: the file shrank while being read");
    XXH3_64bits_update(&state, buffer.data(), want);
    left -= want;
  }
  std::byte sum[kChecksumBytes];
  auto read = ReadUpTo(file.get(), sum, kChecksumBytes);
  if (!read.ok()) return std::move(read).error();
  if (read.value() != kChecksumBytes) {
    return MakeError(ErrorCode::kTruncated, "truncated: the file shrank while being read");
  }
  if (internal::LoadLE<std::uint64_t>(sum) != XXH3_64bits_digest(&state)) {
    return MakeError(ErrorCode::kChecksumMismatch, "checksum mismatch (file is corrupt or truncated)");
  }
  return header;
}

}  // namespace bloomkit
