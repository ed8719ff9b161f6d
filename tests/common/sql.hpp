// Reading one value back from a test's database.
#pragma once

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <string>

namespace faultline::test {

// The first column of the first row of `sql` as text ("" for no row or NULL); fails the test
// when the statement does not prepare.
inline std::string scalar(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  std::string v;
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
    v = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  return v;
}

}  // namespace faultline::test
