// SPDX-License-Identifier: Apache-2.0
// bloomkit verify FILE...: reads each file once with a 1 MiB buffer and checks its
// header, size and checksum (bloomkit::VerifyFile), without loading the filter: the
// check to run on a file that queries will memory-map (docs/FORMAT.md, "Mapped files").
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/mapped_filter.h"
#include "cli.h"
#include "numbers.h"
#include "output.h"

namespace bloomkit::cli {
namespace {

struct VerifyOptions {
  std::vector<std::string> files;
  bool quiet = false;
};

int RunVerify(const VerifyOptions& o) {
  Output out;
  for (const std::string& file : o.files) {
    const FileHeader header = Take(VerifyFile(file), file, kExitData);
    if (o.quiet) continue;
    const std::uint64_t file_bytes = kHeaderBytes + header.stored_payload_bytes + kChecksumBytes;
    out.Append(fmt::format("{}: ok ({} filter, {} bytes{})\n", file, FilterKindName(header.kind),
                           GroupThousands(file_bytes), (header.flags & kFlagZstdPayload) != 0 ? ", zstd payload" : ""));
    out.Flush();
  }
  return kExitOk;
}

}  // namespace

Command AddVerifyCommand(CLI::App& parent, const GlobalOptions& /*global*/) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* app = parent.add_subcommand("verify", "check filter files' checksums without loading them");
  app->add_option("FILE", o->files, "filter files")->required();
  app->add_flag("--quiet,-q", o->quiet, "print nothing; the exit status answers");
  app->footer(R"(
Reads each file once through a 1 MiB buffer: memory stays bounded whatever the file's
size. Checks the header, that the file has the size it announces and the checksum over
every byte; it does not decompress or build the filter (a load does that). Exit status
0 if every file is intact, 3 at the first that is not.

Examples:
  bloomkit verify blocklist.bf && bloomkit query blocklist.bf --mmap < ips.txt)");
  return {app, [o] { return RunVerify(*o); }};
}

}  // namespace bloomkit::cli
