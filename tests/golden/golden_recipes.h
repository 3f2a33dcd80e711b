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
#include "bloomkit/hash.h"

namespace bloomkit_golden {

// "key:0" .. "key:<count-1>".
inline std::vector<std::string> Keys(std::uint64_t count) {
  std::vector<std::string> keys;
  for (std::uint64_t i = 0; i < count; ++i) keys.push_back("key:" + std::to_string(i));
  return keys;
}

// What was added: Keys(num_keys), AddHash(0..num_keys-1), or IntegerKey(-100..99).
enum class KeyForm { kStrings, kHashes, kIntegers };

struct Recipe {
  const char* file;         // name under data/
  const char* description;  // what it pins
  bloomkit::FilterKind kind;
  bool compress;
  KeyForm form;
  std::uint64_t num_keys;
  std::function<std::vector<std::byte>()> build;
};

template <typename Filter>
Filter MakeOrThrow(const bloomkit::BloomOptions& options) {
  auto f = Filter::Create(options);
  if (!f.ok()) throw std::runtime_error(f.error().message());
  return std::move(f).value();
}

template <typename Filter>
std::vector<std::byte> WithKeys(const bloomkit::BloomOptions& options, std::uint64_t n, bool compress) {
  Filter f = MakeOrThrow<Filter>(options);
  for (const std::string& key : Keys(n)) f.Add(key);
  return f.Serialize(bloomkit::SaveOptions{.compress = compress});
}

inline const std::vector<Recipe>& Recipes() {
  using bloomkit::BlockedBloomFilter;
  using bloomkit::BloomFilter;
  using bloomkit::FilterKind;
  static const std::vector<Recipe> recipes = {
      {"classic_empty.bkf", "classic, capacity 1000 at 1%, no keys: sizing and header", FilterKind::kClassic, false,
       KeyForm::kStrings, 0, [] { return WithKeys<BloomFilter>({.capacity = 1000, .fp_rate = 0.01}, 0, false); }},
      {"classic_500.bkf", "classic, capacity 1000 at 1%, key:0..key:499: hash, probes, bit layout",
       FilterKind::kClassic, false, KeyForm::kStrings, 500,
       [] { return WithKeys<BloomFilter>({.capacity = 1000, .fp_rate = 0.01}, 500, false); }},
      {"classic_500_zstd.bkf", "classic_500 with a zstd payload", FilterKind::kClassic, true, KeyForm::kStrings, 500,
       [] { return WithKeys<BloomFilter>({.capacity = 1000, .fp_rate = 0.01}, 500, true); }},
      {"classic_1000bits_k3.bkf", "classic, explicit 1000 bits (not a whole word) and 3 hashes, key:0..key:99",
       FilterKind::kClassic, false, KeyForm::kStrings, 100,
       [] { return WithKeys<BloomFilter>({.num_bits = 1000, .num_hashes = 3}, 100, false); }},
      {"classic_hashes.bkf", "classic, capacity 200 at 1%, AddHash(0..199): ExpandHash", FilterKind::kClassic, false,
       KeyForm::kHashes, 200,
       [] {
         BloomFilter f = MakeOrThrow<BloomFilter>({.capacity = 200, .fp_rate = 0.01});
         for (std::uint64_t i = 0; i < 200; ++i) f.AddHash(i);
         return f.Serialize();
       }},
      {"classic_integers.bkf", "classic, capacity 200 at 1%, IntegerKey(-100..99): integer key bytes",
       FilterKind::kClassic, false, KeyForm::kIntegers, 200,
       [] {
         BloomFilter f = MakeOrThrow<BloomFilter>({.capacity = 200, .fp_rate = 0.01});
         for (std::int64_t i = -100; i < 100; ++i) f.Add(bloomkit::IntegerKey(i));
         return f.Serialize();
       }},
      {"blocked_500.bkf", "blocked, capacity 1000 at 1%, key:0..key:499: block choice, salts, lanes",
       FilterKind::kBlocked, false, KeyForm::kStrings, 500,
       [] { return WithKeys<BlockedBloomFilter>({.capacity = 1000, .fp_rate = 0.01}, 500, false); }},
      {"blocked_500_zstd.bkf", "blocked_500 with a zstd payload", FilterKind::kBlocked, true, KeyForm::kStrings, 500,
       [] { return WithKeys<BlockedBloomFilter>({.capacity = 1000, .fp_rate = 0.01}, 500, true); }},
      {"blocked_k16.bkf", "blocked, 8 blocks and 16 hashes (two bits in every lane), key:0..key:99",
       FilterKind::kBlocked, false, KeyForm::kStrings, 100,
       [] { return WithKeys<BlockedBloomFilter>({.num_bits = 4096, .num_hashes = 16}, 100, false); }},
  };
  return recipes;
}

}  // namespace bloomkit_golden
