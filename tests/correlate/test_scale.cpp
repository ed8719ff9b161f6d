// Scale check (hidden: run with `test_correlate "[.scale]"`): a large bundle's worth of rows.
// No timed assertion; it prints how long correlation took so that regressions are visible.
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "faultline/correlate/correlate.hpp"
#include "fixture.hpp"

using namespace fixture;

TEST_CASE("correlation over a large bundle", "[.scale]") {
  Db db;
  const int64_t b = db.bundle("bundles/big.tar.zst", std::string(64, 's'));
  db.exec("BEGIN");
  std::vector<std::string> lines;
  for (int i = 0; i < 200000; ++i)
    lines.push_back(
        "[ERROR] RUNTIME(31337,python3):2026-03-12-10:14:07.118.245 [stream.cc:1402]31420 "
        "SynchronizeExecutedTask:report three minutes timeout! stream_id=" +
        std::to_string(i % 300) + ", task_id=1280, sqHead=" + std::to_string(i) +
        ", pendingNum=781");
  for (int h = 0; h < 4; ++h) {
    const std::string host = "node" + std::to_string(h);
    db.host(host);
    auto m = db.member("plog-" + host + ".log", "plog", host, lines, false);
    for (int i = 0; i < 50000; ++i)
      db.hit(m, i + 1, i % 10 == 0 ? "runtime.sync_three_minutes_timeout" : "cann.error_block",
             R"({"stream_id":")" + std::to_string(i % 300) + R"(","task_id":"1280","sq_head":")" +
                 std::to_string(i) + R"(","pending_num":"781"})",
             utc("2026-03-12 02:00:00") + static_cast<int64_t>(i) * 1'000'000'000);
    auto maps = db.member("maps-" + host, "proc_maps", host, {"x"}, false);
    for (int i = 0; i < 20000; ++i) {
      char buf[64];
      const auto lo = static_cast<unsigned long long>(0xffff00000000LL + i * 0x10000LL);
      std::snprintf(buf, sizeof buf, "%012llx-%012llx r-xp", lo, lo + 0x8000ULL);
      db.fact(maps, 1, "process." + std::to_string(1000 + i % 50) + ".mapping", buf);
    }
    auto ls = db.member("ls-" + host, "ls_listing", host, {"x"}, false);
    for (int i = 0; i < 5000; ++i)
      db.fact(ls, 1, "fs./usr/local/Ascend/f" + std::to_string(i) + ".so", "file");
  }
  db.exec("COMMIT");
  {
    std::ifstream in(std::string(FAULTLINE_SOURCE_DIR) + "/schema/indexes.sql");
    std::stringstream ss;
    ss << in.rdbuf();
    db.exec(ss.str());  // as the store does after a bulk load
  }
  const auto t0 = std::chrono::steady_clock::now();
  faultline::correlate::run(db.handle(), b, source_rules());
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  std::cout << "correlate: 200000 hits (20000 referenced), 100000 mapping facts, 20000 fs facts, 4 "
               "hosts: "
            << ms << " ms\n";
  CHECK(findings(db.handle(), b).empty());  // sqHead advances on every report: no stall
}
