// Issue 17 items 4-6 end to end: symlink members of a (nested) tar are file-system facts of their
// host, never followed; modules.dep resolves the module; `lsmod | grep` printing nothing says it
// is not loaded; a systemd unit's environment is the service's, not the shell's; a complete `ls
// -l` says what is absent. Each bundle is built at test time (tar(1) keeps symlinks as links).
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/sql.hpp"
#include "common/temp_dir.hpp"
#include "faultline/app/app.hpp"

using namespace faultline;
namespace fs = std::filesystem;

namespace {

fs::path temp_path(const std::string& name) {
  const fs::path p = test::process_temp_root("faultline-fsenv") / name;
  std::error_code ec;
  fs::remove_all(p, ec);
  for (const char* s : {"-wal", "-shm"}) fs::remove(p.string() + s, ec);
  return p;
}

using test::scalar;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
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

constexpr const char* kRel = "5.15.0-131-generic";

// seed 002 after the reboot, collected as files: the dkms links kept as links
void node_tree(const fs::path& node) {
  const fs::path mods = node / "lib/modules" / kRel;
  fs::create_directories(mods / "updates/dkms");
  fs::create_symlink("/opt/hdk-25.2.0/driver/kernel/drv_pcie_host.ko",
                     mods / "updates/dkms/drv_pcie_host.ko");
  write(mods / "modules.dep",
        "kernel/drivers/ptp/ptp.ko: kernel/drivers/pps/pps_core.ko\n"
        "updates/dkms/drv_pcie_host.ko: updates/dkms/drv_seclib_host.ko\n");
  write(node / "session_20260305.txt",
        "[root@a2-train-11 ~]# lsmod | grep drv_pcie_host\n"
        "[root@a2-train-11 ~]# journalctl -k -b | grep 'Unknown symbol'\n"
        "Mar 05 09:38:40 a2-train-11 kernel: drv_pcie_host: Unknown symbol "
        "ka_pci_enable_device_mem (err -2)\n");
}

}  // namespace

TEST_CASE("symlink members of nested tars are link evidence for the stale module link") {
  const fs::path work = temp_path("links");
  node_tree(work / "src/a2-train-11_20260305");
  // node.tar.gz inside case.tar: the links are archive entries two levels down
  REQUIRE(run("tar czf '" + (work / "a2-train-11.tar.gz").string() + "' -C '" +
              (work / "src").string() + "' a2-train-11_20260305") == 0);
  REQUIRE(run("tar cf '" + (work / "case.tar").string() + "' -C '" + work.string() +
              "' a2-train-11.tar.gz") == 0);
  for (const fs::path& bundle : {work / "case.tar", work / "src"}) {
    INFO(bundle);
    const auto dbp = temp_path("links.db");
    auto db = store::Db::open(dbp);
    const auto out = app::analyze(*db, bundle, quiet_options());
    REQUIRE(out.exit_code == 0);
    sqlite3* h = db->handle();
    const std::string link =
        std::string("fs./lib/modules/") + kRel + "/updates/dkms/drv_pcie_host.ko";
    CHECK(scalar(h,
                 "SELECT group_concat(f.value || '@' || m.kind) FROM facts f JOIN members m ON "
                 "m.id=f.member_id WHERE f.name='" +
                     link + "'") ==
          "symlink:/opt/hdk-25.2.0/driver/kernel/drv_pcie_host.ko@symlink");
    CHECK(scalar(h, "SELECT value FROM facts WHERE name='module.drv_pcie_host.resolved_path'") ==
          std::string("/lib/modules/") + kRel + "/updates/dkms/drv_pcie_host.ko");
    CHECK(scalar(h, "SELECT value FROM facts WHERE name='module.drv_pcie_host.not_loaded'") ==
          "lsmod | grep drv_pcie_host");
    CHECK(scalar(h, "SELECT count(*) FROM findings WHERE finding='driver.stale_module_link'") ==
          "1");
    // the link is never followed: nothing was read from its target
    CHECK(scalar(h, "SELECT count(*) FROM members WHERE path LIKE '%/opt/hdk%'") == "0");
  }
  fs::remove_all(work);
}

TEST_CASE("a unit's environment is the service's: the shell's correct one does not hide it") {
  const fs::path work = temp_path("unit");
  const std::string listing =
      "[root@a2-train-11 ~]# ls -l /usr/local/Ascend/ascend-toolkit/\n"
      "total 8\n"
      "drwxr-xr-x 6 root root 4096 Nov  4 16:20 8.5.0\n"
      "lrwxrwxrwx 1 root root   39 Nov  4 16:20 latest -> /usr/local/Ascend/ascend-toolkit/8.5.0\n"
      "[root@a2-train-11 ~]# printenv | grep ^ASCEND\n"
      "ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.0\n";
  const std::string unit =
      "[root@a2-train-11 ~]# systemctl cat ascend-train.service\n"
      "# /etc/systemd/system/ascend-train.service\n"
      "[Service]\n"
      "Environment=\"ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1\"\n"
      "ExecStart=/usr/bin/torchrun --nproc_per_node 8 /data/job/train.py\n";
  SECTION("the unit names a CANN that is not installed") {
    write(work / "s/session.txt", listing + unit);
    const auto dbp = temp_path("unit.db");
    auto db = store::Db::open(dbp);
    REQUIRE(app::analyze(*db, work / "s", quiet_options()).exit_code == 0);
    sqlite3* h = db->handle();
    const std::string summary =
        scalar(h, "SELECT summary FROM findings WHERE finding='cann.env_path_missing'");
    CHECK(summary.find("unit.ascend-train.service.env.ASCEND_HOME_PATH") != std::string::npos);
    CHECK(summary.find("8.5.1") != std::string::npos);
    CHECK(scalar(h,
                 "SELECT count(*) FROM facts WHERE name='env.ASCEND_HOME_PATH' AND "
                 "value LIKE '%8.5.1%'") == "0");
  }
  SECTION("the shell alone is correct: nothing to report") {
    write(work / "t/session.txt", listing);
    const auto dbp = temp_path("unit2.db");
    auto db = store::Db::open(dbp);
    REQUIRE(app::analyze(*db, work / "t", quiet_options()).exit_code == 0);
    CHECK(scalar(db->handle(),
                 "SELECT count(*) FROM findings WHERE finding='cann.env_path_missing'") == "0");
  }
  fs::remove_all(work);
}

namespace {
std::string column(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  std::string out;
  while (sqlite3_step(s) == SQLITE_ROW)
    if (sqlite3_column_text(s, 0))
      out += std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))) + "\n";
  sqlite3_finalize(s);
  return out;
}
}  // namespace

// Issue 17 item 6: npu_log_collect.sh's own files (npu_info_log/card_info.log, version_info.log,
// mod_info/lsmod.log) next to the ascend_log_<ts> collection it packs. Packed the way the
// collector ships it (ascend_log_<ts>.tar.gz inside npu_log_collect_<ts>/, all in a tar.gz), every
// file keeps the kind, facts and findings it has in the plain folder: one host, same evidence.
TEST_CASE("a nested ascend_log archive keeps its layout inside npu_log_collect") {
  const fs::path sample = fs::path(FAULTLINE_SOURCE_DIR) / "samples/seed-driver-reboot-pending";
  if (!fs::exists(sample)) return;
  const fs::path work = temp_path("nlc");
  const fs::path top = work / "src/npu_log_collect_20260528110514";
  fs::create_directories(work / "src");
  fs::copy(sample / "npu_log_collect", top, fs::copy_options::recursive);
  fs::copy(sample / "extra", work / "src/extra", fs::copy_options::recursive);
  const std::string inner = "ascend_log_20260528110514";
  REQUIRE(run("tar czf '" + (top / (inner + ".tar.gz")).string() + "' -C '" + top.string() + "' " +
              inner) == 0);
  fs::remove_all(top / inner);
  REQUIRE(run("tar czf '" + (work / "npu_log_collect.tar.gz").string() + "' -C '" +
              (work / "src").string() + "' npu_log_collect_20260528110514 extra") == 0);

  std::string facts[2], kinds[2], findings[2], hosts[2];
  const fs::path bundles[2] = {sample, work / "npu_log_collect.tar.gz"};
  for (int i = 0; i < 2; ++i) {
    const auto dbp = temp_path("nlc" + std::to_string(i) + ".db");
    auto db = store::Db::open(dbp);
    REQUIRE(app::analyze(*db, bundles[i], quiet_options()).exit_code <= 1);
    sqlite3* h = db->handle();
    facts[i] = column(h, "SELECT DISTINCT name || '=' || value FROM facts ORDER BY 1");
    kinds[i] = column(h, "SELECT kind || ' ' || count(*) FROM members GROUP BY kind ORDER BY 1");
    findings[i] = column(h, "SELECT finding || ' ' || confidence FROM findings ORDER BY 1");
    hosts[i] = column(h, "SELECT name FROM hosts ORDER BY 1");
  }
  CHECK(hosts[1] == "a2pod-n042\n");
  CHECK(hosts[1] == hosts[0]);
  CHECK(kinds[1] == kinds[0]);
  CHECK(facts[1] == facts[0]);
  CHECK(findings[1] == findings[0]);
  CHECK(findings[1].find("driver.reboot_pending") != std::string::npos);
  fs::remove_all(work);
}
