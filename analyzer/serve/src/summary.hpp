// What the server keeps of a finished analysis, read from its database: hosts, counts, the verdict
// and, for a job bundle, the fleet answer; and the read-only handle it reads with.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>

#include "index.hpp"

namespace faultline::serve::detail {

// Hosts, verdict and counts of a finished analysis, read from its database.
void summarize(sqlite3* db, int64_t bundle, Analysis& a);

// Read-only handle on an analysis database.
class ReadDb {
 public:
  explicit ReadDb(const std::filesystem::path& p) {
    if (sqlite3_open_v2(p.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, nullptr) !=
        SQLITE_OK) {
      sqlite3_close(db_);
      db_ = nullptr;
      throw std::runtime_error("the analysis database cannot be opened");
    }
    sqlite3_busy_timeout(db_, 5000);
  }
  ~ReadDb() { sqlite3_close(db_); }
  ReadDb(const ReadDb&) = delete;
  ReadDb& operator=(const ReadDb&) = delete;
  sqlite3* get() const { return db_; }
  int user_version() const {
    sqlite3_stmt* s = nullptr;
    int v = -1;
    if (sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
      v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return v;
  }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace faultline::serve::detail
