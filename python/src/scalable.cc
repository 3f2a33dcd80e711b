// SPDX-License-Identifier: Apache-2.0
// The scalable Bloom filter: a chain of stages that grows as keys arrive.
#include "binding.h"

namespace bloomkit::python {

void BindScalable(py::module_& m) {
  auto scalable = BindFilter<ScalableBloomFilter>(
      m, "ScalableBloomFilter",
      "A chain of classic filters that grows as keys arrive and keeps a compound false-positive rate.\n\n"
      "ScalableBloomFilter(capacity=100, fp_rate=0.01, *, expansion=2, tightening=0.5, non_scaling=False,\n"
      "max_stages=64, max_memory=4 GiB): `capacity` is the first stage's. The older keywords growth=\n"
      "(for expansion) and scaling= (for not non_scaling) are accepted too.");
  scalable.def(py::init([](std::uint64_t capacity, double fp_rate, std::optional<std::uint32_t> expansion,
                           double tightening, std::optional<bool> non_scaling, std::uint32_t max_stages,
                           std::uint64_t max_memory, std::optional<std::uint32_t> growth, std::optional<bool> scaling) {
                 if (expansion && growth) throw py::type_error("give expansion or its older name growth, not both");
                 if (non_scaling && scaling) {
                   throw py::type_error("give non_scaling or its older opposite scaling, not both");
                 }
                 return MakeBox(Take(ScalableBloomFilter::Create(
                     ScalableOptions{.initial_capacity = capacity,
                                     .fp_rate = fp_rate,
                                     .expansion = expansion.value_or(growth.value_or(2)),
                                     .tightening = tightening,
                                     .non_scaling = non_scaling.value_or(scaling ? !*scaling : false),
                                     .max_stages = max_stages,
                                     .max_memory_bytes = max_memory})));
               }),
               py::arg("capacity") = 100, py::arg("fp_rate") = 0.01, py::kw_only(), py::arg("expansion") = py::none(),
               py::arg("tightening") = 0.5, py::arg("non_scaling") = py::none(), py::arg("max_stages") = 64,
               py::arg("max_memory") = kDefaultMaxMemory, py::arg("growth") = py::none(),
               py::arg("scaling") = py::none());
}

}  // namespace bloomkit::python
