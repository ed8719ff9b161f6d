// End to end: the real asys bundle through the whole pipeline, answered with SQL alone; the CLI's
// exit codes; a run killed in the middle stays visibly incomplete.
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

#include "faultline/app/app.hpp"

using namespace faultline;
namespace fs = std::filesystem;

namespace {

fs::path temp_path(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("faultline-app-" + std::to_string(::getpid()) + "-" + name);
  std::error_code ec;
  fs::remove_all(p, ec);
  for (const char* s : {"-wal", "-shm"}) fs::remove(p.string() + s, ec);
  return p;
}

std::string scalar(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  std::string v;
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
    v = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  return v;
}

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
  const double bad = std::stod(scalar(h, "SELECT 1.0*sum(malformed_lines)/max(sum(lines),1) FROM members WHERE kind NOT IN ('text','binary')"));
  CHECK(bad <= 0.01);
  // errors in time order across host and device, with UTC times
  CHECK(std::stoi(scalar(h, "SELECT count(*) FROM events WHERE sev_rank >= 4 AND time_ns IS NOT NULL")) > 100);
  const std::string kinds = scalar(h,
      "SELECT group_concat(DISTINCT m.kind) FROM events e JOIN members m ON m.id=e.member_id WHERE e.sev_rank>=4");
  CHECK(kinds.find("plog") != std::string::npos);
  CHECK(kinds.find("device_fw_log") != std::string::npos);
  // the AI Core exception of the real bundle is tagged with its device, stream and task
  const std::string caps = scalar(h,
      "SELECT h.captures FROM hits h JOIN events e ON e.id=h.event_id WHERE e.text LIKE '%Task run failed, device_id=0, stream_id=2, task_id=1%' LIMIT 1");
  CHECK(caps.find("\"stream_id\":\"2\"") != std::string::npos);
  CHECK(caps.find("\"task_id\":\"1\"") != std::string::npos);
  // installed CANN / driver versions stated by the install log
  CHECK(std::stoi(scalar(h, "SELECT count(*) FROM facts WHERE name='install.event'")) > 10);

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
    f << "May  8 02:28:01 ubuntu78 kernel: [23645.213796] devdrv_device_driver 0000:03:00.4: enabling device (0000 -> 0002)\n";
  }
  CHECK(run(bin + " analyze -q " + (dir / "syslog").string() + " --db " + (dir / "s.db").string() + " >/dev/null 2>&1") == 0);
  // report renders from the database alone, the same bytes as analyze
  CHECK(run(bin + " analyze -q " + (dir / "syslog").string() + " --format json --db " + (dir / "s.db").string() + " > " + (dir / "a.json").string() + " 2>/dev/null") == 0);
  CHECK(run(bin + " report --db " + (dir / "s.db").string() + " --format json > " + (dir / "r.json").string() + " 2>/dev/null") == 0);
  CHECK(run("cmp -s " + (dir / "a.json").string() + " " + (dir / "r.json").string()) == 0);
}

TEST_CASE("a run killed in the middle is never reported as complete") {
  const std::string bin = FAULTLINE_BINARY;
  const auto dir = temp_path("kill");
  fs::create_directories(dir / "bundle");
  // ~150 MB of real-format plog lines, enough for the analysis to take a while
  {
    std::ofstream f(dir / "bundle" / "plog-155320_20250508095618528.log");
    const std::string line =
        "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.522.534 [stars_engine.cc:1553]155320 "
        "ProcLogicCqReport:[INIT][DEFAULT]Task run failed, device_id=0, stream_id=2, task_id=1, "
        "sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0\n";
    for (int i = 0; i < 700000; ++i) f << line;
  }
  const auto db = dir / "k.db";
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execl(bin.c_str(), bin.c_str(), "analyze", "-q", (dir / "bundle").c_str(), "--db", db.c_str(),
            "--no-cache", static_cast<char*>(nullptr));
    _exit(127);
  }
  // kill it once the database exists and the load is under way
  for (int i = 0; i < 200 && !fs::exists(db); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFSIGNALED(status)) {
    WARN("the analysis finished before it could be killed; nothing to check");
    return;
  }
  // the report refuses: nothing complete in the database
  CHECK(run(bin + " report --db " + db.string() + " >/dev/null 2>&1") == 3);
  auto store = store::Db::open(db);
  CHECK(store::bundle_ids(store->handle(), false).empty());
}
