// The decision procedure of the first failure (docs/fleet.md "Decision procedure"), after the
// RoCE CQE and heartbeat-broadcast rules:
//   1. transport-init chain: `Transport init error` edges followed hop by hop from the
//      first-erroring process; none resolvable -> the collected processes that logged no
//      transport error, else no single root
//   2. by the timeout class of the first-erroring process:
//      root-info init   all members of the communicator failed root-info init -> the root-info
//                       host (no single root when it was not collected); some collected
//                       members silent -> those
//      link setup       every member reported and the reports spread over more than
//                       HCCL_CONNECT_TIMEOUT -> the last reporter; else follow link edges
//      op execution     every member reported, spread > HCCL_EXEC_TIMEOUT -> the last reporter;
//                       collected members that did not report -> those; else follow Notify Wait
//                       edges (a cycle is a deadlock: no single root)
// Following a chain: start at the first-erroring process and follow its edges; a cycle -> every
// member (mutual wait; for Notify Wait a deadlock); an end inside the set -> that process, even one
// that logged nothing; an end outside -> the last process inside and the missing address.
#include <cmath>

#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"
#include "internal.hpp"

namespace faultline::correlate::fleet {

FleetCulprit culprit_of(const Proc& p) {
  FleetCulprit k;
  k.host = p.host;
  k.rank = p.rank;
  k.device = p.phy_dev;
  k.logic_device = p.logic_dev;
  k.device_ip = p.device_ip;
  k.pid = p.pid;
  return k;
}

namespace {

enum class Cls { none, root_init, link, op };

const std::set<std::string>& root_init_sigs() {
  static const std::set<std::string> s = {
      "hccl.comm_init_root_failed",     "hccl.topo_exchange_timeout",
      "hccl.cluster_info_recv_failed",  "hccl.init_group_stage_error",
      "hccl.root_info_connected_ranks", "hccl.root_info_connect_count",
      "hccl.topo_detect_agent_failed",  "hccl.rank_basic_info_failed"};
  return s;
}
const std::set<std::string>& link_sigs() {
  static const std::set<std::string> s = {"hccl.link_error_info",       "hccl.socket_timeout",
                                          "hccl.connect_detect_result", "hccl.p2p_connect_timeout",
                                          "hccl.transport_init_error",  "hccl.socket_recv_failed",
                                          "hccl.rasocket_timeout"};
  return s;
}
const std::set<std::string>& op_sigs() {
  static const std::set<std::string> s = {"hccl.notify_wait_timeout",    "hccl.task_failed_para",
                                          "hccl.task_failed_group_rank", "hccl.task_failed_op_data",
                                          "hccl.fftsplus_timeout",       "hccl.sdma_exception"};
  return s;
}

struct PState {
  std::optional<int64_t> first;  // fleet clock
  const HitR* first_hit = nullptr;
  std::set<std::string> sigs;
  std::optional<int64_t> first_of_class[4];
};

struct Chain {
  std::vector<size_t> path;
  std::vector<size_t> cycle;  // members of the cycle, when it closed
  std::optional<size_t> end;  // the process the chain ended at (inside the set)
  std::string missing;        // awaited address outside the set
  bool local = false;         // ended waiting on its own sub-stream
  std::vector<const WaitEdge*> hops;
};

Chain follow(const Roster& ro, const WaitGraph& g, size_t start,
             const std::set<std::string>& kinds) {
  Chain ch;
  std::map<size_t, size_t> pos;
  size_t cur = start;
  for (size_t guard = 0; guard <= ro.procs.size() + 1; ++guard) {
    pos[cur] = ch.path.size();
    ch.path.push_back(cur);
    auto outs = g.out(cur, kinds);
    if (outs.empty()) {
      ch.end = cur;
      return ch;
    }
    // an edge to a collected process first, then by the awaited address (deterministic)
    std::stable_sort(outs.begin(), outs.end(), [](const WaitEdge* a, const WaitEdge* b) {
      if (a->to.has_value() != b->to.has_value()) return a->to.has_value();
      return a->address < b->address;
    });
    const WaitEdge* e = outs.front();
    ch.hops.push_back(e);
    if (e->local) {
      ch.end = cur;
      ch.local = true;
      return ch;
    }
    if (!e->to) {
      ch.end = cur;
      ch.missing = e->address;
      return ch;
    }
    auto seen = pos.find(*e->to);
    if (seen != pos.end()) {
      ch.cycle.assign(ch.path.begin() + static_cast<std::ptrdiff_t>(seen->second), ch.path.end());
      return ch;
    }
    cur = *e->to;
  }
  ch.end = cur;
  return ch;
}

std::vector<std::string> chain_words(const Roster& ro, const Chain& ch) {
  std::vector<std::string> v;
  for (size_t i : ch.path) v.push_back(ro.procs[i].label());
  if (!ch.cycle.empty()) v.push_back(ro.procs[ch.cycle.front()].label());
  if (!ch.missing.empty()) v.push_back(ch.missing + " (not in the collected set)");
  if (ch.local) v.push_back("its own sub-stream (local)");
  return v;
}

void set_primary(Candidate& k, const Roster& ro, size_t i) {
  const Proc& p = ro.procs[i];
  k.host = p.host;
  k.rank = p.rank;
  k.device = p.phy_dev ? p.phy_dev : p.logic_dev;
  k.logic_device = p.logic_dev;
  k.device_ip = p.device_ip;
  k.pid = p.pid;
  k.ip = !p.device_ip.empty() ? p.device_ip : p.server_ip;
}

void add_culprits(Candidate& k, const Roster& ro, std::vector<size_t> ids) {
  std::sort(ids.begin(), ids.end(), [&](size_t a, size_t b) {
    const auto& x = ro.procs[a];
    const auto& y = ro.procs[b];
    return std::tie(x.rank, x.host, x.pid) < std::tie(y.rank, y.host, y.pid);
  });
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (size_t i : ids) k.culprits.push_back(culprit_of(ro.procs[i]));
  if (!ids.empty()) set_primary(k, ro, ids.front());
}

// Candidate from a followed chain. `cycle_is_deadlock`: a closed Notify Wait cycle has no exit.
Candidate from_chain(const Roster& ro, const Chain& ch, const std::string& rule,
                     const std::string& what, bool cycle_is_deadlock) {
  Candidate k;
  k.rule = rule;
  k.chain = chain_words(ro, ch);
  for (const auto* e : ch.hops)
    if (e->hit) k.lines.push_back(e->hit->as_line("chain"));
  const std::string path = join(k.chain, " -> ");
  if (!ch.cycle.empty()) {
    std::vector<std::string> members;
    for (size_t i : ch.cycle) members.push_back(ro.procs[i].label());
    if (cycle_is_deadlock) {
      k.no_single_root = true;
      k.reason = "the " + what + " edges form a cycle with no exit (" + join(members, ", ") +
                 "): a deadlock, no single rank is to blame";
      k.text = what + " chain " + path + ": " + k.reason;
      k.confidence = 0.6;
      add_culprits(k, ro, {});
      return k;
    }
    add_culprits(k, ro, ch.cycle);
    k.text = what + " chain " + path +
             ": the ranks wait on each other (mutual wait), each is a "
             "root";
    k.confidence = 0.65;
    return k;
  }
  add_culprits(k, ro, {*ch.end});
  if (!ch.missing.empty()) {
    k.text = what + " chain " + path + ": it ends at " + ch.missing +
             ", which no collected bundle holds; " + ro.procs[*ch.end].label() +
             " is the last rank inside the set (collect the logs of " + ch.missing + ")";
    k.confidence = 0.55;
    return k;
  }
  if (ch.local) {
    k.text = what + " chain " + path + ": the rank waited on its own sub-stream";
    k.confidence = 0.65;
    return k;
  }
  k.text = what + " chain " + path + ": the chain ends at " + ro.procs[*ch.end].label() +
           ", which waits on nobody" + (ch.path.size() > 1 ? " (it is where the others wait)" : "");
  k.confidence = ch.path.size() > 1 ? 0.75 : 0.5;
  return k;
}

// Processes of the communicator `group` (or of the main one) known to the roster.
std::vector<size_t> members_of(const Roster& ro, const std::string& group) {
  std::vector<size_t> v;
  for (size_t i = 0; i < ro.procs.size(); ++i)
    if (ro.procs[i].rank_in.count(group) != 0) v.push_back(i);
  return v;
}

std::optional<Candidate> decide_cqe(const Ctx& c, const Roster& ro) {
  // links source process -> remote end of every error CQE that names its remote address
  std::vector<std::pair<size_t, std::string>> links;  // (source, target label)
  std::map<std::string, std::optional<size_t>> target_proc;
  std::vector<FleetLine> lines;
  for (const auto& h : c.of("hccl.roce_error_cqe")) {
    const std::string ip = h.c("remote_ip");
    const auto from = ro.find(h.host, h.pid);
    if (ip.empty() || !from || h.sev < 4) continue;
    const auto to = ro.by_device_ip(ip);
    const std::string label = to ? ro.procs[*to].label() : ip;
    target_proc[label] = to;
    if (std::find(links.begin(), links.end(), std::make_pair(*from, label)) == links.end()) {
      links.emplace_back(*from, label);
      if (lines.size() < 8) lines.push_back(h.as_line("culprit"));
    }
  }
  if (links.empty()) return std::nullopt;
  std::set<std::string> sources, targets;
  std::map<std::string, int> in_deg;
  for (const auto& [f, t] : links) {
    sources.insert(ro.procs[f].label());
    targets.insert(t);
    in_deg[t]++;
  }
  Candidate k;
  k.rule = "roce-cqe";
  k.lines = lines;
  std::optional<std::string> common;
  if (links.size() > 1 && sources != targets) {
    std::string top;
    int n = -1;
    for (const auto& [t, d] : in_deg)
      if (d > n) {
        n = d;
        top = t;
      }
    std::set<std::string> others;
    for (const auto& [f, t] : links)
      if (ro.procs[f].label() != top) others.insert(t);
    if (others.size() == 1 && *others.begin() == top && target_proc[top]) common = top;
  }
  if (common) {
    add_culprits(k, ro, {*target_proc[*common]});
    k.text = std::to_string(links.size()) + " RoCE error CQE link(s) all point at " + *common +
             ": the common remote end is the root (a link or switch fault towards it)";
    k.confidence = 0.65;
    return k;
  }
  std::vector<size_t> all;
  std::vector<std::string> unknown;
  for (const auto& [f, t] : links) {
    all.push_back(f);
    if (target_proc[t])
      all.push_back(*target_proc[t]);
    else
      unknown.push_back(t);
  }
  add_culprits(k, ro, all);
  k.text = std::to_string(links.size()) +
           " RoCE error CQE link(s) with no single common remote end: every device on them is a "
           "suspect" +
           (unknown.empty() ? std::string()
                            : " (remote ends outside the set: " + join(unknown, ", ") + ")");
  k.confidence = 0.5;
  return k;
}

std::optional<Candidate> decide_no_error(const Ctx& c, const FleetResult& r, const Roster& ro) {
  const bool hccl_job = std::any_of(ro.procs.begin(), ro.procs.end(),
                                    [](const Proc& p) { return p.rank.has_value(); });
  const bool any_error = std::any_of(r.hosts.begin(), r.hosts.end(),
                                     [](const FleetHost& h) { return h.first.has_value(); });
  if (!hccl_job || any_error) return std::nullopt;
  for (const auto& [sig, hs] : c.hits)  // device-side lines are on the device's clock
    if (hccl_error_signature(sig))
      for (const auto& h : hs)
        if (h.sev >= 4) return std::nullopt;
  // A hang before any timeout: the runtime of a process waiting on a task reports
  // `ReportTimeoutProc: report timeout` again and again; the processes whose reports stopped
  // more than 15 minutes before the latest, or that never reported, are behind the others
  // (MindCluster FaultDiag's lagging rule)
  if (const auto& rep = c.of("runtime.report_timeout"); !rep.empty()) {
    std::map<std::pair<std::string, int64_t>, int64_t> last;  // (host, pid) -> fleet time
    std::optional<int64_t> latest;
    for (const auto& h : rep) {
      if (!h.t || !h.pid) continue;
      const int64_t t = c.to_fleet(h.host, *h.t);
      auto [it, fresh] = last.try_emplace({h.host, *h.pid}, t);
      if (!fresh) it->second = std::max(it->second, t);
      latest = latest ? std::max(*latest, t) : t;
    }
    constexpr int64_t kLagNs = 15LL * 60 * 1'000'000'000;
    if (latest) {
      std::vector<size_t> behind;
      for (size_t i = 0; i < ro.procs.size(); ++i) {
        const Proc& p = ro.procs[i];
        if (!p.pid || !p.rank) continue;
        auto it = last.find({p.host, *p.pid});
        if (it == last.end() || it->second < *latest - kLagNs) behind.push_back(i);
      }
      if (!behind.empty()) {
        Candidate k;
        k.rule = "lagging-report";
        std::vector<std::string> names;
        names.reserve(behind.size());
        for (size_t i : behind) names.push_back(ro.procs[i].label());
        k.text =
            "no rank logged an error, but the runtime of the waiting processes kept "
            "reporting task timeouts (`ReportTimeoutProc: report timeout`) up to " +
            format_utc(*latest) + "; " + join(names, ", ") +
            " stopped reporting more than 15 minutes earlier or never reported: behind the "
            "others (hung or slow before the collective)";
        k.confidence = 0.45;
        add_culprits(k, ro, behind);
        return k;
      }
    }
  }
  Candidate k;
  k.rule = "no-error";
  k.no_single_root = true;
  k.reason = "no collected rank logged an error (" + std::to_string(ro.procs.size()) +
             " process(es) on " + std::to_string(r.hosts.size()) +
             " host(s)): a process that exited or hung without a log line, or the logs of the "
             "failing ranks were not collected";
  k.text = k.reason;
  k.confidence = 0.3;
  return k;
}

}  // namespace

namespace {

// Rank ids of a logged list: `[0000000000000002],[0000000000000004]` (root-info server,
// DisplayConnectionedRank), `[2:10.0.0.7]` (rank before a colon), `1,3,5,7,` or `16-23`
// (TopoDetect).
std::set<int64_t> rank_list(const std::string& s) {
  std::set<int64_t> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] < '0' || s[i] > '9')) ++i;
    int64_t v = 0;
    size_t n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && n < 18) v = v * 10 + (s[i++] - '0'), ++n;
    if (n > 0 && v < (1 << 20)) out.insert(v);
    if (n > 0 && i + 1 < s.size() && s[i] == '-' && s[i + 1] >= '0' && s[i + 1] <= '9') {
      // a range `16-23`
      int64_t hi = 0;
      size_t m = 0;
      for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9' && m < 18; ++i, ++m)
        hi = hi * 10 + (s[i] - '0');
      for (int64_t r = v + 1; r <= hi && r < (1 << 20) && out.size() < 100000; ++r) out.insert(r);
    }
    while (i < s.size() && s[i] != ',' && s[i] != '[') ++i;  // the rest of the item (":ip")
  }
  return out;
}

// ascend-fd's rule 121: the root-info server of the communicator timed out and listed the ranks
// that had connected; ranks that neither connected nor left a log in the collected set (and the
// ranks a TopoDetect error names as not connected) are the culprits: their processes did not
// start, or could not reach the server.
std::optional<Candidate> root_info_unconnected(Ctx& c, const Roster& ro,
                                               const std::vector<size_t>& members,
                                               const std::string& grp, int64_t size) {
  std::set<int64_t> connected, named;
  bool listed = false;
  int64_t need = size;
  std::vector<FleetLine> lines;
  auto in_group = [&](const HitR& h) {
    auto i = ro.find(h.host, h.pid);
    return !i || ro.procs[*i].group.empty() || ro.procs[*i].group == grp;
  };
  auto cap = [](const HitR& h, const char* k) {
    return h.cap.is_object() && h.cap.contains(k) && h.cap[k].is_string()
               ? h.cap[k].get<std::string>()
               : std::string();
  };
  for (const auto& h : c.hits["hccl.root_info_connected_ranks"]) {
    if (!in_group(h)) continue;
    const auto v = rank_list(cap(h, "ranks"));
    connected.insert(v.begin(), v.end());
    listed = true;
    if (lines.size() < 4) lines.push_back(h.as_line("connected"));
  }
  for (const auto& h : c.hits["hccl.root_info_connect_count"])
    if (in_group(h))
      if (auto n = text::to_int<int64_t>(cap(h, "need")); n && *n > need && *n < (1 << 20))
        need = *n;
  for (const auto& h : c.hits["hccl.topo_detect_agent_failed"]) {
    if (!in_group(h)) continue;
    const auto v = rank_list(cap(h, "ranks"));
    named.insert(v.begin(), v.end());
    if (!v.empty() && lines.size() < 6) lines.push_back(h.as_line("not connected"));
  }
  std::map<int64_t, size_t> collected;
  for (size_t i : members)
    if (ro.procs[i].rank) collected.emplace(*ro.procs[i].rank, i);
  std::set<int64_t> lost;
  if (listed)
    for (int64_t r = 0; r < need; ++r)
      if (!collected.count(r) && !connected.count(r)) lost.insert(r);
  for (int64_t r : named)
    if (!connected.count(r) && r < std::max<int64_t>(need, 1 << 20)) lost.insert(r);
  if (lost.empty()) return std::nullopt;
  Candidate k;
  k.rule = "root-info-unconnected";
  k.lines = std::move(lines);
  std::vector<size_t> known;
  std::vector<std::string> words;
  for (int64_t r : lost) {
    words.push_back(std::to_string(r));
    if (auto it = collected.find(r); it != collected.end()) known.push_back(it->second);
  }
  add_culprits(k, ro, known);
  for (int64_t r : lost)
    if (!collected.count(r)) {
      FleetCulprit u;
      u.rank = r;
      u.address = grp.empty() ? "rank " + std::to_string(r) : grp + " rank " + std::to_string(r);
      k.culprits.push_back(u);
    }
  if (known.empty()) k.rank = *lost.begin();
  const std::string list =
      words.size() > 16 ? join(std::vector<std::string>(words.begin(), words.begin() + 16), ", ") +
                              ", ... (" + std::to_string(words.size()) + ")"
                        : join(words, ", ");
  k.text = "the root-info server of communicator " + (grp.empty() ? std::string("?") : grp) +
           " timed out waiting for " + std::to_string(need) + " rank(s); rank(s) " + list +
           " never connected" +
           (known.size() < lost.size() ? " and left no log in the collected set" : "") +
           ": their processes did not start, or could not reach the root-info server";
  k.confidence = 0.65;
  return k;
}

// ascend-fd's rule 120: link setup timed out and the members' TLS switches differ (HCCP's
// `TLS SWITCH (n)` in the device log of the process, or `hccn_tool -i N -tls -g` of the host):
// the TLS handshake between the two kinds fails on every link, so the members of the minority
// state are the culprits. No rule when the states split evenly (no minority to blame).
std::optional<Candidate> tls_minority(Ctx& c, const Roster& ro,
                                      const std::vector<size_t>& members) {
  std::map<size_t, std::pair<std::string, const HitR*>> tls;  // member -> (state, line)
  std::set<size_t> in(members.begin(), members.end());
  auto cap = [](const HitR& h, const char* k) {
    return h.cap.is_object() && h.cap.contains(k) && h.cap[k].is_string()
               ? h.cap[k].get<std::string>()
               : std::string();
  };
  for (const auto& h : c.hits["hccl.hccp_tls_switch"])
    if (auto i = ro.find(h.host, h.pid); i && in.count(*i) && !cap(h, "tls").empty())
      tls[*i] = {cap(h, "tls"), &h};
  for (const auto& h : c.hits["hccn.tls_switch"]) {
    const auto dev = text::to_int<int64_t>(cap(h, "device"));
    if (!dev || cap(h, "tls").empty()) continue;
    for (size_t i : members) {
      const Proc& p = ro.procs[i];
      if (p.host != h.host || tls.count(i)) continue;
      if ((p.logic_dev && *p.logic_dev == *dev) || (!p.logic_dev && p.phy_dev == dev))
        tls[i] = {cap(h, "tls"), &h};
    }
  }
  std::map<std::string, std::vector<size_t>> by_state;
  for (const auto& [i, st] : tls) by_state[st.first].push_back(i);
  if (by_state.size() < 2) return std::nullopt;
  const auto minority = std::min_element(by_state.begin(), by_state.end(), [](auto& a, auto& b) {
    return a.second.size() < b.second.size();
  });
  for (const auto& [state, ids] : by_state)
    if (state != minority->first && ids.size() == minority->second.size()) return std::nullopt;
  Candidate k;
  k.rule = "tls-switch-different";
  add_culprits(k, ro, minority->second);
  for (size_t i : minority->second)
    if (k.lines.size() < 4 && tls[i].second) k.lines.push_back(tls[i].second->as_line("tls"));
  std::string majority;
  size_t most = 0;
  for (const auto& [state, ids] : by_state)
    if (ids.size() > most) most = ids.size(), majority = state;
  k.text = std::to_string(minority->second.size()) + " member(s) have TLS switch " +
           minority->first + " while " + std::to_string(most) + " have " + majority +
           ": the TLS handshake fails between the two, so link setup times out; make the "
           "switch the same on every device (hccn_tool -i N -tls -s enable 0|1)";
  k.confidence = 0.75;
  return k;
}

}  // namespace

std::optional<Candidate> decide_first(Ctx& c, const FleetResult& r, const Roster& ro) {
  if (auto k = decide_no_error(c, r, ro)) return k;
  return decide_cqe(c, ro);
}

std::optional<Candidate> decide(Ctx& c, const FleetResult& r, const Incident& in, const Roster& ro,
                                const WaitGraph& g) {
  (void)in;
  // per process: first HCCL error (fleet clock) and the signatures it logged
  std::vector<PState> st(ro.procs.size());
  for (const auto& [sig, hs] : c.hits) {
    if (!hccl_error_signature(sig)) continue;
    const Cls cls = root_init_sigs().count(sig) ? Cls::root_init
                    : link_sigs().count(sig)    ? Cls::link
                    : op_sigs().count(sig)      ? Cls::op
                                                : Cls::none;
    for (const auto& h : hs) {
      if (h.sev < 4) continue;
      auto i = ro.find(h.host, h.pid);
      if (!i) continue;
      auto& s = st[*i];
      s.sigs.insert(sig);
      if (!h.t) continue;
      const int64_t t = c.to_fleet(h.host, *h.t);
      if (!s.first || t < *s.first) {
        s.first = t;
        s.first_hit = &h;
      }
      auto& fc = s.first_of_class[static_cast<int>(cls)];
      if (!fc || t < *fc) fc = t;
    }
  }
  auto erring = [&](const std::set<std::string>& sigs) {
    std::vector<size_t> v;
    for (size_t i = 0; i < st.size(); ++i)
      if (std::any_of(st[i].sigs.begin(), st[i].sigs.end(),
                      [&](const std::string& s) { return sigs.empty() || sigs.count(s); }))
        v.push_back(i);
    return v;
  };
  auto first_of = [&](const std::vector<size_t>& ids) -> std::optional<size_t> {
    std::optional<size_t> best;
    for (size_t i : ids) {
      if (!best) {
        best = i;
        continue;
      }
      const auto& a = st[i].first;
      const auto& b = st[*best].first;
      if (a && (!b || *a < *b || (*a == *b && ro.procs[i].label() < ro.procs[*best].label())))
        best = i;
    }
    return best;
  };
  const auto all_erring = erring({});
  // AICPU Notify Wait edges of the device-side logs, hop by hop (a cycle: all its members)
  auto aicpu_chain = [&](std::optional<size_t> f0) -> std::optional<Candidate> {
    std::vector<size_t> starts;
    for (size_t i = 0; i < ro.procs.size(); ++i)
      if (!g.out(i, {"aicpu"}).empty()) starts.push_back(i);
    if (starts.empty()) return std::nullopt;
    const size_t s0 = f0 && std::find(starts.begin(), starts.end(), *f0) != starts.end()
                          ? *f0
                          : *first_of(starts);
    return from_chain(ro, follow(ro, g, s0, {"aicpu"}), "aicpu-notify-chain", "AICPU Notify Wait",
                      false);
  };

  // 1. transport-init chain
  const auto transport = erring({"hccl.transport_init_error"});
  if (!transport.empty()) {
    std::vector<size_t> starts;
    for (size_t i : transport)
      if (!g.out(i, {"transport"}).empty()) starts.push_back(i);
    if (!starts.empty()) {
      const size_t s0 = *first_of(starts);
      Candidate k = from_chain(ro, follow(ro, g, s0, {"transport"}), "transport-init-chain",
                               "transport-init", false);
      return k;
    }
  }
  // no transport edge resolvable: decided after the timeout classes (below)
  auto transport_unresolved = [&]() -> std::optional<Candidate> {
    if (transport.empty()) return std::nullopt;
    std::vector<std::string> quiet;
    for (size_t i = 0; i < ro.procs.size(); ++i)
      if (ro.procs[i].rank && st[i].sigs.count("hccl.transport_init_error") == 0)
        quiet.push_back(ro.procs[i].label());
    Candidate k;
    k.rule = "transport-init-chain";
    for (size_t i : transport)
      if (st[i].first_hit && k.lines.size() < 8)
        k.lines.push_back(st[i].first_hit->as_line("chain"));
    k.no_single_root = true;
    k.reason =
        "Transport init errors name their peers without a device id (remoteIpAddr without "
        "/<device id>), so no wait edge can be resolved: check the devices that did not log "
        "a Transport init error (" +
        (quiet.empty() ? std::string("none of them is in the collected set")
                       : "collected: " + join(quiet, ", ")) +
        ")";
    k.text = k.reason;
    k.confidence = 0.4;
    return k;
  };

  // ascend-fd's rules 101 / 113: the first-erroring process (any ERROR line of its plogs, any
  // module) logged no HCCL timeout at all: its error is not a wait on someone else. No process
  // timed out -> the AICPU chain, else every erring process; some did -> the erring processes
  // that did not time out.
  {
    auto timed_out = [&](size_t i) {
      return std::any_of(st[i].sigs.begin(), st[i].sigs.end(), [](const std::string& s) {
        return root_init_sigs().count(s) || link_sigs().count(s) || op_sigs().count(s);
      });
    };
    std::vector<size_t> any_err;
    std::optional<size_t> fa;
    std::optional<int64_t> fa_t;
    std::map<size_t, const HitR*> line_of;
    for (const auto& [key, h] : c.first_error) {
      auto i = ro.find(key.first, key.second);
      if (!i || !h.t) continue;
      any_err.push_back(*i);
      line_of[*i] = &h;
      const int64_t t = c.to_fleet(h.host, *h.t);
      if (!fa || t < *fa_t || (t == *fa_t && ro.procs[*i].label() < ro.procs[*fa].label()))
        fa = *i, fa_t = t;
    }
    if (fa && !timed_out(*fa)) {
      std::vector<size_t> blame;
      bool any_timeout = false;
      for (size_t i : any_err) {
        if (timed_out(i))
          any_timeout = true;
        else
          blame.push_back(i);
      }
      if (!any_timeout)
        if (auto k = aicpu_chain(fa)) return k;
      Candidate k;
      k.rule = any_timeout ? "first-error-not-timeout" : "errors-without-timeout";
      add_culprits(k, ro, blame);
      for (size_t i : k.culprits.size() > 8 ? std::vector<size_t>{*fa} : blame)
        if (line_of[i] && k.lines.size() < 8) k.lines.push_back(line_of[i]->as_line("timing"));
      k.text = any_timeout
                   ? ro.procs[*fa].label() + " logged the first error, and it is not a timeout; " +
                         std::to_string(blame.size()) +
                         " process(es) logged errors without an HCCL timeout while the others "
                         "timed out waiting: those are the root"
                   : std::to_string(blame.size()) +
                         " process(es) logged errors and none of them an HCCL timeout: every "
                         "erring process is a culprit (the errors are their own, not waits)";
      k.confidence = any_timeout ? 0.65 : 0.5;
      return k;
    }
  }
  if (all_erring.empty()) return std::nullopt;

  // 2. the timeout class of the first-erroring process
  const size_t f = *first_of(all_erring);
  const auto& fs = st[f].sigs;
  auto has_any = [&](const std::set<std::string>& set) {
    return std::any_of(fs.begin(), fs.end(), [&](const std::string& s) { return set.count(s); });
  };
  const Cls cls = has_any(root_init_sigs()) ? Cls::root_init
                  : has_any(op_sigs())      ? Cls::op
                  : has_any(link_sigs())    ? Cls::link
                                            : Cls::none;
  const Proc& fp = ro.procs[f];
  const std::string grp = fp.group.empty() ? ro.main_group : fp.group;
  const auto members = members_of(ro, grp);
  const int64_t size = fp.size.value_or(0);

  auto host_fault = [&](const std::string& host) {
    return std::any_of(r.hosts.begin(), r.hosts.end(), [&](const FleetHost& h) {
      return h.host == host && h.first && h.first_class == "fault";
    });
  };
  auto silent_members = [&]() {
    std::vector<size_t> v;
    for (size_t i : members)
      if (st[i].sigs.empty() && !host_fault(ro.procs[i].host)) v.push_back(i);
    return v;
  };
  // the reports of the members (all of them, or those that reported) spread over more than the
  // timeout -> the last reporter started waiting after the others had given up
  auto spread_rule = [&](Cls kcls, int64_t timeout_s, const char* what,
                         bool need_all) -> std::optional<Candidate> {
    if (need_all && (size <= 1 || static_cast<int64_t>(members.size()) < size)) return std::nullopt;
    std::optional<size_t> last;
    std::optional<int64_t> lo;
    for (size_t i : members) {
      const auto& t = st[i].first_of_class[static_cast<int>(kcls)];
      if (!t && !need_all) continue;
      if (!t) return std::nullopt;
      if (!lo || *t < *lo) lo = t;
      if (!last || *t > *st[*last].first_of_class[static_cast<int>(kcls)]) last = i;
    }
    if (!last) return std::nullopt;
    const int64_t spread = *st[*last].first_of_class[static_cast<int>(kcls)] - *lo;
    if (spread <= timeout_s * kSec) return std::nullopt;
    Candidate k;
    k.rule = "last-reporter";
    add_culprits(k, ro, {*last});
    if (st[*last].first_hit) k.lines.push_back(st[*last].first_hit->as_line("timing"));
    k.text = std::string("every member of the communicator reported a ") + what +
             " timeout and the reports spread over " + fmt_s(spread) + ", more than the " +
             std::to_string(timeout_s) + " s timeout: " + ro.procs[*last].label() +
             " reported last, it started waiting after the others had given up";
    k.confidence = 0.7;
    return k;
  };

  if (cls == Cls::root_init) {
    if (auto k = root_info_unconnected(c, ro, members, grp, size)) return k;
    const auto failed = erring(root_init_sigs());
    std::vector<size_t> in_group, silent;
    for (size_t i : members)
      (std::find(failed.begin(), failed.end(), i) != failed.end() ? in_group : silent).push_back(i);
    Candidate k;
    k.rule = "root-info-init";
    for (size_t i : in_group)
      if (st[i].first_hit && k.lines.size() < 8)
        k.lines.push_back(st[i].first_hit->as_line("timing"));
    if (!silent.empty()) {
      add_culprits(k, ro, silent);
      k.text = std::to_string(in_group.size()) + " member(s) of communicator " + grp +
               " failed root-info init; " + std::to_string(silent.size()) +
               " collected member(s) logged no such failure: they did not join";
      k.confidence = 0.6;
      return k;
    }
    // all collected members failed, their reports spread over more than the timeout: the last
    if (auto late = spread_rule(Cls::root_init, r.connect_timeout_s, "root-info init", false)) {
      late->rule = "last-reporter";
      return late;
    }
    // all collected members failed within the timeout: the root-info host is to blame
    std::string root = fp.root_ip;
    if (root.empty()) root = grp.substr(0, grp.find('%'));
    std::optional<size_t> host_proc;
    // the process that made the root info (HcclGetRootInfo success), else the lowest rank on
    // the root-info server
    for (size_t i = 0; i < ro.procs.size() && !host_proc; ++i)
      if (ro.procs[i].root_of.count(grp) != 0) host_proc = i;
    for (size_t i = 0; i < ro.procs.size() && !host_proc; ++i)
      if (!root.empty() && ro.procs[i].server_ip == root && ro.procs[i].root_of.count("") != 0)
        host_proc = i;
    for (size_t i = 0; i < ro.procs.size(); ++i)
      if (!root.empty() && ro.procs[i].server_ip == root &&
          (!host_proc || ro.procs[i].rank < ro.procs[*host_proc].rank) &&
          (!host_proc || ro.procs[*host_proc].root_of.empty()))
        host_proc = i;
    std::string root_host = host_proc ? ro.procs[*host_proc].host : host_of_ip(c, root).first;
    if (!root_host.empty()) {
      if (host_proc)
        add_culprits(k, ro, {*host_proc});
      else
        k.host = root_host;
      k.ip = root;
      k.text = "every collected member of communicator " + grp +
               " failed root-info init: the root-info host " + root + " (" + root_host +
               ") did not serve it";
      k.confidence = 0.6;
      return k;
    }
    k.no_single_root = true;
    k.ip = root;
    k.reason = "every collected member of communicator " + grp + " (" +
               std::to_string(in_group.size()) +
               " rank(s)) failed root-info init within the timeout; the root-info host " +
               (root.empty() ? std::string("(unknown)") : root) +
               " is not among the collected hosts: collect its logs";
    k.text = k.reason;
    FleetCulprit ext;
    ext.address = root;
    k.culprits.push_back(ext);
    k.confidence = 0.55;
    return k;
  }
  if (cls == Cls::link) {
    if (auto k = tls_minority(c, ro, members)) return k;
    // every member reported and the spread exceeds HCCL_CONNECT_TIMEOUT: the last reporter
    if (silent_members().empty())
      if (auto k = rule_late_arrival(c, r, in)) return k;
    const std::set<std::string> kinds = {"link", "detect", "p2p"};
    std::vector<size_t> starts;
    for (size_t i : erring(link_sigs()))
      if (!g.out(i, kinds).empty()) starts.push_back(i);
    if (!starts.empty()) {
      const size_t s0 =
          std::find(starts.begin(), starts.end(), f) != starts.end() ? f : *first_of(starts);
      return from_chain(ro, follow(ro, g, s0, kinds), "link-setup-chain", "link-setup", false);
    }
  }
  if (cls == Cls::op) {
    const auto op = erring(op_sigs());
    const auto silent = silent_members();
    if (!silent.empty() && !op.empty()) {
      Candidate k;
      k.rule = "silent-rank";
      add_culprits(k, ro, silent);
      k.text = std::to_string(op.size()) + " member(s) of communicator " + grp +
               " timed out in op execution; " + std::to_string(silent.size()) +
               " collected member(s) logged no error: they never issued the collective";
      k.confidence = 0.6;
      return k;
    }
    if (auto k = rule_late_arrival(c, r, in)) return k;
    // the op each process failed in: the lowest op index is behind the others; a tag only a
    // minority failed in names the ranks that ran a different op
    std::map<std::string, std::vector<size_t>> by_index, by_tag;
    std::map<size_t, const HitR*> first_nw;
    for (const auto& h : c.of("hccl.notify_wait_timeout")) {
      auto i = ro.find(h.host, h.pid);
      if (!i || h.sev < 4) continue;
      auto& cur = first_nw[*i];
      if (!cur || (h.t && (!cur->t || *h.t < *cur->t))) cur = &h;
    }
    for (const auto& [i, h] : first_nw) {
      const std::string idx = bracket_value(h->text, "index[");
      if (!idx.empty()) by_index[idx].push_back(i);
      if (!h->c("tag").empty()) by_tag[h->c("tag")].push_back(i);
    }
    if (by_index.size() > 1) {
      std::string low;
      for (const auto& [idx, ids] : by_index) {
        const auto a = to_i64(idx), b = to_i64(low);
        if (low.empty() || (a && (!b || *a < *b))) low = idx;
      }
      Candidate k;
      k.rule = "lowest-op-index";
      add_culprits(k, ro, by_index[low]);
      for (size_t i : by_index[low]) k.lines.push_back(first_nw[i]->as_line("timing"));
      k.text = "the Notify Wait timeouts are in " + std::to_string(by_index.size()) +
               " different ops (index); the lowest index " + low +
               " is behind the others: its rank(s) stopped first";
      k.confidence = 0.6;
      return k;
    }
    if (by_tag.size() > 1) {
      const std::vector<size_t>* few = nullptr;
      std::string tag;
      for (const auto& [t, ids] : by_tag)
        if (!few || ids.size() < few->size()) {
          few = &ids;
          tag = t;
        }
      Candidate k;
      k.rule = "minority-op-tag";
      add_culprits(k, ro, *few);
      for (size_t i : *few) k.lines.push_back(first_nw[i]->as_line("timing"));
      k.text = "the Notify Wait timeouts name " + std::to_string(by_tag.size()) +
               " different ops (tag); only " + std::to_string(few->size()) + " rank(s) failed in " +
               tag + ": they ran a different op than the others";
      k.confidence = 0.55;
      return k;
    }
    std::vector<size_t> starts;
    for (size_t i : op)
      if (!g.out(i, {"notify"}).empty()) starts.push_back(i);
    // a rank waiting on its own sub-stream that others wait on is where the chain ends
    std::vector<size_t> local_waited;
    for (const auto& e : g.edges)
      if (e.kind == "notify" && e.local &&
          std::any_of(g.edges.begin(), g.edges.end(), [&](const WaitEdge& o) {
            return o.kind == "notify" && !o.local && o.to == e.from;
          }))
        local_waited.push_back(e.from);
    if (!local_waited.empty()) {
      Candidate k;
      k.rule = "notify-wait-chain";
      add_culprits(k, ro, local_waited);
      const size_t s0 = *first_of(starts);
      const Chain ch = follow(ro, g, s0, {"notify"});
      k.chain = chain_words(ro, ch);
      for (const auto* e : ch.hops)
        if (e->hit) k.lines.push_back(e->hit->as_line("chain"));
      k.text = "Notify Wait chain " + join(k.chain, " -> ") + ": the main stream of " +
               ro.procs[local_waited.front()].label() +
               " waits on its own sub-stream (remote rank local) while the others wait on it";
      k.confidence = 0.65;
      return k;
    }
    if (!starts.empty()) {
      const size_t s0 =
          std::find(starts.begin(), starts.end(), f) != starts.end() ? f : *first_of(starts);
      return from_chain(ro, follow(ro, g, s0, {"notify"}), "notify-wait-chain", "Notify Wait",
                        true);
    }
  }
  if (auto k = transport_unresolved()) return k;
  return aicpu_chain(f);
}

}  // namespace faultline::correlate::fleet
