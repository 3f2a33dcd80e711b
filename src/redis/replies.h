// SPDX-License-Identifier: Apache-2.0
// Every reply text of bloomkit.so in one table. Where RedisBloom has a text for the
// same condition, ours is the same, byte for byte, because clients match on them
// (redis-py, go-redis and Jedis tests check "item exists", "not found", "non scaling
// filter is full"). The texts and ranges are RedisBloom 8's (src/rebloom.c, sb.c); 8
// changed only the range texts of 2.8 ("ERR (0 < error rate range < 1) " became "ERR
// error rate must be in the range (0.000000, 1.000000)"). On RedisBloom-format keys the
// reply is exactly RedisBloom's and bloomkit's detail (the bad value, the cause) goes to
// the server log at level verbose; native keys, whose ranges differ, append ": <detail>".
// Texts RedisBloom has no equivalent for (BF.MERGE, CBF.*, native chunk validation) are
// bloomkit's own and start with "ERR".
#pragma once

#include <string_view>

namespace bloomkit::redis::reply {

// Key lookups (all families).
inline constexpr std::string_view kNotFound = "ERR not found";
inline constexpr std::string_view kItemExists = "ERR item exists";
inline constexpr std::string_view kWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kCfNotFound = "Not found";  // CF.DEL on a missing key

// BF.* arguments. RedisBloom 8 takes error rates in (0, 1) (above 0.25 counts as 0.25),
// capacities in [1, 2^30] and expansions in [0, 32768], 0 meaning NONSCALING.
inline constexpr std::string_view kBadErrorRate = "ERR bad error rate";
inline constexpr std::string_view kErrorRateRange = "ERR error rate must be in the range (0.000000, 1.000000)";
inline constexpr std::string_view kBadCapacity = "ERR bad capacity";
inline constexpr std::string_view kCapacityRange = "ERR capacity must be in the range [1, 1073741824]";
inline constexpr std::string_view kNoExpansion = "ERR no expansion";
inline constexpr std::string_view kBadExpansion = "ERR bad expansion";
inline constexpr std::string_view kExpansionRange = "ERR expansion must be in the range [0, 32768]";
inline constexpr std::string_view kNonScalingExpand = "Nonscaling filters cannot expand";
// BF.INSERT: one text per option, for a value that does not parse or is out of range.
inline constexpr std::string_view kInsertBadErrorRate = "Bad error rate";
inline constexpr std::string_view kInsertBadCapacity = "Bad capacity";
inline constexpr std::string_view kInsertBadExpansion = "Bad expansion";
inline constexpr std::string_view kUnknownArgument = "Unknown argument received";
inline constexpr std::string_view kInvalidInfoValue = "Invalid information value";
inline constexpr std::string_view kBfIteratorNotNumeric = "ERR Second argument must be numeric";

// BF.* results.
inline constexpr std::string_view kNonScalingFull = "ERR non scaling filter is full";
// Parameters that pass the argument checks but give no filter (an error rate so small its
// first stage needs more than 64 hashes, or rounds to 0): RedisBloom's text when it
// cannot size the first link (BF: "could", CF: "Could").
inline constexpr std::string_view kBfCannotCreate = "ERR could not create filter";
inline constexpr std::string_view kCfCannotCreate = "ERR Could not create filter";
// A scaling filter that cannot add its next stage (its error rate would need more than
// 64 hashes): RedisBloom's text when adding a link fails.
inline constexpr std::string_view kInsertProblem = "ERR problem inserting into filter";
// Memory for a new filter could not be had (BF.RESERVE, CF.RESERVE, and the filters
// BF.ADD/INSERT and CF.ADD/INSERT create).
inline constexpr std::string_view kCannotAllocateFilter = "ERR Insufficient memory to create filter";

// CF.* arguments and results. The bucket size's upper bound and the capacity's lower
// bound follow cf-initial-size and cf-bucket-size (config.h); the defaults give these.
inline constexpr std::string_view kCfBadCapacity = "Bad capacity";
inline constexpr std::string_view kCfBadMaxIterations = "Couldn't parse MAXITERATIONS";
inline constexpr std::string_view kCfMaxIterationsRange = "MAXITERATIONS: value must be in the range [1, 65535]";
inline constexpr std::string_view kCfBadBucketSize = "Couldn't parse BUCKETSIZE";
inline constexpr std::string_view kCfBucketSizeRange = "BUCKETSIZE: value must be in the range [1, 255]";
inline constexpr std::string_view kCfBucketSizeRangeFormat = "BUCKETSIZE: value must be in the range [%lld, %lld]";
inline constexpr std::string_view kCfBadExpansion = "Couldn't parse EXPANSION";
inline constexpr std::string_view kCfExpansionRange = "EXPANSION: value must be in the range [0, 32768]";
// CF.RESERVE's capacity, and CF.INSERT's (which names the config, as RedisBloom 8 does).
inline constexpr std::string_view kCfCapacityRange = "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]";
inline constexpr std::string_view kCfInsertCapacityRange =
    "Capacity must be in the range [cf-bucket-size * 2, 1073741824]";
inline constexpr std::string_view kCfFull = "Filter is full";
inline constexpr std::string_view kCfNoMemory = "ERR Insufficient memory";  // an add that needed a new sub-filter
inline constexpr std::string_view kCfMaxExpansions = "Maximum expansions reached";
inline constexpr std::string_view kCfInvalidPosition = "Invalid position";

// CBF.* (bloomkit's own).
inline constexpr std::string_view kCbfBadCounterBits = "ERR bad counter bits";

// BF.MERGE (bloomkit's own).
inline constexpr std::string_view kMergeIncompatible = "ERR incompatible filters";

// SCANDUMP / LOADCHUNK (bloomkit's own; a dump is bloomkit's checksummed format).
inline constexpr std::string_view kChunkBadHeader = "ERR invalid dump header";
inline constexpr std::string_view kChunkOutOfOrder = "ERR invalid chunk iterator";
inline constexpr std::string_view kChunkTooLong = "ERR chunk runs past the end of the dump";
inline constexpr std::string_view kTooManyPendingLoads = "ERR too many pending loads (MAX_PENDING_LOAD_BYTES)";
inline constexpr std::string_view kChunkInvalid = "ERR invalid dump";
inline constexpr std::string_view kFilterLoading = "ERR filter is still being loaded (LOADCHUNK)";

// RedisBloom-format keys only (RedisBloom's texts for SCANDUMP / LOADCHUNK / COMPACT).
inline constexpr std::string_view kRbIteratorNotNumeric = "Second argument must be numeric";  // BF.SCANDUMP
inline constexpr std::string_view kRbCfCompactNotFound = "Cuckoo filter was not found";
inline constexpr std::string_view kRbCfInvalidHeader = "Invalid header";
inline constexpr std::string_view kRbCfCannotCreate = "Couldn't create filter!";
inline constexpr std::string_view kRbCfBadChunk = "Couldn't load chunk!";
inline constexpr std::string_view kRbBadData = "ERR received bad data";  // a bad header chunk or iterator
inline constexpr std::string_view kRbNoLink = "ERR invalid offset - no link found";
inline constexpr std::string_view kRbChunkTooBig = "ERR invalid chunk - Too big for current filter";

// Generic.
inline constexpr std::string_view kTooLarge = "ERR filter too large";
inline constexpr std::string_view kOutOfMemory = "ERR out of memory";
// Redis' own text for a command refused under maxmemory, then the sizes.
inline constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'";
inline constexpr std::string_view kInternal = "ERR internal error";
inline constexpr std::string_view kOk = "OK";

}  // namespace bloomkit::redis::reply
