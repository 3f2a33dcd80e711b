// SPDX-License-Identifier: Apache-2.0
// CF.*: RedisBloom's cuckoo filter commands on bloomkit::CuckooFilter. Replies follow
// RedisBloom 2.8: booleans (integers under RESP2) for ADD, ADDNX, EXISTS, MEXISTS, DEL
// and INSERT; integers for INSERTNX (1 added, 0 present, -1 full) and COUNT; a map for
// INFO. Differences (bucket sizes 2/4/8 only, configurable fingerprint width) are in
// docs/REDIS.md.
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "filter_value.h"

namespace bloomkit::redis {
namespace {

using Value = FilterValue<CuckooFilter>;

Result<CuckooFilter> CreateFilter(const CfCreateArgs& args) {
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
  return filter;
}

CfCreateArgs Defaults() {
  CfCreateArgs args;
  args.capacity = Config().cf_initial_size;
  args.bucket_size = Config().cf_bucket_size;
  args.max_iterations = Config().cf_max_iterations;
  args.expansion = Config().cf_expansion;
  return args;
}

// 1 added, 0 present (NX only), -1 full; or an error reply text.
struct AddOutcome {
  int result = 0;
  std::string error;
};

// The eviction sequence restarts at this seed before every insert, so that an insert's
// effect depends only on the filter's contents and the item. A replica (which got the
// filter through RDB, where the sequence is not saved) and an AOF replay then produce
// the same bytes as the primary.
constexpr std::uint64_t kKickSeed = 0x626c6f6f6d6b6974ULL;

AddOutcome AddOne(CuckooFilter& filter, std::string_view item, bool nx, bool* modified) {
  filter.SeedKicks(kKickSeed);
  if (nx) {
    auto added = filter.AddIfAbsent(item);
    if (added.ok()) {
      if (added.value()) *modified = true;
      return {added.value() ? 1 : 0, {}};
    }
    if (added.error().code() == ErrorCode::kFull) return {-1, {}};
    return {0, CoreError(added.error()).message()};
  }
  auto added = filter.Add(item);
  if (added.ok()) {
    *modified = true;
    return {1, {}};
  }
  if (added.error().code() == ErrorCode::kFull) return {-1, {}};
  return {0, CoreError(added.error()).message()};
}

Status InsertCommon(Command& cmd, const CfCreateArgs& create, bool autocreate, std::size_t first, bool multi, bool nx) {
  OpenKey key(cmd.ctx(), cmd.raw(1), kRead | kWrite);
  const auto found = Find<CfFamily>(key);
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  Value* value = found.value;
  bool modified = false;
  if (value == nullptr) {
    if (!autocreate) return ReplyError(reply::kNotFound);
    auto filter = CreateFilter(create);
    if (!filter.ok()) return std::move(filter).error();
    value = StoreNew<CfFamily>(key, std::move(filter).value());
    if (value == nullptr) return ReplyError(reply::kInternal);
    modified = true;
  } else if (!value->ready()) {
    return ReplyError(reply::kFilterLoading);
  }
  std::vector<AddOutcome> outcomes;
  outcomes.reserve(cmd.argc() - first);
  for (std::size_t i = first; i < cmd.argc(); ++i) {
    outcomes.push_back(AddOne(value->filter(), cmd.arg(i), nx, &modified));
  }
  if (modified) cmd.Replicate();
  if (!multi) {
    const AddOutcome& o = outcomes[0];
    if (!o.error.empty()) return ReplyError(o.error);
    if (o.result < 0) return ReplyError(reply::kCfFull);
    cmd.Bool(o.result == 1);
    return {};
  }
  // CF.INSERT's did-not-fit is false under RESP3 (-1 under RESP2), as in RedisBloom.
  const bool booleans = cmd.resp3() && !nx;
  cmd.Array(static_cast<long>(outcomes.size()));
  for (const AddOutcome& o : outcomes) {
    if (!o.error.empty()) {
      cmd.ErrorReply(o.error);
    } else if (!booleans && (nx || o.result < 0)) {
      cmd.Int(o.result);
    } else {
      cmd.Bool(o.result == 1);
    }
  }
  return {};
}

Status InsertParsed(Command& cmd, bool nx) {
  if (cmd.argc() < 4) return cmd.WrongArity(), Status();
  const auto args = cmd.args_from(2);
  auto parsed = ParseCfInsert(args, Config());
  if (!parsed.ok()) {
    if (parsed.error().code() == kArityError) return cmd.WrongArity(), Status();
    return std::move(parsed).error();
  }
  return InsertCommon(cmd, parsed->create, !parsed->nocreate, 2 + parsed->first_item, /*multi=*/true, nx);
}

Status CheckCommon(Command& cmd, bool multi, bool count) {
  OpenKey key(cmd.ctx(), cmd.raw(1), kRead);
  const auto found = Find<CfFamily>(key);
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  if (found.value != nullptr && !found.value->ready()) return ReplyError(reply::kFilterLoading);
  const CuckooFilter* filter = found.value != nullptr ? &found.value->filter() : nullptr;
  if (multi) cmd.Array(static_cast<long>(cmd.argc() - 2));
  for (std::size_t i = 2; i < cmd.argc(); ++i) {
    if (count) {
      cmd.Int(filter != nullptr ? static_cast<long long>(filter->Occurrences(cmd.arg(i))) : 0);
    } else {
      cmd.Bool(filter != nullptr && filter->MayContain(cmd.arg(i)));
    }
  }
  return {};
}

}  // namespace

Status CfReserve(Command& cmd) {
  // CF.RESERVE key capacity [NAME value]...: an odd count, at least 3.
  if (cmd.argc() < 3 || cmd.argc() % 2 == 0) return cmd.WrongArity(), Status();
  const auto args = cmd.args_from(2);
  auto parsed = ParseCfReserve(args, Config());
  if (!parsed.ok()) {
    if (parsed.error().code() == kArityError) return cmd.WrongArity(), Status();
    return std::move(parsed).error();
  }
  return ReserveNew<CfFamily>(cmd, [&] { return CreateFilter(parsed.value()); });
}

Status CfAdd(Command& cmd) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return InsertCommon(cmd, Defaults(), true, 2, /*multi=*/false, /*nx=*/false);
}

Status CfAddNx(Command& cmd) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return InsertCommon(cmd, Defaults(), true, 2, /*multi=*/false, /*nx=*/true);
}

Status CfInsert(Command& cmd) {
  return InsertParsed(cmd, /*nx=*/false);
}
Status CfInsertNx(Command& cmd) {
  return InsertParsed(cmd, /*nx=*/true);
}

Status CfExists(Command& cmd) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return CheckCommon(cmd, /*multi=*/false, /*count=*/false);
}

Status CfMexists(Command& cmd) {
  if (cmd.argc() < 3) return cmd.WrongArity(), Status();
  return CheckCommon(cmd, /*multi=*/true, /*count=*/false);
}

Status CfCount(Command& cmd) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return CheckCommon(cmd, /*multi=*/false, /*count=*/true);
}

Status CfDel(Command& cmd) {
  return Del<CfFamily>(cmd, reply::kCfNotFound);
}

Status CfInfo(Command& cmd) {
  if (cmd.argc() != 2) return cmd.WrongArity(), Status();
  OpenKey key(cmd.ctx(), cmd.raw(1), kRead);
  const auto found = Find<CfFamily>(key);
  if (auto s = RequireReady(found); !s.ok()) return s;
  const CuckooFilter& f = found.value->filter();
  ReplyCfInfo(cmd, {.size = ValueMemory<CfFamily>(*found.value),
                    .num_buckets = f.num_buckets(),
                    .num_filters = f.num_stages(),
                    .inserted = f.count(),
                    .deleted = f.num_deletes(),
                    .bucket_size = f.bucket_size(),
                    .expansion = f.expansion(),
                    .max_iterations = f.max_kicks()});
  return {};
}

void ReplyCfInfo(Command& cmd, const CfInfoFields& info) {
  const std::pair<const char*, std::uint64_t> fields[] = {
      {"Size", info.size},
      {"Number of buckets", info.num_buckets},
      {"Number of filters", info.num_filters},
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
}

Status CfScanDump(Command& cmd) {
  return ScanDump<CfFamily>(cmd);
}
Status CfLoadChunk(Command& cmd) {
  return LoadChunk<CfFamily>(cmd);
}

}  // namespace bloomkit::redis
