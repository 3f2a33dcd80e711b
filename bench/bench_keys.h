// SPDX-License-Identifier: Apache-2.0
// Key sets shared by bloomkit's benchmarks (bloomkit_bench and bloomkit_compare).
//
// Keys are generated once, before any timing, into one contiguous byte buffer with a
// string_view per key, so a timed loop only reads keys and never builds them.
//
//   KeySet present = MakeKeys(KeyShape::kUrl, 0, 1'000'000);          // inserted
//   KeySet absent  = MakeKeys(KeyShape::kUrl, 1'000'000, 1'000'000);  // never inserted
//
// Key i of a shape is a function of i alone and distinct indices give distinct keys
// (SplitMix64 is a bijection and its output is part of every key), so the ranges
// [0, n) and [n, n + q) never share a key: every hit on the second range is a false
// positive. The same index range gives the same keys in every run and every program.
//
// Shapes:
//   k8   8 bytes: SplitMix64(i) little-endian (an integer id, as IntegerKey would give)
//   url  32..64 bytes, URL-like: "https://<host>/<path>/<16 hex>" padded with path
//        characters to a length drawn uniformly from [32, 64]; mean ~48 bytes
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::bench {

enum class KeyShape { k8, kUrl };

inline std::string_view KeyShapeName(KeyShape shape) {
  return shape == KeyShape::k8 ? "8B" : "url";
}

// SplitMix64 (Steele, Lea & Flood 2014): a bijection of 64-bit integers with good
// avalanche, so consecutive indices give unrelated keys.
inline std::uint64_t SplitMix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct KeySet {
  std::vector<char> bytes;
  std::vector<std::string_view> keys;

  [[nodiscard]] std::size_t count() const { return keys.size(); }
  [[nodiscard]] double mean_key_bytes() const {
    return keys.empty() ? 0 : static_cast<double>(bytes.size()) / static_cast<double>(keys.size());
  }
};

// Appends key `index` of `shape` to `out`.
inline void AppendKey(KeyShape shape, std::uint64_t index, std::vector<char>& out) {
  const std::uint64_t id = SplitMix64(index);
  if (shape == KeyShape::k8) {
    for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((id >> (8 * b)) & 0xffU));
    return;
  }
  static constexpr std::string_view kHosts[] = {
      "https://ex.com/",  "https://a.io/",    "http://wiki.org/", "https://cdn.io/",
      "https://api.dev/", "https://news.tv/", "http://m.shop/",   "https://b.org/",
  };
  static constexpr char kHex[] = "0123456789abcdef";
  static constexpr char kPath[] = "abcdefghijklmnopqrstuvwxyz0123456789-_/";
  const std::uint64_t r = SplitMix64(id);
  const std::string_view host = kHosts[r & 7U];
  const std::size_t length = 32 + static_cast<std::size_t>((r >> 3) % 33);  // [32, 64]
  const std::size_t start = out.size();
  out.insert(out.end(), host.begin(), host.end());
  for (int nibble = 15; nibble >= 0; --nibble) out.push_back(kHex[(id >> (4 * nibble)) & 0xfU]);
  // Hosts are 13..16 bytes and the id 16, so every target length in [32, 64] is reached
  // by padding.
  // The padding depends on the index alone (never on where the key lands in `out`).
  std::uint64_t pad = SplitMix64(r);
  std::uint64_t refills = 0;
  while (out.size() - start < length) {
    out.push_back(kPath[pad % (sizeof(kPath) - 1)]);
    pad = pad / (sizeof(kPath) - 1);
    if (pad == 0) pad = SplitMix64(r + ++refills);
  }
}

// Keys [first, first + count) of `shape`.
inline KeySet MakeKeys(KeyShape shape, std::uint64_t first, std::uint64_t count) {
  KeySet set;
  set.bytes.reserve(static_cast<std::size_t>(count) * (shape == KeyShape::k8 ? 8 : 50));
  std::vector<std::size_t> ends;
  ends.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) {
    AppendKey(shape, first + i, set.bytes);
    ends.push_back(set.bytes.size());
  }
  set.keys.reserve(static_cast<std::size_t>(count));
  std::size_t begin = 0;
  for (std::size_t end : ends) {
    set.keys.emplace_back(set.bytes.data() + begin, end - begin);
    begin = end;
  }
  return set;
}

// Pre-hashed 64-bit values for the AddHash/MayContainHash forms: SplitMix64 of a
// different stream than the keys, distinct for distinct indices.
inline std::vector<std::uint64_t> MakeHashes(std::uint64_t first, std::uint64_t count) {
  std::vector<std::uint64_t> hashes(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) hashes[static_cast<std::size_t>(i)] = SplitMix64(~(first + i));
  return hashes;
}

// A note for output headers when the numbers would not mean much.
inline std::string BuildWarnings() {
  std::string warnings;
#if !defined(__OPTIMIZE__)
  warnings += "WARNING: built without optimization; timings are meaningless. ";
#endif
#if !defined(NDEBUG)
  warnings += "WARNING: built with assertions enabled (no NDEBUG). ";
#endif
  return warnings;
}

}  // namespace bloomkit::bench
