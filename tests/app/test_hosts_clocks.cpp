// Hosts and clocks you can trust (issue 32), end to end: bundles built in the test from
// real-format lines (the graded corpus's job folders, the asys sample's syslog / host_kernel.log /
// install log, npu-smi tables of public issue threads), analysed by the whole pipeline and read
// back with SQL.
//   - the host split of every layout: plain per-node folders, folders of archives, a nested
//     ticket, a mixed job folder; one-node bundles with numbered folders stay one host;
//   - the boot as the host-local clock states it (syslog kernel uptime prefixes);
//   - driver.reboot_pending: the loaded driver version is a key premise ("not concluded" when
//     unknown), and a boot or driver load after the install in the same clock contradicts it.
#include <sqlite3.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/sql.hpp"
#include "common/temp_dir.hpp"
#include "faultline/app/app.hpp"
#include "faultline/core/time.hpp"

using namespace faultline;
namespace fs = std::filesystem;
using test::scalar;

namespace {

using Files = std::map<std::string, std::vector<std::string>>;

void write_files(const fs::path& root, const Files& files) {
  for (const auto& [p, lines] : files) {
    fs::create_directories((root / p).parent_path());
    std::ofstream out(root / p, std::ios::binary);
    for (const auto& l : lines) out << l << "\n";
  }
}

int run(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// One analysed bundle (a directory, or whatever `bundle` names), its database kept open.
class Analysed {
 public:
  Analysed(test::TempDir& dir, const fs::path& bundle, const std::string& name) {
    app::Options o;
    o.cache_dir = dir.path() / "cache";
    db_ = store::Db::open(dir.path() / (name + ".db"));
    const auto r = app::analyze(*db_, bundle, o);
    REQUIRE(r.exit_code <= 1);
  }
  sqlite3* h() { return db_->handle(); }
  std::string one(const std::string& sql) { return scalar(h(), sql); }
  std::vector<std::string> col(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(h(), sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
    std::vector<std::string> out;
    while (sqlite3_step(s) == SQLITE_ROW)
      out.emplace_back(sqlite3_column_text(s, 0)
                           ? reinterpret_cast<const char*>(sqlite3_column_text(s, 0))
                           : "");
    sqlite3_finalize(s);
    return out;
  }

 private:
  std::unique_ptr<store::Db> db_;
};

// A FaultDiag-style node folder: `messages` (rsyslog, the node's name in the host field), `dmesg`
// and environment_check/timedatectl.txt, lines as the graded job folders print them.
Files node_folder(const std::string& dir, const std::string& host, const std::string& zone) {
  return {
      {dir + "/messages",
       {"Nov 18 00:05:40 " + host +
            " kernel: [1226423.167562] perf: interrupt took too long (2726 > 2500), lowering "
            "kernel.perf_event_max_sample_rate to 75000",
        "Nov 18 00:17:01 " + host +
            " CRON[226993]: (root) CMD (   cd / && run-parts --report /etc/cron.hourly)",
        "Nov 18 00:21:05 " + host +
            " kernel: [1227348.269539] IPv6: ADDRCONF(NETDEV_CHANGE): vethcacd06e: link becomes "
            "ready"}},
      {dir + "/environment_check/timedatectl.txt",
       {"               Local time: Tue 2025-11-18 14:32:35 CST",
        "           Universal time: Tue 2025-11-18 06:32:35 UTC",
        "                 RTC time: Tue 2025-11-18 06:32:35", "                Time zone: " + zone,
        "System clock synchronized: yes", "              NTP service: active",
        "          RTC in local TZ: no"}},
  };
}

Files merge(Files a, const Files& b) {
  a.insert(b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE("host split: plain per-node folders of a job folder are one host each, with own facts",
          "[hosts][split]") {
  test::TempDir dir("faultline-hosts");
  const fs::path b = dir.path() / "job";
  write_files(
      b,
      merge(merge(node_folder("job_cl4-sft-1118/cl4-a2-n01", "cl4-a2-n01",
                              "Asia/Shanghai (CST, +0800)"),
                  node_folder("job_cl4-sft-1118/cl4-a2-n02", "cl4-a2-n02", "Etc/UTC (UTC, +0000)")),
            {{"job_cl4-sft-1118/launch.sh",
              {"torchrun --nnodes 2 --nproc_per_node 8 --rdzv_backend c10d "
               "--rdzv_endpoint 10.40.2.51:29400 train.py"}}}));
  Analysed a(dir, b, "plain");
  const auto hosts = a.col("SELECT name FROM hosts WHERE name LIKE 'cl4-a2-n%' ORDER BY name");
  REQUIRE(hosts == std::vector<std::string>{"cl4-a2-n01", "cl4-a2-n02"});
  // each host has its own zone: the facts of one are not the other's
  CHECK(a.one("SELECT group_concat(value) FROM facts WHERE host='cl4-a2-n01' AND "
              "name='host.timezone' AND value LIKE '+%'") == "+0800");
  CHECK(a.one("SELECT group_concat(value) FROM facts WHERE host='cl4-a2-n02' AND "
              "name='host.timezone' AND value LIKE '+%'") == "+0000");
  CHECK(a.one("SELECT count(*) FROM members WHERE host='cl4-a2-n01'") == "2");
}

TEST_CASE("host split: numbered folders without names inside are hosts by their shared shape",
          "[hosts][split]") {
  test::TempDir dir("faultline-hosts");
  const fs::path b = dir.path() / "t";
  Files f;
  for (const std::string n : {"a2-n01", "a2-n02", "a2-n03"})
    f["case/" + n + "/dmesg"] = {
        "[    0.000000] Booting Linux on physical CPU 0x0000080000 [0x481fd010]",
        "[ 5123.184409] [ascend] [devdrv] [WARN] [devdrv_manager_ioctl_query_devpid 1012] "
        "<python3:155320:155320> Can not query device_pid by host_pid. (ret=-3; host_pid=155320; "
        "cp_type=1)"};
  write_files(b, f);
  Analysed a(dir, b, "shape");
  CHECK(a.col("SELECT name FROM hosts ORDER BY name") ==
        std::vector<std::string>{"a2-n01", "a2-n02", "a2-n03"});
}

TEST_CASE("host split: a nested ticket folder and a mixed job folder", "[hosts][split]") {
  test::TempDir dir("faultline-hosts");
  SECTION("ticket/ holding n01/ n02/ and its own notes") {
    const fs::path b = dir.path() / "ticket";
    write_files(b, merge(merge(node_folder("TK4711/n01", "gpu-a1", "Asia/Shanghai (CST, +0800)"),
                               node_folder("TK4711/n02", "gpu-b7", "Asia/Shanghai (CST, +0800)")),
                         {{"TK4711/notes.txt", {"customer says: job hangs after step 1200"}}}));
    Analysed a(dir, b, "ticket");
    const auto hosts = a.col("SELECT name FROM hosts WHERE name LIKE 'gpu-%' ORDER BY name");
    CHECK(hosts == std::vector<std::string>{"gpu-a1", "gpu-b7"});
    CHECK(a.one("SELECT count(DISTINCT host) FROM members WHERE path LIKE 'TK4711/n01/%'") == "1");
  }
  SECTION("a2-n01/ as a folder beside a2-n02.tar.gz (folders of archives and plain folders)") {
    const fs::path src = dir.path() / "src";
    write_files(src, node_folder("a2-n02", "cl9-a2-n02", "Asia/Shanghai (CST, +0800)"));
    const fs::path b = dir.path() / "mixed";
    write_files(b, node_folder("job9/a2-n01", "cl9-a2-n01", "Asia/Shanghai (CST, +0800)"));
    fs::create_directories(b / "job9/a2-n03");
    REQUIRE(run("tar czf '" + (b / "job9/a2-n02.tar.gz").string() + "' -C '" + src.string() +
                "' a2-n02") == 0);
    // an archive of no node name in a per-node folder: the folder names the node
    REQUIRE(run("tar czf '" + (b / "job9/a2-n03/bundle.tar.gz").string() + "' -C '" + src.string() +
                "' a2-n02") == 0);
    Analysed a(dir, b, "mixed");
    const auto hosts = a.col("SELECT name FROM hosts ORDER BY name");
    CHECK(std::count(hosts.begin(), hosts.end(), "cl9-a2-n01") == 1);
    CHECK(std::count(hosts.begin(), hosts.end(), "cl9-a2-n02") == 1);
    // the copy in a2-n03/bundle.tar.gz names the same node by its syslog: joined, not a 4th host
    CHECK(hosts.size() == 2);
  }
}

TEST_CASE("host split: one node's numbered folders and a stray host name stay one host",
          "[hosts][split]") {
  test::TempDir dir("faultline-hosts");
  const fs::path b = dir.path() / "one";
  write_files(
      b, {{"infer-a2-0109_svc_500/asys_output_20250305171502113/dfx/log/host/message/syslog",
           {"Mar  5 00:01:09 infer-a2-0109 kernel: [3736536.386231] IPv6: "
            "ADDRCONF(NETDEV_CHANGE): veth581c3f5: link becomes ready",
            // a line relayed from another host (remote rsyslog): not a second node
            "Mar  5 00:01:10 cl4-a2-n09 sshd[4411]: Accepted publickey for root from 10.40.2.51 "
            "port 52110 ssh2",
            "Mar  5 00:02:30 infer-a2-0109 kernel: [3736617.689573] TCP: request_sock_TCP: "
            "Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters."}},
          {"infer-a2-0109_svc_500/extra/ps-ef.txt",
           {"UID          PID    PPID  C STIME TTY          TIME CMD",
            "root     1830422       1 99 Feb27 ?        9-01:12:44 python3 -m serve --port 8000"}},
          // per-device folders of the same node (msnpureport copies) are not nodes
          {"infer-a2-0109_svc_500/dev-os-0/device-os_20250120100642000.log",
           {"[INFO] KERNEL(4723,sklogd):2025-01-20-10:06:44.032.749 [klogd.c:247][   38.032749] "
            "[ascend] [tsdrv] [tsdrv_dev_init 712] <kworker/0:1:41> tsdrv init success, devid=0 "
            "tsid=0"}},
          {"infer-a2-0109_svc_500/dev-os-1/device-os_20250120100642000.log",
           {"[INFO] KERNEL(4723,sklogd):2025-01-20-10:06:44.032.749 [klogd.c:247][   38.032749] "
            "[ascend] [tsdrv] [tsdrv_dev_init 712] <kworker/0:1:41> tsdrv init success, devid=0 "
            "tsid=0"}}});
  Analysed a(dir, b, "one");
  CHECK(a.col("SELECT name FROM hosts") == std::vector<std::string>{"infer-a2-0109"});
}

namespace {

// The driver install / toolkit upgrade history of the graded inference node (install log lines of
// the real format, log-formats.md §6.1), the driver loaded at boot (host_kernel.log, UTC), and
// syslog kernel lines (host-local, with the kernel's uptime).
Files reboot_bundle(const std::string& syslog_day, const std::string& uptime1,
                    const std::string& uptime2) {
  const std::string top = "svc/asys_output_20250305171502113/dfx/log/host/";
  return {
      {top + "driver/host_kernel.log",
       {"[2025-01-20-10:05:51.852413] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
        "<systemd-udevd:1032:1032> Insmod host driver. (type=\"normal\", product=\"dc\", "
        "driver_name=\"devdrv_device_driver\")"}},
      {top + "message/syslog",
       {syslog_day + " 00:01:09 infer-a2-0109 kernel: [" + uptime1 +
            "] IPv6: ADDRCONF(NETDEV_CHANGE): veth581c3f5: link becomes ready",
        syslog_day + " 00:02:32 infer-a2-0109 kernel: [" + uptime2 +
            "] device veth56131eb entered promiscuous mode"}},
      {top + "install/ascend_install.log",
       {"[Driver] [2025-01-20 17:24:41] [INFO]Start time: 2025-01-20 17:24:41",
        "[Driver] [2025-01-20 17:24:41] [INFO]UserCommand: "
        "Ascend-hdk-910b-npu-driver_24.1.0_linux-aarch64.run --full --install-for-all --quiet",
        "[Driver] [2025-01-20 17:24:41] [INFO]base version is 24.1.0.",
        "[Driver] [2025-01-20 17:24:41] [INFO]Driver package has been installed on the path "
        "/usr/local/Ascend, the version is 24.1.rc3, and the version of this package is "
        "24.1.0,do you want to continue?  [y/n]",
        "[Driver] [2025-01-20 17:24:57] [INFO]upgradePercentage:100%",
        "[Driver] [2025-01-20 17:24:57] [INFO]Driver package installed successfully! Reboot "
        "needed for installation/upgrade to take effect!",
        "[Driver] [2025-01-20 17:24:57] [INFO]End time: 2025-01-20 17:24:57",
        "[Toolkit] [2025-03-05 16:40:12] [INFO]: Start Time: 2025-03-05 16:40:12",
        "[Toolkit] [2025-03-05 16:40:12] [INFO]: InputParams: --upgrade --quiet",
        "[Toolkit] [2025-03-05 16:40:12] [INFO]: base version is 8.0.0.",
        "[Toolkit] [2025-03-05 16:40:12] [INFO]: Toolkit package has been installed on the path "
        "/usr/local/Ascend, the version is 8.0.RC3, and the version of this package is 8.0.0, do "
        "you want to continue? [y/n]",
        "[Toolkit] [2025-03-05 16:40:29] [INFO]: Toolkit package uninstalled successfully! "
        "Uninstallation takes effect immediately.",
        "[Toolkit] [2025-03-05 16:40:45] [INFO]: upgradePercentage: 100%",
        "[Toolkit] [2025-03-05 16:40:45] [INFO]: Toolkit package installed successfully! The new "
        "version takes effect immediately.",
        "[Toolkit] [2025-03-05 16:40:45] [INFO]: End Time: 2025-03-05 16:40:45"}},
  };
}

std::vector<std::string> npu_smi(const std::string& v) {
  return {
      "+------------------------------------------------------------------------------------"
      "------------+",
      "| npu-smi " + v + "                 Version: " + v +
          "                                             |",
      "+---------------------------+---------------+----------------------------------------"
      "------------+",
      "| NPU   Name                | Health        | Power(W)    Temp(C)           "
      "Hugepages-Usage(page)|",
      "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB) "
      "       |",
      "+===========================+===============+========================================"
      "============+",
      "| 0     910B4               | OK            | 92.1        52                0    / 0    "
      "         |",
      "| 0                         | 0000:C1:00.0  | 0           0    / 0          2828 / 32768 "
      "        |",
      "+===========================+===============+========================================"
      "============+"};
}

}  // namespace

TEST_CASE("boot from syslog kernel uptime prefixes, and reboot_pending's premises",
          "[clock][boot][reboot_pending]") {
  test::TempDir dir("faultline-hosts");
  // boot (host-local) = Mar 5 00:02:32 - 3736619.9 s = 2025-01-20 18:05:32, after the driver
  // install of 17:24 (host-local); the UTC driver load 10:05:51 is in another clock, zone unknown
  Files f = reboot_bundle("Mar  5", "3736536.386231", "3736619.927899");
  SECTION("no npu-smi, boot after the install in the install log's clock: quiet") {
    const fs::path b = dir.path() / "local";
    write_files(b, f);
    Analysed a(dir, b, "local");
    CHECK(a.one("SELECT value FROM facts WHERE name='host.boot_time_local'") ==
          "2025-01-20 18:05:32");
    // the install history replayed up to that boot: the driver the modules came from
    CHECK(a.one("SELECT value FROM facts WHERE name='driver.version.at_load'") == "24.1.0");
    CHECK(a.one("SELECT count(*) FROM findings WHERE finding='driver.reboot_pending'") == "0");
    CHECK(a.one("SELECT count(*) FROM warnings WHERE message LIKE '[not concluded]%'") == "0");
  }
  SECTION("no npu-smi, only a UTC boot and no zone: not concluded, said so") {
    f.erase("svc/asys_output_20250305171502113/dfx/log/host/message/syslog");
    const fs::path b = dir.path() / "unknown";
    write_files(b, f);
    Analysed a(dir, b, "unknown");
    CHECK(a.one("SELECT count(*) FROM facts WHERE name='driver.version.at_load'") == "0");
    CHECK(a.one("SELECT count(*) FROM findings WHERE finding='driver.reboot_pending'") == "0");
    const std::string w =
        a.one("SELECT message FROM warnings WHERE message LIKE '[not concluded]%reboot_pending%'");
    CHECK(w.find("driver.version.loaded") != std::string::npos);
    CHECK(w.find("looked for and not found") != std::string::npos);
  }
  SECTION("loaded == installed: contradicted, quiet") {
    const fs::path b = dir.path() / "same";
    f["svc/extra/npu-smi-info.txt"] = npu_smi("24.1.0");
    write_files(b, f);
    Analysed a(dir, b, "same");
    CHECK(a.one("SELECT count(*) FROM findings WHERE finding='driver.reboot_pending'") == "0");
    CHECK(a.one("SELECT count(*) FROM warnings WHERE message LIKE '[not concluded]%'") == "0");
  }
  SECTION("loaded != installed fires; the install is not called 'after the boot'") {
    const fs::path b = dir.path() / "differ";
    f["svc/extra/npu-smi-info.txt"] = npu_smi("24.1.rc3");
    write_files(b, f);
    Analysed a(dir, b, "differ");
    const std::string summary =
        a.one("SELECT summary FROM findings WHERE finding='driver.reboot_pending'");
    REQUIRE(!summary.empty());
    CHECK(summary.find("shows no driver change after the last boot") != std::string::npos);
  }
  SECTION("a boot before the install in the same clock: the change after the boot is cited") {
    // boot (host-local) = Mar 5 00:01:09 - 4600000 s = 2025-01-11 06:14:29
    Files g = reboot_bundle("Mar  5", "4600000.386231", "4600083.927899");
    g["svc/asys_output_20250305171502113/dfx/log/host/driver/host_kernel.log"] = {
        "[2025-01-10-22:14:51.852413] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
        "<systemd-udevd:1032:1032> Insmod host driver. (type=\"normal\", product=\"dc\", "
        "driver_name=\"devdrv_device_driver\")"};
    g["svc/extra/npu-smi-info.txt"] = npu_smi("24.1.rc3");
    const fs::path b = dir.path() / "before";
    write_files(b, g);
    Analysed a(dir, b, "before");
    const std::string summary =
        a.one("SELECT summary FROM findings WHERE finding='driver.reboot_pending'");
    CHECK(summary.find("at 2025-01-20 17:24:41, after the last boot") != std::string::npos);
  }
}

TEST_CASE("zones per time range: a zone set after the install leaves the install's zone unknown",
          "[clock][zones][reboot_pending]") {
  test::TempDir dir("faultline-zones");
  // the graded inference node without its syslog kernel lines: the boot is only the UTC driver
  // load (2025-01-20 10:05:51 UTC); the install log is host-local (17:24:41); timedatectl states
  // CST at collection
  Files f = reboot_bundle("Mar  5", "3736536.386231", "3736619.927899");
  const std::string top = "svc/asys_output_20250305171502113/dfx/log/host/";
  f.erase(top + "message/syslog");
  f["svc/extra/timedatectl.txt"] = {"               Local time: Wed 2025-03-05 17:15:02 CST",
                                    "           Universal time: Wed 2025-03-05 09:15:02 UTC",
                                    "                 RTC time: Wed 2025-03-05 09:15:02",
                                    "                Time zone: Asia/Shanghai (CST, +0800)",
                                    "System clock synchronized: yes",
                                    "              NTP service: active",
                                    "          RTC in local TZ: no"};
  f["svc/extra/npu-smi-info.txt"] = npu_smi("24.1.rc3");
  SECTION("one zone: the install (09:24:41 UTC) is before the UTC boot, pinned: quiet") {
    const fs::path b = dir.path() / "one";
    write_files(b, f);
    Analysed a(dir, b, "one");
    CHECK(a.one("SELECT count(*) FROM clocks WHERE clock='host_local_span'") == "0");
    CHECK(a.one("SELECT time_quality FROM events e JOIN members m ON m.id=e.member_id WHERE "
                "m.kind='install_log' AND e.text LIKE '%Start time: 2025-01-20 17:24:41%'") ==
          "local");
    // the UTC boot is pinned after the install (CST): the driver the modules came from is known
    CHECK(a.one("SELECT value FROM facts WHERE name='driver.version.at_load'") == "24.1.0");
    CHECK(a.one("SELECT summary FROM findings WHERE finding='driver.reboot_pending'")
              .find("shows no driver change after the last boot") != std::string::npos);
  }
  SECTION("the zone set on Feb 1 (systemd-timedated): before it the zone is not shown") {
    f[top + "message/syslog"] = {
        "Feb  1 09:00:00 infer-a2-0109 systemd-timedated[812]: Changed time zone to "
        "'Asia/Shanghai' (CST).",
        "Mar  5 16:40:12 infer-a2-0109 systemd[1]: Started Session 4 of user root."};
    const fs::path b = dir.path() / "changed";
    write_files(b, f);
    Analysed a(dir, b, "changed");
    CHECK(a.col("SELECT COALESCE(offset_ns, 'null') || ' ' || method FROM clocks WHERE "
                "clock='host_local_span' ORDER BY id") ==
          std::vector<std::string>{"null unknown", "-28800000000000 zone-stated"});
    // the install, written before the change: as printed, not pinned
    CHECK(a.one("SELECT time_quality FROM events e JOIN members m ON m.id=e.member_id WHERE "
                "m.kind='install_log' AND e.text LIKE '%Start time: 2025-01-20 17:24:41%'") ==
          "assumed_utc");
    // the toolkit upgrade after it: CST
    CHECK(a.one("SELECT time_quality || ' ' || time_ns FROM events e JOIN members m ON "
                "m.id=e.member_id WHERE m.kind='install_log' AND e.text LIKE '%Start Time: "
                "2025-03-05 16:40:12%'") ==
          "local " + std::to_string(faultline::civil_to_ns(2025, 3, 5, 8, 40, 12, 0)));
    // the UTC boot no longer contradicts the install (nor dates the driver at load); the verdict
    // says the order it rests on is not pinned
    CHECK(a.one("SELECT count(*) FROM facts WHERE name='driver.version.at_load'") == "0");
    const std::string notes = a.one(
        "SELECT group_concat(summary || ' ' || missing, ' | ') FROM findings "
        "WHERE finding='driver.reboot_pending'");
    CHECK(notes.find("counter-evidence") == std::string::npos);
    // the install-after-boot order it rests on is said to be unpinned
    CHECK(notes.find("does not show the zone in force") != std::string::npos);
  }
}

TEST_CASE(
    "host split: numbered collections of one host (run1/ run2/, collection-1/ "
    "collection-2/) are one host",
    "[hosts][split]") {
  test::TempDir dir("faultline-hosts");
  SECTION("same hostname file and syslog host field") {
    const fs::path b = dir.path() / "runs";
    Files f = merge(node_folder("case/run1", "a2-n07", "Asia/Shanghai (CST, +0800)"),
                    node_folder("case/run2", "a2-n07", "Asia/Shanghai (CST, +0800)"));
    f["case/run1/hostname"] = {"a2-n07"};
    f["case/run2/hostname"] = {"a2-n07"};
    write_files(b, f);
    Analysed a(dir, b, "runs");
    CHECK(a.col("SELECT name FROM hosts") == std::vector<std::string>{"a2-n07"});
    CHECK(a.one("SELECT count(DISTINCT host) FROM members") == "1");
    CHECK(a.one("SELECT count(*) FROM clocks WHERE clock='host_local'") == "1");
  }
  SECTION("uname -n in each collection; another node beside them stays apart") {
    const fs::path b = dir.path() / "collections";
    Files f = merge(node_folder("t/collection-1", "gpu-a1", "Asia/Shanghai (CST, +0800)"),
                    node_folder("t/collection-2", "gpu-a1", "Asia/Shanghai (CST, +0800)"));
    f = merge(f, node_folder("t/collection-3", "gpu-b7", "Asia/Shanghai (CST, +0800)"));
    f["t/collection-1/uname-n.txt"] = {"gpu-a1"};
    f["t/collection-2/uname-n.txt"] = {"gpu-a1"};
    write_files(b, f);
    Analysed a(dir, b, "collections");
    CHECK(a.col("SELECT name FROM hosts ORDER BY name") ==
          std::vector<std::string>{"gpu-a1", "gpu-b7"});
  }
}

TEST_CASE("history: error lines before the last boot are no fault events of the incident",
          "[clock][history]") {
  test::TempDir dir("faultline-history");
  // a node's plog of a run on May 8 09:56 (host-local, CST by timedatectl), the node rebooted on
  // May 9 (/proc/stat btime, UTC) and ran quietly since
  Files f = node_folder("n07", "a2-n07", "Asia/Shanghai (CST, +0800)");
  f["n07/process_log/run/plog/plog-155320_20250508095618000.log"] = {
      "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.522.534 [stars_engine.cc:1553]155320 "
      "ProcLogicCqReport:[INIT][DEFAULT]Task run failed, device_id=0, stream_id=2, task_id=1, "
      "sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0"};
  // 2025-05-09 02:00:00 UTC
  f["n07/extra/proc_stat.txt"] = {
      "btime " + std::to_string(faultline::civil_to_ns(2025, 5, 9, 2, 0, 0, 0) / 1'000'000'000)};
  SECTION("before the boot: history") {
    const fs::path b = dir.path() / "before";
    write_files(b, f);
    Analysed a(dir, b, "before");
    CHECK(a.one("SELECT count(*) FROM findings WHERE kind='fault'") == "0");
    CHECK(a.one("SELECT count(*) FROM facts WHERE name='run.restart' AND value LIKE "
                "'%host.last_boot%'") == "1");
    const std::string w = a.one("SELECT message FROM warnings WHERE message LIKE '[history]%'");
    CHECK(w.find("a2-n07: 1 error line(s)") != std::string::npos);
    CHECK(w.find("before its last boot") != std::string::npos);
  }
  SECTION("the same lines after the boot: the incident") {
    f["n07/extra/proc_stat.txt"] = {
        "btime " + std::to_string(faultline::civil_to_ns(2025, 5, 7, 2, 0, 0, 0) / 1'000'000'000)};
    const fs::path b = dir.path() / "after";
    write_files(b, f);
    Analysed a(dir, b, "after");
    CHECK(a.one("SELECT count(*) FROM findings WHERE kind='fault'") != "0");
    CHECK(a.one("SELECT count(*) FROM warnings WHERE message LIKE '[history]%'") == "0");
  }
}
