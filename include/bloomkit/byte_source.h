// SPDX-License-Identifier: Apache-2.0
// ByteSource: where a filter's streamed Deserialize reads its payload from, piece by
// piece (the mirror of ByteSink).
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include "bloomkit/result.h"

namespace bloomkit {

// Fills each span it is given with the next bytes of a payload, in order: a filter
// reads its arrays straight into its own memory, so nothing of the filter's size is
// copied. An error (I/O, corrupt compressed data, the payload ended) is returned as it
// is and ends the read. Non-owning: the callable must outlive the ByteSource.
//   auto read = [&](std::span<std::byte> out) -> Status { ...; return {}; };
//   auto filter = bloomkit::BloomFilter::Deserialize(header, bloomkit::ByteSource(read));
class ByteSource {
 public:
  template <typename F>
  requires(!std::is_same_v<std::remove_cv_t<F>, ByteSource>) explicit ByteSource(F& f) noexcept
      : object_(static_cast<void*>(&f)),
        call_([](void* object, std::span<std::byte> out) -> Status { return (*static_cast<F*>(object))(out); }) {}
  [[nodiscard]] Status operator()(std::span<std::byte> out) const { return call_(object_, out); }

 private:
  void* object_;
  Status (*call_)(void*, std::span<std::byte>);
};

}  // namespace bloomkit
