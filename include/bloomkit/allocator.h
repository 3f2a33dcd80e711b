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

}  // namespace bloomkit
