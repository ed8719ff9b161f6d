// Renderers of a loaded Report (model.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "faultline/core/types.hpp"
#include "model.hpp"

namespace faultline::report::detail {

inline std::string kFaultlineVersion() {
  return std::string(faultline::kVersion);
}

std::string render_md(const Report& r);
std::string render_json(const Report& r);
std::string render_html(const Report& r);

// Fleet view (fleet.cpp): the stored fleet run over these bundles (correlate/fleet.hpp), or one
// computed from the database when it holds none; bundles are read lightly (no evidence rows).
std::string render_fleet_md(sqlite3* db, const std::vector<int64_t>& bundle_ids);
std::string render_fleet_json(sqlite3* db, const std::vector<int64_t>& bundle_ids);
nlohmann::ordered_json fleet_json(sqlite3* db, const std::vector<int64_t>& bundle_ids);
std::string render_fleet_html(sqlite3* db, const std::vector<int64_t>& bundle_ids);

// Timeline export (export.cpp; docs/timeline-export.md). One event of a bundle's timeline in the
// export's columns, every text value passed through text::terminal_safe (one line, no control
// character, valid UTF-8) so that bundle text stays inert in a terminal, a sheet and Timesketch.
struct ExportEvent {
  std::optional<int64_t> timestamp_us;  // microseconds since the epoch; none: no usable time
  std::string datetime;                 // ISO 8601 with "+00:00", "" without a usable time
  std::string timestamp_desc, message, host, file, signature, finding, role, time_quality, kind,
      bundle, level;
  int64_t line = 0;
  int ord = 0;
};
// The columns, in order (csv header, jsonl key order).
const std::vector<std::string>& export_columns();
// The timelines of these bundles (each bundle's rows in `ord` order, bundles in the order given).
std::vector<ExportEvent> export_events(const std::vector<Report>& bundles);
// Bundles with their header and timeline only (failed ones left out), sorted by path like the
// fleet view.
std::vector<Report> load_timelines(sqlite3* db, const std::vector<int64_t>& bundle_ids);

// jsonl.cpp: one JSON object per line, Timesketch's field names; events without a usable time
// are left out and counted in *untimed.
std::string render_jsonl(const std::vector<ExportEvent>& events, size_t* untimed);
// csv.cpp: RFC 4180 with a header row and CRLF records, every event; text cells that a
// spreadsheet would run as a formula get a leading "'" (csv_cell).
std::string render_csv(const std::vector<ExportEvent>& events);
// One CSV field: formula-injection defence for text (a cell starting with = + - @ tab or CR gets
// a leading single quote, the OWASP rule), then quoted when it holds , " CR or LF.
std::string csv_cell(std::string_view s, bool text = true);

// The contract's "bundle" object.
nlohmann::ordered_json bundle_json(const Report& r);

// Markdown escaping (markdown.cpp): a report goes into tickets that render Markdown and HTML, so
// no text from a bundle may become markup there (docs/report.md "Markdown").
// Inline code span of one line: the fence is longer than any backtick run inside, controls and
// newlines are shown as "\xNN".
std::string md_code(std::string_view s);
// Plain text from a bundle (host names, log lines, values, messages): one line, with '\\', '`',
// '<' and a ']' before '(' backslash-escaped, so that it holds no code span, HTML, autolink,
// link or image.
std::string md_text(std::string_view s);
// Rule text that may hold code spans and bundle values (titles, summaries, remediation): one
// line; the code spans it holds (CommonMark: a backtick run closed by the next run of the same
// length) are kept verbatim, and the rest is escaped like md_text.
std::string md_prose(std::string_view s);

// Content-Security-Policy of the self-contained html reports (a <meta http-equiv> in their head):
// no script, no external resource at all; the inline CSS and the data: icons the page has.
inline constexpr const char* kReportCsp =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'";

// HTML text escaping; also breaks "://" so that no URL-looking text is a resource reference.
std::string html(const std::string& s);

}  // namespace faultline::report::detail
