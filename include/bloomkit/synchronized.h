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
// let references to the filter escape the callable. The shortcuts below cover the
// common calls.
#pragma once

#include <concepts>
#include <mutex>
#include <shared_mutex>
#include <string_view>
#include <type_traits>
#include <utility>

namespace bloomkit {

template <typename Filter>
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

  [[nodiscard]] bool MayContain(std::string_view key) const {
    return WithRead([&](const Filter& f) { return f.MayContain(key); });
  }
  // Whatever Filter::Add returns (void, or a Status for filters that can be full).
  decltype(auto) Add(std::string_view key) requires requires(Filter& f) { f.Add(key); }
  {
    return WithWrite([&](Filter& f) { return f.Add(key); });
  }
  decltype(auto) AddIfAbsent(std::string_view key) requires requires(Filter& f) { f.AddIfAbsent(key); }
  {
    return WithWrite([&](Filter& f) { return f.AddIfAbsent(key); });
  }
  [[nodiscard]] bool Remove(std::string_view key) requires requires(Filter& f) { f.Remove(key); }
  {
    return WithWrite([&](Filter& f) { return f.Remove(key); });
  }
  [[nodiscard]] auto Count(std::string_view key) const requires requires(const Filter& f) { f.Count(key); }
  {
    return WithRead([&](const Filter& f) { return f.Count(key); });
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

}  // namespace bloomkit
