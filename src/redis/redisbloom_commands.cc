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

// RedisBloom's cuckoo header chunk (CF.SCANDUMP's first chunk): items, buckets, deletes,
// filters as 8 bytes each, bucket size and max iterations as 2, expansion as 2.
constexpr std::size_t kCfHeaderChunkBytes = 38;

std::span<const std::byte> AsBytes(std::string_view text) noexcept {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

// The argument as it may appear in the log: printable ASCII, at most 40 bytes.
std::string Printable(std::string_view text) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f && c != '\'') ? static_cast<char>(c) : '?';
  }
  if (text.size() > 40) out += "...";
  return out + "'";
}

// RedisBloom's reply `text`, exactly as RedisBloom sends it; what bloomkit knows more
// (the bad value, the cause) goes to the server log at level verbose.
Error RbError(const Command& cmd, std::string_view text, std::string_view detail) {
  const std::string_view name = cmd.argc() > 0 ? cmd.arg(0) : std::string_view();
  rm.Log(cmd.ctx(), "verbose", "bloomkit: %s: %.*s: %.*s", Printable(name).c_str(), static_cast<int>(text.size()),
         text.data(), static_cast<int>(detail.size()), detail.data());
  return ReplyError(text);
}

// The error of a filter that could not be created: maxmemory's refusal, bloomkit's
// MAX_FILTER_BYTES when given, else RedisBloom's texts ("ERR Insufficient memory to
// create filter" when memory ran out, `cannot_create` for parameters that give no filter).
Error CreateError(const Command& cmd, const Error& error, std::string_view cannot_create) {
  if (!AllocationRefusal().empty()) return ReplyError(AllocationRefusal());
  if (error.code() == ErrorCode::kTooLarge && Config().max_filter_bytes_given) return CoreError(error);
  if (error.code() == ErrorCode::kInvalidArgument) return RbError(cmd, cannot_create, error.message());
  return RbError(cmd, reply::kCannotAllocateFilter, error.message());
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

Result<RedisBloomScalableFilter> CreateChain(const Command& cmd, const BfCreateArgs& args) {
  RedisBloomOptions options;
  options.capacity = args.capacity;
  options.fp_rate = args.error_rate;
  options.expansion = args.expansion;
  options.non_scaling = args.nonscaling;
  options.max_memory_bytes = RedisBloomFilterLimit(Config());
  try {
    auto chain = RedisBloomScalableFilter::Create(options);
    if (!chain.ok()) return CreateError(cmd, chain.error(), reply::kBfCannotCreate);
    return chain;
  } catch (const std::bad_alloc&) {
    return CreateError(cmd, Error(ErrorCode::kTooLarge, "out of memory"), reply::kBfCannotCreate);
  }
}

// RedisBloom's texts: a full NONSCALING chain, or a link that cannot be added (its error
// rate, halved once per link, rounds to 0 after about 1,075 links; no memory for it).
// maxmemory's refusal and a MAX_FILTER_BYTES that was given keep their own texts. A
// scaling chain is full only at the most a filter counts (2^63 - 1 items), which
// RedisBloom has no text for: its detail follows the insert text.
std::string AddErrorText(const Command& cmd, const RedisBloomScalableFilter& chain, const Error& error) {
  if (error.code() == ErrorCode::kFull && chain.non_scaling()) return std::string(reply::kNonScalingFull);
  if (error.code() == ErrorCode::kFull) return ReplyError(reply::kInsertProblem, error.message()).message();
  if (!AllocationRefusal().empty()) return AllocationRefusal();
  if (error.code() == ErrorCode::kTooLarge && Config().max_filter_bytes_given) return CoreError(error).message();
  return RbError(cmd, reply::kInsertProblem, error.message()).message();
}

// A rate in (0, 1), above 0.25 taken as 0.25 (RedisBloom 8 logs that it capped it).
double CappedErrorRate(const Command& cmd, double rate) {
  if (rate <= kRedisBloomErrorRateCap) return rate;
  rm.Log(cmd.ctx(), "verbose", "bloomkit: error rate %g is capped at %g", rate, kRedisBloomErrorRateCap);
  return kRedisBloomErrorRateCap;
}

// BF.RESERVE key error_rate capacity [EXPANSION e] [NONSCALING], RedisBloom 8's rules:
// the two keywords are found anywhere after the capacity and other words are ignored;
// EXPANSION 0 (or bf-expansion-factor 0) means NONSCALING, and NONSCALING with another
// expansion is refused.
Result<BfCreateArgs> ParseRbReserve(const Command& cmd) {
  BfCreateArgs out;
  const auto rate = ParseDouble(cmd.arg(2));
  if (!rate) return RbError(cmd, reply::kBadErrorRate, Printable(cmd.arg(2)) + " is not a number");
  if (!(*rate > 0 && *rate < 1)) return RbError(cmd, reply::kErrorRateRange, "got " + std::to_string(*rate));
  out.error_rate = CappedErrorRate(cmd, *rate);
  const auto capacity = ParseInt64(cmd.arg(3));
  if (!capacity) return RbError(cmd, reply::kBadCapacity, Printable(cmd.arg(3)) + " is not an integer");
  if (*capacity < 1 || *capacity > kRedisBloomMaxCapacity) {
    return RbError(cmd, reply::kCapacityRange, "got " + std::to_string(*capacity));
  }
  out.capacity = static_cast<std::uint64_t>(*capacity);
  out.expansion = Config().expansion;
  out.nonscaling = Config().expansion == 0;
  std::size_t expansion_at = 0;
  for (std::size_t i = 4; i < cmd.argc(); ++i) {
    if (EqualsIgnoreCase(cmd.arg(i), "NONSCALING")) out.nonscaling = true;
    if (expansion_at == 0 && EqualsIgnoreCase(cmd.arg(i), "EXPANSION")) expansion_at = i;
  }
  if (expansion_at != 0) {
    if (expansion_at + 1 == cmd.argc()) return RbError(cmd, reply::kNoExpansion, "EXPANSION needs a value");
    const auto e = ParseInt64(cmd.arg(expansion_at + 1));
    if (!e) return RbError(cmd, reply::kBadExpansion, Printable(cmd.arg(expansion_at + 1)) + " is not an integer");
    if (*e == 0) {
      out.nonscaling = true;
    } else if (out.nonscaling) {
      return RbError(cmd, reply::kNonScalingExpand, "EXPANSION " + std::to_string(*e) + " with NONSCALING");
    }
    if (*e < 0 || *e > kRedisBloomMaxExpansion) {
      return RbError(cmd, reply::kExpansionRange, "got " + std::to_string(*e));
    }
    out.expansion = static_cast<std::uint32_t>(*e);
  }
  return out;
}

Status RbBfReserve(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() < 4 || cmd.argc() > 7) return cmd.WrongArity(), Status();
  auto parsed = ParseRbReserve(cmd);
  if (!parsed.ok()) return std::move(parsed).error();
  if (held != Held::kEmpty) return KeyError(held);
  auto chain = CreateChain(cmd, parsed.value());
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
    auto created = CreateChain(cmd, create);
    if (!created.ok()) return std::move(created).error();
    chain = RbStore<RbBloomType>(key, std::move(created).value());
    if (chain == nullptr) return ReplyError(reply::kInternal);
    modified = true;
  }
  if (!multi) {
    auto added = chain->AddIfAbsent(cmd.arg(first));
    if (added.ok() && added.value()) modified = true;
    if (modified) cmd.Replicate();
    if (!added.ok()) return ReplyError(AddErrorText(cmd, *chain, added.error()));
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
  const std::string failure = done < items.size() ? AddErrorText(cmd, *chain, error.error()) : std::string();
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

// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING] ITEMS item...
// with RedisBloom 8's rules: one text per option for a value that does not parse or is
// out of range, EXPANSION 0 means NONSCALING. Returns the index of the first item, 0
// after an arity error (already replied).
Result<std::size_t> ParseRbBfInsert(Command& cmd, BfCreateArgs* create, bool* autocreate) {
  create->error_rate = Config().error_rate;
  create->capacity = Config().initial_size;
  create->expansion = Config().expansion;
  create->nonscaling = false;
  *autocreate = true;
  std::size_t i = 2;
  for (; i < cmd.argc(); ++i) {
    const std::string_view word = cmd.arg(i);
    if (EqualsIgnoreCase(word, "ITEMS")) break;
    if (EqualsIgnoreCase(word, "NOCREATE")) {
      *autocreate = false;
      continue;
    }
    if (EqualsIgnoreCase(word, "NONSCALING")) {
      create->nonscaling = true;
      continue;
    }
    const bool is_error = EqualsIgnoreCase(word, "ERROR");
    const bool is_capacity = EqualsIgnoreCase(word, "CAPACITY");
    if (!is_error && !is_capacity && !EqualsIgnoreCase(word, "EXPANSION")) {
      return RbError(cmd, reply::kUnknownArgument,
                     Printable(word) + " (valid: CAPACITY, ERROR, EXPANSION, NOCREATE, NONSCALING, ITEMS)");
    }
    if (++i == cmd.argc()) return cmd.WrongArity(), std::size_t{0};
    const std::string_view value = cmd.arg(i);
    if (is_error) {
      const auto rate = ParseDouble(value);
      if (!rate || !(*rate > 0 && *rate < 1)) {
        return RbError(cmd, reply::kInsertBadErrorRate, Printable(value) + " is not a number in (0, 1)");
      }
      create->error_rate = CappedErrorRate(cmd, *rate);
    } else if (is_capacity) {
      const auto capacity = ParseInt64(value);
      if (!capacity || *capacity < 1 || *capacity > kRedisBloomMaxCapacity) {
        return RbError(cmd, reply::kInsertBadCapacity, Printable(value) + " is not an integer in [1, 1073741824]");
      }
      create->capacity = static_cast<std::uint64_t>(*capacity);
    } else {
      const auto e = ParseInt64(value);
      if (!e || *e < 0 || *e > kRedisBloomMaxExpansion) {
        return RbError(cmd, reply::kInsertBadExpansion, Printable(value) + " is not an integer in [0, 32768]");
      }
      create->expansion = static_cast<std::uint32_t>(*e);
    }
  }
  if (i + 1 >= cmd.argc()) return cmd.WrongArity(), std::size_t{0};
  if (create->expansion == 0) create->nonscaling = true;
  return i + 1;
}

Status RbBfInsert(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() < 4) return cmd.WrongArity(), Status();
  BfCreateArgs create;
  bool autocreate = true;
  auto first = ParseRbBfInsert(cmd, &create, &autocreate);
  if (!first.ok()) return std::move(first).error();
  if (first.value() == 0) return {};
  return RbBfAddItems(cmd, key, held, create, autocreate, first.value(), /*multi=*/true);
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
  if (!field.ok()) return RbError(cmd, reply::kInvalidInfoValue, field.error().message());
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
    // RedisBloom answers every header it cannot use, memory included, with "received bad data".
    Result<RedisBloomScalableFilter> chain = Error(ErrorCode::kTooLarge, "out of memory");
    try {
      chain = RedisBloomFromHeaderChunk(data, RbLoadOptions());
    } catch (const std::bad_alloc&) {
    }
    if (!chain.ok()) {
      if (!AllocationRefusal().empty()) return ReplyError(AllocationRefusal());
      if (chain.error().code() == ErrorCode::kTooLarge && Config().max_filter_bytes_given) {
        return CoreError(chain.error());
      }
      return RbError(cmd, reply::kRbBadData, chain.error().message());
    }
    if (RbStore<RbBloomType>(key, std::move(chain).value()) == nullptr) return ReplyError(reply::kInternal);
    cmd.Replicate();
    cmd.Ok();
    return {};
  }
  if (held != Held::kRedisBloom) return KeyError(held);
  if (*iterator == 1) return ReplyError(reply::kItemExists);
  // RedisBloom's three texts: an iterator that cannot end this chunk, a start outside
  // every link, a chunk that runs past its link's end.
  if (data.empty() || *iterator <= 0 || static_cast<std::uint64_t>(*iterator) < data.size()) {
    return RbError(
        cmd, reply::kRbBadData,
        "iterator " + std::to_string(*iterator) + " for a chunk of " + std::to_string(data.size()) + " bytes");
  }
  const std::int64_t start = *iterator - static_cast<std::int64_t>(data.size());
  if (NextRedisBloomChunk(Chain(key), start, 1).next_iterator == 0) {
    return RbError(cmd, reply::kRbNoLink, "no link holds byte " + std::to_string(start - 1));
  }
  if (auto loaded = LoadRedisBloomChunk(Chain(key), *iterator, data); !loaded.ok()) {
    return RbError(cmd, reply::kRbChunkTooBig, loaded.error().message());
  }
  cmd.Replicate();
  cmd.Ok();
  return {};
}

// Cuckoo --------------------------------------------------------------------------------

RedisCuckooFilter& Cuckoo(const OpenKey& key) noexcept {
  return *RbValueOf<RbCuckooType>(key);
}

Result<RedisCuckooFilter> CreateCuckoo(const Command& cmd, const CfCreateArgs& args) {
  RedisCuckooOptions options;
  options.capacity = args.capacity;
  options.bucket_size = args.bucket_size;
  options.max_iterations = args.max_iterations;
  options.expansion = args.expansion;
  options.max_memory_bytes = RedisBloomFilterLimit(Config());
  try {
    auto filter = RedisCuckooFilter::Create(options);
    if (!filter.ok()) return CreateError(cmd, filter.error(), reply::kCfCannotCreate);
    return filter;
  } catch (const std::bad_alloc&) {
    return CreateError(cmd, Error(ErrorCode::kTooLarge, "out of memory"), reply::kCfCannotCreate);
  }
}

CfCreateArgs CfDefaults() {
  CfCreateArgs args;
  args.capacity = Config().cf_initial_size;
  args.bucket_size = std::min<std::uint32_t>(Config().cf_bucket_size, kRedisCuckooMaxBucketSize);
  args.max_iterations = std::min<std::uint32_t>(Config().cf_max_iterations, kRedisCuckooMaxIterations);
  args.expansion = std::min<std::uint32_t>(Config().cf_expansion, kRedisCuckooMaxExpansion);
  return args;
}

// RedisBloom 8's cross-limits between cf-bucket-size and cf-initial-size: a bucket size
// at most half the initial size (and 255), a capacity at least twice the bucket size.
std::int64_t CfMaxBucketSize() noexcept {
  return std::min<std::int64_t>(static_cast<std::int64_t>(Config().cf_initial_size / 2), kRedisCuckooMaxBucketSize);
}
std::int64_t CfMinCapacity() noexcept {
  return std::int64_t{2} * Config().cf_bucket_size;
}

// CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e], RedisBloom 8's
// ranges: iterations 1..65535, bucket size 1..min(cf-initial-size / 2, 255), expansion
// 0..32768, capacity 2 x BUCKETSIZE..2^30. Each keyword is found wherever it is; other
// words are ignored, as RedisBloom does.
Result<CfCreateArgs> ParseRbCfReserve(const Command& cmd) {
  CfCreateArgs out = CfDefaults();
  const auto capacity = ParseInt64(cmd.arg(2));
  if (!capacity) return RbError(cmd, reply::kCfBadCapacity, Printable(cmd.arg(2)) + " is not an integer");
  auto find = [&](std::string_view word) -> std::size_t {
    for (std::size_t i = 3; i + 1 < cmd.argc(); ++i) {
      if (EqualsIgnoreCase(cmd.arg(i), word)) return i + 1;
    }
    return 0;
  };
  if (const std::size_t at = find("MAXITERATIONS"); at != 0) {
    const auto v = ParseInt64(cmd.arg(at));
    if (!v) return RbError(cmd, reply::kCfBadMaxIterations, Printable(cmd.arg(at)) + " is not an integer");
    if (*v < 1 || *v > kRedisCuckooMaxIterations) {
      return RbError(cmd, reply::kCfMaxIterationsRange, "got " + std::to_string(*v));
    }
    out.max_iterations = static_cast<std::uint32_t>(*v);
  }
  if (const std::size_t at = find("BUCKETSIZE"); at != 0) {
    const auto v = ParseInt64(cmd.arg(at));
    if (!v) return RbError(cmd, reply::kCfBadBucketSize, Printable(cmd.arg(at)) + " is not an integer");
    if (*v < 1 || *v > CfMaxBucketSize()) {
      char text[96];
      std::snprintf(text, sizeof(text), reply::kCfBucketSizeRangeFormat.data(), 1LL,
                    static_cast<long long>(CfMaxBucketSize()));
      return RbError(cmd, text, "got " + std::to_string(*v));
    }
    out.bucket_size = static_cast<std::uint32_t>(*v);
  }
  if (const std::size_t at = find("EXPANSION"); at != 0) {
    const auto v = ParseInt64(cmd.arg(at));
    if (!v) return RbError(cmd, reply::kCfBadExpansion, Printable(cmd.arg(at)) + " is not an integer");
    if (*v < 0 || *v > kRedisCuckooMaxExpansion) {
      return RbError(cmd, reply::kCfExpansionRange, "got " + std::to_string(*v));
    }
    out.expansion = static_cast<std::uint32_t>(*v);
  }
  if (*capacity < 2 * static_cast<std::int64_t>(out.bucket_size) || *capacity > kRedisBloomMaxCapacity) {
    return RbError(cmd, reply::kCfCapacityRange,
                   "capacity " + std::to_string(*capacity) + ", bucket size " + std::to_string(out.bucket_size));
  }
  out.capacity = static_cast<std::uint64_t>(*capacity);
  return out;
}

Status RbCfReserve(Command& cmd, const OpenKey& key, Held held) {
  if (cmd.argc() < 3 || cmd.argc() % 2 == 0) return cmd.WrongArity(), Status();
  auto parsed = ParseRbCfReserve(cmd);
  if (!parsed.ok()) return std::move(parsed).error();
  if (held != Held::kEmpty) return KeyError(held);
  auto filter = CreateCuckoo(cmd, parsed.value());
  if (!filter.ok()) return std::move(filter).error();
  if (RbStore<RbCuckooType>(key, std::move(filter).value()) == nullptr) return ReplyError(reply::kInternal);
  cmd.Replicate();
  cmd.Ok();
  return {};
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
    auto created = CreateCuckoo(cmd, create);
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
      if (no_memory.empty()) {
        // RedisBloom: "ERR Insufficient memory" when a new sub-filter cannot be had.
        if (!AllocationRefusal().empty() ||
            (status.error().code() == ErrorCode::kTooLarge && Config().max_filter_bytes_given)) {
          no_memory = CoreError(status.error()).message();
        } else {
          no_memory = RbError(cmd, reply::kCfNoMemory, status.error().message()).message();
        }
      }
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

// CF.INSERT / CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS item..., RedisBloom 8's
// rules: a capacity in [2 x cf-bucket-size, 2^30].
Status RbCfInsertCommon(Command& cmd, const OpenKey& key, Held held, bool nx) {
  if (cmd.argc() < 4) return cmd.WrongArity(), Status();
  CfCreateArgs create = CfDefaults();
  bool autocreate = true;
  std::size_t i = 2;
  for (; i < cmd.argc(); ++i) {
    const std::string_view word = cmd.arg(i);
    if (EqualsIgnoreCase(word, "ITEMS")) break;
    if (EqualsIgnoreCase(word, "NOCREATE")) {
      autocreate = false;
    } else if (EqualsIgnoreCase(word, "CAPACITY")) {
      if (++i == cmd.argc()) return cmd.WrongArity(), Status();
      const auto v = ParseInt64(cmd.arg(i));
      if (!v) return RbError(cmd, reply::kCfBadCapacity, Printable(cmd.arg(i)) + " is not an integer");
      if (*v < CfMinCapacity() || *v > kRedisBloomMaxCapacity) {
        return RbError(
            cmd, reply::kCfInsertCapacityRange,
            "capacity " + std::to_string(*v) + ", cf-bucket-size " + std::to_string(Config().cf_bucket_size));
      }
      create.capacity = static_cast<std::uint64_t>(*v);
    } else {
      return RbError(cmd, reply::kUnknownArgument, Printable(word) + " (valid: CAPACITY, NOCREATE, ITEMS)");
    }
  }
  if (i + 1 >= cmd.argc()) return cmd.WrongArity(), Status();
  return RbCfAddItems(cmd, key, held, create, autocreate, i + 1, /*multi=*/true, nx);
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
      return RbError(cmd, reply::kRbCfInvalidHeader, std::to_string(data.size()) + " bytes, not 38");
    }
    Result<RedisCuckooFilter> filter = Error(ErrorCode::kTooLarge, "out of memory");
    try {
      filter = RedisCuckooFromHeaderChunk(data, RbLoadOptions());
    } catch (const std::bad_alloc&) {
    }
    if (!filter.ok()) {
      if (!AllocationRefusal().empty()) return ReplyError(AllocationRefusal());
      if (filter.error().code() == ErrorCode::kTooLarge && Config().max_filter_bytes_given) {
        return CoreError(filter.error());
      }
      return RbError(cmd, reply::kRbCfCannotCreate, filter.error().message());
    }
    if (RbStore<RbCuckooType>(key, std::move(filter).value()) == nullptr) return ReplyError(reply::kInternal);
    cmd.Replicate();
    cmd.Ok();
    return {};
  }
  if (held != Held::kRedisBloom) return KeyError(held);
  if (auto loaded = LoadRedisCuckooChunk(Cuckoo(key), *iterator, data); !loaded.ok()) {
    return RbError(cmd, reply::kRbCfBadChunk, loaded.error().message());
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
