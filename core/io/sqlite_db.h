// A thin RAII wrapper over the SQLite C API: a connection and prepared statements whose errors
// come back as messages, not codes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "util/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ts {

class SqliteStatement {
 public:
  SqliteStatement() = default;
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  void bind(int index, int64_t value);
  void bind(int index, double value);
  void bind(int index, std::string_view text);
  void bindBlob(int index, std::span<const uint8_t> bytes);
  void bindNull(int index);
  // Binds kNone-style "absent" references as NULL.
  void bindRef(int index, uint32_t ref);

  // true: a row is ready; false: done. Errors are kept and returned by status().
  bool step();
  void reset();
  Status status() const { return error_.empty() ? Status{} : Status{Error{error_}}; }

  int64_t int64(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  std::span<const uint8_t> blob(int column) const;
  bool isNull(int column) const;
  uint32_t ref(int column) const;  // NULL → kNone

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string error_;
};

class SqliteDb {
 public:
  SqliteDb() = default;
  SqliteDb(SqliteDb&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  SqliteDb& operator=(SqliteDb&&) = delete;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  static Result<SqliteDb> open(const std::string& path, bool readOnly);

  Status exec(std::string_view sql);
  Result<SqliteStatement> prepare(std::string_view sql);
  bool hasTable(std::string_view name);
  std::string lastError() const;
  Status close();

 private:
  explicit SqliteDb(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
};

}  // namespace ts
