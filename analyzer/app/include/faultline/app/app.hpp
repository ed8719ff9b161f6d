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

namespace faultline::app {

struct Options {
  ingest::Limits limits;
  bool keep_raw = false;                       // store every member's text, zstd-compressed
  uint64_t small_member_bytes = 256 * 1024;    // members up to this size are stored whole
  std::vector<std::filesystem::path> rule_dirs;  // --rules DIR (override embedded packs)
  std::filesystem::path cache_dir;             // compiled rule database cache ("" = none)
  bool progress = false;                       // progress lines on stderr
  bool stats = false;                          // per-stage statistics on stderr
};

struct Outcome {
  int64_t bundle_id = -1;
  int exit_code = 0;        // 0 ok, 3 unreadable input
  std::string error;        // for exit 3: names the file and the problem
  ingest::Result ingest;
  correlate::Summary summary;
};

// Reads the bundle into db and correlates it.
Outcome analyze(store::Db& db, const std::filesystem::path& bundle, const Options& opts);

// Default cache directory for compiled rule databases ($XDG_CACHE_HOME/faultline or
// ~/.cache/faultline; empty when neither can be used).
std::filesystem::path default_cache_dir();

}  // namespace faultline::app
