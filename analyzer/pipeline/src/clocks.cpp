#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"
#include "faultline/parse/clock.hpp"
#include "host_facts.hpp"
#include "resolve.hpp"
#include "sql.hpp"

namespace faultline::pipeline {

namespace {

// The SQL functions of the event-time pass: fl_host(host) -> the host's name;
// fl_time(id, host, clock, raw_civil_ns, raw_has_year, uptime_ns, time_ns, member_id) -> UTC ns
// or NULL (member_id: journal and dmesg -T lines are read in the zone at collection);
// fl_quality(id, ..., time_quality) -> quality. Rows of an unknown root keep their old value.
// Both time functions resolve a row once (cached by id), whatever order SQLite calls them in.
struct EventTimes {
  std::map<std::string, std::pair<std::string, clock::ClockModel>, std::less<>>
      roots;                   // root -> (name, model)
  std::set<int64_t> rendered;  // members printed in the zone at collection (journal, dmesg -T)
  int64_t id = 0;
  bool have = false;
  bool known = false;
  clock::Resolved r;

  const std::pair<std::string, clock::ClockModel>* root_of(sqlite3_value* v) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
    const std::string_view host =
        p ? std::string_view(p, static_cast<size_t>(sqlite3_value_bytes(v))) : std::string_view();
    const auto it = roots.find(host);
    return it == roots.end() ? nullptr : &it->second;
  }
  // resolves row argv (id, host, clock, raw_civil_ns, raw_has_year, uptime_ns, old, member)
  void resolve_row(sqlite3_value** argv) {
    const int64_t row = sqlite3_value_int64(argv[0]);
    if (have && row == id) return;
    have = true;
    id = row;
    const auto* rt = root_of(argv[1]);
    known = rt != nullptr;
    if (!known) return;
    RawTime t;
    const auto* c = reinterpret_cast<const char*>(sqlite3_value_text(argv[2]));
    t.clock = clock_from(c ? std::string_view(c, static_cast<size_t>(sqlite3_value_bytes(argv[2])))
                           : std::string_view());
    if (sqlite3_value_type(argv[3]) != SQLITE_NULL) {
      const Civil cv = ns_to_civil(sqlite3_value_int64(argv[3]));
      t.year = sqlite3_value_int(argv[4]) != 0 ? cv.year : 0;
      t.month = cv.month;
      t.day = cv.day;
      t.hour = cv.hour;
      t.minute = cv.minute;
      t.second = cv.second;
      t.nanos = cv.nanos;
    }
    if (sqlite3_value_type(argv[5]) != SQLITE_NULL) t.uptime_ns = sqlite3_value_int64(argv[5]);
    r = clock::resolve(
        rt->second, t,
        !rt->second.zone_spans.empty() && rendered.count(sqlite3_value_int64(argv[7])) != 0);
  }
  static EventTimes& of(sqlite3_context* c) {
    return *static_cast<EventTimes*>(sqlite3_user_data(c));
  }
  static void sql_host(sqlite3_context* c, int, sqlite3_value** argv) {
    const auto* rt = of(c).root_of(argv[0]);
    if (rt == nullptr) {
      sqlite3_result_value(c, argv[0]);
      return;
    }
    sqlite3_result_text(c, rt->first.data(), static_cast<int>(rt->first.size()), SQLITE_STATIC);
  }
  static void sql_time(sqlite3_context* c, int, sqlite3_value** argv) {
    EventTimes& e = of(c);
    e.resolve_row(argv);
    if (!e.known)
      sqlite3_result_value(c, argv[6]);
    else if (e.r.ns == kNoTime)
      sqlite3_result_null(c);
    else
      sqlite3_result_int64(c, e.r.ns);
  }
  static void sql_quality(sqlite3_context* c, int, sqlite3_value** argv) {
    EventTimes& e = of(c);
    e.resolve_row(argv);
    if (!e.known) {
      sqlite3_result_value(c, argv[6]);
      return;
    }
    const auto q = to_string(e.r.quality);
    sqlite3_result_text(c, q.data(), static_cast<int>(q.size()), SQLITE_STATIC);
  }
};

// The boot as the host's own clock states it: syslog / journal kernel lines print the wall time
// and the kernel's uptime (`May  8 02:28:01 host kernel: [23645.213796] ...`), wall - uptime is
// the boot. Lines of older boots (a rotated `messages.1`) give older values: the newest boot is
// the run of values, counted from the newest, whose neighbours lie within an hour; its median
// line is cited (docs/clock.md "Boot time"). Stated as host.boot_time_local, so that a rule
// compares it with other host-local times without any zone.
void state_local_boot(store::Db& db, int64_t bundle, const std::string& host,
                      const std::vector<std::string>& host_roots,
                      std::map<std::string, RootInfo>& roots, std::optional<int64_t> reference) {
  struct Boot {
    int64_t ns;
    int64_t member;
    uint32_t line;
  };
  std::vector<Boot> v;
  for (const auto& root : host_roots)
    for (const Anchor& an : roots[root].anchors) {
      if (an.t.clock != Clock::host_local || !an.t.has_uptime() || an.member_id <= 0) continue;
      if (an.t.year != 0 && an.t.year < 2000) continue;
      int year = an.t.year;
      if (year == 0) {
        if (!reference) continue;
        year = clock::infer_year(an.t, *reference);
      }
      v.push_back(Boot{clock::naive_ns(an.t, year) - an.t.uptime_ns, an.member_id, an.line});
    }
  if (v.size() < 2) return;
  std::sort(v.begin(), v.end(), [](const Boot& a, const Boot& b) { return a.ns < b.ns; });
  constexpr int64_t kHour = 3600LL * 1'000'000'000;
  size_t start = v.size() - 1;
  while (start > 0 && v[start].ns - v[start - 1].ns <= kHour) --start;
  const size_t n = v.size() - start;
  if (n < 2) return;  // one line is no boot: a stray or mis-stamped line
  const Boot& m = v[start + n / 2];
  const Civil c = ns_to_civil(m.ns);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d", c.year, c.month, c.day, c.hour,
                c.minute, c.second);
  db.add_fact(bundle, host, Fact{"host.boot_time_local", buf, m.line}, m.member);
}

}  // namespace

void resolve_hosts_and_clocks(store::Db& db, int64_t bundle, std::map<std::string, RootInfo>& roots,
                              const std::string& bundle_name) {
  sqlite3* h = db.handle();
  // which folder-candidate roots are hosts; the others are merged into their parent root
  const std::map<std::string, std::string> merged = split_hosts(roots);
  // host names. Roots that name no host (extra folders next to one node's collection, e.g.
  // case/ beside faultline_<host>_<ts>/) belong to that node when the bundle names exactly one.
  std::map<std::string, std::string> names;
  std::set<std::string> hinted;
  for (const auto& [root, info] : roots)
    if (!info.best.host.empty()) hinted.insert(info.best.host);
  const std::string only_host = hinted.size() == 1 ? *hinted.begin() : std::string();
  std::map<std::string, std::string> source_of;
  for (auto& [root, info] : roots) {
    std::string name = info.best.host;
    std::string source = info.best.source == "folder-candidate" ? "folder" : info.best.source;
    if (name.empty() && !only_host.empty()) {
      name = only_host;
      source = "joined";
    } else if (name.empty()) {
      // fall back to the bundle's name without extensions, then "host"
      std::string n = root.empty() ? bundle_name
                                   : root.substr(root.find_last_of("/!") == std::string::npos
                                                     ? 0
                                                     : root.find_last_of("/!") + 1);
      for (const char* ext :
           {".tar.gz", ".tar.zst", ".tar.xz", ".tgz", ".tar", ".zip", ".gz", ".zst"})
        if (n.size() > std::strlen(ext) && n.substr(n.size() - std::strlen(ext)) == ext) {
          n = n.substr(0, n.size() - std::strlen(ext));
          break;
        }
      name = n.empty() ? "host" : n;
      source = "default";
    }
    names[root] = name;  // several roots may share a host (one node's collection split in parts)
    if (!source_of.count(name) || source != "joined") source_of[name] = source;
  }
  for (const auto& [root, into] : merged)
    if (const auto it = names.find(into); it != names.end()) names[root] = it->second;
  for (const auto& [name, source] : source_of) db.add_host(bundle, name, source);
  const bool own_tx = sqlite3_get_autocommit(h) != 0;  // else: inside the bulk load's transaction
  if (own_tx) db.begin();
  {
    sqlite3_stmt* s = nullptr;
    // events get their host below, with their time, in one pass
    for (const char* table : {"members", "facts"}) {
      const std::string sql =
          std::string("UPDATE ") + table + " SET host=?1 WHERE bundle_id=?2 AND host=?3";
      sqlite3_prepare_v2(h, sql.c_str(), -1, &s, nullptr);
      for (const auto& [root, name] : names) {
        sqlite3_bind_text(s, 1, name.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 2, bundle);
        sqlite3_bind_text(s, 3, root.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_step(s);
        sqlite3_reset(s);
      }
      sqlite3_finalize(s);
    }
  }
  // clocks, per host (combining the roots of one host)
  std::map<std::string, clock::ClockModel> models;  // by root
  std::map<std::string, std::vector<std::string>> roots_of;
  for (const auto& [root, name] : names) roots_of[name].push_back(root);
  for (const auto& host_entry : roots_of) derive_host_facts(db, bundle, host_entry.first);
  for (const auto& host_entry : roots_of) {
    // not a structured binding: the lambda below uses the name (clang before 16 cannot capture one)
    const std::string& name = host_entry.first;
    const std::vector<std::string>& host_roots = host_entry.second;
    clock::HostInputs in;
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(
        h,
        // boot: btime and uptime -s first (to the second, the current boot by definition), then
        // the other sources (who -b, last -F, journalctl --list-boots, dmesg -T); not the
        // driver-load time of host_kernel.log, seconds to a minute after the kernel started
        "SELECT f.name, f.value FROM facts f LEFT JOIN members m ON m.id = f.member_id "
        "WHERE f.bundle_id=? AND f.host=? AND f.name IN "
        "('host.boot_time','host.boot_time_local','host.timezone','host.collected_at') "
        "AND COALESCE(m.kind, '') <> 'host_kernel_log' "
        "ORDER BY CASE COALESCE(m.kind, '') WHEN 'proc_stat' THEN 0 WHEN 'uptime' THEN 0 "
        "ELSE 1 END, f.id",
        -1, &s, nullptr);
    sqlite3_bind_int64(s, 1, bundle);
    sqlite3_bind_text(s, 2, name.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW) {
      const std::string n = col_text(s, 0), v = col_text(s, 1);
      if (n == "host.boot_time" && !in.boot_time_ns) {
        if (auto secs = text::to_int<int64_t>(text::trim(v));
            secs && *secs >= 0 && *secs < 9'000'000'000LL)
          in.boot_time_ns = *secs * 1'000'000'000;  // (range: no overflow on hostile values)
      } else if (n == "host.timezone" && !in.zone_offset_s) {
        // "+0800", "CST", "Asia/Shanghai (CST, +0800)"
        for (auto part : text::split_ws(v)) {
          std::string p(part);
          p.erase(std::remove_if(p.begin(), p.end(),
                                 [](char c) { return c == '(' || c == ')' || c == ','; }),
                  p.end());
          if (auto z = parse_zone(p)) {
            in.zone_offset_s = *z;
            if (p[0] == '+' || p[0] == '-') break;
          }
        }
      } else if (n == "host.boot_time_local" && !in.boot_local_naive_ns) {
        int y, mo, d, hh, mi, ss;
        if (std::sscanf(v.c_str(), "%d-%d-%d %d:%d:%d", &y, &mo, &d, &hh, &mi, &ss) == 6)
          in.boot_local_naive_ns = civil_to_ns(y, mo, d, hh, mi, ss, 0);
      }
    }
    sqlite3_finalize(s);
    for (const auto& root : host_roots)
      if (roots[root].reference_naive != kNoTime &&
          (!in.reference_ns || roots[root].reference_naive > *in.reference_ns))
        in.reference_ns = roots[root].reference_naive;
    // anchors: (wall, uptime) pairs and epoch payloads; year-less ones dated from the reference
    for (const auto& root : host_roots)
      for (const Anchor& an : roots[root].anchors) {
        if (an.t.year != 0 && an.t.year < 2000) continue;  // device clock not yet set
        int year = an.t.year;
        if (year == 0) {
          if (!in.reference_ns) continue;
          year = clock::infer_year(an.t, *in.reference_ns);
        }
        const int64_t wall = clock::naive_ns(an.t, year);
        if (an.t.has_uptime()) in.pairs.push_back(clock::Pair{an.t.clock, wall, an.t.uptime_ns});
        if (an.epoch_ns) in.epoch_pairs.push_back(clock::EpochPair{an.t.clock, *an.epoch_ns, wall});
      }
    add_zone_changes(db, bundle, name, in);
    {
      clock::SameLines same;
      for (const auto& root : host_roots) same.merge(roots[root].same);
      same.match(in);
    }
    const clock::ClockModel model = clock::fit(in);
    state_local_boot(db, bundle, name, host_roots, roots, in.reference_ns);
    derive_driver_at_load(db, bundle, name, model);

    sqlite3_stmt* ins = nullptr;
    sqlite3_prepare_v2(
        h, "INSERT INTO clocks(bundle_id,host,clock,offset_ns,method,detail) VALUES(?,?,?,?,?,?)",
        -1, &ins, nullptr);
    auto add_clock = [&](const char* c, std::optional<int64_t> off, const std::string& method,
                         const std::string& detail) {
      sqlite3_bind_int64(ins, 1, bundle);
      sqlite3_bind_text(ins, 2, name.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(ins, 3, c, -1, SQLITE_STATIC);
      if (off)
        sqlite3_bind_int64(ins, 4, *off);
      else
        sqlite3_bind_null(ins, 4);
      sqlite3_bind_text(ins, 5, method.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(ins, 6, detail.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_step(ins);
      sqlite3_reset(ins);
    };
    add_clock("host_local", model.host_local_offset_ns, model.host_local_method,
              std::string(to_string(model.host_local_quality)));
    add_clock("uptime", model.boot_ns, model.boot_method.empty() ? "unknown" : model.boot_method,
              "boot time (UTC ns)");
    add_clock("device_local", model.device_local_offset_ns, model.device_local_method, "");
    add_clock("device_syslog", model.device_syslog_offset_ns, model.device_syslog_method, "");
    // the zone per time range when it changed (docs/clock.md "Zones per time range"): one row
    // per span, detail = "from <UTC ns>" ("from start" for the first) and what stated it
    for (const auto& sp : model.zone_spans)
      add_clock(
          "host_local_span", sp.offset_ns, sp.method,
          "from " +
              (sp.from_utc_ns == kNoTime ? std::string("start") : std::to_string(sp.from_utc_ns)) +
              (sp.source.empty() ? "" : "; " + sp.source));
    sqlite3_finalize(ins);
    for (const auto& root : host_roots) models.emplace(root, model);
  }
  // Every event: its host's name (events were written with their root) and its UTC time, in one
  // UPDATE statement over the bundle's events: the new values come from SQL functions
  // (fl_host, fl_time, fl_quality) backed by the names and clock models above, so that no row
  // is looked up twice. Events of a root not in this load are left as they are.
  {
    EventTimes ctx;
    ctx.rendered = rendered_members(db, bundle);
    for (const auto& [root, name] : names) {
      const auto m = models.find(root);
      if (m != models.end()) ctx.roots.emplace(root, std::make_pair(name, m->second));
    }
    const int flags = SQLITE_UTF8;
    sqlite3_create_function_v2(h, "fl_host", 1, flags, &ctx, &EventTimes::sql_host, nullptr,
                               nullptr, nullptr);
    sqlite3_create_function_v2(h, "fl_time", 8, flags, &ctx, &EventTimes::sql_time, nullptr,
                               nullptr, nullptr);
    sqlite3_create_function_v2(h, "fl_quality", 8, flags, &ctx, &EventTimes::sql_quality, nullptr,
                               nullptr, nullptr);
    sqlite3_stmt* upd = nullptr;
    const int rc = sqlite3_prepare_v2(
        h,
        "UPDATE events SET host=fl_host(host), "
        "time_ns=fl_time(id, host, clock, raw_civil_ns, raw_has_year, uptime_ns, time_ns, "
        "member_id), "
        "time_quality=fl_quality(id, host, clock, raw_civil_ns, raw_has_year, uptime_ns, "
        "time_quality, member_id) "
        "WHERE bundle_id=?",
        -1, &upd, nullptr);
    std::string err;
    if (rc == SQLITE_OK) {
      sqlite3_bind_int64(upd, 1, bundle);
      if (sqlite3_step(upd) != SQLITE_DONE) err = sqlite3_errmsg(h);
    } else {
      err = sqlite3_errmsg(h);
    }
    sqlite3_finalize(upd);
    for (const char* f : {"fl_host", "fl_time", "fl_quality"})
      sqlite3_create_function_v2(h, f, f[3] == 'h' ? 1 : 8, flags, nullptr, nullptr, nullptr,
                                 nullptr, nullptr);
    if (!err.empty()) throw store::StoreError("setting event times: " + err);
  }
  if (own_tx) db.commit();
}

}  // namespace faultline::pipeline
