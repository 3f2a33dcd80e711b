// SPDX-License-Identifier: Apache-2.0
// The one frozen hash behind every bloomkit filter.
//
// A key is a sequence of bytes. It is hashed once with XXH3-128 (xxHash 0.8) and the
// fixed seed kHashSeed; the two 64-bit halves (h1, h2) drive every probe by enhanced
// double hashing (Kirsch & Mitzenmacher 2006; Dillinger & Manolios 2004):
//
//   x = h1, y = h2
//   for i in 0..k-1:   position_i = (x * m) >> 64   (128-bit multiply, no modulo)
//                      x += y;  y += kProbeStep
//
// so x_i = h1 + i h2 + (i (i - 1) / 2) kProbeStep. The range reduction keeps the HIGH
// bits of x, so the classic enhanced step (y += i) would move positions by less than
// one bit when y is near 0, and all k probes would land on one bit. Stepping y by the
// 64-bit golden ratio instead makes consecutive increments differ by ~2^63: at most one
// pair of a key's probes can coincide, with probability ~2/m, as for independent
// hashes. The hash id and the seed are written into every serialized filter, so a file
// built here answers the same on any machine (see docs/FORMAT.md). Changing any
// constant below breaks every saved filter: known-answer tests pin them.
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace bloomkit {

// Identifies the hash scheme in file headers: XXH3-128 + enhanced double hashing.
inline constexpr std::uint16_t kHashIdXxh3DoubleHashing = 1;
// Identifies the hash of blocked filters with 256-bit blocks (BlockedLayout::kLanes256):
// one 64-bit XXH3-64 hash of the key with kHashSeed, which picks the block and the bit of
// every lane (blocked_bloom_filter.h). Defined only for that layout.
inline constexpr std::uint16_t kHashIdXxh3x64 = 3;
// Identifies the short-key hash: HashKeyShort64 (below), one 64-bit hash per key. Blocked
// filters with 256-bit blocks (their default) use it as hash id 3 uses its XXH3-64;
// classic filters (BloomOptions::hash_id = 4) expand it to a pair with ShortKeyPair and
// probe as with id 1. Keys of up to 8 bytes cost two multiplies instead of XXH3's three.
inline constexpr std::uint16_t kHashIdShort64 = 4;
// The hash of a classic filter whose options name none (BloomOptions::hash_id = 0).
// A file keeps the id it was written with; loading never changes it.
inline constexpr std::uint16_t kDefaultClassicHashId = kHashIdShort64;
// The seed of XXH3-128, the ASCII bytes of "bloomkit" read as a big-endian number.
inline constexpr std::uint64_t kHashSeed = 0x626c6f6f6d6b6974ULL;
// The hash scheme of the RedisBloom-compatible kinds (redisbloom.h): RedisBloom's
// MurmurHash64A/MurmurHash2 with its own fixed seeds; the header's seed field is 0.
inline constexpr std::uint16_t kHashIdRedisBloomMurmur = 2;

// The two 64-bit halves that every filter derives its probes from.
struct HashPair {
  std::uint64_t h1;
  std::uint64_t h2;
  friend constexpr bool operator==(const HashPair&, const HashPair&) = default;
};

// XXH3-128 of the key's bytes with kHashSeed: h1 is the low half, h2 the high half.
HashPair HashKey(std::string_view key) noexcept;

// XXH3-64 of the key's bytes with kHashSeed (hash id 3).
std::uint64_t HashKey64(std::string_view key) noexcept;

__extension__ using Uint128 = unsigned __int128;

// The xor of the high and low halves of the 128-bit product a * b.
constexpr std::uint64_t Mulx64(std::uint64_t a, std::uint64_t b) noexcept {
  const Uint128 p = static_cast<Uint128>(a) * b;
  return static_cast<std::uint64_t>(p) ^ static_cast<std::uint64_t>(p >> 64);
}

// The multiplier and the length salt of HashKeyShort64: 2^64 / golden ratio and the
// first SplitMix64 multiplier, both odd.
inline constexpr std::uint64_t kShortKeyMultiplier = 0x9e3779b97f4a7c15ULL;
inline constexpr std::uint64_t kShortKeyLengthSalt = 0xbf58476d1ce4e5b9ULL;

// HashKeyShort64 of a key of at most 8 bytes (hash id 4): the key's bytes read as a
// little-endian integer v (zero-extended), then
//
//   x = v ^ kHashSeed ^ (len * kShortKeyLengthSalt)
//   h = Mulx64(Mulx64(x, kShortKeyMultiplier), kShortKeyLengthSalt)
//
// (one multiply-fold alone is too regular on sequential integers: hash_quality_test).
// The length term keeps "ab" and "ab\0" apart. Inline, so that a caller's loop holds
// the whole lookup.
// HashShortKey of a key of exactly 8 bytes at `p` (IntegerKey, 64-bit ids), with its
// length term folded into one constant.
inline std::uint64_t HashShortKey8(const char* p) noexcept {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return Mulx64(Mulx64(v ^ (kHashSeed ^ (8 * kShortKeyLengthSalt)), kShortKeyMultiplier), kShortKeyLengthSalt);
}

inline std::uint64_t HashShortKey(std::string_view key) noexcept {
  const std::size_t n = key.size();
  const auto* p = reinterpret_cast<const unsigned char*>(key.data());
  const auto mix = [](std::uint64_t x) { return Mulx64(Mulx64(x, kShortKeyMultiplier), kShortKeyLengthSalt); };
  if (n == 8) [[likely]] {
    return HashShortKey8(key.data());
  }
  std::uint64_t v = 0;
  if (n >= 4) {
    // Two overlapping 4-byte reads: bytes 0..3 and n-4..n-1 at their own positions.
    std::uint32_t lo = 0;
    std::uint32_t hi = 0;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    if constexpr (std::endian::native == std::endian::big) {
      lo = __builtin_bswap32(lo);
      hi = __builtin_bswap32(hi);
    }
    v = lo | (std::uint64_t{hi} << (8 * (n - 4)));
  } else if (n > 0) {
    v = std::uint64_t{p[0]} | (std::uint64_t{p[n / 2]} << (8 * (n / 2))) | (std::uint64_t{p[n - 1]} << (8 * (n - 1)));
  }
  return mix(v ^ kHashSeed ^ (n * kShortKeyLengthSalt));
}

// Hash id 4: HashShortKey for keys of up to 8 bytes, XXH3-64 with kHashSeed (as
// HashKey64) for longer ones.
std::uint64_t HashKeyShort64(std::string_view key) noexcept;

// The multiplier that derives a classic filter's second probe hash from its first under
// hash id 4 (ShortKeyPair): the last SplitMix64 multiplier, odd.
inline constexpr std::uint64_t kShortKeyPairMultiplier = 0x94d049bb133111ebULL;

// The hash pair of a classic filter of hash id 4 (BloomFilter, not its scalable stages):
// h1 = HashKeyShort64(key), h2 = Mulx64(h1, kShortKeyPairMultiplier). h1 keeps all 64
// bits (the probes range over any filter size); h2 is a second multiply-fold of it, so
// the pair costs one multiply more than the 64-bit hash.
constexpr HashPair ShortKeyPair(std::uint64_t hash) noexcept {
  return HashPair{hash, Mulx64(hash, kShortKeyPairMultiplier)};
}

// ShortKeyPair(HashKeyShort64(key)): the probes of `key` in a classic filter of hash id 4.
HashPair HashKeyShortPair(std::string_view key) noexcept;

// Expands a caller-supplied 64-bit hash (AddHash/MayContainHash) to a HashPair:
// h1 = hash, h2 = the SplitMix64 finalizer of hash + golden ratio. A filter fed through
// AddHash must be queried through MayContainHash with the same hash function.
constexpr HashPair ExpandHash(std::uint64_t hash) noexcept {
  std::uint64_t z = hash + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return HashPair{hash, z ^ (z >> 31)};
}

// Maps a uniformly distributed 64-bit value to [0, range) with one 128-bit multiply
// (Lemire 2019), which is faster than `%` and unbiased enough for any range < 2^64.
constexpr std::uint64_t FastRange64(std::uint64_t x, std::uint64_t range) noexcept {
  return static_cast<std::uint64_t>((static_cast<Uint128>(x) * range) >> 64);
}

// The increment of y between probes: 2^64 / golden ratio, odd.
inline constexpr std::uint64_t kProbeStep = 0x9e3779b97f4a7c15ULL;

// The probe positions of a hash pair (double hashing with a growing step), one per
// Next(), from probe `start` on: before probe i, x = h1 + i h2 + kProbeStep i (i - 1) / 2
// and y = h2 + i kProbeStep (mod 2^64). Starting past 0 lets a batch resume a key's
// probes where an earlier pass stopped.
struct ProbeWalk {
  std::uint64_t x;
  std::uint64_t y;
  explicit constexpr ProbeWalk(HashPair hash, std::uint64_t start = 0) noexcept
      : x(hash.h1 + start * hash.h2 + kProbeStep * (start * (start - 1) / 2)), y(hash.h2 + start * kProbeStep) {}
  constexpr std::uint64_t Next(std::uint64_t range) noexcept {
    const std::uint64_t pos = FastRange64(x, range);
    x += y;
    y += kProbeStep;
    return pos;
  }
};

// Calls visit(position) for the `num_probes` positions of `hash` in [0, range), in
// order, stopping early when visit returns false. Every Bloom-style filter (classic,
// counting, concurrent, scalable stages) and the Redis module's prefetch walk this one
// sequence.
//   ForEachProbe(HashKey("k"), num_bits, 7, [&](std::uint64_t bit) { ...; return true; });
template <typename Visit>
constexpr void ForEachProbe(HashPair hash, std::uint64_t range, std::uint32_t num_probes, Visit&& visit) noexcept {
  ProbeWalk walk(hash);
  for (std::uint32_t i = 0; i < num_probes; ++i) {
    if (!visit(walk.Next(range))) return;
  }
}

// An integer as a key: the value widened to 64 bits (sign-extended when signed) and
// written as 8 little-endian bytes, so `filter.Add(IntegerKey(42))` means the same key
// on every machine and for every integer type.
//
//   filter.Add(bloomkit::IntegerKey(user_id));
class IntegerKey {
 public:
  template <std::integral T>
  explicit constexpr IntegerKey(T value) noexcept {
    auto v = static_cast<std::uint64_t>(
        static_cast<std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>(value));
    for (auto& byte : bytes_) {
      byte = static_cast<char>(v & 0xffU);
      v >>= 8;
    }
  }
  // NOLINTNEXTLINE(google-explicit-constructor): an IntegerKey is used where a key is.
  operator std::string_view() const noexcept { return {bytes_.data(), bytes_.size()}; }

 private:
  std::array<char, 8> bytes_{};
};

}  // namespace bloomkit
