// SPDX-License-Identifier: Apache-2.0
// The filter types the fuzz targets and corpus generator know about, and the property
// every kind must keep: what a filter can reach through its own API, its loaders accept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "bloomkit/bloomkit.h"

namespace bloomkit_fuzz {

// After a few operations chosen by `seed` (adds one by one and in batches, adds of
// hashes, removes where the kind has them, merges with a copy of itself), `filter`
// serializes to bytes that load, under `options`, into an equal filter, and its counts
// are at most kMaxFileCount; a RedisBloom kind's DUMP payload loads too. An add or merge
// that fails explains itself. Counts at their limit (seeds resealed at 2^63 - 1) are the
// case this guards: an add past them made files that no loader took.
// Serializes `filter` and loads the bytes under `options`: an equal filter, whose counts
// are at most kMaxFileCount; a RedisBloom kind's DUMP payload loads too.
template <typename Filter>
void CheckLoadsAgain(const Filter& filter, const bloomkit::LoadOptions& options) {
  if (filter.count() > bloomkit::kMaxFileCount) __builtin_trap();
  if constexpr (requires { filter.num_deletes(); }) {
    if (filter.num_deletes() > bloomkit::kMaxFileCount) __builtin_trap();
  }
  const std::vector<std::byte> bytes = filter.Serialize();
  if (bytes.empty()) return;  // no memory for the copy
  auto again = Filter::Deserialize(bytes, options);
  if (!again.ok() || !(again.value() == filter)) __builtin_trap();
  if constexpr (std::is_same_v<Filter, bloomkit::RedisBloomScalableFilter>) {
    auto dumped = bloomkit::DecodeRedisBloomDump(bloomkit::EncodeRedisBloomDump(filter), options);
    if (!dumped.ok() || !(dumped.value() == filter)) __builtin_trap();
  } else if constexpr (std::is_same_v<Filter, bloomkit::RedisCuckooFilter>) {
    auto dumped = bloomkit::DecodeRedisCuckooDump(bloomkit::EncodeRedisCuckooDump(filter), options);
    if (!dumped.ok() || !(dumped.value() == filter)) __builtin_trap();
  }
}

// What a filter can reach, its loaders accept: after a new key and a few operations
// chosen by `seed` (adds one by one and in batches, adds of hashes, removes where the
// kind has them), then again after a merge with a copy of itself (where the kind
// merges) and one more add, `filter` saves what loads (CheckLoadsAgain). An add or merge
// that fails explains itself. Counts at their limit (seeds resealed at 2^63 - 1) are the
// case this guards: an add past them made files that no loader took.
template <typename Filter>
void CheckReachableStatesLoad(Filter filter, std::uint64_t seed, const bloomkit::LoadOptions& options) {
  auto explained = [](const bloomkit::Status& st) {
    if (!st.ok() && st.error().message().empty()) __builtin_trap();
  };
  explained(filter.Add("reach:new"));
  std::vector<std::string> keys = {"reach:new"};
  for (int step = 0; step < 4; ++step) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::uint64_t r = seed >> 33;
    keys.push_back("reach:" + std::to_string(r % 64));
    switch (r % 4) {
      case 0: explained(filter.Add(keys.back())); break;
      case 1: {
        const std::vector<std::string_view> batch = {keys.back(), "reach:a", "reach:b"};
        explained(filter.AddBatch(batch));
        break;
      }
      case 2: explained(filter.AddHash(r)); break;
      default:
        if constexpr (bloomkit::Removable<Filter>) {
          (void)filter.Remove(keys[static_cast<std::size_t>(r) % keys.size()]);
        } else {
          explained(filter.Add(keys.back()));
        }
        break;
    }
  }
  CheckLoadsAgain(filter, options);
  if constexpr (requires(Filter & f, const Filter& other) { f.Merge(other); }) {
    const Filter copy = filter;
    explained(filter.Merge(copy));
    explained(filter.Add("reach:after merge"));
    CheckLoadsAgain(filter, options);
  }
}

}  // namespace bloomkit_fuzz
