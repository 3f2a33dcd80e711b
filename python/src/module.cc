// SPDX-License-Identifier: Apache-2.0
// bloomkit._bloomkit: the Python binding of the core filters (pybind11).
//
// One template binds every kind: BindFilter<F> (bind_filter.cc) adds the set-like surface
// and whatever the kind supports (discard/remove, |, &, key counts); each family of kinds
// has its own file (binding.h lists them). This file creates the module. The Python
// package (bloomkit/) re-exports the classes and adds the error classes and helpers
// written in Python.
//
// Threads. Each Python object holds its filter in a Box with a shared mutex and a count
// of the calls on it that run with the GIL released (batches, files). A call made with
// the GIL held while that count is 0 cannot overlap any other call on the filter (they
// all need the GIL), so it takes no lock: that keeps `key in f` lean. Otherwise it
// releases the GIL and takes the mutex, shared for queries and exclusive for changes
// (for the concurrent kinds adds are lock-free, so they only need it shared). Every
// Python object is therefore safe to share between threads; the concurrent kinds let
// batches of adds from several threads run in parallel.
//
// Hot paths. `key in f` is the type's sq_contains slot and `add`/`add_if_absent` are
// METH_O methods written against the C API: pybind11's argument dispatch costs more
// than the filter's probe for a short key (docs/BENCHMARKS.md, "Python").
#include "binding.h"

PYBIND11_MODULE(_bloomkit, m) {
  using namespace bloomkit;          // NOLINT(google-build-using-namespace)
  using namespace bloomkit::python;  // NOLINT(google-build-using-namespace)
  m.doc() = "bloomkit's filters (C++ core); import the bloomkit package, not this module.";
  m.attr("DEFAULT_MAX_MEMORY") = kDefaultMaxMemory;
  m.attr("DEFAULT_WINDOWED_GENERATIONS") = kDefaultWindowedGenerations;
  m.attr("FORMAT_VERSION") = kFormatVersion;
  // Daemon threads inside a batch when the interpreter exits park instead of aborting the
  // process (GilRelease). A new interpreter (embedding) starts with no exit announced.
  g_exiting.store(nullptr);
  py::module_::import("atexit").attr("register")(py::cpp_function(&AnnounceExit));

  // The classes, in this order (each file's header says what it binds).
  BindClassicKinds(m);
  BindCounting(m);
  BindScalable(m);
  BindWindowed(m);
  BindCuckoo(m);
  BindForeignKinds(m);
  BindRedisBloomKinds(m);
  BindFiles(m);
  m.def(
      "error_code_name", [](int code) { return std::string(ErrorCodeName(static_cast<ErrorCode>(code))); },
      py::arg("code"));
  m.def("_uses_avx2", [] { return BlockedBloomFilter::UsesAvx2(); });
}
