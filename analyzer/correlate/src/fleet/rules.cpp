// The rules of inference of the first failure, one function each (docs/fleet.md).
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "faultline/core/time.hpp"
#include "internal.hpp"

namespace faultline::correlate::fleet {

// ---------------------------------------------------------------------------------------------
// Rules

void attach_timeouts(Ctx& c, FleetResult& r) {
  std::vector<int64_t> exec, conn;
  for (const auto& h : c.of("hccl.env_setting")) {
    const auto v = to_i64(h.c("value"));
    if (!v) continue;
    if (h.c("name") == "HCCL_EXEC_TIMEOUT") exec.push_back(*v);
    if (h.c("name") == "HCCL_CONNECT_TIMEOUT") conn.push_back(*v);
  }
  // Ascend 950: `[HCCL_TRACE]Env config ..., linkTimeOut[180]s, execTimeOut[300]s`
  for (const auto& h : c.of("hccl.env_config")) {
    if (const auto v = to_i64(h.c("exec_timeout_s"))) exec.push_back(*v);
    if (const auto v = to_i64(h.c("link_timeout_s"))) conn.push_back(*v);
  }
  r.timeouts_source = exec.empty() ? "default" : "logged";
  r.exec_timeout_s = exec.empty() ? kDefaultExecTimeout : median(exec);
  r.connect_timeout_s = conn.empty() ? kDefaultConnectTimeout : median(conn);
  std::sort(exec.begin(), exec.end());
  if (!exec.empty() && exec.front() != exec.back())
    c.notes.push_back("HCCL_EXEC_TIMEOUT differs between ranks (" + std::to_string(exec.front()) +
                      " s to " + std::to_string(exec.back()) + " s); the median is used");
  if (r.connect_timeout_s >= r.exec_timeout_s)
    c.notes.push_back(
        "HCCL_CONNECT_TIMEOUT >= HCCL_EXEC_TIMEOUT: the first error may not be reported correctly "
        "(log-formats.md §8.1)");
}

std::optional<Candidate> rule_heartbeat(Ctx& c, const FleetResult& r, const Roster& ro) {
  struct Score {
    int prio = 0;
    std::set<std::string> hosts;
    int reports = 0;
    std::string type;
  };
  std::map<std::string, Score> cand;
  for (const auto& h : c.of("hccl.heartbeat_abnormal")) {
    const std::string loc = h.c("location");
    if (loc.empty()) continue;
    auto& s = cand[loc];
    const int p = hb_priority(h.c("type"));
    if (p > s.prio) {
      s.prio = p;
      s.type = h.c("type");
    }
    s.hosts.insert(h.host);
    s.reports++;
  }
  for (const auto& h : c.of("hccl.heartbeat_crimer")) {
    const std::string loc = h.c("crimer");
    if (loc.empty()) continue;
    auto& s = cand[loc];
    const int p = hb_priority(h.c("status"));
    if (p > s.prio) {
      s.prio = p;
      s.type = "status " + h.c("status");
    }
    s.hosts.insert(h.host);
    s.reports++;
  }
  if (cand.empty()) return std::nullopt;
  const std::pair<const std::string, Score>* best = nullptr;
  for (const auto& kv : cand) {
    if (!best) {
      best = &kv;
      continue;
    }
    const auto& a = kv.second;
    const auto& b = best->second;
    if (std::make_tuple(a.prio, a.hosts.size(), a.reports) >
        std::make_tuple(b.prio, b.hosts.size(), b.reports))
      best = &kv;
  }
  Candidate k;
  k.rule = "heartbeat-broadcast";
  const auto [ip, id] = split_ip_id(best->first);
  k.ip = ip;
  k.rank = id;
  auto [host, src] = host_of_ip(c, ip);
  if (host.empty()) {
    host = host_by_own_logs(c, ip);
    if (!host.empty()) src = "own-log";
  }
  k.host = host;
  if (k.host.empty() && id) {
    if (const auto* fr = find_rank(r, *id)) k.host = fr->host;
  }
  // `[IP/ID]`: the ID is the device id on the server at IP; the roster gives its rank
  const auto proc = id ? ro.by_server_device(ip, *id) : std::nullopt;
  if (proc) {
    const Proc& p = ro.procs[*proc];
    k.host = p.host;
    k.rank = p.rank;
    k.device = p.phy_dev;
    k.logic_device = p.logic_dev;
    k.device_ip = p.device_ip;
    k.pid = p.pid;
    src = "identity roster";
  } else if (id) {
    if (const auto* fr = find_rank(r, *id, k.host)) {
      k.device = fr->device;
      k.pid = fr->pid;
    }
  }
  // every location the roster resolves is a culprit (the best-ranked first)
  if (proc) {
    k.culprits.push_back(culprit_of(ro.procs[*proc]));
    for (const auto& [loc, sc] : cand) {
      const auto [lip, lid] = split_ip_id(loc);
      const auto lp = lid ? ro.by_server_device(lip, *lid) : std::nullopt;
      if (lp && *lp != *proc) k.culprits.push_back(culprit_of(ro.procs[*lp]));
    }
  }
  const auto& s = best->second;
  k.text = "heartbeat broadcast: " + std::to_string(s.reports) + " report(s) on " +
           std::to_string(s.hosts.size()) + " host(s) name " + best->first + " (" + s.type + ", " +
           hb_status_name(s.prio) +
           "; priority ERROR CQE > "
           "STUCK > LOST, log-formats.md §8.5 step 2); " +
           ip +
           (k.host.empty() ? " is not an address of any bundle of the fleet"
                           : " is " + k.host + " (" + (src.empty() ? "rank roster" : src) + ")");
  k.confidence = 0.6;
  if (s.hosts.size() >= 2) k.confidence += 0.1;
  if (cand.size() == 1) k.confidence += 0.1;
  if (k.host.empty()) k.confidence -= 0.1;
  if (src == "host-name" || src == "own-log") k.confidence -= 0.05;
  return k;
}

std::optional<Candidate> rule_different_first(const Ctx& c, const FleetResult& r) {
  std::vector<const FleetHost*> fault, collective;
  for (const auto& fh : r.hosts) {
    if (!fh.first || !fh.first_fleet_ns) continue;
    (fh.first_class == "fault" ? fault : collective).push_back(&fh);
  }
  if (fault.empty() || collective.empty()) return std::nullopt;
  // a fault signature that many failing hosts share first is background, not "different"
  std::map<std::string, int> first_sig;
  for (const auto* fh : fault) first_sig[fh->first->signature]++;
  const size_t failing = fault.size() + collective.size();
  const FleetHost* best = nullptr;
  for (const auto* fh : fault) {
    if (first_sig[fh->first->signature] * 2 > static_cast<int>(failing) && failing > 2) continue;
    if (!best || *fh->first_fleet_ns < *best->first_fleet_ns ||
        (*fh->first_fleet_ns == *best->first_fleet_ns && fh->host < best->host))
      best = fh;
  }
  if (!best) return std::nullopt;
  Candidate k;
  k.rule = "different-first-error";
  k.host = best->host;
  std::optional<int64_t> earliest_collective;
  std::string collective_quality;
  for (const auto* fh : collective)
    if (!earliest_collective || *fh->first_fleet_ns < *earliest_collective) {
      earliest_collective = fh->first_fleet_ns;
      collective_quality = fh->first ? fh->first->quality : std::string();
    }
  k.text = "the first error of " + best->host + " in the incident is " + best->first->signature +
           " (a device/host "
           "fault) at " +
           sentence_time(*best->first_fleet_ns, best->first ? best->first->quality : "") +
           " (fleet clock), while " + std::to_string(collective.size()) +
           " other host(s) first logged collective errors (earliest " +
           sentence_time(*earliest_collective, collective_quality) +
           "): their HCCL errors are collateral (log-formats.md §8.5 step 4)";
  k.confidence = 0.7;
  if (*best->first_fleet_ns + kSec < *earliest_collective) k.confidence += 0.1;
  (void)c;
  return k;
}

std::optional<Candidate> rule_late_arrival(const Ctx& c, const FleetResult& r, const Incident& in) {
  struct Op {
    std::string host;
    std::optional<int64_t> rank;
    int64_t t = 0;
    const HitR* h = nullptr;
  };
  // rankId of the groupRank line preceding each opData line of the same file
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<int64_t, int64_t>>>
      ranks_by_file;
  for (const auto& h : c.of("hccl.task_failed_group_rank"))
    if (auto rk = to_i64(h.c("rank_id"))) ranks_by_file[{h.host, h.file}].push_back({h.line, *rk});
  std::map<std::string, std::vector<Op>> ops;
  for (const auto& h : c.of("hccl.task_failed_op_data")) {
    const auto t = parse_dash_time(h.c("issued"));
    if (!t) continue;
    Op o;
    o.host = h.host;
    o.t = c.to_fleet(h.host, *t + c.local(h.host));
    o.h = &h;
    auto it = ranks_by_file.find({h.host, h.file});
    if (it != ranks_by_file.end())
      for (const auto& [line, rk] : it->second)
        if (line < h.line) o.rank = rk;
    if (!o.rank) o.rank = h.rank;
    ops[bracket_value(h.text, "index[") + "|" + h.c("count") + "|" + h.c("data_type")].push_back(o);
  }
  const int64_t limit = r.exec_timeout_s * kSec;
  for (auto& [key, v] : ops) {
    if (v.size() < 2) continue;
    std::vector<int64_t> ts;
    for (const auto& o : v) ts.push_back(o.t);
    const int64_t m = median(ts);
    const auto late = std::max_element(v.begin(), v.end(), [](const Op& a, const Op& b) {
      return a.t != b.t ? a.t < b.t : a.host > b.host;
    });
    if (late->t - m <= limit) continue;
    Candidate k;
    k.rule = "late-arrival";
    k.host = late->host;
    k.rank = late->rank;
    k.lines.push_back(late->h->as_line("timing"));
    k.text = "all ranks timed out; " + late->host +
             (late->rank ? " rank " + std::to_string(*late->rank) : "") +
             " issued the op (opData timeStamp) " + fmt_s(late->t - m) +
             " after the median rank, more than "
             "HCCL_EXEC_TIMEOUT (" +
             std::to_string(r.exec_timeout_s) +
             " s): it arrived late and the others "
             "timed out waiting (log-formats.md §8.5 step 4)";
    k.confidence = 0.75;
    return k;
  }
  // without issue times: the timeouts themselves. A rank that timed out more than the timeout
  // after the first one started waiting after the others had given up: it came late.
  const std::pair<const Incident::Span*, std::pair<const char*, int64_t>> spans[] = {
      {&in.op, {"HCCL_EXEC_TIMEOUT", r.exec_timeout_s}},
      {&in.link, {"HCCL_CONNECT_TIMEOUT", r.connect_timeout_s}}};
  for (const auto& [span, what] : spans) {
    if (!span->first || !span->last || *span->last - *span->first <= what.second * kSec) continue;
    const HitR& h = *span->last_hit;
    Candidate k;
    k.rule = "late-arrival";
    k.host = h.host;
    k.pid = h.pid;
    k.rank = h.rank ? h.rank : rank_of(r, h.host, h.device, h.pid);
    k.lines.push_back(h.as_line("timing"));
    k.text = std::string("all ranks timed out; the last timeout (") + h.host +
             (k.rank ? " rank " + std::to_string(*k.rank) : std::string()) + ") came " +
             fmt_s(*span->last - *span->first) + " after the first, more than " + what.first +
             " (" + std::to_string(what.second) +
             " s): that rank started waiting after the others had given up "
             "(log-formats.md §8.5 steps 4-5)";
    k.confidence = 0.6;
    return k;
  }
  return std::nullopt;
}

std::optional<Candidate> rule_link_target(Ctx& c, const FleetResult& r) {
  std::map<std::string, int> targets;  // "ip/rank" -> reports
  std::set<std::string> waiting;       // "ip/rank" of the sides that waited
  std::map<std::string, const HitR*> sample;
  for (const auto& h : c.of("hccl.link_error_info")) {
    if (h.c("status").find("time") == std::string::npos) continue;
    const std::string t = h.c("dest_ip") + "/" + h.c("dest_rank");
    targets[t]++;
    sample.emplace(t, &h);
    waiting.insert(h.c("src_ip") + "/" + h.c("src_rank"));
  }
  for (const auto& h : c.of("hccl.transport_init_error")) {
    const std::string t = h.c("remote_ip") + "/" + h.c("remote_rank");
    targets[t]++;
    sample.emplace(t, &h);
  }
  for (const auto& h : c.of("hccl.connect_detect_result")) {
    const std::string t = h.c("dst_server") + "/dev" + h.c("dst_device");
    targets[t]++;
    sample.emplace(t, &h);
    waiting.insert(h.c("src_server") + "/dev" + h.c("src_device"));
  }
  if (targets.empty()) return std::nullopt;
  std::string best;
  int n = -1;
  for (const auto& [t, k] : targets) {
    const bool waits = waiting.count(t) != 0;
    const int score = k * 2 + (waits ? 0 : 1);
    if (score > n) {
      n = score;
      best = t;
    }
  }
  Candidate k;
  k.rule = "link-wait-target";
  const auto slash = best.rfind('/');
  k.ip = best.substr(0, slash);
  const std::string id = best.substr(slash + 1);
  if (id.rfind("dev", 0) == 0)
    k.device = to_i64(id.substr(3));
  else
    k.rank = to_i64(id);
  k.host = host_of_ip(c, k.ip).first;
  if (k.host.empty()) k.host = host_by_own_logs(c, k.ip);
  if (k.host.empty() && k.rank)
    if (const auto* fr = find_rank(r, *k.rank)) k.host = fr->host;
  k.lines.push_back(sample[best]->as_line("broadcast"));
  k.text = std::to_string(targets[best]) + " link-setup timeout report(s) point at " + best +
           (waiting.count(best) ? "" : ", which reports no link timeout of its own") +
           ": follow CONNECT TIMEOUT DETECT RESULT / remoteIpAddr hop by hop (log-formats.md §8.5 "
           "step 5)";
  k.confidence = waiting.count(best) ? 0.5 : 0.6;
  return k;
}

std::optional<Candidate> rule_roce(const Ctx& c, const FleetResult& r) {
  const HitR* first = nullptr;
  std::optional<int64_t> tf;
  std::set<std::string> hosts;
  for (const auto& h : c.of("hccl.roce_error_cqe")) {
    hosts.insert(h.host);
    const std::optional<int64_t> t =
        h.t ? std::optional<int64_t>(c.to_fleet(h.host, *h.t)) : std::nullopt;
    if (!first || (t && (!tf || *t < *tf))) {
      first = &h;
      tf = t;
    }
  }
  if (!first) return std::nullopt;
  Candidate k;
  k.rule = "roce-cqe";
  k.host = first->host;
  k.rank = first->rank ? first->rank : rank_of(r, first->host, first->device, first->pid);
  const std::string status = first->c("cqe_status");
  const std::string remote = bracket_value(first->text, "remote rank [");
  k.lines.push_back(first->as_line("culprit"));
  k.text =
      "RoCE error CQE" + (status.empty() ? std::string() : " (cqe error status " + status + ")") +
      " first on " + first->host + " (" + std::to_string(hosts.size()) +
      " host(s) report CQE errors)" +
      (status == "12"
           ? ": status 12 = retransmission retries exceeded, a link/switch problem between the "
             "two ends"
           : "") +
      (remote.empty() ? "" : "; remote rank " + remote);
  k.confidence = 0.5;
  return k;
}

std::optional<Candidate> rule_silent(const Ctx& c, const FleetResult& r, const Incident& in) {
  if (in.errors_per_host.empty()) return std::nullopt;
  std::vector<const FleetRank*> silent;
  for (const auto& fr : r.ranks) {
    if (!fr.pid) continue;
    if (in.erring_pids.count({fr.host, *fr.pid}) != 0) continue;
    // any error of that process at all (a device fault is not silence)
    bool erred = false;
    auto bit = c.host_bundles.find(fr.host);
    if (bit != c.host_bundles.end())
      for (int64_t b : bit->second) {
        Stmt st(c.db,
                "SELECT 1 FROM events WHERE bundle_id = ? AND host = ? AND pid = ? AND sev_rank >= "
                "4 LIMIT 1");
        st.bind(1, b).bind(2, std::string_view(fr.host)).bind(3, *fr.pid);
        if (st.step()) erred = true;
      }
    if (!erred) silent.push_back(&fr);
  }
  if (silent.empty() || silent.size() * 2 >= r.ranks.size()) return std::nullopt;
  Candidate k;
  k.rule = "silent-rank";
  k.host = silent.front()->host;
  k.rank = silent.front()->rank;
  k.device = silent.front()->device;
  k.pid = silent.front()->pid;
  std::string list;
  for (size_t i = 0; i < silent.size() && i < 8; ++i)
    list += (i ? ", " : "") + silent[i]->host + "/rank " + std::to_string(silent[i]->rank);
  if (silent.size() > 8) list += ", ...";
  k.text =
      std::to_string(silent.size()) +
      " communicator member(s) logged no error while the others failed (" + list +
      "): a member with no error at all never issued the collective (log-formats.md §8.5 step 4)";
  k.confidence = silent.size() == 1 ? 0.6 : 0.4;
  return k;
}

std::optional<Candidate> rule_earliest(const Ctx& c, const FleetResult& r, bool hccl) {
  struct Row {
    std::string host, file, text, quality, sig, finding;
    int64_t line = 0, t = 0, fleet = 0, bundle = 0;
  };
  std::optional<Row> best;
  std::optional<Row> second;
  for (int64_t b : c.bundles) {
    Stmt st(c.db,
            "SELECT host, time_ns, time_quality, COALESCE(member, ''), COALESCE(line, 0), text, "
            "COALESCE(signature, ''), "
            "COALESCE(finding, '') FROM timeline WHERE bundle_id = ? AND role = 'first_failure' "
            "AND time_ns IS NOT NULL ORDER BY time_ns, ord");
    st.bind(1, b);
    std::set<std::string> seen;
    while (st.step()) {
      Row x;
      x.host = st.str(0);
      if (!seen.insert(x.host).second) continue;
      x.t = st.i64(1);
      x.quality = st.str(2);
      x.file = st.str(3);
      x.line = st.i64(4);
      x.text = clip(st.str(5));
      x.sig = st.str(6);
      x.finding = st.str(7);
      x.bundle = b;
      x.fleet = c.to_fleet(x.host, x.t);
      auto less = [](const Row& a, const Row& b2) {
        return a.fleet != b2.fleet ? a.fleet < b2.fleet : a.host < b2.host;
      };
      if (!best || less(x, *best)) {
        if (best && best->host != x.host) second = best;
        best = x;
      } else if (x.host != best->host && (!second || less(x, *second))) {
        second = x;
      }
    }
  }
  if (!best) return std::nullopt;
  Candidate k;
  k.rule = "earliest-first-failure";
  k.host = best->host;
  FleetLine l;
  l.host = best->host;
  l.file = best->file;
  l.line = best->line;
  l.text = best->text;
  l.signature = best->sig;
  l.finding = best->finding;
  l.quality = best->quality;
  l.time_ns = best->t;
  l.role = "culprit";
  k.lines.push_back(l);
  {
    Stmt st(c.db,
            "SELECT e.rank, e.device, e.pid FROM events e JOIN members m ON m.id = e.member_id "
            "WHERE m.bundle_id = ? "
            "AND m.path = ? AND e.line = ? ORDER BY e.id LIMIT 1");
    st.bind(1, best->bundle).bind(2, std::string_view(best->file)).bind(3, best->line);
    if (st.step()) {
      if (!st.null(0) && st.i64(0) >= 0) k.rank = st.i64(0);
      k.device = st.opt_i64(1);
      k.pid = st.opt_i64(2);
    }
  }
  if (!k.rank) k.rank = rank_of(r, k.host, k.device, k.pid);
  k.text = std::string(hccl ? "no rule of log-formats.md §8.5 applies (no heartbeat report, no "
                              "distinct first error, "
                              "no late rank, no link target, no silent rank); "
                            : "") +
           "earliest first failure of the per-host timelines: " + best->host + " at " +
           sentence_time(best->fleet, best->quality) + " (fleet clock)" +
           (second ? "; next: " + second->host + " " + fmt_s(second->fleet - best->fleet) + " later"
                   : std::string());
  k.confidence = (second && second->fleet - best->fleet > kSec) || !second ? 0.5 : 0.4;
  if (hccl) k.confidence -= 0.1;
  if (r.hosts.size() > 1 && r.reference.empty()) k.confidence -= 0.1;
  k.own = std::nullopt;
  return k;
}

}  // namespace faultline::correlate::fleet
