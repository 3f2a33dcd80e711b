// SPDX-License-Identifier: Apache-2.0
// UserDatabase on an embedded SQLite file.
//
// Each connection is its own sqlite3 handle (SQLITE_OPEN_NOMUTEX: one thread per
// handle, SQLITE_OPEN_PRIVATECACHE: no shared-cache locking between them), so client
// threads read in parallel. The file is in WAL mode: readers see the last committed
// state and never block the one writer that inserts rows during a run.
#include <sqlite3.h>

#include <charconv>
#include <utility>

#include "user_store.h"
#include "util.h"

namespace cache_guard {
namespace {

constexpr int kBusyTimeoutMs = 5000;
constexpr std::uint64_t kFillBatch = 100'000;

struct DbCloser {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* stmt) const noexcept { sqlite3_finalize(stmt); }
};
using DbPtr = std::unique_ptr<sqlite3, DbCloser>;
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

Error SqliteError(sqlite3* db, std::string_view what) {
  return MakeError(ErrorCode::kIoError, "sqlite: ", what, ": ", db != nullptr ? sqlite3_errmsg(db) : "out of memory");
}

// Ids are stored as SQLite INTEGER (signed 64-bit); the showcase's ids stay far below 2^63.
sqlite3_int64 ToSql(std::uint64_t id) {
  return static_cast<sqlite3_int64>(id);
}

Result<DbPtr> OpenHandle(const std::string& path, bool read_only) {
  sqlite3* raw = nullptr;
  const int flags = (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  DbPtr db(raw);
  if (rc != SQLITE_OK) return SqliteError(raw, Message("open ", path));
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  return db;
}

Status Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    Error error = MakeError(ErrorCode::kIoError, "sqlite: ", sql, ": ", err != nullptr ? err : "unknown error");
    sqlite3_free(err);
    return error;
  }
  return {};
}

Result<StmtPtr> Prepare(sqlite3* db, std::string_view sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &raw, nullptr) !=
      SQLITE_OK) {
    return SqliteError(db, Message("prepare ", sql));
  }
  return StmtPtr(raw);
}

Result<std::uint64_t> QueryCount(sqlite3* db, std::string_view sql) {
  auto stmt = Prepare(db, sql);
  if (!stmt.ok()) return std::move(stmt).error();
  if (sqlite3_step(stmt->get()) != SQLITE_ROW) return SqliteError(db, sql);
  return static_cast<std::uint64_t>(sqlite3_column_int64(stmt->get(), 0));
}

std::string_view ColumnText(sqlite3_stmt* stmt, int column) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
  return text == nullptr ? std::string_view()
                         : std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, column)));
}

class SqliteStore final : public UserStore {
 public:
  static Result<std::unique_ptr<UserStore>> Open(const std::string& path, bool read_only) {
    auto db = OpenHandle(path, read_only);
    if (!db.ok()) return std::move(db).error();
    auto find = Prepare(db->get(), "SELECT name, email FROM users WHERE id = ?1");
    if (!find.ok()) return std::move(find).error();
    auto ids = Prepare(db->get(), "SELECT id FROM users WHERE id > ?1 ORDER BY id LIMIT ?2");
    if (!ids.ok()) return std::move(ids).error();
    StmtPtr insert;
    if (!read_only) {
      auto prepared = Prepare(db->get(), "INSERT INTO users (id, name, email) VALUES (?1, ?2, ?3)");
      if (!prepared.ok()) return std::move(prepared).error();
      insert = std::move(prepared).value();
    }
    return std::unique_ptr<UserStore>(
        new SqliteStore(std::move(db).value(), std::move(find).value(), std::move(ids).value(), std::move(insert)));
  }

  Result<std::optional<User>> Find(std::uint64_t id) override {
    sqlite3_stmt* stmt = find_.get();
    sqlite3_reset(stmt);
    sqlite3_bind_int64(stmt, 1, ToSql(id));
    const int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) return std::optional<User>();
    if (rc != SQLITE_ROW) return SqliteError(db_.get(), "find user");
    return std::optional<User>(User{id, std::string(ColumnText(stmt, 0)), std::string(ColumnText(stmt, 1))});
  }

  Status Insert(const User& user) override {
    if (insert_ == nullptr) return MakeError(ErrorCode::kUnsupported, "sqlite: insert on a read-only connection");
    sqlite3_stmt* stmt = insert_.get();
    sqlite3_reset(stmt);
    sqlite3_bind_int64(stmt, 1, ToSql(user.id));
    sqlite3_bind_text(stmt, 2, user.name.data(), static_cast<int>(user.name.size()), SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, user.email.data(), static_cast<int>(user.email.size()), SQLITE_STATIC);
    if (sqlite3_step(stmt) != SQLITE_DONE) return SqliteError(db_.get(), Message("insert user ", user.id));
    return {};
  }

  Result<std::vector<std::uint64_t>> IdsAfter(std::uint64_t after, std::size_t limit) override {
    sqlite3_stmt* stmt = ids_.get();
    sqlite3_reset(stmt);
    sqlite3_bind_int64(stmt, 1, ToSql(after));
    sqlite3_bind_int64(stmt, 2, static_cast<sqlite3_int64>(limit));
    std::vector<std::uint64_t> ids;
    ids.reserve(limit);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
      ids.push_back(static_cast<std::uint64_t>(sqlite3_column_int64(stmt, 0)));
    if (rc != SQLITE_DONE) return SqliteError(db_.get(), "list ids");
    return ids;
  }

  Result<std::uint64_t> CountRows() override { return QueryCount(db_.get(), "SELECT count(*) FROM users"); }

 private:
  SqliteStore(DbPtr db, StmtPtr find, StmtPtr ids, StmtPtr insert)
      : db_(std::move(db)), find_(std::move(find)), ids_(std::move(ids)), insert_(std::move(insert)) {}

  // Statements before the handle in destruction order: they are declared after it.
  DbPtr db_;
  StmtPtr find_;
  StmtPtr ids_;
  StmtPtr insert_;
};

class SqliteDatabase final : public UserDatabase {
 public:
  explicit SqliteDatabase(std::string path) : path_(std::move(path)) {}

  [[nodiscard]] std::string Describe() const override { return "sqlite " + path_; }

  Status Prepare(std::uint64_t count, const ProgressFn& progress) override {
    auto db = OpenHandle(path_, /*read_only=*/false);
    if (!db.ok()) return std::move(db).error();
    sqlite3* handle = db->get();
    for (const char* sql : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
                            "CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                            "email TEXT NOT NULL)"}) {
      if (auto status = Exec(handle, sql); !status.ok()) return status;
    }
    const std::string trim = Message("DELETE FROM users WHERE id > ", count, " OR id < 1");
    if (auto status = Exec(handle, trim.c_str()); !status.ok()) return status;
    auto present = QueryCount(handle, "SELECT count(*) FROM users");
    if (!present.ok()) return std::move(present).error();
    if (present.value() == count) return {};  // ids are unique and in [1, count]: all there

    auto insert = cache_guard::Prepare(handle, "INSERT OR IGNORE INTO users (id, name, email) VALUES (?1, ?2, ?3)");
    if (!insert.ok()) return std::move(insert).error();
    sqlite3_stmt* stmt = insert->get();
    for (std::uint64_t first = 1; first <= count; first += kFillBatch) {
      if (auto status = Exec(handle, "BEGIN"); !status.ok()) return status;
      const std::uint64_t last = std::min(count, first + kFillBatch - 1);
      for (std::uint64_t id = first; id <= last; ++id) {
        const User user = MakeUser(id);
        sqlite3_reset(stmt);
        sqlite3_bind_int64(stmt, 1, ToSql(id));
        sqlite3_bind_text(stmt, 2, user.name.data(), static_cast<int>(user.name.size()), SQLITE_TRANSIENT);
        sqlite3_bind_text(stmt, 3, user.email.data(), static_cast<int>(user.email.size()), SQLITE_TRANSIENT);
        if (sqlite3_step(stmt) != SQLITE_DONE) return SqliteError(handle, Message("fill user ", id));
      }
      if (auto status = Exec(handle, "COMMIT"); !status.ok()) return status;
      if (progress) progress(last, count);
    }
    return {};
  }

  Result<std::unique_ptr<UserStore>> Connect(const ConnectOptions& options) override {
    return SqliteStore::Open(path_, options.read_only);
  }

 private:
  std::string path_;
};

}  // namespace

Result<std::unique_ptr<UserDatabase>> OpenSqliteDatabase(std::string path) {
  if (path.empty()) return MakeError(ErrorCode::kInvalidArgument, "sqlite: the database path is empty");
  return std::unique_ptr<UserDatabase>(new SqliteDatabase(std::move(path)));
}

}  // namespace cache_guard
