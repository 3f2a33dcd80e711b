// SPDX-License-Identifier: Apache-2.0
// The recipes of the golden files in data/: how each checked-in filter was built.
// make_golden.cc writes them; golden_test.cc rebuilds them and compares byte for byte,
// so a change to hashing, sizing, the bit layout or the file format fails a test.
//
// Keys are readable ("key:0", "key:1", ...) so that any implementation, in any
// language, can check a golden file with nothing but this description.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/hash.h"
#include "bloomkit/scalable_bloom_filter.h"
#include "bloomkit/windowed_bloom_filter.h"

namespace bloomkit_golden {

// "key:0" .. "key:<count-1>".
inline std::vector<std::string> Keys(std::uint64_t count) {
  std::vector<std::string> keys;
  for (std::uint64_t i = 0; i < count; ++i) keys.push_back("key:" + std::to_string(i));
  return keys;
}

// What the filter holds: Keys(num_keys), AddHash(0..num_keys-1), or IntegerKey(-100..99).
// (A recipe may add and remove more keys; these are the ones left.)
enum class KeyForm { kStrings, kHashes, kIntegers };

// key:0 .. key:68 are 69 fingerprints for cuckoo_victim.bkf's 17 buckets of 4 slots: the last
// add leaves one in the victim slot (the next add is kFull).
inline constexpr std::uint64_t kCuckooVictimKeys = 69;

struct Recipe {
  const char* file;         // name under data/
  const char* description;  // what it pins
  bloomkit::FilterKind kind;
  bool compress;
  KeyForm form;
  std::uint64_t num_keys;
  std::function<std::vector<std::byte>()> build;
};

inline void OkOrThrow(const bloomkit::Status& status) {
  if (!status.ok()) throw std::runtime_error(status.error().message());
}

template <typename Filter, typename Options = bloomkit::BloomOptions>
Filter MakeOrThrow(const Options& options) {
  auto f = Filter::Create(options);
  if (!f.ok()) throw std::runtime_error(f.error().message());
  return std::move(f).value();
}

template <typename Filter, typename Options = bloomkit::BloomOptions>
std::vector<std::byte> WithKeys(const Options& options, std::uint64_t n, bool compress) {
  Filter f = MakeOrThrow<Filter>(options);
  for (const std::string& key : Keys(n)) OkOrThrow(f.Add(key));
  return f.Serialize(bloomkit::SaveOptions{.compress = compress});
}

inline void NewOrThrow(const bloomkit::Result<bool>& added) {
  if (!added.ok()) throw std::runtime_error(added.error().message());
}

// The classic and blocked files hold the count of the adds that set a new bit: the
// count AddIfAbsent keeps (Add counts every add), so their recipes add with it.
template <typename Filter>
std::vector<std::byte> WithNewKeys(const bloomkit::BloomOptions& options, std::uint64_t n, bool compress) {
  Filter f = MakeOrThrow<Filter>(options);
  for (const std::string& key : Keys(n)) NewOrThrow(f.AddIfAbsent(key));
  return f.Serialize(bloomkit::SaveOptions{.compress = compress});
}

// key:0 .. key:<n-1> into a scalable filter (AddIfAbsent: its only add).
inline std::vector<std::byte> ScalableWithKeys(const bloomkit::ScalableOptions& options, std::uint64_t n) {
  auto f = MakeOrThrow<bloomkit::ScalableBloomFilter>(options);
  for (const std::string& key : Keys(n)) {
    auto added = f.AddIfAbsent(key);
    if (!added.ok()) throw std::runtime_error(added.error().message());
  }
  return f.Serialize();
}

// key:0 .. key:<n-1> into a cuckoo filter.
inline std::vector<std::byte> CuckooWithKeys(const bloomkit::CuckooOptions& options, std::uint64_t n) {
  auto f = MakeOrThrow<bloomkit::CuckooFilter>(options);
  for (const std::string& key : Keys(n)) OkOrThrow(f.Add(key));
  return f.Serialize();
}

inline const std::vector<Recipe>& Recipes() {
  using bloomkit::BlockedBloomFilter;
  using bloomkit::BloomFilter;
  using bloomkit::CountingBloomFilter;
  using bloomkit::CuckooFilter;
  using bloomkit::FilterKind;
  static const std::vector<Recipe> recipes = {
      // Written when XXH3-128 (hash id 1) was the classic filter's default; new filters
      // get hash id 4 unless they ask, so these ask.
      {"classic_empty.bkf", "classic, capacity 1000 at 1%, no keys: sizing and header", FilterKind::kClassic, false,
       KeyForm::kStrings, 0,
       [] {
         return WithNewKeys<BloomFilter>(
             {.capacity = 1000, .fp_rate = 0.01, .hash_id = bloomkit::kHashIdXxh3DoubleHashing}, 0, false);
       }},
      {"classic_500.bkf", "classic, capacity 1000 at 1%, key:0..key:499: hash, probes, bit layout",
       FilterKind::kClassic, false, KeyForm::kStrings, 500,
       [] {
         return WithNewKeys<BloomFilter>(
             {.capacity = 1000, .fp_rate = 0.01, .hash_id = bloomkit::kHashIdXxh3DoubleHashing}, 500, false);
       }},
      {"classic_500_zstd.bkf", "classic_500 with a zstd payload", FilterKind::kClassic, true, KeyForm::kStrings, 500,
       [] {
         return WithNewKeys<BloomFilter>(
             {.capacity = 1000, .fp_rate = 0.01, .hash_id = bloomkit::kHashIdXxh3DoubleHashing}, 500, true);
       }},
      {"classic_1000bits_k3.bkf", "classic, explicit 1000 bits (not a whole word) and 3 hashes, key:0..key:99",
       FilterKind::kClassic, false, KeyForm::kStrings, 100,
       [] {
         return WithNewKeys<BloomFilter>(
             {.num_bits = 1000, .num_hashes = 3, .hash_id = bloomkit::kHashIdXxh3DoubleHashing}, 100, false);
       }},
      {"classic_hashes.bkf", "classic, capacity 200 at 1%, AddHash(0..199): ExpandHash", FilterKind::kClassic, false,
       KeyForm::kHashes, 200,
       [] {
         BloomFilter f = MakeOrThrow<BloomFilter>(
             {.capacity = 200, .fp_rate = 0.01, .hash_id = bloomkit::kHashIdXxh3DoubleHashing});
         for (std::uint64_t i = 0; i < 200; ++i) NewOrThrow(f.AddHashIfAbsent(i));
         return f.Serialize();
       }},
      {"classic_integers.bkf", "classic, capacity 200 at 1%, IntegerKey(-100..99): integer key bytes",
       FilterKind::kClassic, false, KeyForm::kIntegers, 200,
       [] {
         BloomFilter f = MakeOrThrow<BloomFilter>(
             {.capacity = 200, .fp_rate = 0.01, .hash_id = bloomkit::kHashIdXxh3DoubleHashing});
         for (std::int64_t i = -100; i < 100; ++i) NewOrThrow(f.AddIfAbsent(bloomkit::IntegerKey(i)));
         return f.Serialize();
       }},
      // Written when 512-bit blocks were the layout of every blocked filter; today a filter
      // sized at 1% gets 256-bit blocks unless it asks (DefaultBlockedLayout), so these ask.
      {"blocked_500.bkf", "blocked, capacity 1000 at 1%, key:0..key:499: block choice, salts, lanes",
       FilterKind::kBlocked, false, KeyForm::kStrings, 500,
       [] {
         return WithNewKeys<BlockedBloomFilter>(
             {.capacity = 1000, .fp_rate = 0.01, .blocked_layout = bloomkit::BlockedLayout::kLines512}, 500, false);
       }},
      {"blocked_500_zstd.bkf", "blocked_500 with a zstd payload", FilterKind::kBlocked, true, KeyForm::kStrings, 500,
       [] {
         return WithNewKeys<BlockedBloomFilter>(
             {.capacity = 1000, .fp_rate = 0.01, .blocked_layout = bloomkit::BlockedLayout::kLines512}, 500, true);
       }},
      {"blocked_k16.bkf", "blocked, 8 blocks and 16 hashes (two bits in every lane), key:0..key:99",
       FilterKind::kBlocked, false, KeyForm::kStrings, 100,
       [] { return WithNewKeys<BlockedBloomFilter>({.num_bits = 4096, .num_hashes = 16}, 100, false); }},
      // Blocked filters of 256-bit blocks (layout 1, hash id 3: XXH3-64).
      {"blocked256_500.bkf", "blocked, 256-bit blocks, capacity 1000 at 1%, key:0..key:499: XXH3-64, lanes",
       FilterKind::kBlocked, false, KeyForm::kStrings, 500,
       [] {
         return WithNewKeys<BlockedBloomFilter>({.capacity = 1000,
                                                 .fp_rate = 0.01,
                                                 .blocked_layout = bloomkit::BlockedLayout::kLanes256,
                                                 .hash_id = bloomkit::kHashIdXxh3x64},
                                                500, false);
       }},
      {"blocked256_k5_hashes.bkf",
       "blocked, 256-bit blocks, 8 blocks and 5 hashes (lanes 5..7 empty), AddHash(0..99): the caller-hash mix",
       FilterKind::kBlocked, false, KeyForm::kHashes, 100,
       [] {
         BlockedBloomFilter f = MakeOrThrow<BlockedBloomFilter>({.num_bits = 2048,
                                                                 .num_hashes = 5,
                                                                 .blocked_layout = bloomkit::BlockedLayout::kLanes256,
                                                                 .hash_id = bloomkit::kHashIdXxh3x64});
         for (std::uint64_t i = 0; i < 100; ++i) NewOrThrow(f.AddHashIfAbsent(i));
         return f.Serialize();
       }},
      // Counting, scalable and cuckoo filters are what the Redis module writes into RDB
      // files (docs/REDIS.md): their payloads are pinned like the Bloom filters'.
      {"counting_500.bkf", "counting, 4-bit counters, capacity 1000 at 1%, key:0..key:499: counter packing",
       FilterKind::kCounting, false, KeyForm::kStrings, 500,
       [] {
         return WithKeys<CountingBloomFilter>(bloomkit::CountingOptions{.bloom = {.capacity = 1000}}, 500, false);
       }},
      {"counting_8bit_removed.bkf",
       "counting, 8-bit counters, capacity 500 at 1%, key:0..key:399 added twice, key:200..key:399 removed once "
       "and key:300..key:399 twice: decrements, counts above 1",
       FilterKind::kCounting, false, KeyForm::kStrings, 300,
       [] {
         auto f = MakeOrThrow<CountingBloomFilter>(
             bloomkit::CountingOptions{.bloom = {.capacity = 500, .fp_rate = 0.01}, .counter_bits = 8});
         const std::vector<std::string> keys = Keys(400);
         for (int round = 0; round < 2; ++round) {
           for (const std::string& key : keys) OkOrThrow(f.Add(key));
         }
         for (std::size_t i = 200; i < 400; ++i) static_cast<void>(f.Remove(keys[i]));
         for (std::size_t i = 300; i < 400; ++i) static_cast<void>(f.Remove(keys[i]));
         return f.Serialize();
       }},
      {"counting_500_zstd.bkf", "counting_500 with a zstd payload", FilterKind::kCounting, true, KeyForm::kStrings, 500,
       [] { return WithKeys<CountingBloomFilter>(bloomkit::CountingOptions{.bloom = {.capacity = 1000}}, 500, true); }},
      {"scalable_500.bkf",
       "scalable, initial capacity 100 at 1%, growth 2, tightening 0.5, key:0..key:499: three stages",
       FilterKind::kScalable, false, KeyForm::kStrings, 500,
       [] { return ScalableWithKeys({.initial_capacity = 100, .fp_rate = 0.01, .whole_word_stages = false}, 500); }},
      {"scalable_g4_r09.bkf", "scalable, initial capacity 50 at 0.1%, growth 4, tightening 0.9, key:0..key:299",
       FilterKind::kScalable, false, KeyForm::kStrings, 300,
       [] {
         return ScalableWithKeys(
             {.initial_capacity = 50, .fp_rate = 0.001, .expansion = 4, .tightening = 0.9, .whole_word_stages = false},
             300);
       }},
      {"scalable_nonscaling.bkf", "scalable, not scaling, capacity 200 at 1%, key:0..key:199: one full stage",
       FilterKind::kScalable, false, KeyForm::kStrings, 200,
       [] {
         return ScalableWithKeys(
             {.initial_capacity = 200, .fp_rate = 0.01, .non_scaling = true, .whole_word_stages = false}, 200);
       }},
      {"scalable_500_words.bkf",
       "scalable_500 with today's stages, which use every bit of their 64-bit words: stage sizing",
       FilterKind::kScalable, false, KeyForm::kStrings, 500,
       [] { return ScalableWithKeys({.initial_capacity = 100, .fp_rate = 0.01}, 500); }},
      {"cuckoo_500.bkf", "cuckoo, capacity 1000 at 1% (b = 4, f = 8), key:0..key:499: fingerprints, buckets",
       FilterKind::kCuckoo, false, KeyForm::kStrings, 500,
       [] { return CuckooWithKeys({.capacity = 1000, .fp_rate = 0.01}, 500); }},
      {"cuckoo_grown_removed.bkf",
       "cuckoo, capacity 100, b = 2, f = 12, expansion 2, key:0..key:599 added, key:400..key:599 removed: "
       "kicks, sub-filters, nested geometry, removes",
       FilterKind::kCuckoo, false, KeyForm::kStrings, 400,
       [] {
         auto f = MakeOrThrow<CuckooFilter>(
             bloomkit::CuckooOptions{.capacity = 100, .bucket_size = 2, .fingerprint_bits = 12, .expansion = 2});
         const std::vector<std::string> keys = Keys(600);
         for (const std::string& key : keys) OkOrThrow(f.Add(key));
         for (std::size_t i = 400; i < 600; ++i) static_cast<void>(f.Remove(keys[i]));
         return f.Serialize();
       }},
      {"cuckoo_victim.bkf",
       "cuckoo, capacity 64, b = 4, f = 16, no expansion, key:0.. added until the victim slot holds a "
       "fingerprint (max_kicks 50): the victim fields",
       FilterKind::kCuckoo, false, KeyForm::kStrings, kCuckooVictimKeys,
       [] {
         auto f = MakeOrThrow<CuckooFilter>(bloomkit::CuckooOptions{
             .capacity = 64, .bucket_size = 4, .fingerprint_bits = 16, .max_kicks = 50, .expansion = 0});
         for (const std::string& key : Keys(kCuckooVictimKeys)) OkOrThrow(f.Add(key));
         return f.Serialize();
       }},
      {"windowed_300.bkf",
       "windowed, capacity 400 at 1%, window 4000 in 4 generations, key:i added at time 10 i for i < 300: "
       "three generations of one stage each (c = 100, r = 0.00125), slot records, the clock",
       FilterKind::kWindowed, false, KeyForm::kStrings, 300,
       [] {
         auto f = MakeOrThrow<bloomkit::WindowedBloomFilter>(
             bloomkit::WindowedOptions{.capacity = 400, .fp_rate = 0.01, .window = 4000, .generations = 4});
         const std::vector<std::string> keys = Keys(300);
         for (std::size_t i = 0; i < keys.size(); ++i) OkOrThrow(f.AddAt(keys[i], 10 * i));
         return f.Serialize();
       }},
  };
  return recipes;
}

}  // namespace bloomkit_golden
