// The hash of hash.h, inlined into the hot loops (an out-of-line call costs up to half
// of a cache-resident lookup). xxHash comes from Debian's libxxhash-dev, header-only.
#pragma once

#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bloomkit/hash.h"

namespace bloomkit::internal {

inline HashPair HashKeyInline(std::string_view key) noexcept {
  const XXH128_hash_t h = XXH3_128bits_withSeed(key.data(), key.size(), kHashSeed);
  return HashPair{h.low64, h.high64};
}

inline std::uint64_t Checksum64(const void* data, std::size_t bytes) noexcept {
  return XXH3_64bits(data, bytes);
}

}  // namespace bloomkit::internal
