// SPDX-License-Identifier: Apache-2.0
// The binding's errors, its handling of the GIL at interpreter exit, and its bytes and
// path helpers (binding.h).
#include "binding.h"

namespace bloomkit::python {

void RequireInitialized(py::handle obj, const std::type_info& type) {
  const py::detail::type_info* info = obj ? py::detail::get_type_info(type) : nullptr;
  if (info == nullptr || PyObject_TypeCheck(obj.ptr(), info->type) == 0) return;  // not ours: the caster decides
  auto* inst = reinterpret_cast<py::detail::instance*>(obj.ptr());
  const py::detail::value_and_holder v_h = inst->get_value_and_holder(info, /*throw_if_missing=*/false);
  if (v_h && v_h.holder_constructed()) return;
  const std::string name = py::str(py::handle(reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr()))).attr("__name__"));
  throw py::value_error(name + " object is not initialized: it was made without __init__ (by " + name +
                        ".__new__ or by a pickle without state)");
}

void SetKeyTypeError(PyObject* key) {
  PyErr_Format(PyExc_TypeError,
               "bloomkit keys are str, bytes, bytearray or memoryview, not %.100s: pass str(key) for text, "
               "or bytes (e.g. key.to_bytes(8, 'little') for an int); Python's hash() differs between "
               "processes, so bloomkit never uses it",
               Py_TYPE(key)->tp_name);
}

[[noreturn]] void Throw(const Error& error) {
  py::object exc =
      py::module_::import("bloomkit._errors").attr("_make")(static_cast<int>(error.code()), error.message());
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw py::error_already_set();
}

// ---------------------------------------------------------------------------------------
// The GIL, released and taken back, also while the interpreter exits.
//
// Once Py_FinalizeEx has begun, a daemon thread that asks for the GIL back is ended on the
// spot with pthread_exit, a forced unwind of its stack. Asked from a destructor (as
// py::gil_scoped_release asks), the unwind meets a noexcept frame and std::terminate aborts
// the whole process ("terminate called without an active exception"); asked from anywhere
// else, the unwind would run destructors that touch Python objects without the GIL. So every
// release of the GIL here is a GilRelease, and it never asks for the GIL once the exit has
// begun: a thread other than the exiting one parks for good instead (as CPython 3.14 parks
// daemon threads), holding no lock of a filter. The exit is announced by an atexit function,
// which runs before finalization starts ending threads and waits out the threads that were
// already asking for the GIL.

// The thread state of the thread running the exit, once it began; nullptr before.
std::atomic<PyThreadState*> g_exiting{nullptr};
// Threads asking for the GIL back through RestoreGil right now.
std::atomic<int> g_restoring{0};

// Takes the GIL back for `state`; false (the GIL not taken) if the interpreter is exiting
// and this thread is not the one that runs the exit: it must never run Python again.
bool RestoreGil(PyThreadState* state) {
  // Sequentially consistent, with AnnounceExit: either this thread sees the exit, or the
  // exit sees this thread in g_restoring and waits until it holds the GIL.
  g_restoring.fetch_add(1);
  PyThreadState* const exiting = g_exiting.load();
  if (exiting != nullptr && exiting != state) {
    g_restoring.fetch_sub(1);
    return false;
  }
  PyEval_RestoreThread(state);
  g_restoring.fetch_sub(1);
  return true;
}

[[noreturn]] void ParkForever() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(24));
}

// PyIter_Next: the next item of an iterator, or nullptr at its end or with a Python error
// set. It may run Python code (a generator) that takes the GIL back in between; if the exit
// ends this thread there, the forced unwind stops here and the thread parks, before the
// unwind would run this module's destructors of Python objects without the GIL. Nothing
// else unwinds out of the C call.
PyObject* NextItem(PyObject* iterator) {
  try {
    return PyIter_Next(iterator);
  } catch (...) {  // the forced unwind of pthread_exit
    ParkForever();
  }
}

// The atexit function (run with the GIL held, before finalization ends threads).
void AnnounceExit() {
  g_exiting.store(PyThreadState_Get());
  PyThreadState* const self = PyEval_SaveThread();
  while (g_restoring.load() != 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
  PyEval_RestoreThread(self);
}

// ---------------------------------------------------------------------------------------
// Bytes and files.

std::span<const std::byte> BufferBytes(const py::buffer_info& info) {
  return {static_cast<const std::byte*>(info.ptr), static_cast<std::size_t>(info.size * info.itemsize)};
}

py::bytes ToPyBytes(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string PathString(const py::object& path) {
  return py::str(py::module_::import("os").attr("fsdecode")(path));
}

Result<std::vector<std::byte>> ReadPath(const std::string& path, std::uint64_t max_memory) {
  GilRelease nogil;
  auto bytes = ReadFileBytes(path, max_memory);
  if (!bytes.ok()) return Error(bytes.error().code(), path + ": " + bytes.error().message());
  return bytes;
}

BloomOptions MakeBloomOptions(std::uint64_t capacity, double fp_rate, std::uint64_t num_bits, std::uint32_t num_hashes,
                              std::uint64_t max_memory) {
  return BloomOptions{.capacity = capacity,
                      .fp_rate = fp_rate,
                      .num_bits = num_bits,
                      .num_hashes = num_hashes,
                      .max_memory_bytes = max_memory};
}

}  // namespace bloomkit::python
