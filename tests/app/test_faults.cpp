// Fault events (docs/faults.md), end to end: one-node bundles built from real-format lines, one per
// family of the catalog, each analysed by the whole pipeline; the fault findings and their rows
// (findings.kind = 'fault', finding_evidence, timeline role 'fault') are read back with SQL.
// Healthy samples give no root cause and no fault event.
#include <sqlite3.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../common/temp_dir.hpp"
#include "faultline/app/app.hpp"
#include "faultline/parse/composite.hpp"

using namespace faultline;
namespace fs = std::filesystem;

namespace {

struct Row {
  std::map<std::string, std::string> col;
  const std::string& operator[](const std::string& k) const { return col.at(k); }
};

std::vector<Row> query(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  std::vector<Row> out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    Row r;
    for (int i = 0; i < sqlite3_column_count(s); ++i) {
      const auto* t = sqlite3_column_text(s, i);
      r.col[sqlite3_column_name(s, i)] = t ? reinterpret_cast<const char*>(t) : "";
    }
    out.push_back(std::move(r));
  }
  sqlite3_finalize(s);
  return out;
}

// A one-node bundle: files (path inside the bundle -> lines), analysed into a fresh database.
class Case {
 public:
  explicit Case(const std::map<std::string, std::vector<std::string>>& files)
      : dir_("faultline-faults") {
    const fs::path b = dir_.path() / "bundle";
    for (const auto& [p, lines] : files) {
      fs::create_directories((b / p).parent_path());
      std::ofstream out(b / p);
      for (const auto& l : lines) out << l << "\n";
    }
    app::Options o;
    o.cache_dir = dir_.path() / "cache";
    db_ = store::Db::open(dir_.path() / "case.db");
    const auto r = app::analyze(*db_, b, o);
    REQUIRE(r.exit_code == 0);
  }
  Case(const std::string& path, const std::vector<std::string>& lines) : Case({{path, lines}}) {}
  sqlite3* db() { return db_->handle(); }
  // fault finding ids of the bundle
  std::set<std::string> faults() {
    std::set<std::string> s;
    for (const auto& r : query(db(), "SELECT finding FROM findings WHERE kind = 'fault'"))
      s.insert(r["finding"]);
    return s;
  }
  Row fault(const std::string& id) {
    const auto rows = query(
        db(),
        "SELECT f.finding, f.severity, f.fault_class, f.fault_role, f.host, "
        "COALESCE(f.explained_by, '') AS explained_by, f.explains, f.fault, "
        "COALESCE(f.first_time_ns, '') AS first_time_ns, COALESCE(fe.time_ns, '') AS time_ns, "
        "fe.member, fe.line, "
        "fe.text, fe.signature FROM findings f JOIN finding_evidence fe ON "
        "fe.finding_id = f.id AND fe.ord = 1 WHERE f.kind = 'fault' AND "
        "f.finding = '" +
            id + "'");
    REQUIRE(rows.size() == 1);
    return rows.front();
  }
  size_t timeline_rows(const std::string& finding) {
    return query(db(),
                 "SELECT 1 FROM timeline WHERE role IN ('fault', 'first_failure') AND finding = '" +
                     finding + "'")
        .size();
  }
  size_t root_causes() {
    return query(db(), "SELECT 1 FROM findings WHERE kind = 'root_cause'").size();
  }

 private:
  test::TempDir dir_;
  std::unique_ptr<store::Db> db_;
};

}  // namespace

TEST_CASE("host OS messages: filesystem, conntrack and memory errors become fault events") {
  // lines: lkml 1607.2/00777 (ext4 error, syslog form), bugzilla 207635 (remount read-only),
  // devopsaitoolkit nf_conntrack page (journal form), a pasted skx_edac report (EDAC UE)
  Case c({{"var/log/messages",
           {"May 27 14:03:11 node1 kernel: EXT4-fs error (device dm-3): dx_probe:740: inode "
            "#22288562: comm git: Directory index failed checksum",
            "May 27 14:03:11 node1 kernel: EXT4-fs (dm-3): Remounting filesystem read-only",
            "May 27 14:05:02 node1 kernel: nf_conntrack: nf_conntrack: table full, dropping packet",
            "May 27 14:06:40 node1 kernel: EDAC MC0: 1 UE memory read error on "
            "CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x7740c0 offset:0x0 grain:32)",
            "May 27 14:07:00 node1 systemd[1]: Started Session 12 of user root."}}});
  const auto f = c.faults();
  CHECK(f.count("fault.kernel.ext4_error") == 1);
  CHECK(f.count("fault.kernel.fs_remount_ro") == 1);
  CHECK(f.count("fault.kernel.nf_conntrack_full") == 1);
  CHECK(f.count("fault.kernel.edac_uncorrected") == 1);
  const auto ext4 = c.fault("fault.kernel.ext4_error");
  CHECK(ext4["fault_class"] == "os");
  CHECK(ext4["fault_role"] == "cause");
  CHECK(ext4["host"] == "node1");
  CHECK(ext4["member"] == "var/log/messages");
  CHECK(ext4["line"] == "1");
  CHECK(ext4["signature"] == "kernel.ext4_error");
  // first_time_ns is the earliest hit's time (NULL here: a syslog line without a year in a bundle
  // that states no year is not placed in time)
  CHECK(ext4["first_time_ns"] == ext4["time_ns"]);
  CHECK(ext4["fault"].find("\"cause\":\"The kernel found an ext4 error on dm-3 (dx_probe)") !=
        std::string::npos);
  // the remount is caused by the ext4 error seen on the same host
  CHECK(c.fault("fault.kernel.fs_remount_ro")["explained_by"] == "fault.kernel.ext4_error");
  CHECK(ext4["explains"].find("fault.kernel.fs_remount_ro") != std::string::npos);
  const auto edac = c.fault("fault.kernel.edac_uncorrected");
  CHECK(edac["fault_class"] == "hardware");
  CHECK(edac["severity"] == "critical");
  CHECK(c.timeline_rows("fault.kernel.ext4_error") == 1);
}

TEST_CASE("a kdump vmcore-dmesg with a hard lockup panic gives lockup and panic faults") {
  // lines: LKML "With this my system no longer boots" (NMI watchdog), kernel panic wording of
  // kernel/watchdog.c (as quoted in a SC7180 commit message)
  Case c({{"var/crash/127.0.0.1-2026-05-27-14:03:11/vmcore-dmesg.txt",
           {"[   75.213852] NMI watchdog: Watchdog detected hard LOCKUP on cpu 0",
            "[   75.213926] NMI watchdog: Watchdog detected hard LOCKUP on cpu 2",
            "[   75.301002] Kernel panic - not syncing: Watchdog detected hard LOCKUP on cpu 0"}}});
  const auto f = c.faults();
  CHECK(f.count("fault.kernel.hard_lockup") == 1);
  CHECK(f.count("fault.kernel.panic") == 1);
  const auto hl = c.fault("fault.kernel.hard_lockup");
  CHECK(hl["severity"] == "critical");
  CHECK(hl["fault"].find("\"count\":3") != std::string::npos);  // the panic line names it too
}

TEST_CASE("host_kernel.log: a heartbeat loss is a fault, the boot-time not-ready is not") {
  // host_kernel.log line grammar of the asys sample (log-formats.md §4.3) with the heart_beat_judge
  // message of the MindCluster FaultDiag fixture (§4.2)
  Case c({{"dfx/log/host/driver/host_kernel.log",
           {"[2025-05-08-02:28:14.715953] [ascend] [devdrv] [WARN] [devdrv_manager_device_ready "
            "4476] <kworker/12:2:3753,3753> Device is not ready. (dev_id=100)",
            "[2025-05-08-09:41:00.184409] [ascend] [drv_soft_fault] [ERROR] [heart_beat_judge 318] "
            "<kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; new_count=1104; "
            "lost_count=4; total_lost_count=4; total_10s_count=0; total_15s_count 0)."}}});
  const auto f = c.faults();
  CHECK(f == std::set<std::string>{"fault.driver.heartbeat_lost"});
  const auto hb = c.fault("fault.driver.heartbeat_lost");
  CHECK(hb["fault_class"] == "hardware");
  CHECK(hb["fault"].find("device 1") != std::string::npos);
  // the diagnosis that reasons about it cites the same line
  CHECK(hb["fault"].find("\"diagnosed_by\":[\"device.heartbeat_lost\"]") != std::string::npos);
}

TEST_CASE("a device [EVENT] fault record with severity Warning is a fault with its event id") {
  // log-formats.md §2.4 device event log lines (asys sample): an OS-init OK event and an AIV
  // input-error Warning
  Case c(
      {{"dfx/log/device/dev-os-0/system/run/event/event_20250508022823.log",
        {"[EVENT] DRV(3423,dms_poll_task):1970-01-01-00:00:08.876.153 "
         "[dms_event.c:1399][fault_manager][    7.932713] event_id=0x8c2fa009; device_id=0; "
         "node_type=0x617[OS_Linux]; node_id=1; sub_node_id=0; event_type=0x9[OS init]; "
         "severity=0[OK]; assertion=2[One time event]; description=[OS init]; os_id=0; ",
         "[EVENT] DRV(3423,dms_poll_task):2025-05-08-03:25:04.229.345 "
         "[dms_event.c:1399][fault_manager][27026.820643] event_id=0x80cb8002; device_id=0; "
         "node_type=0x65[AIV]; node_id=6; sub_node_id=0; event_type=0x2[input error]; "
         "severity=1[Warning]; assertion=1[Event occur]; description=[AIV 0x7906]; os_id=0; "}}});
  const auto f = c.faults();
  REQUIRE(f.count("fault.device.event_warning") == 1);
  const auto ev = c.fault("fault.device.event_warning");
  CHECK(ev["severity"] == "warning");
  CHECK(ev["line"] == "2");
  CHECK(ev["fault"].find("\"code\":\"0x80cb8002\"") != std::string::npos);
}

TEST_CASE("a device syslog DMS sensor event (real asys line) is a fault") {
  Case c("dfx/log/device/dev-os-0/system/message/messages",
         {"May  8 17:48:37 (none) kern.notice kernel: [50041.354602][ T3424] [ascend] "
          "[dms_module] [dms_sensor_report_event 677] <dms_sensor_scan:3424:3424> Event Process "
          "Success. (Event id=0x80cb8009; Node Type=0x65; Sensor num=0xc00001; name=\"aiv\"; "
          "Sensor Type=0xc0; Sensor Object"});
  const auto ev = c.fault("fault.device.dms_sensor_event");
  CHECK(ev["fault"].find("\"code\":\"0x80cb8009\"") != std::string::npos);
}

TEST_CASE("an environment-check dump with a link DOWN and a failed net health") {
  // npu_info_after.txt layout of the MindCluster environment check (command line, answer, blank
  // line); answers as in its documentation and in MindCluster's hccn.go
  Case c(
      {{"environment_check/npu_info_after.txt",
        {"/usr/local/Ascend/driver/tools/hccn_tool -i 0 -net_health -g", "net health status: Fault",
         "", "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link -g", "link status: DOWN", "",
         "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link_stat -g",
         "[device 0]current time        : Wed Jun  7 10:08:28 2023",
         "[device 0]link up count       : 2",
         "[device 0]link change records :", "[device 0]    Tue Jun  6 16:32:12 2023    LINK UP",
         "[device 0]    Tue Jun  6 16:32:10 2023    LINK DOWN"}}});
  const auto f = c.faults();
  CHECK(f.count("fault.hccn.link_down") == 1);
  CHECK(f.count("fault.hccn.net_health_fault") == 1);
  CHECK(f.count("fault.hccn.link_down_record") == 0);  // history alone is not a fault
  CHECK(c.fault("fault.hccn.link_down")["fault_class"] == "network");
}

TEST_CASE("an environment-check dump of a healthy node gives no fault event") {
  Case c({{"environment_check/npu_info_before.txt",
           {"/usr/local/Ascend/driver/tools/hccn_tool -i 0 -net_health -g",
            "net health status: Init", "", "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link -g",
            "link status: UP", "", "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link_stat -g",
            "[device 0]current time        : Wed Jun  7 10:08:28 2023",
            "[device 0]link up count       : 2",
            "[device 0]link change records :", "[device 0]    Tue Jun  6 16:32:12 2023    LINK UP",
            "[device 0]    Tue Jun  6 16:32:10 2023    LINK DOWN",
            "[device 0]    Tue Jun  6 16:31:55 2023    LINK UP"}}});
  CHECK(c.faults().empty());
  CHECK(c.root_causes() == 0);
}

TEST_CASE("a Python exception is a last-resort fault: it yields its line to any other fault") {
  // PKU-YuanGroup/Helios #62 (the exception names no code) and Ascend/pytorch #66 (the
  // exception line carries ACL code 507035), verbatim
  Case c({{"logs/worker_0.log",
           {"Traceback (most recent call last):",
            "  File \"/root/miniconda3/lib/python3.10/site-packages/torch/nn/modules/conv.py\", "
            "line 712, in _conv_forward",
            "    return F.conv3d(",
            "RuntimeError: The Inner error is reported as above. The process exits for this inner "
            "error, and the current working operator name is Conv2D."}},
          {"logs/worker_1.log",
           {"Traceback (most recent call last):",
            "  File \"/home/ma-user/work/test/llama149/testLlame_new.py\", line 30, in <module>",
            "    generate_ids = model.generate(inputs.input_ids, max_length=512)",
            "RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:25 NPU "
            "function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error "
            "code is 507035"}}});
  const auto f = c.faults();
  CHECK(f.count("fault.acl.error_507035") == 1);
  REQUIRE(f.count("fault.train.python_exception") == 1);
  const auto& fe = c.fault("fault.train.python_exception");
  CHECK(fe["fault"].find("\"code\":\"AISW_TRACEBACK_RuntimeError\"") != std::string::npos);
  CHECK(fe["fault"].find("\"count\":1") !=
        std::string::npos);  // worker_1's line is the ACL fault's
  CHECK(fe["member"] == "logs/worker_0.log");
  CHECK(fe["fault_role"] == "symptom");
}

TEST_CASE("a NIC link history with a LINK DOWN that lasted is a fault event; a flap is not") {
  // hccn_tool 23.x answer ([devid N] records, newest first) in the environment-check layout;
  // the record shape as in public HCCL troubleshooting notes (ERROR CQE, link_stat example)
  Case c({{"environment_check/npu_info_after.txt",
           {"/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link_stat -g",
            "[devid 0]current time        : Tue Oct 28 21:46:46 2025",
            "[devid 0]link up count       : 3", "[devid 0]link down count     : 2",
            "[devid 0]link change records :", "[devid 0]    Tue Oct 28 20:01:40 2025    LINK UP",
            "[devid 0]    Tue Oct 28 20:00:10 2025    LINK DOWN",
            "[devid 0]    Sun Oct  5 10:13:51 2025    LINK UP",
            "[devid 0]    Sun Oct  5 10:13:50 2025    LINK DOWN",
            "[devid 0]    Sun Oct  5 10:13:35 2025    LINK UP", "",
            "/usr/local/Ascend/driver/tools/hccn_tool -i 3 -link_stat -g",
            "[devid 3]current time        : Tue Oct 28 21:46:46 2025",
            "[devid 3]link up count       : 1", "[devid 3]link down count     : 1",
            "[devid 3]link change records :", "[devid 3]    Tue Oct 28 21:40:02 2025    LINK DOWN",
            "[devid 3]    Sun Oct  5 10:13:35 2025    LINK UP"}}});
  const auto f = c.faults();
  REQUIRE(f.count("fault.hccn.link_down_lasting") == 1);
  const auto& fe = c.fault("fault.hccn.link_down_lasting");
  CHECK(fe["fault_class"] == "network");
  CHECK(fe["fault"].find("\"code\":\"Comp_Network_Custom_01\"") != std::string::npos);
  // both lasting downs are evidence (90 s on device 0; device 3 still down 6 minutes later); the
  // one-second flap of Oct 5 is not
  CHECK(fe["fault"].find("went down at Tue Oct 28 20:00:10 2025 and lasted 90 s") !=
        std::string::npos);
  CHECK(fe["fault"].find("\"count\":2") != std::string::npos);
  CHECK(fe["line"] == "7");  // at the LINK DOWN record
  CHECK(f.count("fault.hccn.link_down_record") == 0);
}

TEST_CASE("a NIC link history whose downs all came back within 30 s gives no fault event") {
  Case c(
      {{"link-history.log",
        {"==> NPU 0", "[devid 0]current time        : Tue Oct 28 21:46:46 2025",
         "[devid 0]link up count       : 2", "[devid 0]link down count     : 1",
         "[devid 0]link change records :", "[devid 0]    Sun Oct  5 10:13:51 2025    LINK UP",
         "[devid 0]    Sun Oct  5 10:13:50 2025    LINK DOWN",
         "[devid 0]    Sun Oct  5 10:13:35 2025    LINK UP", "==> NPU 1",
         "[devid 1]current time        : Tue Oct 28 21:46:46 2025",
         "[devid 1]link up count       : 1", "[devid 1]link down count     : 1",
         "[devid 1]link change records :", "[devid 1]    Tue Oct 28 21:46:30 2025    LINK DOWN"}}});
  CHECK(query(c.db(), "SELECT 1 FROM members WHERE kind = 'hccn_link_stat'").size() == 1);
  CHECK(c.faults().empty());  // device 1 went down 16 s before the history was read: too recent
}

TEST_CASE("a console with torch_npu ERR codes and an HCCL init failure in torch_npu wording") {
  // vllm-ascend #672 (verbatim, with the [rankN]: prefix of torchrun)
  Case c({{"logs/train_rank1.log",
           {"[rank1]: RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/"
            "compiler_depend.ts:102 HCCL function error: hcclCommInitRootInfoConfig(numRanks, "
            "&rootInfo, rank, config, &(comm->hcclComm_)), error code is 15",
            "[rank1]: [ERROR] 2025-04-27-03:11:08 (PID:540989, Device:0, RankID:1) ERR02200 DIST "
            "call hccl api failed.",
            "[rank1]: EE9999: Inner Error!"}}});
  const auto f = c.faults();
  CHECK(f.count("fault.hccl.comm_init_failed") == 1);
  CHECK(f.count("fault.torch_npu.err_code") == 1);
  CHECK(c.fault("fault.torch_npu.err_code")["fault"].find("\"code\":\"ERR02200\"") !=
        std::string::npos);
  // the diagnosis of the init failure now fires on this wording too
  CHECK(query(c.db(),
              "SELECT 1 FROM findings WHERE finding = 'hccl.comm_init_failed' AND kind = "
              "'symptom'")
            .size() == 1);
}

TEST_CASE("an HCCL init failure in MindIE plog wording") {
  // gpustack #2021 (verbatim plog line)
  Case c("log/debug/plog/plog-36035_20250513022558068.log",
         {"[ERROR] HCCL(36035,mindie_llm_backend_connector):2025-05-13-02:25:58.068.817 "
          "[op_base.cc:974][36818][Init][CommRootInfoConfig]errNo[0x0000000005000002]"
          "HcclCommInitRootInfo failed."});
  CHECK(c.faults().count("fault.hccl.comm_init_failed") == 1);
}

TEST_CASE("a console with a fatal Python error is a framework fault") {
  // train.fatal_python_error's own real example (CPython abort banner)
  Case c({{"logs/stdout.log",
           {"Fatal Python error: Segmentation fault", "",
            "Current thread 0x0000ffff8d4e7010 (most recent call first):"}},
          {"logs/stdout.1.log", {"Fatal Python error: Aborted"}}});
  const auto f = c.faults();
  // the segmentation fault is its own (specific) fault, code as ascend-fd names it; the generic
  // banner keeps the other aborts
  REQUIRE(f.count("fault.train.python_segfault") == 1);
  const auto seg = c.fault("fault.train.python_segfault");
  CHECK(seg["fault_role"] == "symptom");
  CHECK(seg["fault"].find("\"code\":\"AISW_SEG_UnknownError\"") != std::string::npos);
  CHECK(seg["member"] == "logs/stdout.log");
  REQUIRE(f.count("fault.train.fatal_python_error") == 1);
  CHECK(c.fault("fault.train.fatal_python_error")["member"] == "logs/stdout.1.log");
}

TEST_CASE("a plog with runtime faults: ACL codes in call wording") {
  // corpus/real asys-aicerror debug plog lines (log-formats.md §3.5), verbatim
  Case c(
      {{"log/debug/plog/plog-155320_20250508095620764.log",
        {"[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:20.764.715 [api_c_stream.cc:161]155320 "
         "rtStreamSynchronize:[INIT][DEFAULT]ErrCode=507035, desc=[vector core exception], "
         "InnerCode=0x715005e",
         "[ERROR] ASCENDCL(155320,python3):2025-05-08-09:56:20.764.913 [stream.cpp:120]155320 "
         "aclrtSynchronizeStream: [INIT][DEFAULT]synchronize stream failed, runtime result = "
         "507035"}}});
  const auto f = c.faults();
  REQUIRE(f.count("fault.acl.error_507035") == 1);
  const auto a = c.fault("fault.acl.error_507035");
  CHECK(a["fault_class"] == "cann");
  CHECK(a["fault"].find("\"code\":\"507035\"") != std::string::npos);
  CHECK(a["fault"].find("\"count\":2") != std::string::npos);
  CHECK_FALSE(a["first_time_ns"].empty());  // plog lines carry their own UTC-able time
  CHECK(a["first_time_ns"] == a["time_ns"]);
  // line 1 is also the first failure of the device.task_exception diagnosis: it keeps that role
  CHECK(c.timeline_rows("fault.acl.error_507035") == 1);
  CHECK(query(c.db(), "SELECT 1 FROM timeline WHERE role = 'first_failure' AND line = 1").size() ==
        1);
}

TEST_CASE("the healthy samples give no root cause and no fault event") {
  for (const char* name :
       {"healthy-node", "healthy-after-driver-upgrade-reboot", "variant-msnpureport-rotated"}) {
    INFO(name);
    const fs::path s = fs::path(FAULTLINE_SOURCE_DIR) / "samples" / name;
    if (!fs::exists(s)) continue;
    test::TempDir dir("faultline-faults-healthy");
    app::Options o;
    o.cache_dir = dir.path() / "cache";
    auto db = store::Db::open(dir.path() / "h.db");
    REQUIRE(app::analyze(*db, s, o).exit_code == 0);
    CHECK(query(db->handle(), "SELECT 1 FROM findings WHERE kind IN ('root_cause', 'fault')")
              .empty());
  }
}

// Issue 15 item 3: collector dumps read as commands.
TEST_CASE("composite: prompts after a (venv) or (conda env) prefix are section banners") {
  using parse::CompositeParser;
  CHECK(CompositeParser::banner_title("(venv) root@ai-train-03:~/work# npu-smi info", false) ==
        "npu-smi info");
  CHECK(CompositeParser::banner_title("(base) [root@a2pod-n042 ~]# pip list", false) == "pip list");
  CHECK(CompositeParser::banner_title("(conda env) hpc@login01:/data$ python -c 'import torch'",
                                      false) == "python -c 'import torch'");
  // a parenthesised word that is not a prompt prefix
  CHECK(CompositeParser::banner_title("(VllmWorker rank=1 pid=7226) ERROR 09-03 03:02:37 x", false)
            .empty());
  CHECK(CompositeParser::banner_title("(none) kern.err kernel: [50041.252723]", false).empty());
}

TEST_CASE("composite: bare command lines of the environment-check files") {
  using parse::CompositeParser;
  CHECK(CompositeParser::bare_command(
            "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -net_health -g") ==
        "hccn_tool -i 0 -net_health -g");
  CHECK(CompositeParser::bare_command("/usr/local/bin/npu-smi info -i 0 -c 0 -t health") ==
        "npu-smi info -i 0 -c 0 -t health");
  CHECK(CompositeParser::bare_command("/usr/local/bin/npu-smi info") == "npu-smi info");
  // answers are not commands
  CHECK(CompositeParser::bare_command("net health status: Init").empty());
  CHECK(CompositeParser::bare_command("/usr/local/Ascend/driver/version.info").empty());
  CHECK(CompositeParser::bare_command("/dev/davinci0").empty());
  CHECK(CompositeParser::bare_command("/usr/lib64/libascend_hal.so (deleted)").empty());
}

TEST_CASE("an environment-check dump is split per command and each part parsed by its kind") {
  // npu_info_before.txt as the MindCluster docs store it (command, answer, blank line)
  Case c(
      {{"environment_check/npu_info_before.txt",
        {"/usr/local/Ascend/driver/tools/hccn_tool -i 0 -net_health -g", "net health status: Init",
         "", "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link -g", "link status: UP", "",
         "/usr/local/bin/npu-smi info -i 0 -c 0 -t health", "Health Status                  : OK",
         "Error Code                     : NA", "Error Information              : NA", "",
         "/usr/local/bin/npu-smi info -i 0 -t ecc", "NPU ID                                   : 0",
         "Chip Count                               : 1", "",
         "DDR Single Bit Error Count               : 0",
         "HBM Double Bit Error Count               : 0",
         "Chip ID                                  : 0"}}});
  CHECK(query(c.db(), "SELECT kind FROM members").front()["kind"] == "composite");
  CHECK(c.faults().empty());
  // the npu-smi sections reached the npu-smi parser: its facts are stated from their lines
  const auto ecc = query(
      c.db(), "SELECT value, line FROM facts WHERE name = 'npu.0.ecc.hbm_double_bit_error_count'");
  REQUIRE(ecc.size() == 1);
  CHECK(ecc.front()["value"] == "0");
  CHECK(ecc.front()["line"] == "17");
}

// ---- issue 15, second round: families with real lines found in public threads -------------

TEST_CASE(
    "a console with a runtime heartbeat loss: one fault per line, the loss explains the rest") {
  // vllm-project/vllm-ascend #8186 (torch_npu TraceBack of a 310P heartbeat loss), verbatim
  Case c(
      {{"logs/train_rank0.log",
        {"[W430 23:39:01.305254567 NPUStream.cpp:577] Warning: NPU warning, error code is "
         "507010[Error]: ",
         "[Error]: The task scheduler loses the heartbeat. ",
         "        Rectify the fault based on the error information in the ascend log.",
         "[PID: 1070] 2026-04-30-23:39:01.135.160 Device_Absent/Abnormal(EL0001): Device not "
         "found or invalid.",
         "        TraceBack (most recent call last):",
         "        [drv api] halCqReportRecv failed: device_id=0, ts_id=0, type=2, logic_cq=9, "
         "drv_ret_code=33[FUNC:LogicCqReportV2][FILE:npu_driver_res.cc][LINE:2103]",
         "        Device[0] lost heartbeat.[FUNC:SyncTask][FILE:direct_hwts_engine.cc][LINE:407]",
         "        rtDeviceSynchronizeWithTimeout execution failed, reason=lost "
         "heartbeat[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:65]",
         "        wait for compute device to finish failed, runtime result = "
         "507010.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:148]"}}});
  const auto f = c.faults();
  REQUIRE(f.count("fault.runtime.device_lost_heartbeat") == 1);
  CHECK(f.count("fault.acl.error_507010") == 1);
  CHECK(f.count("fault.runtime.drv_api_failed") == 1);
  // the EL0001 header opens the TraceBack block that names the heartbeat loss: one event (a line
  // or one error block), claimed by the specific fault, not also by the generic EL bucket
  CHECK(f.count("fault.cann.driver_error") == 0);
  // `runtime result = 507010` is also a hit of the generic runtime-result signature: the line
  // is one fault event (acl.error_507010), not two
  CHECK(f.count("fault.acl.runtime_result_error") == 0);
  const auto hb = c.fault("fault.runtime.device_lost_heartbeat");
  CHECK(hb["fault_class"] == "hardware");
  CHECK(hb["severity"] == "critical");
  CHECK(hb["fault"].find("\"count\":3") != std::string::npos);
  CHECK(hb["fault"].find("device 0") != std::string::npos);
  CHECK(c.fault("fault.acl.error_507010")["explained_by"] == "fault.runtime.device_lost_heartbeat");
  const auto drv = c.fault("fault.runtime.drv_api_failed");
  CHECK(drv["fault_role"] == "symptom");
  CHECK(drv["fault"].find("\"code\":\"33\"") != std::string::npos);
  CHECK(drv["fault"].find("halCqReportRecv") != std::string::npos);
}

TEST_CASE("a generic code-family fault keeps the lines no specific fault claims") {
  // the EL9999 bucket line names a heartbeat loss (specific); the EL0001 line only the bucket
  Case c({{"logs/train_rank0.log",
           {"EL9999[PID: 818] 2026-08-13-15:31:21.888.208 (EL9999):  Device[0] lost heartbeat.",
            "[PID: 1070] 2026-04-30-23:39:01.135.160 Device_Absent/Abnormal(EL0001): Device not "
            "found or invalid."}}});
  const auto drv = c.fault("fault.cann.driver_error");
  CHECK(drv["line"] == "2");
  CHECK(drv["fault"].find("\"count\":1") != std::string::npos);
  CHECK(drv["fault"].find("\"code\":\"EL0001\"") != std::string::npos);
  CHECK(c.fault("fault.runtime.device_lost_heartbeat")["line"] == "1");
}

TEST_CASE("a console with a TSD open failure under vLLM worker prefixes") {
  // hw-native-sys/PTOAS #765 (board test), vllm-project/vime #434 (vLLM v1 worker prefixes) and
  // LLaMA-Factory #7447 (vLLM before 0.6.4: file without the opening bracket), verbatim
  Case c({{"logs/vllm_serve.log",
           {"[ERROR] aclrtSetDevice(deviceId) failed: 507033 (/home/zhongxuan/ptoas-board-monitor/"
            "runtime/runs/20260624_154801_manual_pr765/npu_validation/planmemory/"
            "plan_memory_if_in_loop/main.cpp:98)",
            "[ERROR] RecentErrMsg: [PID: 3731651] 2026-06-24-16:04:50.791.512 "
            "Inner_Error_TSDaemon_Process_Abnormal(E39005): The TSDaemon process initialization "
            "is abnormal.",
            "        TraceBack (most recent call last):",
            "        TsdOpen failed. devId=2, tdt error=1[FUNC:PrintfTsdError][FILE:runtime.cc]"
            "[LINE:2638]",
            "        open device 2 failed, runtime result = 507033.[FUNC:ReportCallError]"
            "[FILE:log_inner.cpp][LINE:148]",
            "(VLLMEngine pid=3599803) (Worker pid=3600530) (Worker pid=3600538) ERROR 09-15 "
            "13:02:43 [multiproc_executor.py:870] E39999[PID: 3600530] 2026-09-15-13:02:35.314.621 "
            "(E39999):  TsdOpen failed. devId=9, tdt error=1[FUNC:PrintfTsdError][FILE:runtime.cc]"
            "[LINE:2638]",
            "(VllmWorkerProcess pid=1743) ERROR 03-25 12:50:16 multiproc_worker_utils.py:242] "
            "RuntimeError: Cannot re-initialize NPU in forked subprocess. To use NPU with "
            "multiprocessing, you must use the 'spawn' start method"}}});
  const auto f = c.faults();
  REQUIRE(f.count("fault.runtime.tsd_open_failed") == 1);
  CHECK(f.count("fault.acl.error_507033") == 1);
  CHECK(f.count("fault.acl.runtime_result_error") == 0);  // line 5 is 507033's
  CHECK(f.count("fault.cann.aicpu_error") == 0);          // the E39999 line is the TSD's
  const auto tsd = c.fault("fault.runtime.tsd_open_failed");
  CHECK(tsd["fault"].find("\"count\":3") != std::string::npos);
  CHECK(c.fault("fault.acl.error_507033")["explained_by"] == "fault.runtime.tsd_open_failed");
  // the old vLLM logger prefix is read: level and the payload after the file
  const auto ev = query(c.db(), "SELECT severity, text FROM events WHERE line = 7");
  REQUIRE(ev.size() == 1);
  CHECK(ev.front()["severity"] == "error");
}

TEST_CASE("an import failing on an undefined symbol is an ABI fault naming library and symbol") {
  // Ascend/pytorch #35 (mmengine wrapper of a transformers import), verbatim
  Case c({{"logs/train.log",
           {"05/22 09:09:35 - mmengine - WARNING - WARNING: command error: 'Failed to import "
            "transformers.optimization because of the following error (look up to see its "
            "traceback):",
            "/home/ma-user/anaconda3/envs/PyTorch-2.1.0/lib/python3.9/site-packages/torch_npu/lib/"
            "libtorch_npu.so: undefined symbol: _ZN5torch10ValueErrorC1EPKcz'!"}}});
  const auto u = c.fault("fault.env.undefined_symbol");
  CHECK(u["fault_class"] == "user_config");
  CHECK(u["line"] == "2");
  CHECK(u["fault"].find("libtorch_npu.so needs the symbol _ZN5torch10ValueErrorC1EPKcz") !=
        std::string::npos);
}

TEST_CASE("an atc conversion with an operator that fails to compile") {
  // Tlntin/qwen-ascend-llm #11 (atc of a Qwen model), verbatim
  Case c(
      {{"logs/atc.log",
        {"        Failed to compile Op [/model/layers.30/self_attn/Slice_ascend_mbatch_batch_5]. "
         "(optype: [StridedSliceD])",
         "        [SubGraphOpt][Pre-Comp]Failed to pre-compile node /model/layers.30/self_attn/"
         "Slice_ascend_mbatch_batch_5. thread id is [281471403010624], task is [297]."
         "[FUNC:ParallelPreCompileOp][FILE:tbe_op_store_adapter.cc][LINE:622]",
         "        build graph failed, graph id:0, ret:4294967295[FUNC:BuildModelWithGraphId]"
         "[FILE:ge_generator.cc][LINE:1622]"}}});
  const auto op = c.fault("fault.cann.op_compile_failed");
  CHECK(op["fault_class"] == "cann");
  CHECK(op["fault"].find("(type StridedSliceD)") != std::string::npos);
  CHECK(op["fault"].find("\"count\":2") != std::string::npos);
}

TEST_CASE("a device plog with an fftsplus AI Core exception (board-test wording)") {
  // hw-native-sys/PTOAS #716, verbatim (cut after the dump fields)
  Case c(
      {{"logs/run.log",
        {"[ERROR] aclrtSynchronizeStream(stream) failed: 507015 (/home/zhongxuan/"
         "ptoas-board-monitor/runtime/runs/20260528_112305_merged_pr716/npu_validation/"
         "Qwen3DecodeA3/down_proj_residual/main.cpp:116)",
         "EZ9999[PID: 3283348] 2026-05-28-11:49:10.980.439 (EZ9999):  The error from "
         "device(chipId:2, dieId:0), serial number is 232, there is an exception of fftsplus "
         "aicore error, core id is 15, error code = 0, dump info: pc start: 0x124800000394, "
         "current: 0x124800000654, vec error info: 0",
         "       Kernel task happen error, retCode=0x26, [aicore exception].[FUNC:PreCheckTaskErr]"
         "[FILE:davinci_kernel_task.cc][LINE:1729]"}}});
  const auto f = c.faults();
  REQUIRE(f.count("fault.device.aicore_exception") == 1);
  CHECK(c.fault("fault.device.aicore_exception")["fault"].find("\"count\":2") != std::string::npos);
  CHECK(f.count("fault.acl.error_507015") == 1);
}

TEST_CASE("an environment-check dump whose commands have no directory (npu_info_collect.sh)") {
  // layout of MindCluster's npu_info_collect.sh (a Datetime line, each command echoed before its
  // answer, `echo -e "\n"` = two blank lines after it) with the commands as the issue quotes
  // them (no directory); answers in the formats of the samples and of MindCluster's hccn.go
  Case c({{"environment_check/npu_info_after.txt",
           {"Datetime: 2026-05-27 14:03:11.123456",
            "",
            "",
            "cat /usr/local/Ascend/driver/version.info",
            "Version=25.5.1",
            "",
            "",
            "pip list | grep torch-npu",
            "torch-npu                     2.6.0",
            "",
            "",
            "lspci | grep acce",
            "01:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)",
            "",
            "",
            "npu-smi info -t health -i 0 -c 0",
            "Health Status                  : OK",
            "Error Code                     : NA",
            "Error Information              : NA",
            "",
            "",
            "hccn_tool -i 0 -link -g",
            "link status: DOWN",
            "",
            "",
            "hccn_tool -i 0 -link_stat -g",
            "[device 0]current time        : Wed Jun  7 10:08:28 2023",
            "[device 0]link up count       : 2",
            "[device 0]link change records :",
            "[device 0]    Tue Jun  6 16:32:12 2023    LINK UP",
            "",
            ""}}});
  CHECK(query(c.db(), "SELECT kind FROM members").front()["kind"] == "composite");
  // each command reached the parser of its kind
  const auto drv =
      query(c.db(), "SELECT value, line FROM facts WHERE name = 'driver.version.installed'");
  REQUIRE(drv.size() == 1);
  CHECK(drv.front()["value"] == "25.5.1");
  CHECK(drv.front()["line"] == "5");
  CHECK(query(c.db(), "SELECT 1 FROM facts WHERE name LIKE 'npu.0.health%'").size() >= 1);
  const auto f = c.faults();
  CHECK(f.count("fault.hccn.link_down") == 1);
  CHECK(f.size() == 1);
}

TEST_CASE("composite: bare collector commands without a directory") {
  using parse::CompositeParser;
  CHECK(CompositeParser::bare_command("npu-smi info -t health -i 0 -c 0") ==
        "npu-smi info -t health -i 0 -c 0");
  CHECK(CompositeParser::bare_command("hccn_tool -i 0 -link_stat -g") ==
        "hccn_tool -i 0 -link_stat -g");
  CHECK(CompositeParser::bare_command("cat /usr/local/Ascend/driver/version.info") ==
        "cat /usr/local/Ascend/driver/version.info");
  CHECK(CompositeParser::bare_command("pip list | grep \"torch \"") ==
        "pip list | grep \"torch \"");
  CHECK(CompositeParser::bare_command("lspci | grep acce") == "lspci | grep acce");
  // answers and prose are not commands
  CHECK(CompositeParser::bare_command("npu-smi version: 23.0.3").empty());
  CHECK(CompositeParser::bare_command("Version=25.5.1").empty());
  CHECK(CompositeParser::bare_command("cat: /etc/foo: No such file or directory").empty());
  CHECK(CompositeParser::bare_command("cat the file").empty());
  CHECK(CompositeParser::bare_command("torch-npu                     2.6.0").empty());
  CHECK(CompositeParser::bare_command("npu-smi").empty());
  CHECK(CompositeParser::bare_command("pip                      23.0.1").empty());
  CHECK(CompositeParser::bare_command("pip install torch_npu").empty());
}

TEST_CASE("a vLLM console with an SDMA error: the device's report explains the ACL code") {
  // gpustack/gpustack #3315 (310P under vllm-ascend), verbatim
  Case c({{"logs/vllm_serve.log",
           {"(EngineCore_DP0 pid=415)         rtDeviceSynchronizeWithTimeout execute failed, "
            "reason=[sdma copy error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
            "(EngineCore_DP0 pid=415)         wait for compute device to finish failed, runtime "
            "result = 507013.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]",
            "(EngineCore_DP0 pid=415) ", "(EngineCore_DP0 pid=415) DEVICE[0] PID[415]: ",
            "(EngineCore_DP0 pid=415) EXCEPTION STREAM:",
            "(EngineCore_DP0 pid=415)   Exception info:TGID=3256087, model id=65535, stream id=1, "
            "stream phase=3",
            "(EngineCore_DP0 pid=415)   Message info[0]:RTS_HWTS: hwts sdma error, slot_id=15, "
            "stream_id=1",
            "[rank0]:[W1117 11:40:21.576782641 compiler_depend.ts:528] Warning: NPU warning, error "
            "code is 507013[Error]: ",
            "[Error]: System Direct Memory Access (DMA) hardware execution error. "}}});
  const auto f = c.faults();
  REQUIRE(f.count("fault.device.sdma_error") == 1);
  REQUIRE(f.count("fault.acl.error_507013") == 1);
  CHECK(f.count("fault.acl.runtime_result_error") == 0);
  CHECK(c.fault("fault.device.sdma_error")["fault_class"] == "hardware");
  CHECK(c.fault("fault.acl.error_507013")["explained_by"] == "fault.device.sdma_error");
}
