// SPDX-License-Identifier: Apache-2.0
// RedisBloom 8's runtime configuration: bf-error-rate, bf-initial-size,
// bf-expansion-factor, cf-bucket-size, cf-initial-size, cf-max-iterations,
// cf-expansion-factor and cf-max-expansions, read and set with CONFIG GET/SET, kept
// by CONFIG REWRITE and taken from redis.conf. They set the fields of the module's
// ModuleConfig that the module arguments set at load time, so they drive the filters
// BF.ADD/MADD/INSERT and CF.ADD/INSERT create and the defaults of BF.RESERVE and
// CF.RESERVE.
//
// Redis 8 takes them under these names (REDISMODULE_CONFIG_UNPREFIXED). Redis 7.x and
// Valkey 8.0 know only module configs named "<module name>.<name>", so there they are
// bloomkit.bf-error-rate and so on (bf.bf-error-rate under IDENTITY redisbloom).
#pragma once

#include "redismodule_api.h"

namespace bloomkit::redis {

struct ModuleConfig;

// The module's settings: the module arguments, changed at run time by the config setters.
const ModuleConfig& Config() noexcept;
ModuleConfig& MutableConfig() noexcept;

// Registers the eight configs with the current values (the module arguments') as their
// defaults and loads those redis.conf gives. Returns false if the load must fail (a
// redis.conf value out of range); a server without module configs (Redis < 7.0) keeps
// the module arguments. `*prefix` is set to "" or "<module name>." as registered.
bool RegisterConfigs(RedisModuleCtx* ctx, const char* module_name, const char** prefix);

}  // namespace bloomkit::redis
