// SPDX-License-Identifier: Apache-2.0
// The showcase's outputs: a table on the terminal, a JSON file (one object per mode)
// and a gnuplot PNG of database queries and latency per mode.
#pragma once

#include <cstdio>
#include <span>
#include <string>

#include "load_generator.h"

namespace cache_guard {

struct RunSummary {
  std::string database;  // UserDatabase::Describe()
  std::uint64_t users = 0;
  double missing_ratio = 0;
  std::uint64_t missing_keyspace = 0;
  double seconds_per_mode = 0;
  std::uint32_t clients = 0;
  double fp_rate = 0;
};

void PrintTable(std::FILE* out, const RunSummary& summary, std::span<const ModeReport> reports);
Status WriteJson(const std::string& path, const RunSummary& summary, std::span<const ModeReport> reports);
// Writes <png>.dat and <png>.gp beside the PNG and runs gnuplot on them.
Status WriteChart(const std::string& png_path, const RunSummary& summary, std::span<const ModeReport> reports);

}  // namespace cache_guard
