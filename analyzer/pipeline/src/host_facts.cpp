#include "host_facts.hpp"

#include <sqlite3.h>

#include <array>
#include <cstdio>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"
#include "faultline/parse/install_replay.hpp"

namespace faultline::pipeline {

namespace {

std::string text_of(sqlite3_stmt* s, int i) {
  const auto* p = sqlite3_column_text(s, i);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<size_t>(sqlite3_column_bytes(s, i)))
           : std::string();
}

int month_of(std::string_view m) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  const std::string l = text::to_lower(m.substr(0, 3));
  for (size_t i = 0; i < kMonths.size(); ++i)
    if (l == kMonths[i]) return static_cast<int>(i) + 1;
  return 0;
}

// A collection time as `date`, timedatectl (`Local time:`) or a manifest print it:
// "Thu May  8 09:56:26 CST 2025", "Tue 2025-11-18 14:32:35 CST", "2025-05-08T09:56:26+08:00",
// "2025-05-08 09:56:26". The wall time as printed (host-local unless *utc), ns.
std::optional<int64_t> collected_wall(std::string_view v, bool* utc) {
  const auto w = text::split_ws(v);
  int y = 0, mo = 0, d = 0, hh = 0, mi = 0, ss = 0;
  *utc = false;
  for (size_t i = 0; i < w.size(); ++i) {
    const std::string t(w[i]);
    if (t == "UTC" || t == "GMT" || t == "Z") *utc = true;
    if (std::sscanf(t.c_str(), "%4d-%2d-%2d", &y, &mo, &d) == 3 && t.size() >= 10) {
      if (t.size() >= 19 && (t[10] == 'T' || t[10] == ' ')) {
        std::sscanf(t.c_str() + 11, "%2d:%2d:%2d", &hh, &mi, &ss);
        if (t.back() == 'Z' || t.find("+00:00", 19) != std::string::npos) *utc = true;
      } else if (i + 1 < w.size()) {
        std::sscanf(std::string(w[i + 1]).c_str(), "%2d:%2d:%2d", &hh, &mi, &ss);
      }
    } else if (const int m = month_of(t); m != 0 && t.size() <= 9 && i + 2 < w.size()) {
      mo = m;
      d = text::to_int<int>(w[i + 1]).value_or(0);
      std::sscanf(std::string(w[i + 2]).c_str(), "%2d:%2d:%2d", &hh, &mi, &ss);
      for (size_t j = i + 3; j < w.size(); ++j)
        if (auto yy = text::to_int<int>(w[j]); yy && *yy >= 2000 && *yy < 2100) y = *yy;
    }
  }
  if (y < 2000 || mo < 1 || d < 1 || d > 31) return std::nullopt;
  return civil_to_ns(y, mo, d, hh, mi, ss, 0);
}

// `uptime` / `uptime -p` as stated (host.uptime): "41 days,  3:12", "3:12", "12 min",
// "1 day, 12 min", "2 weeks, 3 days, 4 hours, 5 minutes". Seconds, to the minute.
std::optional<int64_t> uptime_seconds(std::string_view v) {
  int64_t total = 0;
  bool any = false;
  std::string s(v);
  for (char& c : s)
    if (c == ',') c = ' ';
  const auto w = text::split_ws(s);
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i].find(':') != std::string_view::npos) {
      int h = 0, m = 0;
      if (std::sscanf(std::string(w[i]).c_str(), "%d:%d", &h, &m) != 2) return std::nullopt;
      total += h * 3600LL + m * 60LL;
      any = true;
      continue;
    }
    const auto n = text::to_int<int64_t>(w[i]);
    if (!n || i + 1 >= w.size() || *n < 0 || *n > 100000) return std::nullopt;
    const std::string unit = text::to_lower(w[++i]);
    int64_t mult = 0;
    if (unit.rfind("week", 0) == 0)
      mult = 7 * 86400;
    else if (unit.rfind("day", 0) == 0)
      mult = 86400;
    else if (unit.rfind("hour", 0) == 0)
      mult = 3600;
    else if (unit.rfind("min", 0) == 0)
      mult = 60;
    else
      return std::nullopt;
    total += *n * mult;
    any = true;
  }
  if (!any) return std::nullopt;
  return total;
}

// Boot = collection time - uptime (docs/clock.md "Boot time"): `uptime` (to the minute) or
// /proc/uptime (to the second) with the time the collection printed (`date`, timedatectl,
// manifest). Stated as host.boot_time_local (host.boot_time when the collection time is UTC),
// citing the uptime line.
void derive_boot_from_uptime(store::Db& db, int64_t bundle, const std::string& host) {
  sqlite3* h = db.handle();
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(h,
                     "SELECT name, value, COALESCE(member_id, 0), line FROM facts WHERE "
                     "bundle_id = ?1 AND host = ?2 AND name IN ('host.uptime', "
                     "'host.uptime_seconds', 'host.collected_at') ORDER BY id",
                     -1, &s, nullptr);
  sqlite3_bind_int64(s, 1, bundle);
  sqlite3_bind_text(s, 2, host.c_str(), -1, SQLITE_TRANSIENT);
  std::optional<int64_t> up_s, at_ns;
  bool utc = false;
  int64_t member = 0, line = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    const std::string name = text_of(s, 0), value = text_of(s, 1);
    if (name == "host.collected_at") {
      bool u = false;
      if (auto t = collected_wall(value, &u); t && !at_ns) {
        at_ns = t;
        utc = u;
      }
      continue;
    }
    if (up_s && name == "host.uptime") continue;  // /proc/uptime (seconds) wins
    std::optional<int64_t> v;
    if (name == "host.uptime_seconds") {
      if (auto x = text::to_int<int64_t>(value.substr(0, value.find('.')))) v = x;
    } else {
      v = uptime_seconds(value);
    }
    if (!v || *v <= 0) continue;
    up_s = v;
    member = sqlite3_column_int64(s, 2);
    line = sqlite3_column_int64(s, 3);
  }
  sqlite3_finalize(s);
  if (!up_s || !at_ns || member <= 0) return;
  const int64_t boot = *at_ns - *up_s * 1'000'000'000;
  const auto l = static_cast<uint32_t>(line > 0 ? line : 0);
  if (utc) {
    db.add_fact(bundle, host, Fact{"host.boot_time", std::to_string(boot / 1'000'000'000), l},
                member);
    return;
  }
  const Civil c = ns_to_civil(boot);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d", c.year, c.month, c.day, c.hour,
                c.minute, c.second);
  db.add_fact(bundle, host, Fact{"host.boot_time_local", buf, l}, member);
}

}  // namespace

void derive_host_facts(store::Db& db, int64_t bundle, const std::string& host) {
  derive_boot_from_uptime(db, bundle, host);
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

void derive_driver_at_load(store::Db& db, int64_t bundle, const std::string& host,
                           const clock::ClockModel& model) {
  // the host-local wall time of a UTC instant: in the zone in force then, when pinned
  auto local_of = [&](int64_t utc) -> std::optional<int64_t> {
    if (model.zone_spans.empty()) {
      if (model.host_local_method == "assumed") return std::nullopt;
      return utc - model.host_local_offset_ns;
    }
    std::optional<int64_t> off;
    for (const auto& sp : model.zone_spans)
      if (sp.from_utc_ns == kNoTime || sp.from_utc_ns <= utc) off = sp.offset_ns;
    if (!off) return std::nullopt;
    return utc - *off;
  };
  sqlite3* h = db.handle();
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(h,
                     "SELECT name, value FROM facts WHERE bundle_id = ?1 AND host = ?2 AND name IN "
                     "('host.boot_time', 'driver.load_time', 'host.boot_time_local', "
                     "'install.event') ORDER BY id",
                     -1, &s, nullptr);
  sqlite3_bind_int64(s, 1, bundle);
  sqlite3_bind_text(s, 2, host.c_str(), -1, SQLITE_TRANSIENT);
  std::optional<int64_t> last;  // the latest module load, host-local naive ns
  std::vector<std::string> events;
  auto civil = [](const std::string& v) -> std::optional<int64_t> {
    int y, mo, d, hh, mi, ss;
    if (std::sscanf(v.c_str(), "%d-%d-%d %d:%d:%d", &y, &mo, &d, &hh, &mi, &ss) != 6)
      return std::nullopt;
    return civil_to_ns(y, mo, d, hh, mi, ss, 0);
  };
  while (sqlite3_step(s) == SQLITE_ROW) {
    const std::string name = text_of(s, 0), value = text_of(s, 1);
    std::optional<int64_t> t;
    if (name == "install.event") {
      events.push_back(value);
      continue;
    }
    if (name == "host.boot_time_local") {
      t = civil(value);
    } else if (auto secs = text::to_int<int64_t>(value);
               secs && *secs > 0 && *secs < 9'000'000'000LL) {
      t = local_of(*secs * 1'000'000'000);  // orders against local ones only in a pinned zone
    }
    if (t && (!last || *t > *last)) last = t;
  }
  sqlite3_finalize(s);
  if (!last || events.empty()) return;
  // the install.event rows up to that load, with their member and line (replay keeps them)
  sqlite3_prepare_v2(h,
                     "SELECT value, COALESCE(member_id, 0), line FROM facts WHERE bundle_id = ?1 "
                     "AND host = ?2 AND name = 'install.event' ORDER BY id",
                     -1, &s, nullptr);
  sqlite3_bind_int64(s, 1, bundle);
  sqlite3_bind_text(s, 2, host.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<parse::InstallRecord> rows;
  while (sqlite3_step(s) == SQLITE_ROW) {
    auto r = parse::install_record(text_of(s, 0));
    if (!r) continue;
    const auto t = civil(r->time);
    if (!t || *t > *last) continue;
    r->member_id = sqlite3_column_int64(s, 1);
    r->line = sqlite3_column_int64(s, 2);
    rows.push_back(std::move(*r));
  }
  sqlite3_finalize(s);
  for (const auto& in : parse::replay_installs(rows)) {
    if (in.package != "driver" || in.member_id <= 0) continue;
    db.add_fact(bundle, host,
                Fact{"driver.version.at_load", in.version,
                     static_cast<uint32_t>(in.line > 0 ? in.line : 0)},
                in.member_id);
  }
}

}  // namespace faultline::pipeline
