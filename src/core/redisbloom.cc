// SPDX-License-Identifier: Apache-2.0
// RedisBloom's scalable Bloom filter and its hashes, bit-exact (redisbloom.h has the
// rules; the cuckoo filter is in redisbloom_cuckoo.cc). Every arithmetic step below mirrors the one RedisBloom 2.8
// performs, in the same types: where its C code converts between double and integers, so does this code, so that sizes,
// hash counts and probe positions come out identical.
#include "bloomkit/redisbloom.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "bloomkit/format.h"
#include "bloomkit/hash.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/filter_common.h"
#include "internal/message.h"
#include "internal/redisbloom_builder.h"
#include "internal/redisbloom_cuckoo.h"

namespace bloomkit {
namespace {

using internal::MakeError;

// The two constants RedisBloom's bloom.c sizes links with, as it writes them.
constexpr double kLn2 = 0.693147180559945;
constexpr double kLn2Squared = 0.480453013918201;
constexpr double kTighteningRatio = 0.5;
constexpr std::uint32_t kMurmur2Seed = 0x9747b28c;
constexpr std::uint64_t kMurmur64Seed = 0xc6a4a7935bd1e995ULL;

std::uint32_t Load32(const unsigned char* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

std::uint64_t Load64(const unsigned char* p) noexcept {
  return static_cast<std::uint64_t>(Load32(p)) | static_cast<std::uint64_t>(Load32(p + 4)) << 32;
}

double BitsPerEntry(double error) noexcept {
  const double bpe = -(std::log(error) / kLn2Squared);
  return bpe < 0 ? -bpe : bpe;
}

std::uint32_t HashesFor(double bpe) noexcept {
  const double k = std::ceil(kLn2 * bpe);
  // Callers check bpe first; the clamp only keeps the conversion defined.
  return k >= 0 && k < 4294967296.0 ? static_cast<std::uint32_t>(k) : 0;
}

std::uint64_t WordsFor(std::uint64_t bytes) noexcept {
  return bytes / 8 + (bytes % 8 != 0 ? 1 : 0);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Hashes.

std::uint32_t RedisBloomMurmurHash2(std::string_view key, std::uint32_t seed) noexcept {
  constexpr std::uint32_t kM = 0x5bd1e995;
  const auto* data = reinterpret_cast<const unsigned char*>(key.data());
  auto len = static_cast<int>(key.size());
  std::uint32_t h = seed ^ static_cast<std::uint32_t>(len);
  while (len >= 4) {
    std::uint32_t k = Load32(data);
    k *= kM;
    k ^= k >> 24;
    k *= kM;
    h *= kM;
    h ^= k;
    data += 4;
    len -= 4;
  }
  switch (len) {
    case 3: h ^= static_cast<std::uint32_t>(data[2]) << 16; [[fallthrough]];
    case 2: h ^= static_cast<std::uint32_t>(data[1]) << 8; [[fallthrough]];
    case 1:
      h ^= data[0];
      h *= kM;
      break;
    default: break;
  }
  h ^= h >> 13;
  h *= kM;
  h ^= h >> 15;
  return h;
}

std::uint64_t RedisBloomMurmurHash64A(std::string_view key, std::uint64_t seed) noexcept {
  constexpr std::uint64_t kM = 0xc6a4a7935bd1e995ULL;
  const auto* data = reinterpret_cast<const unsigned char*>(key.data());
  const auto len = static_cast<int>(key.size());
  // RedisBloom multiplies the int length by kM: the int converts to uint64 first.
  std::uint64_t h = seed ^ (static_cast<std::uint64_t>(static_cast<std::int64_t>(len)) * kM);
  const unsigned char* end = data + static_cast<std::ptrdiff_t>(len / 8) * 8;
  for (; data != end; data += 8) {
    std::uint64_t k = Load64(data);
    k *= kM;
    k ^= k >> 47;
    k *= kM;
    h ^= k;
    h *= kM;
  }
  switch (len & 7) {
    case 7: h ^= static_cast<std::uint64_t>(data[6]) << 48; [[fallthrough]];
    case 6: h ^= static_cast<std::uint64_t>(data[5]) << 40; [[fallthrough]];
    case 5: h ^= static_cast<std::uint64_t>(data[4]) << 32; [[fallthrough]];
    case 4: h ^= static_cast<std::uint64_t>(data[3]) << 24; [[fallthrough]];
    case 3: h ^= static_cast<std::uint64_t>(data[2]) << 16; [[fallthrough]];
    case 2: h ^= static_cast<std::uint64_t>(data[1]) << 8; [[fallthrough]];
    case 1:
      h ^= static_cast<std::uint64_t>(data[0]);
      h *= kM;
      break;
    default: break;
  }
  h ^= h >> 47;
  h *= kM;
  h ^= h >> 47;
  return h;
}

// ---------------------------------------------------------------------------------------
// RedisBloomScalableFilter.

namespace {

// Sizes one link as RedisBloom's bloom_init does; false where bloom_init refuses.
bool SizeLink(std::uint64_t entries, double error, std::uint32_t options, RedisBloomLinkParams* out) {
  if (entries < 1 || !(error > 0) || !(error < 1.0)) return false;
  RedisBloomLinkParams p;
  p.error = error;
  p.entries = entries;
  p.bpe = BitsPerEntry(error);
  std::uint64_t bits = 0;
  if ((options & kRedisBloomEntsIsBits) != 0) {
    if (entries > 63) return false;  // RedisBloom allows 64, which it then shifts out of range
    p.n2 = static_cast<std::uint8_t>(entries);
    bits = std::uint64_t{1} << p.n2;
    p.entries = static_cast<std::uint64_t>(static_cast<double>(bits) / p.bpe);
  } else if ((options & kRedisBloomNoRound) != 0) {
    const double exact = static_cast<double>(entries) * p.bpe;
    if (!(exact < 18446744073709549568.0)) return false;
    bits = static_cast<std::uint64_t>(exact);
    if (bits == 0) bits = 1;
    p.n2 = 0;
  } else {
    const double product = static_cast<double>(entries) * p.bpe;
    const double bn2 = std::logb(product);
    if (bn2 > 62 || std::isinf(bn2)) return false;  // 2^(bn2 + 1) bits must fit
    p.n2 = static_cast<std::uint8_t>(bn2 + 1);
    bits = std::uint64_t{1} << p.n2;
    const auto bit_diff = static_cast<std::uint64_t>(static_cast<double>(bits) - product);
    const auto item_diff = static_cast<std::uint64_t>(static_cast<double>(bit_diff) / p.bpe);
    p.entries += item_diff;
  }
  p.bytes = bits % 64 != 0 ? (bits / 64 + 1) * 8 : bits / 8;
  p.bits = p.bytes * 8;
  p.hashes = HashesFor(p.bpe);
  if (p.hashes == 0 || p.hashes > kRedisBloomMaxHashes) return false;
  *out = p;
  return true;
}

// RedisBloom's bloom_validate_integrity, plus the limits that keep a query bounded.
Status CheckLink(const RedisBloomLinkParams& p, std::size_t index) {
  if (!(p.error > 0) || !(p.error < 1.0)) {
    return MakeError(ErrorCode::kParameterMismatch, "link ", index, ": error rate ", p.error, " is not in (0, 1)");
  }
  if (p.n2 > 63) return MakeError(ErrorCode::kParameterMismatch, "link ", index, ": n2 ", int{p.n2}, " is over 63");
  if (p.bits == 0 || p.bytes > std::numeric_limits<std::uint64_t>::max() / 8 || p.bits != p.bytes * 8) {
    return MakeError(ErrorCode::kParameterMismatch, "link ", index, ": ", p.bits, " bits do not fill its ", p.bytes,
                     " bytes");
  }
  if (p.n2 != 0 && p.bits < (std::uint64_t{1} << p.n2)) {
    return MakeError(ErrorCode::kParameterMismatch, "link ", index, ": ", p.bits, " bits are fewer than 2^", int{p.n2});
  }
  if (!std::isfinite(p.bpe) || p.bpe <= 0 || p.hashes != HashesFor(p.bpe) || p.hashes == 0 ||
      p.hashes > kRedisBloomMaxHashes) {
    return MakeError(ErrorCode::kParameterMismatch, "link ", index, ": ", p.hashes, " hashes do not match ", p.bpe,
                     " bits per entry (1 to ", kRedisBloomMaxHashes, " hashes, ceil(ln 2 * bpe))");
  }
  return {};
}

}  // namespace

Result<RedisBloomScalableFilter> RedisBloomScalableFilter::Create(const RedisBloomOptions& options) {
  if (options.capacity < 1) return MakeError(ErrorCode::kInvalidArgument, "capacity must be at least 1, got 0");
  if (!(options.fp_rate > 0) || !(options.fp_rate < 1)) {
    return MakeError(ErrorCode::kInvalidArgument, "error rate must be in (0, 1), got ", options.fp_rate);
  }
  // RedisBloom 8 keeps EXPANSION 0 as the growth of a NONSCALING chain, so 0 is valid there.
  if (options.expansion < 1 && !options.non_scaling) {
    return MakeError(ErrorCode::kInvalidArgument, "expansion must be at least 1, got 0");
  }
  RedisBloomScalableFilter f;
  f.options_ = kRedisBloomForce64 | kRedisBloomNoRound | (options.non_scaling ? kRedisBloomNoScaling : 0U);
  f.expansion_ = options.expansion;
  f.max_memory_bytes_ = options.max_memory_bytes;
  const double tightening = options.non_scaling ? 1 : kTighteningRatio;
  // RedisBloom halves the rate for the first link: 5e-324 (the smallest double) then
  // rounds to 0 and no link can be sized (RedisBloom: "ERR could not create filter").
  if (!(options.fp_rate * tightening > 0)) {
    return MakeError(ErrorCode::kInvalidArgument, "error rate ", options.fp_rate,
                     " is too small: the first link's rate, half of it, rounds to 0");
  }
  Status added = f.AddLink(options.capacity, options.fp_rate * tightening);
  if (!added.ok()) return added.error();
  return f;
}

Status RedisBloomScalableFilter::AddLink(std::uint64_t entries, double error) {
  if (links_.size() >= kRedisBloomMaxLinks) {
    return MakeError(ErrorCode::kTooLarge, "the chain already has ", links_.size(), " links (at most ",
                     kRedisBloomMaxLinks, ")");
  }
  RedisBloomLinkParams p;
  if (!SizeLink(entries, error, options_, &p)) {
    return MakeError(ErrorCode::kInvalidArgument, "a link of ", entries, " items at error rate ", error,
                     " cannot be sized (capacity >= 1, error in (0, 1), at most 2^63 bits)");
  }
  const std::uint64_t held = memory_bytes();
  // The chain's file payload (link table, arrays, padding) must fit too: what a decoder
  // refuses is never made here.
  std::uint64_t arrays = p.bytes;
  for (const Link& l : links_) arrays += l.params.bytes;
  std::uint64_t payload = 0;
  if (p.bytes > max_memory_bytes_ || held > max_memory_bytes_ - p.bytes ||
      !internal::RedisBloomFilePayloadBytes(
          internal::kRedisBloomChainHeaderBytes + internal::kRedisBloomLinkHeaderBytes * (links_.size() + 1), arrays,
          &payload) ||
      payload > max_memory_bytes_) {
    return MakeError(ErrorCode::kTooLarge, "a link of ", p.bytes, " bytes would take the filter past its limit of ",
                     max_memory_bytes_, " bytes");
  }
  Link link{p, WordArray::Allocate(WordsFor(p.bytes))};
  if (!link.data.ok()) return MakeError(ErrorCode::kTooLarge, "out of memory for a link of ", p.bytes, " bytes");
  links_.push_back(std::move(link));
  return {};
}

Result<RedisBloomScalableFilter> RedisBloomScalableFilter::FromParams(const RedisBloomChainParams& params,
                                                                      const LoadOptions& options) {
  if (params.links.empty() || params.links.size() > kRedisBloomMaxLinks) {
    return MakeError(ErrorCode::kParameterMismatch, "number of links ", params.links.size(), " is not in [1, ",
                     kRedisBloomMaxLinks, "]");
  }
  // Every link is checked before the first allocation.
  std::uint64_t total_bytes = 0;
  for (std::size_t i = 0; i < params.links.size(); ++i) {
    Status ok = CheckLink(params.links[i], i);
    if (!ok.ok()) return ok.error();
    if (!internal::CheckedAdd(total_bytes, params.links[i].bytes, &total_bytes) ||
        total_bytes > options.max_memory_bytes) {
      return MakeError(ErrorCode::kTooLarge, "links of ", total_bytes, " bytes or more exceed the limit of ",
                       options.max_memory_bytes, " bytes");
    }
  }
  internal::RedisBloomBuilder builder(options.max_memory_bytes);
  for (const RedisBloomLinkParams& p : params.links) {
    Status ok = builder.AppendLink(p, {});
    if (!ok.ok()) return ok.error();
  }
  return std::move(builder).Finish(params.size, params.options, params.expansion);
}

namespace internal {

bool RedisBloomFilePayloadBytes(std::uint64_t header_bytes, std::uint64_t array_bytes, std::uint64_t* out) noexcept {
  std::uint64_t sum = 0;
  if (!CheckedAdd(header_bytes, array_bytes, &sum) || sum > std::numeric_limits<std::uint64_t>::max() - 7) return false;
  *out = (sum + 7) / 8 * 8;
  return true;
}

RedisBloomBuilder::RedisBloomBuilder(std::uint64_t max_memory_bytes) noexcept {
  filter_.max_memory_bytes_ = max_memory_bytes;
}

Status RedisBloomBuilder::AppendLink(const RedisBloomLinkParams& params, std::span<const std::byte> bits) {
  const std::size_t index = filter_.links_.size();
  if (index >= kRedisBloomMaxLinks) {
    return MakeError(ErrorCode::kParameterMismatch, "more than ", kRedisBloomMaxLinks, " links");
  }
  Status ok = CheckLink(params, index);
  if (!ok.ok()) return ok;
  if (bits.size() > params.bytes) {
    return MakeError(ErrorCode::kParameterMismatch, "link ", index, ": ", bits.size(), " bytes for a ", params.bytes,
                     "-byte array");
  }
  if (!CheckedAdd(bytes_, params.bytes, &bytes_) || bytes_ > filter_.max_memory_bytes_) {
    return MakeError(ErrorCode::kTooLarge, "links of ", bytes_, " bytes or more exceed the limit of ",
                     filter_.max_memory_bytes_, " bytes");
  }
  RedisBloomScalableFilter::Link link{params, WordArray::Allocate(WordsFor(params.bytes))};
  if (!link.data.ok()) return MakeError(ErrorCode::kTooLarge, "out of memory for a link of ", params.bytes, " bytes");
  if (!bits.empty()) std::memcpy(link.data.data(), bits.data(), bits.size());
  filter_.links_.push_back(std::move(link));
  return {};
}

Result<RedisBloomScalableFilter> RedisBloomBuilder::Finish(std::uint64_t size, std::uint32_t options,
                                                           std::uint32_t expansion) && {
  if ((options & ~kRedisBloomKnownOptions) != 0) {
    return MakeError(ErrorCode::kParameterMismatch, "unknown option bits 0x", std::hex, options, " (known: 0xf)");
  }
  if (filter_.links_.empty()) return MakeError(ErrorCode::kParameterMismatch, "a chain has at least one link, got 0");
  std::uint64_t total = 0;
  for (const auto& link : filter_.links_) {
    if (!CheckedAdd(total, link.params.size, &total)) {
      return MakeError(ErrorCode::kParameterMismatch, "the links' item counts overflow 64 bits");
    }
  }
  if (total != size) {
    return MakeError(ErrorCode::kParameterMismatch, "item count ", size, " is not the sum of the links' ", total);
  }
  if (size > kMaxFileCount) {
    return MakeError(ErrorCode::kParameterMismatch, "item count ", size, " is over the largest count a filter keeps, ",
                     kMaxFileCount);
  }
  std::uint64_t capacity = 0;
  for (const auto& link : filter_.links_) {
    if (!CheckedAdd(capacity, link.params.entries, &capacity)) {
      return MakeError(ErrorCode::kParameterMismatch, "the links' capacities overflow 64 bits");
    }
  }
  std::uint64_t payload = 0;
  if (!RedisBloomFilePayloadBytes(
          kRedisBloomChainHeaderBytes + kRedisBloomLinkHeaderBytes * std::uint64_t{filter_.links_.size()}, bytes_,
          &payload) ||
      payload > filter_.max_memory_bytes_) {
    return MakeError(ErrorCode::kTooLarge, "links of ", bytes_, " bytes and their ", filter_.links_.size(),
                     "-link table exceed the limit of ", filter_.max_memory_bytes_, " bytes");
  }
  filter_.size_ = size;
  filter_.options_ = options;
  filter_.expansion_ = expansion;
  return std::move(filter_);
}

}  // namespace internal

RedisBloomScalableFilter::Hash RedisBloomScalableFilter::HashOf(std::string_view key) const noexcept {
  if ((options_ & kRedisBloomForce64) != 0) {
    const std::uint64_t a = RedisBloomMurmurHash64A(key, kMurmur64Seed);
    return {a, RedisBloomMurmurHash64A(key, a)};
  }
  const std::uint32_t a = RedisBloomMurmurHash2(key, kMurmur2Seed);
  return {a, RedisBloomMurmurHash2(key, a)};
}

// Probe i is (a + i * b) mod M in 64-bit arithmetic. RedisBloom's 32-bit variant (n2 <
// 32 without FORCE64) reduces the same 64-bit sum by the same power of two, so one
// formula covers both.
bool RedisBloomScalableFilter::LinkHas(const Link& link, Hash h) noexcept {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(link.data.data());
  const RedisBloomLinkParams& p = link.params;
  if (p.n2 > 0) {
    const std::uint64_t mask = (std::uint64_t{1} << p.n2) - 1;
    for (std::uint64_t i = 0; i < p.hashes; ++i) {
      const std::uint64_t x = (h.a + i * h.b) & mask;
      if ((bytes[x >> 3] & (1U << (x & 7))) == 0) return false;
    }
  } else {
    for (std::uint64_t i = 0; i < p.hashes; ++i) {
      const std::uint64_t x = (h.a + i * h.b) % p.bits;
      if ((bytes[x >> 3] & (1U << (x & 7))) == 0) return false;
    }
  }
  return true;
}

void RedisBloomScalableFilter::LinkSet(Link& link, Hash h) noexcept {
  auto* bytes = reinterpret_cast<std::uint8_t*>(link.data.data());
  const RedisBloomLinkParams& p = link.params;
  const std::uint64_t mod = p.n2 > 0 ? std::uint64_t{1} << p.n2 : p.bits;
  for (std::uint64_t i = 0; i < p.hashes; ++i) {
    const std::uint64_t x = (h.a + i * h.b) % mod;
    bytes[x >> 3] = static_cast<std::uint8_t>(bytes[x >> 3] | (1U << (x & 7)));
  }
}

RedisBloomScalableFilter::Hash RedisBloomScalableFilter::HashOfHash(std::uint64_t hash) const noexcept {
  const HashPair pair = ExpandHash(hash);
  if ((options_ & kRedisBloomForce64) != 0) return {pair.h1, pair.h2};
  return {pair.h1 & 0xffffffffU, pair.h2 & 0xffffffffU};
}

Result<bool> RedisBloomScalableFilter::AddIfAbsentHashed(Hash h) {
  return AddHashed(h, nullptr);
}

// `newest_positions`, if given, are the key's k bit positions in the newest link,
// computed (and prefetched) by AddIfAbsentBatch: the same bits LinkHas and LinkSet find.
Result<bool> RedisBloomScalableFilter::AddHashed(Hash h, const std::uint64_t* newest_positions) {
  std::size_t older = links_.size();
  if (newest_positions != nullptr) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(links_.back().data.data());
    bool all = true;
    for (std::uint32_t i = 0; i < links_.back().params.hashes && all; ++i) {
      const std::uint64_t x = newest_positions[i];
      all = (bytes[x >> 3] & (1U << (x & 7))) != 0;
    }
    if (all) return false;
    --older;
  }
  for (std::size_t i = older; i-- > 0;) {
    if (LinkHas(links_[i], h)) return false;
  }
  // The chain's count and its links' counts steer the growth and are saved: at the most
  // a filter counts (options.h) the add is refused, not counted past what loads again.
  if (size_ >= kMaxFileCount) {
    return MakeError(ErrorCode::kFull, "filter is full: it counts ", size_,
                     " items, the most a filter keeps (2^63 - 1)");
  }
  if (links_.back().params.size >= links_.back().params.entries) {
    if ((options_ & kRedisBloomNoScaling) != 0) {
      return MakeError(ErrorCode::kFull, "non-scaling filter is full (", links_.back().params.entries, " items)");
    }
    const RedisBloomLinkParams& cur = links_.back().params;
    std::uint64_t entries = 0;
    if (!internal::CheckedMul(cur.entries, expansion_, &entries)) {
      return MakeError(ErrorCode::kTooLarge, "the next link of ", cur.entries, " * ", expansion_,
                       " items overflows 64 bits");
    }
    Status grown = AddLink(entries, cur.error * kTighteningRatio);
    if (!grown.ok()) return grown.error();
  }
  // Absent from every link, so at least one of the newest link's bits is new.
  if (newest_positions != nullptr && older == links_.size() - 1) {  // no link was added
    auto* bytes = reinterpret_cast<std::uint8_t*>(links_.back().data.data());
    for (std::uint32_t i = 0; i < links_.back().params.hashes; ++i) {
      const std::uint64_t x = newest_positions[i];
      bytes[x >> 3] = static_cast<std::uint8_t>(bytes[x >> 3] | (1U << (x & 7)));
    }
  } else {
    LinkSet(links_.back(), h);
  }
  ++links_.back().params.size;
  ++size_;
  return true;
}

Result<bool> RedisBloomScalableFilter::AddIfAbsent(std::string_view key) {
  return AddIfAbsentHashed(HashOf(key));
}

Result<bool> RedisBloomScalableFilter::AddHashIfAbsent(std::uint64_t hash) {
  return AddIfAbsentHashed(HashOfHash(hash));
}

std::size_t RedisBloomScalableFilter::AddIfAbsentBatch(std::span<const std::string_view> keys, std::span<bool> added,
                                                       Status* error) {
  // Positions are kept for links of up to 32 hashes (error rates down to about 1e-9);
  // a link of more takes the key-by-key path.
  constexpr std::size_t kGroup = internal::kBatchGroup;
  constexpr std::uint32_t kMaxKept = 32;
  std::array<Hash, kGroup> hashes{};
  std::array<std::array<std::uint64_t, kMaxKept>, kGroup> positions{};
  for (std::size_t begin = 0; begin < keys.size(); begin += kGroup) {
    const std::size_t n = std::min(kGroup, keys.size() - begin);
    for (std::size_t j = 0; j < n; ++j) hashes[j] = HashOf(keys[begin + j]);
    const std::size_t links = links_.size();
    const RedisBloomLinkParams& p = links_.back().params;
    const bool keep = p.hashes <= kMaxKept;
    if (keep) {
      const auto* bytes = reinterpret_cast<const std::uint8_t*>(links_.back().data.data());
      const std::uint64_t mod = p.n2 > 0 ? std::uint64_t{1} << p.n2 : p.bits;
      for (std::size_t j = 0; j < n; ++j) {
        for (std::uint32_t i = 0; i < p.hashes; ++i) {
          const std::uint64_t x = (hashes[j].a + i * hashes[j].b) % mod;
          positions[j][i] = x;
          internal::PrefetchWrite(bytes + (x >> 3));
        }
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      // A link added by an earlier key of the group makes the kept positions stale.
      auto r = AddHashed(hashes[j], keep && links_.size() == links ? positions[j].data() : nullptr);
      if (!r.ok()) {
        *error = std::move(r).error();
        return begin + j;
      }
      added[begin + j] = r.value();
    }
  }
  return keys.size();
}

Status RedisBloomScalableFilter::Add(std::string_view key) {
  auto added = AddIfAbsentHashed(HashOf(key));
  if (!added.ok()) return std::move(added).error();
  return {};
}

Status RedisBloomScalableFilter::AddHash(std::uint64_t hash) {
  auto added = AddIfAbsentHashed(HashOfHash(hash));
  if (!added.ok()) return std::move(added).error();
  return {};
}

bool RedisBloomScalableFilter::MayContainHashed(Hash h) const noexcept {
  for (std::size_t i = links_.size(); i-- > 0;) {
    if (LinkHas(links_[i], h)) return true;
  }
  return false;
}

bool RedisBloomScalableFilter::MayContain(std::string_view key) const noexcept {
  return MayContainHashed(HashOf(key));
}

bool RedisBloomScalableFilter::MayContainHash(std::uint64_t hash) const noexcept {
  return MayContainHashed(HashOfHash(hash));
}

Status RedisBloomScalableFilter::AddBatch(std::span<const std::string_view> keys) {
  std::array<bool, 64> added{};  // the prefetching batch, its answers unused
  for (std::size_t begin = 0; begin < keys.size(); begin += added.size()) {
    const auto group = keys.subspan(begin, std::min(added.size(), keys.size() - begin));
    Status error;
    if (AddIfAbsentBatch(group, added, &error) < group.size()) return error;
  }
  return {};
}

Status RedisBloomScalableFilter::AddHashBatch(std::span<const std::uint64_t> hashes) {
  for (std::uint64_t hash : hashes) {
    if (Status st = AddHash(hash); !st.ok()) return st;
  }
  return {};
}

std::size_t RedisBloomScalableFilter::MayContainBatch(std::span<const std::string_view> keys,
                                                      std::span<bool> out) const noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) found += (out[i] = MayContain(keys[i])) ? 1U : 0U;
  return found;
}

std::size_t RedisBloomScalableFilter::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                                          std::span<bool> out) const noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < hashes.size(); ++i) found += (out[i] = MayContainHash(hashes[i])) ? 1U : 0U;
  return found;
}

// resize(1) only shrinks, see the header.
// NOLINTNEXTLINE(bugprone-exception-escape)
void RedisBloomScalableFilter::Clear() noexcept {
  links_.resize(1);
  Link& first = links_.front();
  std::span<std::uint64_t> words = first.data.span();
  std::fill(words.begin(), words.end(), std::uint64_t{0});
  first.params.size = 0;
  size_ = 0;
}

std::uint64_t RedisBloomScalableFilter::capacity() const noexcept {
  std::uint64_t total = 0;
  for (const Link& l : links_) total += l.params.entries;
  return total;
}

double RedisBloomScalableFilter::fp_rate() const noexcept {
  const double first = links_.empty() ? 0 : links_.front().params.error;
  if (non_scaling()) return first;
  // RedisBloom 2.2 and later give the first link half the requested rate, so below 0.5.
  // RedisBloom 2.0 and 1.x gave it the requested rate itself (chains of encoding 3 and
  // older, also once saved again as encoding 4): a first link at 0.5 or more is such a
  // chain, and its rate is the one requested.
  return first < kTighteningRatio ? first / kTighteningRatio : first;
}

double RedisBloomScalableFilter::EstimatedFpRate() const noexcept {
  double none = 1;
  for (const Link& l : links_) {
    const RedisBloomLinkParams& p = l.params;
    const double m = static_cast<double>(p.n2 > 0 ? std::uint64_t{1} << p.n2 : p.bits);
    const double k = p.hashes;
    const double one = std::pow(1 - std::exp(-k * static_cast<double>(p.size) / m), k);
    none *= 1 - one;
  }
  return 1 - none;
}

double RedisBloomScalableFilter::ExpectedFpRate() const noexcept {
  double none = 1;
  for (const Link& l : links_) none *= 1 - l.params.error;
  return 1 - none;
}

std::uint64_t RedisBloomScalableFilter::num_bits() const noexcept {
  std::uint64_t total = 0;
  for (const Link& l : links_) total += l.params.bytes * 8;
  return total;
}

double RedisBloomScalableFilter::FillRatio() const noexcept {
  std::uint64_t set = 0;
  for (const Link& l : links_) {
    for (std::uint64_t w : l.data.span()) set += static_cast<std::uint64_t>(std::popcount(w));
  }
  const std::uint64_t bits = num_bits();
  return bits == 0 ? 0 : static_cast<double>(set) / static_cast<double>(bits);
}

std::uint64_t RedisBloomScalableFilter::redisbloom_size() const noexcept {
  std::uint64_t total = 32;
  for (const Link& l : links_) total += 64 + l.params.bytes;
  return total;
}

std::uint64_t RedisBloomScalableFilter::memory_bytes() const noexcept {
  std::uint64_t total = links_.capacity() * sizeof(Link);
  for (const Link& l : links_) total += l.data.bytes();
  return total;
}

std::uint64_t RedisBloomScalableFilter::bytes_held() const noexcept {
  std::uint64_t total = links_.get_allocator().held(links_.data(), links_.capacity());
  for (const Link& l : links_) total += l.data.bytes_held();
  return total;
}

RedisBloomChainParams RedisBloomScalableFilter::params() const {
  RedisBloomChainParams p;
  p.size = size_;
  p.options = options_;
  p.expansion = expansion_;
  p.links.reserve(links_.size());
  for (const Link& l : links_) p.links.push_back(l.params);
  return p;
}

std::span<const std::byte> RedisBloomScalableFilter::link_data(std::size_t i) const noexcept {
  return {reinterpret_cast<const std::byte*>(links_[i].data.data()), static_cast<std::size_t>(links_[i].params.bytes)};
}

std::span<std::byte> RedisBloomScalableFilter::link_data(std::size_t i) noexcept {
  return {reinterpret_cast<std::byte*>(links_[i].data.data()), static_cast<std::size_t>(links_[i].params.bytes)};
}

bool operator==(const RedisBloomScalableFilter& a, const RedisBloomScalableFilter& b) noexcept {
  if (a.size_ != b.size_ || a.options_ != b.options_ || a.expansion_ != b.expansion_ ||
      a.links_.size() != b.links_.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.links_.size(); ++i) {
    if (!(a.links_[i].params == b.links_[i].params)) return false;
    const auto x = a.link_data(i);
    const auto y = b.link_data(i);
    if (!std::equal(x.begin(), x.end(), y.begin(), y.end())) return false;
  }
  return true;
}

}  // namespace bloomkit
