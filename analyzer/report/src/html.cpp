// One self-contained HTML page: inline CSS, inline SVG, no scripts, no external resources.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "render.hpp"
#include "shared.hpp"

namespace faultline::report::detail {

std::string html(const std::string& s) {
  std::string o;
  o.reserve(s.size() + 16);
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      case ':':
        // "scheme://" in log text renders the same but is never a live reference.
        if (i + 2 < s.size() && s[i + 1] == '/' && s[i + 2] == '/')
          o += "&#58;";
        else
          o.push_back(c);
        break;
      default:
        o.push_back(c);
    }
  }
  return o;
}

namespace {

const char* kCss = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;color:#1d2330;padding:0 16px}
h1{font-size:22px;margin:0 0 12px}h2{font-size:18px;border-bottom:1px solid #d6dae3;padding-bottom:4px;margin-top:28px}
h3{font-size:16px;margin:18px 0 6px}code,pre{font:12.5px/1.4 ui-monospace,Menlo,Consolas,monospace}
pre{background:#f4f6fa;border:1px solid #e1e5ee;padding:6px 8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:4px 0 10px}
.verdict{font-size:16px;padding:10px 14px;border-left:6px solid #6b7385;background:#f4f6fa}
.verdict.critical{border-color:#b3261e;background:#fdf0ef}.verdict.error{border-color:#d9480f;background:#fff4ec}
.verdict.warning{border-color:#c99a06;background:#fffaeb}.verdict.ok{border-color:#2f9e44;background:#effaf1}
table{border-collapse:collapse;margin:8px 0;max-width:100%}td,th{border:1px solid #d6dae3;padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere;word-break:break-word}
td code{word-break:break-all}svg{max-width:100%;height:auto}nav.toc{font-size:13px;margin:10px 0}nav.toc a{margin-right:12px}
th{background:#eef1f6}.finding{border:1px solid #d6dae3;border-radius:6px;padding:4px 14px 10px;margin:12px 0}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;color:#fff;background:#6b7385}
.badge.critical{background:#b3261e}.badge.error{background:#d9480f}.badge.warning{background:#c99a06}.badge.info{background:#1c7ed6}
.unexplained{color:#b3261e;font-weight:600}ul.check{list-style:none;padding-left:4px}ul.check li:before{content:"\2610  "}
details>summary{cursor:pointer;font-weight:600;margin:6px 0}.muted{color:#6b7385}
svg text{font:11px system-ui,sans-serif;fill:#1d2330}.tl td{font-size:12.5px}
)";

// Rule text (titles, summaries, remediation, suggestions) holds markdown code spans: shown as
// <code>, never as literal backticks (issue 35 item 8); everything else escaped by html().
std::string html_prose(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const size_t tick = s.find('`', i);
    if (tick == std::string::npos) {
      out += html(s.substr(i));
      break;
    }
    size_t n = tick;
    while (n < s.size() && s[n] == '`') ++n;
    const std::string fence = s.substr(tick, n - tick);
    // the closing run: the next run of exactly the same length
    size_t close = s.find(fence, n);
    while (close != std::string::npos &&
           ((close + fence.size() < s.size() && s[close + fence.size()] == '`') ||
            (close > 0 && s[close - 1] == '`')))
      close = s.find(fence, close + fence.size() + 1);
    out += html(s.substr(i, tick - i));
    if (close == std::string::npos) {
      out += html(fence);
      i = n;
      continue;
    }
    std::string inner = s.substr(n, close - n);
    if (inner.size() >= 2 && inner.front() == ' ' && inner.back() == ' ')
      inner = inner.substr(1, inner.size() - 2);
    out += "<code>" + html(inner) + "</code>";
    i = close + fence.size();
  }
  return out;
}

std::string badge(const std::string& sev) {
  return "<span class=\"badge " + html(sev) + "\">" + html(sev) + "</span>";
}

void evidence(std::ostringstream& o, const FindingR& f, bool open) {
  o << "<details" << (open ? " open" : "") << "><summary>Evidence (" << f.evidence.size()
    << ")</summary>\n";
  if (f.evidence.empty()) o << "<p class=\"muted\">No evidence rows stored.</p>\n";
  auto row = [&](const EvidenceR& e) {
    o << "<div><code>" << html(loc(e.file, e.line)) << "</code>";
    if (e.time_ns)
      o << " <span class=\"muted\">" << html(fmt_time_q(e.time_ns, e.shown_quality())) << "</span>";
    if (!e.signature.empty())
      o << " <span class=\"muted\">signature</span> <code>" << html(e.signature) << "</code>";
    if (!e.fact.empty())
      o << " <span class=\"muted\">fact</span> <code>" << html(e.fact) << "</code>";
    o << "<pre>" << html(e.text) << "</pre></div>\n";
  };
  // repeated lines of one signature (or one fact value) fold behind their first two
  std::map<std::string, std::vector<const EvidenceR*>> rest;
  for (const auto& g : group_evidence(f)) {
    for (const EvidenceR* e : g.shown) row(*e);
    if (g.more == 0) continue;
    const EvidenceR& first = *g.shown.front();
    const std::string key = !first.signature.empty() ? first.signature : first.fact;
    size_t seen = 0;
    o << "<details><summary class=\"muted\">" << g.more << " more like this</summary>\n";
    for (const auto& e : f.evidence) {
      const std::string k = !e.signature.empty() ? e.signature : e.fact;
      if (k != key || (e.signature.empty() && e.text != first.text)) continue;
      if (seen++ < g.shown.size()) continue;
      row(e);
    }
    o << "</details>\n";
  }
  o << "</details>\n";
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

void timeline_svg(std::ostringstream& o, const Report& r) {
  std::vector<const TimelineR*> timed;
  for (const auto& t : r.timeline)
    if (t.time_ns) timed.push_back(&t);
  if (timed.empty()) {
    o << "<p class=\"muted\">No timed events to draw.</p>\n";
    return;
  }
  std::vector<std::string> lanes;  // host + source kind, sorted
  {
    std::set<std::string> s;
    for (const auto* t : timed) s.insert(t->host + " · " + (t->kind.empty() ? "?" : t->kind));
    lanes.assign(s.begin(), s.end());
  }
  int64_t lo = *timed.front()->time_ns, hi = lo;
  for (const auto* t : timed) {
    lo = std::min(lo, *t->time_ns);
    hi = std::max(hi, *t->time_ns);
  }
  const double left = 250, width = 900, right = 30, top = 28, lane_h = 30;
  const double total_w = left + width + right;
  const double total_h = top + lane_h * static_cast<double>(lanes.size()) + 40;
  auto x_of = [&](int64_t t) {
    if (hi == lo) return left + width / 2;
    return left + width * static_cast<double>(t - lo) / static_cast<double>(hi - lo);
  };
  o << "<svg role=\"img\" aria-label=\"timeline\" width=\"" << num(total_w) << "\" height=\""
    << num(total_h) << "\" viewBox=\"0 0 " << num(total_w) << " " << num(total_h) << "\">\n";
  // Legend.
  o << "<g><rect x=\"" << num(left)
    << "\" y=\"6\" width=\"10\" height=\"10\" fill=\"#b3261e\"/><text x=\"" << num(left + 14)
    << "\" y=\"15\">cause</text>"
    << "<polygon points=\"" << num(left + 80) << ",5 " << num(left + 86) << ",11 " << num(left + 80)
    << ",17 " << num(left + 74) << ",11\" fill=\"#f08c00\"/><text x=\"" << num(left + 90)
    << "\" y=\"15\">first failure</text>"
    << "<circle cx=\"" << num(left + 185) << "\" cy=\"11\" r=\"5\" fill=\"#1c7ed6\"/><text x=\""
    << num(left + 194) << "\" y=\"15\">observation</text><circle cx=\"" << num(left + 285)
    << "\" cy=\"11\" r=\"3.5\" fill=\"#868e96\"/>"
    << "<text x=\"" << num(left + 293) << "\" y=\"15\">context</text>"
    << "<polygon points=\"" << num(left + 360) << ",5 " << num(left + 366) << ",17 "
    << num(left + 354) << ",17\" fill=\"#7048e8\"/><text x=\"" << num(left + 370)
    << "\" y=\"15\">fault event</text></g>\n";
  for (size_t i = 0; i < lanes.size(); ++i) {
    const double y = top + lane_h * static_cast<double>(i) + lane_h / 2;
    o << "<line x1=\"" << num(left) << "\" y1=\"" << num(y) << "\" x2=\"" << num(left + width)
      << "\" y2=\"" << num(y) << "\" stroke=\"#d6dae3\"/><text x=\"4\" y=\"" << num(y + 4) << "\">"
      << html(lanes[i]) << "</text>\n";
  }
  const double axis_y = top + lane_h * static_cast<double>(lanes.size()) + 12;
  o << "<text x=\"" << num(left) << "\" y=\"" << num(axis_y) << "\">" << html(fmt_time(lo))
    << "</text>";
  if (hi != lo)
    o << "<text x=\"" << num(left + width) << "\" y=\"" << num(axis_y) << "\" text-anchor=\"end\">"
      << html(fmt_time(hi)) << "</text>";
  o << "\n";
  for (const auto* t : timed) {
    const size_t lane = static_cast<size_t>(
        std::find(lanes.begin(), lanes.end(), t->host + " · " + (t->kind.empty() ? "?" : t->kind)) -
        lanes.begin());
    const double x = x_of(*t->time_ns);
    const double y = top + lane_h * static_cast<double>(lane) + lane_h / 2;
    const std::string tip =
        "<title>" +
        html(fmt_time_q(t->time_ns, t->shown_quality()) + " " + t->role + " " +
             loc(t->file, t->line) + (t->finding.empty() ? "" : " [" + t->finding + "]") + "\n" +
             t->text.substr(0, 300)) +
        "</title>";
    if (t->role == "cause") {
      o << "<rect x=\"" << num(x - 5) << "\" y=\"" << num(y - 5)
        << "\" width=\"10\" height=\"10\" fill=\"#b3261e\">" << tip << "</rect>\n";
    } else if (t->role == "first_failure") {
      o << "<polygon points=\"" << num(x) << "," << num(y - 7) << " " << num(x + 7) << "," << num(y)
        << " " << num(x) << "," << num(y + 7) << " " << num(x - 7) << "," << num(y)
        << "\" fill=\"#f08c00\">" << tip << "</polygon>\n";
    } else if (t->role == "fault") {
      o << "<polygon points=\"" << num(x) << "," << num(y - 7) << " " << num(x + 6) << ","
        << num(y + 5) << " " << num(x - 6) << "," << num(y + 5) << "\" fill=\"#7048e8\">" << tip
        << "</polygon>\n";
    } else if (t->role == "observation") {
      o << "<circle cx=\"" << num(x) << "\" cy=\"" << num(y) << "\" r=\"5\" fill=\"#1c7ed6\">"
        << tip << "</circle>\n";
    } else {
      o << "<circle cx=\"" << num(x) << "\" cy=\"" << num(y) << "\" r=\"3.5\" fill=\"#868e96\">"
        << tip << "</circle>\n";
    }
  }
  o << "</svg>\n";
}

}  // namespace

std::string render_html(const Report& r) {
  std::ostringstream o;
  std::string verdict_class = "ok";
  for (const auto& f : r.findings) {
    if (f.kind == "root_cause") {
      verdict_class = f.severity == "info" ? "ok" : f.severity;
      break;
    }
    verdict_class = "warning";
  }
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<meta http-equiv=\"Content-Security-Policy\" content=\"" << kReportCsp << "\">\n"
    << "<title>faultline: " << html(r.name) << "</title>\n<style>" << kCss
    << "</style>\n</head>\n<body>\n";
  o << "<h1>faultline report: " << html(r.name) << "</h1>\n";
  o << "<p class=\"verdict " << verdict_class << "\"><strong>Verdict:</strong> " << html(verdict(r))
    << "</p>\n";
  // the ticket view (docs/report.md "Summary"): markdown to paste as it is
  o << "<details class=\"ticket\"><summary>Copy for ticket (markdown summary)</summary>\n<pre>"
    << html(render_summary_md(r)) << "</pre></details>\n";
  o << "<table><tr><th>path</th><td><code>" << html(r.path)
    << "</code></td></tr><tr><th>sha256</th><td><code>" << html(r.sha256)
    << "</code></td></tr><tr><th>hosts</th><td>";
  for (size_t i = 0; i < r.hosts.size(); ++i) o << (i ? ", " : "") << html(r.hosts[i]);
  o << "</td></tr><tr><th>files</th><td>" << r.files << " (" << r.bytes
    << " bytes uncompressed)</td></tr><tr><th>faultline</th><td>" << html(kFaultlineVersion())
    << "</td></tr><tr><th>rules</th><td><code>"
    << html(r.rules_digest.empty() ? "(not recorded)" : r.rules_digest) << "</code></td></tr>";
  if (r.kb)
    o << "<tr><th>knowledge base</th><td>" << html(r.kb->name) << " <code>" << html(r.kb->file)
      << "</code> (" << r.kb->codes << " codes, " << html(r.kb->how) << ")</td></tr>";
  if (const auto sup = suppressed_text(r); !sup.empty())  // docs/suppress.md
    o << "<tr><th>suppressed</th><td>" << html(sup) << "</td></tr>";
  o << "</table>\n";
  // table of contents (issue 35 item 8): the sections this page has, in order
  {
    const bool faults = std::any_of(r.findings.begin(), r.findings.end(),
                                    [](const FindingR& f) { return f.kind == "fault" && f.fault; });
    std::vector<std::pair<const char*, const char*>> toc = {{"root-causes", "Root causes"},
                                                            {"symptoms", "Symptoms"}};
    if (faults) toc.emplace_back("fault-events", "Fault events");
    toc.emplace_back("other-errors", "Other error signatures");
    if (!r.unknown.empty()) toc.emplace_back("unrecognised", "Unrecognised errors");
    toc.emplace_back("timeline", "Timeline");
    toc.emplace_back("versions", "Versions");
    toc.emplace_back("missing", "Missing evidence");
    toc.emplace_back("warnings", "Ingest warnings");
    if (!r.suppressed.empty()) toc.emplace_back("suppressed", "Suppressed");
    o << "<nav class=\"toc\"><strong>Contents:</strong> ";
    for (const auto& [id, title] : toc) o << "<a href=\"#" << id << "\">" << title << "</a>";
    o << "</nav>\n";
  }

  o << "<h2 id=\"root-causes\">Root causes</h2>\n";
  int n = 0;
  for (const auto& f : r.findings) {
    if (f.kind != "root_cause") continue;
    ++n;
    o << "<section class=\"finding\">\n<h3>" << n << ". " << html_prose(f.title) << " <code>"
      << html(f.id) << "</code></h3>\n<p>" << badge(f.severity) << " host <code>" << html(f.host)
      << "</code> · confidence <strong>" << fmt_conf(f.confidence) << "</strong>";
    if (!f.explains.empty()) {
      o << " · explains";
      for (size_t i = 0; i < f.explains.size(); ++i)
        o << (i ? ", " : " ") << "<code>" << html(f.explains[i]) << "</code>";
    }
    o << "</p>\n<p>" << html_prose(f.summary) << "</p>\n";
    evidence(o, f, n == 1);
    if (!f.missing.empty()) {
      o << "<details><summary>Looked for, not found / uncertain (" << f.missing.size()
        << ")</summary><ul>";
      for (const auto& m : f.missing) o << "<li>" << html_prose(m) << "</li>";
      o << "</ul></details>\n";
    }
    o << "<h4>Remediation</h4>\n<ul class=\"check\">";
    for (const auto& s : f.remediation) o << "<li>" << html_prose(s) << "</li>";
    o << "</ul>\n</section>\n";
  }
  if (n == 0) o << "<p>None identified.</p>\n";

  o << "<h2 id=\"symptoms\">Symptoms</h2>\n";
  int m = 0;
  for (const auto& f : r.findings) {
    if (f.kind != "symptom") continue;
    ++m;
    o << "<section class=\"finding\">\n<h3>" << html_prose(f.title) << " <code>" << html(f.id)
      << "</code></h3>\n<p>" << badge(f.severity) << " host <code>" << html(f.host) << "</code> · ";
    if (f.explained_by.empty())
      o << "<span class=\"unexplained\">UNEXPLAINED</span>: no root cause in the rules accounts "
           "for it";
    else
      o << "explained by <code>" << html(f.explained_by) << "</code>";
    o << "</p>\n<p>" << html_prose(f.summary) << "</p>\n";
    evidence(o, f, false);
    if (f.explained_by.empty()) {  // what the causes that could explain it did not find
      std::string looked;
      for (const auto& x : f.missing)
        if (x.rfind("uncertain: ", 0) != 0) looked += "<li>" + html_prose(x) + "</li>";
      if (!looked.empty())
        o << "<p><strong>Looked for, not found</strong></p><ul>" << looked << "</ul>\n";
    }
    o << "</section>\n";
  }
  if (m == 0) o << "<p>None observed.</p>\n";

  bool any_fault = false;  // docs/faults.md: the section exists only when there are fault events
  for (const auto& f : r.findings) {
    if (f.kind != "fault" || !f.fault) continue;
    if (!any_fault) o << "<h2 id=\"fault-events\">Fault events</h2>\n";
    any_fault = true;
    const FaultR& d = *f.fault;
    o << "<section class=\"finding\">\n<h3>" << html_prose(f.title) << " <code>" << html(f.id)
      << "</code></h3>\n<p>" << badge(f.severity) << " host <code>" << html(f.host)
      << "</code> · class <strong>" << html(d.cls) << "</strong> · component " << html(d.component)
      << " · role " << html(d.role);
    if (!d.code.empty()) o << " · code <code>" << html(d.code) << "</code>";
    o << " · seen " << d.count << "×";
    if (f.first_time_ns) o << ", first " << html(fmt_time_q(f.first_time_ns, f.first_quality));
    if (!f.explained_by.empty()) o << " · caused by <code>" << html(f.explained_by) << "</code>";
    for (size_t i = 0; i < d.diagnosed_by.size(); ++i)
      o << (i ? ", " : " · cited by ") << "<code>" << html(d.diagnosed_by[i]) << "</code>";
    if (!d.pack.empty()) o << " · from the " << html(d.pack) << " knowledge base";
    for (size_t i = 0; i < d.native.size(); ++i)
      o << (i ? ", " : "; also lines of ") << "<code>" << html(d.native[i]) << "</code>";
    o << "</p>\n";
    for (const auto& k : d.kb)
      o << "<p>" << html(k.pack) << " <code>" << html(k.code) << "</code> (<code>"
        << html(k.signature) << "</code>): " << html(k.title) << " · " << k.count << "×</p>\n";
    o << "<p>" << html(d.cause) << "</p>\n";
    evidence(o, f, false);
    if (!d.suggestion.empty() || !d.kb.empty()) {
      o << "<h4>Suggestion</h4>\n<ul class=\"check\">";
      if (!d.suggestion.empty()) o << "<li>" << html_prose(d.suggestion) << "</li>";
      for (const auto& k : d.kb)
        o << "<li>" << html(k.pack) << " <code>" << html(k.code)
          << "</code>: " << html_prose(k.suggestion) << "</li>";
      o << "</ul>\n";
    }
    o << "</section>\n";
  }

  o << "<h2 id=\"other-errors\">Other error signatures</h2>\n";
  if (r.unclassified.empty()) {
    o << "<p>None: every error-level signature hit is cited by a finding.</p>\n";
  } else {
    o << "<table><tr><th>signature</th><th>lines</th><th>first "
         "seen</th><th>host</th><th>file:line</th></tr>\n";
    for (const auto& u : r.unclassified)
      o << "<tr><td><code>" << html(u.signature) << "</code></td><td>" << u.count << "</td><td>"
        << html(u.time_ns ? fmt_time_q(u.time_ns, u.quality) : "–") << "</td><td>" << html(u.host)
        << "</td><td><code>" << html(loc(u.file, u.line)) << "</code></td></tr>\n";
    o << "</table>\n";
  }

  if (!r.unknown.empty()) {  // docs/faults.md: only when some error line is recognised by none
    o << "<h2 id=\"unrecognised\">Unrecognised errors</h2>\n<p>Error-level lines no signature "
         "recognises, as "
         "templates (numbers, hex, addresses, paths and ids masked); earliest first, then the "
         "most concentrated. <code>faultline rules suggest --db DB ID</code> drafts a signature "
         "from one.</p>\n<table><tr><th>id</th><th>template</th><th>lines</th><th>hosts</th>"
         "<th>first seen</th><th>last seen</th><th>first line</th></tr>\n";
    for (const auto& t : r.unknown) {
      std::string on;
      for (const auto& h : t.hosts) on += (on.empty() ? "" : ", ") + h;
      o << "<tr><td><code>" << html(t.id) << "</code></td><td><code>" << html(t.text)
        << "</code></td><td>" << t.count << "</td><td>" << html(on) << "</td><td>"
        << html(t.first_ns ? fmt_time_q(t.first_ns, t.first_quality) : "–") << "</td><td>"
        << html(t.last_ns ? fmt_time_q(t.last_ns, t.last_quality) : "–") << "</td><td><code>"
        << html(t.examples.empty() ? std::string("–") : loc(t.examples[0].file, t.examples[0].line))
        << "</code></td></tr>\n";
    }
    o << "</table>\n";
  }

  o << "<h2 id=\"timeline\">Timeline</h2>\n";
  timeline_svg(o, r);
  if (!r.timeline.empty()) {
    o << "<details><summary>Timeline rows (" << r.timeline.size()
      << ")</summary>\n<table class=\"tl\">"
      << "<tr><th>#</th><th>time "
         "(UTC)</th><th>quality</th><th>host</th><th>file:line</th><th>role</th>"
      << "<th>finding</th><th>text</th></tr>\n";
    for (const auto& t : r.timeline) {
      o << "<tr><td>" << t.ord << "</td><td>"
        << html(t.time_ns ? fmt_time_q(t.time_ns, t.shown_quality()) : "–") << "</td><td>"
        << html(t.quality) << "</td><td>" << html(t.host) << "</td><td><code>"
        << html(loc(t.file, t.line)) << "</code></td><td>" << html(t.role) << "</td><td>"
        << html(t.finding) << "</td><td><code>" << html(t.text.substr(0, 400))
        << "</code></td></tr>\n";
    }
    o << "</table></details>\n";
  }

  o << "<h2 id=\"versions\">Versions</h2>\n";
  std::map<std::string, std::map<std::string, std::set<std::string>>> vals;
  for (const auto& f : r.facts) vals[f.name][f.host].insert(f.value);
  bool any = false;
  std::ostringstream vt;
  vt << "<table><tr><th>fact</th>";
  for (const auto& h : r.hosts) vt << "<th>" << html(h) << "</th>";
  vt << "</tr>\n";
  for (const auto& name : version_fact_names()) {
    auto it = vals.find(name);
    if (it == vals.end()) continue;
    any = true;
    vt << "<tr><td><code>" << html(name) << "</code></td>";
    for (const auto& h : r.hosts) {
      std::string v;
      auto hv = it->second.find(h);
      if (hv != it->second.end())
        for (const auto& x : hv->second) v += (v.empty() ? "" : ", ") + x;
      vt << "<td>" << html(v.empty() ? "–" : v) << "</td>";
    }
    vt << "</tr>\n";
  }
  vt << "</table>\n";
  o << (any ? vt.str() : std::string("<p>No version facts in the bundle.</p>\n"));

  o << "<h2 id=\"missing\">Missing or truncated evidence</h2>\n<ul>";
  bool issue = false;
  for (const auto& i : r.issues) {
    issue = true;
    o << "<li><code>" << html(i.path) << "</code> (" << html(i.kind) << "):";
    if (i.truncated) o << " truncated at a size limit or damaged;";
    if (i.long_lines > 0) o << " " << i.long_lines << " long lines cut;";
    if (i.malformed_lines > 0) o << " " << i.malformed_lines << " lines not understood;";
    o << "</li>";
  }
  for (const auto& f : r.findings)
    for (const auto& x : f.missing)
      if (x.rfind("uncertain: ", 0) == 0) {
        issue = true;
        o << "<li><code>" << html(f.id) << "</code> on <code>" << html(f.host)
          << "</code>: " << html(x.substr(11)) << "</li>";
      }
  if (!issue) o << "<li>None recorded.</li>";
  o << "</ul>\n<h2 id=\"warnings\">Ingest warnings</h2>\n<ul>";
  if (r.warnings.empty()) o << "<li>None.</li>";
  for (const auto& w : r.warnings)
    o << "<li><code>" << html(w.file.empty() ? "(bundle)" : w.file)
      << "</code>: " << html(w.message) << "</li>";
  o << "</ul>\n";
  if (!r.suppressed.empty()) {  // docs/suppress.md
    o << "<h2 id=\"suppressed\">Suppressed</h2>\n<p>" << html(suppressed_text(r)) << "</p>\n<ul>";
    for (const auto& x : r.suppressed) {
      o << "<li>" << html(x.reason) << " (" << (x.demote ? "demote" : "drop") << ", <code>"
        << html(r.suppress_file + ":" + std::to_string(x.line)) << "</code>): " << x.findings
        << " findings, " << x.lines << " lines";
      for (const auto& d : x.demoted) o << "<br>demoted: " << html(d);
      o << "</li>";
    }
    o << "</ul>\n";
  }
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace faultline::report::detail
