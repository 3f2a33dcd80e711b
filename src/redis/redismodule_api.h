// SPDX-License-Identifier: Apache-2.0
// The subset of the Redis modules API that bloomkit.so uses, declared from the modules
// API reference (https://redis.io/docs/reference/modules/modules-api-ref/).
//
// Redis passes the module a context whose first word is the address of the server's
// lookup function, RedisModule_GetApi(name, &pointer). Every other function is looked
// up by its exported name ("RedisModule_OpenKey", ...) and stored in `rm`, a table of
// function pointers, at RedisModule_OnLoad. Functions marked optional below appeared
// after Redis 6.0; the module checks them for null before use (older servers then get
// RESP2-shaped replies). Among them: SetCommandACLCategories (Redis 7.2) and
// AddACLCategory (7.4), absent on Debian 12's 7.0.
//
// Only the numeric constants the module uses are declared; their values are part of
// the modules ABI and stable across Redis versions.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {
// The declarations below keep the spelling of Redis' C header redismodule.h (typedef'd
// structs, REDISMODULE_* constants), so that they read against its reference.
// NOLINTBEGIN(modernize-use-using,readability-identifier-naming)
typedef struct RedisModuleCtx RedisModuleCtx;
typedef struct RedisModuleKey RedisModuleKey;
typedef struct RedisModuleString RedisModuleString;
typedef struct RedisModuleIO RedisModuleIO;
typedef struct RedisModuleType RedisModuleType;
typedef struct RedisModuleDigest RedisModuleDigest;
typedef struct RedisModuleCommand RedisModuleCommand;
typedef struct RedisModuleDefragCtx RedisModuleDefragCtx;
typedef struct RedisModuleKeyOptCtx RedisModuleKeyOptCtx;
typedef struct RedisModuleServerInfoData RedisModuleServerInfoData;
typedef struct RedisModuleInfoCtx RedisModuleInfoCtx;

typedef int (*RedisModuleCmdFunc)(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
typedef void (*RedisModuleInfoFunc)(RedisModuleInfoCtx* ctx, int for_crash_report);
// Module configs (Redis >= 7.0): CONFIG GET/SET, CONFIG REWRITE and redis.conf.
using RedisModuleConfigGetFunc = RedisModuleString* (*)(const char* name, void* privdata);
using RedisModuleConfigSetFunc = int (*)(const char* name, RedisModuleString* val, void* privdata,
                                         RedisModuleString** err);
using RedisModuleConfigApplyFunc = int (*)(RedisModuleCtx* ctx, void* privdata, RedisModuleString** err);

// Data type callbacks (RedisModuleTypeMethods, version 3 layout: Redis >= 6.2).
typedef void* (*RedisModuleTypeLoadFunc)(RedisModuleIO* rdb, int encver);
typedef void (*RedisModuleTypeSaveFunc)(RedisModuleIO* rdb, void* value);
typedef int (*RedisModuleTypeAuxLoadFunc)(RedisModuleIO* rdb, int encver, int when);
typedef void (*RedisModuleTypeAuxSaveFunc)(RedisModuleIO* rdb, int when);
typedef void (*RedisModuleTypeRewriteFunc)(RedisModuleIO* aof, RedisModuleString* key, void* value);
typedef size_t (*RedisModuleTypeMemUsageFunc)(const void* value);
typedef void (*RedisModuleTypeDigestFunc)(RedisModuleDigest* digest, void* value);
typedef void (*RedisModuleTypeFreeFunc)(void* value);
typedef size_t (*RedisModuleTypeFreeEffortFunc)(RedisModuleString* key, const void* value);
typedef void (*RedisModuleTypeUnlinkFunc)(RedisModuleString* key, const void* value);
typedef void* (*RedisModuleTypeCopyFunc)(RedisModuleString* fromkey, RedisModuleString* tokey, const void* value);
typedef int (*RedisModuleTypeDefragFunc)(RedisModuleDefragCtx* ctx, RedisModuleString* key, void** value);

struct RedisModuleTypeMethods {
  uint64_t version;
  RedisModuleTypeLoadFunc rdb_load;
  RedisModuleTypeSaveFunc rdb_save;
  RedisModuleTypeRewriteFunc aof_rewrite;
  RedisModuleTypeMemUsageFunc mem_usage;
  RedisModuleTypeDigestFunc digest;
  RedisModuleTypeFreeFunc free;
  RedisModuleTypeAuxLoadFunc aux_load;
  RedisModuleTypeAuxSaveFunc aux_save;
  int aux_save_triggers;
  RedisModuleTypeFreeEffortFunc free_effort;
  RedisModuleTypeUnlinkFunc unlink;
  RedisModuleTypeCopyFunc copy;
  RedisModuleTypeDefragFunc defrag;
};

// Command info (RedisModule_SetCommandInfo, Redis >= 7.0), version 1 layout: key specs, so
// that ACL key selectors (%R~ / %W~) and cluster routing see which keys each command reads
// and writes, tips, and the argument lists COMMAND DOCS shows.
struct RedisModuleCommandInfoVersion {
  int version;
  size_t sizeof_historyentry;
  size_t sizeof_keyspec;
  size_t sizeof_arg;
};

struct RedisModuleCommandHistoryEntry {
  const char* since;
  const char* changes;
};

enum RedisModuleKeySpecBeginSearchType : int {
  REDISMODULE_KSPEC_BS_INVALID = 0,
  REDISMODULE_KSPEC_BS_UNKNOWN,
  REDISMODULE_KSPEC_BS_INDEX,
  REDISMODULE_KSPEC_BS_KEYWORD,
};

enum RedisModuleKeySpecFindKeysType : int {
  REDISMODULE_KSPEC_FK_OMITTED = 0,
  REDISMODULE_KSPEC_FK_UNKNOWN,
  REDISMODULE_KSPEC_FK_RANGE,
  REDISMODULE_KSPEC_FK_KEYNUM,
};

struct RedisModuleCommandKeySpec {
  const char* notes;
  uint64_t flags;
  RedisModuleKeySpecBeginSearchType begin_search_type;
  union {
    struct {
      int pos;
    } index;
    struct {
      const char* keyword;
      int startfrom;
    } keyword;
  } bs;
  RedisModuleKeySpecFindKeysType find_keys_type;
  union {
    struct {
      int lastkey;
      int keystep;
      int limit;
    } range;
    struct {
      int keynumidx;
      int firstkey;
      int keystep;
    } keynum;
  } fk;
};

enum RedisModuleCommandArgType : int {
  REDISMODULE_ARG_TYPE_STRING = 0,
  REDISMODULE_ARG_TYPE_INTEGER,
  REDISMODULE_ARG_TYPE_DOUBLE,
  REDISMODULE_ARG_TYPE_KEY,
  REDISMODULE_ARG_TYPE_PATTERN,
  REDISMODULE_ARG_TYPE_UNIX_TIME,
  REDISMODULE_ARG_TYPE_PURE_TOKEN,
  REDISMODULE_ARG_TYPE_ONEOF,  // has sub-arguments
  REDISMODULE_ARG_TYPE_BLOCK,  // has sub-arguments
};

inline constexpr int REDISMODULE_CMD_ARG_NONE = 0;
inline constexpr int REDISMODULE_CMD_ARG_OPTIONAL = 1 << 0;
inline constexpr int REDISMODULE_CMD_ARG_MULTIPLE = 1 << 1;
inline constexpr int REDISMODULE_CMD_ARG_MULTIPLE_TOKEN = 1 << 2;

// One argument of COMMAND DOCS; arrays of them end with an all-zero entry (name = nullptr).
struct RedisModuleCommandArg {
  const char* name;
  RedisModuleCommandArgType type;
  int key_spec_index;  // type KEY: index into key_specs; otherwise -1
  const char* token;
  const char* summary;
  const char* since;
  int flags;  // REDISMODULE_CMD_ARG_*
  const char* deprecated_since;
  RedisModuleCommandArg* subargs;
};
static_assert(sizeof(RedisModuleCommandArg) == 64 && offsetof(RedisModuleCommandArg, flags) == 40,
              "Redis 7.0's RedisModuleCommandArg layout (LP64)");

struct RedisModuleCommandInfo {
  const RedisModuleCommandInfoVersion* version;
  const char* summary;
  const char* complexity;
  const char* since;
  RedisModuleCommandHistoryEntry* history;
  const char* tips;
  int arity;  // 0: the module checks arity itself
  RedisModuleCommandKeySpec* key_specs;
  RedisModuleCommandArg* args;
};
// NOLINTEND(modernize-use-using,readability-identifier-naming)
}  // extern "C"

namespace bloomkit::redis {

inline constexpr int kOk = 0;   // REDISMODULE_OK
inline constexpr int kErr = 1;  // REDISMODULE_ERR
inline constexpr int kApiVersion1 = 1;
inline constexpr int kTypeMethodVersion = 3;  // up to `defrag`

inline constexpr int kRead = 1 << 0;   // REDISMODULE_READ
inline constexpr int kWrite = 1 << 1;  // REDISMODULE_WRITE

inline constexpr int kKeyTypeEmpty = 0;   // REDISMODULE_KEYTYPE_EMPTY
inline constexpr int kKeyTypeModule = 6;  // REDISMODULE_KEYTYPE_MODULE

inline constexpr long kPostponedLen = -1;  // REDISMODULE_POSTPONED_LEN

inline constexpr int kCtxFlagsMaxmemory = 1 << 8;      // REDISMODULE_CTX_FLAGS_MAXMEMORY (set)
inline constexpr int kCtxFlagsReplicated = 1 << 12;    // REDISMODULE_CTX_FLAGS_REPLICATED
inline constexpr int kCtxFlagsLoading = 1 << 13;       // REDISMODULE_CTX_FLAGS_LOADING
inline constexpr int kCtxFlagsResp3 = 1 << 22;         // REDISMODULE_CTX_FLAGS_RESP3
inline constexpr int kOptionsHandleIoErrors = 1 << 0;  // REDISMODULE_OPTIONS_HANDLE_IO_ERRORS
// REDISMODULE_CONFIG_UNPREFIXED (Redis >= 8.0): the config's name is used as given,
// without "<module name>." before it. Older servers refuse the flag.
inline constexpr unsigned kConfigUnprefixed = 1U << 9;

// Key-spec flags (REDISMODULE_CMD_KEY_*).
inline constexpr uint64_t kKeyRo = 1ULL << 0;
inline constexpr uint64_t kKeyRw = 1ULL << 1;
inline constexpr uint64_t kKeyOw = 1ULL << 2;
inline constexpr uint64_t kKeyAccess = 1ULL << 4;
inline constexpr uint64_t kKeyUpdate = 1ULL << 5;
inline constexpr uint64_t kKeyInsert = 1ULL << 6;

// X(return type, name, parameter list, required)
#define BLOOMKIT_REDIS_API_FUNCTIONS(X)                                                                         \
  X(void*, Alloc, (size_t bytes), true)                                                                         \
  X(void*, TryAlloc, (size_t bytes), false)                                                                     \
  X(void*, TryCalloc, (size_t count, size_t bytes), false)                                                      \
  X(void, Free, (void* ptr), true)                                                                              \
  X(int, CreateCommand,                                                                                         \
    (RedisModuleCtx * ctx, const char* name, RedisModuleCmdFunc cmdfunc, const char* strflags, int firstkey,    \
     int lastkey, int keystep),                                                                                 \
    true)                                                                                                       \
  X(void, SetModuleAttribs, (RedisModuleCtx * ctx, const char* name, int ver, int apiver), true)                \
  X(int, IsModuleNameBusy, (const char* name), false)                                                           \
  X(int, WrongArity, (RedisModuleCtx * ctx), true)                                                              \
  X(int, ReplyWithLongLong, (RedisModuleCtx * ctx, long long ll), true)                                         \
  X(int, ReplyWithError, (RedisModuleCtx * ctx, const char* err), true)                                         \
  X(int, ReplyWithSimpleString, (RedisModuleCtx * ctx, const char* msg), true)                                  \
  X(int, ReplyWithArray, (RedisModuleCtx * ctx, long len), true)                                                \
  X(void, ReplySetArrayLength, (RedisModuleCtx * ctx, long len), true)                                          \
  X(int, ReplyWithStringBuffer, (RedisModuleCtx * ctx, const char* buf, size_t len), true)                      \
  X(int, ReplyWithNull, (RedisModuleCtx * ctx), true)                                                           \
  X(int, ReplyWithDouble, (RedisModuleCtx * ctx, double d), true)                                               \
  X(int, ReplyWithMap, (RedisModuleCtx * ctx, long len), false)                                                 \
  X(int, ReplyWithBool, (RedisModuleCtx * ctx, int b), false)                                                   \
  X(RedisModuleKey*, OpenKey, (RedisModuleCtx * ctx, RedisModuleString * keyname, int mode), true)              \
  X(void, CloseKey, (RedisModuleKey * kp), true)                                                                \
  X(int, KeyType, (RedisModuleKey * kp), true)                                                                  \
  X(int, DeleteKey, (RedisModuleKey * kp), true)                                                                \
  X(const char*, StringPtrLen, (const RedisModuleString* str, size_t* len), true)                               \
  X(int, ReplicateVerbatim, (RedisModuleCtx * ctx), true)                                                       \
  X(int, Replicate, (RedisModuleCtx * ctx, const char* cmdname, const char* fmt, ...), true)                    \
  X(long long, Milliseconds, (void), true)                                                                      \
  X(int, GetContextFlags, (RedisModuleCtx * ctx), false)                                                        \
  X(RedisModuleType*, CreateDataType,                                                                           \
    (RedisModuleCtx * ctx, const char* name, int encver, RedisModuleTypeMethods* typemethods), true)            \
  X(int, ModuleTypeSetValue, (RedisModuleKey * key, RedisModuleType * mt, void* value), true)                   \
  X(RedisModuleType*, ModuleTypeGetType, (RedisModuleKey * key), true)                                          \
  X(void*, ModuleTypeGetValue, (RedisModuleKey * key), true)                                                    \
  X(void, SaveUnsigned, (RedisModuleIO * io, uint64_t value), true)                                             \
  X(uint64_t, LoadUnsigned, (RedisModuleIO * io), true)                                                         \
  X(void, SaveStringBuffer, (RedisModuleIO * io, const char* str, size_t len), true)                            \
  X(char*, LoadStringBuffer, (RedisModuleIO * io, size_t * lenptr), true)                                       \
  X(void, SaveSigned, (RedisModuleIO * io, int64_t value), true)                                                \
  X(int64_t, LoadSigned, (RedisModuleIO * io), true)                                                            \
  X(void, SaveDouble, (RedisModuleIO * io, double value), true)                                                 \
  X(double, LoadDouble, (RedisModuleIO * io), true)                                                             \
  X(void, SaveFloat, (RedisModuleIO * io, float value), true)                                                   \
  X(float, LoadFloat, (RedisModuleIO * io), true)                                                               \
  X(int, IsIOError, (RedisModuleIO * io), false)                                                                \
  X(void, SetModuleOptions, (RedisModuleCtx * ctx, int options), false)                                         \
  X(void, EmitAOF, (RedisModuleIO * io, const char* cmdname, const char* fmt, ...), true)                       \
  X(void, DigestAddStringBuffer, (RedisModuleDigest * md, const char* ele, size_t len), true)                   \
  X(void, DigestEndSequence, (RedisModuleDigest * md), true)                                                    \
  X(void, Log, (RedisModuleCtx * ctx, const char* level, const char* fmt, ...), true)                           \
  X(void, LogIOError, (RedisModuleIO * io, const char* level, const char* fmt, ...), true)                      \
  X(RedisModuleCommand*, GetCommand, (RedisModuleCtx * ctx, const char* name), false)                           \
  X(int, SetCommandInfo, (RedisModuleCommand * command, const RedisModuleCommandInfo* info), false)             \
  X(RedisModuleServerInfoData*, GetServerInfo, (RedisModuleCtx * ctx, const char* section), false)              \
  X(unsigned long long, ServerInfoGetFieldUnsigned,                                                             \
    (RedisModuleServerInfoData * data, const char* field, int* out_err), false)                                 \
  X(void, FreeServerInfo, (RedisModuleCtx * ctx, RedisModuleServerInfoData * data), false)                      \
  X(size_t, MallocSize, (void* ptr), false)                                                                     \
  X(int, RegisterInfoFunc, (RedisModuleCtx * ctx, RedisModuleInfoFunc cb), false)                               \
  X(int, InfoAddSection, (RedisModuleInfoCtx * ctx, const char* name), false)                                   \
  X(int, InfoAddFieldULongLong, (RedisModuleInfoCtx * ctx, const char* field, unsigned long long value), false) \
  X(int, SetCommandACLCategories, (RedisModuleCommand * command, const char* categories), false)                \
  X(int, AddACLCategory, (RedisModuleCtx * ctx, const char* name), false)                                       \
  X(RedisModuleString*, CreateString, (RedisModuleCtx * ctx, const char* ptr, size_t len), false)               \
  X(void, FreeString, (RedisModuleCtx * ctx, RedisModuleString * str), false)                                   \
  X(int, RegisterStringConfig,                                                                                  \
    (RedisModuleCtx * ctx, const char* name, const char* default_val, unsigned int flags,                       \
     RedisModuleConfigGetFunc getfn, RedisModuleConfigSetFunc setfn, RedisModuleConfigApplyFunc applyfn,        \
     void* privdata),                                                                                           \
    false)                                                                                                      \
  X(int, LoadConfigs, (RedisModuleCtx * ctx), false)

// The looked-up functions: rm.OpenKey(ctx, name, kRead), ...
struct Api {
// `ret` is a type and `params` a parameter list: neither can be parenthesized.
// NOLINTNEXTLINE(bugprone-macro-parentheses)
#define BLOOMKIT_REDIS_API_MEMBER(ret, name, params, required) ret(*name) params = nullptr;
  BLOOMKIT_REDIS_API_FUNCTIONS(BLOOMKIT_REDIS_API_MEMBER)
#undef BLOOMKIT_REDIS_API_MEMBER
};

extern Api rm;

// Looks every function up through the pointer Redis stores at the start of `ctx`.
// Returns the name of the first required function the server lacks, or nullptr.
const char* LoadApi(RedisModuleCtx* ctx) noexcept;

}  // namespace bloomkit::redis
