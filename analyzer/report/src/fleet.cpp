// Fleet view over several bundles of one job: per-bundle verdicts, which hosts share which root
// cause, where versions drift, and which host failed first.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "render.hpp"

namespace faultline::report::detail {
namespace {

using J = nlohmann::ordered_json;

using HostSet = std::set<std::string>;

std::map<std::string, HostSet> causes_of(const std::vector<Report>& rs) {
  std::map<std::string, HostSet> m;
  for (const auto& r : rs)
    for (const auto& f : r.findings)
      if (f.kind == "root_cause") m[f.id].insert(f.host);
  return m;
}

std::map<std::string, std::map<std::string, HostSet>> drift_of(const std::vector<Report>& rs) {
  std::map<std::string, std::map<std::string, HostSet>> m;
  const auto& names = version_fact_names();
  for (const auto& r : rs)
    for (const auto& f : r.facts)
      if (std::find(names.begin(), names.end(), f.name) != names.end()) m[f.name][f.value].insert(f.host);
  return m;
}

struct First {
  const Report* r = nullptr;
  const TimelineR* t = nullptr;
  std::optional<int64_t> rank;
};

First first_failure(sqlite3* db, const std::vector<Report>& rs) {
  First best;
  for (const auto& r : rs)
    for (const auto& t : r.timeline) {
      if (t.role != "first_failure" || !t.time_ns) continue;
      if (best.t == nullptr || *t.time_ns < *best.t->time_ns ||
          (*t.time_ns == *best.t->time_ns && t.host < best.t->host)) {
        best.r = &r;
        best.t = &t;
      }
    }
  if (best.t != nullptr && db != nullptr) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db,
                           "SELECT e.rank FROM events e JOIN members m ON m.id = e.member_id WHERE "
                           "m.bundle_id = ? AND m.path = ? AND e.line = ? AND e.rank IS NOT NULL "
                           "ORDER BY e.id LIMIT 1",
                           -1, &st, nullptr) == SQLITE_OK) {
      sqlite3_bind_int64(st, 1, best.r->bundle_id);
      sqlite3_bind_text(st, 2, best.t->file.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(st, 3, best.t->line);
      if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) >= 0) best.rank = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  return best;
}

std::string join(const HostSet& s) {
  std::string o;
  for (const auto& h : s) o += (o.empty() ? "" : ", ") + h;
  return o;
}

std::string md_cell(std::string s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n' || c == '\r') o += ' ';
    else o.push_back(c);
  }
  return o.size() > 200 ? o.substr(0, 200) + "…" : o;
}

}  // namespace

std::string render_fleet_md(const std::vector<Report>& rs) {
  std::ostringstream o;
  HostSet hosts, with_cause;
  for (const auto& r : rs) {
    hosts.insert(r.hosts.begin(), r.hosts.end());
    for (const auto& f : r.findings)
      if (f.kind == "root_cause") with_cause.insert(f.host);
  }
  o << "# faultline fleet report\n\n" << rs.size() << " bundles, " << hosts.size() << " hosts, "
    << with_cause.size() << " with a root cause.\n\n## Bundles\n\n| bundle | hosts | verdict |\n|---|---|---|\n";
  for (const auto& r : rs) {
    std::string h;
    for (const auto& x : r.hosts) h += (h.empty() ? "" : ", ") + x;
    o << "| `" << md_cell(r.path) << "` | " << md_cell(h) << " | " << md_cell(verdict(r)) << " |\n";
  }
  o << "\n## Causes\n\n";
  const auto causes = causes_of(rs);
  if (causes.empty()) o << "No root cause on any host.\n";
  else {
    o << "| root cause | hosts | count |\n|---|---|---|\n";
    for (const auto& [id, hs] : causes) o << "| `" << id << "` | " << md_cell(join(hs)) << " | " << hs.size() << " |\n";
  }
  o << "\n## Version drift\n\n";
  const auto drift = drift_of(rs);
  bool any = false;
  for (const auto& [name, values] : drift) {
    if (values.size() < 2) continue;
    if (!any) o << "| fact | value | hosts |\n|---|---|---|\n";
    any = true;
    for (const auto& [v, hs] : values) o << "| `" << name << "` | " << md_cell(v) << " | " << md_cell(join(hs)) << " |\n";
  }
  if (!any) o << "No drift: every version fact has one value across the fleet.\n";
  o << "\n## First failure\n\n";
  const auto first = first_failure(nullptr, rs);
  if (first.t == nullptr) o << "No timed first failure.\n";
  else
    o << "- host `" << first.t->host << "` at " << fmt_time(first.t->time_ns) << " (" << first.t->quality
      << "), `" << loc(first.t->file, first.t->line) << "`"
      << (first.t->finding.empty() ? "" : " (" + first.t->finding + ")") << "\n\n```text\n" << first.t->text
      << "\n```\n";
  return o.str();
}

std::string render_fleet_json(sqlite3* db, const std::vector<Report>& rs) {
  J j;
  j["schema_version"] = 1;
  j["faultline_version"] = kFaultlineVersion();
  j["bundles"] = J::array();
  for (const auto& r : rs) {
    J b = bundle_json(r);
    b["verdict"] = verdict(r);
    b["unclassified"] = J::object();  // signature -> error-level lines no finding cites
    for (const auto& u : r.unclassified) b["unclassified"][u.signature] = u.count;
    b["root_causes"] = J::array();
    b["symptoms"] = J::array();
    for (const auto& f : r.findings) {
      if (f.kind == "root_cause")
        b["root_causes"].push_back(J{{"id", f.id}, {"host", f.host}, {"confidence", std::stod(fmt_conf(f.confidence))}});
      else
        b["symptoms"].push_back(J{{"id", f.id}, {"host", f.host},
                                  {"explained_by", f.explained_by.empty() ? J(nullptr) : J(f.explained_by)}});
    }
    j["bundles"].push_back(std::move(b));
  }
  j["causes"] = J::object();
  for (const auto& [id, hs] : causes_of(rs)) j["causes"][id] = std::vector<std::string>(hs.begin(), hs.end());
  j["drift"] = J::object();
  for (const auto& [name, values] : drift_of(rs)) {
    J v = J::object();
    for (const auto& [val, hs] : values) v[val] = std::vector<std::string>(hs.begin(), hs.end());
    j["drift"][name] = std::move(v);
  }
  const auto first = first_failure(db, rs);
  if (first.t == nullptr) {
    j["first_failure"] = nullptr;
  } else {
    J ev{{"file", first.t->file}, {"line", first.t->line}, {"text", first.t->text},
         {"signature", first.t->signature.empty() ? J(nullptr) : J(first.t->signature)},
         {"finding", first.t->finding.empty() ? J(nullptr) : J(first.t->finding)}};
    j["first_failure"] = J{{"host", first.t->host},
                           {"rank", first.rank ? J(*first.rank) : J(nullptr)},
                           {"time", fmt_time(first.t->time_ns)},
                           {"time_quality", first.t->quality},
                           {"evidence", std::move(ev)}};
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_fleet_html(sqlite3* /*db*/, const std::vector<Report>& rs) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>faultline fleet</title>\n"
    << "<style>body{font:14px/1.45 system-ui,sans-serif;max-width:1200px;margin:24px auto;padding:0 16px}"
    << "table{border-collapse:collapse}td,th{border:1px solid #d6dae3;padding:3px 8px;text-align:left;vertical-align:top}"
    << "th{background:#eef1f6}code{font:12.5px ui-monospace,monospace}</style>\n</head>\n<body>\n"
    << "<h1>faultline fleet report</h1>\n<h2>Bundles</h2>\n<table><tr><th>bundle</th><th>hosts</th><th>verdict</th></tr>\n";
  for (const auto& r : rs) {
    std::string h;
    for (const auto& x : r.hosts) h += (h.empty() ? "" : ", ") + x;
    o << "<tr><td><code>" << html(r.path) << "</code></td><td>" << html(h) << "</td><td>" << html(verdict(r))
      << "</td></tr>\n";
  }
  o << "</table>\n<h2>Causes</h2>\n<table><tr><th>root cause</th><th>hosts</th></tr>\n";
  for (const auto& [id, hs] : causes_of(rs)) o << "<tr><td><code>" << html(id) << "</code></td><td>" << html(join(hs)) << "</td></tr>\n";
  o << "</table>\n<h2>Version drift</h2>\n<table><tr><th>fact</th><th>value</th><th>hosts</th></tr>\n";
  for (const auto& [name, values] : drift_of(rs)) {
    if (values.size() < 2) continue;
    for (const auto& [v, hs] : values)
      o << "<tr><td><code>" << html(name) << "</code></td><td>" << html(v) << "</td><td>" << html(join(hs)) << "</td></tr>\n";
  }
  o << "</table>\n<h2>First failure</h2>\n";
  const auto first = first_failure(nullptr, rs);
  if (first.t == nullptr) o << "<p>No timed first failure.</p>\n";
  else
    o << "<p>host <code>" << html(first.t->host) << "</code> at " << html(fmt_time(first.t->time_ns)) << ", <code>"
      << html(loc(first.t->file, first.t->line)) << "</code></p>\n<pre>" << html(first.t->text) << "</pre>\n";
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace faultline::report::detail
