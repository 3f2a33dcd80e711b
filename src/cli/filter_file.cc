// SPDX-License-Identifier: Apache-2.0
// Filter files and the error plumbing of the CLI (filter_file.h, cli.h).
#include "filter_file.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdio>

#include "numbers.h"

namespace bloomkit::cli {

int ExitCodeFor(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kTooLarge:
    case ErrorCode::kUnsupported: return kExitUsage;
    default: return kExitData;
  }
}

void Check(const Status& status, std::string_view context) {
  if (status.ok()) return;
  Check(status, context, ExitCodeFor(status.error().code()));
}

void Check(const Status& status, std::string_view context, int exit_code) {
  if (status.ok()) return;
  if (context.empty()) Fail(exit_code, status.error().message());
  Fail(exit_code, fmt::format("{}: {}", context, status.error().message()));
}

std::uint64_t GlobalOptions::MaxMemoryBytes() const {
  return Take(ParseByteSize(max_memory, "--max-memory"), "");
}

LoadedFilter LoadFilter(const std::string& path, const GlobalOptions& global) {
  const std::uint64_t limit = global.MaxMemoryBytes();
  // Everything wrong with an existing file is a data error, including "too large".
  // Streamed: the checks first, then the payload straight into the filter's memory.
  auto reader = Take(FilterReader::OpenFile(path, std::nullopt, limit), path, kExitData);
  auto filter = AnyFilter::Load(reader, LoadOptions{.max_memory_bytes = limit});
  if (!filter.ok()) {
    const ErrorCode code = filter.error().code();
    Check(Status(std::move(filter).error()), path, code == ErrorCode::kUnsupported ? kExitUsage : kExitData);
  }
  return LoadedFilter{std::move(filter).value(), reader.header(), reader.file_bytes()};
}

std::size_t ReadFilter::MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
  return mapped ? mapped->MayContainBatch(keys, out) : loaded->filter.MayContainBatch(keys, out);
}

FilterSummary ReadFilter::Summary() const {
  return mapped ? SummarizeMapped(*mapped) : loaded->filter.Summary();
}

bool ReadFilter::CheckIntact(const std::string& path, const GlobalOptions& global) {
  if (!mapped || !mapped->truncated()) return false;
  const Status fault = mapped->FaultStatus();
  if (fault.ok() || fault.error().code() == ErrorCode::kTruncated) {
    Fail(kExitData, fmt::format("{}: the file shrank while it was mapped (truncated by another program); its answers "
                                "since then are unknown",
                                path));
  }
  // A read fault within the file: read() may still work (holes read as zeros).
  std::fprintf(stderr, "bloomkit: warning: %s: %s; reading the file instead of mapping it\n", path.c_str(),
               fault.error().message().c_str());
  mapped.reset();
  try {
    loaded.emplace(LoadFilter(path, global));
  } catch (const CliError& e) {
    Fail(kExitData,
         fmt::format("{}: {}; reading the file instead failed: {}", path, fault.error().message(), e.what()));
  }
  return true;
}

ReadFilter OpenForReading(const std::string& path, const GlobalOptions& global, bool map) {
  ReadFilter f;
  if (map) {
    auto view = MappedFilter::Open(path);
    if (view.ok()) {
      f.mapped.emplace(std::move(view).value());
      return f;
    }
    if (view.error().code() != ErrorCode::kUnsupported) Check(Status(std::move(view).error()), path, kExitData);
  }
  f.loaded.emplace(LoadFilter(path, global));
  return f;
}

FileLock LockForUpdate(const std::string& path, const GlobalOptions& global, bool missing_ok) {
  return Take(FileLock::Acquire(path, LockOptions{.wait_seconds = global.wait_seconds, .missing_ok = missing_ok}), path,
              kExitData);
}

void SaveFilter(const std::string& path, const AnyFilter& filter, bool compress) {
  Check(filter.Save(path, SaveOptions{.compress = compress}), path, kExitData);
}

bool PathExists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

void CheckOverwrite(const std::string& path, bool force) {
  if (!force && PathExists(path)) Fail(kExitUsage, fmt::format("{}: file exists (use --force to overwrite it)", path));
}

void WarnIfOverfull(const std::string& path, const FilterSummary& summary) {
  if (summary.fp_rate > 0 && summary.estimated_fp_rate > 2.0 * summary.fp_rate) {
    std::fprintf(stderr,
                 "bloomkit: warning: %s: filter is overfull: estimated false-positive rate %s is above twice its "
                 "target %s (%s keys for a capacity of %s)\n",
                 path.c_str(), Percent(summary.estimated_fp_rate).c_str(), Percent(summary.fp_rate).c_str(),
                 GroupThousands(summary.estimated_count).c_str(), GroupThousands(summary.capacity).c_str());
  }
}

}  // namespace bloomkit::cli
