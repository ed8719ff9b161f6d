// The ticket view (`--summary`, docs/report.md "Summary"): what a support engineer pastes into a
// ticket as it is. Verdict first (the same sentence as the full report's), then per root cause
// its decisive lines, what was looked for and not found, what the bundle lacked, the next steps,
// and where the full report is. At most kSummaryLines lines and kSummaryChars characters.
#include <algorithm>
#include <set>
#include <sstream>

#include "faultline/correlate/fleet.hpp"
#include "render.hpp"
#include "shared.hpp"

namespace faultline::report::detail {
namespace {

constexpr size_t kEvidencePerCause = 3;
constexpr size_t kCausesShown = 2;
constexpr size_t kStepsShown = 4;

// "…/plog/plog-155320_20250508095618528.log:34": the end of a long path is what names it
std::string short_loc(const std::string& file, int64_t line) {
  std::string l = loc(file, line);
  if (l.size() <= 90) return l;
  size_t cut = l.size() - 89;
  while (cut < l.size() && (static_cast<unsigned char>(l[cut]) & 0xC0) == 0x80) ++cut;
  const size_t slash = l.find('/', cut);
  if (slash != std::string::npos && slash + 20 < l.size()) cut = slash;
  return "…" + l.substr(cut);
}

void decisive_lines(std::ostringstream& o, const FindingR& f) {
  const auto groups = fold_evidence(f.evidence);
  size_t shown = 0;
  for (const auto& g : groups) {
    if (shown++ >= kEvidencePerCause) break;
    const EvidenceR& e = *g.first;
    o << "- " << md_code(short_loc(e.file, e.line));
    if (e.time_ns) o << " · " << md_text(fmt_time_q(e.time_ns, e.shown_quality()));
    if (g.count > 1) o << " · ×" << g.count;
    o << "\n  " << md_code(cut_line(e.text, 200)) << "\n";
  }
  if (groups.size() > kEvidencePerCause)
    o << "- (" << groups.size() - kEvidencePerCause << " more evidence templates in the full "
      << "report)\n";
}

std::string first_failure_words(const correlate::FleetFirstFailure& f) {
  if (f.no_single_root) return "no single root (" + f.reason + ")";
  std::string s;
  if (f.culprits.size() > 1) {
    for (const auto& u : f.culprits) {
      std::string w = u.host.empty() ? u.address + " (outside the collected set)" : u.host;
      if (u.rank) w += " rank " + std::to_string(*u.rank);
      if (u.device) w += " device " + std::to_string(*u.device);
      s += (s.empty() ? "" : "; ") + w;
    }
    return s;
  }
  s = f.host.empty() ? std::string("a node outside the collected set") : f.host;
  if (f.rank) s += ", rank " + std::to_string(*f.rank);
  if (f.device) s += ", device " + std::to_string(*f.device);
  if (!f.ip.empty()) s += " (" + f.ip + ")";
  return s;
}

}  // namespace

std::string fleet_verdict(sqlite3* db, const std::vector<int64_t>& ids) {
  const auto fl = correlate::load_fleet(db, ids);
  if (!fl) return {};
  if (!fl->first_failure) return "Fleet: no timed first failure.";
  const auto& ff = *fl->first_failure;
  std::string v = "Fleet first failure: " + first_failure_words(ff);
  if (ff.time_ns) v += " at " + fmt_time_q(ff.time_ns, ff.quality);
  v += " (rule " + ff.rule + ", confidence " + fmt_conf(ff.confidence) + ")";
  if (!ff.root_cause.empty())
    v += "; its node root cause: " + ff.root_cause_title + " (" + ff.root_cause + ")";
  if (!ff.explains_hosts.empty())
    v += "; explains the errors of " + std::to_string(ff.explains_hosts.size()) + " other host" +
         (ff.explains_hosts.size() == 1 ? "" : "s");
  return v + ".";
}

std::string bound_summary(std::string s) {
  // the last line (where the full report is) always stays
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) lines.push_back(std::move(l));
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  size_t total = 0;
  for (const auto& l : lines) total += l.size() + 1;
  if (lines.size() <= kSummaryLines && total <= kSummaryChars) return s;
  const std::string last = lines.empty() ? std::string() : lines.back();
  const std::string note = "_(cut at the ticket limit: the full report has the rest)_";
  std::string out;
  size_t n = 0;
  const size_t budget = kSummaryChars - last.size() - note.size() - 8;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    std::string l = lines[i];
    if (l.size() > 1000) l = cut_line(l, 1000);
    if (n + 3 > kSummaryLines || out.size() + l.size() + 1 > budget) break;
    out += l + "\n";
    ++n;
  }
  return out + note + "\n\n" + last + "\n";
}

std::string render_summary_md(const Report& r, const std::string& job_verdict) {
  std::ostringstream o;
  o << "### faultline summary: " << md_text(cut_line(r.name, 120)) << "\n\n";
  if (!job_verdict.empty()) o << "**Job:** " << md_text(job_verdict) << "\n\n";
  o << "**Verdict:** " << md_prose(verdict(r)) << "\n\n";

  std::vector<const FindingR*> causes, unexplained, faults;
  for (const auto& f : r.findings) {
    if (f.kind == "root_cause")
      causes.push_back(&f);
    else if (f.kind == "fault")
      faults.push_back(&f);
    else if (f.explained_by.empty())
      unexplained.push_back(&f);
  }
  // what the verdict rests on: the root causes; else the unexplained symptoms; else the first
  // fault event
  std::vector<const FindingR*> leads = causes;
  const char* what = "Root cause";
  if (leads.empty()) {
    leads = unexplained;
    what = "Unexplained symptom";
  }
  if (leads.empty() && !faults.empty()) {
    leads = {faults.front()};
    what = "First fault event";
  }
  std::set<std::string> looked;
  std::vector<std::string> steps;
  for (size_t i = 0; i < leads.size() && i < kCausesShown; ++i) {
    const FindingR& f = *leads[i];
    o << "**" << what << (leads.size() > 1 ? " " + std::to_string(i + 1) : "") << ":** "
      << md_prose(cut_line(f.title, 200)) << " (" << md_code(f.id) << ") on " << md_code(f.host)
      << ", confidence " << fmt_conf(f.confidence) << "\n\n";
    decisive_lines(o, f);
    o << "\n";
    for (const auto& m : f.missing)
      if (m.rfind("uncertain: ", 0) != 0) looked.insert(m);
    for (const auto& s : f.remediation) steps.push_back(s);
    if (f.fault && !f.fault->suggestion.empty() && f.fault->pack.empty())
      steps.push_back(f.fault->suggestion);
  }
  if (leads.size() > kCausesShown)
    o << "(" << leads.size() - kCausesShown << " more in the full report.)\n\n";
  if (leads.empty() && !r.unclassified.empty()) {
    const auto& u = r.unclassified.front();
    o << "**Most frequent error signature no diagnosis covers:** " << md_code(u.signature) << " ×"
      << u.count << " at " << md_code(short_loc(u.file, u.line)) << "\n\n";
  }

  o << "**Looked for, not found:** ";
  if (looked.empty()) {
    o << "nothing the diagnoses needed was missing.\n\n";
  } else {
    size_t k = 0;
    for (const auto& m : looked) {
      if (k++ == 4) {
        o << "; …";
        break;
      }
      o << (k > 1 ? "; " : "") << md_prose(cut_line(m, 200));
    }
    o << "\n\n";
  }

  o << "**Bundle:** recognised " << r.recognised << " of " << r.files << " files, "
    << r.hosts.size() << " host" << (r.hosts.size() == 1 ? "" : "s") << ". ";
  const std::string inc = completeness_note(r);
  if (!inc.empty()) {
    o << md_text(inc) << "\n\n";
  } else {
    size_t cut = 0;
    for (const auto& i : r.issues) cut += i.long_lines > 0 || i.malformed_lines > 0;
    o << "Nothing cut or skipped"
      << (cut ? " (" + std::to_string(cut) + " files with long or not understood lines)" : "")
      << ".\n\n";
  }
  if (const auto sup = suppressed_text(r); !sup.empty())  // docs/suppress.md
    o << md_text(cut_line(sup, 400)) << ".\n\n";

  if (!steps.empty()) {
    o << "**Next steps:**\n\n";
    for (size_t i = 0; i < steps.size() && i < kStepsShown; ++i)
      o << "- [ ] " << md_prose(cut_line(steps[i], 300)) << "\n";
    o << "\n";
  }

  size_t symptoms = 0;
  for (const auto& f : r.findings) symptoms += f.kind == "symptom";
  o << "Full report: `faultline report --db DB` (or `analyze` without `--summary`; `--format json`"
    << " keeps every line): " << causes.size() << " root cause" << (causes.size() == 1 ? "" : "s")
    << ", " << symptoms << " symptom" << (symptoms == 1 ? "" : "s") << ", " << faults.size()
    << " fault event" << (faults.size() == 1 ? "" : "s") << ", " << r.unknown.size()
    << " unrecognised error template" << (r.unknown.size() == 1 ? "" : "s") << ".\n";
  return bound_summary(o.str());
}

std::string render_fleet_summary_md(sqlite3* db, const std::vector<int64_t>& ids) {
  std::ostringstream o;
  o << "### faultline fleet summary: " << ids.size() << " bundle" << (ids.size() == 1 ? "" : "s")
    << "\n\n";
  const std::string fv = fleet_verdict(db, ids);
  o << "**Verdict:** " << md_text(fv.empty() ? "no fleet correlation stored" : fv) << "\n\n";
  for (const auto id : ids) {
    Report r;
    try {
      r = load(db, id);
    } catch (const std::exception& e) {
      o << "- bundle " << id << ": " << md_text(e.what()) << "\n";
      continue;
    }
    o << "- " << md_code(cut_line(r.name, 80)) << ": " << md_prose(cut_line(verdict(r), 300))
      << "\n";
  }
  if (const Filter* fp = active_filter(); fp != nullptr) {  // docs/suppress.md
    Report sum;
    sum.suppress_file = fp->file;
    sum.min_severity_rank = fp->min_sev_rank;
    for (const auto id : ids) {
      try {
        const Report r = load(db, id);
        sum.below_min_lines += r.below_min_lines;
        sum.below_min_faults += r.below_min_faults;
        for (size_t i = 0; i < r.suppressed.size(); ++i) {
          if (sum.suppressed.size() <= i) sum.suppressed.push_back({});
          sum.suppressed[i].findings += r.suppressed[i].findings;
          sum.suppressed[i].lines += r.suppressed[i].lines;
        }
      } catch (const std::exception&) {
        continue;  // named above
      }
    }
    o << "\n" << md_text(cut_line(suppressed_text(sum), 400)) << ".\n";
  }
  o << "\nFull report: `faultline report --db DB` (or `fleet` without `--summary`).\n";
  return bound_summary(o.str());
}

}  // namespace faultline::report::detail
