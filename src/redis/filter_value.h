// SPDX-License-Identifier: Apache-2.0
// The value stored in a Redis key of bloomkit's native types (bloomkitB, bloomkitC,
// bloomkitN), one family struct per type, and how commands find it. A value is either
// a ready filter, or a dump being loaded by LOADCHUNK (the bytes received so far;
// dump.h). Its data type callbacks (RDB, AOF, DEBUG DIGEST, COPY) are in native_type.h,
// the SCANDUMP / LOADCHUNK commands in native_chunks.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/foreign_bloom.h"
#include "bloomkit/scalable_bloom_filter.h"
#include "command.h"
#include "dump.h"
#include "pending_loads.h"
#include "stats.h"

namespace bloomkit::redis {

inline constexpr int kEncodingVersion = 2;        // written
inline constexpr int kOldestEncodingVersion = 1;  // still read

// What a value needs only while a dump moves in (LOADCHUNK, or a loading value read
// from RDB); allocated on demand so that an idle filter carries 8 bytes of it.
struct Transfer {
  PendingDump pending;  // bytes received so far (total() > 0 while loading)

  [[nodiscard]] bool loading() const noexcept { return pending.total() != 0; }
};

// A value is its filter, present once it is ready (a loading value has none yet), and
// what a dump in progress needs.
template <typename Filter>
struct FilterValue {
  std::optional<Filter> held;          // set exactly when ready()
  std::unique_ptr<Transfer> transfer;  // set while loading, or during a SCANDUMP

  explicit FilterValue(Filter&& ready_filter) noexcept : held(std::move(ready_filter)) {}
  explicit FilterValue(PendingDump&& pending) : transfer(std::make_unique<Transfer>()) {
    transfer->pending = std::move(pending);
  }

  [[nodiscard]] bool ready() const noexcept { return held.has_value(); }
  [[nodiscard]] Filter& filter() noexcept { return *held; }
  [[nodiscard]] const Filter& filter() const noexcept { return *held; }
  // A loading value whose last chunk arrived: it holds `loaded` from now on.
  void Complete(Filter&& loaded) noexcept {
    held.emplace(std::move(loaded));
    transfer.reset();
    stats::PendingLoadEnded();
  }
};

// One struct per family: the core filter type, the Redis type name (9 characters) and
// the commands that name it.
struct BfFamily {
  using Filter = ScalableBloomFilter;
  static constexpr const char* kTypeName = "bloomkitB";
  static constexpr const char* kLoadChunk = "BF.LOADCHUNK";
  static inline RedisModuleType* type = nullptr;
};

struct CfFamily {
  using Filter = CuckooFilter;
  static constexpr const char* kTypeName = "bloomkitC";
  static constexpr const char* kLoadChunk = "CF.LOADCHUNK";
  static inline RedisModuleType* type = nullptr;
};

struct CbfFamily {
  using Filter = CountingBloomFilter;
  static constexpr const char* kTypeName = "bloomkitN";
  static constexpr const char* kLoadChunk = "CBF.LOADCHUNK";
  static inline RedisModuleType* type = nullptr;
};

// Other libraries' Bloom filters (bloomkit/foreign_bloom.h), one type per kind so that
// each value keeps its library's hashing: BF.* serves them (bf.cc, ForeignBloom). Keys
// of these types are made only from a dump of that kind (BF.LOADCHUNK, RESTORE, RDB),
// e.g. a file `bloomkit import bits-and-blooms` wrote; no command creates one empty.
struct BitsAndBloomsFamily {
  using Filter = BitsAndBloomsFilter;
  static constexpr const char* kTypeName = "bloomkitG";  // Go's bits-and-blooms/bloom v3
  static constexpr const char* kLoadChunk = "BF.LOADCHUNK";
  static inline RedisModuleType* type = nullptr;
};

struct GuavaFamily {
  using Filter = GuavaBloomFilter;
  static constexpr const char* kTypeName = "bloomkitJ";  // Java's Guava BloomFilter
  static constexpr const char* kLoadChunk = "BF.LOADCHUNK";
  static inline RedisModuleType* type = nullptr;
};

struct ParquetFamily {
  using Filter = ParquetBloomFilter;
  static constexpr const char* kTypeName = "bloomkitP";  // Parquet's split block filter
  static constexpr const char* kLoadChunk = "BF.LOADCHUNK";
  static inline RedisModuleType* type = nullptr;
};

// Values live in Redis' allocator so that INFO memory and MEMORY USAGE count them.
// `state` is the ready filter or the pending dump.
template <typename Filter, typename State>
FilterValue<Filter>* NewValue(State&& state) {
  void* memory = rm.Alloc(sizeof(FilterValue<Filter>));
  if (memory == nullptr) throw std::bad_alloc();
  FilterValue<Filter>* value = nullptr;
  try {
    value = new (memory) FilterValue<Filter>(std::forward<State>(state));
  } catch (...) {
    rm.Free(memory);
    throw;
  }
  stats::ValueCreated(stats::KindOf(Filter::kKind));
  if (!value->ready()) stats::PendingLoadStarted();
  return value;
}

template <typename Filter>
void DeleteValue(FilterValue<Filter>* value) noexcept {
  if (value == nullptr) return;
  if (!value->ready()) stats::PendingLoadEnded();
  stats::ValueFreed(stats::KindOf(Filter::kKind));
  value->~FilterValue<Filter>();
  rm.Free(value);
}

// Bytes a value uses: its filter arrays and bookkeeping, and any dump buffers (the
// figure of MEMORY USAGE and of INFO's "Size").
template <typename Family>
std::uint64_t ValueMemory(const FilterValue<typename Family::Filter>& v) noexcept {
  std::uint64_t bytes = BlockBytes(&v, sizeof(v));
  if (v.transfer) bytes += sizeof(Transfer) + v.transfer->pending.reserved_bytes();
  if (v.ready()) bytes += v.filter().bytes_held();
  return bytes;
}

// The value at a key, checked for type.
template <typename Family>
struct Lookup {
  FilterValue<typename Family::Filter>* value = nullptr;
  bool wrong_type = false;
};

template <typename Family>
Lookup<Family> Find(const OpenKey& key) noexcept {
  Lookup<Family> out;
  if (key.empty()) return out;
  out.wrong_type = key.type() != Family::type;
  if (!out.wrong_type) out.value = static_cast<FilterValue<typename Family::Filter>*>(key.value());
  return out;
}

// For commands that need a ready filter: the error reply when there is none.
template <typename Family>
Status RequireReady(const Lookup<Family>& found, std::string_view not_found = reply::kNotFound) {
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  if (found.value == nullptr) return ReplyError(not_found);
  if (!found.value->ready()) return ReplyError(reply::kFilterLoading);
  return {};
}

// Stores a new value at an empty key (the key now owns it).
template <typename Family>
FilterValue<typename Family::Filter>* StoreNew(const OpenKey& key, typename Family::Filter&& filter) {
  auto* value = NewValue<typename Family::Filter>(std::move(filter));
  if (rm.ModuleTypeSetValue(key.get(), Family::type, value) != kOk) {
    DeleteValue(value);
    return nullptr;
  }
  return value;
}

// Builds the filter from complete dump bytes; the error is the reply.
template <typename Family>
Result<typename Family::Filter> BuildFromDump(std::span<const std::byte> bytes) {
  if (auto plain = RequireUncompressedDump(bytes); !plain.ok()) return plain.error();
  LoadOptions options;
  options.max_memory_bytes = Config().max_filter_bytes;
  auto filter = Family::Filter::Deserialize(bytes, options);
  if (!filter.ok()) {
    if (filter.error().code() == ErrorCode::kTooLarge) return CoreError(filter.error());
    return ReplyError(reply::kChunkInvalid, filter.error().message());
  }
  return filter;
}

}  // namespace bloomkit::redis
