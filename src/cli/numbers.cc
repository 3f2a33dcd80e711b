// SPDX-License-Identifier: Apache-2.0
// Number parsing and formatting of the CLI (numbers.h).
#include "numbers.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace bloomkit::cli {
namespace {

Error BadNumber(std::string_view what, std::string_view text, std::string_view expected) {
  return Error(ErrorCode::kInvalidArgument, fmt::format("{}: expected {}, got '{}'", what, expected, text));
}

struct Suffix {
  std::string_view name;
  double multiplier;
};

// Longest names first so that "Mi" is not read as "M" followed by junk.
constexpr Suffix kSuffixes[] = {
    {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}, {"K", 1e3}, {"k", 1e3},
    {"M", 1e6},     {"G", 1e9},        {"T", 1e12},
};

constexpr std::string_view kCountForms = "a whole number such as 10000000, 1e7 or 10M";

std::string StripSeparators(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c != '_') out.push_back(c);
  }
  return out;
}

Result<std::uint64_t> ParseCountImpl(std::string_view original, std::string_view what, std::string_view forms) {
  std::string text = StripSeparators(original);
  if (text.empty()) return BadNumber(what, original, forms);
  // Plain digits: exact, with overflow detection.
  std::uint64_t exact = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), exact);
  if (ec == std::errc() && end == text.data() + text.size()) return exact;
  if (ec == std::errc::result_out_of_range) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("{}: {} is too large (the maximum is {})", what, original,
                                                          std::numeric_limits<std::uint64_t>::max()));
  }
  double multiplier = 1.0;
  std::string_view number = text;
  for (const Suffix& s : kSuffixes) {
    if (number.size() > s.name.size() && number.ends_with(s.name)) {
      multiplier = s.multiplier;
      number.remove_suffix(s.name.size());
      break;
    }
  }
  if (number.starts_with('-')) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("{}: must not be negative, got {}", what, original));
  }
  double value = 0;
  auto [dend, dec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (dec != std::errc() || dend != number.data() + number.size() || !std::isfinite(value)) {
    return BadNumber(what, original, forms);
  }
  value *= multiplier;
  // 2^64 is exactly representable; anything at or above it does not fit.
  if (value >= 18446744073709551616.0) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("{}: {} is too large (the maximum is {})", what, original,
                                                          std::numeric_limits<std::uint64_t>::max()));
  }
  if (value != std::floor(value)) {
    const std::string shown = JsonNumber(value);
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: {} is not a whole number{}", what, original,
                             shown == original ? std::string() : fmt::format(" ({})", shown)));
  }
  return static_cast<std::uint64_t>(value);
}

}  // namespace

Result<std::uint64_t> ParseCount(std::string_view text, std::string_view what) {
  return ParseCountImpl(text, what, kCountForms);
}

Result<std::uint64_t> ParseByteSize(std::string_view text, std::string_view what) {
  std::string_view number = text;
  if (number.size() > 1 && (number.back() == 'B' || number.back() == 'b')) number.remove_suffix(1);
  return ParseCountImpl(number, what, "a byte size such as 4GiB, 500MB or 1073741824");
}

Result<double> ParseRate(std::string_view text, std::string_view what) {
  std::string_view number = text;
  double scale = 1.0;
  if (number.ends_with('%')) {
    number.remove_suffix(1);
    scale = 0.01;
  }
  if (number.starts_with('+')) number.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) {
    return BadNumber(what, text, "a rate such as 0.01, 1e-3 or 1%");
  }
  return value * scale;
}

std::string GroupThousands(std::uint64_t value) {
  std::string digits = fmt::format("{}", value);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  const std::size_t lead = digits.size() % 3;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (i + 3 - lead) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string HumanBytes(std::uint64_t bytes) {
  constexpr std::string_view kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.{}f} {}", value, value < 10 ? 2 : (value < 100 ? 1 : 0), kUnits[unit]);
}

std::string Percent(double fraction) {
  if (fraction == 0) return "0%";
  // Below 1e-6 a percentage is all zeros; show the fraction itself.
  if (std::fabs(fraction) < 1e-6) return fmt::format("{:.4g}", fraction);
  return fmt::format("{:.4g}%", fraction * 100.0);
}

std::string JsonNumber(double value) {
  if (std::isnan(value)) return "null";
  if (std::isinf(value)) return value > 0 ? "1e308" : "-1e308";
  return fmt::format("{}", value);
}

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20) {
          out += fmt::format("\\u{:04x}", u);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

Result<std::uint64_t> ParseDurationMs(std::string_view text, std::string_view what) {
  struct Unit {
    std::string_view name;
    std::uint64_t ms;
  };
  // "ms" before "m" and "s".
  static constexpr Unit kUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}, {"d", 86'400'000}};
  std::string_view number = text;
  std::uint64_t unit = 1000;
  for (const Unit& u : kUnits) {
    if (number.size() > u.name.size() && number.ends_with(u.name)) {
      unit = u.ms;
      number.remove_suffix(u.name.size());
      break;
    }
  }
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || number.empty()) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: expected a duration such as 24h, 90m, 30s or 1500ms, got '{}'", what, text));
  }
  if (value == 0 || value > std::numeric_limits<std::uint64_t>::max() / unit) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("{}: must be in [1ms, {}ms], got {}", what,
                                                          std::numeric_limits<std::uint64_t>::max(), text));
  }
  return value * unit;
}

std::string FormatDurationMs(std::uint64_t ms) {
  for (const auto& [unit, name] :
       {std::pair<std::uint64_t, const char*>{86'400'000, "d"}, {3'600'000, "h"}, {60'000, "m"}, {1000, "s"}}) {
    if (ms % unit == 0) return fmt::format("{}{}", ms / unit, name);
  }
  return fmt::format("{}ms", ms);
}

}  // namespace bloomkit::cli
