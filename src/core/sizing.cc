// SPDX-License-Identifier: Apache-2.0
// Sizing formulas (sizing.h).
#include "bloomkit/sizing.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "bloomkit/cuckoo_filter.h"
#include "internal/message.h"

namespace bloomkit {
namespace {

constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn2Squared = kLn2 * kLn2;
constexpr std::uint64_t kWordsPerBlock = 8;
constexpr double kLaneBits = 64.0;

// Rate of one 512-bit block holding `keys` keys with bloomkit's lane pattern: probe i
// sets one bit in lane i % 8, so lanes 0..(k-9) carry two bits per key when k > 8.
double BlockFpRate(double keys, std::uint32_t k) {
  if (keys <= 0) return 0.0;
  const double miss = (kLaneBits - 1) / kLaneBits;
  const std::uint32_t double_lanes = k > 8 ? k - 8 : 0;
  const std::uint32_t single_lanes = std::min<std::uint32_t>(k, 8) - double_lanes;
  // One bit per key in the lane: the query's bit is set with 1 - (63/64)^i.
  const double one = 1.0 - std::pow(miss, keys);
  double rate = std::pow(one, single_lanes);
  if (double_lanes > 0) {
    // Two bits per key: the query's two bits coincide with probability 1/64.
    const double same = 1.0 - std::pow(miss, 2 * keys);
    const double both = 1.0 - 2.0 * std::pow(miss, 2 * keys) + std::pow((kLaneBits - 2) / kLaneBits, 2 * keys);
    rate *= std::pow(same / kLaneBits + both * (kLaneBits - 1) / kLaneBits, double_lanes);
  }
  return rate;
}

// Rate of one 256-bit block of eight 32-bit lanes holding `keys` keys, one bit per key
// in each of the k lanes taking part: (1 - (31/32)^i)^k.
double LaneBlockFpRate(double keys, std::uint32_t k) {
  if (keys <= 0) return 0.0;
  return std::pow(1.0 - std::pow(31.0 / 32.0, keys), k);
}

std::uint64_t CeilDiv(std::uint64_t a, std::uint64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// sum_i Poisson(i; n / num_blocks) * block_rate(i, k) over lambda +- 12 sigma.
template <typename BlockRate>
double PoissonMixture(std::uint64_t num_blocks, double num_keys, std::uint32_t num_hashes, BlockRate block_rate) {
  if (num_blocks == 0) return 1.0;
  if (num_keys <= 0) return 0.0;
  const double lambda = num_keys / static_cast<double>(num_blocks);
  const double spread = 12.0 * std::sqrt(lambda) + 20.0;
  const auto lo = static_cast<std::uint64_t>(std::max(0.0, std::floor(lambda - spread)));
  const auto hi = static_cast<std::uint64_t>(std::ceil(lambda + spread));
  const double log_lambda = std::log(lambda);
  double rate = 0.0;
  for (std::uint64_t i = lo; i <= hi; ++i) {
    const double x = static_cast<double>(i);
    const double pmf = std::exp(-lambda + x * log_lambda - std::lgamma(x + 1.0));
    rate += pmf * block_rate(x, num_hashes);
  }
  return std::min(rate, 1.0);
}

// The smallest number of blocks, over k = 1..max_k, whose rate(blocks, n, k) <= p;
// {0, 0} when none fits in max_bits.
struct BlockedChoice {
  std::uint64_t blocks = 0;
  std::uint32_t k = 0;
};
template <typename Rate>
BlockedChoice SearchBlocks(double n, double fp_rate, double block_bits, std::uint32_t max_k, double max_bits,
                           Rate rate) {
  const double classic_bits = -n * std::log(fp_rate) / kLn2Squared;
  BlockedChoice best;
  for (std::uint32_t k = 1; k <= max_k; ++k) {
    std::uint64_t lo = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(classic_bits / block_bits * 0.9));
    std::uint64_t hi = lo;
    while (rate(hi, n, k) > fp_rate) {
      if (static_cast<double>(hi) * block_bits > max_bits * 2.0) break;
      lo = hi;
      hi *= 2;
    }
    if (rate(hi, n, k) > fp_rate) continue;
    if (rate(lo, n, k) <= fp_rate) hi = lo;
    while (lo + 1 < hi) {  // invariant: rate(lo) > p >= rate(hi)
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (rate(mid, n, k) <= fp_rate ? hi : lo) = mid;
    }
    if (best.k == 0 || hi < best.blocks) best = {hi, k};
  }
  if (best.k == 0 || static_cast<double>(best.blocks) * block_bits > max_bits) return {};
  return best;
}

}  // namespace

Status ValidateFpRate(double fp_rate) {
  if (!(fp_rate > 0.0 && fp_rate < 1.0)) {
    return internal::MakeError(ErrorCode::kInvalidArgument, "error rate must be in (0, 1), got ", fp_rate);
  }
  return {};
}

Status ValidateMemory(std::uint64_t bytes, std::uint64_t max_memory_bytes, std::string_view what) {
  if (bytes > max_memory_bytes) {
    return internal::MakeError(ErrorCode::kTooLarge, what, " needs ", bytes, " bytes, over the memory limit of ",
                               max_memory_bytes, " bytes");
  }
  return {};
}

double ClassicFpRate(double num_bits, double num_keys, std::uint32_t num_hashes) noexcept {
  if (num_bits <= 0) return 1.0;
  const double k = num_hashes;
  return std::pow(-std::expm1(-k * num_keys / num_bits), k);
}

std::uint64_t ClassicEstimatedCount(std::uint64_t num_bits, std::uint64_t set_bits, std::uint32_t num_hashes) noexcept {
  if (set_bits >= num_bits) return std::numeric_limits<std::uint64_t>::max();
  const double m = static_cast<double>(num_bits);
  const double x = static_cast<double>(set_bits);
  return static_cast<std::uint64_t>(std::llround(-m / num_hashes * std::log1p(-x / m)));
}

std::uint32_t OptimalNumHashes(double num_bits, double num_keys) noexcept {
  if (num_keys <= 0) return 1;
  const double k = std::round(num_bits / num_keys * kLn2);
  return static_cast<std::uint32_t>(std::clamp(k, 1.0, static_cast<double>(kMaxNumHashes)));
}

double ClassicCapacityAt(double num_bits, std::uint32_t num_hashes, double fp_rate) noexcept {
  // Solve (1 - e^{-kn/m})^k = p for n.
  const double k = num_hashes;
  return -num_bits / k * std::log1p(-std::pow(fp_rate, 1.0 / k));
}

double BlockedFpRate(std::uint64_t num_blocks, double num_keys, std::uint32_t num_hashes) noexcept {
  return PoissonMixture(num_blocks, num_keys, num_hashes, BlockFpRate);
}

double Lanes256FpRate(std::uint64_t num_blocks, double num_keys, std::uint32_t num_hashes) noexcept {
  return PoissonMixture(num_blocks, num_keys, num_hashes, LaneBlockFpRate);
}

Result<FilterParameters> CalculateParameters(std::uint64_t capacity, double fp_rate, FilterKind kind,
                                             std::uint64_t max_memory_bytes) {
  using internal::MakeError;
  if (capacity == 0) return MakeError(ErrorCode::kInvalidArgument, "capacity must be at least 1, got 0");
  if (auto st = ValidateFpRate(fp_rate); !st.ok()) return st.error();
  FilterParameters out;
  out.kind = kind;
  out.capacity = capacity;
  out.fp_rate = fp_rate;
  const double n = static_cast<double>(capacity);
  const double max_bits = static_cast<double>(max_memory_bytes) * 8.0;

  switch (kind) {
    case FilterKind::kClassic:
    case FilterKind::kCounting:
    case FilterKind::kScalable: {
      // m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2).
      const double m = std::ceil(-n * std::log(fp_rate) / kLn2Squared);
      const double k = std::round(m / n * kLn2);
      if (k > kMaxNumHashes) {
        return MakeError(ErrorCode::kInvalidArgument, "error rate ", fp_rate, " needs ", k,
                         " hashes, more than the maximum of ", kMaxNumHashes);
      }
      const double counter_bits = kind == FilterKind::kCounting ? 4.0 : 1.0;
      if (m * counter_bits > max_bits) {
        return MakeError(ErrorCode::kTooLarge, "capacity ", capacity, " at error rate ", fp_rate, " needs ",
                         m * counter_bits / 8.0, " bytes, over the memory limit of ", max_memory_bytes, " bytes");
      }
      const auto bits = static_cast<std::uint64_t>(m);
      out.num_hashes = OptimalNumHashes(m, n);
      out.num_bits = bits * static_cast<std::uint64_t>(counter_bits);
      out.bytes = kind == FilterKind::kCounting ? CeilDiv(CeilDiv(bits, 2), 8) * 8 : CeilDiv(bits, 64) * 8;
      out.expected_fp_rate = ClassicFpRate(m, n, out.num_hashes);
      break;
    }
    case FilterKind::kBlocked: {
      // The smallest number of blocks, over k = 1..16, whose Poisson-mixture rate <= p.
      const BlockedChoice best = SearchBlocks(n, fp_rate, 512.0, kMaxBlockedNumHashes, max_bits, BlockedFpRate);
      if (best.k == 0) {
        return MakeError(ErrorCode::kTooLarge, "capacity ", capacity, " at error rate ", fp_rate,
                         " needs more than the memory limit of ", max_memory_bytes, " bytes as a blocked filter");
      }
      out.num_hashes = best.k;
      out.num_bits = best.blocks * 512;
      out.bytes = best.blocks * kWordsPerBlock * 8;
      out.expected_fp_rate = BlockedFpRate(best.blocks, n, best.k);
      break;
    }
    case FilterKind::kCuckoo: {
      // Bucket size 4, the smallest fingerprint meeting p (CalculateCuckooSizing).
      // num_hashes is 2: the two candidate buckets a lookup reads.
      auto sizing = CalculateCuckooSizing(capacity, fp_rate, 4, 0, max_memory_bytes);
      if (!sizing.ok()) return std::move(sizing).error();
      out.num_hashes = 2;
      out.num_bits = sizing->num_buckets * sizing->bucket_size * sizing->fingerprint_bits;
      out.bytes = sizing->bytes;
      out.expected_fp_rate = sizing->expected_fp_rate;
      break;
    }
    case FilterKind::kRedisBloomScalable:
    case FilterKind::kRedisBloomCuckoo:
      return MakeError(ErrorCode::kUnsupported, FilterKindName(kind),
                       " filters size themselves as RedisBloom does (redisbloom.h)");
    case FilterKind::kWindowed:
      return MakeError(ErrorCode::kUnsupported,
                       "windowed filters size their stages themselves (windowed_bloom_filter.h)");
    case FilterKind::kBitsAndBlooms:
    case FilterKind::kGuava:
    case FilterKind::kParquet:
      return MakeError(ErrorCode::kUnsupported, FilterKindName(kind),
                       " filters size themselves as their library does (foreign_bloom.h)");
  }
  out.bits_per_key = static_cast<double>(out.num_bits) / n;
  return out;
}

BlockedLayout DefaultBlockedLayout(double fp_rate) noexcept {
  return fp_rate >= kLanes256DefaultMinFpRate ? BlockedLayout::kLanes256 : BlockedLayout::kLines512;
}

Result<FilterParameters> CalculateBlockedParameters(std::uint64_t capacity, double fp_rate, BlockedLayout layout,
                                                    std::uint64_t max_memory_bytes) {
  using internal::MakeError;
  if (layout == BlockedLayout::kLines512) {
    return CalculateParameters(capacity, fp_rate, FilterKind::kBlocked, max_memory_bytes);
  }
  if (layout != BlockedLayout::kLanes256) {
    return MakeError(ErrorCode::kInvalidArgument, "blocked layout ", static_cast<int>(layout),
                     " is not 0 (512-bit blocks) or 1 (256-bit blocks)");
  }
  if (capacity == 0) return MakeError(ErrorCode::kInvalidArgument, "capacity must be at least 1, got 0");
  if (auto st = ValidateFpRate(fp_rate); !st.ok()) return st.error();
  const double n = static_cast<double>(capacity);
  const BlockedChoice best = SearchBlocks(n, fp_rate, 256.0, kMaxLanes256NumHashes,
                                          static_cast<double>(max_memory_bytes) * 8.0, Lanes256FpRate);
  if (best.k == 0) {
    return MakeError(ErrorCode::kTooLarge, "capacity ", capacity, " at error rate ", fp_rate,
                     " needs more than the memory limit of ", max_memory_bytes,
                     " bytes as a blocked filter of 256-bit blocks");
  }
  FilterParameters out;
  out.kind = FilterKind::kBlocked;
  out.capacity = capacity;
  out.fp_rate = fp_rate;
  out.num_hashes = best.k;
  out.num_bits = best.blocks * 256;
  out.bytes = best.blocks * 32;
  out.expected_fp_rate = Lanes256FpRate(best.blocks, n, best.k);
  out.bits_per_key = static_cast<double>(out.num_bits) / n;
  return out;
}

Result<FilterParameters> CalculateFpRateForBits(std::uint64_t capacity, std::uint64_t num_bits, FilterKind kind) {
  using internal::MakeError;
  if (capacity == 0) return MakeError(ErrorCode::kInvalidArgument, "capacity must be at least 1, got 0");
  if (num_bits == 0) return MakeError(ErrorCode::kInvalidArgument, "bits must be at least 1, got 0");
  FilterParameters out;
  out.kind = kind;
  out.capacity = capacity;
  const double n = static_cast<double>(capacity);
  switch (kind) {
    case FilterKind::kClassic:
    case FilterKind::kScalable:
    case FilterKind::kCounting: {
      const double counter_bits = kind == FilterKind::kCounting ? 4.0 : 1.0;
      const double m = std::floor(static_cast<double>(num_bits) / counter_bits);
      out.num_hashes = OptimalNumHashes(m, n);
      out.num_bits = num_bits;
      out.bytes = kind == FilterKind::kCounting ? CeilDiv(static_cast<std::uint64_t>(m), 2) : CeilDiv(num_bits, 64) * 8;
      out.expected_fp_rate = ClassicFpRate(m, n, out.num_hashes);
      break;
    }
    case FilterKind::kBlocked: {
      const std::uint64_t blocks = CeilDiv(num_bits, 512);
      double best = 2.0;
      for (std::uint32_t k = 1; k <= kMaxBlockedNumHashes; ++k) {
        const double rate = BlockedFpRate(blocks, n, k);
        if (rate < best) {
          best = rate;
          out.num_hashes = k;
        }
      }
      out.num_bits = blocks * 512;
      out.bytes = blocks * 64;
      out.expected_fp_rate = best;
      break;
    }
    case FilterKind::kCuckoo:
      return MakeError(ErrorCode::kUnsupported, "cuckoo sizing is computed by CuckooFilter (cuckoo_filter.h)");
    case FilterKind::kRedisBloomScalable:
    case FilterKind::kRedisBloomCuckoo:
      return MakeError(ErrorCode::kUnsupported, FilterKindName(kind),
                       " filters size themselves as RedisBloom does (redisbloom.h)");
    case FilterKind::kWindowed:
      return MakeError(ErrorCode::kUnsupported,
                       "windowed filters size their stages themselves (windowed_bloom_filter.h)");
    case FilterKind::kBitsAndBlooms:
    case FilterKind::kGuava:
    case FilterKind::kParquet:
      return MakeError(ErrorCode::kUnsupported, FilterKindName(kind),
                       " filters size themselves as their library does (foreign_bloom.h)");
  }
  out.fp_rate = out.expected_fp_rate;
  out.bits_per_key = static_cast<double>(out.num_bits) / n;
  return out;
}

}  // namespace bloomkit
