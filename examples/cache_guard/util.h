// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the cache_guard sources: error messages and a progress bar.
#pragma once

#include <chrono>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "bloomkit/result.h"

namespace cache_guard {

template <typename... Args>
std::string Message(const Args&... args) {
  std::ostringstream out;
  out.precision(6);
  (out << ... << args);
  return out.str();
}

template <typename... Args>
bloomkit::Error MakeError(bloomkit::ErrorCode code, const Args&... args) {
  return bloomkit::Error(code, Message(args...));
}

// A one-line progress bar on stderr, drawn only when stderr is a terminal (so logs and
// CI output stay clean) and at most ten times a second.
class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  void Update(std::uint64_t done, std::uint64_t total);
  // Clears the bar's line.
  void Finish();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace cache_guard
