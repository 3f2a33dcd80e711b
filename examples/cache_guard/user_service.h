// SPDX-License-Identifier: Apache-2.0
// The read path of a user service with a cache in front of its database, in three
// modes, and the start-up step that loads the Bloom filter.
//
// Cache penetration: a request for an id that exists in neither the cache nor the
// database misses the cache every time and falls through to the database. A scan, an
// attack or a bug that asks for many such ids puts the whole request rate on the
// database. The modes:
//
//   kNone        GET user:<id>; on a miss SELECT and, if found, SET with a TTL.
//                Every request for a missing id is a database query.
//   kEmptyCache  as kNone, and a miss in the database is cached too, as an empty value
//                (a tombstone) with a short TTL. Helps only when the same missing id
//                comes back within the TTL; costs cache memory per missing id.
//   kBloom       BF.EXISTS users:filter <id> first: 0 means "definitely not in the
//                database" and the request ends there. Only the filter's false
//                positives (fp_rate of the missing ids) reach the database.
//
// In kBloom the BF.EXISTS and the GET go out in one pipeline, so a request costs one
// round trip as in the other modes; the GET's reply is ignored when the filter says 0.
//
// Insert keeps the filter in sync: BF.ADD before the database INSERT (a reader between
// the two sees a false positive, which is harmless; the other order would let it see a
// false negative, a wrong "not found"), then DEL of any tombstone.
//
// One UserService per thread: it uses its connections without locking.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "redis_connection.h"
#include "user_store.h"

namespace cache_guard {

enum class GuardMode { kNone, kEmptyCache, kBloom };

// "none", "empty-cache", "bloom".
std::string_view GuardModeName(GuardMode mode) noexcept;
Result<GuardMode> ParseGuardMode(std::string_view name);

struct ServiceOptions {
  std::string filter_key = "users:filter";
  std::string cache_prefix = "user:";
  std::uint32_t cache_ttl_s = 300;     // rows found in the database
  std::uint32_t tombstone_ttl_s = 60;  // kEmptyCache: "not in the database"
};

// What one Get did, for the load generator's counters.
struct Lookup {
  std::optional<User> user;
  bool filter_rejected = false;  // kBloom: the filter answered "definitely not"
  bool cache_hit = false;        // answered from Redis (a row or a tombstone)
  bool db_queried = false;
};

class UserService {
 public:
  UserService(GuardMode mode, RedisConnection& redis, UserStore& store, ServiceOptions options = {});

  Result<Lookup> Get(std::uint64_t id);
  Status Insert(const User& user);

  [[nodiscard]] GuardMode mode() const noexcept { return mode_; }

 private:
  std::string CacheKey(std::string_view id) const;

  GuardMode mode_;
  RedisConnection& redis_;
  UserStore& store_;
  ServiceOptions options_;
  std::string cache_ttl_;
  std::string tombstone_ttl_;
};

struct FilterLoadOptions {
  std::string filter_key = "users:filter";
  double fp_rate = 0.01;
  // Capacity = rows x headroom: room for the rows inserted before the next rebuild. Past
  // capacity RedisBloom-style filters stack a larger sub-filter (expansion), so the rate
  // degrades gently rather than failing.
  double headroom = 1.1;
  std::size_t batch = 1000;         // ids per BF.MADD
  std::size_t pipeline_depth = 16;  // BF.MADD commands in flight
  std::size_t scan_batch = 10'000;  // ids per database page
  ProgressFn progress;              // (ids loaded, rows)
};

struct FilterLoadReport {
  std::uint64_t ids_loaded = 0;
  std::uint64_t capacity = 0;
  double seconds = 0;
};

// Creates the filter (BF.RESERVE key fp_rate capacity, sized from the row count) and
// adds every id in the database to it with pipelined BF.MADD. The key must not exist.
Result<FilterLoadReport> LoadFilter(RedisConnection& redis, UserStore& store, const FilterLoadOptions& options);

// BF.INFO's fields.
struct FilterInfo {
  std::uint64_t capacity = 0;
  std::uint64_t bytes = 0;  // "Size"
  std::uint64_t num_filters = 0;
  std::uint64_t count = 0;  // "Number of items inserted"
  std::uint64_t expansion = 0;
};
Result<FilterInfo> ReadFilterInfo(RedisConnection& redis, std::string_view key);

}  // namespace cache_guard
