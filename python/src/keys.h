// SPDX-License-Identifier: Apache-2.0
// Keys from Python objects: str (its UTF-8 bytes, the bytes the CLI hashes for the same
// text), bytes, bytearray and C-contiguous memoryview. Anything else is a TypeError that
// says how to pass it; bloomkit never falls back to Python's per-process hash().
//
// The caller holds the GIL for every function here.
#pragma once

#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::python {

// Sets TypeError naming the object's type and the accepted ones.
void SetKeyTypeError(PyObject* key);

// The key's bytes, valid while `key` is alive and unchanged (a memoryview's buffer is
// held by the memoryview itself). Returns false with a Python error set.
inline bool KeyBytes(PyObject* key, std::string_view* out) {
  if (PyUnicode_Check(key)) {
    if (PyUnicode_IS_COMPACT_ASCII(key)) {
      // ASCII text is its own UTF-8: read it in place, no call.
      *out = std::string_view(static_cast<const char*>(PyUnicode_DATA(key)),
                              static_cast<std::size_t>(PyUnicode_GET_LENGTH(key)));
      return true;
    }
    Py_ssize_t size = 0;
    // Cached in the str object: an ASCII str returns its own data, no copy.
    const char* data = PyUnicode_AsUTF8AndSize(key, &size);
    if (data == nullptr) return false;
    *out = std::string_view(data, static_cast<std::size_t>(size));
    return true;
  }
  if (PyBytes_Check(key)) {
    *out = std::string_view(PyBytes_AS_STRING(key), static_cast<std::size_t>(PyBytes_GET_SIZE(key)));
    return true;
  }
  if (PyByteArray_Check(key)) {
    *out = std::string_view(PyByteArray_AS_STRING(key), static_cast<std::size_t>(PyByteArray_GET_SIZE(key)));
    return true;
  }
  if (PyMemoryView_Check(key)) {
    // Released views and non-contiguous ones are refused by the buffer request.
    Py_buffer view;
    if (PyObject_GetBuffer(key, &view, PyBUF_C_CONTIGUOUS) != 0) return false;
    *out = std::string_view(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len));
    PyBuffer_Release(&view);  // the memoryview keeps its own export alive
    return true;
  }
  SetKeyTypeError(key);
  return false;
}

// Keys copied out of Python objects into one buffer, so that a batch can run with the
// GIL released while other threads change the list or the bytearrays it came from.
// Copying is cheaper than holding a reference to each str: the core then reads keys
// from one contiguous buffer, not from objects scattered over the heap (measured in
// docs/BENCHMARKS.md, "Python binding"). The buffer never moves while a chunk fills, so
// each key's view is made once, at Append; a chunk is full at kKeys keys or when the
// next key does not fit.
class KeyArena {
 public:
  static constexpr std::size_t kKeys = std::size_t{1} << 16;
  static constexpr std::size_t kBytes = std::size_t{4} << 20;

  KeyArena() : bytes_(new char[kBytes]) { views_.reserve(kKeys); }

  void Clear() {
    used_ = 0;
    views_.clear();
    long_keys_.clear();
  }
  // True when the next key may not fit: flush the chunk first.
  [[nodiscard]] bool full() const noexcept { return views_.size() == kKeys; }
  // Appends the key's bytes; false with a Python error set for a bad key. The caller
  // flushes and clears the chunk when this returns true through `flush_first`.
  bool Append(PyObject* key, bool* flush_first) {
    std::string_view bytes;
    if (!KeyBytes(key, &bytes)) return false;
    *flush_first = false;
    if (bytes.size() > kBytes - used_) {
      if (bytes.size() <= kBytes / 4 || !views_.empty()) {
        // Does not fit after the keys already here: the caller flushes, then appends again.
        *flush_first = true;
        return true;
      }
      // A key larger than a quarter of the buffer, alone in its chunk: its own copy.
      views_.emplace_back(long_keys_.emplace_back(bytes));
      return true;
    }
    std::memcpy(bytes_.get() + used_, bytes.data(), bytes.size());
    views_.emplace_back(bytes_.get() + used_, bytes.size());
    used_ += bytes.size();
    return true;
  }
  [[nodiscard]] std::size_t size() const noexcept { return views_.size(); }
  [[nodiscard]] std::span<const std::string_view> Views() const noexcept { return views_; }

 private:
  std::unique_ptr<char[]> bytes_;
  std::size_t used_ = 0;
  std::vector<std::string_view> views_;
  std::vector<std::string> long_keys_;
};

}  // namespace bloomkit::python
