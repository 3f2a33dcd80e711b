// SPDX-License-Identifier: Apache-2.0
// Writes the seed corpora of the fuzz targets: valid inputs of every parser.
//   filters (classic, blocked, counting, scalable, cuckoo): small valid files of each
//     kind, raw and compressed, empty and filled;
//   loadchunk, rdb: the module's dumps of small BF, CF and CBF filters, in chunks and as
//     rdb values (ready, and loading half way; encoding versions 1 and 2);
//   redis_args, cli_numbers, cli_keys: valid command arguments, numbers and key files;
//   redisbloom: RedisBloom 2.8.20's DUMP payloads and SCANDUMP chunks of its small keys
//     (tests/golden/redisbloom), and the same filters as bloomkit files;
//   foreign: bits-and-blooms and Guava files (a selector byte, then the file) of small
//     filters, empty and filled, each Guava strategy, a bitset longer than m;
//   count_limit seeds of every kind: a file (or RedisBloom header chunk) whose counts are
//     2^63 - 1, the most a filter keeps, which an add once took past what loads.
// Run from the repository root (the output is deterministic, so a re-run changes no
// file unless a format changed):
//   build/<preset>/tests/fuzz/fuzz_make_corpus tests/fuzz/corpus
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/foreign_bloom.h"
#include "bloomkit/redisbloom_codec.h"
#include "dump.h"
#include "fuzz_filters.h"
#include "fuzz_input.h"
#include "internal/endian.h"
#include "internal/hash_inline.h"

namespace {

namespace fs = std::filesystem;
using bloomkit_fuzz::FuzzInputWriter;

int WriteBytes(const fs::path& path, std::string_view bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "%s: write failed\n", path.c_str());
    return 1;
  }
  return 0;
}

template <typename Filter>
int Write(const fs::path& dir, const std::string& name, const Filter& filter) {
  fs::create_directories(dir);
  int failures = 0;
  for (const bool compress : {false, true}) {
    const auto path = dir / (name + (compress ? ".zst.bf" : ".bf"));
    const auto status = bloomkit::SaveFile(filter, path, {.compress = compress});
    if (!status.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), status.error().message().c_str());
      ++failures;
    }
  }
  return failures;
}

// `bytes`, a file of `kind`, with every count it holds at kMaxFileCount (a scalable
// filter's first stage too, a RedisBloom kind's header chunk too) and its checksums
// resealed.
std::vector<std::byte> AtCountLimit(bloomkit::FilterKind kind, std::vector<std::byte> bytes) {
  using bloomkit::internal::Checksum64;
  using bloomkit::internal::LoadLE;
  using bloomkit::internal::StoreLE;
  constexpr std::uint64_t kMax = bloomkit::kMaxFileCount;
  constexpr std::size_t kHead = bloomkit::kHeaderBytes;
  constexpr std::size_t kCount = 40;
  constexpr std::size_t kDeletes = 72 + std::size_t{8} * 5;  // params[5] of both cuckoo kinds
  std::byte* b = bytes.data();
  switch (kind) {
    case bloomkit::FilterKind::kCuckoo: StoreLE<std::uint64_t>(b + kDeletes, kMax); break;  // count = fingerprints
    case bloomkit::FilterKind::kScalable: {
      StoreLE<std::uint64_t>(b + kCount, kMax);
      StoreLE<std::uint64_t>(b + kHead + kCount, kMax);
      const std::size_t stage_body = kHead + static_cast<std::size_t>(LoadLE<std::uint64_t>(b + kHead + 48));
      StoreLE<std::uint64_t>(b + kHead + stage_body, Checksum64(b + kHead, stage_body));
      break;
    }
    case bloomkit::FilterKind::kRedisBloomScalable:
      StoreLE<std::uint64_t>(b + kCount, kMax);
      StoreLE<std::uint64_t>(b + kHead, kMax);                                    // the chain's size
      for (std::uint32_t i = 0; i < LoadLE<std::uint32_t>(b + kHead + 8); ++i) {  // link 0 holds them all
        StoreLE<std::uint64_t>(b + kHead + 20 + 53 * std::size_t{i} + 16, i == 0 ? kMax : 0);
      }
      break;
    case bloomkit::FilterKind::kRedisBloomCuckoo:
      for (const std::size_t at : {kCount, kDeletes, kHead, kHead + 16}) StoreLE<std::uint64_t>(b + at, kMax);
      break;
    default: StoreLE<std::uint64_t>(b + kCount, kMax); break;
  }
  const std::size_t body = bytes.size() - bloomkit::kChecksumBytes;
  StoreLE<std::uint64_t>(b + body, Checksum64(b, body));
  return bytes;
}

std::string AsString(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

template <typename Filter>
int WriteCountLimitSeed(const fs::path& dir, const Filter& filter) {
  return WriteBytes(dir / "count_limit.bf", AsString(AtCountLimit(Filter::kKind, filter.Serialize())));
}

// The classic seeds are of hash id 1 and count new keys only (AddIfAbsent): the files
// they were first written as, when that was a classic filter's default and its add's count.
template <typename Filter>
int WriteBloomKind(const fs::path& dir) {
  const std::uint16_t hash_id =
      Filter::kKind == bloomkit::FilterKind::kClassic ? bloomkit::kHashIdXxh3DoubleHashing : 0;
  int failures = 0;
  for (const std::uint64_t keys : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{40}}) {
    auto filter = Filter::Create({.num_bits = 1000, .num_hashes = 3, .hash_id = hash_id});
    if (!filter.ok()) return 1;
    for (std::uint64_t i = 0; i < keys; ++i) {
      if (!filter->AddIfAbsent("key:" + std::to_string(i)).ok()) return 1;
    }
    failures += Write(dir, "m1000_k3_n" + std::to_string(keys), filter.value());
  }
  auto sized = Filter::Create({.capacity = 50, .fp_rate = 0.01, .hash_id = hash_id});
  if (!sized.ok()) return 1;
  for (int i = 0; i < 50; ++i) {
    if (!sized->AddIfAbsent("item" + std::to_string(i)).ok()) return 1;
  }
  return failures + Write(dir, "n50_p1pct_full", sized.value()) + WriteCountLimitSeed(dir, sized.value());
}

// Copies the seeds of `kinds` into the corpus of `target`, each prefixed with its kind.
int CopySeeds(const fs::path& root, const std::string& target, std::initializer_list<const char*> kinds) {
  int failures = 0;
  const fs::path dir = root / target;
  fs::create_directories(dir);
  for (const char* kind : kinds) {
    for (const auto& entry : fs::directory_iterator(root / kind)) {
      std::error_code ec;
      fs::copy_file(entry.path(), dir / (std::string(kind) + "_" + entry.path().filename().string()),
                    fs::copy_options::overwrite_existing, ec);
      failures += ec ? 1 : 0;
    }
  }
  return failures;
}

// The mapped view's seeds: the classic and blocked seeds, and blocked filters of
// 256-bit blocks with either hash (ids 3 and 4).
int WriteMappedSeeds(const fs::path& root) {
  int failures = CopySeeds(root, "mapped", {"classic", "blocked"});
  const fs::path dir = root / "mapped";
  for (const std::uint16_t hash_id : {bloomkit::kHashIdXxh3x64, bloomkit::kHashIdShort64}) {
    auto lanes = bloomkit::BlockedBloomFilter::Create(
        {.capacity = 50, .fp_rate = 0.01, .blocked_layout = bloomkit::BlockedLayout::kLanes256, .hash_id = hash_id});
    if (!lanes.ok()) return failures + 1;
    for (int i = 0; i < 50; ++i) static_cast<void>(lanes->AddIfAbsent("item" + std::to_string(i)));
    failures +=
        Write(dir, hash_id == bloomkit::kHashIdXxh3x64 ? "lanes256_n50_p1pct_full" : "lanes256_short_n50_p1pct_full",
              lanes.value());
  }
  return failures;
}

// Small filters of the three kinds the module stores, some filled past one stage or
// sub-filter so that multi-part payloads are seeded too.
std::vector<std::pair<std::string, bloomkit::CountingBloomFilter>> CountingSamples() {
  std::vector<std::pair<std::string, bloomkit::CountingBloomFilter>> out;
  for (const std::uint32_t bits : {4U, 8U}) {
    auto f = bloomkit::CountingBloomFilter::Create({.bloom = {.num_bits = 200, .num_hashes = 3}, .counter_bits = bits});
    if (!f.ok()) continue;
    for (int i = 0; i < 30; ++i) static_cast<void>(f->Add("key:" + std::to_string(i % 20)));  // cannot fail
    out.emplace_back("m200_k3_c" + std::to_string(bits), std::move(f).value());
  }
  return out;
}

std::vector<std::pair<std::string, bloomkit::ScalableBloomFilter>> ScalableSamples() {
  std::vector<std::pair<std::string, bloomkit::ScalableBloomFilter>> out;
  for (const int keys : {0, 10, 60}) {
    auto f = bloomkit::ScalableBloomFilter::Create({.initial_capacity = 16, .fp_rate = 0.01});
    if (!f.ok()) continue;
    for (int i = 0; i < keys; ++i) static_cast<void>(f->AddIfAbsent("key:" + std::to_string(i)));
    out.emplace_back("n16_p1pct_keys" + std::to_string(keys), std::move(f).value());
  }
  return out;
}

// Windowed filters: empty, one generation, and several generations with two stages in
// one of them.
std::vector<std::pair<std::string, bloomkit::WindowedBloomFilter>> WindowedSamples() {
  std::vector<std::pair<std::string, bloomkit::WindowedBloomFilter>> out;
  for (const int keys : {0, 3, 40}) {
    auto f = bloomkit::WindowedBloomFilter::Create({.capacity = 16, .fp_rate = 0.01, .window = 8, .generations = 4});
    if (!f.ok()) continue;
    for (int i = 0; i < keys; ++i) {
      static_cast<void>(f->AddAt("key:" + std::to_string(i), static_cast<std::uint64_t>(i / 5)));
    }
    out.emplace_back("n16_w8_g4_keys" + std::to_string(keys), std::move(f).value());
  }
  return out;
}

std::vector<std::pair<std::string, bloomkit::CuckooFilter>> CuckooSamples() {
  std::vector<std::pair<std::string, bloomkit::CuckooFilter>> out;
  for (const std::uint32_t bucket : {2U, 4U}) {
    for (const int keys : {0, 40}) {
      auto f = bloomkit::CuckooFilter::Create({.capacity = 16, .fp_rate = 0.01, .bucket_size = bucket});
      if (!f.ok()) continue;
      for (int i = 0; i < keys; ++i) static_cast<void>(f->Add("key:" + std::to_string(i)));
      out.emplace_back("n16_b" + std::to_string(bucket) + "_keys" + std::to_string(keys), std::move(f).value());
    }
  }
  return out;
}

template <typename Filter>
int WriteSamples(const fs::path& dir, const std::vector<std::pair<std::string, Filter>>& samples) {
  int failures = samples.empty() ? 1 : 0;
  for (const auto& [name, filter] : samples) failures += Write(dir, name, filter);
  return failures;
}

// LOADCHUNK seeds: every chunk with mode 0 (the expected iterator), as SCANDUMP cuts it.
// RDB seeds: the ready value, and a loading value holding the first half of the dump.
template <typename Filter>
int WriteModuleSeeds(const fs::path& root, std::uint8_t family, const std::string& prefix,
                     const std::vector<std::pair<std::string, Filter>>& samples) {
  int failures = 0;
  for (const auto& [name, filter] : samples) {
    for (const bool compress : {false, true}) {
      const std::vector<std::byte> bytes = filter.Serialize({.compress = compress});
      const std::string stem = prefix + "_" + name + (compress ? "_zst" : "");
      for (const std::uint64_t chunk_bytes : {std::uint64_t{64}, std::uint64_t{1000}}) {
        FuzzInputWriter w;
        w.Byte(family);
        std::int64_t iterator = 0;
        for (;;) {
          auto chunk = bloomkit::redis::NextDumpChunk(iterator, bytes.size(), chunk_bytes);
          if (!chunk.ok()) return failures + 1;
          if (!chunk.value().has_value()) break;
          w.Byte(0).Field(std::span<const std::byte>(bytes).subspan(chunk.value()->offset, chunk.value()->length));
          iterator = chunk.value()->iterator;
        }
        failures += WriteBytes(root / "loadchunk" / (stem + "_c" + std::to_string(chunk_bytes)), w.bytes());
      }
      FuzzInputWriter ready;
      ready.Byte(family).Byte(0).Raw(bytes);
      failures += WriteBytes(root / "rdb" / (stem + "_ready"), ready.bytes());
      const std::size_t half = std::max<std::size_t>(bloomkit::kHeaderBytes, bytes.size() / 2);
      if (half < bytes.size()) {
        FuzzInputWriter loading;
        loading.Byte(family).Byte(1).U64(bytes.size()).Raw(std::span<const std::byte>(bytes).first(half));
        failures += WriteBytes(root / "rdb" / (stem + "_loading"), loading.bytes());
      }
      if (!compress) {  // encoding version 2: the header string, then pieces (fuzz_rdb.cc)
        const auto strings = [&](FuzzInputWriter& w, std::size_t end) {
          for (std::size_t at = 0; at < end;) {
            const std::size_t n = at == 0 ? bloomkit::kHeaderBytes : std::min<std::size_t>(1000, end - at);
            w.Byte(static_cast<std::uint8_t>(n & 0xFFU)).Byte(static_cast<std::uint8_t>(n >> 8));
            w.Raw(std::span<const std::byte>(bytes).subspan(at, n));
            at += n;
          }
        };
        FuzzInputWriter streamed;
        streamed.Byte(family).Byte(0x80);
        strings(streamed, bytes.size());
        failures += WriteBytes(root / "rdb" / (stem + "_v2_ready"), streamed.bytes());
        if (half < bytes.size()) {
          FuzzInputWriter partial;
          partial.Byte(family).Byte(0x81).U64(half);
          strings(partial, half);
          failures += WriteBytes(root / "rdb" / (stem + "_v2_loading"), partial.bytes());
        }
      }
    }
  }
  return failures;
}

int WriteRedisArgs(const fs::path& dir) {
  // selector (fuzz_redis_args.cc) -> the arguments after the key, '\n'-separated.
  const std::vector<std::pair<int, std::string>> seeds = {
      {0, "ERROR_RATE\n0.001\nINITIAL_SIZE\n1000\nEXPANSION\n4\nMAX_FILTER_BYTES\n64mb"},
      {0, "CF_BUCKETSIZE\n4\nCF_MAX_ITERATIONS\n50\nCF_EXPANSION\n2\nCF_MAX_EXPANSIONS\n8"},
      {0, "CF_FINGERPRINT_BITS\n16\nCBF_COUNTER_BITS\n8\nSCANDUMP_CHUNK_BYTES\n1k\nCAPACITY\n7"},
      {1, "0.01\n1000"},
      {1, "0.001\n1000000\nEXPANSION\n4"},
      {1, "0.5\n10\nNONSCALING"},
      {2, "CAPACITY\n1000\nERROR\n0.01\nEXPANSION\n2\nITEMS\na\nb"},
      {2, "NOCREATE\nNONSCALING\nITEMS\nx"},
      {3, "1024"},
      {3, "1000\nBUCKETSIZE\n4\nMAXITERATIONS\n20\nEXPANSION\n1"},
      {4, "CAPACITY\n1000\nNOCREATE\nITEMS\na\nb\nc"},
      {5, "0.01\n1000"},
      {5, "0.001\n500\nCOUNTERBITS\n8"},
      {6, "CAPACITY"},
      {6, "expansion"},
      {7, "0\n1\n-1\n9223372036854775807\n-9223372036854775808\n129\n1e-3\n0.5\n64mb\n3k\n2G"},
  };
  int failures = 0;
  int index = 0;
  for (const auto& [selector, args] : seeds) {
    FuzzInputWriter w;
    w.Byte(static_cast<std::uint8_t>(selector)).Raw(args);
    failures += WriteBytes(dir / ("args" + std::to_string(index++)), w.bytes());
  }
  return failures;
}

int WriteCliNumbers(const fs::path& dir) {
  const std::vector<std::string> seeds = {
      "10000000", "10_000_000", "1e7",  "10M",  "2.5e6", "1.5K", "1Mi",
      "4GiB",     "500MB",      "0.01", "1e-2", "1%",    "0",    "18446744073709551615"};
  int failures = 0;
  int index = 0;
  for (const std::string& text : seeds) failures += WriteBytes(dir / ("number" + std::to_string(index++)), text);
  return failures;
}

// `text` as one gzip member (zlib's deflate with a gzip wrapper).
std::string Gzip(const std::string& text) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return "";
  std::string out(deflateBound(&z, text.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END ? out : "";
}

std::string Zstd(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
  if (ZSTD_isError(n) != 0) return "";
  out.resize(n);
  return out;
}

int WriteCliKeys(const fs::path& dir) {
  // flags, piece size - 1, inputs separated by 0xff 0xfe (fuzz_cli_keys.cc).
  std::string lines;
  for (int i = 0; i < 300; ++i) lines += "key:" + std::to_string(i) + "\n";
  const std::string gzip_members = Gzip(lines.substr(0, 1000)) + Gzip(lines.substr(1000));
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"lines", std::string("\x00\x03", 2) + "alpha\nbeta\ngamma\n"},
      {"crlf_no_final_newline", std::string("\x00\x00", 2) + "a\r\nb\r\n\r\nc"},
      {"keep_cr", std::string("\x02\x07", 2) + "a\r\nb\r\n"},
      {"null", std::string("\x01\x01", 2) + std::string("one\0two\0\0three", 15)},
      {"two_inputs", std::string("\x04\x10", 2) + "x\ny\xff\xfez\n"},
      {"four_inputs", std::string("\x0c\xff", 2) + "1\xff\xfe"
                                                   "2\n\xff\xfe\xff\xfe"
                                                   "4"},
      // Compressed and binary input (key_reader.h): decoded, or refused as binary.
      {"gzip_two_members", std::string("\x00\x06", 2) + gzip_members},
      {"gzip_truncated", std::string("\x00\x02", 2) + Gzip(lines).substr(0, 200)},
      {"zstd_lines", std::string("\x00\x0c", 2) + Zstd(lines)},
      {"binary_nul_line_mode", std::string("\x00\x03", 2) + std::string("a\nb\0c\nd\n", 8)},
      {"nul_mode_then_gzip_magic", std::string("\x05\x04", 2) + std::string("a\0b\0\xff\xfe\x1f\x8bjunk", 12)},
      // Keys at and over a 4-byte limit (flags bits 4-7 = 2): accepted up to exactly 4
      // bytes (after a dropped '\r', and as a last unterminated record), refused past it.
      {"key_at_limit", std::string("\x20\x01", 2) + "abcd\nwxyz\r\nefgh"},
      {"key_over_limit", std::string("\x21\x02", 2) + std::string("abcd\0abcde", 10)},
  };
  int failures = 0;
  for (const auto& [name, bytes] : seeds) failures += WriteBytes(dir / name, bytes);
  return failures;
}

std::string ReadFixture(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", path.c_str());
    return {};
  }
  const std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return {chars.begin(), chars.end()};
}

std::span<const std::byte> AsSpan(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// Modes of fuzz_redisbloom.cc: 0/1 DUMP payload, 2/3 chunks, 4/5 bloomkit file (BF/CF).
// Also writes the bloomkit files of two of them into `update_dir` (fuzz_update_file).
int WriteRedisBloomSeeds(const fs::path& dir, const fs::path& update_dir) {
  const fs::path fixtures = BLOOMKIT_REDISBLOOM_DIR;
  int failures = 0;
  for (const std::string key : {"bf_single", "bf_default", "bf_binary_items", "bf_expansion1", "cf_default",
                                "cf_bucket1", "cf_bucket2", "cf_bucket3_odd", "cf_bucket4_expand", "cf_bucket8"}) {
    const bool cuckoo = key.starts_with("cf_");
    const std::string dump = ReadFixture(fixtures / key / "dump.bin");
    if (dump.empty()) return 1;
    failures += WriteBytes(dir / (key + "_dump"), FuzzInputWriter().Byte(cuckoo ? 1 : 0).Raw(dump).bytes());
    // The chunks, with the iterators SCANDUMP gave them (re-derived from the payload).
    FuzzInputWriter chunks;
    chunks.Byte(cuckoo ? 3 : 2);
    std::string file;
    if (cuckoo) {
      auto f = bloomkit::DecodeRedisCuckooDump(AsSpan(dump));
      if (!f.ok()) return 1;
      const auto all = bloomkit::RedisCuckooScanDump(f.value());
      chunks.Field(all.front().bytes);
      for (std::size_t i = 1; i < all.size(); ++i)
        chunks.U64(static_cast<std::uint64_t>(all[i].iterator)).Field(all[i].bytes);
      const auto bytes = f->Serialize();
      file.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    } else {
      auto f = bloomkit::DecodeRedisBloomDump(AsSpan(dump));
      if (!f.ok()) return 1;
      const auto all = bloomkit::RedisBloomScanDump(f.value());
      chunks.Field(all.front().bytes);
      for (std::size_t i = 1; i < all.size(); ++i)
        chunks.U64(static_cast<std::uint64_t>(all[i].iterator)).Field(all[i].bytes);
      const auto bytes = f->Serialize();
      file.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    failures += WriteBytes(dir / (key + "_chunks"), chunks.bytes());
    failures += WriteBytes(dir / (key + "_file"), FuzzInputWriter().Byte(cuckoo ? 5 : 4).Raw(file).bytes());
    if (key.ends_with("_default")) {
      failures += WriteBytes(update_dir / ("redisbloom_" + key + ".bf"), file);
      // Counts at their limit: the file, and the header chunk alone (BF.LOADCHUNK's
      // 73-byte header whose chain size and link size are 2^63 - 1, CF's 38 bytes).
      const auto limit =
          AtCountLimit(cuckoo ? bloomkit::FilterKind::kRedisBloomCuckoo : bloomkit::FilterKind::kRedisBloomScalable,
                       std::vector<std::byte>(reinterpret_cast<const std::byte*>(file.data()),
                                              reinterpret_cast<const std::byte*>(file.data()) + file.size()));
      const std::string stem = cuckoo ? "cf_count_limit" : "bf_count_limit";
      failures += WriteBytes(update_dir / ("redisbloom_" + stem + ".bf"), AsString(limit));
      failures +=
          WriteBytes(dir / (stem + "_file"), FuzzInputWriter().Byte(cuckoo ? 5 : 4).Raw(AsString(limit)).bytes());
      const std::size_t head = cuckoo ? 38 : 20 + 53 * static_cast<std::size_t>(limit[bloomkit::kHeaderBytes + 8]);
      failures += WriteBytes(
          dir / (stem + "_chunks"),
          FuzzInputWriter().Byte(cuckoo ? 3 : 2).Field(std::span(limit).subspan(bloomkit::kHeaderBytes, head)).bytes());
    }
  }
  // The header chunk of a scaling chain whose first link has RedisBloom 2.0's unhalved
  // rate, 0.7962 (BF.RESERVE k 0.7962 100 there): it loads and saves as a file.
  auto unhalved = bloomkit::RedisBloomScalableFilter::Create({.capacity = 100, .fp_rate = 0.7962, .non_scaling = true});
  if (!unhalved.ok()) return 1;
  std::vector<std::byte> head = bloomkit::EncodeRedisBloomHeaderChunk(unhalved.value());
  head[12] &= ~std::byte{bloomkit::kRedisBloomNoScaling};
  failures += WriteBytes(dir / "bf_unhalved_rate_chunks", FuzzInputWriter().Byte(2).Field(head).bytes());
  return failures;
}

}  // namespace

// fuzz_foreign: byte 0 selects the layout (0 bits-and-blooms, 1 Guava, 2 Parquet), then the file.
int WriteForeignSeeds(const fs::path& dir) {
  int failures = 0;
  const auto seed = [&](const std::string& name, std::uint8_t selector, const std::vector<std::byte>& file) {
    std::string bytes(1, static_cast<char>(selector));
    bytes.append(reinterpret_cast<const char*>(file.data()), file.size());
    failures += WriteBytes(dir / name, bytes);
  };
  for (const std::uint64_t keys : {std::uint64_t{0}, std::uint64_t{40}}) {
    auto bab = bloomkit::BitsAndBloomsFilter::Create({.capacity = 50, .fp_rate = 0.01});
    auto guava = bloomkit::GuavaBloomFilter::Create({.capacity = 50, .fp_rate = 0.01});
    auto guava32 = bloomkit::GuavaBloomFilter::Create(
        {.capacity = 50, .fp_rate = 0.01, .guava_strategy = bloomkit::GuavaStrategy::kMurmur128Mitz32});
    for (std::uint64_t i = 0; i < keys; ++i) {
      const std::string key = "key" + std::to_string(i);
      (void)bab->Add(key);
      (void)guava->Add(key);
      (void)guava32->Add(key);
    }
    const std::string n = "_n" + std::to_string(keys);
    seed("bab" + n, 0, bab->WriteForeign());
    seed("guava" + n, 1, guava->WriteForeign());
    seed("guava32" + n, 1, guava32->WriteForeign());
    auto parquet = bloomkit::ParquetBloomFilter::Create({.capacity = 50, .fp_rate = 0.01});
    for (std::uint64_t i = 0; i < keys; ++i) (void)parquet->Add("key" + std::to_string(i));
    seed("parquet" + n, 2, parquet->WriteForeign());
  }
  // bits-and-blooms' FromWithM: a bitset of 128 bits for m = 70.
  std::vector<std::byte> longer(24 + 16, std::byte{0});
  longer[7] = std::byte{70};
  longer[15] = std::byte{3};
  longer[23] = std::byte{128};
  longer[24 + 7] = std::byte{0x81};
  seed("bab_bitset_longer_than_m", 0, longer);
  return failures;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  const fs::path root(argv[1]);
  int failures = 0;
  failures += WriteBloomKind<bloomkit::BloomFilter>(root / "classic");
  failures += WriteBloomKind<bloomkit::BlockedBloomFilter>(root / "blocked");
  failures += WriteMappedSeeds(root);
  const auto counting = CountingSamples();
  const auto scalable = ScalableSamples();
  const auto cuckoo = CuckooSamples();
  failures += WriteSamples(root / "counting", counting);
  failures += WriteSamples(root / "scalable", scalable);
  failures += WriteSamples(root / "cuckoo", cuckoo);
  failures += WriteSamples(root / "windowed", WindowedSamples());
  failures += WriteCountLimitSeed(root / "counting", counting.back().second);
  failures += WriteCountLimitSeed(root / "scalable", scalable.front().second);  // one stage
  failures += WriteCountLimitSeed(root / "cuckoo", cuckoo.back().second);
  // Family bytes as in redis_dump_model.h: 0 BF (scalable), 1 CF (cuckoo), 2 CBF (counting).
  failures += WriteModuleSeeds(root, 0, "bf", scalable);
  failures += WriteModuleSeeds(root, 1, "cf", cuckoo);
  failures += WriteModuleSeeds(root, 2, "cbf", counting);
  failures += WriteRedisArgs(root / "redis_args");
  failures += WriteCliNumbers(root / "cli_numbers");
  failures += WriteCliKeys(root / "cli_keys");
  // fuzz_update_file: a file of every kind, RedisBloom's two included.
  failures += CopySeeds(root, "update_file", {"classic", "blocked", "counting", "scalable", "cuckoo", "windowed"});
  failures += WriteRedisBloomSeeds(root / "redisbloom", root / "update_file");
  // fuzz_load_file: the same files (every kind, raw and compressed).
  failures += CopySeeds(root, "load_file", {"update_file"});
  failures += WriteForeignSeeds(root / "foreign");
  return failures == 0 ? 0 : 1;
}
