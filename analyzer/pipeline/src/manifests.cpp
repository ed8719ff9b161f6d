#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "faultline/core/text.hpp"
#include "resolve.hpp"
#include "sql.hpp"

namespace faultline::pipeline {

void apply_manifests(store::Db& db, int64_t bundle) {
  sqlite3* h = db.handle();
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(h,
                     "SELECT m.path, t.data FROM members m JOIN member_text t ON t.member_id=m.id "
                     "WHERE m.bundle_id=? AND m.kind='manifest' AND t.encoding='plain'",
                     -1, &s, nullptr);
  sqlite3_bind_int64(s, 1, bundle);
  std::vector<std::pair<std::string, std::string>> fixes;  // member path, directory
  while (sqlite3_step(s) == SQLITE_ROW) {
    const std::string mpath = col_text(s, 0);
    const auto* data = static_cast<const char*>(sqlite3_column_blob(s, 1));
    const std::string json(data ? data : "", static_cast<size_t>(sqlite3_column_bytes(s, 1)));
    const size_t slash = mpath.rfind('/');
    const std::string prefix = slash == std::string::npos ? "" : mpath.substr(0, slash + 1);
    const auto j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("commands") || !j["commands"].is_array())
      continue;
    for (const auto& c : j["commands"]) {
      if (!c.is_object() || !c.contains("cmd") || !c.contains("file")) continue;
      if (!c["cmd"].is_string() || !c["file"].is_string()) continue;
      const std::string cmd = c["cmd"].get<std::string>();
      const auto words = text::split_ws(cmd);
      if (words.size() < 2 || words[0] != "ls") continue;
      std::vector<std::string_view> args;
      for (size_t i = 1; i < words.size(); ++i)
        if (words[i].empty() || words[i][0] != '-') args.push_back(words[i]);
      if (args.size() != 1 || args[0].empty() || args[0][0] != '/') continue;
      std::string dir(args[0]);
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      fixes.emplace_back(prefix + c["file"].get<std::string>(), dir);
    }
  }
  sqlite3_finalize(s);
  if (fixes.empty()) return;
  const bool own_tx = sqlite3_get_autocommit(h) != 0;  // else: inside the bulk load's transaction
  if (own_tx) db.begin();
  sqlite3_prepare_v2(h,
                     "UPDATE facts SET name = 'fs.' || ?1 || '/' || substr(name, 4) "
                     "WHERE bundle_id=?2 AND name LIKE 'fs.%' AND substr(name, 4, 1) <> '/' AND "
                     "member_id = (SELECT id FROM members WHERE bundle_id=?2 AND path=?3)",
                     -1, &s, nullptr);
  for (const auto& [member, dir] : fixes) {
    sqlite3_bind_text(s, 1, dir.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 2, bundle);
    sqlite3_bind_text(s, 3, member.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_step(s);
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  if (own_tx) db.commit();
}

}  // namespace faultline::pipeline
