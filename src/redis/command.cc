// SPDX-License-Identifier: Apache-2.0
// RunCommand, the wrapper every command runs through (command.h), and the error helpers.
#include "command.h"

#include <algorithm>
#include <exception>
#include <new>
#include <optional>

#include "stats.h"

namespace bloomkit::redis {
namespace {

// The message WrongArity() carries to RunCommand (never sent: RunCommand sends Redis'
// own arity error instead).
constexpr std::string_view kWrongArityMarker = "\x01wrong arity";

bool IsWrongArity(const Error& error) noexcept {
  return error.code() == ErrorCode::kTruncated && error.message() == kWrongArityMarker;
}

int KeyMode(Access access) noexcept {
  return access == Access::kReadOnly ? kRead : kRead | kWrite;
}

// Reports a failure that happened after a reply was started (cannot be sent).
void LogLateFailure(RedisModuleCtx* ctx, std::string_view what) noexcept {
  rm.Log(ctx, "warning", "bloomkit: failure after the reply had started: %.*s", static_cast<int>(what.size()),
         what.data());
}

}  // namespace

Error WrongArity() {
  return Error(ErrorCode::kTruncated, std::string(kWrongArityMarker));
}

Error CoreError(const Error& error, std::string_view cannot_create) {
  if (!AllocationRefusal().empty()) return ReplyError(AllocationRefusal());
  switch (error.code()) {
    case ErrorCode::kTooLarge: return ReplyError(reply::kTooLarge, error.message());
    case ErrorCode::kFull: return ReplyError(reply::kNonScalingFull);
    case ErrorCode::kInvalidArgument: return ReplyError(cannot_create, error.message());
    default: return ReplyError("ERR", error.message());
  }
}

void Command::ErrorReply(std::string_view text) noexcept {
  Mark();
  errored_ = true;
  // ReplyWithError needs a C string; error texts are short, so a bounded stack copy
  // avoids allocating on the error path.
  char buffer[512];
  const std::size_t n = std::min(text.size(), sizeof(buffer) - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    buffer[i] = (c == '\r' || c == '\n' || c == '\0') ? ' ' : c;
  }
  buffer[n] = '\0';
  rm.ReplyWithError(ctx_, buffer);
}

int RunCommand(const CommandSpec& spec, RedisModuleCtx* ctx, RedisModuleString** argv, int argc) noexcept {
  Command cmd(ctx, argv, argc < 0 ? 0 : static_cast<std::size_t>(argc));
  if (!spec.arity.Allows(cmd.argc())) {
    cmd.WrongArityReply();
    stats::CommandServed(argv[0], true);
    return kOk;
  }
  std::string failure;
  BeginCommand(ctx);
  try {
    const OpenKey key(ctx, argv[1], KeyMode(spec.access));
    cmd.set_key(&key);
    Status status = spec.handler(cmd);
    EndCommand();
    if (status.ok()) {
      stats::CommandServed(argv[0], cmd.errored());
      return kOk;
    }
    if (IsWrongArity(status.error()) && !cmd.replied()) {
      cmd.WrongArityReply();
      stats::CommandServed(argv[0], true);
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

}  // namespace bloomkit::redis
