// SPDX-License-Identifier: Apache-2.0
// CF.*: RedisBloom's cuckoo filter commands, each written once against a format that the
// key's type picks (format.h):
//
//   NativeCuckoo      type bloomkitC: bloomkit::CuckooFilter (bucket sizes 2/4/8, a
//                     configurable fingerprint width; docs/REDIS.md), bloomkit's texts
//   RedisBloomCuckoo  type MBbloomCF: bloomkit::RedisCuckooFilter, RedisBloom 2.8's
//                     arguments, replies and error texts
//
// Replies follow RedisBloom 2.8: booleans (integers under RESP2) for ADD, ADDNX, EXISTS,
// MEXISTS, DEL and INSERT; integers for INSERTNX (1 added, 0 present, -1 full) and COUNT;
// a map for INFO. CF.DEBUG and CF.COMPACT exist for RedisBloom-format keys only.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "format.h"
#include "native_chunks.h"

namespace bloomkit::redis {
namespace {

// RedisBloom's cuckoo header chunk (CF.SCANDUMP's first chunk): items, buckets, deletes,
// filters as 8 bytes each, bucket size and max iterations as 2, expansion as 2.
constexpr std::size_t kCfHeaderChunkBytes = 38;

// What one insert did; `error` is the reply text of kFailed.
enum class Inserted : char { kAdded, kPresent, kNoSpace, kFailed };
struct AddOutcome {
  Inserted inserted = Inserted::kAdded;
  std::string error;
};

// CF.ADD's insert (CF.ADDNX's with `nx`: only an absent item) in either format: kAdded
// or kPresent with an ok status, else the core's error for the policy to reply with.
template <typename Filter>
std::pair<Inserted, Status> Insert(Filter& filter, std::string_view item, bool nx) {
  if (!nx) {
    Status status = filter.Add(item);
    return {Inserted::kAdded, std::move(status)};
  }
  auto r = filter.AddIfAbsent(item);
  if (!r.ok()) return {Inserted::kFailed, std::move(r).error()};
  return {r.value() ? Inserted::kAdded : Inserted::kPresent, Status{}};
}

// The eight fields of CF.INFO, in RedisBloom's order.
struct CuckooInfo {
  std::uint64_t size = 0;
  std::uint64_t num_buckets = 0;
  std::uint64_t num_stages = 0;
  std::uint64_t inserted = 0;
  std::uint64_t deleted = 0;
  std::uint64_t bucket_size = 0;
  std::uint64_t expansion = 0;
  std::uint64_t max_iterations = 0;
};

// ---- The two formats ----------------------------------------------------------------

struct NativeCuckoo {
  using Filter = CuckooFilter;
  static constexpr Held kHeld = Held::kNative;
  static RedisModuleType* type() noexcept { return CfFamily::type; }
  static constexpr bool kForeignIsEmpty = false;  // WRONGTYPE for a key of another type
  // CF.INSERT's reply holds an error for an item that failed (not one that did not fit).
  static constexpr bool kFailureInReply = true;

  static FilterValue<Filter>& ValueAt(const OpenKey& key) noexcept {
    return *static_cast<FilterValue<Filter>*>(key.value());
  }
  static bool Loading(const OpenKey& key) noexcept { return !ValueAt(key).ready(); }
  static Filter& Get(const OpenKey& key) noexcept { return ValueAt(key).filter(); }

  static CfCreateArgs Defaults() {
    CfCreateArgs args;
    args.capacity = Config().cf_initial_size;
    args.bucket_size = Config().cf_bucket_size;
    args.max_iterations = Config().cf_max_iterations;
    args.expansion = Config().cf_expansion;
    return args;
  }
  static Result<CfCreateArgs> ParseReserve(const Command& cmd) {
    auto parsed = ParseCfReserve(cmd.args_from(2), Config());
    if (!parsed.ok() && parsed.error().code() == kArityError) return WrongArity();
    return parsed;
  }
  static Result<CfInsertArgs> ParseInsert(const Command& cmd) {
    auto parsed = ParseCfInsert(cmd.args_from(2), Config());
    if (!parsed.ok() && parsed.error().code() == kArityError) return WrongArity();
    if (parsed.ok()) parsed->first_item += 2;
    return parsed;
  }

  static Result<Filter*> Create(const Command& /*cmd*/, const OpenKey& key, const CfCreateArgs& args) {
    CuckooOptions options;
    options.capacity = args.capacity;
    options.bucket_size = args.bucket_size;
    options.fingerprint_bits = Config().cf_fingerprint_bits;
    options.max_kicks = args.max_iterations;
    options.expansion = args.expansion;
    options.max_filters = Config().cf_max_expansions;
    options.max_memory_bytes = Config().max_filter_bytes;
    auto filter = CuckooFilter::Create(options);
    if (!filter.ok()) return CoreError(filter.error(), reply::kCfCannotCreate);
    auto* value = StoreNew<CfFamily>(key, std::move(filter).value());
    if (value == nullptr) return ReplyError(reply::kInternal);
    return &value->filter();
  }

  // The filter counts its sub-filters itself (CF_MAX_EXPANSIONS is its max_filters).
  static bool AtMaxExpansions(const Filter& /*filter*/) noexcept { return false; }

  // The eviction sequence restarts at this seed before every insert, so that an insert's
  // effect depends only on the filter's contents and the item. A replica (which got the
  // filter through RDB, where the sequence is not saved) and an AOF replay then produce
  // the same bytes as the primary.
  static constexpr std::uint64_t kKickSeed = 0x626c6f6f6d6b6974ULL;

  static AddOutcome Add(const Command& /*cmd*/, Filter& filter, std::string_view item, bool nx) {
    filter.SeedKicks(kKickSeed);
    auto [inserted, status] = Insert(filter, item, nx);
    if (status.ok()) return {inserted, {}};
    if (status.error().code() == ErrorCode::kFull) return {Inserted::kNoSpace, {}};
    return {Inserted::kFailed, CoreError(status.error()).message()};
  }
  static std::uint64_t Count(const Filter& filter, std::string_view item) noexcept { return filter.Occurrences(item); }

  static CuckooInfo Info(const OpenKey& key) noexcept {
    const Filter& f = Get(key);
    return {.size = ValueMemory<CfFamily>(ValueAt(key)),
            .num_buckets = f.num_buckets(),
            .num_stages = f.num_stages(),
            .inserted = f.count(),
            .deleted = f.num_deletes(),
            .bucket_size = f.bucket_size(),
            .expansion = f.expansion(),
            .max_iterations = f.max_kicks()};
  }

  static Status Compact(Command& /*cmd*/, const Key<NativeCuckoo>& /*key*/) { return ReplyError(reply::kWrongType); }
  static Status Debug(Command& /*cmd*/, const Key<NativeCuckoo>& /*key*/) { return ReplyError(reply::kWrongType); }
  static Status ScanDump(Command& cmd, const Key<NativeCuckoo>& /*key*/) { return redis::ScanDump<CfFamily>(cmd); }
  static Status LoadChunk(Command& cmd, const Key<NativeCuckoo>& /*key*/) { return redis::LoadChunk<CfFamily>(cmd); }
};

struct RedisBloomCuckoo {
  using Filter = RedisCuckooFilter;
  static constexpr Held kHeld = Held::kRedisBloom;
  static RedisModuleType* type() noexcept { return RbCuckooType::type; }
  static bool IsHeaderChunk(std::span<const std::byte> data) {
    return RedisCuckooFromHeaderChunk(data, RbLoadOptions()).ok();
  }
  // RedisBloom answers CF.EXISTS, CF.MEXISTS and CF.COUNT on a key of another type with
  // 0, and CF.DEL with "Not found".
  static constexpr bool kForeignIsEmpty = true;
  // CF.INSERT answers an item that found no memory as one that did not fit.
  static constexpr bool kFailureInReply = false;

  static bool Loading(const OpenKey& /*key*/) noexcept { return false; }
  static Filter& Get(const OpenKey& key) noexcept { return *RbValueOf<RbCuckooType>(key); }

  static CfCreateArgs Defaults() {
    CfCreateArgs args;
    args.capacity = Config().cf_initial_size;
    args.bucket_size = std::min<std::uint32_t>(Config().cf_bucket_size, kRedisCuckooMaxBucketSize);
    args.max_iterations = std::min<std::uint32_t>(Config().cf_max_iterations, kRedisCuckooMaxIterations);
    args.expansion = std::min<std::uint32_t>(Config().cf_expansion, kRedisCuckooMaxExpansion);
    return args;
  }
  static Result<CfCreateArgs> ParseReserve(const Command& cmd);
  static Result<CfInsertArgs> ParseInsert(const Command& cmd);

  static Result<Filter*> Create(const Command& cmd, const OpenKey& key, const CfCreateArgs& args) {
    RedisCuckooOptions options;
    options.capacity = args.capacity;
    options.bucket_size = args.bucket_size;
    options.max_iterations = args.max_iterations;
    options.expansion = args.expansion;
    options.max_memory_bytes = RedisBloomFilterLimit(Config());
    return RbCreateStored<RbCuckooType>(cmd, key, options, reply::kCfCannotCreate);
  }

  // A filter that already has CF_MAX_EXPANSIONS sub-filters refuses the whole command
  // ("Maximum expansions reached") before any item goes in.
  static bool AtMaxExpansions(const Filter& filter) noexcept {
    return filter.num_stages() >= Config().cf_max_expansions;
  }

  static AddOutcome Add(const Command& cmd, Filter& filter, std::string_view item, bool nx) {
    auto [inserted, status] = Insert(filter, item, nx);
    if (status.ok()) return {inserted, {}};
    if (status.error().code() == ErrorCode::kFull) return {Inserted::kNoSpace, {}};
    // RedisBloom: "ERR Insufficient memory" when a new sub-filter cannot be had.
    if (!AllocationRefusal().empty() ||
        (status.error().code() == ErrorCode::kTooLarge && Config().max_filter_bytes_given)) {
      return {Inserted::kFailed, CoreError(status.error()).message()};
    }
    return {Inserted::kFailed, RbError(cmd, reply::kCfNoMemory, status.error().message()).message()};
  }
  static std::uint64_t Count(const Filter& filter, std::string_view item) noexcept { return filter.Occurrences(item); }

  static CuckooInfo Info(const OpenKey& key) noexcept {
    const Filter& f = Get(key);
    return {.size = f.redisbloom_size(),
            .num_buckets = f.num_buckets(),
            .num_stages = f.num_stages(),
            .inserted = f.count(),
            .deleted = f.num_deletes(),
            .bucket_size = f.bucket_size(),
            .expansion = f.expansion(),
            .max_iterations = f.max_iterations()};
  }

  static Status Compact(Command& cmd, const Key<RedisBloomCuckoo>& key);
  static Status Debug(Command& cmd, const Key<RedisBloomCuckoo>& key);
  static Status ScanDump(Command& cmd, const Key<RedisBloomCuckoo>& key);
  static Status LoadChunk(Command& cmd, const Key<RedisBloomCuckoo>& key);
};

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
Result<CfCreateArgs> RedisBloomCuckoo::ParseReserve(const Command& cmd) {
  CfCreateArgs out = Defaults();
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

// CF.INSERT / CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS item..., RedisBloom 8's
// rules: a capacity in [2 x cf-bucket-size, 2^30].
Result<CfInsertArgs> RedisBloomCuckoo::ParseInsert(const Command& cmd) {
  CfInsertArgs out;
  out.create = Defaults();
  std::size_t i = 2;
  for (; i < cmd.argc(); ++i) {
    const std::string_view word = cmd.arg(i);
    if (EqualsIgnoreCase(word, "ITEMS")) break;
    if (EqualsIgnoreCase(word, "NOCREATE")) {
      out.nocreate = true;
    } else if (EqualsIgnoreCase(word, "CAPACITY")) {
      if (++i == cmd.argc()) return WrongArity();
      const auto v = ParseInt64(cmd.arg(i));
      if (!v) return RbError(cmd, reply::kCfBadCapacity, Printable(cmd.arg(i)) + " is not an integer");
      if (*v < CfMinCapacity() || *v > kRedisBloomMaxCapacity) {
        return RbError(
            cmd, reply::kCfInsertCapacityRange,
            "capacity " + std::to_string(*v) + ", cf-bucket-size " + std::to_string(Config().cf_bucket_size));
      }
      out.create.capacity = static_cast<std::uint64_t>(*v);
    } else {
      return RbError(cmd, reply::kUnknownArgument, Printable(word) + " (valid: CAPACITY, NOCREATE, ITEMS)");
    }
  }
  if (i + 1 >= cmd.argc()) return WrongArity();
  out.first_item = i + 1;
  return out;
}

Status RedisBloomCuckoo::Compact(Command& cmd, const Key<RedisBloomCuckoo>& key) {
  if (key.held != Held::kRedisBloom) return ReplyError(reply::kRbCfCompactNotFound);
  key.filter().Compact(/*keep_going=*/true);
  cmd.Replicate();
  cmd.Ok();
  return {};
}

// CF.DEBUG key: one line of the filter's parameters and counts.
Status RedisBloomCuckoo::Debug(Command& cmd, const Key<RedisBloomCuckoo>& key) {
  if (key.held != Held::kRedisBloom) return RbKeyError(key.held);
  const Filter& f = key.filter();
  char line[256];
  const int n = std::snprintf(
      line, sizeof(line),
      "bktsize:%u buckets:%" PRIu64 " items:%" PRIu64 " deletes:%" PRIu64 " filters:%zu max_iterations:%u expansion:%u",
      f.bucket_size(), f.num_buckets(), f.count(), f.num_deletes(), f.num_stages(), f.max_iterations(), f.expansion());
  cmd.Bytes(AsBytes(std::string_view(line, static_cast<std::size_t>(n))));
  return {};
}

// CF.SCANDUMP key iterator: as BF.SCANDUMP, but the end (and every answer for a filter
// without items) is iterator 0 with a null.
Status RedisBloomCuckoo::ScanDump(Command& cmd, const Key<RedisBloomCuckoo>& key) {
  const auto iterator = ParseInt64(cmd.arg(2));
  if (!iterator || *iterator < 0) return ReplyError(reply::kCfInvalidPosition);
  if (key.held != Held::kRedisBloom) return RbKeyError(key.held);
  const Filter& f = key.filter();
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

Status RedisBloomCuckoo::LoadChunk(Command& cmd, const Key<RedisBloomCuckoo>& key) {
  const auto iterator = ParseInt64(cmd.arg(2));
  if (!iterator || *iterator == 0) return ReplyError(reply::kCfInvalidPosition);
  const auto data = AsBytes(cmd.arg(3));
  if (*iterator == 1) {
    if (key.held != Held::kEmpty) return RbKeyError(key.held);
    if (data.size() != kCfHeaderChunkBytes) {
      return RbError(cmd, reply::kRbCfInvalidHeader, std::to_string(data.size()) + " bytes, not 38");
    }
    Result<Filter> filter = Error(ErrorCode::kTooLarge, "out of memory");
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
    if (RbStore<RbCuckooType>(key.open, std::move(filter).value()) == nullptr) return ReplyError(reply::kInternal);
    cmd.Replicate();
    cmd.Ok();
    return {};
  }
  if (key.held != Held::kRedisBloom) return RbKeyError(key.held);
  if (auto loaded = LoadRedisCuckooChunk(key.filter(), *iterator, data); !loaded.ok()) {
    return RbError(cmd, reply::kRbCfBadChunk, loaded.error().message());
  }
  cmd.Replicate();
  cmd.Ok();
  return {};
}

// ---- The commands ---------------------------------------------------------------------

// CF.ADD / CF.ADDNX / CF.INSERT / CF.INSERTNX after parsing.
template <typename F>
Status AddItems(Command& cmd, const Key<F>& key, const CfCreateArgs& create, bool autocreate, std::size_t first,
                bool multi, bool nx) {
  bool modified = false;
  auto found = ForAdd(cmd, key, create, autocreate, &modified);
  if (!found.ok()) return std::move(found).error();
  typename F::Filter& filter = *found.value();
  if (F::AtMaxExpansions(filter)) {
    if (modified) cmd.Replicate();
    return ReplyError(reply::kCfMaxExpansions);
  }
  std::vector<AddOutcome> outcomes;
  outcomes.reserve(cmd.argc() - first);
  for (std::size_t i = first; i < cmd.argc(); ++i) {
    outcomes.push_back(F::Add(cmd, filter, cmd.arg(i), nx));
    if (outcomes.back().inserted == Inserted::kAdded) modified = true;
  }
  if (modified) cmd.Replicate();
  if (!multi) {
    switch (outcomes[0].inserted) {
      case Inserted::kNoSpace: return ReplyError(reply::kCfFull);
      case Inserted::kFailed: return ReplyError(outcomes[0].error);
      default: cmd.Bool(outcomes[0].inserted == Inserted::kAdded); return {};
    }
  }
  // CF.INSERT: booleans, and false for an item that did not fit under RESP3 (-1 under
  // RESP2); CF.INSERTNX: integers 1, 0, -1.
  const bool booleans = cmd.resp3() && !nx;
  cmd.Array(static_cast<long>(outcomes.size()));
  for (const AddOutcome& o : outcomes) {
    if (F::kFailureInReply && o.inserted == Inserted::kFailed) {
      cmd.ErrorReply(o.error);
    } else if (booleans) {
      cmd.Bool(o.inserted == Inserted::kAdded);
    } else {
      cmd.Int(o.inserted == Inserted::kAdded ? 1 : o.inserted == Inserted::kPresent ? 0 : -1);
    }
  }
  return {};
}

template <typename F>
Status Add(Command& cmd, const Key<F>& key) {
  return AddItems(cmd, key, F::Defaults(), /*autocreate=*/true, 2, /*multi=*/false, /*nx=*/false);
}

template <typename F>
Status AddNx(Command& cmd, const Key<F>& key) {
  return AddItems(cmd, key, F::Defaults(), /*autocreate=*/true, 2, /*multi=*/false, /*nx=*/true);
}

template <typename F>
Status Insert(Command& cmd, const Key<F>& key) {
  auto args = F::ParseInsert(cmd);
  if (!args.ok()) return std::move(args).error();
  return AddItems(cmd, key, args->create, !args->nocreate, args->first_item, /*multi=*/true, /*nx=*/false);
}

template <typename F>
Status InsertNx(Command& cmd, const Key<F>& key) {
  auto args = F::ParseInsert(cmd);
  if (!args.ok()) return std::move(args).error();
  return AddItems(cmd, key, args->create, !args->nocreate, args->first_item, /*multi=*/true, /*nx=*/true);
}

// CF.EXISTS / CF.MEXISTS / CF.COUNT.
template <typename F>
Status Check(Command& cmd, const Key<F>& key, bool multi, bool count) {
  auto found = Maybe(key, F::kForeignIsEmpty);
  if (!found.ok()) return std::move(found).error();
  const typename F::Filter* filter = found.value();
  if (multi) cmd.Array(static_cast<long>(cmd.argc() - 2));
  for (std::size_t i = 2; i < cmd.argc(); ++i) {
    if (count) {
      cmd.Int(filter != nullptr ? static_cast<long long>(F::Count(*filter, cmd.arg(i))) : 0);
    } else {
      cmd.Bool(filter != nullptr && filter->MayContain(cmd.arg(i)));
    }
  }
  return {};
}

template <typename F>
Status Exists(Command& cmd, const Key<F>& key) {
  return Check(cmd, key, /*multi=*/false, /*count=*/false);
}
template <typename F>
Status Mexists(Command& cmd, const Key<F>& key) {
  return Check(cmd, key, /*multi=*/true, /*count=*/false);
}
template <typename F>
Status Count(Command& cmd, const Key<F>& key) {
  return Check(cmd, key, /*multi=*/false, /*count=*/true);
}

// CF.DEL key item: removes one occurrence; only a removal is a write (replicated).
template <typename F>
Status Del(Command& cmd, const Key<F>& key) {
  auto found = Need(key, reply::kCfNotFound, F::kForeignIsEmpty);
  if (!found.ok()) return std::move(found).error();
  const bool removed = found.value()->Remove(cmd.arg(2));
  if (removed) cmd.Replicate();
  cmd.Bool(removed);
  return {};
}

template <typename F>
Status Info(Command& cmd, const Key<F>& key) {
  if (auto found = Need(key); !found.ok()) return std::move(found).error();
  const CuckooInfo info = F::Info(key.open);
  const std::pair<const char*, std::uint64_t> fields[] = {
      {"Size", info.size},
      {"Number of buckets", info.num_buckets},
      {"Number of filters", info.num_stages},
      {"Number of items inserted", info.inserted},
      {"Number of items deleted", info.deleted},
      {"Bucket size", info.bucket_size},
      {"Expansion rate", info.expansion},
      {"Max iterations", info.max_iterations},
  };
  cmd.Map(8);
  for (const auto& [name, value] : fields) {
    cmd.SimpleString(name);
    cmd.Int(static_cast<long long>(value));
  }
  return {};
}

}  // namespace

// The entry points of the command table.
Status CfReserve(Command& cmd) {
  return Route(cmd, Reserve<NativeCuckoo>, Reserve<RedisBloomCuckoo>);
}
Status CfAdd(Command& cmd) {
  return Route(cmd, Add<NativeCuckoo>, Add<RedisBloomCuckoo>);
}
Status CfAddNx(Command& cmd) {
  return Route(cmd, AddNx<NativeCuckoo>, AddNx<RedisBloomCuckoo>);
}
Status CfInsert(Command& cmd) {
  return Route(cmd, Insert<NativeCuckoo>, Insert<RedisBloomCuckoo>);
}
Status CfInsertNx(Command& cmd) {
  return Route(cmd, InsertNx<NativeCuckoo>, InsertNx<RedisBloomCuckoo>);
}
Status CfExists(Command& cmd) {
  return Route(cmd, Exists<NativeCuckoo>, Exists<RedisBloomCuckoo>);
}
Status CfMexists(Command& cmd) {
  return Route(cmd, Mexists<NativeCuckoo>, Mexists<RedisBloomCuckoo>);
}
Status CfCount(Command& cmd) {
  return Route(cmd, Count<NativeCuckoo>, Count<RedisBloomCuckoo>);
}
Status CfDel(Command& cmd) {
  return Route(cmd, Del<NativeCuckoo>, Del<RedisBloomCuckoo>);
}
Status CfCompact(Command& cmd) {
  return Route(cmd, NativeCuckoo::Compact, RedisBloomCuckoo::Compact);
}
Status CfInfo(Command& cmd) {
  return Route(cmd, Info<NativeCuckoo>, Info<RedisBloomCuckoo>);
}
Status CfDebug(Command& cmd) {
  return Route(cmd, NativeCuckoo::Debug, RedisBloomCuckoo::Debug);
}
Status CfScanDump(Command& cmd) {
  return Route(cmd, NativeCuckoo::ScanDump, RedisBloomCuckoo::ScanDump);
}
Status CfLoadChunk(Command& cmd) {
  return RouteLoadChunk<NativeCuckoo, RedisBloomCuckoo>(cmd);
}

}  // namespace bloomkit::redis
