// Writes the seed corpora of the fuzz targets: small valid filters of each kind, raw
// and compressed, empty and filled. Run from the repository root:
//   build/release/tests/fuzz/fuzz_make_corpus tests/fuzz/corpus
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz_filters.h"

namespace {

template <typename Filter>
int Write(const std::filesystem::path& dir, const std::string& name, const Filter& filter) {
  std::filesystem::create_directories(dir);
  int failures = 0;
  for (const bool compress : {false, true}) {
    const auto path = dir / (name + (compress ? ".zst.bf" : ".bf"));
    const auto status = bloomkit::SaveFile(filter, path, {.compress = compress});
    if (!status.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), status.error().message().c_str());
      ++failures;
    }
  }
  return failures;
}

template <typename Filter>
int WriteBloomKind(const std::filesystem::path& dir) {
  int failures = 0;
  for (const std::uint64_t keys : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{40}}) {
    auto filter = Filter::Create({.num_bits = 1000, .num_hashes = 3});
    if (!filter.ok()) return 1;
    for (std::uint64_t i = 0; i < keys; ++i) filter->Add("key:" + std::to_string(i));
    failures += Write(dir, "m1000_k3_n" + std::to_string(keys), filter.value());
  }
  auto sized = Filter::Create({.capacity = 50, .fp_rate = 0.01});
  if (!sized.ok()) return 1;
  for (int i = 0; i < 50; ++i) sized->Add("item" + std::to_string(i));
  return failures + Write(dir, "n50_p1pct_full", sized.value());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path root(argv[1]);
  int failures = 0;
  failures += WriteBloomKind<bloomkit::BloomFilter>(root / "classic");
  failures += WriteBloomKind<bloomkit::BlockedBloomFilter>(root / "blocked");
  return failures == 0 ? 0 : 1;
}
