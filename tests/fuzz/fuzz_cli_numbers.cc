// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the CLI's number parser (src/cli/numbers.h): counts, byte sizes
// and rates as typed on the command line.
//
// Input: the text of one option value (any bytes).
// Properties: no crash or sanitizer report; every error names the option and has a
// message; plain digits parse to exactly their value; a count that parses formats
// back (GroupThousands) to digits that parse to the same count; a rate is finite.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_input.h"
#include "numbers.h"

namespace {

constexpr std::string_view kWhat = "--fuzzed";

template <typename T>
bool Accepted(const bloomkit::Result<T>& result) {
  if (result.ok()) return true;
  BLOOMKIT_FUZZ_CHECK(result.error().message().starts_with(kWhat));
  return false;
}

std::string Digits(const std::string& grouped) {
  std::string out;
  for (const char c : grouped) {
    if (c != ',') out.push_back(c);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto count = bloomkit::cli::ParseCount(text, kWhat);
  if (Accepted(count)) {
    const std::string digits = Digits(bloomkit::cli::GroupThousands(count.value()));
    BLOOMKIT_FUZZ_CHECK(digits == std::to_string(count.value()));
    auto again = bloomkit::cli::ParseCount(digits, kWhat);
    BLOOMKIT_FUZZ_CHECK(again.ok() && again.value() == count.value());
    (void)bloomkit::cli::HumanBytes(count.value());
  }
  // Plain decimal digits: exactly std::from_chars, or an error when out of range.
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos) {
    std::uint64_t exact = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), exact);
    BLOOMKIT_FUZZ_CHECK(count.ok() == (ec == std::errc()));
    if (count.ok()) BLOOMKIT_FUZZ_CHECK(count.value() == exact && end == text.data() + text.size());
  }
  (void)Accepted(bloomkit::cli::ParseByteSize(text, kWhat));
  auto rate = bloomkit::cli::ParseRate(text, kWhat);
  if (Accepted(rate)) {
    BLOOMKIT_FUZZ_CHECK(std::isfinite(rate.value()));
    (void)bloomkit::cli::Percent(rate.value());
    (void)bloomkit::cli::JsonNumber(rate.value());
  }
  (void)bloomkit::cli::JsonString(text);
  return 0;
}
