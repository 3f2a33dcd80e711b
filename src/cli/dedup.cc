// SPDX-License-Identifier: Apache-2.0
// bloomkit dedup FILE [INPUT...]: prints each key not seen before and adds it
// (test-and-add), the crawler's "have I fetched this URL?" in one step.
//
// Order of durability: stdout is flushed before each save, so a key recorded in FILE
// has always been printed; a crash can repeat keys downstream, never lose one. A run
// that fails (its output, its input, a signal) saves nothing after its last
// --sync-every checkpoint, and a checkpoint holds only keys already printed.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "filter_file.h"
#include "key_reader.h"
#include "numbers.h"
#include "output.h"
#include "progress.h"
#include "sizing_options.h"

namespace bloomkit::cli {
namespace {

struct DedupOptions {
  std::string file;
  std::string sync_every = "0";
  bool quiet = false;
  bool json = false;
  bool create = false;
  SizingOptions sizing;
  KeyInputOptions input;
};

int RunDedup(const DedupOptions& o, const GlobalOptions& global) {
  const std::uint64_t sync_every = Take(ParseCount(o.sync_every, "--sync-every"), "");
  const FileLock lock =
      LockForUpdate(o.file, global, /*missing_ok=*/true);  // a missing file: LoadOrCreate says what to do
  bool created = false;
  LoadedFilter loaded = LoadOrCreate(o.file, global, o.create, o.sizing, created);
  const bool compress = (loaded.header.flags & kFlagZstdPayload) != 0;
  KeyReader reader(o.input.inputs, o.input.format());
  Progress progress(o.file, reader.total_bytes(), !o.input.no_progress);
  const char end = o.input.format().separator;
  Output out;
  std::vector<std::string_view> keys;
  std::uint64_t added = 0;
  std::uint64_t since_sync = 0;
  while (reader.NextBatch(keys)) {
    for (std::string_view key : keys) {
      if (Take(loaded.filter.AddIfAbsent(key), o.file, kExitData)) {
        ++added;
        out.Append(key);
        out.Append(end);
      }
      if (sync_every != 0 && ++since_sync >= sync_every) {
        out.Flush();
        SaveFilter(o.file, loaded.filter, {.compress = compress}, {}, Commit::kCheckpoint);
        since_sync = 0;
      }
    }
    progress.Update(reader.keys_read(), reader.bytes_read());
  }
  progress.Finish();
  out.Flush();
  SaveFilter(o.file, loaded.filter, {.compress = compress});
  if (o.json) {
    const FilterSummary s = loaded.filter.Summary();
    std::fprintf(
        stderr, "%s",
        fmt::format("{{\"file\":{},\"read\":{},\"printed\":{},\"count\":{},\"capacity\":{},"
                    "\"estimated_fp_rate\":{}}}\n",
                    JsonString(o.file), reader.keys_read(), added, s.count, s.capacity, JsonNumber(s.estimated_fp_rate))
            .c_str());
  } else if (!o.quiet) {
    std::fprintf(stderr, "bloomkit: %s: read %s keys, printed %s new\n", o.file.c_str(),
                 GroupThousands(reader.keys_read()).c_str(), GroupThousands(added).c_str());
  }
  WarnIfOverfull(o.file, loaded.filter.Summary());
  return kExitOk;
}

}  // namespace

Command AddDedupCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<DedupOptions>();
  CLI::App* app = parent.add_subcommand("dedup", "print each key not seen before and add it to FILE");
  app->add_option("FILE", o->file, "the filter file (create it first, or give --create)")->required();
  AddKeyInputOptions(*app, o->input);
  app->add_option("--sync-every", o->sync_every, "also save FILE after every N keys read (default: only at the end)");
  app->add_flag("--quiet,-q", o->quiet, "no summary line on stderr");
  app->add_flag("--create", o->create, "create FILE first if it does not exist, sized by --capacity and --fp-rate");
  AddSizingOptions(*app, o->sizing, false);
  app->add_flag("--json", o->json,
                "the summary on stderr as one JSON object: file, read, printed, count, capacity, estimated_fp_rate "
                "(stdout keeps the keys)");
  app->footer(R"(
A key that is a false positive of the filter is dropped as a repeat (at the filter's
rate). Output is flushed before every save, so FILE never records an unprinted key.

Examples:
  bloomkit create seen.bf --capacity 100M --fp-rate 1e-4
  crawl-frontier | bloomkit dedup seen.bf --sync-every 1M | fetch-pages
  crawl | bloomkit dedup seen.bf --create --kind windowed --capacity 10M --window 24h
      (a key is printed again once 24 hours passed since it was last seen))");
  return {app, [o, &global] { return RunDedup(*o, global); }};
}

}  // namespace bloomkit::cli
