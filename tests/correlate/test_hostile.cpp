// Untrusted rows: malformed captures and JSON facts, odd values, rows without members, huge
// values. The correlator must neither crash nor fire on them.
#include <catch2/catch.hpp>

#include "faultline/correlate/correlate.hpp"
#include "fixture.hpp"

using namespace fixture;

TEST_CASE("malformed rows are tolerated and do not fire", "[correlate][hostile]") {
  Db db;
  const int64_t b = db.bundle("bundles/odd.tar", std::string(64, '7'));
  db.host("n1");
  auto m = db.member("odd.log", "text", "n1", {"x", "y", std::string(100000, 'A')});
  db.hit(m, 1, "svm.map_va_not_fixed", "not json at all", std::nullopt);
  db.hit(m, 2, "svm.map_va_not_fixed", R"({"vm_end": null, "vm_start": [1]})",
         std::nullopt);  // not strings
  db.hit(m, 3, "runtime.sync_three_minutes_timeout", R"({"stream_id":"47"})",
         std::nullopt);                                                 // partial
  db.fact(m, 1, "install.event", "{\"package\":\"driver\",\"time\":");  // truncated JSON
  db.fact(
      m, 1, "install.event",
      R"({"package":"driver","action":"upgrade","time":"2026-13-45 99:99:99","result":"success"})");
  db.fact(m, 1, "host.boot_time", "yesterday");
  db.fact(m, 1, "process.1.mapping", "zzzz-yyyy r-xp");
  db.fact(m, 1, "process.2.mapping", "180000000000-100000000000 rw-p");  // inverted
  db.fact(m, 1, "process.3.mapping", "");
  db.fact(m, 3, "env.LD_LIBRARY_PATH", std::string(100000, ':'));
  db.fact(m, 1, "ulimit.virtual_memory", "-");
  db.fact(m, 1, "driver.version.loaded", "");
  db.fact(m, 1, "driver.version.installed", "{}");
  db.fact(m, 99, "fs./dev/davinci0", "missing");  // line past the end of the member
  db.exec("INSERT INTO facts (bundle_id, host, name, value, member_id, line) VALUES (" +
          std::to_string(b) + ", 'n1', 'torch_npu.version', '2.8.0.post4', NULL, 0)");
  db.exec("INSERT INTO clocks (bundle_id, host, clock, offset_ns, method) VALUES (" +
          std::to_string(b) + ", 'n1', 'host_local', NULL, 'assumed')");
  faultline::correlate::Summary sum;
  REQUIRE_NOTHROW(sum = faultline::correlate::run(db.handle(), b, source_rules()));
  const auto f = findings(db.handle(), b);
  for (const auto& r : f) INFO(r.finding << ": " << r.summary);
  for (const auto& r : f) INFO(r.finding << ": " << r.summary);
  CHECK(f.empty());
  CHECK(sum.root_causes == 0);
}

TEST_CASE("an empty bundle gives no findings and an empty timeline", "[correlate][hostile]") {
  Db db;
  const int64_t b = db.bundle("bundles/empty.tar", std::string(64, '8'));
  const auto sum = faultline::correlate::run(db.handle(), b, source_rules());
  CHECK(!sum.any);
  CHECK(findings(db.handle(), b).empty());
  CHECK(timeline(db.handle(), b).empty());
}
