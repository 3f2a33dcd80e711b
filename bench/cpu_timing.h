// SPDX-License-Identifier: Apache-2.0
// Timing shared by the side-by-side programs of bench/compare: thread CPU time (time a
// shared machine spends running other jobs does not count), nanoseconds per key of one
// timed body, and the median of repetitions.
#pragma once

#include <time.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace bloomkit::bench {

// CPU seconds of the calling thread.
inline double ThreadSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Thread CPU nanoseconds per key of body(), which handles `keys` keys.
template <typename F>
double NsPerKey(std::size_t keys, F&& body) {
  const double t0 = ThreadSeconds();
  body();
  return (ThreadSeconds() - t0) * 1e9 / static_cast<double>(keys);
}

// The middle value (the upper one of an even count).
inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace bloomkit::bench
