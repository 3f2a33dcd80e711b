// SPDX-License-Identifier: Apache-2.0
// The load generator: concurrent clients send a mix of requests for existing and
// missing ids through UserService for a fixed time, check every answer, and count
// what reached the database.
//
//   existing ids: uniform over 1..users (all in the database)
//   missing ids:  uniform over [kMissingIdBase, kMissingIdBase + missing_keyspace),
//                 a range no row is ever inserted into
//   inserted ids: users+1, users+2, ... added during the run by one writer through
//                 UserService::Insert and read back at once (the filter stays in sync)
//
// Each client is a thread with its own Redis connection and its own read-only database
// connection, as each worker of a service would have.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "redis_connection.h"
#include "user_service.h"
#include "user_store.h"

namespace cache_guard {

inline constexpr std::uint64_t kMissingIdBase = 1'000'000'000'000;

struct LoadConfig {
  GuardMode mode = GuardMode::kNone;
  RedisEndpoint redis;
  int redis_db = 0;
  std::uint64_t users = 1'000'000;
  double missing_ratio = 0.5;
  std::uint64_t missing_keyspace = 1'000'000;
  double seconds = 20;
  std::uint32_t clients = 4;
  double insert_rate = 20;  // rows per second added while the load runs; 0 for none
  std::uint64_t seed = 1;
  ServiceOptions service;
  FilterLoadOptions filter;
  // kBloom: distinct missing ids checked with BF.MEXISTS after the run, a second and
  // independent measure of the false-positive rate (requests repeat ids; these don't).
  std::uint64_t fp_probe_ids = 100'000;
};

// Latency histogram with log-linear buckets: exact below 64 ns, then 64 buckets per
// power of two, so a percentile is within 1/64 (1.6%) of the true value. Fixed size
// (30 KiB), merged across threads at the end.
class LatencyHistogram {
 public:
  void Record(std::uint64_t nanos) noexcept;
  void Merge(const LatencyHistogram& other) noexcept;
  // The q-quantile (0 < q <= 1) in nanoseconds: the midpoint of its bucket; 0 if empty.
  [[nodiscard]] double QuantileNanos(double q) const noexcept;
  [[nodiscard]] double MeanNanos() const noexcept;
  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }

 private:
  static constexpr int kSubBits = 6;
  static constexpr std::size_t kSub = std::size_t{1} << kSubBits;
  static constexpr std::size_t kBuckets = kSub * (64 - kSubBits + 1);

  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t count_ = 0;
  double sum_nanos_ = 0;
};

struct ModeReport {
  GuardMode mode = GuardMode::kNone;
  double seconds = 0;
  std::uint32_t clients = 0;
  std::uint64_t requests = 0;
  std::uint64_t requests_missing = 0;
  double requests_per_s = 0;
  std::uint64_t db_queries = 0;
  std::uint64_t db_queries_for_missing = 0;
  std::uint64_t cache_hits = 0;
  std::uint64_t filter_rejections = 0;
  std::uint64_t wrong_answers = 0;  // existing id without its row, or a missing id with one
  double p50_ms = 0;
  double p99_ms = 0;
  double mean_ms = 0;
  std::uint64_t cache_bytes = 0;  // used_memory after the run minus before it
  std::uint64_t cache_keys = 0;
  std::uint64_t inserted = 0;
  std::uint64_t inserted_found = 0;  // inserted rows that Get returned right after
  // kBloom only.
  std::uint64_t filter_bytes = 0;
  std::uint64_t filter_capacity = 0;
  std::uint64_t filter_items = 0;
  double filter_target_fp_rate = 0;
  double filter_fp_rate = 0;  // missing-id requests that passed the filter / missing-id requests
  std::uint64_t filter_probe_ids = 0;
  std::uint64_t filter_probe_passed = 0;
  double filter_load_seconds = 0;

  [[nodiscard]] double db_queries_per_1000_missing() const noexcept {
    return requests_missing == 0
               ? 0.0
               : 1000.0 * static_cast<double>(db_queries_for_missing) / static_cast<double>(requests_missing);
  }
};

// Runs one mode: FLUSHDB, (kBloom) load the filter, run the load, measure. Rows it
// inserts get ids from `next_insert_id` on, which it advances.
Result<ModeReport> RunMode(UserDatabase& database, const LoadConfig& config, std::uint64_t& next_insert_id);

}  // namespace cache_guard
