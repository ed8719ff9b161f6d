// report: renders findings, evidence, timeline, versions and warnings from the database alone, so
// `faultline report --db` gives the same bytes as `faultline analyze`. Deterministic output
// (sorted, no wall-clock time).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace faultline::report {

// md, json, html: the report. jsonl, csv: the timeline export (docs/timeline-export.md), every
// timeline event of the bundle(s) one per line, for super-timeline tools (Timesketch, a sheet).
enum class Format { md, json, html, jsonl, csv };
std::optional<Format> format_from(std::string_view s);
// "md, json, html, jsonl, csv": the names format_from accepts, for messages and --help.
const char* format_names();

// What a rendering left out (only the jsonl export leaves anything out: events without a usable
// time, which Timesketch cannot import; the csv export keeps them with empty time cells).
struct RenderNotes {
  size_t untimed_skipped = 0;
};

// Analyst controls (docs/suppress.md): a suppression file's entries and --min-severity, applied
// when a report is rendered (the database keeps everything).
struct SuppressEntry {
  std::string reason;
  bool demote = false;                                // action: demote (default drop)
  std::vector<std::string> signature, finding, host;  // globs (* and ?); empty: any
  std::string message;                                // glob over a line's text or its template
  std::optional<int64_t> from_ns, to_ns;              // time range, ends included
  int line = 0;                                       // of the entry in its file
};
struct Filter {
  std::string file;  // as given (named in the report)
  std::vector<SuppressEntry> entries;
  std::optional<int> min_sev_rank;  // --min-severity: 0 debug .. 5 critical
  bool empty() const;
};
// Reads and checks a suppression file; throws std::invalid_argument("FILE:LINE: what").
Filter load_suppress_file(const std::string& path);
Filter parse_suppress(const std::string& text, const std::string& file);
// "debug" .. "critical" -> 0 .. 5
std::optional<int> severity_rank(std::string_view s);

std::string render_bundle(sqlite3* db, int64_t bundle_id, Format f, RenderNotes* notes = nullptr,
                          const Filter* filter = nullptr);
std::string render_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids, Format f,
                         RenderNotes* notes = nullptr, const Filter* filter = nullptr);
// The highest severity among the findings a report with this filter shows ("" none): --fail-on.
std::optional<std::string> worst_severity(sqlite3* db, const std::vector<int64_t>& bundle_ids,
                                          const Filter* filter);
// The ticket view (`--summary`, docs/report.md "Summary"): markdown of at most 60 lines and
// 6,000 characters whose verdict is the full report's (a job's bundle: the fleet's first failure
// first). Also the `summary` field of the json report.
std::string render_bundle_summary(sqlite3* db, int64_t bundle_id, const Filter* filter = nullptr);
std::string render_fleet_summary(sqlite3* db, const std::vector<int64_t>& bundle_ids,
                                 const Filter* filter = nullptr);
// Completeness of a bundle's load (docs/report.md "Completeness"): "" when nothing was lost, else
// the sentence that opens its verdict (`--fail-on incomplete`).
std::string incomplete_load(sqlite3* db, int64_t bundle_id);
// "" unless no file of the bundle was of a recognised kind and nothing matched a signature; then
// "nothing recognised: N files of kinds text (n), binary (m)" (analyze exits 3).
std::string nothing_recognised(sqlite3* db, int64_t bundle_id);

// Unrecognised errors (docs/faults.md): error-level lines (error, critical) that no signature
// recognises, grouped by their template (mask_line: numbers, times, hex, ids, addresses and paths
// masked as <n>, <hex>, <ip>, <path>).
struct UnknownExample {
  std::string file;
  int64_t line = 0;
  std::string host, text;
};
struct UnknownTemplate {
  std::string id;    // "u" + 10 hex digits of the template's sha256: stable across bundles
  std::string text;  // the template
  std::string kind;  // member kind of the first line
  int64_t count = 0;
  std::vector<std::string> hosts;  // sorted
  std::optional<int64_t> first_ns, last_ns;
  std::string first_quality, last_quality;  // time_quality of those (docs/clock.md)
  double concentration = 0;  // lines per host and per minute of its time range (>= 1 minute)
  std::vector<UnknownExample> examples;  // the first 3 lines
};
std::string mask_line(std::string_view line);
// The templates of a bundle, earliest first (untimed last), then the most concentrated, then the
// most frequent; at most `max`.
std::vector<UnknownTemplate> unrecognised_errors(sqlite3* db, int64_t bundle_id, size_t max = 20);
// `faultline rules suggest`: a draft signature (YAML list item of a pack) for a template: its
// literal words in order as the pattern, its example lines (with where they were seen) and the
// first of no_match_candidates the pattern does not match as the negative example.
std::string suggest_signature(const UnknownTemplate& u, const std::string& bundle_name,
                              const std::vector<std::string>& no_match_candidates);

}  // namespace faultline::report
