// SPDX-License-Identifier: Apache-2.0
// Compiled (never linked) by check_bare_adds.cmake with -Werror: bare add calls, whose
// result is dropped. With BARE_ADDS_OF_FALLIBLE_KINDS the kinds whose adds return a
// [[nodiscard]] Status, where each of the four calls per kind must be refused;
// otherwise the kinds whose adds return Done, where none may be.
#include <cstdint>
#include <span>
#include <string_view>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"
#include "bloomkit/concurrent_bloom_filter.h"
#include "bloomkit/counting_bloom_filter.h"
#include "bloomkit/cuckoo_filter.h"
#include "bloomkit/foreign_bloom.h"
#include "bloomkit/redisbloom.h"
#include "bloomkit/scalable_bloom_filter.h"
#include "bloomkit/synchronized.h"
#include "bloomkit/windowed_bloom_filter.h"

template <typename F>
void BareAdds(F& f, std::span<const std::string_view> keys, std::span<const std::uint64_t> hashes) {
  f.Add("key");
  f.AddHash(42);
  f.AddBatch(keys);
  f.AddHashBatch(hashes);
}

template <typename... F>
void AllOf(std::span<const std::string_view> keys, std::span<const std::uint64_t> hashes, F&... f) {
  (BareAdds(f, keys, hashes), ...);
}

#ifdef BARE_ADDS_OF_FALLIBLE_KINDS
// 6 kinds x 4 calls: 24 refusals.
void Fallible(bloomkit::ScalableBloomFilter& a, bloomkit::CuckooFilter& b, bloomkit::WindowedBloomFilter& c,
              bloomkit::RedisBloomScalableFilter& d, bloomkit::RedisCuckooFilter& e,
              bloomkit::Synchronized<bloomkit::CuckooFilter>& f) {
  AllOf({}, {}, a, b, c, d, e, f);
}
#else
void Infallible(bloomkit::BloomFilter& a, bloomkit::BlockedBloomFilter& b, bloomkit::ConcurrentBloomFilter& c,
                bloomkit::ConcurrentBlockedBloomFilter& d, bloomkit::CountingBloomFilter& e,
                bloomkit::ParquetBloomFilter& f, bloomkit::BitsAndBloomsFilter& g, bloomkit::GuavaBloomFilter& h,
                bloomkit::Synchronized<bloomkit::BloomFilter>& i) {
  AllOf({}, {}, a, b, c, d, e, f, g, h, i);
}
#endif
