// SPDX-License-Identifier: Apache-2.0
// TBF.* (tbf_commands.h): windowed filters in Redis, replicated at the primary's time.
#include "tbf_commands.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config.h"
#include "native_chunks.h"

namespace bloomkit::redis {
namespace {

constexpr std::string_view kBadWindow = "ERR bad window: WINDOW seconds must be a whole number in [1, 2^53]";
constexpr std::string_view kBadSizing = "ERR bad sizing: SIZING must be ANY or STEADY";
constexpr std::string_view kBadGenerations = "ERR bad generations: GENERATIONS must be a whole number in [1, 1024]";
constexpr std::string_view kBadTime = "ERR bad time: AT and TBF.MADDAT take milliseconds since the epoch";
constexpr std::string_view kTbfSyntax =
    "ERR syntax: TBF.RESERVE key error_rate capacity WINDOW seconds [GENERATIONS g] [SIZING ANY|STEADY] [AT ms]";

bool ParseU64(std::string_view text, std::uint64_t* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

bool Equals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
  }
  return true;
}

std::uint64_t ServerMs() {
  const long long ms = rm.Milliseconds();
  return ms < 0 ? 0 : static_cast<std::uint64_t>(ms);
}

// The items of `cmd` from argument `first` on, added at `ms`; replicated as
// TBF.MADDAT key ms items, so that replicas and the AOF apply them at the same time.
Status AddItems(Command& cmd, std::size_t first, std::uint64_t ms, bool array) {
  const OpenKey& key = cmd.key();
  const auto found = Find<TbfFamily>(key);
  if (auto s = RequireReady(found); !s.ok()) return s;
  WindowedBloomFilter& f = found.value->filter();
  f.Advance(ms);
  std::vector<bool> added;
  added.reserve(cmd.argc() - first);
  Status failure;
  for (std::size_t i = first; i < cmd.argc(); ++i) {
    auto result = f.AddIfAbsent(cmd.arg(i));
    if (!result.ok()) {
      failure = CoreError(result.error());
      break;
    }
    added.push_back(result.value());
  }
  if (!added.empty() || failure.ok()) {
    // What was added is replicated, also when a later item failed.
    rm.Replicate(cmd.ctx(), "TBF.MADDAT", "slv", cmd.raw(1), static_cast<long long>(ms), cmd.raw_from(first),
                 added.size());
  }
  if (!array) {
    if (!failure.ok()) return failure;
    cmd.Int(added.front() ? 1 : 0);
    return {};
  }
  cmd.Array(static_cast<long>(cmd.argc() - first));
  for (bool a : added) cmd.Int(a ? 1 : 0);
  for (std::size_t i = first + added.size(); i < cmd.argc(); ++i) cmd.ErrorReply(failure.error().message());
  return {};
}

}  // namespace

Status TbfReserve(Command& cmd) {
  double error_rate = 0;
  {
    const std::string text(cmd.arg(2));
    char* end = nullptr;
    error_rate = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(error_rate)) {
      return ReplyError(reply::kBadErrorRate);
    }
    if (!(error_rate > 0 && error_rate < 1)) return ReplyError(reply::kErrorRateRange);
  }
  std::uint64_t capacity = 0;
  if (!ParseU64(cmd.arg(3), &capacity) || capacity == 0) return ReplyError(reply::kBadCapacity);
  if (!Equals(cmd.arg(4), "WINDOW")) return ReplyError(kTbfSyntax);
  std::uint64_t window_s = 0;
  if (!ParseU64(cmd.arg(5), &window_s) || window_s == 0 || window_s > (std::uint64_t{1} << 53)) {
    return ReplyError(kBadWindow);
  }
  std::uint64_t generations = bloomkit::kDefaultWindowedGenerations;
  WindowedSizing sizing = WindowedSizing::kAnySchedule;
  std::uint64_t at = 0;
  bool has_at = false;
  for (std::size_t i = 6; i < cmd.argc(); i += 2) {
    if (i + 1 >= cmd.argc()) return ReplyError(kTbfSyntax);
    if (Equals(cmd.arg(i), "GENERATIONS")) {
      if (!ParseU64(cmd.arg(i + 1), &generations) || generations == 0 || generations > kMaxWindowedGenerations) {
        return ReplyError(kBadGenerations);
      }
    } else if (Equals(cmd.arg(i), "SIZING")) {
      if (Equals(cmd.arg(i + 1), "STEADY")) {
        sizing = WindowedSizing::kSteadyStream;
      } else if (Equals(cmd.arg(i + 1), "ANY")) {
        sizing = WindowedSizing::kAnySchedule;
      } else {
        return ReplyError(kBadSizing);
      }
    } else if (Equals(cmd.arg(i), "AT")) {
      if (!ParseU64(cmd.arg(i + 1), &at)) return ReplyError(kBadTime);
      has_at = true;
    } else {
      return ReplyError(kTbfSyntax);
    }
  }
  if ((window_s * 1000) % generations != 0) {
    return ReplyError("ERR bad window: WINDOW " + std::string(cmd.arg(5)) + " seconds (" +
                      std::to_string(window_s * 1000) + " ms) is not a whole number of ms per generation (" +
                      std::to_string(generations) + " generations)");
  }
  if (!has_at) at = ServerMs();
  const OpenKey& key = cmd.key();
  const auto found = Find<TbfFamily>(key);
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  if (!key.empty()) return ReplyError(reply::kItemExists);
  auto filter = WindowedBloomFilter::Create({.capacity = capacity,
                                             .fp_rate = error_rate,
                                             .window = window_s * 1000,
                                             .generations = static_cast<std::uint32_t>(generations),
                                             .sizing = sizing,
                                             .start_time = at,
                                             .max_memory_bytes = Config().max_filter_bytes});
  if (!filter.ok()) return ReplyError("ERR " + filter.error().message());
  if (StoreNew<TbfFamily>(key, std::move(filter).value()) == nullptr) return ReplyError(reply::kInternal);
  rm.Replicate(cmd.ctx(), "TBF.RESERVE", "ssscsclcccl", cmd.raw(1), cmd.raw(2), cmd.raw(3), "WINDOW", cmd.raw(5),
               "GENERATIONS", static_cast<long long>(generations), "SIZING",
               sizing == WindowedSizing::kSteadyStream ? "STEADY" : "ANY", "AT", static_cast<long long>(at));
  cmd.Ok();
  return {};
}

Status TbfAdd(Command& cmd) {
  return AddItems(cmd, 2, ServerMs(), false);
}

Status TbfMadd(Command& cmd) {
  return AddItems(cmd, 2, ServerMs(), true);
}

Status TbfMaddAt(Command& cmd) {
  std::uint64_t ms = 0;
  if (!ParseU64(cmd.arg(2), &ms)) return ReplyError(kBadTime);
  return AddItems(cmd, 3, ms, true);
}

Status TbfExists(Command& cmd) {
  const OpenKey& key = cmd.key();
  const auto found = Find<TbfFamily>(key);
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  if (found.value != nullptr && !found.value->ready()) return ReplyError(reply::kFilterLoading);
  cmd.Int(found.value != nullptr && found.value->filter().MayContainAt(cmd.arg(2), ServerMs()) ? 1 : 0);
  return {};
}

Status TbfMexists(Command& cmd) {
  const OpenKey& key = cmd.key();
  const auto found = Find<TbfFamily>(key);
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  if (found.value != nullptr && !found.value->ready()) return ReplyError(reply::kFilterLoading);
  const std::uint64_t now = ServerMs();
  cmd.Array(static_cast<long>(cmd.argc() - 2));
  for (std::size_t i = 2; i < cmd.argc(); ++i) {
    cmd.Int(found.value != nullptr && found.value->filter().MayContainAt(cmd.arg(i), now) ? 1 : 0);
  }
  return {};
}

Status TbfInfo(Command& cmd) {
  const OpenKey& key = cmd.key();
  const auto found = Find<TbfFamily>(key);
  if (auto s = RequireReady(found); !s.ok()) return s;
  const WindowedBloomFilter& f = found.value->filter();
  cmd.Map(10);
  cmd.SimpleString("Capacity");
  cmd.Int(static_cast<long long>(f.capacity()));
  cmd.SimpleString("Size");
  cmd.Int(static_cast<long long>(ValueMemory<TbfFamily>(*found.value)));
  cmd.SimpleString("Window ms");
  cmd.Int(static_cast<long long>(f.window()));
  cmd.SimpleString("Generations");
  cmd.Int(static_cast<long long>(f.generations()));
  cmd.SimpleString("Stages");
  cmd.Int(static_cast<long long>(f.num_stages()));
  cmd.SimpleString("Number of items inserted");
  cmd.Int(static_cast<long long>(f.CountAt(ServerMs())));
  cmd.SimpleString("Time ms");
  cmd.Int(static_cast<long long>(f.now()));
  cmd.SimpleString("Over capacity");
  cmd.Int(f.over_capacity() ? 1 : 0);
  cmd.SimpleString("Error rate");
  cmd.Double(f.fp_rate());
  cmd.SimpleString("Sizing");
  cmd.SimpleString(f.sizing() == WindowedSizing::kSteadyStream ? "steady" : "any");
  return {};
}

Status TbfCard(Command& cmd) {
  const OpenKey& key = cmd.key();
  const auto found = Find<TbfFamily>(key);
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  if (found.value != nullptr && !found.value->ready()) return ReplyError(reply::kFilterLoading);
  cmd.Int(found.value == nullptr ? 0 : static_cast<long long>(found.value->filter().CountAt(ServerMs())));
  return {};
}

Status TbfScanDump(Command& cmd) {
  return ScanDump<TbfFamily>(cmd);
}
Status TbfLoadChunk(Command& cmd) {
  return LoadChunk<TbfFamily>(cmd);
}

}  // namespace bloomkit::redis
