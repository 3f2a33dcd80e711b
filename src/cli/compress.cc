// SPDX-License-Identifier: Apache-2.0
// bloomkit compress IN OUT / decompress IN OUT: rewrites a filter with or without a
// zstd payload (docs/FORMAT.md). Sparse filters shrink a lot; a filter near capacity
// is close to random bits and does not shrink, in which case it is stored raw.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli.h"
#include "filter_file.h"
#include "numbers.h"

namespace bloomkit::cli {
namespace {

struct CompressOptions {
  std::string in;
  std::string out;
  bool force = false;
  int level = 3;
};

int RunCompress(const CompressOptions& o, const GlobalOptions& global, bool compress) {
  if (o.level < 1 || o.level > 22) Fail(kExitUsage, fmt::format("--level must be in [1, 22], got {}", o.level));
  CheckOverwrite(o.out, o.force || o.out == o.in);
  const FileLock lock = LockForUpdate(o.out, global, /*missing_ok=*/true);
  const LoadedFilter loaded = LoadFilter(o.in, global);
  // The summary (with the size of what was written, known once it is) is printed
  // before the save's rename: a failed output leaves OUT as it was.
  SaveFilter(o.out, loaded.filter, {.compress = compress, .compression_level = o.level},
             [&](std::uint64_t written_bytes) {
               std::string note;
               if (compress && written_bytes >= loaded.file_bytes && (loaded.header.flags & kFlagZstdPayload) == 0) {
                 note = " (the payload does not shrink, so it is stored uncompressed)";
               }
               PrintNow(fmt::format("{}: {} -> {} bytes{}\n", o.out, GroupThousands(loaded.file_bytes),
                                    GroupThousands(written_bytes), note));
             });
  return kExitOk;
}

Command AddCommand(CLI::App& parent, const GlobalOptions& global, bool compress) {
  auto o = std::make_shared<CompressOptions>();
  CLI::App* app = parent.add_subcommand(compress ? "compress" : "decompress",
                                        compress ? "rewrite a filter with a zstd-compressed payload"
                                                 : "rewrite a filter with a plain (mappable) payload");
  app->add_option("IN", o->in, "the filter file to read")->required();
  app->add_option("OUT", o->out, "the filter file to write (may be IN)")->required();
  app->add_flag("--force", o->force, "overwrite OUT if it exists");
  if (compress) app->add_option("--level", o->level, "zstd level 1..22 (default 3)");
  app->footer(compress ? R"(
Examples:
  bloomkit compress seen.bf seen.bf.zst
  bloomkit compress seen.bf seen.bf --level 19     # in place)"
                       : R"(
Examples:
  bloomkit decompress seen.bf.zst seen.bf)");
  return {app, [o, &global, compress] { return RunCompress(*o, global, compress); }};
}

}  // namespace

Command AddCompressCommand(CLI::App& parent, const GlobalOptions& global) {
  return AddCommand(parent, global, true);
}
Command AddDecompressCommand(CLI::App& parent, const GlobalOptions& global) {
  return AddCommand(parent, global, false);
}

}  // namespace bloomkit::cli
