// SPDX-License-Identifier: Apache-2.0
// BF.*: RedisBloom's Bloom filter commands, each written once against a format: the key's
// type picks it (RouteBloom below; redisbloom_type.h, UsesRedisBloom):
//
//   NativeBloom      type bloomkitB: bloomkit::ScalableBloomFilter, bloomkit's texts
//   RedisBloomBloom  type MBbloom--: bloomkit::RedisBloomScalableFilter, RedisBloom 2.8's
//                    arguments, replies and error texts (byte-compatible RDB, DUMP, chunks)
//   ForeignBloom     types bloomkitG, bloomkitJ, bloomkitP: another library's filter
//                    (bits-and-blooms, Guava, Parquet), answering as that library does;
//                    made only by BF.LOADCHUNK of a bloomkit dump of that kind, RESTORE
//                    or RDB, never created empty
//
// Reply shapes follow RedisBloom: booleans (integers under RESP2) for ADD/EXISTS and
// their multi forms, a map (flat array under RESP2) for INFO. BF.MERGE is bloomkit's
// own (native keys only); BF.DEBUG exists for RedisBloom-format keys only.
#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "bloomkit/format.h"
#include "commands.h"
#include "format.h"
#include "native_chunks.h"

namespace bloomkit::redis {
namespace {

// ---- The two formats ----------------------------------------------------------------

// The figures of BF.INFO.
struct BloomInfo {
  std::uint64_t capacity = 0;
  std::uint64_t size = 0;
  std::uint64_t filters = 0;
  std::uint64_t items = 0;
  bool non_scaling = false;
  std::uint64_t expansion = 0;
};

struct NativeBloom {
  using Filter = ScalableBloomFilter;
  static constexpr Held kHeld = Held::kNative;
  static RedisModuleType* type() noexcept { return BfFamily::type; }
  // BF.EXISTS on a key of another type: WRONGTYPE.
  static constexpr bool kForeignIsEmpty = false;

  static FilterValue<Filter>& ValueAt(const OpenKey& key) noexcept {
    return *static_cast<FilterValue<Filter>*>(key.value());
  }
  static bool Loading(const OpenKey& key) noexcept { return !ValueAt(key).ready(); }
  static Filter& Get(const OpenKey& key) noexcept { return ValueAt(key).filter(); }

  static Result<BfCreateArgs> ParseReserve(const Command& cmd) { return ParseBfReserve(cmd.args_from(2), Config()); }
  static Result<BfInsertArgs> ParseInsert(const Command& cmd) {
    auto parsed = ParseBfInsert(cmd.args_from(2), Config());
    if (!parsed.ok() && parsed.error().code() == kArityError) return WrongArity();
    if (parsed.ok()) parsed->first_item += 2;
    return parsed;
  }

  static Result<Filter*> Create(const Command& /*cmd*/, const OpenKey& key, const BfCreateArgs& args) {
    ScalableOptions options;
    options.initial_capacity = args.capacity;
    options.fp_rate = args.error_rate;
    options.expansion = args.expansion == 0 ? 1 : args.expansion;  // 0: NONSCALING (RedisBloom 8)
    options.tightening = 0.5;
    options.non_scaling = args.nonscaling;
    // RedisBloom grows a chain until memory runs out; here MAX_FILTER_BYTES bounds it.
    options.max_stages = kMaxScalableStages;
    options.max_memory_bytes = Config().max_filter_bytes;
    auto filter = ScalableBloomFilter::Create(options);
    if (!filter.ok()) return CoreError(filter.error());
    auto* value = StoreNew<BfFamily>(key, std::move(filter).value());
    if (value == nullptr) return ReplyError(reply::kInternal);
    return &value->filter();
  }

  // A full NONSCALING filter, a scaling one that cannot add its next stage (its rate
  // would need more than 64 hashes), or a limit (MAX_FILTER_BYTES, maxmemory).
  static std::string AddErrorText(const Command& /*cmd*/, const Filter& filter, const Error& error) {
    if (error.code() == ErrorCode::kFull) {
      if (filter.options().non_scaling) return std::string(reply::kNonScalingFull);
      return ReplyError(reply::kInsertProblem, error.message()).message();
    }
    return CoreError(error).message();
  }

  static BloomInfo Info(const OpenKey& key) noexcept {
    const Filter& f = Get(key);
    return {.capacity = f.capacity(),
            .size = ValueMemory<BfFamily>(ValueAt(key)),
            .filters = f.num_stages(),
            .items = f.count(),
            .non_scaling = f.options().non_scaling,
            .expansion = f.options().expansion};
  }
  static Error InfoFieldError(const Command& /*cmd*/, const Error& error) { return error; }

  static Status Debug(Command& /*cmd*/, const Key<NativeBloom>& /*key*/) { return ReplyError(reply::kWrongType); }
  static Status ScanDump(Command& cmd, const Key<NativeBloom>& /*key*/) { return redis::ScanDump<BfFamily>(cmd); }
  static Status LoadChunk(Command& cmd, const Key<NativeBloom>& /*key*/) { return redis::LoadChunk<BfFamily>(cmd); }
};

struct RedisBloomBloom {
  using Filter = RedisBloomScalableFilter;
  static constexpr Held kHeld = Held::kRedisBloom;
  static RedisModuleType* type() noexcept { return RbBloomType::type; }
  static bool IsHeaderChunk(std::span<const std::byte> data) {
    return RedisBloomFromHeaderChunk(data, RbLoadOptions()).ok();
  }
  // RedisBloom answers BF.EXISTS on a key of another type with 0.
  static constexpr bool kForeignIsEmpty = true;

  static bool Loading(const OpenKey& /*key*/) noexcept { return false; }
  static Filter& Get(const OpenKey& key) noexcept { return *RbValueOf<RbBloomType>(key); }

  static Result<BfCreateArgs> ParseReserve(const Command& cmd);
  static Result<BfInsertArgs> ParseInsert(const Command& cmd);

  static Result<Filter*> Create(const Command& cmd, const OpenKey& key, const BfCreateArgs& args) {
    RedisBloomOptions options;
    options.capacity = args.capacity;
    options.fp_rate = args.error_rate;
    options.expansion = args.expansion;
    options.non_scaling = args.nonscaling;
    options.max_memory_bytes = RedisBloomFilterLimit(Config());
    return RbCreateStored<RbBloomType>(cmd, key, options, reply::kBfCannotCreate);
  }

  // RedisBloom's texts: a full NONSCALING chain, or a link that cannot be added (its
  // error rate, halved once per link, rounds to 0 after about 1,075 links; no memory for
  // it). maxmemory's refusal and a MAX_FILTER_BYTES that was given keep their own texts.
  // A scaling chain is full only at the most a filter counts (2^63 - 1 items), which
  // RedisBloom has no text for: its detail follows the insert text.
  static std::string AddErrorText(const Command& cmd, const Filter& chain, const Error& error) {
    if (error.code() == ErrorCode::kFull && chain.non_scaling()) return std::string(reply::kNonScalingFull);
    if (error.code() == ErrorCode::kFull) return ReplyError(reply::kInsertProblem, error.message()).message();
    if (!AllocationRefusal().empty()) return AllocationRefusal();
    if (error.code() == ErrorCode::kTooLarge && Config().max_filter_bytes_given) return CoreError(error).message();
    return RbError(cmd, reply::kInsertProblem, error.message()).message();
  }

  // Size is RedisBloom's figure for the same chain.
  static BloomInfo Info(const OpenKey& key) noexcept {
    const Filter& f = Get(key);
    return {.capacity = f.capacity(),
            .size = f.redisbloom_size(),
            .filters = f.num_stages(),
            .items = f.count(),
            .non_scaling = f.non_scaling(),
            .expansion = f.expansion()};
  }
  static Error InfoFieldError(const Command& cmd, const Error& error) {
    return RbError(cmd, reply::kInvalidInfoValue, error.message());
  }

  static Status Debug(Command& cmd, const Key<RedisBloomBloom>& key);
  static Status ScanDump(Command& cmd, const Key<RedisBloomBloom>& key);
  static Status LoadChunk(Command& cmd, const Key<RedisBloomBloom>& key);
};

// A key holding another library's filter (filter_value.h: BitsAndBloomsFamily, ...):
// one fixed-size filter that hashes as its library does, so BF.EXISTS, BF.MEXISTS and
// BF.ADD answer as the library's Test and TestAndAdd would, false positives included.
// It never grows: BF.INFO shows one filter and no expansion.
template <typename Family>
struct ForeignBloom {
  using Filter = typename Family::Filter;
  static constexpr Held kHeld = Held::kNative;
  static RedisModuleType* type() noexcept { return Family::type; }
  static constexpr bool kForeignIsEmpty = false;

  static FilterValue<Filter>& ValueAt(const OpenKey& key) noexcept {
    return *static_cast<FilterValue<Filter>*>(key.value());
  }
  static bool Loading(const OpenKey& key) noexcept { return !ValueAt(key).ready(); }
  static Filter& Get(const OpenKey& key) noexcept { return ValueAt(key).filter(); }

  static Result<BfCreateArgs> ParseReserve(const Command& cmd) { return NativeBloom::ParseReserve(cmd); }
  static Result<BfInsertArgs> ParseInsert(const Command& cmd) { return NativeBloom::ParseInsert(cmd); }
  // Commands reach this format only for a key that holds such a filter, so nothing
  // creates one; kept for the shared handlers.
  static Result<Filter*> Create(const Command& /*cmd*/, const OpenKey& /*key*/, const BfCreateArgs& /*args*/) {
    return ReplyError(reply::kItemExists);
  }
  static std::string AddErrorText(const Command& /*cmd*/, const Filter& /*filter*/, const Error& error) {
    return CoreError(error).message();
  }
  static BloomInfo Info(const OpenKey& key) noexcept {
    const Filter& f = Get(key);
    return {.capacity = f.capacity(),
            .size = ValueMemory<Family>(ValueAt(key)),
            .filters = 1,
            .items = f.count(),
            .non_scaling = true,
            .expansion = 0};
  }
  static Error InfoFieldError(const Command& /*cmd*/, const Error& error) { return error; }

  static Status Debug(Command& /*cmd*/, const Key<ForeignBloom>& /*key*/) { return ReplyError(reply::kWrongType); }
  static Status ScanDump(Command& cmd, const Key<ForeignBloom>& /*key*/) { return redis::ScanDump<Family>(cmd); }
  static Status LoadChunk(Command& cmd, const Key<ForeignBloom>& /*key*/) { return redis::LoadChunk<Family>(cmd); }
};

// BF.RESERVE key error_rate capacity [EXPANSION e] [NONSCALING], RedisBloom 8's rules:
// the two keywords are found anywhere after the capacity and other words are ignored;
// EXPANSION 0 (or bf-expansion-factor 0) means NONSCALING, and NONSCALING with another
// expansion is refused.
Result<BfCreateArgs> RedisBloomBloom::ParseReserve(const Command& cmd) {
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

// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING] ITEMS item...
// with RedisBloom 8's rules: one text per option for a value that does not parse or is
// out of range, EXPANSION 0 means NONSCALING.
Result<BfInsertArgs> RedisBloomBloom::ParseInsert(const Command& cmd) {
  BfInsertArgs out;
  BfCreateArgs& create = out.create;
  create.error_rate = Config().error_rate;
  create.capacity = Config().initial_size;
  create.expansion = Config().expansion;
  create.nonscaling = false;
  std::size_t i = 2;
  for (; i < cmd.argc(); ++i) {
    const std::string_view word = cmd.arg(i);
    if (EqualsIgnoreCase(word, "ITEMS")) break;
    if (EqualsIgnoreCase(word, "NOCREATE")) {
      out.nocreate = true;
      continue;
    }
    if (EqualsIgnoreCase(word, "NONSCALING")) {
      create.nonscaling = true;
      continue;
    }
    const bool is_error = EqualsIgnoreCase(word, "ERROR");
    const bool is_capacity = EqualsIgnoreCase(word, "CAPACITY");
    if (!is_error && !is_capacity && !EqualsIgnoreCase(word, "EXPANSION")) {
      return RbError(cmd, reply::kUnknownArgument,
                     Printable(word) + " (valid: CAPACITY, ERROR, EXPANSION, NOCREATE, NONSCALING, ITEMS)");
    }
    if (++i == cmd.argc()) return WrongArity();
    const std::string_view value = cmd.arg(i);
    if (is_error) {
      const auto rate = ParseDouble(value);
      if (!rate || !(*rate > 0 && *rate < 1)) {
        return RbError(cmd, reply::kInsertBadErrorRate, Printable(value) + " is not a number in (0, 1)");
      }
      create.error_rate = CappedErrorRate(cmd, *rate);
    } else if (is_capacity) {
      const auto capacity = ParseInt64(value);
      if (!capacity || *capacity < 1 || *capacity > kRedisBloomMaxCapacity) {
        return RbError(cmd, reply::kInsertBadCapacity, Printable(value) + " is not an integer in [1, 1073741824]");
      }
      create.capacity = static_cast<std::uint64_t>(*capacity);
    } else {
      const auto e = ParseInt64(value);
      if (!e || *e < 0 || *e > kRedisBloomMaxExpansion) {
        return RbError(cmd, reply::kInsertBadExpansion, Printable(value) + " is not an integer in [0, 32768]");
      }
      create.expansion = static_cast<std::uint32_t>(*e);
    }
  }
  if (i + 1 >= cmd.argc()) return WrongArity();
  if (create.expansion == 0) create.nonscaling = true;
  out.first_item = i + 1;
  return out;
}

// BF.DEBUG key: "size:<items>", then per link "bytes:.. bits:.. hashes:.. hashwidth:..
// capacity:.. size:.. ratio:..".
Status RedisBloomBloom::Debug(Command& cmd, const Key<RedisBloomBloom>& key) {
  if (key.held != Held::kRedisBloom) return RbKeyError(key.held);
  const Filter& f = key.filter();
  char line[256];
  cmd.Array(static_cast<long>(1 + f.num_stages()));
  int n = std::snprintf(line, sizeof(line), "size:%" PRIu64, f.count());
  cmd.Bytes(AsBytes(std::string_view(line, static_cast<std::size_t>(n))));
  const unsigned width = (f.option_bits() & kRedisBloomForce64) != 0 ? 64 : 32;
  for (std::size_t i = 0; i < f.num_stages(); ++i) {
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
Status RedisBloomBloom::ScanDump(Command& cmd, const Key<RedisBloomBloom>& key) {
  if (key.held != Held::kRedisBloom) return RbKeyError(key.held);
  const auto iterator = ParseInt64(cmd.arg(2));
  if (!iterator) return ReplyError(reply::kRbIteratorNotNumeric);
  const Filter& f = key.filter();
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
Status RedisBloomBloom::LoadChunk(Command& cmd, const Key<RedisBloomBloom>& key) {
  const auto iterator = ParseInt64(cmd.arg(2));
  if (!iterator) return ReplyError(reply::kBfIteratorNotNumeric);
  const auto data = AsBytes(cmd.arg(3));
  if (key.held == Held::kEmpty && *iterator == 1) {
    // RedisBloom answers every header it cannot use, memory included, with "received bad data".
    Result<Filter> chain = Error(ErrorCode::kTooLarge, "out of memory");
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
    if (RbStore<RbBloomType>(key.open, std::move(chain).value()) == nullptr) return ReplyError(reply::kInternal);
    cmd.Replicate();
    cmd.Ok();
    return {};
  }
  if (key.held != Held::kRedisBloom) return RbKeyError(key.held);
  if (*iterator == 1) return ReplyError(reply::kItemExists);
  // RedisBloom's three texts: an iterator that cannot end this chunk, a start outside
  // every link, a chunk that runs past its link's end.
  if (data.empty() || *iterator <= 0 || static_cast<std::uint64_t>(*iterator) < data.size()) {
    return RbError(
        cmd, reply::kRbBadData,
        "iterator " + std::to_string(*iterator) + " for a chunk of " + std::to_string(data.size()) + " bytes");
  }
  const std::int64_t start = *iterator - static_cast<std::int64_t>(data.size());
  if (NextRedisBloomChunk(key.filter(), start, 1).next_iterator == 0) {
    return RbError(cmd, reply::kRbNoLink, "no link holds byte " + std::to_string(start - 1));
  }
  if (auto loaded = LoadRedisBloomChunk(key.filter(), *iterator, data); !loaded.ok()) {
    return RbError(cmd, reply::kRbChunkTooBig, loaded.error().message());
  }
  cmd.Replicate();
  cmd.Ok();
  return {};
}

// ---- The commands ---------------------------------------------------------------------

// Multi-item commands hand the core groups of items: its batch forms hash a group first
// and prefetch every cache line their probes touch, so that the k misses of the items
// overlap instead of queueing (on a filter larger than the cache, most of a BF.MADD's
// time), and they hash exactly as the single-item calls do.
constexpr std::size_t kGroup = 16;

// The items [begin, end) of the command (at most kGroup).
std::span<const std::string_view> ItemGroup(const Command& cmd, std::size_t begin, std::size_t end,
                                            std::array<std::string_view, kGroup>& out) {
  for (std::size_t i = begin; i < end; ++i) out[i - begin] = cmd.arg(i);
  return std::span<const std::string_view>(out.data(), end - begin);
}

// Adds a group of items in order, as the filter's AddIfAbsentBatch does; a filter
// without one (another library's, which cannot fail) adds them one by one.
template <typename Filter>
std::size_t AddGroup(Filter& filter, std::span<const std::string_view> group, std::span<bool> added, Status* error) {
  if constexpr (requires { filter.AddIfAbsentBatch(group, added, error); }) {
    return filter.AddIfAbsentBatch(group, added, error);
  } else {
    for (std::size_t i = 0; i < group.size(); ++i) {
      auto one = filter.AddIfAbsent(group[i]);
      if (!one.ok()) {
        *error = std::move(one).error();
        return i;
      }
      added[i] = one.value();
    }
    return group.size();
  }
}

// BF.ADD / BF.MADD / BF.INSERT after parsing: find or create, add, reply.
template <typename F>
Status AddItems(Command& cmd, const Key<F>& key, const BfCreateArgs& create, bool autocreate, std::size_t first,
                bool multi) {
  bool modified = false;
  auto found = ForAdd(cmd, key, create, autocreate, &modified);
  if (!found.ok()) return std::move(found).error();
  typename F::Filter& filter = *found.value();
  if (!multi) {  // BF.ADD: the hot path, no allocation
    auto added = filter.AddIfAbsent(cmd.arg(first));
    if (added.ok() && added.value()) modified = true;
    if (modified) cmd.Replicate();
    if (!added.ok()) return ReplyError(F::AddErrorText(cmd, filter, added.error()));
    cmd.Bool(added.value());
    return {};
  }
  // Added in order, stopping at the first error (as RedisBloom does when a non-scaling
  // filter fills up: the reply array ends with that error).
  std::vector<bool> answers;
  answers.reserve(cmd.argc() - first);
  std::string error_text;
  std::array<std::string_view, kGroup> items{};
  std::array<bool, kGroup> added{};
  for (std::size_t begin = first; begin < cmd.argc() && error_text.empty(); begin += kGroup) {
    const std::size_t end = std::min(cmd.argc(), begin + kGroup);
    Status error;
    const std::size_t done = AddGroup(filter, ItemGroup(cmd, begin, end, items), added, &error);
    for (std::size_t i = 0; i < done; ++i) {
      answers.push_back(added[i]);
      if (added[i]) modified = true;
    }
    if (!error.ok()) error_text = F::AddErrorText(cmd, filter, error.error());
  }
  if (modified) cmd.Replicate();
  cmd.Array(static_cast<long>(answers.size() + (error_text.empty() ? 0 : 1)));
  for (const bool a : answers) cmd.Bool(a);
  if (!error_text.empty()) cmd.ErrorReply(error_text);
  return {};
}

template <typename F>
Status Add(Command& cmd, const Key<F>& key) {
  return AddItems(cmd, key, BfDefaultCreateArgs(), /*autocreate=*/true, 2, /*multi=*/false);
}

template <typename F>
Status Madd(Command& cmd, const Key<F>& key) {
  return AddItems(cmd, key, BfDefaultCreateArgs(), /*autocreate=*/true, 2, /*multi=*/true);
}

template <typename F>
Status Insert(Command& cmd, const Key<F>& key) {
  auto args = F::ParseInsert(cmd);
  if (!args.ok()) return std::move(args).error();
  return AddItems(cmd, key, args->create, !args->nocreate, args->first_item, /*multi=*/true);
}

template <typename F>
Status Exists(Command& cmd, const Key<F>& key) {
  auto found = Maybe(key, F::kForeignIsEmpty);
  if (!found.ok()) return std::move(found).error();
  const typename F::Filter* filter = found.value();
  cmd.Bool(filter != nullptr && filter->MayContain(cmd.arg(2)));
  return {};
}

template <typename F>
Status Mexists(Command& cmd, const Key<F>& key) {
  auto found = Maybe(key, F::kForeignIsEmpty);
  if (!found.ok()) return std::move(found).error();
  const typename F::Filter* filter = found.value();
  cmd.Array(static_cast<long>(cmd.argc() - 2));
  std::array<std::string_view, kGroup> items{};
  std::array<bool, kGroup> present{};
  for (std::size_t begin = 2; begin < cmd.argc(); begin += kGroup) {
    const std::size_t end = std::min(cmd.argc(), begin + kGroup);
    if (filter == nullptr) {
      for (std::size_t i = begin; i < end; ++i) cmd.Bool(false);
      continue;
    }
    const auto group = ItemGroup(cmd, begin, end, items);
    filter->MayContainBatch(group, present);
    for (std::size_t i = 0; i < group.size(); ++i) cmd.Bool(present[i]);
  }
  return {};
}

// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]: all five as a map (a flat
// array under RESP2), one as a one-entry map under RESP3 and a one-element array under
// RESP2.
template <typename F>
Status Info(Command& cmd, const Key<F>& key) {
  if (auto found = Need(key); !found.ok()) return std::move(found).error();
  auto field = ParseBfInfoField(cmd.args_from(2));
  if (!field.ok()) return F::InfoFieldError(cmd, field.error());
  const BloomInfo info = F::Info(key.open);
  auto value = [&](BfInfoField which) {
    switch (which) {
      case BfInfoField::kCapacity: cmd.Int(static_cast<long long>(info.capacity)); break;
      case BfInfoField::kSize: cmd.Int(static_cast<long long>(info.size)); break;
      case BfInfoField::kFilters: cmd.Int(static_cast<long long>(info.filters)); break;
      case BfInfoField::kItems: cmd.Int(static_cast<long long>(info.items)); break;
      case BfInfoField::kExpansion:
        if (!info.non_scaling) {
          cmd.Int(static_cast<long long>(info.expansion));
        } else {
          cmd.Null();
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

template <typename F>
Status Card(Command& cmd, const Key<F>& key) {
  auto found = Maybe(key, /*foreign_is_empty=*/false);
  if (!found.ok()) return std::move(found).error();
  cmd.Int(found.value() != nullptr ? static_cast<long long>(found.value()->count()) : 0);
  return {};
}

// Runs `run(key)` with the key as its format sees it: another library's filter by its
// type, otherwise native or RedisBloom (Route in format.h).
template <typename Run>
Status RouteBloom(Command& cmd, Run&& run) {
  const OpenKey& key = cmd.key();
  if (RedisModuleType* type = key.type(); type != nullptr) {
    if (type == BitsAndBloomsFamily::type) return run(Key<ForeignBloom<BitsAndBloomsFamily>>{key, Held::kNative});
    if (type == GuavaFamily::type) return run(Key<ForeignBloom<GuavaFamily>>{key, Held::kNative});
    if (type == ParquetFamily::type) return run(Key<ForeignBloom<ParquetFamily>>{key, Held::kNative});
  }
  const Held held = KeyHolds(key, RedisBloomBloom::type(), NativeBloom::type());
  if (UsesRedisBloom(held)) return run(Key<RedisBloomBloom>{key, held});
  return run(Key<NativeBloom>{key, held});
}

// The kind a BF.LOADCHUNK header chunk announces when it is a bloomkit dump of another
// library's filter (which then creates a key of that family's type).
std::optional<FilterKind> ForeignHeaderKind(const Command& cmd) {
  if (cmd.arg(2) != "1" || cmd.arg(3).size() != kDumpHeaderBytes) return std::nullopt;
  auto header = PeekHeader(AsBytes(cmd.arg(3)));
  if (!header.ok()) return std::nullopt;
  const FilterKind kind = header->kind;
  if (kind == FilterKind::kBitsAndBlooms || kind == FilterKind::kGuava || kind == FilterKind::kParquet) return kind;
  return std::nullopt;
}

}  // namespace

BfCreateArgs BfDefaultCreateArgs() {
  BfCreateArgs args;
  args.error_rate = Config().error_rate;
  args.capacity = Config().initial_size;
  args.expansion = Config().expansion;
  args.nonscaling = Config().expansion == 0;  // bf-expansion-factor 0: NONSCALING, as RedisBloom 8
  return args;
}

// The entry points of the command table.
Status BfReserve(Command& cmd) {
  return RouteBloom(cmd, [&cmd](const auto& key) { return Reserve(cmd, key); });
}
Status BfAdd(Command& cmd) {
  return RouteBloom(cmd, [&cmd](const auto& key) { return Add(cmd, key); });
}
Status BfMadd(Command& cmd) {
  return RouteBloom(cmd, [&cmd](const auto& key) { return Madd(cmd, key); });
}
Status BfInsert(Command& cmd) {
  return RouteBloom(cmd, [&cmd](const auto& key) { return Insert(cmd, key); });
}
Status BfExists(Command& cmd) {
  return RouteBloom(cmd, [&cmd](const auto& key) { return Exists(cmd, key); });
}
Status BfMexists(Command& cmd) {
  return RouteBloom(cmd, [&cmd](const auto& key) { return Mexists(cmd, key); });
}
Status BfInfo(Command& cmd) {
  return RouteBloom(cmd, [&cmd](const auto& key) { return Info(cmd, key); });
}
Status BfCard(Command& cmd) {
  return RouteBloom(cmd, [&cmd](const auto& key) { return Card(cmd, key); });
}
Status BfDebug(Command& cmd) {
  return RouteBloom(cmd,
                    [&cmd](const auto& key) { return std::remove_cvref_t<decltype(key)>::Format::Debug(cmd, key); });
}
Status BfScanDump(Command& cmd) {
  return RouteBloom(cmd,
                    [&cmd](const auto& key) { return std::remove_cvref_t<decltype(key)>::Format::ScanDump(cmd, key); });
}
// LOADCHUNK: a key being created from its header chunk takes the chunk's format: a
// bloomkit dump of another library's filter makes a key of that kind; otherwise, under
// FORMAT native a chunk that is neither native nor RedisBloom's gets bloomkit's error;
// under the default, RedisBloom's.
Status BfLoadChunk(Command& cmd) {
  if (cmd.key().empty()) {
    switch (ForeignHeaderKind(cmd).value_or(FilterKind::kScalable)) {
      case FilterKind::kBitsAndBlooms: return redis::LoadChunk<BitsAndBloomsFamily>(cmd);
      case FilterKind::kGuava: return redis::LoadChunk<GuavaFamily>(cmd);
      case FilterKind::kParquet: return redis::LoadChunk<ParquetFamily>(cmd);
      default: break;
    }
  }
  return RouteBloom(cmd, [&cmd](const auto& key) {
    using K = std::remove_cvref_t<decltype(key)>;
    if constexpr (std::is_same_v<K, Key<NativeBloom>> || std::is_same_v<K, Key<RedisBloomBloom>>) {
      return RouteLoadChunk<NativeBloom, RedisBloomBloom>(cmd);
    } else {
      return K::Format::LoadChunk(cmd, key);
    }
  });
}

// BF.MERGE dest src [src ...] (native keys): dest becomes the union of dest (if it
// exists) and every source. All filters must have been created with the same options
// and have the same stage layout; the merge is computed on a copy, so a failure leaves
// dest unchanged.
Status BfMerge(Command& cmd) {
  std::vector<const ScalableBloomFilter*> sources;
  std::vector<std::unique_ptr<OpenKey>> source_keys;
  for (std::size_t i = 2; i < cmd.argc(); ++i) {
    source_keys.push_back(std::make_unique<OpenKey>(cmd.ctx(), cmd.raw(i), kRead));
    const auto found = Find<BfFamily>(*source_keys.back());
    if (auto s = RequireReady(found); !s.ok()) {
      return ReplyError(s.error().message(), "source " + std::string(cmd.arg(i)));
    }
    sources.push_back(&found.value->filter());
  }
  const auto dest = Find<BfFamily>(cmd.key());
  if (dest.wrong_type) return ReplyError(reply::kWrongType);
  if (dest.value != nullptr && !dest.value->ready()) return ReplyError(reply::kFilterLoading);
  ScalableBloomFilter result = dest.value != nullptr ? dest.value->filter() : *sources[0];
  for (const ScalableBloomFilter* source : sources) {
    if (auto merged = result.Merge(*source); !merged.ok()) {
      return ReplyError(reply::kMergeIncompatible, merged.error().message());
    }
  }
  if (dest.value != nullptr) {
    dest.value->filter() = std::move(result);
  } else if (StoreNew<BfFamily>(cmd.key(), std::move(result)) == nullptr) {
    return ReplyError(reply::kInternal);
  }
  cmd.Replicate();
  cmd.Ok();
  return {};
}

}  // namespace bloomkit::redis
