// What the server keeps of a finished analysis (summary.hpp).
#include "summary.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "faultline/core/time.hpp"
#include "faultline/correlate/fleet.hpp"

namespace faultline::serve::detail {

using json = nlohmann::json;

namespace {

// The fleet answer of a job bundle (several nodes, docs/fleet.md "A job in one bundle"): it leads
// every surface (page header, list, API), ahead of the per-node findings (issue 34).
void fleet_answer(sqlite3* db, int64_t bundle, Analysis& a) {
  if (!correlate::job_bundle(db, bundle)) return;
  const auto run = correlate::load_fleet(db, {bundle});
  if (!run || !run->first_failure) return;
  const auto& ff = *run->first_failure;
  std::string who;
  json culprits = json::array();
  for (const auto& u : ff.culprits) {
    std::string one = u.host.empty() ? u.address : u.host;
    if (u.rank) one += " rank " + std::to_string(*u.rank);
    if (u.device) one += " device " + std::to_string(*u.device);
    who += (who.empty() ? "" : ", ") + one;
    culprits.push_back({{"host", u.host.empty() ? json(nullptr) : json(u.host)},
                        {"rank", u.rank ? json(*u.rank) : json(nullptr)},
                        {"device", u.device ? json(*u.device) : json(nullptr)},
                        {"address", u.address.empty() ? json(nullptr) : json(u.address)}});
  }
  if (who.empty() && !ff.host.empty()) who = ff.host;
  a.verdict_kind = "first_failure";
  a.verdict_id = ff.rule;
  a.verdict_title = ff.no_single_root
                        ? "No single root: " + ff.reason
                        : who + (ff.culprits.size() > 1 ? " failed together" : " failed first");
  if (a.verdict_title.size() > 300) a.verdict_title = a.verdict_title.substr(0, 300) + "…";
  json j = {{"host", ff.host.empty() ? json(nullptr) : json(ff.host)},
            {"rank", ff.rank ? json(*ff.rank) : json(nullptr)},
            {"device", ff.device ? json(*ff.device) : json(nullptr)},
            {"time", ff.time_ns ? json(format_utc(*ff.time_ns)) : json(nullptr)},
            {"rule", ff.rule},
            {"vendor_code", ff.vendor_code ? json(*ff.vendor_code) : json(nullptr)},
            {"no_single_root", ff.no_single_root},
            {"reason", ff.reason.empty() ? json(nullptr) : json(ff.reason)},
            {"culprits", std::move(culprits)},
            {"summary", ff.summary}};
  a.first_failure = j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

void summarize(sqlite3* db, int64_t bundle, Analysis& a) {
  auto each = [&](const char* sql, const auto& fn) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) {
      sqlite3_finalize(s);
      return;
    }
    sqlite3_bind_int64(s, 1, bundle);
    while (sqlite3_step(s) == SQLITE_ROW) fn(s);
    sqlite3_finalize(s);
  };
  auto text = [](sqlite3_stmt* s, int i) {
    const auto* t = sqlite3_column_text(s, i);
    return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
  };
  each("SELECT name FROM hosts WHERE bundle_id=? ORDER BY name",
       [&](sqlite3_stmt* s) { a.hosts.push_back(text(s, 0)); });
  each("SELECT kind, count(*) FROM findings WHERE bundle_id=? GROUP BY kind", [&](sqlite3_stmt* s) {
    const auto kind = text(s, 0);
    if (kind == "root_cause") a.root_causes = sqlite3_column_int(s, 1);
    if (kind == "symptom") a.symptoms = sqlite3_column_int(s, 1);
    if (kind == "fault") a.faults = sqlite3_column_int(s, 1);
  });
  // the verdict: the first root cause, else the first symptom, else the first fault event
  a.verdict_kind = "none";
  for (const char* kind : {"root_cause", "symptom", "fault"}) {
    if (a.verdict_kind != "none") break;
    const std::string sql =
        std::string("SELECT finding, title FROM findings WHERE bundle_id=? AND kind='") + kind +
        "' ORDER BY rank, id LIMIT 1";
    each(sql.c_str(), [&](sqlite3_stmt* s) {
      a.verdict_kind = kind;
      a.verdict_id = text(s, 0);
      a.verdict_title = text(s, 1);
    });
  }
  each("SELECT count(*) FROM warnings WHERE bundle_id=?",
       [&](sqlite3_stmt* s) { a.warnings = sqlite3_column_int(s, 0); });
  try {
    fleet_answer(db, bundle, a);
  } catch (const std::exception&) {
    // a database without fleet tables or an unreadable run: the per-node verdict stays
  }
}

}  // namespace faultline::serve::detail
