// SPDX-License-Identifier: Apache-2.0
// A progress line on stderr for long add/query/dedup/remove runs:
//   seen.bf: 12.3M keys  1.4M keys/s  48%  ETA 9s
// Drawn only when stderr is a terminal and the run has lasted over a second (so small
// inputs and pipelines never see it), at most ten times a second, erased at the end.
// Percent and ETA appear when the input size is known (regular files).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace bloomkit::cli {

class Progress {
 public:
  // `enabled` = false (--no-progress) never draws.
  Progress(std::string label, std::uint64_t total_bytes, bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Cheap enough to call once per batch of keys.
  void Update(std::uint64_t keys, std::uint64_t bytes);
  // Erases the line.
  void Finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  std::uint64_t total_bytes_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace bloomkit::cli
