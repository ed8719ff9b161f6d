// Fleet view over the bundles of one job (docs/fleet.md): which host/rank failed first and by which
// rule, the node's own root cause, clock offsets between hosts, which hosts share which root cause
// and symptom, where versions drift (minorities highlighted), per-host first errors, and every
// bundle's verdict (failed ones with the reason). Readable at 1,000+ bundles: summaries and top-N
// lists in md, every row in json, long lists folded in html. Deterministic bytes.
#include "faultline/correlate/fleet.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "faultline/core/time.hpp"
#include "fleet_sections.hpp"
#include "render.hpp"
#include "shared.hpp"

namespace faultline::report::detail {
namespace {

using J = nlohmann::ordered_json;
using HostSet = std::set<std::string>;
using correlate::FleetLine;
using correlate::FleetResult;

constexpr size_t kTopBundles = 50;      // md/html: bundles listed one by one
constexpr size_t kTopHosts = 20;        // md: per-host first errors and offsets listed
constexpr size_t kHostListChars = 300;  // md cell of a compacted host list

// "1 bundle", "2 bundles"
std::string counted(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// ---------------------------------------------------------------------------------------------
// Loading (light: no evidence rows, no timeline, only version facts)

Report load_lite(sqlite3* db, int64_t id) {
  Report r;
  load_header(db, id, r);
  {
    Stmt st(db,
            "SELECT finding, kind, severity, confidence, host, title, rank, COALESCE(explained_by, "
            "''), explains "
            "FROM findings WHERE bundle_id = ? ORDER BY rank, host, finding, id");
    st.bind(1, id);
    while (st.step()) {
      FindingR f;
      f.id = st.str(0);
      f.kind = st.str(1);
      f.severity = st.str(2);
      f.confidence = st.dbl(3);
      f.host = st.str(4);
      f.title = st.str(5);
      f.rank = static_cast<int>(st.i64(6));
      f.explained_by = st.str(7);
      const auto j = nlohmann::json::parse(st.str(8), nullptr, false);
      if (j.is_array())
        for (const auto& x : j)
          if (x.is_string()) f.explains.push_back(x.get<std::string>());
      r.findings.push_back(std::move(f));
    }
  }
  {
    std::string in;
    for (const auto& n : version_fact_names()) in += (in.empty() ? "'" : ",'") + n + "'";
    const std::string sql =
        "SELECT host, name, value FROM facts WHERE bundle_id = ? AND name IN (" + in +
        ") ORDER BY host, name, value, id";
    Stmt st(db, sql.c_str());
    st.bind(1, id);
    while (st.step()) r.facts.push_back({st.str(0), st.str(1), st.str(2), "", 0});
  }
  {
    Stmt st(db,
            "SELECT member, message FROM warnings WHERE bundle_id = ? AND member = '' ORDER BY "
            "message, id LIMIT 5");
    st.bind(1, id);
    while (st.step()) r.warnings.push_back({st.str(0), st.str(1)});
  }
  {
    // error-level signature hits no finding cites, by signature (as the bundle report counts them)
    Stmt st(
        db,
        "WITH cited AS (SELECT DISTINCT fe.member, fe.line FROM finding_evidence fe JOIN findings "
        "f "
        "ON f.id = fe.finding_id WHERE f.bundle_id = ?1) "
        "SELECT h.signature, COUNT(*) FROM hits h JOIN events e ON e.id = h.event_id LEFT JOIN "
        "members m "
        "ON m.id = e.member_id WHERE h.bundle_id = ?1 AND e.sev_rank >= 4 AND NOT EXISTS (SELECT "
        "1 FROM cited c "
        "WHERE c.member = m.path AND c.line = e.line) GROUP BY h.signature ORDER BY COUNT(*) "
        "DESC, h.signature");
    st.bind(1, id);
    while (st.step()) {
      Unclassified u;
      u.signature = st.str(0);
      u.count = st.i64(1);
      r.unclassified.push_back(std::move(u));
    }
  }
  apply_filter(r);  // docs/suppress.md: findings and signatures, when a filter is active
  return r;
}

struct View {
  std::vector<Report> bundles;  // analysed and failed, sorted by path
  // the quality of fleet-clock times: "assumed_utc" when the reference host's zone is unknown
  // (its wall time is the fleet clock then), else "exact" (docs/report.md "Times")
  std::string fleet_quality = "exact";
  FleetResult fleet;
  HostSet hosts;
  size_t failed = 0;
  std::map<std::string, HostSet> causes, symptoms, unexplained;
  std::map<std::string, HostSet> faults;  // fault.<signature> -> hosts (docs/faults.md)
  struct Drift {
    std::map<std::string, HostSet> values;  // value -> hosts
    std::string majority;
  };
  std::map<std::string, Drift> drift;          // drifting facts only
  std::map<std::string, std::string> uniform;  // facts with one value on every host that has them
};

bool failed(const Report& r) {
  return r.status.rfind("failed", 0) == 0;
}

// The rules digest the analysed bundles share; "" when none is recorded, "mixed" when they were
// analysed with different rules.
std::string fleet_digest(const View& v) {
  std::set<std::string> d;
  for (const auto& r : v.bundles)
    if (!failed(r) && !r.rules_digest.empty()) d.insert(r.rules_digest);
  if (d.empty()) return {};
  return d.size() == 1 ? *d.begin() : std::string("mixed");
}

std::string digest_text(const View& v) {
  const std::string d = fleet_digest(v);
  return d.empty() ? std::string("(not recorded)") : d;
}

View build(sqlite3* db, const std::vector<int64_t>& ids) {
  View v;
  if (auto stored = correlate::load_fleet(db, ids))
    v.fleet = std::move(*stored);
  else
    v.fleet = correlate::analyze_fleet(db, ids);
  // honest times: a year-inferred host-local time of a host whose zone is unknown is of unknown
  // zone too (model.cpp does the same for one bundle)
  std::set<std::string> zoneless;
  for (int64_t id : ids)
    for (const auto& h : zoneless_hosts(db, id)) zoneless.insert(h);
  auto fix = [&](const std::string& host, std::string& q) {
    if (q == "year_inferred" && zoneless.count(host)) q = "assumed_utc";
  };
  if (v.fleet.first_failure) {
    auto& ff = *v.fleet.first_failure;
    fix(ff.host, ff.quality);
    for (auto& l : ff.evidence) fix(l.host, l.quality);
  }
  for (auto& x : v.fleet.faults)
    if (x.first) fix(x.first->host, x.first->quality);
  if (zoneless.count(v.fleet.reference)) v.fleet_quality = "assumed_utc";
  std::set<int64_t> all(ids.begin(), ids.end());
  all.insert(v.fleet.failed_ids.begin(), v.fleet.failed_ids.end());
  for (int64_t id : all) v.bundles.push_back(load_lite(db, id));
  std::stable_sort(v.bundles.begin(), v.bundles.end(), [](const Report& a, const Report& b) {
    return a.path != b.path ? a.path < b.path : a.sha256 < b.sha256;
  });
  std::map<std::string, std::map<std::string, std::set<std::string>>>
      per_fact;  // fact -> host -> values
  for (const auto& r : v.bundles) {
    if (failed(r)) {
      ++v.failed;
      continue;
    }
    v.hosts.insert(r.hosts.begin(), r.hosts.end());
    for (const auto& f : r.findings) {
      if (f.kind == "root_cause") {
        v.causes[f.id].insert(f.host);
      } else if (f.kind == "fault") {
        v.faults[f.id].insert(f.host);
      } else {
        v.symptoms[f.id].insert(f.host);
        if (f.explained_by.empty()) v.unexplained[f.id].insert(f.host);
      }
    }
    for (const auto& f : r.facts) per_fact[f.name][f.host].insert(f.value);
  }
  for (const auto& [name, hosts] : per_fact) {
    std::set<std::set<std::string>> sets;
    for (const auto& [h, vals] : hosts) sets.insert(vals);
    if (sets.size() < 2) {
      std::string val;
      for (const auto& x : *sets.begin()) val += (val.empty() ? "" : ", ") + x;
      v.uniform[name] = val;
      continue;
    }
    auto& d = v.drift[name];
    for (const auto& [h, vals] : hosts)
      for (const auto& x : vals) d.values[x].insert(h);
    size_t best = 0;
    for (const auto& [val, hs] : d.values)
      if (hs.size() > best) {
        best = hs.size();
        d.majority = val;
      }
  }
  return v;
}

// docs/suppress.md: the bundles' suppressed counts summed ("" without a filter).
std::string fleet_suppressed(const View& v) {
  const Filter* fp = active_filter();
  if (fp == nullptr) return {};
  Report sum;
  sum.suppress_file = fp->file;
  sum.min_severity_rank = fp->min_sev_rank;
  for (const auto& r : v.bundles) {
    sum.below_min_lines += r.below_min_lines;
    sum.below_min_faults += r.below_min_faults;
    for (size_t i = 0; i < r.suppressed.size(); ++i) {
      if (sum.suppressed.size() <= i) sum.suppressed.push_back({});
      sum.suppressed[i].findings += r.suppressed[i].findings;
      sum.suppressed[i].lines += r.suppressed[i].lines;
    }
  }
  return suppressed_text(sum);
}

// ---------------------------------------------------------------------------------------------
// Text helpers

// "node01".."node08" without node05 -> "node[01-04,06-08]": readable host lists at scale.
std::string compact(const HostSet& hosts) {
  std::map<std::pair<std::string, size_t>, std::vector<std::pair<long long, std::string>>> groups;
  std::vector<std::string> plain;
  for (const auto& h : hosts) {
    size_t i = h.size();
    while (i > 0 && std::isdigit(static_cast<unsigned char>(h[i - 1]))) --i;
    const size_t nd = h.size() - i;
    if (nd == 0 || nd > 12) {
      plain.push_back(h);
      continue;
    }
    groups[{h.substr(0, i), nd}].push_back({std::stoll(h.substr(i)), h.substr(i)});
  }
  std::vector<std::string> parts;
  for (auto& [key, nums] : groups) {
    std::sort(nums.begin(), nums.end());
    if (nums.size() == 1) {
      parts.push_back(key.first + nums.front().second);
      continue;
    }
    std::string ranges;
    for (size_t a = 0; a < nums.size();) {
      size_t b = a;
      while (b + 1 < nums.size() && nums[b + 1].first == nums[b].first + 1) ++b;
      ranges += (ranges.empty() ? "" : ",") + nums[a].second + (b > a ? "-" + nums[b].second : "");
      a = b + 1;
    }
    parts.push_back(key.first + "[" + ranges + "]");
  }
  parts.insert(parts.end(), plain.begin(), plain.end());
  std::sort(parts.begin(), parts.end());
  std::string o;
  for (const auto& p : parts) o += (o.empty() ? "" : ", ") + p;
  return o;
}

std::string bounded(std::string s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "…";
}

enum class Esc { none, text, prose };

// Table cell: one line, bounded, escaped (md_text / md_prose), pipes escaped.
std::string md_cell(std::string s, size_t max = 200, Esc esc = Esc::text) {
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  s = bounded(s, max);
  if (esc == Esc::text) s = md_text(s);
  if (esc == Esc::prose) s = md_prose(s);
  std::string o;
  for (char c : s) {
    if (c == '|')
      o += "\\|";
    else
      o.push_back(c);
  }
  return o;
}

std::string code(const std::string& s) {
  return md_code(s);
}

void md_block(std::ostringstream& o, const std::string& text) {
  size_t run = 0, best = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    best = std::max(best, run);
  }
  const std::string fence(std::max<size_t>(3, best + 1), '`');
  o << fence << "text\n"
    << text << (text.empty() || text.back() != '\n' ? "\n" : "") << fence << "\n";
}

std::string offset_text(const std::optional<int64_t>& ns) {
  if (!ns) return "unknown";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%+.3f s", static_cast<double>(*ns) / 1e9);
  return buf;
}

std::string spread_text(const std::optional<int64_t>& ns) {
  if (!ns) return "";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(*ns) / 1e9);
  return buf;
}

std::string culprit_words(const correlate::FleetCulprit& u) {
  std::string s = u.host.empty() ? u.address + " (no bundle of the fleet)" : u.host;
  if (u.rank) s += ", rank " + std::to_string(*u.rank);
  if (u.device) s += ", device " + std::to_string(*u.device);
  if (u.logic_device && u.logic_device != u.device)
    s += " (logical " + std::to_string(*u.logic_device) + ")";
  if (!u.device_ip.empty()) s += ", " + u.device_ip;
  return s;
}

std::string who(const correlate::FleetFirstFailure& f) {
  if (f.no_single_root) return "No single root";
  if (f.culprits.size() > 1) {
    std::string s;
    for (const auto& u : f.culprits) s += (s.empty() ? "" : "; ") + culprit_words(u);
    return s;
  }
  std::string s = f.host.empty() ? "(no bundle of the fleet)" : f.host;
  if (f.rank) s += ", rank " + std::to_string(*f.rank);
  if (f.device) s += ", device " + std::to_string(*f.device);
  if (!f.ip.empty()) s += ", " + f.ip;
  return s;
}

std::vector<const correlate::FleetHost*> hosts_by_first(const FleetResult& f) {
  std::vector<const correlate::FleetHost*> v;
  for (const auto& h : f.hosts)
    if (h.first_fleet_ns) v.push_back(&h);
  std::sort(v.begin(), v.end(), [](const auto* a, const auto* b) {
    return *a->first_fleet_ns != *b->first_fleet_ns ? *a->first_fleet_ns < *b->first_fleet_ns
                                                    : a->host < b->host;
  });
  return v;
}

bool noteworthy(const Report& r) {
  if (failed(r)) return true;
  for (const auto& f : r.findings)
    if (f.kind == "root_cause" || f.explained_by.empty()) return true;
  return false;
}

std::string failure_reason(const Report& r) {
  if (!r.warnings.empty()) return r.warnings.front().message;
  const auto p = r.status.find(':');
  return p == std::string::npos ? r.status : r.status.substr(p + 1);
}

// ---------------------------------------------------------------------------------------------
// JSON

J line_json(const FleetLine& l) {
  return J{{"host", l.host},
           {"file", l.file},
           {"line", l.line},
           {"time", l.time_ns ? J(iso_time_q(*l.time_ns, l.quality)) : J(nullptr)},
           {"time_quality", l.quality},
           {"text", l.text},
           {"signature", l.signature.empty() ? J(nullptr) : J(l.signature)},
           {"finding", l.finding.empty() ? J(nullptr) : J(l.finding)},
           {"role", l.role}};
}

J hosts_json(const HostSet& s) {
  return J(std::vector<std::string>(s.begin(), s.end()));
}

}  // namespace

J fleet_json(sqlite3* db, const std::vector<int64_t>& ids) {
  const View v = build(db, ids);
  const auto& f = v.fleet;
  J j;
  j["schema_version"] = 1;
  j["faultline_version"] = kFaultlineVersion();
  {  // added: the rules digest the bundles share (null: not recorded or mixed)
    const std::string d = fleet_digest(v);
    j["rules_digest"] = d.empty() || d == "mixed" ? J(nullptr) : J(d);
  }
  size_t with_cause = 0;
  {
    HostSet hc;
    for (const auto& [id, hs] : v.causes) hc.insert(hs.begin(), hs.end());
    with_cause = hc.size();
  }
  j["summary"] = J{{"bundles", v.bundles.size()},
                   {"analysed", v.bundles.size() - v.failed},
                   {"failed", v.failed},
                   {"hosts", v.hosts.size()},
                   {"hosts_with_root_cause", with_cause}};
  j["bundles"] = J::array();
  for (const auto& r : v.bundles) {
    J b = bundle_json(r);
    if (failed(r)) {
      b["status"] = "failed";
      b["error"] = failure_reason(r);
      b["verdict"] = "Not analysed: " + failure_reason(r);
      j["bundles"].push_back(std::move(b));
      continue;
    }
    b["verdict"] = verdict(r);
    b["unclassified"] = J::object();
    for (const auto& u : r.unclassified) b["unclassified"][u.signature] = u.count;
    b["root_causes"] = J::array();
    b["symptoms"] = J::array();
    J faults = J::array();  // added (docs/faults.md): fault events of the bundle, in rank order
    for (const auto& x : r.findings) {
      if (x.kind == "root_cause")
        b["root_causes"].push_back(
            J{{"id", x.id}, {"host", x.host}, {"confidence", std::stod(fmt_conf(x.confidence))}});
      else if (x.kind == "fault")
        faults.push_back(
            J{{"id", x.id},
              {"host", x.host},
              {"explained_by", x.explained_by.empty() ? J(nullptr) : J(x.explained_by)}});
      else
        b["symptoms"].push_back(
            J{{"id", x.id},
              {"host", x.host},
              {"explained_by", x.explained_by.empty() ? J(nullptr) : J(x.explained_by)}});
    }
    if (!faults.empty()) b["faults"] = std::move(faults);
    j["bundles"].push_back(std::move(b));
  }
  j["causes"] = J::object();
  for (const auto& [id, hs] : v.causes) j["causes"][id] = hosts_json(hs);
  j["symptoms"] = J::object();  // added: symptom -> hosts (unexplained on the node itself)
  for (const auto& [id, hs] : v.symptoms) {
    auto it = v.unexplained.find(id);
    j["symptoms"][id] =
        J{{"hosts", hosts_json(hs)},
          {"unexplained_on_node", it == v.unexplained.end() ? J::array() : hosts_json(it->second)}};
  }
  j["faults"] = fleet_faults_json(f);  // added (issue 34): docs/fleet.md "Fault events"
  j["drift"] = J::object();
  j["drift_majority"] = J::object();  // added: the value most hosts have, per drifting fact
  for (const auto& [name, d] : v.drift) {
    J x = J::object();
    for (const auto& [val, hs] : d.values) x[val] = hosts_json(hs);
    j["drift"][name] = std::move(x);
    j["drift_majority"][name] = d.majority;
  }
  j["versions"] = J::object();  // added: facts with one value on every host
  for (const auto& [name, val] : v.uniform) j["versions"][name] = val;
  if (!f.first_failure) {
    j["first_failure"] = nullptr;
  } else {
    const auto& ff = *f.first_failure;
    J ev = ff.evidence.empty() ? J(nullptr) : line_json(ff.evidence.front());
    J lines = J::array();
    for (const auto& l : ff.evidence) lines.push_back(line_json(l));
    j["first_failure"] =
        J{{"host", ff.host.empty() ? J(nullptr) : J(ff.host)},
          {"rank", ff.rank ? J(*ff.rank) : J(nullptr)},
          {"time", ff.time_ns ? J(iso_time_q(*ff.time_ns, ff.quality)) : J(nullptr)},
          {"time_quality", ff.quality},
          {"evidence", std::move(ev)},
          {"device", ff.device ? J(*ff.device) : J(nullptr)},
          {"ip", ff.ip.empty() ? J(nullptr) : J(ff.ip)},
          {"group", ff.group.empty() ? J(nullptr) : J(ff.group)},
          {"fleet_time", ff.fleet_ns ? J(iso_time_q(*ff.fleet_ns, v.fleet_quality)) : J(nullptr)},
          {"rule", ff.rule},
          {"rule_text", ff.rule_text},
          {"confidence", std::stod(fmt_conf(ff.confidence))},
          {"summary", ff.summary},
          {"root_cause", ff.root_cause.empty()
                             ? J(nullptr)
                             : J{{"id", ff.root_cause},
                                 {"title", ff.root_cause_title},
                                 {"confidence", std::stod(fmt_conf(ff.root_cause_confidence))}}},
          {"explains", J{{"hosts", ff.explains_hosts}, {"symptoms", ff.explains_symptoms}}},
          {"evidence_lines", std::move(lines)}};
    // added (docs/fleet.md "Decision procedure")
    J cs = J::array();
    for (const auto& u : ff.culprits)
      cs.push_back(J{{"host", u.host.empty() ? J(nullptr) : J(u.host)},
                     {"rank", u.rank ? J(*u.rank) : J(nullptr)},
                     {"device", u.device ? J(*u.device) : J(nullptr)},
                     {"logic_device", u.logic_device ? J(*u.logic_device) : J(nullptr)},
                     {"device_ip", u.device_ip.empty() ? J(nullptr) : J(u.device_ip)},
                     {"pid", u.pid ? J(*u.pid) : J(nullptr)},
                     {"address", u.address.empty() ? J(nullptr) : J(u.address)}});
    auto& jf = j["first_failure"];
    jf["culprits"] = std::move(cs);
    jf["chain"] = ff.chain;
    jf["no_single_root"] = ff.no_single_root;
    jf["reason"] = ff.reason.empty() ? J(nullptr) : J(ff.reason);
    jf["logic_device"] = ff.logic_device ? J(*ff.logic_device) : J(nullptr);
    jf["device_ip"] = ff.device_ip.empty() ? J(nullptr) : J(ff.device_ip);
    jf["agreed"] = ff.agreed;
    jf["disagreed"] = ff.disagreed;
    add_answer_json(jf, ff);  // added (issue 34): vendor_code, cycle
  }
  j["suspects"] = J::array();
  for (const auto& s : f.suspects)
    j["suspects"].push_back(J{{"host", s.host.empty() ? J(nullptr) : J(s.host)},
                              {"rank", s.rank ? J(*s.rank) : J(nullptr)},
                              {"rule", s.rule},
                              {"detail", s.detail}});
  J clock = J::object();
  clock["reference"] = f.reference.empty() ? J(nullptr) : J(f.reference);
  clock["offsets"] = J::array();
  for (const auto& h : f.hosts) {
    if (!h.offset_ns) continue;
    clock["offsets"].push_back(
        J{{"host", h.host},
          {"offset_s", static_cast<double>(*h.offset_ns) / 1e9},
          {"events", h.offset_events},
          {"spread_s",
           h.offset_spread_ns ? J(static_cast<double>(*h.offset_spread_ns) / 1e9) : J(nullptr)},
          {"method", h.offset_method},
          {"applied", h.offset_applied}});
  }
  j["clock"] = std::move(clock);
  j["hccl"] = J{{"exec_timeout_s", f.exec_timeout_s},
                {"connect_timeout_s", f.connect_timeout_s},
                {"source", f.timeouts_source}};
  j["hosts"] = J::array();
  for (const auto& h : f.hosts) {
    J ips = J::array();
    for (const auto& ip : h.ips) ips.push_back(J{{"ip", ip.ip}, {"source", ip.source}});
    j["hosts"].push_back(
        J{{"host", h.host},
          {"ips", std::move(ips)},
          {"ranks", h.ranks},
          {"hccl_errors", h.hccl_errors},
          {"silent", h.silent},
          {"first_error", h.first ? line_json(*h.first) : J(nullptr)},
          {"first_error_fleet_time",
           h.first_fleet_ns ? J(iso_time_q(*h.first_fleet_ns, v.fleet_quality)) : J(nullptr)},
          {"first_error_class", h.first_class.empty() ? J(nullptr) : J(h.first_class)}});
  }
  j["roster"] = J::array();  // added: every rank with its identity
  for (const auto& r : f.ranks)
    j["roster"].push_back(J{{"rank", r.rank},
                            {"host", r.host},
                            {"pid", r.pid ? J(*r.pid) : J(nullptr)},
                            {"group", r.group.empty() ? J(nullptr) : J(r.group)},
                            {"device", r.device ? J(*r.device) : J(nullptr)},
                            {"logic_device", r.logic_device ? J(*r.logic_device) : J(nullptr)},
                            {"device_ip", r.device_ip.empty() ? J(nullptr) : J(r.device_ip)},
                            {"server_ip", r.server_ip.empty() ? J(nullptr) : J(r.server_ip)},
                            {"size", r.size ? J(*r.size) : J(nullptr)},
                            {"source", r.source}});
  j["notes"] = f.notes;
  return j;
}

std::string render_fleet_json(sqlite3* db, const std::vector<int64_t>& ids) {
  return fleet_json(db, ids).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// ---------------------------------------------------------------------------------------------
// Markdown

std::string render_fleet_md(sqlite3* db, const std::vector<int64_t>& ids) {
  const View v = build(db, ids);
  const auto& f = v.fleet;
  std::ostringstream o;
  HostSet with_cause;
  for (const auto& [id, hs] : v.causes) with_cause.insert(hs.begin(), hs.end());
  o << "# faultline fleet report\n\n" << counted(v.bundles.size(), "bundle");
  if (v.failed > 0) o << " (" << v.failed << " could not be read)";
  o << ", " << counted(v.hosts.size(), "host") << ", " << with_cause.size()
    << " with a root cause.\n\n";
  o << "faultline " << kFaultlineVersion() << ", rules " << md_code(digest_text(v)) << "\n\n";
  if (const auto sup = fleet_suppressed(v); !sup.empty())
    o << md_text(sup) << " (the first failure is not filtered).\n\n";

  o << "## First failure\n\n";
  if (!f.first_failure) {
    o << "No timed first failure.\n\n";
  } else {
    const auto& ff = *f.first_failure;
    o << "**" << md_cell(who(ff), 300, Esc::prose) << "**";
    if (ff.time_ns) o << " at " << fmt_time_q(ff.time_ns, ff.quality) << " (" << ff.quality << ")";
    o << " · rule " << code(ff.rule) << md_text(vendor_words(ff)) << " · confidence "
      << fmt_conf(ff.confidence) << "\n\n";
    o << md_prose(ff.summary) << "\n\n";
    if (ff.rule_text != ff.reason) o << "- Rule of inference: " << md_prose(ff.rule_text) << "\n";
    if (ff.no_single_root && ff.summary.find(ff.reason) == std::string::npos)
      o << "- No single root: " << md_prose(ff.reason) << "\n";
    if (!ff.cycle.empty()) o << "- Cycle: " << md_cell(cycle_words(ff), 2000) << "\n";
    if (ff.culprits.size() > 1)
      for (const auto& u : ff.culprits)
        o << "- Culprit: " << md_cell(culprit_words(u), 300) << "\n";
    if (!ff.chain.empty()) {
      std::string ch;
      for (const auto& h : ff.chain) ch += (ch.empty() ? "" : " -> ") + h;
      o << "- Wait chain: " << md_cell(ch, 2000) << "\n";
    }
    if (!ff.agreed.empty() || !ff.disagreed.empty()) {
      std::string a, d;
      for (const auto& x : ff.agreed) a += (a.empty() ? "" : ", ") + x;
      for (const auto& x : ff.disagreed) d += (d.empty() ? "" : ", ") + x;
      o << "- Other rules: agreed " << md_text(a.empty() ? "none" : a) << "; named someone else "
        << md_text(d.empty() ? "none" : d) << "\n";
    }
    if (!ff.root_cause.empty())
      o << "- Node root cause: " << code(ff.root_cause) << ": " << md_prose(ff.root_cause_title)
        << " (confidence " << fmt_conf(ff.root_cause_confidence) << ")\n";
    else
      o << "- Node root cause: none of the catalog fired on "
        << (ff.host.empty() ? "that node" : md_text(ff.host)) << "\n";
    if (!ff.explains_hosts.empty()) {
      HostSet hs(ff.explains_hosts.begin(), ff.explains_hosts.end());
      o << "- Explains: ";
      for (size_t i = 0; i < ff.explains_symptoms.size(); ++i)
        o << (i ? ", " : "") << code(ff.explains_symptoms[i]);
      o << (ff.explains_symptoms.empty() ? "the collective errors" : "") << " on " << hs.size()
        << " other host(s): " << md_text(bounded(compact(hs), kHostListChars)) << "\n";
    }
    if (!ff.group.empty())
      o << "- Communicator: " << code(md_cell(ff.group, 200, Esc::none)) << "\n";
    o << "- HCCL_EXEC_TIMEOUT " << f.exec_timeout_s << " s, HCCL_CONNECT_TIMEOUT "
      << f.connect_timeout_s << " s (" << md_text(f.timeouts_source) << ")\n";
    if (ff.fleet_ns && ff.time_ns && *ff.fleet_ns != *ff.time_ns)
      o << "- In the reference clock (" << md_text(f.reference)
        << "): " << fmt_time_q(ff.fleet_ns, v.fleet_quality) << "\n";
    o << "\n### Evidence\n\n";
    // lines of the same role, signature and message template (broadcasts of every host) are
    // one entry with the number of hosts (shared.hpp; every line is in the json report)
    std::map<std::string, std::set<std::string>> same;
    for (const auto& l : ff.evidence)
      same[l.role + '\x01' + l.signature + '\x01' + mask_line(l.text)].insert(l.host);
    // and the same role and signature on one host seen through another file (dmesg and the
    // syslog copy of one kernel line) is one entry naming how many more files show it
    std::map<std::string, size_t> observers;
    for (const auto& l : ff.evidence) ++observers[l.role + '\x01' + l.signature + '\x01' + l.host];
    std::set<std::string> done, done_host;
    for (const auto& l : ff.evidence) {
      const std::string key = l.role + '\x01' + l.signature + '\x01' + mask_line(l.text);
      const std::string on_host = l.role + '\x01' + l.signature + '\x01' + l.host;
      if (!done.insert(key).second) continue;
      if (!l.signature.empty() && !done_host.insert(on_host).second) continue;
      o << "- " << l.role << " · " << code(md_cell(l.host, 200, Esc::none)) << " · "
        << code(loc(l.file, l.line));
      if (l.time_ns) o << " · " << fmt_time_q(l.time_ns, l.quality);
      if (!l.signature.empty()) o << " · " << code(l.signature);
      if (const size_t n = observers[on_host]; n > 1 && !l.signature.empty())
        o << " · " << n - 1 << " more line" << (n == 2 ? "" : "s") << " of it on this host";
      if (same[key].size() > 1) o << " · the same on " << same[key].size() - 1 << " more hosts";
      o << "\n\n";
      md_block(o, cut_line(l.text, 300));  // the whole line: json
      o << "\n";
    }
  }
  if (!f.suspects.empty()) {
    o << "### Other suspects\n\n| host | rank | rule | detail |\n|---|---|---|---|\n";
    for (const auto& s : f.suspects)
      o << "| " << md_cell(s.host) << " | " << (s.rank ? std::to_string(*s.rank) : "") << " | "
        << code(s.rule) << " | " << md_cell(s.detail, 400, Esc::prose) << " |\n";
    o << "\n";
  }

  o << "## Clock offsets\n\n";
  {
    std::vector<const correlate::FleetHost*> rows;
    for (const auto& h : f.hosts)
      if (h.offset_ns) rows.push_back(&h);
    if (rows.empty()) {
      o << "No event shared by two hosts: cross-host order uses each host's own clock.\n\n";
    } else {
      o << "Offsets of each host clock against " << code(f.reference)
        << ", from events every node logged (docs/fleet.md); "
        << "offsets of 2 s or more are removed before ordering first errors.\n\n";
      std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
        return std::llabs(*a->offset_ns) > std::llabs(*b->offset_ns);
      });
      o << "| host | offset | shared events | spread | from | applied "
           "|\n|---|---|---|---|---|---|\n";
      for (size_t i = 0; i < rows.size() && i < kTopHosts; ++i) {
        const auto* h = rows[i];
        o << "| " << md_cell(h->host) << " | " << offset_text(h->offset_ns) << " | "
          << h->offset_events << " | " << spread_text(h->offset_spread_ns) << " | "
          << md_cell(h->offset_method) << " | " << (h->offset_applied ? "yes" : "no") << " |\n";
      }
      if (rows.size() > kTopHosts)
        o << "\n"
          << rows.size() - kTopHosts << " more hosts with smaller offsets (json: clock.offsets).\n";
      o << "\n";
    }
  }

  o << "## Causes\n\n";
  if (v.causes.empty()) {
    o << "No root cause on any host.\n\n";
  } else {
    o << "| root cause | hosts | count |\n|---|---|---|\n";
    for (const auto& [id, hs] : v.causes)
      o << "| " << code(id) << " | " << md_cell(compact(hs), kHostListChars) << " | " << hs.size()
        << " |\n";
    o << "\n";
  }
  if (!v.symptoms.empty()) {
    o << "## Symptoms\n\n| symptom | hosts | count | unexplained on the node "
         "|\n|---|---|---|---|\n";
    for (const auto& [id, hs] : v.symptoms) {
      auto it = v.unexplained.find(id);
      const size_t un = it == v.unexplained.end() ? 0 : it->second.size();
      o << "| " << code(id) << " | " << md_cell(compact(hs), kHostListChars) << " | " << hs.size()
        << " | " << un;
      if (un > 0 && f.first_failure && !f.first_failure->host.empty())
        o << " (fleet: first failure " << md_cell(f.first_failure->host) << ")";
      o << " |\n";
    }
    o << "\n";
  }

  fleet_faults_md(o, f);
  o << "## Version drift\n\n";
  if (v.drift.empty()) {
    o << "No drift: every version fact has one value across the fleet.\n\n";
  } else {
    o << "| fact | value | hosts | count |\n|---|---|---|---|\n";
    for (const auto& [name, d] : v.drift)
      for (const auto& [val, hs] : d.values) {
        const bool minority = val != d.majority;
        o << "| " << code(name) << " | "
          << (minority ? "**" + md_cell(val) + "** (minority)" : md_cell(val)) << " | "
          << md_cell(compact(hs), kHostListChars) << " | " << hs.size() << " |\n";
      }
    o << "\n";
  }
  if (!v.uniform.empty()) {
    o << "Same on every host: ";
    bool first = true;
    for (const auto& [name, val] : v.uniform) {
      o << (first ? "" : ", ") << code(name) << " " << md_cell(val, 80);
      first = false;
    }
    o << ".\n\n";
  }

  const auto firsts = hosts_by_first(f);
  if (!firsts.empty()) {
    o << "## First errors per host\n\nEarliest first, in the reference clock.\n\n"
      << "| host | time (fleet) | class | signature | where |\n|---|---|---|---|---|\n";
    for (size_t i = 0; i < firsts.size() && i < kTopHosts; ++i) {
      const auto* h = firsts[i];
      o << "| " << md_cell(h->host) << " | " << fmt_time_q(h->first_fleet_ns, v.fleet_quality)
        << " | " << h->first_class << " | " << code(md_cell(h->first->signature, 200, Esc::none))
        << " | " << code(loc(h->first->file, h->first->line)) << " |\n";
    }
    if (firsts.size() > kTopHosts)
      o << "\n" << firsts.size() - kTopHosts << " more hosts (json: hosts).\n";
    o << "\n";
  }

  o << "## Bundles\n\n";
  {
    std::vector<const Report*> shown;
    size_t quiet = 0;
    for (const auto& r : v.bundles) {
      if (v.bundles.size() <= kTopBundles || (noteworthy(r) && shown.size() < kTopBundles))
        shown.push_back(&r);
      else
        ++quiet;
    }
    o << "| bundle | hosts | verdict |\n|---|---|---|\n";
    for (const auto* r : shown) {
      std::string h;
      for (const auto& x : r->hosts) h += (h.empty() ? "" : ", ") + x;
      o << "| " << code(md_cell(r->path, 200, Esc::none)) << " | " << md_cell(h) << " | "
        << md_cell(failed(*r) ? "NOT ANALYSED: " + failure_reason(*r) : verdict(*r), 400,
                   Esc::prose)
        << " |\n";
    }
    if (quiet > 0) o << "\n" << quiet << " more bundles not listed (json: bundles).\n";
    o << "\n";
  }
  if (!f.notes.empty()) {
    o << "## Notes\n\n";
    for (const auto& n : f.notes) o << "- " << md_prose(n) << "\n";
    o << "\n";
  }
  return o.str();
}

// ---------------------------------------------------------------------------------------------
// HTML

std::string render_fleet_html(sqlite3* db, const std::vector<int64_t>& ids) {
  const View v = build(db, ids);
  const auto& f = v.fleet;
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta http-equiv=\"Content-Security-Policy\" content=\"" << kReportCsp
    << "\">\n<title>faultline "
       "fleet</title>\n"
    << "<style>body{font:14px/1.45 system-ui,sans-serif;max-width:1200px;margin:24px "
       "auto;padding:0 16px;color:#1d2330}"
    << "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d6dae3;padding:3px "
       "8px;text-align:left;vertical-align:top}"
    << "th{background:#eef1f6}code{font:12.5px ui-monospace,monospace}"
    << "pre{background:#f4f6fa;border:1px solid #e1e5ee;padding:6px "
       "8px;white-space:pre-wrap;word-break:break-all;margin:4px 0 10px}"
    << ".first{font-size:16px;padding:10px 14px;border-left:6px solid #b3261e;background:#fdf0ef}"
    << ".minority{background:#fff4ec;font-weight:600}details>summary{cursor:pointer;font-weight:"
       "600;margin:6px 0}"
    << ".muted{color:#6b7385}</style>\n</head>\n<body>\n<h1>faultline fleet report</h1>\n";
  HostSet with_cause;
  for (const auto& [id, hs] : v.causes) with_cause.insert(hs.begin(), hs.end());
  o << "<p>" << counted(v.bundles.size(), "bundle")
    << (v.failed ? " (" + std::to_string(v.failed) + " could not be read)" : "") << ", "
    << counted(v.hosts.size(), "host") << ", " << with_cause.size() << " with a root cause.</p>\n";
  o << "<p class=\"muted\">faultline " << html(kFaultlineVersion()) << ", rules <code>"
    << html(digest_text(v)) << "</code></p>\n";
  if (const auto sup = fleet_suppressed(v); !sup.empty())
    o << "<p>" << html(sup) << " (the first failure is not filtered).</p>\n";

  o << "<h2>First failure</h2>\n";
  if (!f.first_failure) {
    o << "<p>No timed first failure.</p>\n";
  } else {
    const auto& ff = *f.first_failure;
    o << "<div class=\"first\"><b>" << html(who(ff)) << "</b>"
      << (ff.time_ns
              ? " at " + html(fmt_time_q(ff.time_ns, ff.quality)) + " (" + html(ff.quality) + ")"
              : "")
      << " &middot; rule <code>" << html(ff.rule) << "</code>" << html(vendor_words(ff))
      << " &middot; confidence " << fmt_conf(ff.confidence) << "<br>" << html(ff.summary)
      << "</div>\n<ul>\n";
    if (ff.rule_text != ff.reason)
      o << "<li>Rule of inference: " << html(ff.rule_text) << "</li>\n";
    if (ff.no_single_root && ff.summary.find(ff.reason) == std::string::npos)
      o << "<li>No single root: " << html(ff.reason) << "</li>\n";
    if (!ff.cycle.empty()) o << "<li>Cycle: " << html(cycle_words(ff)) << "</li>\n";
    if (ff.culprits.size() > 1)
      for (const auto& u : ff.culprits) o << "<li>Culprit: " << html(culprit_words(u)) << "</li>\n";
    if (!ff.chain.empty()) {
      std::string ch;
      for (const auto& h : ff.chain) ch += (ch.empty() ? "" : " -> ") + h;
      o << "<li>Wait chain: " << html(ch) << "</li>\n";
    }
    if (!ff.root_cause.empty())
      o << "<li>Node root cause: <code>" << html(ff.root_cause)
        << "</code>: " << html(ff.root_cause_title) << " (confidence "
        << fmt_conf(ff.root_cause_confidence) << ")</li>\n";
    if (!ff.explains_hosts.empty())
      o << "<li>Explains the collective errors on " << ff.explains_hosts.size()
        << " other host(s): "
        << html(compact(HostSet(ff.explains_hosts.begin(), ff.explains_hosts.end()))) << "</li>\n";
    if (!ff.group.empty()) o << "<li>Communicator: <code>" << html(ff.group) << "</code></li>\n";
    o << "<li>HCCL_EXEC_TIMEOUT " << f.exec_timeout_s << " s, HCCL_CONNECT_TIMEOUT "
      << f.connect_timeout_s << " s (" << html(f.timeouts_source) << ")</li>\n</ul>\n";
    o << "<details open><summary>Evidence (" << ff.evidence.size() << ")</summary>\n";
    for (const auto& l : ff.evidence)
      o << "<div><span class=\"muted\">" << html(l.role) << "</span> <code>" << html(l.host)
        << "</code> <code>" << html(loc(l.file, l.line)) << "</code> "
        << html(fmt_time_q(l.time_ns, l.quality))
        << (l.signature.empty() ? "" : " <code>" + html(l.signature) + "</code>") << "<pre>"
        << html(l.text) << "</pre></div>\n";
    o << "</details>\n";
  }
  fleet_pictures_html(
      o, f, v.fleet_quality);  // added (issue 34): wait chain and first errors as inline SVG
  if (!f.suspects.empty()) {
    o << "<details><summary>Other suspects (" << f.suspects.size()
      << ")</summary><table><tr><th>host</th><th>rank</th>"
      << "<th>rule</th><th>detail</th></tr>\n";
    for (const auto& s : f.suspects)
      o << "<tr><td>" << html(s.host) << "</td><td>" << (s.rank ? std::to_string(*s.rank) : "")
        << "</td><td><code>" << html(s.rule) << "</code></td><td>" << html(s.detail)
        << "</td></tr>\n";
    o << "</table></details>\n";
  }

  o << "<h2>Clock offsets</h2>\n";
  {
    size_t n = 0;
    for (const auto& h : f.hosts) n += h.offset_ns ? 1 : 0;
    if (n == 0) {
      o << "<p>No event shared by two hosts: cross-host order uses each host's own clock.</p>\n";
    } else {
      o << "<p>Against <code>" << html(f.reference)
        << "</code>; offsets of 2 s or more are removed before ordering.</p>\n"
        << "<details" << (n <= kTopHosts ? " open" : "") << "><summary>" << n
        << " hosts</summary><table><tr><th>host</th>"
        << "<th>offset</th><th>shared "
           "events</th><th>spread</th><th>from</th><th>applied</th></tr>\n";
      for (const auto& h : f.hosts) {
        if (!h.offset_ns) continue;
        o << "<tr" << (h.offset_applied ? " class=\"minority\"" : "") << "><td>" << html(h.host)
          << "</td><td>" << html(offset_text(h.offset_ns)) << "</td><td>" << h.offset_events
          << "</td><td>" << html(spread_text(h.offset_spread_ns)) << "</td><td>"
          << html(h.offset_method) << "</td><td>" << (h.offset_applied ? "yes" : "no")
          << "</td></tr>\n";
      }
      o << "</table></details>\n";
    }
  }

  o << "<h2>Causes</h2>\n";
  if (v.causes.empty())
    o << "<p>No root cause on any host.</p>\n";
  else {
    o << "<table><tr><th>root cause</th><th>hosts</th><th>count</th></tr>\n";
    for (const auto& [id, hs] : v.causes)
      o << "<tr><td><code>" << html(id) << "</code></td><td>" << html(compact(hs)) << "</td><td>"
        << hs.size() << "</td></tr>\n";
    o << "</table>\n";
  }
  if (!v.symptoms.empty()) {
    o << "<h2>Symptoms</h2>\n<table><tr><th>symptom</th><th>hosts</th><th>count</"
         "th><th>unexplained on the node</th></tr>\n";
    for (const auto& [id, hs] : v.symptoms) {
      auto it = v.unexplained.find(id);
      o << "<tr><td><code>" << html(id) << "</code></td><td>" << html(compact(hs)) << "</td><td>"
        << hs.size() << "</td><td>" << (it == v.unexplained.end() ? 0 : it->second.size())
        << "</td></tr>\n";
    }
    o << "</table>\n";
  }
  fleet_faults_html(o, f);
  o << "<h2>Version drift</h2>\n";
  if (v.drift.empty())
    o << "<p>No drift: every version fact has one value across the fleet.</p>\n";
  else {
    o << "<table><tr><th>fact</th><th>value</th><th>hosts</th><th>count</th></tr>\n";
    for (const auto& [name, d] : v.drift)
      for (const auto& [val, hs] : d.values) {
        const bool minority = val != d.majority;
        o << "<tr" << (minority ? " class=\"minority\"" : "") << "><td><code>" << html(name)
          << "</code></td><td>" << html(val) << (minority ? " (minority)" : "") << "</td><td>"
          << html(compact(hs)) << "</td><td>" << hs.size() << "</td></tr>\n";
      }
    o << "</table>\n";
  }
  const auto firsts = hosts_by_first(f);
  if (!firsts.empty()) {
    o << "<h2>First errors per host</h2>\n<details" << (firsts.size() <= kTopHosts ? " open" : "")
      << "><summary>" << firsts.size()
      << " hosts, earliest first (reference clock)</summary><table><tr><th>host</th><th>time "
         "(fleet)</th>"
      << "<th>class</th><th>signature</th><th>where</th></tr>\n";
    for (const auto* h : firsts)
      o << "<tr><td>" << html(h->host) << "</td><td>"
        << html(fmt_time_q(h->first_fleet_ns, v.fleet_quality)) << "</td><td>"
        << html(h->first_class) << "</td><td><code>" << html(h->first->signature)
        << "</code></td><td><code>" << html(loc(h->first->file, h->first->line))
        << "</code></td></tr>\n";
    o << "</table></details>\n";
  }
  o << "<h2>Bundles</h2>\n<details" << (v.bundles.size() <= kTopBundles ? " open" : "")
    << "><summary>" << counted(v.bundles.size(), "bundle")
    << "</summary><table><tr><th>bundle</th><th>hosts</th><th>verdict</th></tr>\n";
  for (const auto& r : v.bundles) {
    std::string h;
    for (const auto& x : r.hosts) h += (h.empty() ? "" : ", ") + x;
    o << "<tr><td><code>" << html(r.path) << "</code></td><td>" << html(h) << "</td><td>"
      << html(failed(r) ? "NOT ANALYSED: " + failure_reason(r) : verdict(r)) << "</td></tr>\n";
  }
  o << "</table></details>\n";
  if (!f.notes.empty()) {
    o << "<h2>Notes</h2>\n<ul>\n";
    for (const auto& n : f.notes) o << "<li>" << html(n) << "</li>\n";
    o << "</ul>\n";
  }
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace faultline::report::detail
