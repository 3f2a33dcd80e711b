// SPDX-License-Identifier: Apache-2.0
// A command as its handler sees it: the arguments, the key (opened once, before the
// handler runs, by RunCommand in commands.cc), the replies, and the error helpers.
// Handlers are `Status Handler(Command&)`: they either reply and return OK, or reply
// nothing and return the error whose message is the reply text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "bloomkit/result.h"
#include "config.h"
#include "memory.h"
#include "redismodule_api.h"
#include "replies.h"

namespace bloomkit::redis {

// An error whose message is the whole reply text.
inline Error ReplyError(std::string_view text) {
  return Error(ErrorCode::kInvalidArgument, std::string(text));
}
inline Error ReplyError(std::string_view text, std::string_view detail) {
  return Error(ErrorCode::kInvalidArgument, std::string(text) + ": " + std::string(detail));
}
// A command whose arguments turn out to be too few once parsed (an option without its
// value, ITEMS without items): RunCommand answers with Redis' own arity error.
Error WrongArity();
bool IsWrongArity(const Error& error) noexcept;
// The reply text for an error of the core library (creating, growing, loading a filter):
// kTooLarge is "ERR filter too large: ...", kFull "ERR non scaling filter is full", and
// kInvalidArgument (parameters no filter can have) `cannot_create` and the reason.
Error CoreError(const Error& error, std::string_view cannot_create = reply::kBfCannotCreate);

// An open key, closed when it goes out of scope.
class OpenKey {
 public:
  OpenKey(RedisModuleCtx* ctx, RedisModuleString* name, int mode) noexcept : key_(rm.OpenKey(ctx, name, mode)) {}
  ~OpenKey() {
    if (key_ != nullptr) rm.CloseKey(key_);
  }
  OpenKey(const OpenKey&) = delete;
  OpenKey& operator=(const OpenKey&) = delete;
  OpenKey(OpenKey&&) = delete;
  OpenKey& operator=(OpenKey&&) = delete;

  [[nodiscard]] RedisModuleKey* get() const noexcept { return key_; }
  [[nodiscard]] bool empty() const noexcept { return key_ == nullptr || rm.KeyType(key_) == kKeyTypeEmpty; }
  // The module type of the key's value; nullptr if it holds none (empty, or a Redis type).
  [[nodiscard]] RedisModuleType* type() const noexcept {
    if (empty() || rm.KeyType(key_) != kKeyTypeModule) return nullptr;
    return rm.ModuleTypeGetType(key_);
  }
  [[nodiscard]] void* value() const noexcept { return rm.ModuleTypeGetValue(key_); }

 private:
  RedisModuleKey* key_;
};

class Command {
 public:
  Command(RedisModuleCtx* ctx, RedisModuleString** argv, std::size_t argc) noexcept
      : ctx_(ctx), argv_(argv), argc_(argc) {}

  [[nodiscard]] RedisModuleCtx* ctx() const noexcept { return ctx_; }
  [[nodiscard]] std::size_t argc() const noexcept { return argc_; }
  [[nodiscard]] RedisModuleString* raw(std::size_t i) const noexcept { return argv_[i]; }
  // Arguments [first, argc) as the array RedisModule_Replicate's "v" takes.
  [[nodiscard]] RedisModuleString** raw_from(std::size_t first) const noexcept { return argv_ + first; }
  [[nodiscard]] std::string_view arg(std::size_t i) const noexcept {
    std::size_t len = 0;
    const char* p = rm.StringPtrLen(argv_[i], &len);
    return {p, len};
  }
  // Arguments [first, argc) as views, for the parsers of args.h.
  [[nodiscard]] std::vector<std::string_view> args_from(std::size_t first) const {
    std::vector<std::string_view> out;
    out.reserve(argc_ > first ? argc_ - first : 0);
    for (std::size_t i = first; i < argc_; ++i) out.push_back(arg(i));
    return out;
  }
  // The command's key (argv[1]), opened once by RunCommand in its table row's mode.
  [[nodiscard]] const OpenKey& key() const noexcept { return *key_; }
  void set_key(const OpenKey* key) noexcept { key_ = key; }
  [[nodiscard]] bool resp3() const noexcept {
    return rm.GetContextFlags != nullptr && (rm.GetContextFlags(ctx_) & kCtxFlagsResp3) != 0;
  }

  // Replies. Bool and Map degrade to RESP2 shapes (integer 0/1, flat array) by
  // themselves in Redis; without them (Redis < 7) the RESP2 shapes are sent directly.
  void Ok() noexcept {
    Mark();
    rm.ReplyWithSimpleString(ctx_, "OK");
  }
  void Int(long long v) noexcept {
    Mark();
    rm.ReplyWithLongLong(ctx_, v);
  }
  void Bool(bool v) noexcept {
    Mark();
    if (rm.ReplyWithBool != nullptr) {
      rm.ReplyWithBool(ctx_, v ? 1 : 0);
    } else {
      rm.ReplyWithLongLong(ctx_, v ? 1 : 0);
    }
  }
  void Null() noexcept {
    Mark();
    rm.ReplyWithNull(ctx_);
  }
  void Double(double v) noexcept {
    Mark();
    rm.ReplyWithDouble(ctx_, v);
  }
  void Array(long len) noexcept {
    Mark();
    rm.ReplyWithArray(ctx_, len);
  }
  void Map(long pairs) noexcept {
    Mark();
    if (rm.ReplyWithMap != nullptr) {
      rm.ReplyWithMap(ctx_, pairs);
    } else {
      rm.ReplyWithArray(ctx_, pairs * 2);
    }
  }
  void SimpleString(const char* text) noexcept {
    Mark();
    rm.ReplyWithSimpleString(ctx_, text);
  }
  void Bytes(std::span<const std::byte> bytes) noexcept {
    Mark();
    rm.ReplyWithStringBuffer(ctx_, reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  void ErrorReply(std::string_view text) noexcept;
  void WrongArityReply() noexcept {
    Mark();
    errored_ = true;
    rm.WrongArity(ctx_);
  }
  void Replicate() noexcept { rm.ReplicateVerbatim(ctx_); }

  [[nodiscard]] bool replied() const noexcept { return replied_; }
  // Whether any error was sent: the whole reply, or an element of an array.
  [[nodiscard]] bool errored() const noexcept { return errored_; }

 private:
  void Mark() noexcept { replied_ = true; }

  RedisModuleCtx* ctx_;
  RedisModuleString** argv_;
  std::size_t argc_;
  const OpenKey* key_ = nullptr;
  bool replied_ = false;
  bool errored_ = false;
};

using Handler = Status (*)(Command&);

}  // namespace bloomkit::redis
