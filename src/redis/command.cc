// SPDX-License-Identifier: Apache-2.0
// Command's error reply and the error helpers of command.h.
#include "command.h"

#include <algorithm>

namespace bloomkit::redis {
namespace {

// The message WrongArity() carries to RunCommand (never sent: RunCommand sends Redis'
// own arity error instead).
constexpr std::string_view kWrongArityMarker = "\x01wrong arity";

}  // namespace

bool IsWrongArity(const Error& error) noexcept {
  return error.code() == ErrorCode::kTruncated && error.message() == kWrongArityMarker;
}

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

}  // namespace bloomkit::redis
