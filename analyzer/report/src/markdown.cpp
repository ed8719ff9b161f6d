// Markdown for tickets: verdict first, then what to do, then the evidence to check it.
#include <map>
#include <set>
#include <sstream>

#include "model.hpp"
#include "render.hpp"

namespace faultline::report::detail {
namespace {

// Inline code span that survives backticks in the text.
std::string code(const std::string& s) {
  size_t run = 0, best = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    best = std::max(best, run);
  }
  const std::string fence(best + 1, '`');
  const bool pad = !s.empty() && (s.front() == '`' || s.back() == '`');
  return fence + (pad ? " " : "") + s + (pad ? " " : "") + fence;
}

// Table cell: one line, pipes escaped, bounded.
std::string cell(std::string s, size_t max = 160) {
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (s.size() > max) {
    size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
    s = s.substr(0, cut) + "…";
  }
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out.push_back(c);
  }
  return out;
}

// Fenced block whose fence is longer than any backtick run inside.
void block(std::ostringstream& o, const std::string& text, const std::string& indent) {
  size_t run = 0, best = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    best = std::max(best, run);
  }
  const std::string fence(std::max<size_t>(3, best + 1), '`');
  o << indent << fence << "text\n";
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) o << indent << line << "\n";
  o << indent << fence << "\n";
}

void evidence(std::ostringstream& o, const FindingR& f) {
  if (f.evidence.empty()) {
    o << "_No evidence rows stored._\n\n";
    return;
  }
  for (const auto& g : group_evidence(f)) {
    for (const EvidenceR* e : g.shown) {
      o << "- " << code(loc(e->file, e->line));
      if (e->time_ns) o << " · " << fmt_time(e->time_ns);
      if (!e->signature.empty()) o << " · signature " << code(e->signature);
      if (!e->fact.empty()) o << " · fact " << code(e->fact);
      o << "\n";
      block(o, e->text, "  ");
    }
    if (g.more > 0) {
      o << "- … and " << g.more << " more like this";
      if (!g.more_files.empty()) {
        o << " in ";
        for (size_t i = 0; i < g.more_files.size() && i < 4; ++i)
          o << (i ? ", " : "") << code(g.more_files[i]);
        if (g.more_files.size() > 4) o << " and " << (g.more_files.size() - 4) << " more files";
      }
      o << " (all listed in the JSON report)\n";
    }
  }
  o << "\n";
}

}  // namespace

std::string render_md(const Report& r) {
  std::ostringstream o;
  o << "# faultline report: " << cell(r.name, 200) << "\n\n";
  o << "**Verdict:** " << verdict(r) << "\n\n";
  o << "| bundle | |\n|---|---|\n";
  o << "| path | " << code(cell(r.path, 400)) << " |\n";
  o << "| sha256 | " << code(r.sha256) << " |\n";
  std::string hosts;
  for (const auto& h : r.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
  o << "| hosts | " << cell(hosts.empty() ? "(none)" : hosts, 400) << " |\n";
  o << "| files | " << r.files << " (" << r.bytes << " bytes uncompressed) |\n";
  o << "| faultline | " << kFaultlineVersion() << " |\n\n";

  o << "## Root causes\n\n";
  int n = 0;
  for (const auto& f : r.findings) {
    if (f.kind != "root_cause") continue;
    ++n;
    o << "### " << n << ". " << cell(f.title, 300) << " (" << code(f.id) << ")\n\n";
    o << "- host: " << code(f.host) << " · severity: **" << f.severity << "** · confidence: **"
      << fmt_conf(f.confidence) << "**\n";
    if (!f.explains.empty()) {
      o << "- explains:";
      for (size_t i = 0; i < f.explains.size(); ++i) o << (i ? ", " : " ") << code(f.explains[i]);
      o << "\n";
    }
    o << "\n" << f.summary << "\n\n**Evidence**\n\n";
    evidence(o, f);
    if (!f.missing.empty()) {
      o << "**Looked for, not found / uncertain**\n\n";
      for (const auto& m : f.missing) o << "- " << m << "\n";
      o << "\n";
    }
    o << "**Remediation**\n\n";
    for (const auto& s : f.remediation) o << "- [ ] " << s << "\n";
    o << "\n";
  }
  if (n == 0) o << "None identified.\n\n";

  o << "## Symptoms\n\n";
  int m = 0;
  for (const auto& f : r.findings) {
    if (f.kind != "symptom") continue;
    ++m;
    o << "### " << cell(f.title, 300) << " (" << code(f.id) << ")\n\n";
    o << "- host: " << code(f.host) << " · severity: **" << f.severity << "** · "
      << (f.explained_by.empty()
              ? std::string("**UNEXPLAINED**: no root cause in the rules accounts for it")
              : "explained by " + code(f.explained_by))
      << "\n\n"
      << f.summary << "\n\n";
    evidence(o, f);
  }
  if (m == 0) o << "None observed.\n\n";

  o << "## Other error signatures\n\n";
  if (r.unclassified.empty()) {
    o << "None: every error-level signature hit is cited by a finding.\n\n";
  } else {
    o << "Error-level lines that matched a signature but no diagnosis (not cited above):\n\n"
      << "| signature | lines | first seen | host | file:line |\n|---|---|---|---|---|\n";
    for (const auto& u : r.unclassified)
      o << "| " << code(u.signature) << " | " << u.count << " | "
        << (u.time_ns ? fmt_time(u.time_ns) : "–") << " | " << cell(u.host) << " | "
        << code(cell(loc(u.file, u.line), 200)) << " |\n";
    o << "\n";
  }

  o << "## Versions\n\n";
  std::map<std::string, std::map<std::string, std::set<std::string>>>
      vals;  // name -> host -> values
  for (const auto& f : r.facts) vals[f.name][f.host].insert(f.value);
  bool any_version = false;
  std::ostringstream vt;
  vt << "| fact |";
  for (const auto& h : r.hosts) vt << " " << cell(h) << " |";
  vt << "\n|---|";
  for (size_t i = 0; i < r.hosts.size(); ++i) vt << "---|";
  vt << "\n";
  for (const auto& name : version_fact_names()) {
    auto it = vals.find(name);
    if (it == vals.end()) continue;
    any_version = true;
    vt << "| " << code(name) << " |";
    for (const auto& h : r.hosts) {
      std::string v;
      auto hv = it->second.find(h);
      if (hv != it->second.end())
        for (const auto& x : hv->second) v += (v.empty() ? "" : ", ") + x;
      vt << " " << cell(v.empty() ? "–" : v) << " |";
    }
    vt << "\n";
  }
  o << (any_version ? vt.str() : std::string("No version facts in the bundle.\n")) << "\n";

  o << "## Timeline\n\n";
  if (r.timeline.empty()) {
    o << "No timeline (no findings).\n\n";
  } else {
    o << "| # | time (UTC) | quality | host | file:line | role | finding | text |\n";
    o << "|---|---|---|---|---|---|---|---|\n";
    for (const auto& t : r.timeline) {
      o << "| " << t.ord << " | " << (t.time_ns ? fmt_time(t.time_ns) : "–") << " | " << t.quality
        << " | " << cell(t.host) << " | " << code(cell(loc(t.file, t.line), 200)) << " | " << t.role
        << " | " << (t.finding.empty() ? "–" : code(t.finding)) << " | " << cell(t.text) << " |\n";
    }
    o << "\n";
  }

  o << "## Missing or truncated evidence\n\n";
  bool any_issue = false;
  for (const auto& i : r.issues) {
    any_issue = true;
    o << "- " << code(i.path) << " (" << i.kind << "):";
    if (i.truncated) o << " truncated at a size limit or damaged;";
    if (i.long_lines > 0) o << " " << i.long_lines << " long lines cut;";
    if (i.malformed_lines > 0) o << " " << i.malformed_lines << " lines not understood;";
    o << "\n";
  }
  for (const auto& f : r.findings)
    for (const auto& x : f.missing) {
      if (x.rfind("uncertain: ", 0) != 0) continue;
      any_issue = true;
      o << "- " << code(f.id) << " on " << code(f.host) << ": " << x.substr(11) << "\n";
    }
  if (!any_issue) o << "None recorded.\n";
  o << "\n## Ingest warnings\n\n";
  if (r.warnings.empty()) o << "None.\n";
  for (const auto& w : r.warnings)
    o << "- " << code(w.file.empty() ? "(bundle)" : w.file) << ": " << cell(w.message, 500) << "\n";
  return o.str();
}

}  // namespace faultline::report::detail
