// SPDX-License-Identifier: Apache-2.0
// main of bloomkit_bench: parses bloomkit's own flags, lets every *_bench.cc register
// its benchmarks for the chosen sizes, then hands the rest of argv to Google Benchmark.
//
//   bloomkit_bench                                    # n = 10^6: a few minutes
//   bloomkit_bench --bloomkit_n=1e6,1e8 --benchmark_filter='MayContain'
//   bloomkit_bench --benchmark_format=json > out.json
//   bloomkit_bench --bloomkit_no_huge_pages ...        # filters on 4-KiB pages only
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <string>
#include <string_view>
#include <thread>

#include "bench_keys.h"
#include "bench_registry.h"
#include "bloomkit/allocator.h"

namespace {

// "1e6,100000000" -> {1000000, 100000000}; false on anything else.
bool ParseSizes(std::string_view list, std::vector<std::uint64_t>* sizes) {
  sizes->clear();
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string item(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    char* end = nullptr;
    const double value = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(value >= 1) || value > 1e10 ||
        value != std::floor(value)) {
      return false;
    }
    sizes->push_back(static_cast<std::uint64_t>(value));
  }
  return !sizes->empty();
}

// The default allocator without its transparent-huge-page request, to measure what
// the request buys (docs/BENCHMARKS.md).
void* AllocateSmallPages(std::size_t bytes, std::size_t alignment) noexcept {
  void* p = ::operator new(bytes, std::align_val_t(alignment), std::nothrow);
  if (p != nullptr) std::memset(p, 0, bytes);
  return p;
}

void DeallocateSmallPages(void* p, std::size_t /*bytes*/, std::size_t alignment) noexcept {
  ::operator delete(p, std::align_val_t(alignment));
}

}  // namespace

int main(int argc, char** argv) {
  bloomkit::bench::BenchConfig config;
  config.sizes = {1'000'000};
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--bloomkit_n=")) {
      if (!ParseSizes(arg.substr(13), &config.sizes)) {
        std::cerr << "bloomkit_bench: --bloomkit_n wants a comma-separated list of key counts in [1, 1e10], got '"
                  << arg.substr(13) << "'\n";
        return 2;
      }
    } else if (arg == "--bloomkit_url_large") {
      config.url_keys_at_large_n = true;
    } else if (arg == "--bloomkit_no_huge_pages") {
      if (!bloomkit::SetAllocator({&AllocateSmallPages, &DeallocateSmallPages})) {
        std::cerr << "bloomkit_bench: cannot install the small-page allocator\n";
        return 2;
      }
      benchmark::AddCustomContext("bloomkit_huge_pages", "off");
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  for (auto registrar : bloomkit::bench::Registrars()) registrar(config);

  benchmark::AddCustomContext("bloomkit_compiler", __VERSION__);
  benchmark::AddCustomContext("bloomkit_hardware_threads", std::to_string(std::thread::hardware_concurrency()));
  if (const std::string warnings = bloomkit::bench::BuildWarnings(); !warnings.empty()) {
    benchmark::AddCustomContext("bloomkit_warning", warnings);
    std::cerr << warnings << '\n';
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
