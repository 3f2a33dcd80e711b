// SPDX-License-Identifier: Apache-2.0
// Lock-free concurrent forms of the classic and blocked filters (concurrent_bloom_filter.h).
#include "bloomkit/concurrent_bloom_filter.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <new>

#include "bloomkit/sizing.h"
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

// Streams a file of the wrapped kind whose payload is read word by word with atomic
// loads (a plain copy of the words would race with concurrent fetch-ors), in pieces of
// kPieceWords through a buffer on the stack, so a save needs no copy of the filter.
// The header is filled as BloomFilter::SerializeTo and BlockedBloomFilter::SerializeTo
// fill it: params[0] = num_bits or num_blocks, params[1] = num_hashes; tests compare
// the bytes of both.
bool StreamAtomically(FilterKind kind, std::uint64_t capacity, std::uint64_t count, double fp_rate,
                      std::uint64_t param0, std::uint32_t num_hashes, std::span<const std::uint64_t> words,
                      ByteSink sink, std::uint16_t hash_id = kHashIdXxh3DoubleHashing) noexcept {
  FileHeader header;
  header.kind = kind;
  header.hash_id = hash_id;
  header.capacity = capacity;
  header.count = count;
  header.fp_rate = fp_rate;
  header.payload_bytes = words.size_bytes();
  header.params[0] = param0;
  header.params[1] = num_hashes;
  internal::FileStream out(sink);
  if (!out.Begin(header)) return false;
  constexpr std::size_t kPieceWords = 512;
  std::array<std::uint64_t, kPieceWords> piece;  // NOLINT(cppcoreguidelines-pro-type-member-init): filled before use
  for (std::size_t i = 0; i < words.size(); i += kPieceWords) {
    const std::size_t n = std::min(kPieceWords, words.size() - i);
    for (std::size_t j = 0; j < n; ++j) piece[j] = Load(words[i + j]);
    if (!out.PutWords(std::span<const std::uint64_t>(piece.data(), n))) return false;
  }
  return out.Finish();
}

// Set bits of words that other threads may be setting.
std::uint64_t PopCountAtomically(std::span<const std::uint64_t> words) noexcept {
  std::uint64_t total = 0;
  for (const std::uint64_t& word : words) total += static_cast<std::uint64_t>(std::popcount(Load(word)));
  return total;
}

// The probes of a key: a classic filter's by its hash id, a blocked filter's by id 1.
HashPair KeyPairOf(const ConcurrentBloomFilter& filter, std::string_view key) noexcept {
  return filter.hash_id() == kHashIdShort64 ? internal::HashKeyShortPairInline(key) : internal::HashKeyInline(key);
}
HashPair KeyPairOf(const ConcurrentBlockedBloomFilter& /*filter*/, std::string_view key) noexcept {
  return internal::HashKeyInline(key);
}

// The batch forms of both kinds: each key as the single-key call.
template <typename F>
Done AddEach(F& filter, std::span<const std::string_view> keys) noexcept {
  for (std::string_view key : keys) filter.AddHashPair(KeyPairOf(filter, key));
  return {};
}

template <typename F>
Done AddEachHash(F& filter, std::span<const std::uint64_t> hashes) noexcept {
  for (std::uint64_t hash : hashes) filter.AddHashPair(ExpandHash(hash));
  return {};
}

template <typename F>
std::size_t QueryEach(const F& filter, std::span<const std::string_view> keys, std::span<bool> out) noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out[i] = filter.MayContainHashPair(KeyPairOf(filter, keys[i]));
    found += out[i] ? 1U : 0U;
  }
  return found;
}

template <typename F>
std::size_t QueryEachHash(const F& filter, std::span<const std::uint64_t> hashes, std::span<bool> out) noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    out[i] = filter.MayContainHashPair(ExpandHash(hashes[i]));
    found += out[i] ? 1U : 0U;
  }
  return found;
}

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

Result<ConcurrentBloomFilter> ConcurrentBloomFilter::Deserialize(const FileHeader& header, ByteSource payload,
                                                                 const LoadOptions& options) {
  auto filter = BloomFilter::Deserialize(header, payload, options);
  if (!filter.ok()) return std::move(filter).error();
  return ConcurrentBloomFilter(std::move(filter).value());
}

std::vector<std::byte> ConcurrentBloomFilter::Serialize(const SaveOptions& options) const {
  return internal::CollectFile([this](ByteSink sink) { return SerializeTo(sink); }, options);
}

bool ConcurrentBloomFilter::SerializeTo(ByteSink sink) const noexcept {
  return StreamAtomically(kKind, filter_.capacity(), count(), filter_.fp_rate(), filter_.num_bits(),
                          filter_.num_hashes(), filter_.words(), sink, filter_.hash_id());
}

bool ConcurrentBloomFilter::InsertKey(std::string_view key) noexcept {
  return AddHashPair(KeyPairOf(*this, key));
}
bool ConcurrentBloomFilter::MayContain(std::string_view key) const noexcept {
  return MayContainHashPair(KeyPairOf(*this, key));
}

Done ConcurrentBloomFilter::AddBatch(std::span<const std::string_view> keys) noexcept {
  return AddEach(*this, keys);
}
Done ConcurrentBloomFilter::AddHashBatch(std::span<const std::uint64_t> hashes) noexcept {
  return AddEachHash(*this, hashes);
}
std::size_t ConcurrentBloomFilter::MayContainBatch(std::span<const std::string_view> keys,
                                                   std::span<bool> out) const noexcept {
  return QueryEach(*this, keys, out);
}
std::size_t ConcurrentBloomFilter::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                                       std::span<bool> out) const noexcept {
  return QueryEachHash(*this, hashes, out);
}

bool ConcurrentBloomFilter::AddHashPair(HashPair hash) noexcept {
  std::uint64_t* words = filter_.bits().mutable_words().data();
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

namespace {

// The words of `from`, read with atomic loads while other threads may add, into a new
// array: the filter's memory once (a trip through the file form cost it twice more).
// Throws std::bad_alloc when the allocator has no memory, as a copy of a filter does.
WordArray CopyAtomically(std::span<const std::uint64_t> from) {
  WordArray words = WordArray::Allocate(from.size());
  if (!words.ok()) throw std::bad_alloc();
  std::uint64_t* to = words.data();
  for (std::size_t i = 0; i < from.size(); ++i) to[i] = Load(from[i]);
  return words;
}

}  // namespace

BloomFilter ConcurrentBloomFilter::Snapshot() const {
  const std::uint64_t added = count();
  return BloomFilter(internal::ClassicBits(filter_.num_bits(), filter_.num_hashes(), filter_.hash_id(),
                                           CopyAtomically(filter_.words())),
                     added, filter_.capacity(), filter_.fp_rate());
}

void ConcurrentBloomFilter::Clear() noexcept {
  filter_.Clear();
  count_ = 0;
}

// Adds increment count_ without a bound (a compare-and-swap loop would cost every add);
// the count they report stops at kMaxFileCount, as a BloomFilter's does.
std::uint64_t ConcurrentBloomFilter::count() const noexcept {
  return std::min(Load(count_), kMaxFileCount);
}

double ConcurrentBloomFilter::FillRatio() const noexcept {
  return static_cast<double>(PopCountAtomically(filter_.words())) / static_cast<double>(filter_.num_bits());
}

std::uint64_t ConcurrentBloomFilter::EstimatedCount() const noexcept {
  return ClassicEstimatedCount(filter_.num_bits(), PopCountAtomically(filter_.words()), filter_.num_hashes());
}

double ConcurrentBloomFilter::EstimatedFpRate() const noexcept {
  return std::pow(FillRatio(), filter_.num_hashes());
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
  // The concurrent filter has 512-bit blocks only, so that is its default.
  BloomOptions lines = options;
  if (!lines.blocked_layout) lines.blocked_layout = BlockedLayout::kLines512;
  return WrapBlocked(BlockedBloomFilter::Create(lines),
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

Result<ConcurrentBlockedBloomFilter> ConcurrentBlockedBloomFilter::Deserialize(const FileHeader& header,
                                                                               ByteSource payload,
                                                                               const LoadOptions& options) {
  return WrapBlocked(BlockedBloomFilter::Deserialize(header, payload, options),
                     [](BlockedBloomFilter f) -> Result<ConcurrentBlockedBloomFilter> {
                       return ConcurrentBlockedBloomFilter(std::move(f));
                     });
}

std::vector<std::byte> ConcurrentBlockedBloomFilter::Serialize(const SaveOptions& options) const {
  return internal::CollectFile([this](ByteSink sink) { return SerializeTo(sink); }, options);
}

bool ConcurrentBlockedBloomFilter::SerializeTo(ByteSink sink) const noexcept {
  return StreamAtomically(kKind, filter_.capacity(), count(), filter_.fp_rate(), filter_.num_blocks(),
                          filter_.num_hashes(), filter_.words(), sink);
}

bool ConcurrentBlockedBloomFilter::InsertKey(std::string_view key) noexcept {
  return AddHashPair(internal::HashKeyInline(key));
}
bool ConcurrentBlockedBloomFilter::MayContain(std::string_view key) const noexcept {
  return MayContainHashPair(internal::HashKeyInline(key));
}

Done ConcurrentBlockedBloomFilter::AddBatch(std::span<const std::string_view> keys) noexcept {
  return AddEach(*this, keys);
}
Done ConcurrentBlockedBloomFilter::AddHashBatch(std::span<const std::uint64_t> hashes) noexcept {
  return AddEachHash(*this, hashes);
}
std::size_t ConcurrentBlockedBloomFilter::MayContainBatch(std::span<const std::string_view> keys,
                                                          std::span<bool> out) const noexcept {
  return QueryEach(*this, keys, out);
}
std::size_t ConcurrentBlockedBloomFilter::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                                              std::span<bool> out) const noexcept {
  return QueryEachHash(*this, hashes, out);
}

bool ConcurrentBlockedBloomFilter::AddHashPair(HashPair hash) noexcept {
  std::uint64_t* block =
      filter_.words_.data() + FastRange64(hash.h1, filter_.num_blocks()) * BlockedBloomFilter::kWordsPerBlock;
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
  const std::uint64_t added = count();
  BlockedBloomFilter copy(filter_.layout(), filter_.hash_id(), filter_.num_blocks(), filter_.num_hashes(),
                          filter_.capacity(), filter_.fp_rate(), CopyAtomically(filter_.words()));
  copy.count_ = added;
  return copy;
}

void ConcurrentBlockedBloomFilter::Clear() noexcept {
  filter_.Clear();
  count_ = 0;
}

std::uint64_t ConcurrentBlockedBloomFilter::count() const noexcept {
  return std::min(Load(count_), kMaxFileCount);  // as ConcurrentBloomFilter::count
}

double ConcurrentBlockedBloomFilter::FillRatio() const noexcept {
  return static_cast<double>(PopCountAtomically(filter_.words())) / static_cast<double>(filter_.num_bits());
}

std::uint64_t ConcurrentBlockedBloomFilter::EstimatedCount() const noexcept {
  std::array<std::uint64_t, BlockedBloomFilter::kWordsPerBlock> lane_bits{};
  const std::span<const std::uint64_t> words = filter_.words();
  for (std::size_t i = 0; i < words.size(); ++i) {
    lane_bits[i % lane_bits.size()] += static_cast<std::uint64_t>(std::popcount(Load(words[i])));
  }
  return BlockedBloomFilter::EstimateFromLanes(lane_bits, filter_.num_blocks(), filter_.num_hashes());
}

double ConcurrentBlockedBloomFilter::EstimatedFpRate() const noexcept {
  const std::uint64_t n = EstimatedCount();
  if (n == std::numeric_limits<std::uint64_t>::max()) return 1.0;
  return BlockedFpRate(filter_.num_blocks(), static_cast<double>(n), filter_.num_hashes());
}

}  // namespace bloomkit
