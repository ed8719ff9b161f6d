// No error at all in an HCCL job (docs/fleet.md step 0): lagging runtime reports, else no single
// root.
#include <algorithm>
#include <tuple>

#include "decide.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"

namespace faultline::correlate::fleet::decision {

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
    std::string latest_quality;
    for (const auto& h : rep) {
      if (!h.t || !h.pid) continue;
      const int64_t t = c.to_fleet(h.host, *h.t);
      auto [it, fresh] = last.try_emplace({h.host, *h.pid}, t);
      if (!fresh) it->second = std::max(it->second, t);
      if (!latest || t > *latest) latest_quality = h.quality;
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
            sentence_time(*latest, latest_quality) + "; " + join(names, ", ") +
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

}  // namespace faultline::correlate::fleet::decision
