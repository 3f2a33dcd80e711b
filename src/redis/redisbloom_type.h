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

#include <new>
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
  if (key.empty()) return Held::kEmpty;
  if (rm.KeyType(key.get()) != kKeyTypeModule) return Held::kOther;
  RedisModuleType* type = rm.ModuleTypeGetType(key.get());
  if (type == redisbloom_type) return Held::kRedisBloom;
  if (type == native_type) return Held::kNative;
  return Held::kOther;
}

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
