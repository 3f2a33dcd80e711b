// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

#include "redismodule_api.h"

namespace bloomkit::redis {

// The argument list COMMAND DOCS shows for a command (RedisModuleCommandInfo::args): for
// BF.* and CF.* the names, types, tokens, flags and nesting RedisBloom 8 declares; TBF.*
// in the same style.
// The array ends with an all-zero entry and lives for the whole process. nullptr for a
// command without a declared list (lowercase or uppercase name).
RedisModuleCommandArg* CommandArgs(std::string_view command_name);

}  // namespace bloomkit::redis
