// Link-setup decisions (docs/fleet.md step 5, link setup): the TLS switch minority.
#include <algorithm>
#include <tuple>

#include "decide.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"

namespace faultline::correlate::fleet::decision {

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

}  // namespace faultline::correlate::fleet::decision
