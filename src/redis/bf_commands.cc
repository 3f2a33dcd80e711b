// SPDX-License-Identifier: Apache-2.0
// BF.*: RedisBloom's Bloom filter commands on bloomkit::ScalableBloomFilter, plus
// BF.MERGE. Reply shapes follow RedisBloom 2.8: booleans (integers under RESP2) for
// ADD/EXISTS and their multi forms, a map (flat array under RESP2) for INFO.
#include <algorithm>
#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "commands.h"
#include "filter_value.h"

namespace bloomkit::redis {
namespace {

using Value = FilterValue<ScalableBloomFilter>;

Result<ScalableBloomFilter> CreateFilter(const BfCreateArgs& args) {
  ScalableOptions options;
  options.initial_capacity = args.capacity;
  options.fp_rate = args.error_rate;
  options.growth = args.expansion == 0 ? 1 : args.expansion;  // 0: NONSCALING (RedisBloom 8)
  options.tightening = 0.5;
  options.scaling = !args.nonscaling;
  // RedisBloom grows a chain until memory runs out; here MAX_FILTER_BYTES bounds it.
  options.max_stages = kMaxScalableStages;
  options.max_memory_bytes = Config().max_filter_bytes;
  auto filter = ScalableBloomFilter::Create(options);
  if (!filter.ok()) return CoreError(filter.error());
  return filter;
}

// The reply to a failed add: a full NONSCALING filter, a scaling one that cannot add its
// next stage (its rate would need more than 64 hashes), or a limit (MAX_FILTER_BYTES,
// maxmemory).
std::string AddErrorText(const ScalableBloomFilter& filter, const Error& error) {
  if (error.code() == ErrorCode::kFull) {
    if (!filter.options().scaling) return std::string(reply::kNonScalingFull);
    return ReplyError(reply::kInsertProblem, error.message()).message();
  }
  return CoreError(error).message();
}

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

// BF.ADD / BF.MADD / BF.INSERT after parsing: find or create, add, reply.
Status InsertCommon(Command& cmd, const BfCreateArgs& create, bool autocreate, std::size_t first, bool multi) {
  OpenKey key(cmd.ctx(), cmd.raw(1), kRead | kWrite);
  const auto found = Find<BfFamily>(key);
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  Value* value = found.value;
  bool modified = false;
  if (value == nullptr) {
    if (!autocreate) return ReplyError(reply::kNotFound);
    auto filter = CreateFilter(create);
    if (!filter.ok()) return std::move(filter).error();
    value = StoreNew<BfFamily>(key, std::move(filter).value());
    if (value == nullptr) return ReplyError(reply::kInternal);
    modified = true;
  } else if (!value->ready()) {
    return ReplyError(reply::kFilterLoading);
  }
  if (!multi) {  // BF.ADD: the hot path, no allocation
    auto added = value->filter().AddIfAbsent(cmd.arg(first));
    if (added.ok() && added.value()) modified = true;
    if (modified) cmd.Replicate();
    if (!added.ok()) return ReplyError(AddErrorText(value->filter(), added.error()));
    cmd.Bool(added.value());
    return {};
  }
  // Added in order, stopping at the first error (as RedisBloom does when a non-scaling
  // filter fills up: the reply array ends with that error).
  ScalableBloomFilter& filter = value->filter();
  std::vector<bool> answers;
  answers.reserve(cmd.argc() - first);
  std::string error_text;
  std::array<std::string_view, kGroup> items{};
  std::array<bool, kGroup> added{};
  for (std::size_t begin = first; begin < cmd.argc() && error_text.empty(); begin += kGroup) {
    const std::size_t end = std::min(cmd.argc(), begin + kGroup);
    Status error;
    const std::size_t done = filter.AddIfAbsentBatch(ItemGroup(cmd, begin, end, items), added, &error);
    for (std::size_t i = 0; i < done; ++i) {
      answers.push_back(added[i]);
      if (added[i]) modified = true;
    }
    if (!error.ok()) error_text = AddErrorText(filter, error.error());
  }
  if (modified) cmd.Replicate();
  cmd.Array(static_cast<long>(answers.size() + (error_text.empty() ? 0 : 1)));
  for (const bool a : answers) cmd.Bool(a);
  if (!error_text.empty()) cmd.ErrorReply(error_text);
  return {};
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

Status BfReserve(Command& cmd) {
  if (cmd.argc() < 4 || cmd.argc() > 7) return cmd.WrongArity(), Status();
  const auto args = cmd.args_from(2);
  auto parsed = ParseBfReserve(args, Config());
  if (!parsed.ok()) return std::move(parsed).error();
  return ReserveNew<BfFamily>(cmd, [&] { return CreateFilter(parsed.value()); });
}

Status BfAdd(Command& cmd) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return InsertCommon(cmd, BfDefaultCreateArgs(), /*autocreate=*/true, 2, /*multi=*/false);
}

Status BfMadd(Command& cmd) {
  if (cmd.argc() < 3) return cmd.WrongArity(), Status();
  return InsertCommon(cmd, BfDefaultCreateArgs(), /*autocreate=*/true, 2, /*multi=*/true);
}

Status BfInsert(Command& cmd) {
  if (cmd.argc() < 4) return cmd.WrongArity(), Status();
  const auto args = cmd.args_from(2);
  auto parsed = ParseBfInsert(args, Config());
  if (!parsed.ok()) {
    if (parsed.error().code() == kArityError) return cmd.WrongArity(), Status();
    return std::move(parsed).error();
  }
  return InsertCommon(cmd, parsed->create, !parsed->nocreate, 2 + parsed->first_item, /*multi=*/true);
}

namespace {

Status ExistsCommon(Command& cmd, bool multi) {
  OpenKey key(cmd.ctx(), cmd.raw(1), kRead);
  const auto found = Find<BfFamily>(key);
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  if (found.value != nullptr && !found.value->ready()) return ReplyError(reply::kFilterLoading);
  const ScalableBloomFilter* filter = found.value != nullptr ? &found.value->filter() : nullptr;
  if (!multi) {
    cmd.Bool(filter != nullptr && filter->MayContain(cmd.arg(2)));
    return {};
  }
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

}  // namespace

Status BfExists(Command& cmd) {
  if (cmd.argc() != 3) return cmd.WrongArity(), Status();
  return ExistsCommon(cmd, /*multi=*/false);
}

Status BfMexists(Command& cmd) {
  if (cmd.argc() < 3) return cmd.WrongArity(), Status();
  return ExistsCommon(cmd, /*multi=*/true);
}

Status BfInfo(Command& cmd) {
  if (cmd.argc() != 2 && cmd.argc() != 3) return cmd.WrongArity(), Status();
  OpenKey key(cmd.ctx(), cmd.raw(1), kRead);
  const auto found = Find<BfFamily>(key);
  if (auto s = RequireReady(found); !s.ok()) return s;
  const auto args = cmd.args_from(2);
  auto field = ParseBfInfoField(args);
  if (!field.ok()) return std::move(field).error();
  const ScalableBloomFilter& f = found.value->filter();
  const auto capacity = static_cast<long long>(f.capacity());
  const auto size = static_cast<long long>(ValueMemory<BfFamily>(*found.value));
  const auto filters = static_cast<long long>(f.num_stages());
  const auto items = static_cast<long long>(f.count());
  const bool scaling = f.options().scaling;
  const auto expansion = static_cast<long long>(f.options().growth);
  auto reply_expansion = [&] {
    if (scaling) {
      cmd.Int(expansion);
    } else {
      cmd.Null();
    }
  };
  auto one = [&](const char* name) {
    if (cmd.resp3()) {
      cmd.Map(1);
      cmd.SimpleString(name);
    } else {
      cmd.Array(1);
    }
  };
  switch (field.value()) {
    case BfInfoField::kAll:
      cmd.Map(5);
      cmd.SimpleString("Capacity");
      cmd.Int(capacity);
      cmd.SimpleString("Size");
      cmd.Int(size);
      cmd.SimpleString("Number of filters");
      cmd.Int(filters);
      cmd.SimpleString("Number of items inserted");
      cmd.Int(items);
      cmd.SimpleString("Expansion rate");
      reply_expansion();
      return {};
    // One field: a one-entry map under RESP3, a one-element array under RESP2.
    case BfInfoField::kCapacity: one("Capacity"), cmd.Int(capacity); return {};
    case BfInfoField::kSize: one("Size"), cmd.Int(size); return {};
    case BfInfoField::kFilters: one("Number of filters"), cmd.Int(filters); return {};
    case BfInfoField::kItems: one("Number of items inserted"), cmd.Int(items); return {};
    case BfInfoField::kExpansion: one("Expansion rate"), reply_expansion(); return {};
  }
  return ReplyError(reply::kInternal);
}

Status BfCard(Command& cmd) {
  if (cmd.argc() != 2) return cmd.WrongArity(), Status();
  OpenKey key(cmd.ctx(), cmd.raw(1), kRead);
  const auto found = Find<BfFamily>(key);
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  if (found.value == nullptr) {
    cmd.Int(0);
    return {};
  }
  if (!found.value->ready()) return ReplyError(reply::kFilterLoading);
  cmd.Int(static_cast<long long>(found.value->filter().count()));
  return {};
}

Status BfScanDump(Command& cmd) {
  return ScanDump<BfFamily>(cmd);
}
Status BfLoadChunk(Command& cmd) {
  return LoadChunk<BfFamily>(cmd);
}

// BF.MERGE dest src [src ...]: dest becomes the union of dest (if it exists) and every
// source. All filters must have been created with the same options and have the same
// stage layout; the merge is computed on a copy, so a failure leaves dest unchanged.
Status BfMerge(Command& cmd) {
  if (cmd.argc() < 3) return cmd.WrongArity(), Status();
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
  OpenKey dest_key(cmd.ctx(), cmd.raw(1), kRead | kWrite);
  const auto dest = Find<BfFamily>(dest_key);
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
  } else if (StoreNew<BfFamily>(dest_key, std::move(result)) == nullptr) {
    return ReplyError(reply::kInternal);
  }
  cmd.Replicate();
  cmd.Ok();
  return {};
}

}  // namespace bloomkit::redis
