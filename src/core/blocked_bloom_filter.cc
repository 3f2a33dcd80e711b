// SPDX-License-Identifier: Apache-2.0
// The cache-blocked Bloom filter (blocked_bloom_filter.h).
#include "bloomkit/blocked_bloom_filter.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "bloomkit/sizing.h"
#include "internal/blocked_kernels.h"
#include "internal/blocked_lanes.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/filter_common.h"
#include "internal/hash_inline.h"
#include "internal/message.h"

namespace bloomkit {

namespace {

constexpr double kLn2 = 0.69314718055994530942;

std::uint64_t CeilDiv(std::uint64_t a, std::uint64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace

BlockedBloomFilter::BlockedBloomFilter(BlockedLayout layout, std::uint16_t hash_id, std::uint64_t num_blocks,
                                       std::uint32_t num_hashes, std::uint64_t capacity, double fp_rate,
                                       WordArray words) noexcept
    : ops_(&internal::BestBlockedOps(num_hashes)),
      lanes_ops_(layout == BlockedLayout::kLanes256 ? &internal::BestLanesOps(num_hashes, hash_id) : nullptr),
      words_(std::move(words)),
      num_blocks_(num_blocks),
      capacity_(capacity),
      fp_rate_(fp_rate),
      num_hashes_(num_hashes),
      layout_(layout),
      hash_id_(hash_id),
      inline_key_bytes_(layout == BlockedLayout::kLanes256 && hash_id == kHashIdShort64 ? 8 : kNoInlineKeys) {
  internal::MakeLaneEnable(num_hashes_, lane_enable_);
  for (std::uint32_t j = 0; j < 8; ++j) {
    lane_salts_[j] = internal::kBlockSalts[j];
    lane_ones_[j] = j < num_hashes_ ? 1 : 0;
  }
}

bool BlockedBloomFilter::UsesAvx2() noexcept {
  return internal::CpuHasAvx2();
}

Result<BlockedBloomFilter> BlockedBloomFilter::Create(const BloomOptions& options) {
  using internal::MakeError;
  std::uint64_t num_blocks = 0;
  std::uint32_t num_hashes = 0;
  std::uint64_t capacity = options.capacity;
  double fp_rate = options.fp_rate;
  const bool sized_by_rate = options.num_bits == 0 && options.num_hashes == 0;
  const BlockedLayout layout =
      options.blocked_layout.value_or(sized_by_rate ? DefaultBlockedLayout(options.fp_rate) : BlockedLayout::kLines512);
  if (layout != BlockedLayout::kLines512 && layout != BlockedLayout::kLanes256) {
    return MakeError(ErrorCode::kInvalidArgument, "blocked layout ", static_cast<int>(layout),
                     " is not 0 (512-bit blocks) or 1 (256-bit blocks)");
  }
  const bool lanes = layout == BlockedLayout::kLanes256;
  const std::uint64_t block_bits = lanes ? 256 : kBlockBits;
  std::uint16_t hash_id = options.hash_id;
  if (lanes) {
    if (hash_id == 0) hash_id = kHashIdShort64;
    if (hash_id != kHashIdShort64 && hash_id != kHashIdXxh3x64) {
      return MakeError(ErrorCode::kInvalidArgument, "hash id ", hash_id,
                       " is not 4 (short-key hash) or 3 (XXH3-64) for blocked filters of 256-bit blocks");
    }
  } else {
    if (hash_id == 0) hash_id = kHashIdXxh3DoubleHashing;
    if (hash_id != kHashIdXxh3DoubleHashing) {
      return MakeError(ErrorCode::kInvalidArgument, "hash id ", hash_id,
                       " is not 1 (XXH3-128), the only hash of blocked filters of 512-bit blocks");
    }
  }
  if (options.num_bits != 0 || options.num_hashes != 0) {
    if (auto st = internal::ValidateExplicit(options, lanes ? kMaxLanes256NumHashes : kMaxBlockedNumHashes); !st.ok()) {
      return st.error();
    }
    num_blocks = CeilDiv(options.num_bits, block_bits);
    num_hashes = options.num_hashes;
    if (auto st = ValidateMemory(num_blocks * (block_bits / 8), options.max_memory_bytes, "a filter of this size");
        !st.ok()) {
      return st.error();
    }
    if (capacity == 0) {
      capacity = std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(std::round(static_cast<double>(num_blocks * block_bits) * kLn2 / num_hashes)));
    }
    fp_rate = lanes ? Lanes256FpRate(num_blocks, static_cast<double>(capacity), num_hashes)
                    : BlockedFpRate(num_blocks, static_cast<double>(capacity), num_hashes);
  } else {
    auto params = CalculateBlockedParameters(options.capacity, options.fp_rate, layout, options.max_memory_bytes);
    if (!params.ok()) return std::move(params).error();
    num_blocks = params->num_bits / block_bits;
    num_hashes = params->num_hashes;
  }
  const std::uint64_t words_per_block = block_bits / 64;
  WordArray words = WordArray::Allocate(num_blocks * words_per_block);
  if (!words.ok()) {
    return MakeError(ErrorCode::kTooLarge, "out of memory allocating ", num_blocks * block_bits / 8, " bytes");
  }
  return BlockedBloomFilter(layout, hash_id, num_blocks, num_hashes, capacity, fp_rate, std::move(words));
}

internal::BlockedWords BlockedBloomFilter::View() const noexcept {
  // The batch operations write through `words` only from the non-const members.
  return {const_cast<std::uint64_t*>(words_.data()), num_blocks_, lane_enable_};
}

inline bool BlockedBloomFilter::ContainsAt(HashPair hash) const noexcept {
  if (lanes()) return lanes_ops_->contains_hash(words_.data(), num_blocks_, hash.h1);
  return ops_->contains(words_.data() + FastRange64(hash.h1, num_blocks_) * kWordsPerBlock, hash.h2, lane_enable_);
}

inline bool BlockedBloomFilter::InsertAt(HashPair hash) noexcept {
  const bool fresh =
      lanes() ? lanes_ops_->insert_hash(words_.data(), num_blocks_, hash.h1)
              : ops_->insert(words_.data() + FastRange64(hash.h1, num_blocks_) * kWordsPerBlock, hash.h2, lane_enable_);
  count_ = internal::SaturatedIncrement(count_, fresh);
  return fresh;
}

// `flatten` keeps XXH3-128's short-key code inline in the 512-bit paths (GCC outlines it
// otherwise), as it was before the 256-bit layout's branch was added.
[[gnu::flatten]] bool BlockedBloomFilter::InsertKey(std::string_view key) noexcept {
  if (lanes()) {
    const bool fresh = lanes_ops_->insert_key(words_.data(), num_blocks_, key);
    count_ = internal::SaturatedIncrement(count_, fresh);
    return fresh;
  }
  return internal::UseKeyHash(key, [this](HashPair h) { return InsertAt(h); });
}

inline void BlockedBloomFilter::SetAt(HashPair hash) noexcept {
  if (lanes()) {
    lanes_ops_->set_hash(words_.data(), num_blocks_, hash.h1);
  } else {
    ops_->set(words_.data() + FastRange64(hash.h1, num_blocks_) * kWordsPerBlock, hash.h2, lane_enable_);
  }
  count_ = internal::SaturatedIncrement(count_, true);
}

[[gnu::flatten]] void BlockedBloomFilter::SetKey(std::string_view key) noexcept {
  if (lanes()) {
    lanes_ops_->set_key(words_.data(), num_blocks_, key);
    count_ = internal::SaturatedIncrement(count_, true);
    return;
  }
  internal::UseKeyHash(key, [this](HashPair h) { SetAt(h); });
}

void BlockedBloomFilter::SetHash(std::uint64_t hash) noexcept {
  if (lanes()) {
    lanes_ops_->set_hash(words_.data(), num_blocks_, internal::MixCallerHash(hash));
    count_ = internal::SaturatedIncrement(count_, true);
    return;
  }
  SetAt(ExpandHash(hash));
}

[[gnu::flatten]] bool BlockedBloomFilter::ContainsKey(std::string_view key) const noexcept {
  if (lanes()) return lanes_ops_->contains_key(words_.data(), num_blocks_, key);
  return internal::UseKeyHash(key, [this](HashPair h) { return ContainsAt(h); });
}

bool BlockedBloomFilter::InsertHash(std::uint64_t hash) noexcept {
  if (lanes()) {
    const bool fresh = lanes_ops_->insert_hash(words_.data(), num_blocks_, internal::MixCallerHash(hash));
    count_ = internal::SaturatedIncrement(count_, fresh);
    return fresh;
  }
  return InsertAt(ExpandHash(hash));
}

bool BlockedBloomFilter::MayContainHash(std::uint64_t hash) const noexcept {
  if (lanes()) return lanes_ops_->contains_hash(words_.data(), num_blocks_, internal::MixCallerHash(hash));
  return ContainsAt(ExpandHash(hash));
}

bool BlockedBloomFilter::AddHashPair(HashPair hash) noexcept {
  return InsertAt(hash);
}

bool BlockedBloomFilter::MayContainHashPair(HashPair hash) const noexcept {
  return ContainsAt(hash);
}

Done BlockedBloomFilter::AddBatch(std::span<const std::string_view> keys) noexcept {
  if (lanes()) {
    lanes_ops_->insert_keys(words_.data(), num_blocks_, keys);
  } else {
    ops_->insert_keys(View(), keys);
  }
  count_ = internal::SaturatedCount(count_, keys.size());
  return {};
}

std::size_t BlockedBloomFilter::MayContainBatch(std::span<const std::string_view> keys,
                                                std::span<bool> out) const noexcept {
  if (lanes()) return lanes_ops_->contains_keys(words_.data(), num_blocks_, keys, out.data());
  return ops_->contains_keys(View(), keys, out.data());
}

Done BlockedBloomFilter::AddHashBatch(std::span<const std::uint64_t> hashes) noexcept {
  if (lanes()) {
    lanes_ops_->insert_hashes(words_.data(), num_blocks_, hashes);
  } else {
    ops_->insert_hashes(View(), hashes);
  }
  count_ = internal::SaturatedCount(count_, hashes.size());
  return {};
}

std::size_t BlockedBloomFilter::MayContainHashBatch(std::span<const std::uint64_t> hashes,
                                                    std::span<bool> out) const noexcept {
  if (lanes()) return lanes_ops_->contains_hashes(words_.data(), num_blocks_, hashes, out.data());
  return ops_->contains_hashes(View(), hashes, out.data());
}

void BlockedBloomFilter::Clear() noexcept {
  std::fill(words_.span().begin(), words_.span().end(), 0);
  count_ = 0;
}

Status BlockedBloomFilter::Combine(const BlockedBloomFilter& other, std::string_view operation, internal::WordOp op) {
  if (layout_ != other.layout_) {
    return internal::MakeError(ErrorCode::kIncompatible, "cannot ", operation, " blocked filters of ", block_bits(),
                               "-bit and ", other.block_bits(), "-bit blocks");
  }
  if (hash_id_ != other.hash_id_) {
    return internal::MakeError(ErrorCode::kIncompatible, "cannot ", operation, " blocked filters of hash ids ",
                               hash_id_, " and ", other.hash_id_, ": their keys set different bits");
  }
  auto st = internal::CombineWords(operation, "blocked filters", {num_bits(), num_hashes_},
                                   {other.num_bits(), other.num_hashes_}, words_.span(), other.words_.span(), op);
  if (st.ok()) count_ = std::min(EstimatedCount(), kMaxFileCount);  // a full filter's estimate is 2^64 - 1
  return st;
}

Status BlockedBloomFilter::Merge(const BlockedBloomFilter& other) {
  return Combine(other, "merge", internal::WordOp::kOr);
}

Status BlockedBloomFilter::MergeFrom(FilterReader& reader) {
  using internal::MakeError;
  const FileHeader& h = reader.header();
  if (h.kind != kKind) {
    return MakeError(ErrorCode::kWrongKind, "holds a ", FilterKindName(h.kind), " filter, not a ",
                     FilterKindName(kKind), " one");
  }
  // The same layout and shape as this filter's (so valid ones), then the rest a load checks.
  if (h.params[2] != static_cast<std::uint64_t>(layout_)) {
    return MakeError(ErrorCode::kIncompatible, "cannot merge blocked filters of ", block_bits(), "-bit and ",
                     h.params[2] == 1 ? 256 : 512, "-bit blocks");
  }
  if (h.hash_id != hash_id_) {
    const bool layout_hash =
        lanes() ? (h.hash_id == kHashIdShort64 || h.hash_id == kHashIdXxh3x64) : h.hash_id == kHashIdXxh3DoubleHashing;
    if (layout_hash) {
      return MakeError(ErrorCode::kIncompatible, "cannot merge blocked filters of hash ids ", hash_id_, " and ",
                       h.hash_id, ": their keys set different bits");
    }
    return MakeError(ErrorCode::kUnknownHash, "hash id ", h.hash_id, " does not match block layout ", h.params[2],
                     " (which uses hash id ", lanes() ? "4 or 3" : "1", ")");
  }
  std::uint64_t their_bits = 0;
  if (!internal::CheckedMul(h.params[0], block_bits(), &their_bits)) their_bits = 0;
  auto st = internal::CombineWords("merge", "blocked filters", {num_bits(), num_hashes_},
                                   {their_bits, static_cast<std::uint32_t>(std::min<std::uint64_t>(
                                                    h.params[1], std::numeric_limits<std::uint32_t>::max()))},
                                   {}, {}, internal::WordOp::kOr);
  if (!st.ok()) return st;
  if (h.capacity == 0) return MakeError(ErrorCode::kParameterMismatch, "capacity is 0");
  for (std::size_t i = 3; i < kNumHeaderParams; ++i) {
    if (h.params[i] != 0) return MakeError(ErrorCode::kReservedNonZero, "unused parameter ", i, " is not zero");
  }
  st = internal::OrWordsFrom(reader, words_.span(), num_bits());
  count_ = std::min(EstimatedCount(), kMaxFileCount);  // also after an error: the bits OR-ed so far are in
  return st;
}

Status BlockedBloomFilter::Intersect(const BlockedBloomFilter& other) {
  return Combine(other, "intersect", internal::WordOp::kAnd);
}

std::uint64_t BlockedBloomFilter::CountSetBits() const noexcept {
  return internal::PopCount(words_.data(), words_.num_words());
}

double BlockedBloomFilter::FillRatio() const noexcept {
  return static_cast<double>(CountSetBits()) / static_cast<double>(num_bits());
}

std::uint64_t BlockedBloomFilter::EstimatedCount() const noexcept {
  if (lanes()) {
    // Lane j of all blocks is a classic filter of M = 32 * num_blocks bits with one bit
    // per key: n_j = -M ln(1 - X_j / M). Average the k lanes.
    std::array<std::uint64_t, 8> lane_bits{};
    const std::uint64_t* w = words_.data();
    for (std::uint64_t b = 0; b < num_blocks_; ++b) {
      for (std::uint64_t i = 0; i < 4; ++i) {
        const std::uint64_t word = w[b * 4 + i];
        lane_bits[2 * i] += static_cast<std::uint64_t>(std::popcount(word & 0xffffffffU));
        lane_bits[2 * i + 1] += static_cast<std::uint64_t>(std::popcount(word >> 32));
      }
    }
    const double m = 32.0 * static_cast<double>(num_blocks_);
    double sum = 0;
    for (std::uint32_t j = 0; j < num_hashes_; ++j) {
      const double x = static_cast<double>(lane_bits[j]);
      if (x >= m) return std::numeric_limits<std::uint64_t>::max();
      sum += -m * std::log1p(-x / m);
    }
    return static_cast<std::uint64_t>(std::llround(sum / num_hashes_));
  }
  std::array<std::uint64_t, kWordsPerBlock> lane_bits{};
  const std::uint64_t* w = words_.data();
  for (std::uint64_t b = 0; b < num_blocks_; ++b) {
    for (std::size_t j = 0; j < kWordsPerBlock; ++j) {
      lane_bits[j] += static_cast<std::uint64_t>(std::popcount(w[b * kWordsPerBlock + j]));
    }
  }
  return EstimateFromLanes(lane_bits, num_blocks_, num_hashes_);
}

std::uint64_t BlockedBloomFilter::EstimateFromLanes(const std::array<std::uint64_t, kWordsPerBlock>& lane_bits,
                                                    std::uint64_t num_blocks, std::uint32_t num_hashes) noexcept {
  // Lane j of all blocks is a classic filter of M = 64 * num_blocks bits in which every
  // key sets b_j bits (1 or 2): n_j = -(M / b_j) ln(1 - X_j / M). Average the lanes.
  const double m = 64.0 * static_cast<double>(num_blocks);
  double sum = 0;
  int lanes = 0;
  for (std::uint32_t j = 0; j < 8; ++j) {
    const double per_key = (j < num_hashes ? 1.0 : 0.0) + (8 + j < num_hashes ? 1.0 : 0.0);
    if (per_key == 0) continue;
    const double x = static_cast<double>(lane_bits[j]);
    if (x >= m) return std::numeric_limits<std::uint64_t>::max();
    sum += -m / per_key * std::log1p(-x / m);
    ++lanes;
  }
  return static_cast<std::uint64_t>(std::llround(sum / lanes));
}

double BlockedBloomFilter::EstimatedFpRate() const noexcept {
  const std::uint64_t n = EstimatedCount();
  if (n == std::numeric_limits<std::uint64_t>::max()) return 1.0;
  return lanes() ? Lanes256FpRate(num_blocks_, static_cast<double>(n), num_hashes_)
                 : BlockedFpRate(num_blocks_, static_cast<double>(n), num_hashes_);
}

double BlockedBloomFilter::ExpectedFpRate() const noexcept {
  return lanes() ? Lanes256FpRate(num_blocks_, static_cast<double>(capacity_), num_hashes_)
                 : BlockedFpRate(num_blocks_, static_cast<double>(capacity_), num_hashes_);
}

bool operator==(const BlockedBloomFilter& a, const BlockedBloomFilter& b) noexcept {
  if (a.layout_ != b.layout_ || a.hash_id_ != b.hash_id_ || a.num_blocks_ != b.num_blocks_ ||
      a.num_hashes_ != b.num_hashes_ || a.capacity_ != b.capacity_ || a.count_ != b.count_ ||
      a.fp_rate_ != b.fp_rate_) {
    return false;
  }
  return std::equal(a.words_.span().begin(), a.words_.span().end(), b.words_.span().begin());
}

// Payload: num_blocks * 8 (kLanes256: * 4) little-endian words; params[0] = num_blocks,
// params[1] = num_hashes, params[2] = layout (0 or 1). kLanes256 files carry hash id 4 or 3.
std::vector<std::byte> BlockedBloomFilter::Serialize(const SaveOptions& options) const {
  return internal::CollectFile([this](ByteSink sink) { return SerializeTo(sink); }, options);
}

bool BlockedBloomFilter::SerializeTo(ByteSink sink) const noexcept {
  FileHeader header;
  header.kind = kKind;
  header.hash_id = hash_id_;
  header.params[2] = static_cast<std::uint64_t>(layout_);
  header.capacity = capacity_;
  header.count = count_;
  header.fp_rate = fp_rate_;
  header.payload_bytes = words_.bytes();
  header.params[0] = num_blocks_;
  header.params[1] = num_hashes_;
  internal::FileStream out(sink);
  return out.Begin(header) && out.PutWords(words_.span()) && out.Finish();
}

Result<BlockedBloomFilter> BlockedBloomFilter::Deserialize(std::span<const std::byte> bytes,
                                                           const LoadOptions& options) {
  auto reader = FilterReader::OpenBytes(bytes, kKind, options.max_memory_bytes);
  if (!reader.ok()) return std::move(reader).error();
  return reader->Load<BlockedBloomFilter>(options);
}

Result<BlockedBloomFilter> BlockedBloomFilter::Deserialize(const FileHeader& header, ByteSource payload,
                                                           const LoadOptions& /*options*/) {
  return FromPayload(header, {}, &payload);
}

Result<BlockedBloomFilter> BlockedBloomFilter::FromPayload(const FileHeader& h, std::span<const std::byte> mapped,
                                                           const ByteSource* source) {
  using internal::MakeError;
  const std::uint64_t num_blocks = h.params[0];
  const std::uint64_t num_hashes = h.params[1];
  const std::uint64_t layout_value = h.params[2];
  if (layout_value > 1) {
    return MakeError(ErrorCode::kParameterMismatch, "block layout ", layout_value,
                     " is not 0 (512-bit blocks) or 1 (256-bit blocks)");
  }
  const auto layout = static_cast<BlockedLayout>(layout_value);
  const bool lanes = layout == BlockedLayout::kLanes256;
  const bool hash_fits =
      lanes ? (h.hash_id == kHashIdShort64 || h.hash_id == kHashIdXxh3x64) : h.hash_id == kHashIdXxh3DoubleHashing;
  if (!hash_fits) {
    return MakeError(ErrorCode::kUnknownHash, "hash id ", h.hash_id, " does not match block layout ", layout_value,
                     " (which uses hash id ", lanes ? "4 or 3" : "1", ")");
  }
  const std::uint32_t max_hashes = lanes ? kMaxLanes256NumHashes : kMaxBlockedNumHashes;
  const std::uint64_t block_bytes = lanes ? 32 : 64;
  if (num_blocks == 0) return MakeError(ErrorCode::kParameterMismatch, "num_blocks is 0");
  if (num_hashes == 0 || num_hashes > max_hashes) {
    return MakeError(ErrorCode::kParameterMismatch, "num_hashes ", num_hashes, " is not in [1, ", max_hashes, "]");
  }
  if (h.capacity == 0) return MakeError(ErrorCode::kParameterMismatch, "capacity is 0");
  for (std::size_t i = 3; i < kNumHeaderParams; ++i) {
    if (h.params[i] != 0) return MakeError(ErrorCode::kReservedNonZero, "unused parameter ", i, " is not zero");
  }
  std::uint64_t expected = 0;
  if (!internal::CheckedMul(num_blocks, block_bytes, &expected) || h.payload_bytes != expected) {
    return MakeError(ErrorCode::kParameterMismatch, "payload of ", h.payload_bytes, " bytes does not match ",
                     num_blocks, " blocks of ", block_bytes, " bytes");
  }
  WordArray words;
  if (source == nullptr) {
    words = WordArray::Borrow(reinterpret_cast<const std::uint64_t*>(mapped.data()), expected / 8);
  } else {
    words = WordArray::Allocate(expected / 8);
    if (!words.ok()) return MakeError(ErrorCode::kTooLarge, "out of memory allocating ", expected, " bytes");
    if (Status st = internal::ReadWordsLE(*source, words.span()); !st.ok()) return std::move(st).error();
  }
  BlockedBloomFilter filter(layout, h.hash_id, num_blocks, static_cast<std::uint32_t>(num_hashes), h.capacity,
                            h.fp_rate, std::move(words));
  filter.count_ = h.count;
  return filter;
}

}  // namespace bloomkit
