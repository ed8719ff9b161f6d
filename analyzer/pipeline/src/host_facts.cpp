#include "host_facts.hpp"

#include <sqlite3.h>

#include <set>
#include <vector>

#include "faultline/parse/install_replay.hpp"

namespace faultline::pipeline {

namespace {

std::string text_of(sqlite3_stmt* s, int i) {
  const auto* p = sqlite3_column_text(s, i);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<size_t>(sqlite3_column_bytes(s, i)))
           : std::string();
}

}  // namespace

void derive_host_facts(store::Db& db, int64_t bundle, const std::string& host) {
  sqlite3* h = db.handle();
  std::vector<parse::InstallRecord> records;
  std::set<std::string> stated;  // installed-version names some other member already states
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(h,
                     "SELECT f.name, f.value, COALESCE(f.member_id, 0), f.line FROM facts f "
                     "LEFT JOIN members m ON m.id = f.member_id WHERE f.bundle_id = ?1 AND "
                     "f.host = ?2 AND f.name IN ('install.event', 'driver.version.installed', "
                     "'firmware.version.installed', 'cann.version.installed') "
                     "ORDER BY m.path, f.line, f.id",
                     -1, &s, nullptr);
  sqlite3_bind_int64(s, 1, bundle);
  sqlite3_bind_text(s, 2, host.c_str(), -1, SQLITE_TRANSIENT);
  while (sqlite3_step(s) == SQLITE_ROW) {
    const std::string name = text_of(s, 0);
    if (name != "install.event") {
      stated.insert(name);
      continue;
    }
    auto r = parse::install_record(text_of(s, 1));
    if (!r) continue;
    r->member_id = sqlite3_column_int64(s, 2);
    r->line = sqlite3_column_int64(s, 3);
    records.push_back(std::move(*r));
  }
  sqlite3_finalize(s);
  if (records.empty()) return;
  std::set<std::pair<std::string, std::string>> added;  // (name, value): one fact per value
  for (const auto& in : parse::replay_installs(records)) {
    const auto line = static_cast<uint32_t>(in.line > 0 ? in.line : 0);
    const std::string own = "install.installed." + in.package;
    if (added.insert({own, in.version}).second)
      db.add_fact(bundle, host, Fact{own, in.version, line}, in.member_id);
    const std::string name(parse::installed_fact_name(in.package));
    if (name.empty() || stated.count(name)) continue;
    if (added.insert({name, in.version}).second)
      db.add_fact(bundle, host, Fact{name, in.version, line}, in.member_id);
  }
}

}  // namespace faultline::pipeline
