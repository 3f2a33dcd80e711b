// SPDX-License-Identifier: Apache-2.0
// The classic and blocked filters and their concurrent kinds.
#include "binding.h"

namespace bloomkit::python {
namespace {

template <typename F>
void BindBloomConstructor(py::class_<Box<F>>& cls) {
  cls.def(py::init([](std::uint64_t capacity, double fp_rate, std::uint64_t num_bits, std::uint32_t num_hashes,
                      std::uint64_t max_memory) {
            return MakeBox(Take(F::Create(MakeBloomOptions(capacity, fp_rate, num_bits, num_hashes, max_memory))));
          }),
          py::arg("capacity") = 0, py::arg("fp_rate") = 0.01, py::kw_only(), py::arg("num_bits") = 0,
          py::arg("num_hashes") = 0, py::arg("max_memory") = kDefaultMaxMemory);
}

}  // namespace

void BindClassicKinds(py::module_& m) {
  auto classic = BindFilter<BloomFilter>(
      m, "BloomFilter",
      "The classic Bloom filter: k bits per key anywhere in m bits.\n\n"
      "BloomFilter(capacity, fp_rate=0.01, *, num_bits=0, num_hashes=0, max_memory=4 GiB): sized for\n"
      "`capacity` distinct keys at `fp_rate`, or explicitly by num_bits and num_hashes.");
  BindBloomConstructor(classic);
  auto blocked = BindFilter<BlockedBloomFilter>(
      m, "BlockedBloomFilter",
      "All k bits of a key in one 64-byte block: one cache miss per lookup, about 10% more bits than\n"
      "the classic filter at 1%. The fastest kind.\n\n"
      "BlockedBloomFilter(capacity, fp_rate=0.01, *, num_bits=0, num_hashes=0, max_memory=4 GiB,\n"
      "block_bits=0): block_bits=256 makes blocks of 256 bits with one bit in each 32-bit lane,\n"
      "2-3x faster per key for ~4% more bits at 1% (k at most 8); 512 makes 512-bit blocks; 0\n"
      "picks 256 for fp_rate >= 0.001 and 512 below (or when sized by num_bits).");
  blocked.def(
      py::init([](std::uint64_t capacity, double fp_rate, std::uint64_t num_bits, std::uint32_t num_hashes,
                  std::uint64_t max_memory, std::uint32_t block_bits) {
        BloomOptions options = MakeBloomOptions(capacity, fp_rate, num_bits, num_hashes, max_memory);
        if (block_bits == 256) {
          options.blocked_layout = BlockedLayout::kLanes256;
        } else if (block_bits == 512) {
          options.blocked_layout = BlockedLayout::kLines512;
        } else if (block_bits != 0) {
          Throw(Error(ErrorCode::kInvalidArgument, "block_bits must be 512 or 256, got " + std::to_string(block_bits) +
                                                       " (0: the default for fp_rate)"));
        }
        return MakeBox(Take(BlockedBloomFilter::Create(options)));
      }),
      py::arg("capacity") = 0, py::arg("fp_rate") = 0.01, py::kw_only(), py::arg("num_bits") = 0,
      py::arg("num_hashes") = 0, py::arg("max_memory") = kDefaultMaxMemory, py::arg("block_bits") = 0);
  auto concurrent_classic = BindFilter<ConcurrentBloomFilter>(
      m, "ConcurrentBloomFilter",
      "A classic filter whose adds are lock-free: batches of adds from several threads run in\n"
      "parallel. Same file as BloomFilter.");
  BindBloomConstructor(concurrent_classic);
  auto concurrent_blocked = BindFilter<ConcurrentBlockedBloomFilter>(
      m, "ConcurrentBlockedBloomFilter", "A blocked filter whose adds are lock-free. Same file as BlockedBloomFilter.");
  BindBloomConstructor(concurrent_blocked);

  // Conversions between a concurrent kind and its plain kind (the same file).
  concurrent_classic.def(
      "snapshot", [](const Box<ConcurrentBloomFilter>& self) { return MakeBox(self.filter.Snapshot()); },
      "A plain BloomFilter copy holding every key whose add finished before the call.");
  concurrent_blocked.def(
      "snapshot", [](const Box<ConcurrentBlockedBloomFilter>& self) { return MakeBox(self.filter.Snapshot()); },
      "A plain BlockedBloomFilter copy holding every key whose add finished before the call.");
}

}  // namespace bloomkit::python
