// `faultline fleet --diff`: per node, the compared facts (rules/compare, all groups, not only
// versions) where it differs from the value most nodes of the job have, so that the one node
// with another LD_LIBRARY_PATH, module path or mount stands out (docs/compare.md).
#include <algorithm>
#include <set>
#include <tuple>

#include "faultline/correlate/compare.hpp"
#include "side.hpp"

namespace faultline::correlate {

namespace {

std::string joined(const std::map<std::string, std::string>& m) {
  if (m.empty()) return "(not stated)";
  std::string out;
  for (const auto& [v, src] : m) out += (out.empty() ? "" : "; ") + v;
  return out;
}

}  // namespace

FleetDiff fleet_differences(sqlite3* db, const std::vector<int64_t>& bundle_ids,
                            const CompareRules& rules) {
  FleetDiff out;
  std::map<std::string, compare::HostData> hosts;  // host -> data (over all bundles)
  for (int64_t id : bundle_ids) {
    compare::Side s;
    try {
      s = compare::load_side({db, id, "bundle " + std::to_string(id)}, rules, false);
    } catch (const std::exception& e) {
      out.notes.push_back(e.what());
      continue;
    }
    out.notes.insert(out.notes.end(), s.notes.begin(), s.notes.end());
    for (auto& [h, data] : s.hosts) {
      if (std::find(s.info.hosts.begin(), s.info.hosts.end(), h) == s.info.hosts.end()) continue;
      auto& dst = hosts[h];
      dst.kinds.insert(data.kinds.begin(), data.kinds.end());
      for (auto& [n, fv] : data.facts) {
        auto& t = dst.facts[n];
        t.values.insert(fv.values.begin(), fv.values.end());
        t.kinds.insert(fv.kinds.begin(), fv.kinds.end());
      }
    }
  }
  out.hosts = hosts.size();
  if (hosts.size() < 3) {
    out.notes.push_back("fewer than 3 nodes: no majority to compare with");
    return out;
  }
  std::map<std::string, size_t> group_order;
  for (size_t i = 0; i < rules.groups.size(); ++i) group_order[rules.groups[i].id] = i;
  group_order["other"] = rules.groups.size();

  std::set<std::string> names;
  for (const auto& [h, data] : hosts)
    for (const auto& [n, fv] : data.facts) names.insert(n);
  std::map<std::string, OddNode> odd;
  for (const auto& name : names) {
    const std::string gid = fact_group(rules, name);
    if (gid == "noise") continue;
    if (std::any_of(rules.fleet_noise.begin(), rules.fleet_noise.end(),
                    [&](const std::string& g) { return glob_match(g, name); }))
      continue;
    // the nodes compared: those stating the fact, and those that have the members stating it
    // elsewhere but not this fact (an absent variable, a missing mount)
    std::set<std::string> kinds;
    for (const auto& [h, data] : hosts)
      if (auto it = data.facts.find(name); it != data.facts.end())
        kinds.insert(it->second.kinds.begin(), it->second.kinds.end());
    std::map<std::string, std::map<std::string, std::string>> value_of;  // host -> values
    // (pairs, not structured bindings: clang 14, the fuzz build's compiler, cannot capture those)
    for (const auto& host : hosts) {
      const auto& h = host.first;
      const auto& data = host.second;
      if (auto it = data.facts.find(name); it != data.facts.end()) {
        value_of[h] = it->second.values;
      } else if (std::any_of(kinds.begin(), kinds.end(), [&](const std::string& k) {
                   return !k.empty() && data.kinds.count(k) != 0;
                 })) {
        value_of[h] = {};
      }
    }
    if (value_of.size() < 3) continue;
    const CompareRules::Group* grp = compare::group_of(rules, gid);
    const int64_t tol = compare::tolerant(grp, name) ? grp->tolerance_s : 0;
    // the majority: the value set the most nodes have (equal within the tolerance)
    std::vector<std::pair<std::map<std::string, std::string>, std::vector<std::string>>> classes;
    for (const auto& hv : value_of) {
      const auto& h = hv.first;
      const auto& vals = hv.second;
      auto it = std::find_if(classes.begin(), classes.end(), [&](const auto& c) {
        return compare::same_values(c.first, vals, tol);
      });
      if (it == classes.end())
        classes.push_back({vals, {h}});
      else
        it->second.push_back(h);
    }
    if (classes.size() < 2) continue;
    const auto maj = std::max_element(
        classes.begin(), classes.end(),
        [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
    if (maj->second.size() * 2 <= value_of.size()) continue;  // no majority
    for (const auto& c : classes) {
      if (&c == &*maj) continue;
      for (const auto& h : c.second) {
        NodeDifference nd;
        nd.group = gid;
        nd.group_title = grp != nullptr ? grp->title : gid;
        nd.name = name;
        nd.value = joined(c.first);
        nd.majority = joined(maj->first);
        nd.majority_hosts = maj->second.size();
        nd.hosts = value_of.size();
        odd[h].host = h;
        odd[h].differences.push_back(std::move(nd));
      }
    }
  }
  for (auto& [h, n] : odd) {
    // one fact under several names (`same_fact`), the same values: listed once, under its name
    std::vector<NodeDifference> kept;
    for (auto& nd : n.differences) {
      const std::string as = same_fact_name(rules, nd.name);
      auto it = std::find_if(kept.begin(), kept.end(), [&](const NodeDifference& k) {
        return k.group == nd.group && same_fact_name(rules, k.name) == as && k.value == nd.value &&
               k.majority == nd.majority;
      });
      if (it == kept.end()) {
        kept.push_back(std::move(nd));
      } else {
        it->name = as;
        it->hosts = std::max(it->hosts, nd.hosts);
        it->majority_hosts = std::max(it->majority_hosts, nd.majority_hosts);
      }
    }
    n.differences = std::move(kept);
    std::stable_sort(n.differences.begin(), n.differences.end(),
                     [&](const NodeDifference& a, const NodeDifference& b) {
                       return std::tie(group_order[a.group], a.name) <
                              std::tie(group_order[b.group], b.name);
                     });
    out.nodes.push_back(std::move(n));
  }
  std::stable_sort(out.nodes.begin(), out.nodes.end(), [](const OddNode& a, const OddNode& b) {
    return a.differences.size() > b.differences.size();
  });
  return out;
}

}  // namespace faultline::correlate
