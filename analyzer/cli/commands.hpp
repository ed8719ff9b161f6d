// The CLI's commands: option declarations and the functions that run them.
#pragma once

#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "faultline/app/app.hpp"
#include "faultline/core/progress.hpp"

namespace faultline::cli {

// `faultline --version`: "faultline <version>", "rules <sha256 of the built-in rules>" and one
// "<library> <runtime version>" line per library (docs/report.md "Versions").
std::string version_text();

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Input unreadable (exit 3), found by the command line itself (e.g. `analyze -`: stdin failed).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// -q/--quiet, --progress, --no-progress of the commands that read bundles (analyze, fleet, diff,
// similar). The progress line shows when stderr is a terminal; --progress shows it elsewhere too
// (a line per update, for a pipe or a log); --no-progress and -q never.
struct Verbosity {
  bool quiet = false;
  bool progress = false;
  bool no_progress = false;
};
void add_verbosity_options(CLI::App& cmd, Verbosity& v, const char* quiet_help);
progress::Mode progress_mode(const Verbosity& v);

// The report options of analyze and fleet: --format, -o, --fail-on, --summary, --suppress,
// --min-severity (add_report_output, check_report_output in shared.hpp).
struct ReportOutput {
  std::string format = "md";
  std::string output;
  std::string fail_on;
  bool summary = false;      // --summary: the ticket view (docs/report.md "Summary")
  std::string suppress;      // --suppress FILE (docs/suppress.md)
  std::string min_severity;  // --min-severity LEVEL: evidence and fault lists
};

struct CommonOptions {
  std::vector<std::string> rule_dirs;
  std::string cache_dir;
  bool no_cache = false;
  std::string kb;  // --kb FILE (ascend-fd kg-config.json)
  bool no_kb = false;
};

struct AnalyzeArgs {
  std::string bundle;
  std::string db;
  ReportOutput out;
  bool keep_raw = false;
  bool stats = false;
  Verbosity verbosity;  // -q, --progress, --no-progress
  bool no_report = false;
  uint32_t max_depth = 4;
  uint64_t max_members = 500'000;
  std::string max_member_size = "4G";
  std::string max_total_size = "64G";
  uint64_t max_ratio = 1000;
  std::string max_line_length = "1M";
  std::string small_member_size = "256K";
};

struct FleetArgs {
  std::vector<std::string> inputs;
  std::string db;
  ReportOutput out;
  unsigned jobs = 0;
  bool stats = false;
  Verbosity verbosity;  // -q, --progress, --no-progress
  bool diff = false;    // --diff: per node, the compared facts where it differs from the job
};

struct ReportArgs {
  std::string suppress;      // --suppress FILE (docs/suppress.md)
  std::string min_severity;  // --min-severity LEVEL: evidence and fault lists
  std::string db;
  std::string format = "md";
  std::string output;
  std::string bundle;  // id or sha256 prefix; default: every complete bundle
  bool summary = false;
  std::string fail_on;  // only "incomplete" (or none)
};

struct RulesArgs {
  std::vector<std::string> rule_dirs;
  std::string import_file;
  std::string family;
  std::string output;
  std::string cache_dir;
  std::string kb;       // --kb FILE: add the ascend-fd knowledge base (list/test/lint/coverage)
  std::string samples;  // coverage --samples DIR: recognised share of error-level lines
  std::string db;       // suggest --db DB
  std::string bundle;   // suggest --bundle ID
  std::vector<std::string> templates;  // suggest ID...: unrecognised error template ids
  unsigned top = 5;                    // suggest: without ids, the first N templates
};

void add_analyze_options(CLI::App& cmd, AnalyzeArgs& a, CommonOptions& c);
void add_fleet_options(CLI::App& cmd, FleetArgs& a, CommonOptions& c);
void add_report_options(CLI::App& cmd, ReportArgs& a);
void add_rules_options(CLI::App& cmd, RulesArgs& a);

int run_analyze(const AnalyzeArgs& a, const CommonOptions& c);
int run_fleet(const FleetArgs& a, const CommonOptions& c);
int run_report(const ReportArgs& a);
int run_rules(CLI::App& cmd, const RulesArgs& a);

// "64K", "4M", "2G", "123" -> bytes; throws UsageError naming the option.
uint64_t parse_size(const std::string& s, const char* option);

// Writes text to the file (or stdout when path is empty). Throws on failure.
void write_output(const std::string& path, const std::string& text);

}  // namespace faultline::cli
