// SPDX-License-Identifier: Apache-2.0
// Builds a RedisBloomScalableFilter one link at a time, each link's bits copied in as it
// is read: the RDB value interleaves link parameters and bit arrays, so the chain's
// totals are known only at the end, and holding every array twice would double the
// memory a load needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "bloomkit/options.h"
#include "bloomkit/redisbloom.h"
#include "bloomkit/result.h"

namespace bloomkit::internal {

// SCANDUMP header chunks (RedisBloom's packed structs), which are also the head of the
// kinds' payload in bloomkit's file format.
inline constexpr std::size_t kRedisBloomChainHeaderBytes = 20;  // size u64, nfilters, options, growth u32
inline constexpr std::size_t kRedisBloomLinkHeaderBytes = 53;   // bytes, bits, size u64; error, bpe f64;
                                                                // hashes u32; entries u64; n2 u8
inline constexpr std::size_t kRedisCuckooHeaderBytes = 38;      // items, buckets, deletes, filters u64;
                                                                // bucket size, max iterations, expansion u16

// The payload of a filter in bloomkit's file format: the header chunk, the arrays, zero
// padding to whole 8-byte words. Decoders refuse a filter whose payload passes their
// memory limit, as the file loader does, so that whatever loads can be saved as a file
// and loaded again under the same limit. False if the sum overflows.
[[nodiscard]] bool RedisBloomFilePayloadBytes(std::uint64_t header_bytes, std::uint64_t array_bytes,
                                              std::uint64_t* out) noexcept;

class RedisBloomBuilder {
 public:
  explicit RedisBloomBuilder(std::uint64_t max_memory_bytes) noexcept;
  // Checks the link as RedisBloom's loader does (and against the memory limit), then
  // copies `bits` (params.bytes bytes, or fewer: the rest stays zero).
  Status AppendLink(const RedisBloomLinkParams& params, std::span<const std::byte> bits);
  // The chain: its item count must be the sum of the links' and its options known.
  Result<RedisBloomScalableFilter> Finish(std::uint64_t size, std::uint32_t options, std::uint32_t expansion) &&;

 private:
  RedisBloomScalableFilter filter_;
  std::uint64_t bytes_ = 0;
};

}  // namespace bloomkit::internal
