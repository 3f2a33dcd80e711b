// SPDX-License-Identifier: Apache-2.0
// RedisBloom 8's runtime configuration (config.h). Every config is a string config, as
// in RedisBloom, so that CONFIG GET answers the value as it was set and a bad value
// gets RedisBloom's texts: "Invalid value for `name`" and "Value for `name` must be in
// the range [min, max]" ("(min, max)" for the error rate). Ranges are RedisBloom 8's;
// cf-bucket-size is at most half of cf-initial-size (and 255), cf-initial-size at least
// twice cf-bucket-size. An error rate above 0.25 is stored as 0.25.
#include "config.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string>
#include <system_error>

#include "args.h"

namespace bloomkit::redis {
namespace {

ModuleConfig g_config;

enum class Field {
  kErrorRate,
  kInitialSize,
  kExpansion,
  kCfBucketSize,
  kCfInitialSize,
  kCfMaxIterations,
  kCfExpansion,
  kCfMaxExpansions
};

struct Option {
  const char* name;
  Field field;
  long long min;  // for the error rate: the open range (0, 1)
  long long max;
  RedisModuleString* value = nullptr;  // what CONFIG GET answers
};

Option g_options[] = {
    {"bf-error-rate", Field::kErrorRate, 0, 1},
    {"bf-initial-size", Field::kInitialSize, 1, kRedisBloomMaxCapacity},
    {"bf-expansion-factor", Field::kExpansion, 0, kRedisBloomMaxExpansion},
    {"cf-bucket-size", Field::kCfBucketSize, 1, 255},
    {"cf-initial-size", Field::kCfInitialSize, 4, kRedisBloomMaxCapacity},
    {"cf-max-iterations", Field::kCfMaxIterations, 1, 65535},
    {"cf-expansion-factor", Field::kCfExpansion, 0, kRedisBloomMaxExpansion},
    {"cf-max-expansions", Field::kCfMaxExpansions, 1, 65536},
};

std::string ShortestDouble(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ec == std::errc() ? result.ptr : buffer);
}

std::string CurrentText(Field field) {
  const ModuleConfig& c = MutableConfig();
  switch (field) {
    case Field::kErrorRate: return ShortestDouble(c.error_rate);
    case Field::kInitialSize: return std::to_string(c.initial_size);
    case Field::kExpansion: return std::to_string(c.expansion);
    case Field::kCfBucketSize: return std::to_string(c.cf_bucket_size);
    case Field::kCfInitialSize: return std::to_string(c.cf_initial_size);
    case Field::kCfMaxIterations: return std::to_string(c.cf_max_iterations);
    case Field::kCfExpansion: return std::to_string(c.cf_expansion);
    case Field::kCfMaxExpansions: return std::to_string(c.cf_max_expansions);
  }
  return {};
}

// The range a new value must be in, with the cross-limits of the two cuckoo defaults.
void Range(const Option& option, long long* min, long long* max) {
  *min = option.min;
  *max = option.max;
  const ModuleConfig& c = MutableConfig();
  if (option.field == Field::kCfBucketSize) {
    *max = std::min<long long>(static_cast<long long>(c.cf_initial_size / 2), option.max);
  } else if (option.field == Field::kCfInitialSize) {
    *min = 2LL * c.cf_bucket_size;
  }
}

void Store(Field field, long long integer, double rate) {
  ModuleConfig& c = MutableConfig();
  switch (field) {
    case Field::kErrorRate: c.error_rate = rate; break;
    case Field::kInitialSize: c.initial_size = static_cast<std::uint64_t>(integer); break;
    case Field::kExpansion: c.expansion = static_cast<std::uint32_t>(integer); break;
    case Field::kCfBucketSize: c.cf_bucket_size = static_cast<std::uint32_t>(integer); break;
    case Field::kCfInitialSize: c.cf_initial_size = static_cast<std::uint64_t>(integer); break;
    case Field::kCfMaxIterations: c.cf_max_iterations = static_cast<std::uint32_t>(integer); break;
    case Field::kCfExpansion: c.cf_expansion = static_cast<std::uint32_t>(integer); break;
    case Field::kCfMaxExpansions: c.cf_max_expansions = static_cast<std::uint32_t>(integer); break;
  }
}

RedisModuleString* MakeString(const std::string& text) {
  return rm.CreateString(nullptr, text.data(), text.size());
}

int Fail(RedisModuleString** err, const std::string& text) {
  *err = MakeString(text);
  return kErr;
}

RedisModuleString* GetOption(const char* /*name*/, void* privdata) {
  return static_cast<Option*>(privdata)->value;
}

int SetOption(const char* name, RedisModuleString* value, void* privdata, RedisModuleString** err) {
  try {
    Option& option = *static_cast<Option*>(privdata);
    std::size_t len = 0;
    const char* p = rm.StringPtrLen(value, &len);
    const std::string_view text(p, len);
    std::string stored(text);
    long long integer = 0;
    double rate = 0;
    if (option.field == Field::kErrorRate) {
      const auto v = ParseDouble(text);
      if (!v) return Fail(err, std::string("Invalid value for `") + name + "`");
      if (!(*v > 0 && *v < 1)) {
        return Fail(err, std::string("Value for `") + name + "` must be in the range (0.000000, 1.000000)");
      }
      rate = *v;
      if (rate > kRedisBloomErrorRateCap) {
        rate = kRedisBloomErrorRateCap;
        stored = ShortestDouble(rate);
      }
    } else {
      const auto v = ParseInt64(text);
      if (!v) return Fail(err, std::string("Invalid value for `") + name + "`");
      long long min = 0;
      long long max = 0;
      Range(option, &min, &max);
      if (*v < min || *v > max) {
        char message[160];
        std::snprintf(message, sizeof(message), "Value for `%s` must be in the range [%lld, %lld]", name, min, max);
        return Fail(err, message);
      }
      integer = *v;
    }
    RedisModuleString* replacement = MakeString(stored);
    if (replacement == nullptr) return Fail(err, "out of memory");
    Store(option.field, integer, rate);
    if (option.value != nullptr) rm.FreeString(nullptr, option.value);
    option.value = replacement;
    return kOk;
  } catch (...) {
    return kErr;
  }
}

// Registers every option, with `flags`; false at the first the server refuses.
bool RegisterAll(RedisModuleCtx* ctx, unsigned flags) {
  for (Option& option : g_options) {
    const std::string current = CurrentText(option.field);
    if (option.value == nullptr) option.value = MakeString(current);
    if (option.value == nullptr || rm.RegisterStringConfig(ctx, option.name, current.c_str(), flags, &GetOption,
                                                           &SetOption, nullptr, &option) != kOk) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool RegisterConfigs(RedisModuleCtx* ctx, const char* module_name, const char** prefix) {
  static std::string registered_prefix;
  *prefix = "";
  if (rm.RegisterStringConfig == nullptr || rm.LoadConfigs == nullptr || rm.CreateString == nullptr ||
      rm.FreeString == nullptr) {
    rm.Log(ctx, "warning", "bloomkit: this server has no module configs; the module arguments stay in force");
    return true;
  }
  // Redis 8 names them as RedisBloom 8 does; older servers refuse the flag before
  // registering anything, and then take them under the module's prefix.
  if (!RegisterAll(ctx, kConfigUnprefixed)) {
    registered_prefix = std::string(module_name) + ".";
    if (!RegisterAll(ctx, 0)) {
      rm.Log(ctx, "warning", "bloomkit: could not register the configs bf-error-rate ... cf-max-expansions");
      return false;
    }
    *prefix = registered_prefix.c_str();
  }
  if (rm.LoadConfigs(ctx) != kOk) {
    rm.Log(ctx, "warning", "bloomkit: a value of bf-error-rate ... cf-max-expansions in the configuration is invalid");
    return false;
  }
  return true;
}

const ModuleConfig& Config() noexcept {
  return g_config;
}

ModuleConfig& MutableConfig() noexcept {
  return g_config;
}

}  // namespace bloomkit::redis
