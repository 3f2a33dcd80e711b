// SPDX-License-Identifier: Apache-2.0
// The filters of other libraries' layouts, bit for bit (foreign_bloom.h): Go's
// bits-and-blooms, Java's Guava and Apache Parquet's split block filter.
#include "binding.h"

namespace bloomkit::python {

void BindForeignKinds(py::module_& m) {
  auto bab = BindFilter<BitsAndBloomsFilter>(
      m, "BitsAndBloomsFilter",
      "The Bloom filter of Go's bits-and-blooms/bloom v3, bit for bit (foreign_bloom.h): its\n"
      "MurmurHash3 probes and sizing, so every answer equals the Go library's. Keys are the []byte\n"
      "given to Add (a str: its UTF-8 bytes, as AddString). bloomkit.load(path,\n"
      "format='bits-and-blooms') reads a file the library wrote (WriteTo); save(path,\n"
      "format='bits-and-blooms') writes one it reads (ReadFrom).\n\n"
      "BitsAndBloomsFilter(capacity, fp_rate=0.01, *, num_bits=0, num_hashes=0, max_memory=4 GiB):\n"
      "NewWithEstimates(capacity, fp_rate), or New(num_bits, num_hashes).");
  bab.def(py::init([](std::uint64_t capacity, double fp_rate, std::uint64_t num_bits, std::uint32_t num_hashes,
                      std::uint64_t max_memory) {
            return MakeBox(Take(BitsAndBloomsFilter::Create({.capacity = capacity,
                                                             .fp_rate = fp_rate,
                                                             .num_bits = num_bits,
                                                             .num_hashes = num_hashes,
                                                             .max_memory_bytes = max_memory})));
          }),
          py::arg("capacity") = 0, py::arg("fp_rate") = 0.01, py::kw_only(), py::arg("num_bits") = 0,
          py::arg("num_hashes") = 0, py::arg("max_memory") = kDefaultMaxMemory);
  auto guava = BindFilter<GuavaBloomFilter>(
      m, "GuavaBloomFilter",
      "Guava's BloomFilter (Java), bit for bit (foreign_bloom.h): its MurmurHash3 strategies and\n"
      "sizing, so every answer equals Guava's. Keys are the bytes the Funnel puts: a str is its\n"
      "UTF-8 bytes (Funnels.stringFunnel(UTF_8)); Funnels.longFunnel() puts 8 bytes little-endian\n"
      "(struct.pack('<q', v)). bloomkit.load(path, format='guava') reads writeTo's bytes;\n"
      "save(path, format='guava') writes what readFrom reads.\n\n"
      "GuavaBloomFilter(capacity, fp_rate=0.03, *, num_bits=0, num_hashes=0, strategy=1,\n"
      "max_memory=4 GiB): BloomFilter.create(funnel, capacity, fp_rate); strategy 1 is\n"
      "MURMUR128_MITZ_64 (what create uses), 0 MURMUR128_MITZ_32.");
  guava.def(py::init([](std::uint64_t capacity, double fp_rate, std::uint64_t num_bits, std::uint32_t num_hashes,
                        int strategy, std::uint64_t max_memory) {
              if (strategy != 0 && strategy != 1) {
                Throw(Error(ErrorCode::kInvalidArgument,
                            "strategy must be 0 (MURMUR128_MITZ_32) or 1 (MURMUR128_MITZ_64), got " +
                                std::to_string(strategy)));
              }
              return MakeBox(Take(GuavaBloomFilter::Create({.capacity = capacity,
                                                            .fp_rate = fp_rate,
                                                            .num_bits = num_bits,
                                                            .num_hashes = num_hashes,
                                                            .guava_strategy = static_cast<GuavaStrategy>(strategy),
                                                            .max_memory_bytes = max_memory})));
            }),
            py::arg("capacity") = 0, py::arg("fp_rate") = 0.03, py::kw_only(), py::arg("num_bits") = 0,
            py::arg("num_hashes") = 0, py::arg("strategy") = 1, py::arg("max_memory") = kDefaultMaxMemory);
  guava.def_property_readonly(
      "strategy", [](const Box<GuavaBloomFilter>& self) { return static_cast<int>(self.filter.guava_strategy()); },
      "Guava's strategy ordinal: 1 MURMUR128_MITZ_64, 0 MURMUR128_MITZ_32.");

  auto parquet = BindFilter<ParquetBloomFilter>(
      m, "ParquetBloomFilter",
      "Apache Parquet's split block Bloom filter, bit for bit (foreign_bloom.h): XXH64 of the value's\n"
      "plain encoding (a str: its UTF-8 bytes; an INT64: struct.pack('<q', v)), 256-bit blocks.\n"
      "bloomkit.load(path, format='parquet') reads a BloomFilterHeader and bitset as a Parquet\n"
      "column chunk stores them; save(path, format='parquet') writes them.\n\n"
      "ParquetBloomFilter(capacity, fp_rate=0.01, *, num_bits=0, max_memory=4 GiB): Arrow's and\n"
      "parquet-mr's OptimalNumOfBits(capacity, fp_rate), or num_bits rounded up to 256-bit blocks.");
  parquet.def(py::init([](std::uint64_t capacity, double fp_rate, std::uint64_t num_bits, std::uint64_t max_memory) {
                return MakeBox(Take(ParquetBloomFilter::Create(
                    {.capacity = capacity, .fp_rate = fp_rate, .num_bits = num_bits, .max_memory_bytes = max_memory})));
              }),
              py::arg("capacity") = 0, py::arg("fp_rate") = 0.01, py::kw_only(), py::arg("num_bits") = 0,
              py::arg("max_memory") = kDefaultMaxMemory);
  using ParquetBox = Box<ParquetBloomFilter>;
  parquet.def(
      "folded_fp_rate",
      [](const ParquetBox& self, unsigned folds) {
        return WithGil(self, false, [&] { return self.filter.FoldedFpRate(folds); });
      },
      py::arg("folds"),
      "The false-positive rate after `folds` halvings, exactly as the bits give it (1.0 when\n"
      "2**folds does not divide the number of blocks).");
  parquet.def(
      "folds_within",
      [](const ParquetBox& self, double fp_rate) {
        return WithGil(self, false, [&] { return self.filter.FoldsWithin(fp_rate); });
      },
      py::arg("fp_rate"), "The most halvings after which the rate stays at or below fp_rate.");
  parquet.def(
      "folded",
      [](const ParquetBox& self, std::optional<unsigned> folds, std::optional<double> fp_rate) {
        if (folds.has_value() == fp_rate.has_value()) {
          Throw(Error(ErrorCode::kInvalidArgument, "folded() takes either folds or fp_rate"));
        }
        return WithGil(self, false, [&] {
          return MakeBox(Take(self.filter.Folded(folds ? *folds : self.filter.FoldsWithin(*fp_rate))));
        });
      },
      py::arg("folds") = py::none(), py::kw_only(), py::arg("fp_rate") = py::none(),
      "A new filter, folded (blocks 2i and 2i + 1 ORed, halving it) `folds` times, or as often as\n"
      "its rate stays at or below fp_rate: bit for bit the smaller filter the same values build,\n"
      "the way Parquet writers size a chunk's filter after the fact.");
}

}  // namespace bloomkit::python
