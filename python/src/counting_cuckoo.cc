// SPDX-License-Identifier: Apache-2.0
// The kinds that remove keys: the counting Bloom filter and the cuckoo filter.
#include "binding.h"

namespace bloomkit::python {

void BindCounting(py::module_& m) {
  auto counting = BindFilter<CountingBloomFilter>(
      m, "CountingBloomFilter",
      "A Bloom filter of small counters: keys can be removed. 4x the classic filter's memory with\n"
      "4-bit counters.\n\n"
      "CountingBloomFilter(capacity, fp_rate=0.01, *, counter_bits=4, num_counters=0, num_hashes=0,\n"
      "max_memory=4 GiB)");
  counting.def(py::init([](std::uint64_t capacity, double fp_rate, std::uint32_t counter_bits,
                           std::uint64_t num_counters, std::uint32_t num_hashes, std::uint64_t max_memory) {
                 return MakeBox(Take(CountingBloomFilter::Create(
                     CountingOptions{.bloom = MakeBloomOptions(capacity, fp_rate, num_counters, num_hashes, max_memory),
                                     .counter_bits = counter_bits})));
               }),
               py::arg("capacity") = 0, py::arg("fp_rate") = 0.01, py::kw_only(), py::arg("counter_bits") = 4,
               py::arg("num_counters") = 0, py::arg("num_hashes") = 0, py::arg("max_memory") = kDefaultMaxMemory);
}

void BindCuckoo(py::module_& m) {
  auto cuckoo = BindFilter<CuckooFilter>(
      m, "CuckooFilter",
      "Fingerprints in buckets of a cuckoo hash table: keys can be removed, duplicates are counted.\n\n"
      "CuckooFilter(capacity, fp_rate=0.01, *, bucket_size=4, fingerprint_bits=0, max_kicks=500,\n"
      "expansion=1, max_filters=32, max_memory=4 GiB); expansion=0 never grows (FullError when full).");
  cuckoo.def(py::init([](std::uint64_t capacity, double fp_rate, std::uint32_t bucket_size,
                         std::uint32_t fingerprint_bits, std::uint32_t max_kicks, std::uint32_t expansion,
                         std::uint32_t max_filters, std::uint64_t max_memory) {
               return MakeBox(Take(CuckooFilter::Create(CuckooOptions{.capacity = capacity,
                                                                      .fp_rate = fp_rate,
                                                                      .bucket_size = bucket_size,
                                                                      .fingerprint_bits = fingerprint_bits,
                                                                      .max_kicks = max_kicks,
                                                                      .expansion = expansion,
                                                                      .max_filters = max_filters,
                                                                      .max_memory_bytes = max_memory})));
             }),
             py::arg("capacity") = 0, py::arg("fp_rate") = 0.01, py::kw_only(), py::arg("bucket_size") = 4,
             py::arg("fingerprint_bits") = 0, py::arg("max_kicks") = 500, py::arg("expansion") = 1,
             py::arg("max_filters") = 32, py::arg("max_memory") = kDefaultMaxMemory);
}

}  // namespace bloomkit::python
