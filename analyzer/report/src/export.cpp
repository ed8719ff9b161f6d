// Timeline export (docs/timeline-export.md): the rows of the report's timeline as events for
// super-timeline tools, in Timesketch's field names (message, datetime, timestamp,
// timestamp_desc) plus ours. Shared by the jsonl and csv renderers.
#include <algorithm>

#include "faultline/core/text.hpp"
#include "render.hpp"
#include "shared.hpp"

namespace faultline::report::detail {
namespace {

std::string safe(std::string_view s) {
  return text::terminal_safe(s, false);
}

// Microseconds since the epoch, rounded down (a time before 1970 stays in its microsecond).
int64_t to_us(int64_t ns) {
  return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000);
}

// What the time means: the line's own time; a qualifier when it is not a wall-clock time of a
// known zone (docs/clock.md), so that a merged super-timeline shows how far to trust it.
std::string timestamp_desc(const std::string& quality) {
  if (quality == "exact" || quality == "local") return "Event Time";
  return "Event Time (" + quality + ")";
}

}  // namespace

const std::vector<std::string>& export_columns() {
  static const std::vector<std::string> cols = {
      "datetime", "timestamp", "timestamp_desc", "message", "host",   "file", "line", "signature",
      "finding",  "role",      "time_quality",   "kind",    "bundle", "ord",  "level"};
  return cols;
}

std::vector<Report> load_timelines(sqlite3* db, const std::vector<int64_t>& bundle_ids) {
  std::vector<Report> out;
  for (int64_t id : bundle_ids) {
    Report r;
    load_header(db, id, r);
    if (r.status.rfind("failed", 0) == 0) continue;
    load_timeline(db, id, r);
    load_error_events(db, id, r);  // every error-and-above line, cited or not
    apply_filter(r);               // docs/suppress.md
    out.push_back(std::move(r));
  }
  std::stable_sort(out.begin(), out.end(), [](const Report& a, const Report& b) {
    return a.path != b.path ? a.path < b.path : a.sha256 < b.sha256;
  });
  return out;
}

std::vector<ExportEvent> export_events(const std::vector<Report>& bundles) {
  std::vector<ExportEvent> out;
  for (const auto& b : bundles) {
    const std::string bundle = safe(b.path);
    for (const auto& t : b.timeline) {
      ExportEvent e;
      const std::string q = t.shown_quality();  // zone unknown: "assumed_utc" (model.hpp)
      // A row without a time, or with the "unknown" quality, has no usable time.
      if (t.time_ns && q != "unknown") {
        e.timestamp_us = to_us(*t.time_ns);
        // UTC: "...T01:30:15.398114+00:00"; a local time of unknown zone has no offset at all
        std::string iso = iso_time_q(*t.time_ns, q);
        if (!iso.empty() && iso.back() == 'Z') iso.replace(iso.size() - 1, 1, "+00:00");
        e.datetime = std::move(iso);
        e.timestamp_desc = timestamp_desc(q);
      } else {
        e.timestamp_desc = "No Time";
      }
      e.message = safe(t.text);
      e.host = safe(t.host);
      e.file = safe(t.file);
      e.line = t.line;
      e.signature = safe(t.signature);
      e.finding = safe(t.finding);
      e.role = safe(t.role);
      e.time_quality = safe(q);
      e.kind = safe(t.kind);
      e.level = safe(t.level);
      e.bundle = bundle;
      e.ord = t.ord;
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace faultline::report::detail
