// SPDX-License-Identifier: Apache-2.0
// CBF.*: a counting Bloom filter family (bloomkit::CountingBloomFilter) for sets that
// need deletion with Bloom-filter semantics. Not in RedisBloom; the shapes mirror BF.*:
//
//   CBF.RESERVE key error_rate capacity [COUNTERBITS 4|8]   -> OK
//   CBF.ADD key item      -> true if the item was absent before (always counted)
//   CBF.DEL key item      -> true if the item's counters were decremented
//   CBF.EXISTS key item   -> boolean
//   CBF.COUNT key item    -> integer: the smallest of the item's counters
//   CBF.INFO key          -> map
#include <string>

#include "commands.h"
#include "native_chunks.h"

namespace bloomkit::redis {
namespace {

Result<CountingBloomFilter> CreateFilter(const CbfCreateArgs& args) {
  CountingOptions options;
  options.bloom.capacity = args.capacity;
  options.bloom.fp_rate = args.error_rate;
  options.bloom.max_memory_bytes = Config().max_filter_bytes;
  options.counter_bits = args.counter_bits;
  auto filter = CountingBloomFilter::Create(options);
  if (!filter.ok()) return CoreError(filter.error());
  return filter;
}

}  // namespace

Status CbfReserve(Command& cmd) {
  auto parsed = ParseCbfReserve(cmd.args_from(2), Config());
  if (!parsed.ok()) return std::move(parsed).error();
  const auto found = Find<CbfFamily>(cmd.key());
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  if (!cmd.key().empty()) return ReplyError(reply::kItemExists);
  auto filter = CreateFilter(parsed.value());
  if (!filter.ok()) return std::move(filter).error();
  if (StoreNew<CbfFamily>(cmd.key(), std::move(filter).value()) == nullptr) return ReplyError(reply::kInternal);
  cmd.Replicate();
  cmd.Ok();
  return {};
}

Status CbfAdd(Command& cmd) {
  const OpenKey& key = cmd.key();
  const auto found = Find<CbfFamily>(key);
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  auto* value = found.value;
  if (value == nullptr) {
    CbfCreateArgs defaults;
    defaults.error_rate = Config().error_rate;
    defaults.capacity = Config().initial_size;
    defaults.counter_bits = Config().cbf_counter_bits;
    auto filter = CreateFilter(defaults);
    if (!filter.ok()) return std::move(filter).error();
    value = StoreNew<CbfFamily>(key, std::move(filter).value());
    if (value == nullptr) return ReplyError(reply::kInternal);
  } else if (!value->ready()) {
    return ReplyError(reply::kFilterLoading);
  }
  const std::string_view item = cmd.arg(2);
  const bool was_present = value->filter().MayContain(item);
  value->filter().Add(item);  // a counting filter's add cannot fail (Done)
  cmd.Replicate();
  cmd.Bool(!was_present);
  return {};
}

Status CbfDel(Command& cmd) {
  return Del<CbfFamily>(cmd);
}

Status CbfExists(Command& cmd) {
  const auto found = Find<CbfFamily>(cmd.key());
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  if (found.value != nullptr && !found.value->ready()) return ReplyError(reply::kFilterLoading);
  cmd.Bool(found.value != nullptr && found.value->filter().MayContain(cmd.arg(2)));
  return {};
}

Status CbfCount(Command& cmd) {
  const auto found = Find<CbfFamily>(cmd.key());
  if (found.wrong_type) return ReplyError(reply::kWrongType);
  if (found.value != nullptr && !found.value->ready()) return ReplyError(reply::kFilterLoading);
  cmd.Int(found.value != nullptr ? static_cast<long long>(found.value->filter().Occurrences(cmd.arg(2))) : 0);
  return {};
}

Status CbfInfo(Command& cmd) {
  const auto found = Find<CbfFamily>(cmd.key());
  if (auto s = RequireReady(found); !s.ok()) return s;
  const CountingBloomFilter& f = found.value->filter();
  cmd.Map(8);
  cmd.SimpleString("Capacity");
  cmd.Int(static_cast<long long>(f.capacity()));
  cmd.SimpleString("Size");
  cmd.Int(static_cast<long long>(ValueMemory<CbfFamily>(*found.value)));
  cmd.SimpleString("Number of counters");
  cmd.Int(static_cast<long long>(f.num_counters()));
  cmd.SimpleString("Counter bits");
  cmd.Int(static_cast<long long>(f.counter_bits()));
  cmd.SimpleString("Number of hash functions");
  cmd.Int(static_cast<long long>(f.num_hashes()));
  cmd.SimpleString("Number of items inserted");
  cmd.Int(static_cast<long long>(f.count()));
  cmd.SimpleString("Saturated counters");
  cmd.Int(static_cast<long long>(f.saturated_counters()));
  cmd.SimpleString("Error rate");
  cmd.Double(f.fp_rate());
  return {};
}

Status CbfScanDump(Command& cmd) {
  return ScanDump<CbfFamily>(cmd);
}
Status CbfLoadChunk(Command& cmd) {
  return LoadChunk<CbfFamily>(cmd);
}

}  // namespace bloomkit::redis
