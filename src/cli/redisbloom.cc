// SPDX-License-Identifier: Apache-2.0
// bloomkit import redisbloom / bloomkit export --format redisbloom: RedisBloom's BF/CF
// keys in and out of bloomkit files (kinds redisbloom-bf and redisbloom-cf), as a DUMP
// payload (what DUMP returns and RESTORE takes) or as SCANDUMP chunks (what
// BF/CF.LOADCHUNK takes). The bytes are RedisBloom's own: byte-identical both ways.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "any_filter.h"
#include "bloomkit/format.h"
#include "bloomkit/redisbloom_codec.h"
#include "cli.h"
#include "filter_file.h"
#include "foreign.h"
#include "numbers.h"

namespace bloomkit::cli {
namespace {

// The SCANDUMP header chunk of a cuckoo filter is always 38 bytes; a Bloom chain's is
// 20 + 53 per link, never 38.
constexpr std::size_t kCuckooHeaderChunkBytes = 38;

struct ImportOptions {
  std::string out;
  std::string dump;
  std::vector<std::string> chunks;
  bool force = false;
  bool compress = false;
};

// A Redis DUMP payload or SCANDUMP chunk: not a bloomkit file, so read it whole (after
// checking its size against the limit) rather than with the header-first ReadFileBytes.
std::vector<std::byte> ReadInput(const std::string& path, const GlobalOptions& global) {
  std::error_code ec;
  const std::uint64_t bytes = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  if (ec || !std::filesystem::is_regular_file(path, ec))
    Fail(kExitData, fmt::format("{}: cannot open: not a regular file", path));
  if (bytes > global.MaxMemoryBytes()) {
    Fail(kExitData,
         fmt::format("{}: file of {} bytes is over the memory limit of {}", path, bytes, global.MaxMemoryBytes()));
  }
  std::vector<std::byte> data(static_cast<std::size_t>(bytes));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) Fail(kExitData, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  const std::size_t got = std::fread(data.data(), 1, data.size(), f);
  std::fclose(f);
  if (got != data.size()) Fail(kExitData, fmt::format("{}: read failed", path));
  return data;
}

FilterVariant FromDump(const std::string& path, const GlobalOptions& global) {
  std::vector<std::byte> bytes = ReadInput(path, global);
  const LoadOptions load{.max_memory_bytes = global.MaxMemoryBytes()};
  // `redis-cli --raw DUMP key > file` appends a newline after the payload.
  if (!RedisBloomDumpKind(bytes).ok() && !bytes.empty() && bytes.back() == std::byte{'\n'} &&
      RedisBloomDumpKind(std::span(bytes).first(bytes.size() - 1)).ok()) {
    bytes.pop_back();
  }
  const FilterKind kind = Take(RedisBloomDumpKind(bytes), path, kExitData);
  if (kind == FilterKind::kRedisBloomCuckoo) return Take(DecodeRedisCuckooDump(bytes, load), path, kExitData);
  return Take(DecodeRedisBloomDump(bytes, load), path, kExitData);
}

// The chunks in SCANDUMP order: the header, then data chunks whose iterators follow
// from their lengths (each is 1 + the bytes sent so far, its own included).
template <typename Filter, typename FromHeader, typename LoadChunk>
Filter FromChunks(const ImportOptions& o, const GlobalOptions& global, FromHeader from_header, LoadChunk load_chunk) {
  const LoadOptions load{.max_memory_bytes = global.MaxMemoryBytes()};
  Filter filter = Take(from_header(ReadInput(o.chunks.front(), global), load), o.chunks.front(), kExitData);
  std::int64_t iterator = 1;
  for (std::size_t i = 1; i < o.chunks.size(); ++i) {
    const std::vector<std::byte> bytes = ReadInput(o.chunks[i], global);
    iterator += static_cast<std::int64_t>(bytes.size());
    Check(load_chunk(filter, iterator, bytes), o.chunks[i], kExitData);
  }
  return filter;
}

int RunImport(const ImportOptions& o, const GlobalOptions& global) {
  if (o.dump.empty() == o.chunks.empty()) Fail(kExitUsage, "give either --dump FILE or --chunks FILE...");
  CheckOverwrite(o.out, o.force);
  FilterVariant filter = [&]() -> FilterVariant {
    if (!o.dump.empty()) return FromDump(o.dump, global);
    const std::vector<std::byte> head = ReadInput(o.chunks.front(), global);
    if (head.size() == kCuckooHeaderChunkBytes) {
      auto cuckoo = FromChunks<RedisCuckooFilter>(
          o, global, [](auto b, auto l) { return RedisCuckooFromHeaderChunk(b, l); },
          [](auto& f, std::int64_t i, auto b) { return LoadRedisCuckooChunk(f, i, b); });
      // SCANDUMP's chunks carry no checksum: a missing or foreign chunk shows as slots
      // that disagree with the header's item count.
      if (cuckoo.CountOccupiedSlots() != cuckoo.count()) {
        Fail(kExitData, fmt::format("{}: the chunks hold {} fingerprints, the header says {} (a chunk is missing?)",
                                    o.chunks.front(), cuckoo.CountOccupiedSlots(), cuckoo.count()));
      }
      return cuckoo;
    }
    return FromChunks<RedisBloomScalableFilter>(
        o, global, [](auto b, auto l) { return RedisBloomFromHeaderChunk(b, l); },
        [](auto& f, std::int64_t i, auto b) { return LoadRedisBloomChunk(f, i, b); });
  }();
  const AnyFilter any = AnyFilter::Wrap(std::move(filter));
  const FilterSummary s = any.Summary();
  const std::string summary =
      fmt::format("{}: {} filter, {} items, {} sub-filters\n", o.out, FilterKindName(s.kind), GroupThousands(s.count),
                  s.kind == FilterKind::kRedisBloomCuckoo ? s.num_stages : s.stages.size());
  SaveFilter(o.out, any, {.compress = o.compress}, [&summary](std::uint64_t) { PrintNow(summary); });
  return kExitOk;
}

struct ExportOptions {
  std::string in;
  std::string format;
  std::string to;
  std::string dump;
  std::string chunks_dir;
  double fold_to = 0;
  bool force = false;
};

// Writes one file atomically; `summary`, if given, is printed before its rename.
void WriteOut(const std::string& path, std::span<const std::byte> bytes, bool force, const std::string& summary = "",
              Commit commit = Commit::kCheckpoint) {
  CheckOverwrite(path, force);
  CommitSave(
      path, [&](const SaveHook& hook) { return WriteFileAtomically(path, bytes, hook); },
      [&summary](std::uint64_t) {
        if (!summary.empty()) PrintNow(summary);
      },
      commit);
}

int RunExport(const ExportOptions& o, const GlobalOptions& global) {
  if (const ForeignFormat* foreign = FindForeignFormat(o.format); foreign != nullptr) {
    if (!o.dump.empty() || !o.chunks_dir.empty()) {
      Fail(kExitUsage, fmt::format("--format {} writes one file: give --to FILE, not --dump or --chunks", o.format));
    }
    ExportForeign(*foreign, o.in, o.to, o.force, o.fold_to, global);
    return kExitOk;
  }
  if (o.format != "redisbloom") {
    std::string names = "redisbloom";
    for (const ForeignFormat& f : ForeignFormats()) names += fmt::format(", {}", f.name);
    Fail(kExitUsage, fmt::format("--format must be one of {}, got '{}'", names, o.format));
  }
  if (!o.to.empty()) Fail(kExitUsage, "--format redisbloom writes --dump FILE or --chunks DIR, not --to");
  if (o.dump.empty() == o.chunks_dir.empty()) Fail(kExitUsage, "give either --dump FILE or --chunks DIR");
  const LoadedFilter loaded = LoadFilter(o.in, global);
  const FilterVariant& v = loaded.filter.variant();
  const auto* bf = std::get_if<RedisBloomScalableFilter>(&v);
  const auto* cf = std::get_if<RedisCuckooFilter>(&v);
  if (bf == nullptr && cf == nullptr) {
    Fail(kExitUsage, fmt::format("{}: a {} filter has no RedisBloom form (only redisbloom-bf and redisbloom-cf do; "
                                 "bloomkit import redisbloom makes them)",
                                 o.in, FilterKindName(loaded.filter.kind())));
  }
  if (!o.dump.empty()) {
    const std::vector<std::byte> payload = bf != nullptr ? EncodeRedisBloomDump(*bf) : EncodeRedisCuckooDump(*cf);
    WriteOut(
        o.dump, payload, o.force,
        fmt::format("{}: DUMP payload of {} bytes (RESTORE key 0 <payload>)\n", o.dump, GroupThousands(payload.size())),
        Commit::kFinal);
    return kExitOk;
  }
  const std::vector<RedisBloomOwnedChunk> chunks = bf != nullptr ? RedisBloomScanDump(*bf) : RedisCuckooScanDump(*cf);
  if (chunks.empty()) {
    Fail(kExitUsage, fmt::format("{}: an empty cuckoo filter has no SCANDUMP chunks (RedisBloom's rule); export "
                                 "--dump instead",
                                 o.in));
  }
  std::error_code ec;
  std::filesystem::create_directories(o.chunks_dir, ec);
  if (ec) Fail(kExitData, fmt::format("{}: {}", o.chunks_dir, ec.message()));
  std::string listing;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const std::string name = fmt::format("chunk{:03}.bin", i);
    WriteOut((std::filesystem::path(o.chunks_dir) / name).string(), chunks[i].bytes, o.force);
    listing += fmt::format("{} {}\n", chunks[i].iterator, name);
  }
  // The listing that makes the chunks usable is written last, after the summary.
  const std::string list_path = (std::filesystem::path(o.chunks_dir) / "iterators.txt").string();
  WriteOut(list_path, std::as_bytes(std::span(listing.data(), listing.size())), o.force,
           fmt::format("{}: {} chunks; LOADCHUNK each with its iterator (iterators.txt):\n{}", o.chunks_dir,
                       chunks.size(), listing),
           Commit::kFinal);
  return kExitOk;
}

}  // namespace

Command AddImportCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* app = parent.add_subcommand("import", "make a bloomkit file from another system's filter");
  app->require_subcommand(1);
  CLI::App* rb = app->add_subcommand("redisbloom", "a RedisBloom BF/CF key: its DUMP payload or SCANDUMP chunks");
  rb->add_option("OUT", o->out, "the bloomkit file to write (kind redisbloom-bf or redisbloom-cf)")->required();
  rb->add_option("--dump", o->dump, "a file holding the key's DUMP payload (redis-cli --raw DUMP key)");
  rb->add_option("--chunks", o->chunks, "the key's SCANDUMP chunk files, header first, in order")->expected(1, -1);
  rb->add_flag("--force", o->force, "overwrite OUT if it exists");
  rb->add_flag("--compress", o->compress, "write a zstd-compressed payload");
  rb->footer(R"(
Examples:
  bloomkit import redisbloom seen.bf --dump seen.dump
  bloomkit import redisbloom seen.bf --chunks chunk000.bin chunk001.bin chunk002.bin)");
  auto foreign = std::make_shared<std::vector<std::function<int()>>>();
  AddForeignImports(*app, global, *foreign);
  return {app, [o, rb, foreign, &global] {
            if (rb->parsed()) return RunImport(*o, global);
            for (const auto& run : *foreign) {
              if (const int status = run(); status >= 0) return status;
            }
            return kExitUsage;
          }};
}

Command AddExportCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* app = parent.add_subcommand("export", "write a filter in another system's format");
  app->add_option("IN", o->in,
                  "the filter file to read (kind redisbloom-bf or redisbloom-cf, bits-and-blooms, guava, parquet)")
      ->required();
  app->add_option("--format", o->format, "redisbloom, bits-and-blooms, guava or parquet")->required();
  app->add_option("--to", o->to, "bits-and-blooms, guava, parquet: the file to write (the library's own layout)");
  app->add_option("--dump", o->dump, "write the DUMP payload (for RESTORE) to this file");
  app->add_option("--chunks", o->chunks_dir,
                  "write the SCANDUMP chunks (for BF/CF.LOADCHUNK) and iterators.txt into this directory");
  app->add_option("--fold-to", o->fold_to,
                  "parquet: fold the filter (halve it, as often as the rate allows) to the smallest size whose "
                  "false-positive rate, as its bits give it, stays at or below this rate")
      ->check(CLI::Range(0.0, 1.0));
  app->add_flag("--force", o->force, "overwrite files that exist");
  app->footer(R"(
Examples:
  bloomkit export seen.bf --format redisbloom --dump seen.dump
  bloomkit export seen.bf --format redisbloom --chunks seen.chunks
  bloomkit export users.bf --format bits-and-blooms --to users.bloom
  bloomkit export users.bf --format guava --to users.guava
  bloomkit export chunk.bf --format parquet --to chunk.parquet-bloom --fold-to 0.01)");
  return {app, [o, &global] { return RunExport(*o, global); }};
}

}  // namespace bloomkit::cli
