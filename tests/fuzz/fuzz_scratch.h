// SPDX-License-Identifier: Apache-2.0
// A scratch directory for fuzz targets that write real files: one per process,
// <temporary directory>/<prefix><pid>, made on first use and removed at exit.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace bloomkit_fuzz {

// The path lives until exit (never destroyed before it: the atexit handler runs after
// static destructors registered later), so the handler can still remove it.
inline const std::filesystem::path& ScratchDir(std::string_view prefix) {
  static const std::filesystem::path* const dir = [prefix] {
    auto* d = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                        (std::string(prefix) + std::to_string(static_cast<long>(::getpid()))));
    std::filesystem::create_directories(*d);
    return d;
  }();
  static const bool registered = [] {
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(*dir, ec);
    });
    return true;
  }();
  static_cast<void>(registered);
  return *dir;
}

}  // namespace bloomkit_fuzz
