#include "faultline/pipeline/stats.hpp"

#include <sys/resource.h>

#include <cstdio>
#include <ctime>

namespace faultline::pipeline {

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

long peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

namespace {

double rate(double mb, double s) {
  return s > 0 ? mb / s : 0.0;
}

void span(const char* name, const Span& s, double mb, const char* note) {
  std::fprintf(stderr, "  %-12s %8.3f %8.3f %8.0f  %s\n", name, s.wall, s.cpu, rate(mb, s.wall),
               note);
}

void part(const char* name, double wall, double mb, const char* note) {
  std::fprintf(stderr, "    %-10s %8.3f %8s %8.0f  %s\n", name, wall, "", rate(mb, wall), note);
}

}  // namespace

void print_stats(const Stats& s, const ingest::Result& r) {
  const double mb = static_cast<double>(s.bytes) / 1e6;
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::fprintf(stderr, "faultline stats:\n");
  std::fprintf(stderr,
               "  input      %.1f MB uncompressed in %llu files, %llu lines (bundle %.1f MB)\n", mb,
               u(s.members), u(s.lines), static_cast<double>(r.size) / 1e6);
  std::fprintf(stderr, "  rows       %llu events, %llu hits, %llu facts, %llu warnings\n",
               u(s.events), u(s.hits), u(s.facts), u(r.warnings));
  std::fprintf(stderr, "  %-12s %8s %8s %8s\n", "stage", "wall s", "cpu s", "MB/s");
  span("rules", s.rules, 0, "rule files + signature database (compiled or cached)");
  span("ingest", s.ingest, mb,
       s.threads > 1 ? "streaming pass, reading + writing thread:" : "streaming pass, one thread:");
  const double reader = s.read_s + s.tag_s + s.sha_reader_s;
  const double writer = s.parse_s + s.rows_s + s.raw_s + s.sha_s;
  part("read", s.read_s, mb, "reading: decompress / read members");
  char sha_note[96];
  std::snprintf(sha_note, sizeof sha_note, "member digests: %.3f s writing, %.3f s reading thread",
                s.sha_s, s.sha_reader_s);
  part("sha256", s.sha_s + s.sha_reader_s, mb, sha_note);
  part("tag", s.tag_s, mb, "reading: Hyperscan scan of whole-line chunks, hits to lines");
  part("parse", s.parse_s, mb, "writing: parsers, pending hits, captures (rows excluded)");
  part("rows", s.rows_s, mb, "writing: SQLite inserts");
  if (s.raw_s > 0) {
    char note[96];
    std::snprintf(note, sizeof note, "writing: --keep-raw zstd of member text (%.1f MB stored)",
                  static_cast<double>(s.raw_bytes) / 1e6);
    part("raw", s.raw_s, mb, note);
  }
  if (s.threads > 1) {
    part("rd wait", s.reader_wait_s, 0,
         "reading thread blocked on a full queue (writing is behind)");
    part("wr wait", s.writer_wait_s, 0, "writing thread idle (reading is behind)");
    std::fprintf(stderr, "    %-10s %8s %8.3f %8s  %s\n", "rd cpu", "", s.reader_cpu_s, "",
                 "reading thread CPU, whole run");
    std::fprintf(stderr, "    %-10s %8s %8.3f %8s  %s\n", "wr cpu", "", s.writer_cpu_s, "",
                 "writing thread CPU");
  } else {
    part("other", s.ingest.wall - reader - writer, 0, "classify, line split, bookkeeping");
  }
  span("store", s.store, 0, "");
  part("index", s.commit_index_s, 0, "commit, indexes, replace an older load");
  part("clocks", s.clocks_s, 0, "manifests, host names, clock fits, event times");
  span("correlate", s.correlate, 0, "");
  std::fprintf(stderr, "  total      %8.3f s wall, %.3f s CPU, %.0f MB/s, peak RSS %ld MB\n",
               s.wall_s, s.cpu_s, rate(mb, s.wall_s), peak_rss_kb() / 1024);
}

}  // namespace faultline::pipeline
