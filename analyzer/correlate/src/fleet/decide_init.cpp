// Root-info init decisions (docs/fleet.md step 5, root-info init): the ranks the root-info server
// never saw.
#include <algorithm>
#include <tuple>

#include "decide.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"

namespace faultline::correlate::fleet::decision {

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

}  // namespace faultline::correlate::fleet::decision
