// SPDX-License-Identifier: Apache-2.0
// RedisBloom's encodings of its filters, as pure byte functions (no Redis header here):
//
//  1. RDB values of the module types `MBbloom--` (RedisBloomScalableFilter) and
//     `MBbloomCF` (RedisCuckooFilter), every encoding version RedisBloom 2.x reads,
//     expressed over RdbReader/RdbWriter: the RDB module primitives (unsigned, signed,
//     float, double, string buffer). The Redis module implements them over RedisModuleIO
//     (RedisModule_LoadUnsigned & co.); the tests and the CLI implement them over the
//     bytes of a DUMP payload (DumpPayloadReader/Writer, rdb_payload.h).
//  2. DUMP payloads (what DUMP returns and RESTORE takes) of such keys.
//  3. SCANDUMP chunks: a header chunk at iterator 1, then the filters' raw bytes, and the
//     LOADCHUNK-style assembly of a filter from them.
//
// How the Redis module uses this:
//   rdb_load(io, encver):  ModuleIoReader r(io);  // implements RdbReader
//                          auto f = bloomkit::LoadRedisBloomRdb(r, encver);
//                          if (!f.ok()) { log f.error().message(); return NULL; }
//   rdb_save(io, value):   ModuleIoWriter w(io);  bloomkit::SaveRedisBloomRdb(w, *filter);
//   type registration:     RedisModule_CreateDataType(ctx, kRedisBloomTypeName,
//                                                      kRedisBloomEncodingVersion, ...)
//   BF.SCANDUMP k i:       i == 0 ? {1, EncodeRedisBloomHeaderChunk(f)}
//                                 : NextRedisBloomChunk(f, i)   -> {next iterator, bytes}
//   BF.LOADCHUNK k 1 hdr:  auto f = RedisBloomFromHeaderChunk(hdr);  (key must not exist)
//   BF.LOADCHUNK k i data: LoadRedisBloomChunk(f, i, data)
//   and the same with RedisCuckoo* for CF.*. Every function checks sizes against
//   LoadOptions::max_memory_bytes before allocating and returns an Error for values
//   RedisBloom would refuse or (in places) abort on; none throws for bad input.
//
// Byte layouts are in docs/FORMAT.md ("RedisBloom encodings").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/options.h"
#include "bloomkit/rdb_payload.h"
#include "bloomkit/redisbloom.h"
#include "bloomkit/result.h"

namespace bloomkit {

// Module type names and the encoding versions RedisBloom 2.8 registers and writes.
inline constexpr std::string_view kRedisBloomTypeName = "MBbloom--";
inline constexpr std::string_view kRedisCuckooTypeName = "MBbloomCF";
inline constexpr int kRedisBloomEncodingVersion = 4;   // reads 0..4
inline constexpr int kRedisCuckooEncodingVersion = 4;  // reads 0..4 (0..3: one layout)

// RDB values. `encoding_version` is the one Redis hands rdb_load (the low 10 bits of the
// module type id); versions above the ones named above are refused.
Result<RedisBloomScalableFilter> LoadRedisBloomRdb(RdbReader& in, int encoding_version,
                                                   const LoadOptions& options = {});
void SaveRedisBloomRdb(RdbWriter& out, const RedisBloomScalableFilter& filter);
Result<RedisCuckooFilter> LoadRedisCuckooRdb(RdbReader& in, int encoding_version, const LoadOptions& options = {});
void SaveRedisCuckooRdb(RdbWriter& out, const RedisCuckooFilter& filter);

// Whole DUMP payloads of one key.
std::vector<std::byte> EncodeRedisBloomDump(const RedisBloomScalableFilter& filter,
                                            std::uint16_t rdb_version = kDefaultDumpRdbVersion);
std::vector<std::byte> EncodeRedisCuckooDump(const RedisCuckooFilter& filter,
                                             std::uint16_t rdb_version = kDefaultDumpRdbVersion);
Result<RedisBloomScalableFilter> DecodeRedisBloomDump(std::span<const std::byte> payload,
                                                      const LoadOptions& options = {});
Result<RedisCuckooFilter> DecodeRedisCuckooDump(std::span<const std::byte> payload, const LoadOptions& options = {});
// Which of the two types a DUMP payload holds: kRedisBloomScalable or kRedisBloomCuckoo.
Result<FilterKind> RedisBloomDumpKind(std::span<const std::byte> payload);

// SCANDUMP chunks. RedisBloom's iterator: 0 asks for the header chunk (answered with
// iterator 1); then iterator i asks for the bytes after the first i - 1 bytes of the
// concatenated arrays and is answered with i + the chunk's length; iterator 0 ends.
inline constexpr std::size_t kRedisBloomMaxChunkBytes = std::size_t{16} << 20;

struct RedisBloomChunk {
  std::int64_t next_iterator = 0;  // 0: no more chunks
  std::span<const std::byte> bytes;
};

// Bloom: header chunk = 20-byte chain header + 53 bytes per link; then each link's bit
// array in pieces of at most kRedisBloomMaxChunkBytes.
std::vector<std::byte> EncodeRedisBloomHeaderChunk(const RedisBloomScalableFilter& filter);
RedisBloomChunk NextRedisBloomChunk(const RedisBloomScalableFilter& filter, std::int64_t iterator,
                                    std::size_t max_chunk_bytes = kRedisBloomMaxChunkBytes) noexcept;
Result<RedisBloomScalableFilter> RedisBloomFromHeaderChunk(std::span<const std::byte> chunk,
                                                           const LoadOptions& options = {});
// `iterator` is the one SCANDUMP returned with `bytes` (their end position + 1).
Status LoadRedisBloomChunk(RedisBloomScalableFilter& filter, std::int64_t iterator, std::span<const std::byte> bytes);

// Cuckoo: header chunk = 38 bytes; then each sub-filter's slots, whole when they fit in
// kRedisBloomMaxChunkBytes. An empty filter (no items) has no chunks at all: SCANDUMP
// answers iterator 0 (RedisCuckooHasChunks false).
[[nodiscard]] inline bool RedisCuckooHasChunks(const RedisCuckooFilter& filter) noexcept {
  return filter.count() != 0;
}
std::vector<std::byte> EncodeRedisCuckooHeaderChunk(const RedisCuckooFilter& filter);
RedisBloomChunk NextRedisCuckooChunk(const RedisCuckooFilter& filter, std::int64_t iterator,
                                     std::size_t max_chunk_bytes = kRedisBloomMaxChunkBytes) noexcept;
Result<RedisCuckooFilter> RedisCuckooFromHeaderChunk(std::span<const std::byte> chunk, const LoadOptions& options = {});
Status LoadRedisCuckooChunk(RedisCuckooFilter& filter, std::int64_t iterator, std::span<const std::byte> bytes);

// Every SCANDUMP step of a filter in order, header first, as (iterator, bytes) pairs:
// what `*.LOADCHUNK key iterator bytes` takes. Empty for an empty cuckoo filter.
struct RedisBloomOwnedChunk {
  std::int64_t iterator = 0;
  std::vector<std::byte> bytes;
};
std::vector<RedisBloomOwnedChunk> RedisBloomScanDump(const RedisBloomScalableFilter& filter);
std::vector<RedisBloomOwnedChunk> RedisCuckooScanDump(const RedisCuckooFilter& filter);

}  // namespace bloomkit
