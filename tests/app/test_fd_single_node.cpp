// Single-node collections in the layout of the vendor's diagnosis tool (ascend-fd, MindCluster
// FaultDiag: dl_log/<component>/, mindie/log/debug/, ttp_log, amct_log/, the vLLM serving log),
// one bundle per family of component logs, analysed end to end: each fault the vendor tool reports
// for these files is a faultline fault finding of a native signature, named with the ascend-fd code
// as its external code (docs/faults.md "Cluster components"). A raised-then-cleared switch alarm is
// no fault. Lines: the real-format lines of the vendor's own tests (test_interface.py, the kg_parse
// fixtures of test_kg_parse.py), quoted in rules/signatures/{mindx_dl,mindie,mindio,amct}.yaml.
#include <sqlite3.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../common/temp_dir.hpp"
#include "faultline/app/app.hpp"

using namespace faultline;
namespace fs = std::filesystem;

namespace {

std::vector<std::map<std::string, std::string>> query(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  std::vector<std::map<std::string, std::string>> out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    std::map<std::string, std::string> r;
    for (int i = 0; i < sqlite3_column_count(s); ++i) {
      const auto* t = sqlite3_column_text(s, i);
      r[sqlite3_column_name(s, i)] = t ? reinterpret_cast<const char*>(t) : "";
    }
    out.push_back(std::move(r));
  }
  sqlite3_finalize(s);
  return out;
}

using Files = std::map<std::string, std::vector<std::string>>;

class Bundle {
 public:
  explicit Bundle(const std::map<std::string, std::vector<std::string>>& files)
      : dir_("faultline-fd-node") {
    const fs::path b = dir_.path() / "bundle";
    for (const auto& [p, lines] : files) {
      fs::create_directories((b / p).parent_path());
      std::ofstream out(b / p);
      for (const auto& l : lines) out << l << "\n";
    }
    app::Options o;
    o.cache_dir = dir_.path() / "cache";
    db_ = store::Db::open(dir_.path() / "case.db");
    REQUIRE(app::analyze(*db_, b, o).exit_code == 0);
  }
  sqlite3* db() { return db_->handle(); }
  // fault finding id -> its fault JSON
  // finding id -> its fault block; one id per external code (a finding per code)
  std::multimap<std::string, std::string> faults() {
    std::multimap<std::string, std::string> m;
    for (auto& r : query(db(), "SELECT finding, fault FROM findings WHERE kind = 'fault'"))
      m.emplace(r["finding"], r["fault"]);
    return m;
  }
  std::string kind(const std::string& member) {
    const auto r = query(db(), "SELECT kind FROM members WHERE path = '" + member + "'");
    return r.empty() ? "" : r.front().at("kind");
  }
  std::string first_time(const std::string& finding) {
    const auto r = query(db(),
                         "SELECT COALESCE(first_time_ns, '') AS t FROM findings WHERE "
                         "finding = '" +
                             finding + "'");
    return r.empty() ? "" : r.front().at("t");
  }

 private:
  test::TempDir dir_;
  std::unique_ptr<store::Db> db_;
};

bool has_code(const std::multimap<std::string, std::string>& f, const std::string& id,
              const std::string& code) {
  const auto [b, e] = f.equal_range(id);
  return std::any_of(b, e, [&](const auto& kv) {
    return kv.second.find("\"code\":\"" + code + "\"") != std::string::npos;
  });
}

const char* const kSwitchNpuRaised =
    "[WARN]     2024/01/10 03:30:38.643330 17      deviceswitch/ascend_switch.go:190    switch "
    "subscribe got fault:deviceswitch.SwitchFaultEvent{EventType:0x4, FaultID:0xf1ff09, "
    "AssembledFaultCode:\"[0x00f1ff09,155912,npu,na]\", PeerPortDevice:0x1, PeerPortId:0x2, "
    "SwitchChipId:0x0, SwitchPortId:0x0, Severity:0x0, Assertion:0x1, EventSerialNum:0, "
    "NotifySerialNum:0, AlarmRaisedTime:0, AdditionalParam:\"\", AdditionalInfo:\"\"}, "
    "faultCode:[0x00f1ff09,155912,npu,na]";

std::string switch_line(const std::string& stamp, const std::string& code, const char* peer_dev,
                        const char* assertion) {
  return "[WARN]     2024/01/10 " + stamp +
         " 17      deviceswitch/ascend_switch.go:190    switch subscribe got "
         "fault:deviceswitch.SwitchFaultEvent{EventType:0x4, FaultID:0xf103b0, "
         "AssembledFaultCode:\"" +
         code + "\", PeerPortDevice:" + peer_dev +
         ", PeerPortId:0x2, SwitchChipId:0x0, SwitchPortId:0x0, Severity:0x0, Assertion:" +
         assertion +
         ", EventSerialNum:0, NotifySerialNum:0, AlarmRaisedTime:0, AdditionalParam:\"\", "
         "AdditionalInfo:\"\"}, faultCode:" +
         code;
}

}  // namespace

TEST_CASE("dl_log: device-plugin switch alarms, cleared ones are not faults") {
  // the vendor's recovery test: 0x00f103b0 raised then de-asserted (recovered); the npu-side
  // 0x00f1ff09 raised in the rotated file and cleared in the current one (across files); the
  // cpu-side 0x00f1ff09 raised and never cleared
  Bundle b({{"dl_log/devicePlugin/devicePlugin-2024-01-10T03-30-45.197.log",
             {kSwitchNpuRaised,
              switch_line("03:31:38.643290", "[0x00f103b0,155907,na,na]", "0x0", "0x1")}},
            {"dl_log/devicePlugin/devicePlugin.log",
             {switch_line("03:32:38.643290", "[0x00f103b0,155907,na,na]", "0x0", "0x0"),
              switch_line("03:33:00.000001", "[0x00f1ff09,155912,npu,na]", "0x1", "0x0"),
              switch_line("03:34:00.000001", "[0x00f1ff09,155912,cpu,na]", "0x1", "0x1")}}});
  CHECK(b.kind("dl_log/devicePlugin/devicePlugin.log") == "mindx_dl_log");
  CHECK(b.kind("dl_log/devicePlugin/devicePlugin-2024-01-10T03-30-45.197.log") == "mindx_dl_log");
  const auto f = b.faults();
  CHECK(has_code(f, "fault.mindx_dl.switch_engine_port_fault_cpu", "Comp_Switch_L1_05"));
  CHECK(f.count("fault.mindx_dl.switch_engine_function_fault") == 0);  // L1_01 recovered
  CHECK(f.count("fault.mindx_dl.switch_engine_port_fault_npu") == 0);  // L1_06 recovered
  CHECK(f.count("fault.mindx_dl.switch_fault_cleared") == 0);
  CHECK(!b.first_time("fault.mindx_dl.switch_engine_port_fault_cpu").empty());  // hwlog is timed
}

TEST_CASE("dl_log: a raised switch alarm without its clearing line is a fault") {
  Bundle b(Files{{"dl_log/devicePlugin/devicePlugin.log", {kSwitchNpuRaised}}});
  const auto f = b.faults();
  CHECK(has_code(f, "fault.mindx_dl.switch_engine_port_fault_npu", "Comp_Switch_L1_06"));
}

TEST_CASE("dl_log: noded, npu-exporter, docker runtime and volcano faults with ascend-fd codes") {
  Bundle b(
      {{"dl_log/noded/noded.log",
        {"[INFO]     2999/10/01 03:39:17.760916 305     ipmimonitor/ipmi_monitor.go:206    get "
         "fault event, [device type: CPU]-[device id: 0]-[error code: 0000001D]",
         "[INFO]     2999/10/01 03:39:18.760916 305     ipmimonitor/ipmi_monitor.go:206    get "
         "fault event, [device type: BMC]-[device id: 255]-[error code: 2C000031]"}},
       {"dl_log/npu-exporter/npu-exporter.log",
        {"[ERROR]    2024/01/10 02:29:39.034681 60      collector/npu_collector.go:1924    "
         "deviceManager init failed, prepare dcmi failed, err: cannot found valid driver lib, "
         "fromEnv: lib path is invalid, [/usr/local/Ascend/driver/lib64/driver/libdcmi.so: "
         "check uid or mode failed; /usr/local/dcmi/libdcmi.so: check uid or mode failed;]"}},
       {"dl_log/ascend-docker-runtime/runtime-run.log",
        {"[INFO]     2024/01/10 03:29:09.354927 1       hwlog/api.go:108    failed to check "
         "files, owner not right /usr/bin/runc xxxx"}},
       {"dl_log/volcano-scheduler/volcano-scheduler.log",
        {"E0111 03:29:15.991928       1 reschedule.go:533]    Failed to get plugin "
         "volcano-npu_xxx_linux-xxx"}},
       {"dl_log/volcano-controller/volcano-controller.log",
        {"E0111 03:29:16.002107       1 job_controller_actions.go:446] Failed to create pod "
         "mindx-dls-test-default-test-0 for Job mindx-dls-test, err quota exceeded"}}});
  CHECK(b.kind("dl_log/noded/noded.log") == "mindx_dl_log");
  CHECK(b.kind("dl_log/ascend-docker-runtime/runtime-run.log") == "mindx_dl_log");
  CHECK(b.kind("dl_log/volcano-scheduler/volcano-scheduler.log") == "volcano_log");
  const auto f = b.faults();
  CHECK(has_code(f, "fault.mindx_dl.noded_cpu_fault", "0x0000001D"));
  CHECK(has_code(f, "fault.mindx_dl.noded_system_fault", "0x2C000031"));
  CHECK(has_code(f, "fault.mindx_dl.npu_exporter_dcmi_init_failed", "AISW_MindX_Npu_Exporter_01"));
  CHECK(has_code(f, "fault.mindx_dl.docker_runtime_runc_check_failed",
                 "AISW_MindX_Docker_Runtime_02"));
  CHECK(has_code(f, "fault.mindx_dl.volcano_npu_plugin_missing", "AISW_MindX_Volcano_03"));
  CHECK(has_code(f, "fault.mindx_dl.volcano_pod_create_failed", "AISW_MindX_Volcano_10"));
}

TEST_CASE("mindie: the MindIE-MS timeout and the generic MindIE error code") {
  // the kg_parse fixture mindie/log/debug/mindie-ms_11_202411061400.log, verbatim
  Bundle b({{"mindie/log/debug/mindie-ms_11_202411061400.log",
             {"[2024-11-05 12:00:00.123456] [11] [1] [MS] [1] [ERROR] : [MIE03E400008] "
              "[HttpServer] Http server on timeout",
              "[2025-06-23 10:53:57.023+0800] [13818] [281473324085472] [batchscheduler] [INFO] "
              "[config.py:208] :  [Config]>>> local link info: global_rank = 48, local_host_ip = "
              "172.26.2.227, local_instance_id = 20347916160048, local_device_ip = 10.0.2.31, "
              "local_logic_device_id = 6, local_physical_device_id = 6.",
              "[2025-06-30 20:36:02.906+08:00] [8771] [8775] [server] [ERROR] "
              "[llm_infer_engine.cpp:230] : MIE1AE66666B[llm_backend] get model instance cache "
              "block nums failed."}}});
  CHECK(b.kind("mindie/log/debug/mindie-ms_11_202411061400.log") == "mindie_log");
  const auto f = b.faults();
  CHECK(has_code(f, "fault.mindie.ms_http_server_timeout", "AISW_MindIE_MS_HttpServer_01"));
  // the code template fills each hit's code: one fault event per code, as ascend-fd reports them
  CHECK(has_code(f, "fault.mindie.error_code", "AISW_MindIE_ERRCODE_Common_MIE03E400008"));
  CHECK(has_code(f, "fault.mindie.error_code", "AISW_MindIE_ERRCODE_Common_MIE1AE66666B"));
  CHECK(f.count("fault.mindie.error_code") == 2);
}

TEST_CASE("vllm: vLLM / vllm-ascend serving faults carry their ascend-fd codes") {
  // the stdout of vllm serve (a train_log by its name); lines of vllm-ascend #8621 and vllm
  // #10439 verbatim, the others in the same process-prefix shape from the vllm-ascend sources
  // (rules/signatures/vllm.yaml)
  Bundle b({{"vllm_serve.log",
             {"(APIServer pid=2056) AssertionError: EPLB must used in expert parallelism.",
              "(EngineCore_DP0 pid=2198) ValueError: Free memory on device (27.18/60.96 GiB) on "
              "startup is less than desired GPU memory utilization (0.9, 54.86 GiB). Decrease GPU "
              "memory utilization or reduce GPU memory used by other processes.",
              "vllm-1  | ERROR 11-18 18:07:28 engine.py:366] ValueError: No available memory for "
              "the cache blocks. Try increasing `gpu_memory_utilization` when initializing the "
              "engine.",
              "(Worker_TP0 pid=3401) ERROR 12-03 10:25:13 [mooncake_backend.py:96] Initialize "
              "mooncake failed. ret=-1, metadata_server=P2PHANDSHAKE. Check mooncake config and "
              "network.",
              "(EngineCore_DP0 pid=4410) WARNING 12-03 10:22:09 [sampler.py:64] [sample/sampler] "
              "Triton not available, falling back to vLLM default penalty implementation. Penalty "
              "performance may be degraded on NPU.",
              "(Worker_TP0 pid=3401) ModuleNotFoundError: No module named 'yr'",
              // not a vLLM fault: stays the Python exception (vllm-project/vllm-omni #2170)
              "(APIServer pid=835044) pydantic_core._pydantic_core.ValidationError: 1 validation "
              "error for ModelConfig"}}});
  CHECK(b.kind("vllm_serve.log") == "train_log");
  const auto f = b.faults();
  CHECK(has_code(f, "fault.vllm.ascend_eplb_without_ep", "AISW_VLLM_ASCEND_EPLB_001"));
  CHECK(has_code(f, "fault.train.vllm_free_memory_insufficient", "AISW_VLLM_ENGINE_002"));
  CHECK(has_code(f, "fault.vllm.kv_cache_no_memory", "AISW_VLLM_ENGINE_001"));
  CHECK(has_code(f, "fault.vllm.ascend_mooncake_init_failed",
                 "AISW_VLLM_ASCEND_KV_POOL_MOONCAKE_002"));
  CHECK(has_code(f, "fault.vllm.ascend_triton_penalty_fallback", "AISW_VLLM_ASCEND_SAMPLER_001"));
  CHECK(has_code(f, "fault.vllm.ascend_rfork_yr_missing", "AISW_VLLM_WEIGHT_LOADER_RFORK_001"));
  // one line, one fault event: the lines above are not also Python exceptions or a missing module
  CHECK(!has_code(f, "fault.train.python_exception", "AISW_TRACEBACK_AssertionError"));
  CHECK(!has_code(f, "fault.train.python_exception", "AISW_TRACEBACK_ValueError"));
  CHECK(f.count("fault.env.python_module_missing") == 0);
  CHECK(has_code(f, "fault.train.python_exception",
                 "AISW_TRACEBACK_pydantic_core._pydantic_core.ValidationError"));
  CHECK(f.count("fault.vllm.speculative_method_invalid") == 0);
}

TEST_CASE("ttp_log and amct_log faults") {
  Bundle b({{"dl_log/ttp_log/ttp_log.log.1",
             {"2024-06-18 17:25:30,001 - INFO - [TTP controller.cpp:401] controller start",
              "2024-06-18 17:25:32,167 - WARNING - [TTP controller.cpp:1021] NormalCallback "
              "found abnormal, ret: 1, againRet: 1"}},
            {"amct_log/amct_onnx.log",
             {"2024-10-23 10:47:11,976 - INFO - [AMCT]:[AMCT]: Layer batchmatmul_2 does not "
              "support asymmetric quant, set symmetric, No layer support in the graph"}}});
  CHECK(b.kind("dl_log/ttp_log/ttp_log.log.1") == "mindio_log");
  CHECK(b.kind("amct_log/amct_onnx.log") == "amct_log");
  const auto f = b.faults();
  CHECK(has_code(f, "fault.mindio.ttp_rank_link_broken", "AISW_MindIO_TTP_01"));
  CHECK(has_code(f, "fault.amct.no_quantizable_layer", "AISW_CANN_AMCT_ALL_001"));
  CHECK(!b.first_time("fault.amct.no_quantizable_layer").empty());
}

TEST_CASE("healthy component logs give no fault event") {
  Bundle b({{"dl_log/devicePlugin/devicePlugin.log",
             {"[INFO]     2024/01/10 03:29:09.354927 1       hwlog/api.go:108    "
              "devicePlugin.log's logger init success"}},
            {"dl_log/noded/noded.log",
             {"[INFO]     2999/10/01 03:39:17.760916 305     ipmimonitor/ipmi_monitor.go:120    "
              "start ipmi monitor"}},
            {"mindie/log/debug/mindie-ms_11_202411061400.log",
             {"[2025-06-23 10:53:57.023+0800] [13818] [281473324085472] [batchscheduler] [INFO] "
              "[config.py:208] :  [Config]>>> local link info: global_rank = 48"}}});
  CHECK(b.faults().empty());
}

TEST_CASE("lcne_log: switch alarm ids, times converted from the printed zone") {
  Bundle b(Files{{"lcne_log/log_1_20250814013158.log",
                  {"Aug 12 2025 08:53:46+08:00 Z3_22R_99_30 %%01CLI/5/CMDRECORD(s):CID=0x80ca2713;"
                   "Recorded command information. alarmID=0x00f1ff09"}}});
  CHECK(b.kind("lcne_log/log_1_20250814013158.log") == "lcne_log");
  const auto f = b.faults();
  CHECK(has_code(f, "fault.lcne.fwd_engine_port_alarm", "Comp_Switch_L1_02"));
  // 08:53:46 at +08:00 is 00:53:46 UTC
  CHECK(b.first_time("fault.lcne.fwd_engine_port_alarm") == "1754960026000000000");
}

TEST_CASE("a real npu-exporter startup outside Kubernetes: only the CRI warning is a fault") {
  // startup log of a public npu-exporter deployment guide (the guide calls this run normal)
  Bundle b(Files{
      {"dl_log/npu-exporter/npu-exporter.log",
       {"[INFO]     2024/05/29 08:44:37.646867 1       hwlog/api.go:108    npu-exporter.log's "
        "logger init success",
        "[INFO]     2024/05/29 08:44:37.647220 1       npu-exporter/main.go:325    npu exporter "
        "starting and the version is v5.0.0.5_linux-aarch64",
        "[WARN]     2024/05/29 08:44:37.912953 1       npu-exporter/main.go:339    enable unsafe "
        "http server",
        "[WARN]     2024/05/29 08:44:42.912845 295     container/runtime_ops.go:127    connecting "
        "to CRI server failed: context deadline exceeded",
        "[ERROR]    2024/05/29 08:44:42.912940 295     collector/npu_collector.go:414    failed "
        "to init devices parser: init CRI client failed, connecting to CRI server failed: "
        "context deadline exceeded->co",
        "nnecting to container runtime failed",
        "[INFO]     2024/05/29 08:44:42.912963 295     collector/npu_collector.go:418    Starting "
        "update cache every 5 seconds",
        "[ERROR]    2024/05/29 08:45:06.702297 678     collector/npu_collector.go:711    Error "
        "container npu info cache and convert failed"}}});
  const auto f = b.faults();
  REQUIRE(f.size() == 1);
  const auto it = f.find("fault.mindx_dl.npu_exporter_cri_init_failed");
  REQUIRE(it != f.end());
  CHECK(it->second.find("\"role\":\"symptom\"") != std::string::npos);
  CHECK(has_code(f, "fault.mindx_dl.npu_exporter_cri_init_failed", "AISW_MindX_Npu_Exporter_02"));
}

TEST_CASE("slog/host/host_kernel.log: the driver's DMA copy failure of the vendor fixture") {
  // the kg_parse fixture slog/host/host_kernel.log, verbatim (the failure is printed at INFO)
  Bundle b(Files{{"slog/host/host_kernel.log",
                  {"[2025-04-16-03:08:13.704312] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num "
                   "2248] <systemd-udevd:4853:4853> Findout device. (index=7; device=d105; "
                   "dev_num=0)",
                   "[2025-04-16-03:08:13.704360] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num "
                   "2248] <systemd-udevd:4853:4853> DMA copy failed"}}});
  const auto f = b.faults();
  CHECK(f.size() == 1);
  CHECK(has_code(f, "fault.driver.pcie_dma_copy_failed", "AISW_CANN_DRV_PCIE_046"));
}

// The vendor's environment check (MindCluster `npu_info_before.txt` / `npu_info_after.txt`):
// each command line, its answer, a blank line. Layouts as npu-smi 23.x and hccn_tool print them
// (log-formats.md §5.6; the vendor's environment-check test input); values of this test's own.
const std::vector<std::string> kBefore = {
    "Datetime: 2025-03-02 09:41:07.118220",
    "",
    "/usr/local/bin/npu-smi info -m",
    "\tNPU ID                         Chip ID                        Chip Logic ID                 "
    " "
    "Chip Name",
    "\t0                              0                              0                             "
    " "
    "Ascend 910B3",
    "\t1                              0                              1                             "
    " "
    "Ascend 910B3",
    "",
    "/usr/local/bin/npu-smi info",
    "",
    "/usr/local/Ascend/driver/tools/hccn_tool -i 1 -optical -g",
    "optical info:",
    "present              : not present",
    "Tx Power0            : 0.9120 mW",
    "Rx Power0            : 0.0031 mW",
    "TxPower High Thres   : 3.5481 mW",
    "TxPower Low Thres    : 0.2818 mW",
    "RxPower High Thres   : 3.5481 mW",
    "RxPower Low Thres    : 0.1445 mW",
    "Tx Los Flag          : 0x0",
    "Rx Los Flag          : 0xf",
    "Tx LoL Flag          : 0x0",
    "Rx LoL Flag          : 0x3",
    "",
    "/usr/local/bin/npu-smi info -i 1 -c 0 -t board",
    "\tNPU ID                         : 1",
    "\tChip Name                      : 910B3",
    "\tBoard ID                       : 0x22",
    "\tPCIe Bus Info                  : 0000:9D:00.0",
    "",
    "/usr/local/bin/npu-smi info -i 1 -t usages",
    "\tNPU ID                         : 1",
    "\tHBM Capacity(MB)               : 49152",
    "",
    "lspci | grep acce",
    "9c:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)",
    "9d:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)",
    "",
    "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -ip -g",
    "ipaddr:29.17.40.11",
    "netmask:255.255.255.0",
    "",
    "/usr/local/Ascend/driver/tools/hccn_tool -i 1 -ip -g",
    "",
    "/usr/local/bin/npu-smi info -i 1 -c 0 -t health",
    "\tHealth Status                  : Alarm",
    "\tError Code                     : 80E18005 80CB8002",
    "\tError Information              : NA"};
const std::vector<std::string> kAfter = {
    "lspci | grep acce",
    "9c:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)",
    "",
    "/usr/local/bin/npu-smi info -i 1 -t board",
    "Invalid card id.",
    "Error parameter of -i",
    "Usage: npu-smi info <watch|proc|-h|-m|-l|-t type> [Options...]"};

bool has_fault_on(sqlite3* db, const std::string& id, const std::string& member, int line) {
  return !query(db,
                "SELECT 1 FROM findings f JOIN finding_evidence fe ON fe.finding_id = f.id "
                "WHERE f.finding = '" +
                    id + "' AND fe.member LIKE '%" + member +
                    "' AND fe.line = " + std::to_string(line))
              .empty();
}

TEST_CASE("npu_info: the environment check's optical, IP, HBM, card and health judgements") {
  Bundle b({{"worker-0/environment_check/npu_info_before.txt", kBefore},
            {"worker-0/environment_check/npu_info_after.txt", kAfter}});
  const auto f = b.faults();
  CHECK(has_code(f, "fault.hccn.optical_not_present", "Comp_Network_Custom_05"));
  CHECK(has_code(f, "fault.hccn.optical_power_out_of_range", "Comp_Network_Custom_08"));
  CHECK(has_code(f, "fault.hccn.optical_los", "Comp_Network_Custom_09"));
  CHECK(has_code(f, "fault.hccn.optical_lol", "Comp_Network_Custom_10"));
  CHECK(has_code(f, "fault.hccn.ip_not_configured", "Comp_Network_Custom_07"));
  CHECK(has_code(f, "fault.npu_smi.hbm_below_rated", "AISW_CANN_DRV_Custom_01"));
  CHECK(has_code(f, "fault.npu_smi.card_invisible", "Comp_NPU_DRV_Custom_02"));
  CHECK(has_code(f, "fault.pcie.npu_dropped", "Comp_NPU_DRV_Custom_01"));
  CHECK(has_code(f, "fault.npu_smi.no_answer", "Comp_Network_Custom_06"));
  // every code of `Error Code : A B` is its own fault event
  CHECK(has_code(f, "fault.npu_smi.health_error_code", "0x80E18005"));
  CHECK(has_code(f, "fault.npu_smi.health_error_code", "0x80CB8002"));
  // evidence at the lines that show it: the power reading, the flag, the empty IP answer, ...
  sqlite3* db = b.db();
  CHECK(has_fault_on(db, "fault.hccn.optical_not_present", "npu_info_before.txt", 12));
  CHECK(has_fault_on(db, "fault.hccn.optical_power_out_of_range", "npu_info_before.txt", 14));
  CHECK(has_fault_on(db, "fault.hccn.optical_los", "npu_info_before.txt", 20));
  CHECK(has_fault_on(db, "fault.hccn.optical_lol", "npu_info_before.txt", 22));
  CHECK(has_fault_on(db, "fault.hccn.ip_not_configured", "npu_info_before.txt", 42));
  CHECK(has_fault_on(db, "fault.npu_smi.hbm_below_rated", "npu_info_before.txt", 32));
  CHECK(has_fault_on(db, "fault.npu_smi.card_invisible", "npu_info_after.txt", 5));
  CHECK(has_fault_on(db, "fault.npu_smi.no_answer", "npu_info_before.txt", 8));
  // the dropped card: 9d:00.0 (NPU 1 by its board query) is listed before, gone after; the
  // record is in whichever of the two files the bundle streamed second
  const auto drop = query(db,
                          "SELECT f.fault, fe.text FROM findings f JOIN finding_evidence fe ON "
                          "fe.finding_id = f.id WHERE f.finding = 'fault.pcie.npu_dropped'");
  REQUIRE(drop.size() == 1);
  CHECK(drop[0].at("text").find("NPU 1 (PCIe 9d:00.0)") != std::string::npos);
  CHECK(drop[0].at("fault").find("9c:00.0") == std::string::npos);  // still listed
  // NIC 0 has its address; no other code on the IP query
  CHECK(f.count("fault.hccn.ip_not_configured") == 1);
}

TEST_CASE("npu_info: healthy answers and Atlas 900 PoD boards give no environment fault") {
  Bundle b(
      {{"worker-0/environment_check/npu_info_before.txt",
        {
            "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -optical -g",
            "optical info:",
            "present              : not present",
            "Rx Los Flag          : 0xff",
            "",
            "/usr/local/bin/npu-smi info -i 0 -c 0 -t board",
            "\tChip Name                      : 910B2",
            "\tBoard ID                       : 0x32",
            "\tPCIe Bus Info                  : 0000:C1:00.0",
            "",
            "/usr/local/bin/npu-smi info -i 0 -t usages",
            "\tHBM Capacity(MB)               : 65536",
            "",
            "lspci | grep acce",
            "c1:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)",
            "",
            "/usr/local/Ascend/driver/tools/hccn_tool -i 0 -ip -g",
            "ipaddr:29.17.40.12",
            "netmask:255.255.255.0",
            "",
            // an IPv6 address (ipaddr/netmask as the vendor tool's vLLM test prints them)
            "/usr/local/Ascend/driver/tools/hccn_tool -i 1 -ip -g",
            "ipaddr:fe80::1c01:3c0",
            "netmask:ffff:ffff::",
            "",
        }}});
  const auto f = b.faults();
  for (const char* id :
       {"fault.hccn.optical_not_present", "fault.hccn.optical_los", "fault.hccn.ip_not_configured",
        "fault.npu_smi.hbm_below_rated", "fault.pcie.npu_dropped", "fault.npu_smi.no_answer",
        "fault.npu_smi.card_invisible"}) {
    INFO(id);
    CHECK(f.count(id) == 0);
  }
  // a module that monitors no power (zero thresholds, as a copper cable reads) has no range to
  // leave; an absent module prints NA for every reading (hccn_tool's layout): only "not present"
  Bundle dac({{"worker-0/environment_check/npu_info_before.txt",
               {"/usr/local/Ascend/driver/tools/hccn_tool -i 4 -optical -g",
                "optical info:",
                "present              : present",
                "Tx Power0            : 0.0000 mW",
                "Rx Power0            : 0.0012 mW",
                "TxPower High Thres   : 0.0000 mW",
                "TxPower Low Thres    : 0.0000 mW",
                "RxPower High Thres   : 0.0000 mW",
                "RxPower Low Thres    : 0.0000 mW",
                "Tx Los Flag          : 0x0",
                "Rx Los Flag          : 0x0",
                "",
                "/usr/local/Ascend/driver/tools/hccn_tool -i 5 -optical -g",
                "optical info:",
                "present              : not present",
                "temperature          : NA",
                "Tx Power             : NA",
                "Rx Power             : NA",
                "TxPower High Thres   : NA",
                "TxPower Low Thres    : NA"}}});
  const auto fd = dac.faults();
  CHECK(fd.count("fault.hccn.optical_power_out_of_range") == 0);
  CHECK(fd.count("fault.hccn.optical_los") == 0);
  CHECK(fd.count("fault.hccn.optical_not_present") == 1);
  // a query of one function (`lspci -s`) does not list the other cards: none of them dropped
  Bundle one({{"worker-0/environment_check/npu_info_after.txt",
               {"/usr/local/bin/npu-smi info -i 0 -c 0 -t board",
                "\tPCIe Bus Info                  : 0000:C1:00.0", "",
                "/usr/local/bin/npu-smi info -i 1 -c 0 -t board",
                "\tPCIe Bus Info                  : 0000:C2:00.0", "", "lspci -s c1:00.0",
                "c1:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev "
                "20)"}}});
  CHECK(one.faults().count("fault.pcie.npu_dropped") == 0);
}

// ---- the vendor's parse_knowledge_graph interface tests (test_interface.py), as bundles

namespace {

const char* const kAttrInit1 =
    "[INFO] HCCL(11262,python3):2023-01-01-01:48:31.246.088 [trace_attr.c:189](tid:229) attr "
    "init success, timeout=0ms.";
const char* const kAttrInit2 =
    "[INFO] HCCL(11262,python3):2023-01-01-02:00:00.000.000 [trace_attr.c:189](tid:229) attr "
    "init success, timeout=0ms.";
const char* const kNotSchedCpu =
    "[ERROR] HCCL(11262,python3):2023-01-01-01:00:00.000.000 Not sched cpu.";
const char* const kNoSubscriber =
    "[ERROR] HCCL(11262,python3):2023-01-01-02:01:00.000.000 There is no subscribe thread.";

std::string restart_facts(Bundle& b) {
  std::string out;
  for (auto& r : query(b.db(), "SELECT value FROM facts WHERE name = 'run.restart'"))
    out += r["value"] + "\n";
  return out;
}

}  // namespace

TEST_CASE(
    "restart: errors before a process initialised its CANN log again are of the earlier run") {
  // test_resuming_training: process 11262 initialised twice (01:48, 02:00); its 01:00 error is of
  // the earlier run, its 02:01 error of this one
  const std::string run = "process_log/run/plog/plog-123_20240110032852709.log";
  const std::string dbg = "process_log/debug/plog/plog-11262_20240110032852701.log";
  SECTION("initialised twice: only the later error is a fault event") {
    Bundle b({{run, {kAttrInit1, kAttrInit2}}, {dbg, {kNotSchedCpu, kNoSubscriber}}});
    const auto f = b.faults();
    CHECK(has_code(f, "fault.driver.esched_no_subscriber", "AISW_CANN_DRV_ESCH_008"));
    CHECK(f.count("fault.driver.esched_not_sched_cpu") == 0);
    const std::string facts = restart_facts(b);
    CHECK(facts.find("\"before\":\"2023-01-01T01:59:50.000000Z\"") != std::string::npos);
    CHECK(facts.find("\"signature\":\"cann.trace_attr_init\"") != std::string::npos);
  }
  SECTION("initialised once: both errors are fault events") {
    Bundle b({{run, {kAttrInit1}}, {dbg, {kNotSchedCpu, kNoSubscriber}}});
    const auto f = b.faults();
    CHECK(has_code(f, "fault.driver.esched_no_subscriber", "AISW_CANN_DRV_ESCH_008"));
    CHECK(has_code(f, "fault.driver.esched_not_sched_cpu", "AISW_CANN_DRV_ESCH_013"));
    CHECK(restart_facts(b).empty());
  }
  SECTION("the same initialisation line in a rotated copy is no restart") {
    Bundle b(
        {{run, {kAttrInit2}}, {run + ".1", {kAttrInit2}}, {dbg, {kNotSchedCpu, kNoSubscriber}}});
    CHECK(b.faults().count("fault.driver.esched_not_sched_cpu") == 1);
    CHECK(restart_facts(b).empty());
  }
  SECTION("a restart after which nothing failed keeps the earlier failure") {
    Bundle b({{run, {kAttrInit1, kAttrInit2}}, {dbg, {kNotSchedCpu}}});
    CHECK(b.faults().count("fault.driver.esched_not_sched_cpu") == 1);
    CHECK(restart_facts(b).empty());
  }
}

TEST_CASE(
    "restart: 'the above or this error log can be ignored' voids its process's earlier errors") {
  // HCCL's OpRetryConnection line (built from its format string) after a reconnect that
  // succeeded: the errors process 1595259 logged up to it are void; process 1595300's stay
  const std::string P1 = "[ERROR] HCCL(1595259,python3):2026-01-06-15:38:";
  const std::string P2 = "[ERROR] HCCL(1595300,python3):2026-01-06-15:38:";
  Bundle b({{"process_log/debug/plog/plog-1595259_20260106153820001.log",
             {P1 + "20.000.001 There is no subscribe thread.",
              P1 + "29.881.877 [op_retry_connection.cc:436] [1595276][OpRetryConnection][Init] "
                   "Client reconnect 2 times to success, so the above or this error log can be "
                   "ignored"}},
            {"process_log/debug/plog/plog-1595300_20260106153820002.log",
             {P2 + "21.000.001 Not sched cpu."}}});
  const auto f = b.faults();
  CHECK(f.count("fault.driver.esched_no_subscriber") == 0);
  CHECK(has_code(f, "fault.driver.esched_not_sched_cpu", "AISW_CANN_DRV_ESCH_013"));
  const std::string facts = restart_facts(b);
  CHECK(facts.find("\"pid\":1595259") != std::string::npos);
  CHECK(facts.find("\"signature\":\"hccl.error_log_ignorable\"") != std::string::npos);
}

TEST_CASE("the vendor's interface tests: plog, device log, host OS and train-log faults") {
  SECTION("runtime Notify Wait failure and the AI CPU model load failure") {
    Bundle b(
        {{"process_log/debug/plog/plog-27514_20240316155217572.log",
          {"[ERROR] RUNTIME(27514,python):2024-03-16-15:52:17.572.654 [task_info.cc:5261]28555 "
           "PrintErrorInfoForNotifyWaitTask:[COMP][DEFAULT]Notify wait execute failed, "
           "device_id=1, stream_id=20, task_id=6, flip_num=0, notify_id=3"}},
         {"process_log/debug/device-2/device-51_20231129113051449.log",
          {"[ERROR] AICPU(25602,aicpu_scheduler):2023-12-01-01:47:18.061.111 load stream and "
           "task failed."}}});
    const auto f = b.faults();
    CHECK(has_code(f, "fault.runtime.notify_wait_execute_failed", "AISW_CANN_Runtime_021"));
    CHECK(has_code(f, "fault.cann.aicpu_load_stream_failed", "AISW_CANN_AICPU_04"));
  }
  SECTION("host OS: RCU stall, hard lockup, zombie process, I/O error, page isolation, full disk") {
    Bundle b({{"host_log/messages",
               {"Mar 15 03:40:50 sha2uvp-gert01 kernel: [16794.247724] detected stalls on",
                "Mar 17 03:40:50 sha2uvp-gert01 kernel: [16794.247724] ready to call notify chain "
                "to isolate page"}},
              {"host_log/messages-1",
               {"Mar 17 03:40:50 sha2uvp-gert01 kernel: [16794.247724] No space left on device"}},
              {"crash/127.0.0.1-2024-09-23-11:25:29/vmcore-dmesg.txt",
               {"[  293.039556] NMI watchdog: Watchdog detected hard LOCKUP on cpu 34"}},
              {"host_log/sysmonitor.log",
               {"2024-08-30T17:01:48.559312+00:00|info|sysmonitor[12706]: zombie process"}},
              {"host_log/dmesg",
               {"[Mon Sep 30 15:00:00 2024] systemd[1]: license-manager.service: I/O error."}}});
    const auto f = b.faults();
    CHECK(has_code(f, "fault.kernel.rcu_stall", "Comp_OS_Kernel_CPU_06"));
    CHECK(has_code(f, "fault.kernel.hard_lockup", "Comp_OS_Kernel_CPU_04"));
    CHECK(has_code(f, "fault.kernel.sysmonitor_zombie", "Comp_OS_Kernel_CPU_11"));
    CHECK(has_code(f, "fault.kernel.block_io_error", "Comp_OS_HW_Stor_02"));
    CHECK(has_code(f, "fault.kernel.page_isolate_notify", "Comp_OS_Custom_04"));
    CHECK(has_code(f, "fault.env.no_space_left", "Comp_OS_Service_Container_04"));
  }
  SECTION("device OS event id and the NIC PCS fault") {
    Bundle b(Files{{"slog/dev-os-3/debug/device-os/device-os_20240312200914967.log",
                    {"[ERROR] KERNEL(3551,sklogd):2021-10-05-23:07:08.350.235 [klogd.c:242]"
                     "[583733.716915] event_id=0x80c78008"}}});
    CHECK(has_code(b.faults(), "fault.device.os_event_id", "0x80c78008"));
  }
  SECTION("train logs: torch.npu synchronize / empty_cache and a MindSpore graph-mode name") {
    Bundle b({{"train_log/rank-0.txt", {"synchronize_and_free_events"}},
              {"train_log/rank-1.txt", {"npuSynchronizeDevice"}},
              {"train_log/rank-2.txt",
               {"NameError: The name 'c' is not defined, or not supported in graph mode."}}});
    const auto f = b.faults();
    CHECK(has_code(f, "fault.train.npu_empty_cache_failed", "AISW_PyTorch_Train_25"));
    CHECK(has_code(f, "fault.train.npu_synchronize_failed", "AISW_PyTorch_Train_23"));
    CHECK(has_code(f, "fault.train.mindspore_name_undefined", "AISW_MindSpore_Compiler_01"));
  }
}

TEST_CASE("restart: marks are bounded (a log naming thousands of processes)") {
  // 3000 processes each saying its errors can be ignored: at most 1024 marks are kept, and the
  // analysis ends (the condition of every fault query scans the marks)
  std::vector<std::string> lines;
  for (int i = 0; i < 3000; ++i) {
    const std::string P = std::to_string(100000 + i);
    lines.push_back("[ERROR] HCCL(" + P + ",python3):2026-01-06-15:38:20.000.001 Not sched cpu.");
    lines.push_back("[ERROR] HCCL(" + P +
                    ",python3):2026-01-06-15:38:29.881.877 [op_retry_connection.cc:436] [" + P +
                    "][OpRetryConnection][Init] Client reconnect 2 times to success, so the above "
                    "or this error log can be ignored");
  }
  lines.push_back("[ERROR] HCCL(99999,python3):2026-01-06-15:39:00.000.001 Not sched cpu.");
  Bundle b(Files{{"process_log/debug/plog/plog-100000_20260106153820001.log", lines}});
  const auto marks = query(b.db(), "SELECT count(*) AS n FROM facts WHERE name = 'run.restart'");
  CHECK(std::stoi(marks.front().at("n")) == 1024);
  // process 99999 set nothing aside: its error is a fault event
  CHECK(b.faults().count("fault.driver.esched_not_sched_cpu") == 1);
}
