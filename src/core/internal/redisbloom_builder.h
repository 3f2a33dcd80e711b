// SPDX-License-Identifier: Apache-2.0
// Builds a RedisBloomScalableFilter one link at a time, each link's bits copied in as it
// is read: the RDB value interleaves link parameters and bit arrays, so the chain's
// totals are known only at the end, and holding every array twice would double the
// memory a load needs.
#pragma once

#include <cstdint>
#include <span>

#include "bloomkit/options.h"
#include "bloomkit/redisbloom.h"
#include "bloomkit/result.h"

namespace bloomkit::internal {

class RedisBloomBuilder {
 public:
  explicit RedisBloomBuilder(std::uint64_t max_memory_bytes) noexcept;
  // Checks the link as RedisBloom's loader does (and against the memory limit), then
  // copies `bits` (params.bytes bytes, or fewer: the rest stays zero).
  Status AppendLink(const RedisBloomLinkParams& params, std::span<const std::byte> bits);
  // The chain: its item count must be the sum of the links' and its options known.
  Result<RedisBloomScalableFilter> Finish(std::uint64_t size, std::uint32_t options, std::uint32_t growth) &&;

 private:
  RedisBloomScalableFilter filter_;
  std::uint64_t bytes_ = 0;
};

}  // namespace bloomkit::internal
