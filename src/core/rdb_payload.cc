// SPDX-License-Identifier: Apache-2.0
// The RDB primitives of a module value inside a DUMP payload (rdb_payload.h): Redis'
// CRC-64, module type ids, and DumpPayloadReader/Writer with Redis' string encodings
// (integers, LZF).
#include "bloomkit/rdb_payload.h"

#include <lzf.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <string>

#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/message.h"

namespace bloomkit {
namespace {

using internal::LoadLE;
using internal::MakeError;
using internal::StoreLE;

// RDB (Redis rdb.h): value type 7 is a module value whose primitives carry opcodes.
constexpr std::uint8_t kRdbTypeModule2 = 7;
constexpr std::uint64_t kOpEof = 0;
constexpr std::uint64_t kOpSint = 1;
constexpr std::uint64_t kOpUint = 2;
constexpr std::uint64_t kOpFloat = 3;
constexpr std::uint64_t kOpDouble = 4;
constexpr std::uint64_t kOpString = 5;
// Length encodings: 00xxxxxx, 01xxxxxx xxxxxxxx, 0x80 + 4 bytes BE, 0x81 + 8 bytes BE,
// 11xxxxxx = a special string encoding: 0 int8, 1 int16, 2 int32, 3 LZF.
constexpr std::uint8_t kEncInt8 = 0;
constexpr std::uint8_t kEncInt16 = 1;
constexpr std::uint8_t kEncInt32 = 2;
constexpr std::uint8_t kEncLzf = 3;
constexpr std::uint16_t kMaxRdbVersion = 12;  // Redis 7.4
constexpr std::size_t kTrailerBytes = 10;     // RDB version (2) + CRC-64 (8)
constexpr std::string_view kModuleIdChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::uint64_t F64Bits(double d) noexcept {
  return std::bit_cast<std::uint64_t>(d);
}
double BitsF64(std::uint64_t u) noexcept {
  return std::bit_cast<double>(u);
}

Error Truncated(std::string_view what) {
  return MakeError(ErrorCode::kTruncated, "the payload ends inside ", what);
}

// ---------------------------------------------------------------------------------------
// CRC-64 (Jones), reflected, table-driven.

constexpr std::array<std::uint64_t, 256> MakeCrcTable() {
  std::array<std::uint64_t, 256> t{};
  constexpr std::uint64_t kPolyReflected = 0x95ac9329ac4bc9b5ULL;  // 0xad93d23594c935a9 bit-reversed
  for (std::uint64_t i = 0; i < 256; ++i) {
    std::uint64_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? (c >> 1) ^ kPolyReflected : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<std::uint64_t, 256> kCrcTable = MakeCrcTable();

// Redis' rdbTryIntegerEncoding: a string of at most 11 bytes that is the canonical
// decimal form of a number in int32 range is stored as that integer.
bool CanonicalInt32(std::span<const std::byte> s, std::int32_t* out) {
  if (s.empty() || s.size() > 11) return false;
  std::string text(reinterpret_cast<const char*>(s.data()), s.size());
  std::size_t i = 0;
  bool negative = false;
  if (text[0] == '-') {
    negative = true;
    i = 1;
  }
  if (i == text.size()) return false;
  if (text[i] == '0' && text.size() != i + 1) return false;
  if (negative && text == "-0") return false;
  std::int64_t v = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    v = v * 10 + (text[i] - '0');
    if (v > (std::int64_t{1} << 32)) return false;
  }
  if (negative) v = -v;
  if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()) return false;
  *out = static_cast<std::int32_t>(v);
  return true;
}

}  // namespace

std::uint64_t RedisCrc64(std::uint64_t crc, std::span<const std::byte> bytes) noexcept {
  for (const std::byte b : bytes) crc = kCrcTable[(crc ^ std::to_integer<std::uint64_t>(b)) & 0xff] ^ (crc >> 8);
  return crc;
}

std::uint64_t ModuleTypeId(std::string_view name, int encoding_version) noexcept {
  std::uint64_t id = 0;
  for (std::size_t i = 0; i < 9; ++i) {
    const std::size_t pos = i < name.size() ? kModuleIdChars.find(name[i]) : std::string_view::npos;
    id = (id << 6) | (pos == std::string_view::npos ? 0 : pos);
  }
  return (id << 10) | (static_cast<std::uint64_t>(encoding_version) & 1023U);
}

// ---------------------------------------------------------------------------------------
// DumpPayloadReader.

DumpPayloadReader::DumpPayloadReader(DumpPayloadReader&& other) noexcept = default;
DumpPayloadReader& DumpPayloadReader::operator=(DumpPayloadReader&& other) noexcept = default;

Result<DumpPayloadReader> DumpPayloadReader::Open(std::span<const std::byte> payload, std::uint64_t max_string_bytes) {
  if (payload.size() < 1 + kTrailerBytes) {
    return MakeError(ErrorCode::kTruncated, "a DUMP payload has at least 11 bytes, got ", payload.size());
  }
  const std::size_t body_end = payload.size() - kTrailerBytes;
  const auto version = LoadLE<std::uint16_t>(payload.data() + body_end);
  const auto crc = LoadLE<std::uint64_t>(payload.data() + body_end + 2);
  const std::uint64_t want = RedisCrc64(0, payload.first(body_end + 2));
  if (crc != want) {
    return MakeError(ErrorCode::kChecksumMismatch, "DUMP payload CRC-64 is 0x", std::hex, crc, ", computed 0x", want);
  }
  if (version > kMaxRdbVersion) {
    return MakeError(ErrorCode::kUnsupportedVersion, "DUMP payload of RDB version ", version, " (at most ",
                     kMaxRdbVersion, ")");
  }
  if (std::to_integer<std::uint8_t>(payload[0]) != kRdbTypeModule2) {
    return MakeError(ErrorCode::kWrongKind, "RDB value type ", std::to_integer<int>(payload[0]),
                     " is not a module value (7)");
  }
  DumpPayloadReader r;
  r.body_ = payload.first(body_end);
  r.pos_ = 1;
  r.rdb_version_ = version;
  r.max_string_bytes_ = max_string_bytes;
  bool encoded = false;
  auto id = r.ReadLength(&encoded);
  if (!id.ok()) return std::move(id).error();
  if (encoded) return MakeError(ErrorCode::kParameterMismatch, "the module type id is not a length");
  r.type_id_ = id.value();
  return r;
}

std::string DumpPayloadReader::type_name() const {
  std::string name(9, '?');
  std::uint64_t id = type_id_ >> 10;
  for (std::size_t i = 9; i-- > 0;) {
    name[i] = kModuleIdChars[id & 63];
    id >>= 6;
  }
  return name;
}

Result<std::uint64_t> DumpPayloadReader::ReadLength(bool* encoded) {
  *encoded = false;
  if (pos_ >= body_.size()) return Truncated("a length");
  const auto first = std::to_integer<std::uint8_t>(body_[pos_++]);
  switch (first >> 6) {
    case 0: return std::uint64_t{first & 63U};
    case 1:
      if (pos_ >= body_.size()) return Truncated("a length");
      return std::uint64_t{(first & 63U) << 8 | std::to_integer<std::uint8_t>(body_[pos_++])};
    case 3: *encoded = true; return std::uint64_t{first & 63U};
    default: break;
  }
  const std::size_t n = first == 0x80 ? 4 : first == 0x81 ? 8 : 0;
  if (n == 0) return MakeError(ErrorCode::kParameterMismatch, "unknown length prefix 0x", std::hex, int{first});
  if (body_.size() - pos_ < n) return Truncated("a length");
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v << 8 | std::to_integer<std::uint8_t>(body_[pos_++]);
  return v;
}

Status DumpPayloadReader::ReadOpcode(std::uint64_t expected) {
  bool encoded = false;
  auto op = ReadLength(&encoded);
  if (!op.ok()) return op.error();
  if (encoded || op.value() != expected) {
    return MakeError(ErrorCode::kParameterMismatch, "module value opcode ", op.value(), " where ", expected,
                     " was expected");
  }
  return {};
}

Result<std::uint64_t> DumpPayloadReader::LoadUnsigned() {
  Status op = ReadOpcode(kOpUint);
  if (!op.ok()) return op.error();
  bool encoded = false;
  auto v = ReadLength(&encoded);
  if (v.ok() && encoded) return MakeError(ErrorCode::kParameterMismatch, "an unsigned value is a string encoding");
  return v;
}

Result<std::int64_t> DumpPayloadReader::LoadSigned() {
  Status op = ReadOpcode(kOpSint);
  if (!op.ok()) return op.error();
  bool encoded = false;
  auto v = ReadLength(&encoded);
  if (!v.ok()) return std::move(v).error();
  if (encoded) return MakeError(ErrorCode::kParameterMismatch, "a signed value is a string encoding");
  return static_cast<std::int64_t>(v.value());
}

Result<double> DumpPayloadReader::LoadDouble() {
  Status op = ReadOpcode(kOpDouble);
  if (!op.ok()) return op.error();
  if (body_.size() - pos_ < 8) return Truncated("a double");
  const double d = BitsF64(LoadLE<std::uint64_t>(body_.data() + pos_));
  pos_ += 8;
  return d;
}

Result<float> DumpPayloadReader::LoadFloat() {
  Status op = ReadOpcode(kOpFloat);
  if (!op.ok()) return op.error();
  if (body_.size() - pos_ < 4) return Truncated("a float");
  const float f = std::bit_cast<float>(LoadLE<std::uint32_t>(body_.data() + pos_));
  pos_ += 4;
  return f;
}

Result<std::span<const std::byte>> DumpPayloadReader::LoadStringBuffer() {
  Status op = ReadOpcode(kOpString);
  if (!op.ok()) return op.error();
  bool encoded = false;
  auto len = ReadLength(&encoded);
  if (!len.ok()) return std::move(len).error();
  if (!encoded) {
    if (len.value() > body_.size() - pos_) {
      return MakeError(ErrorCode::kTruncated, "a string of ", len.value(), " bytes with ", body_.size() - pos_,
                       " bytes left");
    }
    const auto s = body_.subspan(pos_, static_cast<std::size_t>(len.value()));
    pos_ += s.size();
    return s;
  }
  const std::uint64_t enc = len.value();
  if (enc == kEncInt8 || enc == kEncInt16 || enc == kEncInt32) {
    const std::size_t n = enc == kEncInt8 ? 1 : enc == kEncInt16 ? 2 : 4;
    if (body_.size() - pos_ < n) return Truncated("an integer string");
    std::int64_t v = 0;
    if (n == 1) {
      const auto byte = std::to_integer<std::int64_t>(body_[pos_]);
      v = byte < 128 ? byte : byte - 256;
    }
    if (n == 2) v = static_cast<std::int16_t>(LoadLE<std::uint16_t>(body_.data() + pos_));
    if (n == 4) v = static_cast<std::int32_t>(LoadLE<std::uint32_t>(body_.data() + pos_));
    pos_ += n;
    const std::string text = std::to_string(v);
    scratch_.assign(reinterpret_cast<const std::byte*>(text.data()),
                    reinterpret_cast<const std::byte*>(text.data()) + text.size());
    return std::span<const std::byte>(scratch_);
  }
  if (enc != kEncLzf) return MakeError(ErrorCode::kParameterMismatch, "unknown string encoding ", enc);
  auto clen = ReadLength(&encoded);
  if (!clen.ok()) return std::move(clen).error();
  auto ulen = ReadLength(&encoded);
  if (!ulen.ok()) return std::move(ulen).error();
  if (clen.value() > body_.size() - pos_) {
    return MakeError(ErrorCode::kTruncated, "an LZF string of ", clen.value(), " bytes with ", body_.size() - pos_,
                     " bytes left");
  }
  if (ulen.value() > max_string_bytes_ || ulen.value() > std::numeric_limits<unsigned int>::max() ||
      clen.value() > std::numeric_limits<unsigned int>::max() || ulen.value() == 0) {
    return MakeError(ErrorCode::kTooLarge, "an LZF string claims ", ulen.value(), " bytes (1 to ",
                     std::min<std::uint64_t>(max_string_bytes_, std::numeric_limits<unsigned int>::max()), ")");
  }
  // LZF expands at most about 100-fold: a claim beyond that is refused before allocating.
  if (ulen.value() / 128 > clen.value()) {
    return MakeError(ErrorCode::kDecompressFailed, "an LZF string of ", clen.value(), " bytes cannot expand to ",
                     ulen.value());
  }
  scratch_.assign(static_cast<std::size_t>(ulen.value()), std::byte{0});
  const unsigned int got = lzf_decompress(body_.data() + pos_, static_cast<unsigned int>(clen.value()), scratch_.data(),
                                          static_cast<unsigned int>(ulen.value()));
  if (got != ulen.value()) {
    return MakeError(ErrorCode::kDecompressFailed, "an LZF string does not decompress to its ", ulen.value(), " bytes");
  }
  pos_ += static_cast<std::size_t>(clen.value());
  return std::span<const std::byte>(scratch_);
}

Status DumpPayloadReader::Finish() {
  Status op = ReadOpcode(kOpEof);
  if (!op.ok()) return op;
  if (pos_ != body_.size()) {
    return MakeError(ErrorCode::kParameterMismatch, body_.size() - pos_, " bytes follow the module value");
  }
  return {};
}

// ---------------------------------------------------------------------------------------
// DumpPayloadWriter.

DumpPayloadWriter::DumpPayloadWriter(std::string_view type_name, int encoding_version, bool compress)
    : compress_(compress) {
  out_.push_back(std::byte{kRdbTypeModule2});
  // The id always takes the 9-byte form: it uses all 64 bits.
  const std::uint64_t id = ModuleTypeId(type_name, encoding_version);
  out_.push_back(std::byte{0x81});
  for (int i = 7; i >= 0; --i) out_.push_back(static_cast<std::byte>((id >> (8 * i)) & 0xff));
}

void DumpPayloadWriter::WriteLength(std::uint64_t value) {
  if (value < (1U << 6)) {
    out_.push_back(static_cast<std::byte>(value));
  } else if (value < (1U << 14)) {
    out_.push_back(static_cast<std::byte>(0x40 | (value >> 8)));
    out_.push_back(static_cast<std::byte>(value & 0xff));
  } else if (value <= 0xffffffffULL) {
    out_.push_back(std::byte{0x80});
    for (int i = 3; i >= 0; --i) out_.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xff));
  } else {
    out_.push_back(std::byte{0x81});
    for (int i = 7; i >= 0; --i) out_.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xff));
  }
}

void DumpPayloadWriter::SaveUnsigned(std::uint64_t value) {
  WriteLength(kOpUint);
  WriteLength(value);
}

void DumpPayloadWriter::SaveSigned(std::int64_t value) {
  WriteLength(kOpSint);
  WriteLength(static_cast<std::uint64_t>(value));
}

void DumpPayloadWriter::SaveDouble(double value) {
  WriteLength(kOpDouble);
  const std::size_t at = out_.size();
  out_.resize(at + 8);
  StoreLE<std::uint64_t>(out_.data() + at, F64Bits(value));
}

void DumpPayloadWriter::SaveFloat(float value) {
  WriteLength(kOpFloat);
  const std::size_t at = out_.size();
  out_.resize(at + 4);
  StoreLE<std::uint32_t>(out_.data() + at, std::bit_cast<std::uint32_t>(value));
}

void DumpPayloadWriter::SaveStringBuffer(std::span<const std::byte> bytes) {
  WriteLength(kOpString);
  std::int32_t v = 0;
  if (CanonicalInt32(bytes, &v)) {
    if (v >= -(1 << 7) && v < (1 << 7)) {
      out_.push_back(std::byte{0xc0 | kEncInt8});
      out_.push_back(static_cast<std::byte>(static_cast<std::uint8_t>(v)));
    } else if (v >= -(1 << 15) && v < (1 << 15)) {
      out_.push_back(std::byte{0xc0 | kEncInt16});
      const std::size_t at = out_.size();
      out_.resize(at + 2);
      StoreLE<std::uint16_t>(out_.data() + at, static_cast<std::uint16_t>(v));
    } else {
      out_.push_back(std::byte{0xc0 | kEncInt32});
      const std::size_t at = out_.size();
      out_.resize(at + 4);
      StoreLE<std::uint32_t>(out_.data() + at, static_cast<std::uint32_t>(v));
    }
    return;
  }
  // Redis compresses strings over 20 bytes into at most len - 4 bytes, or not at all.
  if (compress_ && bytes.size() > 20 && bytes.size() <= std::numeric_limits<unsigned int>::max()) {
    std::vector<std::byte> packed(bytes.size() - 4 + 1);
    const unsigned int n = lzf_compress(bytes.data(), static_cast<unsigned int>(bytes.size()), packed.data(),
                                        static_cast<unsigned int>(bytes.size() - 4));
    if (n != 0) {
      out_.push_back(std::byte{0xc0 | kEncLzf});
      WriteLength(n);
      WriteLength(bytes.size());
      out_.insert(out_.end(), packed.begin(), packed.begin() + n);
      return;
    }
  }
  WriteLength(bytes.size());
  out_.insert(out_.end(), bytes.begin(), bytes.end());
}

std::vector<std::byte> DumpPayloadWriter::Finish(std::uint16_t rdb_version) && {
  WriteLength(kOpEof);
  const std::size_t at = out_.size();
  out_.resize(at + kTrailerBytes);
  StoreLE<std::uint16_t>(out_.data() + at, rdb_version);
  StoreLE<std::uint64_t>(out_.data() + at + 2, RedisCrc64(0, std::span<const std::byte>(out_).first(at + 2)));
  return std::move(out_);
}

}  // namespace bloomkit
