// SPDX-License-Identifier: Apache-2.0
// Loading and saving filter files for the subcommands, with errors that name the file.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "any_filter.h"
#include "bloomkit/file_io.h"
#include "bloomkit/format.h"
#include "bloomkit/mapped_filter.h"
#include "cli.h"

namespace bloomkit::cli {

struct LoadedFilter {
  AnyFilter filter;
  FileHeader header;  // as read: format version, flags (compressed?)
  std::uint64_t file_bytes = 0;
};

// FilterReader::OpenFile + the kind's streamed Deserialize. Throws CliError
// "FILE: message" (exit 3 for data and I/O errors).
LoadedFilter LoadFilter(const std::string& path, const GlobalOptions& global);

// A filter opened for reading only (query, info): memory-mapped when asked and the file
// allows it (classic or blocked, uncompressed: MappedFilter), loaded otherwise.
struct ReadFilter {
  std::optional<MappedFilter> mapped;
  std::optional<LoadedFilter> loaded;

  [[nodiscard]] const FileHeader& header() const { return mapped ? mapped->header() : loaded->header; }
  [[nodiscard]] std::uint64_t file_bytes() const { return mapped ? mapped->file_bytes() : loaded->file_bytes; }
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const;
  [[nodiscard]] FilterSummary Summary() const;
  // After reading through a view: exit 3 "FILE: the file shrank while it was mapped
  // ..." once another program truncated the mapped file. When instead a page could not
  // be read while the file kept its size (MappedFilter::FaultStatus: a hole of a sparse
  // file on a full tmpfs), the view is dropped and the file loaded with read(), with a
  // warning; returns true then, and the answers since the last check must be computed
  // again.
  bool CheckIntact(const std::string& path, const GlobalOptions& global);
};

// With `map`: MappedFilter::Open, falling back to LoadFilter for the files a view
// cannot map (compressed, other kinds); every other error is the file's (exit 3).
ReadFilter OpenForReading(const std::string& path, const GlobalOptions& global, bool map);

// Takes the writers' lock on `path` (file_io.h) for a whole read-modify-write; hold the
// result until the save is done. A second writer waits up to --wait seconds, then
// fails with exit 3 ("locked by another writer"). `missing_ok`: a file that does not
// exist yet (create, merge, compress or add --create into a new file) is locked
// through its directory.
FileLock LockForUpdate(const std::string& path, const GlobalOptions& global, bool missing_ok = false);

// Serializes and writes atomically: on any error the file keeps its old bytes. The
// rename of this save is the commit of the run, so the run must have done everything
// that can fail first: `before_commit` (given the new file's size) runs once the new
// bytes are synced, before the rename, and typically prints the run's summary; if it
// throws, the save is cancelled and the exception goes on, with the file unchanged.
// The signals that would end the process (SIGINT, SIGTERM, SIGHUP, SIGPIPE, ...) are
// held during the save: if it fails, they are let through once its temporary file is
// removed; kFinal: if it completes, they stay held until the process exits, so a run
// that changed the file never ends by a signal, and one that ends by a signal never
// changed it. kCheckpoint (dedup --sync-every): an intermediate save, the run goes on.
enum class Commit { kFinal, kCheckpoint };
// The same for any atomic save: `save` saves with the given SaveOptions::before_commit.
using SaveHook = std::function<Status(std::uint64_t)>;
void CommitSave(const std::string& path, const std::function<Status(const SaveHook&)>& save,
                const std::function<void(std::uint64_t file_bytes)>& before_commit, Commit commit);
void SaveFilter(const std::string& path, const AnyFilter& filter, SaveOptions options,
                const std::function<void(std::uint64_t file_bytes)>& before_commit = {},
                Commit commit = Commit::kFinal);

// Writes `text` to stdout now (Output::Flush): for the summary a run prints in its
// before_commit.
void PrintNow(std::string_view text);

// Throws a usage error unless `path` is absent or `force` is set.
void CheckOverwrite(const std::string& path, bool force);

// True if the file exists (any type).
bool PathExists(const std::string& path);

// "seen.bf: filter is overfull: estimated false-positive rate X is above twice its target Y"
// on stderr, when it is.
void WarnIfOverfull(const std::string& path, const FilterSummary& summary);

}  // namespace bloomkit::cli
