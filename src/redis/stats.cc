// SPDX-License-Identifier: Apache-2.0
// The counters behind INFO bloomkit (stats.h).
#include "stats.h"

#include <atomic>
#include <string_view>

namespace bloomkit::redis::stats {
namespace {

std::atomic<std::uint64_t> g_values[kNumValueKinds];
std::atomic<std::uint64_t> g_pending_loads{0};
std::atomic<std::uint64_t> g_filter_bytes{0};

enum CommandFamily : int { kBf, kCf, kCbf, kTbf, kNumFamilies };
// Main thread only: commands run there, and so does the INFO callback.
std::uint64_t g_commands[kNumFamilies];
std::uint64_t g_errors[kNumFamilies];

void Decrement(std::atomic<std::uint64_t>& counter, std::uint64_t by) noexcept {
  // Never below zero, even if a free were reported twice.
  std::uint64_t now = counter.load(std::memory_order_relaxed);
  while (!counter.compare_exchange_weak(now, now >= by ? now - by : 0, std::memory_order_relaxed)) {
  }
}

}  // namespace

void ValueCreated(ValueKind kind) noexcept {
  g_values[static_cast<int>(kind)].fetch_add(1, std::memory_order_relaxed);
}
void ValueFreed(ValueKind kind) noexcept {
  Decrement(g_values[static_cast<int>(kind)], 1);
}
void PendingLoadStarted() noexcept {
  g_pending_loads.fetch_add(1, std::memory_order_relaxed);
}
void PendingLoadEnded() noexcept {
  Decrement(g_pending_loads, 1);
}
void BlockAllocated(std::size_t bytes) noexcept {
  g_filter_bytes.fetch_add(bytes, std::memory_order_relaxed);
}
void BlockFreed(std::size_t bytes) noexcept {
  Decrement(g_filter_bytes, bytes);
}

void CommandServed(const RedisModuleString* name, bool error) noexcept {
  std::size_t len = 0;
  const char* p = rm.StringPtrLen(name, &len);
  const bool cbf = len > 3 && (p[0] | 0x20) == 'c' && (p[1] | 0x20) == 'b';
  const bool tbf = len > 3 && (p[0] | 0x20) == 't' && (p[1] | 0x20) == 'b';
  const int family = cbf ? kCbf : tbf ? kTbf : len > 0 && (p[0] | 0x20) == 'c' ? kCf : kBf;
  ++g_commands[family];
  if (error) ++g_errors[family];
}

std::uint64_t Filters(ValueKind kind) noexcept {
  return g_values[static_cast<int>(kind)].load(std::memory_order_relaxed);
}
std::uint64_t PendingLoads() noexcept {
  return g_pending_loads.load(std::memory_order_relaxed);
}
std::uint64_t FilterBytes() noexcept {
  return g_filter_bytes.load(std::memory_order_relaxed);
}

void AddInfo(RedisModuleInfoCtx* ctx, int /*for_crash_report*/) {
  if (rm.InfoAddSection == nullptr || rm.InfoAddFieldULongLong == nullptr) return;
  // InfoAddSection answers REDISMODULE_ERR when INFO asked for another section: then
  // its fields are skipped.
  if (rm.InfoAddSection(ctx, "filters") == kOk) {
    static constexpr struct {
      ValueKind kind;
      const char* field;
    } kKinds[] = {{ValueKind::kBfRedisBloom, "bf_redisbloom"}, {ValueKind::kCfRedisBloom, "cf_redisbloom"},
                  {ValueKind::kBfNative, "bf_native"},         {ValueKind::kCfNative, "cf_native"},
                  {ValueKind::kCbfNative, "cbf_native"},       {ValueKind::kTbfNative, "tbf_native"},
                  {ValueKind::kBfForeign, "bf_foreign"}};
    std::uint64_t total = 0;
    for (const auto& k : kKinds) {
      const std::uint64_t n = Filters(k.kind);
      total += n;
      rm.InfoAddFieldULongLong(ctx, k.field, n);
    }
    rm.InfoAddFieldULongLong(ctx, "filters", total);
    rm.InfoAddFieldULongLong(ctx, "filter_bytes", FilterBytes());
    rm.InfoAddFieldULongLong(ctx, "pending_loads", PendingLoads());
  }
  if (rm.InfoAddSection(ctx, "commands") == kOk) {
    static constexpr const char* kNames[kNumFamilies][2] = {{"bf_commands", "bf_errors"},
                                                            {"cf_commands", "cf_errors"},
                                                            {"cbf_commands", "cbf_errors"},
                                                            {"tbf_commands", "tbf_errors"}};
    for (int f = 0; f < kNumFamilies; ++f) {
      rm.InfoAddFieldULongLong(ctx, kNames[f][0], g_commands[f]);
      rm.InfoAddFieldULongLong(ctx, kNames[f][1], g_errors[f]);
    }
  }
}

}  // namespace bloomkit::redis::stats
