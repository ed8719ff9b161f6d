// Following wait chains hop by hop (docs/fleet.md "Following a chain"): the path, a cycle, the
// end inside the set or the awaited address outside it; the answer a chain gives.
#include <algorithm>
#include <cstdint>
#include <tuple>

#include "decide.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"

namespace faultline::correlate::fleet::decision {

// `toward`: when given, each hop takes the edge nearest to an exit (exit_distance), so a chain
// with a way out is not mistaken for a cycle because one of its processes also waits on another
Chain follow(const Roster& ro, const WaitGraph& g, size_t start, const std::set<std::string>& kinds,
             const std::map<size_t, size_t>* toward) {
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
    if (toward != nullptr) {
      auto dist = [&](const WaitEdge* e) -> size_t {
        if (!e->to || e->local) return 0;
        auto it = toward->find(*e->to);
        return it == toward->end() ? SIZE_MAX : it->second + 1;
      };
      std::stable_sort(outs.begin(), outs.end(),
                       [&](const WaitEdge* a, const WaitEdge* b) { return dist(a) < dist(b); });
    }
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

}  // namespace faultline::correlate::fleet::decision
