// SPDX-License-Identifier: Apache-2.0
// The command handlers of bloomkit.so, one per command, and the command table that
// registers them (commands.cc). BF.* (bf.cc) and CF.* (cf.cc) run on either filter
// format, as the key's type says (format.h); CBF.* (cbf.cc) is bloomkit's own family.
#pragma once

#include "args.h"
#include "command.h"

namespace bloomkit::redis {

// Registers every command of the table with its flags, key specs, tips and ACL
// categories. Returns false (after a log line) if Redis refuses one.
bool RegisterCommands(RedisModuleCtx* ctx);

// The options BF.ADD / BF.MADD / BF.INSERT create a missing key with: the module's
// ERROR_RATE, INITIAL_SIZE and EXPANSION (both filter formats).
BfCreateArgs BfDefaultCreateArgs();

Status BfReserve(Command& cmd);
Status BfAdd(Command& cmd);
Status BfMadd(Command& cmd);
Status BfInsert(Command& cmd);
Status BfExists(Command& cmd);
Status BfMexists(Command& cmd);
Status BfInfo(Command& cmd);
Status BfCard(Command& cmd);
Status BfDebug(Command& cmd);
Status BfScanDump(Command& cmd);
Status BfLoadChunk(Command& cmd);
Status BfMerge(Command& cmd);

Status CfReserve(Command& cmd);
Status CfAdd(Command& cmd);
Status CfAddNx(Command& cmd);
Status CfInsert(Command& cmd);
Status CfInsertNx(Command& cmd);
Status CfExists(Command& cmd);
Status CfMexists(Command& cmd);
Status CfDel(Command& cmd);
Status CfCount(Command& cmd);
Status CfCompact(Command& cmd);
Status CfInfo(Command& cmd);
Status CfDebug(Command& cmd);
Status CfScanDump(Command& cmd);
Status CfLoadChunk(Command& cmd);

Status CbfReserve(Command& cmd);
Status CbfAdd(Command& cmd);
Status CbfDel(Command& cmd);
Status CbfExists(Command& cmd);
Status CbfCount(Command& cmd);
Status CbfInfo(Command& cmd);
Status CbfScanDump(Command& cmd);
Status CbfLoadChunk(Command& cmd);

}  // namespace bloomkit::redis
