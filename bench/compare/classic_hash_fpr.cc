// SPDX-License-Identifier: Apache-2.0
// bloomkit_classic_hash_fpr: the false-positive rate of classic filters of hash id 1
// (XXH3-128) and hash id 4 (the short-key hash expanded to a probe pair) on adversarial
// key families, against the formula (1 - e^{-kn/m})^k, at any size: 10^6, 10^8 and
// filters past 2^32 bits, where the probe positions must reach every one of the m bits.
// The measurement behind the classic filter's default hash (docs/FILTERS.md).
//
//   bloomkit_classic_hash_fpr --n=1e6 [--bits=M] [--hash=1,4] [--families=0,1,...] [--queries=1e7]
//
// Distinct i give distinct keys in every family for n + q below 2^32 (the 3..8-byte
// family: below 6 * 2^24, about 10^8). Keys 0..n-1 of
// each family are added (AddBatch, 4096 at a time, generated per batch so
// memory is the filter's alone) into a filter sized for n at 1% (or of M bits with the
// k that is optimal for n); keys n..n+q-1 of the same family, never added, are queried.
// The verdict is the one-sided criterion of tests/unit/hash_quality_test.cc: the false
// positives must not exceed the formula's expectation by more than 3 standard
// deviations. For filters of more than 2^32 bits the fill of the bits at and above 2^32
// is printed beside the fill of those below: a probe reduced through 32 bits would leave
// the upper part empty.
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/bloom_filter.h"
#include "bloomkit/hash.h"
#include "bloomkit/sizing.h"

namespace {

constexpr std::size_t kBatch = 4096;

struct Family {
  const char* name;
  std::function<void(std::uint64_t, std::string&)> key;  // key i into the string
};

void Le(std::uint64_t v, std::size_t bytes, std::string& out) {
  out.resize(bytes);
  for (std::size_t b = 0; b < bytes; ++b) out[b] = static_cast<char>((v >> (8 * b)) & 0xff);
}

std::vector<Family> Families() {
  return {
      {"IntegerKey(i)", [](std::uint64_t i, std::string& s) { Le(i, 8, s); }},
      {"IntegerKey(i << 32)", [](std::uint64_t i, std::string& s) { Le(i << 32, 8, s); }},
      // Rotated, not shifted, so that the keys stay distinct past 2^24 of them.
      {"IntegerKey(rotl(i, 40))", [](std::uint64_t i, std::string& s) { Le(std::rotl(i, 40), 8, s); }},
      {"IntegerKey(i * 2^20 + 1)", [](std::uint64_t i, std::string& s) { Le((i << 20) + 1, 8, s); }},
      {"4-byte little-endian i", [](std::uint64_t i, std::string& s) { Le(i, 4, s); }},
      {"decimal i", [](std::uint64_t i, std::string& s) { s = std::to_string(i); }},
      {"u:<i>", [](std::uint64_t i, std::string& s) { s = "u:" + std::to_string(i); }},
      {"long common prefix",
       [](std::uint64_t i, std::string& s) { s = "https://example.com/api/v1/users/profile/" + std::to_string(i); }},
      {"i / 6 as 3..8 little-endian bytes",
       [](std::uint64_t i, std::string& s) {
         Le(i / 6, 8, s);
         s.resize(3 + i % 6);
       }},
  };
}

double Arg(int argc, char** argv, const char* name, double fallback) {
  const std::size_t len = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, len) == 0 && argv[i][len] == '=') return std::strtod(argv[i] + len + 1, nullptr);
  }
  return fallback;
}

std::vector<int> ListArg(int argc, char** argv, const char* name, std::vector<int> fallback) {
  const std::size_t len = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, len) == 0 && argv[i][len] == '=') {
      std::vector<int> out;
      const char* p = argv[i] + len + 1;
      while (*p != '\0') {
        char* end = nullptr;
        out.push_back(static_cast<int>(std::strtol(p, &end, 10)));
        if (end == p) break;
        p = *end == ',' ? end + 1 : end;
      }
      return out;
    }
  }
  return fallback;
}

// Calls `use` with the keys [begin, end) of `family`, kBatch at a time.
template <typename Use>
void ForKeys(const Family& family, std::uint64_t begin, std::uint64_t end, Use use) {
  std::vector<std::string> keys(kBatch);
  std::vector<std::string_view> views(kBatch);
  for (std::uint64_t base = begin; base < end; base += kBatch) {
    const std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(kBatch, end - base));
    for (std::size_t j = 0; j < len; ++j) {
      family.key(base + j, keys[j]);
      views[j] = keys[j];
    }
    use(std::span<const std::string_view>(views.data(), len));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto n = static_cast<std::uint64_t>(Arg(argc, argv, "--n", 1e6));
  const auto bits = static_cast<std::uint64_t>(Arg(argc, argv, "--bits", 0));
  const auto queries = static_cast<std::uint64_t>(Arg(argc, argv, "--queries", 1e7));
  const std::vector<int> hash_ids = ListArg(argc, argv, "--hash", {1, 4});
  const std::vector<Family> families = Families();
  std::vector<int> which = ListArg(argc, argv, "--families", {});
  if (which.empty()) {
    for (std::size_t i = 0; i < families.size(); ++i) which.push_back(static_cast<int>(i));
  }
  std::printf("# n=%llu bits=%llu queries=%llu; verdict: false positives <= expected + 3 sd\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(bits),
              static_cast<unsigned long long>(queries));
  std::printf("%-26s %4s %12s %2s %9s %9s %9s %7s %s\n", "family", "hash", "bits", "k", "fill", "formula%", "measured%",
              "z", "verdict");
  bool all_pass = true;
  for (const int fi : which) {
    if (fi < 0 || static_cast<std::size_t>(fi) >= families.size()) {
      std::fprintf(stderr, "family %d is not in 0..%zu\n", fi, families.size() - 1);
      return 2;
    }
    const Family& family = families[static_cast<std::size_t>(fi)];
    for (const int hash_id : hash_ids) {
      bloomkit::BloomOptions options{.capacity = n, .fp_rate = 0.01, .hash_id = static_cast<std::uint16_t>(hash_id)};
      if (bits != 0) {
        const double k = std::round(static_cast<double>(bits) / static_cast<double>(n) * std::log(2.0));
        options = {.num_bits = bits,
                   .num_hashes = static_cast<std::uint32_t>(std::max(1.0, k)),
                   .hash_id = static_cast<std::uint16_t>(hash_id)};
      }
      auto made = bloomkit::BloomFilter::Create(options);
      if (!made.ok()) {
        std::fprintf(stderr, "%s\n", made.error().message().c_str());
        return 2;
      }
      bloomkit::BloomFilter& f = made.value();
      const auto start = std::chrono::steady_clock::now();
      ForKeys(family, 0, n, [&](std::span<const std::string_view> keys) { static_cast<void>(f.AddBatch(keys)); });
      std::uint64_t false_positives = 0;
      std::vector<char> out(kBatch);
      ForKeys(family, n, n + queries, [&](std::span<const std::string_view> keys) {
        false_positives += f.MayContainBatch(keys, {reinterpret_cast<bool*>(out.data()), keys.size()});
      });
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double m = static_cast<double>(f.num_bits());
      const double p = bloomkit::ClassicFpRate(m, static_cast<double>(n), f.num_hashes());
      const double expected = p * static_cast<double>(queries);
      const double z = (static_cast<double>(false_positives) - expected) / std::sqrt(expected * (1 - p));
      const bool pass = z <= 3;
      all_pass = all_pass && pass;
      std::printf("%-26s %4d %12llu %2u %9.6f %9.5f %9.5f %7.2f %s (%.0f s)\n", family.name, hash_id,
                  static_cast<unsigned long long>(f.num_bits()), f.num_hashes(), f.FillRatio(), 100 * p,
                  100.0 * static_cast<double>(false_positives) / static_cast<double>(queries), z,
                  pass ? "pass" : "FAIL", seconds);
      if (f.num_bits() > (std::uint64_t{1} << 32)) {
        // Fill below and at/above bit 2^32 (word 2^26): both near 1 - e^{-kn/m}.
        const auto words = f.words();
        const std::size_t split = std::size_t{1} << 26;
        std::uint64_t low = 0;
        std::uint64_t high = 0;
        for (std::size_t w = 0; w < words.size(); ++w) {
          (w < split ? low : high) += static_cast<std::uint64_t>(std::popcount(words[w]));
        }
        std::printf("  fill below 2^32: %.6f, at and above 2^32 (%llu bits): %.6f, formula %.6f\n",
                    static_cast<double>(low) / 4294967296.0,
                    static_cast<unsigned long long>(f.num_bits() - (std::uint64_t{1} << 32)),
                    static_cast<double>(high) / (m - 4294967296.0),
                    1 - std::exp(-static_cast<double>(f.num_hashes()) * static_cast<double>(n) / m));
      }
      std::fflush(stdout);
    }
  }
  return all_pass ? 0 : 1;
}
