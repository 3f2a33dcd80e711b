// SPDX-License-Identifier: Apache-2.0
// Whole files in and out, for the interop checkers (interop_check.cc, parquet_check.cc):
// a file the other library wrote is read whole; bloomkit's bytes for it are written
// whole. Failures throw std::runtime_error naming the path.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace bloomkit_interop {

inline std::string ReadAll(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec) throw std::runtime_error("cannot open " + path + ": " + ec.message());
  std::string out(static_cast<std::size_t>(bytes), '\0');
  std::FILE* f = std::fopen(path.c_str(), "rb");
  const bool ok = f != nullptr && std::fread(out.data(), 1, out.size(), f) == out.size();
  if (f != nullptr) std::fclose(f);
  if (!ok) throw std::runtime_error("cannot read " + path);
  return out;
}

inline void WriteAll(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace bloomkit_interop
