// MindIE PD-disaggregation link errors (docs/fleet.md "MindIE links"): the devices a failed KV
// link or KV pull names join the first failure's culprits, after the decision procedure
// (MindCluster FaultDiag's rules 129 and 131).
#include "internal.hpp"

namespace faultline::correlate::fleet {

namespace {

void add_culprit(Candidate& k, const FleetCulprit& u) {
  for (const auto& o : k.culprits)
    if (o.host == u.host && o.pid == u.pid && o.rank == u.rank && o.address == u.address) return;
  k.culprits.push_back(u);
}

}  // namespace

void mindie_links(const Ctx& c, const Roster& ro, Candidate& k) {
  // `Link from A to B failed` (A the logging device): B is at fault when it did not fail to
  // reach A as well; both when they failed to reach each other. `A pull kv from B failed`: both.
  std::map<std::string, std::set<std::string>> link;
  for (const auto& h : c.of("mindie.pd_link_failed")) {
    const std::string a = h.c("local_ip");
    const std::string b = h.c("remote_ip");
    if (!a.empty() && !b.empty()) link[a].insert(b);
  }
  std::set<std::string> link_ips;
  for (const auto& [a, bs] : link)
    for (const auto& b : bs) {
      auto back = link.find(b);
      if (back == link.end()) {
        link_ips.insert(b);
      } else if (back->second.count(a) != 0) {
        link_ips.insert(a);
        link_ips.insert(b);
      }
    }
  std::set<std::string> pull_ips;
  for (const auto& h : c.of("mindie.pull_kv_failed"))
    for (const char* key : {"local_ip", "remote_ip"})
      if (const std::string ip = h.c(key); !ip.empty()) pull_ips.insert(ip);
  if (link_ips.empty() && pull_ips.empty()) return;
  // only the devices the roster knows (an address without a collected process is named in the
  // text, not as a culprit)
  const auto resolve = [&](const std::set<std::string>& ips, std::vector<std::string>& unknown) {
    std::vector<FleetCulprit> out;
    for (const auto& ip : ips) {
      if (auto i = ro.by_device_ip(ip))
        out.push_back(culprit_of(ro.procs[*i]));
      else
        unknown.push_back(ip);
    }
    return out;
  };
  std::vector<std::string> unknown;
  const auto pulls = resolve(pull_ips, unknown);
  const auto links = resolve(link_ips, unknown);
  if (pulls.empty() && links.empty()) {
    k.text +=
        "; MindIE link errors name device IPs outside the collected set: " + join(unknown, ", ");
    return;
  }
  if (k.no_single_root) {
    k.no_single_root = false;
    k.culprits.clear();
    k.reason.clear();
  }
  for (const auto& u : pulls) add_culprit(k, u);
  for (const auto& u : links) add_culprit(k, u);
  if (!pulls.empty())
    k.rule = "mindie-pull-kv";
  else if (k.rule == "no-error" || k.rule.empty())
    k.rule = "mindie-link";
  std::string what = !pulls.empty() ? "a MindIE KV pull between PD instances failed"
                                    : "MindIE KV links between PD instances failed";
  k.text +=
      (k.text.empty() ? "" : "; ") + what + ": the devices on the failed links are culprits" +
      (unknown.empty() ? std::string()
                       : " (addresses outside the collected set: " + join(unknown, ", ") + ")");
  if (k.host.empty() && !k.culprits.empty()) {
    k.host = k.culprits.front().host;
    k.rank = k.culprits.front().rank;
    k.device = k.culprits.front().device;
    k.pid = k.culprits.front().pid;
    k.device_ip = k.culprits.front().device_ip;
  }
  k.confidence = std::max(k.confidence, 0.5);
}

}  // namespace faultline::correlate::fleet
