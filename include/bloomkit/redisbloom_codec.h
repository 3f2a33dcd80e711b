// SPDX-License-Identifier: Apache-2.0
// RedisBloom's encodings of its filters, as pure byte functions (no Redis header here):
//
//  1. RDB values of the module types `MBbloom--` (RedisBloomScalableFilter) and
//     `MBbloomCF` (RedisCuckooFilter), every encoding version RedisBloom 2.x reads,
//     expressed over RdbReader/RdbWriter: the RDB module primitives (unsigned, signed,
//     float, double, string buffer). The Redis module implements them over RedisModuleIO
//     (RedisModule_LoadUnsigned & co.); the tests and the CLI implement them over the
//     bytes of a DUMP payload (DumpPayloadReader/Writer below).
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
#include "bloomkit/redisbloom.h"
#include "bloomkit/result.h"

namespace bloomkit {

// Module type names and the encoding versions RedisBloom 2.8 registers and writes.
inline constexpr std::string_view kRedisBloomTypeName = "MBbloom--";
inline constexpr std::string_view kRedisCuckooTypeName = "MBbloomCF";
inline constexpr int kRedisBloomEncodingVersion = 4;   // reads 0..4
inline constexpr int kRedisCuckooEncodingVersion = 4;  // reads 0..4 (0..3: one layout)

// The RDB primitives a module type's value is made of, read in order. An
// implementation over RedisModuleIO returns an error once RedisModule_IsIOError says so.
class RdbReader {
 public:
  RdbReader() = default;
  virtual ~RdbReader() = default;

 protected:
  RdbReader(const RdbReader&) = default;
  RdbReader& operator=(const RdbReader&) = default;
  RdbReader(RdbReader&&) = default;
  RdbReader& operator=(RdbReader&&) = default;

 public:
  virtual Result<std::uint64_t> LoadUnsigned() = 0;
  virtual Result<std::int64_t> LoadSigned() = 0;
  virtual Result<double> LoadDouble() = 0;
  virtual Result<float> LoadFloat() = 0;
  // The next string; the view stays valid until the next call on this reader.
  virtual Result<std::span<const std::byte>> LoadStringBuffer() = 0;
};

class RdbWriter {
 public:
  RdbWriter() = default;
  virtual ~RdbWriter() = default;

 protected:
  RdbWriter(const RdbWriter&) = default;
  RdbWriter& operator=(const RdbWriter&) = default;
  RdbWriter(RdbWriter&&) = default;
  RdbWriter& operator=(RdbWriter&&) = default;

 public:
  virtual void SaveUnsigned(std::uint64_t value) = 0;
  virtual void SaveSigned(std::int64_t value) = 0;
  virtual void SaveDouble(double value) = 0;
  virtual void SaveFloat(float value) = 0;
  virtual void SaveStringBuffer(std::span<const std::byte> bytes) = 0;
};

// RDB values. `encoding_version` is the one Redis hands rdb_load (the low 10 bits of the
// module type id); versions above the ones named above are refused.
Result<RedisBloomScalableFilter> LoadRedisBloomRdb(RdbReader& in, int encoding_version,
                                                   const LoadOptions& options = {});
void SaveRedisBloomRdb(RdbWriter& out, const RedisBloomScalableFilter& filter);
Result<RedisCuckooFilter> LoadRedisCuckooRdb(RdbReader& in, int encoding_version, const LoadOptions& options = {});
void SaveRedisCuckooRdb(RdbWriter& out, const RedisCuckooFilter& filter);

// Redis' 64-bit module type id: nine 6-bit characters of the name, then 10 bits of
// encoding version. ModuleTypeId("MBbloom--", 4) = 0x3016e5a289bef804.
std::uint64_t ModuleTypeId(std::string_view name, int encoding_version) noexcept;

// CRC-64 of Redis (Jones polynomial 0xad93d23594c935a9, reflected, initial value 0):
// the checksum of DUMP payloads and RDB files. CRC-64("123456789") = 0xe9c6d914c4b8d9ca.
std::uint64_t RedisCrc64(std::uint64_t crc, std::span<const std::byte> bytes) noexcept;

// The RDB version written into DUMP payloads by default: Redis 7.0's (RESTORE accepts a
// payload whose version is at most the server's own).
inline constexpr std::uint16_t kDefaultDumpRdbVersion = 10;

// DumpPayloadReader: an RdbReader over the module value inside a DUMP payload. Checks
// the trailer (RDB version <= 12, CRC-64), the RDB type (7, module with opcodes) and
// the module id; strings may be raw, integer-encoded or LZF-compressed, and every
// claimed length is checked against the payload and `max_string_bytes` first.
class DumpPayloadReader final : public RdbReader {
 public:
  static Result<DumpPayloadReader> Open(std::span<const std::byte> payload,
                                        std::uint64_t max_string_bytes = kDefaultMaxMemoryBytes);
  DumpPayloadReader(DumpPayloadReader&& other) noexcept;
  DumpPayloadReader& operator=(DumpPayloadReader&& other) noexcept;
  DumpPayloadReader(const DumpPayloadReader&) = delete;
  DumpPayloadReader& operator=(const DumpPayloadReader&) = delete;
  ~DumpPayloadReader() override = default;

  [[nodiscard]] std::uint64_t module_type_id() const noexcept { return type_id_; }
  [[nodiscard]] int encoding_version() const noexcept { return static_cast<int>(type_id_ & 1023U); }
  // "MBbloom--", "MBbloomCF" or whatever other nine characters the id names.
  [[nodiscard]] std::string type_name() const;
  [[nodiscard]] std::uint16_t rdb_version() const noexcept { return rdb_version_; }
  // After the value was read: the EOF opcode follows and nothing else.
  [[nodiscard]] Status Finish();

  Result<std::uint64_t> LoadUnsigned() override;
  Result<std::int64_t> LoadSigned() override;
  Result<double> LoadDouble() override;
  Result<float> LoadFloat() override;
  Result<std::span<const std::byte>> LoadStringBuffer() override;

 private:
  DumpPayloadReader() = default;
  Result<std::uint64_t> ReadLength(bool* encoded);
  Status ReadOpcode(std::uint64_t expected);

  std::span<const std::byte> body_;  // from the first opcode to the trailer
  std::size_t pos_ = 0;
  std::uint64_t type_id_ = 0;
  std::uint16_t rdb_version_ = 0;
  std::uint64_t max_string_bytes_ = 0;
  std::vector<std::byte> scratch_;  // the last decoded integer or LZF string
};

// DumpPayloadWriter: writes the primitives as Redis' DUMP does: strings of up to 11
// bytes that spell a 32-bit integer as integers, strings over 20 bytes LZF-compressed
// when that saves at least 4 bytes (as Redis with rdbcompression yes), others raw.
class DumpPayloadWriter final : public RdbWriter {
 public:
  DumpPayloadWriter(std::string_view type_name, int encoding_version, bool compress = true);
  void SaveUnsigned(std::uint64_t value) override;
  void SaveSigned(std::int64_t value) override;
  void SaveDouble(double value) override;
  void SaveFloat(float value) override;
  void SaveStringBuffer(std::span<const std::byte> bytes) override;
  // EOF opcode, RDB version, CRC-64: the finished payload.
  [[nodiscard]] std::vector<std::byte> Finish(std::uint16_t rdb_version = kDefaultDumpRdbVersion) &&;

 private:
  void WriteLength(std::uint64_t value);
  std::vector<std::byte> out_;
  bool compress_ = true;
};

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
