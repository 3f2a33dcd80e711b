// SPDX-License-Identifier: Apache-2.0
// The command plumbing of bloomkit.so: one wrapper that runs every handler, catches
// every exception and turns a returned Error into an error reply, plus small RAII and
// reply helpers. Handlers are `Status Handler(Command&)`: they either reply and return
// OK, or reply nothing and return the error whose message is the reply text.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "bloomkit/result.h"
#include "redismodule_api.h"
#include "replies.h"
#include "stats.h"

namespace bloomkit::redis {

// The module's settings, fixed at load time.
const ModuleConfig& Config() noexcept;

// An error whose message is the whole reply text.
inline Error ReplyError(std::string_view text) {
  return Error(ErrorCode::kInvalidArgument, std::string(text));
}
inline Error ReplyError(std::string_view text, std::string_view detail) {
  return Error(ErrorCode::kInvalidArgument, std::string(text) + ": " + std::string(detail));
}
// The reply text for an error of the core library (creating, growing, loading a filter):
// kTooLarge is "ERR filter too large: ...", kFull "ERR non scaling filter is full", and
// kInvalidArgument (parameters no filter can have) `cannot_create` and the reason.
Error CoreError(const Error& error, std::string_view cannot_create = reply::kBfCannotCreate);

// maxmemory (module.cc): Dispatch brackets every command with Begin/EndCommand. While a
// client's command runs on a server with maxmemory, filter allocations of 64 KiB or
// more that would take used_memory past it are refused; AllocationRefusal() is then the
// OOM reply text (empty otherwise). CheckMemoryFor does the same check for memory that
// is about to be allocated outside the filter allocator (LOADCHUNK's pending bytes).
void BeginCommand(RedisModuleCtx* ctx) noexcept;
void EndCommand() noexcept;
const std::string& AllocationRefusal() noexcept;
Status CheckMemoryFor(std::uint64_t bytes);
// Whether the command running comes from a client (not replicated from a primary, not
// the AOF being loaded: their limits were applied where they were first run).
bool CommandFromClient() noexcept;

// The bytes Redis holds for a block of `bytes` it allocated (RedisModule_MallocSize,
// what used_memory counts; `bytes` on servers without it).
inline std::size_t BlockBytes(const void* block, std::size_t bytes) noexcept {
  return rm.MallocSize != nullptr ? rm.MallocSize(const_cast<void*>(block)) : bytes;
}

class Command {
 public:
  Command(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) noexcept
      : ctx_(ctx), argv_(argv), argc_(argc < 0 ? 0 : static_cast<std::size_t>(argc)) {}

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
  void WrongArity() noexcept {
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
  bool replied_ = false;
  bool errored_ = false;
};

using Handler = Status (*)(Command&);

// Reports a failure that happened after a reply was started (cannot be sent).
void LogLateFailure(RedisModuleCtx* ctx, std::string_view what) noexcept;

// The one entry point Redis calls for every command: runs `kHandler`, replies with the
// error it returns, and converts any exception into an error reply (or, if the handler
// had already replied, a log line). Nothing escapes into Redis.
template <Handler kHandler>
int Dispatch(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) noexcept {
  Command cmd(ctx, argv, argc);
  std::string failure;
  BeginCommand(ctx);
  try {
    Status status = kHandler(cmd);
    EndCommand();
    if (status.ok()) {
      stats::CommandServed(argv[0], cmd.errored());
      return kOk;
    }
    failure = status.error().message();
  } catch (const std::bad_alloc&) {
    EndCommand();
    failure = AllocationRefusal().empty() ? std::string(reply::kOutOfMemory) : AllocationRefusal();
  } catch (const std::exception& e) {
    EndCommand();
    try {
      failure = std::string(reply::kInternal) + ": " + e.what();
    } catch (...) {
      failure = reply::kInternal;
    }
  } catch (...) {
    EndCommand();
    failure = reply::kInternal;
  }
  if (!cmd.replied()) {
    cmd.ErrorReply(failure);
  } else {
    LogLateFailure(ctx, failure);
  }
  stats::CommandServed(argv[0], true);
  return kOk;
}

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
  // The key's value if it is a module value of `type`; nullptr if empty. Sets
  // `wrong_type` if the key holds anything else.
  [[nodiscard]] void* ValueOf(RedisModuleType* type, bool* wrong_type) const noexcept {
    *wrong_type = false;
    if (empty()) return nullptr;
    if (rm.KeyType(key_) != kKeyTypeModule || rm.ModuleTypeGetType(key_) != type) {
      *wrong_type = true;
      return nullptr;
    }
    return rm.ModuleTypeGetValue(key_);
  }

 private:
  RedisModuleKey* key_;
};

}  // namespace bloomkit::redis
