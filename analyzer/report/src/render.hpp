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
