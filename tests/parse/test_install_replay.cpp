// Installed state from the install history: install.event facts of ascend_install.log /
// operation.log replayed in time order (faultline/parse/install_replay.hpp). Lines are in the
// real formats of the asys collection's ascend_install.log (log-formats.md §6.1, §6.2).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "faultline/parse/install_replay.hpp"
#include "test_logs_util.hpp"

using faultline::parse::install_record;
using faultline::parse::Installed;
using faultline::parse::InstallRecord;
using faultline::parse::parse_text;
using faultline::parse::replay_installs;

namespace {

std::vector<InstallRecord> records_of(std::string_view kind, std::string_view text,
                                      int64_t member = 1) {
  std::vector<InstallRecord> out;
  for (const auto& f : parse_text(kind, text).facts) {
    if (f.name != "install.event") continue;
    auto r = install_record(f.value);
    REQUIRE(r);
    r->member_id = member;
    r->line = f.line;
    out.push_back(*r);
  }
  return out;
}

const Installed* find(const std::vector<Installed>& v, std::string_view pkg,
                      std::string_view path = {}) {
  for (const auto& i : v)
    if (i.package == pkg && i.path == path) return &i;
  return nullptr;
}

// One driver session of the real log (upgrade 7.7.T15.0.B092 -> 7.7.t16.0.b099).
const char* kDriverUpgrade =
    "[Driver] [2025-03-30 17:41:26] [INFO]Start time: 2025-03-30 17:41:26\n"
    "[Driver] [2025-03-30 17:41:26] [INFO]UserCommand: "
    "Ascend910B-driver-7.7.t16.0.b099-ubuntu20.04.x86_64.run --quiet --full\n"
    "[Driver] [2025-03-30 17:41:26] [INFO]base version is 7.7.T15.0.B092.\n"
    "[Driver] [2025-03-30 17:41:36] [INFO]uninstall driver success\n"
    "[Driver] [2025-03-30 17:41:39] [WARNING]The program 'dkms' is currently not installed.\n"
    "[Driver] [2025-03-30 17:42:02] [INFO]upgradePercentage:100%\n"
    "[Driver] [2025-03-30 17:42:02] [INFO]End time: 2025-03-30 17:42:02\n";

}  // namespace

TEST_CASE("replay: the last successful install gives the version; failed steps do not count",
          "[logs][install][replay]") {
  std::string log = kDriverUpgrade;
  // a later reinstall of an older build that fails its vermagic check
  log +=
      "[Driver] [2025-04-02 10:10:55] [INFO]Start time: 2025-04-02 10:10:55\n"
      "[Driver] [2025-04-02 10:10:55] [INFO]UserCommand: "
      "Ascend910B-driver-7.7.t15.0.b092-ubuntu24.04.x86_64.run --quiet --full\n"
      "[Driver] [2025-04-02 10:10:56] [INFO]base version is 7.7.T16.0.B099.\n"
      "[Driver] [2025-04-02 10:11:12] [ERROR]driver vermagic check failed.\n"
      "[Driver] [2025-04-02 10:11:12] [INFO]End time: 2025-04-02 10:11:12\n";
  const auto now = replay_installs(records_of("install_log", log));
  REQUIRE(now.size() == 1);
  CHECK(now[0].package == "driver");
  CHECK(now[0].version == "7.7.t16.0.b099");
  CHECK(now[0].line == 1);  // the session's Start line
  CHECK(now[0].time == "2025-03-30 17:41:26");
}

TEST_CASE("replay: uninstall removes, upgrade replaces, internal builds compare",
          "[logs][install][replay]") {
  SECTION("driver uninstalled with --uninstall") {
    std::string log = kDriverUpgrade;
    log +=
        "[Driver] [2025-04-03 04:25:06] [INFO]Start time: 2025-04-03 04:25:06\n"
        "[Driver] [2025-04-03 04:25:06] [INFO]UserCommand: "
        "Ascend910B-driver-7.7.t16.0.b099-ubuntu20.04.x86_64.run --uninstall\n"
        "[Driver] [2025-04-03 04:25:09] [INFO]uninstall driver success\n"
        "[Driver] [2025-04-03 04:25:09] [INFO]End time: 2025-04-03 04:25:09\n";
    CHECK(replay_installs(records_of("install_log", log)).empty());
  }
  SECTION("CANN runtime and opp: each package its own state; opp upgraded by module version") {
    const auto now = replay_installs(records_of(
        "install_log",
        "[Runtime] [2025-03-30 17:49:51] [INFO]: Start time:2025-03-30 17:49:51\n"
        "[Runtime] [2025-03-30 17:49:51] [INFO]: InputParams:--quiet --full\n"
        "[Runtime] [2025-03-30 17:49:51] [INFO]: base version is 7.7.T15.0.B092.\n"
        "[Runtime] [2025-03-30 17:50:03] [INFO]: Runtime package installed successfully! The new "
        "version takes effect immediately.\n"
        "[Runtime] [2025-03-30 17:50:03] [INFO]: End time:2025-03-30 17:50:03\n"
        "[Opp] [2025-05-07 07:24:03] [INFO]: Command install\n"
        "[Opp] [2025-05-07 07:24:03] [INFO]: Input params: --quiet --full\n"
        "[Opp] [2025-05-07 07:24:10] [INFO]: Existed opp module version is 7.7.T15.0.B092, the "
        "new opp module version is 7.8.T5.0.B028.\n"
        "[Opp] [2025-05-07 07:24:20] [INFO]: Opp package upgraded successfully! The new version "
        "takes effect immediately.\n"));
    const auto* opp = find(now, "opp");
    REQUIRE(opp);
    CHECK(opp->version == "7.8.T5.0.B028");
    // the runtime session names no version of its own (only the base it replaced): not stated
    CHECK(find(now, "runtime") == nullptr);
  }
  SECTION("operation.log and ascend_install.log of one host: time order across members") {
    auto recs = records_of("install_log", kDriverUpgrade, 1);
    const auto op = records_of(
        "operation_log",
        "Install SUGGESTION root 2025-03-29 04:10:34 127.0.0.1 "
        "Ascend910B-driver-7.7.t15.0.b092-ubuntu20.04.x86_64.run success install_type=full; "
        "cmdlist=--quiet --full.\n"
        "Upgrade SUGGESTION root 2025-04-08 09:00:00 127.0.0.1 "
        "Ascend910B-driver-7.8.t5.0.b028-ubuntu20.04.x86_64.run success install_type=full; "
        "cmdlist=--quiet --full.\n"
        "Upgrade MAJOR root 2025-04-09 09:00:00 127.0.0.1 "
        "Ascend910B-driver-7.8.t6.0.b001-ubuntu20.04.x86_64.run failed install_type=full; "
        "cmdlist=--quiet --full.\n",
        2);
    recs.insert(recs.end(), op.begin(), op.end());
    const auto now = replay_installs(recs);
    REQUIRE(now.size() == 1);
    CHECK(now[0].version == "7.8.t5.0.b028");
    CHECK(now[0].member_id == 2);
    CHECK(now[0].line == 2);
  }
  SECTION("--install-path: a second root stays side by side; a version-less run clears") {
    const auto now = replay_installs(records_of(
        "install_log",
        "[Opensdk] [2025-04-03 03:15:07] [INFO]: Start time: 2025-04-03 03:15:07\n"
        "[Opensdk] [2025-04-03 03:15:07] [INFO]: InputParams: --quiet --full "
        "--install-path=/home/zga/install-dir\n"
        "[Opensdk] [2025-04-03 03:15:07] [INFO]: Current package version is 7.3.0.2.220\n"
        "[Opensdk] [2025-04-03 03:15:12] [INFO]: Opensdk package installed successfully!\n"
        "[Opensdk] [2025-04-03 03:15:12] [INFO]: End time: 2025-04-03 03:15:12\n"
        "[Opensdk] [2025-04-05 10:00:07] [INFO]: Start time: 2025-04-05 10:00:07\n"
        "[Opensdk] [2025-04-05 10:00:07] [INFO]: InputParams: --quiet --full\n"
        "[Opensdk] [2025-04-05 10:00:07] [INFO]: Current package version is 7.5.0.1.129\n"
        "[Opensdk] [2025-04-05 10:00:12] [INFO]: Opensdk package installed successfully!\n"
        "[Opensdk] [2025-04-05 10:00:12] [INFO]: End time: 2025-04-05 10:00:12\n"
        // a runtime run that logs only the base it replaced
        "[Runtime] [2025-05-07 17:49:59] [INFO]: Start time:2025-05-07 17:49:59\n"
        "[Runtime] [2025-05-07 17:49:59] [INFO]: InputParams:--quiet --full\n"
        "[Runtime] [2025-05-07 17:49:59] [INFO]: base version is 7.8.T5.0.B028.\n"
        "[Runtime] [2025-05-07 17:50:11] [INFO]: Runtime package installed successfully! The new "
        "version takes effect immediately.\n"
        "[Runtime] [2025-05-07 17:50:11] [INFO]: End time:2025-05-07 17:50:11\n"));
    REQUIRE(now.size() == 2);
    const auto* home = find(now, "opensdk", "/home/zga/install-dir");
    REQUIRE(home);
    CHECK(home->version == "7.3.0.2.220");
    const auto* def = find(now, "opensdk");
    REQUIRE(def);
    CHECK(def->version == "7.5.0.1.129");
    CHECK(find(now, "runtime") == nullptr);
  }
}

TEST_CASE("replay: one driver per host whatever the install root", "[logs][install][replay]") {
  // seed 002 shape: 25.2.0 installed under /opt/hdk-25.2.0, then 26.0.rc1 in the default root
  std::vector<InstallRecord> recs(2);
  recs[0] = {"driver",  "install",         "", "25.2.0", "2025-11-04 10:02:40",
             "success", "/opt/hdk-25.2.0", 1,  1};
  recs[1] = {"driver", "upgrade", "25.2.0", "26.0.rc1", "2026-01-20 09:12:03", "success", "", 1, 9};
  const auto now = replay_installs(recs);
  REQUIRE(now.size() == 1);
  CHECK(now[0].version == "26.0.rc1");
  CHECK(now[0].path.empty());
}

TEST_CASE("replay: install.event JSON and fact names", "[logs][install][replay]") {
  CHECK_FALSE(install_record("not json"));
  CHECK_FALSE(install_record("{\"action\":\"install\"}"));
  const auto r = install_record(
      "{\"package\":\"driver\",\"action\":\"upgrade\",\"from\":\"7.7.T15.0.B092\",\"to\":\"7.7.t16."
      "0.b099\",\"time\":\"2025-03-30 17:41:26\",\"result\":\"success\",\"reboot_required\":false,"
      "\"path\":\"/opt/Ascend\"}");
  REQUIRE(r);
  CHECK(r->path == "/opt/Ascend");
  CHECK(faultline::parse::installed_fact_name("driver") == "driver.version.installed");
  CHECK(faultline::parse::installed_fact_name("firmware") == "firmware.version.installed");
  CHECK(faultline::parse::installed_fact_name("toolkit") == "cann.version.installed");
  CHECK(faultline::parse::installed_fact_name("hccl").empty());
}

TEST_CASE("replay of the real asys install log (578 install events)",
          "[logs][install][replay][corpus]") {
  if (!fltest::have_asys()) {
    WARN("no asys bundle: skipped");
    return;
  }
  const auto r = fltest::parse_asys("host/install/ascend_install.log");
  std::vector<InstallRecord> recs;
  for (const auto& f : r.facts) {
    if (f.name != "install.event") continue;
    auto x = install_record(f.value);
    REQUIRE(x);
    x->line = f.line;
    recs.push_back(*x);
  }
  CHECK(recs.size() >= 524);
  const auto now = replay_installs(recs);
  // the last driver and firmware runs of the log, 2025-05-07 18:45 (both Ascend910B 7.8.t5.0.b028)
  const auto* drv = find(now, "driver");
  REQUIRE(drv);
  CHECK(drv->version == "7.8.t5.0.b028");
  CHECK(drv->line == 51856);
  const auto* fw = find(now, "firmware");
  REQUIRE(fw);
  CHECK(fw->version == "7.8.t5.0.b028");
  CHECK(fw->line == 51795);
  // one version per package and root: nothing listed twice
  for (size_t i = 0; i < now.size(); ++i)
    for (size_t j = i + 1; j < now.size(); ++j)
      CHECK_FALSE((now[i].package == now[j].package && now[i].path == now[j].path));
}
