// SPDX-License-Identifier: Apache-2.0
// Loading and saving filter files for the subcommands, with errors that name the file.
#pragma once

#include <cstdint>
#include <string>

#include "any_filter.h"
#include "bloomkit/file_io.h"
#include "bloomkit/format.h"
#include "cli.h"

namespace bloomkit::cli {

struct LoadedFilter {
  AnyFilter filter;
  FileHeader header;  // as read: format version, flags (compressed?)
  std::uint64_t file_bytes = 0;
};

// ReadFileBytes + InspectBytes + the kind's Deserialize. Throws CliError
// "FILE: message" (exit 3 for data and I/O errors).
LoadedFilter LoadFilter(const std::string& path, const GlobalOptions& global);

// Takes the writers' lock on `path` (file_io.h) for a whole read-modify-write; hold the
// result until the save is done. A second writer waits up to --wait seconds, then
// fails with exit 3 ("locked by another writer"). `missing_ok`: a file that does not
// exist yet (create, merge, compress or add --create into a new file) is locked
// through its directory.
FileLock LockForUpdate(const std::string& path, const GlobalOptions& global, bool missing_ok = false);

// Serializes and writes atomically: on any error the file keeps its old bytes.
void SaveFilter(const std::string& path, const AnyFilter& filter, bool compress);

// Throws a usage error unless `path` is absent or `force` is set.
void CheckOverwrite(const std::string& path, bool force);

// True if the file exists (any type).
bool PathExists(const std::string& path);

// "seen.bf: filter is overfull: estimated false-positive rate X is above twice its target Y"
// on stderr, when it is.
void WarnIfOverfull(const std::string& path, const FilterSummary& summary);

}  // namespace bloomkit::cli
