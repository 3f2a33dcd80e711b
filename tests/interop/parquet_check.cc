// SPDX-License-Identifier: Apache-2.0
// The bloomkit side of interop.parquet (tests/interop/README.md). parquet_tool.mjs has
// written a Parquet file with hyparquet-writer, cut out each column chunk's split block
// filter (DIR/<col>.rg<r>.bloom), the probe values (DIR/<col>.keys: present, absent and
// added values, each a 4-byte little-endian length and the plain encoding) and
// hyparquet's answers (DIR/<col>.rg<r>.ans); `bloomkit import parquet` has made
// DIR/<col>.rg<r>.bf of each filter. For every chunk this checks that
//   - bloomkit's answers for the present and absent values equal hyparquet's, false
//     positives included, and every value of the chunk is found;
//   - bloomkit's sizing for the chunk's rows at the writer's rate gives the same bits;
//   - the filter bloomkit builds from the chunk's values has the library's bytes exactly;
//   - a filter of 16 times the bits, folded 4 times, has the library's bytes too;
// then adds added(i), i < rows / 2, and writes DIR/<col>.rg<r>.back.bf with its answers
// (.back.ans) for the library to compare after `bloomkit export --format parquet`.
//
//   parquet_check DIR
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/foreign_bloom.h"
#include "file_bytes.h"

namespace {

using bloomkit_interop::ReadAll;
using bloomkit_interop::WriteAll;

constexpr std::size_t kRows = 100000;  // present, absent and added values per column (parquet_tool.mjs)
using bloomkit::ParquetBloomFilter;

std::string_view AsText(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// The values of a .keys file, views into `data`.
std::vector<std::string_view> ParseKeys(const std::string& data, const std::string& path) {
  std::vector<std::string_view> keys;
  std::size_t at = 0;
  while (at < data.size()) {
    if (data.size() - at < 4) throw std::runtime_error(path + ": truncated length");
    std::uint32_t len = 0;
    for (std::size_t b = 0; b < 4; ++b) len |= std::uint32_t{static_cast<unsigned char>(data[at + b])} << (8 * b);
    at += 4;
    if (data.size() - at < len) throw std::runtime_error(path + ": truncated value");
    keys.emplace_back(data.data() + at, len);
    at += len;
  }
  if (keys.size() != 3 * kRows)
    throw std::runtime_error(fmt::format("{}: {} values, want {}", path, keys.size(), 3 * kRows));
  return keys;
}

std::string Answers(const ParquetBloomFilter& f, const std::vector<std::string_view>& keys, std::size_t count) {
  std::string out(count, '0');
  for (std::size_t i = 0; i < count; ++i) out[i] = f.MayContain(keys[i]) ? '1' : '0';
  return out;
}

ParquetBloomFilter Unwrap(bloomkit::Result<ParquetBloomFilter> r, const std::string& what) {
  if (!r.ok()) throw std::runtime_error(what + ": " + r.error().message());
  return std::move(r).value();
}

int failures = 0;
void Expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "parquet_check: FAIL %s\n", what.c_str());
    ++failures;
  }
}

void CheckChunk(const std::string& dir, const std::string& col, int rg, std::size_t first, std::size_t rows, double fpp,
                const std::vector<std::string_view>& keys) {
  const std::string base = fmt::format("{}/{}.rg{}", dir, col, rg);
  const std::string library = ReadAll(base + ".bloom");
  const std::string bf = ReadAll(base + ".bf");
  ParquetBloomFilter f =
      Unwrap(ParquetBloomFilter::Deserialize({reinterpret_cast<const std::byte*>(bf.data()), bf.size()}), base + ".bf");

  // Answers: present(0..kRows-1), absent(0..kRows-1), as hyparquet gave them.
  const std::string want = ReadAll(base + ".ans");
  const std::string got = Answers(f, keys, 2 * kRows);
  std::size_t differ = 0;
  std::size_t missing = 0;
  std::size_t false_positives = 0;
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i) differ += got[i] != want[i] ? 1U : 0U;
  for (std::size_t i = first; i < first + rows; ++i) missing += got[i] != '1' ? 1U : 0U;
  for (std::size_t i = kRows; i < 2 * kRows; ++i) false_positives += got[i] == '1' ? 1U : 0U;
  Expect(differ == 0 && got.size() == want.size(),
         fmt::format("{}: {} of {} answers differ from hyparquet's", base, differ, got.size()));
  Expect(missing == 0, fmt::format("{}: {} of the chunk's {} values not found", base, missing, rows));

  // Sizing: hyparquet-writer sizes for the chunk's distinct values at its fpp.
  auto sized = ParquetBloomFilter::Create({.capacity = rows, .fp_rate = fpp});
  Expect(sized.ok() && sized->num_bits() == f.num_bits(),
         fmt::format("{}: bloomkit sizes {} values at {} to {} bits, the library to {}", base, rows, fpp,
                     sized.ok() ? sized->num_bits() : 0, f.num_bits()));

  // Built from the same values at the same size: the library's bytes, header and bitset.
  const std::span<const std::string_view> values(keys.data() + first, rows);
  ParquetBloomFilter built = Unwrap(ParquetBloomFilter::Create({.num_bits = f.num_bits()}), base + ": create");
  Expect(built.AddBatch(values).ok(), base + ": AddBatch");
  Expect(AsText(built.WriteForeign()) == library,
         base + ": the filter bloomkit builds differs from the library's bytes");

  // Folding: 16 times the bits folded 4 times is the library's filter, bit for bit.
  ParquetBloomFilter big = Unwrap(ParquetBloomFilter::Create({.num_bits = 16 * f.num_bits()}), base + ": create x16");
  Expect(big.AddBatch(values).ok(), base + ": AddBatch x16");
  ParquetBloomFilter folded = Unwrap(big.Folded(4), base + ": Folded(4)");
  Expect(AsText(folded.WriteForeign()) == library,
         base + ": 16x the bits folded 4 times differs from the library's bytes");
  const unsigned within = big.FoldsWithin(fpp);
  std::printf(
      "%s: %zu rows, %llu bytes: %zu answers equal hyparquet's (%zu false positives of %zu absent), built and "
      "folded bytes equal; fold-to %g from %llu bytes: %llu bytes, rate %.4f%% (the library's size: rate %.4f%%)\n",
      base.c_str(), rows, static_cast<unsigned long long>(f.num_bits() / 8), got.size(), false_positives, kRows, fpp,
      static_cast<unsigned long long>(big.num_bits() / 8),
      static_cast<unsigned long long>(big.num_bits() / 8 >> within), 100 * big.FoldedFpRate(within),
      100 * big.FoldedFpRate(4));

  // Write-back: added(i), i < rows / 2, then the answers for everything.
  const std::span<const std::string_view> add(keys.data() + 2 * kRows, rows / 2);
  Expect(f.AddBatch(add).ok(), base + ": AddBatch added");
  WriteAll(base + ".back.bf", AsText(f.Serialize()));
  WriteAll(base + ".back.ans", Answers(f, keys, 3 * kRows));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: parquet_check DIR\n");
    return 2;
  }
  try {
    const std::string dir = argv[1];
    std::istringstream chunks(ReadAll(dir + "/chunks.txt"));
    const std::string s_data = ReadAll(dir + "/s.keys");
    const std::string n_data = ReadAll(dir + "/n.keys");
    const std::vector<std::string_view> s_keys = ParseKeys(s_data, dir + "/s.keys");
    const std::vector<std::string_view> n_keys = ParseKeys(n_data, dir + "/n.keys");
    std::string col;
    int rg = 0;
    std::size_t first = 0;
    std::size_t rows = 0;
    double fpp = 0;
    std::uint64_t num_bytes = 0;
    int seen = 0;
    while (chunks >> col >> rg >> first >> rows >> fpp >> num_bytes) {
      if ((col != "s" && col != "n") || first + rows > kRows)
        throw std::runtime_error("bad chunks.txt line for " + col);
      CheckChunk(dir, col, rg, first, rows, fpp, col == "s" ? s_keys : n_keys);
      ++seen;
    }
    Expect(seen == 4, fmt::format("{} column chunks in chunks.txt, want 4", seen));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parquet_check: %s\n", e.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
