// Component logs of the vendor's single-node layout (component_parsers.cpp): Go hwlog, klog,
// MindIE, Python logging (MindIO, AMCT) and LCNE stamps; lines as quoted in
// rules/signatures/{mindx_dl,mindie,amct,lcne}.yaml (vendor test inputs).
#include <catch2/catch.hpp>

#include "test_logs_util.hpp"

using faultline::Clock;
using faultline::Severity;
using faultline::parse::parse_text;

namespace {
faultline::OwnedEvent one(std::string_view kind, std::string_view line) {
  auto r = parse_text(kind, line);
  INFO(line);
  REQUIRE(r.malformed == 0);
  REQUIRE(r.events.size() == 1);
  return r.events[0];
}
}  // namespace

TEST_CASE("mindx_dl_log: hwlog stamp, level, pid and message", "[logs][components]") {
  const auto e =
      one("mindx_dl_log",
          "[ERROR]    2024/01/10 02:29:39.034681 60      collector/npu_collector.go:1924 "
          "   deviceManager init failed, prepare dcmi failed");
  CHECK(e.severity == Severity::error);
  CHECK(e.time.clock == Clock::host_local);
  CHECK(e.time.year == 2024);
  CHECK(e.time.month == 1);
  CHECK(e.time.day == 10);
  CHECK(e.time.hour == 2);
  CHECK(e.time.nanos == 34681000);
  CHECK(e.pid == 60);
  CHECK(e.message == "deviceManager init failed, prepare dcmi failed");
  CHECK(e.module == "mindx-dl");
}

TEST_CASE("volcano_log: klog letter and year-less stamp", "[logs][components]") {
  const auto e = one("volcano_log",
                     "E0111 03:29:15.991928       1 reschedule.go:533]    Failed to get plugin "
                     "volcano-npu_xxx_linux-xxx");
  CHECK(e.severity == Severity::error);
  CHECK(e.time.year == 0);
  CHECK(e.time.month == 1);
  CHECK(e.time.day == 11);
  CHECK(e.message == "Failed to get plugin volcano-npu_xxx_linux-xxx");
}

TEST_CASE("mindie_log: bracketed stamps with and without zone, level among the brackets",
          "[logs][components]") {
  const auto a = one("mindie_log",
                     "[2024-11-05 12:00:00.123456] [11] [1] [MS] [1] [ERROR] : [MIE03E400008] "
                     "[HttpServer] Http server on timeout");
  CHECK(a.severity == Severity::error);
  CHECK(a.time.clock == Clock::host_local);
  CHECK(a.message == "[MIE03E400008] [HttpServer] Http server on timeout");
  const auto b = one("mindie_log",
                     "[2025-06-30 20:36:02.906+08:00] [8771] [8775] [server] [ERROR] "
                     "[llm_infer_engine.cpp:230] : MIE1AE66666B[llm_backend] get model instance "
                     "cache block nums failed.");
  CHECK(b.time.clock == Clock::utc);
  CHECK(b.time.hour == 12);  // 20:36 at +08:00
  CHECK(b.severity == Severity::error);
  const auto c = one("mindie_log",
                     "[2025-06-23 10:53:57.023+0800] [13818] [281473324085472] [batchscheduler] "
                     "[INFO] [config.py:208] :  [Config]>>> local link info");
  CHECK(c.severity == Severity::info);
  CHECK(c.time.hour == 2);
}

TEST_CASE("amct_log and mindio_log: Python logging stamps", "[logs][components]") {
  const auto a = one("amct_log",
                     "2024-10-23 10:47:11,976 - INFO - [AMCT]:[AMCT]: Layer batchmatmul_2 does not "
                     "support asymmetric quant, set symmetric, No layer support in the graph");
  CHECK(a.severity == Severity::info);
  CHECK(a.time.nanos == 976000000);
  CHECK(a.message.rfind("[AMCT]:[AMCT]: Layer", 0) == 0);
  const auto m = one("mindio_log",
                     "2024-06-18 17:25:32,167 - WARNING - [TTP controller.cpp:1021] "
                     "NormalCallback found abnormal, ret: 1, againRet: 1");
  CHECK(m.severity == Severity::warning);
}

TEST_CASE("lcne_log: month-day-year stamp with zone, VRP severity digit", "[logs][components]") {
  const auto e =
      one("lcne_log",
          "Aug 12 2025 08:53:46+08:00 Z3_22R_99_30 %%01CLI/5/CMDRECORD(s):CID=0x80ca2713;"
          "Recorded command information. alarmID=0x00f1ff09");
  CHECK(e.time.clock == Clock::utc);
  CHECK(e.time.year == 2025);
  CHECK(e.time.hour == 0);
  CHECK(e.severity == Severity::notice);
}

TEST_CASE("component logs: an unstamped line continues the previous record", "[logs][components]") {
  const auto r = parse_text("mindx_dl_log",
                            "[ERROR]    2024/05/29 08:44:42.912940 295     "
                            "collector/npu_collector.go:414    failed to init devices parser: init "
                            "CRI client failed, connecting to CRI server failed: context deadline "
                            "exceeded->co\nnnecting to container runtime failed\n");
  CHECK(r.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[1].severity == Severity::error);
  CHECK(r.events[1].line == 2);
}
