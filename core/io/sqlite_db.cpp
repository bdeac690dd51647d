#include "io/sqlite_db.h"

#include <sqlite3.h>

#include "session/types.h"

namespace ts {

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), error_(std::move(other.error_)) {
  other.stmt_ = nullptr;
}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = other.stmt_;
    error_ = std::move(other.error_);
    other.stmt_ = nullptr;
  }
  return *this;
}

SqliteStatement::~SqliteStatement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

void SqliteStatement::bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
}
void SqliteStatement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
}
void SqliteStatement::bind(int index, std::string_view text) {
  // An empty string_view may have a null data(): SQLite would store NULL, not ''.
  sqlite3_bind_text(stmt_, index, text.data() ? text.data() : "", static_cast<int>(text.size()),
                    SQLITE_TRANSIENT);
}
void SqliteStatement::bindBlob(int index, std::span<const uint8_t> bytes) {
  // SQLITE_STATIC: callers keep the bytes alive until step() returns.
  sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_STATIC);
}
void SqliteStatement::bindNull(int index) {
  sqlite3_bind_null(stmt_, index);
}
void SqliteStatement::bindRef(int index, uint32_t ref) {
  if (ref == kNone)
    bindNull(index);
  else
    bind(index, static_cast<int64_t>(ref));
}

bool SqliteStatement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE && error_.empty()) error_ = sqlite3_errmsg(db_);
  return false;
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t SqliteStatement::int64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}
double SqliteStatement::real(int column) const {
  return sqlite3_column_double(stmt_, column);
}
std::string SqliteStatement::text(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}
std::span<const uint8_t> SqliteStatement::blob(int column) const {
  const void* p = sqlite3_column_blob(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return {static_cast<const uint8_t*>(p), p ? static_cast<size_t>(n) : 0};
}
bool SqliteStatement::isNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}
uint32_t SqliteStatement::ref(int column) const {
  if (isNull(column)) return kNone;
  int64_t v = int64(column);
  return v < 0 || v >= static_cast<int64_t>(kNone) ? kNone - 1 : static_cast<uint32_t>(v);
}

SqliteDb::~SqliteDb() {
  if (db_) sqlite3_close_v2(db_);
}

Result<SqliteDb> SqliteDb::open(const std::string& path, bool readOnly) {
  sqlite3* db = nullptr;
  int flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    if (db) sqlite3_close_v2(db);
    return Error{message};
  }
  sqlite3_extended_result_codes(db, 1);
  return SqliteDb(db);
}

Status SqliteDb::exec(std::string_view sql) {
  char* message = nullptr;
  std::string copy(sql);
  if (sqlite3_exec(db_, copy.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    return Error{text};
  }
  return {};
}

Result<SqliteStatement> SqliteDb::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    return Error{sqlite3_errmsg(db_)};
  }
  return SqliteStatement(db_, stmt);
}

bool SqliteDb::hasTable(std::string_view name) {
  auto stmt = prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1");
  if (!stmt) return false;
  stmt->bind(1, name);
  return stmt->step();
}

std::string SqliteDb::lastError() const {
  return db_ ? sqlite3_errmsg(db_) : "no database";
}

Status SqliteDb::close() {
  if (!db_) return {};
  int rc = sqlite3_close(db_);
  if (rc != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  db_ = nullptr;
  return {};
}

}  // namespace ts
