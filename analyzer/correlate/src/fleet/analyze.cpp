// Fleet correlation (docs/fleet.md): which host/rank of a multi-node job failed first.
//
// Inputs are the per-bundle rows a merged database already holds (signature hits with their
// captures, events, clocks, findings, timeline). The steps live in their own files (see
// internal.hpp): roster, wait graph, clock offsets, incident, rules, decision procedure, evidence.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "faultline/core/time.hpp"
#include "internal.hpp"

namespace faultline::correlate {

namespace {

// A time in a summary sentence (docs/report.md "Times"): UTC with its quality, or the wall time
// of a host whose zone nothing states, never with "Z".
std::string honest_time(int64_t ns, const std::string& quality, bool say_quality = true) {
  std::string t = fleet::sentence_time(ns, quality);
  return say_quality && quality != "assumed_utc" ? t + " (" + quality + ")" : t;
}

// ascend-fd's root-cluster decision code for the same decision (docs/fleet.md, table "ascend-fd
// decision codes"); none for faultline's own rules.
std::optional<int64_t> vendor_code(const fleet::Candidate& k) {
  static const std::map<std::string, int64_t> fixed = {
      {"errors-without-timeout", 101}, {"first-error-not-timeout", 113},
      {"link-setup-chain", 108},       {"tls-switch-different", 120},
      {"root-info-unconnected", 121},  {"mindie-pull-kv", 129},
      {"lagging-report", 130},         {"mindie-link", 131}};
  if (auto it = fixed.find(k.rule); it != fixed.end()) return it->second;
  if (k.rule == "transport-init-chain") return k.no_single_root ? 133 : 132;
  if (k.rule == "notify-wait-chain" && k.no_single_root) return 124;
  // the root-info host (collected or not); not the branch naming silent members
  if (k.rule == "root-info-init" && (k.no_single_root || !k.ip.empty())) return 118;
  return std::nullopt;
}

// "1 h 02 min", "12 min 05 s", "3.2 s"
std::string span_words(int64_t ns) {
  const int64_t s = ns / 1'000'000'000;
  char b[64];
  if (s >= 3600)
    std::snprintf(b, sizeof b, "%lld h %02lld min", static_cast<long long>(s / 3600),
                  static_cast<long long>(s % 3600 / 60));
  else if (s >= 60)
    std::snprintf(b, sizeof b, "%lld min %02lld s", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  else
    std::snprintf(b, sizeof b, "%.1f s", static_cast<double>(ns) / 1e9);
  return b;
}

}  // namespace

using namespace fleet;  // NOLINT(google-build-using-namespace): this file composes its steps

FleetResult analyze_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids) {
  Ctx c;
  c.db = db;
  c.bundles = bundle_ids;
  std::sort(c.bundles.begin(), c.bundles.end());
  c.bundles.erase(std::unique(c.bundles.begin(), c.bundles.end()), c.bundles.end());
  FleetResult r;
  r.bundle_ids = c.bundles;
  load_hosts(c);
  load_hits(c);
  load_first_errors(c);
  for (const auto& [host, bs] : c.host_bundles) {
    FleetHost fh;
    fh.host = host;
    fh.bundle_id = bs.front();
    r.hosts.push_back(std::move(fh));
  }
  attach_timeouts(c, r);
  build_roster(c, r);
  const Roster ro = build_identities(c);
  merge_identities(ro, r);
  for (const auto& d : ro.duplicates) c.notes.push_back("duplicated identity: " + d);
  const WaitGraph waits = build_waits(c, ro);
  for (auto& fh : r.hosts) {
    std::set<int64_t> rk;
    for (const auto& fr : r.ranks)
      if (fr.host == fh.host) rk.insert(fr.rank);
    fh.ranks.assign(rk.begin(), rk.end());
    for (const auto& [ip, hs] : c.ip_source) {
      auto it = hs.find(fh.host);
      if (it != hs.end()) fh.ips.push_back({ip, it->second});
    }
    std::sort(fh.ips.begin(), fh.ips.end(), [](const FleetIp& a, const FleetIp& b) {
      return source_strength(a.source) != source_strength(b.source)
                 ? source_strength(a.source) < source_strength(b.source)
                 : a.ip < b.ip;
    });
  }
  estimate_offsets(c, r);
  r.faults = load_fleet_faults(db, c.bundles);
  const Incident in = find_incident(c, r.exec_timeout_s);
  fill_first_errors(c, r, in);

  std::vector<Candidate> found;
  if (auto k = decide_first(c, r, ro)) found.push_back(*k);
  if (in.hccl) {
    if (found.empty())
      if (auto k = rule_roce(c, r)) found.push_back(*k);
    if (auto k = rule_heartbeat(c, r, ro)) found.push_back(*k);
    if (auto k = decide(c, r, in, ro, waits)) found.push_back(*k);
    if (auto k = rule_different_first(c, r)) found.push_back(*k);
    if (auto k = rule_late_arrival(c, r, in)) found.push_back(*k);
    if (auto k = rule_link_target(c, r)) found.push_back(*k);
    if (auto k = rule_silent(c, r, in)) found.push_back(*k);
  } else if (found.empty() && ro.procs.size() >= 2) {
    // an HCCL job (a roster) whose errors are none of HCCL's: the decision's "no timeout" steps
    if (auto k = decide(c, r, in, ro, waits)) found.push_back(*k);
  }
  if (auto k = rule_earliest(c, r, in.hccl)) found.push_back(*k);

  // MindIE PD link errors add their devices to the answer, or are the answer when no rule found
  // one
  bool mindie_done = false;
  if (found.empty()) {
    Candidate m;
    m.no_single_root = true;
    mindie_links(c, ro, m);
    if (!m.culprits.empty()) found.push_back(std::move(m));
    mindie_done = true;
  }
  // no rule decided: the earliest fault event of a cause class (docs/fleet.md "Fault events").
  // Outside an HCCL incident, an earliest first failure that is only a node's own fault line
  // (a host without symptoms fails first at its earliest fault line) is decided the same way:
  // by the fault ranking, cause class before time, not by time alone.
  const bool fault_lines_only =
      !in.hccl && found.size() == 1 && found.front().rule == "earliest-first-failure" &&
      std::all_of(found.front().lines.begin(), found.front().lines.end(),
                  [](const FleetLine& l) { return l.finding.rfind("fault.", 0) == 0; });
  if (found.empty() || fault_lines_only)
    if (auto k = rule_earliest_fault(r)) {
      found.clear();
      found.push_back(std::move(*k));
    }
  if (!found.empty()) {
    Candidate k = found.front();
    if (!mindie_done) mindie_links(c, ro, k);
    FleetFirstFailure ff;
    ff.host = k.host;
    ff.rule = k.rule;
    ff.group = group_of(c);
    culprit_evidence(c, r, in, k, ff);
    broadcast_evidence(c, k, ff);
    ff.rank = k.rank;
    ff.device = k.device;
    ff.ip = k.ip;
    ff.culprits = k.culprits;
    ff.chain = k.chain;
    ff.no_single_root = k.no_single_root;
    ff.reason = k.reason;
    ff.cycle = k.cycle;
    ff.vendor_code = vendor_code(k);
    ff.logic_device = k.logic_device;
    ff.device_ip = k.device_ip;
    if (ff.culprits.empty() && !ff.no_single_root) {
      FleetCulprit one;
      one.host = k.host;
      one.rank = k.rank;
      one.device = k.device;
      one.logic_device = k.logic_device;
      one.device_ip = k.device_ip;
      one.pid = k.pid;
      if (k.host.empty()) one.address = k.ip;
      ff.culprits.push_back(std::move(one));
    }
    if (ff.ip.empty() && !k.host.empty()) {
      auto it = std::find_if(r.hosts.begin(), r.hosts.end(),
                             [&](const FleetHost& h) { return h.host == k.host; });
      if (it != r.hosts.end() && !it->ips.empty()) ff.ip = it->ips.front().ip;
    }
    if (!ff.time_ns) {
      // no fault line of its own: the rule's line, else the earliest report naming it
      for (const auto& l : ff.evidence)
        if (l.time_ns && (!ff.time_ns || *l.time_ns < *ff.time_ns) && l.host == k.host) {
          ff.time_ns = l.time_ns;
          ff.quality = l.quality;
        }
    }
    if (ff.time_ns && !k.host.empty()) ff.fleet_ns = c.to_fleet(k.host, *ff.time_ns);
    auto bit = c.host_bundles.find(k.host);
    if (bit != c.host_bundles.end()) ff.bundle_id = bit->second.front();
    ff.confidence = k.confidence;
    if (k.rule == "heartbeat-broadcast" && k.own) ff.confidence += 0.1;
    if (k.rule == "heartbeat-broadcast" && !k.own) ff.confidence -= 0.05;
    // another rule pointing at the same host agrees; at a different host it is a suspect
    for (size_t i = 1; i < found.size(); ++i) {
      const auto& o = found[i];
      if (o.rule == "earliest-first-failure" && k.rule != "earliest-first-failure") continue;
      const bool same = !k.no_single_root
                            ? (o.host == k.host && (!o.rank || !k.rank || *o.rank == *k.rank)) ||
                                  std::any_of(k.culprits.begin(), k.culprits.end(),
                                              [&](const FleetCulprit& u) {
                                                return !u.host.empty() && u.host == o.host &&
                                                       (!o.rank || !u.rank || *o.rank == *u.rank);
                                              })
                            : o.no_single_root;
      if (same) {
        ff.confidence += 0.05;
        ff.agreed.push_back(o.rule);
        continue;
      }
      ff.disagreed.push_back(o.rule);
      r.suspects.push_back({o.host, o.rule, o.text, o.rank});
    }
    ff.confidence = std::clamp(std::round(ff.confidence * 100.0) / 100.0, 0.05, 0.95);
    ff.rule_text = k.text;
    root_cause_of(c, ff);
    explains_of(c, in, ff);
    std::string who = k.host.empty() ? "an address outside the fleet (" + k.ip + ")" : k.host;
    if (k.rank) who += " rank " + std::to_string(*k.rank);
    if (k.device) who += " (device " + std::to_string(*k.device) + ")";
    if (k.culprits.size() > 1) {
      who.clear();
      for (const auto& u : k.culprits) {
        std::string one = u.host.empty() ? u.address : u.host;
        if (u.rank) one += " rank " + std::to_string(*u.rank);
        if (u.device) one += " (device " + std::to_string(*u.device) + ")";
        who += (who.empty() ? "" : " and ") + one;
      }
    }
    if (k.rule == "earliest-fault") who = k.host;
    ff.summary = k.no_single_root
                     ? "No single root: " + k.reason + "."
                     : who + (k.culprits.size() > 1 ? " failed together" : " failed first") +
                           (ff.time_ns ? " at " + honest_time(*ff.time_ns, ff.quality) : "") +
                           ", by " + k.rule + ".";
    if (k.rule == "earliest-fault" && !r.faults.empty()) {
      // the fault event itself is the answer: name it, not "failed first"
      ff.summary = k.host + ": " + k.text.substr(k.text.find("; ") + 2) +
                   (ff.time_ns ? ", first at " + honest_time(*ff.time_ns, ff.quality, false) : "") +
                   ".";
    }
    if (k.own)
      ff.summary += " Its own first fault: " + k.own->main_sig() + " (" + k.own->file + ":" +
                    std::to_string(k.own->line) + ").";
    if (!ff.root_cause.empty()) ff.summary += " Node root cause: " + ff.root_cause + ".";
    if (!ff.explains_hosts.empty())
      ff.summary += " The collective errors on " + std::to_string(ff.explains_hosts.size()) +
                    " other host(s) are its consequence.";
    // the first-erroring host is not the root: say so beside the answer (a different failure
    // when it came more than HCCL_EXEC_TIMEOUT earlier)
    if (!k.no_single_root && k.rule != "earliest-fault") {
      const FleetHost* first = nullptr;
      for (const auto& h : r.hosts)
        if (h.first_fleet_ns && (!first || *h.first_fleet_ns < *first->first_fleet_ns)) first = &h;
      const bool culprit_host =
          first && (first->host == k.host ||
                    std::any_of(k.culprits.begin(), k.culprits.end(),
                                [&](const FleetCulprit& u) { return u.host == first->host; }));
      if (first && !culprit_host) {
        ff.summary += " First error on " + first->host + " at " +
                      fleet::sentence_time(*first->first_fleet_ns,
                                           first->first ? first->first->quality : std::string());
        // the root's own time, else its host's first error of the incident
        std::optional<int64_t> root_t = ff.fleet_ns;
        for (const auto& h : r.hosts)
          if (!root_t && h.host == k.host && h.first_fleet_ns) root_t = h.first_fleet_ns;
        if (root_t && *first->first_fleet_ns < *root_t) {
          const int64_t gap = *root_t - *first->first_fleet_ns;
          ff.summary +=
              ", " + span_words(gap) + " earlier" +
              (gap > r.exec_timeout_s * kSec ? ": a different failure, see its node report."
                                             : ", before the root's own line.");
        } else {
          ff.summary += ": not the root, see its node report.";
        }
      }
    }
    // the finding of the line's own bundle that cites it (per-node diagnosis), when there is one
    for (auto& l : ff.evidence) {
      if (!l.finding.empty() || l.host.empty() || l.file.empty()) continue;
      auto hb = c.host_bundles.find(l.host);
      if (hb == c.host_bundles.end()) continue;
      for (int64_t b : hb->second) {
        Stmt st(
            db,
            "SELECT f.finding FROM finding_evidence fe JOIN findings f ON f.id = fe.finding_id "
            "WHERE f.bundle_id = ? "
            "AND f.host = ? AND fe.member = ? AND fe.line = ? ORDER BY f.rank, f.finding LIMIT 1");
        st.bind(1, b)
            .bind(2, std::string_view(l.host))
            .bind(3, std::string_view(l.file))
            .bind(4, l.line);
        if (st.step()) {
          l.finding = st.str(0);
          break;
        }
      }
    }
    r.first_failure = std::move(ff);
  }
  if (in.hccl) {
    // ranks announced by the communicator but logged by no bundle
    int64_t size = 0;
    for (const auto& h : c.of("hccl.comm_init_entry"))
      if (auto n = to_i64(h.c("ranks"))) size = std::max(size, *n);
    std::set<int64_t> known;
    for (const auto& fr : r.ranks) known.insert(fr.rank);
    if (size > 0 && static_cast<int64_t>(known.size()) < size)
      c.notes.push_back(std::to_string(size - static_cast<int64_t>(known.size())) + " of " +
                        std::to_string(size) +
                        " ranks of the communicator appear in no bundle of the fleet (their nodes' "
                        "logs are missing)");
    for (const auto& fh : r.hosts)
      if (fh.silent)
        r.suspects.push_back({fh.host, "silent-rank",
                              fh.host + " holds communicator ranks and logged no error while "
                                        "others failed",
                              std::nullopt});
  }
  // addresses, including those the rules resolved from the hosts' own logs
  for (auto& fh : r.hosts) {
    fh.ips.clear();
    for (const auto& [ip, hs] : c.ip_source) {
      auto it = hs.find(fh.host);
      if (it != hs.end()) fh.ips.push_back({ip, it->second});
    }
    std::sort(fh.ips.begin(), fh.ips.end(), [](const FleetIp& a, const FleetIp& b) {
      return source_strength(a.source) != source_strength(b.source)
                 ? source_strength(a.source) < source_strength(b.source)
                 : a.ip < b.ip;
    });
  }
  {
    // hosts that say their clock is not synchronized (timedatectl): their order across nodes
    // rests on the offsets of shared events only (docs/fleet.md "Clock offsets")
    std::set<std::string> unsynced;
    Stmt st(c.db,
            "SELECT DISTINCT host FROM facts WHERE bundle_id = ? AND name = "
            "'host.clock_synchronized' AND lower(trim(value)) IN ('no', 'false', '0')");
    for (int64_t b : c.bundles) {
      st.reset();
      st.bind(1, b);
      while (st.step()) unsynced.insert(st.str(0));
    }
    if (!unsynced.empty()) {
      std::vector<std::string> v(unsynced.begin(), unsynced.end());
      if (v.size() > 20) v.resize(20), v.push_back("...");
      c.notes.push_back("no time sync (timedatectl: System clock synchronized: no) on " +
                        std::to_string(unsynced.size()) + " host(s): " + join(v, ", ") +
                        "; their order across nodes rests on the clock offsets of shared events");
    }
  }
  r.notes = c.notes;
  std::sort(r.ranks.begin(), r.ranks.end(), [](const FleetRank& a, const FleetRank& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.host < b.host;
  });
  return r;
}

}  // namespace faultline::correlate
