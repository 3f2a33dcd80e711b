// SPDX-License-Identifier: Apache-2.0
// A stand-in for another Bloom-filter module (valkey-bloom, RedisBloom) in
// test_second_module.py: it registers BF.ADD and BF.EXISTS under the module name
// "bfother" and nothing else, which is the part of such a module that collides with
// bloomkit.so (valkey-bloom's data type is "bloomfltr", so only its BF.* commands do).
// BF.ADD answers "+bfother" so a test sees which module serves the command.
//
// Redis passes OnLoad a context whose first word is RedisModule_GetApi; every other
// function is looked up by name through it (the modules ABI; see redismodule_api.h).
#include <cstring>

extern "C" {
typedef struct RedisModuleCtx RedisModuleCtx;
typedef struct RedisModuleString RedisModuleString;
}

namespace {

using GetApiFunc = int (*)(const char* name, void* pointer);
using CommandFunc = int (*)(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
using SetModuleAttribsFunc = void (*)(RedisModuleCtx* ctx, const char* name, int ver, int apiver);
using CreateCommandFunc = int (*)(RedisModuleCtx* ctx, const char* name, CommandFunc func, const char* flags,
                                  int first_key, int last_key, int key_step);
using ReplyWithSimpleStringFunc = int (*)(RedisModuleCtx* ctx, const char* text);

ReplyWithSimpleStringFunc g_reply = nullptr;

int Answer(RedisModuleCtx* ctx, RedisModuleString** /*argv*/, int /*argc*/) {
  return g_reply(ctx, "bfother");
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx* ctx,
                                                                         RedisModuleString** /*argv*/, int /*argc*/) {
  GetApiFunc get_api = nullptr;
  std::memcpy(&get_api, static_cast<void*>(ctx), sizeof(get_api));
  SetModuleAttribsFunc set_attribs = nullptr;
  CreateCommandFunc create_command = nullptr;
  if (get_api("RedisModule_SetModuleAttribs", &set_attribs) != 0 ||
      get_api("RedisModule_CreateCommand", &create_command) != 0 ||
      get_api("RedisModule_ReplyWithSimpleString", &g_reply) != 0) {
    return 1;
  }
  set_attribs(ctx, "bfother", 1, 1);
  if (create_command(ctx, "BF.ADD", &Answer, "write fast deny-oom", 1, 1, 1) != 0 ||
      create_command(ctx, "BF.EXISTS", &Answer, "readonly fast", 1, 1, 1) != 0) {
    return 1;
  }
  return 0;
}
