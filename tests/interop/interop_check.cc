// SPDX-License-Identifier: Apache-2.0
// The bloomkit side of the interop tests (tests/interop/README.md): reads the filters
// that the real libraries wrote (babtool.go, GuavaTool.java), checks that every answer
// equals the library's (false positives included), that the library's sizing is
// reproduced and that writing the filter back gives the library's bytes exactly; then
// adds keys and writes each filter back for the library to check.
//
//   interop_check bits-and-blooms|guava DIR     the light cases
//   interop_check bits-and-blooms-big|guava-big DIR   the filter of more than 2^32 bits
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomkit/foreign_bloom.h"
#include "file_bytes.h"

namespace {

using bloomkit_interop::ReadAll;
using bloomkit_interop::WriteAll;

constexpr int kProbes = 100000;

std::string Key(int i) {
  std::string s = "k" + std::to_string(i);
  if (i % 7 == 0) s += "-\xc3\xa9\xe6\x97\xa5";  // "-é日" in UTF-8
  return s + "-" + std::string(static_cast<std::size_t>(i % 37), 'x');
}
std::string Absent(int i) {
  return "a" + std::to_string(i) + "-" + std::string(static_cast<std::size_t>(i % 23), 'y');
}
std::string Added(int i) {
  return "n" + std::to_string(i) + "-" + std::string(static_cast<std::size_t>(i % 19), 'z');
}
// Funnels.longFunnel(): the long's 8 bytes, little-endian.
std::string LongKey(std::int64_t v) {
  std::string s(8, '\0');
  for (int b = 0; b < 8; ++b)
    s[static_cast<std::size_t>(b)] = static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * b)) & 0xff);
  return s;
}

template <typename F>
std::string Answers(const F& f) {
  std::string out;
  out.reserve(2 * kProbes);
  for (int i = 0; i < kProbes; ++i) out += f.MayContain(Key(i)) ? '1' : '0';
  for (int i = 0; i < kProbes; ++i) out += f.MayContain(Absent(i)) ? '1' : '0';
  return out;
}

int failures = 0;
void Expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "interop_check: FAIL %s\n", what.c_str());
    ++failures;
  }
}

template <typename F>
F Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  auto f = F::ReadForeign(in, {.max_memory_bytes = std::uint64_t{8} << 30});
  if (!f.ok()) throw std::runtime_error(path + ": " + f.error().message());
  return std::move(f).value();
}

// One filter the library wrote with n keys at rate p (p = 0: explicit size, no sizing check).
template <typename F>
void CheckCase(const std::string& base, int n, double p, bool write_back,
               bloomkit::GuavaStrategy strategy = bloomkit::GuavaStrategy::kMurmur128Mitz64) {
  const std::string original = ReadAll(base + ".bin");
  F f = Load<F>(base + ".bin");
  // Bit for bit: written back unchanged, the bytes are the library's.
  const std::vector<std::byte> again = f.WriteForeign();
  Expect(std::string(reinterpret_cast<const char*>(again.data()), again.size()) == original,
         base + ": WriteForeign of the unchanged filter differs from the library's bytes");
  if (p > 0) {
    auto made = F::Create({.capacity = static_cast<std::uint64_t>(n), .fp_rate = p, .guava_strategy = strategy});
    Expect(made.ok() && made->num_bits() == f.num_bits() && made->num_hashes() == f.num_hashes(),
           fmt::format("{}: bloomkit's sizing for n={} p={} gives {} bits/{} hashes, the library's {} bits/{} hashes",
                       base, n, p, made.ok() ? made->num_bits() : 0, made.ok() ? made->num_hashes() : 0, f.num_bits(),
                       f.num_hashes()));
  }
  const std::string want = ReadAll(base + ".ans");
  const std::string got = Answers(f);
  int differ = 0;
  int false_positives = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    differ += got[i] != want[i] ? 1 : 0;
    false_positives += i >= kProbes && got[i] == '1' ? 1 : 0;
  }
  Expect(differ == 0 && got.size() == want.size(),
         fmt::format("{}: {} of {} answers differ", base, differ, got.size()));
  // The bloomkit file form keeps everything.
  auto reloaded = F::Deserialize(f.Serialize());
  Expect(reloaded.ok() && reloaded.value() == f, base + ": bloomkit file round trip changed the filter");
  std::printf("%s: m=%llu k=%u, %zu answers equal the library's (%d false positives of %d absent probes)\n",
              base.c_str(), static_cast<unsigned long long>(f.num_bits()), f.num_hashes(), got.size(), false_positives,
              kProbes);
  if (!write_back) return;
  for (int i = 0; i < n / 2; ++i) (void)f.Add(Added(i));
  std::ofstream out(base + ".back", std::ios::binary);
  Expect(f.WriteForeign(out).ok(), base + ": WriteForeign failed");
  out.close();
  WriteAll(base + ".back.ans", Answers(f));
}

void CheckLongs(const std::string& base) {
  auto f = Load<bloomkit::GuavaBloomFilter>(base + ".bin");
  const std::string want = ReadAll(base + ".ans");
  std::string got;
  for (int i = 0; i < 2 * kProbes; ++i) got += f.MayContain(LongKey(i)) ? '1' : '0';
  Expect(got == want, base + ": longFunnel answers differ");
  std::printf("%s: %zu longFunnel answers (8 bytes little-endian) equal Guava's\n", base.c_str(), got.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: interop_check bits-and-blooms|guava|bits-and-blooms-big|guava-big DIR\n");
    return 2;
  }
  const std::string mode = argv[1];
  const std::string dir = argv[2];
  try {
    const int sizes[] = {1000, 20000, 100000};
    const double rates[] = {0.01, 0.001};
    for (int n : sizes) {
      for (double p : rates) {
        const std::string name = fmt::format("{}_{}", n, p == 0.01 ? "01" : "001");
        if (mode == "bits-and-blooms") CheckCase<bloomkit::BitsAndBloomsFilter>(dir + "/bab_" + name, n, p, true);
        if (mode == "guava") CheckCase<bloomkit::GuavaBloomFilter>(dir + "/guava_" + name, n, p, true);
      }
    }
    if (mode == "guava") {
      CheckCase<bloomkit::GuavaBloomFilter>(dir + "/guava32_1000_01", 1000, 0.01, true,
                                            bloomkit::GuavaStrategy::kMurmur128Mitz32);
      CheckLongs(dir + "/guavalong_20000_01");
    }
    if (mode == "bits-and-blooms-big") CheckCase<bloomkit::BitsAndBloomsFilter>(dir + "/bab_big", kProbes, 0, false);
    if (mode == "guava-big") CheckCase<bloomkit::GuavaBloomFilter>(dir + "/guava_big", kProbes, 0, false);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "interop_check: %s\n", e.what());
    return 1;
  }
  if (failures != 0) return 1;
  std::printf("interop_check %s: all checks passed\n", mode.c_str());
  return 0;
}
