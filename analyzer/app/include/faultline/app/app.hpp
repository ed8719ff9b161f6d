// app: wires the stages into the jobs users run (analyze one bundle, a fleet, render a report).
// The CLI and `serve` call these; no stage logic lives here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "faultline/correlate/correlate.hpp"
#include "faultline/ingest/ingest.hpp"
#include "faultline/report/report.hpp"
#include "faultline/store/store.hpp"
#include "faultline/tag/tag.hpp"

namespace faultline::app {

struct Options {
  ingest::Limits limits;
  bool keep_raw = false;                         // store every member's text, zstd-compressed
  uint64_t small_member_bytes = 256 * 1024;      // members up to this size are stored whole
  std::vector<std::filesystem::path> rule_dirs;  // --rules DIR (override embedded packs)
  std::filesystem::path cache_dir;               // compiled rule database cache ("" = none)
  bool progress = false;                         // progress lines on stderr
  bool stats = false;                            // per-stage statistics on stderr
  // Streaming pass on two threads: walk + decompression + sha256 + classify + Hyperscan on the
  // caller, parsers + SQLite rows on a second thread. fleet turns it off in its workers (one
  // thread per bundle: -j N is the parallelism there).
  bool pipeline_threads = true;
};

struct Outcome {
  int64_t bundle_id = -1;
  int exit_code = 0;  // 0 ok, 3 unreadable input
  std::string error;  // for exit 3: names the file and the problem
  ingest::Result ingest;
  correlate::Summary summary;
};

// The rules of a run: the embedded rules/ tree overridden by each --rules DIR. Files of the same
// relative path replace each other; signatures are also overridden per id (a later root replaces
// an id in place, with a warning). Throws std::runtime_error naming the file on unreadable dirs.
struct Rules {
  std::vector<RuleFile> files;  // merged by path (classify/, diagnoses/, compat/, signatures/)
  tag::RuleSet signatures;      // loaded per root, errors in signatures.errors
  [[nodiscard]] std::vector<RuleFile> correlate_files() const;  // diagnoses/ + compat/
};
Rules load_rules(const std::vector<std::filesystem::path>& dirs);

// Reads the bundle into db and correlates it.
Outcome analyze(store::Db& db, const std::filesystem::path& bundle, const Options& opts);

struct FleetOutcome {
  std::vector<int64_t> bundle_ids;  // analysed bundles, in input order
  struct Failure {
    std::string bundle;
    std::string message;
  };
  std::vector<Failure> failures;  // bundles that could not be read (the fleet goes on)
  std::string correlation_error;  // fleet correlation failed (the per-bundle rows stand)
};

// The bundles named by the inputs: files as they are; a directory is itself a bundle when it holds
// regular files or a single sub-directory, otherwise each of its entries is a bundle (a folder of
// node bundles). Sorted by path.
std::vector<std::filesystem::path> expand_fleet_inputs(
    const std::vector<std::filesystem::path>& in);

// Analyses the bundles in parallel (jobs workers, each streaming into its own temporary database,
// merged into db one at a time). A broken bundle becomes a warning row and a failure entry; an
// input with the same content (sha256) as an earlier one is analysed once (failure entry). Then
// runs the fleet correlation (correlate/fleet.hpp) and stores it in the fleet_* tables.
FleetOutcome fleet(store::Db& db, const std::vector<std::filesystem::path>& bundles,
                   const Options& opts, unsigned jobs);

// Copies every row of the analysis database at `src` into db (ids renumbered), replacing a bundle
// with the same sha256. Returns the new bundle ids.
std::vector<int64_t> merge_database(store::Db& db, const std::filesystem::path& src);

// Default cache directory for compiled rule databases ($XDG_CACHE_HOME/faultline or
// ~/.cache/faultline; empty when neither can be used).
std::filesystem::path default_cache_dir();

}  // namespace faultline::app
