// SPDX-License-Identifier: Apache-2.0
// bloomkit._bloomkit: the Python binding of the core filters (pybind11).
//
// One template binds every kind: BindFilter<F> adds the set-like surface and whatever
// the kind supports (discard/remove, |, &, key counts). The Python package (bloomkit/)
// re-exports the classes and adds the error classes and helpers written in Python.
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
namespace {
template <typename F>
struct Box;
struct MappedBox;
}  // namespace

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

namespace {

// Batches go through the core in chunks of this many keys: the copied keys of one chunk
// stay in cache and a generator of billions of keys needs bounded memory.
constexpr std::size_t kChunkKeys = KeyArena::kKeys;
// add_file: read size and the longest key accepted (as the CLI's KeyReader).
constexpr std::size_t kFileBufferBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxFileKeyBytes = std::size_t{64} << 20;

// ---------------------------------------------------------------------------------------
// Errors: the Python exception of each ErrorCode lives in bloomkit/_errors.py.

[[noreturn]] void Throw(const Error& error) {
  py::object exc =
      py::module_::import("bloomkit._errors").attr("_make")(static_cast<int>(error.code()), error.message());
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw py::error_already_set();
}

void Check(const Status& status) {
  if (!status.ok()) Throw(status.error());
}

template <typename T>
T Take(Result<T>&& result) {
  if (!result.ok()) Throw(result.error());
  return std::move(result).value();
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
// One verb set over the kinds.

// The verbs of bloomkit/filter.h, the same on every kind.
template <typename F>
Status AddKey(F& f, std::string_view key) {
  return f.Add(key);
}

template <typename F>
Result<bool> AddIfAbsentKey(F& f, std::string_view key) {
  return f.AddIfAbsent(key);
}

// Adds keys[0..n); stops at the first error and reports it.
template <typename F>
Status AddKeys(F& f, std::span<const std::string_view> keys) {
  return f.AddBatch(keys);
}

template <typename F>
std::size_t ContainsKeys(const F& f, std::span<const std::string_view> keys, bool* out) {
  return f.MayContainBatch(keys, std::span<bool>(out, keys.size()));
}

// Copies of a key (CF.COUNT for RedisBloom's cuckoo filter).
template <typename F>
std::uint64_t KeyCount(const F& f, std::string_view key) {
  if constexpr (std::is_same_v<F, RedisCuckooFilter>) {
    return f.Occurrences(key);
  } else {
    return f.Occurrences(key);
  }
}

// What a plain filter of a concurrent kind is, for estimates and merges.
template <typename F>
auto Plain(const F& f) {
  if constexpr (kConcurrent<F>) {
    return f.Snapshot();
  } else {
    return std::cref(f);
  }
}

template <typename F>
std::uint64_t EstimatedCount(const F& f) {
  return f.EstimatedCount();  // RedisBloom's kinds: BF.CARD, or the copies a cuckoo filter holds
}

template <typename F>
double EstimatedFpRate(const F& f) {
  return f.EstimatedFpRate();
}

template <typename F>
double ExpectedFpRate(const F& f) {
  if constexpr (std::is_same_v<F, RedisBloomScalableFilter>) {
    return f.ExpectedFpRate();
  } else if constexpr (std::is_same_v<F, RedisCuckooFilter>) {
    return f.fp_rate();
  } else {
    return f.ExpectedFpRate();
  }
}

template <typename F>
double TargetFpRate(const F& f) {
  if constexpr (std::is_same_v<F, RedisCuckooFilter>) {
    return f.fp_rate();
  } else {
    return f.fp_rate();
  }
}

template <typename F>
py::dict Info(const F& f) {
  py::dict info;
  info["kind"] = std::string(FilterKindName(F::kKind));
  info["capacity"] = f.capacity();
  info["count"] = f.count();
  info["memory_bytes"] = f.memory_bytes();
  info["fp_rate"] = TargetFpRate(f);
  info["expected_fp_rate"] = ExpectedFpRate(f);
  info["estimated_fp_rate"] = EstimatedFpRate(f);
  info["estimated_count"] = EstimatedCount(f);
  info["can_remove"] = kCanRemove<F>;
  info["thread_safe_adds"] = kConcurrent<F>;
  if constexpr (requires { f.num_bits(); }) info["num_bits"] = f.num_bits();
  if constexpr (requires { f.num_hashes(); }) info["num_hashes"] = f.num_hashes();
  if constexpr (requires { f.num_blocks(); }) info["num_blocks"] = f.num_blocks();
  if constexpr (requires { f.block_bits(); }) info["block_bits"] = f.block_bits();
  if constexpr (requires { f.hash_id(); }) info["hash_id"] = f.hash_id();
  if constexpr (requires { f.FillRatio(); }) info["fill_ratio"] = f.FillRatio();
  if constexpr (std::is_same_v<F, CountingBloomFilter>) {
    info["num_counters"] = f.num_counters();
    info["counter_bits"] = f.counter_bits();
    info["saturated_counters"] = f.saturated_counters();
  }
  if constexpr (std::is_same_v<F, ScalableBloomFilter>) {
    const ScalableOptions options = f.options();
    info["expansion"] = options.expansion;
    info["tightening"] = options.tightening;
    info["non_scaling"] = options.non_scaling;
    info["num_stages"] = f.num_stages();
    // The older names of expansion and non_scaling, kept for existing callers.
    info["growth"] = options.expansion;
    info["scaling"] = !options.non_scaling;
    info["max_stages"] = options.max_stages;
    py::list stages;
    std::uint64_t num_bits = 0;
    for (const StageInfo& stage : f.StageInfos()) {
      py::dict s;
      s["capacity"] = stage.capacity;
      s["count"] = stage.count;
      s["num_bits"] = stage.num_bits;
      s["num_hashes"] = stage.num_hashes;
      s["fp_rate"] = stage.fp_rate;
      s["memory_bytes"] = stage.memory_bytes;
      num_bits += stage.num_bits;
      stages.append(s);
    }
    info["num_bits"] = num_bits;
    info["stages"] = stages;
  }
  if constexpr (std::is_same_v<F, RedisBloomScalableFilter>) {
    // BF.INFO's fields, named as RedisBloom names them (Expansion rate is None when
    // NONSCALING, as BF.INFO answers nil).
    info["Capacity"] = f.capacity();
    info["Size"] = f.redisbloom_size();
    info["Number of filters"] = f.num_stages();
    info["Number of items inserted"] = f.count();
    info["Expansion rate"] = f.non_scaling() ? py::object(py::none()) : py::object(py::int_(f.expansion()));
    info["expansion"] = f.expansion();
    info["non_scaling"] = f.non_scaling();
    info["num_stages"] = f.num_stages();
    info["num_filters"] = f.num_stages();  // the older name of num_stages
    py::list stages;
    std::uint64_t num_bits = 0;
    std::uint64_t set_bits = 0;
    for (std::size_t i = 0; i < f.num_stages(); ++i) {
      const RedisBloomLinkParams& link = f.link(i);
      py::dict s;
      s["capacity"] = link.entries;
      s["count"] = link.size;
      s["num_bits"] = link.bits;
      s["num_hashes"] = link.hashes;
      s["fp_rate"] = link.error;
      s["bits_per_key"] = link.bpe;
      s["memory_bytes"] = link.bytes;
      num_bits += link.bits;
      for (const std::byte b : f.link_data(i)) {
        set_bits += static_cast<std::uint64_t>(std::popcount(std::to_integer<unsigned>(b)));
      }
      stages.append(s);
    }
    info["num_bits"] = num_bits;
    info["fill_ratio"] = num_bits == 0 ? 0.0 : static_cast<double>(set_bits) / static_cast<double>(num_bits);
    info["stages"] = stages;
  }
  if constexpr (std::is_same_v<F, RedisCuckooFilter>) {
    // CF.INFO's fields, named as RedisBloom names them.
    info["Size"] = f.redisbloom_size();
    info["Number of buckets"] = f.num_buckets();
    info["Number of filters"] = f.num_stages();
    info["Number of items inserted"] = f.count();
    info["Number of items deleted"] = f.num_deletes();
    info["Bucket size"] = f.bucket_size();
    info["Expansion rate"] = f.expansion();
    info["Max iterations"] = f.max_iterations();
    info["bucket_size"] = f.bucket_size();
    info["fingerprint_bits"] = 8;
    info["num_buckets"] = f.num_buckets();
    info["num_stages"] = f.num_stages();
    info["num_filters"] = f.num_stages();  // the older name of num_stages
    info["num_deletes"] = f.num_deletes();
    info["max_iterations"] = f.max_iterations();
    info["expansion"] = f.expansion();
    info["load_factor"] =
        f.capacity() == 0 ? 0.0 : static_cast<double>(f.CountOccupiedSlots()) / static_cast<double>(f.capacity());
  }
  if constexpr (std::is_same_v<F, CuckooFilter>) {
    info["bucket_size"] = f.bucket_size();
    info["fingerprint_bits"] = f.fingerprint_bits();
    info["num_buckets"] = f.num_buckets();
    info["num_stages"] = f.num_stages();
    info["num_filters"] = f.num_stages();  // the older name of num_stages
    info["num_deletes"] = f.num_deletes();
    info["max_kicks"] = f.max_kicks();
    info["expansion"] = f.expansion();
    info["load_factor"] = f.FillRatio();
  }
  return info;
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

// Reads keys from a file, split at `separator`, with the CLI's record rules (docs/CLI.md,
// "Keys"): empty records are skipped, a final record without its separator is a key, and
// with '\n' one trailing '\r' is dropped unless keep_cr. Calls `batch` on groups of keys.
template <typename Batch>
Result<std::uint64_t> ReadKeyFile(const std::string& path, char separator, bool keep_cr, Batch&& batch) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return Error(ErrorCode::kIoError, path + ": " + std::strerror(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(file, &std::fclose);
  std::vector<char> buffer(kFileBufferBytes);
  std::size_t begin = 0;
  std::size_t end = 0;
  std::uint64_t keys_read = 0;
  std::vector<std::string_view> keys;
  keys.reserve(4096);
  bool eof = false;
  auto flush = [&]() -> Status {
    if (keys.empty()) return {};
    Status status = batch(std::span<const std::string_view>(keys));
    keys_read += keys.size();
    keys.clear();
    return status;
  };
  auto emit = [&](std::string_view record) {
    if (separator == '\n' && !keep_cr && !record.empty() && record.back() == '\r') record.remove_suffix(1);
    if (!record.empty()) keys.push_back(record);
  };
  while (!eof) {
    // Move the unfinished record to the front and read more after it.
    if (begin > 0) {
      std::memmove(buffer.data(), buffer.data() + begin, end - begin);
      end -= begin;
      begin = 0;
    }
    if (end == buffer.size()) {
      if (buffer.size() >= kMaxFileKeyBytes + 1) {
        return Error(ErrorCode::kInvalidArgument, path + ": a key is longer than " + std::to_string(kMaxFileKeyBytes) +
                                                      " bytes (the limit of add_file)");
      }
      buffer.resize(buffer.size() * 2);
    }
    const std::size_t got = std::fread(buffer.data() + end, 1, buffer.size() - end, file);
    if (got == 0) {
      if (std::ferror(file) != 0) return Error(ErrorCode::kIoError, path + ": read failed: " + std::strerror(errno));
      eof = true;
    }
    end += got;
    const char* data = buffer.data();
    while (begin < end) {
      const void* hit = std::memchr(data + begin, separator, end - begin);
      if (hit == nullptr) break;
      const auto at = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
      emit(std::string_view(data + begin, at - begin));
      begin = at + 1;
    }
    if (eof && begin < end) {
      emit(std::string_view(data + begin, end - begin));
      begin = end;
    }
    // The views point into `buffer`: hand them over before it moves.
    Status status = flush();
    if (!status.ok()) return status.error();
  }
  return keys_read;
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
// The lean single-key calls, on the C API.

template <typename F>
int SlotContains(PyObject* self, PyObject* key) {
  Box<F>* box = SelfBox<F>(self);
  if (box == nullptr) return -1;
  std::string_view bytes;
  if (!KeyBytes(key, &bytes)) return -1;
  if (box->released.load(std::memory_order_relaxed) == 0) return box->filter.MayContain(bytes) ? 1 : 0;
  try {
    const std::string copy(bytes);
    return Unlocked(*box, false, [&] { return box->filter.MayContain(copy); }) ? 1 : 0;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return -1;
}

template <typename F>
PyObject* MethodContains(PyObject* self, PyObject* key) {
  const int found = SlotContains<F>(self, key);
  if (found < 0) return nullptr;
  return PyBool_FromLong(found);
}

// add(key) -> None and add_if_absent(key) -> bool.
template <typename F, bool kReturnNew>
PyObject* MethodAdd(PyObject* self, PyObject* key) {
  Box<F>* box = SelfBox<F>(self);
  if (box == nullptr) return nullptr;
  std::string_view bytes;
  if (!KeyBytes(key, &bytes)) return nullptr;
  try {
    if (box->released.load(std::memory_order_relaxed) == 0) {
      if constexpr (kReturnNew) {
        const bool added = Take(AddIfAbsentKey(box->filter, bytes));
        return py::bool_(added).release().ptr();
      } else {
        Check(AddKey(box->filter, bytes));
        Py_RETURN_NONE;
      }
    }
    const std::string copy(bytes);
    if constexpr (kReturnNew) {
      Result<bool> added = Unlocked(*box, WriteNeedsExclusive<F>(), [&] { return AddIfAbsentKey(box->filter, copy); });
      return py::bool_(Take(std::move(added))).release().ptr();
    } else {
      Status status = Unlocked(*box, WriteNeedsExclusive<F>(), [&] { return AddKey(box->filter, copy); });
      Check(status);
      Py_RETURN_NONE;
    }
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

template <typename F>
void InstallFastPaths(py::class_<Box<F>>& cls) {
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  static PyMethodDef add_def = {
      "add", reinterpret_cast<PyCFunction>(&MethodAdd<F, false>), METH_O,
      "add(key, /)\n--\n\nAdds one key (str, bytes, bytearray or memoryview). str keys are hashed as UTF-8."};
  static PyMethodDef add_if_absent_def = {
      "add_if_absent", reinterpret_cast<PyCFunction>(&MethodAdd<F, true>), METH_O,
      "add_if_absent(key, /)\n--\n\nAdds the key unless it may already be present; True if it was added "
      "(certainly new), False if it may have been there."};
  static PyMethodDef contains_def = {"__contains__", reinterpret_cast<PyCFunction>(&MethodContains<F>), METH_O,
                                     "__contains__(key, /)\n--\n\nkey in self: False if certainly absent."};
  for (PyMethodDef* def : {&add_def, &add_if_absent_def, &contains_def}) {
    py::object descr = py::reinterpret_steal<py::object>(PyDescr_NewMethod(type, def));
    if (!descr) throw py::error_already_set();
    cls.attr(def->ml_name) = descr;
  }
  // After the attributes: setting __contains__ above installed the generic slot (a method
  // lookup per call); the direct one replaces it.
  auto* heap = reinterpret_cast<PyHeapTypeObject*>(type);
  heap->as_sequence.sq_contains = &SlotContains<F>;
  type->tp_as_sequence = &heap->as_sequence;
  PyType_Modified(type);
}

// ---------------------------------------------------------------------------------------
// Binding of one kind.

constexpr std::uint64_t kDefaultMaxMemory = kDefaultMaxMemoryBytes;

template <typename F>
std::unique_ptr<Box<F>> MakeBox(F filter) {
  return std::make_unique<Box<F>>(std::move(filter));
}

template <typename F>
py::class_<Box<F>> BindFilter(py::module_& m, const char* name, const char* doc) {
  using B = Box<F>;
  py::class_<B> cls(m, name, doc);
  InstallFastPaths<F>(cls);

  cls.def(
      "update",
      [](B& self, const py::object& keys) {
        ForEachChunk(keys, [&](std::span<const std::string_view> chunk) {
          Status status = Unlocked(self, WriteNeedsExclusive<F>(), [&] { return AddKeys(self.filter, chunk); });
          Check(status);
        });
      },
      py::arg("keys"),
      "Adds every key of an iterable (a list or tuple is fastest). The keys are copied out of their\n"
      "objects, then added with the GIL released in prefetching batches.");
  cls.def(
      "contains_many",
      [](const B& self, const py::object& keys) {
        // A list or tuple gives the result's size up front: filling a sized list costs a
        // third of appending (docs/BENCHMARKS.md, "Python binding").
        PyObject* seq = keys.ptr();
        const Py_ssize_t known = PyList_CheckExact(seq)    ? PyList_GET_SIZE(seq)
                                 : PyTuple_CheckExact(seq) ? PyTuple_GET_SIZE(seq)
                                                           : 0;
        py::list out(known);
        Py_ssize_t filled = 0;
        std::unique_ptr<bool[]> found(new bool[kChunkKeys]);
        ForEachChunk(keys, [&](std::span<const std::string_view> chunk) {
          Unlocked(self, false, [&] { return ContainsKeys(self.filter, chunk, found.get()); });
          for (std::size_t i = 0; i < chunk.size(); ++i) {
            PyObject* answer = found[i] ? Py_True : Py_False;
            if (filled < known) {
              Py_INCREF(answer);
              PyList_SET_ITEM(out.ptr(), filled, answer);
            } else if (PyList_Append(out.ptr(), answer) != 0) {
              throw py::error_already_set();
            }
            ++filled;
          }
        });
        // The list shrank while the GIL was released: drop the unfilled (empty) slots.
        if (filled < known && PyList_SetSlice(out.ptr(), filled, known, nullptr) != 0) throw py::error_already_set();
        return out;
      },
      py::arg("keys"), "[key in self for key in keys], computed with the GIL released in prefetching batches.");
  cls.def(
      "contains_into",
      [](const B& self, const py::object& keys, const py::buffer& out) {
        return ContainsInto(keys, out, [&](std::span<const std::string_view> chunk, bool* dest) {
          return Unlocked(self, false, [&] { return ContainsKeys(self.filter, chunk, dest); });
        });
      },
      py::arg("keys"), py::arg("out"),
      "Writes 1 (may be present) or 0 (certainly absent) for each key into out[0..len(keys))\n"
      "(a bytearray, memoryview or any writable byte buffer) and returns how many may be present.");
  cls.def(
      "add_file",
      [](B& self, const py::object& path, const py::bytes& separator, bool keep_cr) {
        const std::string sep = separator;
        if (sep.size() != 1) throw py::value_error("separator must be one byte, e.g. b'\\n' or b'\\0'");
        const std::string file = PathString(path);
        Result<std::uint64_t> read = Unlocked(self, WriteNeedsExclusive<F>(), [&] {
          return ReadKeyFile(file, sep[0], keep_cr,
                             [&](std::span<const std::string_view> keys) { return AddKeys(self.filter, keys); });
        });
        return Take(std::move(read));
      },
      py::arg("path"), py::arg("separator") = py::bytes("\n"), py::arg("keep_cr") = false,
      "Adds the keys of a file, one per separator-terminated record, without creating Python\n"
      "objects and with the GIL released. Same rules as `bloomkit add`: empty records are skipped,\n"
      "and with b'\\n' a trailing '\\r' is dropped unless keep_cr. Returns the number of keys read.");

  cls.def(
      "__len__", [](const B& self) { return WithGil(self, false, [&] { return self.filter.count(); }); },
      "The filter's count of keys added (see `count`): an int, O(1).");
  cls.def_property_readonly(
      "count", [](const B& self) { return WithGil(self, false, [&] { return self.filter.count(); }); },
      "Keys added that were new to the filter (what len() returns).");
  cls.def(
      "estimated_count",
      [](const B& self) { return WithGil(self, false, [&] { return EstimatedCount(self.filter); }); },
      kRedisBloom<F> ? "The count (BF.CARD; the copies a cuckoo filter holds): RedisBloom's kinds keep no other\n"
                       "estimate."
                     : "Distinct keys estimated from the filter's fill (reads the whole filter).");
  cls.def_property_readonly(
      "estimated_fp_rate",
      [](const B& self) { return WithGil(self, false, [&] { return EstimatedFpRate(self.filter); }); },
      "The false-positive rate now, from the fill; above fp_rate when overfull.");
  cls.def_property_readonly(
      "expected_fp_rate",
      [](const B& self) { return WithGil(self, false, [&] { return ExpectedFpRate(self.filter); }); },
      "The formula's false-positive rate once the filter holds its capacity.");
  cls.def_property_readonly(
      "fp_rate", [](const B& self) { return TargetFpRate(self.filter); },
      std::is_same_v<F, RedisCuckooFilter>
          ? "RedisBloom's cuckoo filter has no rate parameter: the rate of one full sub-filter,\n"
            "1 - (1 - 1/255)^(2 * bucket_size)."
          : "The target false-positive rate the filter was created with.");
  cls.def_property_readonly(
      "capacity", [](const B& self) { return WithGil(self, false, [&] { return self.filter.capacity(); }); },
      "Keys the filter was sized for.");
  cls.def_property_readonly(
      "memory_bytes", [](const B& self) { return WithGil(self, false, [&] { return self.filter.memory_bytes(); }); },
      "Bytes of filter state.");
  cls.def_property_readonly_static(
      "kind", [](const py::object&) { return std::string(FilterKindName(F::kKind)); },
      "The kind as in files and the CLI: classic, blocked, counting, scalable, cuckoo, redisbloom-bf or\n"
      "redisbloom-cf.");
  cls.def_property_readonly_static(
      "can_remove", [](const py::object&) { return kCanRemove<F>; }, "True if the kind can delete keys.");
  cls.def(
      "info", [](const B& self) { return WithGil(self, false, [&] { return Info(self.filter); }); },
      "Everything `bloomkit info` shows, as a dict.");
  cls.def(
      "__sizeof__",
      [](const B& self) {
        return sizeof(py::detail::instance) + sizeof(B) +
               WithGil(self, false, [&] { return self.filter.memory_bytes(); });
      },
      "Bytes of the object and its filter.");
  if constexpr (kCanClear<F>) {
    cls.def(
        "clear", [](B& self) { WithGil(self, true, [&] { self.filter.Clear(); }); }, "Removes every key.");
  }
  cls.def(
      "copy", [](const B& self) { return MakeBox(WithGil(self, false, [&] { return F(self.filter); })); },
      "An independent copy.");
  cls.def("__copy__", [](const B& self) { return MakeBox(WithGil(self, false, [&] { return F(self.filter); })); });
  cls.def(
      "__deepcopy__",
      [](const B& self, const py::object&) { return MakeBox(WithGil(self, false, [&] { return F(self.filter); })); },
      py::arg("memo"));

  if constexpr (!kConcurrent<F>) {
    cls.def(
        "__eq__",
        [](const B& self, const py::object& other) -> py::object {
          if (!py::isinstance<B>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
          const B& o = other.cast<const B&>();
          if (&o == &self) return py::bool_(true);
          return py::bool_(
              WithGil(self, false, [&] { return WithGil(o, false, [&] { return self.filter == o.filter; }); }));
        },
        py::is_operator(), "Same kind, parameters, count and contents.");
  } else {
    cls.def(
        "__eq__",
        [](const B& self, const py::object& other) -> py::object {
          if (!py::isinstance<B>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
          const B& o = other.cast<const B&>();
          return py::bool_(self.filter.Snapshot() == o.filter.Snapshot());
        },
        py::is_operator(), "Same parameters, count and contents.");
  }
  cls.attr("__hash__") = py::none();

  // Bytes and files.
  cls.def(
      "to_bytes",
      [](const B& self, bool compress) {
        std::vector<std::byte> bytes =
            Unlocked(self, false, [&] { return self.filter.Serialize(SaveOptions{.compress = compress}); });
        return ToPyBytes(bytes);
      },
      py::kw_only(), py::arg("compress") = false,
      "The filter in bloomkit's file format (docs/FORMAT.md); compress=True stores a zstd payload.");
  cls.def_static(
      "from_bytes",
      [](const py::buffer& data, std::uint64_t max_memory) {
        py::buffer_info info = data.request();
        return MakeBox(FromBytes<F>(BufferBytes(info), max_memory));
      },
      py::arg("data"), py::kw_only(), py::arg("max_memory") = kDefaultMaxMemory,
      "A filter of this kind from bytes written by to_bytes(), save() or the CLI.");
  cls.def(
      "save",
      [](const B& self, const py::object& path, bool compress, const std::optional<std::string>& format) {
        const std::string file = PathString(path);
        const bool foreign = format.has_value() && *format != "bloomkit";
        if (foreign && *format != FilterKindName(F::kKind)) {
          Throw(Error(ErrorCode::kUnsupported,
                      "a " + std::string(FilterKindName(F::kKind)) + " filter has no '" + *format +
                          "' form (format is 'bloomkit', or the library of a bits-and-blooms or guava filter)"));
        }
        Status status = Unlocked(self, false, [&]() -> Status {
          std::vector<std::byte> bytes;
          if constexpr (kForeign<F>) {
            bytes = foreign ? self.filter.WriteForeign() : self.filter.Serialize(SaveOptions{.compress = compress});
          } else {
            bytes = self.filter.Serialize(SaveOptions{.compress = compress});
          }
          Status written = WriteFileAtomically(file, bytes);
          if (!written.ok()) return Error(written.error().code(), file + ": " + written.error().message());
          return {};
        });
        Check(status);
      },
      py::arg("path"), py::kw_only(), py::arg("compress") = false, py::arg("format") = py::none(),
      "Writes the filter to path atomically (temporary file, fsync, rename): on any error the file\n"
      "keeps its old bytes. The CLI and every binding read it. format='bits-and-blooms' or 'guava'\n"
      "(filters of that kind only) writes the library's own layout instead (its WriteTo / writeTo).");
  cls.def_static(
      "load",
      [](const py::object& path, std::uint64_t max_memory) {
        const std::string file = PathString(path);
        std::vector<std::byte> bytes = Take(ReadPath(file, max_memory));
        Result<F> filter = [&] {
          GilRelease nogil;
          return F::Deserialize(bytes, LoadOptions{.max_memory_bytes = max_memory});
        }();
        if (!filter.ok()) Throw(Error(filter.error().code(), file + ": " + filter.error().message()));
        return MakeBox(std::move(filter).value());
      },
      py::arg("path"), py::kw_only(), py::arg("max_memory") = kDefaultMaxMemory,
      "Loads a file of this kind (bloomkit.load() opens any kind).");
  // The pickled state is to_bytes(): taken under the same lock, so a pickle taken while
  // another thread runs update() holds one consistent filter.
  cls.def(py::pickle(
      [](const B& self) {
        std::vector<std::byte> bytes = Unlocked(self, false, [&] { return self.filter.Serialize(); });
        return ToPyBytes(bytes);
      },
      [](const py::bytes& state) {
        const std::string_view view = state;
        return MakeBox(FromBytes<F>(std::as_bytes(std::span(view.data(), view.size())), kDefaultMaxMemory));
      }));

  if constexpr (kCanRemove<F>) {
    cls.def(
        "discard",
        [](B& self, const py::handle& key) {
          std::string_view bytes;
          if (!KeyBytes(key.ptr(), &bytes)) throw py::error_already_set();
          const std::string copy(bytes);
          return WithGil(self, true, [&] { return self.filter.Remove(copy); });
        },
        py::arg("key"),
        "Removes one copy of the key if it may be present; True if removed. Remove only keys you added:\n"
        "removing a false positive removes another key.");
    cls.def(
        "remove",
        [](B& self, const py::handle& key) {
          std::string_view bytes;
          if (!KeyBytes(key.ptr(), &bytes)) throw py::error_already_set();
          const std::string copy(bytes);
          if (!WithGil(self, true, [&] { return self.filter.Remove(copy); })) {
            throw py::key_error(py::repr(key).cast<std::string>());
          }
        },
        py::arg("key"), "As discard(), but KeyError if the key is certainly absent.");
  }
  if constexpr (kHasKeyCount<F>) {
    cls.def(
        "key_count",
        [](const B& self, const py::handle& key) {
          std::string_view bytes;
          if (!KeyBytes(key.ptr(), &bytes)) throw py::error_already_set();
          const std::string copy(bytes);  // WithGil may let other threads change the key
          return WithGil(self, false, [&] { return KeyCount(self.filter, copy); });
        },
        py::arg("key"), "An upper bound on how many copies of the key the filter holds.");
  }
  if constexpr (kCanMerge<F>) {
    cls.def(
        "__ior__",
        [](py::object self_obj, const py::object& other) -> py::object {
          if (!py::isinstance<B>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
          B& self = self_obj.cast<B&>();
          const F copy = WithGil(other.cast<const B&>(), false, [&] { return F(other.cast<const B&>().filter); });
          Check(WithGil(self, true, [&] { return self.filter.Merge(copy); }));
          return self_obj;
        },
        py::is_operator(), "Union in place: the filter then holds every key of either.");
    cls.def(
        "__or__",
        [](const B& self, const py::object& other) -> py::object {
          if (!py::isinstance<B>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
          F result = WithGil(self, false, [&] { return F(self.filter); });
          const B& o = other.cast<const B&>();
          Check(WithGil(o, false, [&] { return result.Merge(o.filter); }));
          return py::cast(MakeBox(std::move(result)));
        },
        py::is_operator(), "Union: a new filter holding every key of either (same parameters needed).");
    cls.def(
        "union",
        [](const B& self, const B& other) {
          F result = WithGil(self, false, [&] { return F(self.filter); });
          Check(WithGil(other, false, [&] { return result.Merge(other.filter); }));
          return MakeBox(std::move(result));
        },
        py::arg("other"), "As `self | other`.");
  }
  if constexpr (kCanIntersect<F>) {
    cls.def(
        "__iand__",
        [](py::object self_obj, const py::object& other) -> py::object {
          if (!py::isinstance<B>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
          B& self = self_obj.cast<B&>();
          const F copy = WithGil(other.cast<const B&>(), false, [&] { return F(other.cast<const B&>().filter); });
          Check(WithGil(self, true, [&] { return self.filter.Intersect(copy); }));
          return self_obj;
        },
        py::is_operator(), "Intersection in place.");
    cls.def(
        "__and__",
        [](const B& self, const py::object& other) -> py::object {
          if (!py::isinstance<B>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
          F result = WithGil(self, false, [&] { return F(self.filter); });
          const B& o = other.cast<const B&>();
          Check(WithGil(o, false, [&] { return result.Intersect(o.filter); }));
          return py::cast(MakeBox(std::move(result)));
        },
        py::is_operator(),
        "Intersection of the bit arrays: holds every key present in both (with more false positives\n"
        "than a filter built from the common keys).");
    cls.def(
        "intersection",
        [](const B& self, const B& other) {
          F result = WithGil(self, false, [&] { return F(self.filter); });
          Check(WithGil(other, false, [&] { return result.Intersect(other.filter); }));
          return MakeBox(std::move(result));
        },
        py::arg("other"), "As `self & other`.");
  }
  cls.def("__repr__", [name](const B& self) {
    return WithGil(self, false, [&] {
      return std::string("<bloomkit.") + name + " capacity=" + std::to_string(self.filter.capacity()) +
             " count=" + std::to_string(self.filter.count()) +
             " memory_bytes=" + std::to_string(self.filter.memory_bytes()) + ">";
    });
  });
  return cls;
}

BloomOptions MakeBloomOptions(std::uint64_t capacity, double fp_rate, std::uint64_t num_bits, std::uint32_t num_hashes,
                              std::uint64_t max_memory) {
  return BloomOptions{.capacity = capacity,
                      .fp_rate = fp_rate,
                      .num_bits = num_bits,
                      .num_hashes = num_hashes,
                      .max_memory_bytes = max_memory};
}

template <typename F>
void BindBloomConstructor(py::class_<Box<F>>& cls) {
  cls.def(py::init([](std::uint64_t capacity, double fp_rate, std::uint64_t num_bits, std::uint32_t num_hashes,
                      std::uint64_t max_memory) {
            return MakeBox(Take(F::Create(MakeBloomOptions(capacity, fp_rate, num_bits, num_hashes, max_memory))));
          }),
          py::arg("capacity") = 0, py::arg("fp_rate") = 0.01, py::kw_only(), py::arg("num_bits") = 0,
          py::arg("num_hashes") = 0, py::arg("max_memory") = kDefaultMaxMemory);
}

// Any bloomkit file: the kind comes from its header.
py::object FromAnyBytes(std::span<const std::byte> bytes, std::uint64_t max_memory, bool concurrent,
                        const std::string& context) {
  auto prefix = [&](const Error& e) { return context.empty() ? e : Error(e.code(), context + ": " + e.message()); };
  Result<FileHeader> header = InspectBytes(bytes);
  if (!header.ok()) Throw(prefix(header.error()));
  auto load = [&]<typename F>(std::type_identity<F>) -> py::object {
    Result<F> filter = [&] {
      GilRelease nogil;
      return F::Deserialize(bytes, LoadOptions{.max_memory_bytes = max_memory});
    }();
    if (!filter.ok()) Throw(prefix(filter.error()));
    return py::cast(MakeBox(std::move(filter).value()));
  };
  const FilterKind kind = header.value().kind;
  if (concurrent) {
    switch (kind) {
      case FilterKind::kClassic: return load(std::type_identity<ConcurrentBloomFilter>{});
      case FilterKind::kBlocked: return load(std::type_identity<ConcurrentBlockedBloomFilter>{});
      default:
        Throw(prefix(Error(ErrorCode::kUnsupported, "concurrent=True needs a classic or blocked filter, this is a " +
                                                        std::string(FilterKindName(kind)) + " filter")));
    }
  }
  switch (kind) {
    case FilterKind::kClassic: return load(std::type_identity<BloomFilter>{});
    case FilterKind::kBlocked: return load(std::type_identity<BlockedBloomFilter>{});
    case FilterKind::kCounting: return load(std::type_identity<CountingBloomFilter>{});
    case FilterKind::kScalable: return load(std::type_identity<ScalableBloomFilter>{});
    case FilterKind::kCuckoo: return load(std::type_identity<CuckooFilter>{});
    case FilterKind::kRedisBloomScalable: return load(std::type_identity<RedisBloomScalableFilter>{});
    case FilterKind::kRedisBloomCuckoo: return load(std::type_identity<RedisCuckooFilter>{});
    case FilterKind::kWindowed: return load(std::type_identity<WindowedBloomFilter>{});
    case FilterKind::kBitsAndBlooms: return load(std::type_identity<BitsAndBloomsFilter>{});
    case FilterKind::kGuava: return load(std::type_identity<GuavaBloomFilter>{});
    case FilterKind::kParquet: return load(std::type_identity<ParquetBloomFilter>{});
  }
  Throw(prefix(Error(ErrorCode::kUnknownKind, "unknown filter kind " + std::to_string(static_cast<int>(kind)))));
}

// ---------------------------------------------------------------------------------------
// RedisBloom's kinds in and out of Redis: DUMP payloads and SCANDUMP chunks
// (redisbloom_codec.h), the bytes `bloomkit import redisbloom` and `export` move.

// The bytes of a filter's arrays, which its SCANDUMP data chunks cover end to end.
std::uint64_t ScanDumpDataBytes(const RedisBloomScalableFilter& f) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < f.num_stages(); ++i) total += f.link_data(i).size();
  return total;
}

std::uint64_t ScanDumpDataBytes(const RedisCuckooFilter& f) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < f.num_stages(); ++i) total += f.filter_data(i).size();
  return total;
}

// A filter from SCANDUMP chunks in order: each item an (iterator, bytes) pair as
// BF/CF.SCANDUMP answers (what *.LOADCHUNK takes), or the bytes alone. The first is the
// header chunk (iterator 1); each later chunk's iterator is 1 + the data bytes up to its
// end. SCANDUMP's chunks carry no checksum, so the chunks must be contiguous and cover
// every array: a missing chunk is an error, not a filter with a hole of zero bits.
template <typename F, typename FromHeader, typename LoadChunk>
F FromScanDump(const py::object& chunks, std::uint64_t max_memory, FromHeader from_header, LoadChunk load_chunk) {
  if (PyUnicode_Check(chunks.ptr()) || PyObject_CheckBuffer(chunks.ptr())) {
    throw py::type_error("chunks must be an iterable of SCANDUMP chunks (bytes or (iterator, bytes) pairs)");
  }
  std::optional<F> filter;
  std::int64_t expected = 1;
  std::size_t index = 0;
  const py::iterator chunk_iterator = py::iter(chunks);
  while (PyObject* next = NextItem(chunk_iterator.ptr())) {
    const py::object item = py::reinterpret_steal<py::object>(next);
    py::object data = py::reinterpret_borrow<py::object>(item);
    std::optional<std::int64_t> given;
    if (PyTuple_Check(item.ptr()) || PyList_Check(item.ptr())) {
      const auto pair = py::reinterpret_borrow<py::sequence>(item);
      if (pair.size() != 2) throw py::type_error("a SCANDUMP chunk pair is (iterator, bytes)");
      given = pair[0].cast<std::int64_t>();
      data = pair[1];
    }
    if (!PyObject_CheckBuffer(data.ptr())) {
      throw py::type_error(std::string("a SCANDUMP chunk is bytes or an (iterator, bytes) pair, not ") +
                           Py_TYPE(data.ptr())->tp_name);
    }
    const py::buffer_info info = py::reinterpret_borrow<py::buffer>(data).request();
    const std::span<const std::byte> bytes = BufferBytes(info);
    const std::string where = "chunk " + std::to_string(index);
    if (!filter) {
      if (given && *given != 1) {
        Throw(Error(ErrorCode::kInvalidArgument,
                    where + ": the first chunk is SCANDUMP's header chunk, iterator 1, got " + std::to_string(*given)));
      }
      Result<F> made = from_header(bytes, LoadOptions{.max_memory_bytes = max_memory});
      if (!made.ok()) Throw(Error(made.error().code(), where + " (header): " + made.error().message()));
      filter.emplace(std::move(made).value());
    } else {
      expected += static_cast<std::int64_t>(bytes.size());
      if (given && *given != expected) {
        Throw(Error(ErrorCode::kInvalidArgument, where + ": iterator " + std::to_string(*given) + ", expected " +
                                                     std::to_string(expected) +
                                                     " (1 + the data bytes up to its end): a chunk is missing or "
                                                     "out of order"));
      }
      Status loaded = load_chunk(*filter, expected, bytes);
      if (!loaded.ok()) Throw(Error(loaded.error().code(), where + ": " + loaded.error().message()));
    }
    ++index;
  }
  if (PyErr_Occurred() != nullptr) throw py::error_already_set();
  if (!filter) {
    Throw(Error(ErrorCode::kInvalidArgument,
                "no SCANDUMP chunks (an empty RedisBloom cuckoo filter has none: create an empty filter instead)"));
  }
  const std::uint64_t total = ScanDumpDataBytes(*filter);
  if (static_cast<std::uint64_t>(expected - 1) != total) {
    Throw(Error(ErrorCode::kTruncated, "the chunks hold " + std::to_string(expected - 1) + " of the filter's " +
                                           std::to_string(total) + " data bytes: a chunk is missing"));
  }
  if constexpr (std::is_same_v<F, RedisCuckooFilter>) {
    if (filter->CountOccupiedSlots() != filter->count()) {
      Throw(Error(ErrorCode::kParameterMismatch, "the chunks hold " + std::to_string(filter->CountOccupiedSlots()) +
                                                     " fingerprints, the header says " +
                                                     std::to_string(filter->count()) +
                                                     " (a chunk from another filter?)"));
    }
  }
  return std::move(*filter);
}

py::list ChunkList(const std::vector<RedisBloomOwnedChunk>& chunks) {
  py::list out;
  for (const RedisBloomOwnedChunk& chunk : chunks) out.append(py::make_tuple(chunk.iterator, ToPyBytes(chunk.bytes)));
  return out;
}

// dump(), from_dump(), scandump(), from_scandump() of one RedisBloom kind.
template <typename F, typename Encode, typename Decode, typename ScanDump, typename FromHeader, typename LoadChunk>
void BindRedisTransfer(py::class_<Box<F>>& cls, Encode encode, Decode decode, ScanDump scandump, FromHeader from_header,
                       LoadChunk load_chunk, const char* command) {
  using B = Box<F>;
  const std::string type = std::is_same_v<F, RedisCuckooFilter> ? "CF" : "BF";
  cls.def(
      "dump",
      [encode](const B& self, std::uint16_t rdb_version) {
        const std::vector<std::byte> payload = Unlocked(self, false, [&] { return encode(self.filter, rdb_version); });
        return ToPyBytes(payload);
      },
      py::kw_only(), py::arg("rdb_version") = kDefaultDumpRdbVersion,
      "The key's DUMP payload, as Redis' DUMP answers for this filter: RESTORE it into a Redis with\n"
      "RedisBloom (or bloomkit's module). rdb_version is the payload's RDB version (10 = Redis 7.0;\n"
      "RESTORE refuses a version above the server's own).");
  cls.def_static(
      "from_dump",
      [decode](const py::buffer& payload, std::uint64_t max_memory) {
        const py::buffer_info info = payload.request();
        const std::span<const std::byte> bytes = BufferBytes(info);
        Result<F> filter = [&] {
          GilRelease nogil;
          return decode(bytes, LoadOptions{.max_memory_bytes = max_memory});
        }();
        return MakeBox(Take(std::move(filter)));
      },
      py::arg("payload"), py::kw_only(), py::arg("max_memory") = kDefaultMaxMemory,
      ("A filter from a DUMP payload of a RedisBloom " + type +
       " key (what redis-py's r.dump(key) returns);\nthe payload's CRC-64 and every length are checked.")
          .c_str());
  cls.def(
      "scandump",
      [scandump](const B& self) {
        const std::vector<RedisBloomOwnedChunk> chunks = Unlocked(self, false, [&] { return scandump(self.filter); });
        return ChunkList(chunks);
      },
      ("Every " + type + ".SCANDUMP step in order, header chunk first, as (iterator, bytes) pairs: what\n" + command +
       " key iterator bytes takes, pair by pair, to rebuild the filter in Redis.")
          .c_str());
  cls.def_static(
      "from_scandump",
      [from_header, load_chunk](const py::object& chunks, std::uint64_t max_memory) {
        return MakeBox(FromScanDump<F>(chunks, max_memory, from_header, load_chunk));
      },
      py::arg("chunks"), py::kw_only(), py::arg("max_memory") = kDefaultMaxMemory,
      ("A filter from the " + type +
       ".SCANDUMP chunks of a RedisBloom key, in order: (iterator, bytes) pairs as SCANDUMP\n"
       "answers them (or the bytes alone), header chunk first. The chunks must be contiguous and\n"
       "complete (they carry no checksum).")
          .c_str());
}

py::dict HeaderDict(const FileHeader& h) {
  py::dict d;
  d["format_version"] = h.format_version;
  d["kind"] = std::string(FilterKindName(h.kind));
  d["hash_id"] = h.hash_id;
  d["hash_seed"] = h.hash_seed;
  d["compressed"] = (h.flags & kFlagZstdPayload) != 0;
  d["capacity"] = h.capacity;
  d["count"] = h.count;
  d["fp_rate"] = h.fp_rate;
  d["payload_bytes"] = h.payload_bytes;
  d["stored_payload_bytes"] = h.stored_payload_bytes;
  return d;
}

// A memory-mapped, read-only filter file (MappedFilter) and the Python object around it.
// close() unmaps at once, under the mutex held exclusive. The view is private: every call
// reads it through Read() or ReadUnlocked(), which hold the mutex shared (so close() waits
// for them) and raise ValueError once it is closed.
class MappedBox {
  // (The helpers come first: the members below deduce their return types from them.)
  const MappedFilter& Open() const {
    if (!view_) throw py::value_error("the mapped filter is closed");
    return *view_;
  }

  // fn() under the shared lock, with the GIL held; fn may find the view closed.
  template <typename Fn>
  decltype(auto) Locked(Fn&& fn) const {
    std::shared_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {  // a close() or a batch holds it: wait without the GIL
      GilRelease nogil;
      lock.lock();
      nogil.RestoreKeeping(lock);
    }
    return std::forward<Fn>(fn)();
  }

 public:
  explicit MappedBox(MappedFilter view) : view_(std::move(view)) {}

  // fn(view) with the GIL held. fn must not run Python code (a close() from it would wait
  // for itself): it reads the view into C++ values, which the caller turns into objects.
  template <typename Fn>
  decltype(auto) Read(Fn&& fn) const {
    return Locked([&]() -> decltype(auto) { return std::forward<Fn>(fn)(Open()); });
  }

  // fn(view) with the GIL released (batches, copies).
  template <typename Fn>
  decltype(auto) ReadUnlocked(Fn&& fn) const {
    GilRelease nogil;  // taken back after the lock is released
    std::shared_lock lock(mutex_);
    return std::forward<Fn>(fn)(Open());  // Open()'s error needs no GIL until caught
  }

  bool closed() const {
    return Locked([this] { return !view_.has_value(); });
  }

  // The repr: needs the view if open, and no error if closed.
  std::string Describe() const {
    return Locked([this] {
      if (!view_) return std::string("<bloomkit.MappedFilter closed>");
      return "<bloomkit.MappedFilter kind=" + std::string(FilterKindName(view_->kind())) +
             " count=" + std::to_string(view_->header().count) + " file_bytes=" + std::to_string(view_->file_bytes()) +
             ">";
    });
  }

  void Close() {
    GilRelease nogil;
    std::unique_lock lock(mutex_);
    view_.reset();
  }

 private:
  std::optional<MappedFilter> view_;
  mutable std::shared_mutex mutex_;
};

void BindMapped(py::module_& m) {
  py::class_<MappedBox> cls(m, "MappedFilter",
                            "A classic or blocked filter file opened read-only and memory-mapped, not loaded: queries\n"
                            "read only the pages of their probes from the page cache, shared by every process that\n"
                            "maps the file. Made by bloomkit.open_mapped(path). A save of the file (rename) leaves\n"
                            "the view on the version it opened; a file truncated under it makes every answer True\n"
                            "(never a false negative) and `truncated` True.");
  cls.def(
      "__contains__",
      [](const MappedBox& self, const py::handle& key) {
        return self.Read([&](const MappedFilter& view) {
          // The key's bytes are read under the lock: waiting for it released the GIL, and
          // another thread may have resized a bytearray key meanwhile.
          std::string_view bytes;
          if (!KeyBytes(key.ptr(), &bytes)) throw py::error_already_set();
          return view.MayContain(bytes);
        });
      },
      py::arg("key"), "False: certainly never added. True: may have been added.");
  cls.def(
      "contains_many",
      [](const MappedBox& self, const py::object& keys) {
        py::list out;
        std::unique_ptr<bool[]> found(new bool[kChunkKeys]);
        ForEachChunk(keys, [&](std::span<const std::string_view> chunk) {
          self.ReadUnlocked([&](const MappedFilter& view) {
            return view.MayContainBatch(chunk, std::span<bool>(found.get(), chunk.size()));
          });
          for (std::size_t i = 0; i < chunk.size(); ++i) {
            if (PyList_Append(out.ptr(), found[i] ? Py_True : Py_False) != 0) throw py::error_already_set();
          }
        });
        return out;
      },
      py::arg("keys"), "[key in self for key in keys], with the GIL released in prefetching batches.");
  cls.def(
      "contains_into",
      [](const MappedBox& self, const py::object& keys, const py::buffer& out) {
        return ContainsInto(keys, out, [&](std::span<const std::string_view> chunk, bool* dest) {
          return self.ReadUnlocked([&](const MappedFilter& view) {
            return view.MayContainBatch(chunk, std::span<bool>(dest, chunk.size()));
          });
        });
      },
      py::arg("keys"), py::arg("out"),
      "Writes 1 (may be present) or 0 (certainly absent) for each key into out and returns how\n"
      "many may be present (as the filters' contains_into).");
  auto header_of = [](const MappedBox& self) {
    return self.Read([](const MappedFilter& view) { return view.header(); });
  };
  cls.def_property_readonly(
      "kind",
      [](const MappedBox& self) {
        return std::string(FilterKindName(self.Read([](const MappedFilter& view) { return view.kind(); })));
      },
      "classic or blocked.");
  cls.def_property_readonly(
      "header", [header_of](const MappedBox& self) { return HeaderDict(header_of(self)); },
      "The file's header, as bloomkit.inspect() returns it.");
  cls.def(
      "__len__", [header_of](const MappedBox& self) { return header_of(self).count; },
      "The count of keys stored in the file's header.");
  cls.def_property_readonly(
      "count", [header_of](const MappedBox& self) { return header_of(self).count; },
      "The count of keys stored in the file's header (what len() returns).");
  cls.def_property_readonly(
      "capacity", [header_of](const MappedBox& self) { return header_of(self).capacity; },
      "Keys the filter was sized for.");
  cls.def_property_readonly(
      "fp_rate", [header_of](const MappedBox& self) { return header_of(self).fp_rate; },
      "The target false-positive rate the filter was created with.");
  cls.def_property_readonly(
      "file_bytes",
      [](const MappedBox& self) { return self.Read([](const MappedFilter& view) { return view.file_bytes(); }); },
      "Bytes of the file mapped.");
  cls.def_property_readonly(
      "truncated",
      [](const MappedBox& self) { return self.Read([](const MappedFilter& view) { return view.truncated(); }); },
      "True once the file shrank under the view: every answer is then True.");
  cls.def_property_readonly(
      "closed", [](const MappedBox& self) { return self.closed(); }, "True after close().");
  cls.def(
      "to_filter",
      [](const MappedBox& self) -> py::object {
        // Copied without the GIL (the filter may be large); the objects are made after.
        std::optional<BloomFilter> classic;
        std::optional<BlockedBloomFilter> blocked;
        self.ReadUnlocked([&](const MappedFilter& view) {
          if (const auto* c = view.get_if<BloomFilter>()) {
            classic.emplace(*c);
          } else if (const auto* b = view.get_if<BlockedBloomFilter>()) {
            blocked.emplace(*b);
          }
        });
        if (classic) return py::cast(MakeBox(std::move(*classic)));
        if (blocked) return py::cast(MakeBox(std::move(*blocked)));
        throw py::value_error("the mapped filter has no owned form");
      },
      "An ordinary, writable filter (BloomFilter or BlockedBloomFilter) copied from the view.");
  cls.def(
      "close", [](MappedBox& self) { self.Close(); },
      "Unmaps the file now (also done by the with block and when the object is freed).");
  cls.def(
      "__enter__", [](MappedBox& self) -> MappedBox& { return self; }, py::return_value_policy::reference);
  cls.def("__exit__", [](MappedBox& self, const py::args&) {
    self.Close();
    return false;
  });
  cls.def("__repr__", [](const MappedBox& self) { return self.Describe(); });

  m.def(
      "open_mapped",
      [](const py::object& path, bool verify) {
        const std::string file = PathString(path);
        Result<MappedFilter> view = [&] {
          GilRelease nogil;
          return MappedFilter::Open(file, MapOptions{.verify_checksum = verify});
        }();
        if (!view.ok()) Throw(Error(view.error().code(), file + ": " + view.error().message()));
        return std::make_unique<MappedBox>(std::move(view).value());
      },
      py::arg("path"), py::kw_only(), py::arg("verify") = false,
      "Opens a classic or blocked filter file (uncompressed) as a read-only MappedFilter without\n"
      "loading it. The header, parameters and file size are checked; verify=True also reads the\n"
      "file once and checks its checksum (as bloomkit.verify). Other kinds and compressed files\n"
      "raise UnsupportedError: bloomkit.load() reads those.");
  m.def(
      "verify",
      [](const py::object& path) {
        const std::string file = PathString(path);
        Result<FileHeader> header = [&] {
          GilRelease nogil;
          return VerifyFile(file);
        }();
        if (!header.ok()) Throw(Error(header.error().code(), file + ": " + header.error().message()));
        return HeaderDict(header.value());
      },
      py::arg("path"),
      "Reads a filter file once with a bounded buffer and checks its header, size and checksum\n"
      "(as `bloomkit verify`), without loading it; returns the header as a dict.");
}

}  // namespace
}  // namespace bloomkit::python

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
                           std::uint64_t start_ms, std::uint32_t max_stages, std::uint64_t max_memory) {
                 return MakeBox(Take(WindowedBloomFilter::Create({.capacity = capacity,
                                                                  .fp_rate = fp_rate,
                                                                  .window = window_ms,
                                                                  .generations = generations,
                                                                  .max_stages = max_stages,
                                                                  .start_time = start_ms,
                                                                  .max_memory_bytes = max_memory})));
               }),
               py::arg("capacity"), py::arg("fp_rate") = 0.01, py::kw_only(), py::arg("window_ms"),
               py::arg("generations") = kDefaultWindowedGenerations, py::arg("start_ms") = 0, py::arg("max_stages") = 0,
               py::arg("max_memory") = kDefaultMaxMemory);
  using WindowedBox = Box<WindowedBloomFilter>;
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

  auto redis_bloom = BindFilter<RedisBloomScalableFilter>(
      m, "RedisBloomFilter",
      "RedisBloom's scalable Bloom filter (the BF.* commands, Redis type MBbloom--), bit for bit: the\n"
      "same hashes, links and growth, so every answer equals RedisBloom's, false positives included.\n"
      "Files of kind redisbloom-bf; dump()/from_dump() and scandump()/from_scandump() move it to and\n"
      "from a Redis key.\n\n"
      "RedisBloomFilter(capacity=100, error_rate=0.01, *, expansion=2, non_scaling=False,\n"
      "max_memory=4 GiB): BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING];\n"
      "the defaults are BF.ADD's. len() is BF.CARD: adds that were new (BF.ADD's 1).");
  redis_bloom.def(
      py::init([](std::uint64_t capacity, double error_rate, std::uint32_t expansion, bool non_scaling,
                  std::uint64_t max_memory) {
        return MakeBox(Take(RedisBloomScalableFilter::Create(RedisBloomOptions{.capacity = capacity,
                                                                               .fp_rate = error_rate,
                                                                               .expansion = expansion,
                                                                               .non_scaling = non_scaling,
                                                                               .max_memory_bytes = max_memory})));
      }),
      py::arg("capacity") = 100, py::arg("error_rate") = 0.01, py::kw_only(), py::arg("expansion") = 2,
      py::arg("non_scaling") = false, py::arg("max_memory") = kDefaultMaxMemory);
  BindRedisTransfer(
      redis_bloom, [](const RedisBloomScalableFilter& f, std::uint16_t v) { return EncodeRedisBloomDump(f, v); },
      [](std::span<const std::byte> b, const LoadOptions& l) { return DecodeRedisBloomDump(b, l); },
      [](const RedisBloomScalableFilter& f) { return RedisBloomScanDump(f); },
      [](std::span<const std::byte> b, const LoadOptions& l) { return RedisBloomFromHeaderChunk(b, l); },
      [](RedisBloomScalableFilter& f, std::int64_t i, std::span<const std::byte> b) {
        return LoadRedisBloomChunk(f, i, b);
      },
      "BF.LOADCHUNK");

  auto redis_cuckoo = BindFilter<RedisCuckooFilter>(
      m, "RedisCuckooFilter",
      "RedisBloom's cuckoo filter (the CF.* commands, Redis type MBbloomCF), byte for byte: the same\n"
      "fingerprints, buckets, evictions, growth and compaction, so every answer equals RedisBloom's.\n"
      "Files of kind redisbloom-cf; dump()/from_dump() and scandump()/from_scandump() move it to and\n"
      "from a Redis key.\n\n"
      "RedisCuckooFilter(capacity=1024, *, bucket_size=2, max_iterations=20, expansion=1,\n"
      "max_memory=4 GiB): CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS i] [EXPANSION e];\n"
      "the defaults are CF.ADD's. add() is CF.ADD (one more copy), add_if_absent() CF.ADDNX,\n"
      "discard() CF.DEL, key_count() CF.COUNT; len() counts copies (CF.INFO's items inserted).");
  redis_cuckoo.def(
      py::init([](std::uint64_t capacity, std::uint32_t bucket_size, std::uint32_t max_iterations,
                  std::uint32_t expansion, std::uint64_t max_memory) {
        return MakeBox(Take(RedisCuckooFilter::Create(RedisCuckooOptions{.capacity = capacity,
                                                                         .bucket_size = bucket_size,
                                                                         .max_iterations = max_iterations,
                                                                         .expansion = expansion,
                                                                         .max_memory_bytes = max_memory})));
      }),
      py::arg("capacity") = 1024, py::kw_only(), py::arg("bucket_size") = 2, py::arg("max_iterations") = 20,
      py::arg("expansion") = 1, py::arg("max_memory") = kDefaultMaxMemory);
  redis_cuckoo.def(
      "compact", [](Box<RedisCuckooFilter>& self) { WithGil(self, true, [&] { self.filter.Compact(true); }); },
      "CF.COMPACT: moves fingerprints of newer sub-filters into free slots of older ones and drops\n"
      "sub-filters left empty (the same happens by itself once deletes pass 10% of the items).");
  BindRedisTransfer(
      redis_cuckoo, [](const RedisCuckooFilter& f, std::uint16_t v) { return EncodeRedisCuckooDump(f, v); },
      [](std::span<const std::byte> b, const LoadOptions& l) { return DecodeRedisCuckooDump(b, l); },
      [](const RedisCuckooFilter& f) { return RedisCuckooScanDump(f); },
      [](std::span<const std::byte> b, const LoadOptions& l) { return RedisCuckooFromHeaderChunk(b, l); },
      [](RedisCuckooFilter& f, std::int64_t i, std::span<const std::byte> b) { return LoadRedisCuckooChunk(f, i, b); },
      "CF.LOADCHUNK");
  m.def(
      "from_redis_dump",
      [](const py::buffer& payload, std::uint64_t max_memory) -> py::object {
        const py::buffer_info info = payload.request();
        const std::span<const std::byte> bytes = BufferBytes(info);
        const FilterKind kind = Take(RedisBloomDumpKind(bytes));
        const LoadOptions load{.max_memory_bytes = max_memory};
        if (kind == FilterKind::kRedisBloomCuckoo) {
          Result<RedisCuckooFilter> filter = [&] {
            GilRelease nogil;
            return DecodeRedisCuckooDump(bytes, load);
          }();
          return py::cast(MakeBox(Take(std::move(filter))));
        }
        Result<RedisBloomScalableFilter> filter = [&] {
          GilRelease nogil;
          return DecodeRedisBloomDump(bytes, load);
        }();
        return py::cast(MakeBox(Take(std::move(filter))));
      },
      py::arg("payload"), py::kw_only(), py::arg("max_memory") = kDefaultMaxMemory,
      "A RedisBloomFilter or RedisCuckooFilter from the DUMP payload of a RedisBloom BF or CF key,\n"
      "whichever the payload holds.");

  // Conversions between a concurrent kind and its plain kind (the same file).
  concurrent_classic.def(
      "snapshot", [](const Box<ConcurrentBloomFilter>& self) { return MakeBox(self.filter.Snapshot()); },
      "A plain BloomFilter copy holding every key whose add finished before the call.");
  concurrent_blocked.def(
      "snapshot", [](const Box<ConcurrentBlockedBloomFilter>& self) { return MakeBox(self.filter.Snapshot()); },
      "A plain BlockedBloomFilter copy holding every key whose add finished before the call.");

  m.def(
      "load",
      [](const py::object& path, std::uint64_t max_memory, bool concurrent,
         const std::optional<std::string>& format) -> py::object {
        const std::string file = PathString(path);
        if (format.has_value() && *format != "bloomkit") {
          const auto read = [&]<typename F>(std::type_identity<F>) -> py::object {
            Result<F> filter = [&]() -> Result<F> {
              GilRelease nogil;
              std::ifstream in(file, std::ios::binary);
              if (!in) return Error(ErrorCode::kIoError, "cannot open: " + std::string(std::strerror(errno)));
              auto f = F::ReadForeign(in, LoadOptions{.max_memory_bytes = max_memory});
              if (f.ok() && in.peek() != std::char_traits<char>::eof()) {
                return Error(ErrorCode::kParameterMismatch, "bytes follow the " + *format + " filter");
              }
              return f;
            }();
            if (!filter.ok()) Throw(Error(filter.error().code(), file + ": " + filter.error().message()));
            return py::cast(MakeBox(std::move(filter).value()));
          };
          if (*format == "bits-and-blooms") return read(std::type_identity<BitsAndBloomsFilter>{});
          if (*format == "guava") return read(std::type_identity<GuavaBloomFilter>{});
          if (*format == "parquet") return read(std::type_identity<ParquetBloomFilter>{});
          Throw(Error(ErrorCode::kInvalidArgument,
                      "format must be 'bloomkit', 'bits-and-blooms', 'guava' or 'parquet', got '" + *format + "'"));
        }
        std::vector<std::byte> bytes = Take(ReadPath(file, max_memory));
        return FromAnyBytes(bytes, max_memory, concurrent, file);
      },
      py::arg("path"), py::kw_only(), py::arg("max_memory") = kDefaultMaxMemory, py::arg("concurrent") = false,
      py::arg("format") = py::none());
  m.def(
      "from_bytes",
      [](const py::buffer& data, std::uint64_t max_memory, bool concurrent) {
        py::buffer_info info = data.request();
        return FromAnyBytes(BufferBytes(info), max_memory, concurrent, "");
      },
      py::arg("data"), py::kw_only(), py::arg("max_memory") = kDefaultMaxMemory, py::arg("concurrent") = false);
  m.def(
      "inspect",
      [](const py::object& path, std::uint64_t max_memory) {
        const std::string file = PathString(path);
        std::vector<std::byte> bytes = Take(ReadPath(file, max_memory));
        Result<FileHeader> header = InspectBytes(bytes);
        if (!header.ok()) Throw(Error(header.error().code(), file + ": " + header.error().message()));
        return HeaderDict(header.value());
      },
      py::arg("path"), py::kw_only(), py::arg("max_memory") = kDefaultMaxMemory);
  py::class_<FileLock>(m, "FileLock",
                       "An exclusive lock on a filter file for a read-modify-write: the lock every\n"
                       "`bloomkit` command that rewrites a file takes (flock on the file the path names,\n"
                       "symlinks resolved). Use it as a context manager; update_file() takes it for you.\n\n"
                       "FileLock(path, *, wait=60.0, missing_ok=False): waits up to `wait` seconds for\n"
                       "another writer (then LockedError); with missing_ok, a missing file locks its\n"
                       "directory so that two writers do not both create it.")
      .def(py::init([](const py::object& path, double wait, bool missing_ok) {
             const std::string file = PathString(path);
             Result<FileLock> lock = [&] {
               GilRelease nogil;
               return FileLock::Acquire(file, LockOptions{.wait_seconds = wait, .missing_ok = missing_ok});
             }();
             if (!lock.ok()) Throw(Error(lock.error().code(), file + ": " + lock.error().message()));
             return std::make_unique<FileLock>(std::move(lock).value());
           }),
           py::arg("path"), py::kw_only(), py::arg("wait") = kDefaultLockWaitSeconds, py::arg("missing_ok") = false)
      .def_property_readonly(
          "path", [](const FileLock& self) { return self.path().string(); },
          "The locked file's path with symlinks resolved: load and save through it.")
      .def_property_readonly("held", &FileLock::held, "True until release().")
      .def(
          "release", [](FileLock& self) { self = FileLock(); }, "Releases the lock (also done by the with block).")
      .def(
          "__enter__", [](FileLock& self) -> FileLock& { return self; }, py::return_value_policy::reference)
      .def("__exit__", [](FileLock& self, const py::args&) {
        self = FileLock();
        return false;
      });
  BindMapped(m);
  m.def(
      "error_code_name", [](int code) { return std::string(ErrorCodeName(static_cast<ErrorCode>(code))); },
      py::arg("code"));
  m.def("_uses_avx2", [] { return BlockedBloomFilter::UsesAvx2(); });
}
