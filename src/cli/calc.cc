// SPDX-License-Identifier: Apache-2.0
// bloomkit calc: the size of a filter for a capacity and a false-positive rate, or the
// rate of a given size. The numbers come from sizing.h alone (no filter is built):
//   bloomkit calc --capacity 1e7 --fp-rate 1%   -> 95,850,584 bits, 7 hashes
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "bloomkit/sizing.h"
#include "cli.h"
#include "numbers.h"
#include "output.h"

namespace bloomkit::cli {
namespace {

// calc is arithmetic, so it may describe filters far over --max-memory; 1 EiB keeps
// every bit count below 2^63.
constexpr std::uint64_t kCalcMaxBytes = std::uint64_t{1} << 60;

struct CalcOptions {
  std::string capacity;
  std::string fp_rate;
  std::string bits;
  std::string kind = "classic";
  bool json = false;
};

int RunCalc(const CalcOptions& o) {
  const std::uint64_t capacity = Take(ParseCount(o.capacity, "--capacity"), "");
  const FilterKind kind = Take(ParseFilterKind(o.kind), "--kind");
  if (o.fp_rate.empty() == o.bits.empty()) {
    Fail(kExitUsage, o.bits.empty() ? "give --fp-rate P (or --bits M for the rate of a given size)"
                                    : "give either --fp-rate or --bits, not both");
  }
  FilterParameters p;
  if (!o.fp_rate.empty()) {
    const double fp_rate = Take(ParseRate(o.fp_rate, "--fp-rate"), "");
    Check(ValidateFpRate(fp_rate), "--fp-rate");
    // A blocked filter is sized as `create --kind blocked` makes it: the default layout
    // for the rate (DefaultBlockedLayout).
    p = kind == FilterKind::kBlocked
            ? Take(CalculateBlockedParameters(capacity, fp_rate, DefaultBlockedLayout(fp_rate), kCalcMaxBytes), "")
            : Take(CalculateParameters(capacity, fp_rate, kind, kCalcMaxBytes), "");
  } else {
    const std::uint64_t bits = Take(ParseCount(o.bits, "--bits"), "");
    p = Take(CalculateFpRateForBits(capacity, bits, kind), "");
  }

  Output out;
  if (o.json) {
    out.Append(fmt::format(
        "{{\"kind\":{},\"capacity\":{},\"fp_rate\":{},\"bits\":{},\"bytes\":{},\"hashes\":{},\"bits_per_key\":{},"
        "\"expected_fp_rate\":{}}}\n",
        JsonString(FilterKindName(p.kind)), p.capacity, JsonNumber(p.fp_rate), p.num_bits, p.bytes, p.num_hashes,
        JsonNumber(p.bits_per_key), JsonNumber(p.expected_fp_rate)));
    out.Flush();
    return kExitOk;
  }
  out.Append(fmt::format("kind              {}\n", FilterKindName(p.kind)));
  out.Append(fmt::format("capacity          {} keys\n", GroupThousands(p.capacity)));
  if (!o.fp_rate.empty()) out.Append(fmt::format("target fp rate    {}\n", Percent(p.fp_rate)));
  out.Append(fmt::format("bits              {}\n", GroupThousands(p.num_bits)));
  out.Append(fmt::format("bytes             {} ({})\n", GroupThousands(p.bytes), HumanBytes(p.bytes)));
  out.Append(fmt::format("hashes            {}\n", p.num_hashes));
  out.Append(fmt::format("bits per key      {:.2f}\n", p.bits_per_key));
  out.Append(fmt::format("expected fp rate  {} (at capacity)\n", Percent(p.expected_fp_rate)));
  out.Flush();
  return kExitOk;
}

}  // namespace

Command AddCalcCommand(CLI::App& parent, const GlobalOptions& /*global*/) {
  auto o = std::make_shared<CalcOptions>();
  CLI::App* app = parent.add_subcommand("calc", "size a filter: bits, bytes and hashes for a capacity and rate");
  app->add_option("--capacity", o->capacity, "distinct keys the filter is designed for (1e7, 10M, 10000000)")
      ->required();
  app->add_option("--fp-rate", o->fp_rate, "target false-positive rate at capacity (0.01, 1e-2, 1%)");
  app->add_option("--bits", o->bits, "instead of --fp-rate: the rate of a filter of this many bits");
  app->add_option("--kind", o->kind, "classic (default), blocked, counting, scalable or cuckoo");
  app->add_flag("--json", o->json,
                "one JSON object: kind, capacity, fp_rate, bits, bytes, hashes, bits_per_key, "
                "expected_fp_rate");
  app->footer(R"(
Examples:
  bloomkit calc --capacity 10M --fp-rate 1%          # 95,850,584 bits (11.4 MiB), 7 hashes
  bloomkit calc --capacity 1e7 --fp-rate 0.001 --kind blocked
  bloomkit calc --capacity 1e6 --bits 8Mi --json     # the rate of a 1 MiB filter)");
  return {app, [o] { return RunCalc(*o); }};
}

}  // namespace bloomkit::cli
