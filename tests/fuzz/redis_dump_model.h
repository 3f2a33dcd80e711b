// SPDX-License-Identifier: Apache-2.0
// The state machine of the module's LOADCHUNK and rdb_load (src/redis/native_chunks.h, native_type.h),
// rebuilt from the Redis-free functions they call (src/redis/dump.h, args.h and each
// kind's Deserialize), so that the fuzz targets drive the same checks in the same order
// without a running Redis. Each step mirrors one branch of those headers; the reply
// strings are not compared (tests/integration/redis/test_hostile.py does that against a
// real server).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "bloomkit/bloomkit.h"
#include "dump.h"
#include "fuzz_input.h"

namespace bloomkit_fuzz {

// MAX_FILTER_BYTES of the modelled server: small, so that libFuzzer's -malloc_limit_mb
// catches any allocation that was not checked against it.
inline constexpr std::uint64_t kModelMaxFilterBytes = std::uint64_t{1} << 20;
// The largest dump LOADCHUNK may accept: header + payload (filter arrays plus the
// slack for per-stage headers) + checksum.
inline constexpr std::uint64_t kModelMaxDumpBytes =
    bloomkit::kHeaderBytes + kModelMaxFilterBytes + bloomkit::redis::kDumpSlackBytes + bloomkit::kChecksumBytes;

// One Redis key holding a value of family `Filter`: absent, loading or ready.
template <typename Filter>
class KeyModel {
 public:
  // `verify`: check every accepted filter (CheckAccepted); off for the copies it makes.
  explicit KeyModel(bool verify = true) : verify_(verify) {}

  [[nodiscard]] bool ready() const noexcept { return filter_.has_value(); }
  [[nodiscard]] bool loading() const noexcept { return loading_; }
  [[nodiscard]] const Filter& filter() const { return *filter_; }

  // LOADCHUNK key <iterator_text> <data>: true for an OK reply, false for an error.
  bool LoadChunk(std::string_view iterator_text, std::span<const std::byte> data) {
    auto iterator = bloomkit::redis::ParseScanIterator(iterator_text, /*for_loadchunk=*/true);
    if (!iterator.ok()) return Rejected(iterator.error());
    BLOOMKIT_FUZZ_CHECK(iterator.value() >= 1);
    const auto offset = static_cast<std::uint64_t>(iterator.value()) - 1;
    if (offset == 0) {
      if (ready() || loading_) return false;  // item exists
      auto total = bloomkit::redis::ValidateDumpHeader(data, Filter::kKind, kModelMaxFilterBytes);
      if (!total.ok()) return Rejected(total.error());
      // The announced size was checked before anything is kept.
      BLOOMKIT_FUZZ_CHECK(total.value() >= bloomkit::kHeaderBytes + bloomkit::kChecksumBytes);
      BLOOMKIT_FUZZ_CHECK(total.value() <= kModelMaxDumpBytes);
      loading_ = true;
      pending_ = bloomkit::redis::PendingDump(total.value(), data);
      return true;
    }
    if (!loading_) return false;  // not found, or already complete
    // The module's own append step (native_chunks.h's LoadChunk calls the same).
    auto complete = pending_.Append(offset, data);
    if (!complete.ok()) return Rejected(complete.error());
    BLOOMKIT_FUZZ_CHECK(pending_.bytes().size() <= pending_.total());
    BLOOMKIT_FUZZ_CHECK(pending_.reserved_bytes() <= pending_.total());  // never more than announced
    if (!complete.value()) {
      BLOOMKIT_FUZZ_CHECK(pending_.bytes().size() < pending_.total());
      return true;
    }
    BLOOMKIT_FUZZ_CHECK(pending_.bytes().size() == pending_.total());
    loading_ = false;
    const bloomkit::redis::PendingDump received = std::move(pending_);
    pending_ = {};
    auto built = Build(received.bytes());
    if (!built.ok()) return Rejected(built.error());  // the key is deleted
    filter_.emplace(std::move(built).value());
    if (verify_) CheckAccepted(*filter_, received.bytes());
    return true;
  }

  // rdb_load of one value: state 0 (ready, the serialization) or 1 (loading: the
  // announced total and the bytes received so far). True if the value is accepted.
  bool RdbLoad(std::uint64_t state, std::uint64_t total, std::span<const std::byte> buffer) {
    if (state == 0) {
      auto built = Build(buffer);
      if (!built.ok()) return Rejected(built.error());
      filter_.emplace(std::move(built).value());
      if (verify_) CheckAccepted(*filter_, buffer);
      return true;
    }
    if (state != 1) return false;
    auto announced = bloomkit::redis::ValidateDumpHeader(
        buffer.first(std::min<std::size_t>(buffer.size(), bloomkit::redis::kDumpHeaderBytes)), Filter::kKind,
        kModelMaxFilterBytes);
    if (!announced.ok()) return Rejected(announced.error());
    if (announced.value() != total || buffer.size() >= total) return false;
    BLOOMKIT_FUZZ_CHECK(total <= kModelMaxDumpBytes);
    loading_ = true;
    pending_ = bloomkit::redis::PendingDump(total, buffer);
    return true;
  }

  // rdb_load of an encoding-version-2 value (native_type.h's RdbLoadStreamed): the
  // state, the bytes received (loading), then the strings: the header, then pieces.
  bool RdbLoadStreamed(std::uint64_t state, std::uint64_t received,
                       std::span<const std::span<const std::byte>> strings) {
    if (state > 1 || strings.empty()) return false;
    bloomkit::redis::StreamedLoad load;
    if (auto started = load.Start(state, received, strings[0], Filter::kKind, kModelMaxFilterBytes); !started.ok()) {
      return Rejected(started.error());
    }
    BLOOMKIT_FUZZ_CHECK(load.expected() <= kModelMaxDumpBytes);
    std::size_t next = 1;
    while (!load.done()) {
      if (next == strings.size()) return false;  // the RDB ends early: an I/O error
      if (auto added = load.Add(strings[next++]); !added.ok()) return Rejected(added.error());
      BLOOMKIT_FUZZ_CHECK(load.bytes().size() <= load.expected());
    }
    if (state == 1) {
      BLOOMKIT_FUZZ_CHECK(load.bytes().size() == received);
      pending_ = std::move(load).TakeDump();
      BLOOMKIT_FUZZ_CHECK(pending_.bytes().size() < pending_.total());
      loading_ = true;
      return true;
    }
    auto built = Build(load.bytes());
    if (!built.ok()) return Rejected(built.error());
    filter_.emplace(std::move(built).value());
    if (verify_) CheckAccepted(*filter_, load.bytes());
    return true;
  }

  [[nodiscard]] std::uint64_t expected_iterator() const noexcept { return loading_ ? pending_.bytes().size() + 1 : 1; }

 private:
  static bloomkit::Result<Filter> Build(std::span<const std::byte> bytes) {
    // As BuildFromDump: a compressed dump is refused before it is decoded.
    if (auto plain = bloomkit::redis::RequireUncompressedDump(bytes); !plain.ok()) {
      BLOOMKIT_FUZZ_CHECK((bytes[20] & std::byte{1}) != std::byte{0});
      return plain.error();
    }
    bloomkit::LoadOptions options;
    options.max_memory_bytes = kModelMaxFilterBytes;
    return Filter::Deserialize(bytes, options);
  }

  static bool Rejected(const bloomkit::Error& error) {
    BLOOMKIT_FUZZ_CHECK(!error.message().empty());  // every error explains itself
    return false;
  }

  // An accepted filter respects the memory limit, answers queries, and its own dump
  // (SCANDUMP's chunks) loads back into an equal filter.
  static void CheckAccepted(const Filter& filter, std::span<const std::byte> loaded_from);

  bool verify_;
  std::optional<Filter> filter_;
  bool loading_ = false;
  bloomkit::redis::PendingDump pending_;
};

// SCANDUMP of `bytes` with chunks of `chunk_bytes`: the chunks NextDumpChunk hands out,
// checked to tile the bytes exactly (header first, then in order, no gap, no overlap).
inline std::vector<bloomkit::redis::DumpChunk> ScanDumpChunks(std::uint64_t total_bytes, std::uint64_t chunk_bytes) {
  std::vector<bloomkit::redis::DumpChunk> chunks;
  std::int64_t iterator = 0;
  std::uint64_t covered = 0;
  for (;;) {
    auto next = bloomkit::redis::NextDumpChunk(iterator, total_bytes, chunk_bytes);
    BLOOMKIT_FUZZ_CHECK(next.ok());
    if (!next.value().has_value()) break;
    const bloomkit::redis::DumpChunk chunk = *next.value();
    BLOOMKIT_FUZZ_CHECK(chunk.offset == covered);
    BLOOMKIT_FUZZ_CHECK(chunk.length > 0 && chunk.length <= std::max(chunk_bytes, bloomkit::redis::kDumpHeaderBytes));
    BLOOMKIT_FUZZ_CHECK(chunk.iterator == static_cast<std::int64_t>(chunk.offset + 1));
    BLOOMKIT_FUZZ_CHECK(chunks.empty() ? chunk.length == bloomkit::redis::kDumpHeaderBytes : true);
    covered += chunk.length;
    BLOOMKIT_FUZZ_CHECK(covered <= total_bytes);
    chunks.push_back(chunk);
    iterator = chunk.iterator;
  }
  BLOOMKIT_FUZZ_CHECK(covered == total_bytes);
  return chunks;
}

template <typename Filter>
void KeyModel<Filter>::CheckAccepted(const Filter& filter, std::span<const std::byte> loaded_from) {
  BLOOMKIT_FUZZ_CHECK(filter.memory_bytes() <= kModelMaxFilterBytes);
  volatile bool sink = filter.MayContain("bloomkit") || filter.MayContain(std::string_view());
  (void)sink;
  const std::vector<std::byte> again = filter.Serialize();
  const bool stored_raw =
      loaded_from.size() >= 24 && (std::to_integer<unsigned>(loaded_from[20]) & bloomkit::kFlagZstdPayload) == 0;
  if (stored_raw) {
    BLOOMKIT_FUZZ_CHECK(again.size() == loaded_from.size() &&
                        std::equal(again.begin(), again.end(), loaded_from.begin()));
  }
  // The streamed save (RDB, AOF rewrite): blocks that tile Serialize()'s bytes, the
  // header first, and that load back through the version-2 loader into an equal filter.
  std::vector<std::vector<std::byte>> blocks;
  std::uint64_t streamed = 0;
  bloomkit::redis::StreamBlocks(filter, [&](std::uint64_t offset, std::span<const std::byte> block) noexcept {
    BLOOMKIT_FUZZ_CHECK(offset == streamed);
    BLOOMKIT_FUZZ_CHECK(blocks.empty() ? block.size() == bloomkit::redis::kDumpHeaderBytes
                                       : block.size() > 0 && block.size() <= bloomkit::redis::kStreamPieceBytes);
    BLOOMKIT_FUZZ_CHECK(std::equal(block.begin(), block.end(), again.begin() + static_cast<std::ptrdiff_t>(offset)));
    blocks.emplace_back(block.begin(), block.end());
    streamed += block.size();
  });
  BLOOMKIT_FUZZ_CHECK(streamed == again.size());
  BLOOMKIT_FUZZ_CHECK(bloomkit::redis::SerializedLength(filter) == again.size());
  {
    std::vector<std::span<const std::byte>> strings(blocks.begin(), blocks.end());
    KeyModel<Filter> reloaded(/*verify=*/false);
    BLOOMKIT_FUZZ_CHECK(reloaded.RdbLoadStreamed(0, 0, strings));
    BLOOMKIT_FUZZ_CHECK(reloaded.ready() && reloaded.filter() == filter);
  }
  // SCANDUMP then LOADCHUNK into an empty key, at a chunk size of its own.
  for (const std::uint64_t chunk_bytes : {std::uint64_t{16}, std::uint64_t{1000}}) {
    KeyModel<Filter> copy(/*verify=*/false);
    for (const auto& chunk : ScanDumpChunks(again.size(), chunk_bytes)) {
      const std::string iterator = std::to_string(chunk.iterator);
      BLOOMKIT_FUZZ_CHECK(
          copy.LoadChunk(iterator, std::span<const std::byte>(again).subspan(chunk.offset, chunk.length)));
    }
    BLOOMKIT_FUZZ_CHECK(copy.ready() && copy.filter() == filter);
  }
}

// The three families of the module: BF (scalable), CF (cuckoo), CBF (counting).
template <typename Visitor>
void WithFamily(std::uint8_t selector, Visitor&& visit) {
  switch (selector % 3) {
    case 0: visit(bloomkit::ScalableBloomFilter::kKind, static_cast<bloomkit::ScalableBloomFilter*>(nullptr)); break;
    case 1: visit(bloomkit::CuckooFilter::kKind, static_cast<bloomkit::CuckooFilter*>(nullptr)); break;
    default: visit(bloomkit::CountingBloomFilter::kKind, static_cast<bloomkit::CountingBloomFilter*>(nullptr)); break;
  }
}

}  // namespace bloomkit_fuzz
