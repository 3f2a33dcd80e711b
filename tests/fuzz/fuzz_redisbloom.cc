// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: RedisBloom's encodings (redisbloom_codec.h) and the two RedisBloom
// kinds in bloomkit's file format, all parsers of outside bytes.
//
// Input: a mode byte, then
//   mode % 6 == 0 / 1  a DUMP payload of an MBbloom-- / MBbloomCF key (the rest)
//   mode % 6 == 2 / 3  BF / CF chunks: the header chunk (a field), then until the input
//                      ends an 8-byte iterator and a chunk (a field), as LOADCHUNK takes them
//   mode % 6 == 4 / 5  a bloomkit file of kind 6 / 7 (the rest)
// Properties: no crash or sanitizer report; every error has a message; nothing over the
// 4 MiB limit is allocated for a filter; an accepted filter answers queries, re-encodes
// to a payload and a file that decode to an equal filter, and takes further adds, after
// which (and after removes) it still re-encodes to what decodes: counts stay at most
// 2^63 - 1, the most a file holds (fuzz_filters.h).
#include <cstdint>
#include <span>
#include <string>

#include "bloomkit/format.h"
#include "bloomkit/redisbloom.h"
#include "bloomkit/redisbloom_codec.h"
#include "fuzz_filters.h"
#include "fuzz_input.h"

namespace {

constexpr bloomkit::LoadOptions kLimits{.max_memory_bytes = std::uint64_t{4} << 20};

std::span<const std::byte> AsBytes(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

template <typename T>
bool Failed(const bloomkit::Result<T>& r) {
  if (r.ok()) return false;
  BLOOMKIT_FUZZ_CHECK(!r.error().message().empty());
  return true;
}

void Exercise(bloomkit::RedisBloomScalableFilter& f) {
  (void)f.MayContain("probe");
  auto payload = bloomkit::DecodeRedisBloomDump(bloomkit::EncodeRedisBloomDump(f), kLimits);
  BLOOMKIT_FUZZ_CHECK(payload.ok() && payload.value() == f);
  auto file = bloomkit::RedisBloomScalableFilter::Deserialize(f.Serialize(), kLimits);
  BLOOMKIT_FUZZ_CHECK(file.ok() && file.value() == f);
  for (int i = 0; i < 8; ++i) {
    auto added = f.AddIfAbsent("fuzz:" + std::to_string(i));
    if (Failed(added)) break;
    BLOOMKIT_FUZZ_CHECK(f.MayContain("fuzz:" + std::to_string(i)));
  }
  bloomkit_fuzz::CheckReachableStatesLoad(f, f.count(), kLimits);
}

void Exercise(bloomkit::RedisCuckooFilter& f) {
  (void)f.MayContain("probe");
  (void)f.Occurrences("probe");
  auto payload = bloomkit::DecodeRedisCuckooDump(bloomkit::EncodeRedisCuckooDump(f), kLimits);
  BLOOMKIT_FUZZ_CHECK(payload.ok() && payload.value() == f);
  // The item count is RedisBloom's counter, not checked against the slots (a key whose
  // LOADCHUNK stopped after the header keeps it; a delete then stops it at 0).
  auto file = bloomkit::RedisCuckooFilter::Deserialize(f.Serialize(), kLimits);
  BLOOMKIT_FUZZ_CHECK(file.ok() && file.value() == f);
  for (int i = 0; i < 8; ++i) {
    const std::string key = "fuzz:" + std::to_string(i);
    bloomkit::Status s = f.Add(key);
    if (!s.ok()) {
      BLOOMKIT_FUZZ_CHECK(!s.error().message().empty());
      break;
    }
    BLOOMKIT_FUZZ_CHECK(f.MayContain(key));
    if (i % 2 == 1) BLOOMKIT_FUZZ_CHECK(f.Remove(key));
  }
  f.Compact(true);
  bloomkit_fuzz::CheckReachableStatesLoad(f, f.count(), kLimits);
}

template <typename Filter, typename FromHeader, typename LoadChunk>
void Chunks(bloomkit_fuzz::FuzzInput& in, FromHeader from_header, LoadChunk load_chunk) {
  auto f = from_header(AsBytes(in.Field()), kLimits);
  if (Failed(f)) return;
  for (int step = 0; step < 1024 && !in.empty(); ++step) {
    const auto iterator = static_cast<std::int64_t>(in.U64());
    bloomkit::Status s = load_chunk(f.value(), iterator, AsBytes(in.Field()));
    if (!s.ok()) BLOOMKIT_FUZZ_CHECK(!s.error().message().empty());
  }
  Exercise(f.value());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bloomkit_fuzz::FuzzInput in(data, size);
  switch (in.Byte() % 6) {
    case 0: {
      auto f = bloomkit::DecodeRedisBloomDump(AsBytes(in.Rest()), kLimits);
      if (!Failed(f)) Exercise(f.value());
      break;
    }
    case 1: {
      auto f = bloomkit::DecodeRedisCuckooDump(AsBytes(in.Rest()), kLimits);
      if (!Failed(f)) Exercise(f.value());
      break;
    }
    case 2:
      Chunks<bloomkit::RedisBloomScalableFilter>(
          in, [](auto b, auto o) { return bloomkit::RedisBloomFromHeaderChunk(b, o); },
          [](auto& f, std::int64_t i, auto b) { return bloomkit::LoadRedisBloomChunk(f, i, b); });
      break;
    case 3:
      Chunks<bloomkit::RedisCuckooFilter>(
          in, [](auto b, auto o) { return bloomkit::RedisCuckooFromHeaderChunk(b, o); },
          [](auto& f, std::int64_t i, auto b) { return bloomkit::LoadRedisCuckooChunk(f, i, b); });
      break;
    case 4: {
      auto f = bloomkit::RedisBloomScalableFilter::Deserialize(AsBytes(in.Rest()), kLimits);
      if (!Failed(f)) Exercise(f.value());
      break;
    }
    default: {
      auto f = bloomkit::RedisCuckooFilter::Deserialize(AsBytes(in.Rest()), kLimits);
      if (!Failed(f)) Exercise(f.value());
      break;
    }
  }
  return 0;
}
