// SPDX-License-Identifier: Apache-2.0
// Little-endian loads and stores, field by field, independent of the host's byte order.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace bloomkit::internal {

template <typename T>
inline void StoreLE(std::byte* out, T value) noexcept {
  static_assert(std::is_unsigned_v<T>);
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    out[i] = static_cast<std::byte>(value & 0xffU);
    value = static_cast<T>(value >> 8);
  }
}

template <typename T>
[[nodiscard]] inline T LoadLE(const std::byte* in) noexcept {
  static_assert(std::is_unsigned_v<T>);
  T value = 0;
  for (std::size_t i = sizeof(T); i-- > 0;) value = static_cast<T>((value << 8) | std::to_integer<T>(in[i]));
  return value;
}

// Copies 64-bit words to little-endian bytes (a memcpy on little-endian hosts).
inline void StoreWordsLE(std::byte* out, std::span<const std::uint64_t> words) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    if (!words.empty()) std::memcpy(out, words.data(), words.size_bytes());
  } else {
    for (std::size_t i = 0; i < words.size(); ++i) StoreLE(out + 8 * i, words[i]);
  }
}

inline void LoadWordsLE(std::span<std::uint64_t> words, const std::byte* in) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    if (!words.empty()) std::memcpy(words.data(), in, words.size_bytes());
  } else {
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = LoadLE<std::uint64_t>(in + 8 * i);
  }
}

}  // namespace bloomkit::internal
