// Markdown for tickets: verdict first, then what to do, then the evidence to check it.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "faultline/core/text.hpp"
#include "model.hpp"
#include "render.hpp"
#include "shared.hpp"

namespace faultline::report::detail {

namespace {

// "Looked for, not found" notes printed per unexplained symptom (the rest: json `missing`)
constexpr size_t kLookedShown = 3;

// A note cut inside a code span: the span is closed before the "…" (else its backtick would
// be escaped and the rest of the code read as prose).
std::string closed_spans(std::string s) {
  if (std::count(s.begin(), s.end(), '`') % 2 == 0) return s;
  const std::string ell = "…";
  const bool cut = s.size() >= ell.size() && s.compare(s.size() - ell.size(), ell.size(), ell) == 0;
  s.insert(cut ? s.size() - ell.size() : s.size(), "`");
  return s;
}
size_t longest_backtick_run(std::string_view s) {
  size_t run = 0, best = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

// s[i] outside code spans: '\\', '`' and '<' always escaped (no escape undone, no code span, no
// HTML, no autolink); ']' before '(' (no inline link or image: reference links need a
// definition at the start of a line, which nothing from a bundle is); newlines become spaces.
void escape_at(std::string& out, std::string_view s, size_t i) {
  const char c = s[i];
  if (c == '\\' || c == '`' || c == '<' || (c == ']' && i + 1 < s.size() && s[i + 1] == '('))
    out.push_back('\\');
  out.push_back(c == '\n' || c == '\r' ? ' ' : c);
}
}  // namespace

std::string md_code(std::string_view raw) {
  const std::string s = text::terminal_safe(raw, false);
  const std::string fence(longest_backtick_run(s) + 1, '`');
  // CommonMark strips one space from each end when both are spaces (and a backtick at an end
  // would join the fence): pad so that the content shows as it is
  const bool pad = !s.empty() && (s.front() == '`' || s.back() == '`' ||
                                  (s.size() > 1 && s.front() == ' ' && s.back() == ' ' &&
                                   s.find_first_not_of(' ') != std::string::npos));
  return fence + (pad ? " " : "") + s + (pad ? " " : "") + fence;
}

std::string md_text(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size(); ++i) escape_at(out, s, i);
  return out;
}

std::string md_prose(std::string_view s) {
  // backtick runs, and for each the next run of the same length (its closer), in one pass from
  // the end: linear in the text however many runs it holds
  struct Run {
    size_t pos, len, closer;
  };
  std::vector<Run> runs;
  for (size_t i = 0; i < s.size();) {
    if (s[i] != '`') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && s[j] == '`') ++j;
    runs.push_back({i, j - i, std::string_view::npos});
    i = j;
  }
  {
    std::unordered_map<size_t, size_t> next;  // run length -> index of its next run
    for (size_t k = runs.size(); k-- > 0;) {
      auto it = next.find(runs[k].len);
      if (it != next.end()) runs[k].closer = it->second;
      next[runs[k].len] = k;
    }
  }
  std::string out;
  out.reserve(s.size() + 8);
  size_t i = 0, r = 0;
  while (i < s.size()) {
    while (r < runs.size() && runs[r].pos < i) ++r;
    if (r < runs.size() && runs[r].pos == i) {
      const Run& run = runs[r];
      if (run.closer != std::string_view::npos) {  // a code span: kept as it is, on one line
        const size_t end = runs[run.closer].pos + runs[run.closer].len;
        for (size_t k = i; k < end; ++k) out.push_back(s[k] == '\n' || s[k] == '\r' ? ' ' : s[k]);
        i = end;
      } else {  // a run without closer is literal text
        for (size_t k = 0; k < run.len; ++k) out += "\\`";
        i += run.len;
      }
      continue;
    }
    escape_at(out, s, i);
    ++i;
  }
  return out;
}

namespace {

std::string code(const std::string& s) {
  return md_code(s);
}

enum class Esc { none, text, prose };

// Table cell: one line, bounded, escaped (md_text / md_prose), pipes escaped.
std::string cell(std::string s, size_t max = 160, Esc esc = Esc::text) {
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (s.size() > max) {
    size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
    s = s.substr(0, cut) + "…";
  }
  if (esc == Esc::text) s = md_text(s);
  if (esc == Esc::prose) s = md_prose(s);
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

// What the full markdown folded (said at its end, docs/report.md "What the markdown folds").
struct Folded {
  size_t lines = 0, entries = 0, templates_left = 0, faults_under = 0, fault_merged = 0,
         timeline_left = 0;
};

constexpr size_t kEntriesShown = 8;   // folded evidence entries of a root cause
constexpr size_t kEntriesOther = 2;   // of a symptom or a fault event
constexpr size_t kTextShown = 600;    // bytes of an evidence line in its block
constexpr size_t kTextOther = 300;    // of a symptom or a fault event
constexpr size_t kTimelineRows = 10;  // folded timeline rows

// "2026-03-14 03:11:52.52 local (zone unknown) … 03:11:52.74": a range within one day prints
// the date and the zone words once
std::string time_range(const std::string& a, const std::string& b) {
  auto time_end = [](const std::string& s) {
    size_t i = 11;
    while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == ':' || s[i] == '.')) ++i;
    return i;
  };
  if (a.size() <= 11 || b.size() <= 11 || a.compare(0, 10, b, 0, 10) != 0) return a + " … " + b;
  const size_t i = time_end(a), j = time_end(b);
  if (a.compare(i, std::string::npos, b, j, std::string::npos) != 0) return a + " … " + b;
  return a.substr(0, i) + " … " + b.substr(11, j - 11) + a.substr(i);
}
constexpr size_t kTableRows = 10;  // other error signatures, unrecognised templates

std::string when(const FoldedEvidence& g) {
  if (!g.first_ns) return {};
  std::string s = fmt_time_q(g.first_ns, g.first_quality);
  if (g.last_ns && *g.last_ns != *g.first_ns)
    s = time_range(s, fmt_time_q(g.last_ns, g.last_quality));
  return s;
}

void evidence(std::ostringstream& o, const FindingR& f, Folded& fo, size_t keep = kEntriesOther,
              size_t text = kTextOther) {
  if (f.evidence.empty()) {
    o << "_No evidence rows stored._\n\n";
    return;
  }
  const auto groups = fold_evidence(f.evidence);
  fo.lines += f.evidence.size();
  fo.entries += groups.size();
  size_t shown = 0, rest_lines = 0;
  for (const auto& g : groups) {
    if (shown >= keep) {
      rest_lines += g.count;
      ++fo.templates_left;
      continue;
    }
    ++shown;
    const EvidenceR* e = g.first;
    o << "- " << code(loc(e->file, e->line));
    if (const auto t = when(g); !t.empty()) o << " · " << t;
    if (!e->signature.empty()) o << " · signature " << code(e->signature);
    if (!e->fact.empty()) o << " · fact " << code(e->fact);
    if (g.count > 1) {
      o << " · **×" << g.count << "**";
      if (g.files.size() > 1) o << " in " << g.files.size() << " files";
    }
    o << "\n";
    block(o, cut_line(e->text, text), "  ");
  }
  if (rest_lines > 0)
    o << "- … and " << (groups.size() - shown) << " more message template"
      << (groups.size() - shown == 1 ? "" : "s") << " (" << rest_lines << " line"
      << (rest_lines == 1 ? "" : "s") << "): every line is in the JSON report\n";
  o << "\n";
}

// Fault events of one host that report the same code (host driver read, DMS, device event log,
// bbox: several observers of one fault), or one fault event alone when it has no code.
struct FaultGroup {
  std::string host, code;
  std::vector<const FindingR*> members;  // rank order
  std::vector<std::string> hosts;        // every host with an observer, in rank order
  bool error = false;                    // some observer at error or above
  int64_t lines = 0;
  std::optional<int64_t> first_ns;
  std::string first_quality;
};

std::vector<FaultGroup> fault_groups(const std::vector<const FindingR*>& faults) {
  std::vector<FaultGroup> out;
  std::map<std::pair<std::string, std::string>, size_t> at;
  for (const auto* f : faults) {
    // one code (or, without one, one signature) is one fault event, on every host that saw it
    const std::string c = f->fault->code;
    const std::string key = c.empty() ? "s:" + f->fault->signature : "c:" + c;
    size_t i;
    if (at.count({key, ""})) {
      i = at[{key, ""}];
    } else {
      i = out.size();
      out.push_back({f->host, c, {}, {}, false, 0, std::nullopt, ""});
      at[{key, ""}] = i;
    }
    FaultGroup& g = out[i];
    if (std::find(g.hosts.begin(), g.hosts.end(), f->host) == g.hosts.end())
      g.hosts.push_back(f->host);
    g.members.push_back(f);
    g.error = g.error || f->severity == "error" || f->severity == "critical";
    g.lines += f->fault->count;
    if (f->first_time_ns && (!g.first_ns || *f->first_time_ns < *g.first_ns)) {
      g.first_ns = f->first_time_ns;
      g.first_quality = f->first_quality;
    }
  }
  return out;
}

std::string observers(const FaultGroup& g) {
  std::map<std::string, int64_t> by;  // signature -> lines, over the hosts
  std::vector<std::string> order;
  for (const auto* m : g.members) {
    if (!by.count(m->id)) order.push_back(m->id);
    by[m->id] += m->fault->count;
  }
  std::string s;
  for (const auto& id : order)
    s += (s.empty() ? "" : ", ") + code(id) + " ×" + std::to_string(by[id]);
  return s;
}

std::string host_list(const FaultGroup& g) {
  std::string s;
  for (size_t i = 0; i < g.hosts.size() && i < 6; ++i) s += (i ? ", " : "") + g.hosts[i];
  if (g.hosts.size() > 6) s += " and " + std::to_string(g.hosts.size() - 6) + " more";
  return s;
}

// A compact table of fault events (those a diagnosis cites, and warnings).
void fault_table(std::ostringstream& o, const std::vector<FaultGroup>& gs) {
  o << "| fault event | host | code | class | observers (lines) | first seen |\n"
    << "|---|---|---|---|---|---|\n";
  for (const auto& g : gs) {
    const FindingR& f = *g.members.front();
    o << "| " << cell(f.title, 120) << " | " << cell(host_list(g)) << " | "
      << (g.code.empty() ? "–" : code(cell(g.code, 60, Esc::none))) << " | " << f.fault->cls
      << " | " << observers(g) << " | "
      << (g.first_ns ? fmt_time_q(g.first_ns, g.first_quality) : "–") << " |\n";
  }
  o << "\n";
}

}  // namespace

std::string render_md(const Report& r) {
  std::ostringstream o;
  Folded fo;
  o << "# faultline report: " << cell(r.name, 200) << "\n\n";
  o << "**Verdict:** " << md_prose(verdict(r)) << "\n\n";
  o << "| bundle | |\n|---|---|\n";
  o << "| path | " << code(cell(r.path, 400, Esc::none)) << " |\n";
  o << "| sha256 | " << code(r.sha256) << " |\n";
  std::string hosts;
  for (const auto& h : r.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
  o << "| hosts | " << cell(hosts.empty() ? "(none)" : hosts, 400) << " |\n";
  o << "| files | " << r.files << " (" << r.bytes << " bytes uncompressed); recognised "
    << r.recognised << " of " << r.files << " |\n";
  o << "| faultline | " << kFaultlineVersion() << " |\n";
  o << "| rules | " << (r.rules_digest.empty() ? "(not recorded)" : code(r.rules_digest)) << " |\n";
  if (r.kb)  // only when a knowledge base was used (reports without one keep their form)
    o << "| knowledge base | " << cell(r.kb->name, 60) << " "
      << code(cell(r.kb->file, 400, Esc::none)) << " (" << r.kb->codes << " codes, "
      << cell(r.kb->how, 40) << ") |\n";
  if (const auto sup = suppressed_text(r); !sup.empty())  // docs/suppress.md
    o << "| suppressed | " << cell(sup, 600) << " |\n";
  o << "\n";

  // fault events: each shown once, under the first diagnosis that cites it (root causes first),
  // the rest in the Fault events section
  std::vector<const FindingR*> faults;
  for (const auto& f : r.findings)
    if (f.kind == "fault" && f.fault) faults.push_back(&f);
  std::set<const FindingR*> placed;
  auto cited_by = [&](const FindingR& d) {
    std::vector<const FindingR*> out;
    for (const auto* f : faults) {
      if (placed.count(f) || f->host != d.host) continue;
      const auto& by = f->fault->diagnosed_by;
      if (std::find(by.begin(), by.end(), d.id) == by.end()) continue;
      out.push_back(f);
      placed.insert(f);
    }
    return out;
  };
  auto cited_table = [&](const std::vector<const FindingR*>& ds) {
    std::vector<const FindingR*> c;
    for (const auto* d : ds)
      for (const auto* x : cited_by(*d)) c.push_back(x);
    if (c.empty()) return;
    const auto gs = fault_groups(c);
    fo.faults_under += c.size();
    o << "**Fault events it cites** (" << c.size() << ", shown here only)\n\n";
    fault_table(o, gs);
  };

  o << "## Root causes\n\n";
  int n = 0;
  for (const auto& f : r.findings) {
    if (f.kind != "root_cause") continue;
    ++n;
    o << "### " << n << ". " << cell(f.title, 300, Esc::prose) << " (" << code(f.id) << ")\n\n";
    o << "- host: " << code(f.host) << " · severity: **" << f.severity << "** · confidence: **"
      << fmt_conf(f.confidence) << "**\n";
    if (!f.explains.empty()) {
      o << "- explains:";
      for (size_t i = 0; i < f.explains.size(); ++i) o << (i ? ", " : " ") << code(f.explains[i]);
      o << "\n";
    }
    o << "\n" << md_prose(f.summary) << "\n\n**Evidence**\n\n";
    evidence(o, f, fo, kEntriesShown, kTextShown);
    if (!f.missing.empty()) {
      o << "**Looked for, not found / uncertain**\n\n";
      for (const auto& m : f.missing) o << "- " << md_prose(m) << "\n";
      o << "\n";
    }
    o << "**Remediation**\n\n";
    for (const auto& s : f.remediation) o << "- [ ] " << md_prose(s) << "\n";
    o << "\n";
    cited_table({&f});
  }
  if (n == 0) o << "None identified.\n\n";

  o << "## Symptoms\n\n";
  // one symptom seen on several hosts (a job's bundle) is one section listing them; the first
  // host's evidence stands for all (every host's lines are in the JSON report)
  std::map<std::string, std::vector<const FindingR*>> same;
  for (const auto& f : r.findings)
    if (f.kind == "symptom") same[f.id + '\x01' + f.explained_by].push_back(&f);
  int m = 0;
  for (const auto& f : r.findings) {
    if (f.kind != "symptom") continue;
    const auto& all = same[f.id + '\x01' + f.explained_by];
    if (all.front() != &f) continue;  // shown with the first host's
    ++m;
    o << "### " << cell(f.title, 300, Esc::prose) << " (" << code(f.id) << ")\n\n";
    std::string hs;
    for (size_t i = 0; i < all.size() && i < 8; ++i) hs += (i ? ", " : "") + all[i]->host;
    if (all.size() > 8) hs += " and " + std::to_string(all.size() - 8) + " more";
    o << "- host" << (all.size() > 1 ? "s (" + std::to_string(all.size()) + ")" : "") << ": "
      << (all.size() > 1 ? cell(hs, 400) : code(f.host)) << " · severity: **" << f.severity
      << "** · "
      << (f.explained_by.empty()
              ? std::string("**UNEXPLAINED**: no root cause in the rules accounts for it")
              : "explained by " + code(f.explained_by))
      << "\n\n"
      << md_prose(f.summary) << "\n\n";
    if (all.size() > 1) o << "Evidence of " << code(f.host) << ":\n\n";
    evidence(o, f, fo);
    // an unexplained symptom: what the causes that could explain it needed and did not find
    // (issue 33 item 3), one compact line; every note is in the json report
    if (f.explained_by.empty()) {
      std::vector<std::string> looked;
      for (const auto& x : f.missing)
        if (x.rfind("uncertain: ", 0) != 0) looked.push_back(x);
      if (!looked.empty()) {
        o << "**Looked for, not found:** ";
        for (size_t i = 0; i < looked.size() && i < kLookedShown; ++i)
          o << (i ? "; " : "") << md_prose(closed_spans(cut_line(looked[i], 200)));
        if (looked.size() > kLookedShown)
          o << "; and " << looked.size() - kLookedShown << " more (json: `missing`)";
        o << "\n\n";
      }
    }
    cited_table(all);
  }
  if (m == 0) o << "None observed.\n\n";

  // Fault events (docs/faults.md) no diagnosis cites: only when there are some, so fault-free
  // reports keep their form. One code seen by several observers is one fault event.
  std::vector<const FindingR*> rest;
  for (const auto* f : faults)
    if (!placed.count(f)) rest.push_back(f);
  const auto groups = fault_groups(rest);
  for (const auto& g : groups) fo.fault_merged += g.members.size() - 1;
  // sections for the error-level fault events that cause; those that are a symptom of another
  // fault (a consequence: torch_npu's "acl api failed" after a device fault) and warnings are
  // compact tables (issue 35 item 2)
  std::vector<FaultGroup> errors, consequences, warnings;
  for (const auto& g : groups) {
    const FindingR& f0 = *g.members.front();
    if (!g.error)
      warnings.push_back(g);
    else if (f0.fault && f0.fault->role == "symptom")
      consequences.push_back(g);
    else
      errors.push_back(g);
  }
  if (!groups.empty()) {
    o << "## Fault events\n\n"
      << "Known faults seen in the logs that no diagnosis above cites (one per host and code, "
         "with every observer of it; causes first, then earliest).\n\n";
  }
  for (const auto& g : errors) {
    const FindingR& f = *g.members.front();
    const FaultR& d = *f.fault;
    o << "### " << cell(f.title, 300) << " (" << code(f.id) << ")\n\n";
    o << "- host" << (g.hosts.size() > 1 ? "s" : "") << ": " << cell(host_list(g)) << " · class: **"
      << d.cls << "** · component: " << d.component << " · role: " << d.role << " · severity: **"
      << f.severity << "**";
    if (!d.code.empty()) o << " · code: " << code(d.code);
    o << "\n- seen " << g.lines << " time" << (g.lines == 1 ? "" : "s");
    if (g.first_ns) o << ", first at " << fmt_time_q(g.first_ns, g.first_quality);
    o << "\n";
    if (g.members.size() > 1) o << "- observers: " << observers(g) << "\n";
    if (!f.explained_by.empty()) o << "- caused by " << code(f.explained_by) << "\n";
    if (!f.explains.empty()) {
      o << "- causes:";
      for (size_t i = 0; i < f.explains.size(); ++i) o << (i ? ", " : " ") << code(f.explains[i]);
      o << "\n";
    }
    // a knowledge base's texts come from the user's file: escaped like bundle text
    const bool kb_text = !d.pack.empty();
    if (kb_text) {
      o << "- from the " << cell(d.pack, 60) << " knowledge base";
      for (size_t i = 0; i < d.native.size(); ++i)
        o << (i ? ", " : "; also lines of ") << code(d.native[i]);
      o << "\n";
    }
    for (const auto& k : d.kb)
      o << "- " << cell(k.pack, 60) << " " << code(cell(k.code, 200, Esc::none)) << " ("
        << code(k.signature) << "): " << cell(k.title, 300) << " · " << k.count << " line"
        << (k.count == 1 ? "" : "s") << "\n";
    o << "\n" << (kb_text ? cell(d.cause, 4000) : md_prose(d.cause)) << "\n\n";
    {
      std::set<std::string> seen;  // one observer's evidence once (the first host's)
      size_t left = 0;
      for (const auto* x : g.members) {
        if (!seen.insert(x->id).second) {
          ++left;
          continue;
        }
        evidence(o, *x, fo);
      }
      if (left > 0)
        o << "_The same observers on " << left << " more host" << (left == 1 ? "" : "s")
          << ": their lines are in the JSON report._\n\n";
    }
    if (!d.suggestion.empty() || !d.kb.empty()) o << "**Suggestion**\n\n";
    if (!d.suggestion.empty())
      o << "- [ ] " << (kb_text ? cell(d.suggestion, 4000) : md_prose(d.suggestion)) << "\n";
    for (const auto& k : d.kb)
      o << "- [ ] " << cell(k.pack, 60) << " " << code(cell(k.code, 200, Esc::none)) << ": "
        << cell(k.suggestion, 4000) << "\n";
    if (!d.suggestion.empty() || !d.kb.empty()) o << "\n";
  }
  if (!consequences.empty()) {
    o << "### Consequences (" << consequences.size() << " fault event"
      << (consequences.size() == 1 ? "" : "s") << ": symptoms of another fault)\n\n";
    fault_table(o, consequences);
  }
  if (!warnings.empty()) {
    o << "### Warnings (" << warnings.size() << " fault event" << (warnings.size() == 1 ? "" : "s")
      << ")\n\n";
    fault_table(o, warnings);
  }

  o << "## Other error signatures\n\n";
  if (r.unclassified.empty()) {
    o << "None: every error-level signature hit is cited by a finding.\n\n";
  } else {
    o << "Error-level lines that matched a signature but no diagnosis (not cited above):\n\n"
      << "| signature | lines | first seen | host | file:line |\n|---|---|---|---|---|\n";
    size_t shown_u = 0;
    for (const auto& u : r.unclassified)
      if (shown_u++ < kTableRows)
        o << "| " << code(u.signature) << " | " << u.count << " | "
          << (u.time_ns ? fmt_time_q(u.time_ns, u.quality) : "–") << " | " << cell(u.host) << " | "
          << code(cell(loc(u.file, u.line), 200, Esc::none)) << " |\n";
    if (r.unclassified.size() > kTableRows)
      o << "\n_" << r.unclassified.size() - kTableRows
        << " more signatures in the JSON report (`unclassified`)._\n";
    o << "\n";
  }

  // docs/faults.md: only when some error-level line is recognised by no signature at all
  if (!r.unknown.empty()) {
    o << "## Unrecognised errors\n\n"
      << "Error-level lines no signature recognises, as templates (numbers, hex, addresses, "
         "paths and ids masked); earliest first, then the most concentrated. `faultline rules "
         "suggest --db DB ID` drafts a signature from one.\n\n"
      << "| id | template | lines | hosts | first seen | last seen | first line |\n"
      << "|---|---|---|---|---|---|---|\n";
    size_t shown_t = 0;
    for (const auto& t : r.unknown) {
      if (shown_t++ >= kTableRows) {
        o << "\n_" << r.unknown.size() - kTableRows
          << " more templates in the JSON report (`unrecognised_errors`)._\n";
        break;
      }
      std::string on;
      for (const auto& h : t.hosts) on += (on.empty() ? "" : ", ") + h;
      o << "| " << code(t.id) << " | " << code(cell(t.text, 300, Esc::none)) << " | " << t.count
        << " | " << cell(on, 200) << " | "
        << (t.first_ns ? fmt_time_q(t.first_ns, t.first_quality) : "–") << " | "
        << (t.last_ns ? fmt_time_q(t.last_ns, t.last_quality) : "–") << " | "
        << (t.examples.empty()
                ? std::string("–")
                : code(cell(loc(t.examples[0].file, t.examples[0].line), 200, Esc::none)))
        << " |\n";
    }
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
    // the lines findings cite, folded by host, finding, role and message template; the context
    // lines around them are in the JSON/HTML reports and the timeline export
    struct Row {
      const TimelineR* first;
      size_t count = 0;
      std::optional<int64_t> last_ns;
      std::string last_quality;
      std::set<std::string> hosts;
    };
    std::vector<Row> rows;
    std::map<std::string, size_t> at;
    size_t context = 0;
    for (const auto& t : r.timeline) {
      if (t.role == "context") {
        ++context;
        continue;
      }
      // the same message of the same finding on several hosts (a job) is one row too
      const std::string key = t.finding + '\x01' + t.role + '\x01' + mask_line(t.text);
      auto [it, fresh] = at.try_emplace(key, rows.size());
      if (fresh) rows.push_back({&t, 0, std::nullopt, "", {}});
      Row& row = rows[it->second];
      ++row.count;
      row.hosts.insert(t.host);
      if (t.time_ns) {
        row.last_ns = t.time_ns;
        row.last_quality = t.shown_quality();
      }
    }
    o << "| # | time | host | file:line | role | finding | lines | text |\n";
    o << "|---|---|---|---|---|---|---|---|\n";
    size_t shown = 0;
    for (const auto& row : rows) {
      if (shown++ >= kTimelineRows) break;
      const TimelineR& t = *row.first;
      std::string tm = t.time_ns ? fmt_time_q(t.time_ns, t.shown_quality()) : "–";
      if (row.count > 1 && row.last_ns && t.time_ns && *row.last_ns != *t.time_ns)
        tm = time_range(tm, fmt_time_q(row.last_ns, row.last_quality));
      const std::string hs =
          t.host + (row.hosts.size() > 1 ? " +" + std::to_string(row.hosts.size() - 1) : "");
      o << "| " << t.ord << " | " << tm << " | " << cell(hs) << " | "
        << code(cell(loc(t.file, t.line), 200, Esc::none)) << " | " << t.role << " | "
        << (t.finding.empty() ? "–" : code(t.finding)) << " | " << row.count << " | "
        << cell(t.text) << " |\n";
    }
    o << "\n";
    fo.timeline_left = context + (rows.size() > kTimelineRows ? rows.size() - kTimelineRows : 0);
    size_t folded_rows = r.timeline.size() - context - std::min(rows.size(), kTimelineRows);
    if (context > 0 || folded_rows > 0)
      o << "_" << r.timeline.size() << " timeline events: " << std::min(rows.size(), kTimelineRows)
        << " rows above (same message of the same finding folded)"
        << (context > 0 ? ", " + std::to_string(context) + " context lines left out" : "")
        << "; all in `--format json`, `--format html` and `--format csv`._\n\n";
  }

  o << "## Missing or truncated evidence\n\n";
  bool any_issue = false;
  for (const auto& i : r.issues) {
    any_issue = true;
    o << "- " << code(i.path) << " (" << i.kind << "):";
    if (i.truncated)
      o << " truncated at a size limit or damaged (cut at line " << i.lines
        << ": what it logged after that is missing);";
    if (i.long_lines > 0) o << " " << i.long_lines << " long lines cut;";
    if (i.malformed_lines > 0) o << " " << i.malformed_lines << " lines not understood;";
    o << "\n";
  }
  for (const auto& f : r.findings)
    for (const auto& x : f.missing) {
      if (x.rfind("uncertain: ", 0) != 0) continue;
      any_issue = true;
      o << "- " << code(f.id) << " on " << code(f.host) << ": " << md_prose(x.substr(11)) << "\n";
    }
  if (!any_issue) o << "None recorded.\n";
  o << "\n## Ingest warnings\n\n";
  if (r.warnings.empty()) o << "None.\n";
  for (const auto& w : r.warnings)
    o << "- " << code(w.file.empty() ? "(bundle)" : w.file) << ": " << cell(w.message, 500) << "\n";
  if (!r.suppressed.empty()) {  // docs/suppress.md
    o << "\n## Suppressed\n\n" << md_text(suppressed_text(r)) << ".\n\n";
    for (const auto& x : r.suppressed) {
      o << "- " << cell(x.reason, 300) << " (" << (x.demote ? "demote" : "drop") << ", "
        << code(r.suppress_file + ":" + std::to_string(x.line)) << "): " << x.findings << " finding"
        << (x.findings == 1 ? "" : "s") << ", " << x.lines << " line" << (x.lines == 1 ? "" : "s")
        << "\n";
      for (size_t i = 0; i < x.demoted.size() && i < 5; ++i)
        o << "  - demoted: " << cell(x.demoted[i], 300) << "\n";
      if (x.demoted.size() > 5) o << "  - and " << x.demoted.size() - 5 << " more demoted\n";
    }
    o << "\nWithout `--suppress` / `--min-severity`, `faultline report --db DB` shows all of it.\n";
  }
  if (fo.lines > fo.entries || fo.faults_under > 0 || fo.fault_merged > 0 ||
      fo.templates_left > 0 || fo.timeline_left > 0) {
    o << "\n## What this report folded\n\n";
    if (fo.lines > fo.entries)
      o << "- " << fo.lines << " evidence lines shown as " << fo.entries
        << " entries (the same message template: numbers, ids, addresses and paths masked)\n";
    if (fo.templates_left > 0)
      o << "- " << fo.templates_left << " further evidence templates not shown\n";
    if (fo.faults_under > 0)
      o << "- " << fo.faults_under
        << " fault events shown under the diagnosis that cites them, not again\n";
    if (fo.fault_merged > 0)
      o << "- " << fo.fault_merged
        << " fault events merged into the fault event of the same code on the same host\n";
    if (fo.timeline_left > 0) o << "- " << fo.timeline_left << " timeline rows left out\n";
    o << "\nEverything is kept: `faultline report --db DB --format json` (or `html`, or `csv` "
         "for the timeline) and the database hold every line.\n";
  }
  return o.str();
}

}  // namespace faultline::report::detail
