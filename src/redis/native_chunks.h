// SPDX-License-Identifier: Apache-2.0
// SCANDUMP, LOADCHUNK and DEL on native values (filter_value.h), generic over the three
// families: BF.* and CF.* on native keys and CBF.* run them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <string>
#include <string_view>

#include "filter_value.h"

namespace bloomkit::redis {

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

}  // namespace bloomkit::redis
