// SPDX-License-Identifier: Apache-2.0
// bloomkit.so: RedisModule_OnLoad, the only exported symbol. Loads the API table,
// parses the module arguments, installs Redis' allocator under every filter, creates
// the three data types and registers the commands with their flags and key specs.
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bloomkit/allocator.h"
#include "command_args.h"
#include "commands.h"
#include "config.h"
#include "filter_value.h"
#include "redisbloom_commands.h"
#include "redisbloom_type.h"
#include "tbf_commands.h"

namespace bloomkit::redis {
namespace {

constexpr const char* kModuleName = "bloomkit";
constexpr int kModuleVersion = 100;  // 0.1.0
constexpr const char* kRedisBloomModuleName = "bf";
constexpr int kRedisBloomModuleVersion = 20820;  // 2.8.20, as major * 10000 + minor * 100 + patch

ModuleConfig g_config;

// ---- maxmemory: checked before a filter allocates ---------------------------------
//
// Redis checks maxmemory before a command runs, not while it allocates, so one
// BF.RESERVE could take a 50 MB server to 516 MB, and under allkeys-lru the next
// command evicted unrelated keys to pay for it. Every allocation of filter memory of
// kCheckedBytes or more during a client's command (not a replicated one or the AOF
// being loaded: their primary already decided) is refused when used_memory plus its
// size would pass maxmemory. The command then fails with an OOM error and evicts nothing.
constexpr std::size_t kCheckedBytes = std::size_t{64} << 10;

struct CommandMemory {
  bool from_client = false;       // a client's command (not replicated, not the AOF being loaded)
  RedisModuleCtx* ctx = nullptr;  // set while a client's command runs on a server with maxmemory
  std::string refusal;            // the OOM reply text once an allocation was refused
};
CommandMemory g_command;

// The OOM reply text if `bytes` more would pass maxmemory, else empty.
std::string MaxmemoryRefusal(std::uint64_t bytes) {
  if (g_command.ctx == nullptr || rm.GetServerInfo == nullptr || rm.ServerInfoGetFieldUnsigned == nullptr ||
      rm.FreeServerInfo == nullptr) {
    return {};
  }
  RedisModuleServerInfoData* info = rm.GetServerInfo(g_command.ctx, "memory");
  if (info == nullptr) return {};
  int err_used = 0;
  int err_max = 0;
  const unsigned long long used = rm.ServerInfoGetFieldUnsigned(info, "used_memory", &err_used);
  const unsigned long long max = rm.ServerInfoGetFieldUnsigned(info, "maxmemory", &err_max);
  rm.FreeServerInfo(g_command.ctx, info);
  if (err_used != kOk || err_max != kOk || max == 0 || bytes <= max - std::min(used, max)) return {};
  return std::string(reply::kOom) + ": " + std::to_string(bytes) + " more bytes would take used_memory from " +
         std::to_string(used) + " past maxmemory " + std::to_string(max);
}

bool MemoryAllows(std::size_t bytes) noexcept {
  if (bytes < kCheckedBytes || g_command.ctx == nullptr) return true;
  try {
    std::string refusal = MaxmemoryRefusal(bytes);
    if (refusal.empty()) return true;
    g_command.refusal = std::move(refusal);
  } catch (...) {
    g_command.refusal = reply::kOom;
  }
  return false;
}

// ---- Allocator: filters in Redis' memory accounting -------------------------------
//
// RedisModule_Alloc has no aligned form, so each block is over-allocated by
// `alignment` bytes and the distance back to the start of the Redis block is stored
// in the 8 bytes just below the aligned address:
//
//   raw                         aligned = align_up(raw + 8, alignment)
//   | ... padding ... | offset |  bytes handed to the filter ...  |
//                      8 bytes
//
// Redis' allocator returns 16-byte aligned blocks, so the offset is a multiple of 8 in
// [8, alignment] and the block needs bytes + alignment. The block is zero-filled as the
// allocator contract requires, lazily: with RedisModule_TryCalloc (Redis >= 7.4) the
// allocator hands out fresh zero pages; otherwise the whole pages inside a large block
// are returned to the kernel (MADV_DONTNEED), which gives them back as zero pages when
// first touched. A memset of a 198 MB BF.RESERVE blocked the server for 0.56-0.93 s and
// committed all of it at once.
constexpr std::size_t kLazyZeroBytes = std::size_t{1} << 20;
constexpr std::uintptr_t kPageBytes = 4096;

void ZeroFill(void* block, std::size_t bytes) noexcept {
  auto* p = static_cast<unsigned char*>(block);
  if (bytes >= kLazyZeroBytes) {
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t first = (begin + kPageBytes - 1) & ~(kPageBytes - 1);
    const std::uintptr_t last = (begin + bytes) & ~(kPageBytes - 1);
    if (::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED) == 0) {
      std::memset(p, 0, first - begin);
      std::memset(reinterpret_cast<void*>(last), 0, begin + bytes - last);
      return;
    }
  }
  std::memset(p, 0, bytes);
}

void* RedisAllocate(std::size_t bytes, std::size_t alignment) noexcept {
  if (alignment < 16) alignment = 16;
  std::size_t total = 0;
  if (__builtin_add_overflow(bytes, alignment, &total)) return nullptr;
  if (!MemoryAllows(total)) return nullptr;
  // The Try forms return null instead of aborting Redis when memory runs out.
  const bool zeroed = rm.TryCalloc != nullptr;
  void* raw = zeroed ? rm.TryCalloc(1, total) : rm.TryAlloc != nullptr ? rm.TryAlloc(total) : rm.Alloc(total);
  if (raw == nullptr) return nullptr;
  stats::BlockAllocated(rm.MallocSize != nullptr ? rm.MallocSize(raw) : total);
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + 8 + alignment - 1) & ~(static_cast<std::uintptr_t>(alignment) - 1);
  const std::uint64_t offset = aligned - base;
  std::memcpy(reinterpret_cast<void*>(aligned - 8), &offset, sizeof(offset));
  void* out = reinterpret_cast<void*>(aligned);
  if (!zeroed) ZeroFill(out, bytes);
  return out;
}

// The block RedisAllocate took from Redis for `pointer`.
void* RawBlock(const void* pointer) noexcept {
  const auto aligned = reinterpret_cast<std::uintptr_t>(pointer);
  std::uint64_t offset = 0;
  std::memcpy(&offset, reinterpret_cast<const void*>(aligned - 8), sizeof(offset));
  return reinterpret_cast<void*>(aligned - offset);
}

void RedisDeallocate(void* pointer, std::size_t bytes, std::size_t alignment) noexcept {
  if (pointer == nullptr) return;
  void* raw = RawBlock(pointer);
  stats::BlockFreed(rm.MallocSize != nullptr ? rm.MallocSize(raw) : bytes + std::max<std::size_t>(alignment, 16));
  rm.Free(raw);
}

// What Redis counts in used_memory for the block: its allocator's usable size (jemalloc
// rounds a 65.7 MiB request up to 80 MiB), so that MEMORY USAGE reports the same.
std::size_t RedisHeld(const void* pointer, std::size_t bytes, std::size_t alignment) noexcept {
  if (rm.MallocSize != nullptr) return rm.MallocSize(RawBlock(pointer));
  return bytes + std::max<std::size_t>(alignment, 16);
}

// ---- Command table ----------------------------------------------------------------

enum class Access { kRead, kWrite, kCreate };

struct CommandSpec {
  const char* name;
  RedisModuleCmdFunc func;
  const char* flags;
  Access access;
  // ACL categories on Redis >= 7.2 (SetCommandACLCategories), RedisBloom 8's for its
  // commands; "bloom" or "cuckoo" is appended when the server can add categories (7.4).
  const char* acl;
  bool cuckoo = false;
  bool merge = false;  // BF.MERGE: dest, then read-only sources
  // Command tips (COMMAND INFO / COMMAND DOCS, Redis >= 7.0): RedisBloom (v8.9.80) marks the
  // reads whose replies describe the filter rather than answer about items "dont_cache",
  // so that client-side caches do not keep them.
  const char* tips = nullptr;
};

template <Handler kHandler>
constexpr RedisModuleCmdFunc Cmd() {
  return &Dispatch<kHandler>;
}

// Flags: "write" / "readonly" for replication and replicas, "deny-oom" on anything that
// may allocate, "fast" on O(1)-in-the-key commands (RedisBloom marks the same).
// Categories: RedisBloom 8.2's (src/rebloom.c); bloomkit's own commands (BF.MERGE,
// CBF.*) in @bloom as their BF counterparts.
const CommandSpec kCommands[] = {
    {"bf.reserve", Cmd<RouteBfReserve>(), "write deny-oom", Access::kCreate, "write fast"},
    {"bf.add", Cmd<RouteBfAdd>(), "write deny-oom fast", Access::kWrite, "write"},
    {"bf.madd", Cmd<RouteBfMadd>(), "write deny-oom", Access::kWrite, "write"},
    {"bf.insert", Cmd<RouteBfInsert>(), "write deny-oom", Access::kWrite, "write"},
    {"bf.exists", Cmd<RouteBfExists>(), "readonly fast", Access::kRead, "read"},
    {"bf.mexists", Cmd<RouteBfMexists>(), "readonly", Access::kRead, "read"},
    {"bf.info", Cmd<RouteBfInfo>(), "readonly fast", Access::kRead, "read fast", false, false, "dont_cache"},
    {"bf.card", Cmd<RouteBfCard>(), "readonly fast", Access::kRead, "read fast"},
    {"bf.debug", Cmd<RouteBfDebug>(), "readonly", Access::kRead, "read", false, false, "dont_cache"},
    {"bf.scandump", Cmd<RouteBfScanDump>(), "readonly", Access::kRead, "read", false, false, "dont_cache"},
    {"bf.loadchunk", Cmd<RouteBfLoadChunk>(), "write deny-oom", Access::kCreate, "write"},
    {"bf.merge", Cmd<BfMerge>(), "write deny-oom", Access::kWrite, "write", false, true},
    {"cf.reserve", Cmd<RouteCfReserve>(), "write deny-oom", Access::kCreate, "write fast", true},
    {"cf.add", Cmd<RouteCfAdd>(), "write deny-oom fast", Access::kWrite, "write", true},
    {"cf.addnx", Cmd<RouteCfAddNx>(), "write deny-oom fast", Access::kWrite, "write", true},
    {"cf.insert", Cmd<RouteCfInsert>(), "write deny-oom", Access::kWrite, "write", true},
    {"cf.insertnx", Cmd<RouteCfInsertNx>(), "write deny-oom", Access::kWrite, "write", true},
    {"cf.exists", Cmd<RouteCfExists>(), "readonly fast", Access::kRead, "read", true},
    {"cf.mexists", Cmd<RouteCfMexists>(), "readonly", Access::kRead, "read", true},
    {"cf.del", Cmd<RouteCfDel>(), "write fast", Access::kWrite, "write", true},
    {"cf.count", Cmd<RouteCfCount>(), "readonly fast", Access::kRead, "read", true},
    {"cf.info", Cmd<RouteCfInfo>(), "readonly fast", Access::kRead, "read fast", true, false, "dont_cache"},
    {"cf.debug", Cmd<RouteCfDebug>(), "readonly", Access::kRead, "read", true, false, "dont_cache"},
    {"cf.compact", Cmd<RouteCfCompact>(), "write", Access::kWrite, "write", true},  // RedisBloom 8: read
    {"cf.scandump", Cmd<RouteCfScanDump>(), "readonly", Access::kRead, "read", true, false, "dont_cache"},
    {"cf.loadchunk", Cmd<RouteCfLoadChunk>(), "write deny-oom", Access::kCreate, "write", true},
    {"cbf.reserve", Cmd<CbfReserve>(), "write deny-oom", Access::kCreate, "write fast"},
    {"cbf.add", Cmd<CbfAdd>(), "write deny-oom fast", Access::kWrite, "write"},
    {"cbf.del", Cmd<CbfDel>(), "write fast", Access::kWrite, "write"},
    {"cbf.exists", Cmd<CbfExists>(), "readonly fast", Access::kRead, "read"},
    {"cbf.count", Cmd<CbfCount>(), "readonly fast", Access::kRead, "read"},
    {"cbf.info", Cmd<CbfInfo>(), "readonly fast", Access::kRead, "read fast"},
    {"cbf.scandump", Cmd<CbfScanDump>(), "readonly", Access::kRead, "read"},
    {"cbf.loadchunk", Cmd<CbfLoadChunk>(), "write deny-oom", Access::kCreate, "write"},
    {"tbf.reserve", Cmd<TbfReserve>(), "write deny-oom", Access::kCreate, "write fast"},
    {"tbf.add", Cmd<TbfAdd>(), "write deny-oom fast", Access::kWrite, "write"},
    {"tbf.madd", Cmd<TbfMadd>(), "write deny-oom", Access::kWrite, "write"},
    {"tbf.maddat", Cmd<TbfMaddAt>(), "write deny-oom", Access::kWrite, "write"},
    {"tbf.exists", Cmd<TbfExists>(), "readonly fast", Access::kRead, "read"},
    {"tbf.mexists", Cmd<TbfMexists>(), "readonly", Access::kRead, "read"},
    {"tbf.info", Cmd<TbfInfo>(), "readonly fast", Access::kRead, "read fast", false, false, "dont_cache"},
    {"tbf.card", Cmd<TbfCard>(), "readonly fast", Access::kRead, "read fast"},
    {"tbf.scandump", Cmd<TbfScanDump>(), "readonly", Access::kRead, "read", false, false, "dont_cache"},
    {"tbf.loadchunk", Cmd<TbfLoadChunk>(), "write deny-oom", Access::kCreate, "write"},
};

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
  if (g_own_categories) categories += spec.cuckoo ? " cuckoo" : " bloom";
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
  if (spec.merge) {
    specs[0] = KeySpec(kKeyRw | kKeyUpdate, 1, 0);
    specs[1] = KeySpec(kKeyRo | kKeyAccess, 2, -1);
  } else if (spec.access == Access::kRead) {
    specs[0] = KeySpec(kKeyRo | kKeyAccess, 1, 0);
  } else if (spec.access == Access::kCreate) {
    specs[0] = KeySpec(kKeyRw | kKeyInsert, 1, 0);
  } else {
    specs[0] = KeySpec(kKeyRw | kKeyAccess | kKeyUpdate, 1, 0);
  }
  RedisModuleCommandInfo info{};
  info.version = &kCommandInfoVersion;
  info.key_specs = specs;
  info.tips = spec.tips;
  info.args = CommandArgs(spec.name);
  if (rm.SetCommandInfo(command, &info) != kOk) {
    rm.Log(ctx, "warning", "bloomkit: could not set key specs of %s", spec.name);
  }
}

template <typename Family>
bool CreateType(RedisModuleCtx* ctx) {
  RedisModuleTypeMethods methods = TypeMethods<Family>();
  Family::type = rm.CreateDataType(ctx, Family::kTypeName, kEncodingVersion, &methods);
  if (Family::type == nullptr) {
    rm.Log(ctx, "warning", "bloomkit: could not create data type %s", Family::kTypeName);
    return false;
  }
  return true;
}

int FailLoad(RedisModuleCtx* ctx, const std::string& reason) {
  if (rm.Log != nullptr) rm.Log(ctx, "warning", "bloomkit: not loaded: %s", reason.c_str());
  return kErr;
}

// Set once OnLoad succeeded. A second MODULE LOAD of the same file gets this copy of the
// library again (dlopen counts references), so it is refused before its arguments reach
// g_config, the allocator seam or the configs of the module that is running; under
// another module name (IDENTITY) Redis would otherwise let it get that far.
bool g_loaded = false;
const char* g_loaded_name = "";

int OnLoad(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (g_loaded) {
    return FailLoad(
        ctx, "this bloomkit.so is already loaded (as " + std::string(g_loaded_name) + "); a server runs one copy");
  }
  if (const char* missing = LoadApi(ctx); missing != nullptr) {
    return FailLoad(ctx, std::string("this Redis lacks ") + missing + " (Redis >= 6.2 is required)");
  }
  std::vector<std::string_view> args;
  for (int i = 0; i < argc; ++i) {
    std::size_t len = 0;
    const char* p = rm.StringPtrLen(argv[i], &len);
    args.emplace_back(p, len);
  }
  auto config = ParseModuleArgs(args);
  // IDENTITY redisbloom: the name and version RedisBloom 2.8.20 gives Redis, for tools that
  // check MODULE LIST for "bf" and a version number.
  const bool as_redisbloom = config.ok() && config->identity == ModuleIdentity::kRedisBloom;
  const char* name = as_redisbloom ? kRedisBloomModuleName : kModuleName;
  if (rm.IsModuleNameBusy != nullptr && rm.IsModuleNameBusy(name) != 0) {
    return FailLoad(ctx, std::string("a module named ") + name + " is already loaded");
  }
  rm.SetModuleAttribs(ctx, name, as_redisbloom ? kRedisBloomModuleVersion : kModuleVersion, kApiVersion1);
  if (!config.ok()) return FailLoad(ctx, config.error().message());
  g_config = config.value();

  // Let rdb_load see read errors (truncated or forged payloads) instead of Redis
  // exiting on them; every load path checks RedisModule_IsIOError.
  if (rm.SetModuleOptions != nullptr) rm.SetModuleOptions(ctx, kOptionsHandleIoErrors);

  if (!SetAllocator(Allocator{&RedisAllocate, &RedisDeallocate, &RedisHeld})) {
    return FailLoad(ctx, "cannot install Redis' allocator: the allocator table is full");
  }

  if (!CreateType<BfFamily>(ctx) || !CreateType<CfFamily>(ctx) || !CreateType<CbfFamily>(ctx) ||
      !CreateType<TbfFamily>(ctx)) {
    return kErr;
  }
  if (!CreateRedisBloomTypes(ctx)) return kErr;

  // INFO bloomkit (stats.h): Redis >= 6.0 lets a module add INFO sections.
  if (rm.RegisterInfoFunc != nullptr && rm.RegisterInfoFunc(ctx, &stats::AddInfo) != kOk) {
    rm.Log(ctx, "warning", "bloomkit: could not register the INFO section");
  }

  // RedisBloom 8's configs (config.h), with the module arguments as their defaults.
  const char* config_prefix = "";
  if (!RegisterConfigs(ctx, name, &config_prefix)) return FailLoad(ctx, "invalid configuration");
  if (*config_prefix != '\0') {
    rm.Log(ctx, "notice",
           "bloomkit: configs are named %sbf-error-rate ... (this server has no unprefixed module configs)",
           config_prefix);
  }

  AddAclCategories(ctx);
  for (const CommandSpec& spec : kCommands) {
    const int last = spec.merge ? -1 : 1;
    if (rm.CreateCommand(ctx, spec.name, spec.func, spec.flags, 1, last, 1) != kOk) {
      return FailLoad(ctx, std::string("could not register ") + spec.name);
    }
    SetKeySpecs(ctx, spec);
    SetAclCategories(ctx, spec);
  }
  rm.Log(ctx, "notice",
         "bloomkit: loaded as %s (FORMAT %s, ERROR_RATE %g, INITIAL_SIZE %llu, EXPANSION %u, CF_INITIAL_SIZE %llu, "
         "CF_BUCKETSIZE %u, CF_MAX_ITERATIONS %u, CF_EXPANSION %u, CF_FINGERPRINT_BITS %u, "
         "MAX_FILTER_BYTES %llu%s)",
         name, g_config.format == FilterFormat::kRedisBloom ? "redisbloom" : "native", g_config.error_rate,
         static_cast<unsigned long long>(g_config.initial_size), g_config.expansion,
         static_cast<unsigned long long>(g_config.cf_initial_size), g_config.cf_bucket_size, g_config.cf_max_iterations,
         g_config.cf_expansion, g_config.cf_fingerprint_bits,
         static_cast<unsigned long long>(g_config.max_filter_bytes),
         g_config.max_filter_bytes_given ? "" : " for native filters, none for RedisBloom-format ones");
  g_loaded = true;
  g_loaded_name = name;
  return kOk;
}

}  // namespace

void BeginCommand(RedisModuleCtx* ctx) noexcept {
  g_command.ctx = nullptr;
  g_command.from_client = true;
  g_command.refusal.clear();
  if (rm.GetContextFlags == nullptr) return;
  const int flags = rm.GetContextFlags(ctx);
  g_command.from_client = (flags & (kCtxFlagsReplicated | kCtxFlagsLoading)) == 0;
  if ((flags & kCtxFlagsMaxmemory) != 0 && g_command.from_client) g_command.ctx = ctx;
}

bool CommandFromClient() noexcept {
  return g_command.from_client;
}

void EndCommand() noexcept {
  g_command.ctx = nullptr;
}

const std::string& AllocationRefusal() noexcept {
  return g_command.refusal;
}

Status CheckMemoryFor(std::uint64_t bytes) {
  if (bytes < kCheckedBytes || g_command.ctx == nullptr) return {};
  std::string refusal = MaxmemoryRefusal(bytes);
  if (refusal.empty()) return {};
  return ReplyError(refusal);
}

const ModuleConfig& Config() noexcept {
  return g_config;
}

ModuleConfig& MutableConfig() noexcept {
  return g_config;
}

Error CoreError(const Error& error, std::string_view cannot_create) {
  if (!AllocationRefusal().empty()) return ReplyError(AllocationRefusal());
  switch (error.code()) {
    case ErrorCode::kTooLarge: return ReplyError(reply::kTooLarge, error.message());
    case ErrorCode::kFull: return ReplyError(reply::kNonScalingFull);
    case ErrorCode::kInvalidArgument: return ReplyError(cannot_create, error.message());
    default: return ReplyError("ERR", error.message());
  }
}

void Command::ErrorReply(std::string_view text) noexcept {
  Mark();
  errored_ = true;
  // ReplyWithError needs a C string; error texts are short, so a bounded stack copy
  // avoids allocating on the error path.
  char buffer[512];
  const std::size_t n = std::min(text.size(), sizeof(buffer) - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    buffer[i] = (c == '\r' || c == '\n' || c == '\0') ? ' ' : c;
  }
  buffer[n] = '\0';
  rm.ReplyWithError(ctx_, buffer);
}

void LogLateFailure(RedisModuleCtx* ctx, std::string_view what) noexcept {
  rm.Log(ctx, "warning", "bloomkit: failure after the reply had started: %.*s", static_cast<int>(what.size()),
         what.data());
}

}  // namespace bloomkit::redis

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx* ctx, RedisModuleString** argv,
                                                                         int argc) {
  try {
    return bloomkit::redis::OnLoad(ctx, argv, argc);
  } catch (...) {
    return bloomkit::redis::kErr;
  }
}
