// SPDX-License-Identifier: Apache-2.0
// Filter memory inside Redis (memory.h): the maxmemory check and the aligned allocator
// over RedisModule_Alloc.
#include "memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "bloomkit/allocator.h"
#include "replies.h"
#include "stats.h"

namespace bloomkit::redis {
namespace {

// ---- maxmemory: checked before a filter allocates ---------------------------------
//
// Redis checks maxmemory before a command runs, not while it allocates, so one
// BF.RESERVE could take a 50 MB server to 516 MB, and under allkeys-lru the next
// command evicted unrelated keys to pay for it. Every allocation of filter memory of
// kCheckedBytes or more during a client's command (not a replicated one or the AOF
// being loaded: their primary already decided) is refused when used_memory plus its
// size would pass maxmemory. The command then fails with an OOM error and evicts nothing.
constexpr std::size_t kCheckedBytes = std::size_t{64} << 10;

struct CommandMemory {
  bool from_client = false;       // a client's command (not replicated, not the AOF being loaded)
  RedisModuleCtx* ctx = nullptr;  // set while a client's command runs on a server with maxmemory
  std::string refusal;            // the OOM reply text once an allocation was refused
};
CommandMemory g_command;

// The OOM reply text if `bytes` more would pass maxmemory, else empty.
std::string MaxmemoryRefusal(std::uint64_t bytes) {
  if (g_command.ctx == nullptr || rm.GetServerInfo == nullptr || rm.ServerInfoGetFieldUnsigned == nullptr ||
      rm.FreeServerInfo == nullptr) {
    return {};
  }
  RedisModuleServerInfoData* info = rm.GetServerInfo(g_command.ctx, "memory");
  if (info == nullptr) return {};
  int err_used = 0;
  int err_max = 0;
  const unsigned long long used = rm.ServerInfoGetFieldUnsigned(info, "used_memory", &err_used);
  const unsigned long long max = rm.ServerInfoGetFieldUnsigned(info, "maxmemory", &err_max);
  rm.FreeServerInfo(g_command.ctx, info);
  if (err_used != kOk || err_max != kOk || max == 0 || bytes <= max - std::min(used, max)) return {};
  return std::string(reply::kOom) + ": " + std::to_string(bytes) + " more bytes would take used_memory from " +
         std::to_string(used) + " past maxmemory " + std::to_string(max);
}

bool MemoryAllows(std::size_t bytes) noexcept {
  if (bytes < kCheckedBytes || g_command.ctx == nullptr) return true;
  try {
    std::string refusal = MaxmemoryRefusal(bytes);
    if (refusal.empty()) return true;
    g_command.refusal = std::move(refusal);
  } catch (...) {
    g_command.refusal = reply::kOom;
  }
  return false;
}

// ---- Allocator: filters in Redis' memory accounting -------------------------------
//
// RedisModule_Alloc has no aligned form, so each block is over-allocated by
// `alignment` bytes and the distance back to the start of the Redis block is stored
// in the 8 bytes just below the aligned address:
//
//   raw                         aligned = align_up(raw + 8, alignment)
//   | ... padding ... | offset |  bytes handed to the filter ...  |
//                      8 bytes
//
// Redis' allocator returns 16-byte aligned blocks, so the offset is a multiple of 8 in
// [8, alignment] and the block needs bytes + alignment. The block is zero-filled as the
// allocator contract requires, lazily: with RedisModule_TryCalloc (Redis >= 7.4) the
// allocator hands out fresh zero pages; otherwise the whole pages inside a large block
// are returned to the kernel (MADV_DONTNEED), which gives them back as zero pages when
// first touched. A memset of a 198 MB BF.RESERVE blocked the server for 0.56-0.93 s and
// committed all of it at once.
constexpr std::size_t kLazyZeroBytes = std::size_t{1} << 20;
constexpr std::uintptr_t kPageBytes = 4096;

// Alignment arithmetic on addresses of blocks this allocator owns, once per allocation:
// the optimizations performance-no-int-to-ptr protects do not apply here.
// NOLINTBEGIN(performance-no-int-to-ptr)
void ZeroFill(void* block, std::size_t bytes) noexcept {
  auto* p = static_cast<unsigned char*>(block);
  if (bytes >= kLazyZeroBytes) {
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t first = (begin + kPageBytes - 1) & ~(kPageBytes - 1);
    const std::uintptr_t last = (begin + bytes) & ~(kPageBytes - 1);
    if (::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED) == 0) {
      std::memset(p, 0, first - begin);
      std::memset(reinterpret_cast<void*>(last), 0, begin + bytes - last);
      return;
    }
  }
  std::memset(p, 0, bytes);
}

void* RedisAllocate(std::size_t bytes, std::size_t alignment) noexcept {
  if (alignment < 16) alignment = 16;
  std::size_t total = 0;
  if (__builtin_add_overflow(bytes, alignment, &total)) return nullptr;
  if (!MemoryAllows(total)) return nullptr;
  // The Try forms return null instead of aborting Redis when memory runs out.
  const bool zeroed = rm.TryCalloc != nullptr;
  void* raw = zeroed ? rm.TryCalloc(1, total) : rm.TryAlloc != nullptr ? rm.TryAlloc(total) : rm.Alloc(total);
  if (raw == nullptr) return nullptr;
  stats::BlockAllocated(rm.MallocSize != nullptr ? rm.MallocSize(raw) : total);
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + 8 + alignment - 1) & ~(static_cast<std::uintptr_t>(alignment) - 1);
  const std::uint64_t offset = aligned - base;
  std::memcpy(reinterpret_cast<void*>(aligned - 8), &offset, sizeof(offset));
  void* out = reinterpret_cast<void*>(aligned);
  if (!zeroed) ZeroFill(out, bytes);
  return out;
}

// The block RedisAllocate took from Redis for `pointer`.
void* RawBlock(const void* pointer) noexcept {
  const auto aligned = reinterpret_cast<std::uintptr_t>(pointer);
  std::uint64_t offset = 0;
  std::memcpy(&offset, reinterpret_cast<const void*>(aligned - 8), sizeof(offset));
  return reinterpret_cast<void*>(aligned - offset);
}
// NOLINTEND(performance-no-int-to-ptr)

void RedisDeallocate(void* pointer, std::size_t bytes, std::size_t alignment) noexcept {
  if (pointer == nullptr) return;
  void* raw = RawBlock(pointer);
  stats::BlockFreed(rm.MallocSize != nullptr ? rm.MallocSize(raw) : bytes + std::max<std::size_t>(alignment, 16));
  rm.Free(raw);
}

// What Redis counts in used_memory for the block: its allocator's usable size (jemalloc
// rounds a 65.7 MiB request up to 80 MiB), so that MEMORY USAGE reports the same.
std::size_t RedisHeld(const void* pointer, std::size_t bytes, std::size_t alignment) noexcept {
  if (rm.MallocSize != nullptr) return rm.MallocSize(RawBlock(pointer));
  return bytes + std::max<std::size_t>(alignment, 16);
}

}  // namespace

void BeginCommand(RedisModuleCtx* ctx) noexcept {
  g_command.ctx = nullptr;
  g_command.from_client = true;
  g_command.refusal.clear();
  if (rm.GetContextFlags == nullptr) return;
  const int flags = rm.GetContextFlags(ctx);
  g_command.from_client = (flags & (kCtxFlagsReplicated | kCtxFlagsLoading)) == 0;
  if ((flags & kCtxFlagsMaxmemory) != 0 && g_command.from_client) g_command.ctx = ctx;
}

bool CommandFromClient() noexcept {
  return g_command.from_client;
}

void EndCommand() noexcept {
  g_command.ctx = nullptr;
}

const std::string& AllocationRefusal() noexcept {
  return g_command.refusal;
}

Status CheckMemoryFor(std::uint64_t bytes) {
  if (bytes < kCheckedBytes || g_command.ctx == nullptr) return {};
  std::string refusal = MaxmemoryRefusal(bytes);
  if (refusal.empty()) return {};
  return Error(ErrorCode::kInvalidArgument, std::move(refusal));
}

bool InstallRedisAllocator() noexcept {
  return SetAllocator(Allocator{&RedisAllocate, &RedisDeallocate, &RedisHeld});
}

}  // namespace bloomkit::redis
