#include "faultline/report/report.hpp"

#include <nlohmann/json.hpp>

#include "faultline/core/text.hpp"
#include "faultline/correlate/fleet.hpp"
#include "render.hpp"
#include "shared.hpp"

namespace faultline::report {

std::optional<Format> format_from(std::string_view s) {
  if (s == "md" || s == "markdown") return Format::md;
  if (s == "json") return Format::json;
  if (s == "html") return Format::html;
  if (s == "jsonl") return Format::jsonl;
  if (s == "csv") return Format::csv;
  return std::nullopt;
}

const char* format_names() {
  return "md, json, html, jsonl, csv";
}

namespace {

// Every format goes to terminals (stdout) and tickets: no control character of a bundle reaches
// them raw (text::terminal_safe; JSON keeps its meaning, see there).
// A bundle that holds several nodes (a job's tarball: `analyze` ran the fleet correlation over
// its hosts and stored it, docs/fleet.md "A job in one bundle"): the job's answer first, then the
// per-host report. md: the fleet report, then the bundle report; json: the bundle object with
// `first_failure` and `fleet` (the fleet report's object) added; html: the fleet page with the
// bundle report's body appended.
// Heads the appended per-node part: its verdict is each host's own, the job's answer is above.
constexpr const char* kPerNode =
    "Per-node report: the verdict and findings below are per node (each host on its own); the "
    "job's answer is the first failure above.";

std::string render_job(sqlite3* db, int64_t bundle_id, const detail::Report& r, Format f) {
  switch (f) {
    case Format::jsonl:
    case Format::csv:
      return {};  // the timeline export is not a report (render_timeline)
    case Format::md:
      return detail::render_fleet_md(db, {bundle_id}) + "\n---\n\n" + kPerNode + "\n\n" +
             detail::render_md(r);
    case Format::json: {
      auto j = nlohmann::ordered_json::parse(detail::render_json(r));
      auto fl = detail::fleet_json(db, {bundle_id});
      j["first_failure"] = fl["first_failure"];
      j["summary"] = detail::render_summary_md(r, detail::fleet_verdict(db, {bundle_id}));
      j["fleet"] = std::move(fl);
      return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    case Format::html: {
      std::string page = detail::render_fleet_html(db, {bundle_id});
      const std::string one = detail::render_html(r);
      // both are our own markup (bundle text is escaped): splice the bundle's style and body
      const size_t s0 = one.find("<style>"), s1 = one.find("</style>");
      const size_t b0 = one.find("<body>\n"), b1 = one.rfind("</body>");
      const size_t head = page.find("</head>"), end = page.rfind("</body>");
      if (s0 == std::string::npos || s1 == std::string::npos || b0 == std::string::npos ||
          b1 == std::string::npos || head == std::string::npos || end == std::string::npos)
        return page;
      page.insert(end, "<hr>\n<p><b>" + std::string(kPerNode) + "</b></p>\n" +
                           one.substr(b0 + 7, b1 - b0 - 7));
      page.insert(head, one.substr(s0, s1 + 8 - s0) + "\n");
      return page;
    }
  }
  return {};
}

bool timeline_format(Format f) {
  return f == Format::jsonl || f == Format::csv;
}

// The timeline export of these bundles (docs/timeline-export.md). Every value is already
// terminal_safe (export.cpp); csv records end in CRLF (RFC 4180), which is why the csv does not go
// through the whole-text terminal_safe of the reports (it would show each CR as "\x0d").
std::string render_timeline(sqlite3* db, const std::vector<int64_t>& ids, Format f,
                            RenderNotes* notes) {
  const auto events = detail::export_events(detail::load_timelines(db, ids));
  if (f == Format::csv) return detail::render_csv(events);
  size_t untimed = 0;
  std::string out = detail::render_jsonl(events, &untimed);
  if (notes) notes->untimed_skipped = untimed;
  return text::terminal_safe(out);  // a no-op on safe cells: the same guarantee as the reports
}

std::string render_bundle_raw(sqlite3* db, int64_t bundle_id, Format f) {
  const detail::Report r = detail::load(db, bundle_id);
  if (correlate::job_bundle(db, bundle_id) && correlate::load_fleet(db, {bundle_id}))
    return render_job(db, bundle_id, r, f);
  switch (f) {
    case Format::md:
      return detail::render_md(r);
    case Format::json:
      return detail::render_json(r);
    case Format::html:
      return detail::render_html(r);
    case Format::jsonl:
    case Format::csv:
      break;  // render_timeline
  }
  return {};
}

std::string render_fleet_raw(sqlite3* db, const std::vector<int64_t>& bundle_ids, Format f) {
  switch (f) {
    case Format::md:
      return detail::render_fleet_md(db, bundle_ids);
    case Format::json:
      return detail::render_fleet_json(db, bundle_ids);
    case Format::html:
      return detail::render_fleet_html(db, bundle_ids);
    case Format::jsonl:
    case Format::csv:
      break;  // render_timeline
  }
  return {};
}

}  // namespace

std::string render_bundle(sqlite3* db, int64_t bundle_id, Format f, RenderNotes* notes,
                          const Filter* filter) {
  const detail::ScopedFilter scope(filter);
  if (timeline_format(f)) return render_timeline(db, {bundle_id}, f, notes);
  return text::terminal_safe(render_bundle_raw(db, bundle_id, f));
}

std::string render_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids, Format f,
                         RenderNotes* notes, const Filter* filter) {
  const detail::ScopedFilter scope(filter);
  if (timeline_format(f)) return render_timeline(db, bundle_ids, f, notes);
  return text::terminal_safe(render_fleet_raw(db, bundle_ids, f));
}

std::string render_bundle_summary(sqlite3* db, int64_t bundle_id, const Filter* filter) {
  const detail::ScopedFilter scope(filter);
  const detail::Report r = detail::load(db, bundle_id);
  const bool job =
      correlate::job_bundle(db, bundle_id) && correlate::load_fleet(db, {bundle_id}).has_value();
  return text::terminal_safe(
      detail::render_summary_md(r, job ? detail::fleet_verdict(db, {bundle_id}) : std::string()));
}

std::optional<std::string> worst_severity(sqlite3* db, const std::vector<int64_t>& bundle_ids,
                                          const Filter* filter) {
  const detail::ScopedFilter scope(filter);
  std::optional<std::string> worst;
  int best = -1;
  for (const auto id : bundle_ids) {
    const detail::Report r = detail::load(db, id, false);  // the findings only
    for (const auto& f : r.findings)
      if (const auto k = severity_rank(f.severity); k && *k > best) {
        best = *k;
        worst = f.severity;
      }
  }
  return worst;
}

std::string incomplete_load(sqlite3* db, int64_t bundle_id) {
  return detail::completeness_note(detail::load(db, bundle_id, false));
}

std::string nothing_recognised(sqlite3* db, int64_t bundle_id) {
  // after the report was rendered: the unrecognised-error templates (every error line read and
  // masked once more, ~5% of a plog-heavy analyze) are not part of the answer
  const detail::Report r = detail::load(db, bundle_id, false);
  if (r.recognised > 0 || r.files == 0 || !r.findings.empty() || !r.unclassified.empty()) return {};
  return detail::nothing_recognised(r);
}

std::string render_fleet_summary(sqlite3* db, const std::vector<int64_t>& bundle_ids,
                                 const Filter* filter) {
  const detail::ScopedFilter scope(filter);
  return text::terminal_safe(detail::render_fleet_summary_md(db, bundle_ids));
}

}  // namespace faultline::report
