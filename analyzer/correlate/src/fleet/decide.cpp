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
// The decision classes live in decide_*.cpp (decide.hpp); this file is the procedure.
#include "decide.hpp"

#include <cmath>
#include <cstdint>

#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"

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

using namespace decision;  // NOLINT(google-build-using-namespace): the procedure composes them

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
      const auto dist = exit_distance(ro, g, {"notify"});
      if (dist.count(s0) == 0) return deadlock(ro, g, s0);
      return from_chain(ro, follow(ro, g, s0, {"notify"}, &dist), "notify-wait-chain",
                        "Notify Wait", true);
    }
  }
  if (auto k = transport_unresolved()) return k;
  return aicpu_chain(f);
}

}  // namespace faultline::correlate::fleet
