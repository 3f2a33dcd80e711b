// SPDX-License-Identifier: Apache-2.0
// The time-windowed filter.
#include "binding.h"

namespace bloomkit::python {

void BindWindowed(py::module_& m) {
  // The time-windowed filter. This class keeps the filter's own clock (milliseconds,
  // moved by advance() and the *_at methods); bloomkit.WindowedBloomFilter
  // (bloomkit/_windowed.py) derives from it and moves it from a clock before each call.
  auto windowed = BindFilter<WindowedBloomFilter>(
      m, "WindowedBloomFilter",
      "Keys seen in the last `window`: a ring of generations of blocked filters, each freed when\n"
      "time passes it. No false negative within the window; forgotten at most window/generations\n"
      "after it; false-positive rate <= fp_rate while no window receives more than `capacity` keys.\n\n"
      "This base class acts at its own time in milliseconds (now_ms), moved by advance(ms);\n"
      "bloomkit.WindowedBloomFilter reads a clock before every call.");
  windowed.def(py::init([](std::uint64_t capacity, double fp_rate, std::uint64_t window_ms, std::uint32_t generations,
                           std::uint64_t start_ms, std::uint32_t max_stages, std::uint64_t max_memory,
                           const std::string& sizing) {
                 if (sizing != "any" && sizing != "steady") {
                   Throw(Error(ErrorCode::kInvalidArgument, "sizing must be 'any' or 'steady', got '" + sizing + "'"));
                 }
                 return MakeBox(Take(WindowedBloomFilter::Create(
                     {.capacity = capacity,
                      .fp_rate = fp_rate,
                      .window = window_ms,
                      .generations = generations,
                      .sizing = sizing == "steady" ? WindowedSizing::kSteadyStream : WindowedSizing::kAnySchedule,
                      .max_stages = max_stages,
                      .start_time = start_ms,
                      .max_memory_bytes = max_memory})));
               }),
               py::arg("capacity"), py::arg("fp_rate") = 0.01, py::kw_only(), py::arg("window_ms"),
               py::arg("generations") = kDefaultWindowedGenerations, py::arg("start_ms") = 0, py::arg("max_stages") = 0,
               py::arg("max_memory") = kDefaultMaxMemory, py::arg("sizing") = "any");
  using WindowedBox = Box<WindowedBloomFilter>;
  windowed.def_property_readonly(
      "sizing",
      [](const WindowedBox& self) {
        return std::string(self.filter.sizing() == WindowedSizing::kSteadyStream ? "steady" : "any");
      },
      "'any': the rate holds for any schedule within capacity; 'steady': about 10% fewer bits,\n"
      "the rate holds while no generation receives more than capacity / generations keys.");
  windowed.def(
      "advance", [](WindowedBox& self, std::uint64_t ms) { WithGil(self, true, [&] { self.filter.Advance(ms); }); },
      py::arg("ms"), "Moves the filter's time to ms if later, freeing the generations that leave the window.");
  windowed.def(
      "add_at",
      [](WindowedBox& self, const py::handle& key, std::uint64_t ms) {
        std::string_view bytes;
        if (!KeyBytes(key.ptr(), &bytes)) throw py::error_already_set();
        const std::string copy(bytes);
        return Take(WithGil(self, true, [&] { return self.filter.AddIfAbsentAt(copy, ms); }));
      },
      py::arg("key"), py::arg("ms"), "advance(ms), then add_if_absent(key): True if no live generation held the key.");
  windowed.def(
      "contains_at",
      [](const WindowedBox& self, const py::handle& key, std::uint64_t ms) {
        std::string_view bytes;
        if (!KeyBytes(key.ptr(), &bytes)) throw py::error_already_set();
        const std::string copy(bytes);
        return WithGil(self, false, [&] { return self.filter.MayContainAt(copy, ms); });
      },
      py::arg("key"), py::arg("ms"), "key in self at time ms (at now_ms if ms is earlier), without changing it.");
  windowed.def_property_readonly(
      "now_ms", [](const WindowedBox& self) { return WithGil(self, false, [&] { return self.filter.now(); }); },
      "The filter's time: the latest it was given (it never goes back).");
  windowed.def_property_readonly(
      "window_ms", [](const WindowedBox& self) { return self.filter.window(); }, "The window in milliseconds.");
  windowed.def_property_readonly(
      "generations", [](const WindowedBox& self) { return self.filter.generations(); },
      "Generations the window is cut into.");
  windowed.def_property_readonly(
      "max_stages", [](const WindowedBox& self) { return self.filter.max_stages(); },
      "Live stages at most before an overfull window degrades instead of growing.");
  windowed.def_property_readonly(
      "num_stages",
      [](const WindowedBox& self) { return WithGil(self, false, [&] { return self.filter.num_stages(); }); },
      "Stages (blocked filters) held now.");
  windowed.def_property_readonly(
      "over_capacity",
      [](const WindowedBox& self) { return WithGil(self, false, [&] { return self.filter.over_capacity(); }); },
      "True when a live window received more keys than its stage limit holds at the target rate.");
}

}  // namespace bloomkit::python
