// SPDX-License-Identifier: Apache-2.0
// Filter files and the error plumbing of the CLI (filter_file.h, cli.h).
#include "filter_file.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdio>
#include <exception>

#include "numbers.h"
#include "output.h"

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
    Check(Status(filter.error()), path, code == ErrorCode::kUnsupported ? kExitUsage : kExitData);
  }
  filter->AdvanceClock();
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

namespace {

// Blocks the signals whose default action ends the process (and that a user or a pipe
// sends: not SIGKILL, which cannot be held, nor faults) into `previous`.
void HoldTerminatingSignals(sigset_t* previous) {
  sigset_t held;
  sigemptyset(&held);
  for (const int signal :
       {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF}) {
    sigaddset(&held, signal);
  }
  ::pthread_sigmask(SIG_BLOCK, &held, previous);
}

}  // namespace

void CommitSave(const std::string& path, const std::function<Status(const SaveHook&)>& save,
                const std::function<void(std::uint64_t)>& before_commit, Commit commit) {
  // Held from the start of the save, so that no signal leaves its temporary file
  // behind (a SIGPIPE of before_commit's output included). A save that does not
  // complete lets them through once its temporary is gone: the process then ends by
  // them, with the file unchanged. A final save that completes keeps them held until
  // the process exits: the run changed the file, so it ends with its own status.
  sigset_t previous;
  HoldTerminatingSignals(&previous);
  std::exception_ptr cancelled;  // what before_commit threw: it must not cross the core
  const SaveHook hook = [&](std::uint64_t file_bytes) -> Status {
    try {
      if (before_commit) before_commit(file_bytes);
    } catch (...) {
      cancelled = std::current_exception();
      return Error(ErrorCode::kIoError, "save cancelled");
    }
    return {};
  };
  const Status saved = save(hook);
  if (!saved.ok() || commit == Commit::kCheckpoint) ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (cancelled) std::rethrow_exception(cancelled);
  Check(saved, path, kExitData);
}

void SaveFilter(const std::string& path, const AnyFilter& filter, SaveOptions options,
                const std::function<void(std::uint64_t)>& before_commit, Commit commit) {
  CommitSave(
      path,
      [&](const SaveHook& hook) {
        options.before_commit = hook;
        return filter.Save(path, options);
      },
      before_commit, commit);
}

void PrintNow(std::string_view text) {
  Output out;
  out.Append(text);
  out.Flush();
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
