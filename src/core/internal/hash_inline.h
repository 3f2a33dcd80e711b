// SPDX-License-Identifier: Apache-2.0
// The hash of hash.h, inlined into the hot loops (an out-of-line call costs up to half
// of a cache-resident lookup). xxHash comes from Debian's libxxhash-dev, header-only.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bloomkit/hash.h"

namespace bloomkit::internal {

// MurmurHash3's 64-bit finalizer (fmix64): the Java and Go filters' hash uses it, and the
// cuckoo filter spreads a fingerprint with it to find the alternate bucket.
constexpr std::uint64_t Murmur3Fmix64(std::uint64_t k) noexcept {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

inline HashPair HashKeyInline(std::string_view key) noexcept {
  const XXH128_hash_t h = XXH3_128bits_withSeed(key.data(), key.size(), kHashSeed);
  return HashPair{h.low64, h.high64};
}

inline std::uint64_t HashKey64Inline(std::string_view key) noexcept {
  return XXH3_64bits_withSeed(key.data(), key.size(), kHashSeed);
}

// Hash id 4 of a key of any length but 8, out of line: XXH3-64 above 8 bytes, the
// short-key reads below. Inlined, their code would take the registers of the 8-byte
// path's loops (batches, the classic probes) and make them reload their constants.
[[gnu::noinline]] inline std::uint64_t HashKeyShort64OtherLengths(std::string_view key) noexcept {
  return key.size() > 8 ? HashKey64Inline(key) : HashShortKey(key);
}

[[gnu::always_inline]] inline std::uint64_t HashKeyShort64Inline(std::string_view key) noexcept {
  if (key.size() == 8) [[likely]] {
    return HashShortKey8(key.data());
  }
  return HashKeyShort64OtherLengths(key);
}

[[gnu::always_inline]] inline HashPair HashKeyShortPairInline(std::string_view key) noexcept {
  return ShortKeyPair(HashKeyShort64Inline(key));
}

inline std::uint64_t Checksum64(const void* data, std::size_t bytes) noexcept {
  return XXH3_64bits(data, bytes);
}

// `use(hash of key)` for a single-key operation. Keys of up to 16 bytes (integer ids,
// short tokens) take an inlined path small enough to need no callee-saved registers;
// longer keys jump to an out-of-line copy that inlines XXH3's longer-input code.
template <typename Use>
[[gnu::noinline]] auto UseLongKeyHash(std::string_view key, Use use) noexcept {
  return use(HashKeyInline(key));
}

template <typename Use>
inline auto UseKeyHash(std::string_view key, Use use) noexcept {
  if (key.size() > 16) [[unlikely]] {
    return UseLongKeyHash(key, use);
  }
  return use(HashKeyInline(key));
}

// The two kinds of batch input: keys, hashed here, and 64-bit hashes, expanded here.
// A batch works in groups; while it hashes one group it asks for the next group's key
// bytes (Prefetch), which a caller's buffer of keys larger than the caches would
// otherwise deliver one DRAM miss at a time.
struct KeyHasher {
  using Items = std::span<const std::string_view>;
  Items keys;
  HashPair operator()(std::size_t i) const noexcept { return HashKeyInline(keys[i]); }
  void Prefetch(std::size_t i) const noexcept { __builtin_prefetch(keys[i].data(), 0, 3); }
};

// Keys of a classic filter of hash id 4.
struct ShortKeyHasher {
  using Items = std::span<const std::string_view>;
  Items keys;
  HashPair operator()(std::size_t i) const noexcept { return HashKeyShortPairInline(keys[i]); }
  void Prefetch(std::size_t i) const noexcept { __builtin_prefetch(keys[i].data(), 0, 3); }
};

struct HashExpander {
  using Items = std::span<const std::uint64_t>;
  Items hashes;
  HashPair operator()(std::size_t i) const noexcept { return ExpandHash(hashes[i]); }
  void Prefetch(std::size_t /*i*/) const noexcept {}  // a sequential array: the hardware streams it
};

}  // namespace bloomkit::internal
