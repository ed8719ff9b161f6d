#include "stats.hpp"

#include <sys/resource.h>

#include <cstdio>

namespace faultline::app {

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

long peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

namespace {

double rate(double mb, double s) { return s > 0 ? mb / s : 0.0; }

void span(const char* name, const Span& s, double mb, const char* note) {
  std::fprintf(stderr, "  %-12s %8.3f %8.3f %8.0f  %s\n", name, s.wall, s.cpu, rate(mb, s.wall), note);
}

void part(const char* name, double wall, double mb, const char* note) {
  std::fprintf(stderr, "    %-10s %8.3f %8s %8.0f  %s\n", name, wall, "", rate(mb, wall), note);
}

}  // namespace

void print_stats(const Stats& s, const ingest::Result& r) {
  const double mb = static_cast<double>(s.bytes) / 1e6;
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::fprintf(stderr, "faultline stats:\n");
  std::fprintf(stderr, "  input      %.1f MB uncompressed in %llu files, %llu lines (bundle %.1f MB)\n",
               mb, u(s.members), u(s.lines), static_cast<double>(r.size) / 1e6);
  std::fprintf(stderr, "  rows       %llu events, %llu hits, %llu facts, %llu warnings\n", u(s.events),
               u(s.hits), u(s.facts), u(r.warnings));
  std::fprintf(stderr, "  %-12s %8s %8s %8s\n", "stage", "wall s", "cpu s", "MB/s");
  span("rules", s.rules, 0, "rule files + signature database (compiled or cached)");
  span("ingest", s.ingest, mb, "streaming pass, one thread:");
  const double in_parts = s.read_s + s.sha_s + s.tag_s + s.parse_s + s.rows_s + s.raw_s;
  part("read", s.read_s, mb, "decompress / read members");
  part("sha256", s.sha_s, mb, "member digests");
  part("tag", s.tag_s, mb, "Hyperscan scan of whole-line chunks, hits to lines");
  part("parse", s.parse_s, mb, "parsers, pending hits, captures (rows excluded)");
  part("rows", s.rows_s, mb, "SQLite inserts");
  if (s.raw_s > 0) {
    char note[96];
    std::snprintf(note, sizeof note, "--keep-raw zstd of member text (%.1f MB stored)",
                  static_cast<double>(s.raw_bytes) / 1e6);
    part("raw", s.raw_s, mb, note);
  }
  part("other", s.ingest.wall - in_parts, 0, "classify, line split, bookkeeping");
  span("store", s.store, 0, "");
  part("index", s.commit_index_s, 0, "commit, indexes, replace an older load");
  part("clocks", s.clocks_s, 0, "manifests, host names, clock fits, event times");
  span("correlate", s.correlate, 0, "");
  std::fprintf(stderr, "  total      %8.3f s wall, %.3f s CPU, %.0f MB/s, peak RSS %ld MB\n", s.wall_s,
               s.cpu_s, rate(mb, s.wall_s), peak_rss_kb() / 1024);
}

}  // namespace faultline::app
