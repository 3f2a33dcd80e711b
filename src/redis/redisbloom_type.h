// SPDX-License-Identifier: Apache-2.0
// RedisBloom's own data types in bloomkit.so: keys of type `MBbloom--` (a
// RedisBloomScalableFilter) and `MBbloomCF` (a RedisCuckooFilter), registered under
// RedisBloom's names and encoding versions so that an RDB or AOF written by RedisBloom
// 2.x loads here, and one written here loads in RedisBloom 2.8.
//
//   RDB value:  RedisBloom's encoding (redisbloom_codec.h), read and written through
//               RedisModule_Load*/Save* by ModuleIoReader / ModuleIoWriter below
//   AOF:        BF.LOADCHUNK / CF.LOADCHUNK of the header chunk and then every chunk,
//               as RedisBloom rewrites these keys
//   MEMORY USAGE: the bytes the filter holds (the core's memory_bytes())
//
// A value is the filter itself, in Redis' allocator. A forged or truncated value is
// refused with a logged reason (rdb_load returns NULL), never aborted on.
#pragma once

#include <cstddef>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "bloomkit/redisbloom.h"
#include "bloomkit/redisbloom_codec.h"
#include "command.h"
#include "stats.h"

namespace bloomkit::redis {

struct RbBloomType {
  using Filter = RedisBloomScalableFilter;
  static constexpr const char* kTypeName = "MBbloom--";
  static constexpr int kEncodingVersion = kRedisBloomEncodingVersion;
  static constexpr const char* kLoadChunk = "BF.LOADCHUNK";
  static inline RedisModuleType* type = nullptr;
};

struct RbCuckooType {
  using Filter = RedisCuckooFilter;
  static constexpr const char* kTypeName = "MBbloomCF";
  static constexpr int kEncodingVersion = kRedisCuckooEncodingVersion;
  static constexpr const char* kLoadChunk = "CF.LOADCHUNK";
  static inline RedisModuleType* type = nullptr;
};

// Registers both types; false (after a log line) if Redis refuses one.
bool CreateRedisBloomTypes(RedisModuleCtx* ctx);

// The limits every filter built from outside bytes is checked against.
LoadOptions RbLoadOptions() noexcept;

// A filter moved (or copied) into Redis' allocator; the key (or the caller) owns it.
template <typename F, typename Filter = std::remove_cvref_t<F>>
Filter* RbNew(F&& filter) {
  void* memory = rm.Alloc(sizeof(Filter));
  if (memory == nullptr) throw std::bad_alloc();
  Filter* value = nullptr;
  try {
    value = new (memory) Filter(std::forward<F>(filter));
  } catch (...) {
    rm.Free(memory);
    throw;
  }
  stats::ValueCreated(stats::KindOf(Filter::kKind));
  return value;
}

// BF.RESERVE / CF.RESERVE and the commands that create a key: makes the filter from
// `options` (running out of memory is an error, never an exception into Redis), answers
// a refusal with CreateError and stores the filter at the empty key.
template <typename Type, typename Options>
Result<typename Type::Filter*> RbCreateStored(const Command& cmd, const OpenKey& key, const Options& options,
                                              std::string_view cannot_create) {
  using Filter = typename Type::Filter;
  Result<Filter> made = Error(ErrorCode::kTooLarge, "out of memory");
  try {
    made = Filter::Create(options);
  } catch (const std::bad_alloc&) {
  }
  if (!made.ok()) return CreateError(cmd, made.error(), cannot_create);
  Filter* stored = RbStore<Type>(key, std::move(made).value());
  if (stored == nullptr) return ReplyError(reply::kInternal);
  return stored;
}

template <typename Filter>
void RbDelete(Filter* filter) noexcept {
  if (filter == nullptr) return;
  stats::ValueFreed(stats::KindOf(Filter::kKind));
  filter->~Filter();
  rm.Free(filter);
}

// What a key holds, for the commands of one family.
enum class Held {
  kEmpty,       // no key
  kRedisBloom,  // this family's RedisBloom type
  kNative,      // this family's bloomkit type
  kOther,       // anything else (another type, another module)
};

inline Held KeyHolds(const OpenKey& key, RedisModuleType* redisbloom_type, RedisModuleType* native_type) noexcept {
  if (key.get() == nullptr) return Held::kEmpty;
  const int key_type = rm.KeyType(key.get());
  if (key_type == kKeyTypeEmpty) return Held::kEmpty;
  if (key_type != kKeyTypeModule) return Held::kOther;
  RedisModuleType* type = rm.ModuleTypeGetType(key.get());
  if (type == redisbloom_type) return Held::kRedisBloom;
  if (type == native_type) return Held::kNative;
  return Held::kOther;
}

// Whether a command on a key that holds `held` runs in RedisBloom's format: a key of a
// RedisBloom type does, a native one does not, and any other (a new key, a key of
// another type) takes the format the FORMAT module argument names.
inline bool UsesRedisBloom(Held held) noexcept {
  if (held == Held::kRedisBloom) return true;
  if (held == Held::kNative) return false;
  return Config().format == FilterFormat::kRedisBloom;
}

// ---- RedisBloom's replies ---------------------------------------------------------

inline std::span<const std::byte> AsBytes(std::string_view text) noexcept {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

// The argument as it may appear in the log: printable ASCII, at most 40 bytes.
std::string Printable(std::string_view text);

// RedisBloom's reply `text`, exactly as RedisBloom sends it; what bloomkit knows more
// (the bad value, the cause) goes to the server log at level verbose.
Error RbError(const Command& cmd, std::string_view text, std::string_view detail);

// The error of a filter that could not be created: maxmemory's refusal, bloomkit's
// MAX_FILTER_BYTES when given, else RedisBloom's texts ("ERR Insufficient memory to
// create filter" when memory ran out, `cannot_create` for parameters that give no filter).
Error CreateError(const Command& cmd, const Error& error, std::string_view cannot_create);

// RedisBloom's reply for a key that is not the one wanted (its statusStrerror): "not
// found" for none, "item exists" for one of this type, WRONGTYPE for another.
Status RbKeyError(Held held);

// A rate in (0, 1), above 0.25 taken as 0.25 (RedisBloom 8 logs that it capped it).
double CappedErrorRate(const Command& cmd, double rate);

// Stores a new filter at an empty key (the key then owns it); nullptr if Redis refuses.
template <typename Type>
typename Type::Filter* RbStore(const OpenKey& key, typename Type::Filter&& filter) {
  auto* value = RbNew(std::move(filter));
  if (rm.ModuleTypeSetValue(key.get(), Type::type, value) != kOk) {
    RbDelete(value);
    return nullptr;
  }
  return value;
}

template <typename Type>
typename Type::Filter* RbValueOf(const OpenKey& key) noexcept {
  return static_cast<typename Type::Filter*>(rm.ModuleTypeGetValue(key.get()));
}

}  // namespace bloomkit::redis
