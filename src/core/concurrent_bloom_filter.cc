// SPDX-License-Identifier: Apache-2.0
// Lock-free concurrent forms of the classic and blocked filters (concurrent_bloom_filter.h).
#include "bloomkit/concurrent_bloom_filter.h"

#include <algorithm>
#include <atomic>

#include "internal/blocked_kernels.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"
#include "internal/message.h"

namespace bloomkit {
namespace {

static_assert(std::atomic_ref<std::uint64_t>::required_alignment <= alignof(std::uint64_t));
static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);

// The words are plain uint64_t owned by the wrapped filter (so that the bit layout,
// copies and the file format stay theirs); every concurrent access goes through these.
inline std::uint64_t FetchOr(std::uint64_t& word, std::uint64_t mask) noexcept {
  return std::atomic_ref<std::uint64_t>(word).fetch_or(mask, std::memory_order_relaxed);
}

inline std::uint64_t Load(const std::uint64_t& word) noexcept {
  // atomic_ref<const T> arrives in C++26; the object itself is not const.
  return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(word)).load(std::memory_order_relaxed);
}

inline void Increment(std::uint64_t& counter) noexcept {
  std::atomic_ref<std::uint64_t>(counter).fetch_add(1, std::memory_order_relaxed);
}

// A file of the wrapped kind whose payload is read word by word with atomic loads (a
// plain copy of the words would race with concurrent fetch-ors). The header is filled
// as BloomFilter::Serialize and BlockedBloomFilter::Serialize fill it: params[0] =
// num_bits or num_blocks, params[1] = num_hashes; tests compare the bytes of both.
std::vector<std::byte> EncodeAtomically(FilterKind kind, std::uint64_t capacity, std::uint64_t count, double fp_rate,
                                        std::uint64_t param0, std::uint32_t num_hashes,
                                        std::span<const std::uint64_t> words, const SaveOptions& options) {
  FileHeader header;
  header.kind = kind;
  header.capacity = capacity;
  header.count = count;
  header.fp_rate = fp_rate;
  header.payload_bytes = words.size_bytes();
  header.params[0] = param0;
  header.params[1] = num_hashes;
  return internal::EncodeFile(
      header,
      [&](std::span<std::byte> out) {
        for (std::size_t i = 0; i < words.size(); ++i)
          internal::StoreLE<std::uint64_t>(out.data() + 8 * i, Load(words[i]));
      },
      options);
}

constexpr LoadOptions kNoLimit{.max_memory_bytes = ~std::uint64_t{0}};

}  // namespace

// ---- ConcurrentBloomFilter ----

ConcurrentBloomFilter::ConcurrentBloomFilter(BloomFilter filter) noexcept
    : filter_(std::move(filter)), count_(filter_.count()) {}

Result<ConcurrentBloomFilter> ConcurrentBloomFilter::Create(const BloomOptions& options) {
  auto filter = BloomFilter::Create(options);
  if (!filter.ok()) return std::move(filter).error();
  return ConcurrentBloomFilter(std::move(filter).value());
}

Result<ConcurrentBloomFilter> ConcurrentBloomFilter::Deserialize(std::span<const std::byte> bytes,
                                                                 const LoadOptions& options) {
  auto filter = BloomFilter::Deserialize(bytes, options);
  if (!filter.ok()) return std::move(filter).error();
  return ConcurrentBloomFilter(std::move(filter).value());
}

std::vector<std::byte> ConcurrentBloomFilter::Serialize(const SaveOptions& options) const {
  return EncodeAtomically(kKind, filter_.capacity(), count(), filter_.fp_rate(), filter_.num_bits(),
                          filter_.num_hashes(), filter_.words(), options);
}

void ConcurrentBloomFilter::Add(std::string_view key) noexcept {
  AddHashPair(internal::HashKeyInline(key));
}
bool ConcurrentBloomFilter::AddIfAbsent(std::string_view key) noexcept {
  return AddHashPair(internal::HashKeyInline(key));
}
bool ConcurrentBloomFilter::MayContain(std::string_view key) const noexcept {
  return MayContainHashPair(internal::HashKeyInline(key));
}

bool ConcurrentBloomFilter::AddHashPair(HashPair hash) noexcept {
  std::uint64_t* words = const_cast<BloomFilter&>(filter_).mutable_words().data();
  std::uint64_t fresh = 0;
  ForEachProbe(hash, filter_.num_bits(), filter_.num_hashes(), [&](std::uint64_t pos) {
    const std::uint64_t mask = std::uint64_t{1} << (pos & 63);
    std::uint64_t& word = words[pos >> 6];
    // Skip the locked read-modify-write when the bit is already there (the common case
    // for a filter near capacity: about half its bits are set).
    if ((Load(word) & mask) == 0) fresh |= ~FetchOr(word, mask) & mask;
    return true;
  });
  if (fresh != 0) Increment(count_);
  return fresh != 0;
}

bool ConcurrentBloomFilter::MayContainHashPair(HashPair hash) const noexcept {
  const std::uint64_t* words = filter_.words().data();
  bool all = true;
  ForEachProbe(hash, filter_.num_bits(), filter_.num_hashes(), [&](std::uint64_t pos) {
    all = ((Load(words[pos >> 6]) >> (pos & 63)) & 1U) != 0;
    return all;
  });
  return all;
}

BloomFilter ConcurrentBloomFilter::Snapshot() const {
  // Through the file form: it carries every field, and its reader checks them.
  return BloomFilter::Deserialize(Serialize(), kNoLimit).value();
}

void ConcurrentBloomFilter::Clear() noexcept {
  filter_.Clear();
  count_ = 0;
}

std::uint64_t ConcurrentBloomFilter::count() const noexcept {
  return Load(count_);
}

// ---- ConcurrentBlockedBloomFilter ----

ConcurrentBlockedBloomFilter::ConcurrentBlockedBloomFilter(BlockedBloomFilter filter) noexcept
    : filter_(std::move(filter)), count_(filter_.count()) {
  internal::MakeLaneEnable(filter_.num_hashes(), lane_enable_);
}

namespace {

// The concurrent blocked filter implements the 512-bit layout only.
Result<ConcurrentBlockedBloomFilter> WrapBlocked(Result<BlockedBloomFilter> filter,
                                                 Result<ConcurrentBlockedBloomFilter> (*make)(BlockedBloomFilter)) {
  if (!filter.ok()) return std::move(filter).error();
  if (filter->layout() != BlockedLayout::kLines512) {
    return internal::MakeError(ErrorCode::kUnsupported,
                               "a concurrent blocked filter needs 512-bit blocks (layout 0), got layout ",
                               static_cast<int>(filter->layout()));
  }
  return make(std::move(filter).value());
}

}  // namespace

Result<ConcurrentBlockedBloomFilter> ConcurrentBlockedBloomFilter::Create(const BloomOptions& options) {
  return WrapBlocked(BlockedBloomFilter::Create(options),
                     [](BlockedBloomFilter f) -> Result<ConcurrentBlockedBloomFilter> {
                       return ConcurrentBlockedBloomFilter(std::move(f));
                     });
}

Result<ConcurrentBlockedBloomFilter> ConcurrentBlockedBloomFilter::Deserialize(std::span<const std::byte> bytes,
                                                                               const LoadOptions& options) {
  return WrapBlocked(BlockedBloomFilter::Deserialize(bytes, options),
                     [](BlockedBloomFilter f) -> Result<ConcurrentBlockedBloomFilter> {
                       return ConcurrentBlockedBloomFilter(std::move(f));
                     });
}

std::vector<std::byte> ConcurrentBlockedBloomFilter::Serialize(const SaveOptions& options) const {
  return EncodeAtomically(kKind, filter_.capacity(), count(), filter_.fp_rate(), filter_.num_blocks(),
                          filter_.num_hashes(), filter_.words(), options);
}

void ConcurrentBlockedBloomFilter::Add(std::string_view key) noexcept {
  AddHashPair(internal::HashKeyInline(key));
}
bool ConcurrentBlockedBloomFilter::AddIfAbsent(std::string_view key) noexcept {
  return AddHashPair(internal::HashKeyInline(key));
}
bool ConcurrentBlockedBloomFilter::MayContain(std::string_view key) const noexcept {
  return MayContainHashPair(internal::HashKeyInline(key));
}

bool ConcurrentBlockedBloomFilter::AddHashPair(HashPair hash) noexcept {
  std::uint64_t* block = const_cast<BlockedBloomFilter&>(filter_).mutable_words().data() +
                         FastRange64(hash.h1, filter_.num_blocks()) * BlockedBloomFilter::kWordsPerBlock;
  std::uint64_t mask[8];
  internal::BlockMaskPortable(hash.h2, lane_enable_, mask);
  std::uint64_t fresh = 0;
  for (int j = 0; j < 8; ++j) {
    if (mask[j] != 0 && (Load(block[j]) & mask[j]) != mask[j]) fresh |= ~FetchOr(block[j], mask[j]) & mask[j];
  }
  if (fresh != 0) Increment(count_);
  return fresh != 0;
}

bool ConcurrentBlockedBloomFilter::MayContainHashPair(HashPair hash) const noexcept {
  const std::uint64_t* block =
      filter_.words().data() + FastRange64(hash.h1, filter_.num_blocks()) * BlockedBloomFilter::kWordsPerBlock;
  std::uint64_t mask[8];
  internal::BlockMaskPortable(hash.h2, lane_enable_, mask);
  std::uint64_t missing = 0;
  for (int j = 0; j < 8; ++j) missing |= mask[j] & ~Load(block[j]);
  return missing == 0;
}

BlockedBloomFilter ConcurrentBlockedBloomFilter::Snapshot() const {
  return BlockedBloomFilter::Deserialize(Serialize(), kNoLimit).value();
}

void ConcurrentBlockedBloomFilter::Clear() noexcept {
  filter_.Clear();
  count_ = 0;
}

std::uint64_t ConcurrentBlockedBloomFilter::count() const noexcept {
  return Load(count_);
}

}  // namespace bloomkit
