// SPDX-License-Identifier: Apache-2.0
// The filter formats of other libraries that `bloomkit import` and `bloomkit export`
// read and write (foreign.cc), one table row each.
#pragma once

#include <cstddef>
#include <functional>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "any_filter.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"
#include "cli.h"

namespace bloomkit::cli {

struct ForeignFormat {
  std::string_view name;         // the import subcommand and the export --format value
  FilterKind kind;               // the bloomkit kind it becomes
  std::string_view description;  // for --help
  // Reads the library's bytes (checked before anything of the filter's size is allocated).
  Result<FilterVariant> (*read)(std::istream& in, const LoadOptions& load);
  // The library's bytes of a filter of `kind`.
  std::vector<std::byte> (*write)(const FilterVariant& filter);
};

std::span<const ForeignFormat> ForeignFormats();
// nullptr for a name that is not a foreign format.
const ForeignFormat* FindForeignFormat(std::string_view name);

// Adds `import <format> OUT --from FILE` for each format; each run returns -1 when its
// subcommand was not the one given.
void AddForeignImports(CLI::App& import, const GlobalOptions& global, std::vector<std::function<int()>>& runs);

// `export IN --format <format> --to FILE [--fold-to RATE]`: exit 2 for a filter of another
// kind, or for --fold-to (a rate above 0) with a format other than parquet.
void ExportForeign(const ForeignFormat& format, const std::string& in, const std::string& to, bool force,
                   double fold_to, const GlobalOptions& global);

}  // namespace bloomkit::cli
