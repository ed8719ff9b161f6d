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

void print_stats(const Stats& s, const ingest::Result& r) {
  const double mb = static_cast<double>(s.bytes) / 1e6;
  std::fprintf(stderr, "faultline stats:\n");
  std::fprintf(stderr, "  input      %.1f MB uncompressed in %llu files, %llu lines (bundle %.1f MB)\n",
               mb, static_cast<unsigned long long>(s.members), static_cast<unsigned long long>(s.lines),
               static_cast<double>(r.size) / 1e6);
  std::fprintf(stderr, "  rows       %llu events, %llu hits, %llu facts, %llu warnings\n",
               static_cast<unsigned long long>(s.events), static_cast<unsigned long long>(s.hits),
               static_cast<unsigned long long>(s.facts), static_cast<unsigned long long>(r.warnings));
  std::fprintf(stderr, "  rules      %8.3f s wall\n", s.rules_s);
  std::fprintf(stderr, "  ingest     %8.3f s wall (decompress+read %.3f s)\n", s.ingest_s,
               s.ingest_s - s.member_s);
  std::fprintf(stderr, "    tag      %8.3f s (%.0f MB/s)\n", s.tag_s, s.tag_s > 0 ? mb / s.tag_s : 0.0);
  std::fprintf(stderr, "    parse    %8.3f s (incl. rows)\n", s.parse_s);
  std::fprintf(stderr, "  store      %8.3f s (commit, indexes, hosts, clocks)\n", s.store_s);
  std::fprintf(stderr, "  correlate  %8.3f s\n", s.correlate_s);
  std::fprintf(stderr, "  total      %8.3f s wall, %.3f s CPU, %.0f MB/s, peak RSS %ld MB\n", s.wall_s,
               s.cpu_s, s.wall_s > 0 ? mb / s.wall_s : 0.0, peak_rss_kb() / 1024);
}

}  // namespace faultline::app
