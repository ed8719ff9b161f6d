// Minimal RAII helpers over the SQLite C API, shared by the correlator (and its report sibling).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace faultline::correlate::detail {

class Stmt {
 public:
  Stmt(sqlite3* db, std::string_view sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &st_, nullptr) !=
        SQLITE_OK)
      throw std::runtime_error(std::string("SQL prepare: ") + sqlite3_errmsg(db) +
                               " in: " + std::string(sql));
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(st_, i, v);
    return *this;
  }
  Stmt& bind(int i, double v) {
    sqlite3_bind_double(st_, i, v);
    return *this;
  }
  Stmt& bind(int i, std::string_view v) {
    sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, std::optional<int64_t> v) {
    if (v)
      sqlite3_bind_int64(st_, i, *v);
    else
      sqlite3_bind_null(st_, i);
    return *this;
  }
  Stmt& bind_null(int i) {
    sqlite3_bind_null(st_, i);
    return *this;
  }
  // true while a row is available.
  bool step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw std::runtime_error(std::string("SQL step: ") + sqlite3_errmsg(db_));
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  [[nodiscard]] bool null(int c) const { return sqlite3_column_type(st_, c) == SQLITE_NULL; }
  [[nodiscard]] int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
  [[nodiscard]] double dbl(int c) const { return sqlite3_column_double(st_, c); }
  [[nodiscard]] std::optional<int64_t> opt_i64(int c) const {
    if (null(c)) return std::nullopt;
    return i64(c);
  }
  [[nodiscard]] std::string str(int c) const {
    const auto* p = sqlite3_column_text(st_, c);
    if (p == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(p),
                       static_cast<size_t>(sqlite3_column_bytes(st_, c)));
  }
  [[nodiscard]] std::string blob(int c) const {
    const void* p = sqlite3_column_blob(st_, c);
    if (p == nullptr) return {};
    return std::string(static_cast<const char*>(p),
                       static_cast<size_t>(sqlite3_column_bytes(st_, c)));
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

// Prepared statements reused by their SQL text within one scope (one correlation of a bundle):
// the fault queries differ between signatures only in bound values, and preparing them again
// for every fault signature that hit cost ~15 ms per bundle (~200 prepares). A statement is reset
// and its bindings cleared when it is handed out again, so the caller must be done with it
// before asking for the same text again. The texts are built from the rule set (one per query
// shape and code key), which bounds the cache.
class StmtCache {
 public:
  explicit StmtCache(sqlite3* db) : db_(db) {}
  Stmt& get(const std::string& sql) {
    auto it = map_.find(sql);
    if (it != map_.end()) {
      it->second->reset();
      return *it->second;
    }
    return *map_.emplace(sql, std::make_unique<Stmt>(db_, sql)).first->second;
  }

 private:
  sqlite3* db_;
  std::unordered_map<std::string, std::unique_ptr<Stmt>> map_;
};

inline void exec(sqlite3* db, const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string m = msg != nullptr ? msg : "?";
    sqlite3_free(msg);
    throw std::runtime_error("SQL: " + m + " in: " + sql);
  }
}

}  // namespace faultline::correlate::detail
