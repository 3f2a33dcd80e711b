// SPDX-License-Identifier: Apache-2.0
// bloomkit create FILE: writes an empty filter sized for --capacity and --fp-rate.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "any_filter.h"
#include "bloomkit/sizing.h"
#include "cli.h"
#include "filter_file.h"
#include "numbers.h"
#include "sizing_options.h"

namespace bloomkit::cli {
namespace {

struct CreateOptions {
  std::string file;
  SizingOptions sizing;
  bool force = false;
};

int RunCreate(const CreateOptions& o, const GlobalOptions& global) {
  const CreateSpec spec = ParseSizing(o.sizing, global);
  CheckOverwrite(o.file, o.force);
  const FileLock lock = LockForUpdate(o.file, global, /*missing_ok=*/true);

  const AnyFilter filter = CreateFilter(o.file, spec);
  const FilterSummary s = filter.Summary();
  const std::string summary =
      fmt::format("{}: created a {} filter for {} keys at {}: {} bits ({}), {} hashes\n", o.file,
                  FilterKindName(s.kind), GroupThousands(s.capacity), Percent(s.fp_rate), GroupThousands(s.num_bits),
                  HumanBytes(s.memory_bytes), s.num_hashes);
  const std::string window =
      s.kind == FilterKind::kWindowed
          ? fmt::format("{}: keys are remembered for {} ({} generations of {})\n", o.file,
                        FormatDurationMs(s.window_ms), s.generations, FormatDurationMs(s.window_ms / s.generations))
          : std::string();
  SaveFilter(o.file, filter, {.compress = o.sizing.compress}, [&](std::uint64_t) { PrintNow(summary + window); });
  return kExitOk;
}

}  // namespace

Command AddCreateCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<CreateOptions>();
  CLI::App* app = parent.add_subcommand("create", "write an empty filter to FILE");
  app->add_option("FILE", o->file, "the filter file to write")->required();
  AddSizingOptions(*app, o->sizing, true);
  app->add_flag("--force", o->force, "overwrite FILE if it exists");
  app->footer(R"(
Examples:
  bloomkit create seen.bf --capacity 10M --fp-rate 0.1%
  bloomkit create seen.bf --capacity 1e6 --kind blocked --force
  bloomkit create grow.bf --capacity 1000 --kind scalable
  bloomkit create seen.bf --capacity 10M --kind windowed --window 24h --generations 8)");
  return {app, [o, &global] { return RunCreate(*o, global); }};
}

}  // namespace bloomkit::cli
