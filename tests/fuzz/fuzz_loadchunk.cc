// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: a sequence of LOADCHUNK commands against one key of the module,
// through the module's own chunk checks (redis_dump_model.h).
//
// Input: family byte (BF, CF, CBF), then chunks until the input ends, each a mode byte
// and a data field (fuzz_input.h). The mode picks the iterator argument:
//   m % 4 == 0  the iterator the key expects next (so the fuzzer reaches the payload)
//   m % 4 == 1  "1" (a new header)
//   m % 4 == 2  the expected iterator plus int8(m) / 4 (near misses, <= 0 included)
//   m % 4 == 3  a text field, parsed like the command argument
// Properties: no crash or sanitizer report; every error has a message; nothing larger
// than MAX_FILTER_BYTES plus the dump slack is ever kept; an accepted filter reproduces
// its bytes and round-trips through SCANDUMP chunks of two other sizes.
#include <cstdint>
#include <string>

#include "redis_dump_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using bloomkit_fuzz::FuzzInput;
  FuzzInput in(data, size);
  bloomkit_fuzz::WithFamily(in.Byte(), [&](bloomkit::FilterKind /*kind*/, auto* tag) {
    using Filter = std::remove_pointer_t<decltype(tag)>;
    bloomkit_fuzz::KeyModel<Filter> key;
    for (int step = 0; step < 4096 && !in.empty(); ++step) {
      const std::uint8_t mode = in.Byte();
      std::string iterator;
      switch (mode % 4) {
        case 0: iterator = std::to_string(key.expected_iterator()); break;
        case 1: iterator = "1"; break;
        case 2:
          iterator =
              std::to_string(static_cast<std::int64_t>(key.expected_iterator()) + static_cast<std::int8_t>(mode) / 4);
          break;
        default: iterator = std::string(in.Field()); break;
      }
      const std::string_view chunk = in.Field();
      (void)key.LoadChunk(iterator, bloomkit_fuzz::AsBytes(chunk));
    }
  });
  return 0;
}
