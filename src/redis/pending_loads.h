// SPDX-License-Identifier: Apache-2.0
// The dumps being loaded (LOADCHUNK, or a loading value read from RDB or RESTORE) of
// the whole server: how many there are, the bytes they hold and the bytes their headers
// announce. MAX_PENDING_LOAD_BYTES bounds the announced bytes of LOADCHUNK loads.
#pragma once

#include <cstdint>

namespace bloomkit::redis {

struct PendingLoads {
  std::uint64_t count = 0;            // PendingDump buffers alive
  std::uint64_t bytes_held = 0;       // bytes they hold (capacity, from Redis' allocator)
  std::uint64_t bytes_announced = 0;  // the totals their headers announce
};

// The counters now (kept by PendingDump, src/redis/dump.cc).
PendingLoads PendingLoadStats() noexcept;

}  // namespace bloomkit::redis
