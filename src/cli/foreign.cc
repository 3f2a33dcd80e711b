// SPDX-License-Identifier: Apache-2.0
// bloomkit import bits-and-blooms|guava|parquet / bloomkit export --format
// bits-and-blooms|guava|parquet: the filter files of other libraries in and out of
// bloomkit files (kinds bits-and-blooms, guava and parquet, foreign_bloom.h). The bytes
// are the library's own: a file imported and exported unchanged is byte-identical. A
// Parquet filter can be folded on its way out (--fold-to), as Parquet writers size theirs.
//
// One row of kForeignFormats per format: its name, what it reads into and what it
// writes from. A new format (Parquet's split-block filter) is one more row.
#include "foreign.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <array>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "bloomkit/foreign_bloom.h"
#include "cli.h"
#include "filter_file.h"
#include "numbers.h"

namespace bloomkit::cli {
namespace {

template <typename F>
Result<FilterVariant> ReadAs(std::istream& in, const LoadOptions& load) {
  auto f = F::ReadForeign(in, load);
  if (!f.ok()) return std::move(f).error();
  return FilterVariant(std::move(f).value());
}

template <typename F>
const F* As(const FilterVariant& v) {
  return std::get_if<F>(&v);
}

template <typename F>
std::vector<std::byte> WriteAs(const FilterVariant& v) {
  return std::get<F>(v).WriteForeign();
}

constexpr std::array<ForeignFormat, 3> kForeignFormats = {{
    {"bits-and-blooms", FilterKind::kBitsAndBlooms, "Go's github.com/bits-and-blooms/bloom v3 (WriteTo/ReadFrom)",
     &ReadAs<BitsAndBloomsFilter>, &WriteAs<BitsAndBloomsFilter>},
    {"guava", FilterKind::kGuava, "Java's Guava BloomFilter (writeTo/readFrom)", &ReadAs<GuavaBloomFilter>,
     &WriteAs<GuavaBloomFilter>},
    {"parquet", FilterKind::kParquet,
     "Apache Parquet's split block Bloom filter: a BloomFilterHeader and its bitset, as a column chunk stores it",
     &ReadAs<ParquetBloomFilter>, &WriteAs<ParquetBloomFilter>},
}};

struct ImportOptions {
  std::string out;
  std::string from;
  bool force = false;
  bool compress = false;
};

int RunImport(const ForeignFormat& format, const ImportOptions& o, const GlobalOptions& global) {
  CheckOverwrite(o.out, o.force);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.from, ec)) {
    Fail(kExitData, fmt::format("{}: cannot open: not a regular file", o.from));
  }
  std::ifstream in(o.from, std::ios::binary);
  if (!in) Fail(kExitData, fmt::format("{}: cannot open", o.from));
  // Every length is checked against the file's size and --max-memory before the
  // filter's memory is allocated; every error here is the file's (exit 3).
  FilterVariant filter = Take(format.read(in, {.max_memory_bytes = global.MaxMemoryBytes()}),
                              fmt::format("{}: not a {} filter", o.from, format.name), kExitData);
  if (in.peek() != std::char_traits<char>::eof()) {
    const auto used = static_cast<std::uint64_t>(in.tellg());
    Fail(kExitData, fmt::format("{}: not a {} filter: {} bytes follow the filter's {} bytes", o.from, format.name,
                                std::filesystem::file_size(o.from, ec) - used, used));
  }
  const AnyFilter any = AnyFilter::Wrap(std::move(filter));
  const FilterSummary s = any.Summary();
  const std::string summary =
      fmt::format("{}: {} filter, {} bits, {} hashes, ~{} keys (estimated from {} set)\n", o.out, format.name,
                  GroupThousands(s.num_bits), s.num_hashes, GroupThousands(s.estimated_count), Percent(s.fill_ratio));
  SaveFilter(o.out, any, {.compress = o.compress}, [&summary](std::uint64_t) { PrintNow(summary); });
  return kExitOk;
}

}  // namespace

std::span<const ForeignFormat> ForeignFormats() {
  return kForeignFormats;
}

const ForeignFormat* FindForeignFormat(std::string_view name) {
  for (const ForeignFormat& f : kForeignFormats) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

void AddForeignImports(CLI::App& import, const GlobalOptions& global, std::vector<std::function<int()>>& runs) {
  for (const ForeignFormat& format : kForeignFormats) {
    auto o = std::make_shared<ImportOptions>();
    CLI::App* app = import.add_subcommand(std::string(format.name), std::string(format.description));
    app->add_option("OUT", o->out, fmt::format("the bloomkit file to write (kind {})", format.name))->required();
    app->add_option("--from", o->from, fmt::format("the file the library wrote"))->required();
    app->add_flag("--force", o->force, "overwrite OUT if it exists");
    app->add_flag("--compress", o->compress, "write a zstd-compressed payload");
    app->footer(fmt::format("\nExample:\n  bloomkit import {} seen.bf --from seen.{}", format.name,
                            format.kind == FilterKind::kGuava     ? "guava"
                            : format.kind == FilterKind::kParquet ? "parquet-bloom"
                                                                  : "bloom"));
    const ForeignFormat* f = &format;
    runs.push_back([app, f, o, &global]() { return app->parsed() ? RunImport(*f, *o, global) : -1; });
  }
}

void ExportForeign(const ForeignFormat& format, const std::string& in, const std::string& to, bool force,
                   double fold_to, const GlobalOptions& global) {
  if (to.empty()) Fail(kExitUsage, fmt::format("--format {} needs --to FILE", format.name));
  if (fold_to > 0 && format.kind != FilterKind::kParquet) {
    Fail(kExitUsage, fmt::format("--fold-to folds Parquet filters only, not {} filters", format.name));
  }
  CheckOverwrite(to, force);
  const LoadedFilter loaded = LoadFilter(in, global);
  if (loaded.filter.kind() != format.kind) {
    Fail(kExitUsage, fmt::format("{}: a {} filter has no {} form (only {} filters do: their hashing is the "
                                 "library's; bloomkit import {} makes them)",
                                 in, FilterKindName(loaded.filter.kind()), format.name, format.name, format.name));
  }
  std::vector<std::byte> bytes;
  std::string folded;
  if (fold_to > 0) {
    const auto& parquet = std::get<ParquetBloomFilter>(loaded.filter.variant());
    const unsigned folds = parquet.FoldsWithin(fold_to);
    auto small = Take(parquet.Folded(folds), fmt::format("{}: cannot fold", in), kExitData);
    folded = fmt::format(", folded {} times from {} bytes (false-positive rate {:.4g}%, at most {:.4g}%)", folds,
                         GroupThousands(parquet.memory_bytes()), 100 * small.fp_rate(), 100 * fold_to);
    bytes = small.WriteForeign();
  } else {
    bytes = format.write(loaded.filter.variant());
  }
  const std::string summary =
      fmt::format("{}: {} filter of {} bytes{}\n", to, format.name, GroupThousands(bytes.size()), folded);
  CommitSave(
      to, [&](const SaveHook& hook) { return WriteFileAtomically(to, bytes, hook); },
      [&summary](std::uint64_t) { PrintNow(summary); }, Commit::kFinal);
}

}  // namespace bloomkit::cli
