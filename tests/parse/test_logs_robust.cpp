// Untrusted input: every log parser survives truncated real lines, random bytes, NULs and very long
// lines; events stay within the input and multi-line blocks stay bounded.
#include <catch2/catch.hpp>
#include <random>

#include "test_logs_util.hpp"

namespace {
const char* const kSamples[] = {
    "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.522.534 [stars_engine.cc:1553]155320 "
    "ProcLogicCqReport:[INIT][DEFAULT]Task run failed, device_id=0, stream_id=2, task_id=1",
    "[ERROR] HCCL(2111665,all_reduce_test):2025-10-24-11:18:29.499.235 "
    "[task_exception_handler.cc:908] [2111665][TaskExecStage][Timeout][Host]Task run failed, "
    "rankId[0]",
    "[INFO] TSCH(-1,null):1970-01-01-00:00:01.014.351 2121 (dieid:0,cpuid:0) "
    "[dfx_resource_detect.c:363] stars_pcie_dma_abnormal_detect: pcie dma",
    "[EVENT] DRV(3423,dms_poll_task):1970-01-01-00:00:08.876.153 "
    "[dms_event.c:1399][fault_manager][    7.932713] event_id=0x8c2fa009; device_id=0; "
    "severity=0[OK];",
    "[ERROR] KERNEL(4723,sklogd):2025-05-08-03:25:05.169.860 [klogd.c:247][27028.756669] [ascend] "
    "[ERROR] [tsdrv] [tsdrv_hb_cq_callback 332] <kworker/0:3:19839> receive ts exception msg, "
    "time=1746674705.163997783s, devid=0",
    "May  8 17:48:43 (none) kern.err kernel: [50047.252723][    C0] [ascend] [ERROR] [tsdrv] "
    "[tsdrv_hb_cq_callback 332] <kworker/u16:2:11429> receive",
    "May  8 02:28:14 ubuntu78 kernel: [23658.584779] [ascend][DVPP_CMDLIST][DVPP] "
    "[dvpp_container_notifier_func:94] [T1] notifier action. (udevid=100;",
    "[2025-05-07-19:54:27.400027] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
    "<systemd-udevd:694:694> Insmod host driver.",
    "[Thu May  8 02:28:01 2025] devdrv_device_driver 0000:03:00.4: enabling device (0000 -> 0002)",
    "2025-05-08T02:28:01+0800 ubuntu78 kernel: rndis_host: Unknown symbol usbnet_skb_return",
    "[Driver] [2025-06-12 13:30:57] [INFO]Driver package has been installed on the path "
    "/usr/local/Ascend, the version is 24.1.0.3, and the version of this package is 24.1.rc3,do",
    "Install SUGGESTION root 2025-03-29 04:10:34 127.0.0.1 Ascend910B-firmware-7.7.t15.0.b092.run "
    "success install_type=full; cmdlist=--quiet --full.",
    "(VllmWorker rank=3 pid=36368) ERROR 08-21 08:26:21 [multiproc_executor.py:546] Traceback "
    "(most recent call last):",
    "[rank0]:[W220 02:16:08.680800943 NPUStream.cpp:487] Warning: NPU warning, error code is "
    "507001[Error]: ",
    "EI0002: [PID: 7277] 2024-11-28-11:59:30.645.648 The wait execution of the Notify register "
    "times out. task information: [",
    "[PID: 749] 2025-12-29-03:16:15.787.356 Get_Socket_Timeout(EI0006): Getting socket times out.",
    "[ERROR] 2025-07-13-21:24:03 (PID:474, Device:2, RankID:2) ERR00100 PTA call acl api failed.",
    "Namespace(amp=True, batch_size=1, workers=0, data='coco.yaml', x=(1, [2, {3: '4'}]))",
    "2025-05-07 19:54:54.608[INFO] log_path_mgr.c:123: logWorkspace = /usr/slog.",
    "[2023-07-13-16:20:44.081811] system exception code [0xB4060007]: ModuleName [TS], "
    "ExceptionReason [TS_EXCEPTION]",
    "$ timeout 60s python3 probe.py rng",
    "exit status: 124",
    "Traceback (most recent call last):",
};

const char* const kKinds[] = {
    "plog",          "device_app_log", "device_os_log", "device_fw_log",   "device_event_log",
    "device_syslog", "slogd_log",      "bbox_history",  "host_kernel_log", "dmesg",
    "dmesg_t",       "journal",        "syslog",        "install_log",     "operation_log",
    "train_log",     "probe_output",   "mindx_dl_log",  "volcano_log",     "mindie_log",
    "mindio_log",    "amct_log",       "lcne_log"};

void check_sane(const std::string& kind, const std::string& text) {
  const auto r = faultline::parse::parse_text(kind, text);
  INFO(kind);
  CHECK(r.events.size() <= static_cast<size_t>(r.lines) + 1);
  for (const auto& e : r.events) {
    CHECK(e.line >= 1);
    CHECK(e.line + e.line_count - 1 <= r.lines);
    CHECK(e.offset <= text.size());
    // a line event reports at most 64 KiB of its line, a block at most 256 KiB
    CHECK(e.text.size() <= (e.line_count > 1 ? 256 * 1024 : 64 * 1024));
  }
}
}  // namespace

TEST_CASE("every log kind has a parser", "[logs][robust]") {
  const auto kinds = faultline::parse::parser_kinds();
  for (const char* k : kKinds) {
    INFO(k);
    CHECK(std::find(kinds.begin(), kinds.end(), k) != kinds.end());
  }
}

TEST_CASE("log parsers survive truncated lines, random bytes and huge lines", "[logs][robust]") {
  std::mt19937 rng(20250508);
  for (const char* kind : kKinds) {
    // every prefix of every sample, each on its own line, as one member
    std::string prefixes;
    for (const char* s : kSamples) {
      const std::string_view v(s);
      for (size_t n = 0; n <= v.size(); ++n) prefixes.append(v.substr(0, n)).push_back('\n');
    }
    check_sane(kind, prefixes);
    // random mutations of the samples (bytes replaced, including NUL and '\r')
    std::string mutated;
    for (int round = 0; round < 40; ++round) {
      for (const char* s : kSamples) {
        std::string line(s);
        for (int k = 0; k < 4; ++k) line[rng() % line.size()] = static_cast<char>(rng() % 256);
        for (char& c : line)
          if (c == '\n') c = ' ';
        mutated += line + '\n';
      }
    }
    check_sane(kind, mutated);
    // a 2 MiB line, an unterminated bracket soup, and a block that never ends
    check_sane(kind, std::string(2 * 1024 * 1024, 'x') + "\n");
    check_sane(kind, std::string(100000, '[') + "\n" + std::string(100000, '(') + "\n");
    std::string endless = "EE9999: Inner Error!\nTraceback (most recent call last):\n";
    for (int i = 0; i < 5000; ++i)
      endless += "        TraceBack line " + std::string(200, 'y') + " [\n";
    check_sane(kind, endless);
  }
}
