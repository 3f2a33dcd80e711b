// SPDX-License-Identifier: Apache-2.0
// Small shared pieces: error and kind names, the public hash entry point.
#include <array>
#include <string>

#include "bloomkit/hash.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"
#include "internal/hash_inline.h"
#include "internal/message.h"

namespace bloomkit {

std::string_view ErrorCodeName(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kTooLarge: return "too_large";
    case ErrorCode::kIncompatible: return "incompatible";
    case ErrorCode::kBadMagic: return "bad_magic";
    case ErrorCode::kUnsupportedVersion: return "unsupported_version";
    case ErrorCode::kUnknownKind: return "unknown_kind";
    case ErrorCode::kUnknownHash: return "unknown_hash";
    case ErrorCode::kTruncated: return "truncated";
    case ErrorCode::kChecksumMismatch: return "checksum_mismatch";
    case ErrorCode::kParameterMismatch: return "parameter_mismatch";
    case ErrorCode::kReservedNonZero: return "reserved_nonzero";
    case ErrorCode::kWrongKind: return "wrong_kind";
    case ErrorCode::kDecompressFailed: return "decompress_failed";
    case ErrorCode::kIoError: return "io_error";
    case ErrorCode::kFull: return "full";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kLocked: return "locked";
  }
  return "unknown";
}

namespace {
constexpr std::array<std::pair<FilterKind, std::string_view>, 11> kKindNames = {{
    {FilterKind::kClassic, "classic"},
    {FilterKind::kBlocked, "blocked"},
    {FilterKind::kCounting, "counting"},
    {FilterKind::kScalable, "scalable"},
    {FilterKind::kCuckoo, "cuckoo"},
    {FilterKind::kRedisBloomScalable, "redisbloom-bf"},
    {FilterKind::kRedisBloomCuckoo, "redisbloom-cf"},
    {FilterKind::kWindowed, "windowed"},
    {FilterKind::kBitsAndBlooms, "bits-and-blooms"},
    {FilterKind::kGuava, "guava"},
    {FilterKind::kParquet, "parquet"},
}};
}  // namespace

std::string_view FilterKindName(FilterKind kind) noexcept {
  for (const auto& [k, name] : kKindNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

Result<FilterKind> ParseFilterKind(std::string_view name) {
  for (const auto& [k, n] : kKindNames) {
    if (n == name) return k;
  }
  return internal::MakeError(ErrorCode::kInvalidArgument, "unknown filter kind '", name,
                             "' (valid: classic, blocked, counting, scalable, cuckoo, redisbloom-bf, redisbloom-cf, "
                             "windowed, bits-and-blooms, guava, parquet)");
}

HashPair HashKey(std::string_view key) noexcept {
  return internal::HashKeyInline(key);
}
std::uint64_t HashKey64(std::string_view key) noexcept {
  return internal::HashKey64Inline(key);
}
std::uint64_t HashKeyShort64(std::string_view key) noexcept {
  return internal::HashKeyShort64Inline(key);
}

HashPair HashKeyShortPair(std::string_view key) noexcept {
  return internal::HashKeyShortPairInline(key);
}

}  // namespace bloomkit
