// Storage of a fleet run in the fleet_* tables (schema/002_fleet.sql): store_fleet, load_fleet,
// run_fleet.
#include <algorithm>
#include <stdexcept>

#include "internal.hpp"

namespace faultline::correlate {

using namespace fleet;  // NOLINT(google-build-using-namespace)

namespace {

std::string bundles_key(sqlite3* db, const std::vector<int64_t>& ids) {
  std::vector<std::string> shas;
  Stmt st(db, "SELECT sha256 FROM bundles WHERE id = ?");
  for (int64_t id : ids) {
    st.reset();
    st.bind(1, id);
    if (st.step())
      shas.push_back(st.str(0));
    else
      shas.push_back("#" + std::to_string(id));
  }
  std::sort(shas.begin(), shas.end());
  std::string k;
  for (const auto& s : shas) k += (k.empty() ? "" : ",") + s;
  return k;
}

void bind_opt(Stmt& st, int i, const std::optional<int64_t>& v) {
  if (v)
    st.bind(i, *v);
  else
    st.bind_null(i);
}

J opt_json(const std::optional<int64_t>& v) {
  return v ? J(*v) : J(nullptr);
}

std::optional<int64_t> opt_of(const J& j, const char* k) {
  if (!j.is_object() || !j.contains(k) || !j[k].is_number_integer()) return std::nullopt;
  return j[k].get<int64_t>();
}

std::string str_of(const J& j, const char* k) {
  if (!j.is_object() || !j.contains(k) || !j[k].is_string()) return {};
  return j[k].get<std::string>();
}

J identity_json(const FleetRank& fr) {
  return J{{"logic_device", opt_json(fr.logic_device)},
           {"size", opt_json(fr.size)},
           {"device_ip", fr.device_ip},
           {"server_ip", fr.server_ip}};
}

void read_identity(const J& j, FleetRank& fr) {
  fr.logic_device = opt_of(j, "logic_device");
  fr.size = opt_of(j, "size");
  fr.device_ip = str_of(j, "device_ip");
  fr.server_ip = str_of(j, "server_ip");
}

J culprits_json(const std::vector<FleetCulprit>& v) {
  J cs = J::array();
  for (const auto& u : v)
    cs.push_back(J{{"host", u.host},
                   {"rank", opt_json(u.rank)},
                   {"device", opt_json(u.device)},
                   {"logic_device", opt_json(u.logic_device)},
                   {"device_ip", u.device_ip},
                   {"pid", opt_json(u.pid)},
                   {"address", u.address}});
  return cs;
}

J answer_json(const FleetFirstFailure& f) {
  return J{{"culprits", culprits_json(f.culprits)},
           {"cycle", culprits_json(f.cycle)},
           {"vendor_code", opt_json(f.vendor_code)},
           {"chain", f.chain},
           {"no_single_root", f.no_single_root},
           {"reason", f.reason},
           {"logic_device", opt_json(f.logic_device)},
           {"device_ip", f.device_ip},
           {"agreed", f.agreed},
           {"disagreed", f.disagreed}};
}

void read_answer(const J& j, FleetFirstFailure& f) {
  if (!j.is_object()) return;
  for (const char* key : {"culprits", "cycle"})
    for (const auto& u : j.value(key, J::array())) {
      if (!u.is_object()) continue;
      FleetCulprit k;
      k.host = str_of(u, "host");
      k.rank = opt_of(u, "rank");
      k.device = opt_of(u, "device");
      k.logic_device = opt_of(u, "logic_device");
      k.device_ip = str_of(u, "device_ip");
      k.pid = opt_of(u, "pid");
      k.address = str_of(u, "address");
      (std::string_view(key) == "cycle" ? f.cycle : f.culprits).push_back(std::move(k));
    }
  for (const char* key : {"chain", "agreed", "disagreed"}) {
    auto& dst = std::string_view(key) == "chain"    ? f.chain
                : std::string_view(key) == "agreed" ? f.agreed
                                                    : f.disagreed;
    for (const auto& x : j.value(key, J::array()))
      if (x.is_string()) dst.push_back(x.get<std::string>());
  }
  f.no_single_root = j.value("no_single_root", false);
  f.reason = str_of(j, "reason");
  f.vendor_code = opt_of(j, "vendor_code");
  f.logic_device = opt_of(j, "logic_device");
  f.device_ip = str_of(j, "device_ip");
}

bool has_fleet_tables(sqlite3* db) {
  Stmt st(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fleet_runs'");
  return st.step();
}

}  // namespace

void store_fleet(sqlite3* db, const FleetResult& r) {
  if (!has_fleet_tables(db))
    throw std::runtime_error("database has no fleet tables (schema older than 2)");
  detail::exec(db, "SAVEPOINT fleet_store");
  try {
    const std::string key = bundles_key(db, r.bundle_ids);
    {
      Stmt del(db, "DELETE FROM fleet_runs WHERE bundles_key = ?");
      del.bind(1, std::string_view(key));
      del.step();
    }
    // runs that lost a member bundle (replaced by a later analysis) are stale
    detail::exec(db,
                 "DELETE FROM fleet_runs WHERE bundles > (SELECT COUNT(*) FROM fleet_members fm "
                 "WHERE fm.run_id = "
                 "fleet_runs.id AND fm.status = 'analysed')");
    int64_t run = 0;
    {
      Stmt ins(db,
               "INSERT INTO fleet_runs(bundles_key, bundles, reference, exec_timeout_s, "
               "connect_timeout_s, "
               "timeouts_source, notes) VALUES(?,?,?,?,?,?,?)");
      ins.bind(1, std::string_view(key)).bind(2, static_cast<int64_t>(r.bundle_ids.size()));
      ins.bind(3, std::string_view(r.reference))
          .bind(4, r.exec_timeout_s)
          .bind(5, r.connect_timeout_s);
      ins.bind(6, std::string_view(r.timeouts_source)).bind(7, J(r.notes).dump());
      ins.step();
      run = sqlite3_last_insert_rowid(db);
    }
    {
      Stmt ins(db, "INSERT OR IGNORE INTO fleet_members(run_id, bundle_id, status) VALUES(?,?,?)");
      for (int64_t b : r.bundle_ids) {
        ins.reset();
        ins.bind(1, run).bind(2, b).bind(3, std::string_view("analysed"));
        ins.step();
      }
      for (int64_t b : r.failed_ids) {
        ins.reset();
        ins.bind(1, run).bind(2, b).bind(3, std::string_view("failed"));
        ins.step();
      }
    }
    {
      Stmt ins(
          db,
          "INSERT INTO fleet_hosts(run_id, host, bundle_id, ips, ranks, offset_ns, offset_events, "
          "offset_spread_ns, offset_method, offset_applied, hccl_errors, silent, first_time_ns, "
          "first_fleet_ns, "
          "first_quality, first_member, first_line, first_text, first_signature, first_class) "
          "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      for (const auto& h : r.hosts) {
        ins.reset();
        J ips = J::array();
        for (const auto& ip : h.ips) ips.push_back(J{{"ip", ip.ip}, {"source", ip.source}});
        ins.bind(1, run).bind(2, std::string_view(h.host)).bind(3, h.bundle_id).bind(4, ips.dump());
        ins.bind(5, J(h.ranks).dump());
        bind_opt(ins, 6, h.offset_ns);
        ins.bind(7, static_cast<int64_t>(h.offset_events));
        bind_opt(ins, 8, h.offset_spread_ns);
        ins.bind(9, std::string_view(h.offset_method))
            .bind(10, static_cast<int64_t>(h.offset_applied ? 1 : 0));
        ins.bind(11, static_cast<int64_t>(h.hccl_errors))
            .bind(12, static_cast<int64_t>(h.silent ? 1 : 0));
        if (h.first) {
          bind_opt(ins, 13, h.first->time_ns);
          bind_opt(ins, 14, h.first_fleet_ns);
          ins.bind(15, std::string_view(h.first->quality))
              .bind(16, std::string_view(h.first->file));
          ins.bind(17, h.first->line).bind(18, std::string_view(h.first->text));
          ins.bind(19, std::string_view(h.first->signature))
              .bind(20, std::string_view(h.first_class));
        } else {
          for (int i = 13; i <= 20; ++i) ins.bind_null(i);
        }
        ins.step();
      }
    }
    {
      Stmt ins(db,
               "INSERT OR IGNORE INTO fleet_ranks(run_id, rank, host, ip, device, pid, grp, "
               "source, identity) VALUES(?,?,?,?,?,?,?,?,?)");
      for (const auto& fr : r.ranks) {
        ins.reset();
        ins.bind(1, run)
            .bind(2, fr.rank)
            .bind(3, std::string_view(fr.host))
            .bind(4, std::string_view(fr.ip));
        bind_opt(ins, 5, fr.device);
        bind_opt(ins, 6, fr.pid);
        ins.bind(7, std::string_view(fr.group)).bind(8, std::string_view(fr.source));
        ins.bind(9, identity_json(fr).dump());
        ins.step();
      }
    }
    if (r.first_failure) {
      const auto& f = *r.first_failure;
      Stmt ins(db,
               "INSERT INTO fleet_first_failure(run_id, host, bundle_id, rank, device, ip, grp, "
               "time_ns, fleet_ns, "
               "time_quality, rule, rule_text, confidence, root_cause, root_cause_title, "
               "root_cause_confidence, "
               "summary, explains, answer) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      ins.bind(1, run).bind(2, std::string_view(f.host));
      if (f.bundle_id > 0)
        ins.bind(3, f.bundle_id);
      else
        ins.bind_null(3);
      bind_opt(ins, 4, f.rank);
      bind_opt(ins, 5, f.device);
      ins.bind(6, std::string_view(f.ip)).bind(7, std::string_view(f.group));
      bind_opt(ins, 8, f.time_ns);
      bind_opt(ins, 9, f.fleet_ns);
      ins.bind(10, std::string_view(f.quality))
          .bind(11, std::string_view(f.rule))
          .bind(12, std::string_view(f.rule_text));
      ins.bind(13, f.confidence);
      if (f.root_cause.empty()) {
        ins.bind_null(14).bind_null(15).bind_null(16);
      } else {
        ins.bind(14, std::string_view(f.root_cause)).bind(15, std::string_view(f.root_cause_title));
        ins.bind(16, f.root_cause_confidence);
      }
      ins.bind(17, std::string_view(f.summary));
      ins.bind(18, J{{"hosts", f.explains_hosts}, {"symptoms", f.explains_symptoms}}.dump());
      ins.bind(19, answer_json(f).dump());
      ins.step();
      Stmt ev(db,
              "INSERT INTO fleet_evidence(run_id, ord, host, member, line, time_ns, time_quality, "
              "text, signature, "
              "finding, role) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
      int64_t ord = 0;
      for (const auto& l : f.evidence) {
        ev.reset();
        ev.bind(1, run)
            .bind(2, ord++)
            .bind(3, std::string_view(l.host))
            .bind(4, std::string_view(l.file));
        ev.bind(5, l.line);
        bind_opt(ev, 6, l.time_ns);
        ev.bind(7, std::string_view(l.quality))
            .bind(8, std::string_view(l.text))
            .bind(9, std::string_view(l.signature));
        ev.bind(10, std::string_view(l.finding)).bind(11, std::string_view(l.role));
        ev.step();
      }
    }
    {
      Stmt ins(
          db,
          "INSERT INTO fleet_suspects(run_id, ord, host, rank, rule, detail) VALUES(?,?,?,?,?,?)");
      int64_t ord = 0;
      for (const auto& s : r.suspects) {
        ins.reset();
        ins.bind(1, run).bind(2, ord++).bind(3, std::string_view(s.host));
        bind_opt(ins, 4, s.rank);
        ins.bind(5, std::string_view(s.rule)).bind(6, std::string_view(s.detail));
        ins.step();
      }
    }
    detail::exec(db, "RELEASE fleet_store");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK TO fleet_store; RELEASE fleet_store", nullptr, nullptr, nullptr);
    throw;
  }
}

std::optional<FleetResult> load_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids) {
  if (!has_fleet_tables(db)) return std::nullopt;
  std::vector<int64_t> ids = bundle_ids;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const std::string key = bundles_key(db, ids);
  FleetResult r;
  r.bundle_ids = ids;
  int64_t run = 0;
  {
    Stmt st(db,
            "SELECT id, bundles, COALESCE(reference, ''), COALESCE(exec_timeout_s, 0), "
            "COALESCE(connect_timeout_s, 0), "
            "COALESCE(timeouts_source, ''), notes FROM fleet_runs WHERE bundles_key = ?");
    st.bind(1, std::string_view(key));
    if (!st.step()) return std::nullopt;
    run = st.i64(0);
    if (st.i64(1) != static_cast<int64_t>(ids.size())) return std::nullopt;
    r.reference = st.str(2);
    r.exec_timeout_s = st.i64(3);
    r.connect_timeout_s = st.i64(4);
    r.timeouts_source = st.str(5);
    const auto n = J::parse(st.str(6), nullptr, false);
    if (n.is_array())
      for (const auto& x : n)
        if (x.is_string()) r.notes.push_back(x.get<std::string>());
  }
  {
    Stmt st(db, "SELECT bundle_id, status FROM fleet_members WHERE run_id = ? ORDER BY bundle_id");
    st.bind(1, run);
    int64_t analysed = 0;
    while (st.step()) {
      if (st.str(1) == "failed")
        r.failed_ids.push_back(st.i64(0));
      else
        ++analysed;
    }
    if (analysed != static_cast<int64_t>(ids.size())) return std::nullopt;  // a member was replaced
  }
  {
    Stmt st(db,
            "SELECT host, COALESCE(bundle_id, 0), ips, ranks, offset_ns, offset_events, "
            "offset_spread_ns, "
            "COALESCE(offset_method, ''), offset_applied, hccl_errors, silent, first_time_ns, "
            "first_fleet_ns, "
            "COALESCE(first_quality, ''), COALESCE(first_member, ''), COALESCE(first_line, 0), "
            "first_text, "
            "COALESCE(first_signature, ''), COALESCE(first_class, '') FROM fleet_hosts WHERE "
            "run_id = ? ORDER BY host");
    st.bind(1, run);
    while (st.step()) {
      FleetHost h;
      h.host = st.str(0);
      h.bundle_id = st.i64(1);
      const auto ips = J::parse(st.str(2), nullptr, false);
      if (ips.is_array())
        for (const auto& x : ips)
          if (x.is_object()) h.ips.push_back({x.value("ip", ""), x.value("source", "")});
      const auto rk = J::parse(st.str(3), nullptr, false);
      if (rk.is_array())
        for (const auto& x : rk)
          if (x.is_number_integer()) h.ranks.push_back(x.get<int64_t>());
      h.offset_ns = st.opt_i64(4);
      h.offset_events = static_cast<int>(st.i64(5));
      h.offset_spread_ns = st.opt_i64(6);
      h.offset_method = st.str(7);
      h.offset_applied = st.i64(8) != 0;
      h.hccl_errors = static_cast<int>(st.i64(9));
      h.silent = st.i64(10) != 0;
      if (!st.null(16)) {
        FleetLine l;
        l.host = h.host;
        l.time_ns = st.opt_i64(11);
        l.quality = st.str(13);
        l.file = st.str(14);
        l.line = st.i64(15);
        l.text = st.str(16);
        l.signature = st.str(17);
        l.role = "timing";
        h.first = l;
        h.first_fleet_ns = st.opt_i64(12);
        h.first_class = st.str(18);
      }
      r.hosts.push_back(std::move(h));
    }
  }
  {
    Stmt st(db,
            "SELECT rank, host, COALESCE(ip, ''), device, pid, COALESCE(grp, ''), source, identity "
            "FROM "
            "fleet_ranks WHERE run_id = ? "
            "ORDER BY rank, host");
    st.bind(1, run);
    while (st.step()) {
      FleetRank fr;
      fr.rank = st.i64(0);
      fr.host = st.str(1);
      fr.ip = st.str(2);
      fr.device = st.opt_i64(3);
      fr.pid = st.opt_i64(4);
      fr.group = st.str(5);
      fr.source = st.str(6);
      read_identity(J::parse(st.str(7), nullptr, false), fr);
      r.ranks.push_back(std::move(fr));
    }
  }
  {
    Stmt st(
        db,
        "SELECT host, COALESCE(bundle_id, 0), rank, device, COALESCE(ip, ''), COALESCE(grp, "
        "''), time_ns, fleet_ns, "
        "COALESCE(time_quality, ''), rule, rule_text, confidence, COALESCE(root_cause, ''), "
        "COALESCE(root_cause_title, ''), COALESCE(root_cause_confidence, 0), summary, explains, "
        "answer "
        "FROM fleet_first_failure WHERE run_id = ?");
    st.bind(1, run);
    if (st.step()) {
      FleetFirstFailure f;
      f.host = st.str(0);
      f.bundle_id = st.i64(1);
      f.rank = st.opt_i64(2);
      f.device = st.opt_i64(3);
      f.ip = st.str(4);
      f.group = st.str(5);
      f.time_ns = st.opt_i64(6);
      f.fleet_ns = st.opt_i64(7);
      f.quality = st.str(8);
      f.rule = st.str(9);
      f.rule_text = st.str(10);
      f.confidence = st.dbl(11);
      f.root_cause = st.str(12);
      f.root_cause_title = st.str(13);
      f.root_cause_confidence = st.dbl(14);
      f.summary = st.str(15);
      read_answer(J::parse(st.str(17), nullptr, false), f);
      const auto ex = J::parse(st.str(16), nullptr, false);
      if (ex.is_object()) {
        for (const auto& x : ex.value("hosts", J::array()))
          if (x.is_string()) f.explains_hosts.push_back(x.get<std::string>());
        for (const auto& x : ex.value("symptoms", J::array()))
          if (x.is_string()) f.explains_symptoms.push_back(x.get<std::string>());
      }
      Stmt ev(db,
              "SELECT host, COALESCE(member, ''), COALESCE(line, 0), time_ns, "
              "COALESCE(time_quality, ''), text, "
              "COALESCE(signature, ''), role, COALESCE(finding, '') FROM fleet_evidence WHERE "
              "run_id = ? "
              "ORDER BY ord, id");
      ev.bind(1, run);
      while (ev.step()) {
        FleetLine l;
        l.host = ev.str(0);
        l.file = ev.str(1);
        l.line = ev.i64(2);
        l.time_ns = ev.opt_i64(3);
        l.quality = ev.str(4);
        l.text = ev.str(5);
        l.signature = ev.str(6);
        l.role = ev.str(7);
        l.finding = ev.str(8);
        f.evidence.push_back(std::move(l));
      }
      r.first_failure = std::move(f);
    }
  }
  {
    Stmt st(db,
            "SELECT COALESCE(host, ''), rank, rule, detail FROM fleet_suspects WHERE run_id = ? "
            "ORDER BY ord");
    st.bind(1, run);
    while (st.step()) r.suspects.push_back({st.str(0), st.str(2), st.str(3), st.opt_i64(1)});
  }
  r.faults = load_fleet_faults(db, ids);  // from the per-node findings (not stored twice)
  return r;
}

bool job_bundle(sqlite3* db, int64_t bundle_id) {
  Stmt h(db, "SELECT count(*) FROM hosts WHERE bundle_id = ?");
  h.bind(1, bundle_id);
  if (h.step() && h.i64(0) >= 2) return true;
  // ranks announced by the identity lines (the roster's sources, load.cpp)
  Stmt r(db,
         "SELECT count(DISTINCT json_extract(captures, '$.rank')) FROM hits WHERE bundle_id = ? "
         "AND signature IN ('hccl.comm_init_trace', 'hccl.comm_init_entry', 'hccl.hcom_init', "
         "'hccl.comm_init_info', 'hccl.local_rank_info') AND json_valid(captures)");
  r.bind(1, bundle_id);
  if (!r.step() || r.i64(0) < 2) return false;
  std::string list;
  for (const auto& s : fleet::fleet_signatures())
    if (fleet::hccl_error_signature(s)) list += (list.empty() ? "'" : ", '") + s + "'";
  Stmt e(db,
         "SELECT 1 FROM hits h JOIN events e ON e.id = h.event_id WHERE h.bundle_id = ? AND "
         "e.sev_rank >= 4 AND h.signature IN (" +
             list + ") LIMIT 1");
  e.bind(1, bundle_id);
  return e.step();
}

FleetResult run_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids,
                      const std::vector<int64_t>& failed_ids) {
  FleetResult r = analyze_fleet(db, bundle_ids);
  r.failed_ids = failed_ids;
  std::sort(r.failed_ids.begin(), r.failed_ids.end());
  store_fleet(db, r);
  return r;
}

}  // namespace faultline::correlate
