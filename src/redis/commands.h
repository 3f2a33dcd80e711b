// SPDX-License-Identifier: Apache-2.0
// The command handlers of bloomkit.so, one family per file (bf_commands.cc,
// cf_commands.cc, cbf_commands.cc), registered by module.cc.
#pragma once

#include <cstdint>

#include "args.h"
#include "command.h"

namespace bloomkit::redis {

// The options BF.ADD / BF.MADD / BF.INSERT create a missing key with: the module's
// ERROR_RATE, INITIAL_SIZE and EXPANSION (both filter formats).
BfCreateArgs BfDefaultCreateArgs();

// The eight fields of CF.INFO, in RedisBloom's order (both filter formats).
struct CfInfoFields {
  std::uint64_t size = 0;
  std::uint64_t num_buckets = 0;
  std::uint64_t num_filters = 0;
  std::uint64_t inserted = 0;
  std::uint64_t deleted = 0;
  std::uint64_t bucket_size = 0;
  std::uint64_t expansion = 0;
  std::uint64_t max_iterations = 0;
};
void ReplyCfInfo(Command& cmd, const CfInfoFields& info);

// BF.* on ScalableBloomFilter (RedisBloom's BF semantics).
Status BfReserve(Command& cmd);
Status BfAdd(Command& cmd);
Status BfMadd(Command& cmd);
Status BfInsert(Command& cmd);
Status BfExists(Command& cmd);
Status BfMexists(Command& cmd);
Status BfInfo(Command& cmd);
Status BfCard(Command& cmd);
Status BfScanDump(Command& cmd);
Status BfLoadChunk(Command& cmd);
Status BfMerge(Command& cmd);

// CF.* on CuckooFilter.
Status CfReserve(Command& cmd);
Status CfAdd(Command& cmd);
Status CfAddNx(Command& cmd);
Status CfInsert(Command& cmd);
Status CfInsertNx(Command& cmd);
Status CfExists(Command& cmd);
Status CfMexists(Command& cmd);
Status CfDel(Command& cmd);
Status CfCount(Command& cmd);
Status CfInfo(Command& cmd);
Status CfScanDump(Command& cmd);
Status CfLoadChunk(Command& cmd);

// CBF.* on CountingBloomFilter (bloomkit's own family).
Status CbfReserve(Command& cmd);
Status CbfAdd(Command& cmd);
Status CbfDel(Command& cmd);
Status CbfExists(Command& cmd);
Status CbfCount(Command& cmd);
Status CbfInfo(Command& cmd);
Status CbfScanDump(Command& cmd);
Status CbfLoadChunk(Command& cmd);

}  // namespace bloomkit::redis
