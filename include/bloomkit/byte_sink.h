// SPDX-License-Identifier: Apache-2.0
// ByteSink: where a filter's SerializeTo sends its serialization, piece by piece.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

namespace bloomkit {

// Receives a serialization piece by piece, in order (each filter's SerializeTo). A
// piece is valid only during the call; most pieces are views of the filter's own
// arrays, so nothing of the filter's size is copied. Returning false stops the
// serialization early. Non-owning: the callable must outlive the ByteSink.
class ByteSink {
 public:
  template <typename F>
  requires(!std::is_same_v<std::remove_cv_t<F>, ByteSink>) explicit ByteSink(F& f) noexcept
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* object, std::span<const std::byte> piece) noexcept -> bool {
          return (*static_cast<F*>(object))(piece);
        }) {}
  bool operator()(std::span<const std::byte> piece) const noexcept { return call_(object_, piece); }

 private:
  void* object_;
  bool (*call_)(void*, std::span<const std::byte>) noexcept;
};

}  // namespace bloomkit
