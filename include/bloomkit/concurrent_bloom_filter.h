// SPDX-License-Identifier: Apache-2.0
// bloomkit::ConcurrentBloomFilter and bloomkit::ConcurrentBlockedBloomFilter: the
// classic and blocked filters with lock-free inserts from many threads.
//
// Contract:
//  - Add, AddIfAbsent, MayContain and Snapshot may run concurrently from any number of
//    threads, with no lock. An insert sets its bits with one atomic fetch-or per 64-bit
//    word (std::atomic_ref, relaxed: bits only ever go from 0 to 1, so no ordering
//    between words is needed for the no-false-negative guarantee); a query reads each
//    word with a relaxed atomic load.
//  - No false negatives: a key whose Add returned before a query started (in the
//    happens-before sense: a join, a mutex, an acquire of a flag the adder released)
//    is reported. A query racing with the Add of the same key may see some of its bits
//    and answer either way.
//  - AddIfAbsent returns true if this call set at least one bit: two threads adding
//    the same new key at the same time may both get true. count() is the number of
//    such calls (an atomic counter).
//  - Same bit layout, sizing and file format as BloomFilter / BlockedBloomFilter (the
//    file kind is theirs): a file saved by one loads into the other.
//  - Clear, assignment and destruction need exclusive access, as for any object.
//
//   auto seen = bloomkit::ConcurrentBloomFilter::Create({.capacity = 10'000'000, .fp_rate = 0.001});
//   // in each worker thread:
//   if (seen->AddIfAbsent(url).value()) crawl(url);   // never an error
//
// The verbs are filter.h's. The statistics (EstimatedCount, FillRatio, EstimatedFpRate)
// read the words with atomic loads while others may add: a value between the states
// before and after the concurrent adds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/filter.h"
#include "bloomkit/hash.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit {

class ConcurrentBloomFilter {
 public:
  using Options = BloomOptions;
  static constexpr FilterKind kKind = BloomFilter::kKind;

  static Result<ConcurrentBloomFilter> Create(const BloomOptions& options);
  // Reads a classic-filter file (kind 1).
  static Result<ConcurrentBloomFilter> Deserialize(std::span<const std::byte> bytes, const LoadOptions& options = {});
  // The payload of a file whose header a FilterReader checked, read straight into the
  // filter's bits (LoadFile and ReadFrom stream through it).
  static Result<ConcurrentBloomFilter> Deserialize(const FileHeader& header, ByteSource payload,
                                                   const LoadOptions& options = {});
  // Takes over a filter's bits and count.
  explicit ConcurrentBloomFilter(BloomFilter filter) noexcept;

  // A classic-filter file of a Snapshot(): safe while other threads add.
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  // The bytes Serialize() returns without compression, handed to `sink` in pieces read
  // with atomic loads (SaveFile and WriteTo stream through it); false if the sink
  // stopped early. Safe while other threads add.
  bool SerializeTo(ByteSink sink) const noexcept;

  // Never fails: Add, AddHash and the batches return Done (result.h).
  Done Add(std::string_view key) noexcept {
    static_cast<void>(InsertKey(key));
    return {};
  }
  Result<bool> AddIfAbsent(std::string_view key) noexcept { return InsertKey(key); }
  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;
  Done AddHash(std::uint64_t hash) noexcept {
    AddHashPair(ExpandHash(hash));
    return {};
  }
  Result<bool> AddHashIfAbsent(std::uint64_t hash) noexcept { return AddHashPair(ExpandHash(hash)); }
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept { return MayContainHashPair(ExpandHash(hash)); }
  // One key after another, each as the single-key call.
  Done AddBatch(std::span<const std::string_view> keys) noexcept;
  Done AddHashBatch(std::span<const std::uint64_t> hashes) noexcept;
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;
  bool AddHashPair(HashPair hash) noexcept;
  [[nodiscard]] bool MayContainHashPair(HashPair hash) const noexcept;

  // A plain BloomFilter copy, word by word with atomic loads: it holds every key whose
  // Add finished before Snapshot began.
  [[nodiscard]] BloomFilter Snapshot() const;
  // Not thread-safe: needs exclusive access.
  void Clear() noexcept;

  [[nodiscard]] std::uint64_t num_bits() const noexcept { return filter_.num_bits(); }
  [[nodiscard]] std::uint32_t num_hashes() const noexcept { return filter_.num_hashes(); }
  [[nodiscard]] std::uint16_t hash_id() const noexcept { return filter_.hash_id(); }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return filter_.capacity(); }
  [[nodiscard]] double fp_rate() const noexcept { return filter_.fp_rate(); }
  [[nodiscard]] std::uint64_t count() const noexcept;
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept { return filter_.memory_bytes(); }
  [[nodiscard]] std::uint64_t bytes_held() const noexcept { return filter_.bytes_held(); }
  [[nodiscard]] double FillRatio() const noexcept;
  [[nodiscard]] std::uint64_t EstimatedCount() const noexcept;
  [[nodiscard]] double EstimatedFpRate() const noexcept;
  [[nodiscard]] double ExpectedFpRate() const noexcept { return filter_.ExpectedFpRate(); }

 private:
  // Add and AddIfAbsent: true if this call set a bit.
  bool InsertKey(std::string_view key) noexcept;

  BloomFilter filter_;       // its words are only touched atomically; its count is unused
  std::uint64_t count_ = 0;  // touched only through std::atomic_ref
};

class ConcurrentBlockedBloomFilter {
 public:
  using Options = BloomOptions;
  static constexpr FilterKind kKind = BlockedBloomFilter::kKind;

  static Result<ConcurrentBlockedBloomFilter> Create(const BloomOptions& options);
  // Reads a blocked-filter file (kind 2).
  static Result<ConcurrentBlockedBloomFilter> Deserialize(std::span<const std::byte> bytes,
                                                          const LoadOptions& options = {});
  // As ConcurrentBloomFilter's: LoadFile and ReadFrom stream through it.
  static Result<ConcurrentBlockedBloomFilter> Deserialize(const FileHeader& header, ByteSource payload,
                                                          const LoadOptions& options = {});
  explicit ConcurrentBlockedBloomFilter(BlockedBloomFilter filter) noexcept;

  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const;
  // The bytes Serialize() returns without compression, handed to `sink` in pieces read
  // with atomic loads (SaveFile and WriteTo stream through it); false if the sink
  // stopped early. Safe while other threads add.
  bool SerializeTo(ByteSink sink) const noexcept;

  // Never fails: Add, AddHash and the batches return Done (result.h).
  Done Add(std::string_view key) noexcept {
    static_cast<void>(InsertKey(key));
    return {};
  }
  Result<bool> AddIfAbsent(std::string_view key) noexcept { return InsertKey(key); }
  [[nodiscard]] bool MayContain(std::string_view key) const noexcept;
  Done AddHash(std::uint64_t hash) noexcept {
    AddHashPair(ExpandHash(hash));
    return {};
  }
  Result<bool> AddHashIfAbsent(std::uint64_t hash) noexcept { return AddHashPair(ExpandHash(hash)); }
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const noexcept { return MayContainHashPair(ExpandHash(hash)); }
  // One key after another, each as the single-key call.
  Done AddBatch(std::span<const std::string_view> keys) noexcept;
  Done AddHashBatch(std::span<const std::uint64_t> hashes) noexcept;
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const noexcept;
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const noexcept;
  // One atomic fetch-or per lane word that gets a bit (k <= 8 lanes: at most 8).
  bool AddHashPair(HashPair hash) noexcept;
  [[nodiscard]] bool MayContainHashPair(HashPair hash) const noexcept;

  [[nodiscard]] BlockedBloomFilter Snapshot() const;
  void Clear() noexcept;

  [[nodiscard]] std::uint64_t num_bits() const noexcept { return filter_.num_bits(); }
  [[nodiscard]] std::uint64_t num_blocks() const noexcept { return filter_.num_blocks(); }
  [[nodiscard]] std::uint32_t num_hashes() const noexcept { return filter_.num_hashes(); }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return filter_.capacity(); }
  [[nodiscard]] double fp_rate() const noexcept { return filter_.fp_rate(); }
  [[nodiscard]] std::uint64_t count() const noexcept;
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept { return filter_.memory_bytes(); }
  [[nodiscard]] std::uint64_t bytes_held() const noexcept { return filter_.bytes_held(); }
  [[nodiscard]] double FillRatio() const noexcept;
  [[nodiscard]] std::uint64_t EstimatedCount() const noexcept;
  [[nodiscard]] double EstimatedFpRate() const noexcept;
  [[nodiscard]] double ExpectedFpRate() const noexcept { return filter_.ExpectedFpRate(); }

 private:
  // Add and AddIfAbsent: true if this call set a bit.
  bool InsertKey(std::string_view key) noexcept;

  BlockedBloomFilter filter_;
  alignas(64) std::uint64_t lane_enable_[16] = {};  // as BlockedBloomFilter's
  std::uint64_t count_ = 0;                         // touched only through std::atomic_ref
};

static_assert(Filter<ConcurrentBloomFilter> && Filter<ConcurrentBlockedBloomFilter>);

}  // namespace bloomkit
