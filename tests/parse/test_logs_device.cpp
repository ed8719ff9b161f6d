// Device-side logs: firmware (TSCH/LPM/IMP/MCU/HSM), DMS event log, device OS syslog (messages),
// slogd's own log, black-box history. Verbatim lines from log-formats.md §2.4 and the asys bundle.
#include <catch2/catch.hpp>

#include "test_logs_util.hpp"

using faultline::Clock;
using faultline::Severity;
using faultline::parse::parse_text;

namespace {
faultline::OwnedEvent one(std::string_view kind, std::string_view line,
                          std::string_view path = {}) {
  auto r = parse_text(kind, line, path);
  INFO(line);
  REQUIRE(r.malformed == 0);
  REQUIRE(r.events.size() == 1);
  return r.events[0];
}
const std::string kFwPath =
    "dfx/log/device/dev-os-0/firmware/debug/device-0/device-0_20250507195454620.log";
}  // namespace

TEST_CASE("device_fw_log: TSCH with bracketed and bare file:line, old cpuid-only form",
          "[logs][device]") {
  struct Row {
    const char* line;
    Severity sev;
    const char* module;
    const char* msg;
    int year;
  };
  const Row rows[] = {
      {"[INFO] TSCH(-1,null):1970-01-01-00:00:01.014.351 2121 (dieid:0,cpuid:0) "
       "[dfx_resource_detect.c:363] stars_pcie_dma_abnormal_detect: pcie dma abnormal detect get "
       "start_chan_id=13, end_chan_id=24.",
       Severity::info, "TSCH", "pcie dma abnormal detect get start_chan_id=13, end_chan_id=24.",
       1970},
      {"[ERROR] TSCH(-1,null):2025-05-08-03:25:03.198.726 2168 (dieid:0,cpuid:0) "
       "[stars_interrupt.c:1016] int_process_stars_exception_task_error: l2_val=0x4000, "
       "mid_offset=2, l2_offset=14, acsq_id=78, rtsq_id=2, inter_index=0",
       Severity::error, "TSCH",
       "l2_val=0x4000, mid_offset=2, l2_offset=14, acsq_id=78, rtsq_id=2, inter_index=0", 2025},
      {"[EVENT] TSCH(-1,null):2023-12-02-14:29:25.780.720 17641 (dieid:0,cpuid:0) ringbuffer.c:177 "
       "delete_ringbuffer: pid=3299758, vf_id=0",
       Severity::info, "TSCH", "pid=3299758, vf_id=0", 2023},
      {"[ERROR] TSCH(-1,null):2020-09-04-21:51:13.452.762 63696 (cpuid:0) "
       "task_scheduler_engine.c:707 proc_model_stream_unbind: unbind model stream failed, stream "
       "is running. stream->model_id=512, model_id=512, task.sq_id=514, task.task_id=3",
       Severity::error, "TSCH",
       "unbind model stream failed, stream is running. stream->model_id=512, model_id=512, "
       "task.sq_id=514, task.task_id=3",
       2020},
      {"[ERROR] TSCH(-1,null):2024-02-08-01:41:14.977.406 3986 (dieid:0,cpuid:0) "
       "stars_timewheel.c:90 stars_wait_sqe_is_timeout: Timeout: sq_pid=80029, sq_id=3, "
       "is_need_process=1, exe_time=16, time_out=10, stream_id=3, task_id=47, cur_head=47, "
       "wait_sqe_head=47.",
       Severity::error, "TSCH", "Timeout: sq_pid=80029, sq_id=3", 2024},
      {"[INFO] LPM(-1,null):1970-01-01-00:03:44.385.673 (dieid:0) [mw_pg.c 59] mata freq[2000]",
       Severity::info, "LPM", "mata freq[2000]", 1970},
      {"[INFO] IMP(-2,IMP): 1970-01-01-00:00:00.015.000 12 (device_id:0 die_id:0) mac 0 init, pf 0 "
       " media type 1, phy_addr 255",
       Severity::info, "IMP", "mac 0 init, pf 0  media type 1, phy_addr 255", 1970},
      {"[EVENT] MCU(-1,null):1970-01-01-00:00:18.148.578 [mcu_agent.c:135] mcu_agent_log_set: set "
       "log level=3",
       Severity::info, "MCU", "set log level=3", 1970},
      {"[INFO]HSM:1970-01-01 00:03:45.344 product no support tpm.", Severity::info, "HSM",
       "product no support tpm.", 1970},
  };
  for (const Row& row : rows) {
    const auto e = one("device_fw_log", row.line, kFwPath);
    INFO(row.line);
    CHECK(e.severity == row.sev);
    CHECK(e.module == row.module);
    CHECK(e.message.rfind(row.msg, 0) == 0);
    CHECK(e.time.clock == Clock::device_local);
    CHECK(e.time.year == row.year);
    CHECK(e.device == 0);
  }
}

TEST_CASE("device_fw_log: time-of-day lines and wrapped tails", "[logs][device]") {
  const auto r =
      parse_text("device_fw_log",
                 "[EVENT] MCU(-1,null):1970-01-01-00:00:18.148.578 [mcu_agent.c:135] "
                 "mcu_agent_log_set: set log level=3\n"
                 "[2400]\n"
                 "[INFO]HSM:1970-01-01 00:03:45.344 HSM iTruste-lite Firmware success.\n"
                 "[00:03:45.344][info] succeed to do thirdparty hsm_runtime_firmware init\n",
                 kFwPath);
  CHECK(r.malformed == 0);
  REQUIRE(r.events.size() == 4);
  CHECK(r.events[1].module == "MCU");  // "[2400]" continues the MCU record
  CHECK(r.events[1].message == "[2400]");
  CHECK(r.events[3].message == "succeed to do thirdparty hsm_runtime_firmware init");
  CHECK_FALSE(r.events[3].time.has_civil());  // no date printed
  CHECK(r.events[3].time.hour == 0);
  CHECK(r.events[3].time.minute == 3);
}

TEST_CASE("device_event_log: severity from the severity field, uptime, device, kept",
          "[logs][device]") {
  const std::string path = "dfx/log/device/dev-os-0/system/run/event/event_20250507195454617.log";
  const auto a =
      one("device_event_log",
          "[EVENT] DRV(3423,dms_poll_task):2025-05-08-03:25:04.229.345 "
          "[dms_event.c:1399][fault_manager][27026.820643] event_id=0x80cb8002; device_id=0; "
          "node_type=0x65[AIV]; node_id=6; sub_node_id=0; event_type=0x2[input error]; "
          "severity=1[Warning]; assertion=1[Event occur]; description=[AIV 0x7906]; os_id=0; ",
          path);
  CHECK(a.severity == Severity::warning);
  CHECK(a.keep);
  CHECK(a.device == 0);
  CHECK(a.time.uptime_ns == 27026'820'643'000LL);
  CHECK(a.message.rfind("event_id=0x80cb8002;", 0) == 0);
  const auto b =
      one("device_event_log",
          "[EVENT] DRV(3423,dms_poll_task):2025-05-08-02:28:16.066.556 "
          "[dms_event.c:1399][fault_manager][23618.657855] event_id=0x80f78003; device_id=0; "
          "node_type=0x7b[HWTS/Stars-TS]; node_id=0; sub_node_id=0; event_type=0x3[internal config "
          "error]; severity=2[Alarm]; assertion=1[Event occur]; description=[HWTS/STARS 0x30a]; "
          "os_id=0; event_serial_num=2; notify_serial_num=0; event_raised_time=1746671295066 ms.",
          path);
  CHECK(b.severity == Severity::error);
  const auto c =
      one("device_event_log",
          "[EVENT] DRV(3423,dms_poll_task):1970-01-01-00:00:08.876.153 "
          "[dms_event.c:1399][fault_manager][    7.932713] event_id=0x8c2fa009; device_id=0; "
          "node_type=0x617[OS_Linux]; node_id=1; sub_node_id=0; event_type=0x9[OS init]; "
          "severity=0[OK]; assertion=2[One time event]; description=[OS init]; os_id=0; eve",
          path);
  CHECK(c.severity == Severity::info);
  CHECK(c.keep);
  CHECK(c.time.year == 1970);
  CHECK(c.time.uptime_ns == 7'932'713'000LL);
  const auto d =
      one("device_event_log",
          "[EVENT] DRV(4898,drv_tsd_daemon):2025-05-07-19:54:56.024.324 "
          "[drv_tsd_hdc_server.c:339][common] [hlt_server_main] [339] hlt_tsd process start",
          path);
  CHECK_FALSE(d.keep);
  CHECK(d.device == 0);
}

TEST_CASE("device_syslog: facility.priority, device uptime and caller id, year-less",
          "[logs][device]") {
  const std::string path = "dfx/log/device/dev-os-0/system/message/messages";
  const auto a =
      one("device_syslog",
          "May  8 17:48:43 (none) kern.err kernel: [50047.252723][    C0] [ascend] [ERROR] [tsdrv] "
          "[tsdrv_hb_cq_callback 332] <kworker/u16:2:11429> receive ts exception msg, call "
          "excep_code=0xb4060006, time=1746697723.659997783s, devid=0 tsid=0 ",
          path);
  CHECK(a.severity == Severity::error);
  CHECK(a.time.clock == Clock::device_syslog);
  CHECK(a.time.year == 0);
  CHECK(a.time.month == 5);
  CHECK(a.time.day == 8);
  CHECK(a.time.hour == 17);
  CHECK(a.time.uptime_ns == 50047'252'723'000LL);
  CHECK(a.module == "tsdrv");
  CHECK(a.pid == 11429);
  CHECK(a.device == 0);
  CHECK(a.message.rfind("receive ts exception msg", 0) == 0);
  const auto b = one("device_syslog",
                     "May  8 17:48:37 (none) kern.err kernel: [50041.360862][  T613] {8}[Hardware "
                     "Error]: Hardware error from APEI Generic Hardware Error Source: 0",
                     path);
  CHECK(b.severity == Severity::error);
  CHECK(b.message ==
        "{8}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 0");
  const auto c = one("device_syslog",
                     "May  8 17:24:32 (none) kern.warn kernel: [48596.522791][T10066] [ascend] "
                     "[icm] [icm_ipc_msg_send_sync 560] <kworker/0:0:10066> wait response time too "
                     "long.(time=218(ms), chan_id=13)",
                     path);
  CHECK(c.severity == Severity::warning);
  CHECK(c.pid == 10066);
  const auto d = one("device_syslog",
                     "May  8 09:27:34 (none) user.info aicpu_scheduler: (10726)dlog_attr.c:221: "
                     "set log attr, type(0), deviceId(0), host pid(136667), save mode(4269108841).",
                     path);
  CHECK(d.severity == Severity::info);
  CHECK(d.module == "aicpu_scheduler");
  CHECK(d.device == 0);
  // no host.name fact for the device OS
  CHECK(parse_text("device_syslog",
                   "May  8 07:16:47 (none) user.info PROCMGR[4672]: procmgr sysOperator server "
                   "FmIoctl begin to exec cmd=SET_SCHEDULER")
            .facts.empty());
}

TEST_CASE("slogd_log and bbox_history", "[logs][device]") {
  const auto a = one("slogd_log",
                     "2025-05-07 19:54:54.608[INFO] log_path_mgr.c:123: logWorkspace = /usr/slog.",
                     "dfx/log/device/dev-os-0/slogd/slogdlog");
  CHECK(a.time.clock == Clock::device_local);
  CHECK(a.time.nanos == 608'000'000);
  CHECK(a.message == "logWorkspace = /usr/slog.");
  CHECK(a.device == 0);
  const auto b = one("bbox_history",
                     "[2023-07-13-16:20:44.081811] system exception code [0xB4060007]: ModuleName "
                     "[TS], ExceptionReason [TS_EXCEPTION], TimeStamp [20230713162044-070000011].",
                     "device_log/hisi_logs/device-0/history.log");
  CHECK(b.severity == Severity::error);
  CHECK(b.keep);
  CHECK(b.module == "TS");
  CHECK(b.device == 0);
  CHECK(b.time.nanos == 81'811'000);
  CHECK(b.time.clock == Clock::device_local);
  const auto c =
      one("bbox_history",
          "[2021-10-05-23:07:08.656411] system exception code [0xA8028802]: ModuleName [DRIVER], "
          "ExceptionReason [DRIVER_EXCEPTION], TimeStamp [20211005230708-651408009].");
  CHECK(c.module == "DRIVER");
}

TEST_CASE("device logs of the asys bundle: severities and kept events", "[logs][device][corpus]") {
  if (!fltest::have_asys()) {
    WARN("no asys bundle: skipped");
    return;
  }
  const auto fw = fltest::parse_asys("firmware/debug/device-0/device-0_20250507195454620.log");
  size_t fw_err = 0;
  for (const auto& e : fw.events) fw_err += e.severity == Severity::error;
  CHECK(fw_err == 198);  // grep -c '^\[ERROR\]' of the file
  const auto ev = fltest::parse_asys("event_20250507195454617.log");
  size_t kept = 0;
  for (const auto& e : ev.events) kept += e.keep;
  CHECK(kept == 49);  // DMS event records
}
