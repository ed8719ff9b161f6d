// Per-stage statistics of one analysis (`--stats`).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "faultline/ingest/ingest.hpp"

namespace faultline::pipeline {

// Wall and process CPU seconds of one stage.
struct Span {
  double wall = 0, cpu = 0;
};

struct Stats {
  double wall_s = 0, cpu_s = 0;
  Span rules;   // load the rule files, compile or load the cached signature database
  Span ingest;  // the whole streaming pass (decompress + classify + scan + parse + rows)
  Span store;   // commit, indexes, manifests, host names, clocks
  Span correlate;
  // Inside the streaming pass (one thread: CPU ~ wall). Wall seconds.
  double read_s = 0;           // MemberReader::read: decompression (archives) or file reads
  double sha_s = 0;            // sha256 of the members digested on the writing thread
  double sha_reader_s = 0;     // ... and on the reading thread
  bool sha_on_writer = false;  // digests may go to the writing thread (threads, no --keep-raw):
                               // each member's goes to whichever thread has waited more so far
  double tag_s = 0;            // Hyperscan scans + mapping hits to lines
  double parse_s = 0;          // parsers (rows excluded)
  double rows_s = 0;  // SQLite inserts during the pass (members, events, hits, facts, text)
  double raw_s = 0;   // --keep-raw: zstd compression of member text
  // Inside store (wall seconds).
  double commit_index_s = 0;  // commit of the bulk load + index build + replacing an older load
  double clocks_s = 0;        // manifests, host names, clock fits, event times
  // Threads of the streaming pass: the reading thread (walk, decompression, sha256, classify, tag)
  // hands chunks to the writing thread (parsers, rows). Waits say which one is the bottleneck.
  int threads = 1;
  double reader_wait_s = 0;  // reading thread blocked: the writing thread is behind
  double writer_wait_s = 0;  // writing thread idle: the reading thread is behind
  double reader_cpu_s = 0;   // thread CPU time of the reading thread (the caller), whole run so far
  double writer_cpu_s = 0;   // thread CPU time of the writing thread
  uint64_t members = 0, bytes = 0, lines = 0, events = 0, hits = 0, facts = 0;
  uint64_t raw_bytes = 0;  // compressed member text stored (--keep-raw)
  std::map<std::string, uint64_t> kinds;
};

double cpu_seconds();
double thread_cpu_seconds();  // CPU time of the calling thread
long peak_rss_kb();

// Measures one Span: wall and process CPU from construction to stop().
class SpanTimer {
 public:
  explicit SpanTimer(Span& s) : s_(s), w0_(std::chrono::steady_clock::now()), c0_(cpu_seconds()) {}
  void stop() {
    s_.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0_).count();
    s_.cpu += cpu_seconds() - c0_;
  }

 private:
  Span& s_;
  std::chrono::steady_clock::time_point w0_;
  double c0_;
};

// Adds the wall time of its scope to a counter.
class ScopeTimer {
 public:
  explicit ScopeTimer(double& acc) : acc_(acc), t0_(std::chrono::steady_clock::now()) {}
  ~ScopeTimer() {
    acc_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  ScopeTimer(const ScopeTimer&) = delete;
  ScopeTimer& operator=(const ScopeTimer&) = delete;

 private:
  double& acc_;
  std::chrono::steady_clock::time_point t0_;
};

void print_stats(const Stats& s, const ingest::Result& r);

}  // namespace faultline::pipeline
