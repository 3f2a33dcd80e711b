// SPDX-License-Identifier: Apache-2.0
// TBF.*: time-windowed Bloom filters (bloomkit::WindowedBloomFilter), "seen in the last
// WINDOW seconds". Not in RedisBloom; the shapes follow BF.*:
//
//   TBF.RESERVE key error_rate capacity WINDOW seconds [GENERATIONS g] [AT ms]  -> OK
//   TBF.ADD key item               -> 1 if no live generation held the item, else 0
//   TBF.MADD key item [item ...]   -> array of those
//   TBF.MADDAT key ms item [...]   -> TBF.MADD at time ms (milliseconds since the epoch)
//   TBF.EXISTS key item            -> 1 if the item may have been added in the window
//   TBF.MEXISTS key item [item ...]-> array of those
//   TBF.INFO key                   -> map
//   TBF.CARD key                   -> keys the live generations hold
//   TBF.SCANDUMP / TBF.LOADCHUNK   -> as BF.*'s (what AOF rewrites use)
//
// Time is the server's clock in milliseconds (RedisModule_Milliseconds). A generation
// turns over because time passed, so a write is replicated (and written to the AOF)
// with the time the primary used: TBF.ADD and TBF.MADD travel as TBF.MADDAT key ms
// items, TBF.RESERVE with AT ms. A replica or an AOF replay therefore applies every
// write at the primary's time and ends with the same bytes, whatever its own clock.
// Reads answer at max(now, the filter's time) without changing the value.
#pragma once

#include "bloomkit/windowed_bloom_filter.h"
#include "command.h"
#include "redismodule_api.h"

namespace bloomkit::redis {

struct TbfFamily {
  using Filter = WindowedBloomFilter;
  static constexpr const char* kTypeName = "bloomkitT";
  static constexpr const char* kLoadChunk = "TBF.LOADCHUNK";
  static inline RedisModuleType* type = nullptr;
};

Status TbfReserve(Command& cmd);
Status TbfAdd(Command& cmd);
Status TbfMadd(Command& cmd);
Status TbfMaddAt(Command& cmd);
Status TbfExists(Command& cmd);
Status TbfMexists(Command& cmd);
Status TbfInfo(Command& cmd);
Status TbfCard(Command& cmd);
Status TbfScanDump(Command& cmd);
Status TbfLoadChunk(Command& cmd);

}  // namespace bloomkit::redis
