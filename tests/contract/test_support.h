// SPDX-License-Identifier: Apache-2.0
// Helpers shared by bloomkit's unit, contract and golden tests: deterministic keys,
// the file header's byte layout (as docs/FORMAT.md states it, written out here on
// purpose so that a change to the writer is caught), checksum repair for crafted
// inputs, counting/failing allocators and temporary directories.
//
// Tests that include this header link the system xxHash (PkgConfig::XXHASH): the
// checksum is recomputed with the library itself, not with bloomkit's copy of it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>
#include <xxhash.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "bloomkit/allocator.h"
#include "bloomkit/result.h"

namespace bloomkit_test {

// ---------------------------------------------------------------------------------
// Keys. Key(tag, i) is 9 bytes: the tag, then the SplitMix64 finalizer of i in
// little-endian order. Different tags never collide, so keys of tag 'p' (present)
// and 'a' (absent) are disjoint sets; within a tag, 10^6 keys collide with
// probability ~3e-8. No heap allocation per key: 10^6 keys cost nothing to make.
// ---------------------------------------------------------------------------------
inline constexpr std::uint64_t SplitMix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class Key {
 public:
  Key(char tag, std::uint64_t index) noexcept {
    bytes_[0] = tag;
    std::uint64_t v = SplitMix64(index);
    for (std::size_t i = 1; i < bytes_.size(); ++i) {
      bytes_[i] = static_cast<char>(v & 0xffU);
      v >>= 8;
    }
  }
  // NOLINTNEXTLINE(google-explicit-constructor): used where a key is expected.
  operator std::string_view() const noexcept { return {bytes_.data(), bytes_.size()}; }
  [[nodiscard]] std::string_view view() const noexcept { return *this; }

 private:
  std::array<char, 9> bytes_{};
};

inline constexpr char kPresent = 'p';
inline constexpr char kAbsent = 'a';

// Owned keys for the batch APIs, which take spans of string_view.
struct KeySet {
  std::vector<std::string> storage;
  std::vector<std::string_view> views;
  KeySet(char tag, std::uint64_t first, std::uint64_t count) {
    storage.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) storage.emplace_back(Key(tag, first + i).view());
    views.assign(storage.begin(), storage.end());
  }
};

// ---------------------------------------------------------------------------------
// File format v1 header layout (docs/FORMAT.md), little-endian.
// ---------------------------------------------------------------------------------
namespace layout {
inline constexpr std::size_t kMagic = 0;          // 8 bytes
inline constexpr std::size_t kVersion = 8;        // u32
inline constexpr std::size_t kHeaderLength = 12;  // u32 (128)
inline constexpr std::size_t kKind = 16;          // u16
inline constexpr std::size_t kHashId = 18;        // u16
inline constexpr std::size_t kFlags = 20;         // u32
inline constexpr std::size_t kSeed = 24;          // u64
inline constexpr std::size_t kCapacity = 32;      // u64
inline constexpr std::size_t kCount = 40;         // u64
inline constexpr std::size_t kStoredBytes = 48;   // u64
inline constexpr std::size_t kPayloadBytes = 56;  // u64
inline constexpr std::size_t kFpRate = 64;        // f64
inline constexpr std::size_t kParams = 72;        // 6 x u64
inline constexpr std::size_t kReserved = 120;     // u64, zero
inline constexpr std::size_t kHeaderBytes = 128;  // payload starts here
inline constexpr std::size_t kChecksumBytes = 8;  // XXH3-64 (seed 0) at the end
}  // namespace layout

using Bytes = std::vector<std::byte>;

// Little-endian load of `width` bytes at `off`.
inline std::uint64_t LoadLE(const Bytes& b, std::size_t off, std::size_t width = 8) {
  std::uint64_t v = 0;
  for (std::size_t i = width; i-- > 0;) v = (v << 8) | std::to_integer<std::uint64_t>(b.at(off + i));
  return v;
}
inline std::uint64_t LoadU64(const Bytes& b, std::size_t off) {
  return LoadLE(b, off, 8);
}
inline std::uint32_t LoadU32(const Bytes& b, std::size_t off) {
  return static_cast<std::uint32_t>(LoadLE(b, off, 4));
}
inline std::uint16_t LoadU16(const Bytes& b, std::size_t off) {
  return static_cast<std::uint16_t>(LoadLE(b, off, 2));
}

// Little-endian store of the low `width` bytes of `v` at `off`.
inline void StoreLE(Bytes& b, std::size_t off, std::uint64_t v, std::size_t width = 8) {
  for (std::size_t i = 0; i < width; ++i) {
    b.at(off + i) = static_cast<std::byte>(v & 0xffU);
    v >>= 8;
  }
}

// XXH3-64 with seed 0 of every byte but the last 8, as the format defines it.
inline std::uint64_t ComputeChecksum(const Bytes& b) {
  return XXH3_64bits(b.data(), b.size() - layout::kChecksumBytes);
}
inline std::uint64_t StoredChecksum(const Bytes& b) {
  return LoadU64(b, b.size() - layout::kChecksumBytes);
}
// Makes a crafted file pass the checksum, so that the check behind it is what fails.
inline void FixChecksum(Bytes& b) {
  StoreLE(b, b.size() - layout::kChecksumBytes, ComputeChecksum(b));
}

// ---------------------------------------------------------------------------------
// Allocators. Installed for the lifetime of the scope object; every WordArray
// remembers the allocator that made it, so restoring the default is always safe.
// ---------------------------------------------------------------------------------
inline void Install(const bloomkit::Allocator& allocator) noexcept {
  // These few allocators never fill the table; a failure here is a bug in the seam.
  if (!bloomkit::SetAllocator(allocator)) std::abort();
}

class ScopedCountingAllocator {
 public:
  ScopedCountingAllocator() noexcept : previous_(bloomkit::GetAllocator()) {
    Allocations().store(0);
    Deallocations().store(0);
    BytesRequested().store(0);
    Install(bloomkit::Allocator{&Allocate, &Deallocate});
  }
  ~ScopedCountingAllocator() { Install(previous_); }
  ScopedCountingAllocator(const ScopedCountingAllocator&) = delete;
  ScopedCountingAllocator& operator=(const ScopedCountingAllocator&) = delete;

  [[nodiscard]] std::uint64_t allocations() const noexcept { return Allocations().load(); }
  [[nodiscard]] std::uint64_t deallocations() const noexcept { return Deallocations().load(); }
  [[nodiscard]] std::uint64_t bytes_requested() const noexcept { return BytesRequested().load(); }

 private:
  static std::atomic<std::uint64_t>& Allocations() noexcept {
    static std::atomic<std::uint64_t> n{0};
    return n;
  }
  static std::atomic<std::uint64_t>& Deallocations() noexcept {
    static std::atomic<std::uint64_t> n{0};
    return n;
  }
  static std::atomic<std::uint64_t>& BytesRequested() noexcept {
    static std::atomic<std::uint64_t> n{0};
    return n;
  }
  static void* Allocate(std::size_t bytes, std::size_t alignment) noexcept {
    Allocations().fetch_add(1);
    BytesRequested().fetch_add(bytes);
    return bloomkit::DefaultAllocator().allocate(bytes, alignment);
  }
  static void Deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
    Deallocations().fetch_add(1);
    bloomkit::DefaultAllocator().deallocate(p, bytes, alignment);
  }

  bloomkit::Allocator previous_;
};

// An allocator that has no memory: every request returns nullptr.
class ScopedFailingAllocator {
 public:
  ScopedFailingAllocator() noexcept : previous_(bloomkit::GetAllocator()) {
    Install(bloomkit::Allocator{&Allocate, &Deallocate});
  }
  ~ScopedFailingAllocator() { Install(previous_); }
  ScopedFailingAllocator(const ScopedFailingAllocator&) = delete;
  ScopedFailingAllocator& operator=(const ScopedFailingAllocator&) = delete;

 private:
  static void* Allocate(std::size_t /*bytes*/, std::size_t /*alignment*/) noexcept { return nullptr; }
  static void Deallocate(void* /*p*/, std::size_t /*bytes*/, std::size_t /*alignment*/) noexcept {}

  bloomkit::Allocator previous_;
};

// ---------------------------------------------------------------------------------
// A fresh directory under $TMPDIR (or /tmp), removed with its contents at scope end.
// ---------------------------------------------------------------------------------
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/bloomkit-test.XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << tmpl;
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    // A test may have made a subdirectory read-only; give write access back first.
    for (auto it = std::filesystem::recursive_directory_iterator(path_, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec)) {
        std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                     ec);
      }
    }
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// "code_name: message" of a failed result, for assertion messages.
template <typename R>
std::string Describe(const R& result) {
  if (result.ok()) return "ok";
  return std::string(bloomkit::ErrorCodeName(result.error().code())) + ": " + result.error().message();
}

}  // namespace bloomkit_test
