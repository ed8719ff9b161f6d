// Op execution (Notify Wait) decisions: the exits of the wait graph and the deadlock, a closed
// cycle with no exit (docs/fleet.md "Decision procedure", op execution).
#include <algorithm>
#include <cstdint>
#include <tuple>

#include "decide.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"

namespace faultline::correlate::fleet::decision {

// Hops from each process to the nearest exit of the wait graph over `kinds` (an exit: a process
// that waits on nobody, on its own sub-stream or on an address outside the set); a process that is
// missing from the map reaches no exit: it is inside a closed cycle or waits only into one.
std::map<size_t, size_t> exit_distance(const Roster& ro, const WaitGraph& g,
                                       const std::set<std::string>& kinds) {
  std::map<size_t, size_t> d;
  std::map<size_t, std::vector<size_t>> rev;
  std::set<size_t> has_out;
  std::vector<size_t> queue;
  for (const auto& e : g.edges) {
    if (kinds.count(e.kind) == 0) continue;
    has_out.insert(e.from);
    if (e.to && !e.local)
      rev[*e.to].push_back(e.from);
    else if (d.emplace(e.from, 0).second)
      queue.push_back(e.from);
  }
  for (size_t i = 0; i < ro.procs.size(); ++i)
    if (has_out.count(i) == 0 && d.emplace(i, 0).second) queue.push_back(i);
  for (size_t q = 0; q < queue.size(); ++q) {
    const size_t n = queue[q];
    auto it = rev.find(n);
    if (it == rev.end()) continue;
    for (size_t from : it->second)
      if (d.emplace(from, d[n] + 1).second) queue.push_back(from);
  }
  return d;
}

// The processes `start` reaches over `kinds` edges (itself included).
std::vector<size_t> reachable(const WaitGraph& g, size_t start,
                              const std::set<std::string>& kinds) {
  std::vector<size_t> out = {start};
  std::set<size_t> seen = {start};
  for (size_t q = 0; q < out.size(); ++q)
    for (const auto* e : g.out(out[q], kinds))
      if (e->to && !e->local && seen.insert(*e->to).second) out.push_back(*e->to);
  return out;
}

// A closed Notify Wait cycle: every process `start` reaches waits on another of them and none on
// anyone outside (no exit). Nobody can move first: a deadlock (ascend-fd 124), no single root; the
// answer names the members of the cycle, never a host.
Candidate deadlock(const Roster& ro, const WaitGraph& g, size_t start) {
  const std::set<std::string> kinds = {"notify"};
  Candidate k =
      from_chain(ro, follow(ro, g, start, kinds), "notify-wait-chain", "Notify Wait", true);
  std::vector<size_t> members = reachable(g, start, kinds);
  std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
    const auto& x = ro.procs[a];
    const auto& y = ro.procs[b];
    return std::tie(x.rank, x.host, x.pid) < std::tie(y.rank, y.host, y.pid);
  });
  std::vector<std::string> ranks, names;
  for (size_t i : members) {
    k.cycle.push_back(culprit_of(ro.procs[i]));
    names.push_back(ro.procs[i].label());
    if (ro.procs[i].rank) ranks.push_back(std::to_string(*ro.procs[i].rank));
  }
  k.culprits.clear();
  k.host.clear();
  k.rank.reset();
  k.device.reset();
  k.no_single_root = true;
  k.reason = "deadlock: the Notify Wait edges of rank(s) " + join(ranks, ", ") +
             " form a closed cycle with no exit (each waits on another member, none on a rank "
             "outside it), so no rank can move first and none alone is to blame";
  k.text = "followed the Notify Wait edges (`remote rank:[r]`) " + join(k.chain, " -> ") +
           "; every rank they reach waits inside the cycle " + join(names, ", ");
  k.confidence = 0.6;
  return k;
}

}  // namespace faultline::correlate::fleet::decision
