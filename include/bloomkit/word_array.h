// SPDX-License-Identifier: Apache-2.0
// WordArray: a zero-initialized, 64-byte-aligned array of 64-bit words allocated
// through the allocator seam (allocator.h). Copies are deep; moves steal. It holds the
// pointer, the count of words and the index of the allocator that made it (freed by that
// one). A borrowed array (Borrow) points at words it does not own, such as a read-only
// file mapping, and never frees them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "bloomkit/allocator.h"

namespace bloomkit {

class WordArray {
 public:
  WordArray() noexcept = default;
  ~WordArray();
  WordArray(const WordArray& other);
  WordArray& operator=(const WordArray& other);
  WordArray(WordArray&& other) noexcept;
  WordArray& operator=(WordArray&& other) noexcept;

  // `num_words` zero words, or an empty array with ok() false if the allocator has no
  // memory. Callers check the size against their memory limit first.
  static WordArray Allocate(std::uint64_t num_words) noexcept;
  // An array over `num_words` words that stay the caller's (alive and unchanged while
  // the array is used): never freed by it, and only to be read when the memory is
  // read-only. A copy of a borrowed array allocates and owns its words.
  //   WordArray view = WordArray::Borrow(mapped_words, n);
  static WordArray Borrow(const std::uint64_t* data, std::uint64_t num_words) noexcept;
  [[nodiscard]] bool borrowed() const noexcept { return allocator_ == kBorrowedIndex; }

  [[nodiscard]] bool ok() const noexcept { return data_ != nullptr || num_words_ == 0; }
  [[nodiscard]] std::uint64_t* data() noexcept { return data_; }
  [[nodiscard]] const std::uint64_t* data() const noexcept { return data_; }
  [[nodiscard]] std::uint64_t num_words() const noexcept { return num_words_; }
  // The largest array Allocate accepts (2 PiB; then only as much as the allocator can give).
  static constexpr std::uint64_t kMaxWords = (std::uint64_t{1} << 48) - 1;
  [[nodiscard]] std::uint64_t bytes() const noexcept { return num_words_ * sizeof(std::uint64_t); }
  // What the allocator holds for the array (Allocator::held): bytes() or more.
  [[nodiscard]] std::uint64_t bytes_held() const noexcept;
  [[nodiscard]] std::span<std::uint64_t> span() noexcept { return {data_, static_cast<std::size_t>(num_words_)}; }
  [[nodiscard]] std::span<const std::uint64_t> span() const noexcept {
    return {data_, static_cast<std::size_t>(num_words_)};
  }

 private:
  static constexpr std::uint8_t kBorrowedIndex = 255;  // allocator_ of a borrowed array
  void Release() noexcept;

  std::uint64_t* data_ = nullptr;
  std::uint64_t num_words_ = 0;  // <= kMaxWords
  std::uint8_t allocator_ = 0;   // index into the installed allocators, or kBorrowedIndex
};

}  // namespace bloomkit
