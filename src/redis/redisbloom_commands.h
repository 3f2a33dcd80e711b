// SPDX-License-Identifier: Apache-2.0
// The BF.* and CF.* entry points module.cc registers: each runs RedisBloom's semantics on
// a RedisBloom-format key (redisbloom_commands.cc) and bloomkit's native handlers
// (commands.h) on a native key; a new key gets the format of the FORMAT module argument.
// BF.DEBUG, CF.DEBUG and CF.COMPACT exist for RedisBloom-format keys only.
#pragma once

#include "command.h"

namespace bloomkit::redis {

Status RouteBfReserve(Command& cmd);
Status RouteBfAdd(Command& cmd);
Status RouteBfMadd(Command& cmd);
Status RouteBfInsert(Command& cmd);
Status RouteBfExists(Command& cmd);
Status RouteBfMexists(Command& cmd);
Status RouteBfInfo(Command& cmd);
Status RouteBfCard(Command& cmd);
Status RouteBfDebug(Command& cmd);
Status RouteBfScanDump(Command& cmd);
Status RouteBfLoadChunk(Command& cmd);

Status RouteCfReserve(Command& cmd);
Status RouteCfAdd(Command& cmd);
Status RouteCfAddNx(Command& cmd);
Status RouteCfInsert(Command& cmd);
Status RouteCfInsertNx(Command& cmd);
Status RouteCfExists(Command& cmd);
Status RouteCfMexists(Command& cmd);
Status RouteCfCount(Command& cmd);
Status RouteCfDel(Command& cmd);
Status RouteCfCompact(Command& cmd);
Status RouteCfInfo(Command& cmd);
Status RouteCfDebug(Command& cmd);
Status RouteCfScanDump(Command& cmd);
Status RouteCfLoadChunk(Command& cmd);

}  // namespace bloomkit::redis
