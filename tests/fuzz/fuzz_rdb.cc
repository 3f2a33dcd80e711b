// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the module's rdb_load of one value (also what RESTORE runs), with
// the value's fields taken from the input (redis_dump_model.h).
//
// Input: family byte (BF, CF, CBF), state byte (0 ready, 1 loading, else invalid),
// for state 1 the announced total (8 bytes), then the string buffer (the rest). The
// buffer also runs with its trailing checksum recomputed, so that the fuzzer reaches
// the parameter and payload checks behind it.
// A state byte with bit 7 set selects encoding version 2 (the streamed layout): state
// = the low bits, for state 1 the bytes received (8 bytes), then strings, each a 2-byte
// length and its bytes (the first is the header); every accepted value also passes the
// streamed round trip of CheckAccepted.
// Properties: as for LOADCHUNK; a loading value is kept only if its header is valid,
// agrees with the announced total, and fewer bytes than that total are present.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "internal/endian.h"
#include "internal/hash_inline.h"
#include "redis_dump_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using bloomkit_fuzz::FuzzInput;
  FuzzInput in(data, size);
  const std::uint8_t family = in.Byte();
  const std::uint8_t state = in.Byte();
  if ((state & 0x80U) != 0) {
    const std::uint64_t streamed_state = state & 0x7FU;
    const std::uint64_t received = streamed_state == 1 ? in.U64() : 0;
    std::vector<std::span<const std::byte>> strings;
    std::string_view rest = in.Rest();
    while (rest.size() >= 2 && strings.size() < 4096) {
      const std::size_t n =
          std::min<std::size_t>(rest.size() - 2, std::to_integer<std::size_t>(std::byte(rest[0])) |
                                                     (std::to_integer<std::size_t>(std::byte(rest[1])) << 8));
      strings.push_back(bloomkit_fuzz::AsBytes(rest.substr(2, n)));
      rest.remove_prefix(2 + n);
    }
    bloomkit_fuzz::WithFamily(family, [&](bloomkit::FilterKind /*kind*/, auto* tag) {
      using Filter = std::remove_pointer_t<decltype(tag)>;
      bloomkit_fuzz::KeyModel<Filter> key;
      (void)key.RdbLoadStreamed(streamed_state, received, strings);
    });
    return 0;
  }
  const std::uint64_t total = state == 1 ? in.U64() : 0;
  const std::string_view rest = in.Rest();
  bloomkit_fuzz::WithFamily(family, [&](bloomkit::FilterKind /*kind*/, auto* tag) {
    using Filter = std::remove_pointer_t<decltype(tag)>;
    {
      bloomkit_fuzz::KeyModel<Filter> key;
      (void)key.RdbLoad(state, total, bloomkit_fuzz::AsBytes(rest));
    }
    if (state == 0 && rest.size() >= bloomkit::kChecksumBytes) {
      std::vector<std::byte> fixed(reinterpret_cast<const std::byte*>(rest.data()),
                                   reinterpret_cast<const std::byte*>(rest.data()) + rest.size());
      const std::size_t body = fixed.size() - bloomkit::kChecksumBytes;
      bloomkit::internal::StoreLE<std::uint64_t>(fixed.data() + body,
                                                 bloomkit::internal::Checksum64(fixed.data(), body));
      bloomkit_fuzz::KeyModel<Filter> key;
      (void)key.RdbLoad(0, 0, fixed);
    }
  });
  return 0;
}
