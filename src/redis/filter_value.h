// SPDX-License-Identifier: Apache-2.0
// The value stored in a Redis key for each filter family, and everything generic over
// families: the data type callbacks (RDB save/load, AOF rewrite, MEMORY USAGE, free,
// DEBUG DIGEST-VALUE, COPY) and the SCANDUMP / LOADCHUNK commands.
//
// A value is either a ready filter, or a dump being loaded by LOADCHUNK (the bytes
// received so far; dump.h). RDB encoding version 2 (written), per value:
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

// ---- SCANDUMP key iterator -------------------------------------------------------
// Each chunk is cut from the filter's serialization as it streams out of the filter's
// memory: nothing is kept between calls. A chunk inside one of the filter's arrays is
// answered from the array itself; one that spans pieces is gathered into a buffer of
// its own size (at most SCANDUMP_CHUNK_BYTES). A write to the filter between calls
// makes the loaded copy fail its checksum rather than mix two versions silently.
template <typename Family>
Status ScanDump(Command& cmd) {
  const auto found = Find<Family>(cmd.key());
  if (auto s = RequireReady(found); !s.ok()) return s;
  auto iterator = ParseScanIterator(cmd.arg(2), /*for_loadchunk=*/false, Family::Filter::kKind == FilterKind::kCuckoo);
  if (!iterator.ok()) return std::move(iterator).error();
  const auto& filter = found.value->filter();
  auto chunk = NextDumpChunk(iterator.value(), SerializedLength(filter), Config().scandump_chunk_bytes);
  if (!chunk.ok()) return std::move(chunk).error();
  if (!chunk.value().has_value()) {
    cmd.Array(2);
    cmd.Int(0);
    cmd.Bytes({});
    return {};
  }
  const DumpChunk c = *chunk.value();
  ByteBuffer gathered;
  std::uint64_t at = 0;      // offset of the next piece
  std::uint64_t copied = 0;  // bytes of the chunk gathered so far
  bool answered = false;
  bool no_memory = false;
  auto cut = [&](std::span<const std::byte> piece) noexcept {
    const std::uint64_t start = at;
    at += piece.size();
    if (at <= c.offset) return true;  // before the chunk
    const std::uint64_t from = c.offset + copied - start;
    const std::uint64_t n = std::min<std::uint64_t>(piece.size() - from, c.length - copied);
    if (copied == 0 && n == c.length) {  // the whole chunk lies in this piece
      cmd.Array(2);
      cmd.Int(c.iterator);
      cmd.Bytes(piece.subspan(static_cast<std::size_t>(from), static_cast<std::size_t>(n)));
      answered = true;
      return false;
    }
    if (copied == 0 && !gathered.Allocate(static_cast<std::size_t>(c.length))) {
      no_memory = true;
      return false;
    }
    std::memcpy(gathered.data() + copied, piece.data() + from, static_cast<std::size_t>(n));
    copied += n;
    return copied < c.length;
  };
  // A chunk before the trailing checksum needs no hashing of the bytes streamed up to
  // it: without this, a whole SCANDUMP would hash the filter once per chunk.
  const bool before_checksum = c.offset + c.length <= SerializedLength(filter) - kChecksumBytes;
  const ByteSink sink(cut);
  (void)filter.SerializeTo(before_checksum ? sink.WithoutChecksum() : sink);
  if (answered) return {};
  if (no_memory) throw std::bad_alloc();  // RunCommand answers with the OOM refusal
  if (copied != c.length) return ReplyError(reply::kInternal);
  cmd.Array(2);
  cmd.Int(c.iterator);
  cmd.Bytes(std::span<const std::byte>(gathered.data(), static_cast<std::size_t>(c.length)));
  return {};
}

// A LOADCHUNK header announcing `total` bytes: refused when the loads in progress on
// all keys would then announce more than MAX_PENDING_LOAD_BYTES (a client could
// otherwise open any number of loads, each within MAX_FILTER_BYTES).
inline Status CheckPendingLoads(std::uint64_t total) {
  if (!CommandFromClient()) return {};
  const PendingLoads now = PendingLoadStats();
  const std::uint64_t limit = Config().max_pending_load_bytes;
  if (total <= limit && now.bytes_announced <= limit - total) return {};
  return ReplyError(reply::kTooManyPendingLoads, "this dump announces " + std::to_string(total) + " bytes, " +
                                                     std::to_string(now.count) + " loads in progress announce " +
                                                     std::to_string(now.bytes_announced) +
                                                     ", MAX_PENDING_LOAD_BYTES is " + std::to_string(limit) +
                                                     " (complete or delete a loading key, or raise the limit)");
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

// ---- CF.DEL / CBF.DEL key item ----------------------------------------------------
// Removes one occurrence of the item; replies whether one was removed. Only a removal
// is a write (replicated, and it ends a SCANDUMP in progress).
template <typename Family>
Status Del(Command& cmd, std::string_view not_found = reply::kNotFound) {
  const auto found = Find<Family>(cmd.key());
  if (auto s = RequireReady(found, not_found); !s.ok()) return s;
  const bool removed = found.value->filter().Remove(cmd.arg(2));
  if (removed) cmd.Replicate();
  cmd.Bool(removed);
  return {};
}

// ---- LOADCHUNK key iterator data -------------------------------------------------
template <typename Family>
Status LoadChunk(Command& cmd) {
  using Filter = typename Family::Filter;
  auto iterator = ParseScanIterator(cmd.arg(2), /*for_loadchunk=*/true, Family::Filter::kKind == FilterKind::kCuckoo);
  if (!iterator.ok()) return std::move(iterator).error();
  const std::string_view data_text = cmd.arg(3);
  const std::span<const std::byte> data(reinterpret_cast<const std::byte*>(data_text.data()), data_text.size());
  const auto offset = static_cast<std::uint64_t>(iterator.value()) - 1;

  const OpenKey& key = cmd.key();
  const auto found = Find<Family>(key);
  if (found.wrong_type) return ReplyError(reply::kWrongType);

  if (offset == 0) {  // the header: validated before anything is kept
    if (found.value != nullptr) return ReplyError(reply::kItemExists);
    auto total = ValidateDumpHeader(data, Filter::kKind, Config().max_filter_bytes);
    if (!total.ok()) return std::move(total).error();
    if (auto room = CheckMemoryFor(total.value()); !room.ok()) return room;
    if (auto bound = CheckPendingLoads(total.value()); !bound.ok()) return bound;
    auto* value = NewValue<Filter>(PendingDump(total.value(), data));
    if (rm.ModuleTypeSetValue(key.get(), Family::type, value) != kOk) {
      DeleteValue(value);
      return ReplyError(reply::kInternal);
    }
    cmd.Replicate();
    cmd.Ok();
    return {};
  }

  if (found.value == nullptr) return ReplyError(reply::kNotFound);
  auto& value = *found.value;
  if (value.ready()) return ReplyError(reply::kChunkOutOfOrder, "the filter is already complete");
  PendingDump& pending = value.transfer->pending;
  auto complete = pending.Append(offset, data);
  if (!complete.ok()) return std::move(complete).error();
  if (!complete.value()) {
    cmd.Replicate();
    cmd.Ok();
    return {};
  }
  auto filter = BuildFromDump<Family>(pending.bytes());
  if (!filter.ok()) {
    // A dump that fails its checks leaves no half-loaded key behind; replicas, fed the
    // same chunks, reach the same verdict.
    rm.DeleteKey(key.get());
    cmd.Replicate();
    return std::move(filter).error();
  }
  value.Complete(std::move(filter).value());
  cmd.Replicate();
  cmd.Ok();
  return {};
}

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
    rm.EmitAOF(aof, Family::kLoadChunk, "slb", key, static_cast<long long>(offset + 1),
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
