// SPDX-License-Identifier: Apache-2.0
// bloomkit.so: RedisModule_OnLoad, the only exported symbol. Loads the API table,
// parses the module arguments, installs Redis' allocator under every filter (memory.h),
// creates the data types and registers the command table (commands.cc).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "config.h"
#include "native_type.h"
#include "redisbloom_type.h"
#include "tbf_commands.h"

namespace bloomkit::redis {
namespace {

constexpr const char* kModuleName = "bloomkit";
constexpr int kModuleVersion = 100;  // 0.1.0
constexpr const char* kRedisBloomModuleName = "bf";
constexpr int kRedisBloomModuleVersion = 20820;  // 2.8.20, as major * 10000 + minor * 100 + patch

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
  MutableConfig() = config.value();

  // Let rdb_load see read errors (truncated or forged payloads) instead of Redis
  // exiting on them; every load path checks RedisModule_IsIOError.
  if (rm.SetModuleOptions != nullptr) rm.SetModuleOptions(ctx, kOptionsHandleIoErrors);

  if (!InstallRedisAllocator()) {
    return FailLoad(ctx, "cannot install Redis' allocator: the allocator table is full");
  }

  if (!CreateType<BfFamily>(ctx) || !CreateType<CfFamily>(ctx) || !CreateType<CbfFamily>(ctx) ||
      !CreateType<TbfFamily>(ctx) || !CreateType<BitsAndBloomsFamily>(ctx) || !CreateType<GuavaFamily>(ctx) ||
      !CreateType<ParquetFamily>(ctx)) {
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

  if (!RegisterCommands(ctx)) return kErr;
  rm.Log(ctx, "notice",
         "bloomkit: loaded as %s (FORMAT %s, ERROR_RATE %g, INITIAL_SIZE %llu, EXPANSION %u, CF_INITIAL_SIZE %llu, "
         "CF_BUCKETSIZE %u, CF_MAX_ITERATIONS %u, CF_EXPANSION %u, CF_FINGERPRINT_BITS %u, "
         "MAX_FILTER_BYTES %llu%s)",
         name, Config().format == FilterFormat::kRedisBloom ? "redisbloom" : "native", Config().error_rate,
         static_cast<unsigned long long>(Config().initial_size), Config().expansion,
         static_cast<unsigned long long>(Config().cf_initial_size), Config().cf_bucket_size, Config().cf_max_iterations,
         Config().cf_expansion, Config().cf_fingerprint_bits,
         static_cast<unsigned long long>(Config().max_filter_bytes),
         Config().max_filter_bytes_given ? "" : " for native filters, none for RedisBloom-format ones");
  g_loaded = true;
  g_loaded_name = name;
  return kOk;
}

}  // namespace
}  // namespace bloomkit::redis

// The entry point's name is fixed by Redis, which looks it up in the module.
// NOLINTNEXTLINE(readability-identifier-naming)
extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx* ctx, RedisModuleString** argv,
                                                                         int argc) {
  try {
    return bloomkit::redis::OnLoad(ctx, argv, argc);
  } catch (...) {
    return bloomkit::redis::kErr;
  }
}
