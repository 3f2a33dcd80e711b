// SPDX-License-Identifier: Apache-2.0
// Numbers on the command line and in output.
//
// Counts (--capacity, --items, --bits, --queries, ...) accept
//   10000000   10_000_000   1e7   10M   2.5e6   1.5K   1Mi
// Suffixes: K, M, G, T are powers of 1000 (10M = 10,000,000); Ki, Mi, Gi, Ti are powers
// of 1024 (1Mi = 1,048,576). The value must be a whole number in [0, 2^64).
// Rates (--fp-rate) accept 0.01, 1e-2 and 1%.
// Byte sizes (--max-memory) accept counts with an optional trailing B: 4GiB, 500MB.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bloomkit/result.h"

namespace bloomkit::cli {

// `what` names the option in the error: "--capacity: expected a whole number ...".
Result<std::uint64_t> ParseCount(std::string_view text, std::string_view what);
Result<std::uint64_t> ParseByteSize(std::string_view text, std::string_view what);
// A finite number, "%" meaning /100. Range checks are the caller's (ValidateFpRate).
Result<double> ParseRate(std::string_view text, std::string_view what);

// A duration in milliseconds: a whole number with a unit, ms, s, m, h or d (24h,
// 90m, 1500ms, 7d); a bare number is seconds.
Result<std::uint64_t> ParseDurationMs(std::string_view text, std::string_view what);
// 86400000 -> "24h", 5400000 -> "90m", 1500 -> "1500ms": the largest whole unit.
std::string FormatDurationMs(std::uint64_t ms);

// 95850584 -> "95,850,584".
std::string GroupThousands(std::uint64_t value);
// 11981328 -> "11.4 MiB"; below 1 KiB: "512 B".
std::string HumanBytes(std::uint64_t bytes);
// 0.01 -> "1%", 0.000197 -> "0.0197%", 0 -> "0%": four significant digits.
std::string Percent(double fraction);
// A double for JSON and CSV: shortest round-trip form; never NaN or inf (-> null / 0).
std::string JsonNumber(double value);
// A JSON string literal with quotes and escapes.
std::string JsonString(std::string_view text);

}  // namespace bloomkit::cli
