// SPDX-License-Identifier: Apache-2.0
// RedisBloom's RDB values, DUMP payloads and SCANDUMP chunks (redisbloom_codec.h), and
// the two RedisBloom kinds in bloomkit's file format. Byte tables: docs/FORMAT.md.
#include "bloomkit/redisbloom_codec.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "bloomkit/format.h"
#include "internal/codec.h"
#include "internal/endian.h"
#include "internal/message.h"
#include "internal/redisbloom_builder.h"

namespace bloomkit {
namespace {

using internal::LoadLE;
using internal::MakeError;
using internal::StoreLE;

// SCANDUMP header chunks (RedisBloom's packed structs, little-endian).
constexpr std::size_t kChainHeaderBytes = internal::kRedisBloomChainHeaderBytes;
constexpr std::size_t kLinkHeaderBytes = internal::kRedisBloomLinkHeaderBytes;
constexpr std::size_t kCuckooHeaderBytes = internal::kRedisCuckooHeaderBytes;

std::uint64_t F64Bits(double d) noexcept {
  return std::bit_cast<std::uint64_t>(d);
}
double BitsF64(std::uint64_t u) noexcept {
  return std::bit_cast<double>(u);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// RDB values.

namespace {

Result<std::uint32_t> Narrow32(Result<std::uint64_t> v, std::string_view what) {
  if (!v.ok()) return std::move(v).error();
  if (v.value() > std::numeric_limits<std::uint32_t>::max()) {
    return MakeError(ErrorCode::kParameterMismatch, what, " ", v.value(), " is over 2^32 - 1");
  }
  return static_cast<std::uint32_t>(v.value());
}

}  // namespace

Result<RedisBloomScalableFilter> LoadRedisBloomRdb(RdbReader& in, int encoding_version, const LoadOptions& options) {
  if (encoding_version < 0 || encoding_version > kRedisBloomEncodingVersion) {
    return MakeError(ErrorCode::kUnsupportedVersion, "MBbloom-- encoding version ", encoding_version, " (reads 0 to ",
                     kRedisBloomEncodingVersion, ")");
  }
  auto size = in.LoadUnsigned();
  if (!size.ok()) return std::move(size).error();
  auto nfilters = in.LoadUnsigned();
  if (!nfilters.ok()) return std::move(nfilters).error();
  if (nfilters.value() == 0 || nfilters.value() > kRedisBloomMaxLinks) {
    return MakeError(ErrorCode::kParameterMismatch, "number of links ", nfilters.value(), " is not in [1, ",
                     kRedisBloomMaxLinks, "]");
  }
  std::uint32_t chain_options = 0;
  std::uint32_t expansion = 2;
  if (encoding_version >= 2) {
    auto o = Narrow32(in.LoadUnsigned(), "options");
    if (!o.ok()) return std::move(o).error();
    chain_options = o.value();
  }
  if (encoding_version >= 4) {
    auto g = Narrow32(in.LoadUnsigned(), "expansion");
    if (!g.ok()) return std::move(g).error();
    expansion = g.value();
  }
  internal::RedisBloomBuilder builder(options.max_memory_bytes);
  std::uint64_t announced = 0;  // bytes the links read so far announce
  for (std::uint64_t i = 0; i < nfilters.value(); ++i) {
    RedisBloomLinkParams p;
    auto entries = in.LoadUnsigned();
    if (!entries.ok()) return std::move(entries).error();
    p.entries = entries.value();
    auto error = in.LoadDouble();
    if (!error.ok()) return std::move(error).error();
    p.error = error.value();
    auto hashes = Narrow32(in.LoadUnsigned(), "hash count");
    if (!hashes.ok()) return std::move(hashes).error();
    p.hashes = hashes.value();
    auto bpe = in.LoadDouble();
    if (!bpe.ok()) return std::move(bpe).error();
    p.bpe = bpe.value();
    if (encoding_version == 0) {
      // Version 0 saved no bit count: RedisBloom 1.0 derived it from entries * bpe.
      const double bits = static_cast<double>(p.entries) * p.bpe;
      if (!(bits >= 0) || !(bits < 18446744073709549568.0)) {
        return MakeError(ErrorCode::kParameterMismatch, "link ", i, ": ", p.entries, " entries at ", p.bpe,
                         " bits each do not fit 64 bits");
      }
      p.bits = static_cast<std::uint64_t>(bits);
    } else {
      auto bits = in.LoadUnsigned();
      if (!bits.ok()) return std::move(bits).error();
      p.bits = bits.value();
      auto n2 = in.LoadUnsigned();
      if (!n2.ok()) return std::move(n2).error();
      if (n2.value() > 63)
        return MakeError(ErrorCode::kParameterMismatch, "link ", i, ": n2 ", n2.value(), " is over 63");
      p.n2 = static_cast<std::uint8_t>(n2.value());
    }
    // The bit count comes before the bit array: a link past the limit is refused before
    // the string is read (Redis allocates the string's claimed length to read it).
    if (!internal::CheckedAdd(announced, p.bits / 8, &announced) || announced > options.max_memory_bytes) {
      return MakeError(ErrorCode::kTooLarge, "link ", i, " of ", p.bits, " bits takes the filter past the limit of ",
                       options.max_memory_bytes, " bytes");
    }
    auto data = in.LoadStringBuffer();
    if (!data.ok()) return std::move(data).error();
    p.bytes = data->size();
    // RedisBloom checks the string holds ceil(bits / 8) bytes; the link check then
    // wants bits == 8 * bytes exactly.
    auto sz = in.LoadUnsigned();
    if (!sz.ok()) return std::move(sz).error();
    p.size = sz.value();
    Status added = builder.AppendLink(p, data.value());
    if (!added.ok()) return added.error();
  }
  return std::move(builder).Finish(size.value(), chain_options, expansion);
}

void SaveRedisBloomRdb(RdbWriter& out, const RedisBloomScalableFilter& filter) {
  out.SaveUnsigned(filter.count());
  out.SaveUnsigned(filter.num_stages());
  out.SaveUnsigned(filter.option_bits());
  out.SaveUnsigned(filter.expansion());
  for (std::size_t i = 0; i < filter.num_stages(); ++i) {
    const RedisBloomLinkParams& p = filter.link(i);
    out.SaveUnsigned(p.entries);
    out.SaveDouble(p.error);
    out.SaveUnsigned(p.hashes);
    out.SaveDouble(p.bpe);
    out.SaveUnsigned(p.bits);
    out.SaveUnsigned(p.n2);
    out.SaveStringBuffer(filter.link_data(i));
    out.SaveUnsigned(p.size);
  }
}

Result<RedisCuckooFilter> LoadRedisCuckooRdb(RdbReader& in, int encoding_version, const LoadOptions& options) {
  if (encoding_version < 0 || encoding_version > kRedisCuckooEncodingVersion) {
    return MakeError(ErrorCode::kUnsupportedVersion, "MBbloomCF encoding version ", encoding_version, " (reads 0 to ",
                     kRedisCuckooEncodingVersion, ")");
  }
  RedisCuckooParams p;
  const bool old_layout = encoding_version < 4;
  auto nf = in.LoadUnsigned();
  if (!nf.ok()) return std::move(nf).error();
  auto nb = in.LoadUnsigned();
  if (!nb.ok()) return std::move(nb).error();
  auto items = in.LoadUnsigned();
  if (!items.ok()) return std::move(items).error();
  p.num_stages = nf.value();
  p.num_buckets = nb.value();
  p.num_items = items.value();
  if (old_layout) {
    // Before sub-filters could grow, every one had the same buckets of 2 slots.
    p.num_deletes = 0;
    p.bucket_size = 2;
    p.max_iterations = 20;
    p.expansion = 1;
  } else {
    auto deletes = in.LoadUnsigned();
    if (!deletes.ok()) return std::move(deletes).error();
    p.num_deletes = deletes.value();
    auto bs = Narrow32(in.LoadUnsigned(), "bucket size");
    if (!bs.ok()) return std::move(bs).error();
    auto mi = Narrow32(in.LoadUnsigned(), "max iterations");
    if (!mi.ok()) return std::move(mi).error();
    auto ex = Narrow32(in.LoadUnsigned(), "expansion");
    if (!ex.ok()) return std::move(ex).error();
    p.bucket_size = bs.value();
    p.max_iterations = mi.value();
    p.expansion = ex.value();
  }
  auto made = RedisCuckooFilter::FromParams(p, options);
  if (!made.ok()) return std::move(made).error();
  RedisCuckooFilter& filter = made.value();
  for (std::size_t i = 0; i < filter.num_stages(); ++i) {
    if (!old_layout) {
      auto buckets = in.LoadUnsigned();
      if (!buckets.ok()) return std::move(buckets).error();
      if (buckets.value() != filter.filter_buckets(i)) {
        return MakeError(ErrorCode::kParameterMismatch, "sub-filter ", i, " has ", buckets.value(),
                         " buckets, expected ", filter.filter_buckets(i));
      }
    }
    auto data = in.LoadStringBuffer();
    if (!data.ok()) return std::move(data).error();
    const std::span<std::byte> slots = filter.filter_data(i);
    if (data->size() != slots.size()) {
      return MakeError(ErrorCode::kParameterMismatch, "sub-filter ", i, " has ", data->size(), " bytes, expected ",
                       slots.size());
    }
    if (!slots.empty()) std::memcpy(slots.data(), data->data(), slots.size());
  }
  // The item count is not checked against the fingerprints stored: RedisBloom saves a
  // key whose LOADCHUNK load is incomplete (the header's count, slots still empty) and
  // loads it again, and so must this loader, or Redis would not start from that RDB.
  return made;
}

void SaveRedisCuckooRdb(RdbWriter& out, const RedisCuckooFilter& filter) {
  out.SaveUnsigned(filter.num_stages());
  out.SaveUnsigned(filter.num_buckets());
  out.SaveUnsigned(filter.count());
  out.SaveUnsigned(filter.num_deletes());
  out.SaveUnsigned(filter.bucket_size());
  out.SaveUnsigned(filter.max_iterations());
  out.SaveUnsigned(filter.expansion());
  for (std::size_t i = 0; i < filter.num_stages(); ++i) {
    out.SaveUnsigned(filter.filter_buckets(i));
    out.SaveStringBuffer(filter.filter_data(i));
  }
}

// ---------------------------------------------------------------------------------------
// DUMP payloads.

std::vector<std::byte> EncodeRedisBloomDump(const RedisBloomScalableFilter& filter, std::uint16_t rdb_version) {
  DumpPayloadWriter w(kRedisBloomTypeName, kRedisBloomEncodingVersion);
  SaveRedisBloomRdb(w, filter);
  return std::move(w).Finish(rdb_version);
}

std::vector<std::byte> EncodeRedisCuckooDump(const RedisCuckooFilter& filter, std::uint16_t rdb_version) {
  DumpPayloadWriter w(kRedisCuckooTypeName, kRedisCuckooEncodingVersion);
  SaveRedisCuckooRdb(w, filter);
  return std::move(w).Finish(rdb_version);
}

Result<FilterKind> RedisBloomDumpKind(std::span<const std::byte> payload) {
  auto r = DumpPayloadReader::Open(payload);
  if (!r.ok()) return std::move(r).error();
  const std::string name = r->type_name();
  if (name == kRedisBloomTypeName) return FilterKind::kRedisBloomScalable;
  if (name == kRedisCuckooTypeName) return FilterKind::kRedisBloomCuckoo;
  return MakeError(ErrorCode::kWrongKind, "module type '", name, "' is not MBbloom-- or MBbloomCF");
}

namespace {

template <typename Filter, typename Loader>
Result<Filter> DecodeDump(std::span<const std::byte> payload, std::string_view type_name, const LoadOptions& options,
                          Loader load) {
  auto r = DumpPayloadReader::Open(payload, options.max_memory_bytes);
  if (!r.ok()) return std::move(r).error();
  if (r->type_name() != type_name) {
    return MakeError(ErrorCode::kWrongKind, "module type '", r->type_name(), "', not ", type_name);
  }
  auto filter = load(r.value(), r->encoding_version(), options);
  if (!filter.ok()) return std::move(filter).error();
  Status end = r->Finish();
  if (!end.ok()) return end.error();
  return filter;
}

}  // namespace

Result<RedisBloomScalableFilter> DecodeRedisBloomDump(std::span<const std::byte> payload, const LoadOptions& options) {
  return DecodeDump<RedisBloomScalableFilter>(
      payload, kRedisBloomTypeName, options,
      [](RdbReader& in, int v, const LoadOptions& o) { return LoadRedisBloomRdb(in, v, o); });
}

Result<RedisCuckooFilter> DecodeRedisCuckooDump(std::span<const std::byte> payload, const LoadOptions& options) {
  return DecodeDump<RedisCuckooFilter>(
      payload, kRedisCuckooTypeName, options,
      [](RdbReader& in, int v, const LoadOptions& o) { return LoadRedisCuckooRdb(in, v, o); });
}

// ---------------------------------------------------------------------------------------
// SCANDUMP chunks.

std::vector<std::byte> EncodeRedisBloomHeaderChunk(const RedisBloomScalableFilter& filter) {
  std::vector<std::byte> out(kChainHeaderBytes + kLinkHeaderBytes * filter.num_stages());
  std::byte* p = out.data();
  StoreLE<std::uint64_t>(p, filter.count());
  StoreLE<std::uint32_t>(p + 8, static_cast<std::uint32_t>(filter.num_stages()));
  StoreLE<std::uint32_t>(p + 12, filter.option_bits());
  StoreLE<std::uint32_t>(p + 16, filter.expansion());
  p += kChainHeaderBytes;
  for (std::size_t i = 0; i < filter.num_stages(); ++i, p += kLinkHeaderBytes) {
    const RedisBloomLinkParams& l = filter.link(i);
    StoreLE<std::uint64_t>(p, l.bytes);
    StoreLE<std::uint64_t>(p + 8, l.bits);
    StoreLE<std::uint64_t>(p + 16, l.size);
    StoreLE<std::uint64_t>(p + 24, F64Bits(l.error));
    StoreLE<std::uint64_t>(p + 32, F64Bits(l.bpe));
    StoreLE<std::uint32_t>(p + 40, l.hashes);
    StoreLE<std::uint64_t>(p + 44, l.entries);
    p[52] = static_cast<std::byte>(l.n2);
  }
  return out;
}

Result<RedisBloomScalableFilter> RedisBloomFromHeaderChunk(std::span<const std::byte> chunk,
                                                           const LoadOptions& options) {
  if (chunk.size() < kChainHeaderBytes) {
    return MakeError(ErrorCode::kTruncated, "a Bloom header chunk has at least ", kChainHeaderBytes, " bytes, got ",
                     chunk.size());
  }
  const std::byte* p = chunk.data();
  RedisBloomChainParams params;
  params.size = LoadLE<std::uint64_t>(p);
  const auto nfilters = LoadLE<std::uint32_t>(p + 8);
  params.options = LoadLE<std::uint32_t>(p + 12);
  params.expansion = LoadLE<std::uint32_t>(p + 16);
  if (nfilters == 0 || nfilters > kRedisBloomMaxLinks ||
      chunk.size() != kChainHeaderBytes + kLinkHeaderBytes * std::uint64_t{nfilters}) {
    return MakeError(ErrorCode::kParameterMismatch, "a Bloom header chunk of ", chunk.size(), " bytes for ", nfilters,
                     " links (1 to ", kRedisBloomMaxLinks, " links of ", kLinkHeaderBytes, " bytes after ",
                     kChainHeaderBytes, ")");
  }
  p += kChainHeaderBytes;
  for (std::uint32_t i = 0; i < nfilters; ++i, p += kLinkHeaderBytes) {
    RedisBloomLinkParams l;
    l.bytes = LoadLE<std::uint64_t>(p);
    l.bits = LoadLE<std::uint64_t>(p + 8);
    l.size = LoadLE<std::uint64_t>(p + 16);
    l.error = BitsF64(LoadLE<std::uint64_t>(p + 24));
    l.bpe = BitsF64(LoadLE<std::uint64_t>(p + 32));
    l.hashes = LoadLE<std::uint32_t>(p + 40);
    l.entries = LoadLE<std::uint64_t>(p + 44);
    l.n2 = std::to_integer<std::uint8_t>(p[52]);
    params.links.push_back(l);
  }
  return RedisBloomScalableFilter::FromParams(params, options);
}

namespace {

// Which link holds byte `offset` of the concatenated arrays, and where in it.
bool FindLink(const RedisBloomScalableFilter& f, std::uint64_t offset, std::size_t* link, std::uint64_t* at) {
  for (std::size_t i = 0; i < f.num_stages(); ++i) {
    const std::uint64_t bytes = f.link(i).bytes;
    if (offset < bytes) {
      *link = i;
      *at = offset;
      return true;
    }
    offset -= bytes;
  }
  return false;
}

}  // namespace

RedisBloomChunk NextRedisBloomChunk(const RedisBloomScalableFilter& filter, std::int64_t iterator,
                                    std::size_t max_chunk_bytes) noexcept {
  std::size_t link = 0;
  std::uint64_t at = 0;
  if (iterator < 1 || !FindLink(filter, static_cast<std::uint64_t>(iterator - 1), &link, &at)) return {0, {}};
  const std::span<const std::byte> data = filter.link_data(link);
  const std::size_t n = std::min<std::uint64_t>(max_chunk_bytes, data.size() - at);
  return {iterator + static_cast<std::int64_t>(n), data.subspan(static_cast<std::size_t>(at), n)};
}

Status LoadRedisBloomChunk(RedisBloomScalableFilter& filter, std::int64_t iterator, std::span<const std::byte> bytes) {
  if (bytes.empty() || iterator <= 0 || static_cast<std::uint64_t>(iterator) < bytes.size()) {
    return MakeError(ErrorCode::kParameterMismatch, "chunk of ", bytes.size(), " bytes at iterator ", iterator,
                     " (the iterator must be past the chunk's end)");
  }
  const std::uint64_t start = static_cast<std::uint64_t>(iterator) - bytes.size();
  std::size_t link = 0;
  std::uint64_t at = 0;
  if (start < 1 || !FindLink(filter, start - 1, &link, &at)) {
    return MakeError(ErrorCode::kParameterMismatch, "chunk at iterator ", iterator, " starts outside the filter");
  }
  const std::span<std::byte> data = filter.link_data(link);
  if (bytes.size() > data.size() - at) {
    return MakeError(ErrorCode::kParameterMismatch, "chunk of ", bytes.size(), " bytes overruns link ", link, " (",
                     data.size() - at, " bytes left)");
  }
  std::memcpy(data.data() + at, bytes.data(), bytes.size());
  return {};
}

namespace {

// The cuckoo header chunk, without allocating (SerializeTo writes it too).
std::array<std::byte, kCuckooHeaderBytes> EncodeRedisCuckooHeader(const RedisCuckooFilter& filter) noexcept {
  std::array<std::byte, kCuckooHeaderBytes> out{};
  std::byte* p = out.data();
  StoreLE<std::uint64_t>(p, filter.count());
  StoreLE<std::uint64_t>(p + 8, filter.num_buckets());
  StoreLE<std::uint64_t>(p + 16, filter.num_deletes());
  StoreLE<std::uint64_t>(p + 24, filter.num_stages());
  StoreLE<std::uint16_t>(p + 32, static_cast<std::uint16_t>(filter.bucket_size()));
  StoreLE<std::uint16_t>(p + 34, static_cast<std::uint16_t>(filter.max_iterations()));
  StoreLE<std::uint16_t>(p + 36, static_cast<std::uint16_t>(filter.expansion()));
  return out;
}

}  // namespace

std::vector<std::byte> EncodeRedisCuckooHeaderChunk(const RedisCuckooFilter& filter) {
  const std::array<std::byte, kCuckooHeaderBytes> head = EncodeRedisCuckooHeader(filter);
  return {head.begin(), head.end()};
}

Result<RedisCuckooFilter> RedisCuckooFromHeaderChunk(std::span<const std::byte> chunk, const LoadOptions& options) {
  if (chunk.size() != kCuckooHeaderBytes) {
    return MakeError(ErrorCode::kParameterMismatch, "a cuckoo header chunk has ", kCuckooHeaderBytes, " bytes, got ",
                     chunk.size());
  }
  const std::byte* p = chunk.data();
  RedisCuckooParams params;
  params.num_items = LoadLE<std::uint64_t>(p);
  params.num_buckets = LoadLE<std::uint64_t>(p + 8);
  params.num_deletes = LoadLE<std::uint64_t>(p + 16);
  params.num_stages = LoadLE<std::uint64_t>(p + 24);
  params.bucket_size = LoadLE<std::uint16_t>(p + 32);
  params.max_iterations = LoadLE<std::uint16_t>(p + 34);
  params.expansion = LoadLE<std::uint16_t>(p + 36);
  return RedisCuckooFilter::FromParams(params, options);
}

namespace {

bool FindSubFilter(const RedisCuckooFilter& f, std::uint64_t offset, std::size_t* index, std::uint64_t* at) {
  for (std::size_t i = 0; i < f.num_stages(); ++i) {
    const std::uint64_t bytes = f.filter_data(i).size();
    if (offset < bytes) {
      *index = i;
      *at = offset;
      return true;
    }
    offset -= bytes;
  }
  return false;
}

}  // namespace

RedisBloomChunk NextRedisCuckooChunk(const RedisCuckooFilter& filter, std::int64_t iterator,
                                     std::size_t max_chunk_bytes) noexcept {
  std::size_t index = 0;
  std::uint64_t at = 0;
  if (iterator < 1 || !FindSubFilter(filter, static_cast<std::uint64_t>(iterator - 1), &index, &at)) return {0, {}};
  const std::span<const std::byte> data = filter.filter_data(index);
  // A sub-filter that fits in one chunk is sent whole (RedisBloom's rule).
  if (data.size() <= max_chunk_bytes) return {iterator + static_cast<std::int64_t>(data.size()), data};
  const std::size_t n = std::min<std::uint64_t>(max_chunk_bytes, data.size() - at);
  return {iterator + static_cast<std::int64_t>(n), data.subspan(static_cast<std::size_t>(at), n)};
}

Status LoadRedisCuckooChunk(RedisCuckooFilter& filter, std::int64_t iterator, std::span<const std::byte> bytes) {
  if (bytes.empty() || iterator <= 0 || static_cast<std::uint64_t>(iterator - 1) < bytes.size()) {
    return MakeError(ErrorCode::kParameterMismatch, "chunk of ", bytes.size(), " bytes at iterator ", iterator,
                     " (the iterator must be past the chunk's end)");
  }
  const std::uint64_t start = static_cast<std::uint64_t>(iterator) - bytes.size() - 1;
  std::size_t index = 0;
  std::uint64_t at = 0;
  if (!FindSubFilter(filter, start, &index, &at)) {
    return MakeError(ErrorCode::kParameterMismatch, "chunk at iterator ", iterator, " starts outside the filter");
  }
  const std::span<std::byte> data = filter.filter_data(index);
  if (bytes.size() > data.size() - at) {
    return MakeError(ErrorCode::kParameterMismatch, "chunk of ", bytes.size(), " bytes overruns sub-filter ", index,
                     " (", data.size() - at, " bytes left)");
  }
  std::memcpy(data.data() + at, bytes.data(), bytes.size());
  return {};
}

namespace {

template <typename Filter, typename Next>
std::vector<RedisBloomOwnedChunk> ScanDump(const Filter& filter, std::vector<std::byte> header, Next next) {
  std::vector<RedisBloomOwnedChunk> chunks;
  chunks.push_back({1, std::move(header)});
  std::int64_t iterator = 1;
  for (;;) {
    const RedisBloomChunk c = next(filter, iterator);
    if (c.next_iterator == 0) break;
    chunks.push_back({c.next_iterator, std::vector<std::byte>(c.bytes.begin(), c.bytes.end())});
    iterator = c.next_iterator;
  }
  return chunks;
}

}  // namespace

std::vector<RedisBloomOwnedChunk> RedisBloomScanDump(const RedisBloomScalableFilter& filter) {
  return ScanDump(filter, EncodeRedisBloomHeaderChunk(filter),
                  [](const RedisBloomScalableFilter& f, std::int64_t i) { return NextRedisBloomChunk(f, i); });
}

std::vector<RedisBloomOwnedChunk> RedisCuckooScanDump(const RedisCuckooFilter& filter) {
  if (!RedisCuckooHasChunks(filter)) return {};
  return ScanDump(filter, EncodeRedisCuckooHeaderChunk(filter),
                  [](const RedisCuckooFilter& f, std::int64_t i) { return NextRedisCuckooChunk(f, i); });
}

// ---------------------------------------------------------------------------------------
// bloomkit's file format: the header chunk, then every array, zero-padded to 8 bytes.
//   Bloom header params: [0] option bits, [1] expansion, [2] links, [3] header chunk bytes.
//   Cuckoo header params: [0] bucket size, [1] max iterations, [2] expansion,
//     [3] sub-filters, [4] buckets of the first, [5] deletes.

namespace {

std::uint64_t Pad8(std::uint64_t n) noexcept {
  return (8 - n % 8) % 8;
}

// Streams a RedisBloom kind's file: `header` (its payload length set here), the header
// chunk `head`, every array straight from the filter's memory, zeros up to 8 bytes.
template <typename Filter>
bool StreamKind(const Filter& filter, FileHeader header, std::span<const std::byte> head, std::size_t num_arrays,
                ByteSink sink) noexcept {
  auto array = [&filter](std::size_t i) {
    if constexpr (std::is_same_v<Filter, RedisBloomScalableFilter>) {
      return filter.link_data(i);
    } else {
      return filter.filter_data(i);
    }
  };
  std::uint64_t total = head.size();
  for (std::size_t i = 0; i < num_arrays; ++i) total += array(i).size();
  header.payload_bytes = total + Pad8(total);
  internal::FileStream out(sink);
  if (!out.Begin(header) || !out.Put(head)) return false;
  for (std::size_t i = 0; i < num_arrays; ++i) {
    if (!out.Put(array(i))) return false;
  }
  return out.PutZeros(Pad8(total)) && out.Finish();
}

// Reads the arrays after the header chunk (`offset` bytes) of a payload of
// `payload_bytes` straight into `spans`, and checks the padding.
Status FillArrays(const ByteSource& payload, std::uint64_t payload_bytes, std::uint64_t offset,
                  const std::vector<std::span<std::byte>>& spans) {
  for (const std::span<std::byte> s : spans) {
    if (s.size() > payload_bytes - offset) {
      return MakeError(ErrorCode::kParameterMismatch, "payload of ", payload_bytes, " bytes ends inside the arrays");
    }
    if (Status st = payload(s); !st.ok()) return st;
    offset += s.size();
  }
  if (payload_bytes - offset != Pad8(offset)) {
    return MakeError(ErrorCode::kParameterMismatch, "payload of ", payload_bytes, " bytes does not match its arrays (",
                     offset, " bytes + padding)");
  }
  std::array<std::byte, 8> padding{};
  const auto padding_bytes = static_cast<std::size_t>(payload_bytes - offset);
  if (Status st = payload(std::span(padding.data(), padding_bytes)); !st.ok()) return st;
  for (std::size_t i = 0; i < padding_bytes; ++i) {
    if (padding[i] != std::byte{0}) return MakeError(ErrorCode::kReservedNonZero, "payload padding is not zero");
  }
  return {};
}

}  // namespace

std::vector<std::byte> RedisBloomScalableFilter::Serialize(const SaveOptions& options) const {
  return internal::CollectFile([this](ByteSink sink) { return SerializeTo(sink); }, options);
}

bool RedisBloomScalableFilter::SerializeTo(ByteSink sink) const noexcept {
  std::vector<std::byte> head;
  try {
    head = EncodeRedisBloomHeaderChunk(*this);  // the link table: 40 bytes per link
  } catch (const std::bad_alloc&) {
    return false;
  }
  FileHeader header;
  header.kind = kKind;
  header.capacity = capacity();
  header.count = count();
  header.fp_rate = fp_rate();
  header.params[0] = option_bits();
  header.params[1] = expansion();
  header.params[2] = num_stages();
  header.params[3] = head.size();
  return StreamKind(*this, header, head, num_stages(), sink);
}

Result<RedisBloomScalableFilter> RedisBloomScalableFilter::Deserialize(std::span<const std::byte> bytes,
                                                                       const LoadOptions& options) {
  auto reader = FilterReader::OpenBytes(bytes, kKind, options.max_memory_bytes);
  if (!reader.ok()) return std::move(reader).error();
  return reader->Load<RedisBloomScalableFilter>(options);
}

Result<RedisBloomScalableFilter> RedisBloomScalableFilter::Deserialize(const FileHeader& h, ByteSource payload,
                                                                       const LoadOptions& options) {
  if (h.params[2] == 0 || h.params[2] > kRedisBloomMaxLinks ||
      h.params[3] != kChainHeaderBytes + kLinkHeaderBytes * h.params[2] || h.params[3] > h.payload_bytes ||
      h.params[4] != 0 || h.params[5] != 0) {
    return MakeError(ErrorCode::kParameterMismatch, "header of ", h.params[2], " links and a ", h.params[3],
                     "-byte link table does not fit a ", h.payload_bytes, "-byte payload");
  }
  // The link table, at most kRedisBloomMaxLinks entries: small, read into a buffer.
  std::vector<std::byte> head(static_cast<std::size_t>(h.params[3]));
  if (Status st = payload(head); !st.ok()) return std::move(st).error();
  auto filter = RedisBloomFromHeaderChunk(head, options);
  if (!filter.ok()) return std::move(filter).error();
  RedisBloomScalableFilter& f = filter.value();
  if (f.option_bits() != h.params[0] || f.expansion() != h.params[1] || f.count() != h.count ||
      f.capacity() != h.capacity) {
    return MakeError(ErrorCode::kParameterMismatch, "file header (options ", h.params[0], ", expansion ", h.params[1],
                     ", count ", h.count, ", capacity ", h.capacity, ") disagrees with the link table");
  }
  std::vector<std::span<std::byte>> spans;
  for (std::size_t i = 0; i < f.num_stages(); ++i) spans.push_back(f.link_data(i));
  Status filled = FillArrays(payload, h.payload_bytes, h.params[3], spans);
  if (!filled.ok()) return filled.error();
  return filter;
}

std::vector<std::byte> RedisCuckooFilter::Serialize(const SaveOptions& options) const {
  return internal::CollectFile([this](ByteSink sink) { return SerializeTo(sink); }, options);
}

bool RedisCuckooFilter::SerializeTo(ByteSink sink) const noexcept {
  const std::array<std::byte, kCuckooHeaderBytes> head = EncodeRedisCuckooHeader(*this);
  FileHeader header;
  header.kind = kKind;
  header.capacity = capacity();
  header.count = count();
  header.fp_rate = fp_rate();  // a full sub-filter: a query meets 2 * b fingerprints
  header.params[0] = bucket_size();
  header.params[1] = max_iterations();
  header.params[2] = expansion();
  header.params[3] = num_stages();
  header.params[4] = num_buckets();
  header.params[5] = num_deletes();
  return StreamKind(*this, header, head, num_stages(), sink);
}

Result<RedisCuckooFilter> RedisCuckooFilter::Deserialize(std::span<const std::byte> bytes, const LoadOptions& options) {
  auto reader = FilterReader::OpenBytes(bytes, kKind, options.max_memory_bytes);
  if (!reader.ok()) return std::move(reader).error();
  return reader->Load<RedisCuckooFilter>(options);
}

Result<RedisCuckooFilter> RedisCuckooFilter::Deserialize(const FileHeader& h, ByteSource payload,
                                                         const LoadOptions& options) {
  if (h.payload_bytes < kCuckooHeaderBytes) {
    return MakeError(ErrorCode::kParameterMismatch, "payload of ", h.payload_bytes, " bytes has no cuckoo header");
  }
  std::array<std::byte, kCuckooHeaderBytes> head{};
  if (Status st = payload(head); !st.ok()) return std::move(st).error();
  auto filter = RedisCuckooFromHeaderChunk(head, options);
  if (!filter.ok()) return std::move(filter).error();
  RedisCuckooFilter& f = filter.value();
  if (h.params[0] != f.bucket_size() || h.params[1] != f.max_iterations() || h.params[2] != f.expansion() ||
      h.params[3] != f.num_stages() || h.params[4] != f.num_buckets() || h.params[5] != f.num_deletes() ||
      h.count != f.count() || h.capacity != f.capacity()) {
    return MakeError(ErrorCode::kParameterMismatch, "file header disagrees with the cuckoo header in the payload");
  }
  std::vector<std::span<std::byte>> spans;
  for (std::size_t i = 0; i < f.num_stages(); ++i) spans.push_back(f.filter_data(i));
  Status filled = FillArrays(payload, h.payload_bytes, kCuckooHeaderBytes, spans);
  if (!filled.ok()) return filled.error();
  return filter;
}

}  // namespace bloomkit
