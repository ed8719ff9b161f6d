// Loading one side of a comparison from the store.
#include "side.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "../sql.hpp"
#include "faultline/core/mask.hpp"
#include "faultline/core/time.hpp"

namespace faultline::correlate::compare {

using detail::Stmt;

namespace {

std::string source(const std::string& member, int64_t line) {
  if (member.empty()) return {};
  return line > 0 ? member + ":" + std::to_string(line) : member;
}

bool has_alpha(const std::string& s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

// "1746659421", "1746659421.5" or "YYYY-MM-DD HH:MM[:SS]" -> seconds; nullopt otherwise.
std::optional<int64_t> time_value(const std::string& v) {
  if (!v.empty() &&
      std::all_of(v.begin(), v.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }))
    return static_cast<int64_t>(std::strtod(v.c_str(), nullptr));
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  const int n = std::sscanf(v.c_str(), "%4d-%2d-%2d %2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s);
  if (n < 5) return std::nullopt;
  return days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
         h * 3600 + mi * 60 + s;
}

}  // namespace

const CompareRules::Group* group_of(const CompareRules& r, const std::string& id) {
  for (const auto& g : r.groups)
    if (g.id == id) return &g;
  return nullptr;
}

bool tolerant(const CompareRules::Group* g, const std::string& name) {
  if (g == nullptr || g->tolerance_s <= 0) return false;
  return std::any_of(g->tolerant.begin(), g->tolerant.end(),
                     [&](const std::string& t) { return glob_match(t, name); });
}

bool same_values(const std::map<std::string, std::string>& a,
                 const std::map<std::string, std::string>& b, int64_t tolerance_s) {
  if (tolerance_s <= 0) {
    if (a.size() != b.size()) return false;
    return std::equal(a.begin(), a.end(), b.begin(),
                      [](const auto& x, const auto& y) { return x.first == y.first; });
  }
  // every value of each side has one of the other within the tolerance
  auto covered = [&](const std::map<std::string, std::string>& x,
                     const std::map<std::string, std::string>& y) {
    for (const auto& [v, src] : x) {
      const auto tv = time_value(v);
      bool ok = y.count(v) > 0;
      for (auto it = y.begin(); !ok && tv && it != y.end(); ++it) {
        const auto tw = time_value(it->first);
        ok = tw && std::llabs(*tv - *tw) <= tolerance_s;
      }
      if (!ok) return false;
    }
    return true;
  };
  return covered(a, b) && covered(b, a);
}

Side load_side(const DiffInput& in, const CompareRules& rules, bool with_events) {
  Side s;
  sqlite3* db = in.db;
  {
    Stmt st(db, "SELECT path, name, sha256, status FROM bundles WHERE id = ?");
    st.bind(1, in.bundle_id);
    if (!st.step())
      throw std::runtime_error(in.label + ": bundle " + std::to_string(in.bundle_id) +
                               " is not in the database");
    if (st.str(3) != "complete")
      throw std::runtime_error(in.label + ": the analysis of " + st.str(0) + " is not complete (" +
                               st.str(3) + ")");
    s.info.label = in.label;
    s.info.path = st.str(0);
    s.info.name = st.str(1);
    s.info.sha256 = st.str(2);
  }
  {
    Stmt st(db, "SELECT name FROM hosts WHERE bundle_id = ? ORDER BY name");
    st.bind(1, in.bundle_id);
    while (st.step()) {
      s.info.hosts.push_back(st.str(0));
      s.hosts[st.str(0)];
    }
  }
  {
    Stmt st(db, "SELECT DISTINCT host, kind FROM members WHERE bundle_id = ?");
    st.bind(1, in.bundle_id);
    while (st.step()) s.hosts[st.str(0)].kinds.insert(st.str(1));
  }
  {
    // process.<pid>.mapping rows are many and always noise: not read
    Stmt st(db,
            "SELECT f.host, f.name, f.value, COALESCE(m.path, ''), f.line, COALESCE(m.kind, '') "
            "FROM facts f LEFT JOIN members m ON m.id = f.member_id WHERE f.bundle_id = ? AND "
            "f.name NOT LIKE 'process.%.mapping' ORDER BY f.id LIMIT ?");
    st.bind(1, in.bundle_id).bind(2, kMaxFacts + 1);
    int64_t n = 0;
    while (st.step()) {
      if (++n > kMaxFacts) {
        s.notes.push_back(s.info.label + ": more than " + std::to_string(kMaxFacts) +
                          " facts; the rest was not compared");
        break;
      }
      const std::string host = st.str(0);
      const std::string name = st.str(1);
      std::string value = st.str(2);
      const std::string src = source(st.str(3), st.i64(4));
      HostData& h = s.hosts[host];
      if (name == "install.event") {
        h.installs.emplace(value, src);
        continue;
      }
      if (name == "host.boot_time_local" && value > h.boot_local) h.boot_local = value;
      if (name == "host.collected_at" && s.info.collected_at.empty()) s.info.collected_at = value;
      const std::string norm = normalise_fact(rules, name);
      if (norm == "install.event") continue;
      FactVals& fv = h.facts[norm];
      fv.values.emplace(std::move(value), src);
      fv.kinds.insert(st.str(5));
    }
  }
  if (!with_events) return s;
  {
    Stmt st(db,
            "SELECT e.host, e.time_ns, e.text, COALESCE(m.path, ''), e.line FROM events e LEFT "
            "JOIN members m ON m.id = e.member_id WHERE e.bundle_id = ? AND e.sev_rank >= 4 "
            "ORDER BY e.time_ns IS NULL, e.time_ns, m.path, e.line, e.id LIMIT ?");
    st.bind(1, in.bundle_id).bind(2, kMaxErrorLines + 1);
    int64_t n = 0;
    while (st.step()) {
      if (++n > kMaxErrorLines) {
        s.notes.push_back(s.info.label + ": more than " + std::to_string(kMaxErrorLines) +
                          " error-level lines; the later ones were not compared");
        break;
      }
      const std::string t = text::mask_line(st.str(2));
      if (t.empty() || !has_alpha(t)) continue;
      Tally& ta = s.hosts[st.str(0)].templates[t];
      if (ta.count++ == 0) {
        ta.text = t;
        ta.first_ns = st.opt_i64(1);
        ta.example = source(st.str(3), st.i64(4));
      }
    }
  }
  {
    Stmt st(db,
            "SELECT f.host, f.finding, f.kind, f.title, f.first_time_ns, COALESCE(f.fault, ''), "
            "(SELECT COALESCE(fe.member, '') || ':' || COALESCE(fe.line, 0) FROM "
            "finding_evidence fe WHERE fe.finding_id = f.id ORDER BY fe.ord LIMIT 1) FROM "
            "findings f WHERE f.bundle_id = ? ORDER BY f.host, f.finding, f.id");
    st.bind(1, in.bundle_id);
    while (st.step()) {
      HostData& h = s.hosts[st.str(0)];
      const std::string id = st.str(1);
      const std::string kind = st.str(2);
      if (kind != "fault") {
        h.findings.emplace(id, std::make_pair(kind, st.str(3)));
        continue;
      }
      Tally& ta = h.faults[id];
      ta.text = st.str(3);
      ta.first_ns = st.opt_i64(4);
      ta.example = st.str(6);
      const auto j = nlohmann::json::parse(st.str(5), nullptr, false);
      ta.count = j.is_object() && j.contains("count") && j["count"].is_number_integer()
                     ? j["count"].get<int64_t>()
                     : 1;
    }
  }
  return s;
}

}  // namespace faultline::correlate::compare
