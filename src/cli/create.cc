// bloomkit create FILE: writes an empty filter sized for --capacity and --fp-rate.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "any_filter.h"
#include "bloomkit/sizing.h"
#include "cli.h"
#include "filter_file.h"
#include "numbers.h"
#include "output.h"

namespace bloomkit::cli {
namespace {

struct CreateOptions {
  std::string file;
  std::string capacity;
  std::string fp_rate = "0.01";
  std::string kind = "classic";
  std::string growth = "2";
  std::string bucket_size = "4";
  std::string expansion = "1";
  bool force = false;
  bool compress = false;
};

std::uint32_t ParseSmall(const std::string& text, std::string_view what, std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t value = Take(ParseCount(text, what), "");
  if (value < lo || value > hi) Fail(kExitUsage, fmt::format("{} must be in [{}, {}], got {}", what, lo, hi, text));
  return static_cast<std::uint32_t>(value);
}

int RunCreate(const CreateOptions& o, const GlobalOptions& global) {
  CreateSpec spec;
  spec.kind = Take(ParseAvailableKind(o.kind), "--kind");
  spec.capacity = Take(ParseCount(o.capacity, "--capacity"), "");
  spec.fp_rate = Take(ParseRate(o.fp_rate, "--fp-rate"), "");
  Check(ValidateFpRate(spec.fp_rate), "--fp-rate");
  spec.max_memory_bytes = global.MaxMemoryBytes();
  spec.growth = ParseSmall(o.growth, "--growth", 1, 1024);
  spec.bucket_size = ParseSmall(o.bucket_size, "--bucket-size", 1, 1024);
  spec.expansion = ParseSmall(o.expansion, "--expansion", 0, 1024);
  CheckOverwrite(o.file, o.force);
  const FileLock lock = LockForUpdate(o.file, global, /*missing_ok=*/true);

  auto made = AnyFilter::Create(spec);
  if (!made.ok()) {
    const Error& e = made.error();
    const std::string hint = e.code() == ErrorCode::kTooLarge ? " (raise the limit with --max-memory)" : "";
    Fail(ExitCodeFor(e.code()), fmt::format("{}: {}{}", o.file, e.message(), hint));
  }
  const AnyFilter& filter = made.value();
  SaveFilter(o.file, filter, o.compress);
  const FilterSummary s = filter.Summary();
  Output out;
  out.Append(fmt::format("{}: created a {} filter for {} keys at {}: {} bits ({}), {} hashes\n", o.file,
                         FilterKindName(s.kind), GroupThousands(s.capacity), Percent(s.fp_rate),
                         GroupThousands(s.num_bits), HumanBytes(s.memory_bytes), s.num_hashes));
  return kExitOk;
}

}  // namespace

Command AddCreateCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<CreateOptions>();
  CLI::App* app = parent.add_subcommand("create", "write an empty filter to FILE");
  app->add_option("FILE", o->file, "the filter file to write")->required();
  app->add_option("--capacity", o->capacity, "distinct keys the filter is designed for (1e6, 1M)")->required();
  app->add_option("--fp-rate", o->fp_rate, "false-positive rate at capacity (default 0.01 = 1%)");
  app->add_option("--kind", o->kind, "classic (default), blocked, counting, scalable or cuckoo");
  app->add_flag("--force", o->force, "overwrite FILE if it exists");
  app->add_flag("--compress", o->compress, "store the payload zstd-compressed");
  app->add_option("--growth", o->growth, "scalable: each new stage holds this many times the last (default 2)");
  app->add_option("--bucket-size", o->bucket_size, "cuckoo: slots per bucket, 2, 4 or 8 (default 4)");
  app->add_option("--expansion", o->expansion, "cuckoo: growth factor when full, 0 = never grow (default 1)");
  app->footer(R"(
Examples:
  bloomkit create seen.bf --capacity 10M --fp-rate 0.1%
  bloomkit create seen.bf --capacity 1e6 --kind blocked --force
  bloomkit create grow.bf --capacity 1000 --kind scalable)");
  return {app, [o, &global] { return RunCreate(*o, global); }};
}

}  // namespace bloomkit::cli
