// The comparison jobs (docs/compare.md): `faultline diff GOOD BAD` over two bundles or two
// analysis databases, and the node-against-job view of `fleet --diff`. Only composes: analysis
// (app::analyze), comparison (correlate/compare.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "faultline/app/app.hpp"
#include "faultline/correlate/compare.hpp"

namespace faultline::app {

// rules/compare/ of the embedded rules, overridden by each --rules DIR (same relative path).
correlate::CompareRules compare_rules(const std::vector<std::filesystem::path>& rule_dirs);

struct DiffOutcome {
  int exit_code = 0;  // 0 ok, 3 an input unreadable (error names it)
  std::string error;
  correlate::Diff diff;
};

// GOOD and BAD are bundles (analysed into temporary databases, removed at the end) or databases
// of earlier analyses (`analyze --db`; the last complete bundle of each is compared).
DiffOutcome diff(const std::filesystem::path& good, const std::filesystem::path& bad,
                 const Options& opts);

// fleet --diff over the bundles of a fleet database.
correlate::FleetDiff fleet_diff(store::Db& db, const std::vector<int64_t>& bundle_ids,
                                const Options& opts);

// `faultline similar BUNDLE --db-dir DIR`: the earlier analyses (every complete bundle of every
// analysis database in DIR or a sub-folder of it, opened read-only) most like BUNDLE (a bundle,
// analysed into a temporary database, or a database), best first, at most `top`.
struct SimilarOutcome {
  int exit_code = 0;  // 0 ok, 3 the bundle unreadable
  std::string error;
  correlate::Fingerprint query;
  std::vector<correlate::SimilarMatch> matches;
  std::vector<std::string> skipped;  // databases that could not be read, with why
  size_t analyses = 0;               // analyses compared
};
SimilarOutcome similar(const std::filesystem::path& bundle, const std::filesystem::path& db_dir,
                       const Options& opts, size_t top = 5);

}  // namespace faultline::app
