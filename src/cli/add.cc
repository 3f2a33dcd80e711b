// SPDX-License-Identifier: Apache-2.0
// bloomkit add FILE [INPUT...]: adds keys and saves the filter atomically. A failed run
// (unreadable input, full filter) leaves FILE exactly as it was.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "filter_file.h"
#include "key_reader.h"
#include "numbers.h"
#include "progress.h"
#include "sizing_options.h"

namespace bloomkit::cli {
namespace {

struct AddOptions {
  std::string file;
  bool json = false;
  bool create = false;
  SizingOptions sizing;
  KeyInputOptions input;
};

int RunAdd(const AddOptions& o, const GlobalOptions& global) {
  const FileLock lock =
      LockForUpdate(o.file, global, /*missing_ok=*/true);  // a missing file: LoadOrCreate says what to do
  bool created = false;
  LoadedFilter loaded = LoadOrCreate(o.file, global, o.create, o.sizing, created);
  KeyReader reader(o.input.inputs, o.input.format());
  Progress progress(o.file, reader.total_bytes(), !o.input.no_progress);
  std::vector<std::string_view> keys;
  std::uint64_t added = 0;
  while (reader.NextBatch(keys)) {
    added += Take(loaded.filter.AddBatch(keys), o.file, kExitData);
    progress.Update(reader.keys_read(), reader.bytes_read());
  }
  progress.Finish();
  const std::uint64_t read = reader.keys_read();
  const FilterSummary s = loaded.filter.Summary();
  std::string summary;
  if (o.json) {
    summary = fmt::format(
        "{{\"file\":{},\"read\":{},\"added\":{},\"already_present\":{},\"count\":{},\"capacity\":{},"
        "\"estimated_fp_rate\":{}}}\n",
        JsonString(o.file), read, added, read - added, s.count, s.capacity, JsonNumber(s.estimated_fp_rate));
  } else {
    summary = fmt::format("{}: read {} keys, {} new, {} already present; count {} of capacity {}\n", o.file,
                          GroupThousands(read), GroupThousands(added), GroupThousands(read - added),
                          GroupThousands(s.count), GroupThousands(s.capacity));
  }
  // The summary is printed before the save's rename: a run whose output fails leaves
  // FILE as it was, so running it again cannot add its keys twice.
  if (read > 0 || created) {
    SaveFilter(o.file, loaded.filter, {.compress = (loaded.header.flags & kFlagZstdPayload) != 0},
               [&summary](std::uint64_t) { PrintNow(summary); });
  } else {
    PrintNow(summary);
  }
  WarnIfOverfull(o.file, s);
  return kExitOk;
}

}  // namespace

Command AddAddCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<AddOptions>();
  CLI::App* app = parent.add_subcommand("add", "add keys to FILE (saved atomically)");
  app->add_option("FILE", o->file, "the filter file")->required();
  AddKeyInputOptions(*app, o->input);
  app->add_flag("--create", o->create, "create FILE first if it does not exist, sized by --capacity and --fp-rate");
  AddSizingOptions(*app, o->sizing, false);
  app->add_flag("--json", o->json,
                "print the summary as one JSON object: file, read, added, already_present, count, capacity, "
                "estimated_fp_rate");
  app->footer(R"(
Prints how many keys were read and how many were new. Counting and cuckoo filters
store one copy per add, so removing a key you added is always safe.

Examples:
  bloomkit add seen.bf urls.txt more-urls.txt
  bloomkit add new.bf urls.txt --create --capacity 10M --fp-rate 0.1%
  find . -print0 | bloomkit add files.bf --null)");
  return {app, [o, &global] { return RunAdd(*o, global); }};
}

}  // namespace bloomkit::cli
