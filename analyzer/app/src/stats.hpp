// Per-stage statistics of one analysis (`--stats`).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "faultline/ingest/ingest.hpp"

namespace faultline::app {

struct Stats {
  double wall_s = 0, cpu_s = 0;
  double rules_s = 0;     // load + compile/cache the signature database
  double ingest_s = 0;    // the whole streaming pass (decompress + classify + scan + parse + rows)
  double member_s = 0;    // time inside member handling (the rest of ingest_s is decompression)
  double tag_s = 0;       // Hyperscan scans
  double parse_s = 0;     // parsers + event rows
  double store_s = 0;     // commit, indexes, host names, clocks
  double correlate_s = 0;
  uint64_t members = 0, bytes = 0, lines = 0, events = 0, hits = 0, facts = 0;
  std::map<std::string, uint64_t> kinds;
};

double cpu_seconds();
long peak_rss_kb();
void print_stats(const Stats& s, const ingest::Result& r);

}  // namespace faultline::app
