// Timeline export (docs/timeline-export.md): jsonl in Timesketch's field names and RFC 4180 csv,
// on real-format timeline rows (lines of samples/seed-driver-reboot-pending and
// samples/svm-address-conflict), with hostile text: control characters, invalid UTF-8, bidi
// overrides and spreadsheet formulas stay inert.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../analyzer/report/src/render.hpp"
#include "faultline/correlate/correlate.hpp"
#include "faultline/report/report.hpp"
#include "seeds.hpp"

using namespace faultline::report::detail;
using faultline::report::Format;
using faultline::report::RenderNotes;

namespace {

bool contains(const std::string& s, const std::string& x) {
  return s.find(x) != std::string::npos;
}

std::vector<std::string> lines_of(const std::string& s, const std::string& sep) {
  std::vector<std::string> v;
  size_t at = 0;
  for (size_t p; (p = s.find(sep, at)) != std::string::npos; at = p + sep.size())
    v.push_back(s.substr(at, p - at));
  if (at < s.size()) v.push_back(s.substr(at));
  return v;
}

// RFC 4180 reader (the test's own, independent of csv.cpp): records of fields.
std::vector<std::vector<std::string>> parse_csv(const std::string& s) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, in_field = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quoted) {
      if (c == '"' && i + 1 < s.size() && s[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"' && !in_field) {
      quoted = in_field = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
      in_field = false;
    } else if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') {
      rows.back().push_back(field);
      field.clear();
      in_field = false;
      rows.emplace_back();
      ++i;
    } else {
      field.push_back(c);
      in_field = true;
    }
  }
  if (!rows.back().empty() || !field.empty()) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

TimelineR row(std::optional<int64_t> t, const std::string& quality, const std::string& file,
              int64_t line, const std::string& text, const std::string& sig,
              const std::string& finding, const std::string& role, const std::string& kind,
              int ord) {
  TimelineR r;
  r.time_ns = t;
  r.quality = quality;
  r.host = "a2pod-n042";
  r.file = file;
  r.line = line;
  r.text = text;
  r.signature = sig;
  r.finding = finding;
  r.role = role;
  r.kind = kind;
  r.ord = ord;
  return r;
}

const char* kInstall =
    "npu_log_collect/ascend_log_20260528110514/install_info/ascend_seclog/ascend_install.log";

// Rows as the report's timeline holds them (tests/golden/seed-driver-reboot-pending.json), plus
// hostile variants of real lines.
Report sample_report() {
  Report r;
  r.path = "samples/seed-driver-reboot-pending";
  r.sha256 = std::string(64, 'b');
  const int64_t t_install = 1779861791LL * 1'000'000'000;  // 2026-05-27T06:03:11Z
  const int64_t t_svm = 1768960697916000000LL;             // 2026-01-21T01:58:17.916Z
  r.timeline = {
      row(1779066760LL * 1'000'000'000, "exact", "extra/proc_stat.txt", 8, "btime 1779066760", "",
          "driver.reboot_pending", "context", "proc_stat", 0),
      row(t_install, "local", kInstall, 273,
          "[Driver] [2026-05-27 14:03:11] [INFO]Start time: 2026-05-27 14:03:11", "",
          "driver.reboot_pending", "cause", "install_log", 1),
      row(t_svm, "boot_relative", "faultline_ocr-svc-02_20260121100540/cmd/dmesg.txt", 116,
          "[91695.916000] [ascend] [ERROR] [devmm] [devmm_svm_mmap 528] <java:9321,9321> Svm map "
          "va not fixed, vm_start=0xf7fec0000000, vm_end=0xffffc0000000",
          "svm.map_va_not_fixed", "svm.map_failed", "first_failure", "dmesg", 2),
      // hostile: a terminal escape, CR, BEL, invalid UTF-8 and a bidi override in a syslog line
      row(t_svm, "year_inferred", "files/var/log/syslog", 89,
          "Jan 21 09:58:18 ocr-svc-02 kernel: \x1b[2J\x1b]0;pwned\x07[ascend] [ERROR] "
          "\xff\xfe\r\u202e devmm",
          "svm.map_va_not_fixed", "svm.address_conflict", "cause", "syslog", 3),
      // spreadsheet formulas at the start of a line (DDE, arithmetic, @, tab)
      row(t_install, "local", "train/rank_0.log", 1, "=cmd|' /C calc'!A0", "", "", "observation",
          "train_log", 4),
      row(t_install, "local", "train/rank_0.log", 2, "+1+2", "", "", "observation", "train_log", 5),
      row(t_install, "local", "train/rank_0.log", 3, "-2+3,\"quoted\"", "", "", "observation",
          "train_log", 6),
      row(t_install, "local", "train/rank_0.log", 4, "@SUM(A1:A9)", "", "", "observation",
          "train_log", 7),
      row(t_install, "local", "train/rank_0.log", 5, "\t=1+1", "", "", "observation", "train_log",
          8),
      // no usable time (a statement without a clock): jsonl leaves it out, csv keeps it
      row(std::nullopt, "unknown", kInstall, 350,
          "[Driver] [INFO]Driver package installed successfully! Reboot needed for "
          "installation/upgrade to take effect!",
          "install.driver_reboot_needed", "driver.reboot_pending", "cause", "install_log", 9),
  };
  return r;
}

}  // namespace

TEST_CASE("csv_cell: OWASP formula-injection prefix and RFC 4180 quoting", "[report][export]") {
  CHECK(csv_cell("=1+1") == "'=1+1");
  CHECK(csv_cell("+1") == "'+1");
  CHECK(csv_cell("-1") == "'-1");
  CHECK(csv_cell("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_cell("\tx") == "'\tx");
  CHECK(csv_cell("\rx") == "\"'\rx\"");  // prefixed, then quoted for the CR
  CHECK(csv_cell("a=1") == "a=1");       // only the first character counts
  CHECK(csv_cell("a,b") == "\"a,b\"");
  CHECK(csv_cell("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_cell("two\nlines") == "\"two\nlines\"");
  CHECK(csv_cell("-5", false) == "-5");  // our own numbers are not text
  CHECK(csv_cell("") == "");
}

TEST_CASE("jsonl export: Timesketch fields, inert text, untimed events left out and counted",
          "[report][export]") {
  const auto events = export_events({sample_report()});
  REQUIRE(events.size() == 10);
  size_t untimed = 99;
  const std::string out = render_jsonl(events, &untimed);
  CHECK(untimed == 1);
  const auto lines = lines_of(out, "\n");
  REQUIRE(lines.size() == 9);
  CHECK(out.back() == '\n');
  for (const auto& l : lines) {
    // nlohmann::json::parse rejects invalid UTF-8 and raw control characters in strings
    const auto j = nlohmann::json::parse(l);
    REQUIRE(j["message"].is_string());
    REQUIRE(j["datetime"].is_string());
    REQUIRE(j["timestamp"].is_number_integer());
    REQUIRE(j["timestamp_desc"].is_string());
    const std::string dt = j["datetime"];
    CHECK(dt.size() == 32);  // 2026-05-27T06:03:11.000000+00:00
    CHECK(dt.substr(26) == "+00:00");
    for (const char* k : {"host", "file", "role", "time_quality", "kind", "bundle"})
      CHECK(j[k].is_string());
    CHECK(j["line"].is_number_integer());
    CHECK(j["ord"].is_number_integer());
    for (unsigned char c : l) CHECK((c >= 0x20 && c != 0x7f));
  }
  const auto btime = nlohmann::json::parse(lines[0]);
  CHECK(btime["datetime"] == "2026-05-18T01:12:40.000000+00:00");
  CHECK(btime["timestamp"] == 1779066760000000LL);
  CHECK(btime["timestamp_desc"] == "Event Time");
  CHECK(btime["signature"].is_null());
  CHECK(btime["finding"] == "driver.reboot_pending");
  const auto install = nlohmann::json::parse(lines[1]);
  CHECK(install["message"] ==
        "[Driver] [2026-05-27 14:03:11] [INFO]Start time: 2026-05-27 14:03:11");
  CHECK(install["file"] == kInstall);
  CHECK(install["line"] == 273);
  CHECK(install["role"] == "cause");
  CHECK(install["time_quality"] == "local");
  CHECK(install["bundle"] == "samples/seed-driver-reboot-pending");
  const auto svm = nlohmann::json::parse(lines[2]);
  CHECK(svm["datetime"] == "2026-01-21T01:58:17.916000+00:00");
  CHECK(svm["timestamp"] == 1768960697916000LL);
  CHECK(svm["timestamp_desc"] == "Event Time (boot_relative)");
  CHECK(svm["signature"] == "svm.map_va_not_fixed");
  CHECK(svm["role"] == "first_failure");
  // hostile line: every control shown as text, invalid bytes as \xNN, the override as \u202e
  const std::string msg = nlohmann::json::parse(lines[3])["message"];
  CHECK(msg ==
        "Jan 21 09:58:18 ocr-svc-02 kernel: \\x1b[2J\\x1b]0;pwned\\x07[ascend] [ERROR] "
        "\\xff\\xfe\\x0d\\u202e devmm");
  // the untimed row is not there
  CHECK(!contains(out, "Driver package installed successfully"));
}

TEST_CASE("csv export: header, every event, formulas defused, controls shown", "[report][export]") {
  const auto events = export_events({sample_report()});
  const std::string out = render_csv(events);
  // RFC 4180: records end in CRLF; no bare CR or LF anywhere (cells are one line)
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '\r') CHECK((i + 1 < out.size() && out[i + 1] == '\n'));
    if (out[i] == '\n') CHECK((i > 0 && out[i - 1] == '\r'));
  }
  const auto rows = parse_csv(out);
  REQUIRE(rows.size() == 11);  // header + 10 events, the untimed one too
  CHECK(rows[0] == export_columns());
  CHECK(rows[0].front() == "datetime");
  for (const auto& r : rows) REQUIRE(r.size() == export_columns().size());
  const auto col = [&](const std::string& name) {
    const auto& c = export_columns();
    return static_cast<size_t>(std::find(c.begin(), c.end(), name) - c.begin());
  };
  const size_t msg = col("message"), ts = col("timestamp"), dt = col("datetime");
  CHECK(rows[2][dt] == "2026-05-27T06:03:11.000000+00:00");
  CHECK(rows[2][ts] == "1779861791000000");
  CHECK(rows[2][col("file")] == kInstall);
  CHECK(rows[2][col("line")] == "273");
  CHECK(rows[2][col("role")] == "cause");
  CHECK(rows[3][msg] ==
        "[91695.916000] [ascend] [ERROR] [devmm] [devmm_svm_mmap 528] <java:9321,9321> Svm map "
        "va not fixed, vm_start=0xf7fec0000000, vm_end=0xffffc0000000");
  CHECK(rows[4][msg] ==
        "Jan 21 09:58:18 ocr-svc-02 kernel: \\x1b[2J\\x1b]0;pwned\\x07[ascend] [ERROR] "
        "\\xff\\xfe\\x0d\\u202e devmm");
  CHECK(rows[5][msg] == "'=cmd|' /C calc'!A0");
  CHECK(rows[6][msg] == "'+1+2");
  CHECK(rows[7][msg] == "'-2+3,\"quoted\"");
  CHECK(rows[8][msg] == "'@SUM(A1:A9)");
  CHECK(rows[9][msg] == "'\t=1+1");
  // untimed: kept, empty time cells
  CHECK(rows[10][dt].empty());
  CHECK(rows[10][ts].empty());
  CHECK(rows[10][col("timestamp_desc")] == "No Time");
  CHECK(rows[10][col("signature")] == "install.driver_reboot_needed");
  // no cell of any row starts with a formula character
  for (const auto& r : rows)
    for (const auto& c : r)
      if (!c.empty()) CHECK(std::string("=+-@\t\r").find(c[0]) == std::string::npos);
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find('\x07') == std::string::npos);
}

TEST_CASE("timeline export from a database: same rows as the json report's timeline",
          "[report][export]") {
  fixture::Db db;
  const int64_t b = db.bundle("bundles/a2-pod-017.tar.zst", std::string(64, 'a'), 41, 5242880);
  fixture::build_seed000(db);
  faultline::correlate::run(db.handle(), b, fixture::source_rules());
  const auto report =
      nlohmann::json::parse(faultline::report::render_bundle(db.handle(), b, Format::json));
  const auto& tl = report["timeline"];
  REQUIRE(!tl.empty());
  RenderNotes notes;
  const std::string jl = faultline::report::render_bundle(db.handle(), b, Format::jsonl, &notes);
  std::vector<nlohmann::json> timed;
  for (const auto& t : tl)
    if (!t["time"].is_null() && t["time_quality"] != "unknown") timed.push_back(t);
  const auto lines = lines_of(jl, "\n");
  REQUIRE(lines.size() == timed.size());
  CHECK(notes.untimed_skipped == tl.size() - timed.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto j = nlohmann::json::parse(lines[i]);
    std::string iso = timed[i]["time"];
    CHECK(j["datetime"] == iso.substr(0, iso.size() - 1) + "+00:00");
    CHECK(j["host"] == timed[i]["host"]);
    CHECK(j["file"] == timed[i]["file"]);
    CHECK(j["line"] == timed[i]["line"]);
    CHECK(j["message"] == timed[i]["text"]);
    CHECK(j["role"] == timed[i]["role"]);
    CHECK(j["finding"] == timed[i]["finding"]);
    CHECK(j["signature"] == timed[i]["signature"]);
    CHECK(j["bundle"] == "bundles/a2-pod-017.tar.zst");
  }
  const std::string csv = faultline::report::render_bundle(db.handle(), b, Format::csv);
  CHECK(parse_csv(csv).size() == tl.size() + 1);
  // the fleet view of one bundle exports the same events
  CHECK(faultline::report::render_fleet(db.handle(), {b}, Format::jsonl) == jl);
  CHECK(faultline::report::format_from("jsonl") == Format::jsonl);
  CHECK(faultline::report::format_from("csv") == Format::csv);
}
