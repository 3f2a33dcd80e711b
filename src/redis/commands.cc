// SPDX-License-Identifier: Apache-2.0
// The command table of bloomkit.so: every command once, with everything Redis is told
// about it, and RunCommand, through which Redis enters every row: it checks the row's
// arity and opens its key before the handler runs, so handlers never count their
// arguments nor open their key.
#include "commands.h"

#include <algorithm>
#include <array>
#include <exception>
#include <new>
#include <string>
#include <utility>

#include "command_args.h"
#include "stats.h"
#include "tbf_commands.h"

namespace bloomkit::redis {
namespace {

constexpr Arity Exactly(std::size_t n) {
  return {n, n};
}
constexpr Arity AtLeast(std::size_t n) {
  return {n, 0};
}
constexpr Arity Between(std::size_t min, std::size_t max) {
  return {min, max};
}
constexpr Arity OddAtLeast(std::size_t n) {  // NAME value pairs after an odd count
  return {n, 0, Arity::kOdd};
}
constexpr Arity EvenBetween(std::size_t min, std::size_t max) {
  return {min, max, Arity::kEven};
}

using enum Access;
// The tip RedisBloom (v8.9.80) gives the reads whose replies describe the filter rather
// than answer about items, so that client-side caches do not keep them.
constexpr const char* kNoCache = "dont_cache";
constexpr Family kCuckoo = Family::kCuckoo;
constexpr Family kBloom = Family::kBloom;

// Columns: name, handler, arity (counting the command's name), flags, key access, ACL
// categories, family, tips. Categories: RedisBloom 8.2's (src/rebloom.c); bloomkit's own
// commands (BF.MERGE, CBF.*, TBF.*) in @bloom as their BF counterparts.
// clang-format off
constexpr CommandSpec kCommands[] = {
  {"bf.reserve",    BfReserve,    Between(4, 7),     "write deny-oom",      kCreate,   "write fast", kBloom},
  {"bf.add",        BfAdd,        Exactly(3),        "write deny-oom fast", kUpdate,   "write",      kBloom},
  {"bf.madd",       BfMadd,       AtLeast(3),        "write deny-oom",      kUpdate,   "write",      kBloom},
  {"bf.insert",     BfInsert,     AtLeast(4),        "write deny-oom",      kUpdate,   "write",      kBloom},
  {"bf.exists",     BfExists,     Exactly(3),        "readonly fast",       kReadOnly, "read",       kBloom},
  {"bf.mexists",    BfMexists,    AtLeast(3),        "readonly",            kReadOnly, "read",       kBloom},
  {"bf.info",       BfInfo,       Between(2, 3),     "readonly fast",       kReadOnly, "read fast",  kBloom,  kNoCache},
  {"bf.card",       BfCard,       Exactly(2),        "readonly fast",       kReadOnly, "read fast",  kBloom},
  {"bf.debug",      BfDebug,      Exactly(2),        "readonly",            kReadOnly, "read",       kBloom,  kNoCache},
  {"bf.scandump",   BfScanDump,   Exactly(3),        "readonly",            kReadOnly, "read",       kBloom,  kNoCache},
  {"bf.loadchunk",  BfLoadChunk,  Exactly(4),        "write deny-oom",      kCreate,   "write",      kBloom},
  {"bf.merge",      BfMerge,      AtLeast(3),        "write deny-oom",      kMerge,    "write",      kBloom},
  {"cf.reserve",    CfReserve,    OddAtLeast(3),     "write deny-oom",      kCreate,   "write fast", kCuckoo},
  {"cf.add",        CfAdd,        Exactly(3),        "write deny-oom fast", kUpdate,   "write",      kCuckoo},
  {"cf.addnx",      CfAddNx,      Exactly(3),        "write deny-oom fast", kUpdate,   "write",      kCuckoo},
  {"cf.insert",     CfInsert,     AtLeast(4),        "write deny-oom",      kUpdate,   "write",      kCuckoo},
  {"cf.insertnx",   CfInsertNx,   AtLeast(4),        "write deny-oom",      kUpdate,   "write",      kCuckoo},
  {"cf.exists",     CfExists,     Exactly(3),        "readonly fast",       kReadOnly, "read",       kCuckoo},
  {"cf.mexists",    CfMexists,    AtLeast(3),        "readonly",            kReadOnly, "read",       kCuckoo},
  {"cf.del",        CfDel,        Exactly(3),        "write fast",          kUpdate,   "write",      kCuckoo},
  {"cf.count",      CfCount,      Exactly(3),        "readonly fast",       kReadOnly, "read",       kCuckoo},
  {"cf.info",       CfInfo,       Exactly(2),        "readonly fast",       kReadOnly, "read fast",  kCuckoo, kNoCache},
  {"cf.debug",      CfDebug,      Exactly(2),        "readonly",            kReadOnly, "read",       kCuckoo, kNoCache},
  // CF.COMPACT: "write" here, "read" in RedisBloom 8 (it rewrites the filter).
  {"cf.compact",    CfCompact,    Exactly(2),        "write",               kUpdate,   "write",      kCuckoo},
  {"cf.scandump",   CfScanDump,   Exactly(3),        "readonly",            kReadOnly, "read",       kCuckoo, kNoCache},
  {"cf.loadchunk",  CfLoadChunk,  Exactly(4),        "write deny-oom",      kCreate,   "write",      kCuckoo},
  {"cbf.reserve",   CbfReserve,   EvenBetween(4, 6), "write deny-oom",      kCreate,   "write fast", kBloom},
  {"cbf.add",       CbfAdd,       Exactly(3),        "write deny-oom fast", kUpdate,   "write",      kBloom},
  {"cbf.del",       CbfDel,       Exactly(3),        "write fast",          kUpdate,   "write",      kBloom},
  {"cbf.exists",    CbfExists,    Exactly(3),        "readonly fast",       kReadOnly, "read",       kBloom},
  {"cbf.count",     CbfCount,     Exactly(3),        "readonly fast",       kReadOnly, "read",       kBloom},
  {"cbf.info",      CbfInfo,      Exactly(2),        "readonly fast",       kReadOnly, "read fast",  kBloom},
  {"cbf.scandump",  CbfScanDump,  Exactly(3),        "readonly",            kReadOnly, "read",       kBloom},
  {"cbf.loadchunk", CbfLoadChunk, Exactly(4),        "write deny-oom",      kCreate,   "write",      kBloom},
  {"tbf.reserve",   TbfReserve,   AtLeast(6),        "write deny-oom",      kCreate,   "write fast", kBloom},
  {"tbf.add",       TbfAdd,       Exactly(3),        "write deny-oom fast", kUpdate,   "write",      kBloom},
  {"tbf.madd",      TbfMadd,      AtLeast(3),        "write deny-oom",      kUpdate,   "write",      kBloom},
  {"tbf.maddat",    TbfMaddAt,    AtLeast(4),        "write deny-oom",      kUpdate,   "write",      kBloom},
  {"tbf.exists",    TbfExists,    Exactly(3),        "readonly fast",       kReadOnly, "read",       kBloom},
  {"tbf.mexists",   TbfMexists,   AtLeast(3),        "readonly",            kReadOnly, "read",       kBloom},
  {"tbf.info",      TbfInfo,      Exactly(2),        "readonly fast",       kReadOnly, "read fast",  kBloom,  kNoCache},
  {"tbf.card",      TbfCard,      Exactly(2),        "readonly fast",       kReadOnly, "read fast",  kBloom},
  {"tbf.scandump",  TbfScanDump,  Exactly(3),        "readonly",            kReadOnly, "read",       kBloom,  kNoCache},
  {"tbf.loadchunk", TbfLoadChunk, Exactly(4),        "write deny-oom",      kCreate,   "write",      kBloom},
};
// clang-format on

constexpr std::size_t kNumCommands = std::size(kCommands);

int KeyMode(Access access) noexcept {
  return access == Access::kReadOnly ? kRead : kRead | kWrite;
}

// Reports a failure that happened after a reply was started (cannot be sent).
void LogLateFailure(RedisModuleCtx* ctx, std::string_view what) noexcept {
  rm.Log(ctx, "warning", "bloomkit: failure after the reply had started: %.*s", static_cast<int>(what.size()),
         what.data());
}

int RunCommand(const CommandSpec& spec, RedisModuleCtx* ctx, RedisModuleString** argv, int argc) noexcept {
  Command cmd(ctx, argv, argc < 0 ? 0 : static_cast<std::size_t>(argc));
  if (!spec.arity.Allows(cmd.argc())) {
    cmd.WrongArityReply();
    stats::CommandServed(argv[0], true);
    return kOk;
  }
  std::string failure;
  BeginCommand(ctx);
  try {
    const OpenKey key(ctx, argv[1], KeyMode(spec.access));
    cmd.set_key(&key);
    Status status = spec.handler(cmd);
    EndCommand();
    if (status.ok()) {
      stats::CommandServed(argv[0], cmd.errored());
      return kOk;
    }
    if (IsWrongArity(status.error()) && !cmd.replied()) {
      cmd.WrongArityReply();
      stats::CommandServed(argv[0], true);
      return kOk;
    }
    failure = status.error().message();
  } catch (const std::bad_alloc&) {
    EndCommand();
    failure = AllocationRefusal().empty() ? std::string(reply::kOutOfMemory) : AllocationRefusal();
  } catch (const std::exception& e) {
    EndCommand();
    try {
      failure = std::string(reply::kInternal) + ": " + e.what();
    } catch (...) {
      failure = reply::kInternal;
    }
  } catch (...) {
    EndCommand();
    failure = reply::kInternal;
  }
  if (!cmd.replied()) {
    cmd.ErrorReply(failure);
  } else {
    LogLateFailure(ctx, failure);
  }
  stats::CommandServed(argv[0], true);
  return kOk;
}

// Redis calls a plain function per command: row I of the table runs through RunCommand.
template <std::size_t I>
int Entry(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) noexcept {
  return RunCommand(kCommands[I], ctx, argv, argc);
}
template <std::size_t... I>
constexpr std::array<RedisModuleCmdFunc, kNumCommands> MakeEntries(std::index_sequence<I...> /*rows*/) {
  return {&Entry<I>...};
}
constexpr auto kEntries = MakeEntries(std::make_index_sequence<kNumCommands>());

// ACL categories. Redis 7.0 puts module commands in no category at all (not @write,
// @read, @fast or @slow, whatever their flags): `+@all -@write` still allows BF.ADD
// there. Redis 7.2 added SetCommandACLCategories (existing categories only) and 7.4
// AddACLCategory, with which RedisBloom 8 creates @bloom and @cuckoo. Each is used when
// the server has it; docs/REDIS.md ("ACL") gives the 7.0 workaround.
bool g_own_categories = false;  // @bloom and @cuckoo exist

void AddAclCategories(RedisModuleCtx* ctx) {
  if (rm.AddACLCategory == nullptr || rm.SetCommandACLCategories == nullptr) return;
  g_own_categories = rm.AddACLCategory(ctx, "bloom") == kOk && rm.AddACLCategory(ctx, "cuckoo") == kOk;
  if (!g_own_categories) rm.Log(ctx, "warning", "bloomkit: could not add the ACL categories bloom and cuckoo");
  // RedisBloom 8 also creates @cms, @topk and @tdigest. They stay empty here (no such
  // commands), but exist, so that ACL rules and ACL files written for RedisBloom
  // (`+@bloom +@cms`) are still accepted: Redis refuses a rule naming an unknown
  // category, and an ACL file with one keeps the server from starting.
  for (const char* name : {"cms", "topk", "tdigest"}) {
    if (rm.AddACLCategory(ctx, name) != kOk)
      rm.Log(ctx, "warning", "bloomkit: could not add the ACL category %s", name);
  }
}

void SetAclCategories(RedisModuleCtx* ctx, const CommandSpec& spec) {
  if (rm.SetCommandACLCategories == nullptr || rm.GetCommand == nullptr) return;
  RedisModuleCommand* command = rm.GetCommand(ctx, spec.name);
  if (command == nullptr) return;
  std::string categories = spec.acl;
  if (g_own_categories) categories += spec.family == Family::kCuckoo ? " cuckoo" : " bloom";
  if (rm.SetCommandACLCategories(command, categories.c_str()) != kOk) {
    rm.Log(ctx, "warning", "bloomkit: could not put %s in the ACL categories %s", spec.name, categories.c_str());
  }
}

const RedisModuleCommandInfoVersion kCommandInfoVersion = {
    1, sizeof(RedisModuleCommandHistoryEntry), sizeof(RedisModuleCommandKeySpec), sizeof(RedisModuleCommandArg)};

RedisModuleCommandKeySpec KeySpec(std::uint64_t flags, int position, int lastkey) {
  RedisModuleCommandKeySpec spec{};
  spec.flags = flags;
  spec.begin_search_type = REDISMODULE_KSPEC_BS_INDEX;
  spec.bs.index.pos = position;
  spec.find_keys_type = REDISMODULE_KSPEC_FK_RANGE;
  spec.fk.range.lastkey = lastkey;
  spec.fk.range.keystep = 1;
  spec.fk.range.limit = 0;
  return spec;
}

// Key specs say which keys a command reads and writes (INSERT, UPDATE and DELETE are
// mutually exclusive: creation is INSERT, every other write UPDATE), so that ACL selectors
// (%R~pattern / %W~pattern) and cluster clients route and authorize correctly.
// Without SetCommandInfo (Redis < 7) the (first, last, step) of CreateCommand remains.
void SetKeySpecs(RedisModuleCtx* ctx, const CommandSpec& spec) {
  if (rm.GetCommand == nullptr || rm.SetCommandInfo == nullptr) return;
  RedisModuleCommand* command = rm.GetCommand(ctx, spec.name);
  if (command == nullptr) return;
  RedisModuleCommandKeySpec specs[3]{};
  switch (spec.access) {
    case Access::kMerge:
      specs[0] = KeySpec(kKeyRw | kKeyUpdate, 1, 0);
      specs[1] = KeySpec(kKeyRo | kKeyAccess, 2, -1);
      break;
    case Access::kReadOnly: specs[0] = KeySpec(kKeyRo | kKeyAccess, 1, 0); break;
    case Access::kCreate: specs[0] = KeySpec(kKeyRw | kKeyInsert, 1, 0); break;
    case Access::kUpdate: specs[0] = KeySpec(kKeyRw | kKeyAccess | kKeyUpdate, 1, 0); break;
  }
  RedisModuleCommandInfo info{};
  info.version = &kCommandInfoVersion;
  info.key_specs = specs;
  info.tips = spec.tips;
  info.args = CommandArgs(spec.name);  // COMMAND DOCS (command_args.cc)
  if (rm.SetCommandInfo(command, &info) != kOk) {
    rm.Log(ctx, "warning", "bloomkit: could not set key specs of %s", spec.name);
  }
}

}  // namespace

bool RegisterCommands(RedisModuleCtx* ctx) {
  AddAclCategories(ctx);
  for (std::size_t i = 0; i < kNumCommands; ++i) {
    const CommandSpec& spec = kCommands[i];
    const int last = spec.access == Access::kMerge ? -1 : 1;
    if (rm.CreateCommand(ctx, spec.name, kEntries[i], spec.flags, 1, last, 1) != kOk) {
      rm.Log(ctx, "warning", "bloomkit: not loaded: could not register %s", spec.name);
      return false;
    }
    SetKeySpecs(ctx, spec);
    SetAclCategories(ctx, spec);
  }
  return true;
}

}  // namespace bloomkit::redis
