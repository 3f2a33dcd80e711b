// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the module's rdb_load of one value (also what RESTORE runs), with
// the value's fields taken from the input (redis_dump_model.h).
//
// Input: family byte (BF, CF, CBF), state byte (0 ready, 1 loading, else invalid),
// for state 1 the announced total (8 bytes), then the string buffer (the rest). The
// buffer also runs with its trailing checksum recomputed, so that the fuzzer reaches
// the parameter and payload checks behind it.
// Properties: as for LOADCHUNK; a loading value is kept only if its header is valid,
// agrees with the announced total, and fewer bytes than that total are present.
#include <cstdint>
#include <vector>

#include "internal/endian.h"
#include "internal/hash_inline.h"
#include "redis_dump_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using bloomkit_fuzz::FuzzInput;
  FuzzInput in(data, size);
  const std::uint8_t family = in.Byte();
  const std::uint8_t state = in.Byte();
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
