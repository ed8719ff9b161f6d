// Kernel and system logs: host_kernel.log, dmesg, dmesg -T, rsyslog syslog, journalctl. Verbatim
// lines from log-formats.md §4 and the asys bundle; generic kernel lines from §4.5.
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
}  // namespace

TEST_CASE("host_kernel.log: UTC ring buffer, ascend payload, optional uptime", "[logs][kernel]") {
  const auto a = one("host_kernel_log",
                     "[2025-05-07-19:54:27.400027] [ascend] [drv_pcie] [INFO] [devdrv_init_module "
                     "2338] <systemd-udevd:694:694> Insmod host driver. (type=\"normal\", "
                     "product=\"dc\", driver_name=\"devdrv_device_driver\")");
  CHECK(a.time.clock == Clock::utc);
  CHECK(a.time.year == 2025);
  CHECK(a.time.hour == 19);
  CHECK(a.time.nanos == 400'027'000);
  CHECK_FALSE(a.time.has_uptime());
  CHECK(a.severity == Severity::info);
  CHECK(a.module == "drv_pcie");
  CHECK(a.pid == 694);
  CHECK(a.tid == 694);
  CHECK(a.message.rfind("Insmod host driver.", 0) == 0);
  const auto b =
      one("host_kernel_log",
          "[2025-05-08-02:28:14.715953] [ascend] [devdrv] [WARN] [devdrv_manager_device_ready "
          "4476] <kworker/12:2:3753,3753> Device is not ready. (dev_id=100)");
  CHECK(b.severity == Severity::warning);
  CHECK(b.device == 100);
  CHECK(b.pid == 3753);
  const auto c =
      one("host_kernel_log",
          "[2025-05-07-19:54:27.513037] [ascend] [drv_log] [NOTICE] [log_level_file_init 214] "
          "log_level_file init successfully!!! log_level = 3.");
  CHECK(c.severity == Severity::notice);
  CHECK(c.message == "log_level_file init successfully!!! log_level = 3.");
  // newer drivers: "[%s] [%llu.%06u] %s" (log_drv_agent.c)
  const auto d = one("host_kernel_log",
                     "[2025-05-07-19:54:27.400027] [31.400027] [ascend] [drv_pcie] [INFO] "
                     "[devdrv_init_module 2338] <systemd-udevd:694:694> Insmod host driver. "
                     "(type=\"normal\", product=\"dc\", driver_name=\"devdrv_device_driver\")");
  CHECK(d.time.uptime_ns == 31'400'027'000LL);
  CHECK(d.module == "drv_pcie");
  CHECK(parse_text("host_kernel_log", "2025-05-07 19:54:27 not the ring buffer format").malformed ==
        1);
}

TEST_CASE("dmesg: uptime prefix, both [module] [LEVEL] orders, keyword severities",
          "[logs][kernel]") {
  struct Row {
    const char* line;
    Severity sev;
    const char* module;
    int64_t pid;
    int32_t device;
    const char* msg;
  };
  const Row rows[] = {
      {"[ 2081.843939] [ascend] [devmm] [devmm_alloc_svm_proc_set_to_file 662] <main:42394,42394> "
       "Devmm_set_porcess details. (status=0; proc_idx=3)",
       Severity::info, "devmm", 42394, -1, "Devmm_set_porcess details."},
      {"[ 2081.844051] [ascend] [davinci_intf] [drv_davinci_intf_sub_call_release 348] "
       "<davinci_recycle:42400> Release module success. (module_name=\"SVM\"; pid=42394)",
       Severity::info, "davinci_intf", 42400, -1, "Release module success."},
      // [module] [LEVEL] and [LEVEL] [module]
      {"[ 1197.584409] [ascend] [uda] [ERROR] [uda_occupy_dev_by_ns 932] <npu-smi:PID> Conflict "
       "open udevid.",
       Severity::error, "uda", -1, -1, "Conflict open udevid."},
      {"[ 1197.584409] [ascend] [ERROR] [devmm] [devmm_svm_device_fault 438] "
       "<kworker/u16:186:9871,9871> Vm fault failed. (...)",
       Severity::error, "devmm", 9871, -1, "Vm fault failed."},
      {"[ 1197.584409] [ascend] [devmm] [ERROR] _devmm_ipc_node_open: Wlist verify fail",
       Severity::error, "devmm", -1, -1, "_devmm_ipc_node_open: Wlist verify fail"},
      {"[ 1197.584409] [ascend] [devmm] [ERROR] Va is error, can not fault.", Severity::error,
       "devmm", -1, -1, "Va is error, can not fault."},
      {"[ 1197.584409] [ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] "
       "<kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; new_count=1104; "
       "lost_count=4; total_lost_count=4; total_10s_count=0; total_15s_count 0).",
       Severity::error, "drv_soft_fault", 39365, 1, "Heartbeat lost!"},
      // generic kernel lines: severity from keywords
      {"[ 1374.059019] rndis_host: Unknown symbol usbnet_skb_return", Severity::error, "rndis_host",
       -1, -1, "rndis_host: Unknown symbol usbnet_skb_return"},
      {"[   30.100211] pcieport 0000:00:1d.0: AER: Uncorrected (Non-Fatal) error received: "
       "0000:00:1d.0",
       Severity::error, "pcieport", -1, -1, "pcieport 0000:00:1d.0: AER"},
      {"[   30.100256] pcieport 0000:00:1d.0:   device [8086:7ab0] error "
       "status/mask=00100000/00004000",
       Severity::warning, "pcieport", -1, -1, "pcieport"},
      {"[23645.213796] devdrv_device_driver 0000:03:00.4: enabling device (0000 -> 0002)",
       Severity::info, "devdrv_device_driver", -1, -1, "devdrv_device_driver 0000:03:00.4"},
  };
  for (const Row& row : rows) {
    const auto e = one("dmesg", row.line);
    INFO(row.line);
    CHECK(e.severity == row.sev);
    CHECK(e.module == row.module);
    CHECK(e.pid == row.pid);
    CHECK(e.device == row.device);
    CHECK(e.message.rfind(row.msg, 0) == 0);
    CHECK(e.time.clock == Clock::uptime);
    CHECK(e.time.has_uptime());
    CHECK_FALSE(e.time.has_civil());
  }
  CHECK(one("dmesg",
            "[ 2081.843939] [ascend] [devmm] [devmm_alloc_svm_proc_set_to_file 662] "
            "<main:42394,42394> Devmm_set_porcess details. (status=0; proc_idx=3)")
            .time.uptime_ns == 2081'843'939'000LL);
}

TEST_CASE("dmesg: wrapped payload lines continue the record", "[logs][kernel]") {
  const auto r =
      parse_text("dmesg",
                 "[ 5120.118022] [ascend] [devmm] [ERROR] [devmm_pin_user_pages_fast 124]\n"
                 "<VLLM::Worker_TP:670605,670605> Get_user_pages_fast fail.\n"
                 "(va=0xfffc8c19e2e8; expected_page_num=1; real_got_page_num=0)\n");
  CHECK(r.malformed == 0);
  REQUIRE(r.events.size() == 3);
  CHECK(r.events[1].severity == Severity::error);
  CHECK(r.events[1].module == "devmm");
  CHECK(r.events[2].message == "(va=0xfffc8c19e2e8; expected_page_num=1; real_got_page_num=0)");
  // a line that starts like a record but is not one is malformed
  CHECK(parse_text("dmesg", "[ 5120.118022] ok\n[5120.x] broken\n").malformed == 1);
}

TEST_CASE("dmesg -T: ctime prefix, host-local clock", "[logs][kernel]") {
  const auto e = one("dmesg_t",
                     "[Thu May  8 02:28:01 2025] devdrv_device_driver 0000:03:00.4: enabling "
                     "device (0000 -> 0002)");
  CHECK(e.time.clock == Clock::host_local);
  CHECK(e.time.year == 2025);
  CHECK(e.time.month == 5);
  CHECK(e.time.day == 8);
  CHECK(e.time.hour == 2);
  CHECK(e.time.second == 1);
  CHECK(e.module == "devdrv_device_driver");
  const auto f =
      one("dmesg_t",
          "[Thu Aug  1 08:38:31 2024] [ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] "
          "<kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; new_count=1104; "
          "lost_count=4; total_lost_count=4; total_10s_count=0; total_15s_count 0).");
  CHECK(f.severity == Severity::error);
  CHECK(f.device == 1);
}

TEST_CASE("syslog: host-local year-less stamps, kernel uptime, host.name once", "[logs][kernel]") {
  const auto r = parse_text(
      "syslog",
      "May  8 00:00:01 ubuntu78 systemd[1]: logrotate.service: Succeeded.\n"
      "May  8 02:28:01 ubuntu78 kernel: [23645.213796] devdrv_device_driver 0000:03:00.4: enabling "
      "device (0000 -> 0002)\n"
      "May  8 02:28:14 ubuntu78 kernel: [23658.584779] [ascend][DVPP_CMDLIST][DVPP] "
      "[dvpp_container_notifier_func:94] [T1] notifier action. (udevid=100; action=0; ret=0)\n"
      "May  8 02:28:14 ubuntu78 kernel: [23658.586773] [ascend] [ts_agent] [tsagent_device_init "
      "1315] <vdavinci_tool:5131,5131> tsagent device init, devid=100, tsid=0, "
      "phy_addr=0x39c42708000, size=0x800.\n"
      "May  8 02:28:14 ubuntu78 hccn_tool: "
      "[ERROR][2025-05-08-02:28:14:990181][cmd.c:645][ascend][curpid:5162,5162][drv][net][cmd_"
      "check_phy_id]device id length[3] check fail! valid length is[1 or 2]\n");
  CHECK(r.malformed == 0);
  REQUIRE(r.events.size() == 5);
  REQUIRE(r.facts.size() == 1);
  CHECK(r.facts[0].name == "host.name");
  CHECK(r.facts[0].value == "ubuntu78");
  CHECK(r.facts[0].line == 1);
  const auto& sd = r.events[0];
  CHECK(sd.module == "systemd");
  CHECK(sd.pid == 1);
  CHECK(sd.time.clock == Clock::host_local);
  CHECK(sd.time.year == 0);
  CHECK_FALSE(sd.time.has_uptime());
  const auto& k = r.events[1];
  CHECK(k.time.uptime_ns == 23645'213'796'000LL);
  CHECK(k.time.hour == 2);
  CHECK(k.module == "devdrv_device_driver");
  const auto& dvpp = r.events[2];
  CHECK(dvpp.module == "DVPP_CMDLIST");
  CHECK(dvpp.message == "notifier action. (udevid=100; action=0; ret=0)");
  CHECK(dvpp.device == 100);
  CHECK(r.events[3].pid == 5131);
  CHECK(r.events[4].severity == Severity::error);
  CHECK(r.events[4].module == "hccn_tool");
}

TEST_CASE("syslog: generic kernel and Ascend lines from issues", "[logs][kernel]") {
  const auto a = one("syslog",
                     "Mar  1 09:56:07 testNode kernel: i915: Unknown symbol "
                     "backport_drm_dp_dsc_sink_max_slice_throughput (err -2)");
  CHECK(a.severity == Severity::error);
  CHECK(a.module == "i915");
  CHECK(a.time.month == 3);
  CHECK(a.time.day == 1);
  const auto b = one(
      "syslog",
      "Aug  1 08:38:31 localhost kernel: [ 1197.584409] [ascend] [ERROR] [drv_soft_fault] "
      "[heart_beat_judge 318] <kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; "
      "new_count=1104; lost_count=4; total_lost_count=4; total_10s_count=0; total_15s_count 0).");
  CHECK(b.severity == Severity::error);
  CHECK(b.device == 1);
  CHECK(b.time.uptime_ns == 1197'584'409'000LL);
  // RFC 3339 high-precision rsyslog stamps carry their zone: converted to UTC
  const auto c = one("syslog",
                     "2025-05-08T02:28:01.213796+08:00 ubuntu78 kernel: [23645.213796] "
                     "devdrv_device_driver 0000:03:00.4: enabling device (0000 -> 0002)");
  CHECK(c.time.clock == Clock::utc);
  CHECK(c.time.day == 7);
  CHECK(c.time.hour == 18);
  CHECK(c.time.nanos == 213'796'000);
  CHECK(parse_text("syslog", "this is not a syslog line").malformed == 1);
}

TEST_CASE("journal: short, short-precise, short-iso, short-monotonic, meta lines",
          "[logs][kernel]") {
  const auto r = parse_text(
      "journal",
      "-- Logs begin at Thu 2025-05-08 00:00:01 CST, end at Thu 2025-05-08 09:56:26 CST. --\n"
      "May 08 02:28:14 ubuntu78 kernel: [ascend] [ts_agent] [tsagent_device_init 1315] "
      "<vdavinci_tool:5131,5131> tsagent device init, devid=100, tsid=0, phy_addr=0x39c42708000, "
      "size=0x800.\n"
      "-- Boot 3c1f4b1c2e7d4f0a9b8e6d5c4b3a2910 --\n"
      "May 08 02:28:01.213796 ubuntu78 kernel: rndis_host: Unknown symbol usbnet_skb_return\n"
      "2025-05-08T02:28:01+0800 ubuntu78 kernel: devdrv_device_driver 0000:03:00.4: enabling "
      "device (0000 -> 0002)\n"
      "[23645.213796] ubuntu78 kernel: devdrv_device_driver 0000:03:00.4: enabling device (0000 -> "
      "0002)\n"
      "Thu 2025-05-08 02:28:01 CST ubuntu78 kernel: devdrv_device_driver 0000:03:00.4: enabling "
      "device (0000 -> 0002)\n");
  CHECK(r.malformed == 0);
  REQUIRE(r.events.size() == 5);
  CHECK(r.events[0].module == "ts_agent");
  CHECK(r.events[0].time.clock == Clock::host_local);
  CHECK(r.events[0].time.day == 8);
  CHECK(r.events[0].device == 100);
  CHECK(r.events[1].severity == Severity::error);
  CHECK(r.events[1].time.nanos == 213'796'000);
  CHECK(r.events[2].time.clock == Clock::utc);  // zone stated: exact
  CHECK(r.events[2].time.hour == 18);
  CHECK(r.events[2].time.day == 7);
  CHECK(r.events[3].time.clock == Clock::uptime);
  CHECK(r.events[3].time.uptime_ns == 23645'213'796'000LL);
  CHECK(r.events[4].time.clock == Clock::utc);
  CHECK(r.events[4].time.hour == 18);
  REQUIRE(r.facts.size() == 1);
  CHECK(r.facts[0].value == "ubuntu78");
}

TEST_CASE("host syslog and host_kernel.log of the asys bundle", "[logs][kernel][corpus]") {
  if (!fltest::have_asys()) {
    WARN("no asys bundle: skipped");
    return;
  }
  const auto s = fltest::parse_asys("host/message/syslog");
  size_t kernel_with_uptime = 0;
  for (const auto& e : s.events) kernel_with_uptime += e.time.has_uptime();
  CHECK(kernel_with_uptime == 49);  // every "kernel:" line
  const auto hk = fltest::parse_asys("host/driver/host_kernel.log");
  size_t warn = 0;
  for (const auto& e : hk.events) {
    warn += e.severity == Severity::warning;
    CHECK(e.time.clock == Clock::utc);
  }
  CHECK(hk.events.size() == 3161);
  CHECK(warn > 0);
}
