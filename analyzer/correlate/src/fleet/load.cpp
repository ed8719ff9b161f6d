// Rows the fleet correlation reads from the merged database.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "faultline/core/time.hpp"
#include "internal.hpp"

namespace faultline::correlate::fleet {

const std::vector<std::string>& fleet_signatures() {
  static const std::vector<std::string> s = {"hccl.heartbeat_abnormal",
                                             "hccl.heartbeat_crimer",
                                             "hccl.notify_wait_timeout",
                                             "hccl.task_failed_group_rank",
                                             "hccl.task_failed_op_data",
                                             "hccl.socket_timeout",
                                             "hccl.topo_exchange_timeout",
                                             "hccl.roce_error_cqe",
                                             "hccl.link_error_info",
                                             "hccl.transport_init_error",
                                             "hccl.connect_detect_result",
                                             "hccl.comm_init_entry",
                                             "hccl.op_entry",
                                             "hccl.local_rank_info",
                                             "hccl.env_setting",
                                             "hccl.env_config",
                                             "runtime.report_timeout",
                                             "mindie.pd_link_failed",
                                             "hccl.vnic_listen",
                                             "hccl.get_root_info",
                                             "hccl.rank_basic_info_failed",
                                             "hccl.rasocket_timeout",
                                             "mindie.pull_kv_failed",
                                             "hccl.cluster_info_recv_failed",
                                             "hccl.op_error",
                                             "hccl.fftsplus_timeout",
                                             "hccl.sdma_exception",
                                             "hccl.comm_init_failed",
                                             "torch_npu.err_code",
                                             "hccl.comm_init_trace",
                                             "hccl.comm_init_root_failed",
                                             "hccl.hcom_init",
                                             "hccl.comm_init_info",
                                             "hccl.task_failed_para",
                                             "hccl.p2p_connect_timeout",
                                             "hccl.socket_recv_failed",
                                             "hccl.aicpu_task_exception",
                                             "hccl.aicpu_op_data",
                                             "hccl.root_info_connected_ranks",
                                             "hccl.root_info_connect_count",
                                             "hccl.topo_detect_agent_failed",
                                             "hccl.hccp_tls_switch",
                                             "hccn.tls_switch"};
  return s;
}

void load_hosts(Ctx& c) {
  for (int64_t b : c.bundles) {
    Stmt st(c.db,
            "SELECT name FROM hosts WHERE bundle_id = ?1 UNION SELECT host FROM members WHERE "
            "bundle_id = ?1");
    st.bind(1, b);
    while (st.step()) {
      const std::string h = st.str(0);
      if (h.empty()) continue;
      auto& v = c.host_bundles[h];
      if (std::find(v.begin(), v.end(), b) == v.end()) v.push_back(b);
    }
    Stmt ck(c.db,
            "SELECT host, offset_ns FROM clocks WHERE bundle_id = ? AND clock = 'host_local' AND "
            "offset_ns IS NOT "
            "NULL ORDER BY id");
    ck.bind(1, b);
    while (ck.step()) c.local_off.emplace(ck.str(0), ck.i64(1));
    if (auto marks = detail::read_restarts(c.db, b); !marks.empty())
      c.restarts.emplace(b, std::move(marks));
  }
}

namespace {

// The bundle's restart marks, loaded into the temp table restart_condition() reads; "" when the
// bundle has none.
std::string restart_sql(const Ctx& c, int64_t bundle) {
  auto it = c.restarts.find(bundle);
  if (it == c.restarts.end()) return "";
  if (c.restarts_loaded != bundle) {
    detail::load_restart_table(c.db, it->second);
    c.restarts_loaded = bundle;
  }
  return detail::restart_condition(it->second);
}

// A note per host whose error lines of an earlier run were left out.
void restart_notes(Ctx& c) {
  for (const auto& [host, n] : c.before_restart) {
    std::string when;
    for (const auto& [b, marks] : c.restarts)
      for (const auto& m : marks)
        if (m.host == host && (when.empty() || format_utc(m.before_ns) > when))
          when = format_utc(m.before_ns);
    std::string note = "restart on ";
    note.append(host).append(": ").append(std::to_string(n)).append(" error line");
    note.append(n == 1 ? "" : "s").append(" of CANN process logs up to ").append(when);
    note.append(n == 1 ? " is" : " are").append(" of an earlier run of the job, not used");
    c.notes.push_back(std::move(note));
  }
}

}  // namespace

void load_hits(Ctx& c) {
  Stmt st(c.db,
          "SELECT h.captures, e.host, e.time_ns, e.time_quality, e.clock, e.rank, e.device, e.pid, "
          "e.sev_rank, "
          "COALESCE(m.path, ''), e.line, substr(e.text, 1, 2000), COALESCE(m.kind, '') FROM hits h "
          "JOIN events e ON e.id "
          "= h.event_id "
          "LEFT JOIN members m ON m.id = e.member_id WHERE h.bundle_id = ?1 AND h.signature = ?2 "
          "ORDER BY e.time_ns IS NULL, e.time_ns, m.path, e.line, h.id LIMIT ?3");
  for (int64_t b : c.bundles) {
    const auto rit = c.restarts.find(b);
    for (const auto& sig : fleet_signatures()) {
      st.reset();
      st.bind(1, b)
          .bind(2, std::string_view(sig))
          .bind(3, static_cast<int64_t>(kMaxRowsPerSignature));
      size_t n = 0;
      while (st.step()) {
        HitR h;
        h.sig = sig;
        h.cap = J::parse(st.str(0), nullptr, false);
        h.host = st.str(1);
        h.t = st.opt_i64(2);
        h.quality = st.str(3);
        h.clock = st.str(4);
        h.rank = st.opt_i64(5);
        h.device = st.opt_i64(6);
        h.pid = st.opt_i64(7);
        h.line_pid = h.pid;
        h.sev = static_cast<int>(st.i64(8));
        h.file = st.str(9);
        if (auto p = process_of_file(h.file)) h.pid = p;  // the file's process, not the thread's
        h.line = st.i64(10);
        h.text = clip(st.str(11));
        h.bundle = b;
        ++n;
        // an error of an earlier run of the job (identity lines stay: the process is the same)
        if (rit != c.restarts.end() && h.sev >= 4 &&
            detail::before_restart(rit->second, h.host, st.str(12), h.line_pid, h.t))
          continue;
        if (!host_clock(h.clock)) h.t.reset();  // cross-host order uses host clocks only
        c.hits[sig].push_back(std::move(h));
      }
      if (n >= kMaxRowsPerSignature)
        c.notes.push_back(sig + ": more than " + std::to_string(kMaxRowsPerSignature) +
                          " lines in one bundle; the first ones were used");
    }
  }
  // one order whatever order the bundles were loaded or merged in (fleet -j N merges as workers
  // finish; per-node databases merge in input order): time, then host, file and line
  for (auto& [sig, v] : c.hits)
    std::stable_sort(v.begin(), v.end(), [](const HitR& a, const HitR& b) {
      if (a.t.has_value() != b.t.has_value()) return a.t.has_value();
      if (a.t && *a.t != *b.t) return *a.t < *b.t;
      return std::tie(a.host, a.file, a.line) < std::tie(b.host, b.file, b.line);
    });
}

void load_first_errors(Ctx& c) {
  // per plog file its first timed ERROR line (SQLite: the bare columns come from the min() row),
  // not counting the lines of an earlier run of the job
  const std::string sql =
      "SELECT e.host, m.path, min(e.time_ns), e.line, substr(e.text, 1, 2000), e.time_quality, "
      "e.clock FROM events e JOIN members m ON m.id = e.member_id WHERE e.bundle_id = ?1 AND "
      "m.kind = 'plog' AND e.sev_rank >= 4 AND e.time_ns IS NOT NULL AND e.clock IN "
      "('host_local', 'utc', 'uptime')";
  Stmt plain(c.db, sql + " GROUP BY e.host, m.path");
  for (int64_t b : c.bundles) {
    const std::string cond = restart_sql(c, b);
    std::optional<Stmt> own;
    if (!cond.empty()) {
      own.emplace(c.db, sql + cond + " GROUP BY e.host, m.path");
      // the error lines of an earlier run, per host (for the note)
      Stmt n(c.db,
             "SELECT e.host, count(*) FROM events e WHERE e.bundle_id = ? AND e.sev_rank >= 4 AND "
             "e.time_ns IS NOT NULL" +
                 detail::restart_condition(c.restarts.at(b), true) + " GROUP BY e.host");
      n.bind(1, b);
      while (n.step()) c.before_restart[n.str(0)] += n.i64(1);
    }
    Stmt& st = own ? *own : plain;
    st.reset();
    st.bind(1, b);
    while (st.step()) {
      HitR h;
      h.host = st.str(0);
      h.file = st.str(1);
      h.t = st.opt_i64(2);
      h.line = st.i64(3);
      h.text = clip(st.str(4));
      h.quality = st.str(5);
      h.clock = st.str(6);
      h.bundle = b;
      h.sev = 4;
      h.sig = "error";
      h.pid = process_of_file(h.file);
      if (!h.pid || !h.t) continue;
      auto [it, fresh] = c.first_error.try_emplace({h.host, *h.pid}, h);
      if (!fresh && *h.t < *it->second.t) it->second = std::move(h);
    }
  }
  restart_notes(c);
}

// The columns event_row() reads, for events that carry a signature hit: read from the bundle's
// hits (a few hundred rows) instead of a scan of its events with a hit lookup per error line
// (each call read every error-level row of a large bundle: ~3% of `analyze` on plog-heavy
// data). ?1 is the bundle id; the caller appends its conditions after "WHERE ".
constexpr const char* kHitEventCols =
    "SELECT e.id, e.time_ns, e.time_quality, e.clock, e.rank, e.device, e.pid, "
    "COALESCE(m.path, ''), e.line, substr(e.text, 1, 2000) "
    "FROM (SELECT DISTINCT event_id FROM hits WHERE bundle_id = ?1) hh CROSS JOIN events e ON "
    "e.id = hh.event_id LEFT JOIN members m ON m.id = e.member_id WHERE ";

EventR event_row(const Stmt& st, const std::string& host) {
  EventR e;
  e.id = st.i64(0);
  e.t = st.opt_i64(1);
  e.quality = st.str(2);
  e.clock = st.str(3);
  e.rank = st.opt_i64(4);
  e.device = st.opt_i64(5);
  e.pid = st.opt_i64(6);
  e.file = st.str(7);
  e.line = st.i64(8);
  e.text = clip(st.str(9));
  e.host = host;
  return e;
}

void load_signatures(const Ctx& c, std::vector<EventR>& events) {
  Stmt sg(c.db, "SELECT signature FROM hits WHERE event_id = ? ORDER BY signature");
  for (auto& e : events) {
    sg.reset();
    sg.bind(1, e.id);
    while (sg.step()) e.sigs.push_back(sg.str(0));
  }
}

std::vector<EventR> host_errors(const Ctx& c, const std::string& host, int64_t from_host_ns,
                                int64_t to_host_ns, size_t limit) {
  std::vector<EventR> out;
  auto bit = c.host_bundles.find(host);
  if (bit == c.host_bundles.end()) return out;
  for (int64_t b : bit->second) {
    Stmt st(
        c.db,
        std::string(kHitEventCols) +
            "e.bundle_id = ?1 "
            "AND e.host = ?2 AND e.sev_rank >= 4 AND e.time_ns IS NOT NULL AND e.time_ns >= ?3 AND "
            "e.time_ns <= ?4 "
            "AND e.clock IN ('host_local', 'utc', 'uptime')" +
            restart_sql(c, b) + " ORDER BY e.time_ns, m.path, e.line LIMIT ?5");
    st.bind(1, b).bind(2, std::string_view(host)).bind(3, from_host_ns);
    st.bind(4, to_host_ns).bind(5, static_cast<int64_t>(limit));
    while (st.step()) {
      EventR e = event_row(st, host);
      out.push_back(std::move(e));
    }
  }
  load_signatures(c, out);
  std::sort(out.begin(), out.end(), [](const EventR& a, const EventR& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.file != b.file) return a.file < b.file;
    return a.line < b.line;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

// Fault lines on the device's own clock (device slog, events, black box) or without a time, for
// corroboration: same device, or the rank's stdout lines. When the host zone is not known the
// device clock and the host clock may differ by whole hours: the shift is taken from the device
// fault line closest to a whole-hour difference from the host-side fault, and only lines within
// 60 s of the host-side fault at that shift are kept.
std::vector<EventR> host_device_faults(const Ctx& c, const std::string& host,
                                       std::optional<int64_t> device, std::optional<int64_t> rank,
                                       std::optional<int64_t> near_host_ns, bool zone_known) {
  std::vector<EventR> out;
  auto bit = c.host_bundles.find(host);
  if (bit == c.host_bundles.end()) return out;
  for (int64_t b : bit->second) {
    Stmt st(c.db, std::string(kHitEventCols) +
                      "e.bundle_id = ?1 "
                      "AND e.host = ?2 AND e.sev_rank >= 4 AND ((e.clock IN ('device_local', "
                      "'device_syslog') AND e.device = ?3) "
                      "OR (e.time_ns IS NULL AND e.rank = ?4)) "
                      "ORDER BY e.time_ns IS NULL, e.time_ns, m.path, e.line LIMIT 400");
    st.bind(1, b)
        .bind(2, std::string_view(host))
        .bind(3, device.value_or(-1))
        .bind(4, rank.value_or(-1));
    while (st.step()) {
      EventR e = event_row(st, host);
      if (e.t && !near_host_ns) continue;
      out.push_back(std::move(e));
    }
  }
  load_signatures(c, out);
  out.erase(std::remove_if(out.begin(), out.end(), [](const EventR& e) { return !e.fault(); }),
            out.end());
  if (!near_host_ns) return out;
  constexpr int64_t kHour = 3600 * kSec;
  constexpr int64_t kNear = 60 * kSec;
  auto shift_of = [&](int64_t d) {
    return zone_known ? 0 : ((d >= 0 ? d + kHour / 2 : d - kHour / 2) / kHour) * kHour;
  };
  std::optional<int64_t> shift;
  int64_t best = INT64_MAX;
  for (const auto& e : out) {
    if (!e.t) continue;
    const int64_t d = *e.t - *near_host_ns;
    const int64_t s = shift_of(d);
    if (std::llabs(s) > 14 * kHour) continue;
    if (std::llabs(d - s) < best) {
      best = std::llabs(d - s);
      shift = s;
    }
  }
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const EventR& e) {
                             if (!e.t) return false;
                             return !shift || std::llabs(*e.t - *near_host_ns - *shift) > kNear;
                           }),
            out.end());
  return out;
}

}  // namespace faultline::correlate::fleet
