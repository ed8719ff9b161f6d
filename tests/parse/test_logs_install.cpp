// ascend_install.log and operation.log: line events and install.event facts decided per session
// (log-formats.md §6.1, §6.2; seed 000: a driver downgrade 24.1.0.3 -> 24.1.rc3 without reboot).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_logs_util.hpp"

using faultline::Clock;
using faultline::Severity;
using faultline::parse::parse_text;

namespace {
nlohmann::json install_event(const faultline::parse::ParseResult& r, size_t i) {
  REQUIRE(i < r.facts.size());
  CHECK(r.facts[i].name == "install.event");
  return nlohmann::json::parse(r.facts[i].value);
}
}  // namespace

TEST_CASE("install log lines: prefixes, levels with and without colon, un-prefixed output",
          "[logs][install]") {
  const auto r = parse_text(
      "install_log",
      "[Driver] [2025-03-29 04:11:12] [ERROR]current kernel primary version(5.4.0-125-generic) is "
      "different from the driver(6.8.0-41-generic).\n"
      "[Driver] [2025-03-29 04:11:12] [ERROR]driver vermagic check failed.\n"
      "[Toolkit] [2025-04-08 09:32:15] [ERROR]: ERR_NO:0x0004;ERR_DES: Unrecognized parameters. "
      "Try './xxx.run --help' for more information.\n"
      "[Driver] [2025-03-29 04:11:12] davinci4 has used by docker\n"
      "[Driver] [2025-03-30 17:41:39] [WARNING]The program 'dkms' is currently not installed.\n"
      "[Aoe] [2025-03-29 06:42:50] [INFO]: Aoe package installed successfully! The new version "
      "takes effect immediately.\n"
      "[Driver] [2025-03-30 17:41:26] [INFO]rm ascend_dms_dtm.ko\n"
      "Successfully uninstalled hccl_parser-0.1\n"
      "WARNING: Running pip as the 'root' user can result in broken permissions and conflicting "
      "behaviour with the system package manager.\n"
      "\t{\"device_id\":0, \"component\":hboot1a, \"version\":7.7.t15.0.b092}\n");
  CHECK(r.malformed == 0);
  REQUIRE(r.events.size() == 10);
  const auto& a = r.events[0];
  CHECK(a.severity == Severity::error);
  CHECK(a.module == "Driver");
  CHECK(a.message ==
        "current kernel primary version(5.4.0-125-generic) is different from the "
        "driver(6.8.0-41-generic).");
  CHECK(a.time.clock == Clock::host_local);
  CHECK(a.time.year == 2025);
  CHECK(a.time.hour == 4);
  CHECK(a.time.second == 12);
  CHECK(a.keep);
  CHECK(r.events[1].message == "driver vermagic check failed.");
  CHECK(r.events[1].keep);
  CHECK(r.events[2].severity == Severity::error);
  CHECK(r.events[2].module == "Toolkit");
  CHECK(r.events[2].message.rfind("ERR_NO:0x0004;ERR_DES:", 0) == 0);
  CHECK(r.events[3].severity == Severity::info);
  CHECK(r.events[3].message == "davinci4 has used by docker");
  CHECK(r.events[4].severity == Severity::warning);
  CHECK(r.events[5].keep);
  CHECK_FALSE(r.events[6].keep);
  CHECK(r.events[7].keep);
  CHECK(r.events[7].time.second == 26);  // un-prefixed: time of the preceding stamped line
  CHECK(r.events[8].severity == Severity::warning);
  CHECK(r.events[9].keep);
  CHECK(
      parse_text("install_log", "[Driver] [2025-03-29] [INFO]Start time: 2025-03-29\n").malformed ==
      1);
}

TEST_CASE("install.event: seed 000 driver downgrade without reboot", "[logs][install]") {
  const auto r =
      parse_text("install_log",
                 "[Driver] [2025-06-12 13:30:40] [INFO]Start time: 2025-06-12 13:30:40\n"
                 "[Driver] [2025-06-12 13:30:40] [INFO]UserCommand: "
                 "Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run --full\n"
                 "[Driver] [2025-06-12 13:30:57] [INFO]Driver package has been installed on the "
                 "path /usr/local/Ascend, the version is 24.1.0.3, and the version of this package "
                 "is 24.1.rc3,do you want to continue?  [y/n] \n"
                 "[Driver] [2025-06-12 13:31:36] [INFO]Driver package installed successfully! "
                 "Reboot needed for installation/upgrade to take effect!\n"
                 "[Driver] [2025-06-12 13:31:36] [INFO]End time: 2025-06-12 13:31:36\n");
  REQUIRE(r.facts.size() == 1);
  const auto j = install_event(r, 0);
  CHECK(j["package"] == "driver");
  CHECK(j["action"] == "downgrade");
  CHECK(j["from"] == "24.1.0.3");
  CHECK(j["to"] == "24.1.rc3");
  CHECK(j["time"] == "2025-06-12 13:30:40");
  CHECK(j["result"] == "success");
  CHECK(j["reboot_required"] == true);
  CHECK(r.facts[0].line == 1);
}

TEST_CASE("install.event: upgrade, uninstall, failed vermagic, firmware reboot hint",
          "[logs][install]") {
  SECTION("the version is A, and the version of this package is B: upgrade") {
    const auto r =
        parse_text("install_log",
                   "[Driver] [2025-06-12 13:30:40] [INFO]Start time: 2025-06-12 13:30:40\n"
                   "[Driver] [2025-06-12 13:30:57] [INFO]Driver package has been installed on the "
                   "path /var/davinci, the version is 23.0.rc3, and the version of this package is "
                   "25.0.rc1.1,do you want to continue?  [y/n] \n"
                   "[Driver] [2025-03-31 09:51:36] [INFO]Driver package installed successfully! "
                   "Reboot needed for installation/upgrade to take effect!\n"
                   "[Driver] [2025-03-31 09:51:36] [INFO]End time: 2025-03-31 09:51:36\n");
    const auto j = install_event(r, 0);
    CHECK(j["action"] == "upgrade");
    CHECK(j["from"] == "23.0.rc3");
    CHECK(j["to"] == "25.0.rc1.1");
  }
  SECTION("--uninstall") {
    const auto r =
        parse_text("install_log",
                   "[Driver] [2025-03-29 04:25:06] [INFO]Start time: 2025-03-29 04:25:06\n"
                   "[Driver] [2025-03-29 04:25:06] [INFO]UserCommand: "
                   "Ascend910B-driver-7.7.t15.0.b092-ubuntu24.04.x86_64.run --uninstall\n"
                   "[Driver] [2025-03-29 04:25:06] [INFO]base version is none.\n"
                   "[Driver] [2025-03-29 04:25:09] [INFO]uninstall driver success\n"
                   "[Driver] [2026-07-07 12:53:49] [INFO]Driver package uninstalled successfully! "
                   "Reboot needed for uninstallation to take effect!\n"
                   "[Driver] [2025-03-29 04:25:09] [INFO]End time: 2025-03-29 04:25:09\n");
    const auto j = install_event(r, 0);
    CHECK(j["action"] == "uninstall");
    CHECK(j["from"] == "7.7.t15.0.b092");
    CHECK(j["to"] == "");
    CHECK(j["result"] == "success");
    CHECK(j["reboot_required"] == true);
  }
  SECTION("vermagic check failed: same version reinstalled, failed") {
    const auto r =
        parse_text("install_log",
                   "[Driver] [2025-03-29 04:10:55] [INFO]Start time: 2025-03-29 04:10:55\n"
                   "[Driver] [2025-03-29 04:10:55] [INFO]UserCommand: "
                   "Ascend910B-driver-7.7.t15.0.b092-ubuntu24.04.x86_64.run --quiet --full\n"
                   "[Driver] [2025-03-29 04:10:56] [INFO]base version is 7.7.T15.0.B092.\n"
                   "[Driver] [2025-03-29 04:11:12] [INFO]uninstall driver success\n"
                   "[Driver] [2025-03-29 04:11:12] [ERROR]current kernel primary "
                   "version(5.4.0-125-generic) is different from the driver(6.8.0-41-generic).\n"
                   "[Driver] [2025-03-29 04:11:12] [ERROR]driver vermagic check failed.\n"
                   "[Driver] [2025-03-29 04:11:12] [INFO]End time: 2025-03-29 04:11:12\n");
    const auto j = install_event(r, 0);
    CHECK(j["action"] == "install");
    CHECK(j["from"] == "7.7.T15.0.B092");
    CHECK(j["to"] == "7.7.t15.0.b092");
    CHECK(j["result"] == "failed");
    CHECK(j["reboot_required"] == false);
  }
  SECTION("firmware: upgrade by internal version, reboot hint") {
    const auto r = parse_text(
        "install_log",
        "[Firmware] [2025-03-30 17:41:06] [INFO]Start time: 2025-03-30 17:41:06\n"
        "[Firmware] [2025-03-30 17:41:06] [INFO]UserCommand: "
        "Ascend910B-firmware-7.7.t16.0.b099.run --quiet --full\n"
        "[Firmware] [2025-03-30 17:41:06] [INFO]base version is 7.7.T15.0.B092.\n"
        "[Firmware] [2023-07-10 22:27:57] [INFO]The firmware of [8] chips are successfully "
        "upgraded.\n"
        "[Firmware] [2023-07-10 22:27:57] [INFO]Firmware package installed successfully! Reboot "
        "now or after driver installation for the installation/upgrade to take effect.\n"
        "[Firmware] [2025-03-30 17:41:21] [INFO]End time: 2025-03-30 17:41:21\n");
    const auto j = install_event(r, 0);
    CHECK(j["package"] == "firmware");
    CHECK(j["action"] == "upgrade");
    CHECK(j["to"] == "7.7.t16.0.b099");
    CHECK(j["reboot_required"] == true);
  }
  SECTION("a session cut short by the next Start is failed; sessions of packages interleave") {
    const auto r =
        parse_text("install_log",
                   "[Driver] [2025-03-29 04:33:19] [INFO]Start time: 2025-03-29 04:33:19\n"
                   "[Driver] [2025-03-29 04:33:19] [INFO]UserCommand: "
                   "Ascend910B-driver-7.7.t15.0.b092-ubuntu24.04.x86_64.run --quiet --full\n"
                   "[Runtime] [2025-03-30 17:49:51] [INFO]: Start time:2025-03-30 17:49:51\n"
                   "[Runtime] [2025-03-30 17:49:51] [INFO]: base version is 7.7.T15.0.B092.\n"
                   "[Runtime] [2025-03-30 17:50:03] [INFO]: Runtime package installed "
                   "successfully! The new version takes effect immediately.\n"
                   "[Runtime] [2025-03-30 17:50:03] [INFO]: End time:2025-03-30 17:50:03\n"
                   "[Driver] [2025-03-29 04:36:58] [INFO]Start time: 2025-03-29 04:36:58\n");
    REQUIRE(r.facts.size() == 3);
    const auto runtime = install_event(r, 0);
    CHECK(runtime["package"] == "runtime");
    CHECK(runtime["result"] == "success");
    CHECK(runtime["from"] == "7.7.T15.0.B092");
    const auto cut = install_event(r, 1);
    CHECK(cut["package"] == "driver");
    CHECK(cut["result"] == "failed");
    CHECK(cut["time"] == "2025-03-29 04:33:19");
    const auto open_at_eof = install_event(r, 2);
    CHECK(open_at_eof["time"] == "2025-03-29 04:36:58");
  }
}

TEST_CASE("operation.log records", "[logs][install]") {
  const auto r = parse_text(
      "operation_log",
      "Install SUGGESTION root 2025-03-29 04:10:34 127.0.0.1 "
      "Ascend910B-firmware-7.7.t15.0.b092.run success install_type=full; cmdlist=--quiet --full.\n"
      "Uninstall MAJOR root 2025-06-12 13:30:40 127.0.0.1 "
      "Ascend-hdk-910b-npu-driver_24.1.0.3_linux-aarch64.run failed cmdlist=--uninstall.\n"
      "not an operation record\n");
  CHECK(r.malformed == 1);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].severity == Severity::info);
  CHECK(r.events[0].time.hour == 4);
  CHECK(r.events[1].severity == Severity::error);
  REQUIRE(r.facts.size() == 2);
  const auto a = install_event(r, 0);
  CHECK(a["package"] == "firmware");
  CHECK(a["action"] == "install");
  CHECK(a["to"] == "7.7.t15.0.b092");
  CHECK(a["time"] == "2025-03-29 04:10:34");
  CHECK(a["result"] == "success");
  const auto b = install_event(r, 1);
  CHECK(b["package"] == "driver");
  CHECK(b["action"] == "uninstall");
  CHECK(b["from"] == "24.1.0.3");
  CHECK(b["result"] == "failed");
}

TEST_CASE("install.event on the real asys install log", "[logs][install][corpus]") {
  if (!fltest::have_asys()) {
    WARN("no asys bundle: skipped");
    return;
  }
  const auto r = fltest::parse_asys("host/install/ascend_install.log");
  CHECK(r.malformed == 0);
  CHECK(r.lines == 52404);
  // one per "Start time/Start Time" (479), "InstallStart:" (45) and Opp "Command ..." session
  CHECK(r.facts.size() >= 524);
  bool upgrade_t15_t16 = false, vermagic_failed = false, uninstall = false;
  for (const auto& f : r.facts) {
    if (f.name != "install.event") continue;  // cann.version.installed facts ride along
    const auto j = nlohmann::json::parse(f.value);
    if (f.line == 1215) {
      upgrade_t15_t16 = j["package"] == "driver" && j["action"] == "upgrade" &&
                        j["from"] == "7.7.T15.0.B092" && j["to"] == "7.7.t16.0.b099" &&
                        j["result"] == "success";
    }
    if (f.line == 62) vermagic_failed = j["result"] == "failed" && j["package"] == "driver";
    if (f.line == 242) uninstall = j["action"] == "uninstall";
  }
  CHECK(upgrade_t15_t16);
  CHECK(vermagic_failed);
  CHECK(uninstall);
}
