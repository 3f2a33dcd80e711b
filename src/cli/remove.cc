// SPDX-License-Identifier: Apache-2.0
// bloomkit remove FILE [INPUT...]: removes one copy of each key from a counting or
// cuckoo filter. Classic, blocked and scalable filters cannot remove (exit 2).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
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

struct RemoveOptions {
  std::string file;
  bool json = false;
  KeyInputOptions input;
};

// Removals that may have hit another key's entries. A key that was never added is
// "found" (and removed) with the filter's false-positive rate p; the keys not found are
// certainly such keys, so about not_found * p / (1 - p) more of them were found and
// removed. Each of those takes away another key's bits or fingerprint, which can make
// that key read as absent: a false negative.
double EstimatedFalseRemovals(std::uint64_t not_found, double fp_rate) {
  if (not_found == 0 || fp_rate <= 0) return 0;
  if (fp_rate >= 1) return static_cast<double>(not_found);
  return static_cast<double>(not_found) * fp_rate / (1 - fp_rate);
}

int RunRemove(const RemoveOptions& o, const GlobalOptions& global) {
  RequireFilterFile(o.file, false);
  const FileLock lock = LockForUpdate(o.file, global);
  LoadedFilter loaded = LoadFilter(o.file, global);
  if (!loaded.filter.CanRemove()) {
    Check(Status(loaded.filter.Remove("").error()), o.file);  // the kind's own message
  }
  KeyReader reader(o.input.inputs, o.input.format());
  Progress progress(o.file, reader.total_bytes(), !o.input.no_progress);
  // The rate before any removal: what a never-added key passes with.
  const double fp_rate = loaded.filter.Summary().estimated_fp_rate;
  std::vector<std::string_view> keys;
  std::uint64_t removed = 0;
  while (reader.NextBatch(keys)) {
    for (std::string_view key : keys) {
      removed += Take(loaded.filter.Remove(key), o.file, kExitData) ? 1U : 0U;
    }
    progress.Update(reader.keys_read(), reader.bytes_read());
  }
  progress.Finish();
  const std::uint64_t read = reader.keys_read();
  const std::uint64_t not_found = read - removed;
  const double false_removals = std::min(EstimatedFalseRemovals(not_found, fp_rate), static_cast<double>(removed));
  std::string summary;
  if (o.json) {
    summary = fmt::format(
        "{{\"file\":{},\"read\":{},\"removed\":{},\"not_found\":{},\"estimated_false_removals\":{},\"count\":{}}}\n",
        JsonString(o.file), read, removed, not_found, JsonNumber(false_removals), loaded.filter.Summary().count);
  } else {
    summary =
        fmt::format("{}: read {} keys, removed {}, {} not found; count {}\n", o.file, GroupThousands(read),
                    GroupThousands(removed), GroupThousands(not_found), GroupThousands(loaded.filter.Summary().count));
  }
  // Printed before the save's rename: a failed output leaves FILE unchanged (as add).
  if (removed > 0) {
    SaveFilter(o.file, loaded.filter, {.compress = (loaded.header.flags & kFlagZstdPayload) != 0},
               [&summary](std::uint64_t) { PrintNow(summary); });
  } else {
    PrintNow(summary);
  }
  if (not_found > 0 && removed > 0) {
    std::fprintf(stderr,
                 "bloomkit: warning: %s: %s keys were not in the filter, so the input holds keys that were never "
                 "added; about %s of the %s removals may have removed other keys' entries (false positives at "
                 "rate %s), and those keys may now read as absent\n",
                 o.file.c_str(), GroupThousands(not_found).c_str(),
                 GroupThousands(static_cast<std::uint64_t>(std::llround(false_removals))).c_str(),
                 GroupThousands(removed).c_str(), Percent(fp_rate).c_str());
  }
  return kExitOk;
}

}  // namespace

Command AddRemoveCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<RemoveOptions>();
  CLI::App* app = parent.add_subcommand("remove", "remove keys from a counting or cuckoo filter");
  app->add_option("FILE", o->file, "the filter file")->required();
  AddKeyInputOptions(*app, o->input);
  app->add_flag("--json", o->json,
                "print the summary as one JSON object: file, read, removed, not_found, estimated_false_removals, "
                "count");
  app->footer(R"(
Remove only keys you added: removing a key that was never added can remove another
key's bits or fingerprint, and that key then reads as absent (a false negative). A
never-added key is found, and removed, with the filter's false-positive rate p, so
when some keys are not found, about not_found * p / (1 - p) of the removals hit other
keys' entries: remove warns with that estimate on stderr.

Examples:
  bloomkit remove sessions.cf expired.txt)");
  return {app, [o, &global] { return RunRemove(*o, global); }};
}

}  // namespace bloomkit::cli
