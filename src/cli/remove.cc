// bloomkit remove FILE [INPUT...]: removes one copy of each key from a counting or
// cuckoo filter. Classic, blocked and scalable filters cannot remove (exit 2).
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

namespace bloomkit::cli {
namespace {

struct RemoveOptions {
  std::string file;
  KeyInputOptions input;
};

int RunRemove(const RemoveOptions& o, const GlobalOptions& global) {
  const FileLock lock = LockForUpdate(o.file, global);
  LoadedFilter loaded = LoadFilter(o.file, global);
  if (!loaded.filter.CanRemove()) {
    Check(Status(loaded.filter.Remove("").error()), o.file);  // the kind's own message
  }
  KeyReader reader(o.input.inputs, o.input.format());
  Progress progress(o.file, reader.total_bytes(), !o.input.no_progress);
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
  if (removed > 0) SaveFilter(o.file, loaded.filter, (loaded.header.flags & kFlagZstdPayload) != 0);
  Output out;
  out.Append(fmt::format("{}: read {} keys, removed {}, {} not found; count {}\n", o.file, GroupThousands(read),
                         GroupThousands(removed), GroupThousands(read - removed),
                         GroupThousands(loaded.filter.Summary().count)));
  return kExitOk;
}

}  // namespace

Command AddRemoveCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<RemoveOptions>();
  CLI::App* app = parent.add_subcommand("remove", "remove keys from a counting or cuckoo filter");
  app->add_option("FILE", o->file, "the filter file")->required();
  AddKeyInputOptions(*app, o->input);
  app->footer(R"(
Remove only keys you added: removing a key that was never added can remove another
key's bits or fingerprint, and that key then reads as absent.

Examples:
  bloomkit remove sessions.cf expired.txt)");
  return {app, [o, &global] { return RunRemove(*o, global); }};
}

}  // namespace bloomkit::cli
