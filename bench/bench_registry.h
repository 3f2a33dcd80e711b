// SPDX-License-Identifier: Apache-2.0
// How a *_bench.cc file adds benchmarks to bloomkit_bench.
//
// bench/CMakeLists.txt builds every bench/*_bench.cc into one binary whose main is
// bench_main.cc, so a benchmark file defines no main. A file may use the plain
// BENCHMARK() macros, or, to follow the sizes chosen on the command line
// (--bloomkit_n=1e6,1e8), register from a function run after the flags are parsed:
//
//   void RegisterMine(const bloomkit::bench::BenchConfig& config) {
//     for (std::uint64_t n : config.sizes) benchmark::RegisterBenchmark(...);
//   }
//   const bloomkit::bench::Registration kMine(RegisterMine);
#pragma once

#include <cstdint>
#include <vector>

namespace bloomkit::bench {

struct BenchConfig {
  // Filter capacities (keys inserted) to run; --bloomkit_n, default {10^6}.
  std::vector<std::uint64_t> sizes;
  // Run 32-64-byte URL keys above 10^7 keys too (--bloomkit_url_large); off by default
  // because 10^8 URL keys take ~6 GB of memory.
  bool url_keys_at_large_n = false;
};

using Registrar = void (*)(const BenchConfig& config);

inline std::vector<Registrar>& Registrars() {
  static std::vector<Registrar> registrars;
  return registrars;
}

// A static object of this type queues `registrar` to run once main has parsed flags.
struct Registration {
  explicit Registration(Registrar registrar) { Registrars().push_back(registrar); }
};

}  // namespace bloomkit::bench
