// What a report shows, read from the database alone (bundles, hosts, members, findings,
// finding_evidence, timeline, facts, warnings). Every list is in a fixed order so that rendering
// the same database twice gives the same bytes.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "faultline/report/report.hpp"

namespace faultline::report::detail {

// A prepared statement of the report queries; errors throw std::runtime_error("report SQL: ...").
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("report SQL: ") + sqlite3_errmsg(db));
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(st_, i, v);
    return *this;
  }
  Stmt& text(int i, const std::string& v) {
    sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  bool step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw std::runtime_error(std::string("report SQL: ") + sqlite3_errmsg(db_));
  }
  std::string str(int c) const {
    const auto* p = sqlite3_column_text(st_, c);
    return p == nullptr ? std::string()
                        : std::string(reinterpret_cast<const char*>(p),
                                      static_cast<size_t>(sqlite3_column_bytes(st_, c)));
  }
  int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
  double dbl(int c) const { return sqlite3_column_double(st_, c); }
  std::optional<int64_t> opt(int c) const {
    if (sqlite3_column_type(st_, c) == SQLITE_NULL) return std::nullopt;
    return i64(c);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

struct EvidenceR {
  std::string file, text, signature, fact;
  int64_t line = 0;
  std::optional<int64_t> time_ns;
  std::string quality;  // time_quality of the event the line is (docs/clock.md); "" = not found
  bool nozone = false;  // a year-inferred host-local time of a host whose zone is assumed
  int sev_rank = -1;    // level of the event the line is (0 debug .. 5 critical); -1: a fact
  // the quality times are rendered by: "assumed_utc" when the zone is unknown (shared.hpp)
  std::string shown_quality() const { return nozone ? "assumed_utc" : quality; }
};

// Evidence grouped for reading: repeated lines of one signature (or statements of one fact value)
// collapse into their first `keep` occurrences plus a count of the rest.
struct EvidenceGroup {
  std::vector<const EvidenceR*> shown;
  size_t more = 0;                      // further occurrences not shown
  std::vector<std::string> more_files;  // distinct files of those, sorted
};
struct FindingR;
std::vector<EvidenceGroup> group_evidence(const FindingR& f, size_t keep = 2);

struct KbCodeR {  // a knowledge-base code seen on the lines of a native fault
  std::string pack, code, signature, title, cause, suggestion;
  int64_t count = 0;
};

struct FaultR {  // kind "fault" findings only (docs/faults.md)
  std::string signature, cls, component, role, code, cause, suggestion;
  int64_t count = 0;
  std::vector<std::string> causes, caused_by, diagnosed_by;
  std::string pack;                 // knowledge-base pack of an imported code ("ascend-fd"), or ""
  std::string table, name;          // code table that named the code and its symbolic name, or ""
  std::vector<KbCodeR> kb;          // native fault: KB codes on its lines
  std::vector<std::string> native;  // KB fault: native faults sharing some of its lines
};

struct KbR {  // the knowledge-base pack of the analysis (bundles.options "kb")
  std::string name, file, how, sha256;
  int64_t codes = 0, skipped = 0;
};

struct FindingR {
  std::string id, kind, severity, host, title, summary, explained_by;
  std::optional<FaultR> fault;
  std::optional<int64_t> first_time_ns;
  std::string first_quality;  // time_quality of the evidence line at first_time_ns
  double confidence = 0;
  int rank = 0;
  std::vector<std::string> explains, remediation, missing;
  std::vector<EvidenceR> evidence;
};

struct TimelineR {
  std::optional<int64_t> time_ns;
  std::string quality, host, file, kind, text, signature, finding, role;
  std::string level;  // severity of the line's event ("" when none: a derived row); export only
  int64_t line = 0;
  int ord = 0;
  bool nozone = false;  // as EvidenceR::nozone
  std::string shown_quality() const { return nozone ? "assumed_utc" : quality; }
};

struct FactR {
  std::string host, name, value, file;
  int64_t line = 0;
};

struct WarningR {
  std::string file, message;
};

struct MemberIssue {
  std::string path, kind;
  bool truncated = false;
  int64_t long_lines = 0, malformed_lines = 0;
  int64_t lines = 0;  // lines read (a truncated member: where it was cut)
};

// Error-level signature hits that no finding cites (never hidden: they are what a future
// diagnosis or a human looks at next).
struct Unclassified {
  std::string signature, host, file;
  int64_t count = 0, line = 0;
  std::optional<int64_t> time_ns;  // of the earliest hit
  std::string quality;             // its time_quality
};

// What a suppression file entry left out of this report (docs/suppress.md).
struct SuppressedR {
  std::string reason;
  bool demote = false;
  int line = 0;  // of the entry in the file
  int64_t findings = 0, lines = 0;
  std::vector<std::string> demoted;  // "host: title (id)" of demoted findings
};

struct Report {
  int64_t bundle_id = 0;
  std::string path, name, sha256, status;
  std::string rules_digest;  // of the rules the analysis used ("" = not recorded: older database)
  int64_t files = 0, bytes = 0;
  // members of a recognised kind (not the "text"/"binary" fallbacks), and the fallback kinds
  // with their counts (docs/report.md "Completeness")
  int64_t recognised = 0;
  std::vector<std::pair<std::string, int64_t>> unrecognised_kinds;
  std::vector<std::string> hosts;
  std::vector<FindingR> findings;  // rank order
  std::vector<TimelineR> timeline;
  std::vector<FactR> facts;
  std::vector<WarningR> warnings;
  std::vector<MemberIssue> issues;
  std::vector<Unclassified> unclassified;  // by signature
  std::optional<KbR> kb;                   // none: no knowledge base was used
  std::vector<UnknownTemplate> unknown;    // unrecognised errors (report.hpp)
  // analyst controls (docs/suppress.md): set by apply_filter when a filter is active
  std::string suppress_file;
  std::optional<int> min_severity_rank;
  std::vector<SuppressedR> suppressed;
  int64_t below_min_lines = 0, below_min_faults = 0;
};

// Throws std::runtime_error when the bundle does not exist or the schema is not the expected one.
// The bundle row and its hosts (what every report, full or fleet summary, starts from).
void load_header(sqlite3* db, int64_t bundle_id, Report& r);
// `unknown`: also the unrecognised-error templates (Report::unknown), which read and mask every
// error line of the bundle; callers that only look at the findings and counts leave them out.
Report load(sqlite3* db, int64_t bundle_id, bool unknown = true);
// The timeline rows of a bundle, in `ord` order (part of load; alone for the timeline export).
void load_timeline(sqlite3* db, int64_t bundle_id, Report& r);
// For the timeline export (docs/timeline-export.md): each row's level, and every error-and-above
// event the timeline does not hold, appended in time order (untimed last) with role "event".
void load_error_events(sqlite3* db, int64_t bundle_id, Report& r);

// Text helpers shared by the renderers.
std::string fmt_time(const std::optional<int64_t>& ns);  // ISO-8601 UTC, "" when unknown
std::string fmt_conf(double c);                          // "0.90"
std::string verdict(const Report& r);                    // one line, no markup
std::string loc(const std::string& file, int64_t line);  // "file:line" or "file"

// Version facts shown in the per-host versions table and in fleet drift, in display order.
const std::vector<std::string>& version_fact_names();

}  // namespace faultline::report::detail
