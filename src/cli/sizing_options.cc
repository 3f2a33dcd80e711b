// SPDX-License-Identifier: Apache-2.0
// SizingOptions (sizing_options.h).
#include "sizing_options.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>

#include "bloomkit/sizing.h"
#include "numbers.h"

namespace bloomkit::cli {
namespace {

std::uint32_t ParseSmall(const std::string& text, std::string_view what, std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t value = Take(ParseCount(text, what), "");
  if (value < lo || value > hi) Fail(kExitUsage, fmt::format("{} must be in [{}, {}], got {}", what, lo, hi, text));
  return static_cast<std::uint32_t>(value);
}

}  // namespace

void AddSizingOptions(CLI::App& app, SizingOptions& o, bool capacity_required) {
  CLI::Option* capacity =
      app.add_option("--capacity", o.capacity, "distinct keys the filter is designed for (1e6, 1M)");
  if (capacity_required) capacity->required();
  app.add_option("--fp-rate", o.fp_rate, "false-positive rate at capacity (default 0.01 = 1%)");
  app.add_option("--kind", o.kind, "classic (default), blocked, counting, scalable, cuckoo or windowed");
  app.add_flag("--compress", o.compress, "store the payload zstd-compressed");
  app.add_option("--bucket-size", o.bucket_size, "cuckoo: slots per bucket, 2, 4 or 8 (default 4)");
  app.add_option("--expansion", o.expansion,
                 "scalable: each new stage holds this many times the last (default 2); cuckoo: growth factor when "
                 "full, 0 = never grow (default 1)");
  app.add_option("--growth", o.growth, "the same as --expansion for scalable filters (deprecated name)");
  app.add_option("--window", o.window,
                 "windowed: how long a key is remembered, e.g. 24h, 90m, 30s, 1500ms (default 24h)");
  app.add_option("--generations", o.generations,
                 "windowed: generations the window is cut into; a key is forgotten at most window / generations after "
                 "the window ends (default " +
                     std::to_string(kDefaultWindowedGenerations) + ")");
  app.add_option("--sizing", o.sizing,
                 "windowed: any (default: the rate holds for any schedule within capacity) or steady (about 10% "
                 "fewer bits; the rate holds while no generation gets more than capacity / generations keys)");
  app.add_option("--block-bits", o.block_bits,
                 "blocked: 256 or 512; default 256 for --fp-rate >= 0.001 (faster, ~4-7% more bits), else 512");
}

CreateSpec ParseSizing(const SizingOptions& o, const GlobalOptions& global) {
  CreateSpec spec;
  spec.kind = Take(ParseAvailableKind(o.kind), "--kind");
  spec.capacity = Take(ParseCount(o.capacity, "--capacity"), "");
  spec.fp_rate = Take(ParseRate(o.fp_rate, "--fp-rate"), "");
  Check(ValidateFpRate(spec.fp_rate), "--fp-rate");
  spec.max_memory_bytes = global.MaxMemoryBytes();
  spec.bucket_size = ParseSmall(o.bucket_size, "--bucket-size", 1, 1024);
  // One --expansion for every kind that grows: a chain (scalable, redisbloom-bf) needs
  // at least 1 and defaults to 2; a cuckoo filter takes 0 (never grow) and defaults to 1.
  const bool chain = spec.kind == FilterKind::kScalable || spec.kind == FilterKind::kRedisBloomScalable;
  const std::uint32_t growth = o.growth.empty() ? 2 : ParseSmall(o.growth, "--growth", 1, 1024);
  if (!o.expansion.empty()) {
    spec.expansion = ParseSmall(o.expansion, "--expansion", chain ? 1 : 0, 1024);
  } else {
    spec.expansion = chain ? growth : 1;
  }
  spec.window_ms = Take(ParseDurationMs(o.window, "--window"), "");
  spec.generations = ParseSmall(o.generations, "--generations", 1, kMaxWindowedGenerations);
  if (spec.kind == FilterKind::kWindowed && spec.window_ms % spec.generations != 0) {
    Fail(kExitUsage, fmt::format("--window {} ({} ms) is not a whole number of milliseconds per generation "
                                 "(--generations {})",
                                 o.window, spec.window_ms, spec.generations));
  }
  if (o.sizing == "steady") {
    spec.windowed_sizing = WindowedSizing::kSteadyStream;
  } else if (o.sizing != "any") {
    Fail(kExitUsage, fmt::format("--sizing must be any or steady, got {}", o.sizing));
  }
  if (spec.windowed_sizing != WindowedSizing::kAnySchedule && spec.kind != FilterKind::kWindowed) {
    Fail(kExitUsage, fmt::format("--sizing applies to --kind windowed only, not {}", FilterKindName(spec.kind)));
  }
  if (o.block_bits == "256") {
    spec.blocked_layout = BlockedLayout::kLanes256;
  } else if (o.block_bits == "512") {
    spec.blocked_layout = BlockedLayout::kLines512;
  } else if (!o.block_bits.empty()) {
    Fail(kExitUsage, fmt::format("--block-bits must be 512 or 256, got {}", o.block_bits));
  }
  if (spec.blocked_layout == BlockedLayout::kLanes256 && spec.kind != FilterKind::kBlocked) {
    Fail(kExitUsage, fmt::format("--block-bits applies to --kind blocked only, not {}", FilterKindName(spec.kind)));
  }
  return spec;
}

AnyFilter CreateFilter(const std::string& path, const CreateSpec& spec) {
  auto made = AnyFilter::Create(spec);
  if (!made.ok()) {
    const Error& e = made.error();
    const std::string hint = e.code() == ErrorCode::kTooLarge ? " (raise the limit with --max-memory)" : "";
    Fail(ExitCodeFor(e.code()), fmt::format("{}: {}{}", path, e.message(), hint));
  }
  return std::move(made).value();
}

void RequireFilterFile(const std::string& path, bool has_create_option) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 || errno != ENOENT) return;  // other errors: the load names them
  Fail(kExitData, fmt::format("{}: cannot open: {} (create it with: bloomkit create {} --capacity N [--fp-rate P]{})",
                              path, std::strerror(ENOENT), path,
                              has_create_option ? ", or add --create --capacity N to create it here" : ""));
}

LoadedFilter LoadOrCreate(const std::string& path, const GlobalOptions& global, bool create,
                          const SizingOptions& sizing, bool& created) {
  created = false;
  struct stat st {};
  const bool missing = ::stat(path.c_str(), &st) != 0 && errno == ENOENT;
  if (!missing || !create) {
    RequireFilterFile(path, true);
    return LoadFilter(path, global);
  }
  if (sizing.capacity.empty()) {
    Fail(kExitUsage, fmt::format("{}: --create needs --capacity N to size the new filter", path));
  }
  const CreateSpec spec = ParseSizing(sizing, global);
  LoadedFilter loaded{CreateFilter(path, spec), FileHeader{}, 0};
  loaded.header.kind = spec.kind;
  loaded.header.flags = sizing.compress ? kFlagZstdPayload : 0;
  created = true;
  return loaded;
}

}  // namespace bloomkit::cli
