// RoCE error CQE decision (docs/fleet.md "Decision procedure" step 1).
#include <algorithm>
#include <tuple>

#include "decide.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"

namespace faultline::correlate::fleet::decision {

// RoCE error CQE (docs/fleet.md step 1): each CQE line that names its remote end is a link from
// the device that logged it to that end. All of them towards one common remote end -> that end
// (the link or switch towards it failed, whoever reported it); otherwise the devices that logged
// the CQEs are the culprits (one device with CQEs towards several ends is the failing one), the
// remote ends are named in the text only.
std::optional<Candidate> decide_cqe(const Ctx& c, const Roster& ro) {
  std::vector<std::pair<size_t, std::string>> links;  // (source, target label)
  std::map<std::string, std::optional<size_t>> target_proc;
  std::map<std::string, std::string> target_ip;
  std::vector<FleetLine> lines;
  for (const auto& h : c.of("hccl.roce_error_cqe")) {
    const std::string ip = h.c("remote_ip");
    const auto from = ro.find(h.host, h.pid);
    if (ip.empty() || !from || h.sev < 4) continue;
    const auto to = ro.by_device_ip(ip);
    const std::string label = to ? ro.procs[*to].label() : ip;
    target_proc[label] = to;
    target_ip[label] = ip;
    if (std::find(links.begin(), links.end(), std::make_pair(*from, label)) == links.end()) {
      links.emplace_back(*from, label);
      if (lines.size() < 8) lines.push_back(h.as_line("culprit"));
    }
  }
  if (links.empty()) return std::nullopt;
  Candidate k;
  k.rule = "roce-cqe";
  k.lines = lines;
  // the links that do not leave a candidate end itself (a device does not report its own failure
  // towards the others): all of them at one end -> the common remote end
  std::set<std::string> ends, reporters;
  for (const auto& [f, t] : links) {
    ends.insert(t);
    reporters.insert(ro.procs[f].label());
  }
  std::optional<std::string> common;
  for (const auto& t : ends) {
    if (ends == reporters) break;  // every end reports the others: no end is "the remote" one
    bool all = true, any = false;
    for (const auto& [f, to] : links) {
      if (ro.procs[f].label() == t) continue;
      any = true;
      all = all && to == t;
    }
    if (any && all) {
      common = t;
      break;
    }
  }
  if (common) {
    if (target_proc[*common]) {
      add_culprits(k, ro, {*target_proc[*common]});
    } else {
      FleetCulprit ext;
      ext.address = target_ip[*common];
      k.culprits.push_back(ext);
      k.ip = ext.address;
    }
    k.text = std::to_string(links.size()) + " RoCE error CQE link(s) all point at " + *common +
             ": the common remote end is the root (a link or switch fault towards it)";
    k.confidence = 0.65;
    return k;
  }
  std::vector<size_t> sources;
  for (const auto& [f, t] : links) sources.push_back(f);
  add_culprits(k, ro, sources);
  std::vector<std::string> remote(ends.begin(), ends.end());
  k.text = std::to_string(links.size()) + " RoCE error CQE link(s) towards " +
           std::to_string(ends.size()) + " different remote end(s) (" + join(remote, ", ") +
           "): no common remote end, so the device(s) that logged the CQEs are the root";
  k.confidence = 0.55;
  return k;
}

}  // namespace faultline::correlate::fleet::decision
