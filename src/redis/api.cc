// SPDX-License-Identifier: Apache-2.0
// The function table of redismodule_api.h, filled at RedisModule_OnLoad.
#include <cstring>

#include "redismodule_api.h"

namespace bloomkit::redis {

Api rm;

const char* LoadApi(RedisModuleCtx* ctx) noexcept {
  // The first word of the load context is RedisModule_GetApi (modules API reference,
  // "RedisModule_Init"): int GetApi(const char* name, void* pointer_to_function_pointer).
  using GetApiFunc = int (*)(const char*, void*);
  void* first_word = nullptr;
  std::memcpy(&first_word, static_cast<const void*>(ctx), sizeof(first_word));
  GetApiFunc get_api = nullptr;
  std::memcpy(&get_api, &first_word, sizeof(get_api));
  if (get_api == nullptr) return "RedisModule_GetApi";
#define BLOOMKIT_REDIS_API_LOOKUP(ret, name, params, required)              \
  if (get_api("RedisModule_" #name, static_cast<void*>(&rm.name)) != kOk) { \
    rm.name = nullptr;                                                      \
    if (required) return "RedisModule_" #name;                              \
  }
  BLOOMKIT_REDIS_API_FUNCTIONS(BLOOMKIT_REDIS_API_LOOKUP)
#undef BLOOMKIT_REDIS_API_LOOKUP
  return nullptr;
}

}  // namespace bloomkit::redis
