// Reports rendered from the database alone: the ticket markdown, the JSON contract, the
// self-contained HTML page, determinism, and the fleet view.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>

#include "faultline/correlate/correlate.hpp"
#include "faultline/report/report.hpp"
#include "seeds.hpp"

using namespace fixture;
using faultline::report::Format;
using faultline::report::render_bundle;

namespace {

bool contains(const std::string& s, const std::string& x) {
  return s.find(x) != std::string::npos;
}

struct Seed000Db {
  Db db;
  int64_t b = 0;
  Seed000 s;
  Seed000Db() {
    b = db.bundle("bundles/a2-pod-017.tar.zst", std::string(64, 'a'), 41, 5242880);
    s = build_seed000(db);
    db.warning("ascend_log_20260601094002/device_log/hisi_logs/device-0/vmcore",
               "skipped: member larger than the per-member limit (2147483648 bytes)");
    faultline::correlate::run(db.handle(), b, source_rules());
  }
};

}  // namespace

TEST_CASE("md report: verdict, root cause with evidence file:line, remediation, versions, timeline",
          "[report][md]") {
  Seed000Db x;
  const std::string md = render_bundle(x.db.handle(), x.b, Format::md);
  if (const char* dump = std::getenv("FAULTLINE_DUMP_REPORTS"))
    std::ofstream(std::string(dump) + "/seed000.md") << md;
  CHECK(contains(md,
                 "**Verdict:** a2-pod-017: Driver changed after the running modules were loaded"));
  CHECK(contains(md, "driver.reboot_pending"));
  CHECK(contains(md, "`" + x.s.smi.path + ":2`"));
  CHECK(contains(md, "`" + x.s.install.path + ":3`"));
  CHECK(contains(md,
                 "| npu-smi 24.1.rc3                 Version: 24.1.rc3"));  // quoted evidence line
  CHECK(contains(md, "- [ ] Reboot the node"));
  CHECK(contains(md, "| `driver.version.loaded` | 24.1.rc3 |"));
  CHECK(contains(md, "| `driver.version.installed` | 24.1.0.3 |"));
  CHECK(contains(md, "## Timeline"));
  CHECK(contains(md, "first_failure"));
  CHECK(contains(md, "explained by `driver.reboot_pending`"));
  CHECK(contains(md, "skipped: member larger than the per-member limit"));
  CHECK(contains(md, "bundles/a2-pod-017.tar.zst"));
}

TEST_CASE("md report: an unexplained symptom is shown as such", "[report][md]") {
  Db db;
  const int64_t b = db.bundle("bundles/node09.tar.gz", std::string(64, 'e'));
  db.host("node09");
  auto train = db.member("train/rank_3.log", "train_log", "node09",
                         {"RuntimeError: Communicator of group hccl_world_group inited: failed."});
  db.hit(train, 1, "hccl.comm_init_failed", R"({"group":"hccl_world_group"})", std::nullopt);
  faultline::correlate::run(db.handle(), b, source_rules());
  const std::string md = render_bundle(db.handle(), b, Format::md);
  CHECK(contains(md,
                 "**Verdict:** No root cause identified; 1 unexplained symptom: "
                 "hccl.comm_init_failed on node09."));
  CHECK(contains(md, "**UNEXPLAINED**"));
  CHECK(contains(md, "`train/rank_3.log:1`"));
  const auto j = nlohmann::json::parse(render_bundle(db.handle(), b, Format::json));
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["kind"] == "symptom");
  CHECK(j["findings"][0]["explained_by"].is_null());
}

TEST_CASE("md report: healthy bundle says so", "[report][md]") {
  Db db;
  const int64_t b = db.bundle("bundles/910b-node5.tar.zst", std::string(64, 'c'));
  build_healthy(db);
  faultline::correlate::run(db.handle(), b, source_rules());
  const std::string md = render_bundle(db.handle(), b, Format::md);
  CHECK(contains(
      md, "**Verdict:** No findings: no root cause, no symptom and no error-level signature hit"));
  CHECK(contains(md, "## Root causes\n\nNone identified."));
  CHECK(contains(md, "| `torch_npu.version` | 2.9.0.post6 |"));
}

TEST_CASE("error-level signature hits no diagnosis covers are listed, not hidden", "[report]") {
  Db db;
  const int64_t b = db.bundle("fleet/node05", std::string(64, '5'));
  db.host("node05");
  // a device OOM notifier line: error level, covered by no diagnosis of the catalog
  auto msgs = db.member("device-os_20250508024510859.log", "device_os_log", "node05",
                        {"[ERROR] KERNEL(4723,sklogd):2025-05-08-02:45:10.858.289 "
                         "[klogd.c:247][24634.433552] OOM_NOTIFIER: oom type 2"});
  db.hit(msgs, 1, "device.oom_notifier", R"({})", utc("2025-05-08 02:45:10"));
  faultline::correlate::run(db.handle(), b, source_rules());
  const std::string md = render_bundle(db.handle(), b, Format::md);
  CHECK(contains(md,
                 "**Verdict:** No findings (no root cause, no catalog symptom). 1 error-level log "
                 "line matches a signature that no diagnosis covers (most: device.oom_notifier)"));
  CHECK(contains(md,
                 "| `device.oom_notifier` | 1 | 2025-05-08T02:45:10.000000Z | node05 | "
                 "`device-os_20250508024510859.log:1` |"));
  const auto j = nlohmann::json::parse(render_bundle(db.handle(), b, Format::json));
  REQUIRE(j["unclassified"].size() == 1);
  CHECK(j["unclassified"][0]["signature"] == "device.oom_notifier");
  CHECK(j["unclassified"][0]["line"] == 1);
  // Cited lines are not repeated there: seed 000's SVM lines all belong to findings.
  Seed000Db x;
  CHECK(contains(render_bundle(x.db.handle(), x.b, Format::md),
                 "None: every error-level signature hit is cited"));
}

TEST_CASE("json report: contract fields and types", "[report][json]") {
  Seed000Db x;
  const std::string js = render_bundle(x.db.handle(), x.b, Format::json);
  const auto j = nlohmann::json::parse(js);
  CHECK(j["schema_version"] == 1);
  CHECK(j["faultline_version"].is_string());
  const auto& b = j["bundle"];
  CHECK(b["path"] == "bundles/a2-pod-017.tar.zst");
  CHECK(b["sha256"] == std::string(64, 'a'));
  CHECK(b["hosts"] == nlohmann::json({"a2-pod-017"}));
  CHECK(b["files"] == 41);
  CHECK(b["bytes"] == 5242880);
  REQUIRE(j["findings"].is_array());
  REQUIRE(!j["findings"].empty());
  const auto& f = j["findings"][0];
  for (const char* k : {"id", "kind", "severity", "confidence", "host", "title", "summary",
                        "explains", "evidence", "remediation"})
    CHECK(f.contains(k));
  CHECK(f["id"] == "driver.reboot_pending");
  CHECK(f["kind"] == "root_cause");
  CHECK(f["severity"] == "critical");
  CHECK(f["confidence"].is_number());
  CHECK(f["confidence"].get<double>() > 0.5);
  CHECK(f["confidence"].get<double>() <= 1.0);
  REQUIRE(!f["evidence"].empty());
  for (const auto& e : f["evidence"]) {
    for (const char* k : {"file", "line", "time", "text", "signature"}) CHECK(e.contains(k));
    CHECK(e["file"].is_string());
    CHECK(e["line"].is_number_integer());
  }
  bool install_line = false;
  for (const auto& e : f["evidence"])
    if (e["file"] == x.s.install.path && e["line"] == 3) {
      install_line = true;
      CHECK(e["time"] == "2026-05-28T06:03:40.000000Z");  // CST 14:03:40
      CHECK(contains(e["text"].get<std::string>(), "Reboot needed"));
    }
  CHECK(install_line);
  for (const auto& s : {"svm.map_failed", "hccl.comm_init_failed"}) {
    bool found = false;
    for (const auto& g : j["findings"])
      if (g["id"] == s) {
        found = true;
        CHECK(g["kind"] == "symptom");
      }
    CHECK(found);
  }
  REQUIRE(j["timeline"].is_array());
  REQUIRE(!j["timeline"].empty());
  for (const auto& t : j["timeline"]) {
    for (const char* k :
         {"time", "time_quality", "host", "file", "line", "text", "signature", "finding", "role"})
      CHECK(t.contains(k));
    const std::string role = t["role"];
    CHECK(
        (role == "cause" || role == "first_failure" || role == "observation" || role == "context"));
  }
  REQUIRE(j["facts"].is_array());
  bool loaded = false;
  for (const auto& fa : j["facts"]) {
    for (const char* k : {"host", "name", "value", "file", "line"}) CHECK(fa.contains(k));
    if (fa["name"] == "driver.version.loaded")
      loaded = fa["value"] == "24.1.rc3" && fa["line"] == 2;
  }
  CHECK(loaded);
  REQUIRE(j["warnings"].size() == 1);
  CHECK(j["warnings"][0]["file"] ==
        "ascend_log_20260601094002/device_log/hisi_logs/device-0/vmcore");
  CHECK(j["warnings"][0].contains("message"));
}

TEST_CASE("html report: self-contained, verdict, folded evidence, svg timeline", "[report][html]") {
  Seed000Db x;
  const std::string h = render_bundle(x.db.handle(), x.b, Format::html);
  if (const char* dump = std::getenv("FAULTLINE_DUMP_REPORTS"))
    std::ofstream(std::string(dump) + "/seed000.html") << h;
  CHECK(contains(h, "<!DOCTYPE html>"));
  CHECK(contains(h, "<style>"));
  CHECK(contains(h, "Verdict:"));
  CHECK(contains(h, "<details"));
  CHECK(contains(h, "<svg"));
  CHECK(contains(h, "</html>"));
  CHECK(!contains(h, "http://"));
  CHECK(!contains(h, "https://"));
  CHECK(!contains(h, "<script"));
  CHECK(!contains(h, "<link"));
  std::string lower = h;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  CHECK(!contains(lower, "src="));
  // the only links are the table of contents' anchors into the page itself
  for (size_t at = lower.find("href="); at != std::string::npos; at = lower.find("href=", at + 1))
    CHECK(lower.compare(at, 7, "href=\"#") == 0);
  CHECK(contains(h, "<nav class=\"toc\">"));
  CHECK(!contains(lower, "@import"));
  CHECK(!contains(h, "url("));
  // One lane per host + source kind, markers for each role.
  CHECK(contains(h, "a2-pod-017 · install_log"));
  CHECK(contains(h, "a2-pod-017 · device_os_log"));
  CHECK(contains(h, "fill=\"#b3261e\">"));  // cause marker
  CHECK(contains(h, "fill=\"#f08c00\">"));  // first failure marker
}

TEST_CASE("html report: log text with markup and URLs is escaped", "[report][html]") {
  Db db;
  const int64_t b = db.bundle("bundles/<x>&y.tar", std::string(64, 'f'));
  db.host("node<1>");
  auto train = db.member("train/out.log", "train_log", "node<1>",
                         {"  traceback : To enable traceback see: "
                          "https://pytorch.org/docs/stable/elastic/errors.html <script>",
                          "RuntimeError: Communicator of group hccl_world_group inited: failed."});
  db.hit(train, 2, "hccl.comm_init_failed", R"({"group":"hccl_world_group"})", std::nullopt);
  db.warning("train/out.log", "see https://example.invalid/<b>");
  faultline::correlate::run(db.handle(), b, source_rules());
  const std::string h = render_bundle(db.handle(), b, Format::html);
  CHECK(!contains(h, "https://"));
  CHECK(!contains(h, "<b>"));
  CHECK(contains(h, "bundles/&lt;x&gt;&amp;y.tar"));
  CHECK(contains(h, "node&lt;1&gt;"));
}

TEST_CASE("same database rendered twice gives identical bytes", "[report][determinism]") {
  Db db;
  const int64_t b = db.bundle("bundles/910b-node3.tar.gz", std::string(64, 'b'));
  build_seed002(db);
  faultline::correlate::run(db.handle(), b, source_rules());
  for (auto f : {Format::md, Format::json, Format::html}) {
    const std::string a = render_bundle(db.handle(), b, f);
    const std::string c = render_bundle(db.handle(), b, f);
    CHECK(a == c);
    CHECK(!a.empty());
  }
  // Correlating again (same rows) also gives the same report.
  const std::string before = render_bundle(db.handle(), b, Format::json);
  faultline::correlate::run(db.handle(), b, source_rules());
  CHECK(render_bundle(db.handle(), b, Format::json) == before);
  // No wall-clock time leaks into the reports (read_at of the bundle row is not printed).
  CHECK(!contains(render_bundle(db.handle(), b, Format::md), "2026-06-01T10:00:00Z"));
  if (const char* dump = std::getenv("FAULTLINE_DUMP_REPORTS")) {
    std::ofstream(std::string(dump) + "/seed002.md") << render_bundle(db.handle(), b, Format::md);
    std::ofstream(std::string(dump) + "/seed002.json") << before;
    std::ofstream(std::string(dump) + "/seed002.html")
        << render_bundle(db.handle(), b, Format::html);
  }
}

TEST_CASE("fleet report: causes per host, version drift, first failure", "[report][fleet]") {
  Db db;
  const int64_t b1 = db.bundle("fleet/a2-pod-017.tar.zst", std::string(64, '1'));
  build_seed000(db, "a2-pod-017");
  faultline::correlate::run(db.handle(), b1, source_rules());
  const int64_t b2 = db.bundle("fleet/a2-pod-018.tar.zst", std::string(64, '2'));
  build_healthy(db, "a2-pod-018");
  faultline::correlate::run(db.handle(), b2, source_rules());
  const auto j =
      nlohmann::json::parse(faultline::report::render_fleet(db.handle(), {b2, b1}, Format::json));
  REQUIRE(j["bundles"].size() == 2);
  CHECK(j["bundles"][0]["path"] == "fleet/a2-pod-017.tar.zst");  // sorted by path
  CHECK(j["causes"]["driver.reboot_pending"] == nlohmann::json({"a2-pod-017"}));
  CHECK(j["drift"]["driver.version.installed"]["24.1.0.3"] == nlohmann::json({"a2-pod-017"}));
  CHECK(j["drift"]["driver.version.installed"]["24.1.RC3"] == nlohmann::json({"a2-pod-018"}));
  CHECK(j["first_failure"]["host"] == "a2-pod-017");
  CHECK(j["first_failure"]["evidence"]["signature"] == "svm.map_va_not_fixed");
  const std::string md = faultline::report::render_fleet(db.handle(), {b1, b2}, Format::md);
  CHECK(contains(md, "| `driver.reboot_pending` | a2-pod-017 | 1 |"));
  CHECK(contains(md, "## Version drift"));
  const std::string h = faultline::report::render_fleet(db.handle(), {b1, b2}, Format::html);
  CHECK(!contains(h, "http:"));  // no reference anywhere ("http-equiv" of its CSP is no URL)
  CHECK(!contains(h, "https:"));
  CHECK(contains(h, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'"));
  CHECK(faultline::report::render_fleet(db.handle(), {b1, b2}, Format::md) == md);
}

TEST_CASE("format names", "[report]") {
  CHECK(faultline::report::format_from("md") == Format::md);
  CHECK(faultline::report::format_from("json") == Format::json);
  CHECK(faultline::report::format_from("html") == Format::html);
  CHECK(!faultline::report::format_from("pdf").has_value());
}
