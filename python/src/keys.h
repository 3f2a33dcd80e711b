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
class KeyArena {
 public:
  void Clear() {
    bytes_.clear();
    ends_.clear();
    views_.clear();
  }
  // Appends the key's bytes; false with a Python error set for a bad key.
  bool Append(PyObject* key) {
    std::string_view bytes;
    if (!KeyBytes(key, &bytes)) return false;
    if (bytes_.capacity() - bytes_.size() < bytes.size()) bytes_.reserve(2 * bytes_.size() + bytes.size() + 4096);
    bytes_.append(bytes);
    ends_.push_back(bytes_.size());
    return true;
  }
  void AppendBytes(std::string_view bytes) {
    bytes_.append(bytes);
    ends_.push_back(bytes_.size());
  }
  [[nodiscard]] std::size_t size() const noexcept { return ends_.size(); }
  [[nodiscard]] std::size_t byte_size() const noexcept { return bytes_.size(); }
  // The keys as views into the buffer; valid until the next Append or Clear.
  const std::vector<std::string_view>& Views() {
    views_.clear();
    views_.reserve(ends_.size());
    std::size_t begin = 0;
    for (const std::size_t end : ends_) {
      views_.emplace_back(bytes_.data() + begin, end - begin);
      begin = end;
    }
    return views_;
  }

 private:
  std::string bytes_;
  std::vector<std::size_t> ends_;
  std::vector<std::string_view> views_;
};

}  // namespace bloomkit::python
