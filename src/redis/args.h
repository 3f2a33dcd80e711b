// SPDX-License-Identifier: Apache-2.0
// Argument parsing of bloomkit.so: module arguments and every command's options, as
// plain functions over byte strings. Nothing here needs a running Redis, so the rules
// are unit-tested (tests/integration/redis/args_test.cc) and can be fuzzed.
//
// Numbers follow Redis' own rules (RedisModule_StringToLongLong / StringToDouble): the
// whole argument must be the number, no spaces, no trailing bytes; doubles must be
// finite. Keywords are case-insensitive. Every error names the bad argument and, for
// ranges, the valid range; the reply text starts with RedisBloom's wording where it has
// one (replies.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bloomkit/result.h"

namespace bloomkit::redis {

using Args = std::span<const std::string_view>;

// The layout of filters that BF.RESERVE/BF.ADD/BF.INSERT/CF.RESERVE/CF.ADD/CF.INSERT
// create (FORMAT): RedisBloom's (types MBbloom-- and MBbloomCF, bit-exact answers, sizes
// and dumps) or bloomkit's own (checksummed dumps, BF.MERGE, XXH3, 64-bit capacities).
// Keys that exist keep the format they have.
enum class FilterFormat { kRedisBloom, kNative };

// The name and version the module gives Redis (IDENTITY), seen in MODULE LIST and INFO
// modules: bloomkit's own, or RedisBloom's ("bf", 20820 for 2.8.20) for tools that look
// for that module by name and version.
enum class ModuleIdentity { kBloomkit, kRedisBloom };

// Defaults at --loadmodule time. Names follow RedisBloom's where it has one.
struct ModuleConfig {
  FilterFormat format = FilterFormat::kRedisBloom;            // FORMAT: redisbloom or native
  ModuleIdentity identity = ModuleIdentity::kBloomkit;        // IDENTITY: bloomkit or redisbloom
  double error_rate = 0.01;                                   // ERROR_RATE: BF.ADD/MADD/INSERT auto-create
  std::uint64_t initial_size = 100;                           // INITIAL_SIZE (or CAPACITY)
  std::uint32_t expansion = 2;                                // EXPANSION
  std::uint64_t cf_initial_size = 1024;                       // CF_INITIAL_SIZE: CF.ADD/INSERT auto-create
  std::uint32_t cf_bucket_size = 2;                           // CF_BUCKETSIZE: 1..255 (native filters: 2, 4, 8)
  std::uint32_t cf_max_iterations = 20;                       // CF_MAX_ITERATIONS
  std::uint32_t cf_expansion = 1;                             // CF_EXPANSION
  std::uint32_t cf_max_expansions = 32;                       // CF_MAX_EXPANSIONS: sub-filters of one cuckoo filter
  std::uint32_t cf_fingerprint_bits = 8;                      // CF_FINGERPRINT_BITS: 8, 12 or 16
  std::uint32_t cbf_counter_bits = 4;                         // CBF_COUNTER_BITS: 4 or 8
  std::uint64_t max_filter_bytes = std::uint64_t{512} << 20;  // MAX_FILTER_BYTES
  // Whether MAX_FILTER_BYTES was given. Without it, RedisBloom-format filters have no
  // size limit of their own (RedisBloom has none): maxmemory, lazy zeroing and the
  // allocator's refusals protect the server, as they do for RedisBloom.
  bool max_filter_bytes_given = false;
  // MAX_PENDING_LOAD_BYTES: the totals announced by the LOADCHUNK loads in progress,
  // summed over all keys; a header that would pass it is refused. Default (0 here):
  // twice MAX_FILTER_BYTES.
  std::uint64_t max_pending_load_bytes = 0;
  // SCANDUMP_CHUNK_BYTES: payload bytes per SCANDUMP reply of a native filter.
  std::uint64_t scandump_chunk_bytes = std::uint64_t{8} << 20;
};

// The largest RedisBloom-format filter a command, LOADCHUNK or RDB may create:
// MAX_FILTER_BYTES when given, else no limit (2^62 bytes, far past any machine).
inline constexpr std::uint64_t kNoFilterLimit = std::uint64_t{1} << 62;
inline std::uint64_t RedisBloomFilterLimit(const ModuleConfig& config) noexcept {
  return config.max_filter_bytes_given ? config.max_filter_bytes : kNoFilterLimit;
}

// RedisBloom 8's limits (its src/config.c and rebloom.c): capacities of BF.RESERVE,
// BF.INSERT, CF.RESERVE, CF.INSERT and of the configs bf-initial-size and
// cf-initial-size up to 2^30; expansions in [0, 32768], 0 meaning non-scaling; error
// rates in (0, 1), any rate above 0.25 taken as 0.25.
inline constexpr std::int64_t kRedisBloomMaxCapacity = std::int64_t{1} << 30;
inline constexpr std::int64_t kRedisBloomMaxExpansion = 32768;
inline constexpr double kRedisBloomErrorRateCap = 0.25;

// "NAME value" pairs, e.g. {"ERROR_RATE", "0.001", "MAX_FILTER_BYTES", "64mb"}.
Result<ModuleConfig> ParseModuleArgs(Args args);

// Strict integer: "-12" ok; " 12", "12x", "", "007", "-0" and overflow rejected.
std::optional<std::int64_t> ParseInt64(std::string_view text) noexcept;
// A double as Redis reads one ("0.01", "1e-3", "inf"); "nan", "", "1e400", "1e-400" rejected.
std::optional<double> ParseDouble(std::string_view text) noexcept;
// Byte size with an optional k/kb/m/mb/g/gb suffix (powers of 1024), as redis.conf.
std::optional<std::uint64_t> ParseBytes(std::string_view text) noexcept;
bool EqualsIgnoreCase(std::string_view a, std::string_view b) noexcept;

// BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]
// (args start after the key).
struct BfCreateArgs {
  double error_rate = 0.01;
  std::uint64_t capacity = 100;
  std::uint32_t expansion = 2;
  bool nonscaling = false;
};
Result<BfCreateArgs> ParseBfReserve(Args args, const ModuleConfig& config);

// The parsers below return ErrorCode::kTruncated when arguments are missing (an
// option without its value, ITEMS without items): the command then answers with
// Redis' own arity error, as RedisBloom does.
inline constexpr ErrorCode kArityError = ErrorCode::kTruncated;

// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING] ITEMS item...
struct BfInsertArgs {
  BfCreateArgs create;
  bool nocreate = false;
  std::size_t first_item = 0;  // index into args of the first item
};
Result<BfInsertArgs> ParseBfInsert(Args args, const ModuleConfig& config);

// CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]
struct CfCreateArgs {
  std::uint64_t capacity = 1024;
  std::uint32_t bucket_size = 2;
  std::uint32_t max_iterations = 20;
  std::uint32_t expansion = 1;
};
Result<CfCreateArgs> ParseCfReserve(Args args, const ModuleConfig& config);

// CF.INSERT / CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS item...
struct CfInsertArgs {
  CfCreateArgs create;
  bool nocreate = false;
  std::size_t first_item = 0;
};
Result<CfInsertArgs> ParseCfInsert(Args args, const ModuleConfig& config);

// CBF.RESERVE key error_rate capacity [COUNTERBITS 4|8]
struct CbfCreateArgs {
  double error_rate = 0.01;
  std::uint64_t capacity = 100;
  std::uint32_t counter_bits = 4;
};
Result<CbfCreateArgs> ParseCbfReserve(Args args, const ModuleConfig& config);

// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]
enum class BfInfoField { kAll, kCapacity, kSize, kFilters, kItems, kExpansion };
Result<BfInfoField> ParseBfInfoField(Args args);

// The iterator of SCANDUMP (>= 0) and LOADCHUNK (>= 1), with RedisBloom's texts: for
// CF (`cuckoo`) "Invalid position", for BF "Second argument must be numeric" (BF.LOADCHUNK
// with "ERR " before it).
Result<std::int64_t> ParseScanIterator(std::string_view text, bool for_loadchunk, bool cuckoo = false);

}  // namespace bloomkit::redis
