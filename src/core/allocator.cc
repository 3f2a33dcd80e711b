// SPDX-License-Identifier: Apache-2.0
// The default allocator and WordArray, the one owner of filter memory.
#include "bloomkit/allocator.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "bloomkit/word_array.h"

namespace bloomkit {
namespace {

// Arrays of 8 MiB or more ask for transparent huge pages: a 10^8-key filter spans
// ~60,000 4-KiB pages, and a TLB miss on top of the cache miss costs a second walk.
constexpr std::size_t kHugePageThreshold = std::size_t{8} << 20;
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
// Memory is zeroed lazily: a fresh block is the kernel's zero pages, each zeroed when it
// is first touched, so creating a filter costs no time for its size and commits only
// the pages its keys reach (a memset of a 5 GB filter took 19.8 s and committed all of
// it at once). Blocks of 8 MiB or more are mapped by MapZeroed. Smaller ones come from
// calloc, which hands out fresh memory (its own mapping, or the heap grown at the top)
// without writing it and clears only a block it reuses, whose pages are committed
// already. So a filter made and dropped again and again reuses its pages: when every
// block of 1 MiB or more was a mapping of its own, each new filter faulted all of its
// pages in again while keys went in, and unmapped them when dropped (5% of the time of
// inserting 10^6 keys into fresh classic, counting and cuckoo filters went to the
// kernel, 2% before; docs/BENCHMARKS.md).
constexpr std::size_t kMapThreshold = kHugePageThreshold;
constexpr std::size_t kPageBytes = 4096;

// The length mapped for a block of `bytes`: whole pages, plus room to align huge ones.
std::size_t MappedBytes(std::size_t bytes) noexcept {
  const std::size_t pages = (bytes + kPageBytes - 1) & ~(kPageBytes - 1);
  return bytes >= kHugePageThreshold ? pages + kHugePageBytes : pages;
}

void* MapZeroed(std::size_t bytes) noexcept {
  const std::size_t length = MappedBytes(bytes);
  if (length < bytes) return nullptr;  // overflow
  void* raw = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  if (bytes < kHugePageThreshold) return raw;
  // Keep a huge-page-aligned run of whole pages; the offset of the run is stored in the
  // page before it would cost a page, so the unused head and tail are unmapped instead
  // and Unmap recomputes the run from the pointer alone.
  // Alignment arithmetic on the address of a block this allocator owns, once per
  // allocation: the optimizations the check protects do not apply here.
  // NOLINTBEGIN(performance-no-int-to-ptr)
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + kHugePageBytes - 1) & ~(std::uintptr_t{kHugePageBytes} - 1);
  const std::size_t head = aligned - base;
  const std::size_t run = length - kHugePageBytes;
  if (head != 0) ::munmap(raw, head);
  if (kHugePageBytes - head != 0) ::munmap(reinterpret_cast<void*>(aligned + run), kHugePageBytes - head);
  void* p = reinterpret_cast<void*>(aligned);
  // NOLINTEND(performance-no-int-to-ptr)
#ifdef MADV_HUGEPAGE
  ::madvise(p, run, MADV_HUGEPAGE);
#endif
  return p;
}

// The pages a mapped block keeps (MapZeroed unmaps the huge-page alignment slack).
std::size_t KeptBytes(std::size_t bytes) noexcept {
  return bytes >= kHugePageThreshold ? MappedBytes(bytes) - kHugePageBytes : MappedBytes(bytes);
}

void Unmap(void* p, std::size_t bytes) noexcept {
  ::munmap(p, KeptBytes(bytes));
}

bool Mapped(std::size_t bytes, std::size_t alignment) noexcept {
  return bytes >= kMapThreshold && alignment <= kPageBytes;
}

// Alignment arithmetic on addresses of blocks this allocator owns, once per allocation:
// the optimizations performance-no-int-to-ptr protects do not apply here.
// NOLINTBEGIN(performance-no-int-to-ptr)
// A calloc block of `alignment` + 8 bytes more than asked: the aligned block inside it,
// with its offset from calloc's pointer in the 8 bytes before it.
void* CallocAligned(std::size_t bytes, std::size_t alignment) noexcept {
  std::size_t total = 0;
  if (__builtin_add_overflow(bytes, alignment + 8, &total)) return nullptr;
  void* raw = std::calloc(1, total);
  if (raw == nullptr) return nullptr;
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + 8 + alignment - 1) & ~(std::uintptr_t{alignment} - 1);
  const std::uint64_t offset = aligned - base;
  std::memcpy(reinterpret_cast<void*>(aligned - 8), &offset, sizeof(offset));
  return reinterpret_cast<void*>(aligned);
}

// The pointer calloc returned for a block of CallocAligned.
void* CallocBlock(const void* p) noexcept {
  const auto aligned = reinterpret_cast<std::uintptr_t>(p);
  std::uint64_t offset = 0;
  std::memcpy(&offset, reinterpret_cast<const void*>(aligned - 8), sizeof(offset));
  return reinterpret_cast<void*>(aligned - offset);
}
// NOLINTEND(performance-no-int-to-ptr)

void* DefaultAllocate(std::size_t bytes, std::size_t alignment) noexcept {
  return Mapped(bytes, alignment) ? MapZeroed(bytes) : CallocAligned(bytes, alignment);
}

void DefaultDeallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
  if (p == nullptr) return;
  if (Mapped(bytes, alignment)) {
    Unmap(p, bytes);
  } else {
    std::free(CallocBlock(p));
  }
}

// Mapped blocks hold whole pages; calloc's what malloc_usable_size says.
std::size_t DefaultHeld(const void* p, std::size_t bytes, std::size_t alignment) noexcept {
  return Mapped(bytes, alignment) ? KeptBytes(bytes) : ::malloc_usable_size(CallocBlock(p));
}

constexpr Allocator kDefault{&DefaultAllocate, &DefaultDeallocate, &DefaultHeld};
constexpr std::size_t kAlignment = 64;

// Every allocator installed so far, in order; entries never change once written, so a
// WordArray can name its allocator by index. Entry 0 is the default.
struct Installed {
  Allocator table[kMaxAllocators] = {kDefault};
  std::size_t size = 1;
  std::size_t current = 0;
};
Installed g_installed;

const Allocator& Current() noexcept {
  return g_installed.table[g_installed.current];
}

}  // namespace

bool SetAllocator(const Allocator& allocator) noexcept {
  for (std::size_t i = 0; i < g_installed.size; ++i) {
    const Allocator& a = g_installed.table[i];
    if (a.allocate == allocator.allocate && a.deallocate == allocator.deallocate && a.held == allocator.held) {
      g_installed.current = i;
      return true;
    }
  }
  if (g_installed.size == kMaxAllocators) return false;
  g_installed.table[g_installed.size] = allocator;
  g_installed.current = g_installed.size++;
  return true;
}
const Allocator& GetAllocator() noexcept {
  return Current();
}
const Allocator& DefaultAllocator() noexcept {
  return kDefault;
}

namespace internal {
std::uint8_t CurrentAllocatorIndex() noexcept {
  return static_cast<std::uint8_t>(g_installed.current);
}
void* AllocateWith(std::uint8_t index, std::size_t bytes, std::size_t alignment) noexcept {
  return g_installed.table[index].allocate(bytes, alignment);
}
void DeallocateWith(std::uint8_t index, void* pointer, std::size_t bytes, std::size_t alignment) noexcept {
  g_installed.table[index].deallocate(pointer, bytes, alignment);
}
std::size_t HeldBy(std::uint8_t index, const void* pointer, std::size_t bytes, std::size_t alignment) noexcept {
  const Allocator& a = g_installed.table[index];
  return a.held == nullptr ? bytes : a.held(pointer, bytes, alignment);
}
}  // namespace internal

WordArray WordArray::Allocate(std::uint64_t num_words) noexcept {
  WordArray array;
  if (num_words == 0) return array;
  // data_ stays null with num_words_ set on every failure, so ok() reports it.
  if (num_words > kMaxWords || num_words > std::numeric_limits<std::size_t>::max() / 8) {
    array.num_words_ = kMaxWords;
    return array;
  }
  array.allocator_ = static_cast<std::uint8_t>(g_installed.current);
  array.data_ = static_cast<std::uint64_t*>(Current().allocate(static_cast<std::size_t>(num_words * 8), kAlignment));
  array.num_words_ = num_words;
  return array;
}

WordArray WordArray::Borrow(const std::uint64_t* data, std::uint64_t num_words) noexcept {
  static_assert(kMaxAllocators <= kBorrowedIndex, "the borrowed marker must not name an allocator");
  WordArray array;
  if (num_words == 0) return array;
  // Only reads go through a borrowed array (its owners hand out const access alone).
  array.data_ = const_cast<std::uint64_t*>(data);
  array.num_words_ = num_words;
  array.allocator_ = kBorrowedIndex;
  return array;
}

std::uint64_t WordArray::bytes_held() const noexcept {
  if (data_ == nullptr) return 0;
  const auto bytes = static_cast<std::size_t>(num_words_ * 8);
  if (allocator_ == kBorrowedIndex) return 0;  // the owner of the borrowed memory counts it
  const Allocator& a = g_installed.table[allocator_];
  return a.held == nullptr ? bytes : a.held(data_, bytes, kAlignment);
}

void WordArray::Release() noexcept {
  if (data_ != nullptr && allocator_ != kBorrowedIndex) {
    g_installed.table[allocator_].deallocate(data_, static_cast<std::size_t>(num_words_ * 8), kAlignment);
  }
  data_ = nullptr;
  num_words_ = 0;
}

WordArray::~WordArray() {
  Release();
}

WordArray::WordArray(const WordArray& other)
    : num_words_(other.num_words_), allocator_(static_cast<std::uint8_t>(g_installed.current)) {
  if (num_words_ == 0) return;
  data_ = static_cast<std::uint64_t*>(Current().allocate(static_cast<std::size_t>(num_words_ * 8), kAlignment));
  if (data_ == nullptr) {
    num_words_ = 0;
    throw std::bad_alloc();
  }
  std::memcpy(data_, other.data_, static_cast<std::size_t>(num_words_ * 8));
}

WordArray& WordArray::operator=(const WordArray& other) {
  if (this != &other) {
    WordArray copy(other);
    *this = std::move(copy);
  }
  return *this;
}

WordArray::WordArray(WordArray&& other) noexcept
    : data_(other.data_), num_words_(other.num_words_), allocator_(other.allocator_) {
  other.data_ = nullptr;
  other.num_words_ = 0;
}

WordArray& WordArray::operator=(WordArray&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = other.data_;
    num_words_ = other.num_words_;
    allocator_ = other.allocator_;
    other.data_ = nullptr;
    other.num_words_ = 0;
  }
  return *this;
}

}  // namespace bloomkit
