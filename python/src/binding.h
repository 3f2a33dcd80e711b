// SPDX-License-Identifier: Apache-2.0
// The shared part of bloomkit._bloomkit, the Python binding of the core filters
// (pybind11): what every file of python/src/ uses. module.cc says how the binding works
// (threads, hot paths); each family of kinds is bound in its own file:
//
//   bind_filter.cc      BindFilter<F>: the set-like surface every kind shares
//   classic.cc          BloomFilter, BlockedBloomFilter and their concurrent kinds
//   counting_cuckoo.cc  CountingBloomFilter, CuckooFilter
//   scalable.cc         ScalableBloomFilter
//   windowed.cc         WindowedBloomFilter
//   foreign.cc          BitsAndBloomsFilter, GuavaBloomFilter, ParquetBloomFilter
//   redisbloom.cc       RedisBloomFilter, RedisCuckooFilter, DUMP and SCANDUMP transfer
//   files.cc            load, from_bytes, inspect, FileLock, MappedFilter
//   common.cc           errors, the GIL, bytes and paths
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "bloomkit/bloomkit.h"
#include "keys.h"

namespace py = pybind11;

namespace bloomkit::python {
template <typename F>
struct Box;
class MappedBox;

// Throws ValueError if `obj` is an instance of the bound class `type` made without __init__
// (cls.__new__(cls), or a pickle that creates the object and gives it no state).
void RequireInitialized(py::handle obj, const std::type_info& type);
}  // namespace bloomkit::python

// Objects made without __init__. pybind11 lets `cls.__new__(cls)` make an object whose C++
// value was never constructed, and on first use allocates it uninitialized: every method
// then reads garbage. Every class bound here loads its objects through this caster, which
// refuses such an object before pybind11 touches it: whatever method a class has or gains,
// `self` (and every other argument of the class) is checked in this one place.
namespace pybind11::detail {
template <typename T>
class CheckedCaster : public type_caster_base<T> {
 public:
  bool load(handle src, bool convert) {
    bloomkit::python::RequireInitialized(src, typeid(T));
    return type_caster_base<T>::load(src, convert);
  }
};
template <typename F>
class type_caster<bloomkit::python::Box<F>> : public CheckedCaster<bloomkit::python::Box<F>> {};
template <>
class type_caster<bloomkit::python::MappedBox> : public CheckedCaster<bloomkit::python::MappedBox> {};
template <>
class type_caster<bloomkit::FileLock> : public CheckedCaster<bloomkit::FileLock> {};
}  // namespace pybind11::detail

namespace bloomkit::python {

// Batches go through the core in chunks of this many keys: the copied keys of one chunk
// stay in cache and a generator of billions of keys needs bounded memory.
inline constexpr std::size_t kChunkKeys = KeyArena::kKeys;
inline constexpr std::uint64_t kDefaultMaxMemory = kDefaultMaxMemoryBytes;

// ---------------------------------------------------------------------------------------
// Errors: the Python exception of each ErrorCode lives in bloomkit/_errors.py.

[[noreturn]] void Throw(const Error& error);

inline void Check(const Status& status) {
  if (!status.ok()) Throw(status.error());
}

template <typename T>
T Take(Result<T>&& result) {
  if (!result.ok()) Throw(result.error());
  return std::move(result).value();
}

// ---------------------------------------------------------------------------------------
// The GIL, released and taken back, also while the interpreter exits (common.cc).

// The thread state of the thread running the exit, once it began; nullptr before.
extern std::atomic<PyThreadState*> g_exiting;
// Takes the GIL back for `state`; false (the GIL not taken) if the interpreter is exiting
// and this thread is not the one that runs the exit: it must never run Python again.
bool RestoreGil(PyThreadState* state);
[[noreturn]] void ParkForever();
// PyIter_Next that parks the thread if the exit ends it inside the call.
PyObject* NextItem(PyObject* iterator);
// The atexit function (run with the GIL held, before finalization ends threads).
void AnnounceExit();

// Releases the GIL for its scope; in its destructor takes it back, or parks the thread if
// the interpreter is exiting.
class GilRelease {
 public:
  GilRelease() : state_(PyEval_SaveThread()) {}
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;
  GilRelease(GilRelease&&) = delete;
  GilRelease& operator=(GilRelease&&) = delete;
  ~GilRelease() {
    if (state_ != nullptr && !RestoreGil(state_)) ParkForever();
  }

  // Takes the GIL back now, with `lock` held; if the thread must park, it unlocks first.
  template <typename Lock>
  void RestoreKeeping(Lock& lock) {
    if (!RestoreGil(std::exchange(state_, nullptr))) {
      lock.unlock();
      ParkForever();
    }
  }

 private:
  PyThreadState* state_;
};

// ---------------------------------------------------------------------------------------
// Kinds and what each can do.

template <typename F>
constexpr bool kConcurrent =
    std::is_same_v<F, ConcurrentBloomFilter> || std::is_same_v<F, ConcurrentBlockedBloomFilter>;
// RedisBloom's kinds (redisbloom.h) keep RedisBloom's own verbs and arithmetic rather than
// the concepts of filter.h; the helpers below adapt them where their verbs differ.
template <typename F>
constexpr bool kRedisBloom = std::is_same_v<F, RedisBloomScalableFilter> || std::is_same_v<F, RedisCuckooFilter>;
template <typename F>
constexpr bool kCanRemove = RemovableFilter<F> || std::is_same_v<F, RedisCuckooFilter>;
// Filters of another library's layout (foreign_bloom.h): save(format=...) writes it.
template <typename F>
constexpr bool kForeign = std::is_same_v<F, BitsAndBloomsFilter> || std::is_same_v<F, GuavaBloomFilter> ||
                          std::is_same_v<F, ParquetBloomFilter>;
template <typename F>
constexpr bool kCanMerge = MergeableFilter<F>;
template <typename F>
constexpr bool kCanIntersect = requires(F& f, const F& other) {
  f.Intersect(other);
};
template <typename F>
constexpr bool kHasKeyCount = kCanRemove<F>;
template <typename F>
constexpr bool kCanClear = !kRedisBloom<F>;

template <typename F>
struct Box {
  explicit Box(F f) : filter(std::move(f)) {}
  F filter;
  mutable std::shared_mutex mutex;
  // Calls on this filter running with the GIL released; changed with the GIL held.
  std::atomic<int> released{0};
};

// The Box of a pybind11 instance, or nullptr with a Python error set (ValueError for an
// object made without __init__, see CheckedCaster).
template <typename F>
Box<F>* SelfBox(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  if (inst->simple_layout && inst->simple_holder_constructed) return static_cast<Box<F>*>(inst->simple_value_holder[0]);
  try {
    return py::handle(self).cast<Box<F>*>();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  }
  return nullptr;
}

// Runs fn() with the GIL released and the box's mutex held (exclusive if `write`).
template <typename F, typename Fn>
decltype(auto) Unlocked(const Box<F>& box, bool write, Fn&& fn) {
  auto& released = const_cast<std::atomic<int>&>(box.released);
  released.fetch_add(1, std::memory_order_relaxed);
  struct Done {
    explicit Done(std::atomic<int>& c) : count(c) {}
    Done(const Done&) = delete;
    Done& operator=(const Done&) = delete;
    Done(Done&&) = delete;
    Done& operator=(Done&&) = delete;
    ~Done() { count.fetch_sub(1, std::memory_order_relaxed); }
    std::atomic<int>& count;
  } done{released};
  GilRelease nogil;  // taken back after the lock is released
  if (write) {
    std::unique_lock lock(box.mutex);
    return std::forward<Fn>(fn)();
  }
  std::shared_lock lock(box.mutex);
  return std::forward<Fn>(fn)();
}

// Runs fn() with the GIL held on the filter: directly when no call on the filter runs
// without the GIL, else under the mutex, which is waited for with the GIL released (the
// holder of the mutex never waits for the GIL while holding it, so no deadlock).
template <typename F, typename Fn>
decltype(auto) WithGil(const Box<F>& box, bool write, Fn&& fn) {
  if (box.released.load(std::memory_order_relaxed) == 0) return std::forward<Fn>(fn)();
  if (write) {
    std::unique_lock lock(box.mutex, std::defer_lock);
    {
      GilRelease nogil;
      lock.lock();
      nogil.RestoreKeeping(lock);
    }
    return std::forward<Fn>(fn)();
  }
  std::shared_lock lock(box.mutex, std::defer_lock);
  {
    GilRelease nogil;
    lock.lock();
    nogil.RestoreKeeping(lock);
  }
  return std::forward<Fn>(fn)();
}

template <typename F>
constexpr bool WriteNeedsExclusive() {
  return !kConcurrent<F>;
}

// ---------------------------------------------------------------------------------------
// Bytes and files (common.cc).

std::span<const std::byte> BufferBytes(const py::buffer_info& info);
py::bytes ToPyBytes(const std::vector<std::byte>& bytes);
std::string PathString(const py::object& path);
// The file's bytes with the GIL released; errors name the path.
Result<std::vector<std::byte>> ReadPath(const std::string& path, std::uint64_t max_memory);

// The kind's Deserialize, with the GIL released (a large payload is checksummed and
// maybe decompressed).
template <typename F>
F FromBytes(std::span<const std::byte> bytes, std::uint64_t max_memory) {
  Result<F> filter = [&] {
    GilRelease nogil;
    return F::Deserialize(bytes, LoadOptions{.max_memory_bytes = max_memory});
  }();
  return Take(std::move(filter));
}

// ---------------------------------------------------------------------------------------
// Batches from Python iterables: keys are gathered chunk by chunk (GIL held), then each
// chunk runs in the core with the GIL released.

// How far ahead a list's str objects are prefetched: each key's first touch is a read
// of its object, scattered over the heap.
constexpr Py_ssize_t kKeyPrefetchDistance = 16;

// Calls chunk(views) for each chunk of keys of `iterable`; returns the number of keys.
template <typename Chunk>
std::uint64_t ForEachChunk(const py::handle& iterable, Chunk&& chunk) {
  if (PyUnicode_Check(iterable.ptr()) || PyBytes_Check(iterable.ptr()) || PyByteArray_Check(iterable.ptr())) {
    throw py::type_error(
        "expected an iterable of keys, got a single str/bytes key (iterating it would add its characters): "
        "use add(key), or wrap it in a list");
  }
  KeyArena keys;
  std::uint64_t total = 0;
  auto flush = [&] {
    if (keys.size() == 0) return;
    const std::span<const std::string_view> views = keys.Views();
    chunk(views);
    total += views.size();
    keys.Clear();
  };
  auto append = [&](PyObject* item) {
    bool flush_first = false;
    if (!keys.Append(item, &flush_first)) throw py::error_already_set();
    if (flush_first) {
      flush();
      if (!keys.Append(item, &flush_first)) throw py::error_already_set();
    }
    if (keys.full()) flush();
  };
  PyObject* seq = iterable.ptr();
  if (PyList_CheckExact(seq) || PyTuple_CheckExact(seq)) {
    const bool list = PyList_CheckExact(seq);
    for (Py_ssize_t i = 0;; ++i) {
      // Re-read every time: the previous chunk ran without the GIL, so the list may have shrunk.
      const Py_ssize_t size = list ? PyList_GET_SIZE(seq) : PyTuple_GET_SIZE(seq);
      if (i >= size) break;
      PyObject* const* items = list ? PySequence_Fast_ITEMS(seq) : &PyTuple_GET_ITEM(seq, 0);
      if (i + kKeyPrefetchDistance < size) __builtin_prefetch(items[i + kKeyPrefetchDistance]);
      append(items[i]);
    }
  } else {
    const py::iterator it = py::iter(iterable);
    while (PyObject* next = NextItem(it.ptr())) {
      const py::object item = py::reinterpret_steal<py::object>(next);
      append(item.ptr());
    }
    if (PyErr_Occurred() != nullptr) throw py::error_already_set();
  }
  flush();
  return total;
}

// contains_into of the filters and of the mapped view: query(chunk, dest) answers one
// chunk of keys into dest[0..chunk.size()) and returns how many may be present.
template <typename Query>
std::uint64_t ContainsInto(const py::object& keys, const py::buffer& out, Query&& query) {
  py::buffer_info info = out.request(true);
  if (info.itemsize != 1 || info.ndim != 1 || info.strides[0] != 1) {
    throw py::type_error("out must be a writable, contiguous buffer of bytes (e.g. a bytearray)");
  }
  auto* dest = static_cast<bool*>(info.ptr);
  const auto capacity = static_cast<std::uint64_t>(info.size);
  std::uint64_t offset = 0;
  std::uint64_t present = 0;
  ForEachChunk(keys, [&](std::span<const std::string_view> chunk) {
    if (offset + chunk.size() > capacity) {
      throw py::value_error("out holds " + std::to_string(capacity) + " bytes, fewer than the keys");
    }
    present += query(chunk, dest + offset);
    offset += chunk.size();
  });
  return present;
}

// ---------------------------------------------------------------------------------------
// Binding the kinds.

template <typename F>
std::unique_ptr<Box<F>> MakeBox(F filter) {
  return std::make_unique<Box<F>>(std::move(filter));
}

// The class of kind F with the surface every kind shares (bind_filter.cc, instantiated
// there for every kind); the caller adds its constructor and its own methods.
template <typename F>
py::class_<Box<F>> BindFilter(py::module_& m, const char* name, const char* doc);

BloomOptions MakeBloomOptions(std::uint64_t capacity, double fp_rate, std::uint64_t num_bits, std::uint32_t num_hashes,
                              std::uint64_t max_memory);

// Any bloomkit file: the kind comes from its header (files.cc).
py::object FromAnyBytes(std::span<const std::byte> bytes, std::uint64_t max_memory, bool concurrent,
                        const std::string& context);

// One family of kinds each, in the order module.cc registers them.
void BindClassicKinds(py::module_& m);
void BindCounting(py::module_& m);
void BindScalable(py::module_& m);
void BindWindowed(py::module_& m);
void BindCuckoo(py::module_& m);
void BindForeignKinds(py::module_& m);
void BindRedisBloomKinds(py::module_& m);
void BindFiles(py::module_& m);

}  // namespace bloomkit::python
