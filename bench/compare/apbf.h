// SPDX-License-Identifier: Apache-2.0
// An age-partitioned Bloom filter (APBF; Shtul, Baquero & Almeida, "Age-Partitioned Bloom
// Filters", 2020), written from the paper's description as a peer for the windowed filter's
// benchmark (bloomkit_windowed_compare). Not part of the library.
//
// k + l slices, each a bit array of m bits. A key sets one bit in each of the k newest
// slices. After every g keys (a generation) the slices age by one: the oldest slice is
// cleared and becomes the newest. A query answers "maybe" when k consecutive slices
// all have the key's bit. A key stays found while its k slices are among the k + l, i.e.
// for its own generation and l more: the last l g keys (at least) are never missed, so a
// window of n keys takes g = ceil(n / l). Each slice receives k g keys while it is one
// of the k newest, so m = k g / ln 2 fills it to one half (the partitioned filter's
// optimum):
//
//   bits per key = (k + l) m / n = (k + l) k / (l ln 2)
//
//   logical slice:   0 (newest) 1 ... k-1 | k ... k+l-1 (oldest)
//                    <- keys are added ->   <- only queried ->
//   physical slice of logical j: (base + j) mod (k + l); aging moves base back by one.
//
// The false-positive rate is the paper's recurrence over the slices' fill ratios (slice i
// of the k newest at (i + 1) / 2k, the others at 1/2), evaluated at the worst moment (the
// newest generation full); ModelFpRate computes it. The (k, l) pairs are the paper's table
// for rates 10^-2 and 10^-3 (levels 0..5: more slices, fewer bits per key).
//
// Each slice has its own hash function: bit position of physical slice s is
// fastrange(h1 + s h2, m) (Kirsch-Mitzenmacher double hashing of one 64-bit hash and its
// SplitMix64 image), so a key keeps its position in a slice as the slice ages.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace bloomkit::bench {

__extension__ using ApbfUint128 = unsigned __int128;

class AgePartitionedBloomFilter {
 public:
  struct Shape {
    std::uint32_t k = 0;
    std::uint32_t l = 0;
  };

  // The paper's (k, l) for rate 10^-digits at `level` (0..5), if it has one.
  static std::optional<Shape> PaperShape(int digits, int level) {
    static constexpr Shape kTwo[] = {{7, 5}, {8, 8}, {9, 14}, {10, 25}, {11, 46}, {12, 88}};
    static constexpr Shape kThree[] = {{10, 7}, {11, 9}, {12, 14}, {13, 23}, {14, 40}, {15, 74}};
    if (level < 0 || level > 5) return std::nullopt;
    if (digits == 2) return kTwo[level];
    if (digits == 3) return kThree[level];
    return std::nullopt;
  }

  // The paper's recurrence F(a, i): the chance that a never-added key finds k consecutive
  // set bits, having matched `a` slices in a row before slice i.
  static double ModelFpRate(std::uint32_t k, std::uint32_t l) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, double> memo;
    auto f = [&](auto&& self, std::uint32_t a, std::uint32_t i) -> double {
      if (a == k) return 1.0;
      if (i > l + a) return 0.0;
      const auto key = std::make_pair(a, i);
      if (auto it = memo.find(key); it != memo.end()) return it->second;
      const double fill = i < k ? static_cast<double>(i + 1) / (2.0 * k) : 0.5;
      const double v = fill * self(self, a + 1, i + 1) + (1.0 - fill) * self(self, 0, i + 1);
      memo.emplace(key, v);
      return v;
    };
    return f(f, 0, 0);
  }

  AgePartitionedBloomFilter(Shape shape, std::uint64_t window_keys)
      : k_(shape.k),
        l_(shape.l),
        slices_(shape.k + shape.l),
        generation_keys_((window_keys + shape.l - 1) / shape.l),
        slice_bits_(static_cast<std::uint64_t>(
            std::ceil(static_cast<double>(shape.k) * static_cast<double>(generation_keys_) / std::log(2.0)))),
        words_per_slice_((slice_bits_ + 63) / 64),
        words_(static_cast<std::size_t>(words_per_slice_ * slices_), 0) {}

  void AddHash(std::uint64_t hash) {
    if (in_generation_ == generation_keys_) Age();
    ++in_generation_;
    const std::uint64_t h2 = Second(hash);
    for (std::uint32_t j = 0; j < k_; ++j) {
      const std::uint32_t s = Physical(j);
      const std::uint64_t bit = Position(s, hash, h2);
      words_[Word(s, bit)] |= std::uint64_t{1} << (bit & 63);
    }
  }

  // Newest slice first; stops as soon as k in a row are found, or when too few slices are
  // left for a run of k.
  [[nodiscard]] bool MayContainHash(std::uint64_t hash) const {
    const std::uint64_t h2 = Second(hash);
    std::uint32_t run = 0;
    for (std::uint32_t j = 0; j < slices_; ++j) {
      if (run + (slices_ - j) < k_) return false;
      const std::uint32_t s = Physical(j);
      const std::uint64_t bit = Position(s, hash, h2);
      if ((words_[Word(s, bit)] >> (bit & 63)) & 1U) {
        if (++run == k_) return true;
      } else {
        run = 0;
      }
    }
    return false;
  }

  [[nodiscard]] std::uint64_t memory_bytes() const { return words_.size() * 8; }
  [[nodiscard]] std::uint32_t k() const { return k_; }
  [[nodiscard]] std::uint32_t l() const { return l_; }
  [[nodiscard]] std::uint64_t generation_keys() const { return generation_keys_; }
  [[nodiscard]] std::uint64_t slice_bits() const { return slice_bits_; }

 private:
  static std::uint64_t Second(std::uint64_t hash) {
    std::uint64_t z = hash + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (z ^ (z >> 31)) | 1U;
  }
  [[nodiscard]] std::uint32_t Physical(std::uint32_t logical) const { return (base_ + logical) % slices_; }
  [[nodiscard]] std::uint64_t Position(std::uint32_t slice, std::uint64_t h1, std::uint64_t h2) const {
    const std::uint64_t x = h1 + slice * h2;
    return static_cast<std::uint64_t>((static_cast<ApbfUint128>(x) * slice_bits_) >> 64);
  }
  [[nodiscard]] std::size_t Word(std::uint32_t slice, std::uint64_t bit) const {
    return static_cast<std::size_t>(slice * words_per_slice_ + bit / 64);
  }
  void Age() {
    base_ = (base_ + slices_ - 1) % slices_;  // the oldest slice becomes the newest
    const auto first = static_cast<std::ptrdiff_t>(base_ * words_per_slice_);
    std::fill(words_.begin() + first, words_.begin() + first + static_cast<std::ptrdiff_t>(words_per_slice_), 0U);
    in_generation_ = 0;
  }

  std::uint32_t k_;
  std::uint32_t l_;
  std::uint32_t slices_;
  std::uint64_t generation_keys_;
  std::uint64_t slice_bits_;
  std::uint64_t words_per_slice_;
  std::vector<std::uint64_t> words_;
  std::uint64_t in_generation_ = 0;
  std::uint32_t base_ = 0;  // physical index of the newest slice
};

}  // namespace bloomkit::bench
