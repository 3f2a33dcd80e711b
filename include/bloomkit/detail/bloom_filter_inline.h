// SPDX-License-Identifier: Apache-2.0
// Implementation detail of bloomkit/bloom_filter.h, not part of the documented API:
// included by that header after the class, never on its own.
//
// BloomFilter::InsertShort8Inline, the inline path of Add for an 8-byte key of a
// hash-id-4 filter on a CPU with BMI2: the hash and every probe in the caller's loop,
// by mulx and bts/adc (inline_probe.h). The library's BMI2 kernel sets the same bits.
// Inline on purpose: an out-of-line call costs a large share of a cache-resident add.
#pragma once

#include <cstdint>

#include "bloomkit/bloom_filter.h"
#include "bloomkit/detail/inline_probe.h"
#include "bloomkit/hash.h"
#include "bloomkit/options.h"

namespace bloomkit {

[[gnu::always_inline]] inline bool BloomFilter::InsertShort8Inline(const char* p) noexcept {
  const std::uint64_t h1 = internal::HashShortKey8Mulx(p);
  ProbeWalk walk(HashPair{h1, internal::MulxFold(h1, kShortKeyPairMultiplier)});
  std::uint64_t* const words = bits_.mutable_words().data();
  const std::uint64_t num_bits = bits_.num_bits();
  const std::uint32_t num_probes = bits_.num_hashes();  // >= 1
  // How many of the key's bits were set already: fewer than k when the key is new.
  std::uint32_t already = 0;
  std::uint32_t left = num_probes;
  do {
    const std::uint64_t pos = internal::FastRangeMulx(walk.x, num_bits);
    walk.x += walk.y;
    walk.y += kProbeStep;
    std::uint64_t word = words[pos >> 6];
    internal::SetBitCountSet(word, pos, already);
    words[pos >> 6] = word;
  } while (--left != 0);
  const bool fresh = already < num_probes;
  count_ = internal::SaturatedIncrement(count_, fresh);
  return fresh;
}

// Add's inline path: the same probes, OR-ed in; the count does not wait for a word.
[[gnu::always_inline]] inline void BloomFilter::SetShort8Inline(const char* p) noexcept {
  const std::uint64_t h1 = internal::HashShortKey8Mulx(p);
  ProbeWalk walk(HashPair{h1, internal::MulxFold(h1, kShortKeyPairMultiplier)});
  std::uint64_t* const words = bits_.mutable_words().data();
  const std::uint64_t num_bits = bits_.num_bits();
  count_ = internal::SaturatedIncrement(count_, true);
  std::uint32_t left = bits_.num_hashes();  // >= 1
  do {
    const std::uint64_t pos = internal::FastRangeMulx(walk.x, num_bits);
    walk.x += walk.y;
    walk.y += kProbeStep;
    words[pos >> 6] |= std::uint64_t{1} << (pos & 63);
  } while (--left != 0);
}

}  // namespace bloomkit
