// The correlator's load bounds (docs/fuzzing.md, "Bounds"): hits beyond 5 000 per host and
// signature (200 000 in all) and facts beyond 65 536 per host and name (200 000 in all) are not
// read, and what was left out is named in the bundle's warnings, which the report lists.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "faultline/correlate/correlate.hpp"
#include "fixture.hpp"

using namespace fixture;

namespace {

std::vector<std::string> limit_warnings(sqlite3* db, int64_t bundle) {
  std::vector<std::string> out;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT message FROM warnings WHERE bundle_id = ? AND member = '' AND message "
                     "LIKE '[correlate-limit]%' ORDER BY id",
                     -1, &st, nullptr);
  sqlite3_bind_int64(st, 1, bundle);
  while (sqlite3_step(st) == SQLITE_ROW)
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  return out;
}

bool fired(const std::vector<FindingRow>& f, const std::string& id) {
  for (const auto& r : f)
    if (r.finding == id) return true;
  return false;
}

const char* kThreeMinutes =
    "[ERROR] RUNTIME(31337,python3):2026-03-12-10:14:07.118.245 [stream.cc:1402]31420 "
    "SynchronizeExecutedTask:report three minutes timeout! stream_id=47, task_id=1280, "
    "sqHead=500, pendingNum=781";

// A real maps line of a process with libhccl.so mapped and then deleted.
const char* kDeletedMap =
    "fffd4c000000-fffd4d1a0000 r-xp 00000000 103:02 5904511 "
    "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libhccl.so (deleted)";

// n hits of the three-minutes report on `host`, one second apart.
void add_hits(Db& db, const std::string& host, int n) {
  db.host(host);
  std::vector<std::string> lines(static_cast<size_t>(n), kThreeMinutes);
  auto m = db.member("plog/plog-31337_20260312101400000.log", "plog", host, lines, false);
  for (int i = 0; i < n; ++i)
    db.hit(m, i + 1, "runtime.sync_three_minutes_timeout",
           R"({"stream_id":"47","task_id":"1280","sq_head":"500","pending_num":"781"})",
           utc("2026-03-12 02:14:07") + static_cast<int64_t>(i) * 1'000'000'000);
}

}  // namespace

TEST_CASE("hits beyond the per-signature bound are named in the warnings", "[correlate][limits]") {
  Db db;
  const int64_t b = db.bundle("bundles/node07.tar.gz", std::string(64, 'a'));
  db.exec("BEGIN");
  add_hits(db, "node07", 5003);
  add_hits(db, "node08", 5000);  // at the bound: nothing left out
  db.exec("COMMIT");
  faultline::correlate::run(db.handle(), b, source_rules());
  auto w = limit_warnings(db.handle(), b);
  REQUIRE(w.size() == 1);
  CHECK(w[0].find("host node07, signature runtime.sync_three_minutes_timeout: 3 of 5003 not "
                  "seen by the diagnoses") != std::string::npos);
  CHECK(w[0].find("at most 5000 hits per host and signature") != std::string::npos);
  // a second run replaces its warnings instead of adding to them
  faultline::correlate::run(db.handle(), b, source_rules());
  CHECK(limit_warnings(db.handle(), b).size() == 1);
}

TEST_CASE("facts beyond the per-name bound are named in the warnings", "[correlate][limits]") {
  Db db;
  const int64_t b = db.bundle("bundles/node07.tar.gz", std::string(64, 'b'));
  db.host("node07");
  db.exec("BEGIN");
  auto maps = db.member("proc/31337/maps", "proc_maps", "node07", {kDeletedMap}, false);
  for (int i = 0; i < 65536 + 4; ++i) {
    char buf[64];
    const auto lo = static_cast<unsigned long long>(0xffff00000000LL + i * 0x10000LL);
    std::snprintf(buf, sizeof buf, "%012llx-%012llx r-xp", lo, lo + 0x8000ULL);
    db.fact(maps, 1, "process.31337.mapping", buf);
  }
  db.fact(maps, 1, "process.31337.deleted",
          "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libhccl.so");
  db.exec("COMMIT");
  faultline::correlate::run(db.handle(), b, source_rules());
  const auto w = limit_warnings(db.handle(), b);
  REQUIRE(w.size() == 1);
  CHECK(w[0].find("host node07, fact process.31337.mapping: 4 of 65540 not seen by the "
                  "diagnoses") != std::string::npos);
  CHECK(fired(findings(db.handle(), b), "process.deleted_libraries"));
}

TEST_CASE("the total fact bound keeps the first facts of every name", "[correlate][limits]") {
  Db db;
  const int64_t b = db.bundle("bundles/node07.tar.gz", std::string(64, 'c'));
  db.host("node07");
  db.exec("BEGIN");
  auto maps = db.member("proc/maps", "proc_maps", "node07", {kDeletedMap}, false);
  // 4 x 52 000 = 208 000 facts, each name below its own bound, together above 200 000
  for (int pid = 1; pid <= 4; ++pid)
    for (int i = 0; i < 52000; ++i) {
      char buf[64];
      const auto lo = static_cast<unsigned long long>(0xffff00000000LL + i * 0x10000LL);
      std::snprintf(buf, sizeof buf, "%012llx-%012llx r-xp", lo, lo + 0x8000ULL);
      db.fact(maps, 1, "process." + std::to_string(pid) + ".mapping", buf);
    }
  // sorts after the floods and would be the first left out by a plain LIMIT
  db.fact(maps, 1, "process.9.deleted",
          "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libhccl.so");
  db.exec("COMMIT");
  faultline::correlate::run(db.handle(), b, source_rules());
  const auto w = limit_warnings(db.handle(), b);
  REQUIRE(w.size() == 4);
  // 200 000 kept: the deleted fact, then 49 999.75 of each flood in round order
  int64_t skipped = 0;
  for (const auto& s : w) {
    CHECK(s.find("host node07, fact process.") != std::string::npos);
    CHECK(s.find(" of 52000 not seen by the diagnoses") != std::string::npos);
    skipped += std::stoll(s.substr(s.find(".mapping: ") + 10));
  }
  CHECK(skipped == 208001 - 200000);
  CHECK(fired(findings(db.handle(), b), "process.deleted_libraries"));
}
