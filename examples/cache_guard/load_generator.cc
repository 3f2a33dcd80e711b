// SPDX-License-Identifier: Apache-2.0
#include "load_generator.h"

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "util.h"

namespace cache_guard {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t Nanos(Clock::duration d) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

struct ClientCounters {
  std::uint64_t requests = 0;
  std::uint64_t requests_missing = 0;
  std::uint64_t db_queries = 0;
  std::uint64_t db_queries_for_missing = 0;
  std::uint64_t cache_hits = 0;
  std::uint64_t filter_rejections = 0;
  std::uint64_t filter_passed_missing = 0;
  std::uint64_t wrong_answers = 0;
  LatencyHistogram latency;
};

// The first error of any thread stops all of them.
class SharedError {
 public:
  void Set(const Error& error) {
    std::lock_guard lock(mutex_);
    if (!error_.has_value()) error_ = error;
    stop_.store(true, std::memory_order_relaxed);
  }
  [[nodiscard]] bool stopped() const { return stop_.load(std::memory_order_relaxed); }
  std::optional<Error> Take() {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  std::mutex mutex_;
  std::optional<Error> error_;
  std::atomic<bool> stop_{false};
};

void RunClient(UserDatabase& database, const LoadConfig& config, std::uint32_t index, Clock::time_point deadline,
               ClientCounters& counters, SharedError& shared) {
  auto redis = RedisConnection::Connect(config.redis, config.redis_db);
  if (!redis.ok()) return shared.Set(redis.error());
  auto store = database.Connect({.read_only = true});
  if (!store.ok()) return shared.Set(store.error());
  UserService service(config.mode, redis.value(), *store.value(), config.service);

  std::mt19937_64 rng(config.seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(config.mode) * 1000 + index);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::uniform_int_distribution<std::uint64_t> existing(1, config.users);
  std::uniform_int_distribution<std::uint64_t> missing(kMissingIdBase, kMissingIdBase + config.missing_keyspace - 1);

  while (!shared.stopped()) {
    const bool is_missing = coin(rng) < config.missing_ratio;
    const std::uint64_t id = is_missing ? missing(rng) : existing(rng);
    const auto start = Clock::now();
    auto lookup = service.Get(id);
    const auto end = Clock::now();
    if (!lookup.ok()) return shared.Set(lookup.error());
    counters.latency.Record(Nanos(end - start));
    ++counters.requests;
    const Lookup& answer = lookup.value();
    counters.cache_hits += answer.cache_hit ? 1u : 0u;
    counters.db_queries += answer.db_queried ? 1u : 0u;
    counters.filter_rejections += answer.filter_rejected ? 1u : 0u;
    if (is_missing) {
      ++counters.requests_missing;
      counters.db_queries_for_missing += answer.db_queried ? 1u : 0u;
      counters.filter_passed_missing += (config.mode == GuardMode::kBloom && !answer.filter_rejected) ? 1u : 0u;
      counters.wrong_answers += answer.user.has_value() ? 1u : 0u;
    } else {
      counters.wrong_answers += (answer.user != MakeUser(id)) ? 1u : 0u;
    }
    if (end >= deadline) break;
  }
}

// One writer: inserts rows at `insert_rate` per second through the service, and reads
// each one back through the service at once.
void RunInserter(UserDatabase& database, const LoadConfig& config, Clock::time_point deadline,
                 std::uint64_t& next_insert_id, std::uint64_t& inserted, std::uint64_t& found, SharedError& shared) {
  auto redis = RedisConnection::Connect(config.redis, config.redis_db);
  if (!redis.ok()) return shared.Set(redis.error());
  auto store = database.Connect({.read_only = false});
  if (!store.ok()) return shared.Set(store.error());
  UserService service(config.mode, redis.value(), *store.value(), config.service);
  const auto interval =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / config.insert_rate));
  auto next = Clock::now();
  while (!shared.stopped() && next < deadline) {
    std::this_thread::sleep_until(next);
    next += interval;
    const User user = MakeUser(next_insert_id++);
    if (auto status = service.Insert(user); !status.ok()) return shared.Set(status.error());
    ++inserted;
    auto lookup = service.Get(user.id);
    if (!lookup.ok()) return shared.Set(lookup.error());
    found += lookup.value().user == user ? 1u : 0u;
  }
}

// BF.MEXISTS over `count` distinct ids that were never inserted, above the requests'
// missing range: how many the filter lets through.
Result<std::uint64_t> ProbeFilter(RedisConnection& redis, const LoadConfig& config, std::uint64_t count) {
  constexpr std::uint64_t kBatch = 1000;
  constexpr std::size_t kDepth = 8;
  const std::uint64_t first = kMissingIdBase + config.missing_keyspace;
  std::uint64_t passed = 0;
  std::size_t in_flight = 0;
  std::vector<std::string> texts;
  std::vector<std::string_view> args;
  auto drain_one = [&]() -> Status {
    auto reply = redis.ReadReply();
    --in_flight;
    if (!reply.ok()) return reply.error();
    const redisReply* array = reply.value().get();
    if (array->type != REDIS_REPLY_ARRAY) return MakeError(ErrorCode::kParameterMismatch, "BF.MEXISTS: not an array");
    for (std::size_t i = 0; i < array->elements; ++i) passed += array->element[i]->integer == 1 ? 1u : 0u;
    return {};
  };
  for (std::uint64_t begin = 0; begin < count; begin += kBatch) {
    const std::uint64_t end = std::min(count, begin + kBatch);
    texts.clear();
    for (std::uint64_t i = begin; i < end; ++i) texts.push_back(std::to_string(first + i));
    args.assign({"BF.MEXISTS", config.service.filter_key});
    for (const auto& text : texts) args.push_back(text);
    redis.Append(std::span<const std::string_view>(args));
    if (++in_flight >= kDepth) {
      if (auto status = drain_one(); !status.ok()) return status.error();
    }
  }
  while (in_flight > 0) {
    if (auto status = drain_one(); !status.ok()) return status.error();
  }
  return passed;
}

Status ValidateConfig(const LoadConfig& config) {
  if (config.users < 1) return MakeError(ErrorCode::kInvalidArgument, "users must be at least 1, got ", config.users);
  if (config.users >= kMissingIdBase / 2) {
    return MakeError(ErrorCode::kInvalidArgument, "users must be below ", kMissingIdBase / 2, ", got ", config.users);
  }
  if (!(config.missing_ratio >= 0.0 && config.missing_ratio <= 1.0)) {
    return MakeError(ErrorCode::kInvalidArgument, "missing ratio must be in [0, 1], got ", config.missing_ratio);
  }
  if (config.missing_keyspace < 1 || config.missing_keyspace > kMissingIdBase) {
    return MakeError(ErrorCode::kInvalidArgument, "missing keyspace must be in [1, ", kMissingIdBase, "], got ",
                     config.missing_keyspace);
  }
  if (!(config.seconds > 0.0 && config.seconds <= 3600.0)) {
    return MakeError(ErrorCode::kInvalidArgument, "seconds must be in (0, 3600], got ", config.seconds);
  }
  if (config.clients < 1 || config.clients > 256) {
    return MakeError(ErrorCode::kInvalidArgument, "clients must be in [1, 256], got ", config.clients);
  }
  if (!(config.insert_rate >= 0.0 && config.insert_rate <= 10'000.0)) {
    return MakeError(ErrorCode::kInvalidArgument, "insert rate must be in [0, 10000] rows/s, got ", config.insert_rate);
  }
  return {};
}

}  // namespace

void LatencyHistogram::Record(std::uint64_t nanos) noexcept {
  std::size_t index;
  if (nanos < kSub) {
    index = static_cast<std::size_t>(nanos);
  } else {
    const int exponent = 63 - std::countl_zero(nanos);  // >= kSubBits
    const int shift = exponent - kSubBits;
    index = static_cast<std::size_t>(shift + 1) * kSub + static_cast<std::size_t>((nanos >> shift) - kSub);
  }
  ++counts_[index];
  ++count_;
  sum_nanos_ += static_cast<double>(nanos);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) noexcept {
  for (std::size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_nanos_ += other.sum_nanos_;
}

double LatencyHistogram::QuantileNanos(double q) const noexcept {
  if (count_ == 0) return 0;
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_))));
  std::uint64_t seen = 0;
  for (std::size_t index = 0; index < kBuckets; ++index) {
    seen += counts_[index];
    if (seen < rank) continue;
    if (index < kSub) return static_cast<double>(index);
    const std::size_t shift = index / kSub - 1;
    const double low = static_cast<double>((kSub + index % kSub) << shift);
    return low + static_cast<double>(std::uint64_t{1} << shift) / 2.0;
  }
  return 0;
}

double LatencyHistogram::MeanNanos() const noexcept {
  return count_ == 0 ? 0.0 : sum_nanos_ / static_cast<double>(count_);
}

Result<ModeReport> RunMode(UserDatabase& database, const LoadConfig& config, std::uint64_t& next_insert_id) {
  if (auto status = ValidateConfig(config); !status.ok()) return status.error();
  auto admin = RedisConnection::Connect(config.redis, config.redis_db);
  if (!admin.ok()) return std::move(admin).error();
  RedisConnection& redis = admin.value();

  ModeReport report;
  report.mode = config.mode;
  report.clients = config.clients;
  // Each mode starts from an empty cache: no mode profits from another's cached rows.
  if (auto flushed = redis.Command({"FLUSHDB"}); !flushed.ok()) return std::move(flushed).error();

  if (config.mode == GuardMode::kBloom) {
    auto store = database.Connect({.read_only = true});
    if (!store.ok()) return std::move(store).error();
    ProgressBar bar("loading filter");
    FilterLoadOptions options = config.filter;
    options.filter_key = config.service.filter_key;
    options.progress = [&bar](std::uint64_t done, std::uint64_t total) { bar.Update(done, total); };
    auto loaded = LoadFilter(redis, *store.value(), options);
    bar.Finish();
    if (!loaded.ok()) return std::move(loaded).error();
    report.filter_load_seconds = loaded->seconds;
    report.filter_target_fp_rate = options.fp_rate;
  }
  auto memory_before = redis.UsedMemory();
  if (!memory_before.ok()) return std::move(memory_before).error();

  std::vector<ClientCounters> counters(config.clients);
  SharedError shared;
  const auto start = Clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(config.seconds));
  {
    std::vector<std::jthread> threads;
    for (std::uint32_t i = 0; i < config.clients; ++i) {
      threads.emplace_back([&, i] { RunClient(database, config, i, deadline, counters[i], shared); });
    }
    if (config.insert_rate > 0) {
      threads.emplace_back([&] {
        RunInserter(database, config, deadline, next_insert_id, report.inserted, report.inserted_found, shared);
      });
    }
  }
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (auto error = shared.Take(); error.has_value()) return *error;

  LatencyHistogram latency;
  std::uint64_t filter_passed_missing = 0;
  for (const auto& c : counters) {
    report.requests += c.requests;
    report.requests_missing += c.requests_missing;
    report.db_queries += c.db_queries;
    report.db_queries_for_missing += c.db_queries_for_missing;
    report.cache_hits += c.cache_hits;
    report.filter_rejections += c.filter_rejections;
    report.wrong_answers += c.wrong_answers;
    filter_passed_missing += c.filter_passed_missing;
    latency.Merge(c.latency);
  }
  report.requests_per_s = static_cast<double>(report.requests) / report.seconds;
  report.p50_ms = latency.QuantileNanos(0.50) / 1e6;
  report.p99_ms = latency.QuantileNanos(0.99) / 1e6;
  report.mean_ms = latency.MeanNanos() / 1e6;

  auto memory_after = redis.UsedMemory();
  if (!memory_after.ok()) return std::move(memory_after).error();
  report.cache_bytes = memory_after.value() > memory_before.value() ? memory_after.value() - memory_before.value() : 0;
  auto keys = redis.Command({"DBSIZE"});
  if (!keys.ok()) return std::move(keys).error();
  auto key_count = RedisConnection::Integer(keys.value(), "DBSIZE");
  if (!key_count.ok()) return std::move(key_count).error();
  report.cache_keys = static_cast<std::uint64_t>(key_count.value()) - (config.mode == GuardMode::kBloom ? 1u : 0u);

  if (config.mode == GuardMode::kBloom) {
    auto info = ReadFilterInfo(redis, config.service.filter_key);
    if (!info.ok()) return std::move(info).error();
    report.filter_bytes = info->bytes;
    report.filter_capacity = info->capacity;
    report.filter_items = info->count;
    report.filter_fp_rate = report.requests_missing == 0 ? 0.0
                                                         : static_cast<double>(filter_passed_missing) /
                                                               static_cast<double>(report.requests_missing);
    auto probed = ProbeFilter(redis, config, config.fp_probe_ids);
    if (!probed.ok()) return std::move(probed).error();
    report.filter_probe_ids = config.fp_probe_ids;
    report.filter_probe_passed = probed.value();
  }
  return report;
}

}  // namespace cache_guard
