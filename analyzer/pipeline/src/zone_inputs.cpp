// What a host's facts say about its zone over time, for the clock model (docs/clock.md "Zones
// per time range"): stated changes of the zone, and which members print stored instants in the
// zone at collection rather than the one in force when they happened.
#include <sqlite3.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"
#include "host_facts.hpp"
#include "sql.hpp"

namespace faultline::pipeline {

void add_zone_changes(store::Db& db, int64_t bundle, const std::string& host,
                      clock::HostInputs& in) {
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(
      db.handle(),
      "SELECT f.value, COALESCE(m.path, ''), f.line FROM facts f LEFT JOIN members m "
      "ON m.id = f.member_id WHERE f.bundle_id = ?1 AND f.host = ?2 AND "
      "f.name = 'host.timezone_change' ORDER BY f.id LIMIT 1000",
      -1, &s, nullptr);
  sqlite3_bind_int64(s, 1, bundle);
  sqlite3_bind_text(s, 2, host.c_str(), -1, SQLITE_TRANSIENT);
  while (sqlite3_step(s) == SQLITE_ROW) {
    const auto j = nlohmann::json::parse(col_text(s, 0), nullptr, false);
    if (!j.is_object()) continue;
    clock::ZoneChange c;
    c.source = col_text(s, 1) + ":" + std::to_string(sqlite3_column_int64(s, 2));
    if (j.contains("zone") && j["zone"].is_string()) {
      if (auto z = parse_zone(j["zone"].get<std::string>())) c.to_offset_s = z;
    }
    if (!c.to_offset_s && j.contains("abbr") && j["abbr"].is_string()) {
      if (auto z = parse_zone(j["abbr"].get<std::string>())) c.to_offset_s = z;
    }
    if (j.contains("epoch") && j["epoch"].is_number_integer()) {
      const int64_t e = j["epoch"].get<int64_t>();
      if (e > 946684800LL && e < 4102444800LL) c.at_utc_ns = e * 1'000'000'000;
    } else if (j.contains("time") && j["time"].is_string()) {
      int y = 0, mo = 0, d = 0, hh = 0, mi = 0, ss = 0;
      if (std::sscanf(j["time"].get<std::string>().c_str(), "%d-%d-%d %d:%d:%d", &y, &mo, &d, &hh,
                      &mi, &ss) != 6 ||
          mo < 1 || mo > 12 || d < 1 || d > 31)
        continue;
      if (y == 0) {  // a year-less stamp (syslog, journal short): the year of the reference
        if (!in.reference_ns) continue;
        RawTime t;
        t.month = mo;
        t.day = d;
        t.hour = hh;
        t.minute = mi;
        t.second = ss;
        y = clock::infer_year(t, *in.reference_ns);
      }
      if (y < 2000 || y > 2100) continue;
      const int64_t ns = civil_to_ns(y, mo, d, hh, mi, ss, 0);
      if (j.value("utc", false))
        c.at_utc_ns = ns;
      else {
        c.at_local_naive_ns = ns;
        c.rendered_now = j.value("rendered", false);
      }
    } else {
      continue;
    }
    in.zone_changes.push_back(std::move(c));
  }
  sqlite3_finalize(s);
}

std::set<int64_t> rendered_members(store::Db& db, int64_t bundle) {
  std::set<int64_t> out;
  sqlite3_stmt* s = nullptr;
  // journalctl and dmesg -T print stored instants (UTC, uptime) in the zone of the collection
  sqlite3_prepare_v2(
      db.handle(), "SELECT id FROM members WHERE bundle_id = ? AND kind IN ('journal', 'dmesg_t')",
      -1, &s, nullptr);
  sqlite3_bind_int64(s, 1, bundle);
  while (sqlite3_step(s) == SQLITE_ROW) out.insert(sqlite3_column_int64(s, 0));
  sqlite3_finalize(s);
  return out;
}

}  // namespace faultline::pipeline
