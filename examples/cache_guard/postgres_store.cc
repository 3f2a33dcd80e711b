// SPDX-License-Identifier: Apache-2.0
// UserDatabase on a PostgreSQL server through libpq.
//
// Each connection prepares its three statements once; a lookup is one round trip
// (PQexecPrepared with a binary-safe text parameter). Read-only connections set
// default_transaction_read_only so a bug can never write through them.
#include <libpq-fe.h>

#include <utility>

#include "user_store.h"
#include "util.h"

namespace cache_guard {
namespace {

struct ConnCloser {
  void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
};
struct ResultClearer {
  void operator()(PGresult* result) const noexcept { PQclear(result); }
};
using ConnPtr = std::unique_ptr<PGconn, ConnCloser>;
using PgResultPtr = std::unique_ptr<PGresult, ResultClearer>;

// libpq's messages end with a newline; drop it so ours read as one line.
std::string Trimmed(const char* message) {
  std::string text = message != nullptr ? message : "unknown error";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

Error PgError(PGconn* conn, std::string_view what) {
  return MakeError(ErrorCode::kIoError, "postgres: ", what, ": ", Trimmed(PQerrorMessage(conn)));
}

Status Exec(PGconn* conn, const std::string& sql) {
  PgResultPtr result(PQexec(conn, sql.c_str()));
  const auto status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return PgError(conn, sql);
  return {};
}

Result<std::uint64_t> QueryCount(PGconn* conn, const std::string& sql) {
  PgResultPtr result(PQexec(conn, sql.c_str()));
  if (PQresultStatus(result.get()) != PGRES_TUPLES_OK || PQntuples(result.get()) != 1) return PgError(conn, sql);
  return std::stoull(PQgetvalue(result.get(), 0, 0));
}

Result<ConnPtr> OpenConnection(const std::string& url) {
  ConnPtr conn(PQconnectdb(url.c_str()));
  if (conn == nullptr) return MakeError(ErrorCode::kIoError, "postgres: out of memory connecting");
  if (PQstatus(conn.get()) != CONNECTION_OK) return PgError(conn.get(), "connect");
  return conn;
}

class PostgresStore final : public UserStore {
 public:
  static Result<std::unique_ptr<UserStore>> Open(const std::string& url, bool read_only) {
    auto conn = OpenConnection(url);
    if (!conn.ok()) return std::move(conn).error();
    PGconn* c = conn->get();
    if (read_only) {
      if (auto status = Exec(c, "SET default_transaction_read_only = on"); !status.ok()) return status.error();
    }
    const std::pair<const char*, const char*> statements[] = {
        {"find", "SELECT name, email FROM users WHERE id = $1::bigint"},
        {"ids", "SELECT id FROM users WHERE id > $1::bigint ORDER BY id LIMIT $2::bigint"},
        {"insert", "INSERT INTO users (id, name, email) VALUES ($1::bigint, $2, $3)"},
    };
    for (const auto& [name, sql] : statements) {
      PgResultPtr result(PQprepare(c, name, sql, 0, nullptr));
      if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) return PgError(c, Message("prepare ", sql));
    }
    return std::unique_ptr<UserStore>(new PostgresStore(std::move(conn).value()));
  }

  Result<std::optional<User>> Find(std::uint64_t id) override {
    const std::string key = std::to_string(id);
    const char* params[] = {key.c_str()};
    PgResultPtr result(PQexecPrepared(conn_.get(), "find", 1, params, nullptr, nullptr, 0));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) return PgError(conn_.get(), "find user");
    if (PQntuples(result.get()) == 0) return std::optional<User>();
    return std::optional<User>(User{id, PQgetvalue(result.get(), 0, 0), PQgetvalue(result.get(), 0, 1)});
  }

  Status Insert(const User& user) override {
    const std::string key = std::to_string(user.id);
    const char* params[] = {key.c_str(), user.name.c_str(), user.email.c_str()};
    PgResultPtr result(PQexecPrepared(conn_.get(), "insert", 3, params, nullptr, nullptr, 0));
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) return PgError(conn_.get(), Message("insert user ", user.id));
    return {};
  }

  Result<std::vector<std::uint64_t>> IdsAfter(std::uint64_t after, std::size_t limit) override {
    const std::string from = std::to_string(after);
    const std::string count = std::to_string(limit);
    const char* params[] = {from.c_str(), count.c_str()};
    PgResultPtr result(PQexecPrepared(conn_.get(), "ids", 2, params, nullptr, nullptr, 0));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) return PgError(conn_.get(), "list ids");
    const int rows = PQntuples(result.get());
    std::vector<std::uint64_t> ids;
    ids.reserve(static_cast<std::size_t>(rows));
    for (int row = 0; row < rows; ++row) ids.push_back(std::stoull(PQgetvalue(result.get(), row, 0)));
    return ids;
  }

  Result<std::uint64_t> CountRows() override { return QueryCount(conn_.get(), "SELECT count(*) FROM users"); }

 private:
  explicit PostgresStore(ConnPtr conn) : conn_(std::move(conn)) {}
  ConnPtr conn_;
};

class PostgresDatabase final : public UserDatabase {
 public:
  explicit PostgresDatabase(std::string url) : url_(std::move(url)) {}

  [[nodiscard]] std::string Describe() const override {
    // Show where, never the password: libpq's own view of the connection.
    auto conn = OpenConnection(url_);
    if (!conn.ok()) return "postgresql (unreachable)";
    return Message("postgresql host=", PQhost(conn->get()), " port=", PQport(conn->get()),
                   " dbname=", PQdb(conn->get()), " user=", PQuser(conn->get()));
  }

  Status Prepare(std::uint64_t count, const ProgressFn& progress) override {
    auto conn = OpenConnection(url_);
    if (!conn.ok()) return std::move(conn).error();
    PGconn* c = conn->get();
    if (auto status = Exec(c, "SET client_min_messages = warning"); !status.ok()) return status;
    if (auto status = Exec(c,
                           "CREATE TABLE IF NOT EXISTS users (id BIGINT PRIMARY KEY, name TEXT NOT NULL, "
                           "email TEXT NOT NULL)");
        !status.ok()) {
      return status;
    }
    if (auto status = Exec(c, Message("DELETE FROM users WHERE id > ", count, " OR id < 1")); !status.ok())
      return status;
    auto present = QueryCount(c, "SELECT count(*) FROM users");
    if (!present.ok()) return std::move(present).error();
    if (present.value() == count) return {};
    // generate_series fills in batches on the server: no row crosses the network.
    constexpr std::uint64_t kBatch = 100'000;
    for (std::uint64_t first = 1; first <= count; first += kBatch) {
      const std::uint64_t last = std::min(count, first + kBatch - 1);
      const std::string sql = Message(
          "INSERT INTO users (id, name, email) SELECT g, 'user-' || g, 'user' || g || "
          "'@example.com' FROM generate_series(",
          first, "::bigint, ", last, "::bigint) AS g ON CONFLICT (id) DO NOTHING");
      if (auto status = Exec(c, sql); !status.ok()) return status;
      if (progress) progress(last, count);
    }
    return Exec(c, "ANALYZE users");
  }

  Result<std::unique_ptr<UserStore>> Connect(const ConnectOptions& options) override {
    return PostgresStore::Open(url_, options.read_only);
  }

 private:
  std::string url_;
};

}  // namespace

Result<std::unique_ptr<UserDatabase>> OpenPostgresDatabase(std::string url) {
  if (url.empty()) return MakeError(ErrorCode::kInvalidArgument, "postgres: the connection URL is empty");
  return std::unique_ptr<UserDatabase>(new PostgresDatabase(std::move(url)));
}

}  // namespace cache_guard
