// SPDX-License-Identifier: Apache-2.0
// Argument parsing of bloomkit.so (args.h).
#include "args.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>

#include "replies.h"

namespace bloomkit::redis {
namespace {

// At most this many bytes of a bad argument are quoted back; the rest is elided.
constexpr std::size_t kMaxQuoted = 40;

// The argument as it appears in an error reply: printable ASCII, bounded length.
std::string Quote(std::string_view text) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMaxQuoted; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f && c != '\'') ? static_cast<char>(c) : '?';
  }
  if (text.size() > kMaxQuoted) out += "...";
  out += "'";
  return out;
}

template <typename... Parts>
Error ArgError(std::string_view base, const Parts&... parts) {
  std::ostringstream out;
  out.precision(17);
  out << base;
  if constexpr (sizeof...(parts) > 0) {
    out << ": ";
    (out << ... << parts);
  }
  return Error(ErrorCode::kInvalidArgument, out.str());
}

// RedisBloom caps capacities at 2^30; native filters take 64-bit capacities, bounded
// only by MAX_FILTER_BYTES (checked when the filter is created), and expansions up to
// 2^20. Their range errors use RedisBloom 8's wording with these bounds.
constexpr std::int64_t kMaxExpansion = std::int64_t{1} << 20;
constexpr std::string_view kNativeCapacityRange = "ERR capacity must be in the range [1, 9223372036854775807]";
constexpr std::string_view kNativeExpansionRange = "ERR expansion must be in the range [0, 1048576]";
// RedisBloom 2.8's cuckoo ranges (CF_MAX_ITERATIONS, CF_MAX_BUCKET_SIZE,
// CF_MAX_EXPANSION in its cf.h): CF.RESERVE refuses values outside them with the texts
// of replies.h, in both formats. Native filters take the bucket sizes 2, 4 and 8 of these.
constexpr std::int64_t kMaxIterationsLimit = 65535;
constexpr std::int64_t kMaxBucketSizeLimit = 255;
constexpr std::int64_t kMaxCfExpansion = 32768;
constexpr std::int64_t kMaxCfMaxExpansions = 65536;  // RedisBloom 8's cf-max-expansions

bool IsValidBucketSize(std::int64_t b) {
  return b == 2 || b == 4 || b == 8;
}

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto x = static_cast<unsigned char>(a[i]);
    auto y = static_cast<unsigned char>(b[i]);
    if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::optional<std::int64_t> ParseInt64(std::string_view text) noexcept {
  if (text.empty() || text.size() > 21) return std::nullopt;
  if (text.front() == '+') return std::nullopt;
  // As Redis' string2ll: no leading zeros ("007") and no "-0" (found by fuzz_redis_args).
  const std::size_t first_digit = text.front() == '-' ? 1 : 0;
  if (text.size() > first_digit && text[first_digit] == '0' && (text.size() > first_digit + 1 || first_digit == 1)) {
    return std::nullopt;
  }
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> ParseDouble(std::string_view text) noexcept {
  // As Redis' string2d (RedisModule_StringToDouble): what strtod accepts with nothing
  // left over and no leading space; not NaN, and not a value that overflowed (1e400) or
  // underflowed to 0 (1e-400). "inf" is a number: the range checks refuse it, as
  // RedisBloom's do.
  if (text.empty() || text.size() > 64) return std::nullopt;
  char buffer[65];
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') return std::nullopt;
    buffer[i] = c;
  }
  buffer[text.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(buffer, &end);
  const bool out_of_range = errno == ERANGE && (std::isinf(value) || value == 0.0);
  if (end != buffer + text.size() || std::isnan(value) || out_of_range) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> ParseBytes(std::string_view text) noexcept {
  std::uint64_t multiplier = 1;
  auto strip = [&text](std::string_view suffix) {
    if (text.size() > suffix.size() && EqualsIgnoreCase(text.substr(text.size() - suffix.size()), suffix)) {
      text.remove_suffix(suffix.size());
      return true;
    }
    return false;
  };
  if (strip("kb") || strip("k")) {
    multiplier = std::uint64_t{1} << 10;
  } else if (strip("mb") || strip("m")) {
    multiplier = std::uint64_t{1} << 20;
  } else if (strip("gb") || strip("g")) {
    multiplier = std::uint64_t{1} << 30;
  }
  const auto value = ParseInt64(text);
  if (!value || *value < 0) return std::nullopt;
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::uint64_t>(*value), multiplier, &bytes)) return std::nullopt;
  return bytes;
}

Result<ModuleConfig> ParseModuleArgs(Args args) {
  ModuleConfig config;
  // A lone empty argument is what some launchers pass for "no arguments".
  if (args.size() == 1 && args[0].empty()) return config;
  if (args.size() % 2 != 0) {
    return Error(ErrorCode::kInvalidArgument,
                 "module arguments come in NAME value pairs; got an odd count of " + std::to_string(args.size()));
  }
  for (std::size_t i = 0; i < args.size(); i += 2) {
    const std::string_view name = args[i];
    const std::string_view text = args[i + 1];
    auto integer = [&](std::int64_t lo, std::int64_t hi) -> Result<std::int64_t> {
      const auto v = ParseInt64(text);
      if (!v || *v < lo || *v > hi) {
        return Error(ErrorCode::kInvalidArgument, std::string(name) + " must be an integer in [" + std::to_string(lo) +
                                                      ", " + std::to_string(hi) + "], got " + Quote(text));
      }
      return *v;
    };
    if (EqualsIgnoreCase(name, "FORMAT")) {
      if (EqualsIgnoreCase(text, "redisbloom")) {
        config.format = FilterFormat::kRedisBloom;
      } else if (EqualsIgnoreCase(text, "native")) {
        config.format = FilterFormat::kNative;
      } else {
        return Error(ErrorCode::kInvalidArgument, "FORMAT must be redisbloom or native, got " + Quote(text));
      }
    } else if (EqualsIgnoreCase(name, "IDENTITY")) {
      if (EqualsIgnoreCase(text, "bloomkit")) {
        config.identity = ModuleIdentity::kBloomkit;
      } else if (EqualsIgnoreCase(text, "redisbloom")) {
        config.identity = ModuleIdentity::kRedisBloom;
      } else {
        return Error(ErrorCode::kInvalidArgument, "IDENTITY must be bloomkit or redisbloom, got " + Quote(text));
      }
    } else if (EqualsIgnoreCase(name, "ERROR_RATE") || EqualsIgnoreCase(name, "bf-error-rate")) {
      const auto v = ParseDouble(text);
      if (!v || *v <= 0 || *v >= 1) {
        return Error(ErrorCode::kInvalidArgument,
                     std::string(name) + " must be a number in (0, 1), got " + Quote(text));
      }
      // RedisBloom 8 takes a rate above 0.25 as 0.25.
      config.error_rate = std::min(*v, kRedisBloomErrorRateCap);
    } else if (EqualsIgnoreCase(name, "INITIAL_SIZE") || EqualsIgnoreCase(name, "CAPACITY") ||
               EqualsIgnoreCase(name, "bf-initial-size")) {
      auto v = integer(1, kRedisBloomMaxCapacity);
      if (!v.ok()) return std::move(v).error();
      config.initial_size = static_cast<std::uint64_t>(v.value());
    } else if (EqualsIgnoreCase(name, "EXPANSION") || EqualsIgnoreCase(name, "bf-expansion-factor")) {
      auto v = integer(0, kRedisBloomMaxExpansion);
      if (!v.ok()) return std::move(v).error();
      config.expansion = static_cast<std::uint32_t>(v.value());
    } else if (EqualsIgnoreCase(name, "CF_INITIAL_SIZE") || EqualsIgnoreCase(name, "cf-initial-size")) {
      auto v = integer(4, kRedisBloomMaxCapacity);
      if (!v.ok()) return std::move(v).error();
      config.cf_initial_size = static_cast<std::uint64_t>(v.value());
    } else if (EqualsIgnoreCase(name, "CF_BUCKETSIZE") || EqualsIgnoreCase(name, "cf-bucket-size")) {
      // RedisBloom's range; native cuckoo filters take 2, 4 or 8 of these.
      auto v = integer(1, kMaxBucketSizeLimit);
      if (!v.ok()) return std::move(v).error();
      config.cf_bucket_size = static_cast<std::uint32_t>(v.value());
    } else if (EqualsIgnoreCase(name, "CF_MAX_ITERATIONS") || EqualsIgnoreCase(name, "cf-max-iterations")) {
      auto v = integer(1, kMaxIterationsLimit);
      if (!v.ok()) return std::move(v).error();
      config.cf_max_iterations = static_cast<std::uint32_t>(v.value());
    } else if (EqualsIgnoreCase(name, "CF_EXPANSION") || EqualsIgnoreCase(name, "cf-expansion-factor")) {
      auto v = integer(0, kMaxCfExpansion);
      if (!v.ok()) return std::move(v).error();
      config.cf_expansion = static_cast<std::uint32_t>(v.value());
    } else if (EqualsIgnoreCase(name, "CF_MAX_EXPANSIONS") || EqualsIgnoreCase(name, "cf-max-expansions")) {
      auto v = integer(1, kMaxCfMaxExpansions);
      if (!v.ok()) return std::move(v).error();
      config.cf_max_expansions = static_cast<std::uint32_t>(v.value());
    } else if (EqualsIgnoreCase(name, "CF_FINGERPRINT_BITS")) {
      const auto v = ParseInt64(text);
      if (!v || (*v != 8 && *v != 12 && *v != 16)) {
        return Error(ErrorCode::kInvalidArgument, "CF_FINGERPRINT_BITS must be 8, 12 or 16, got " + Quote(text));
      }
      config.cf_fingerprint_bits = static_cast<std::uint32_t>(*v);
    } else if (EqualsIgnoreCase(name, "CBF_COUNTER_BITS")) {
      const auto v = ParseInt64(text);
      if (!v || (*v != 4 && *v != 8)) {
        return Error(ErrorCode::kInvalidArgument, "CBF_COUNTER_BITS must be 4 or 8, got " + Quote(text));
      }
      config.cbf_counter_bits = static_cast<std::uint32_t>(*v);
    } else if (EqualsIgnoreCase(name, "MAX_FILTER_BYTES")) {
      const auto v = ParseBytes(text);
      constexpr std::uint64_t kMin = 4096;
      constexpr std::uint64_t kMax = std::uint64_t{1} << 40;
      if (!v || *v < kMin || *v > kMax) {
        return Error(
            ErrorCode::kInvalidArgument,
            "MAX_FILTER_BYTES must be a byte count in [4096, 1tb] (suffixes k, m, g allowed), got " + Quote(text));
      }
      config.max_filter_bytes = *v;
      config.max_filter_bytes_given = true;
    } else if (EqualsIgnoreCase(name, "MAX_PENDING_LOAD_BYTES")) {
      const auto v = ParseBytes(text);
      if (!v || *v < 4096 || *v > (std::uint64_t{2} << 40)) {
        return Error(ErrorCode::kInvalidArgument,
                     "MAX_PENDING_LOAD_BYTES must be a byte count in [4096, 2tb], got " + Quote(text));
      }
      config.max_pending_load_bytes = *v;
    } else if (EqualsIgnoreCase(name, "SCANDUMP_CHUNK_BYTES")) {
      const auto v = ParseBytes(text);
      if (!v || *v < 16 || *v > (std::uint64_t{256} << 20)) {
        return Error(ErrorCode::kInvalidArgument,
                     "SCANDUMP_CHUNK_BYTES must be a byte count in [16, 256mb], got " + Quote(text));
      }
      config.scandump_chunk_bytes = *v;
    } else {
      return Error(ErrorCode::kInvalidArgument,
                   "unknown module argument " + Quote(name) +
                       " (valid: FORMAT, IDENTITY, ERROR_RATE, INITIAL_SIZE, CAPACITY, EXPANSION, CF_INITIAL_SIZE, "
                       "CF_BUCKETSIZE, "
                       "CF_MAX_ITERATIONS, CF_EXPANSION, CF_MAX_EXPANSIONS, CF_FINGERPRINT_BITS, "
                       "CBF_COUNTER_BITS, MAX_FILTER_BYTES, MAX_PENDING_LOAD_BYTES, SCANDUMP_CHUNK_BYTES, "
                       "or a config name: bf-error-rate, bf-initial-size, bf-expansion-factor, cf-bucket-size, "
                       "cf-initial-size, cf-max-iterations, cf-expansion-factor, cf-max-expansions)");
    }
  }
  if (config.max_pending_load_bytes == 0) config.max_pending_load_bytes = 2 * config.max_filter_bytes;
  if (config.cf_initial_size < std::uint64_t{2} * config.cf_bucket_size) {
    return Error(ErrorCode::kInvalidArgument, "CF_INITIAL_SIZE " + std::to_string(config.cf_initial_size) +
                                                  " is below twice CF_BUCKETSIZE " +
                                                  std::to_string(config.cf_bucket_size));
  }
  return config;
}

Result<BfCreateArgs> ParseBfReserve(Args args, const ModuleConfig& config) {
  // args: error_rate capacity [EXPANSION expansion] [NONSCALING]
  BfCreateArgs out;
  out.expansion = config.expansion;
  const auto rate = ParseDouble(args[0]);
  if (!rate) return ArgError(reply::kBadErrorRate, Quote(args[0]), " is not a number");
  if (*rate <= 0 || *rate >= 1) return ArgError(reply::kErrorRateRange, "got ", *rate);
  out.error_rate = *rate;
  const auto capacity = ParseInt64(args[1]);
  if (!capacity) return ArgError(reply::kBadCapacity, Quote(args[1]), " is not an integer");
  if (*capacity <= 0) return ArgError(kNativeCapacityRange, "got ", *capacity);
  out.capacity = static_cast<std::uint64_t>(*capacity);
  // As RedisBloom 8: EXPANSION 0 (or an expansion default of 0) means NONSCALING.
  out.nonscaling = config.expansion == 0;
  bool explicit_nonscaling = false;
  std::optional<std::int64_t> expansion;
  for (std::size_t i = 2; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "NONSCALING")) {
      explicit_nonscaling = true;
    } else if (EqualsIgnoreCase(args[i], "EXPANSION")) {
      if (i + 1 == args.size()) return ArgError(reply::kNoExpansion, "EXPANSION needs a value");
      const auto e = ParseInt64(args[++i]);
      if (!e) return ArgError(reply::kBadExpansion, Quote(args[i]), " is not an integer");
      expansion = *e;
    } else {
      return ArgError(reply::kUnknownArgument, Quote(args[i]), " (valid: EXPANSION, NONSCALING)");
    }
  }
  if (explicit_nonscaling) out.nonscaling = true;
  if (expansion) {
    if (*expansion == 0) {
      out.nonscaling = true;
    } else if (out.nonscaling) {
      return Error(ErrorCode::kInvalidArgument, std::string(reply::kNonScalingExpand));
    }
    if (*expansion < 0 || *expansion > kMaxExpansion) return ArgError(kNativeExpansionRange, "got ", *expansion);
    out.expansion = static_cast<std::uint32_t>(*expansion);
  }
  if (out.nonscaling && out.expansion == 0) out.expansion = 1;  // unused by a single stage
  return out;
}

Result<BfInsertArgs> ParseBfInsert(Args args, const ModuleConfig& config) {
  BfInsertArgs out;
  out.create.error_rate = config.error_rate;
  out.create.capacity = config.initial_size;
  out.create.expansion = config.expansion;
  bool saw_items = false;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (EqualsIgnoreCase(word, "ITEMS")) {
      ++i;
      saw_items = true;
      break;
    }
    if (EqualsIgnoreCase(word, "NOCREATE")) {
      out.nocreate = true;
      continue;
    }
    if (EqualsIgnoreCase(word, "NONSCALING")) {
      out.create.nonscaling = true;
      continue;
    }
    const bool is_error = EqualsIgnoreCase(word, "ERROR");
    const bool is_capacity = EqualsIgnoreCase(word, "CAPACITY");
    const bool is_expansion = EqualsIgnoreCase(word, "EXPANSION");
    if (!is_error && !is_capacity && !is_expansion) {
      return ArgError(reply::kUnknownArgument, Quote(word),
                      " (valid: CAPACITY, ERROR, EXPANSION, NOCREATE, NONSCALING, ITEMS)");
    }
    if (i + 1 == args.size()) return Error(kArityError, std::string(word) + " needs a value");
    const std::string_view value = args[++i];
    if (is_error) {
      const auto rate = ParseDouble(value);
      if (!rate) return ArgError(reply::kInsertBadErrorRate, Quote(value), " is not a number");
      if (*rate <= 0 || *rate >= 1) return ArgError(reply::kInsertBadErrorRate, "ERROR must be in (0, 1), got ", *rate);
      out.create.error_rate = *rate;
    } else if (is_capacity) {
      const auto capacity = ParseInt64(value);
      if (!capacity) return ArgError(reply::kInsertBadCapacity, Quote(value), " is not an integer");
      if (*capacity < 1) return ArgError(reply::kInsertBadCapacity, "CAPACITY must be >= 1, got ", *capacity);
      out.create.capacity = static_cast<std::uint64_t>(*capacity);
    } else {
      const auto e = ParseInt64(value);
      if (!e) return ArgError(reply::kInsertBadExpansion, Quote(value), " is not an integer");
      if (*e < 0 || *e > kMaxExpansion) {
        return ArgError(reply::kInsertBadExpansion, "EXPANSION must be in [0, ", kMaxExpansion, "], got ", *e);
      }
      out.create.expansion = static_cast<std::uint32_t>(*e);
    }
  }
  if (!saw_items || i == args.size()) return Error(kArityError, "ITEMS and at least one item are required");
  // As RedisBloom 8: an expansion of 0 means NONSCALING.
  if (out.create.expansion == 0) {
    out.create.nonscaling = true;
    out.create.expansion = 1;
  }
  out.first_item = i;
  return out;
}

Result<CfCreateArgs> ParseCfReserve(Args args, const ModuleConfig& config) {
  // args: capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]
  CfCreateArgs out;
  out.bucket_size = config.cf_bucket_size;
  out.max_iterations = config.cf_max_iterations;
  out.expansion = config.cf_expansion;
  const auto capacity = ParseInt64(args[0]);
  if (!capacity) return ArgError(reply::kCfBadCapacity, Quote(args[0]), " is not an integer");
  // RedisBloom compares every capacity with 2 x BUCKETSIZE, 0 and negatives included.
  if (*capacity <= 0) return ArgError(reply::kCfCapacityRange, "capacity ", *capacity);
  out.capacity = static_cast<std::uint64_t>(*capacity);
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string_view word = args[i];
    const bool is_bucket = EqualsIgnoreCase(word, "BUCKETSIZE");
    const bool is_iterations = EqualsIgnoreCase(word, "MAXITERATIONS");
    const bool is_expansion = EqualsIgnoreCase(word, "EXPANSION");
    if (!is_bucket && !is_iterations && !is_expansion) {
      return ArgError(reply::kUnknownArgument, Quote(word), " (valid: BUCKETSIZE, MAXITERATIONS, EXPANSION)");
    }
    if (i + 1 == args.size()) return Error(kArityError, std::string(word) + " needs a value");
    const std::string_view value = args[++i];
    const auto v = ParseInt64(value);
    if (is_bucket) {
      if (!v) return ArgError(reply::kCfBadBucketSize, Quote(value), " is not an integer");
      if (*v <= 0 || *v > kMaxBucketSizeLimit) return ArgError(reply::kCfBucketSizeRange, "got ", *v);
      if (!IsValidBucketSize(*v)) {
        return ArgError(reply::kCfBadBucketSize, "native cuckoo filters take 2, 4 or 8, got ", *v);
      }
      out.bucket_size = static_cast<std::uint32_t>(*v);
    } else if (is_iterations) {
      if (!v) return ArgError(reply::kCfBadMaxIterations, Quote(value), " is not an integer");
      if (*v <= 0 || *v > kMaxIterationsLimit) return ArgError(reply::kCfMaxIterationsRange, "got ", *v);
      out.max_iterations = static_cast<std::uint32_t>(*v);
    } else {
      if (!v) return ArgError(reply::kCfBadExpansion, Quote(value), " is not an integer");
      if (*v < 0 || *v > kMaxCfExpansion) return ArgError(reply::kCfExpansionRange, "got ", *v);
      out.expansion = static_cast<std::uint32_t>(*v);
    }
  }
  if (out.capacity < std::uint64_t{2} * out.bucket_size) {
    return ArgError(reply::kCfCapacityRange, "capacity ", out.capacity, ", bucket size ", out.bucket_size);
  }
  return out;
}

Result<CfInsertArgs> ParseCfInsert(Args args, const ModuleConfig& config) {
  CfInsertArgs out;
  out.create.capacity = config.cf_initial_size;
  out.create.bucket_size = config.cf_bucket_size;
  out.create.max_iterations = config.cf_max_iterations;
  out.create.expansion = config.cf_expansion;
  std::size_t i = 0;
  bool saw_items = false;
  for (; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (EqualsIgnoreCase(word, "ITEMS")) {
      ++i;
      saw_items = true;
      break;
    }
    if (EqualsIgnoreCase(word, "NOCREATE")) {
      out.nocreate = true;
    } else if (EqualsIgnoreCase(word, "CAPACITY")) {
      if (i + 1 == args.size()) return Error(kArityError, "CAPACITY needs a value");
      const std::string_view value = args[++i];
      const auto v = ParseInt64(value);
      if (!v) return ArgError(reply::kCfBadCapacity, Quote(value), " is not an integer");
      if (*v < std::int64_t{2} * out.create.bucket_size) {
        return ArgError(reply::kCfInsertCapacityRange, "capacity ", *v, ", bucket size ", out.create.bucket_size);
      }
      out.create.capacity = static_cast<std::uint64_t>(*v);
    } else {
      return ArgError(reply::kUnknownArgument, Quote(word), " (valid: CAPACITY, NOCREATE, ITEMS)");
    }
  }
  if (!saw_items || i == args.size()) return Error(kArityError, "ITEMS and at least one item are required");
  out.first_item = i;
  return out;
}

Result<CbfCreateArgs> ParseCbfReserve(Args args, const ModuleConfig& config) {
  CbfCreateArgs out;
  out.counter_bits = config.cbf_counter_bits;
  const auto rate = ParseDouble(args[0]);
  if (!rate) return ArgError(reply::kBadErrorRate, Quote(args[0]), " is not a number");
  if (*rate <= 0 || *rate >= 1) return ArgError(reply::kErrorRateRange, "got ", *rate);
  out.error_rate = *rate;
  const auto capacity = ParseInt64(args[1]);
  if (!capacity) return ArgError(reply::kBadCapacity, Quote(args[1]), " is not an integer");
  if (*capacity <= 0) return ArgError(kNativeCapacityRange, "got ", *capacity);
  out.capacity = static_cast<std::uint64_t>(*capacity);
  for (std::size_t i = 2; i < args.size(); ++i) {
    if (!EqualsIgnoreCase(args[i], "COUNTERBITS")) {
      return ArgError(reply::kUnknownArgument, Quote(args[i]), " (valid: COUNTERBITS)");
    }
    if (i + 1 == args.size()) return ArgError(reply::kCbfBadCounterBits, "COUNTERBITS needs a value");
    const auto v = ParseInt64(args[++i]);
    if (!v || (*v != 4 && *v != 8)) return ArgError(reply::kCbfBadCounterBits, "must be 4 or 8, got ", Quote(args[i]));
    out.counter_bits = static_cast<std::uint32_t>(*v);
  }
  return out;
}

Result<BfInfoField> ParseBfInfoField(Args args) {
  if (args.empty()) return BfInfoField::kAll;
  const std::string_view f = args[0];
  if (EqualsIgnoreCase(f, "CAPACITY")) return BfInfoField::kCapacity;
  if (EqualsIgnoreCase(f, "SIZE")) return BfInfoField::kSize;
  if (EqualsIgnoreCase(f, "FILTERS")) return BfInfoField::kFilters;
  if (EqualsIgnoreCase(f, "ITEMS")) return BfInfoField::kItems;
  if (EqualsIgnoreCase(f, "EXPANSION")) return BfInfoField::kExpansion;
  return ArgError(reply::kInvalidInfoValue, Quote(f), " (valid: CAPACITY, SIZE, FILTERS, ITEMS, EXPANSION)");
}

Result<std::int64_t> ParseScanIterator(std::string_view text, bool for_loadchunk, bool cuckoo) {
  const auto v = ParseInt64(text);
  const std::int64_t min = for_loadchunk ? 1 : 0;
  if (cuckoo) {  // RedisBloom's CF.SCANDUMP / CF.LOADCHUNK: one text for both
    if (!v) return ArgError(reply::kCfInvalidPosition, Quote(text), " is not an integer");
    if (*v < min) return ArgError(reply::kCfInvalidPosition, "iterator must be >= ", min, ", got ", *v);
    return *v;
  }
  if (!v) {
    return ArgError(for_loadchunk ? reply::kBfIteratorNotNumeric : reply::kRbIteratorNotNumeric, Quote(text),
                    " is not an integer");
  }
  if (*v < min) return ArgError(reply::kChunkOutOfOrder, "iterator must be >= ", min, ", got ", *v);
  return *v;
}

}  // namespace bloomkit::redis
