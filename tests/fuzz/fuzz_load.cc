// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the file-format loader of one filter kind (BLOOMKIT_FUZZ_FILTER).
//
// Properties checked on every input:
//  - Deserialize never crashes, never trips a sanitizer, never allocates a filter above
//    the 64 MiB limit given to it (larger declared sizes must be rejected first);
//  - an accepted filter answers queries, and serializes back to the same bytes when its
//    payload was stored raw (compressed inputs: a second round trip is stable);
//  - after a few adds, removes and merges it saves what loads again
//    (CheckReachableStatesLoad, fuzz_filters.h), counts at their limit included.
// Each input runs twice: as is, and with its trailing checksum recomputed, so that the
// fuzzer reaches the parameter and payload checks behind the checksum.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "fuzz_filters.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"

namespace {

void LoadOne(const std::uint8_t* data, std::size_t size) {
  using Filter = BLOOMKIT_FUZZ_FILTER;
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  bloomkit::LoadOptions options;
  options.max_memory_bytes = std::uint64_t{64} << 20;
  auto loaded = Filter::Deserialize(bytes, options);
  if (!loaded.ok()) {
    if (loaded.error().message().empty()) __builtin_trap();  // every error explains itself
    return;
  }
  Filter& filter = loaded.value();
  if (filter.memory_bytes() > options.max_memory_bytes) __builtin_trap();
  volatile bool sink = filter.MayContain("bloomkit") || filter.MayContain(std::string_view());
  (void)sink;
  const std::vector<std::byte> again = filter.Serialize();
  const bool stored_raw = size >= 24 && (data[20] & 1U) == 0;
  if (stored_raw && (again.size() != size || std::memcmp(again.data(), data, size) != 0)) __builtin_trap();
  auto reloaded = Filter::Deserialize(again, options);
  if (!reloaded.ok() || !(reloaded.value() == filter)) __builtin_trap();
  bloomkit_fuzz::CheckReachableStatesLoad(std::move(filter), bloomkit::internal::Checksum64(data, size), options);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  LoadOne(data, size);
  if (size >= bloomkit::kChecksumBytes) {
    std::vector<std::uint8_t> fixed(data, data + size);
    const std::size_t body = size - bloomkit::kChecksumBytes;
    bloomkit::internal::StoreLE<std::uint64_t>(reinterpret_cast<std::byte*>(fixed.data() + body),
                                               bloomkit::internal::Checksum64(fixed.data(), body));
    LoadOne(fixed.data(), fixed.size());
  }
  return 0;
}
