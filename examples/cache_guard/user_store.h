// SPDX-License-Identifier: Apache-2.0
// The database behind the cache: a table of users keyed by a 64-bit id.
//
// UserDatabase owns the location (a SQLite file, a PostgreSQL URL), prepares the table
// and opens connections; UserStore is one connection. A connection is used by one thread
// at a time: the load generator opens one per client, as a service opens one per worker.
// Adding a database means one UserDatabase + UserStore pair (see sqlite_store.cc and
// postgres_store.cc).
//
//   auto db = cache_guard::OpenSqliteDatabase("var/users.sqlite");
//   auto status = db.value()->Prepare(1'000'000, {});   // users 1..1,000,000
//   auto store = db.value()->Connect({.read_only = true});
//   auto row = store.value()->Find(42);                  // -> user-42
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/result.h"

namespace cache_guard {

using bloomkit::Error;
using bloomkit::ErrorCode;
using bloomkit::Result;
using bloomkit::Status;

struct User {
  std::uint64_t id = 0;
  std::string name;
  std::string email;

  friend bool operator==(const User&, const User&) = default;
};

// The row the showcase stores for `id`: deterministic, so that every answer the service
// gives can be checked against it ("user-42", "user42@example.com").
User MakeUser(std::uint64_t id);

// The cached form of a row: name, a tab, email. An empty value is a tombstone (the
// "not in the database" marker of empty-result caching), which no encoded row can be.
std::string EncodeUser(const User& user);
Result<User> DecodeUser(std::uint64_t id, std::string_view value);

// Called with (done, total) while a long operation runs.
using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;

// One connection. Not thread-safe: one per thread.
class UserStore {
 public:
  virtual ~UserStore() = default;

  // The row with `id`, or nullopt when there is none.
  virtual Result<std::optional<User>> Find(std::uint64_t id) = 0;
  // Adds a row; an existing id is an error.
  virtual Status Insert(const User& user) = 0;
  // Up to `limit` ids greater than `after`, ascending (keyset pagination: each batch is
  // one index range scan, however deep into the table it is).
  virtual Result<std::vector<std::uint64_t>> IdsAfter(std::uint64_t after, std::size_t limit) = 0;
  virtual Result<std::uint64_t> CountRows() = 0;
};

struct ConnectOptions {
  bool read_only = false;
};

class UserDatabase {
 public:
  virtual ~UserDatabase() = default;

  // "sqlite var/users.sqlite", "postgresql host=... dbname=..." (no password).
  [[nodiscard]] virtual std::string Describe() const = 0;
  // Makes the users table hold exactly the rows MakeUser(1..count): creates the table,
  // adds the missing rows, removes rows above `count` (left by an earlier run's inserts).
  virtual Status Prepare(std::uint64_t count, const ProgressFn& progress) = 0;
  virtual Result<std::unique_ptr<UserStore>> Connect(const ConnectOptions& options) = 0;
};

// A SQLite file (created if missing; WAL journal so that readers never block the writer).
Result<std::unique_ptr<UserDatabase>> OpenSqliteDatabase(std::string path);
// A PostgreSQL server, by libpq connection string or URL ("postgresql://user@host/db").
// An error when bloomkit was built without libpq.
Result<std::unique_ptr<UserDatabase>> OpenPostgresDatabase(std::string url);

}  // namespace cache_guard
