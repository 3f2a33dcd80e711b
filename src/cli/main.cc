// SPDX-License-Identifier: Apache-2.0
// bloomkit: size, build, query and inspect Bloom filters from the shell.
//
// main parses the command line with CLI11, runs the one subcommand given, and turns
// every failure into one line on stderr and an exit status (cli.h):
//   bloomkit: seen.bf: checksum mismatch (file is corrupt or truncated)
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "any_filter.h"
#include "cli.h"
#include "output.h"

namespace bloomkit::cli {
namespace {

constexpr const char* kFooter = R"(
Keys are read one per line from the INPUT files, or stdin when INPUT is - or absent.
Blank lines are skipped, a trailing \r is dropped, a last line without \n counts;
--null reads NUL-terminated keys instead. Numbers accept 10000000, 1e7 and 10M.

Exit status:
  0  success (query: at least one key may be present)
  1  query: no key may be present
  2  usage error (bad option or number, unknown kind, operation the kind lacks)
  3  data or I/O error (missing, corrupt, truncated or foreign file, failed write)

Examples:
  bloomkit calc --capacity 10M --fp-rate 1%
  bloomkit create seen.bf --capacity 1e6 --fp-rate 0.001
  bloomkit add seen.bf urls.txt
  bloomkit query seen.bf --print absent < new-urls.txt
  crawl | bloomkit dedup seen.bf | fetch
  bloomkit info seen.bf --json
  bloomkit experiment fpr --plot fpr.png

See docs/CLI.md for the full reference.)";

// Optimal string alignment distance: edits, with a swap of two neighbours as one edit
// (qeury -> query is 1).
std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// When the first word after `app`'s own options is not one of its subcommands:
// "unknown command 'qeury' (did you mean 'query'?)". Empty if the words are known (then
// CLI11's own message explains the error). `args` are the words after the program name.
std::string UnknownCommand(const CLI::App& app, const std::vector<std::string>& args, std::size_t from,
                           const std::string& prefix) {
  const std::vector<const CLI::App*> subcommands = app.get_subcommands([](const CLI::App*) { return true; });
  if (subcommands.empty()) return "";
  for (std::size_t i = from; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") return "";
    if (word == "--max-memory") {  // the only option of the program with a value
      ++i;
      continue;
    }
    if (!word.empty() && word[0] == '-') continue;
    std::string best;
    std::size_t best_distance = 3;  // suggest only at one or two edits
    std::string names;
    for (const CLI::App* sub : subcommands) {
      if (sub->get_name() == word) return UnknownCommand(*sub, args, i + 1, prefix + word + " ");
      names += (names.empty() ? "" : ", ") + sub->get_name();
      const std::size_t distance = EditDistance(word, sub->get_name());
      if (distance < best_distance || (sub->get_name().starts_with(word) && best.empty())) {
        best_distance = std::min(distance, best_distance);
        best = sub->get_name();
      }
    }
    if (!best.empty()) return fmt::format("unknown command '{}{}' (did you mean '{}{}'?)", prefix, word, prefix, best);
    return fmt::format("unknown command '{}{}' (commands: {})", prefix, word, names);
  }
  return "";
}

// Help and version text go through std::cout; a failed write (a full disk, a closed
// pipe's EPIPE) is an error like any other output's.
int CheckStdout(int status) {
  std::cout.flush();
  if (!std::cout.good() || std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "bloomkit: %s\n", WriteFailed("stdout", errno).c_str());
    return kExitData;
  }
  return status;
}

// A closed descriptor 0, 1 or 2 is the number the next open() returns: the filter file
// would be read as keys from "stdin", or a file written to by "stdout" or "stderr". As
// glibc does for set-user-ID programs (csu/check_fds.c), /dev/null goes there, opened
// the wrong way round (write-only as 0, read-only as 1 and 2): the numbers are taken,
// and the streams still fail on use with EBADF as closed ones do. KeyReader then says
// "standard input is closed", and a write to stdout fails the run (exit 3).
void OccupyClosedStandardFds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int opened = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (opened < 0) {
      std::fprintf(stderr, "bloomkit: descriptor %d is closed and /dev/null cannot be opened: %s\n", fd,
                   std::strerror(errno));
      std::exit(kExitData);
    }
    if (opened != fd) {  // not expected: the lower descriptors are open
      ::dup2(opened, fd);
      ::close(opened);
    }
  }
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

int Run(int argc, char** argv) {
  CLI::App app("bloomkit " BLOOMKIT_VERSION ": size, build, query and inspect Bloom filters", "bloomkit");
  app.require_subcommand(1);
  app.fallthrough();  // global options may also follow the subcommand
  app.set_version_flag("--version", "bloomkit " BLOOMKIT_VERSION);
  GlobalOptions global;
  app.add_option("--max-memory", global.max_memory,
                 "largest filter to create or load, e.g. 4GiB, 16GiB (default 4GiB)");
  app.add_option("--wait", global.wait_seconds,
                 "seconds a command that rewrites a file waits for another writer's lock (default 60)")
      ->check(CLI::Range(0.0, 1e9));

  std::vector<Command> commands;
  commands.push_back(AddCalcCommand(app, global));
  commands.push_back(AddCreateCommand(app, global));
  commands.push_back(AddAddCommand(app, global));
  commands.push_back(AddQueryCommand(app, global));
  commands.push_back(AddDedupCommand(app, global));
  commands.push_back(AddRemoveCommand(app, global));
  commands.push_back(AddInfoCommand(app, global));
  commands.push_back(AddVerifyCommand(app, global));
  commands.push_back(AddMergeCommand(app, global));
  commands.push_back(AddCompressCommand(app, global));
  commands.push_back(AddDecompressCommand(app, global));
  commands.push_back(AddImportCommand(app, global));
  commands.push_back(AddExportCommand(app, global));
  CLI::App* experiment = app.add_subcommand("experiment", "reproduce the false-positive experiments");
  experiment->require_subcommand(1);
  commands.push_back(AddExperimentFprCommand(*experiment, global));
  commands.push_back(AddBenchCommand(app, global));
  app.footer(kFooter);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return CheckStdout(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return CheckStdout(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return CheckStdout(app.exit(e));
  } catch (const CLI::ParseError& e) {
    const std::string unknown = UnknownCommand(app, std::vector<std::string>(argv + 1, argv + argc), 0, "");
    std::fprintf(stderr, "bloomkit: %s (see bloomkit --help)\n",
                 unknown.empty() ? OneLine(e.what()).c_str() : unknown.c_str());
    return kExitUsage;
  }
  for (const Command& command : commands) {
    if (command.app->parsed()) {
      const int status = command.run();
      // Output that only a destructor flushed (and could not report) fails the run here.
      const std::string failed = Output::DeferredError();
      if (!failed.empty()) Fail(kExitData, failed);
      return CheckStdout(status);
    }
  }
  std::fprintf(stderr, "bloomkit: no command given (see bloomkit --help)\n");
  return kExitUsage;
}

}  // namespace
}  // namespace bloomkit::cli

int main(int argc, char** argv) {
  using bloomkit::cli::kExitData;
  bloomkit::cli::OccupyClosedStandardFds();
  try {
    return bloomkit::cli::Run(argc, argv);
  } catch (const bloomkit::cli::CliError& e) {
    std::fprintf(stderr, "bloomkit: %s\n", bloomkit::cli::OneLine(e.what()).c_str());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "bloomkit: out of memory\n");
    return kExitData;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bloomkit: %s\n", bloomkit::cli::OneLine(e.what()).c_str());
    return kExitData;
  }
}
