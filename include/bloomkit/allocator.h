// SPDX-License-Identifier: Apache-2.0
// The allocator seam: every byte of filter memory goes through it.
//
// The default allocator uses aligned operator new and, for large arrays, asks the
// kernel for transparent huge pages. An embedding host (the Redis module) installs its
// own once, before creating any filter, so that its memory accounting sees filters.
// Each allocation remembers the allocator that made it (as an index into the table of
// installed allocators, so that an array carries one byte for it), and a filter is
// always freed by the allocator that allocated it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <type_traits>

namespace bloomkit {

struct Allocator {
  // Returns `bytes` zero-filled bytes aligned to `alignment` (a power of two <= 4096),
  // or nullptr when the memory is not available.
  void* (*allocate)(std::size_t bytes, std::size_t alignment) noexcept;
  // Frees memory returned by `allocate` with the same size and alignment.
  void (*deallocate)(void* pointer, std::size_t bytes, std::size_t alignment) noexcept;
  // The bytes the allocator holds for a block `allocate` returned with this size and
  // alignment: the request rounded up to its size class or pages, plus any header. A
  // filter's bytes_held() adds these up (jemalloc rounds a 65.7 MiB block to 80 MiB).
  // Null: `bytes`.
  std::size_t (*held)(const void* pointer, std::size_t bytes, std::size_t alignment) noexcept = nullptr;
};

// The most distinct allocators one process may install (the default included). An
// array names its allocator in one byte; the 256th value marks words the array does
// not own (WordArray::Borrow).
inline constexpr std::size_t kMaxAllocators = 255;

// Installs `allocator` for all later allocations. Not thread-safe: call it at start-up.
// Installing one already installed before (same three functions) reuses its entry; false,
// with the current allocator kept, once kMaxAllocators distinct ones were installed.
[[nodiscard]] bool SetAllocator(const Allocator& allocator) noexcept;
// The allocator in use.
[[nodiscard]] const Allocator& GetAllocator() noexcept;
// The built-in allocator.
[[nodiscard]] const Allocator& DefaultAllocator() noexcept;

namespace internal {
// The index of the current allocator in the table of installed ones (entries never
// change once written), and the table's functions by index.
[[nodiscard]] std::uint8_t CurrentAllocatorIndex() noexcept;
[[nodiscard]] void* AllocateWith(std::uint8_t index, std::size_t bytes, std::size_t alignment) noexcept;
void DeallocateWith(std::uint8_t index, void* pointer, std::size_t bytes, std::size_t alignment) noexcept;
[[nodiscard]] std::size_t HeldBy(std::uint8_t index, const void* pointer, std::size_t bytes,
                                 std::size_t alignment) noexcept;
}  // namespace internal

// A standard allocator over the seam, for the containers of filter objects (a scalable
// filter's stages, a cuckoo filter's sub-filters), so that they too live in the host's
// memory. A container keeps the allocator installed when it was made (a copy takes the
// current one) and frees through it; blocks are aligned to a cache line.
//   std::vector<BloomFilter, SeamAllocator<BloomFilter>> stages;
template <typename T>
class SeamAllocator {
 public:
  using value_type = T;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  static constexpr std::size_t kAlignment = alignof(T) > 64 ? alignof(T) : 64;

  SeamAllocator() noexcept : index_(internal::CurrentAllocatorIndex()) {}
  template <typename U>
  SeamAllocator(const SeamAllocator<U>& other) noexcept : index_(other.index()) {}  // NOLINT: as std::allocator

  // Throws std::bad_alloc when the allocator has no memory (standard containers expect it).
  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    void* p = internal::AllocateWith(index_, n * sizeof(T), kAlignment);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept { internal::DeallocateWith(index_, p, n * sizeof(T), kAlignment); }
  // What the allocator holds for a block of `n` from allocate (Allocator::held).
  [[nodiscard]] std::size_t held(const T* p, std::size_t n) const noexcept {
    return p == nullptr ? 0 : internal::HeldBy(index_, p, n * sizeof(T), kAlignment);
  }
  [[nodiscard]] SeamAllocator select_on_container_copy_construction() const noexcept { return {}; }
  [[nodiscard]] std::uint8_t index() const noexcept { return index_; }
  friend bool operator==(const SeamAllocator& a, const SeamAllocator& b) noexcept { return a.index_ == b.index_; }

 private:
  std::uint8_t index_;
};

}  // namespace bloomkit
