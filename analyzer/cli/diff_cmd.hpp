// `faultline diff GOOD BAD` (docs/compare.md), and the hook of `fleet --diff`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "faultline/app/app.hpp"
#include "faultline/report/report.hpp"

namespace faultline::cli {

struct DiffArgs {
  std::string good, bad;
  std::string format = "md";
  std::string output;
  bool summary = false;
  bool fail_on_change = false;
  Verbosity verbosity;  // -q, --progress, --no-progress
  std::vector<std::string> rule_dirs;
  std::string cache_dir;
  bool no_cache = false;
  std::string kb;
  bool no_kb = false;
};

void add_diff_options(CLI::App& cmd, DiffArgs& a);
int run_diff(const DiffArgs& a);

// `faultline similar BUNDLE --db-dir DIR`: the earlier analyses most like this one.
struct SimilarArgs {
  std::string bundle, db_dir, format = "md", output;
  size_t top = 5;
  Verbosity verbosity;  // -q, --progress, --no-progress
  std::vector<std::string> rule_dirs;
  std::string cache_dir;
  bool no_cache = false;
};
void add_similar_options(CLI::App& cmd, SimilarArgs& a);
int run_similar(const SimilarArgs& a);

// fleet --diff: the fleet report with the "Nodes against the job" section (json: node_diff).
std::string with_fleet_diff(store::Db& db, const std::vector<int64_t>& bundle_ids, report::Format f,
                            const app::Options& o, std::string fleet_report);

}  // namespace faultline::cli
