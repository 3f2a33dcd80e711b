// SPDX-License-Identifier: Apache-2.0
// cache_guard: the cache-penetration showcase. Prepares a users table, then runs the
// same load through UserService in each mode (none, empty-cache, bloom) against one
// Redis server and prints what reached the database.
//
//   cache_guard --redis 127.0.0.1:6379 --users 1000000 --seconds 20 --json var/showcase.json
//
// Exit codes: 0 all modes ran, 1 a mode failed (the others are still reported),
// 2 bad arguments, 3 the database could not be prepared.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "load_generator.h"
#include "report.h"
#include "util.h"

namespace {

using cache_guard::GuardMode;

constexpr int kExitModeFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitDatabase = 3;

std::string ParentOf(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

void EnsureParent(const std::string& path) {
  const std::string parent = ParentOf(path);
  std::error_code ignored;
  if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The cache-penetration showcase: a Bloom filter in front of a Redis cache and a database"};
  cache_guard::LoadConfig config;
  std::string redis_address = "127.0.0.1:6379";
  std::string sqlite_path = "var/users.sqlite";
  std::string postgres_url;
  std::string json_path;
  std::string chart_path = "var/showcase.png";
  std::vector<std::string> mode_names = {"none", "empty-cache", "bloom"};
  std::uint64_t missing_keyspace = 0;

  app.add_option("--users", config.users, "rows in the users table (ids 1..N)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100'000'000}));
  app.add_option("--missing-ratio", config.missing_ratio, "fraction of requests for ids that do not exist")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--missing-keyspace", missing_keyspace,
                 "how many distinct missing ids requests draw from (default: users / 10, at least 1000)")
      ->check(CLI::Range(std::uint64_t{1}, cache_guard::kMissingIdBase));
  app.add_option("--seconds", config.seconds, "seconds of load per mode")->check(CLI::Range(0.1, 3600.0));
  app.add_option("--clients", config.clients, "concurrent clients (threads)")->check(CLI::Range(1u, 256u));
  app.add_option("--modes", mode_names, "modes to run, in order: none, empty-cache, bloom")
      ->delimiter(',')
      ->check(CLI::IsMember({"none", "empty-cache", "bloom"}));
  app.add_option("--fp-rate", config.filter.fp_rate, "the filter's target false-positive rate")
      ->check(CLI::Range(1e-9, 0.5));
  app.add_option("--insert-rate", config.insert_rate, "rows inserted per second during each mode (0: none)")
      ->check(CLI::Range(0.0, 10'000.0));
  app.add_option("--cache-ttl", config.service.cache_ttl_s, "seconds a cached row lives")
      ->check(CLI::Range(1u, 86'400u));
  app.add_option("--tombstone-ttl", config.service.tombstone_ttl_s, "seconds a cached 'not found' lives (empty-cache)")
      ->check(CLI::Range(1u, 86'400u));
  app.add_option("--redis", redis_address, "Redis server HOST:PORT; every mode starts with FLUSHDB on --redis-db");
  app.add_option("--redis-db", config.redis_db, "Redis database index")->check(CLI::Range(0, 15));
  app.add_option("--sqlite", sqlite_path, "SQLite database file (created and filled if needed)");
  app.add_option("--postgres", postgres_url, "PostgreSQL connection URL instead of SQLite");
  app.add_option("--json", json_path, "write one JSON object per mode to this file");
  app.add_option("--chart", chart_path, "PNG chart of DB queries and latency ('' for none)");
  app.add_option("--fp-probes", config.fp_probe_ids, "distinct missing ids probed with BF.MEXISTS after the bloom run")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{100'000'000}));
  app.add_option("--seed", config.seed, "random seed of the request mix");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }

  auto endpoint = cache_guard::ParseEndpoint(redis_address);
  if (!endpoint.ok()) {
    std::fprintf(stderr, "cache_guard: %s\n", endpoint.error().message().c_str());
    return kExitUsage;
  }
  config.redis = endpoint.value();
  config.missing_keyspace = missing_keyspace != 0 ? missing_keyspace : std::max<std::uint64_t>(1000, config.users / 10);

  if (postgres_url.empty()) EnsureParent(sqlite_path);
  auto database = postgres_url.empty() ? cache_guard::OpenSqliteDatabase(sqlite_path)
                                       : cache_guard::OpenPostgresDatabase(postgres_url);
  if (!database.ok()) {
    std::fprintf(stderr, "cache_guard: %s\n", database.error().message().c_str());
    return kExitUsage;
  }
  cache_guard::UserDatabase& db = *database.value();
  {
    cache_guard::ProgressBar bar("filling database");
    auto prepared =
        db.Prepare(config.users, [&bar](std::uint64_t done, std::uint64_t total) { bar.Update(done, total); });
    bar.Finish();
    if (!prepared.ok()) {
      std::fprintf(stderr, "cache_guard: %s\n", prepared.error().message().c_str());
      return kExitDatabase;
    }
  }

  cache_guard::RunSummary summary{db.Describe(),  config.users,   config.missing_ratio, config.missing_keyspace,
                                  config.seconds, config.clients, config.filter.fp_rate};
  std::vector<cache_guard::ModeReport> reports;
  std::uint64_t next_insert_id = config.users + 1;
  int exit_code = 0;
  for (const auto& name : mode_names) {
    auto mode = cache_guard::ParseGuardMode(name);
    if (!mode.ok()) {
      std::fprintf(stderr, "cache_guard: %s\n", mode.error().message().c_str());
      return kExitUsage;
    }
    config.mode = mode.value();
    std::fprintf(stderr, "cache_guard: mode %-11s %g s of load from %u clients...\n", name.c_str(), config.seconds,
                 config.clients);
    auto report = cache_guard::RunMode(db, config, next_insert_id);
    if (!report.ok()) {
      std::fprintf(stderr, "cache_guard: mode %s failed: %s\n", name.c_str(), report.error().message().c_str());
      exit_code = kExitModeFailed;
      continue;
    }
    reports.push_back(std::move(report).value());
  }

  cache_guard::PrintTable(stdout, summary, reports);
  if (!json_path.empty()) {
    EnsureParent(json_path);
    if (auto status = cache_guard::WriteJson(json_path, summary, reports); !status.ok()) {
      std::fprintf(stderr, "cache_guard: %s\n", status.error().message().c_str());
      exit_code = kExitModeFailed;
    } else {
      std::printf("JSON:  %s\n", json_path.c_str());
    }
  }
  if (!chart_path.empty() && !reports.empty()) {
    EnsureParent(chart_path);
    if (auto status = cache_guard::WriteChart(chart_path, summary, reports); !status.ok()) {
      std::fprintf(stderr, "cache_guard: %s\n", status.error().message().c_str());
      exit_code = kExitModeFailed;
    } else {
      std::printf("chart: %s\n", std::filesystem::absolute(chart_path).c_str());
    }
  }
  return exit_code;
}
