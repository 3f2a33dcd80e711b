// SPDX-License-Identifier: Apache-2.0
#include "redis_connection.h"

#include <charconv>
#include <vector>

#include "util.h"

namespace cache_guard {
namespace {

using bloomkit::ErrorCode;
using bloomkit::Result;

constexpr int kConnectTimeoutSeconds = 5;
constexpr std::size_t kMaxStackArgs = 16;

// hiredis takes parallel arrays of pointers and lengths.
struct ArgVectors {
  explicit ArgVectors(std::span<const std::string_view> args) {
    pointers.reserve(args.size());
    lengths.reserve(args.size());
    for (auto arg : args) {
      pointers.push_back(arg.data());
      lengths.push_back(arg.size());
    }
  }
  std::vector<const char*> pointers;
  std::vector<std::size_t> lengths;
};

}  // namespace

Result<RedisEndpoint> ParseEndpoint(std::string_view host_port) {
  const auto colon = host_port.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return MakeError(ErrorCode::kInvalidArgument, "redis address must be HOST:PORT, got \"", host_port, "\"");
  }
  const std::string_view port_text = host_port.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 || port > 65535) {
    return MakeError(ErrorCode::kInvalidArgument, "redis port must be in 1..65535, got \"", port_text, "\"");
  }
  return RedisEndpoint{std::string(host_port.substr(0, colon)), static_cast<std::uint16_t>(port)};
}

Result<RedisConnection> RedisConnection::Connect(const RedisEndpoint& endpoint, int db) {
  const timeval timeout{kConnectTimeoutSeconds, 0};
  redisContext* context = redisConnectWithTimeout(endpoint.host.c_str(), endpoint.port, timeout);
  RedisConnection connection(context);
  if (context == nullptr) return MakeError(ErrorCode::kIoError, "redis: out of memory connecting");
  if (context->err != 0) {
    return MakeError(ErrorCode::kIoError, "redis: cannot connect to ", endpoint.host, ":", endpoint.port, ": ",
                     context->errstr);
  }
  if (db != 0) {
    const std::string index = std::to_string(db);
    auto reply = connection.Command({"SELECT", index});
    if (!reply.ok()) return std::move(reply).error();
  }
  return connection;
}

void RedisConnection::Append(std::initializer_list<std::string_view> args) {
  Append(std::span<const std::string_view>(args.begin(), args.size()));
}

void RedisConnection::Append(std::span<const std::string_view> args) {
  if (args.size() <= kMaxStackArgs) {
    const char* pointers[kMaxStackArgs] = {};
    std::size_t lengths[kMaxStackArgs] = {};
    for (std::size_t i = 0; i < args.size(); ++i) {
      pointers[i] = args[i].data();
      lengths[i] = args[i].size();
    }
    redisAppendCommandArgv(context_.get(), static_cast<int>(args.size()), pointers, lengths);
  } else {
    ArgVectors vectors(args);
    redisAppendCommandArgv(context_.get(), static_cast<int>(args.size()), vectors.pointers.data(),
                           vectors.lengths.data());
  }
  pending_names_.append(args.empty() ? std::string_view("?") : args[0]);
  pending_names_.push_back('\n');
}

Result<ReplyPtr> RedisConnection::ReadReply() {
  std::string name = "command";
  if (const auto newline = pending_names_.find('\n'); newline != std::string::npos) {
    name = pending_names_.substr(0, newline);
    pending_names_.erase(0, newline + 1);
  }
  void* raw = nullptr;
  if (redisGetReply(context_.get(), &raw) != REDIS_OK || raw == nullptr) {
    return MakeError(ErrorCode::kIoError, "redis: ", name, ": ",
                     context_->err != 0 ? context_->errstr : "connection lost");
  }
  ReplyPtr reply(static_cast<redisReply*>(raw));
  if (reply->type == REDIS_REPLY_ERROR) {
    const std::string_view text(reply->str, reply->len);
    const bool unknown = text.find("unknown command") != std::string_view::npos;
    return MakeError(unknown ? ErrorCode::kUnsupported : ErrorCode::kInvalidArgument, "redis: ", name, ": ", text);
  }
  return reply;
}

Result<ReplyPtr> RedisConnection::Command(std::initializer_list<std::string_view> args) {
  return Command(std::span<const std::string_view>(args.begin(), args.size()));
}

Result<ReplyPtr> RedisConnection::Command(std::span<const std::string_view> args) {
  Append(args);
  return ReadReply();
}

Result<long long> RedisConnection::Integer(const ReplyPtr& reply, std::string_view what) {
  if (reply->type != REDIS_REPLY_INTEGER) {
    return MakeError(ErrorCode::kParameterMismatch, "redis: ", what, ": expected an integer reply, got type ",
                     reply->type);
  }
  return reply->integer;
}

Result<std::uint64_t> RedisConnection::UsedMemory() {
  auto reply = Command({"INFO", "memory"});
  if (!reply.ok()) return std::move(reply).error();
  if (reply.value()->type != REDIS_REPLY_STRING && reply.value()->type != REDIS_REPLY_STATUS) {
    return MakeError(ErrorCode::kParameterMismatch, "redis: INFO memory: unexpected reply type");
  }
  const std::string_view text(reply.value()->str, reply.value()->len);
  constexpr std::string_view kField = "\nused_memory:";
  const auto at = text.find(kField);
  if (at == std::string_view::npos)
    return MakeError(ErrorCode::kParameterMismatch, "redis: INFO memory has no used_memory");
  std::uint64_t bytes = 0;
  const char* begin = text.data() + at + kField.size();
  const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), bytes);
  if (ec != std::errc()) return MakeError(ErrorCode::kParameterMismatch, "redis: INFO memory: bad used_memory");
  return bytes;
}

}  // namespace cache_guard
