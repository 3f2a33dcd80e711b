// SPDX-License-Identifier: Apache-2.0
// The classic filter's bit array (detail/classic_bits.h): what is not a probe. The
// probes, compiled for each instruction set, are in bloom_filter.cc.
#include <algorithm>
#include <cstdint>

#include "bloomkit/bloom_filter.h"
#include "bloomkit/format.h"
#include "bloomkit/sizing.h"
#include "internal/codec.h"
#include "internal/filter_common.h"
#include "internal/message.h"

namespace bloomkit::internal {

namespace {

std::uint64_t WordsFor(std::uint64_t num_bits) {
  return num_bits / 64 + (num_bits % 64 != 0 ? 1 : 0);
}

}  // namespace

std::uint64_t ClassicBits::CountSetBits() const noexcept {
  return PopCount(words_.data(), words_.num_words());
}

void ClassicBits::Clear() noexcept {
  std::fill(words_.span().begin(), words_.span().end(), 0);
}

bool operator==(const ClassicBits& a, const ClassicBits& b) noexcept {
  return a.num_bits_ == b.num_bits_ && a.num_hashes_ == b.num_hashes_ && a.hash_id_ == b.hash_id_ &&
         std::equal(a.words_.span().begin(), a.words_.span().end(), b.words_.span().begin());
}

// Payload: ceil(num_bits / 64) little-endian words; params[0] = num_bits,
// params[1] = num_hashes (BloomFilter::SerializeTo, docs/FORMAT.md).
Result<ClassicBits> ClassicBits::FromPayload(const FileHeader& h, std::span<const std::byte> mapped,
                                             const ByteSource* source) {
  const std::uint64_t num_bits = h.params[0];
  const std::uint64_t num_hashes = h.params[1];
  if (num_bits == 0 || num_bits > BloomFilter::kMaxNumBits) {
    return MakeError(ErrorCode::kParameterMismatch, "num_bits ", num_bits, " is not in [1, ", BloomFilter::kMaxNumBits,
                     "]");
  }
  if (num_hashes == 0 || num_hashes > kMaxNumHashes) {
    return MakeError(ErrorCode::kParameterMismatch, "num_hashes ", num_hashes, " is not in [1, ", kMaxNumHashes, "]");
  }
  if (h.hash_id != kHashIdXxh3DoubleHashing && h.hash_id != kHashIdShort64) {
    return MakeError(ErrorCode::kUnknownHash, "hash id ", h.hash_id,
                     " is not a hash of classic filters: 1 (XXH3-128) or 4 (short-key hash)");
  }
  if (h.capacity == 0) return MakeError(ErrorCode::kParameterMismatch, "capacity is 0");
  for (std::size_t i = 2; i < kNumHeaderParams; ++i) {
    if (h.params[i] != 0) return MakeError(ErrorCode::kReservedNonZero, "unused parameter ", i, " is not zero");
  }
  if (h.payload_bytes != WordsFor(num_bits) * 8) {
    return MakeError(ErrorCode::kParameterMismatch, "payload of ", h.payload_bytes, " bytes does not match ", num_bits,
                     " bits (", WordsFor(num_bits) * 8, " bytes)");
  }
  WordArray words;
  if (source == nullptr) {
    words = WordArray::Borrow(reinterpret_cast<const std::uint64_t*>(mapped.data()), WordsFor(num_bits));
  } else {
    words = WordArray::Allocate(WordsFor(num_bits));
    if (!words.ok()) return MakeError(ErrorCode::kTooLarge, "out of memory allocating ", h.payload_bytes, " bytes");
    if (Status st = ReadWordsLE(*source, words.span()); !st.ok()) return std::move(st).error();
  }
  if (num_bits % 64 != 0 && (words.span().back() >> (num_bits % 64)) != 0) {
    return MakeError(ErrorCode::kParameterMismatch, "bits past num_bits are set");
  }
  return ClassicBits(num_bits, static_cast<std::uint32_t>(num_hashes), h.hash_id, std::move(words));
}

}  // namespace bloomkit::internal
