// Helpers of the premise family tests (issue 33 item 2): bundles generated in a temporary
// directory from source forms, analysed end to end; `family` runs every combination of one
// source per premise x layout x {fault, healthy decoy}.
#pragma once
#include <sqlite3.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../common/temp_dir.hpp"
#include "faultline/app/app.hpp"

using namespace faultline;
using namespace std::string_literals;
namespace fs = std::filesystem;

namespace fltest_family {

struct File {
  std::string text;
  std::string link;  // a symbolic link to this target instead of a file
};
using Files = std::map<std::string, File>;

// root causes of an analysed bundle, best first; `symptoms` (when given) gets each symptom found
// with the root cause that explains it ("" when unexplained)
inline std::vector<std::string> analyse(const Files& files,
                                        std::map<std::string, std::string>* symptoms = nullptr) {
  test::TempDir dir("faultline-family");
  const fs::path b = dir.path() / "bundle";
  for (const auto& [p, f] : files) {
    fs::create_directories((b / p).parent_path());
    if (!f.link.empty()) {
      fs::create_symlink(f.link, b / p);
      continue;
    }
    std::ofstream out(b / p, std::ios::binary);
    out << f.text;
  }
  app::Options o;
  static test::TempDir cache("faultline-family-cache");  // one rule compilation for all bundles
  o.cache_dir = cache.path();
  o.no_kb = true;
  auto db = store::Db::open(dir.path() / "case.db");
  REQUIRE(app::analyze(*db, b, o).exit_code <= 1);
  std::vector<std::string> out;
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db->handle(),
                             "SELECT finding FROM findings WHERE kind = 'root_cause' ORDER BY rank",
                             -1, &s, nullptr) == SQLITE_OK);
  while (sqlite3_step(s) == SQLITE_ROW)
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
  sqlite3_finalize(s);
  if (symptoms != nullptr) {
    REQUIRE(sqlite3_prepare_v2(db->handle(),
                               "SELECT finding, COALESCE(explained_by, '') FROM findings WHERE "
                               "kind = 'symptom'",
                               -1, &s, nullptr) == SQLITE_OK);
    while (sqlite3_step(s) == SQLITE_ROW)
      (*symptoms)[reinterpret_cast<const char*>(sqlite3_column_text(s, 0))] =
          reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
    sqlite3_finalize(s);
  }
  return out;
}

inline bool has(const std::vector<std::string>& v, const std::string& id) {
  return std::find(v.begin(), v.end(), id) != v.end();
}

// A source form: adds its member(s) under a layout prefix; `bad` states the faulty premise,
// otherwise the healthy one.
using Source = std::function<void(Files&, const std::string& prefix, bool bad)>;
struct Named {
  std::string name;
  Source add;
};

// Runs every combination of one source per premise x layout x {fault, healthy decoy}.
// `never`: findings that must not fire on the fault bundles either (a look-alike diagnosis).
inline void family(const std::string& id, const std::vector<std::vector<Named>>& premises,
                   const std::vector<std::string>& layouts,
                   const std::vector<std::string>& family_ids,
                   const std::vector<std::string>& never = {}) {
  std::vector<size_t> pick(premises.size(), 0);
  size_t combos = 0;
  for (;;) {
    for (const auto& layout : layouts) {
      for (const bool bad : {true, false}) {
        Files files;
        std::string label = id + " layout='" + layout + "'" + (bad ? " fault" : " decoy");
        for (size_t i = 0; i < premises.size(); ++i) {
          premises[i][pick[i]].add(files, layout, bad);
          label += " " + premises[i][pick[i]].name;
        }
        INFO(label);
        const auto rc = analyse(files);
        std::string got;
        for (const auto& r : rc) got += r + " ";
        INFO("root causes: " << got);
        for (const auto& f : never) CHECK(!has(rc, f));
        if (bad) {
          REQUIRE(!rc.empty());
          CHECK(rc.front() == id);
        } else {
          for (const auto& f : family_ids) CHECK(!has(rc, f));
        }
        ++combos;
      }
    }
    size_t i = 0;
    while (i < pick.size() && ++pick[i] == premises[i].size()) pick[i++] = 0;
    if (i == pick.size()) break;
  }
  CHECK(combos >= 6);
}

}  // namespace fltest_family
