// SPDX-License-Identifier: Apache-2.0
// The counters behind `INFO bloomkit` (RedisModule_RegisterInfoFunc): filters held, by
// family and format; bytes of filter memory; LOADCHUNKs in progress; commands and error
// replies per family. Counting is cheap enough for every command: values, pending loads
// and bytes are relaxed atomics (Redis may free values on its lazyfree thread), the
// command counters plain integers touched only on the main thread.
//
//   # bloomkit_filters
//   bloomkit_bf_redisbloom:2         keys of each type: MBbloom--, MBbloomCF,
//   bloomkit_cf_redisbloom:0         bloomkitB, bloomkitC, bloomkitN
//   bloomkit_bf_native:1
//   bloomkit_cf_native:0
//   bloomkit_cbf_native:0
//   bloomkit_tbf_native:0            bloomkitT (TBF.*)
//   bloomkit_bf_foreign:0            bloomkitG, bloomkitJ, bloomkitP (other libraries' filters)
//   bloomkit_filters:3               their sum
//   bloomkit_filter_bytes:2760960    filter arrays, as Redis' allocator counts them
//   bloomkit_pending_loads:0         keys waiting for the rest of a LOADCHUNK dump
//
//   # bloomkit_commands
//   bloomkit_bf_commands:10          BF.* commands run, and those answered with an error
//   bloomkit_bf_errors:1
//   bloomkit_cf_commands:0 ... bloomkit_tbf_errors:0
//
// With IDENTITY redisbloom the module is named "bf": INFO bf, bf_filters, bf_bf_native...
#pragma once

#include <cstddef>
#include <cstdint>

#include "bloomkit/options.h"
#include "redismodule_api.h"

namespace bloomkit::redis::stats {

// What a key's value is: one counter each.
enum class ValueKind : int { kBfRedisBloom, kCfRedisBloom, kBfNative, kCfNative, kCbfNative, kTbfNative, kBfForeign };
inline constexpr int kNumValueKinds = 7;

constexpr ValueKind KindOf(FilterKind kind) noexcept {
  switch (kind) {
    case FilterKind::kRedisBloomScalable: return ValueKind::kBfRedisBloom;
    case FilterKind::kRedisBloomCuckoo: return ValueKind::kCfRedisBloom;
    case FilterKind::kCuckoo: return ValueKind::kCfNative;
    case FilterKind::kCounting: return ValueKind::kCbfNative;
    case FilterKind::kWindowed: return ValueKind::kTbfNative;
    case FilterKind::kBitsAndBlooms:
    case FilterKind::kGuava:
    case FilterKind::kParquet: return ValueKind::kBfForeign;
    default: return ValueKind::kBfNative;
  }
}

// A value (a key's filter, or a dump being loaded into one) was created or freed.
void ValueCreated(ValueKind kind) noexcept;
void ValueFreed(ValueKind kind) noexcept;
// A value started or stopped waiting for the rest of its LOADCHUNK dump.
void PendingLoadStarted() noexcept;
void PendingLoadEnded() noexcept;
// The module's allocator handed out or took back a block of `bytes` (as Redis'
// allocator counts it).
void BlockAllocated(std::size_t bytes) noexcept;
void BlockFreed(std::size_t bytes) noexcept;
// One command of the family its name starts with (BF., CF., CBF.) ran; `error`: it
// answered with an error (a whole-command error, or an error element in its array).
void CommandServed(const RedisModuleString* name, bool error) noexcept;

std::uint64_t Filters(ValueKind kind) noexcept;
std::uint64_t PendingLoads() noexcept;
std::uint64_t FilterBytes() noexcept;

// The INFO callback: sections "filters" and "commands" under the module's name.
void AddInfo(RedisModuleInfoCtx* ctx, int for_crash_report);

}  // namespace bloomkit::redis::stats
