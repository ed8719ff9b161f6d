// The whole real asys bundle: every log file of a known kind parses with >= 99% of its lines
// understood (malformed / lines <= 1%), and nothing of a known kind is silently dropped.
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>

#include "test_logs_util.hpp"

TEST_CASE("asys bundle: >= 99% of log lines parsed per file", "[corpus][logs]") {
  if (!fltest::have_asys()) {
    WARN("FAULTLINE_CORPUS_DIR has no asys-aicerror bundle: skipped");
    return;
  }
  const auto files = fltest::asys_log_files();
  REQUIRE(files.size() >= 20);
  std::string table;
  bool ok = true;
  size_t total_lines = 0, total_bad = 0;
  std::map<std::string, int> kinds;
  for (const auto& f : files) {
    const std::string text = fltest::read_file(f.path);
    const auto r = faultline::parse::parse_text(f.kind, text, f.rel);
    ++kinds[f.kind];
    total_lines += r.lines;
    total_bad += r.malformed;
    const double ratio = r.lines ? static_cast<double>(r.malformed) / r.lines : 0.0;
    char buf[512];
    std::snprintf(buf, sizeof buf, "%-18s %7u lines %6u malformed %6zu events %5zu facts  %s\n",
                  f.kind.c_str(), r.lines, r.malformed, r.events.size(), r.facts.size(),
                  f.rel.c_str());
    table += buf;
    for (size_t i = 0; i < r.malformed_reasons.size() && i < 3; ++i)
      table += "      " + r.malformed_reasons[i] + "\n";
    if (ratio > 0.01) ok = false;
    if (r.events.empty() && r.lines > 0) ok = false;
  }
  INFO(table);
  CHECK(ok);
  CHECK(kinds.size() == 10);
  CHECK(total_bad * 100 <= total_lines);
}
