// SPDX-License-Identifier: Apache-2.0
#include "command_args.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace bloomkit::redis {
namespace {

constexpr RedisModuleCommandArg Arg(const char* name, RedisModuleCommandArgType type, int flags = 0,
                                    const char* token = nullptr, RedisModuleCommandArg* subargs = nullptr) {
  return {name, type, type == REDISMODULE_ARG_TYPE_KEY ? 0 : -1, token, nullptr, nullptr, flags, nullptr, subargs};
}

constexpr RedisModuleCommandArg kEnd{};

constexpr RedisModuleCommandArg Key() {
  return Arg("key", REDISMODULE_ARG_TYPE_KEY);
}
constexpr RedisModuleCommandArg Item() {
  return Arg("item", REDISMODULE_ARG_TYPE_STRING);
}
constexpr RedisModuleCommandArg Items() {
  return Arg("item", REDISMODULE_ARG_TYPE_STRING, REDISMODULE_CMD_ARG_MULTIPLE);
}
constexpr RedisModuleCommandArg Token(const char* name, const char* token, int flags = REDISMODULE_CMD_ARG_OPTIONAL) {
  return Arg(name, REDISMODULE_ARG_TYPE_PURE_TOKEN, flags, token);
}
// [TOKEN value]: an optional block whose token precedes its one value.
constexpr RedisModuleCommandArg Option(const char* name, const char* token, RedisModuleCommandArg* value) {
  return Arg(name, REDISMODULE_ARG_TYPE_BLOCK, REDISMODULE_CMD_ARG_OPTIONAL, token, value);
}

// Sub-argument lists (one value each, then the terminator).
RedisModuleCommandArg kCapacityValue[] = {Arg("capacity", REDISMODULE_ARG_TYPE_INTEGER), kEnd};
RedisModuleCommandArg kErrorValue[] = {Arg("error", REDISMODULE_ARG_TYPE_DOUBLE), kEnd};
RedisModuleCommandArg kExpansionValue[] = {Arg("expansion", REDISMODULE_ARG_TYPE_INTEGER), kEnd};
RedisModuleCommandArg kBucketSizeValue[] = {Arg("bucketsize", REDISMODULE_ARG_TYPE_INTEGER), kEnd};
RedisModuleCommandArg kMaxIterationsValue[] = {Arg("maxiterations", REDISMODULE_ARG_TYPE_INTEGER), kEnd};
// CF.INSERT / CF.INSERTNX: RedisBloom declares the CAPACITY option as an untokened block
// holding the token and the value.
RedisModuleCommandArg kCfCapacity[] = {Token("capacity", "CAPACITY", 0), Arg("capacity", REDISMODULE_ARG_TYPE_INTEGER),
                                       kEnd};
RedisModuleCommandArg kBfInfoFields[] = {Token("capacity", "CAPACITY", 0),   Token("size", "SIZE", 0),
                                         Token("filters", "FILTERS", 0),     Token("items", "ITEMS", 0),
                                         Token("expansion", "EXPANSION", 0), kEnd};

// key
RedisModuleCommandArg kKeyOnly[] = {Key(), kEnd};
// key item
RedisModuleCommandArg kKeyItem[] = {Key(), Item(), kEnd};
// key item [item ...]
RedisModuleCommandArg kKeyItems[] = {Key(), Items(), kEnd};
// key iterator
RedisModuleCommandArg kScanDump[] = {Key(), Arg("iterator", REDISMODULE_ARG_TYPE_INTEGER), kEnd};
// key iterator data
RedisModuleCommandArg kLoadChunk[] = {Key(), Arg("iterator", REDISMODULE_ARG_TYPE_INTEGER),
                                      Arg("data", REDISMODULE_ARG_TYPE_STRING), kEnd};
// key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]
RedisModuleCommandArg kBfInfo[] = {
    Key(), Arg("single_value", REDISMODULE_ARG_TYPE_ONEOF, REDISMODULE_CMD_ARG_OPTIONAL, nullptr, kBfInfoFields), kEnd};
// key error_rate capacity [EXPANSION expansion] [NONSCALING]
RedisModuleCommandArg kBfReserve[] = {Key(),
                                      Arg("error_rate", REDISMODULE_ARG_TYPE_DOUBLE),
                                      Arg("capacity", REDISMODULE_ARG_TYPE_INTEGER),
                                      Option("expansion", "EXPANSION", kExpansionValue),
                                      Token("nonscaling", "NONSCALING"),
                                      kEnd};
// key [CAPACITY capacity] [ERROR error] [EXPANSION expansion] [NOCREATE] [NONSCALING] ITEMS item [item ...]
RedisModuleCommandArg kBfInsert[] = {Key(),
                                     Option("capacity", "CAPACITY", kCapacityValue),
                                     Option("error", "ERROR", kErrorValue),
                                     Option("expansion", "EXPANSION", kExpansionValue),
                                     Token("nocreate", "NOCREATE"),
                                     Token("nonscaling", "NONSCALING"),
                                     Token("items", "ITEMS", 0),
                                     Items(),
                                     kEnd};
// key capacity [BUCKETSIZE bucketsize] [MAXITERATIONS maxiterations] [EXPANSION expansion]
RedisModuleCommandArg kCfReserve[] = {Key(),
                                      Arg("capacity", REDISMODULE_ARG_TYPE_INTEGER),
                                      Option("bucketsize", "BUCKETSIZE", kBucketSizeValue),
                                      Option("maxiterations", "MAXITERATIONS", kMaxIterationsValue),
                                      Option("expansion", "EXPANSION", kExpansionValue),
                                      kEnd};
// key [CAPACITY capacity] [NOCREATE] ITEMS item [item ...]
RedisModuleCommandArg kCfInsert[] = {
    Key(),
    Arg("capacity", REDISMODULE_ARG_TYPE_BLOCK, REDISMODULE_CMD_ARG_OPTIONAL, nullptr, kCfCapacity),
    Token("nocreate", "NOCREATE"),
    Token("items", "ITEMS", 0),
    Items(),
    kEnd};

// bloomkit's TBF.*, in the style of the above.
RedisModuleCommandArg kSecondsValue[] = {Arg("seconds", REDISMODULE_ARG_TYPE_INTEGER), kEnd};
RedisModuleCommandArg kGenerationsValue[] = {Arg("generations", REDISMODULE_ARG_TYPE_INTEGER), kEnd};
RedisModuleCommandArg kMsValue[] = {Arg("ms", REDISMODULE_ARG_TYPE_INTEGER), kEnd};
RedisModuleCommandArg kSizingValue[] = {Arg("any", REDISMODULE_ARG_TYPE_PURE_TOKEN, 0, "ANY"),
                                        Arg("steady", REDISMODULE_ARG_TYPE_PURE_TOKEN, 0, "STEADY"), kEnd};
// key error_rate capacity WINDOW seconds [GENERATIONS generations] [SIZING ANY|STEADY] [AT ms]
RedisModuleCommandArg kTbfReserve[] = {
    Key(),
    Arg("error_rate", REDISMODULE_ARG_TYPE_DOUBLE),
    Arg("capacity", REDISMODULE_ARG_TYPE_INTEGER),
    Arg("window", REDISMODULE_ARG_TYPE_BLOCK, 0, "WINDOW", kSecondsValue),
    Option("generations", "GENERATIONS", kGenerationsValue),
    Arg("sizing", REDISMODULE_ARG_TYPE_ONEOF, REDISMODULE_CMD_ARG_OPTIONAL, "SIZING", kSizingValue),
    Option("at", "AT", kMsValue),
    kEnd};
// key ms item [item ...]
RedisModuleCommandArg kTbfMaddAt[] = {Key(), Arg("ms", REDISMODULE_ARG_TYPE_INTEGER), Items(), kEnd};

struct Entry {
  std::string_view name;
  RedisModuleCommandArg* args;
};

const Entry kTable[] = {
    {"bf.reserve", kBfReserve},    {"bf.add", kKeyItem},         {"bf.madd", kKeyItems},
    {"bf.insert", kBfInsert},      {"bf.exists", kKeyItem},      {"bf.mexists", kKeyItems},
    {"bf.info", kBfInfo},          {"bf.card", kKeyOnly},        {"bf.debug", kKeyOnly},
    {"bf.scandump", kScanDump},    {"bf.loadchunk", kLoadChunk}, {"cf.reserve", kCfReserve},
    {"cf.add", kKeyItem},          {"cf.addnx", kKeyItem},       {"cf.insert", kCfInsert},
    {"cf.insertnx", kCfInsert},    {"cf.exists", kKeyItem},      {"cf.mexists", kKeyItems},
    {"cf.count", kKeyItem},        {"cf.del", kKeyItem},         {"cf.info", kKeyOnly},
    {"cf.debug", kKeyOnly},        {"cf.scandump", kScanDump},   {"cf.loadchunk", kLoadChunk},
    {"tbf.reserve", kTbfReserve},  {"tbf.add", kKeyItem},        {"tbf.madd", kKeyItems},
    {"tbf.maddat", kTbfMaddAt},    {"tbf.exists", kKeyItem},     {"tbf.mexists", kKeyItems},
    {"tbf.info", kKeyOnly},        {"tbf.card", kKeyOnly},       {"tbf.scandump", kScanDump},
    {"tbf.loadchunk", kLoadChunk},
};

}  // namespace

RedisModuleCommandArg* CommandArgs(std::string_view command_name) {
  std::string lower(command_name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const Entry& entry : kTable) {
    if (entry.name == lower) return entry.args;
  }
  return nullptr;
}

}  // namespace bloomkit::redis
