// SPDX-License-Identifier: Apache-2.0
// The sizing options of a new filter (--capacity, --fp-rate, --kind, --growth,
// --bucket-size, --expansion, --compress), shared by `create` and by the `--create`
// option of `add` and `dedup`, which create FILE when it does not exist yet.
#pragma once

#include <string>

#include "any_filter.h"
#include "cli.h"
#include "filter_file.h"

namespace CLI {
class App;
}  // namespace CLI

namespace bloomkit::cli {

struct SizingOptions {
  std::string capacity;
  std::string fp_rate = "0.01";
  std::string kind = "classic";
  std::string bucket_size = "4";
  std::string expansion;   // "": the kind's default (2 for scalable chains, 1 for cuckoo)
  std::string growth;      // the older name of --expansion for scalable chains
  std::string block_bits;  // "": the default layout for the rate
  std::string window = "24h";
  std::string generations = std::to_string(kDefaultWindowedGenerations);
  std::string sizing = "any";  // windowed: any (any schedule) or steady
  bool compress = false;
};

// Registers the options on `app`; `capacity_required` for `create` itself.
void AddSizingOptions(CLI::App& app, SizingOptions& options, bool capacity_required);

// Parses and range-checks them; throws CliError (exit 2) naming the bad option.
CreateSpec ParseSizing(const SizingOptions& options, const GlobalOptions& global);

// AnyFilter::Create with the CLI's error: "FILE: <message>" (+ a --max-memory hint).
AnyFilter CreateFilter(const std::string& path, const CreateSpec& spec);

// For commands that need an existing FILE: if it does not exist, fails (exit 3) with
// "FILE: cannot open: No such file or directory (create it with: bloomkit create FILE
// --capacity N ...)",
// naming `--create` too when the command has it.
void RequireFilterFile(const std::string& path, bool has_create_option);

// add/dedup: loads FILE, or, when it does not exist and `create` is set, makes a new
// empty filter from `sizing` (saved by the command like any other change). `created`
// tells which happened.
LoadedFilter LoadOrCreate(const std::string& path, const GlobalOptions& global, bool create,
                          const SizingOptions& sizing, bool& created);

}  // namespace bloomkit::cli
