// SPDX-License-Identifier: Apache-2.0
// Builds error messages from values: Message("error rate must be in (0, 1), got ", p).
#pragma once

#include <charconv>
#include <sstream>
#include <string>
#include <type_traits>

#include "bloomkit/result.h"

namespace bloomkit::internal {

// Floating-point values print in their shortest round-trip form, so a message names
// the value as the user wrote it: "got -0.1", not "got -0.10000000000000001".
template <typename T>
void AppendValue(std::ostringstream& out, const T& value) {
  if constexpr (std::is_floating_point_v<T>) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    out.write(buffer, result.ptr - buffer);
  } else {
    out << value;
  }
}

template <typename... Args>
std::string Message(const Args&... args) {
  std::ostringstream out;
  (AppendValue(out, args), ...);
  return out.str();
}

template <typename... Args>
Error MakeError(ErrorCode code, const Args&... args) {
  return Error(code, Message(args...));
}

}  // namespace bloomkit::internal
