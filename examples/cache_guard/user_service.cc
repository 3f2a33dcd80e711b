// SPDX-License-Identifier: Apache-2.0
#include "user_service.h"

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <deque>
#include <vector>

#include "util.h"

namespace cache_guard {
namespace {

// Decimal form of an id, the filter's item and the cache key's suffix.
class IdText {
 public:
  explicit IdText(std::uint64_t id) {
    const auto result = std::to_chars(buffer_.data(), buffer_.data() + buffer_.size(), id);
    size_ = static_cast<std::size_t>(result.ptr - buffer_.data());
  }
  [[nodiscard]] std::string_view view() const { return {buffer_.data(), size_}; }

 private:
  std::array<char, 24> buffer_{};
  std::size_t size_ = 0;
};

bool IsNil(const ReplyPtr& reply) {
  return reply->type == REDIS_REPLY_NIL;
}

}  // namespace

std::string_view GuardModeName(GuardMode mode) noexcept {
  switch (mode) {
    case GuardMode::kNone: return "none";
    case GuardMode::kEmptyCache: return "empty-cache";
    case GuardMode::kBloom: return "bloom";
  }
  return "unknown";
}

Result<GuardMode> ParseGuardMode(std::string_view name) {
  for (GuardMode mode : {GuardMode::kNone, GuardMode::kEmptyCache, GuardMode::kBloom}) {
    if (GuardModeName(mode) == name) return mode;
  }
  return MakeError(ErrorCode::kInvalidArgument, "mode must be one of none, empty-cache, bloom; got \"", name, "\"");
}

UserService::UserService(GuardMode mode, RedisConnection& redis, UserStore& store, ServiceOptions options)
    : mode_(mode),
      redis_(redis),
      store_(store),
      options_(std::move(options)),
      cache_ttl_(std::to_string(options_.cache_ttl_s)),
      tombstone_ttl_(std::to_string(options_.tombstone_ttl_s)) {}

std::string UserService::CacheKey(std::string_view id) const {
  std::string key;
  key.reserve(options_.cache_prefix.size() + id.size());
  key.append(options_.cache_prefix).append(id);
  return key;
}

Result<Lookup> UserService::Get(std::uint64_t id) {
  const IdText id_text(id);
  const std::string key = CacheKey(id_text.view());
  Lookup lookup;

  ReplyPtr cached;
  if (mode_ == GuardMode::kBloom) {
    redis_.Append({"BF.EXISTS", options_.filter_key, id_text.view()});
    redis_.Append({"GET", key});
    auto exists = redis_.ReadReply();
    auto get = redis_.ReadReply();  // read both before returning: the pipeline must drain
    if (!exists.ok()) return std::move(exists).error();
    if (!get.ok()) return std::move(get).error();
    auto bit = RedisConnection::Integer(exists.value(), "BF.EXISTS");
    if (!bit.ok()) return std::move(bit).error();
    if (bit.value() == 0) {
      lookup.filter_rejected = true;
      return lookup;
    }
    cached = std::move(get).value();
  } else {
    auto get = redis_.Command({"GET", key});
    if (!get.ok()) return std::move(get).error();
    cached = std::move(get).value();
  }

  if (!IsNil(cached)) {
    lookup.cache_hit = true;
    const std::string_view value(cached->str, cached->len);
    if (value.empty()) return lookup;  // a tombstone: cached "not in the database"
    auto user = DecodeUser(id, value);
    if (!user.ok()) return std::move(user).error();
    lookup.user = std::move(user).value();
    return lookup;
  }

  lookup.db_queried = true;
  auto row = store_.Find(id);
  if (!row.ok()) return std::move(row).error();
  lookup.user = std::move(row).value();
  if (lookup.user.has_value()) {
    const std::string value = EncodeUser(*lookup.user);
    auto set = redis_.Command({"SET", key, value, "EX", cache_ttl_});
    if (!set.ok()) return std::move(set).error();
  } else if (mode_ == GuardMode::kEmptyCache) {
    auto set = redis_.Command({"SET", key, "", "EX", tombstone_ttl_});
    if (!set.ok()) return std::move(set).error();
  }
  return lookup;
}

Status UserService::Insert(const User& user) {
  const IdText id_text(user.id);
  if (mode_ == GuardMode::kBloom) {
    auto added = redis_.Command({"BF.ADD", options_.filter_key, id_text.view()});
    if (!added.ok()) return added.error();
  }
  if (auto status = store_.Insert(user); !status.ok()) return status;
  // A tombstone cached before the insert would hide the new row until it expires.
  auto dropped = redis_.Command({"DEL", CacheKey(id_text.view())});
  if (!dropped.ok()) return dropped.error();
  return {};
}

Result<FilterLoadReport> LoadFilter(RedisConnection& redis, UserStore& store, const FilterLoadOptions& options) {
  if (!(options.fp_rate > 0.0 && options.fp_rate < 1.0)) {
    return MakeError(ErrorCode::kInvalidArgument, "filter error rate must be in (0, 1), got ", options.fp_rate);
  }
  if (!(options.headroom >= 1.0 && options.headroom <= 100.0)) {
    return MakeError(ErrorCode::kInvalidArgument, "filter headroom must be in [1, 100], got ", options.headroom);
  }
  if (options.batch == 0 || options.pipeline_depth == 0 || options.scan_batch == 0) {
    return MakeError(ErrorCode::kInvalidArgument, "filter load batch sizes must be at least 1");
  }
  const auto start = std::chrono::steady_clock::now();
  auto rows = store.CountRows();
  if (!rows.ok()) return std::move(rows).error();

  FilterLoadReport report;
  report.capacity = std::max<std::uint64_t>(
      1000, static_cast<std::uint64_t>(std::ceil(static_cast<double>(rows.value()) * options.headroom)));
  const std::string rate = Message(options.fp_rate);
  const std::string capacity = std::to_string(report.capacity);
  auto reserved = redis.Command({"BF.RESERVE", options.filter_key, rate, capacity});
  if (!reserved.ok()) {
    return MakeError(reserved.error().code(), reserved.error().message(),
                     reserved.error().code() == ErrorCode::kUnsupported
                         ? " (the bloom mode needs the BF.* commands: start redis-server with --loadmodule bloomkit.so)"
                         : "");
  }

  // Pipelined BF.MADD: up to pipeline_depth commands of `batch` ids in flight, so the
  // load runs at the server's speed rather than at one round trip per batch.
  std::vector<std::string> texts;
  std::vector<std::string_view> args;
  std::size_t in_flight = 0;
  auto drain_one = [&]() -> Status {
    auto reply = redis.ReadReply();
    --in_flight;
    if (!reply.ok()) return reply.error();
    if (reply.value()->type != REDIS_REPLY_ARRAY) {
      return MakeError(ErrorCode::kParameterMismatch, "redis: BF.MADD: expected an array reply");
    }
    return {};
  };

  std::uint64_t after = 0;
  while (true) {
    auto page = store.IdsAfter(after, options.scan_batch);
    if (!page.ok()) return std::move(page).error();
    const auto& ids = page.value();
    if (ids.empty()) break;
    after = ids.back();
    for (std::size_t begin = 0; begin < ids.size(); begin += options.batch) {
      const std::size_t end = std::min(ids.size(), begin + options.batch);
      texts.clear();
      for (std::size_t i = begin; i < end; ++i) texts.push_back(std::to_string(ids[i]));
      args.assign({"BF.MADD", options.filter_key});
      for (const auto& text : texts) args.push_back(text);
      redis.Append(std::span<const std::string_view>(args));
      ++in_flight;
      if (in_flight >= options.pipeline_depth) {
        if (auto status = drain_one(); !status.ok()) return status.error();
      }
    }
    report.ids_loaded += ids.size();
    if (options.progress) options.progress(report.ids_loaded, rows.value());
  }
  while (in_flight > 0) {
    if (auto status = drain_one(); !status.ok()) return status.error();
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

Result<FilterInfo> ReadFilterInfo(RedisConnection& redis, std::string_view key) {
  auto reply = redis.Command({"BF.INFO", key});
  if (!reply.ok()) return std::move(reply).error();
  const redisReply* array = reply.value().get();
  if (array->type != REDIS_REPLY_ARRAY || array->elements % 2 != 0) {
    return MakeError(ErrorCode::kParameterMismatch, "redis: BF.INFO: expected an array of name/value pairs");
  }
  FilterInfo info;
  for (std::size_t i = 0; i + 1 < array->elements; i += 2) {
    const redisReply* name = array->element[i];
    const redisReply* value = array->element[i + 1];
    if (name->type != REDIS_REPLY_STRING && name->type != REDIS_REPLY_STATUS) continue;
    if (value->type != REDIS_REPLY_INTEGER || value->integer < 0) continue;
    const std::string_view field(name->str, name->len);
    const auto number = static_cast<std::uint64_t>(value->integer);
    if (field == "Capacity")
      info.capacity = number;
    else if (field == "Size")
      info.bytes = number;
    else if (field == "Number of filters")
      info.num_filters = number;
    else if (field == "Number of items inserted")
      info.count = number;
    else if (field == "Expansion rate")
      info.expansion = number;
  }
  return info;
}

}  // namespace cache_guard
