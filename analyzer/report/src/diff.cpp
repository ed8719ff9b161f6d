// The comparison views (docs/compare.md): `faultline diff GOOD BAD` in md, json, html and the
// summary form, and the "Nodes against the job" section `fleet --diff` adds to the fleet report.
// Deterministic bytes: everything comes sorted from correlate::compare_bundles.
#include "faultline/report/diff.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "faultline/core/time.hpp"
#include "render.hpp"

namespace faultline::report {

namespace {

using J = nlohmann::ordered_json;
using detail::html;
using detail::md_code;
using detail::md_text;

constexpr size_t kMdRows = 50;    // md/html: rows listed per table (json has every row)
constexpr size_t kMdValue = 300;  // md: characters of a value shown (json has every value)

// The first kMdValue bytes of a value (on a UTF-8 boundary), "…" when cut.
std::string clipped(const std::string& s) {
  if (s.size() <= kMdValue) return s;
  size_t n = kMdValue;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "…";
}

std::string time_text(const std::optional<int64_t>& ns) {
  return ns ? format_utc(*ns) : std::string("-");
}

J opt_time(const std::optional<int64_t>& ns) {
  return ns ? J(format_utc(*ns)) : J(nullptr);
}

J side_json(const correlate::DiffSide& s) {
  return J{{"label", s.label},
           {"path", s.path},
           {"name", s.name},
           {"sha256", s.sha256},
           {"collected_at", s.collected_at},
           {"hosts", s.hosts}};
}

J values_json(const std::vector<correlate::DiffValue>& v) {
  J a = J::array();
  for (const auto& x : v) a.push_back(J{{"value", x.value}, {"source", x.source}});
  return a;
}

J event_json(const correlate::EventChange& e) {
  return J{{"host", e.host},
           {"key", e.key},
           {"text", e.text},
           {"change", e.change},
           {"good_count", e.good_count},
           {"bad_count", e.bad_count},
           {"good_first", opt_time(e.good_first_ns)},
           {"bad_first", opt_time(e.bad_first_ns)},
           {"example", e.example}};
}

std::string render_json(const correlate::Diff& d) {
  J j;
  j["faultline_version"] = detail::kFaultlineVersion();
  j["verdict"] = d.verdict;
  j["meaningful"] = d.meaningful;
  j["good"] = side_json(d.good);
  j["bad"] = side_json(d.bad);
  j["host_pairs"] = J::array();
  for (const auto& [g, b] : d.host_pairs) j["host_pairs"].push_back(J{{"good", g}, {"bad", b}});
  j["facts"] = J::array();
  for (const auto& f : d.facts)
    j["facts"].push_back(
        J{{"group", f.group},
          {"group_title", f.group_title},
          {"host", f.host},
          {"name", f.name},
          {"change", f.change},
          {"good", values_json(f.good)},
          {"bad", values_json(f.bad)},
          {"explained_by", f.explained_by.empty() ? J(nullptr) : J(f.explained_by)}});
  j["installs"] = J::array();
  for (const auto& i : d.installs)
    j["installs"].push_back(J{{"host", i.host},
                              {"package", i.package},
                              {"action", i.action},
                              {"from", i.from},
                              {"to", i.to},
                              {"time", i.time},
                              {"result", i.result},
                              {"reboot_required", i.reboot_required},
                              {"reboot", i.reboot},
                              {"source", i.source}});
  j["faults"] = J::array();
  for (const auto& e : d.faults) j["faults"].push_back(event_json(e));
  j["templates"] = J::array();
  for (const auto& e : d.templates) j["templates"].push_back(event_json(e));
  j["findings"] = J::array();
  for (const auto& f : d.findings)
    j["findings"].push_back(J{{"host", f.host},
                              {"id", f.id},
                              {"kind", f.kind},
                              {"title", f.title},
                              {"change", f.change}});
  j["not_compared"] = d.not_compared;
  j["compared_facts"] = d.compared_facts;
  j["noise_differences"] = d.noise_differences;
  return j.dump(2) + "\n";
}

std::string md_values(const std::vector<correlate::DiffValue>& v) {
  if (v.empty()) return "-";
  std::string out;
  for (const auto& x : v) {
    if (!out.empty()) out += "<br>";
    out += md_code(clipped(x.value));
    if (!x.source.empty()) out += " (" + md_text(x.source) + ")";
  }
  return out;
}

std::string counts(const correlate::EventChange& e) {
  return std::to_string(e.good_count) + " -> " + std::to_string(e.bad_count);
}

void md_events(std::ostringstream& o, const std::vector<correlate::EventChange>& v,
               const char* what) {
  if (v.empty()) {
    o << "No " << what << " new, gone or changed in rate.\n\n";
    return;
  }
  o << "| change | host | " << what << " | count GOOD -> BAD | first in GOOD | first in BAD | "
    << "first line |\n|---|---|---|---|---|---|---|\n";
  size_t n = 0;
  for (const auto& e : v) {
    if (++n > kMdRows) {
      o << "\n" << (v.size() - kMdRows) << " more in the json report.\n";
      break;
    }
    const std::string label =
        e.key == e.text ? md_code(e.text) : md_code(e.key) + " " + md_text(e.text);
    o << "| " << e.change << " | " << md_text(e.host) << " | " << label << " | " << counts(e)
      << " | " << time_text(e.good_first_ns) << " | " << time_text(e.bad_first_ns) << " | "
      << md_text(e.example) << " |\n";
  }
  o << "\n";
}

std::string render_md(const correlate::Diff& d) {
  std::ostringstream o;
  o << "# faultline diff\n\n**" << md_text(d.verdict) << "**\n\n";
  o << "| | GOOD | BAD |\n|---|---|---|\n";
  o << "| bundle | " << md_text(d.good.name) << " | " << md_text(d.bad.name) << " |\n";
  o << "| sha256 | " << md_code(d.good.sha256.substr(0, 16)) << " | "
    << md_code(d.bad.sha256.substr(0, 16)) << " |\n";
  o << "| collected | " << md_text(d.good.collected_at.empty() ? "-" : d.good.collected_at) << " | "
    << md_text(d.bad.collected_at.empty() ? "-" : d.bad.collected_at) << " |\n";
  auto hosts = [](const std::vector<std::string>& h) {
    std::string s;
    for (const auto& x : h) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? std::string("-") : s;
  };
  o << "| hosts | " << md_text(hosts(d.good.hosts)) << " | " << md_text(hosts(d.bad.hosts))
    << " |\n\n";

  o << "## Facts changed\n\n";
  if (d.facts.empty()) {
    o << "No compared fact changed (" << d.compared_facts << " compared";
    if (d.noise_differences > 0) o << "; " << d.noise_differences << " noise facts differ";
    o << ").\n\n";
  } else {
    std::string group;
    size_t rows = 0, rows_total = 0;
    for (const auto& f : d.facts) {
      if (f.group_title != group) {
        group = f.group_title;
        rows = 0;
        o << (rows_total++ == 0 ? "" : "\n") << "### " << md_text(group) << "\n\n"
          << "| host | fact | change | GOOD | BAD | explained by |\n|---|---|---|---|---|---|\n";
      }
      if (++rows > kMdRows) {
        if (rows == kMdRows + 1) o << "| | (more in the json report) | | | | |\n";
        continue;
      }
      o << "| " << md_text(f.host) << " | " << md_code(f.name) << " | " << f.change << " | "
        << md_values(f.good) << " | " << md_values(f.bad) << " | "
        << (f.explained_by.empty() ? "-" : md_text(f.explained_by)) << " |\n";
    }
    o << "\n"
      << d.compared_facts << " facts compared on both sides; " << d.noise_differences
      << " noise facts (times, pids, uptime, utilisation) differ and are not changes.\n\n";
  }

  o << "## Install and operation events between the collections\n\n";
  if (d.installs.empty()) {
    o << "None: BAD's install history holds no event GOOD's does not.\n\n";
  } else {
    o << "| host | time | package | action | from -> to | result | reboot | source |\n"
      << "|---|---|---|---|---|---|---|---|\n";
    for (const auto& i : d.installs)
      o << "| " << md_text(i.host) << " | " << md_text(i.time) << " | " << md_text(i.package)
        << " | " << md_text(i.action) << " | " << md_text(i.from.empty() ? "?" : i.from) << " -> "
        << md_text(i.to.empty() ? "?" : i.to) << " | " << md_text(i.result) << " | "
        << md_text(i.reboot.empty() ? (i.reboot_required ? "required" : "-") : i.reboot) << " | "
        << md_text(i.source) << " |\n";
    o << "\n";
  }

  o << "## Fault events\n\n";
  md_events(o, d.faults, "fault events");
  o << "## Error templates\n\n";
  md_events(o, d.templates, "error templates");

  o << "## Findings\n\n";
  if (d.findings.empty()) {
    o << "The same findings in both.\n\n";
  } else {
    o << "| change | host | finding | kind | title |\n|---|---|---|---|---|\n";
    for (const auto& f : d.findings)
      o << "| " << f.change << " | " << md_text(f.host) << " | " << md_code(f.id) << " | " << f.kind
        << " | " << md_text(f.title) << " |\n";
    o << "\n";
  }

  o << "## Not compared\n\n";
  if (d.not_compared.empty()) {
    o << "Everything was compared.\n";
  } else {
    for (const auto& n : d.not_compared) o << "- " << md_text(n) << "\n";
  }
  return o.str();
}

void html_events(std::ostringstream& o, const std::vector<correlate::EventChange>& v,
                 const char* what) {
  if (v.empty()) {
    o << "<p>No " << what << " new, gone or changed in rate.</p>\n";
    return;
  }
  o << "<table><tr><th>change</th><th>host</th><th>" << what
    << "</th><th>count GOOD &rarr; BAD</th><th>first in GOOD</th><th>first in BAD</th><th>first "
       "line</th></tr>\n";
  size_t n = 0;
  for (const auto& e : v) {
    if (++n > kMdRows) break;
    o << "<tr><td>" << e.change << "</td><td>" << html(e.host) << "</td><td><code>"
      << html(e.key == e.text ? e.text : e.key + " " + e.text) << "</code></td><td>" << e.good_count
      << " &rarr; " << e.bad_count << "</td><td>" << html(time_text(e.good_first_ns)) << "</td><td>"
      << html(time_text(e.bad_first_ns)) << "</td><td>" << html(e.example) << "</td></tr>\n";
  }
  o << "</table>\n";
  if (v.size() > kMdRows) o << "<p>" << (v.size() - kMdRows) << " more in the json report.</p>\n";
}

std::string html_values(const std::vector<correlate::DiffValue>& v) {
  if (v.empty()) return "-";
  std::string out;
  for (const auto& x : v) {
    if (!out.empty()) out += "<br>";
    out += "<code>" + html(x.value) + "</code>";
    if (!x.source.empty()) out += " <span class=\"muted\">" + html(x.source) + "</span>";
  }
  return out;
}

std::string html_head(const char* title) {
  return std::string("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n") +
         "<meta http-equiv=\"Content-Security-Policy\" content=\"" + detail::kReportCsp +
         "\">\n<title>" + title +
         "</title>\n<style>body{font:14px/1.45 system-ui,sans-serif;max-width:1200px;margin:24px "
         "auto;padding:0 16px;color:#1d2330}table{border-collapse:collapse;margin:8px "
         "0}td,th{border:1px solid #d6dae3;padding:3px 8px;text-align:left;vertical-align:top}"
         "th{background:#eef1f6}code{font:12.5px ui-monospace,monospace}.verdict{font-size:16px;"
         "padding:10px 14px;border-left:6px solid #b3261e;background:#fdf0ef}.muted{color:"
         "#6b7385}</style>\n</head>\n<body>\n";
}

std::string render_html(const correlate::Diff& d) {
  std::ostringstream o;
  o << html_head("faultline diff") << "<h1>faultline diff</h1>\n<div class=\"verdict\">"
    << html(d.verdict) << "</div>\n";
  o << "<table><tr><th></th><th>GOOD</th><th>BAD</th></tr>\n<tr><td>bundle</td><td>"
    << html(d.good.name) << "</td><td>" << html(d.bad.name)
    << "</td></tr>\n<tr><td>sha256</td><td><code>" << html(d.good.sha256.substr(0, 16))
    << "</code></td><td><code>" << html(d.bad.sha256.substr(0, 16))
    << "</code></td></tr>\n<tr><td>collected</td><td>" << html(d.good.collected_at) << "</td><td>"
    << html(d.bad.collected_at) << "</td></tr>\n</table>\n";
  o << "<h2>Facts changed</h2>\n";
  if (d.facts.empty()) {
    o << "<p>No compared fact changed (" << d.compared_facts << " compared).</p>\n";
  } else {
    std::string group;
    for (const auto& f : d.facts) {
      if (f.group_title != group) {
        if (!group.empty()) o << "</table>\n";
        group = f.group_title;
        o << "<h3>" << html(group)
          << "</h3>\n<table><tr><th>host</th><th>fact</th><th>change</"
             "th><th>GOOD</th><th>BAD</th><th>explained by</th></tr>\n";
      }
      o << "<tr><td>" << html(f.host) << "</td><td><code>" << html(f.name) << "</code></td><td>"
        << f.change << "</td><td>" << html_values(f.good) << "</td><td>" << html_values(f.bad)
        << "</td><td>" << html(f.explained_by.empty() ? "-" : f.explained_by) << "</td></tr>\n";
    }
    o << "</table>\n";
  }
  o << "<p class=\"muted\">" << d.noise_differences
    << " noise facts (times, pids, uptime, utilisation) differ and are not changes.</p>\n";
  o << "<h2>Install and operation events between the collections</h2>\n";
  if (d.installs.empty()) {
    o << "<p>None.</p>\n";
  } else {
    o << "<table><tr><th>host</th><th>time</th><th>package</th><th>action</th><th>from &rarr; "
         "to</th><th>result</th><th>reboot</th><th>source</th></tr>\n";
    for (const auto& i : d.installs)
      o << "<tr><td>" << html(i.host) << "</td><td>" << html(i.time) << "</td><td>"
        << html(i.package) << "</td><td>" << html(i.action) << "</td><td>" << html(i.from)
        << " &rarr; " << html(i.to) << "</td><td>" << html(i.result) << "</td><td>"
        << html(i.reboot.empty() ? (i.reboot_required ? "required" : "-") : i.reboot) << "</td><td>"
        << html(i.source) << "</td></tr>\n";
    o << "</table>\n";
  }
  o << "<h2>Fault events</h2>\n";
  html_events(o, d.faults, "fault event");
  o << "<h2>Error templates</h2>\n";
  html_events(o, d.templates, "error template");
  o << "<h2>Findings</h2>\n";
  if (d.findings.empty()) {
    o << "<p>The same findings in both.</p>\n";
  } else {
    o << "<table><tr><th>change</th><th>host</th><th>finding</th><th>kind</th><th>title</th></"
         "tr>\n";
    for (const auto& f : d.findings)
      o << "<tr><td>" << f.change << "</td><td>" << html(f.host) << "</td><td><code>" << html(f.id)
        << "</code></td><td>" << html(f.kind) << "</td><td>" << html(f.title) << "</td></tr>\n";
    o << "</table>\n";
  }
  o << "<h2>Not compared</h2>\n";
  if (d.not_compared.empty()) {
    o << "<p>Everything was compared.</p>\n";
  } else {
    o << "<ul>\n";
    for (const auto& n : d.not_compared) o << "<li>" << html(n) << "</li>\n";
    o << "</ul>\n";
  }
  o << "</body>\n</html>\n";
  return o.str();
}

J fleet_diff_json(const correlate::FleetDiff& fd) {
  J j;
  j["hosts"] = fd.hosts;
  j["odd_nodes"] = J::array();
  for (const auto& n : fd.nodes) {
    J d = J::array();
    for (const auto& x : n.differences)
      d.push_back(J{{"group", x.group},
                    {"name", x.name},
                    {"value", x.value},
                    {"majority", x.majority},
                    {"majority_hosts", x.majority_hosts},
                    {"hosts", x.hosts}});
    j["odd_nodes"].push_back(J{{"host", n.host}, {"differences", std::move(d)}});
  }
  j["notes"] = fd.notes;
  return j;
}

std::string odd_line(const correlate::OddNode& n) {
  std::map<std::string, size_t> by_group;
  for (const auto& x : n.differences) ++by_group[x.group_title];
  std::string s;
  for (const auto& [g, c] : by_group) s += (s.empty() ? "" : ", ") + g + " " + std::to_string(c);
  return s;
}

}  // namespace

std::string render_diff(const correlate::Diff& d, Format f) {
  switch (f) {
    case Format::json:
      return render_json(d);
    case Format::html:
      return render_html(d);
    default:
      return render_md(d);
  }
}

std::string render_diff_summary(const correlate::Diff& d) {
  std::ostringstream o;
  o << d.verdict << "\n";
  std::map<std::string, size_t> groups;
  std::vector<std::string> order;
  for (const auto& f : d.facts)
    if (groups[f.group_title]++ == 0) order.push_back(f.group_title);
  for (const auto& g : order) o << "  " << g << ": " << groups[g] << " fact(s) changed\n";
  return o.str();
}

std::string add_fleet_diff(std::string rep, const correlate::FleetDiff& fd, Format f) {
  if (f == Format::json) {
    auto j = J::parse(rep, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return rep;
    j["node_diff"] = fleet_diff_json(fd);
    return j.dump(2) + "\n";
  }
  std::ostringstream o;
  if (f == Format::md) {
    o << "\n## Nodes against the job\n\n";
    if (fd.nodes.empty()) {
      o << "Every node has the job's majority value of every compared fact (" << fd.hosts
        << " nodes).\n";
    } else {
      o << "Odd node" << (fd.nodes.size() == 1 ? "" : "s") << ": ";
      for (size_t i = 0; i < fd.nodes.size(); ++i)
        o << (i ? ", " : "") << "**" << md_text(fd.nodes[i].host) << "** ("
          << md_text(odd_line(fd.nodes[i])) << ")";
      o << "\n\n| node | fact | its value | the job's majority |\n|---|---|---|---|\n";
      size_t rows = 0;
      for (const auto& n : fd.nodes)
        for (const auto& x : n.differences) {
          if (++rows > kMdRows * 4) break;
          o << "| " << md_text(n.host) << " | " << md_code(x.name) << " | "
            << md_code(clipped(x.value)) << " | " << md_code(clipped(x.majority)) << " ("
            << x.majority_hosts << "/" << x.hosts << ") |\n";
        }
    }
    for (const auto& n : fd.notes) o << "\n- " << md_text(n);
    o << (fd.notes.empty() ? "" : "\n");
    return rep + o.str();
  }
  if (f == Format::html) {
    o << "<h2>Nodes against the job</h2>\n";
    if (fd.nodes.empty()) {
      o << "<p>Every node has the job's majority value of every compared fact.</p>\n";
    } else {
      o << "<p>Odd node" << (fd.nodes.size() == 1 ? "" : "s") << ": ";
      for (size_t i = 0; i < fd.nodes.size(); ++i)
        o << (i ? ", " : "") << "<b>" << html(fd.nodes[i].host) << "</b> ("
          << html(odd_line(fd.nodes[i])) << ")";
      o << "</p>\n<table><tr><th>node</th><th>fact</th><th>its value</th><th>the job's "
           "majority</th></tr>\n";
      for (const auto& n : fd.nodes)
        for (const auto& x : n.differences)
          o << "<tr class=\"minority\"><td>" << html(n.host) << "</td><td><code>" << html(x.name)
            << "</code></td><td><code>" << html(x.value) << "</code></td><td><code>"
            << html(x.majority) << "</code> (" << x.majority_hosts << "/" << x.hosts
            << ")</td></tr>\n";
      o << "</table>\n";
    }
    const size_t at = rep.rfind("</body>");
    if (at == std::string::npos) return rep + o.str();
    rep.insert(at, o.str());
    return rep;
  }
  return rep;
}

std::string render_similar(const correlate::Fingerprint& q,
                           const std::vector<correlate::SimilarMatch>& matches, size_t analyses,
                           const std::vector<std::string>& skipped, Format f) {
  if (f == Format::json) {
    J j;
    j["faultline_version"] = detail::kFaultlineVersion();
    j["bundle"] = J{{"label", q.label},
                    {"name", q.name},
                    {"sha256", q.sha256},
                    {"root_causes", q.root_causes},
                    {"features", q.features.size()}};
    j["analyses_compared"] = analyses;
    j["matches"] = J::array();
    for (const auto& m : matches)
      j["matches"].push_back(J{{"database", m.database},
                               {"bundle_id", m.bundle_id},
                               {"name", m.fingerprint.name},
                               {"sha256", m.fingerprint.sha256},
                               {"score", std::round(m.similarity.score * 1000) / 1000},
                               {"same_content", m.same_content},
                               {"shared_findings", m.similarity.shared_findings},
                               {"shared_templates", m.similarity.shared_templates},
                               {"shared_versions", m.similarity.shared_facts},
                               {"root_causes", m.fingerprint.root_causes}});
    j["skipped"] = skipped;
    return j.dump(2) + "\n";
  }
  std::ostringstream o;
  o << "# faultline similar\n\n"
    << md_text(q.name) << " (" << md_code(q.sha256.substr(0, 16)) << ") against " << analyses
    << " earlier analys" << (analyses == 1 ? "is" : "es") << ".\n\n";
  if (matches.empty()) {
    o << "No earlier analysis to compare with.\n";
  } else {
    o << "| # | score | bundle | database | diagnosed as | shared |\n|---|---|---|---|---|---|\n";
    size_t n = 0;
    for (const auto& m : matches) {
      std::string diag;
      for (const auto& r : m.fingerprint.root_causes)
        diag += (diag.empty() ? "" : "<br>") + md_text(r);
      std::string shared;
      for (const auto& x : m.similarity.shared_findings)
        shared += (shared.empty() ? "" : ", ") + md_code(x);
      shared += (shared.empty() ? "" : "; ") + std::to_string(m.similarity.shared_templates) +
                " error template(s)";
      for (const auto& x : m.similarity.shared_facts) shared += ", " + md_code(x);
      char score[16];
      std::snprintf(score, sizeof score, "%.2f", m.similarity.score);
      o << "| " << ++n << " | " << score << " | " << md_text(m.fingerprint.name)
        << (m.same_content ? " (same content)" : "") << " | " << md_text(m.database) << " #"
        << m.bundle_id << " | " << (diag.empty() ? "no root cause" : diag) << " | " << shared
        << " |\n";
    }
  }
  for (const auto& s : skipped) o << "\n- skipped " << md_text(s);
  if (!skipped.empty()) o << "\n";
  if (f == Format::html)
    return html_head("faultline similar") + "<pre>" + html(o.str()) + "</pre>\n</body>\n</html>\n";
  return o.str();
}

}  // namespace faultline::report
