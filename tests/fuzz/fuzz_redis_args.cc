// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the module's argument parsing (src/redis/args.h), as each command
// handler calls it after its arity check.
//
// Input: a selector byte, then the arguments separated by '\n' (an argument may hold
// any other byte, NUL included).
// Properties: no crash or sanitizer report; every error has a message, of bounded
// length however long the arguments (bad values are quoted at most 40 bytes); every
// accepted value lies in the range its command documents; numbers round-trip.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "fuzz_input.h"

namespace {

namespace r = bloomkit::redis;

// Base text (<= ~100 bytes) + quoted value (<= 40 bytes + "...") + range text.
constexpr std::size_t kMaxErrorBytes = 512;

template <typename T>
bool Accepted(const bloomkit::Result<T>& result) {
  if (result.ok()) return true;
  BLOOMKIT_FUZZ_CHECK(!result.error().message().empty());
  BLOOMKIT_FUZZ_CHECK(result.error().message().size() <= kMaxErrorBytes);
  return false;
}

void CheckBfCreate(const r::BfCreateArgs& a) {
  BLOOMKIT_FUZZ_CHECK(a.error_rate > 0 && a.error_rate < 1);
  BLOOMKIT_FUZZ_CHECK(a.capacity >= 1);
  BLOOMKIT_FUZZ_CHECK(a.expansion >= 1);
}

void CheckCfCreate(const r::CfCreateArgs& a) {
  BLOOMKIT_FUZZ_CHECK(a.bucket_size == 2 || a.bucket_size == 4 || a.bucket_size == 8);
  BLOOMKIT_FUZZ_CHECK(a.capacity >= 2 * std::uint64_t{a.bucket_size});
  BLOOMKIT_FUZZ_CHECK(a.max_iterations >= 1);
}

void Numbers(std::string_view text) {
  if (const auto v = r::ParseInt64(text)) BLOOMKIT_FUZZ_CHECK(std::to_string(*v) == text);
  // As Redis' string2d: never NaN; infinite only when written as such ("inf"), never
  // through overflow ("1e400").
  if (const auto d = r::ParseDouble(text)) {
    BLOOMKIT_FUZZ_CHECK(!std::isnan(*d));
    if (std::isinf(*d)) BLOOMKIT_FUZZ_CHECK(text.find_first_of("iI") != std::string_view::npos);
  }
  (void)r::ParseBytes(text);
  BLOOMKIT_FUZZ_CHECK(r::EqualsIgnoreCase(text, text));
  for (const bool for_loadchunk : {false, true}) {
    for (const bool cuckoo : {false, true}) {
      auto it = r::ParseScanIterator(text, for_loadchunk, cuckoo);
      if (Accepted(it)) BLOOMKIT_FUZZ_CHECK(it.value() >= (for_loadchunk ? 1 : 0));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bloomkit_fuzz::FuzzInput in(data, size);
  const std::uint8_t selector = in.Byte();
  std::vector<std::string_view> args;
  while (!in.empty() && args.size() < 64) args.push_back(in.Until('\n'));
  const r::Args all(args);
  const r::ModuleConfig defaults;
  switch (selector % 8) {
    case 0: {
      auto config = r::ParseModuleArgs(all);
      if (Accepted(config)) {
        const r::ModuleConfig& c = config.value();
        BLOOMKIT_FUZZ_CHECK(c.error_rate > 0 && c.error_rate < 1);
        BLOOMKIT_FUZZ_CHECK(c.max_filter_bytes >= 4096 && c.max_filter_bytes <= (std::uint64_t{1} << 40));
        BLOOMKIT_FUZZ_CHECK(c.scandump_chunk_bytes >= 16 && c.scandump_chunk_bytes <= (std::uint64_t{256} << 20));
        // RedisBloom's range (native cuckoo filters take 2, 4 or 8 of it when they are made).
        BLOOMKIT_FUZZ_CHECK(c.cf_bucket_size >= 1 && c.cf_bucket_size <= 255);
        BLOOMKIT_FUZZ_CHECK(c.cf_initial_size >= 2 * std::uint64_t{c.cf_bucket_size});
        BLOOMKIT_FUZZ_CHECK(c.cbf_counter_bits == 4 || c.cbf_counter_bits == 8);
      }
      break;
    }
    case 1:  // BF.RESERVE: argc 4..7, so 2..5 arguments after the key
      if (args.size() >= 2 && args.size() <= 5) {
        auto parsed = r::ParseBfReserve(all, defaults);
        if (Accepted(parsed)) CheckBfCreate(parsed.value());
      }
      break;
    case 2: {
      auto parsed = r::ParseBfInsert(all, defaults);
      if (Accepted(parsed)) {
        CheckBfCreate(parsed.value().create);
        BLOOMKIT_FUZZ_CHECK(parsed.value().first_item >= 1 && parsed.value().first_item < args.size());
      }
      break;
    }
    case 3:  // CF.RESERVE: argc >= 3 and odd, so an odd count of arguments after the key
      if (!args.empty() && args.size() % 2 == 1) {
        auto parsed = r::ParseCfReserve(all, defaults);
        if (Accepted(parsed)) CheckCfCreate(parsed.value());
      }
      break;
    case 4: {
      auto parsed = r::ParseCfInsert(all, defaults);
      if (Accepted(parsed)) {
        CheckCfCreate(parsed.value().create);
        BLOOMKIT_FUZZ_CHECK(parsed.value().first_item >= 1 && parsed.value().first_item < args.size());
      }
      break;
    }
    case 5:  // CBF.RESERVE: argc 4 or 6
      if (args.size() == 2 || args.size() == 4) {
        auto parsed = r::ParseCbfReserve(all, defaults);
        if (Accepted(parsed)) {
          BLOOMKIT_FUZZ_CHECK(parsed.value().error_rate > 0 && parsed.value().error_rate < 1);
          BLOOMKIT_FUZZ_CHECK(parsed.value().counter_bits == 4 || parsed.value().counter_bits == 8);
        }
      }
      break;
    case 6:
      if (args.size() <= 1) (void)Accepted(r::ParseBfInfoField(all));
      break;
    default:
      for (const std::string_view text : args) Numbers(text);
      break;
  }
  return 0;
}
