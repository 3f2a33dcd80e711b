// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the open path of memory-mapped views (MappedFilter::Open), over a
// file whose bytes are the input (a memfd, so nothing touches the disk).
//
// Properties checked on every input:
//  - Open never crashes and never trips a sanitizer, whatever the header claims about
//    kinds, sizes and parameters; every error explains itself;
//  - an accepted view answers queries (single and batch) and its file size is the
//    input's;
//  - with the checksum made valid, a view opens exactly when Deserialize accepts the
//    same bytes as that kind, and then holds an equal filter: the view checks every
//    parameter a load checks (and refuses counts past 2^63 - 1).
// Each input runs twice: as is, and with its trailing checksum recomputed.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_filters.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"

namespace {

template <typename Filter>
void CompareWithLoad(const bloomkit::Result<bloomkit::MappedFilter>& view, std::span<const std::byte> bytes) {
  auto loaded = Filter::Deserialize(bytes);
  if (loaded.ok() != view.ok()) __builtin_trap();
  if (loaded.ok() && !(*view->get_if<Filter>() == loaded.value())) __builtin_trap();
}

void OpenOne(const std::uint8_t* data, std::size_t size, bool checksum_valid) {
  const int fd = ::memfd_create("bloomkit-fuzz-mapped", MFD_CLOEXEC);
  if (fd < 0) return;
  std::size_t done = 0;
  while (done < size) {
    const ssize_t put = ::write(fd, data + done, size - done);
    if (put <= 0) break;
    done += static_cast<std::size_t>(put);
  }
  if (done == size) {
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    auto view = bloomkit::MappedFilter::Open(path);
    if (!view.ok()) {
      if (view.error().message().empty()) __builtin_trap();
    } else {
      if (view->file_bytes() != size) __builtin_trap();
      const std::string_view keys[3] = {"bloomkit", std::string_view(), "a longer key of more than sixteen bytes"};
      bool out[3] = {};
      const std::size_t hits = view->MayContainBatch(keys, out);
      std::size_t again = 0;
      for (std::size_t i = 0; i < 3; ++i) {
        if (view->MayContain(keys[i]) != out[i]) __builtin_trap();
        again += out[i] ? 1U : 0U;
      }
      if (hits != again) __builtin_trap();
      volatile bool sink = view->MayContainHash(42);
      (void)sink;
    }
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    const bool raw = size >= 24 && (data[20] & 1U) == 0;
    // A count past 2^63 - 1 is refused by the view; loads refuse it too from the
    // one-decode-path loader on, so it is left out of the comparison.
    if (size >= 48 && (data[47] & 0x80U) != 0) {
      if (view.ok()) __builtin_trap();
      ::close(fd);
      return;
    }
    if (checksum_valid && raw && size >= 18 && data[16] == 1 && data[17] == 0) {
      CompareWithLoad<bloomkit::BloomFilter>(view, bytes);
    }
    if (checksum_valid && raw && size >= 18 && data[16] == 2 && data[17] == 0) {
      CompareWithLoad<bloomkit::BlockedBloomFilter>(view, bytes);
    }
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  OpenOne(data, size, false);
  if (size >= bloomkit::kChecksumBytes) {
    std::vector<std::uint8_t> fixed(data, data + size);
    const std::size_t body = size - bloomkit::kChecksumBytes;
    bloomkit::internal::StoreLE<std::uint64_t>(reinterpret_cast<std::byte*>(fixed.data() + body),
                                               bloomkit::internal::Checksum64(fixed.data(), body));
    OpenOne(fixed.data(), fixed.size(), true);
  }
  return 0;
}
