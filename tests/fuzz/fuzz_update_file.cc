// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the locked read-modify-write of a filter file (UpdateFile) over any
// file content, for the kind the file's header names.
//
// Properties checked on every input:
//  - UpdateFile never crashes, never trips a sanitizer, never allocates above the 64 MiB
//    limit it is given;
//  - when it fails, the file keeps its exact bytes and the error explains itself;
//  - when it succeeds, the file loads and holds the key that was added;
//  - either way no temporary file is left beside it and the lock is released (a second
//    writer gets it at once).
// Each input runs twice: as is, and with its trailing checksum recomputed, so that the
// update reaches the load, the change and the save behind the checksum.
#include <unistd.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/bloomkit.h"
#include "bloomkit/foreign_bloom.h"
#include "fuzz_scratch.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"

namespace {

constexpr std::string_view kKey = "bloomkit-fuzz-key";

const std::filesystem::path& ScratchDir() {
  return bloomkit_fuzz::ScratchDir("bloomkit-fuzz-update-");
}

std::vector<char> ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <typename Filter>
bloomkit::Status AddKey(Filter& filter) {
  if constexpr (requires {
                  { filter.AddIfAbsent(kKey) } -> std::same_as<bool>;
                }) {
    (void)filter.AddIfAbsent(kKey);
    return {};
  } else {
    auto added = filter.AddIfAbsent(kKey);
    if (!added.ok()) return std::move(added).error();
    return {};
  }
}

template <typename Filter>
void UpdateAs(const std::filesystem::path& path, const bloomkit::UpdateOptions& options) {
  const std::vector<char> before = ReadAll(path);
  const bloomkit::Status updated = bloomkit::UpdateFile<Filter>(
      path, [](Filter& filter) { return AddKey(filter); }, options);
  if (!updated.ok()) {
    if (updated.error().message().empty()) __builtin_trap();  // every error explains itself
    if (ReadAll(path) != before) __builtin_trap();            // a failed update changes nothing
  } else {
    auto loaded = bloomkit::LoadFile<Filter>(path, options.load);
    if (!loaded.ok() || !loaded.value().MayContain(kKey)) __builtin_trap();
  }
  for (const auto& entry : std::filesystem::directory_iterator(path.parent_path())) {
    if (entry.path() != path) __builtin_trap();  // no temporary left behind
  }
  auto again = bloomkit::FileLock::Acquire(path, bloomkit::LockOptions{.wait_seconds = 0});
  if (!again.ok()) __builtin_trap();  // the lock was released
}

void UpdateOne(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path path = ScratchDir() / "f.bf";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  bloomkit::UpdateOptions options;
  options.load.max_memory_bytes = std::uint64_t{64} << 20;
  options.lock.wait_seconds = 0;
  auto header = bloomkit::ReadFileHeader(path);
  const bloomkit::FilterKind kind = header.ok() ? header->kind : bloomkit::FilterKind::kClassic;
  switch (kind) {
    case bloomkit::FilterKind::kClassic: UpdateAs<bloomkit::BloomFilter>(path, options); break;
    case bloomkit::FilterKind::kBlocked: UpdateAs<bloomkit::BlockedBloomFilter>(path, options); break;
    case bloomkit::FilterKind::kCounting: UpdateAs<bloomkit::CountingBloomFilter>(path, options); break;
    case bloomkit::FilterKind::kScalable: UpdateAs<bloomkit::ScalableBloomFilter>(path, options); break;
    case bloomkit::FilterKind::kCuckoo: UpdateAs<bloomkit::CuckooFilter>(path, options); break;
    case bloomkit::FilterKind::kRedisBloomScalable: UpdateAs<bloomkit::RedisBloomScalableFilter>(path, options); break;
    case bloomkit::FilterKind::kRedisBloomCuckoo: UpdateAs<bloomkit::RedisCuckooFilter>(path, options); break;
    case bloomkit::FilterKind::kWindowed: UpdateAs<bloomkit::WindowedBloomFilter>(path, options); break;
    case bloomkit::FilterKind::kBitsAndBlooms: UpdateAs<bloomkit::BitsAndBloomsFilter>(path, options); break;
    case bloomkit::FilterKind::kGuava: UpdateAs<bloomkit::GuavaBloomFilter>(path, options); break;
    case bloomkit::FilterKind::kParquet: UpdateAs<bloomkit::ParquetBloomFilter>(path, options); break;
  }
  std::filesystem::remove(path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  UpdateOne(data, size);
  if (size >= bloomkit::kChecksumBytes) {
    std::vector<std::uint8_t> fixed(data, data + size);
    const std::size_t body = size - bloomkit::kChecksumBytes;
    bloomkit::internal::StoreLE<std::uint64_t>(reinterpret_cast<std::byte*>(fixed.data() + body),
                                               bloomkit::internal::Checksum64(fixed.data(), body));
    UpdateOne(fixed.data(), fixed.size());
  }
  return 0;
}
