// SPDX-License-Identifier: Apache-2.0
// Files and bytes of any kind: load, from_bytes, inspect, FileLock and the memory-mapped
// MappedFilter.
#include "binding.h"

namespace bloomkit::python {

// The memory-mapped filter is bound here alone, but its class is named in binding.h (its
// caster refuses an object made without __init__), so it is not file-local.
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

void BindFiles(py::module_& m) {
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
}

}  // namespace bloomkit::python
