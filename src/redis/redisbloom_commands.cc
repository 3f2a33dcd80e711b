// SPDX-License-Identifier: Apache-2.0
// BF.* and CF.* on RedisBloom-format keys (types MBbloom-- and MBbloomCF), with
// RedisBloom 2.8's arguments, replies (RESP2 and RESP3) and error texts, and the routing
// that sends every BF.*/CF.* command to the format of its key:
//
//   key holds          command runs on
//   MBbloom--/CF       the RedisBloom-format handlers below
//   bloomkitB/C        bloomkit's native handlers (bf_commands.cc, cf_commands.cc)
//   nothing / other    the format the FORMAT module argument names (default redisbloom)
//
// Where RedisBloom answers a key of another type with "not there" rather than WRONGTYPE
// (BF.EXISTS, BF.MEXISTS, CF.EXISTS, CF.MEXISTS, CF.COUNT reply 0; CF.DEL "Not found"),
// the RedisBloom format does the same.
#include "redisbloom_commands.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "filter_value.h"
#include "redisbloom_type.h"

namespace bloomkit::redis {
namespace {

using RbHandler = Status (*)(Command&, const OpenKey&, Held);

// Each new link holds at most this many times the previous one's items.
constexpr std::int64_t kMaxBloomExpansion = std::int64_t{1} << 20;
// RedisBloom's cuckoo header chunk (CF.SCANDUMP's first chunk): items, buckets, deletes,
// filters as 8 bytes each, bucket size and max iterations as 2, expansion as 2.
constexpr std::size_t kCfHeaderChunkBytes = 38;

std::span<const std::byte> AsBytes(std::string_view text) noexcept {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

// RedisBloom's reply for a key that is not the one wanted (its statusStrerror).
Status KeyError(Held held) {
  switch (held) {
    case Held::kEmpty: return ReplyError(reply::kNotFound);
    case Held::kRedisBloom: return ReplyError(reply::kItemExists);
    default: return ReplyError(reply::kWrongType);
  }
}

bool UsesRedisBloom(Held held) noexcept {
  if (held == Held::kRedisBloom) return true;
  if (held == Held::kNative) return false;
  return Config().format == FilterFormat::kRedisBloom;
}

// Runs `kRb` on the open key when the key (or, for a new key, the FORMAT argument) says
// RedisBloom format, else closes the key and runs bloomkit's `kNative`.
template <typename Type, typename NativeFamily, int kMode, Handler kNative, RbHandler kRb>
Status Route(Command& cmd) {
  if (cmd.argc() < 2) return cmd.WrongArity(), Status();
  {
    OpenKey key(cmd.ctx(), cmd.raw(1), kMode);
    const Held held = KeyHolds(key, Type::type, NativeFamily::type);
    if (UsesRedisBloom(held)) return kRb(cmd, key, held);
  }
  return kNative(cmd);
}

// A bloomkit dump starts with the file magic (dump.h); RedisBloom's header chunks start
// with an item count.
bool HasNativeMagic(std::string_view data) noexcept {
  constexpr std::string_view kMagic(
      "\x89"
      "BLK\r\n\x1a\n",
      8);
  return data.substr(0, kMagic.size()) == kMagic;
}

bool IsRedisBloomHeader(RbBloomType /*tag*/, std::span<const std::byte> data) {
  return RedisBloomFromHeaderChunk(data, RbLoadOptions()).ok();
}
bool IsRedisBloomHeader(RbCuckooType /*tag*/, std::span<const std::byte> data) {
  return RedisCuckooFromHeaderChunk(data, RbLoadOptions()).ok();
}

// LOADCHUNK: a key being created from its header chunk takes the chunk's format. Under
// FORMAT native a chunk that is neither gets bloomkit's error; under the default,
// RedisBloom's.
template <typename Type, typename NativeFamily, Handler kNative, RbHandler kRb>
Status RouteLoadChunk(Command& cmd) {
  if (cmd.argc() != 4) return cmd.WrongArity(), Status();
  {
    OpenKey key(cmd.ctx(), cmd.raw(1), kRead | kWrite);
    const Held held = KeyHolds(key, Type::type, NativeFamily::type);
    bool native = held == Held::kNative;
    if (held == Held::kEmpty) {
      const std::string_view data = cmd.arg(3);
      if (HasNativeMagic(data)) {
        native = true;
      } else if (Config().format == FilterFormat::kNative) {
        native = cmd.arg(2) != "1" || !IsRedisBloomHeader(Type{}, AsBytes(data));
      }
    }
    if (!native) return kRb(cmd, key, held);
  }
  return kNative(cmd);
}

// Bloom ---------------------------------------------------------------------------------

RedisBloomScalableFilter& Chain(const OpenKey& key) noexcept {
  return *RbValueOf<RbBloomType>(key);
}

Result<RedisBloomScalableFilter> CreateChain(const BfCreateArgs& args) {
  RedisBloomOptions options;
  options.capacity = args.capacity;
  options.fp_rate = args.error_rate;
  options.expansion = args.expansion;
  options.non_scaling = args.nonscaling;
  options.max_memory_bytes = Config().max_filter_bytes;
  auto chain = RedisBloomScalableFilter::Create(options);
  if (!chain.ok()) return CoreError(chain.error());
  return chain;
}

// RedisBloom's texts: a full NONSCALING chain, a link that cannot be sized (its error
// rate, halved once per link, rounds to 0 after about 1,075 links), or a limit. A scaling
// chain is full only at the most a filter counts (2^63 - 1 items): that error's text.
std::string AddErrorText(const RedisBloomScalableFilter& chain, const Error& error) {
  if (error.code() == ErrorCode::kFull && chain.non_scaling()) return std::string(reply::kNonScalingFull);
  if (error.code() == ErrorCode::kFull) return ReplyError(reply::kInsertProblem, error.message()).message();
  if (error.code() == ErrorCode::kInvalidArgument) return ReplyError(reply::kInsertProblem, error.message()).message();
  return CoreError(error).message();
}

// BF.RESERVE key error_rate capacity [EXPANSION e] [NONSCALING]: RedisBloom finds the two
// keywords anywhere after the capacity and ignores other words.
Result<BfCreateArgs> ParseRbReserve(const Command& cmd) {
  BfCreateArgs out;
  out.expansion = Config().expansion;
  const auto rate = ParseDouble(cmd.arg(2));
  if (!rate) return ReplyError(reply::kBadErrorRate);
  // RedisBloom's text, byte for byte, ends with a space.
  if (*rate <= 0 || *rate >= 1) return ReplyError(std::string(reply::kErrorRateRange) + " ");
  out.error_rate = *rate;
  const auto capacity = ParseInt64(cmd.arg(3));
  if (!capacity) return ReplyError(reply::kBadCapacity);
  if (*capacity <= 0) return ReplyError(reply::kCapacityRange);
  out.capacity = static_cast<std::uint64_t>(*capacity);
  std::size_t expansion_at = 0;
  for (std::size_t i = 4; i < cmd.argc(); ++i) {
    if (EqualsIgnoreCase(cmd.arg(i), "NONSCALING")) out.nonscaling = true;
    if (expansion_at == 0 && EqualsIgnoreCase(cmd.arg(i), "EXPANSION")) expansion_at = i;
  }
  if (expansion_at != 0) {
    if (expansion_at + 1 == cmd.argc()) return ReplyError(reply::kNoExpansion);
    if (out.nonscaling) return ReplyError(reply::kNonScalingExpand);
    const auto e = ParseInt64(cmd.arg(expansion_at + 1));
    if (!e) return ReplyError(reply::kBadExpansion);
    if (*e < 1) return ReplyError(reply::kExpansionRange);
    if (*e > kMaxBloomExpansion) return ReplyError(reply::kExpansionRange, "at most 1048576");
    out.expansion = static_cast<std::uint32_t>(*e);
  }
  return out;
}

Status RbBfReserve(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() < 4 || cmd.argc() > 7) return cmd.WrongArity(), Status();
  auto parsed = ParseRbReserve(cmd);
  if (!parsed.ok()) return std::move(parsed).error();
  if (held != Held::kEmpty) return KeyError(held);
  auto chain = CreateChain(parsed.value());
  if (!chain.ok()) return std::move(chain).error();
  if (RbStore<RbBloomType>(key, std::move(chain).value()) == nullptr) return ReplyError(reply::kInternal);
  cmd.Replicate();
  cmd.Ok();
  return {};
}

// BF.ADD / BF.MADD / BF.INSERT after parsing. Items are added in order; the first that
// fails (a full NONSCALING chain) ends the reply with its error, as in RedisBloom.
Status RbBfAddItems(Command& cmd, const OpenKey& key, Held held, const BfCreateArgs& create, bool autocreate,
                    std::size_t first, bool multi) {
  if (held == Held::kOther) return ReplyError(reply::kWrongType);
  RedisBloomScalableFilter* chain = held == Held::kRedisBloom ? &Chain(key) : nullptr;
  bool modified = false;
  if (chain == nullptr) {
    if (!autocreate) return ReplyError(reply::kNotFound);
    auto created = CreateChain(create);
    if (!created.ok()) return std::move(created).error();
    chain = RbStore<RbBloomType>(key, std::move(created).value());
    if (chain == nullptr) return ReplyError(reply::kInternal);
    modified = true;
  }
  if (!multi) {
    auto added = chain->AddIfAbsent(cmd.arg(first));
    if (added.ok() && added.value()) modified = true;
    if (modified) cmd.Replicate();
    if (!added.ok()) return ReplyError(AddErrorText(*chain, added.error()));
    cmd.Bool(added.value());
    return {};
  }
  // Added or present per item; a failure ends the list.
  std::vector<std::string_view> items;
  items.reserve(cmd.argc() - first);
  for (std::size_t i = first; i < cmd.argc(); ++i) items.push_back(cmd.arg(i));
  std::unique_ptr<bool[]> outcomes(new bool[items.size()]);
  Status error;
  const std::size_t done = chain->AddIfAbsentBatch(items, std::span<bool>(outcomes.get(), items.size()), &error);
  const std::string failure = done < items.size() ? AddErrorText(*chain, error.error()) : std::string();
  for (std::size_t i = 0; i < done; ++i) modified = modified || outcomes[i];
  if (modified) cmd.Replicate();
  cmd.Array(static_cast<long>(done + (failure.empty() ? 0 : 1)));
  for (std::size_t i = 0; i < done; ++i) cmd.Bool(outcomes[i]);
  if (!failure.empty()) cmd.ErrorReply(failure);
  return {};
}

Status RbBfAdd(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return RbBfAddItems(cmd, key, held, BfDefaultCreateArgs(), /*autocreate=*/true, 2, /*multi=*/false);
}

Status RbBfMadd(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() < 3) return cmd.WrongArity(), Status();
  return RbBfAddItems(cmd, key, held, BfDefaultCreateArgs(), /*autocreate=*/true, 2, /*multi=*/true);
}

Status RbBfInsert(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() < 4) return cmd.WrongArity(), Status();
  const auto args = cmd.args_from(2);
  auto parsed = ParseBfInsert(args, Config());
  if (!parsed.ok()) {
    if (parsed.error().code() == kArityError) return cmd.WrongArity(), Status();
    return std::move(parsed).error();
  }
  return RbBfAddItems(cmd, key, held, parsed->create, !parsed->nocreate, 2 + parsed->first_item, /*multi=*/true);
}

// BF.EXISTS / BF.MEXISTS: a missing key, or one of another type, holds nothing.
Status RbBfCheck(Command& cmd, const OpenKey& key, Held held, bool multi) {
  const RedisBloomScalableFilter* chain = held == Held::kRedisBloom ? &Chain(key) : nullptr;
  if (!multi) {
    cmd.Bool(chain != nullptr && chain->MayContain(cmd.arg(2)));
    return {};
  }
  cmd.Array(static_cast<long>(cmd.argc() - 2));
  for (std::size_t i = 2; i < cmd.argc(); ++i) cmd.Bool(chain != nullptr && chain->MayContain(cmd.arg(i)));
  return {};
}

Status RbBfExists(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return RbBfCheck(cmd, key, held, /*multi=*/false);
}

Status RbBfMexists(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() < 3) return cmd.WrongArity(), Status();
  return RbBfCheck(cmd, key, held, /*multi=*/true);
}

// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]: all five as a map (a flat
// array under RESP2), one as a one-entry map under RESP3 and a one-element array under
// RESP2. Size is RedisBloom's figure for the same chain.
Status RbBfInfo(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 2 && cmd.argc() != 3) return cmd.WrongArity(), Status();
  if (held != Held::kRedisBloom) return KeyError(held);
  const auto args = cmd.args_from(2);
  auto field = ParseBfInfoField(args);
  if (!field.ok()) return std::move(field).error();
  const RedisBloomScalableFilter& f = Chain(key);
  auto value = [&](BfInfoField which) {
    switch (which) {
      case BfInfoField::kCapacity: cmd.Int(static_cast<long long>(f.capacity())); break;
      case BfInfoField::kSize: cmd.Int(static_cast<long long>(f.redisbloom_size())); break;
      case BfInfoField::kFilters: cmd.Int(static_cast<long long>(f.num_filters())); break;
      case BfInfoField::kItems: cmd.Int(static_cast<long long>(f.count())); break;
      case BfInfoField::kExpansion:
        if (f.non_scaling()) {
          cmd.Null();
        } else {
          cmd.Int(static_cast<long long>(f.expansion()));
        }
        break;
      case BfInfoField::kAll: break;
    }
  };
  static constexpr struct {
    BfInfoField field;
    const char* name;
  } kFields[] = {{BfInfoField::kCapacity, "Capacity"},
                 {BfInfoField::kSize, "Size"},
                 {BfInfoField::kFilters, "Number of filters"},
                 {BfInfoField::kItems, "Number of items inserted"},
                 {BfInfoField::kExpansion, "Expansion rate"}};
  if (field.value() == BfInfoField::kAll) {
    cmd.Map(5);
    for (const auto& entry : kFields) {
      cmd.SimpleString(entry.name);
      value(entry.field);
    }
    return {};
  }
  for (const auto& entry : kFields) {
    if (entry.field != field.value()) continue;
    if (cmd.resp3()) {
      cmd.Map(1);
      cmd.SimpleString(entry.name);
    } else {
      cmd.Array(1);
    }
    value(entry.field);
  }
  return {};
}

Status RbBfCard(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 2) return cmd.WrongArity(), Status();
  if (held == Held::kOther) return ReplyError(reply::kWrongType);
  cmd.Int(held == Held::kRedisBloom ? static_cast<long long>(Chain(key).count()) : 0);
  return {};
}

// BF.DEBUG key: "size:<items>", then per link "bytes:.. bits:.. hashes:.. hashwidth:..
// capacity:.. size:.. ratio:..".
Status RbBfDebug(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 2) return cmd.WrongArity(), Status();
  if (held != Held::kRedisBloom) return KeyError(held);
  const RedisBloomScalableFilter& f = Chain(key);
  char line[256];
  cmd.Array(static_cast<long>(1 + f.num_filters()));
  int n = std::snprintf(line, sizeof(line), "size:%" PRIu64, f.count());
  cmd.Bytes(AsBytes(std::string_view(line, static_cast<std::size_t>(n))));
  const unsigned width = (f.option_bits() & kRedisBloomForce64) != 0 ? 64 : 32;
  for (std::size_t i = 0; i < f.num_filters(); ++i) {
    const RedisBloomLinkParams& link = f.link(i);
    const std::uint64_t bits = link.bits != 0 ? link.bits : (std::uint64_t{1} << link.n2);
    n = std::snprintf(line, sizeof(line),
                      "bytes:%" PRIu64 " bits:%" PRIu64 " hashes:%u hashwidth:%u capacity:%" PRIu64 " size:%" PRIu64
                      " ratio:%g",
                      link.bytes, bits, link.hashes, width, link.entries, link.size, link.error);
    cmd.Bytes(AsBytes(std::string_view(line, static_cast<std::size_t>(n))));
  }
  return {};
}

// BF.SCANDUMP key iterator: 0 asks for the header chunk (answered with iterator 1), then
// each iterator for the chunk after it; iterator 0 and an empty string end the dump.
Status RbBfScanDump(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  if (held != Held::kRedisBloom) return KeyError(held);
  const auto iterator = ParseInt64(cmd.arg(2));
  if (!iterator) return ReplyError(reply::kRbIteratorNotNumeric);
  const RedisBloomScalableFilter& f = Chain(key);
  if (*iterator == 0) {
    const std::vector<std::byte> header = EncodeRedisBloomHeaderChunk(f);
    cmd.Array(2);
    cmd.Int(1);
    cmd.Bytes(header);
    return {};
  }
  const RedisBloomChunk chunk = NextRedisBloomChunk(f, *iterator);
  cmd.Array(2);
  cmd.Int(chunk.next_iterator);
  cmd.Bytes(chunk.next_iterator == 0 ? std::span<const std::byte>() : chunk.bytes);
  return {};
}

// BF.LOADCHUNK key iterator data: the header chunk creates the key (which must not
// exist), the others fill its bit arrays.
Status RbBfLoadChunk(Command& cmd, const OpenKey& key, Held held) {
  const auto iterator = ParseInt64(cmd.arg(2));
  if (!iterator) return ReplyError(reply::kBfIteratorNotNumeric);
  const auto data = AsBytes(cmd.arg(3));
  if (held == Held::kEmpty && *iterator == 1) {
    auto chain = RedisBloomFromHeaderChunk(data, RbLoadOptions());
    if (!chain.ok()) {
      if (chain.error().code() == ErrorCode::kTooLarge) return CoreError(chain.error());
      return ReplyError(reply::kRbBadHeader, chain.error().message());
    }
    if (RbStore<RbBloomType>(key, std::move(chain).value()) == nullptr) return ReplyError(reply::kInternal);
    cmd.Replicate();
    cmd.Ok();
    return {};
  }
  if (held != Held::kRedisBloom) return KeyError(held);
  if (*iterator == 1) return ReplyError(reply::kItemExists);
  if (auto loaded = LoadRedisBloomChunk(Chain(key), *iterator, data); !loaded.ok()) {
    return ReplyError(reply::kRbBadChunk, loaded.error().message());
  }
  cmd.Replicate();
  cmd.Ok();
  return {};
}

// Cuckoo --------------------------------------------------------------------------------

RedisCuckooFilter& Cuckoo(const OpenKey& key) noexcept {
  return *RbValueOf<RbCuckooType>(key);
}

Result<RedisCuckooFilter> CreateCuckoo(const CfCreateArgs& args) {
  RedisCuckooOptions options;
  options.capacity = args.capacity;
  options.bucket_size = args.bucket_size;
  options.max_iterations = args.max_iterations;
  options.expansion = args.expansion;
  options.max_memory_bytes = Config().max_filter_bytes;
  auto filter = RedisCuckooFilter::Create(options);
  if (!filter.ok()) return CoreError(filter.error(), reply::kCfCannotCreate);
  return filter;
}

// CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e], RedisBloom's
// ranges: bucket size 1..255, iterations 1..65535, expansion 0..32768. Each keyword is
// found wherever it is; other words are ignored, as RedisBloom does.
Result<CfCreateArgs> ParseRbCfReserve(const Command& cmd) {
  CfCreateArgs out;
  out.bucket_size = std::min<std::uint32_t>(Config().cf_bucket_size, kRedisCuckooMaxBucketSize);
  out.max_iterations = std::min<std::uint32_t>(Config().cf_max_iterations, kRedisCuckooMaxIterations);
  out.expansion = std::min<std::uint32_t>(Config().cf_expansion, kRedisCuckooMaxExpansion);
  const auto capacity = ParseInt64(cmd.arg(2));
  if (!capacity) return ReplyError(reply::kCfBadCapacity);
  auto find = [&](std::string_view word) -> std::size_t {
    for (std::size_t i = 3; i + 1 < cmd.argc(); ++i) {
      if (EqualsIgnoreCase(cmd.arg(i), word)) return i + 1;
    }
    return 0;
  };
  if (const std::size_t at = find("MAXITERATIONS"); at != 0) {
    const auto v = ParseInt64(cmd.arg(at));
    if (!v) return ReplyError(reply::kCfBadMaxIterations);
    if (*v < 1 || *v > kRedisCuckooMaxIterations) return ReplyError(reply::kCfMaxIterationsRange);
    out.max_iterations = static_cast<std::uint32_t>(*v);
  }
  if (const std::size_t at = find("BUCKETSIZE"); at != 0) {
    const auto v = ParseInt64(cmd.arg(at));
    if (!v) return ReplyError(reply::kCfBadBucketSize);
    if (*v < 1 || *v > kRedisCuckooMaxBucketSize) return ReplyError(reply::kCfBucketSizeRange);
    out.bucket_size = static_cast<std::uint32_t>(*v);
  }
  if (const std::size_t at = find("EXPANSION"); at != 0) {
    const auto v = ParseInt64(cmd.arg(at));
    if (!v) return ReplyError(reply::kCfBadExpansion);
    if (*v < 0 || *v > kRedisCuckooMaxExpansion) return ReplyError(reply::kCfExpansionRange);
    out.expansion = static_cast<std::uint32_t>(*v);
  }
  if (*capacity < 2 * static_cast<std::int64_t>(out.bucket_size)) return ReplyError(reply::kCfCapacityTooSmall);
  out.capacity = static_cast<std::uint64_t>(*capacity);
  return out;
}

Status RbCfReserve(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() < 3 || cmd.argc() % 2 == 0) return cmd.WrongArity(), Status();
  auto parsed = ParseRbCfReserve(cmd);
  if (!parsed.ok()) return std::move(parsed).error();
  if (held != Held::kEmpty) return KeyError(held);
  auto filter = CreateCuckoo(parsed.value());
  if (!filter.ok()) return std::move(filter).error();
  if (RbStore<RbCuckooType>(key, std::move(filter).value()) == nullptr) return ReplyError(reply::kInternal);
  cmd.Replicate();
  cmd.Ok();
  return {};
}

CfCreateArgs CfDefaults() {
  CfCreateArgs args;
  args.capacity = Config().cf_initial_size;
  args.bucket_size = std::min<std::uint32_t>(Config().cf_bucket_size, kRedisCuckooMaxBucketSize);
  args.max_iterations = std::min<std::uint32_t>(Config().cf_max_iterations, kRedisCuckooMaxIterations);
  args.expansion = std::min<std::uint32_t>(Config().cf_expansion, kRedisCuckooMaxExpansion);
  return args;
}

enum class Inserted : char { kAdded, kPresent, kNoSpace, kNoMemory };

// CF.ADD / CF.ADDNX / CF.INSERT / CF.INSERTNX after parsing. A filter that already has
// CF_MAX_EXPANSIONS sub-filters refuses the whole command ("Maximum expansions
// reached") before any item goes in.
Status RbCfAddItems(Command& cmd, const OpenKey& key, Held held, const CfCreateArgs& create, bool autocreate,
                    std::size_t first, bool multi, bool nx) {
  if (held == Held::kOther) return ReplyError(reply::kWrongType);
  RedisCuckooFilter* filter = held == Held::kRedisBloom ? &Cuckoo(key) : nullptr;
  bool modified = false;
  if (filter == nullptr) {
    if (!autocreate) return ReplyError(reply::kNotFound);
    auto created = CreateCuckoo(create);
    if (!created.ok()) return std::move(created).error();
    filter = RbStore<RbCuckooType>(key, std::move(created).value());
    if (filter == nullptr) return ReplyError(reply::kInternal);
    modified = true;
  }
  if (filter->num_filters() >= Config().cf_max_expansions) {
    if (modified) cmd.Replicate();
    return ReplyError(reply::kCfMaxExpansions);
  }
  std::vector<Inserted> outcomes;
  outcomes.reserve(cmd.argc() - first);
  std::string no_memory;
  for (std::size_t i = first; i < cmd.argc(); ++i) {
    const std::string_view item = cmd.arg(i);
    Status status;
    bool added = true;
    if (nx) {
      auto r = filter->AddIfAbsent(item);
      if (r.ok()) {
        added = r.value();
      } else {
        status = std::move(r).error();
      }
    } else {
      status = filter->Add(item);
    }
    if (status.ok()) {
      if (added) modified = true;
      outcomes.push_back(added ? Inserted::kAdded : Inserted::kPresent);
    } else if (status.error().code() == ErrorCode::kFull) {
      outcomes.push_back(Inserted::kNoSpace);
    } else {
      if (no_memory.empty()) no_memory = CoreError(status.error()).message();
      outcomes.push_back(Inserted::kNoMemory);
    }
  }
  if (modified) cmd.Replicate();
  if (!multi) {
    switch (outcomes[0]) {
      case Inserted::kNoSpace: return ReplyError(reply::kCfFull);
      case Inserted::kNoMemory: return ReplyError(no_memory);
      default: cmd.Bool(outcomes[0] == Inserted::kAdded); return {};
    }
  }
  // CF.INSERT: booleans, and false for an item that did not fit under RESP3 (-1 under
  // RESP2); CF.INSERTNX: integers 1, 0, -1.
  const bool booleans = cmd.resp3() && !nx;
  cmd.Array(static_cast<long>(outcomes.size()));
  for (const Inserted o : outcomes) {
    if (booleans) {
      cmd.Bool(o == Inserted::kAdded);
    } else {
      cmd.Int(o == Inserted::kAdded ? 1 : o == Inserted::kPresent ? 0 : -1);
    }
  }
  return {};
}

Status RbCfAdd(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return RbCfAddItems(cmd, key, held, CfDefaults(), true, 2, /*multi=*/false, /*nx=*/false);
}

Status RbCfAddNx(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return RbCfAddItems(cmd, key, held, CfDefaults(), true, 2, /*multi=*/false, /*nx=*/true);
}

Status RbCfInsertCommon(Command& cmd, const OpenKey& key, Held held, bool nx) {
  if (cmd.argc() < 4) return cmd.WrongArity(), Status();
  const auto args = cmd.args_from(2);
  ModuleConfig config = Config();
  config.cf_bucket_size = CfDefaults().bucket_size;
  auto parsed = ParseCfInsert(args, config);
  if (!parsed.ok()) {
    if (parsed.error().code() == kArityError) return cmd.WrongArity(), Status();
    return std::move(parsed).error();
  }
  CfCreateArgs create = CfDefaults();
  create.capacity = parsed->create.capacity;
  return RbCfAddItems(cmd, key, held, create, !parsed->nocreate, 2 + parsed->first_item, /*multi=*/true, nx);
}

Status RbCfInsert(Command& cmd, const OpenKey& key, Held held) {
  return RbCfInsertCommon(cmd, key, held, /*nx=*/false);
}
Status RbCfInsertNx(Command& cmd, const OpenKey& key, Held held) {
  return RbCfInsertCommon(cmd, key, held, /*nx=*/true);
}

// CF.EXISTS / CF.MEXISTS / CF.COUNT: a missing key, or one of another type, holds nothing.
Status RbCfCheck(Command& cmd, const OpenKey& key, Held held, bool multi, bool count) {
  const RedisCuckooFilter* filter = held == Held::kRedisBloom ? &Cuckoo(key) : nullptr;
  if (multi) cmd.Array(static_cast<long>(cmd.argc() - 2));
  for (std::size_t i = 2; i < cmd.argc(); ++i) {
    if (count) {
      cmd.Int(filter != nullptr ? static_cast<long long>(filter->Count(cmd.arg(i))) : 0);
    } else {
      cmd.Bool(filter != nullptr && filter->MayContain(cmd.arg(i)));
    }
  }
  return {};
}

Status RbCfExists(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return RbCfCheck(cmd, key, held, false, false);
}
Status RbCfMexists(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() < 3) return cmd.WrongArity(), Status();
  return RbCfCheck(cmd, key, held, true, false);
}
Status RbCfCount(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return RbCfCheck(cmd, key, held, false, true);
}

Status RbCfDel(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  if (held != Held::kRedisBloom) return ReplyError(reply::kCfNotFound);
  const bool removed = Cuckoo(key).Remove(cmd.arg(2));
  if (removed) cmd.Replicate();
  cmd.Bool(removed);
  return {};
}

Status RbCfCompact(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 2) return cmd.WrongArity(), Status();
  if (held != Held::kRedisBloom) return ReplyError(reply::kRbCfCompactNotFound);
  Cuckoo(key).Compact(/*keep_going=*/true);
  cmd.Replicate();
  cmd.Ok();
  return {};
}

Status RbCfInfo(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 2) return cmd.WrongArity(), Status();
  if (held != Held::kRedisBloom) return KeyError(held);
  const RedisCuckooFilter& f = Cuckoo(key);
  ReplyCfInfo(cmd, {.size = f.redisbloom_size(),
                    .num_buckets = f.num_buckets(),
                    .num_filters = f.num_filters(),
                    .inserted = f.count(),
                    .deleted = f.num_deletes(),
                    .bucket_size = f.bucket_size(),
                    .expansion = f.expansion(),
                    .max_iterations = f.max_iterations()});
  return {};
}

// CF.DEBUG key: one line of the filter's parameters and counts.
Status RbCfDebug(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 2) return cmd.WrongArity(), Status();
  if (held != Held::kRedisBloom) return KeyError(held);
  const RedisCuckooFilter& f = Cuckoo(key);
  char line[256];
  const int n = std::snprintf(
      line, sizeof(line),
      "bktsize:%u buckets:%" PRIu64 " items:%" PRIu64 " deletes:%" PRIu64 " filters:%zu max_iterations:%u expansion:%u",
      f.bucket_size(), f.num_buckets(), f.count(), f.num_deletes(), f.num_filters(), f.max_iterations(), f.expansion());
  cmd.Bytes(AsBytes(std::string_view(line, static_cast<std::size_t>(n))));
  return {};
}

// CF.SCANDUMP key iterator: as BF.SCANDUMP, but the end (and every answer for a filter
// without items) is iterator 0 with a null.
Status RbCfScanDump(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  const auto iterator = ParseInt64(cmd.arg(2));
  if (!iterator || *iterator < 0) return ReplyError(reply::kCfInvalidPosition);
  if (held != Held::kRedisBloom) return KeyError(held);
  const RedisCuckooFilter& f = Cuckoo(key);
  cmd.Array(2);
  if (!RedisCuckooHasChunks(f)) {
    cmd.Int(0);
    cmd.Null();
    return {};
  }
  if (*iterator == 0) {
    cmd.Int(1);
    cmd.Bytes(EncodeRedisCuckooHeaderChunk(f));
    return {};
  }
  const RedisBloomChunk chunk = NextRedisCuckooChunk(f, *iterator);
  cmd.Int(chunk.next_iterator);
  if (chunk.next_iterator == 0) {
    cmd.Null();
  } else {
    cmd.Bytes(chunk.bytes);
  }
  return {};
}

Status RbCfLoadChunk(Command& cmd, const OpenKey& key, Held held) {
  const auto iterator = ParseInt64(cmd.arg(2));
  if (!iterator || *iterator == 0) return ReplyError(reply::kCfInvalidPosition);
  const auto data = AsBytes(cmd.arg(3));
  if (*iterator == 1) {
    if (held != Held::kEmpty) return KeyError(held);
    if (data.size() != kCfHeaderChunkBytes) {
      return ReplyError(reply::kRbCfInvalidHeader);
    }
    auto filter = RedisCuckooFromHeaderChunk(data, RbLoadOptions());
    if (!filter.ok()) {
      if (filter.error().code() == ErrorCode::kTooLarge) return CoreError(filter.error());
      return ReplyError(reply::kRbCfCannotCreate, filter.error().message());
    }
    if (RbStore<RbCuckooType>(key, std::move(filter).value()) == nullptr) return ReplyError(reply::kInternal);
    cmd.Replicate();
    cmd.Ok();
    return {};
  }
  if (held != Held::kRedisBloom) return KeyError(held);
  if (auto loaded = LoadRedisCuckooChunk(Cuckoo(key), *iterator, data); !loaded.ok()) {
    return ReplyError(reply::kRbCfBadChunk, loaded.error().message());
  }
  cmd.Replicate();
  cmd.Ok();
  return {};
}

// For RedisBloom's commands that bloomkit's native filters do not have.
Status NativeHasNoSuchCommand(Command& /*cmd*/) {
  return ReplyError(reply::kWrongType);
}

}  // namespace

// The routed entry points module.cc registers.
Status RouteBfReserve(Command& cmd) {
  return Route<RbBloomType, BfFamily, kRead | kWrite, BfReserve, RbBfReserve>(cmd);
}
Status RouteBfAdd(Command& cmd) {
  return Route<RbBloomType, BfFamily, kRead | kWrite, BfAdd, RbBfAdd>(cmd);
}
Status RouteBfMadd(Command& cmd) {
  return Route<RbBloomType, BfFamily, kRead | kWrite, BfMadd, RbBfMadd>(cmd);
}
Status RouteBfInsert(Command& cmd) {
  return Route<RbBloomType, BfFamily, kRead | kWrite, BfInsert, RbBfInsert>(cmd);
}
Status RouteBfExists(Command& cmd) {
  return Route<RbBloomType, BfFamily, kRead, BfExists, RbBfExists>(cmd);
}
Status RouteBfMexists(Command& cmd) {
  return Route<RbBloomType, BfFamily, kRead, BfMexists, RbBfMexists>(cmd);
}
Status RouteBfInfo(Command& cmd) {
  return Route<RbBloomType, BfFamily, kRead, BfInfo, RbBfInfo>(cmd);
}
Status RouteBfCard(Command& cmd) {
  return Route<RbBloomType, BfFamily, kRead, BfCard, RbBfCard>(cmd);
}
Status RouteBfDebug(Command& cmd) {
  return Route<RbBloomType, BfFamily, kRead, NativeHasNoSuchCommand, RbBfDebug>(cmd);
}
Status RouteBfScanDump(Command& cmd) {
  return Route<RbBloomType, BfFamily, kRead, BfScanDump, RbBfScanDump>(cmd);
}
Status RouteBfLoadChunk(Command& cmd) {
  return RouteLoadChunk<RbBloomType, BfFamily, BfLoadChunk, RbBfLoadChunk>(cmd);
}
Status RouteCfReserve(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead | kWrite, CfReserve, RbCfReserve>(cmd);
}
Status RouteCfAdd(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead | kWrite, CfAdd, RbCfAdd>(cmd);
}
Status RouteCfAddNx(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead | kWrite, CfAddNx, RbCfAddNx>(cmd);
}
Status RouteCfInsert(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead | kWrite, CfInsert, RbCfInsert>(cmd);
}
Status RouteCfInsertNx(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead | kWrite, CfInsertNx, RbCfInsertNx>(cmd);
}
Status RouteCfExists(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead, CfExists, RbCfExists>(cmd);
}
Status RouteCfMexists(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead, CfMexists, RbCfMexists>(cmd);
}
Status RouteCfCount(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead, CfCount, RbCfCount>(cmd);
}
Status RouteCfDel(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead | kWrite, CfDel, RbCfDel>(cmd);
}
Status RouteCfCompact(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead | kWrite, NativeHasNoSuchCommand, RbCfCompact>(cmd);
}
Status RouteCfInfo(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead, CfInfo, RbCfInfo>(cmd);
}
Status RouteCfDebug(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead, NativeHasNoSuchCommand, RbCfDebug>(cmd);
}
Status RouteCfScanDump(Command& cmd) {
  return Route<RbCuckooType, CfFamily, kRead, CfScanDump, RbCfScanDump>(cmd);
}
Status RouteCfLoadChunk(Command& cmd) {
  return RouteLoadChunk<RbCuckooType, CfFamily, CfLoadChunk, RbCfLoadChunk>(cmd);
}

}  // namespace bloomkit::redis
