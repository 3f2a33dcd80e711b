// SPDX-License-Identifier: Apache-2.0
// bloomkit query FILE [INPUT...]: whether each key may be present. Exit status as
// grep: 0 if at least one key may be present, 1 if none.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "filter_file.h"
#include "key_reader.h"
#include "output.h"
#include "progress.h"
#include "sizing_options.h"

namespace bloomkit::cli {
namespace {

struct QueryOptions {
  std::string file;
  std::string print = "both";
  bool quiet = false;  // -q: exit status only
  bool count = false;  // -c: one number instead of keys
  bool mmap = false;   // --mmap: map the file instead of loading it
  KeyInputOptions input;
};

int RunQuery(const QueryOptions& o, const GlobalOptions& global) {
  RequireFilterFile(o.file, false);
  ReadFilter filter = OpenForReading(o.file, global, o.mmap);
  KeyReader reader(o.input.inputs, o.input.format());
  Progress progress(o.file, reader.total_bytes(), !o.input.no_progress);
  const bool show_present = o.print != "absent";
  const bool show_absent = o.print != "present";
  const bool tagged = o.print == "both";
  const char end = o.input.format().separator;
  Output out;
  std::vector<std::string_view> keys;
  std::unique_ptr<bool[]> found(new bool[KeyReader::kMaxBatchKeys]);
  std::uint64_t present = 0;
  std::uint64_t selected = 0;  // keys --print selects (-c)
  while (reader.NextBatch(keys)) {
    const std::span<bool> result(found.get(), keys.size());
    std::size_t batch_present = filter.MayContainBatch(keys, result);
    if (filter.CheckIntact(o.file, global)) batch_present = filter.MayContainBatch(keys, result);
    present += batch_present;
    // As grep -q: the answer is known at the first key that may be present.
    if (o.quiet && present > 0) break;
    if (o.quiet) continue;
    if (o.count) {
      selected += o.print == "absent" ? keys.size() - batch_present : batch_present;
      continue;
    }
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (result[i] ? !show_present : !show_absent) continue;
      out.Append(keys[i]);
      if (tagged) out.Append(result[i] ? "\tmaybe" : "\tno");
      out.Append(end);
    }
    progress.Update(reader.keys_read(), reader.bytes_read());
  }
  progress.Finish();
  if (o.count) out.Append(fmt::format("{}\n", selected));
  out.Flush();
  return present > 0 ? kExitOk : kExitNoneFound;
}

}  // namespace

Command AddQueryCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<QueryOptions>();
  CLI::App* app = parent.add_subcommand("query", "tell for each key whether it may be in FILE");
  app->add_option("FILE", o->file, "the filter file")->required();
  AddKeyInputOptions(*app, o->input);
  app->add_option("--print", o->print,
                  "both (default): key<TAB>maybe or key<TAB>no; present: only keys that may be present; "
                  "absent: only keys that are certainly absent")
      ->check(CLI::IsMember({"both", "present", "absent"}));
  app->add_flag("--quiet,-q", o->quiet,
                "print nothing; the exit status answers (stops at the first key that may be present)");
  app->add_flag("--count,-c", o->count,
                "print only the number of keys that may be present (with --print absent: that are certainly absent)");
  app->add_flag("--mmap", o->mmap,
                "map FILE read-only instead of loading it: a few keys cost a few pages, not the whole file, and "
                "concurrent queries share the page cache; skips the checksum (check it with bloomkit verify). "
                "Compressed files and kinds other than classic and blocked are loaded as usual");
  app->footer(R"(
Exit status: 0 if at least one key may be present, 1 if none, 2/3 on errors.

Examples:
  echo user:42 | bloomkit query users.bf
  bloomkit query seen.bf --print absent < urls.txt     # only URLs not seen yet
  bloomkit query blocked.bf ips.txt -c                 # how many may be present
  echo 203.0.113.7 | bloomkit query big.bf --mmap -q   # one key, without loading big.bf
  grep -v '^#' ips.txt | bloomkit query blocked.bf -q && echo listed)");
  return {app, [o, &global] { return RunQuery(*o, global); }};
}

}  // namespace bloomkit::cli
