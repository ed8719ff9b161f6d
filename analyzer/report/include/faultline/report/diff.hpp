// Rendering of the comparison views (docs/compare.md): `faultline diff GOOD BAD` (md, json, html,
// summary) and the `fleet --diff` section of the fleet report. The comparison itself is
// correlate/compare.hpp.
#pragma once

#include <string>

#include "faultline/correlate/compare.hpp"
#include "faultline/report/report.hpp"

namespace faultline::report {

// md, json (schema/diff-report.schema.json), html. Deterministic bytes.
std::string render_diff(const correlate::Diff& d, Format f);
// The verdict line and one line per group with changes (the `--summary` form).
std::string render_diff_summary(const correlate::Diff& d);

// The fleet report with its `fleet --diff` section added: md and html get a section "Nodes
// against the job" appended, json a key "node_diff". Other formats are returned as they are.
std::string add_fleet_diff(std::string fleet_report, const correlate::FleetDiff& fd, Format f);

// `faultline similar`: the earlier analyses most like this one, best first, with what they share
// and how each was diagnosed (md, json; html as md's content on a page).
std::string render_similar(const correlate::Fingerprint& query,
                           const std::vector<correlate::SimilarMatch>& matches, size_t analyses,
                           const std::vector<std::string>& skipped, Format f);

}  // namespace faultline::report
