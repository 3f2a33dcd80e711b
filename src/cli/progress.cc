// SPDX-License-Identifier: Apache-2.0
// Progress (progress.h).
#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace bloomkit::cli {
namespace {

std::string Compact(double value) {
  if (value >= 1e9) return fmt::format("{:.1f}G", value / 1e9);
  if (value >= 1e6) return fmt::format("{:.1f}M", value / 1e6);
  if (value >= 1e3) return fmt::format("{:.1f}K", value / 1e3);
  return fmt::format("{:.0f}", value);
}

}  // namespace

Progress::Progress(std::string label, std::uint64_t total_bytes, bool enabled)
    : label_(std::move(label)),
      total_bytes_(total_bytes),
      enabled_(enabled && ::isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      last_draw_(start_) {}

Progress::~Progress() {
  Finish();
}

void Progress::Update(std::uint64_t keys, std::uint64_t bytes) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  if (now - start_ < std::chrono::seconds(1) || now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::string line = fmt::format("{}: {} keys  {} keys/s", label_, Compact(static_cast<double>(keys)),
                                 Compact(static_cast<double>(keys) / seconds));
  if (total_bytes_ > 0 && bytes <= total_bytes_) {
    const double done = static_cast<double>(bytes) / static_cast<double>(total_bytes_);
    line += fmt::format("  {:3.0f}%", done * 100.0);
    if (done > 0) line += fmt::format("  ETA {:.0f}s", seconds * (1.0 - done) / done);
  }
  std::fprintf(stderr, "\r%s\033[K", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::Finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace bloomkit::cli
