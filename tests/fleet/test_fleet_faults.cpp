// The fleet's fault events (docs/fleet.md "Fault events", issue 34): `fleet` over a one-node folder
// whose only evidence is an OS, hardware, network or framework fault event names it, in the
// `faults` list (per code: hosts, first time, count, ranked as analyze ranks them) and, when no
// HCCL rule decides, in `first_failure` (rule `earliest-fault`). Lines are the real shapes of the
// signatures' examples (rules/signatures/*.yaml) in the layouts of log-formats.md.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/temp_dir.hpp"
#include "faultline/app/app.hpp"
#include "faultline/report/report.hpp"
#include "faultline/store/store.hpp"

using namespace faultline;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path temp_path(const std::string& name) {
  const fs::path p = fs::temp_directory_path() /
                     ("faultline-fleet-faults-" + std::to_string(::getpid()) + "-" + name);
  std::error_code ec;
  fs::remove_all(p, ec);
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(p.string() + ".db" + s, ec);
  return p;
}

struct Cleanup {
  fs::path p;
  ~Cleanup() {
    std::error_code ec;
    fs::remove_all(p, ec);
    for (const char* s : {"", "-wal", "-shm"}) fs::remove(p.string() + ".db" + s, ec);
  }
};

void write(const fs::path& p, const std::vector<std::string>& lines) {
  fs::create_directories(p.parent_path());
  std::ofstream o(p, std::ios::binary | std::ios::app);
  for (const auto& l : lines) o << l << "\n";
}

struct Out {
  json j;
  std::string md, html;
};

Out run_fleet(const fs::path& dir) {
  app::Options o;
  o.cache_dir = test::process_temp_root("faultline-fleet-faults") / "cache";
  const fs::path dbp = dir.string() + ".db";
  auto db = store::Db::open(dbp);
  auto out = app::fleet(*db, app::expand_fleet_inputs({dir}), o, 2);
  Out r;
  r.j = json::parse(report::render_fleet(db->handle(), out.bundle_ids, report::Format::json));
  r.md = report::render_fleet(db->handle(), out.bundle_ids, report::Format::md);
  r.html = report::render_fleet(db->handle(), out.bundle_ids, report::Format::html);
  return r;
}

const json* fault(const json& j, const std::string& id) {
  for (const auto& f : j["faults"])
    if (f["id"] == id) return &f;
  return nullptr;
}

struct Kind {
  const char* name;
  const char* path;  // inside the node folder
  std::vector<std::string> lines;
  const char* id;
  const char* code;
  // a syslog `messages` stamp has no year: with no dated file of the host to anchor it the line
  // is untimed, and the fault is still listed and named (the best-ranked untimed one)
  bool timed;
};

}  // namespace

TEST_CASE("fleet over a one-node folder of fault events names them", "[fleet][faults]") {
  const std::vector<Kind> kinds = {
      {"messages",
       "host_log/messages",
       {"Jul 13 21:29:50 node-1 systemd[1]: Started Session 12 of user root.",
        "Jul 13 21:31:02 node-1 kernel: Out of memory: Killed process 7899 (python) "
        "total-vm:26184840kB, anon-rss:15370088kB, file-rss:0kB, shmem-rss:0kB, UID:0 "
        "pgtables:38964kB oom_score_adj:0",
        "Jul 13 21:33:10 node-1 kernel: nf_conntrack: nf_conntrack: table full, dropping packet"},
       "fault.kernel.oom_killed",
       "Comp_OS_Kernel_Mem_08",
       false},
      {"ext4",
       "host_log/messages",
       {"Jul 13 21:29:54 node-1 kernel: EXT4-fs error (device dm-3): dx_probe:740: inode "
        "#22288562: comm git: Directory index failed checksum"},
       "fault.kernel.ext4_error",
       "Comp_OS_Kernel_FS_02",
       false},
      {"vmcore",
       "var/crash/127.0.0.1-2025-03-30-08:24:00/vmcore-dmesg.txt",
       {"[   74.100000] systemd[1]: Started Journal Service.",
        "[   75.213852] NMI watchdog: Watchdog detected hard LOCKUP on cpu 0"},
       "fault.kernel.hard_lockup",
       "Comp_OS_Kernel_CPU_04",
       false},
      {"pcie",
       "slog/host/host_kernel.log",
       {"[2025-04-16-03:08:13.704312] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2248] "
        "<systemd-udevd:4853:4853> Findout device. (index=7; device=d105; dev_num=0)",
        "[2025-04-16-03:08:13.704360] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2248] "
        "<systemd-udevd:4853:4853> DMA copy failed"},
       "fault.driver.pcie_dma_copy_failed",
       "AISW_CANN_DRV_PCIE_046",
       true},
      {"nic",
       "device_log/device-1_20241204162140159.log",
       {"[EVENT] IMP(-2,IMP): 2024-12-04-08:21:54.994.714 70 (device_id:1 die_id:0) [IMP] present "
        "1, mac_link 1, pcs_link 1, rf_lf 1, pcs_err_cnt 5, pcs_64_66b 4681"},
       "fault.device.nic_pcs_link_fault",
       "Comp_Network_Custom_11",
       true},
      {"torch",
       "train_log/rank_0.log",
       {"[ERROR] 2025-07-13-21:24:03 (PID:474, Device:2, RankID:2) ERR00100 PTA call acl api "
        "failed."},
       "fault.torch_npu.err_code",
       "ERR00100",
       true},
  };
  for (const auto& k : kinds) {
    SECTION(k.name) {
      const fs::path dir = temp_path(k.name);
      Cleanup cl{dir};
      write(dir / "node-1" / k.path, k.lines);
      const Out o = run_fleet(dir);
      const json* f = fault(o.j, k.id);
      REQUIRE(f != nullptr);
      CHECK((*f)["code"] == k.code);
      CHECK((*f)["hosts"] == json::array({"node-1"}));
      CHECK((*f)["count"].get<int64_t>() >= 1);
      CHECK((*f)["first_time"].is_null() == !k.timed);
      const json& ff = o.j["first_failure"];
      REQUIRE(ff.is_object());  // never "No timed first failure" for a node with a fault
      CHECK(ff["rule"] == "earliest-fault");
      CHECK(ff["host"] == "node-1");
      CHECK(ff["no_single_root"] == false);
      REQUIRE(!ff["evidence_lines"].empty());
      CHECK(ff["evidence_lines"][0]["role"] == "culprit");
      CHECK(ff["time"].is_null() == !k.timed);
      CHECK(o.md.find("## Fault events") != std::string::npos);
      CHECK(o.md.find(k.code) != std::string::npos);
      CHECK(o.md.find("No timed first failure") == std::string::npos);
      CHECK(o.html.find("<h2 id=\"faults\">Fault events</h2>") != std::string::npos);
    }
  }
}

TEST_CASE("fleet: the earliest fault event of a cause class is the first failure",
          "[fleet][faults]") {
  const fs::path dir = temp_path("rank");
  Cleanup cl{dir};
  // node-1: an OOM kill and a full conntrack table (os); node-2: the same OOM kill earlier and a
  // torch_npu ERR code (framework) earlier still: the framework code does not win over the OS
  write(dir / "node-1/host_log/messages",
        {"Jul 13 21:31:02 node-1 kernel: Out of memory: Killed process 7899 (python) "
         "total-vm:26184840kB, anon-rss:15370088kB, file-rss:0kB, shmem-rss:0kB, UID:0 "
         "pgtables:38964kB oom_score_adj:0",
         "Jul 13 21:33:10 node-1 kernel: nf_conntrack: nf_conntrack: table full, dropping packet"});
  write(dir / "node-2/host_log/messages",
        {"Jul 13 21:30:40 node-2 kernel: Out of memory: Killed process 7123 (python) "
         "total-vm:26184840kB, anon-rss:15370088kB, file-rss:0kB, shmem-rss:0kB, UID:0 "
         "pgtables:38964kB oom_score_adj:0"});
  write(dir / "node-2/train_log/rank_1.log",
        {"[ERROR] 2025-07-13-21:24:03 (PID:474, Device:2, RankID:2) ERR00100 PTA call acl api "
         "failed."});
  const Out o = run_fleet(dir);
  const json* oom = fault(o.j, "fault.kernel.oom_killed");
  REQUIRE(oom != nullptr);
  CHECK((*oom)["hosts"] == json::array({"node-1", "node-2"}));
  CHECK((*oom)["first_host"] == "node-2");
  CHECK((*oom)["count"] == 2);
  const json& ff = o.j["first_failure"];
  REQUIRE(ff.is_object());
  CHECK(ff["rule"] == "earliest-fault");
  CHECK(ff["host"] == "node-2");
  CHECK(ff["evidence_lines"][0]["signature"] == "kernel.oom_killed");
  CHECK(ff["summary"].get<std::string>().find("Comp_OS_Kernel_Mem_08") != std::string::npos);
}
