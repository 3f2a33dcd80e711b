// bloomkit: size, build, query and inspect Bloom filters from the shell.
//
// main parses the command line with CLI11, runs the one subcommand given, and turns
// every failure into one line on stderr and an exit status (cli.h):
//   bloomkit: seen.bf: checksum mismatch (file is corrupt or truncated)
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "any_filter.h"
#include "cli.h"

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

  std::vector<Command> commands;
  commands.push_back(AddCalcCommand(app, global));
  commands.push_back(AddCreateCommand(app, global));
  commands.push_back(AddAddCommand(app, global));
  commands.push_back(AddQueryCommand(app, global));
  commands.push_back(AddDedupCommand(app, global));
  commands.push_back(AddRemoveCommand(app, global));
  commands.push_back(AddInfoCommand(app, global));
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
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "bloomkit: %s (see bloomkit --help)\n", OneLine(e.what()).c_str());
    return kExitUsage;
  }
  for (const Command& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  std::fprintf(stderr, "bloomkit: no command given (see bloomkit --help)\n");
  return kExitUsage;
}

}  // namespace
}  // namespace bloomkit::cli

int main(int argc, char** argv) {
  using bloomkit::cli::kExitData;
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
