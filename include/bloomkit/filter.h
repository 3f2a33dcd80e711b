// SPDX-License-Identifier: Apache-2.0
// One vocabulary for every filter kind, as C++20 concepts. Every kind (BloomFilter,
// BlockedBloomFilter, CountingBloomFilter, ScalableBloomFilter, CuckooFilter, the
// concurrent filters, and Synchronized<> for the verbs that apply) spells the same verb
// the same way and returns the same type from it, so code written against these
// concepts works on any kind with no per-kind adapter. Each class checks itself with a
// static_assert beside its definition.
//
// The verbs (F is the kind, key a std::string_view, hash a caller's 64-bit hash):
//
//   Construction (Filter)
//     F::Options                         what Create takes (BloomOptions, CuckooOptions, ...)
//     F::kKind                           the FilterKind written into files
//     F::Create(options)                 -> Result<F>
//     F::Deserialize(bytes, load)        -> Result<F>   (file format v1, docs/FORMAT.md)
//     f.Serialize(save)                  -> std::vector<std::byte>
//   Adding and querying (FilterOperations)
//     f.Add(key)                         -> Outcome       one more key: Status where an add
//     f.AddHash(hash)                    -> Outcome       can fail (a full cuckoo or
//                                                         non-scaling filter is kFull, a
//                                                         stage that cannot be allocated
//                                                         kTooLarge), Done (result.h) where
//                                                         it cannot; the four add verbs of
//                                                         a kind return the same one
//     f.AddIfAbsent(key)                 -> Result<bool>  adds unless it may be present;
//     f.AddHashIfAbsent(hash)            -> Result<bool>  true if it was added
//     f.MayContain(key)                  -> bool          noexcept; never a false negative
//     f.MayContainHash(hash)             -> bool
//     f.AddBatch(keys)                   -> Outcome       in order; stops at the first error
//     f.AddHashBatch(hashes)             -> Outcome       (the keys before it are in)
//     f.MayContainBatch(keys, out)       -> std::size_t   out[i] = MayContain(keys[i]);
//     f.MayContainHashBatch(hashes, out) -> std::size_t   returns how many may be present
//     f.Clear()                          -> void          removes every key
//   Statistics (FilterOperations)
//     f.count()             -> uint64  keys added (as the kind counts them: see its header)
//     f.EstimatedCount()    -> uint64  distinct keys estimated from the filter's state
//     f.capacity()          -> uint64  keys the filter is sized for (all stages)
//     f.fp_rate()           -> double  the target rate it was created with
//     f.ExpectedFpRate()    -> double  the formula's rate with capacity() keys in
//     f.EstimatedFpRate()   -> double  the rate now, from the filter's fill
//     f.num_bits()          -> uint64  bits of filter state (bits, counters, slots)
//     f.FillRatio()         -> double  set bits / bits; cuckoo: used slots / slots
//     f.memory_bytes()      -> uint64  bytes of the filter's arrays (what num_bits costs)
//     f.bytes_held()        -> uint64  every byte the filter holds: its arrays as the
//                                      allocator holds them (Allocator::held: size classes,
//                                      pages) plus bookkeeping (stage and sub-filter
//                                      tables). A value holding F uses its own block
//                                      plus bytes_held().
//   RemovableFilter (counting, cuckoo)
//     f.Remove(key), f.RemoveHash(hash)            -> bool    true if a copy was removed
//     f.Occurrences(key), f.OccurrencesHash(hash)  -> uint64  an upper bound on the copies
//   InfallibleAdd (classic, blocked, concurrent, counting, foreign)
//     the four add verbs return Done: `f.Add(key);` needs no check
//   GrowableFilter (scalable, cuckoo)
//     f.num_stages()        -> std::size_t  stages (scalable) or sub-filters (cuckoo)
//   MergeableFilter (classic, blocked, scalable)
//     f.Merge(other)        -> Status  union with a filter of the same parameters
//
// The batch forms take the same keys as the single ones and give the same answers; the
// Bloom kinds hash a group ahead and prefetch its cache lines (a DRAM-sized filter
// answers a batch ~2-3x faster than a loop, docs/BENCHMARKS.md), the others loop.
//
// Example: one function for every kind.
//
//   template <bloomkit::Filter F>
//   bloomkit::Result<F> Build(const typename F::Options& options, std::span<const std::string_view> keys) {
//     auto filter = F::Create(options);
//     if (!filter.ok()) return filter;
//     if (bloomkit::Status st = filter->AddBatch(keys); !st.ok()) return st.error();
//     return filter;
//   }
//   auto seen = Build<bloomkit::CuckooFilter>({.capacity = 1000, .fp_rate = 0.01}, keys);
//   if constexpr (bloomkit::RemovableFilter<bloomkit::CuckooFilter>) seen->Remove(keys[0]);
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/options.h"
#include "bloomkit/result.h"

namespace bloomkit {

// The verbs on an existing filter: what Synchronized<F> offers too.
template <typename F>
concept FilterOperations = requires(F& f, const F& cf, std::string_view key, std::uint64_t hash,
                                    std::span<const std::string_view> keys, std::span<const std::uint64_t> hashes,
                                    std::span<bool> out, const SaveOptions& save) {
  { f.Add(key) } -> Outcome;
  { f.AddHash(hash) } -> std::same_as<decltype(f.Add(key))>;
  { f.AddIfAbsent(key) } -> std::same_as<Result<bool>>;
  { f.AddHashIfAbsent(hash) } -> std::same_as<Result<bool>>;
  { cf.MayContain(key) } -> std::same_as<bool>;
  { cf.MayContainHash(hash) } -> std::same_as<bool>;
  { f.AddBatch(keys) } -> std::same_as<decltype(f.Add(key))>;
  { f.AddHashBatch(hashes) } -> std::same_as<decltype(f.Add(key))>;
  { cf.MayContainBatch(keys, out) } -> std::same_as<std::size_t>;
  { cf.MayContainHashBatch(hashes, out) } -> std::same_as<std::size_t>;
  { f.Clear() } -> std::same_as<void>;
  { cf.count() } -> std::same_as<std::uint64_t>;
  { cf.EstimatedCount() } -> std::same_as<std::uint64_t>;
  { cf.capacity() } -> std::same_as<std::uint64_t>;
  { cf.fp_rate() } -> std::same_as<double>;
  { cf.ExpectedFpRate() } -> std::same_as<double>;
  { cf.EstimatedFpRate() } -> std::same_as<double>;
  { cf.num_bits() } -> std::same_as<std::uint64_t>;
  { cf.FillRatio() } -> std::same_as<double>;
  { cf.memory_bytes() } -> std::same_as<std::uint64_t>;
  { cf.bytes_held() } -> std::same_as<std::uint64_t>;
  { cf.Serialize(save) } -> std::same_as<std::vector<std::byte>>;
};

// A filter kind: the operations, plus creation from its options and loading from bytes.
template <typename F>
concept Filter = FilterOperations<F> && std::movable<F> &&
    requires(const typename F::Options& options, std::span<const std::byte> bytes, const LoadOptions& load) {
  { F::kKind } -> std::convertible_to<FilterKind>;
  { F::Create(options) } -> std::same_as<Result<F>>;
  { F::Deserialize(bytes, load) } -> std::same_as<Result<F>>;
};

// A kind whose adds cannot fail: Add, AddHash, AddBatch and AddHashBatch return Done.
//   if constexpr (bloomkit::InfallibleAdd<F>) f.Add(key); else ...
template <typename F>
concept InfallibleAdd = FilterOperations<F> && requires(F& f, std::string_view key) {
  { f.Add(key) } -> std::same_as<Done>;
};

// Removal verbs (a kind that stores copies: remove only what was added).
template <typename F>
concept Removable = requires(F& f, const F& cf, std::string_view key, std::uint64_t hash) {
  { f.Remove(key) } -> std::same_as<bool>;
  { f.RemoveHash(hash) } -> std::same_as<bool>;
  { cf.Occurrences(key) } -> std::same_as<std::uint64_t>;
  { cf.OccurrencesHash(hash) } -> std::same_as<std::uint64_t>;
};

template <typename F>
concept RemovableFilter = Filter<F> && Removable<F>;

// A filter that adds stages (sub-filters) when it fills up.
template <typename F>
concept GrowableFilter = Filter<F> && requires(const F& cf) {
  { cf.num_stages() } -> std::same_as<std::size_t>;
};

// A filter that can take the union with another of the same parameters.
template <typename F>
concept MergeableFilter = Filter<F> && requires(F& f, const F& other) {
  { f.Merge(other) } -> std::same_as<Status>;
};

}  // namespace bloomkit
