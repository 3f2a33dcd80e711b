// SPDX-License-Identifier: Apache-2.0
// RedisBloom's cuckoo filter, bit-exact (redisbloom.h has the rules, internal/
// redisbloom_cuckoo.h where a bucket lives). Every arithmetic step mirrors the one
// RedisBloom 2.8's cuckoo.c performs, in the same types.
#include "internal/redisbloom_cuckoo.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "bloomkit/format.h"
#include "bloomkit/hash.h"
#include "bloomkit/redisbloom.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/filter_common.h"
#include "internal/message.h"
#include "internal/redisbloom_builder.h"

namespace bloomkit {
namespace {

using internal::MakeError;

std::uint64_t WordsFor(std::uint64_t bytes) noexcept {
  return bytes / 8 + (bytes % 8 != 0 ? 1 : 0);
}

// nextpow2 as RedisBloom's cuckoo.c computes it: 0 stays 0, powers of two stay.
std::uint64_t NextPow2(std::uint64_t n) noexcept {
  n--;
  n |= n >> 1;
  n |= n >> 2;
  n |= n >> 4;
  n |= n >> 8;
  n |= n >> 16;
  n |= n >> 32;
  return n + 1;
}

bool IsPow2(std::uint64_t n) noexcept {
  return n != 0 && (n & (n - 1)) == 0;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// RedisCuckooFilter.

namespace {

// Every bucket offset comes from the one function, on every path (redisbloom_cuckoo.h).
using internal::RedisCuckooAltHash;
using internal::RedisCuckooFilterBuckets;
using internal::RedisCuckooSlotOffset;

std::uint8_t* FindIn(std::uint8_t* bucket, std::uint32_t bucket_size, std::uint8_t fp) noexcept {
  for (std::uint32_t i = 0; i < bucket_size; ++i) {
    if (bucket[i] == fp) return bucket + i;
  }
  return nullptr;
}

std::uint32_t CountIn(const std::uint8_t* bucket, std::uint32_t bucket_size, std::uint8_t fp) noexcept {
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < bucket_size; ++i) n += bucket[i] == fp ? 1U : 0U;
  return n;
}

}  // namespace

RedisCuckooFilter::Lookup RedisCuckooFilter::LookupOf(std::string_view key) noexcept {
  return LookupOfHash(RedisBloomMurmurHash64A(key, 0));
}

RedisCuckooFilter::Lookup RedisCuckooFilter::LookupOfHash(std::uint64_t hash) noexcept {
  const auto fp = static_cast<std::uint8_t>(hash % 255 + 1);
  return {hash, RedisCuckooAltHash(fp, hash), fp};
}

Result<RedisCuckooFilter> RedisCuckooFilter::Create(const RedisCuckooOptions& options) {
  if (options.bucket_size < 1 || options.bucket_size > kRedisCuckooMaxBucketSize) {
    return MakeError(ErrorCode::kInvalidArgument, "bucket size must be in [1, ", kRedisCuckooMaxBucketSize, "], got ",
                     options.bucket_size);
  }
  if (options.max_iterations < 1 || options.max_iterations > kRedisCuckooMaxIterations) {
    return MakeError(ErrorCode::kInvalidArgument, "max iterations must be in [1, ", kRedisCuckooMaxIterations,
                     "], got ", options.max_iterations);
  }
  if (options.expansion > kRedisCuckooMaxExpansion) {
    return MakeError(ErrorCode::kInvalidArgument, "expansion must be in [0, ", kRedisCuckooMaxExpansion, "], got ",
                     options.expansion);
  }
  if (options.capacity < std::uint64_t{2} * options.bucket_size) {
    return MakeError(ErrorCode::kInvalidArgument, "capacity must be at least 2 * bucket size (",
                     2 * options.bucket_size, "), got ", options.capacity);
  }
  const std::uint64_t per_bucket = options.capacity / options.bucket_size;
  if (per_bucket > (std::uint64_t{1} << 55)) {
    return MakeError(ErrorCode::kTooLarge, "capacity ", options.capacity, " needs more than 2^55 buckets");
  }
  RedisCuckooFilter f;
  f.expansion_ = static_cast<std::uint32_t>(NextPow2(options.expansion));
  f.bucket_size_ = options.bucket_size;
  f.max_iterations_ = options.max_iterations;
  f.num_buckets_ = std::max<std::uint64_t>(NextPow2(per_bucket), 1);
  f.max_memory_bytes_ = options.max_memory_bytes;
  Status grown = f.Grow();
  if (!grown.ok()) return grown.error();
  return f;
}

Status RedisCuckooFilter::Grow() {
  if (filters_.size() >= kRedisCuckooMaxFilters) {
    return MakeError(ErrorCode::kTooLarge, "the filter already has ", filters_.size(), " sub-filters (at most ",
                     kRedisCuckooMaxFilters, ")");
  }
  std::uint64_t buckets = 0;
  if (!RedisCuckooFilterBuckets(num_buckets_, expansion_, filters_.size(), &buckets)) {
    return MakeError(ErrorCode::kTooLarge, "sub-filter ", filters_.size(), " would have more than 2^56 buckets");
  }
  std::uint64_t bytes = 0;
  const std::uint64_t held = memory_bytes();
  std::uint64_t arrays = 0;  // the file payload (header, arrays, padding) must fit too
  for (const SubFilter& f : filters_) arrays += f.num_buckets * bucket_size_;
  std::uint64_t payload = 0;
  if (!internal::CheckedMul(buckets, bucket_size_, &bytes) || bytes > max_memory_bytes_ ||
      held > max_memory_bytes_ - bytes ||
      !internal::RedisBloomFilePayloadBytes(internal::kRedisCuckooHeaderBytes, arrays + bytes, &payload) ||
      payload > max_memory_bytes_) {
    return MakeError(ErrorCode::kTooLarge, "a sub-filter of ", buckets, " buckets of ", bucket_size_,
                     " would take the filter past its limit of ", max_memory_bytes_, " bytes");
  }
  SubFilter sub{buckets, WordArray::Allocate(WordsFor(bytes))};
  if (!sub.data.ok()) return MakeError(ErrorCode::kTooLarge, "out of memory for a sub-filter of ", bytes, " bytes");
  filters_.push_back(std::move(sub));
  return {};
}

Result<RedisCuckooFilter> RedisCuckooFilter::FromParams(const RedisCuckooParams& p, const LoadOptions& options) {
  if (p.bucket_size < 1 || p.bucket_size > kRedisCuckooMaxBucketSize) {
    return MakeError(ErrorCode::kParameterMismatch, "bucket size ", p.bucket_size, " is not in [1, ",
                     kRedisCuckooMaxBucketSize, "]");
  }
  if (p.max_iterations < 1 || p.max_iterations > kRedisCuckooMaxIterations) {
    return MakeError(ErrorCode::kParameterMismatch, "max iterations ", p.max_iterations, " is not in [1, ",
                     kRedisCuckooMaxIterations, "]");
  }
  if (p.expansion > kRedisCuckooMaxExpansion || (p.expansion != 0 && !IsPow2(p.expansion))) {
    return MakeError(ErrorCode::kParameterMismatch, "expansion ", p.expansion, " is not 0 or a power of two up to ",
                     kRedisCuckooMaxExpansion);
  }
  if (!IsPow2(p.num_buckets) || p.num_buckets > kRedisCuckooMaxBuckets) {
    return MakeError(ErrorCode::kParameterMismatch, "number of buckets ", p.num_buckets,
                     " is not a power of two below 2^56");
  }
  if (p.num_stages < 1 || p.num_stages > kRedisCuckooMaxFilters || (p.expansion == 0 && p.num_stages > 1)) {
    return MakeError(ErrorCode::kParameterMismatch, "number of sub-filters ", p.num_stages, " is not in [1, ",
                     p.expansion == 0 ? 1 : kRedisCuckooMaxFilters, "]");
  }
  // Every size first, then the allocations.
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < p.num_stages; ++i) {
    std::uint64_t buckets = 0;
    std::uint64_t bytes = 0;
    if (!RedisCuckooFilterBuckets(p.num_buckets, p.expansion, i, &buckets) ||
        !internal::CheckedMul(buckets, p.bucket_size, &bytes) || !internal::CheckedAdd(total, bytes, &total) ||
        total > options.max_memory_bytes) {
      return MakeError(ErrorCode::kTooLarge, p.num_stages, " sub-filters of ", p.num_buckets, " buckets of ",
                       p.bucket_size, " growing by ", p.expansion, " exceed the limit of ", options.max_memory_bytes,
                       " bytes");
    }
  }
  std::uint64_t payload = 0;
  if (!internal::RedisBloomFilePayloadBytes(internal::kRedisCuckooHeaderBytes, total, &payload) ||
      payload > options.max_memory_bytes) {
    return MakeError(ErrorCode::kTooLarge, "sub-filters of ", total, " bytes and their header exceed the limit of ",
                     options.max_memory_bytes, " bytes");
  }
  // RedisBloom keeps both counts in 64 bits; here they stay at most what a file holds,
  // as Insert and RemoveLookup keep them.
  if (p.num_items > kMaxFileCount || p.num_deletes > kMaxFileCount) {
    return MakeError(ErrorCode::kParameterMismatch, "item count ", p.num_items, " or delete count ", p.num_deletes,
                     " is over the largest count a filter keeps, ", kMaxFileCount);
  }
  RedisCuckooFilter f;
  f.num_buckets_ = p.num_buckets;
  f.num_items_ = p.num_items;
  f.num_deletes_ = p.num_deletes;
  f.bucket_size_ = p.bucket_size;
  f.max_iterations_ = p.max_iterations;
  f.expansion_ = p.expansion;
  f.max_memory_bytes_ = options.max_memory_bytes;
  f.filters_.reserve(static_cast<std::size_t>(p.num_stages));
  for (std::uint64_t i = 0; i < p.num_stages; ++i) {
    std::uint64_t buckets = 0;
    (void)RedisCuckooFilterBuckets(p.num_buckets, p.expansion, i, &buckets);
    SubFilter sub{buckets, WordArray::Allocate(WordsFor(buckets * p.bucket_size))};
    if (!sub.data.ok()) return MakeError(ErrorCode::kTooLarge, "out of memory for sub-filter ", i);
    f.filters_.push_back(std::move(sub));
  }
  return f;
}

bool RedisCuckooFilter::Contains(const Lookup& l) const noexcept {
  for (const SubFilter& f : filters_) {
    const std::uint8_t* s = f.slots();
    if (FindIn(const_cast<std::uint8_t*>(s) + RedisCuckooSlotOffset(l.h1, f.num_buckets, bucket_size_), bucket_size_,
               l.fp) != nullptr ||
        FindIn(const_cast<std::uint8_t*>(s) + RedisCuckooSlotOffset(l.h2, f.num_buckets, bucket_size_), bucket_size_,
               l.fp) != nullptr) {
      return true;
    }
  }
  return false;
}

bool RedisCuckooFilter::MayContain(std::string_view key) const noexcept {
  return Contains(LookupOf(key));
}

std::uint64_t RedisCuckooFilter::Occurrences(std::string_view key) const noexcept {
  return CountOf(LookupOf(key));
}

std::uint64_t RedisCuckooFilter::OccurrencesHash(std::uint64_t hash) const noexcept {
  return CountOf(LookupOfHash(hash));
}

bool RedisCuckooFilter::MayContainHash(std::uint64_t hash) const noexcept {
  return Contains(LookupOfHash(hash));
}

std::uint64_t RedisCuckooFilter::CountOf(const Lookup& l) const noexcept {
  std::uint64_t n = 0;
  for (const SubFilter& f : filters_) {
    n += CountIn(f.slots() + RedisCuckooSlotOffset(l.h1, f.num_buckets, bucket_size_), bucket_size_, l.fp);
    n += CountIn(f.slots() + RedisCuckooSlotOffset(l.h2, f.num_buckets, bucket_size_), bucket_size_, l.fp);
  }
  return n;
}

std::uint8_t* RedisCuckooFilter::FindFree(SubFilter& f, std::uint64_t h1, std::uint64_t h2) const noexcept {
  std::uint8_t* slot = FindIn(f.slots() + RedisCuckooSlotOffset(h1, f.num_buckets, bucket_size_), bucket_size_, 0);
  if (slot == nullptr) {
    slot = FindIn(f.slots() + RedisCuckooSlotOffset(h2, f.num_buckets, bucket_size_), bucket_size_, 0);
  }
  return slot;
}

// Evictions inside the newest sub-filter. The resident at `victim` of the current bucket
// is swapped with the fingerprint in hand, which then goes to its other bucket; the
// victim position advances by one per step. On failure every swap is undone in reverse,
// so the sub-filter is as before and the original fingerprint is in hand again. Each
// bucket is found by RedisCuckooSlotOffset, as lookups find it: in a sub-filter of more
// than 2^32 slots the offset wraps, and an item placed at the unwrapped one (as
// RedisBloom's Filter_KOInsert places it) was never found again.
bool RedisCuckooFilter::KickInsert(SubFilter& f, const Lookup& l) noexcept {
  const std::uint64_t n = f.num_buckets;
  const std::uint32_t b = bucket_size_;
  std::uint8_t* slots = f.slots();
  std::uint8_t fp = l.fp;
  std::uint32_t victim = 0;
  std::uint64_t index = l.h1 % n;
  for (std::uint32_t step = 0; step < max_iterations_; ++step) {
    std::swap(slots[RedisCuckooSlotOffset(index, n, b) + victim], fp);
    index = RedisCuckooAltHash(fp, index) % n;
    if (std::uint8_t* empty = FindIn(slots + RedisCuckooSlotOffset(index, n, b), b, 0); empty != nullptr) {
      *empty = fp;
      return true;
    }
    victim = (victim + 1) % b;
  }
  for (std::uint32_t step = 0; step < max_iterations_; ++step) {
    victim = (victim + b - 1) % b;
    index = RedisCuckooAltHash(fp, index) % n;
    std::swap(slots[RedisCuckooSlotOffset(index, n, b) + victim], fp);
  }
  return false;
}

Status RedisCuckooFilter::Insert(const Lookup& l) {
  // The item count decides when deletes compact the filter and is saved: at the most a
  // filter counts (options.h) the insert is refused (CF.ADD: "Filter is full").
  if (num_items_ >= kMaxFileCount) {
    return MakeError(ErrorCode::kFull, "cuckoo filter is full: it counts ", num_items_,
                     " items, the most a filter keeps (2^63 - 1)");
  }
  for (;;) {
    for (std::size_t i = filters_.size(); i-- > 0;) {
      if (std::uint8_t* slot = FindFree(filters_[i], l.h1, l.h2); slot != nullptr) {
        *slot = l.fp;
        ++num_items_;
        return {};
      }
    }
    if (KickInsert(filters_.back(), l)) {
      ++num_items_;
      return {};
    }
    if (expansion_ == 0) {
      return MakeError(ErrorCode::kFull, "cuckoo filter is full (", capacity(), " slots, expansion 0)");
    }
    Status grown = Grow();
    if (!grown.ok()) return grown;
  }
}

Status RedisCuckooFilter::Add(std::string_view key) {
  return Insert(LookupOf(key));
}

Status RedisCuckooFilter::AddHash(std::uint64_t hash) {
  return Insert(LookupOfHash(hash));
}

Result<bool> RedisCuckooFilter::AddIfAbsentLookup(const Lookup& l) {
  if (Contains(l)) return false;
  Status inserted = Insert(l);
  if (!inserted.ok()) return inserted.error();
  return true;
}

Result<bool> RedisCuckooFilter::AddIfAbsent(std::string_view key) {
  return AddIfAbsentLookup(LookupOf(key));
}

Result<bool> RedisCuckooFilter::AddHashIfAbsent(std::uint64_t hash) {
  return AddIfAbsentLookup(LookupOfHash(hash));
}

Status RedisCuckooFilter::AddBatch(std::span<const std::string_view> keys) {
  for (std::string_view key : keys) {
    if (Status st = Add(key); !st.ok()) return st;
  }
  return {};
}

Status RedisCuckooFilter::AddHashBatch(std::span<const std::uint64_t> hashes) {
  for (std::uint64_t hash : hashes) {
    if (Status st = AddHash(hash); !st.ok()) return st;
  }
  return {};
}

std::size_t RedisCuckooFilter::MayContainBatch(std::span<const std::string_view> keys,
                                               std::span<bool> out) const noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) found += (out[i] = MayContain(keys[i])) ? 1U : 0U;
  return found;
}

std::size_t RedisCuckooFilter::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                                   std::span<bool> out) const noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < hashes.size(); ++i) found += (out[i] = MayContainHash(hashes[i])) ? 1U : 0U;
  return found;
}

// resize(1) only shrinks, see the header.
// NOLINTNEXTLINE(bugprone-exception-escape)
void RedisCuckooFilter::Clear() noexcept {
  filters_.resize(1);
  std::span<std::uint64_t> words = filters_.front().data.span();
  std::fill(words.begin(), words.end(), std::uint64_t{0});
  num_items_ = 0;
  num_deletes_ = 0;
}

bool RedisCuckooFilter::Remove(std::string_view key) noexcept {
  return RemoveLookup(LookupOf(key));
}

bool RedisCuckooFilter::RemoveHash(std::uint64_t hash) noexcept {
  return RemoveLookup(LookupOfHash(hash));
}

bool RedisCuckooFilter::RemoveLookup(const Lookup& l) noexcept {
  for (std::size_t i = filters_.size(); i-- > 0;) {
    SubFilter& f = filters_[i];
    std::uint8_t* slot =
        FindIn(f.slots() + RedisCuckooSlotOffset(l.h1, f.num_buckets, bucket_size_), bucket_size_, l.fp);
    if (slot == nullptr) {
      slot = FindIn(f.slots() + RedisCuckooSlotOffset(l.h2, f.num_buckets, bucket_size_), bucket_size_, l.fp);
    }
    if (slot == nullptr) continue;
    *slot = 0;
    // A count loaded below the fingerprints stored (a LOADCHUNK that stopped after the
    // header) stays at 0 where RedisBloom's wraps to 2^64 - 1, which no file holds.
    if (num_items_ > 0) --num_items_;
    num_deletes_ = internal::SaturatedCount(num_deletes_, 1);
    if (filters_.size() > 1 && static_cast<double>(num_deletes_) > static_cast<double>(num_items_) * 0.10) {
      Compact(false);
    }
    return true;
  }
  return false;
}

// Moves every fingerprint of sub-filter `index` into a free slot of an older sub-filter,
// trying them oldest first. A fingerprint of bucket j of a larger sub-filter has bucket
// j mod n there and its alternate follows from j alone, since sizes are powers of two.
// Drops the sub-filter when it emptied and is the newest. False if one did not fit. A
// sub-filter whose wrapped offsets do not tell a slot's bucket (more than 2^32 slots in
// buckets of a size that is not a power of two) keeps its fingerprints where they are:
// moved under a guessed bucket, one would be lost to lookups.
bool RedisCuckooFilter::CompactOne(std::size_t index) noexcept {
  SubFilter& cur = filters_[index];
  if (!internal::RedisCuckooSlotsTellBuckets(cur.num_buckets, bucket_size_)) return false;
  bool all_moved = true;
  for (std::uint64_t bucket = 0; bucket < cur.num_buckets; ++bucket) {
    for (std::uint32_t s = 0; s < bucket_size_; ++s) {
      std::uint8_t& slot = cur.slots()[bucket * bucket_size_ + s];
      if (slot == 0) continue;
      const std::uint64_t h2 = RedisCuckooAltHash(slot, bucket);
      bool moved = false;
      for (std::size_t j = 0; j < index && !moved; ++j) {
        if (std::uint8_t* free = FindFree(filters_[j], bucket, h2); free != nullptr) {
          *free = slot;
          slot = 0;
          moved = true;
        }
      }
      if (!moved) all_moved = false;
    }
  }
  if (all_moved && index == filters_.size() - 1) filters_.pop_back();
  return all_moved;
}

void RedisCuckooFilter::Compact(bool keep_going) noexcept {
  for (std::size_t i = filters_.size(); i-- > 1;) {
    if (!CompactOne(i) && !keep_going) break;
  }
  num_deletes_ = 0;
}

std::uint64_t RedisCuckooFilter::capacity() const noexcept {
  std::uint64_t total = 0;
  for (const SubFilter& f : filters_) total += f.num_buckets * bucket_size_;
  return total;
}

double RedisCuckooFilter::EstimatedFpRate() const noexcept {
  // A query compares its fingerprint with the 2b slots of its two buckets per sub-filter;
  // each stored fingerprint matches with probability 1/255.
  const double slots = static_cast<double>(capacity());
  if (slots == 0) return 0;
  const double load = static_cast<double>(num_items_) / slots;
  const double per_filter = 2.0 * bucket_size_ * load;
  return 1 - std::pow(1 - 1.0 / 255, per_filter * static_cast<double>(filters_.size()));
}

double RedisCuckooFilter::ExpectedFpRate() const noexcept {
  return 1 - std::pow(1 - 1.0 / 255, 2.0 * bucket_size_ * static_cast<double>(filters_.size()));
}

double RedisCuckooFilter::fp_rate() const noexcept {
  return 1 - std::pow(1 - 1.0 / 255, 2.0 * bucket_size_);
}

double RedisCuckooFilter::FillRatio() const noexcept {
  const std::uint64_t slots = capacity();
  return slots == 0 ? 0 : static_cast<double>(num_items_) / static_cast<double>(slots);
}

std::uint64_t RedisCuckooFilter::redisbloom_size() const noexcept {
  return 40 + 16 * filters_.size() + capacity();
}

std::uint64_t RedisCuckooFilter::memory_bytes() const noexcept {
  std::uint64_t total = filters_.capacity() * sizeof(SubFilter);
  for (const SubFilter& f : filters_) total += f.data.bytes();
  return total;
}

std::uint64_t RedisCuckooFilter::bytes_held() const noexcept {
  std::uint64_t total = filters_.get_allocator().held(filters_.data(), filters_.capacity());
  for (const SubFilter& f : filters_) total += f.data.bytes_held();
  return total;
}

RedisCuckooParams RedisCuckooFilter::params() const noexcept {
  return {.num_items = num_items_,
          .num_buckets = num_buckets_,
          .num_deletes = num_deletes_,
          .num_stages = filters_.size(),
          .bucket_size = bucket_size_,
          .max_iterations = max_iterations_,
          .expansion = expansion_};
}

std::span<const std::byte> RedisCuckooFilter::filter_data(std::size_t i) const noexcept {
  return {reinterpret_cast<const std::byte*>(filters_[i].data.data()),
          static_cast<std::size_t>(filters_[i].num_buckets * bucket_size_)};
}

std::span<std::byte> RedisCuckooFilter::filter_data(std::size_t i) noexcept {
  return {reinterpret_cast<std::byte*>(filters_[i].data.data()),
          static_cast<std::size_t>(filters_[i].num_buckets * bucket_size_)};
}

std::uint64_t RedisCuckooFilter::CountOccupiedSlots() const noexcept {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < filters_.size(); ++i) {
    for (const std::byte b : filter_data(i)) n += b != std::byte{0} ? 1U : 0U;
  }
  return n;
}

bool operator==(const RedisCuckooFilter& a, const RedisCuckooFilter& b) noexcept {
  if (!(a.params() == b.params())) return false;
  for (std::size_t i = 0; i < a.filters_.size(); ++i) {
    const auto x = a.filter_data(i);
    const auto y = b.filter_data(i);
    if (!std::equal(x.begin(), x.end(), y.begin(), y.end())) return false;
  }
  return true;
}

}  // namespace bloomkit
