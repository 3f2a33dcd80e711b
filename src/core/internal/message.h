// Builds error messages from values: Message("error rate must be in (0, 1), got ", p).
#pragma once

#include <sstream>
#include <string>

#include "bloomkit/result.h"

namespace bloomkit::internal {

template <typename... Args>
std::string Message(const Args&... args) {
  std::ostringstream out;
  out.precision(17);
  (out << ... << args);
  return out.str();
}

template <typename... Args>
Error MakeError(ErrorCode code, const Args&... args) {
  return Error(code, Message(args...));
}

}  // namespace bloomkit::internal
