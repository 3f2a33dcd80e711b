// SPDX-License-Identifier: Apache-2.0
// bloomkit merge OUT IN1 IN2 [...]: the union of filters of one kind and size.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "filter_file.h"
#include "numbers.h"

namespace bloomkit::cli {
namespace {

struct MergeOptions {
  std::string out;
  std::vector<std::string> inputs;
  bool force = false;
  bool compress = false;
};

int RunMerge(const MergeOptions& o, const GlobalOptions& global) {
  if (o.inputs.size() < 2) Fail(kExitUsage, "merge needs at least two input filters: bloomkit merge OUT IN1 IN2 [...]");
  // OUT may be one of the inputs (an in-place union); any other existing file needs --force.
  const bool out_is_input = std::find(o.inputs.begin(), o.inputs.end(), o.out) != o.inputs.end();
  CheckOverwrite(o.out, o.force || out_is_input);
  const FileLock lock = LockForUpdate(o.out, global, /*missing_ok=*/true);
  LoadedFilter merged = LoadFilter(o.inputs[0], global);
  for (std::size_t i = 1; i < o.inputs.size(); ++i) {
    // Every mergeable kind ORs the next input in as it reads it: one filter in memory.
    // A kind that does not merge is refused from the header, before its payload is read.
    const std::uint64_t limit = global.MaxMemoryBytes();
    auto reader = Take(FilterReader::OpenFile(o.inputs[i], std::nullopt, limit), o.inputs[i], kExitData);
    const Status st = merged.filter.MergeFrom(reader);
    if (!st.ok()) {
      Fail(st.error().code() == ErrorCode::kUnsupported ? kExitUsage : kExitData,
           fmt::format("{}: cannot merge into {}: {}", o.inputs[i], o.inputs[0], st.error().message()));
    }
  }
  const FilterSummary s = merged.filter.Summary();
  const std::string summary =
      fmt::format("{}: merged {} filters; estimated count {} of capacity {}\n", o.out, o.inputs.size(),
                  GroupThousands(s.estimated_count), GroupThousands(s.capacity));
  SaveFilter(o.out, merged.filter, {.compress = o.compress}, [&summary](std::uint64_t) { PrintNow(summary); });
  WarnIfOverfull(o.out, s);
  return kExitOk;
}

}  // namespace

Command AddMergeCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* app = parent.add_subcommand("merge", "write the union of IN1 IN2 ... to OUT");
  app->add_option("OUT", o->out, "the merged filter file to write")->required();
  app->add_option("IN", o->inputs, "two or more filters of the same kind, size and hashes")->required();
  app->add_flag("--force", o->force, "overwrite OUT if it exists (not needed when OUT is one of the inputs)");
  app->add_flag("--compress", o->compress, "store the payload zstd-compressed");
  app->footer(R"(
The inputs must have the same kind, number of bits and hashes (create them with the
same --capacity, --fp-rate and --kind). The union holds every key of every input.

Examples:
  bloomkit merge all.bf monday.bf tuesday.bf wednesday.bf
  bloomkit merge seen.bf seen.bf shard-2.bf            # in place)");
  return {app, [o, &global] { return RunMerge(*o, global); }};
}

}  // namespace bloomkit::cli
