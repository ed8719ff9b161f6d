// Pieces every report rendering shares, single-node and fleet alike (issue 35, docs/report.md):
// honest time text (times.cpp), evidence folded by message template (fold.cpp), and the ticket
// summary (summary.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace faultline::report::detail {

// ---- times.cpp ------------------------------------------------------------------------------
// A time for people: "2025-05-08T09:56:18.526761Z" when it is UTC (resolved, or printed in UTC);
// a host-local wall time whose zone nothing in the bundle states or fits (quality
// "assumed_utc": stored as if the wall time were UTC) prints as it was read, without "Z":
// "2025-05-08 09:56:18.526761 local (zone unknown)". "" when unknown.
std::string fmt_time_q(const std::optional<int64_t>& ns, std::string_view quality);
// The same for machines (JSON): ISO 8601 with "Z" for UTC, without any offset for the local
// time of an unknown zone ("2025-05-08T09:56:18.526761"); null-able by the caller.
std::string iso_time_q(int64_t ns, std::string_view quality);
// True when a time of this quality has no known zone.
bool zone_unknown(std::string_view quality);

// ---- fold.cpp -------------------------------------------------------------------------------
// Evidence lines of one finding that say the same thing: the same signature (or fact) and the
// same message template (mask_line: numbers, ids, hex, addresses, paths masked) are one entry.
struct FoldedEvidence {
  const EvidenceR* first = nullptr;  // the first line in the finding's (ranked) order
  std::string tmpl;                  // the masked template
  size_t count = 0;                  // lines folded into this entry (>= 1)
  std::vector<std::string> files;    // distinct files, sorted
  std::optional<int64_t> first_ns, last_ns;
  std::string first_quality, last_quality;
};
std::vector<FoldedEvidence> fold_evidence(const std::vector<EvidenceR>& ev);
// A line cut to at most max bytes (UTF-8 safe) with "…" when cut, on one line.
std::string cut_line(std::string_view s, size_t max = 200);

// ---- summary.cpp ----------------------------------------------------------------------------
// The ticket view (`--summary`): at most kSummaryLines lines and kSummaryChars characters.
inline constexpr size_t kSummaryLines = 60;
inline constexpr size_t kSummaryChars = 6000;
// Of one bundle; `job_verdict` (non-empty for a job's bundle: the fleet's first failure) comes
// first when given.
std::string render_summary_md(const Report& r, const std::string& job_verdict = {});
// The fleet's one-line answer (host/rank/device of the first failure), for summaries.
std::string fleet_verdict(sqlite3* db, const std::vector<int64_t>& bundle_ids);
// Fleet summary over several bundles: the fleet verdict, then one line per bundle.
std::string render_fleet_summary_md(sqlite3* db, const std::vector<int64_t>& bundle_ids);
// Bound a text to the summary limits (cuts whole lines, says so).
std::string bound_summary(std::string s);

// Hosts of a bundle whose host-local zone nothing states or fits (model.cpp): their
// year-inferred host-local times are of unknown zone too.
std::set<std::string> zoneless_hosts(sqlite3* db, int64_t bundle_id);

// ---- suppress.cpp ---------------------------------------------------------------------------
// The filter of the rendering in progress on this thread (set by the public render functions):
// detail::load and the fleet's light load apply it to what they read (docs/suppress.md).
class ScopedFilter {
 public:
  explicit ScopedFilter(const Filter* f);
  ~ScopedFilter();
  ScopedFilter(const ScopedFilter&) = delete;
  ScopedFilter& operator=(const ScopedFilter&) = delete;

 private:
  const Filter* prev_;
};
const Filter* active_filter();
// Drops or demotes what the active filter's entries match and what is below its minimum
// severity; counts it in r.suppressed / r.below_min_*. No-op without an active filter.
void apply_filter(Report& r);
int64_t suppressed_total(const Report& r);
// "suppressed: N (F findings, L lines) by FILE; below --min-severity error: ..." or "" when no
// filter was active.
std::string suppressed_text(const Report& r);

// The completeness of a load, for verdicts (report.md "Completeness"): "" when complete, else one
// sentence with the count and the consequence.
std::string completeness_note(const Report& r);
// "nothing recognised: N files of kinds text (n), binary (m)" (model.cpp).
std::string nothing_recognised(const Report& r);

}  // namespace faultline::report::detail
