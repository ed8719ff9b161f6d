// What the CLI's subcommands share (analyze_cmd, fleet_cmd, report_cmd, rules_cmd, diff_cmd):
// option texts, format and --fail-on parsing, output checks, the --db file and its probe.
#pragma once

#include <sqlite3.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "faultline/app/app.hpp"
#include "faultline/core/types.hpp"
#include "faultline/report/report.hpp"
#include "faultline/store/lock.hpp"
#include "faultline/store/store.hpp"

namespace faultline::cli {

// --fail-on: the severity at or above which the exit code is 1; none for "none", "" and
// "incomplete" (checked by the caller).
std::optional<Severity> finding_severity(const std::string& s);
report::Format format_or_throw(const std::string& f);

inline constexpr const char* kSummaryHelp =
    "Print the ticket view: at most 60 lines and 6,000 characters of markdown, verdict first "
    "(docs/report.md \"Summary\"); --format md only";
inline constexpr const char* kFormatHelp =
    "Output format: md (default), json, html, jsonl, csv. md, json and html are the report; "
    "jsonl and csv the timeline, one event a line, for Timesketch or a spreadsheet "
    "(docs/timeline-export.md)";

// --summary renders markdown only; the json report carries it as its `summary` field.
void check_summary(bool summary, report::Format f);
// The jsonl export leaves out the events without a usable time (Timesketch needs one): say how
// many, and where they are.
void note_untimed(const report::RenderNotes& n);
// nlohmann's messages start with "[json.exception.parse_error.101] ": the user needs the rest.
std::string without_library_tags(std::string m);
// -o FILE: its directory must exist (checked before a long analysis, not after it).
void check_output(const std::string& path);

// What a --db path holds, read-only (so that nothing is written into a file that is not ours).
enum class DbKind { missing, empty, not_sqlite, foreign, faultline, unreadable };
DbKind probe_db(const std::filesystem::path& p, std::string* why);
// --db of analyze/fleet: a new file in an existing directory, or a faultline database.
void check_output_db(const std::string& path);

// --rules, --cache-dir, --no-cache, --kb, --no-kb of analyze and fleet.
void add_common(CLI::App& cmd, CommonOptions& c);
app::Options app_options(const CommonOptions& c);
// --suppress FILE and --min-severity LEVEL (docs/suppress.md) of analyze, fleet and report.
void add_filter_options(CLI::App& cmd, std::string& suppress, std::string& min_severity);
// The filter they give (nullopt: none); a bad file or level is a UsageError naming it.
std::optional<report::Filter> make_filter(const std::string& suppress,
                                          const std::string& min_severity);
// --format, -o, --fail-on (its help: fail_on_help), --summary, --suppress, --min-severity of
// analyze and fleet, in this order.
void add_report_output(CLI::App& cmd, ReportOutput& r, const char* fail_on_help);
// Those options checked before a long analysis (a UsageError otherwise): the format, --fail-on,
// --summary's format, the filter, -o's directory.
struct CheckedOutput {
  report::Format fmt = report::Format::md;
  std::optional<Severity> fail_on;  // none, or "incomplete" (ReportOutput::fail_on)
  std::optional<report::Filter> filter;
  [[nodiscard]] const report::Filter* fp() const { return filter ? &*filter : nullptr; }
};
CheckedOutput check_report_output(const ReportOutput& r);
// --fail-on's test: the highest severity among the findings the report shows.
bool fails(sqlite3* db, const std::vector<int64_t>& bundles, Severity at,
           const std::optional<report::Filter>& filter);

// Maximum severity of the findings of the bundles (for --fail-on).
std::optional<Severity> max_finding_severity(sqlite3* db, const std::vector<int64_t>& bundles);

// A database file that is removed at the end unless the user asked to keep it (--db). One writer
// per kept database: store::WriterLock (an flock on the file itself; nothing left beside it).
class DbFile {
 public:
  explicit DbFile(const std::string& keep);
  ~DbFile();
  DbFile(const DbFile&) = delete;
  DbFile& operator=(const DbFile&) = delete;
  const std::filesystem::path& path() const { return path_; }
  bool temp() const { return temp_; }
  // a temporary file needs no durability (store::Db::Durability::scratch)
  store::Db::Durability durability() const {
    return temp_ ? store::Db::Durability::scratch : store::Db::Durability::normal;
  }

 private:
  std::filesystem::path path_;
  bool temp_ = false;
  std::unique_ptr<store::WriterLock> lock_;
};

}  // namespace faultline::cli
