// SPDX-License-Identifier: Apache-2.0
// Splits a fuzz input into the fields a target needs, the same way for the libFuzzer
// binary, the replay runner and the corpus generator (which writes seeds with
// FuzzInputWriter, so every seed decodes to the valid input it was built from).
//
// Encoding: fixed-size integers are little-endian; a "field" is a 2-byte length
// followed by that many bytes (clamped to what is left, so every byte string decodes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit_fuzz {

// Calls the target's check; a failed property is a crash the fuzzer reports.
#define BLOOMKIT_FUZZ_CHECK(condition)  \
  do {                                  \
    if (!(condition)) __builtin_trap(); \
  } while (false)

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  [[nodiscard]] bool empty() const noexcept { return pos_ >= size_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return size_ - pos_; }

  std::uint8_t Byte() noexcept { return empty() ? 0 : data_[pos_++]; }
  std::uint16_t U16() noexcept {
    const std::uint16_t lo = Byte();
    return static_cast<std::uint16_t>(lo | (Byte() << 8));
  }
  std::uint64_t U64() noexcept {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{Byte()} << (8 * i);
    return v;
  }
  std::string_view Field() noexcept {
    const std::size_t length = std::min<std::size_t>(U16(), remaining());
    return Take(length);
  }
  std::string_view Rest() noexcept { return Take(remaining()); }
  // The bytes up to the next `separator` (not included) or the end.
  std::string_view Until(char separator) noexcept {
    std::size_t end = pos_;
    while (end < size_ && data_[end] != static_cast<std::uint8_t>(separator)) ++end;
    const std::string_view out = Take(end - pos_);
    if (!empty()) ++pos_;
    return out;
  }

 private:
  std::string_view Take(std::size_t length) noexcept {
    const std::string_view out(reinterpret_cast<const char*>(data_ + pos_), length);
    pos_ += length;
    return out;
  }

  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

class FuzzInputWriter {
 public:
  FuzzInputWriter& Byte(std::uint8_t v) {
    bytes_.push_back(static_cast<char>(v));
    return *this;
  }
  FuzzInputWriter& U16(std::uint16_t v) {
    return Byte(static_cast<std::uint8_t>(v)).Byte(static_cast<std::uint8_t>(v >> 8));
  }
  FuzzInputWriter& U64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) Byte(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  // Fields longer than 65535 bytes do not fit the encoding: callers keep seeds small.
  FuzzInputWriter& Field(std::string_view text) {
    U16(static_cast<std::uint16_t>(text.size()));
    return Raw(text);
  }
  FuzzInputWriter& Field(std::span<const std::byte> bytes) {
    return Field(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  FuzzInputWriter& Raw(std::string_view text) {
    bytes_.append(text);
    return *this;
  }
  FuzzInputWriter& Raw(std::span<const std::byte> bytes) {
    return Raw(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  [[nodiscard]] const std::string& bytes() const noexcept { return bytes_; }

 private:
  std::string bytes_;
};

inline std::span<const std::byte> AsBytes(std::string_view text) noexcept {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

}  // namespace bloomkit_fuzz
