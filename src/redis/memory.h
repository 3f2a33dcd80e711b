// SPDX-License-Identifier: Apache-2.0
// Filter memory inside Redis: the allocator bloomkit.so installs under every filter
// (Redis' own, so INFO memory and MEMORY USAGE count it) and the maxmemory check made
// before a filter allocates.
//
// RunCommand (command.h) brackets every command with Begin/EndCommand. While a client's
// command runs on a server with maxmemory, filter allocations of 64 KiB or more that
// would take used_memory past it are refused; AllocationRefusal() is then the OOM reply
// text (empty otherwise). CheckMemoryFor does the same check for memory that is about
// to be allocated outside the filter allocator (LOADCHUNK's pending bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "bloomkit/result.h"
#include "redismodule_api.h"

namespace bloomkit::redis {

void BeginCommand(RedisModuleCtx* ctx) noexcept;
void EndCommand() noexcept;
const std::string& AllocationRefusal() noexcept;
Status CheckMemoryFor(std::uint64_t bytes);
// Whether the command running comes from a client (not replicated from a primary, not
// the AOF being loaded: their limits were applied where they were first run).
bool CommandFromClient() noexcept;

// Installs Redis' allocator under every filter (at load); false if the table is full.
bool InstallRedisAllocator() noexcept;

// The bytes Redis holds for a block of `bytes` it allocated (RedisModule_MallocSize,
// what used_memory counts; `bytes` on servers without it).
inline std::size_t BlockBytes(const void* block, std::size_t bytes) noexcept {
  return rm.MallocSize != nullptr ? rm.MallocSize(const_cast<void*>(block)) : bytes;
}

}  // namespace bloomkit::redis
