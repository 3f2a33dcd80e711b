// SPDX-License-Identifier: Apache-2.0
// The command plumbing of bloomkit.so. Every command is one row of the command table
// (commands.cc): its name, arity, flags, ACL categories, key spec and handler. Redis
// calls RunCommand for every row; it checks the arity, opens the key (argv[1]) once in
// the row's mode, runs the handler, catches every exception and turns a returned Error
// into an error reply. Handlers are `Status Handler(Command&)`: they either reply and
// return OK, or reply nothing and return the error whose message is the reply text.
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

// How a command uses its key: read it, write an existing or new one, or create it
// (the key specs: ACCESS, ACCESS|UPDATE, INSERT). BF.MERGE writes its first key and
// reads the others.
enum class Access { kReadOnly, kUpdate, kCreate, kMerge };

// Argument counts (the command's name included): [min, max] (max 0: no bound), and
// for some commands an odd or even count (options given as NAME value pairs).
struct Arity {
  std::size_t min = 0;
  std::size_t max = 0;
  enum Parity : char { kAny, kOdd, kEven } parity = kAny;

  [[nodiscard]] constexpr bool Allows(std::size_t argc) const noexcept {
    if (argc < min || (max != 0 && argc > max)) return false;
    if (parity == kOdd) return argc % 2 == 1;
    if (parity == kEven) return argc % 2 == 0;
    return true;
  }
};

// The ACL category of bloomkit's own family a command joins where the server can add
// categories (Redis >= 7.4): @bloom or @cuckoo.
enum class Family : char { kBloom, kCuckoo };

// One row of the command table.
struct CommandSpec {
  const char* name;
  Handler handler;
  Arity arity;
  // "write" / "readonly" for replication and replicas, "deny-oom" on anything that may
  // allocate, "fast" on O(1)-in-the-key commands (RedisBloom marks the same).
  const char* flags;
  Access access;
  // ACL categories on Redis >= 7.2 (SetCommandACLCategories), RedisBloom 8's for its
  // commands; "bloom" or "cuckoo" (`family`) is appended when the server can add them.
  const char* acl;
  Family family = Family::kBloom;
  // Command tips (COMMAND INFO / COMMAND DOCS, Redis >= 7.0): RedisBloom (v8.9.80) marks
  // the reads whose replies describe the filter rather than answer about items
  // "dont_cache", so that client-side caches do not keep them.
  const char* tips = nullptr;
};

// The one entry point Redis calls for every command (through the table's row): checks
// the arity, opens the key, runs the handler, replies with the error it returns, and
// converts any exception into an error reply (or, if the handler had already replied,
// a log line). Nothing escapes into Redis.
int RunCommand(const CommandSpec& spec, RedisModuleCtx* ctx, RedisModuleString** argv, int argc) noexcept;

}  // namespace bloomkit::redis
