// SPDX-License-Identifier: Apache-2.0
// bloomkit::Synchronized<Filter>: one filter shared by many threads behind a
// std::shared_mutex: any number of concurrent readers, or one writer.
//
// What is safe without it (docs/FILTERS.md, "Thread safety"):
//  - every filter: const methods (MayContain, Count, Serialize, stats) from many threads
//    at once, as long as no thread mutates it;
//  - ConcurrentBloomFilter / ConcurrentBlockedBloomFilter: Add and queries from many
//    threads, lock-free.
// Everything else that mutates (Add/Remove of counting and cuckoo filters, AddIfAbsent
// of scalable ones, which may allocate a new stage, Clear, Merge) needs exclusive access:
// that is what this wrapper provides.
//
//   bloomkit::Synchronized<bloomkit::CuckooFilter> sessions(std::move(cf).value());
//   sessions.WithWrite([&](auto& f) { return f.Add(id); });        // Status
//   bool live = sessions.WithRead([&](const auto& f) { return f.MayContain(id); });
//
// WithRead/WithWrite run a callable under the lock and return what it returns; do not
// let references to the filter escape the callable. The shortcuts below are the verbs
// of filter.h (FilterOperations, and Removable for counting and cuckoo filters).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/filter.h"
#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit {

template <FilterOperations Filter>
class Synchronized {
 public:
  explicit Synchronized(Filter filter) noexcept(std::is_nothrow_move_constructible_v<Filter>)
      : filter_(std::move(filter)) {}

  // The mutex neither copies nor moves; share a Synchronized by reference or pointer.
  Synchronized(const Synchronized&) = delete;
  Synchronized& operator=(const Synchronized&) = delete;
  Synchronized(Synchronized&&) = delete;
  Synchronized& operator=(Synchronized&&) = delete;
  ~Synchronized() = default;

  // Runs fn(const Filter&) under a shared lock.
  template <typename Fn>
  requires std::invocable<Fn, const Filter&>
  decltype(auto) WithRead(Fn&& fn) const {
    std::shared_lock lock(mutex_);
    return std::forward<Fn>(fn)(static_cast<const Filter&>(filter_));
  }

  // Runs fn(Filter&) under an exclusive lock.
  template <typename Fn>
  requires std::invocable<Fn, Filter&>
  decltype(auto) WithWrite(Fn&& fn) {
    std::unique_lock lock(mutex_);
    return std::forward<Fn>(fn)(filter_);
  }

  // The verbs of filter.h, each under the lock it needs: Synchronized<F> satisfies
  // FilterOperations (and Removable) when F does.
  [[nodiscard]] bool MayContain(std::string_view key) const {
    return WithRead([&](const Filter& f) { return f.MayContain(key); });
  }
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const {
    return WithRead([&](const Filter& f) { return f.MayContainHash(hash); });
  }
  // The add verbs return what Filter's do: Done where they cannot fail, else Status.
  auto Add(std::string_view key) {
    return WithWrite([&](Filter& f) { return f.Add(key); });
  }
  auto AddHash(std::uint64_t hash) {
    return WithWrite([&](Filter& f) { return f.AddHash(hash); });
  }
  Result<bool> AddIfAbsent(std::string_view key) {
    return WithWrite([&](Filter& f) { return f.AddIfAbsent(key); });
  }
  Result<bool> AddHashIfAbsent(std::uint64_t hash) {
    return WithWrite([&](Filter& f) { return f.AddHashIfAbsent(hash); });
  }
  auto AddBatch(std::span<const std::string_view> keys) {
    return WithWrite([&](Filter& f) { return f.AddBatch(keys); });
  }
  auto AddHashBatch(std::span<const std::uint64_t> hashes) {
    return WithWrite([&](Filter& f) { return f.AddHashBatch(hashes); });
  }
  std::size_t MayContainBatch(std::span<const std::string_view> keys, std::span<bool> out) const {
    return WithRead([&](const Filter& f) { return f.MayContainBatch(keys, out); });
  }
  std::size_t MayContainHashBatch(std::span<const std::uint64_t> hashes, std::span<bool> out) const {
    return WithRead([&](const Filter& f) { return f.MayContainHashBatch(hashes, out); });
  }
  void Clear() {
    WithWrite([](Filter& f) { f.Clear(); });
  }
  [[nodiscard]] bool Remove(std::string_view key) requires Removable<Filter> {
    return WithWrite([&](Filter& f) { return f.Remove(key); });
  }
  [[nodiscard]] bool RemoveHash(std::uint64_t hash) requires Removable<Filter> {
    return WithWrite([&](Filter& f) { return f.RemoveHash(hash); });
  }
  [[nodiscard]] std::uint64_t Occurrences(std::string_view key) const requires Removable<Filter> {
    return WithRead([&](const Filter& f) { return f.Occurrences(key); });
  }
  [[nodiscard]] std::uint64_t OccurrencesHash(std::uint64_t hash) const requires Removable<Filter> {
    return WithRead([&](const Filter& f) { return f.OccurrencesHash(hash); });
  }

  [[nodiscard]] std::uint64_t count() const {
    return WithRead([](const Filter& f) { return f.count(); });
  }
  [[nodiscard]] std::uint64_t EstimatedCount() const {
    return WithRead([](const Filter& f) { return f.EstimatedCount(); });
  }
  [[nodiscard]] std::uint64_t capacity() const {
    return WithRead([](const Filter& f) { return f.capacity(); });
  }
  [[nodiscard]] double fp_rate() const {
    return WithRead([](const Filter& f) { return f.fp_rate(); });
  }
  [[nodiscard]] double ExpectedFpRate() const {
    return WithRead([](const Filter& f) { return f.ExpectedFpRate(); });
  }
  [[nodiscard]] double EstimatedFpRate() const {
    return WithRead([](const Filter& f) { return f.EstimatedFpRate(); });
  }
  [[nodiscard]] std::uint64_t num_bits() const {
    return WithRead([](const Filter& f) { return f.num_bits(); });
  }
  [[nodiscard]] double FillRatio() const {
    return WithRead([](const Filter& f) { return f.FillRatio(); });
  }
  [[nodiscard]] std::uint64_t memory_bytes() const {
    return WithRead([](const Filter& f) { return f.memory_bytes(); });
  }
  [[nodiscard]] std::uint64_t bytes_held() const {
    return WithRead([](const Filter& f) { return f.bytes_held(); });
  }
  [[nodiscard]] std::vector<std::byte> Serialize(const SaveOptions& options = {}) const {
    return WithRead([&](const Filter& f) { return f.Serialize(options); });
  }

  // A copy taken under the shared lock.
  [[nodiscard]] Filter Snapshot() const {
    return WithRead([](const Filter& f) { return f; });
  }
  // Moves the filter out; the wrapper must not be used afterwards.
  [[nodiscard]] Filter Release() && {
    std::unique_lock lock(mutex_);
    return std::move(filter_);
  }

 private:
  mutable std::shared_mutex mutex_;
  Filter filter_;
};

static_assert(FilterOperations<Synchronized<BloomFilter>>);
static_assert(FilterOperations<Synchronized<CuckooFilter>> && Removable<Synchronized<CuckooFilter>>);

}  // namespace bloomkit
