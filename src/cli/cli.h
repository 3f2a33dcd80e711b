// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the bloomkit command-line tool: exit statuses, the error that
// carries one, and the registration of each subcommand.
//
// Exit statuses (documented in `bloomkit --help` and docs/CLI.md):
//   0  success (query: at least one key may be present)
//   1  query: no key may be present
//   2  usage error: bad option, bad number, unknown kind, operation the kind lacks
//   3  data or I/O error: missing, corrupt, truncated or foreign file, failed write
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "bloomkit/result.h"

namespace CLI {
class App;
}  // namespace CLI

namespace bloomkit::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitNoneFound = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitData = 3;

// The one error type of the tool: main prints `bloomkit: <message>` and exits with
// `exit_code`. Messages name the file or option they are about ("seen.bf: ...").
class CliError : public std::runtime_error {
 public:
  CliError(int exit_code, const std::string& message) : std::runtime_error(message), exit_code_(exit_code) {}
  [[nodiscard]] int exit_code() const noexcept { return exit_code_; }

 private:
  int exit_code_;
};

[[noreturn]] inline void Fail(int exit_code, const std::string& message) {
  throw CliError(exit_code, message);
}

// The exit status for a core error: arguments and unsupported operations are usage
// errors, everything about bytes and files is a data/I-O error.
int ExitCodeFor(ErrorCode code) noexcept;

// Throws CliError("<context>: <message>") when `status` failed.
void Check(const Status& status, std::string_view context);
void Check(const Status& status, std::string_view context, int exit_code);
template <typename T>
T Take(Result<T>&& result, std::string_view context) {
  if (!result.ok()) Check(Status(result.error()), context);
  return std::move(result).value();
}
template <typename T>
T Take(Result<T>&& result, std::string_view context, int exit_code) {
  if (!result.ok()) Check(Status(result.error()), context, exit_code);
  return std::move(result).value();
}

// Options of the main program that every subcommand sees.
struct GlobalOptions {
  std::string max_memory = "4GiB";  // --max-memory, parsed by MaxMemoryBytes()
  double wait_seconds = 60;         // --wait: how long a writer waits for another's lock
  [[nodiscard]] std::uint64_t MaxMemoryBytes() const;
};

// A registered subcommand: its CLI11 app and what to run when it was given.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// One per file: calc.cc, create.cc, ...
Command AddCalcCommand(CLI::App& parent, const GlobalOptions& global);
Command AddCreateCommand(CLI::App& parent, const GlobalOptions& global);
Command AddAddCommand(CLI::App& parent, const GlobalOptions& global);
Command AddQueryCommand(CLI::App& parent, const GlobalOptions& global);
Command AddDedupCommand(CLI::App& parent, const GlobalOptions& global);
Command AddImportCommand(CLI::App& parent, const GlobalOptions& global);  // redisbloom.cc
Command AddExportCommand(CLI::App& parent, const GlobalOptions& global);  // redisbloom.cc
Command AddRemoveCommand(CLI::App& parent, const GlobalOptions& global);
Command AddInfoCommand(CLI::App& parent, const GlobalOptions& global);
Command AddMergeCommand(CLI::App& parent, const GlobalOptions& global);
Command AddCompressCommand(CLI::App& parent, const GlobalOptions& global);
Command AddDecompressCommand(CLI::App& parent, const GlobalOptions& global);
Command AddExperimentFprCommand(CLI::App& experiment, const GlobalOptions& global);
Command AddBenchCommand(CLI::App& parent, const GlobalOptions& global);
Command AddVerifyCommand(CLI::App& parent, const GlobalOptions& global);

}  // namespace bloomkit::cli
