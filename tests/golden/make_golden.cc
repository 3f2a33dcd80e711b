// SPDX-License-Identifier: Apache-2.0
// Writes the golden files of golden_recipes.h into a directory:
//
//   cmake --build build/dev --target bloomkit_make_golden
//   build/dev/tests/golden/bloomkit_make_golden tests/golden/data
//
// Regenerate only for a deliberate format change (which also needs a new format
// version, docs/FORMAT.md); see tests/golden/README.md.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "golden_recipes.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (const auto& recipe : bloomkit_golden::Recipes()) {
    const std::vector<std::byte> bytes = recipe.build();
    const std::filesystem::path path = dir / recipe.file;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    std::printf("%-26s %6zu bytes  %s\n", recipe.file, bytes.size(), recipe.description);
  }
  return 0;
}
