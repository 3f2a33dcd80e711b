// SPDX-License-Identifier: Apache-2.0
// The data type callbacks of bloomkit's native types, generic over the families of
// filter_value.h: RDB save/load, AOF rewrite, MEMORY USAGE, free, DEBUG DIGEST-VALUE,
// COPY. RDB encoding version 2 (written), per value:
//
//   unsigned  state        0 = ready, 1 = loading
//   loading:  unsigned     bytes received so far (>= 128, < the total the header announces)
//   string    the 128-byte header of the filter's bloomkit serialization
//   strings   the rest of it (ready: up to the checksum; loading: up to the bytes
//             received), in pieces of 1 .. kStreamPieceBytes bytes
//
// The save streams the filter's own memory (SerializeTo) through one stack buffer of
// kStreamPieceBytes: it allocates nothing of the filter's size, so it cannot fail half
// way under memory pressure. Version 1 (still read) held the whole serialization in one
// string, which needed a full copy to write (and Redis' LZF compression of that string
// a second one):
//
//   unsigned  state        0 = ready, 1 = loading
//   ready:    string       the filter's bloomkit serialization (magic ... checksum)
//   loading:  unsigned     total bytes announced by the dump header
//             string       the bytes received so far (at least the 128-byte header)
//
// The serialization carries its own version, parameters and XXH3 checksum, so a
// corrupted RDB or a forged RESTORE payload is rejected by the same checks as a file,
// with every size validated against MAX_FILTER_BYTES before anything is allocated.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "filter_value.h"

namespace bloomkit::redis {

// ---- data type callbacks -----------------------------------------------------------

inline void SaveBytes(RedisModuleIO* io, std::span<const std::byte> bytes) noexcept {
  rm.SaveStringBuffer(io, reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// Encoding version 2 (top of this file). Nothing here allocates: a ready filter streams
// from its own memory through BlockWriter's stack buffer; a loading value's bytes are
// written from its pending buffer in slices.
template <typename Family>
void RdbSave(RedisModuleIO* io, void* opaque) noexcept {
  const auto& value = *static_cast<const FilterValue<typename Family::Filter>*>(opaque);
  if (value.ready()) {
    rm.SaveUnsigned(io, 0);
    StreamBlocks(value.filter(),
                 [io](std::uint64_t /*offset*/, std::span<const std::byte> block) noexcept { SaveBytes(io, block); });
    return;
  }
  const auto bytes = value.transfer->pending.bytes();  // >= the 128-byte header
  rm.SaveUnsigned(io, 1);
  rm.SaveUnsigned(io, bytes.size());
  SaveBytes(io, bytes.first(kDumpHeaderBytes));
  for (std::size_t at = kDumpHeaderBytes; at < bytes.size(); at += kStreamPieceBytes) {
    SaveBytes(io, bytes.subspan(at, std::min(kStreamPieceBytes, bytes.size() - at)));
  }
}

// A string buffer read from RDB, freed with RedisModule_Free.
class RdbBuffer {
 public:
  explicit RdbBuffer(RedisModuleIO* io) noexcept : data_(rm.LoadStringBuffer(io, &size_)) {}
  ~RdbBuffer() {
    if (data_ != nullptr) rm.Free(data_);
  }
  RdbBuffer(const RdbBuffer&) = delete;
  RdbBuffer& operator=(const RdbBuffer&) = delete;
  RdbBuffer(RdbBuffer&&) = delete;
  RdbBuffer& operator=(RdbBuffer&&) = delete;
  [[nodiscard]] bool ok() const noexcept { return data_ != nullptr; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept {
    return {reinterpret_cast<const std::byte*>(data_), size_};
  }

 private:
  std::size_t size_ = 0;
  char* data_;
};

inline bool IoFailed(RedisModuleIO* io) noexcept {
  return rm.IsIOError != nullptr && rm.IsIOError(io) != 0;
}

// Reads an encoding-version-2 value (the state already read), through StreamedLoad's
// checks (dump.h): the header string, then pieces until the bytes it expects.
template <typename Family>
void* RdbLoadStreamed(RedisModuleIO* io, std::uint64_t state) {
  using Filter = typename Family::Filter;
  std::uint64_t received = 0;
  if (state == 1) {
    received = rm.LoadUnsigned(io);
    if (IoFailed(io)) return nullptr;
  }
  StreamedLoad load;
  {
    RdbBuffer header(io);
    if (IoFailed(io) || !header.ok()) return nullptr;
    if (auto started = load.Start(state, received, header.bytes(), Filter::kKind, Config().max_filter_bytes);
        !started.ok()) {
      rm.LogIOError(io, "warning", "bloomkit: rejected a %s value: %s", Family::kTypeName,
                    started.error().message().c_str());
      return nullptr;
    }
  }
  while (!load.done()) {
    RdbBuffer piece(io);
    if (IoFailed(io) || !piece.ok()) return nullptr;
    if (auto added = load.Add(piece.bytes()); !added.ok()) {
      rm.LogIOError(io, "warning", "bloomkit: rejected a %s value: %s", Family::kTypeName,
                    added.error().message().c_str());
      return nullptr;
    }
  }
  if (state == 1) return NewValue<Filter>(std::move(load).TakeDump());
  auto filter = BuildFromDump<Family>(load.bytes());
  if (!filter.ok()) {
    rm.LogIOError(io, "warning", "bloomkit: rejected a %s value: %s", Family::kTypeName,
                  filter.error().message().c_str());
    return nullptr;
  }
  return NewValue<Filter>(std::move(filter).value());
}

// Reads an encoding-version-1 value (the state already read): one string.
template <typename Family>
void* RdbLoadWhole(RedisModuleIO* io, std::uint64_t state) {
  using Filter = typename Family::Filter;
  if (state == 0) {
    RdbBuffer buffer(io);
    if (IoFailed(io) || !buffer.ok()) return nullptr;
    auto filter = BuildFromDump<Family>(buffer.bytes());
    if (!filter.ok()) {
      rm.LogIOError(io, "warning", "bloomkit: rejected a %s value: %s", Family::kTypeName,
                    filter.error().message().c_str());
      return nullptr;
    }
    return NewValue<Filter>(std::move(filter).value());
  }
  const std::uint64_t total = rm.LoadUnsigned(io);
  if (IoFailed(io)) return nullptr;
  RdbBuffer buffer(io);
  if (IoFailed(io) || !buffer.ok()) return nullptr;
  const auto bytes = buffer.bytes();
  auto announced = ValidateDumpHeader(bytes.first(std::min<std::size_t>(bytes.size(), kDumpHeaderBytes)), Filter::kKind,
                                      Config().max_filter_bytes);
  if (!announced.ok() || announced.value() != total || bytes.size() >= total) {
    rm.LogIOError(io, "warning", "bloomkit: rejected a partially loaded %s value: %s", Family::kTypeName,
                  announced.ok() ? "lengths disagree" : announced.error().message().c_str());
    return nullptr;
  }
  return NewValue<Filter>(PendingDump(total, bytes));
}

template <typename Family>
void* RdbLoad(RedisModuleIO* io, int encver) noexcept {
  if (encver < kOldestEncodingVersion || encver > kEncodingVersion) {
    rm.LogIOError(io, "warning", "bloomkit: %s encoding version %d is not supported (this build reads %d to %d)",
                  Family::kTypeName, encver, kOldestEncodingVersion, kEncodingVersion);
    return nullptr;
  }
  try {
    const std::uint64_t state = rm.LoadUnsigned(io);
    if (IoFailed(io)) return nullptr;
    if (state > 1) {
      rm.LogIOError(io, "warning", "bloomkit: unknown %s value state %llu", Family::kTypeName,
                    static_cast<unsigned long long>(state));
      return nullptr;
    }
    return encver == 1 ? RdbLoadWhole<Family>(io, state) : RdbLoadStreamed<Family>(io, state);
  } catch (...) {
    rm.LogIOError(io, "warning", "bloomkit: out of memory loading a %s value", Family::kTypeName);
    return nullptr;
  }
}

// AOF rewrite: the value as the LOADCHUNK commands that rebuild it byte for byte: the
// 128-byte header at iterator 1, then pieces of kStreamPieceBytes (LOADCHUNK follows
// offsets, so any cut loads). Streamed like RdbSave: nothing of the filter's size is
// allocated.
template <typename Family>
void AofRewrite(RedisModuleIO* aof, RedisModuleString* key, void* opaque) noexcept {
  const auto& value = *static_cast<const FilterValue<typename Family::Filter>*>(opaque);
  auto emit = [aof, key](std::uint64_t offset, std::span<const std::byte> bytes) noexcept {
    const std::uint64_t iterator = offset + 1;
    rm.EmitAOF(aof, Family::kLoadChunk, "slb", key, static_cast<long long>(iterator),
               reinterpret_cast<const char*>(bytes.data()), bytes.size());
  };
  if (value.ready()) {
    StreamBlocks(value.filter(), emit);
    return;
  }
  const auto bytes = value.transfer->pending.bytes();
  emit(0, bytes.first(kDumpHeaderBytes));
  for (std::size_t at = kDumpHeaderBytes; at < bytes.size(); at += kStreamPieceBytes) {
    emit(at, bytes.subspan(at, std::min(kStreamPieceBytes, bytes.size() - at)));
  }
}

template <typename Family>
std::size_t MemUsage(const void* opaque) noexcept {
  return static_cast<std::size_t>(
      ValueMemory<Family>(*static_cast<const FilterValue<typename Family::Filter>*>(opaque)));
}

template <typename Family>
void Free(void* opaque) noexcept {
  DeleteValue(static_cast<FilterValue<typename Family::Filter>*>(opaque));
}

template <typename Family>
void Digest(RedisModuleDigest* digest, void* opaque) noexcept {
  const auto& value = *static_cast<const FilterValue<typename Family::Filter>*>(opaque);
  auto add = [digest](std::uint64_t /*offset*/, std::span<const std::byte> bytes) noexcept {
    rm.DigestAddStringBuffer(digest, reinterpret_cast<const char*>(bytes.data()), bytes.size());
  };
  if (value.ready()) {
    StreamBlocks(value.filter(), add);
  } else {
    add(0, value.transfer->pending.bytes());
  }
  rm.DigestEndSequence(digest);
}

template <typename Family>
void* Copy(RedisModuleString* /*from*/, RedisModuleString* /*to*/, const void* opaque) noexcept {
  using Filter = typename Family::Filter;
  const auto& value = *static_cast<const FilterValue<Filter>*>(opaque);
  try {
    if (value.ready()) return NewValue<Filter>(Filter(value.filter()));
    return NewValue<Filter>(PendingDump(value.transfer->pending));
  } catch (...) {
    return nullptr;  // COPY then fails with an error reply
  }
}

template <typename Family>
RedisModuleTypeMethods TypeMethods() noexcept {
  RedisModuleTypeMethods methods{};
  methods.version = kTypeMethodVersion;
  methods.rdb_load = &RdbLoad<Family>;
  methods.rdb_save = &RdbSave<Family>;
  methods.aof_rewrite = &AofRewrite<Family>;
  methods.mem_usage = &MemUsage<Family>;
  methods.digest = &Digest<Family>;
  methods.free = &Free<Family>;
  methods.copy = &Copy<Family>;
  return methods;
}

}  // namespace bloomkit::redis
