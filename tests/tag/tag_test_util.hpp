// Helpers shared by the tag tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "faultline/core/rules.hpp"
#include "faultline/tag/tag.hpp"

namespace tagtest {

inline std::filesystem::path data_dir() {
  return std::filesystem::path(FAULTLINE_SOURCE_DIR) / "tests" / "tag" / "data";
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The test-only packs under tests/tag/data/rules/signatures, as one root.
inline faultline::tag::RuleSet test_rules() {
  return faultline::tag::load_signatures(
      faultline::rules_under(faultline::read_rule_dir(data_dir() / "rules"), "signatures/"));
}

struct Found {
  std::string id;
  size_t end, line_begin, line_end;
};

inline std::vector<Found> scan_all(const faultline::tag::Engine& e, std::string_view chunk,
                                   std::string_view kind) {
  std::vector<Found> out;
  e.scan(chunk, kind, [&](const faultline::tag::Hit& h) {
    out.push_back({e.signatures()[h.signature].id, h.end, h.line_begin, h.line_end});
  });
  return out;
}

inline std::vector<std::string> ids(const std::vector<Found>& f) {
  std::vector<std::string> out;
  for (const auto& x : f) out.push_back(x.id);
  return out;
}

// A fresh empty directory under the system temp dir.
inline std::filesystem::path temp_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() /
           ("faultline_tag_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace tagtest
