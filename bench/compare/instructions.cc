// SPDX-License-Identifier: Apache-2.0
// bloomkit_instructions: the per-key work of bloomkit's filters and Boost.Bloom's, in
// instructions, for bench/compare/instructions.sh to count under callgrind.
//
// Timings on a shared host move by ±20% between identical runs (docs/BENCHMARKS.md);
// an instruction count does not move at all. Each operation below is one noinline
// function looping over the same n 8-byte keys, so callgrind's inclusive count of that
// function divided by n is the operation's instructions per key, with everything the
// library does for it (hashing, dispatch, calls, probes). Instructions are not time:
// a DRAM miss costs hundreds of them. The filters here hold n = 10^5 keys (about
// 130 KB), so they stay in the caches and the count is close to what bounds the speed.
//
//   bloomkit_instructions [n]     # runs every operation once; prints a checksum
#include <algorithm>
#include <array>
#include <boost/bloom/fast_multiblock32.hpp>
#include <boost/bloom/filter.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.h"
#include "bloomkit/bloom_filter.h"

namespace {

using bloomkit::BlockedBloomFilter;
using bloomkit::BloomFilter;

constexpr std::size_t kBatch = 1024;

struct Keys {
  std::vector<std::array<char, 8>> bytes;
  std::vector<std::string_view> views;
  std::vector<std::uint64_t> ints;
};

Keys MakeKeys(std::size_t n) {
  Keys k;
  k.bytes.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t v = i * 0x9e3779b97f4a7c15ULL + 12345;
    std::memcpy(k.bytes[i].data(), &v, 8);
    k.ints.push_back(v);
  }
  for (const auto& b : k.bytes) k.views.emplace_back(b.data(), b.size());
  return k;
}

// The contenders, named in the template arguments of the functions below so that
// callgrind's names tell them apart.
struct Blocked256 {};
struct Classic1 {};
struct Classic4 {};
struct BoostFmb32x8 {};
struct BoostClassic7 {};

// Boost.Bloom takes the key as the integer its bytes spell (as bloomkit_compare does);
// bloomkit takes the bytes.
std::uint64_t AsInteger(std::string_view key) {
  std::uint64_t v = 0;
  std::memcpy(&v, key.data(), 8);
  return v;
}

// Each operation's own counter of calls. It also makes the instantiations of two
// contenders of one filter type (Classic1, Classic4) different functions, which the
// linker would otherwise fold into one and callgrind count as one.
template <typename Tag, int kOp>
std::size_t calls = 0;

template <typename F>
constexpr bool kIsBloomkit = requires(F& f, std::string_view key) {
  f.Add(key);
};

template <typename Tag, typename F>
[[gnu::noinline]] void Insert(F& f, const Keys& k) {
  ++calls<Tag, 0>;
  for (std::string_view key : k.views) {
    if constexpr (kIsBloomkit<F>) {
      static_cast<void>(f.Add(key));
    } else {
      f.insert(AsInteger(key));
    }
  }
}

template <typename Tag, typename F>
[[gnu::noinline]] void InsertBatch(F& f, const Keys& k) {
  ++calls<Tag, 1>;
  if constexpr (kIsBloomkit<F>) {
    const std::span<const std::string_view> all(k.views);
    for (std::size_t i = 0; i < all.size(); i += kBatch) {
      static_cast<void>(f.AddBatch(all.subspan(i, std::min(kBatch, all.size() - i))));
    }
  } else {
    f.insert(k.ints.begin(), k.ints.end());
  }
}

template <typename Tag, typename F>
[[gnu::noinline]] std::size_t Query(const F& f, const Keys& k) {
  ++calls<Tag, 2>;
  std::size_t hits = 0;
  for (std::string_view key : k.views) {
    if constexpr (kIsBloomkit<F>) {
      hits += f.MayContain(key) ? 1U : 0U;
    } else {
      hits += f.may_contain(AsInteger(key)) ? 1U : 0U;
    }
  }
  return hits;
}

template <typename Tag, typename F>
[[gnu::noinline]] std::size_t QueryBatch(const F& f, const Keys& k) {
  ++calls<Tag, 3>;
  std::size_t hits = 0;
  if constexpr (kIsBloomkit<F>) {
    static std::array<bool, kBatch> out;
    const std::span<const std::string_view> all(k.views);
    for (std::size_t i = 0; i < all.size(); i += kBatch) {
      hits += f.MayContainBatch(all.subspan(i, std::min(kBatch, all.size() - i)), out);
    }
  } else {
    f.may_contain(k.ints.begin(), k.ints.end(), [&](const std::uint64_t&, bool r) { hits += r ? 1U : 0U; });
  }
  return hits;
}

template <typename Tag, typename F>
std::size_t RunAll(F& f, const Keys& k) {
  Insert<Tag>(f, k);
  InsertBatch<Tag>(f, k);
  return Query<Tag>(f, k) + QueryBatch<Tag>(f, k);
}

template <typename Tag, typename F>
std::size_t RunBloomkit(bloomkit::Result<F> f, const Keys& k) {
  if (!f.ok()) std::abort();
  return RunAll<Tag>(*f, k);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
  if (n == 0 || n > 100000000) {
    std::fprintf(stderr, "n must be in [1, 10^8], got %s\n", argv[1]);
    return 2;
  }
  const Keys k = MakeKeys(n);
  const std::size_t n_keys = k.views.size();
  std::size_t sum = RunBloomkit<Blocked256>(
      BlockedBloomFilter::Create(
          {.capacity = n_keys, .fp_rate = 0.01, .blocked_layout = bloomkit::BlockedLayout::kLanes256}),
      k);
  sum += RunBloomkit<Classic1>(BloomFilter::Create({.capacity = n_keys, .fp_rate = 0.01}), k);
  sum += RunBloomkit<Classic4>(
      BloomFilter::Create({.capacity = n_keys, .fp_rate = 0.01, .hash_id = bloomkit::kHashIdShort64}), k);
  boost::bloom::filter<std::uint64_t, 1, boost::bloom::fast_multiblock32<8>> fmb(n_keys, 0.01);
  sum += RunAll<BoostFmb32x8>(fmb, k);
  boost::bloom::filter<std::uint64_t, 7> classic(n_keys, 0.01);
  sum += RunAll<BoostClassic7>(classic, k);
  std::printf("%zu\n", sum);
  return 0;
}
