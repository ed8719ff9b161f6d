// End to end: the real asys bundle through the whole pipeline, answered with SQL alone; the CLI's
// exit codes; a run killed in the middle stays visibly incomplete.
#include <pty.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "common/sql.hpp"
#include "common/temp_dir.hpp"
#include "faultline/app/app.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/parse/composite.hpp"

using namespace faultline;
namespace fs = std::filesystem;

namespace {

fs::path temp_path(const std::string& name) {
  const fs::path p = test::process_temp_root("faultline-app") / name;
  std::error_code ec;
  fs::remove_all(p, ec);
  for (const char* s : {"-wal", "-shm"}) fs::remove(p.string() + s, ec);
  return p;
}

using test::scalar;

int run(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

app::Options quiet_options() {
  app::Options o;
  o.cache_dir = temp_path("cache");
  return o;
}

}  // namespace

TEST_CASE("the real asys bundle answers boot time, versions and errors with SQL alone") {
  const fs::path bundle = fs::path(FAULTLINE_CORPUS_DIR) / "asys-aicerror";
  if (!fs::exists(bundle)) {
    WARN("corpus not present");
    return;
  }
  const auto dbp = temp_path("asys.db");
  auto db = store::Db::open(dbp);
  const auto out = app::analyze(*db, bundle, quiet_options());
  REQUIRE(out.exit_code == 0);
  sqlite3* h = db->handle();
  CHECK(scalar(h, "SELECT status FROM bundles") == "complete");
  CHECK(std::stoi(scalar(h, "SELECT count(*) FROM members")) >= 28);
  // one host, named by its syslog
  CHECK(scalar(h, "SELECT group_concat(name) FROM hosts") == "ubuntu78");
  // host boot fitted from syslog kernel lines (log-formats.md §10.2: ~2025-05-07 19:53:56 UTC)
  const std::string boot = scalar(h, "SELECT offset_ns FROM clocks WHERE clock='uptime'");
  REQUIRE_FALSE(boot.empty());
  const double boot_s = std::stod(boot) / 1e9;
  CHECK(boot_s == Approx(1746647636.0).margin(5));
  // device syslog `messages` is UTC+8 relative to the device slog
  CHECK(scalar(h, "SELECT offset_ns FROM clocks WHERE clock='device_syslog'") == "-28800000000000");
  // parse coverage: at least 99% of the lines of known kinds are understood
  const double bad = std::stod(scalar(h,
                                      "SELECT 1.0*sum(malformed_lines)/max(sum(lines),1) FROM "
                                      "members WHERE kind NOT IN ('text','binary')"));
  CHECK(bad <= 0.01);
  // errors in time order across host and device, with UTC times
  CHECK(std::stoi(scalar(
            h, "SELECT count(*) FROM events WHERE sev_rank >= 4 AND time_ns IS NOT NULL")) > 100);
  const std::string kinds = scalar(h,
                                   "SELECT group_concat(DISTINCT m.kind) FROM events e JOIN "
                                   "members m ON m.id=e.member_id WHERE e.sev_rank>=4");
  CHECK(kinds.find("plog") != std::string::npos);
  CHECK(kinds.find("device_fw_log") != std::string::npos);
  // the AI Core exception of the real bundle is tagged with its device, stream and task
  const std::string caps =
      scalar(h,
             "SELECT h.captures FROM hits h JOIN events e ON e.id=h.event_id WHERE e.text LIKE "
             "'%Task run failed, device_id=0, stream_id=2, task_id=1%' LIMIT 1");
  CHECK(caps.find("\"stream_id\":\"2\"") != std::string::npos);
  CHECK(caps.find("\"task_id\":\"1\"") != std::string::npos);
  // installed CANN / driver versions stated by the install log
  CHECK(std::stoi(scalar(h, "SELECT count(*) FROM facts WHERE name='install.event'")) > 10);
  // the install history replayed (578 install events, 2025-03-29 .. 2025-05-08): the driver and
  // firmware installed now are the last runs, 2025-05-07 18:45, each citing its session line
  CHECK(
      scalar(h,
             "SELECT group_concat(f.value || '@' || m.path || ':' || f.line) FROM facts f JOIN "
             "members m ON m.id=f.member_id WHERE f.name='driver.version.installed'") ==
      "7.8.t5.0.b028@asys_output_20250508095626087/dfx/log/host/install/ascend_install.log:51856");
  CHECK(
      scalar(h, "SELECT group_concat(value) FROM facts WHERE name='firmware.version.installed'") ==
      "7.8.t5.0.b028");
  CHECK(scalar(h, "SELECT count(*) FROM facts WHERE name='install.installed.driver'") == "1");
  // boot from host_kernel.log: `Insmod host driver` by systemd-udevd, 2025-05-07 19:54:27 UTC
  CHECK(scalar(h,
               "SELECT group_concat(f.value || ':' || f.line) FROM facts f JOIN members m ON "
               "m.id=f.member_id WHERE f.name='host.boot_time' AND m.kind='host_kernel_log'") ==
        "1746647667:3");
  // the boot (19:54 UTC) follows the last driver change (18:45 host-local, UTC here): nothing
  // is pending
  CHECK(scalar(h, "SELECT count(*) FROM findings WHERE finding='driver.reboot_pending'") == "0");
  // the job failed on an operator's own assertion (GatherV3 index out of range): that is the root
  // cause, it explains the device task exception, and the first fault event listed is one it
  // cites (not a DMS alarm of the vNPU creation hours earlier)
  CHECK(scalar(h, "SELECT finding FROM findings WHERE rank = 1") == "operator.kernel_assert");
  CHECK(scalar(h, "SELECT explained_by FROM findings WHERE finding='device.task_exception'") ==
        "operator.kernel_assert");
  const std::string first_fault =
      scalar(h, "SELECT fault FROM findings WHERE kind='fault' ORDER BY rank LIMIT 1");
  CHECK(first_fault.find("operator.kernel_assert") != std::string::npos);
  // the install log's failed runs (vermagic, kernel mismatch, firmware pre-check, missing PCIe
  // device) were each followed by a completed run of the same package: history, not faults
  CHECK(scalar(h, "SELECT count(*) FROM findings WHERE finding LIKE 'fault.install.%'") == "0");

  // analysing it again replaces the rows instead of adding to them
  const std::string events_before = scalar(h, "SELECT count(*) FROM events");
  const auto again = app::analyze(*db, bundle, quiet_options());
  REQUIRE(again.exit_code == 0);
  CHECK(scalar(h, "SELECT count(*) FROM bundles") == "1");
  CHECK(scalar(h, "SELECT count(*) FROM events") == events_before);
}

TEST_CASE("the CLI's exit codes") {
  const std::string bin = FAULTLINE_BINARY;
  const auto dir = temp_path("cli");
  fs::create_directories(dir);
  // 3: not an archive, not text
  {
    std::ofstream f(dir / "garbage.bin", std::ios::binary);
    for (int i = 0; i < 4096; ++i) f.put(static_cast<char>((i * 7919) % 251));
  }
  CHECK(run(bin + " analyze -q " + (dir / "garbage.bin").string() + " >/dev/null 2>&1") == 3);
  CHECK(run(bin + " analyze -q " + (dir / "missing.tar").string() + " >/dev/null 2>&1") == 3);
  // 2: usage errors
  CHECK(run(bin + " analyze >/dev/null 2>&1") == 2);
  CHECK(run(bin + " analyze --format pdf " + dir.string() + " >/dev/null 2>&1") == 2);
  CHECK(run(bin + " nonsense >/dev/null 2>&1") == 2);
  // 0: a plain text log is a one-member bundle
  {
    std::ofstream f(dir / "syslog");
    f << "May  8 02:28:01 ubuntu78 kernel: [23645.213796] devdrv_device_driver 0000:03:00.4: "
         "enabling device (0000 -> 0002)\n";
  }
  CHECK(run(bin + " analyze -q " + (dir / "syslog").string() + " --db " + (dir / "s.db").string() +
            " >/dev/null 2>&1") == 0);
  // report renders from the database alone, the same bytes as analyze
  CHECK(run(bin + " analyze -q " + (dir / "syslog").string() + " --format json --db " +
            (dir / "s.db").string() + " > " + (dir / "a.json").string() + " 2>/dev/null") == 0);
  CHECK(run(bin + " report --db " + (dir / "s.db").string() + " --format json > " +
            (dir / "r.json").string() + " 2>/dev/null") == 0);
  CHECK(run("cmp -s " + (dir / "a.json").string() + " " + (dir / "r.json").string()) == 0);
}

namespace {

// `faultline analyze BUNDLE --db DB` in a child whose stderr is a terminal (so that it prints
// progress), killed with SIGKILL as soon as the first progress line shows that members are being
// read: a kill point in the middle of the load that does not depend on timing. Returns the
// child's wait status.
int kill_during_ingest(const std::string& bin, const fs::path& bundle, const fs::path& db) {
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execl(bin.c_str(), bin.c_str(), "analyze", bundle.c_str(), "--db", db.c_str(), "--no-cache",
            "-o", "/dev/null", static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string seen;
  char buf[512];
  bool progress = false;
  for (ssize_t n; !progress && (n = ::read(master, buf, sizeof buf)) > 0;) {
    seen.append(buf, static_cast<size_t>(n));
    // "... (27%), 1 file" / "N files, ...": the line is drawn from the first member on
    progress = seen.find(" file") != std::string::npos;
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  INFO("child output: " << seen);
  REQUIRE(progress);
  return status;
}

// Same, without a terminal, killed once the load is committed and the bundle row is visible as
// 'running' (clocks and correlation still to do). False when the analysis ended before the row
// could be seen (nothing to check then).
bool kill_after_load(const std::string& bin, const fs::path& bundle, const fs::path& db) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execl(bin.c_str(), bin.c_str(), "analyze", "-q", bundle.c_str(), "--db", db.c_str(),
            "--no-cache", "-o", "/dev/null", static_cast<char*>(nullptr));
    _exit(127);
  }
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_busy_timeout(h, 1000);
  bool seen = false;
  int status = 0;
  while (!seen && ::waitpid(pid, &status, WNOHANG) == 0) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(h, "SELECT count(*) FROM bundles WHERE status='running'", -1, &s,
                           nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
      seen = sqlite3_column_int(s, 0) > 0;
    sqlite3_finalize(s);
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  sqlite3_close(h);
  if (seen) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  return seen && WIFSIGNALED(status);
}

std::vector<int64_t> complete_bundles(const fs::path& db) {
  auto store = store::Db::open(db);
  return store::bundle_ids(store->handle(), false);
}

std::string integrity(const fs::path& db) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  const std::string r = scalar(h, "PRAGMA integrity_check");
  sqlite3_close(h);
  return r;
}

}  // namespace

TEST_CASE("a run killed in the middle is never reported as complete, and the database recovers") {
  const std::string bin = FAULTLINE_BINARY;
  const auto dir = temp_path("kill");
  fs::create_directories(dir / "big");
  // 40 members of ~0.5 MB of real-format plog lines: the load reads them one after another
  const std::string line =
      "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.522.534 [stars_engine.cc:1553]155320 "
      "ProcLogicCqReport:[INIT][DEFAULT]Task run failed, device_id=0, stream_id=2, task_id=1, "
      "sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0\n";
  for (int m = 0; m < 40; ++m) {
    std::ofstream f(dir / "big" /
                    ("plog-1553" + std::to_string(10 + m) + "_20250508095618528.log"));
    for (int i = 0; i < 2500; ++i) f << line;
  }
  {
    std::ofstream f(dir / "syslog");
    f << "May  8 02:28:01 ubuntu78 kernel: [23645.213796] devdrv_device_driver 0000:03:00.4: "
         "enabling device (0000 -> 0002)\n";
  }
  const auto db = dir / "k.db";

  // 1. killed while reading members, into a new database: nothing complete, the report refuses
  const int status = kill_during_ingest(bin, dir / "big", db);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  CHECK(integrity(db) == "ok");
  CHECK(complete_bundles(db).empty());
  CHECK(run(bin + " report --db " + db.string() + " >/dev/null 2>&1") == 3);

  // 2. an earlier complete analysis survives a later run killed in the middle of its load
  REQUIRE(run(bin + " analyze -q " + (dir / "syslog").string() + " --db " + db.string() +
              " -o /dev/null 2>/dev/null") == 0);
  const auto before = complete_bundles(db);
  REQUIRE(before.size() == 1);
  REQUIRE(WIFSIGNALED(kill_during_ingest(bin, dir / "big", db)));
  CHECK(integrity(db) == "ok");
  CHECK(complete_bundles(db) == before);
  CHECK(run(bin + " report --db " + db.string() + " >/dev/null 2>&1") == 0);

  // 3. killed after the load was committed (clocks and correlation not done): the row stays
  //    visibly 'running', never complete
  if (kill_after_load(bin, dir / "big", db)) {
    CHECK(integrity(db) == "ok");
    CHECK(complete_bundles(db) == before);
    auto store = store::Db::open(db);
    CHECK(store::bundle_ids(store->handle(), true).size() == 2);
  } else {
    WARN("the analysis finished before its 'running' row was seen; kill point 3 not checked");
  }

  // 4. the same analysis run again to its end replaces the killed one
  REQUIRE(run(bin + " analyze -q " + (dir / "big").string() + " --db " + db.string() +
              " -o /dev/null 2>/dev/null") == 0);
  CHECK(integrity(db) == "ok");
  CHECK(complete_bundles(db).size() == 2);
  {
    auto store = store::Db::open(db);
    CHECK(store::bundle_ids(store->handle(), true).size() == 2);  // no stale 'running' row left
  }
  fs::remove_all(dir);
}

TEST_CASE("composite: each command of a pasted shell session is a section") {
  using parse::CompositeParser;
  // RHEL / openEuler / EulerOS prompts (seed 000 hosts), as pasted by the engineer
  CHECK(CompositeParser::banner_title("[root@a2pod-n042 ~]# npu-smi info", false) ==
        "npu-smi info");
  CHECK(CompositeParser::banner_title("[root@ai-train-03 ~]# modprobe -n -v drv_pcie_host",
                                      false) == "modprobe -n -v drv_pcie_host");
  CHECK(CompositeParser::banner_title("[hpc@login01 work]$ pip list", false) == "pip list");
  // Debian / Ubuntu prompt, as before
  CHECK(CompositeParser::banner_title("root@ai-train-03:~# uname -r", false) == "uname -r");
  // not prompts: an npu-smi row, a c10 warning prefix, a launcher prefix, a bare bracket
  CHECK(
      CompositeParser::banner_title("| 0     910B3               | OK            | 92.0   |", false)
          .empty());
  CHECK(CompositeParser::banner_title(
            "[W304 10:02:09.118302114 compiler_depend.ts:137] Warning: x # y", false)
            .empty());
  CHECK(CompositeParser::banner_title("[default0]:[ERROR] 2026-03-04-10:17:11 (PID:30917)", false)
            .empty());
  CHECK(CompositeParser::banner_title("[root@a2pod-n042 ~]#", false).empty());
  // the section of `cat <file>` is read as that file
  CHECK(CompositeParser::section_path("s", "cat /usr/local/Ascend/driver/version.info") ==
        "usr/local/Ascend/driver/version.info");
}

namespace {

struct Collect final : parse::Sink {
  std::vector<Fact> facts;
  std::vector<std::string> events;
  void event(const Event& e) override { events.emplace_back(e.message); }
  void fact(const Fact& f) override { facts.push_back(f); }
  [[nodiscard]] std::string value(const std::string& name) const {
    for (const auto& f : facts)
      if (f.name == name) return f.value;
    return "<none>";
  }
  [[nodiscard]] uint32_t line_of(const std::string& name) const {
    for (const auto& f : facts)
      if (f.name == name) return f.line;
    return 0;
  }
};

Collect run_composite(const std::string& path, const std::string& text) {
  static const classify::Classifier cls(rules_under(embedded_rules(), "classify/"));
  parse::CompositeParser p(cls, path);
  Collect c;
  uint32_t n = 0;
  uint64_t off = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    p.line(std::string_view(text).substr(start, end - start), parse::LineCtx{++n, off}, c);
    off += end - start + 1;
    start = end + 1;
  }
  p.finish(c);
  return c;
}

}  // namespace

TEST_CASE("composite: `ls -l DIR` at a prompt names its entries under DIR") {
  // seed 002 after the reboot: the old symlinks under updates/dkms/, the new files in updates/
  const std::string s =
      "[root@ai-train-03 ~]# uname -r\n"
      "5.15.0-131-generic\n"
      "[root@ai-train-03 ~]# ls -l /lib/modules/$(uname -r)/updates/dkms/\n"
      "total 0\n"
      "lrwxrwxrwx 1 root root 40 Nov  4 16:12 drv_pcie_host.ko -> "
      "/opt/hdk-25.2.0/driver/kernel/drv_pcie_host.ko\n"
      "[root@ai-train-03 ~]# ls -l /lib/modules/5.15.0-131-generic/updates/\n"
      "total 9120\n"
      "drwxr-xr-x 2 root root    4096 Nov  4 16:12 dkms\n"
      "-rw-r--r-- 1 root root  812344 Mar  2 11:20 drv_pcie_host.ko\n";
  const auto c = run_composite("ai-train-03_diag/session_20260305.txt", s);
  CHECK(c.value("fs./lib/modules/5.15.0-131-generic/updates/dkms/drv_pcie_host.ko") ==
        "symlink:/opt/hdk-25.2.0/driver/kernel/drv_pcie_host.ko");
  CHECK(c.line_of("fs./lib/modules/5.15.0-131-generic/updates/dkms/drv_pcie_host.ko") == 5);
  CHECK(c.value("fs./lib/modules/5.15.0-131-generic/updates/drv_pcie_host.ko") == "file");
  CHECK(c.value("fs./lib/modules/5.15.0-131-generic/updates/dkms") == "dir");
  CHECK(c.value("fs.drv_pcie_host.ko") == "<none>");
  CHECK(c.value("kernel.release") == "5.15.0-131-generic");
  // uname -a names the release too
  const auto a = run_composite(
      "s.txt",
      "[root@ai-train-03 ~]# uname -a\n"
      "Linux ai-train-03 5.15.0-131-generic #141-Ubuntu SMP Wed Jan 15 10:11:12 UTC 2026 aarch64 "
      "aarch64 aarch64 GNU/Linux\n"
      "[root@ai-train-03 ~]# ls -l /lib/modules/`uname -r`/updates/dkms\n"
      "lrwxrwxrwx 1 root root 40 Nov  4 16:12 drv_pcie_host.ko -> "
      "/opt/hdk-25.2.0/driver/kernel/drv_pcie_host.ko\n");
  CHECK(a.value("fs./lib/modules/5.15.0-131-generic/updates/dkms/drv_pcie_host.ko") ==
        "symlink:/opt/hdk-25.2.0/driver/kernel/drv_pcie_host.ko");
  // no release printed before: relative names (as before), never a literal `$(uname -r)`
  const auto n = run_composite("s.txt",
                               "[root@ai-train-03 ~]# ls -l /lib/modules/$(uname -r)/updates/dkms\n"
                               "lrwxrwxrwx 1 root root 40 Nov  4 16:12 drv_pcie_host.ko -> "
                               "/opt/hdk-25.2.0/driver/kernel/drv_pcie_host.ko\n");
  CHECK(n.value("fs.drv_pcie_host.ko") == "symlink:/opt/hdk-25.2.0/driver/kernel/drv_pcie_host.ko");
  for (const auto& f : n.facts) CHECK(f.name.find("$(") == std::string::npos);
}

TEST_CASE("composite: `ls -la` after `cd DIR` lists DIR") {
  const auto c =
      run_composite("s.txt",
                    "[root@ai-train-03 ~]# cd /lib/modules/5.15.0-131-generic/updates/dkms\n"
                    "[root@ai-train-03 dkms]# ls -la\n"
                    "total 8\n"
                    "drwxr-xr-x 2 root root 4096 Nov  4 16:12 .\n"
                    "lrwxrwxrwx 1 root root 40 Nov  4 16:12 asdrv_dms.ko -> "
                    "/opt/hdk-25.2.0/driver/kernel/asdrv_dms.ko\n"
                    "[root@ai-train-03 dkms]# cd ..\n"
                    "[root@ai-train-03 updates]# ll | grep asdrv\n"
                    "-rw-r--r-- 1 root root  813344 Mar  2 11:20 asdrv_dms.ko\n"
                    "[root@ai-train-03 updates]# cd\n"
                    "[root@ai-train-03 ~]# ls -l\n"
                    "-rw-r--r-- 1 root root  1024 Mar  2 11:20 probe.py\n");
  CHECK(c.value("fs./lib/modules/5.15.0-131-generic/updates/dkms/asdrv_dms.ko") ==
        "symlink:/opt/hdk-25.2.0/driver/kernel/asdrv_dms.ko");
  CHECK(c.value("fs./lib/modules/5.15.0-131-generic/updates/asdrv_dms.ko") == "file");
  CHECK(c.value("fs.probe.py") == "file");  // home: not printed, left relative
}

TEST_CASE("composite: probe runs at a prompt are probe outputs, `echo $?` is their status") {
  // seed 002 section 4: each probe in its own process under `timeout 60s`, output and exit status
  const std::string s =
      "[root@ai-train-03 ~]# timeout 60s python3 probe.py matmul\n"
      "256.0\n"
      "[root@ai-train-03 ~]# echo $?\n"
      "0\n"
      "[root@ai-train-03 ~]# timeout 60s python3 probe.py rng\n"
      "[root@ai-train-03 ~]# echo $?\n"
      "124\n"
      "[root@ai-train-03 ~]# uname -r\n"
      "5.15.0-131-generic\n";
  const auto c = run_composite("ai-train-03_diag/session_20260305.txt", s);
  CHECK(c.value("probe.matmul.result") == "pass");
  CHECK(c.value("probe.rng.result") == "timeout");
  CHECK(c.line_of("probe.rng.result") == 5);
  CHECK(c.value("kernel.release") == "5.15.0-131-generic");
  // a probe whose output shows the failure, status on the same line as the command
  const auto d = run_composite(
      "diag/session.txt",
      "root@ai-train-03:~# timeout 60s python3 probe.py rng; echo exit=$?\n"
      "RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:212 NPU "
      "function error: aclrtSynchronizeEvent(event_), error code is 107020\n"
      "exit=1\n");
  CHECK(d.value("probe.rng.result") == "fail");
}

TEST_CASE("a UTF-16LE log with a byte order mark is classified, parsed and tagged (issue 18)") {
  // What PowerShell 5's `>` / Out-File writes on Windows: UTF-16LE with a BOM and CRLF lines.
  // The lines: the seed 000 incident (Svm map va not fixed) and real syslog lines
  // (corpus/real asys-aicerror host syslog).
  const std::string train =
      "Svm map va not fixed, vm_start=0x100000000000, vm_end=0x200000000000\r\n"
      "Host mem gotgo malloc, errstr=Invalid argument\r\n";
  const std::string syslog =
      "May  8 00:00:01 ubuntu78 systemd[1]: logrotate.service: Succeeded.\r\n"
      "May  8 02:28:01 ubuntu78 kernel: [23645.213483] pci 0000:03:00.4: [19e5:d802] type 00 "
      "class 0x120000\r\n";
  auto utf16le = [](const std::string& ascii) {
    std::string out("\xFF\xFE", 2);
    for (const char c : ascii) {
      out += c;
      out += '\0';
    }
    return out;
  };
  const fs::path bundle = temp_path("utf16");
  fs::create_directories(bundle / "node01/var/log");
  std::ofstream(bundle / "node01/var/log/syslog", std::ios::binary) << utf16le(syslog);
  std::ofstream(bundle / "node01/train.log", std::ios::binary) << utf16le(train);
  const auto dbp = temp_path("utf16.db");
  {
    auto db = store::Db::open(dbp);
    REQUIRE(app::analyze(*db, bundle, quiet_options()).exit_code == 0);
    sqlite3* h = db->handle();
    CHECK(scalar(h, "SELECT kind FROM members WHERE path LIKE '%syslog'") == "syslog");
    CHECK(scalar(h, "SELECT parsed_lines FROM members WHERE path LIKE '%syslog'") == "2");
    CHECK(scalar(h, "SELECT group_concat(name) FROM hosts") == "ubuntu78");
    // as the same lines in UTF-8 are read
    CHECK(scalar(h, "SELECT kind FROM members WHERE path LIKE '%train.log'") == "train_log");
    CHECK(scalar(h, "SELECT count(*) FROM hits WHERE signature='svm.host_mem_malloc_invalid'") ==
          "1");
    CHECK(scalar(h, "SELECT count(*) FROM warnings WHERE message LIKE '[utf-16]%UTF-16LE%'") ==
          "2");
  }
  fs::remove_all(bundle);
  fs::remove(dbp);
}
