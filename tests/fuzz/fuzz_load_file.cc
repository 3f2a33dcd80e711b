// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: loads through a file descriptor (FilterReader::OpenFile, pread) and
// through a stream (ReadFrom, FilterReader::OpenStream), for every kind, from a real
// temporary file holding the input.
//
// Properties checked on every input, for each of the seven kinds:
//  - no crash, no sanitizer report, no allocation over the 64 MiB limit it is given;
//  - LoadFile agrees with Deserialize of the same bytes in memory: both load, to the same
//    serialization, or both fail with the same error code (except a file over the
//    memory limit, refused from its header before its checksum); every error explains
//    itself;
//  - ReadFrom of the file (which takes only the bytes its header announces) agrees with
//    Deserialize of those bytes: both load, to the same serialization, or both fail;
//  - a file that loads, truncated after its reader was opened (the payload ends early
//    while it is read: EOF mid-payload), fails to load with an error;
//  - a classic, blocked or scalable file that loads merges into its own loaded filter;
//  - a file that loads, after a few adds, removes and merges, saves what loads again
//    (CheckReachableStatesLoad, fuzz_filters.h), counts at their limit included.
// Each input runs twice: as is, and with its trailing checksum recomputed, so that the
// loads reach the payload behind the checksum.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.h"
#include "fuzz_filters.h"
#include "fuzz_scratch.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"

namespace {

constexpr std::uint64_t kLimit = std::uint64_t{64} << 20;

const std::filesystem::path& ScratchDir() {
  return bloomkit_fuzz::ScratchDir("bloomkit-fuzz-load-file-");
}

void Write(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

template <typename Filter>
void Agree(const bloomkit::Result<Filter>& a, const bloomkit::Result<Filter>& b, bool same_code) {
  if (a.ok() != b.ok()) __builtin_trap();
  if (a.ok()) {
    if (a->Serialize() != b->Serialize()) __builtin_trap();
    return;
  }
  if (a.error().message().empty() || b.error().message().empty()) __builtin_trap();
  // A file over the memory limit is refused from its header, before its checksum is
  // read (OpenForReading); bytes in memory are checked in the order of docs/FORMAT.md.
  const bool too_large = a.error().code() == bloomkit::ErrorCode::kTooLarge;
  if (same_code && !too_large && a.error().code() != b.error().code()) {
    std::fprintf(stderr, "different errors: %s / %s\n", a.error().message().c_str(), b.error().message().c_str());
    __builtin_trap();
  }
}

template <typename Filter>
void LoadAs(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  const bloomkit::LoadOptions options{.max_memory_bytes = kLimit};
  const auto in_memory = Filter::Deserialize(bytes, options);
  const auto from_file = bloomkit::LoadFile<Filter>(path, options);
  Agree(from_file, in_memory, /*same_code=*/true);

  // A stream takes the bytes its header announces off the front of the file.
  std::span<const std::byte> announced = bytes;
  if (auto header = bloomkit::PeekHeader(bytes); header.ok()) {
    const std::uint64_t total = bloomkit::kHeaderBytes + header->stored_payload_bytes + bloomkit::kChecksumBytes;
    if (total < bytes.size()) announced = bytes.first(static_cast<std::size_t>(total));
  }
  {
    std::ifstream in(path, std::ios::binary);
    Agree(bloomkit::ReadFrom<Filter>(in, options), Filter::Deserialize(announced, options), /*same_code=*/false);
  }
  if (!from_file.ok()) return;
  bloomkit_fuzz::CheckReachableStatesLoad(from_file.value(), bloomkit::internal::Checksum64(bytes.data(), bytes.size()),
                                          options);

  if constexpr (requires(Filter & f, bloomkit::FilterReader & r) { f.MergeFrom(r); }) {
    Filter merged = from_file.value();
    auto reader = bloomkit::FilterReader::OpenFile(path, std::nullopt, kLimit);
    if (!reader.ok() || !merged.MergeFrom(reader.value()).ok()) __builtin_trap();
  }

  // EOF mid-payload: the file shrinks to half its payload once its reader is open.
  auto reader = bloomkit::FilterReader::OpenFile(path, Filter::kKind, kLimit);
  if (!reader.ok()) __builtin_trap();
  const std::uint64_t stored = reader->header().stored_payload_bytes;
  if (stored < 2) return;
  std::filesystem::resize_file(path, bloomkit::kHeaderBytes + stored / 2);
  auto cut = reader->template Load<Filter>(options);
  if (cut.ok() || cut.error().message().empty()) __builtin_trap();
  Write(path, bytes);
}

void LoadOne(std::span<const std::byte> bytes) {
  const std::filesystem::path path = ScratchDir() / "f.bf";
  Write(path, bytes);
  LoadAs<bloomkit::BloomFilter>(path, bytes);
  LoadAs<bloomkit::BlockedBloomFilter>(path, bytes);
  LoadAs<bloomkit::CountingBloomFilter>(path, bytes);
  LoadAs<bloomkit::ScalableBloomFilter>(path, bytes);
  LoadAs<bloomkit::CuckooFilter>(path, bytes);
  LoadAs<bloomkit::RedisBloomScalableFilter>(path, bytes);
  LoadAs<bloomkit::RedisCuckooFilter>(path, bytes);
  LoadAs<bloomkit::WindowedBloomFilter>(path, bytes);
  std::filesystem::remove(path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  LoadOne(std::span(bytes, size));
  if (size >= bloomkit::kChecksumBytes) {
    std::vector<std::byte> fixed(bytes, bytes + size);
    const std::size_t body = size - bloomkit::kChecksumBytes;
    bloomkit::internal::StoreLE<std::uint64_t>(fixed.data() + body, bloomkit::internal::Checksum64(fixed.data(), body));
    LoadOne(fixed);
  }
  return 0;
}
