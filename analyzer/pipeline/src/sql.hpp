// Small SQLite helpers of the per-host pass.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

#include "faultline/core/time.hpp"

namespace faultline::pipeline {

// Reads one column of text from a statement (NULL -> "").
inline std::string col_text(sqlite3_stmt* s, int i) {
  const auto* p = sqlite3_column_text(s, i);
  return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
}

inline Clock clock_from(std::string_view s) {
  for (int i = 0; i <= static_cast<int>(Clock::epoch); ++i)
    if (to_string(static_cast<Clock>(i)) == s) return static_cast<Clock>(i);
  return Clock::none;
}

}  // namespace faultline::pipeline
