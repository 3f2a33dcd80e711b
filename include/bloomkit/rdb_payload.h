// SPDX-License-Identifier: Apache-2.0
// The RDB primitives a Redis module value is made of (unsigned, signed, float, double,
// string buffer), as pure byte functions: RdbReader/RdbWriter, which the Redis module
// implements over RedisModuleIO and DumpPayloadReader/Writer over the bytes of a DUMP
// payload (what DUMP returns and RESTORE takes), with Redis' CRC-64 and module type ids.
// RedisBloom's values are written in these primitives (redisbloom_codec.h).
//
//   DumpPayloadWriter w("MBbloom--", 4);  w.SaveUnsigned(7);  auto bytes = std::move(w).Finish();
//   auto r = DumpPayloadReader::Open(bytes);  auto seven = r->LoadUnsigned();
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit {

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

}  // namespace bloomkit
