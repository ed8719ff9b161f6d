// Helpers for the command-output parser tests (tests/parse/test_outputs_*.cpp).
#pragma once

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/parse/parser.hpp"

namespace fltest {

using faultline::parse::ParseResult;

inline ParseResult run(std::string_view kind, std::string_view text, std::string_view path = {}) {
  return faultline::parse::parse_text(kind, text, path);
}

inline std::vector<std::string> values(const ParseResult& r, std::string_view name) {
  std::vector<std::string> out;
  for (const auto& f : r.facts)
    if (f.name == name) out.push_back(f.value);
  return out;
}

inline size_t count(const ParseResult& r, std::string_view name) {
  return values(r, name).size();
}

// Line of the first fact with this name and value, 0 when absent.
inline uint32_t line_of(const ParseResult& r, std::string_view name, std::string_view value) {
  for (const auto& f : r.facts)
    if (f.name == name && f.value == value) return f.line;
  return 0;
}

inline bool has(const ParseResult& r, std::string_view name, std::string_view value) {
  return line_of(r, name, value) != 0;
}

inline bool has_name(const ParseResult& r, std::string_view name) {
  return count(r, name) != 0;
}

inline std::string dump(const ParseResult& r) {
  std::ostringstream o;
  for (const auto& f : r.facts)
    o << "  fact " << f.line << ": " << f.name << " = " << f.value << "\n";
  for (const auto& e : r.events)
    o << "  event " << e.line << " sev=" << static_cast<int>(e.severity) << " keep=" << e.keep
      << " dev=" << e.device << " pid=" << e.pid << ": " << e.message << "\n";
  for (const auto& m : r.malformed_reasons) o << "  malformed " << m << "\n";
  return o.str();
}

// Expected fact: line 0 means "any line" (but the fact must still carry a line > 0).
struct F {
  std::string name;
  std::string value;
  uint32_t line = 0;
};

inline void check_facts(const ParseResult& r, const std::vector<F>& want) {
  INFO(dump(r));
  for (const auto& w : want) {
    INFO("expected " << w.name << " = " << w.value << " @" << w.line);
    bool found = false;
    for (const auto& f : r.facts)
      if (f.name == w.name && f.value == w.value && f.line > 0 && (w.line == 0 || f.line == w.line))
        found = true;
    CHECK(found);
  }
}

inline std::string crlf(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out.push_back('\r');
    out.push_back(c);
  }
  return out;
}

inline std::string nul_joined(const std::vector<std::string>& parts, bool trailing = true) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    out += parts[i];
    if (trailing || i + 1 < parts.size()) out.push_back('\0');
  }
  return out;
}

}  // namespace fltest
