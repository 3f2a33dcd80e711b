// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the readers of other libraries' filter files (foreign_bloom.h).
// The first byte picks the layout (mod 3: bits-and-blooms, Guava, Parquet), the rest is
// the file. Properties checked on every input:
//  - ReadForeign never crashes, never allocates a filter above the 64 MiB limit given
//    to it (larger declared sizes are refused first), and explains every refusal;
//  - an accepted filter answers queries; written back (WriteForeign) it reads again to
//    an equal filter, and the bytes are the input's when the input was canonical
//    (the library's own writer: no bits at or past m, bitset length = m);
//  - its bloomkit file loads again to an equal filter.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "bloomkit/foreign_bloom.h"

namespace {

template <typename Filter>
void ReadOne(std::span<const std::byte> bytes) {
  const bloomkit::LoadOptions options{.max_memory_bytes = std::uint64_t{64} << 20};
  auto loaded = Filter::ReadForeign(bytes, options);
  if (!loaded.ok()) {
    if (loaded.error().message().empty()) __builtin_trap();
    return;
  }
  Filter& filter = loaded.value();
  if (filter.memory_bytes() > options.max_memory_bytes) __builtin_trap();
  volatile bool sink = filter.MayContain("bloomkit") || filter.MayContain(std::string_view());
  (void)sink;
  const std::vector<std::byte> again = filter.WriteForeign();
  auto reread = Filter::ReadForeign(again, options);
  if (!reread.ok() || !(reread.value() == filter)) __builtin_trap();
  if (again.size() == bytes.size() && std::memcmp(again.data(), bytes.data(), bytes.size()) != 0) {
    // Same length: only bits past m (dropped on reading) may differ.
    auto refilter = Filter::ReadForeign(again, options);
    if (!refilter.ok() || refilter->WriteForeign() != again) __builtin_trap();
  }
  auto reloaded = Filter::Deserialize(filter.Serialize(), options);
  if (!reloaded.ok() || !(reloaded.value() == filter)) __builtin_trap();
  (void)filter.Add("fuzz");
  if (!filter.MayContain("fuzz")) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0: ReadOne<bloomkit::BitsAndBloomsFilter>(bytes); break;
    case 1: ReadOne<bloomkit::GuavaBloomFilter>(bytes); break;
    default: ReadOne<bloomkit::ParquetBloomFilter>(bytes); break;
  }
  return 0;
}
