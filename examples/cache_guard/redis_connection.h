// SPDX-License-Identifier: Apache-2.0
// A blocking Redis connection (hiredis) with pipelining, for one thread.
//
//   auto redis = cache_guard::RedisConnection::Connect({"127.0.0.1", 6379});
//   auto reply = redis->Command({"BF.EXISTS", "users:filter", "42"});   // integer 0 or 1
//
// An error reply ("-ERR ...") comes back as an Error whose message carries the command
// and Redis' text; an unknown command (BF.* on a server without the module) has code
// kUnsupported.
#pragma once

#include <hiredis/hiredis.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "bloomkit/result.h"

namespace cache_guard {

struct RedisEndpoint {
  std::string host = "127.0.0.1";
  std::uint16_t port = 6379;
};

// "HOST:PORT" (port in 1..65535), e.g. "127.0.0.1:6380".
bloomkit::Result<RedisEndpoint> ParseEndpoint(std::string_view host_port);

struct ReplyDeleter {
  void operator()(redisReply* reply) const noexcept { freeReplyObject(reply); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

class RedisConnection {
 public:
  static bloomkit::Result<RedisConnection> Connect(const RedisEndpoint& endpoint, int db = 0);

  // Sends one command and waits for its reply.
  bloomkit::Result<ReplyPtr> Command(std::initializer_list<std::string_view> args);
  bloomkit::Result<ReplyPtr> Command(std::span<const std::string_view> args);

  // Pipelining: queue commands with Append, then read one reply per command in order.
  void Append(std::initializer_list<std::string_view> args);
  void Append(std::span<const std::string_view> args);
  bloomkit::Result<ReplyPtr> ReadReply();

  // A reply's integer, checked: an error when the reply is of another type.
  static bloomkit::Result<long long> Integer(const ReplyPtr& reply, std::string_view what);

  // INFO memory's used_memory, in bytes.
  bloomkit::Result<std::uint64_t> UsedMemory();

 private:
  struct ContextDeleter {
    void operator()(redisContext* context) const noexcept { redisFree(context); }
  };
  explicit RedisConnection(redisContext* context) : context_(context) {}

  std::unique_ptr<redisContext, ContextDeleter> context_;
  // Names of the appended commands not yet read, for error messages.
  std::string pending_names_;
};

}  // namespace cache_guard
