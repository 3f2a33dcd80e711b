// SPDX-License-Identifier: Apache-2.0
// BindFilter<F>: one template binds the set-like surface of every kind and whatever the
// kind supports (discard/remove, |, &, key counts); the family files add constructors and
// their own methods. Instantiated here once per kind, so that the other files compile
// none of it.
#include "binding.h"

namespace bloomkit::python {
namespace {

// add_file: read size and the longest key accepted (as the CLI's KeyReader).
constexpr std::size_t kFileBufferBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxFileKeyBytes = std::size_t{64} << 20;

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

}  // namespace

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

template py::class_<Box<BloomFilter>> BindFilter<BloomFilter>(py::module_&, const char*, const char*);
template py::class_<Box<BlockedBloomFilter>> BindFilter<BlockedBloomFilter>(py::module_&, const char*, const char*);
template py::class_<Box<ConcurrentBloomFilter>> BindFilter<ConcurrentBloomFilter>(py::module_&, const char*,
                                                                                  const char*);
template py::class_<Box<ConcurrentBlockedBloomFilter>> BindFilter<ConcurrentBlockedBloomFilter>(py::module_&,
                                                                                                const char*,
                                                                                                const char*);
template py::class_<Box<CountingBloomFilter>> BindFilter<CountingBloomFilter>(py::module_&, const char*, const char*);
template py::class_<Box<ScalableBloomFilter>> BindFilter<ScalableBloomFilter>(py::module_&, const char*, const char*);
template py::class_<Box<WindowedBloomFilter>> BindFilter<WindowedBloomFilter>(py::module_&, const char*, const char*);
template py::class_<Box<CuckooFilter>> BindFilter<CuckooFilter>(py::module_&, const char*, const char*);
template py::class_<Box<BitsAndBloomsFilter>> BindFilter<BitsAndBloomsFilter>(py::module_&, const char*, const char*);
template py::class_<Box<GuavaBloomFilter>> BindFilter<GuavaBloomFilter>(py::module_&, const char*, const char*);
template py::class_<Box<ParquetBloomFilter>> BindFilter<ParquetBloomFilter>(py::module_&, const char*, const char*);
template py::class_<Box<RedisBloomScalableFilter>> BindFilter<RedisBloomScalableFilter>(py::module_&, const char*,
                                                                                        const char*);
template py::class_<Box<RedisCuckooFilter>> BindFilter<RedisCuckooFilter>(py::module_&, const char*, const char*);

}  // namespace bloomkit::python
