// The culprit's evidence, its node root cause and what it explains.
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
// Assembling the result

void culprit_evidence(const Ctx& c, const FleetResult& r, const Incident& in, Candidate& k,
                      FleetFirstFailure& ff) {
  std::set<std::pair<std::string, int64_t>> seen;
  auto push = [&](FleetLine l) {
    if (!seen.insert({l.host + "\n" + l.file, l.line}).second) return;
    ff.evidence.push_back(std::move(l));
  };
  // Rules that found the failing line themselves (timeline first failure, first CQE error):
  // that line is the time; otherwise the host's own first fault in the incident is.
  const bool rule_line =
      (k.rule == "earliest-first-failure" || k.rule == "roce-cqe" || k.rule == "earliest-fault") &&
      !k.lines.empty();
  if (rule_line) {
    ff.time_ns = k.lines.front().time_ns;
    ff.quality = k.lines.front().quality;
    for (auto& l : k.lines) push(l);
  }
  if (k.host.empty()) {
    for (auto& l : k.lines) push(l);
    return;
  }
  if (!rule_line) {
    const int64_t from = in.start ? c.to_host(k.host, *in.start) : INT64_MIN;
    const int64_t to = in.detect ? c.to_host(k.host, *in.detect + 5 * kSec) : INT64_MAX;
    auto ev = host_errors(c, k.host, from, to, 200);
    // the host's own faults, the culprit device/pid/rank first
    auto mine = [&](const EventR& e) {
      return (k.device && e.device && *e.device == *k.device) ||
             (k.pid && e.pid && *e.pid == *k.pid) || (k.rank && e.rank && *e.rank == *k.rank);
    };
    std::vector<EventR> own;
    for (const auto& e : ev)
      if (e.fault() && mine(e)) own.push_back(e);
    if (own.empty())
      for (const auto& e : ev)
        if (e.fault()) own.push_back(e);
    if (!own.empty()) {
      const EventR& f = own.front();
      k.own = f;
      ff.time_ns = f.t;
      ff.quality = f.quality;
      if (!k.device && f.device) k.device = f.device;
      if (!k.rank) k.rank = f.rank ? f.rank : rank_of(r, k.host, f.device, f.pid);
    }
    for (size_t i = 0; i < own.size() && i < 4; ++i) push(own[i].as_line("culprit"));
    for (auto& l : k.lines) push(l);
  }
  // corroboration on the device clock, and untimed stdout lines of the rank
  const bool zone_known = ff.quality == "local" || ff.quality == "exact";
  size_t added = 0;
  for (const auto& e : host_device_faults(c, k.host, k.device, k.rank, ff.time_ns, zone_known)) {
    if (added >= 4) break;
    const size_t before = ff.evidence.size();
    push(e.as_line("corroboration"));
    if (ff.evidence.size() > before) ++added;
  }
}

void broadcast_evidence(const Ctx& c, const Candidate& k, FleetFirstFailure& ff) {
  if (k.rule != "heartbeat-broadcast") return;
  const std::string key = k.ip + (k.rank ? "/" + std::to_string(*k.rank) : "");
  std::map<std::string, const HitR*> per_host;
  for (const auto* sig : {"hccl.heartbeat_abnormal", "hccl.heartbeat_crimer"})
    for (const auto& h : c.of(sig)) {
      const std::string loc =
          h.c(std::string(sig) == "hccl.heartbeat_abnormal" ? "location" : "crimer");
      if (loc != key) continue;
      auto it = per_host.find(h.host);
      if (it == per_host.end() || (h.t && (!it->second->t || *h.t < *it->second->t)))
        per_host[h.host] = &h;
    }
  size_t n = 0;
  for (const auto& [host, h] : per_host) {
    if (n++ >= kMaxBroadcastLines) break;
    ff.evidence.push_back(h->as_line("broadcast"));
  }
  // the roster line that names the culprit's address on its host
  for (const auto& h : c.of("hccl.local_rank_info"))
    if (h.host == k.host && h.c("host_ip") == k.ip &&
        (!k.rank || to_i64(h.c("user_rank")) == k.rank)) {
      ff.evidence.push_back(h.as_line("roster"));
      break;
    }
}

void root_cause_of(const Ctx& c, FleetFirstFailure& ff) {
  auto it = c.host_bundles.find(ff.host);
  if (it == c.host_bundles.end()) return;
  for (int64_t b : it->second) {
    Stmt st(c.db,
            "SELECT finding, title, confidence FROM findings WHERE bundle_id = ? AND host = ? AND "
            "kind = 'root_cause' "
            "ORDER BY rank, finding LIMIT 1");
    st.bind(1, b).bind(2, std::string_view(ff.host));
    if (st.step() && (ff.root_cause.empty() || st.dbl(2) > ff.root_cause_confidence)) {
      ff.root_cause = st.str(0);
      ff.root_cause_title = st.str(1);
      ff.root_cause_confidence = st.dbl(2);
    }
  }
}

void explains_of(const Ctx& c, const Incident& in, FleetFirstFailure& ff) {
  std::set<std::string> hosts, symptoms;
  for (const auto& [h, n] : in.errors_per_host)
    if (n > 0) hosts.insert(h);
  std::set<std::string> cause_explains;
  {
    auto it = c.host_bundles.find(ff.host);
    if (it != c.host_bundles.end() && !ff.root_cause.empty())
      for (int64_t b : it->second) {
        Stmt st(c.db,
                "SELECT explains FROM findings WHERE bundle_id = ? AND host = ? AND finding = ?");
        st.bind(1, b).bind(2, std::string_view(ff.host)).bind(3, std::string_view(ff.root_cause));
        while (st.step()) {
          const auto j = J::parse(st.str(0), nullptr, false);
          if (j.is_array())
            for (const auto& x : j)
              if (x.is_string()) cause_explains.insert(x.get<std::string>());
        }
      }
  }
  for (const auto& h : hosts) {
    auto it = c.host_bundles.find(h);
    if (it == c.host_bundles.end()) continue;
    for (int64_t b : it->second) {
      Stmt st(c.db,
              "SELECT DISTINCT finding FROM findings WHERE bundle_id = ? AND host = ? AND kind = "
              "'symptom'");
      st.bind(1, b).bind(2, std::string_view(h));
      while (st.step()) {
        const std::string s = st.str(0);
        if (s.rfind("hccl.", 0) == 0 || cause_explains.count(s) != 0) symptoms.insert(s);
      }
    }
  }
  // only hosts that are not culprits themselves; a deadlock or a missing root explains nothing
  hosts.erase(ff.host);
  for (const auto& u : ff.culprits) hosts.erase(u.host);
  if (ff.no_single_root || (ff.host.empty() && ff.culprits.empty())) hosts.clear();
  ff.explains_hosts.assign(hosts.begin(), hosts.end());
  ff.explains_symptoms.assign(symptoms.begin(), symptoms.end());
}

std::string group_of(const Ctx& c) {
  std::map<std::string, int> g;
  for (const auto& h : c.of("hccl.task_failed_group_rank")) g[h.c("group")]++;
  if (g.empty())
    for (const auto& h : c.of("hccl.comm_init_entry")) g[h.c("identifier")]++;
  std::string best;
  int n = 0;
  for (const auto& [k, v] : g)
    if (v > n && !k.empty()) {
      n = v;
      best = k;
    }
  return best;
}

}  // namespace faultline::correlate::fleet
