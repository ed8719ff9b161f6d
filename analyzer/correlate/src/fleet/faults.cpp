// The fault events of a fleet (docs/fleet.md "Fault events"): every node's fault findings
// (docs/faults.md), merged per fault id and external code over the hosts, ranked as `analyze`
// ranks them. The first failure falls back to the earliest of them when no HCCL rule decides
// (analyze.cpp, rule `earliest-fault`).
#include <algorithm>
#include <tuple>

#include "internal.hpp"

namespace faultline::correlate {

namespace {

int severity_order(const std::string& s) {
  if (s == "critical") return 0;
  if (s == "error") return 1;
  if (s == "warning") return 2;
  return 3;
}

constexpr size_t kMaxFaultRows = 200000;  // bounds memory on huge fleets

}  // namespace

std::vector<FleetFault> load_fleet_faults(sqlite3* db, const std::vector<int64_t>& bundle_ids) {
  using fleet::J;
  using fleet::Stmt;
  std::map<std::pair<std::string, std::string>, FleetFault> by_key;  // (id, code)
  std::map<std::pair<std::string, std::string>, std::set<std::string>> hosts;
  Stmt st(db,
          "SELECT f.finding, f.host, f.title, f.severity, COALESCE(f.fault_class, ''), "
          "COALESCE(f.fault_role, ''), f.first_time_ns, COALESCE(f.fault, ''), "
          "fe.member, fe.line, fe.time_ns, fe.text, COALESCE(fe.signature, ''), "
          "(SELECT t.time_quality FROM timeline t WHERE t.bundle_id = f.bundle_id AND t.host = "
          "f.host AND t.member = fe.member AND t.line = fe.line LIMIT 1) "
          "FROM findings f LEFT JOIN finding_evidence fe ON fe.finding_id = f.id AND fe.ord = 1 "
          "WHERE f.bundle_id = ? AND f.kind = 'fault' ORDER BY f.rank, f.host, f.finding, f.id");
  size_t rows = 0;
  for (int64_t b : bundle_ids) {
    st.reset();
    st.bind(1, b);
    while (st.step() && rows < kMaxFaultRows) {
      ++rows;
      const std::string id = st.str(0), host = st.str(1);
      const J fj = J::parse(st.str(7), nullptr, false);
      auto get = [&](const char* k) {
        return fj.is_object() && fj.contains(k) && fj[k].is_string() ? fj[k].get<std::string>()
                                                                     : std::string();
      };
      const std::string code = get("code");
      auto& f = by_key[{id, code}];
      const bool fresh = f.id.empty();
      if (fresh) {
        f.id = id;
        f.code = code;
        f.title = st.str(2);
        f.signature = get("signature");
        if (f.signature.empty() && id.rfind("fault.", 0) == 0) f.signature = id.substr(6);
        f.fault_class = st.str(4);
        f.role = st.str(5);
      }
      if (severity_order(st.str(3)) < severity_order(f.severity) || fresh) f.severity = st.str(3);
      if (fj.is_object() && fj.contains("count") && fj["count"].is_number_integer())
        f.count += std::max<int64_t>(1, fj["count"].get<int64_t>());
      else
        f.count += 1;
      if (fj.is_object() && fj.contains("diagnosed_by") && fj["diagnosed_by"].is_array() &&
          !fj["diagnosed_by"].empty())
        f.diagnosed = true;
      hosts[{id, code}].insert(host);
      const auto t = st.opt_i64(6);
      const bool earlier =
          t && (!f.first_ns || *t < *f.first_ns || (*t == *f.first_ns && host < f.first_host));
      if (earlier || (!f.first_ns && !t && (f.first_host.empty() || host < f.first_host))) {
        f.first_ns = t ? t : f.first_ns;
        f.first_host = host;
        if (!st.str(8).empty() || !st.str(11).empty()) {
          FleetLine l;
          l.host = host;
          l.file = st.str(8);
          l.line = st.opt_i64(9).value_or(0);
          l.time_ns = st.opt_i64(10);
          l.text = fleet::clip(st.str(11));
          l.signature = st.str(12);
          l.quality = st.str(13);
          if (l.quality.empty()) l.quality = l.time_ns ? "utc" : "none";
          l.finding = id;
          l.role = "culprit";
          f.first = std::move(l);
        }
      }
    }
  }
  std::vector<FleetFault> out;
  out.reserve(by_key.size());
  for (auto& [key, f] : by_key) {
    const auto& hs = hosts[key];
    f.hosts.assign(hs.begin(), hs.end());
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const FleetFault& a, const FleetFault& b) {
    const auto key = [](const FleetFault& f) {
      return std::make_tuple(!f.diagnosed, f.role != "cause", !f.first_ns.has_value(),
                             f.first_ns.value_or(0), severity_order(f.severity));
    };
    const auto ka = key(a), kb = key(b);
    if (ka != kb) return ka < kb;
    return std::tie(a.first_host, a.id, a.code) < std::tie(b.first_host, b.id, b.code);
  });
  return out;
}

}  // namespace faultline::correlate

namespace faultline::correlate::fleet {

namespace {

// Where a failure begins (docs/fleet.md "Fault events"): the machine and its OS, driver and
// network before CANN, and those before the framework and the user's configuration.
int class_tier(const std::string& c) {
  if (c == "hardware" || c == "os" || c == "driver" || c == "network") return 0;
  if (c == "cann") return 1;
  return 2;
}

}  // namespace

std::optional<Candidate> rule_earliest_fault(const FleetResult& r) {
  const FleetFault* best = nullptr;
  auto key = [](const FleetFault& f) {
    return std::make_tuple(f.role != "cause", !f.first_ns.has_value(), class_tier(f.fault_class),
                           f.first_ns.value_or(0));
  };
  for (const auto& f : r.faults)  // r.faults is ranked: the first of equal keys wins
    if (!best || key(f) < key(*best)) best = &f;
  if (!best) return std::nullopt;
  Candidate k;
  k.rule = "earliest-fault";
  k.host = best->first_host;
  if (best->first) k.lines.push_back(*best->first);
  const std::string name = best->id + (best->code.empty() ? "" : ", code " + best->code) + ", " +
                           (best->fault_class.empty() ? "fault" : best->fault_class);
  k.text = "no HCCL rule decided; " +
           std::string(best->first_ns ? "the earliest timed fault event"
                                      : "no fault event is timed; the best-ranked one") +
           " of a cause class (hardware, OS, driver, network before CANN, framework and user) is " +
           best->title + " (" + name + ") on " + best->first_host +
           (best->hosts.size() > 1 ? " (" + std::to_string(best->hosts.size()) + " hosts have it)"
                                   : std::string()) +
           ", logged " + std::to_string(best->count) + " time(s)";
  k.confidence = best->first_ns ? (best->role == "cause" ? 0.5 : 0.35) : 0.3;
  return k;
}

}  // namespace faultline::correlate::fleet
