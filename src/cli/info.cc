// SPDX-License-Identifier: Apache-2.0
// bloomkit info FILE: what a filter file holds, how full it is and what rate to expect.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "bloomkit/format.h"
#include "cli.h"
#include "filter_file.h"
#include "numbers.h"
#include "output.h"

namespace bloomkit::cli {
namespace {

struct InfoOptions {
  std::string file;
  bool json = false;
  bool mmap = false;
};

std::string InfoJson(const std::string& file, const ReadFilter& f, const FilterSummary& s) {
  const bool compressed = (f.header().flags & kFlagZstdPayload) != 0;
  std::string out = fmt::format(
      "{{\"file\":{},\"kind\":{},\"format_version\":{},\"bits\":{},\"hashes\":{},\"capacity\":{},\"count\":{},"
      "\"estimated_count\":{},\"fill_ratio\":{},\"fp_rate\":{},\"expected_fp_rate\":{},\"estimated_fp_rate\":{},"
      "\"file_bytes\":{},\"memory_bytes\":{},\"compressed\":{},\"can_remove\":{},\"overfull\":{}",
      JsonString(file), JsonString(FilterKindName(s.kind)), f.header().format_version, s.num_bits, s.num_hashes,
      s.capacity, s.count, s.estimated_count, JsonNumber(s.fill_ratio), JsonNumber(s.fp_rate),
      JsonNumber(s.expected_fp_rate), JsonNumber(s.estimated_fp_rate), f.file_bytes(), s.memory_bytes, compressed,
      s.can_remove, s.estimated_fp_rate > 2.0 * s.fp_rate);
  if (f.mapped) out += ",\"mapped\":true";
  if (s.kind == FilterKind::kCuckoo || s.kind == FilterKind::kRedisBloomCuckoo) {
    out += fmt::format(",\"bucket_size\":{},\"fingerprint_bits\":{},\"buckets\":{},\"filters\":{},\"deletes\":{}",
                       s.bucket_size, s.fingerprint_bits, s.num_buckets, s.num_stages, s.num_deletes);
  }
  if (s.kind == FilterKind::kWindowed) {
    out += fmt::format(
        ",\"window_ms\":{},\"generations\":{},\"now_ms\":{},\"live_generations\":{},\"stages\":{},"
        "\"max_stages\":{},\"over_capacity\":{},\"sizing\":\"{}\"",
        s.window_ms, s.generations, s.now_ms, s.live_generations, s.num_stages, s.max_stages, s.over_capacity,
        s.steady_sizing ? "steady" : "any");
  }
  if (s.kind == FilterKind::kScalable) {
    out += ",\"stages\":[";
    for (std::size_t i = 0; i < s.stages.size(); ++i) {
      const StageInfo& st = s.stages[i];
      out += fmt::format(
          "{}{{\"capacity\":{},\"count\":{},\"bits\":{},\"hashes\":{},\"fp_rate\":{},"
          "\"memory_bytes\":{}}}",
          i == 0 ? "" : ",", st.capacity, st.count, st.num_bits, st.num_hashes, JsonNumber(st.fp_rate),
          st.memory_bytes);
    }
    out += "]";
  }
  out += "}\n";
  return out;
}

std::string InfoText(const std::string& file, const ReadFilter& f, const FilterSummary& s) {
  const bool compressed = (f.header().flags & kFlagZstdPayload) != 0;
  std::string out;
  out += fmt::format("file                 {}\n", file);
  out += fmt::format("kind                 {}\n", FilterKindName(s.kind));
  out += fmt::format("format version       {}\n", f.header().format_version);
  out += fmt::format("bits                 {}\n", GroupThousands(s.num_bits));
  if (s.kind == FilterKind::kCuckoo || s.kind == FilterKind::kRedisBloomCuckoo) {
    out += fmt::format("buckets              {} x {} slots of {}-bit fingerprints ({} sub-filters)\n",
                       GroupThousands(s.num_buckets), s.bucket_size, s.fingerprint_bits, s.num_stages);
  } else {
    out += fmt::format("hashes               {}\n", s.num_hashes);
  }
  out += fmt::format("capacity             {}\n", GroupThousands(s.capacity));
  out += fmt::format("count                {}\n", GroupThousands(s.count));
  out += fmt::format("estimated count      {}\n", GroupThousands(s.estimated_count));
  out += fmt::format("fill ratio           {:.4f}\n", s.fill_ratio);
  out += fmt::format("target fp rate       {}\n", Percent(s.fp_rate));
  out += fmt::format("expected fp rate     {} (at capacity)\n", Percent(s.expected_fp_rate));
  out += fmt::format("estimated fp rate    {} (now, from the fill)\n", Percent(s.estimated_fp_rate));
  out += fmt::format("memory               {} ({})\n", GroupThousands(s.memory_bytes), HumanBytes(s.memory_bytes));
  out += fmt::format("file bytes           {} ({}{})\n", GroupThousands(f.file_bytes()), HumanBytes(f.file_bytes()),
                     compressed ? ", zstd payload" : "");
  if (f.mapped) out += "access               memory-mapped (checksum not read; bloomkit verify checks it)\n";
  if (s.kind == FilterKind::kCuckoo || s.kind == FilterKind::kRedisBloomCuckoo)
    out += fmt::format("deletes              {}\n", GroupThousands(s.num_deletes));
  if (s.kind == FilterKind::kWindowed) {
    out += fmt::format("window               {} in {} generations of {}\n", FormatDurationMs(s.window_ms),
                       s.generations, FormatDurationMs(s.window_ms / s.generations));
    out += fmt::format("sizing               {}\n", s.steady_sizing
                                                        ? "steady (the rate holds while no generation gets more "
                                                          "than capacity / generations keys)"
                                                        : "any (the rate holds for any schedule within capacity)");
    out += fmt::format("clock                {} ms since the Unix epoch\n", s.now_ms);
    out += fmt::format("live generations     {}, {} stages (at most {})\n", s.live_generations, s.num_stages,
                       s.max_stages);
    if (s.over_capacity) out += "over capacity        yes: a window received more keys than the capacity\n";
  }
  if (!s.stages.empty()) {
    out += fmt::format("stages               {}\n", s.stages.size());
    out += fmt::format("  {:>5}  {:>14}  {:>14}  {:>15}  {:>6}  {:>10}\n", "stage", "capacity", "count", "bits",
                       "hashes", "fp rate");
    for (std::size_t i = 0; i < s.stages.size(); ++i) {
      const StageInfo& st = s.stages[i];
      out += fmt::format("  {:>5}  {:>14}  {:>14}  {:>15}  {:>6}  {:>10}\n", i, GroupThousands(st.capacity),
                         GroupThousands(st.count), GroupThousands(st.num_bits), st.num_hashes, Percent(st.fp_rate));
    }
  }
  return out;
}

int RunInfo(const InfoOptions& o, const GlobalOptions& global) {
  ReadFilter filter = OpenForReading(o.file, global, o.mmap);
  FilterSummary s = filter.Summary();
  if (filter.CheckIntact(o.file, global)) s = filter.Summary();
  Output out;
  out.Append(o.json ? InfoJson(o.file, filter, s) : InfoText(o.file, filter, s));
  out.Flush();
  WarnIfOverfull(o.file, s);
  return kExitOk;
}

}  // namespace

Command AddInfoCommand(CLI::App& parent, const GlobalOptions& global) {
  auto o = std::make_shared<InfoOptions>();
  CLI::App* app = parent.add_subcommand("info", "show a filter file's kind, size, fill and rates");
  app->add_option("FILE", o->file, "the filter file")->required();
  app->add_flag(
      "--json", o->json,
      "one JSON object: file, kind, format_version, bits, hashes, capacity, count, estimated_count, fill_ratio, "
      "fp_rate, expected_fp_rate, estimated_fp_rate, file_bytes, memory_bytes, compressed, ...");
  app->add_flag("--mmap", o->mmap,
                "map FILE read-only instead of loading it (classic and blocked, uncompressed; others are loaded): "
                "no copy of the filter in this process, and the checksum is not read (bloomkit verify checks it)");
  app->footer(R"(
A warning goes to stderr when the filter is overfull: its estimated rate is above
twice its target.

Examples:
  bloomkit info seen.bf
  bloomkit info seen.bf --json | jq .estimated_fp_rate)");
  return {app, [o, &global] { return RunInfo(*o, global); }};
}

}  // namespace bloomkit::cli
