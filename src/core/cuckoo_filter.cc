// SPDX-License-Identifier: Apache-2.0
// The cuckoo filter (cuckoo_filter.h).
#include "bloomkit/cuckoo_filter.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "bloomkit/sizing.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"
#include "internal/message.h"

namespace bloomkit {
namespace {

using internal::CuckooTable;
using internal::MakeError;

constexpr std::uint64_t kTableHeaderBytes = 64;

std::uint64_t AlignUp64(std::uint64_t bytes) {
  return (bytes + 63) & ~std::uint64_t{63};
}

bool ValidBucketSize(std::uint64_t b) {
  return b == 2 || b == 4 || b == 8;
}
bool ValidFingerprintBits(std::uint64_t f) {
  return f == 8 || f == 12 || f == 16;
}

// Bytes of a table's packed slots, or false when that overflows.
bool SlotBytes(std::uint64_t num_buckets, std::uint32_t b, std::uint32_t f, std::uint64_t* bytes) noexcept {
  std::uint64_t bits = 0;
  if (!internal::CheckedMul(num_buckets, std::uint64_t{b} * f, &bits)) return false;
  *bytes = bits / 8 + (bits % 8 != 0 ? 1 : 0);
  return *bytes <= std::numeric_limits<std::uint64_t>::max() - 64;
}

// Memory of a table: its slot bytes rounded up to whole 64-bit words.
std::uint64_t TableMemory(std::uint64_t slot_bytes) noexcept {
  return (slot_bytes + 7) / 8 * 8;
}

// Packed slots: slot s holds bits [f*s, f*s + f) of a little-endian bit stream.
class Slots {
 public:
  Slots(const CuckooTable& t, std::uint32_t b, std::uint32_t f) noexcept
      : bytes_(reinterpret_cast<unsigned char*>(const_cast<std::uint64_t*>(t.slots.data()))), b_(b), f_(f) {}

  [[nodiscard]] std::uint32_t Get(std::uint64_t slot) const noexcept {
    const unsigned char* p = bytes_;
    switch (f_) {
      case 8: return p[slot];
      case 16: return p[2 * slot] | (std::uint32_t{p[2 * slot + 1]} << 8);
      default: {
        const std::uint64_t at = slot + slot / 2;  // 12 * slot / 8
        const std::uint32_t v = p[at] | (std::uint32_t{p[at + 1]} << 8);
        return (slot & 1U) != 0 ? v >> 4 : v & 0xfffU;
      }
    }
  }

  void Set(std::uint64_t slot, std::uint32_t fp) noexcept {
    unsigned char* p = bytes_;
    switch (f_) {
      case 8: p[slot] = static_cast<unsigned char>(fp); return;
      case 16:
        p[2 * slot] = static_cast<unsigned char>(fp);
        p[2 * slot + 1] = static_cast<unsigned char>(fp >> 8);
        return;
      default: {
        const std::uint64_t at = slot + slot / 2;
        if ((slot & 1U) != 0) {
          p[at] = static_cast<unsigned char>((p[at] & 0x0fU) | ((fp & 0x0fU) << 4));
          p[at + 1] = static_cast<unsigned char>(fp >> 4);
        } else {
          p[at] = static_cast<unsigned char>(fp);
          p[at + 1] = static_cast<unsigned char>((p[at + 1] & 0xf0U) | ((fp >> 8) & 0x0fU));
        }
        return;
      }
    }
  }

  // Puts fp in an empty slot of `bucket`; false if the bucket is full.
  bool Place(std::uint64_t bucket, std::uint32_t fp) noexcept {
    for (std::uint64_t s = bucket * b_, end = s + b_; s < end; ++s) {
      if (Get(s) == 0) {
        Set(s, fp);
        return true;
      }
    }
    return false;
  }

  [[nodiscard]] bool Has(std::uint64_t bucket, std::uint32_t fp) const noexcept {
    for (std::uint64_t s = bucket * b_, end = s + b_; s < end; ++s) {
      if (Get(s) == fp) return true;
    }
    return false;
  }

  [[nodiscard]] std::uint64_t Matches(std::uint64_t bucket, std::uint32_t fp) const noexcept {
    std::uint64_t n = 0;
    for (std::uint64_t s = bucket * b_, end = s + b_; s < end; ++s) n += Get(s) == fp ? 1U : 0U;
    return n;
  }

  bool Erase(std::uint64_t bucket, std::uint32_t fp) noexcept {
    for (std::uint64_t s = bucket * b_, end = s + b_; s < end; ++s) {
      if (Get(s) == fp) {
        Set(s, 0);
        return true;
      }
    }
    return false;
  }

 private:
  unsigned char* bytes_;
  std::uint32_t b_;
  std::uint32_t f_;
};

// A key's fingerprint (shared by all tables) and its two buckets in one table.
struct Probe {
  std::uint32_t fp;
  std::uint64_t i1;
  std::uint64_t i2;
};

std::uint32_t Fingerprint(HashPair h, std::uint32_t f) noexcept {
  return 1U + static_cast<std::uint32_t>(FastRange64(h.h2, (std::uint64_t{1} << f) - 1));
}

// The bucket geometry of a sub-filter with base_buckets * 2^tail_bits buckets: bucket
// i = (base, tail) with base = i >> tail_bits in [0, base_buckets) and the low
// tail_bits bits as tail. The first sub-filter has no tail; one that is E^j times as
// large (E = 2^s) has tail_bits = s * j.
//
//   alt(base, tail) = ((g(fp) - base) mod base_buckets,  tail XOR top_tail_bits(h(fp)))
//
// is an involution, and dropping the low bits of a bucket (i >> s) commutes with it
// and with i1 = FastRange64(h1, buckets). So two keys with the same fingerprint that
// share a bucket pair in a larger sub-filter share it in every smaller one too: when
// Remove (newest sub-filter first) deletes another key's equal fingerprint, the key's
// own copy in an older sub-filter still answers for the other key. With unrelated
// geometries (RedisBloom's chained filters) that deletion is a false negative.
struct Geometry {
  std::uint64_t base_buckets;
  std::uint32_t tail_bits;
};

std::uint64_t AltBucket(std::uint64_t bucket, std::uint32_t fp, Geometry geo) noexcept {
  const std::uint64_t base = bucket >> geo.tail_bits;
  const std::uint64_t g = FastRange64(internal::Murmur3Fmix64(fp), geo.base_buckets);
  const std::uint64_t alt_base = g >= base ? g - base : g + (geo.base_buckets - base);
  if (geo.tail_bits == 0) return alt_base;
  const std::uint64_t tail_mask = (std::uint64_t{1} << geo.tail_bits) - 1;
  const std::uint64_t flip = internal::Murmur3Fmix64(fp + 0x9e3779b97f4a7c15ULL) >> (64 - geo.tail_bits);
  return (alt_base << geo.tail_bits) | ((bucket & tail_mask) ^ flip);
}

Geometry GeometryOf(const CuckooTable& t, std::uint64_t base_buckets) noexcept {
  return {base_buckets, t.tail_bits};
}

Probe ProbeOf(HashPair h, std::uint32_t fp, const CuckooTable& t, std::uint64_t base_buckets) noexcept {
  const std::uint64_t i1 = FastRange64(h.h1, t.num_buckets);
  return {fp, i1, AltBucket(i1, fp, GeometryOf(t, base_buckets))};
}

bool VictimMatches(const CuckooTable& t, const Probe& p) noexcept {
  return t.victim_fingerprint == p.fp && (t.victim_bucket == p.i1 || t.victim_bucket == p.i2);
}

Result<CuckooTable> AllocateTable(std::uint64_t num_buckets, std::uint32_t b, std::uint32_t f,
                                  std::uint64_t max_memory_bytes) {
  std::uint64_t bytes = 0;
  if (num_buckets == 0 || !SlotBytes(num_buckets, b, f, &bytes)) {
    return MakeError(ErrorCode::kTooLarge, "a cuckoo sub-filter of ", num_buckets, " buckets overflows 64 bits");
  }
  if (auto st = ValidateMemory(TableMemory(bytes), max_memory_bytes, "a cuckoo sub-filter of this size"); !st.ok()) {
    return st.error();
  }
  CuckooTable table;
  table.num_buckets = num_buckets;
  table.slots = WordArray::Allocate(TableMemory(bytes) / 8);
  if (!table.slots.ok()) return MakeError(ErrorCode::kTooLarge, "out of memory allocating ", bytes, " bytes");
  return table;
}

}  // namespace

double CuckooMaxLoad(std::uint32_t bucket_size) noexcept {
  switch (bucket_size) {
    case 2: return 0.84;
    case 4: return 0.95;
    default: return 0.98;
  }
}

double CuckooFpRate(std::uint32_t bucket_size, std::uint32_t fingerprint_bits) noexcept {
  const double values = std::ldexp(1.0, static_cast<int>(fingerprint_bits)) - 1.0;
  return -std::expm1(2.0 * bucket_size * std::log1p(-1.0 / values));
}

Result<CuckooSizing> CalculateCuckooSizing(std::uint64_t capacity, double fp_rate, std::uint32_t bucket_size,
                                           std::uint32_t fingerprint_bits, std::uint64_t max_memory_bytes) {
  if (capacity == 0) return MakeError(ErrorCode::kInvalidArgument, "capacity must be at least 1, got 0");
  if (!ValidBucketSize(bucket_size)) {
    return MakeError(ErrorCode::kInvalidArgument, "bucket size must be 2, 4 or 8, got ", bucket_size);
  }
  CuckooSizing out;
  out.bucket_size = bucket_size;
  if (fingerprint_bits == 0) {
    if (auto st = ValidateFpRate(fp_rate); !st.ok()) return st.error();
    for (std::uint32_t f : {8U, 12U, 16U}) {
      if (CuckooFpRate(bucket_size, f) <= fp_rate) {
        out.fingerprint_bits = f;
        break;
      }
    }
    if (out.fingerprint_bits == 0) {
      return MakeError(ErrorCode::kInvalidArgument, "error rate ", fp_rate, " is below ", CuckooFpRate(bucket_size, 16),
                       ", the lowest a cuckoo filter with bucket size ", bucket_size,
                       " reaches (16-bit fingerprints); use bucket size 2 (down to ", CuckooFpRate(2, 16),
                       ") or a Bloom filter");
    }
  } else if (!ValidFingerprintBits(fingerprint_bits)) {
    return MakeError(ErrorCode::kInvalidArgument, "fingerprint bits must be 8, 12 or 16, got ", fingerprint_bits);
  } else {
    out.fingerprint_bits = fingerprint_bits;
  }
  const double buckets = std::ceil(static_cast<double>(capacity) / (bucket_size * CuckooMaxLoad(bucket_size)));
  if (buckets * bucket_size * out.fingerprint_bits / 8.0 > static_cast<double>(max_memory_bytes)) {
    return MakeError(ErrorCode::kTooLarge, "capacity ", capacity, " needs ",
                     buckets * bucket_size * out.fingerprint_bits / 8.0, " bytes as a cuckoo filter, over the ",
                     "memory limit of ", max_memory_bytes, " bytes");
  }
  out.num_buckets = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(buckets));
  std::uint64_t bytes = 0;
  if (!SlotBytes(out.num_buckets, bucket_size, out.fingerprint_bits, &bytes)) {
    return MakeError(ErrorCode::kTooLarge, "capacity ", capacity, " overflows a cuckoo filter");
  }
  out.bytes = TableMemory(bytes);
  if (auto st = ValidateMemory(out.bytes, max_memory_bytes, "a cuckoo filter of this capacity"); !st.ok()) {
    return st.error();
  }
  out.expected_fp_rate = CuckooFpRate(bucket_size, out.fingerprint_bits);
  return out;
}

Result<CuckooFilter> CuckooFilter::Create(const CuckooOptions& options) {
  if (options.max_kicks > kMaxCuckooKicks) {
    return MakeError(ErrorCode::kInvalidArgument, "max kicks must be in [0, ", kMaxCuckooKicks, "], got ",
                     options.max_kicks);
  }
  if (options.expansion > kMaxCuckooExpansion) {
    return MakeError(ErrorCode::kInvalidArgument, "expansion must be in [0, ", kMaxCuckooExpansion, "], got ",
                     options.expansion);
  }
  if (options.max_filters == 0 || options.max_filters > kMaxCuckooFilters) {
    return MakeError(ErrorCode::kInvalidArgument, "max filters must be in [1, ", kMaxCuckooFilters, "], got ",
                     options.max_filters);
  }
  auto sizing = CalculateCuckooSizing(options.capacity, options.fp_rate, options.bucket_size, options.fingerprint_bits,
                                      options.max_memory_bytes);
  if (!sizing.ok()) return std::move(sizing).error();
  CuckooFilter filter;
  filter.options_ = options;
  // Sub-filters grow by powers of two so that their bucket geometries nest (AltBucket);
  // RedisBloom rounds its EXPANSION the same way.
  filter.options_.expansion = options.expansion == 0 ? 0 : std::bit_ceil(options.expansion);
  if (options.fingerprint_bits != 0) filter.options_.fp_rate = sizing->expected_fp_rate;
  filter.options_.fingerprint_bits = sizing->fingerprint_bits;
  auto table =
      AllocateTable(sizing->num_buckets, options.bucket_size, sizing->fingerprint_bits, options.max_memory_bytes);
  if (!table.ok()) return std::move(table).error();
  if (Status st = filter.AppendTable(std::move(table).value()); !st.ok()) return std::move(st).error();
  return filter;
}

Status CuckooFilter::AppendTable(SubFilter table) {
  try {
    filters_.reserve(filters_.size() + 1);
  } catch (const std::bad_alloc&) {
    return MakeError(ErrorCode::kTooLarge, "out of memory for a list of ", filters_.size() + 1, " sub-filters");
  }
  filters_.push_back(std::move(table));  // cannot throw: the room is reserved
  return {};
}

Status CuckooFilter::Grow() {
  const std::uint32_t b = options_.bucket_size;
  const std::uint32_t f = options_.fingerprint_bits;
  if (options_.expansion == 0) return MakeError(ErrorCode::kFull, "cuckoo filter is full (it does not grow)");
  if (filters_.size() >= options_.max_filters) {
    return MakeError(ErrorCode::kFull, "cuckoo filter is full: it has reached max_filters = ", options_.max_filters,
                     " sub-filters");
  }
  std::uint64_t num_buckets = 0;
  if (!internal::CheckedMul(filters_.back().num_buckets, options_.expansion, &num_buckets)) {
    return MakeError(ErrorCode::kTooLarge, "the next cuckoo sub-filter overflows 64 bits");
  }
  const std::uint64_t used = memory_bytes();
  const std::uint64_t budget = options_.max_memory_bytes > used ? options_.max_memory_bytes - used : 0;
  auto table = AllocateTable(num_buckets, b, f, budget);
  if (!table.ok()) {
    return MakeError(ErrorCode::kTooLarge, "cannot grow the cuckoo filter to ", filters_.size() + 1,
                     " sub-filters with ", used, " of ", options_.max_memory_bytes,
                     " bytes in use: ", table.error().message());
  }
  table->tail_bits = filters_.back().tail_bits + static_cast<std::uint32_t>(std::countr_zero(options_.expansion));
  return AppendTable(std::move(table).value());
}

namespace {

// The kick sequence: xorshift64* (state update, then the output multiplier).
std::uint64_t NextKickState(std::uint64_t x) noexcept {
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  return x;
}

// The state before NextKickState(x): each xorshift step is undone by folding the shifted
// value back in until the shift passes 64 bits.
std::uint64_t PreviousKickState(std::uint64_t x) noexcept {
  x ^= (x >> 27) ^ (x >> 54);
  x ^= (x << 25) ^ (x << 50);
  x ^= (x >> 12) ^ (x >> 24) ^ (x >> 36) ^ (x >> 48) ^ (x >> 60);
  return x;
}

constexpr std::uint64_t kKickMultiplier = 0x2545f4914f6cdd1dULL;

}  // namespace

bool CuckooFilter::InsertWithKicks(std::size_t table, std::uint32_t fingerprint, std::uint64_t bucket) noexcept {
  SubFilter& t = filters_[table];
  const Geometry geo = GeometryOf(t, filters_.front().num_buckets);
  Slots slots(t, options_.bucket_size, options_.fingerprint_bits);
  std::uint32_t fp = fingerprint;
  std::uint64_t i = bucket;
  if (slots.Place(i, fp)) return true;
  i = AltBucket(i, fp, geo);
  for (std::uint32_t kick = 0; kick < options_.max_kicks; ++kick) {
    if (slots.Place(i, fp)) return true;
    // Evict a random resident of bucket i (xorshift64*), take its place, move it on.
    kick_state_ = NextKickState(kick_state_);
    const std::uint64_t r = kick_state_ * kKickMultiplier;
    const std::uint64_t s = i * options_.bucket_size + FastRange64(r, options_.bucket_size);
    const std::uint32_t evicted = slots.Get(s);
    slots.Set(s, fp);
    fp = evicted;
    i = AltBucket(i, fp, geo);
  }
  if (slots.Place(i, fp)) return true;
  t.victim_fingerprint = fp;
  t.victim_bucket = i;
  return false;
}

// Walks a failed chain of InsertWithKicks back: the homeless fingerprint in the victim
// slot returns to the slot it was evicted from, whose occupant becomes homeless, and so
// on, max_kicks times. AltBucket is an involution, so bucket i_k = alt(i_k+1, evicted
// fingerprint); the slot within it comes from the kick sequence run backwards. The
// table, the victim slot and the sequence are then exactly as before the chain.
void CuckooFilter::UndoKicks(std::size_t table) noexcept {
  SubFilter& t = filters_[table];
  const Geometry geo = GeometryOf(t, filters_.front().num_buckets);
  Slots slots(t, options_.bucket_size, options_.fingerprint_bits);
  std::uint32_t fp = t.victim_fingerprint;
  std::uint64_t i = t.victim_bucket;
  for (std::uint32_t kick = 0; kick < options_.max_kicks; ++kick) {
    i = AltBucket(i, fp, geo);
    const std::uint64_t r = kick_state_ * kKickMultiplier;
    kick_state_ = PreviousKickState(kick_state_);
    const std::uint64_t s = i * options_.bucket_size + FastRange64(r, options_.bucket_size);
    const std::uint32_t placed = slots.Get(s);
    slots.Set(s, fp);
    fp = placed;
  }
  t.victim_fingerprint = 0;
  t.victim_bucket = 0;
}

Status CuckooFilter::Add(std::string_view key) {
  return AddHashPair(internal::HashKeyInline(key));
}

Result<bool> CuckooFilter::AddIfAbsent(std::string_view key) {
  const HashPair h = internal::HashKeyInline(key);
  if (MayContainHashPair(h)) return false;
  if (auto st = AddHashPair(h); !st.ok()) return st.error();
  return true;
}

bool CuckooFilter::MayContain(std::string_view key) const noexcept {
  return MayContainHashPair(internal::HashKeyInline(key));
}

bool CuckooFilter::Remove(std::string_view key) noexcept {
  return RemoveHashPair(internal::HashKeyInline(key));
}

std::uint64_t CuckooFilter::Occurrences(std::string_view key) const noexcept {
  return OccurrencesHashPair(internal::HashKeyInline(key));
}

Result<bool> CuckooFilter::AddHashIfAbsent(std::uint64_t hash) {
  const HashPair h = ExpandHash(hash);
  if (MayContainHashPair(h)) return false;
  if (auto st = AddHashPair(h); !st.ok()) return st.error();
  return true;
}

Status CuckooFilter::AddBatch(std::span<const std::string_view> keys) {
  for (std::string_view key : keys) {
    if (auto st = AddHashPair(internal::HashKeyInline(key)); !st.ok()) return st;
  }
  return {};
}

Status CuckooFilter::AddHashBatch(std::span<const std::uint64_t> hashes) {
  for (std::uint64_t hash : hashes) {
    if (auto st = AddHashPair(ExpandHash(hash)); !st.ok()) return st;
  }
  return {};
}

std::size_t CuckooFilter::MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out[i] = MayContainHashPair(internal::HashKeyInline(keys[i]));
    found += out[i] ? 1U : 0U;
  }
  return found;
}

std::size_t CuckooFilter::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                              std::span<bool> out) const noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    out[i] = MayContainHashPair(ExpandHash(hashes[i]));
    found += out[i] ? 1U : 0U;
  }
  return found;
}

Status CuckooFilter::AddHashPair(HashPair hash) {
  const std::uint32_t b = options_.bucket_size;
  const std::uint32_t f = options_.fingerprint_bits;
  const std::uint32_t fp = Fingerprint(hash, f);
  // 1. A free slot in either bucket of any sub-filter (oldest first, so that space
  //    freed by Remove in a full sub-filter is used again).
  for (SubFilter& t : filters_) {
    Slots slots(t, b, f);
    const Probe p = ProbeOf(hash, fp, t, filters_.front().num_buckets);
    if (slots.Place(p.i1, fp) || slots.Place(p.i2, fp)) {
      ++count_;
      return {};
    }
  }
  // 2. Kicks in the newest sub-filter, whose victim slot must be free to take the
  //    fingerprint a failed chain leaves homeless. A victim from an earlier failure gets
  //    another chain first: removes may have made room.
  SubFilter& last = filters_.back();
  const std::uint32_t victim = last.victim_fingerprint;
  const std::uint64_t victim_bucket = last.victim_bucket;
  bool victim_chain_failed = false;
  if (victim != 0) {
    last.victim_fingerprint = 0;
    last.victim_bucket = 0;
    victim_chain_failed = !InsertWithKicks(filters_.size() - 1, victim, victim_bucket);
  }
  if (filters_.back().victim_fingerprint == 0) {
    InsertWithKicks(filters_.size() - 1, fp, ProbeOf(hash, fp, filters_.back(), filters_.front().num_buckets).i1);
    ++count_;
    return {};
  }
  // 3. Full: grow, or report it. Every stored key stays findable either way. A failed
  //    insert leaves every byte as it was: the victim's failed chain is walked back
  //    (UndoKicks), so that a primary, which replicates only successful writes, and its
  //    replicas hold identical filters.
  if (auto st = Grow(); !st.ok()) {
    if (victim_chain_failed) {
      UndoKicks(filters_.size() - 1);
      filters_.back().victim_fingerprint = victim;
      filters_.back().victim_bucket = victim_bucket;
    }
    return st;
  }
  InsertWithKicks(filters_.size() - 1, fp, ProbeOf(hash, fp, filters_.back(), filters_.front().num_buckets).i1);
  ++count_;
  return {};
}

bool CuckooFilter::MayContainHashPair(HashPair hash) const noexcept {
  const std::uint32_t b = options_.bucket_size;
  const std::uint32_t f = options_.fingerprint_bits;
  const std::uint32_t fp = Fingerprint(hash, f);
  for (const SubFilter& t : filters_) {
    const Slots slots(t, b, f);
    const Probe p = ProbeOf(hash, fp, t, filters_.front().num_buckets);
    if (slots.Has(p.i1, fp) || slots.Has(p.i2, fp) || VictimMatches(t, p)) return true;
  }
  return false;
}

bool CuckooFilter::RemoveHashPair(HashPair hash) noexcept {
  const std::uint32_t b = options_.bucket_size;
  const std::uint32_t f = options_.fingerprint_bits;
  const std::uint32_t fp = Fingerprint(hash, f);
  // Newest first: with growth, recent keys live in the newest sub-filters.
  for (auto it = filters_.rbegin(); it != filters_.rend(); ++it) {
    SubFilter& t = *it;
    Slots slots(t, b, f);
    const Probe p = ProbeOf(hash, fp, t, filters_.front().num_buckets);
    if (VictimMatches(t, p)) {
      t.victim_fingerprint = 0;
      t.victim_bucket = 0;
    } else if (!slots.Erase(p.i1, fp) && !slots.Erase(p.i2, fp)) {
      continue;
    } else if (t.victim_fingerprint != 0) {
      // A slot is free now: give the victim a home if it is one of its two buckets.
      const std::uint64_t alt =
          AltBucket(t.victim_bucket, t.victim_fingerprint, GeometryOf(t, filters_.front().num_buckets));
      if (slots.Place(t.victim_bucket, t.victim_fingerprint) || slots.Place(alt, t.victim_fingerprint)) {
        t.victim_fingerprint = 0;
        t.victim_bucket = 0;
      }
    }
    --count_;
    num_deletes_ = internal::SaturatedCount(num_deletes_, 1);  // a file holds up to kMaxFileCount
    return true;
  }
  return false;
}

std::uint64_t CuckooFilter::OccurrencesHashPair(HashPair hash) const noexcept {
  const std::uint32_t b = options_.bucket_size;
  const std::uint32_t f = options_.fingerprint_bits;
  const std::uint32_t fp = Fingerprint(hash, f);
  std::uint64_t n = 0;
  for (const SubFilter& t : filters_) {
    const Slots slots(t, b, f);
    const Probe p = ProbeOf(hash, fp, t, filters_.front().num_buckets);
    n += slots.Matches(p.i1, fp) + (p.i2 != p.i1 ? slots.Matches(p.i2, fp) : 0) + (VictimMatches(t, p) ? 1 : 0);
  }
  return n;
}

void CuckooFilter::Clear() noexcept {
  filters_.erase(filters_.begin() + 1, filters_.end());
  SubFilter& t = filters_.front();
  std::fill(t.slots.span().begin(), t.slots.span().end(), 0);
  t.victim_fingerprint = 0;
  t.victim_bucket = 0;
  count_ = 0;
  num_deletes_ = 0;
}

std::uint64_t CuckooFilter::capacity() const noexcept {
  // Sub-filter i has expansion^i times the first one's buckets and keys.
  if (filters_.empty()) return 0;
  std::uint64_t total = 0;
  if (!internal::CheckedMul(options_.capacity, num_buckets() / filters_.front().num_buckets, &total)) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return total;
}

std::uint64_t CuckooFilter::num_slots() const noexcept {
  return num_buckets() * options_.bucket_size;
}

std::uint64_t CuckooFilter::num_buckets() const noexcept {
  std::uint64_t total = 0;
  for (const SubFilter& t : filters_) total += t.num_buckets;
  return total;
}

std::size_t CuckooFilter::num_stages() const noexcept {
  return filters_.size();
}

std::uint64_t CuckooFilter::memory_bytes() const noexcept {
  std::uint64_t total = 0;
  for (const SubFilter& t : filters_) total += t.slots.bytes();
  return total;
}

std::uint64_t CuckooFilter::bytes_held() const noexcept {
  std::uint64_t total = filters_.get_allocator().held(filters_.data(), filters_.capacity());
  for (const SubFilter& t : filters_) total += t.slots.bytes_held();
  return total;
}

double CuckooFilter::FillRatio() const noexcept {
  return static_cast<double>(count_) / static_cast<double>(num_slots());
}

double CuckooFilter::EstimatedFpRate() const noexcept {
  const double per_slot = 1.0 / (std::ldexp(1.0, static_cast<int>(options_.fingerprint_bits)) - 1.0);
  const double one = -std::expm1(2.0 * options_.bucket_size * FillRatio() * std::log1p(-per_slot));
  return -std::expm1(static_cast<double>(filters_.size()) * std::log1p(-one));
}

double CuckooFilter::ExpectedFpRate() const noexcept {
  const double one = CuckooFpRate(options_.bucket_size, options_.fingerprint_bits);
  return -std::expm1(static_cast<double>(filters_.size()) * std::log1p(-one));
}

bool operator==(const CuckooFilter& a, const CuckooFilter& b) noexcept {
  const CuckooOptions& x = a.options_;
  const CuckooOptions& y = b.options_;
  if (x.capacity != y.capacity || x.fp_rate != y.fp_rate || x.bucket_size != y.bucket_size ||
      x.fingerprint_bits != y.fingerprint_bits || x.max_kicks != y.max_kicks || x.expansion != y.expansion ||
      x.max_filters != y.max_filters || a.count_ != b.count_ || a.num_deletes_ != b.num_deletes_ ||
      a.filters_.size() != b.filters_.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.filters_.size(); ++i) {
    const CuckooTable& s = a.filters_[i];
    const CuckooTable& t = b.filters_[i];
    if (s.num_buckets != t.num_buckets || s.victim_fingerprint != t.victim_fingerprint ||
        s.victim_bucket != t.victim_bucket ||
        !std::equal(s.slots.span().begin(), s.slots.span().end(), t.slots.span().begin())) {
      return false;
    }
  }
  return true;
}

// Header: capacity and fp_rate as created, count = fingerprints stored (victims too).
// params[0] = bucket_size, [1] = fingerprint_bits, [2] = max_kicks, [3] = expansion,
// [4] = num_filters | max_filters << 32, [5] = num_deletes.
// Payload, per sub-filter, 64-byte aligned:
//   off  0  8  num_buckets
//   off  8  8  victim_bucket (0 when there is no victim)
//   off 16  8  victim_fingerprint (0 = none)
//   off 24 40  reserved, zero
//   off 64     packed slots, ceil(num_buckets * b * f / 8) bytes, zero-padded to 64
std::vector<std::byte> CuckooFilter::Serialize(const SaveOptions& options) const {
  return internal::CollectFile([this](ByteSink sink) { return SerializeTo(sink); }, options);
}

bool CuckooFilter::SerializeTo(ByteSink sink) const noexcept {
  const std::uint32_t b = options_.bucket_size;
  const std::uint32_t f = options_.fingerprint_bits;
  std::uint64_t payload = 0;
  for (const SubFilter& t : filters_) {
    std::uint64_t bytes = 0;
    (void)SlotBytes(t.num_buckets, b, f, &bytes);  // checked when the table was made
    payload += kTableHeaderBytes + AlignUp64(bytes);
  }
  FileHeader header;
  header.kind = kKind;
  header.capacity = options_.capacity;
  header.count = count_;
  header.fp_rate = options_.fp_rate;
  header.payload_bytes = payload;
  header.params[0] = b;
  header.params[1] = f;
  header.params[2] = options_.max_kicks;
  header.params[3] = options_.expansion;
  header.params[4] = filters_.size() | (std::uint64_t{options_.max_filters} << 32);
  header.params[5] = num_deletes_;
  internal::FileStream out(sink);
  if (!out.Begin(header)) return false;
  for (const SubFilter& t : filters_) {
    std::uint64_t bytes = 0;
    (void)SlotBytes(t.num_buckets, b, f, &bytes);
    std::array<std::byte, kTableHeaderBytes> table{};
    internal::StoreLE<std::uint64_t>(table.data(), t.num_buckets);
    internal::StoreLE<std::uint64_t>(table.data() + 8, t.victim_bucket);
    internal::StoreLE<std::uint64_t>(table.data() + 16, t.victim_fingerprint);
    const auto slots =
        std::span<const std::byte>(reinterpret_cast<const std::byte*>(t.slots.data()), static_cast<std::size_t>(bytes));
    if (!out.Put(table) || !out.Put(slots) || !out.PutZeros(AlignUp64(bytes) - bytes)) return false;
  }
  return out.Finish();
}

Result<CuckooFilter> CuckooFilter::Deserialize(std::span<const std::byte> bytes, const LoadOptions& options) {
  auto reader = FilterReader::OpenBytes(bytes, kKind, options.max_memory_bytes);
  if (!reader.ok()) return std::move(reader).error();
  return reader->Load<CuckooFilter>(options);
}

Result<CuckooFilter> CuckooFilter::Deserialize(const FileHeader& h, ByteSource payload, const LoadOptions& options) {
  const std::uint64_t b = h.params[0];
  const std::uint64_t f = h.params[1];
  const std::uint64_t num_filters = h.params[4] & 0xffffffffU;
  const std::uint64_t max_filters = h.params[4] >> 32;
  if (!ValidBucketSize(b)) return MakeError(ErrorCode::kParameterMismatch, "bucket size ", b, " is not 2, 4 or 8");
  if (!ValidFingerprintBits(f)) {
    return MakeError(ErrorCode::kParameterMismatch, "fingerprint bits ", f, " is not 8, 12 or 16");
  }
  if (h.params[2] > kMaxCuckooKicks) {
    return MakeError(ErrorCode::kParameterMismatch, "max kicks ", h.params[2], " is not in [0, ", kMaxCuckooKicks, "]");
  }
  if (h.params[3] > kMaxCuckooExpansion || (h.params[3] & (h.params[3] - 1)) != 0) {
    return MakeError(ErrorCode::kParameterMismatch, "expansion ", h.params[3], " is not 0 or a power of two up to ",
                     kMaxCuckooExpansion);
  }
  if (max_filters == 0 || max_filters > kMaxCuckooFilters) {
    return MakeError(ErrorCode::kParameterMismatch, "max filters ", max_filters, " is not in [1, ", kMaxCuckooFilters,
                     "]");
  }
  if (num_filters == 0 || num_filters > max_filters || (h.params[3] == 0 && num_filters != 1)) {
    return MakeError(ErrorCode::kParameterMismatch, "number of sub-filters ", num_filters, " is not in [1, ",
                     h.params[3] == 0 ? 1 : max_filters, "]");
  }
  if (h.capacity == 0) return MakeError(ErrorCode::kParameterMismatch, "capacity is 0");
  if (!(h.fp_rate > 0)) return MakeError(ErrorCode::kParameterMismatch, "fp_rate ", h.fp_rate, " is not in (0, 1)");

  CuckooFilter filter;
  filter.options_ = {.capacity = h.capacity,
                     .fp_rate = h.fp_rate,
                     .bucket_size = static_cast<std::uint32_t>(b),
                     .fingerprint_bits = static_cast<std::uint32_t>(f),
                     .max_kicks = static_cast<std::uint32_t>(h.params[2]),
                     .expansion = static_cast<std::uint32_t>(h.params[3]),
                     .max_filters = static_cast<std::uint32_t>(max_filters),
                     .max_memory_bytes = options.max_memory_bytes};
  if (h.params[5] > kMaxFileCount) {
    return MakeError(ErrorCode::kParameterMismatch, "delete count ", h.params[5],
                     " is over the largest count a filter keeps, ", kMaxFileCount);
  }
  filter.num_deletes_ = h.params[5];
  try {
    filter.filters_.reserve(static_cast<std::size_t>(num_filters));  // else each append moves every table
  } catch (const std::bad_alloc&) {
    return MakeError(ErrorCode::kTooLarge, "out of memory for a list of ", num_filters, " sub-filters");
  }

  // Each sub-filter's header is checked before its slots are allocated; the slots are
  // then read straight into the table. The payload's length (checked against the
  // memory limit) bounds the sum of what is allocated.
  const std::uint64_t payload_bytes = h.payload_bytes;
  std::uint64_t offset = 0;
  std::uint64_t prev_buckets = 0;
  std::uint64_t stored = 0;
  for (std::uint64_t i = 0; i < num_filters; ++i) {
    if (payload_bytes - offset < kTableHeaderBytes) {
      return MakeError(ErrorCode::kParameterMismatch, "payload ends inside the header of sub-filter ", i);
    }
    std::array<std::byte, kTableHeaderBytes> table_header{};
    if (Status st = payload(table_header); !st.ok()) return std::move(st).error();
    const std::byte* p = table_header.data();
    const auto num_buckets = internal::LoadLE<std::uint64_t>(p);
    std::uint64_t want = 0;
    if (num_buckets == 0 ||
        (i > 0 && (!internal::CheckedMul(prev_buckets, h.params[3], &want) || want != num_buckets))) {
      return MakeError(ErrorCode::kParameterMismatch, "sub-filter ", i, " has ", num_buckets, " buckets, expected ",
                       i == 0 ? std::string("at least 1") : std::to_string(want));
    }
    std::uint64_t slot_bytes = 0;
    if (!SlotBytes(num_buckets, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(f), &slot_bytes) ||
        AlignUp64(slot_bytes) > payload_bytes - offset - kTableHeaderBytes) {
      return MakeError(ErrorCode::kParameterMismatch, "sub-filter ", i, " of ", num_buckets,
                       " buckets does not fit in the ", payload_bytes, "-byte payload");
    }
    for (std::size_t j = 24; j < kTableHeaderBytes; ++j) {
      if (p[j] != std::byte{0}) return MakeError(ErrorCode::kReservedNonZero, "sub-filter ", i, " reserved bytes");
    }
    const auto victim_bucket = internal::LoadLE<std::uint64_t>(p + 8);
    const auto victim_fp = internal::LoadLE<std::uint64_t>(p + 16);
    if (victim_fp >= (std::uint64_t{1} << f) || victim_bucket >= num_buckets ||
        (victim_fp == 0 && victim_bucket != 0)) {
      return MakeError(ErrorCode::kParameterMismatch, "sub-filter ", i, " has a victim fingerprint ", victim_fp,
                       " in bucket ", victim_bucket, " of ", num_buckets);
    }
    auto table = AllocateTable(num_buckets, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(f),
                               options.max_memory_bytes);
    if (!table.ok()) return std::move(table).error();
    auto* slots_out = reinterpret_cast<std::byte*>(table->slots.data());
    if (Status st = payload(std::span(slots_out, static_cast<std::size_t>(slot_bytes))); !st.ok()) {
      return std::move(st).error();
    }
    std::array<std::byte, 64> padding{};
    const auto padding_bytes = static_cast<std::size_t>(AlignUp64(slot_bytes) - slot_bytes);
    if (Status st = payload(std::span(padding.data(), padding_bytes)); !st.ok()) return std::move(st).error();
    for (std::size_t j = 0; j < padding_bytes; ++j) {
      if (padding[j] != std::byte{0}) {
        return MakeError(ErrorCode::kReservedNonZero, "padding after sub-filter ", i, " is not zero");
      }
    }
    table->victim_bucket = victim_bucket;
    table->victim_fingerprint = static_cast<std::uint32_t>(victim_fp);
    if (i > 0) {
      table->tail_bits = filter.filters_.back().tail_bits + static_cast<std::uint32_t>(std::countr_zero(h.params[3]));
    }
    const Slots slots(table.value(), static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(f));
    for (std::uint64_t s = 0; s < num_buckets * b; ++s) stored += slots.Get(s) != 0 ? 1U : 0U;
    stored += victim_fp != 0 ? 1U : 0U;
    if (Status st = filter.AppendTable(std::move(table).value()); !st.ok()) return std::move(st).error();
    offset += kTableHeaderBytes + AlignUp64(slot_bytes);
    prev_buckets = num_buckets;
  }
  if (offset != payload_bytes) {
    return MakeError(ErrorCode::kParameterMismatch, "payload of ", payload_bytes, " bytes does not match its ",
                     num_filters, " sub-filters (", offset, " bytes)");
  }
  if (stored != h.count) {
    return MakeError(ErrorCode::kParameterMismatch, "header count ", h.count, " differs from the ", stored,
                     " fingerprints stored");
  }
  filter.count_ = stored;
  return filter;
}

}  // namespace bloomkit
