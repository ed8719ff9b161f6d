// classify: kinds from path AND content, and host attribution, on the real asys bundle and on the
// layouts of the official collectors (log-formats.md §2.2, §2.3, §12).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "faultline/classify/classify.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/tag/tag.hpp"

using namespace faultline;
namespace fs = std::filesystem;

namespace {

const classify::Classifier& classifier() {
  static const classify::Classifier c(
      read_rule_dir(fs::path(FAULTLINE_SOURCE_DIR) / "rules" / "classify").empty()
          ? std::vector<RuleFile>{}
          : [] {
              auto v = read_rule_dir(fs::path(FAULTLINE_SOURCE_DIR) / "rules");
              return rules_under(v, "classify/");
            }());
  return c;
}

std::string head_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string buf(65536, '\0');
  in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
  buf.resize(static_cast<size_t>(in.gcount()));
  return buf;
}

}  // namespace

TEST_CASE("every file of the real asys bundle gets its kind") {
  const fs::path root = fs::path(FAULTLINE_CORPUS_DIR) / "asys-aicerror";
  if (!fs::exists(root)) {
    WARN("corpus not present: " << root);
    return;
  }
  // expected kind per path suffix (relative to asys_output_<ts>/)
  const std::map<std::string, std::string> expected = {
      {"dfx/log/host/driver/host_kernel.log", "host_kernel_log"},
      {"dfx/log/host/install/ascend_install.log", "install_log"},
      {"dfx/log/host/cann/debug/plog/plog-155320_20250508095618528.log", "plog"},
      {"dfx/log/host/cann/run/plog/plog-155320_20250508095608125.log", "plog"},
      {"dfx/log/host/cann/run/device-0/device-155320_20250508095615632.log", "device_app_log"},
      {"dfx/log/host/message/syslog", "syslog"},
      {"dfx/log/device/dev-os-0/slogd/slogdlog", "slogd_log"},
      {"dfx/log/device/dev-os-0/application/run/device-app-94868/"
       "device-app-94868_20250508070714766.log",
       "device_app_log"},
      {"dfx/log/device/dev-os-0/firmware/debug/device-0/device-0_20250507195454620.log",
       "device_fw_log"},
      {"dfx/log/device/dev-os-0/system/debug/device-os/device-os_20250508024510859.log",
       "device_os_log"},
      {"dfx/log/device/dev-os-0/system/message/messages.0", "device_syslog"},
      {"dfx/log/device/dev-os-0/system/message/messages", "device_syslog"},
      {"dfx/log/device/dev-os-0/system/run/event/event_20250507195454617.log", "device_event_log"},
      {"dfx/log/device/dev-os-0/system/run/device-os/device-os_20250508023354201.log",
       "device_os_log"},
      {"dfx/ops/vendor_config/config.ini", "text"},
      {"dfx/ops/GatherV3_9e31943a1a48bf81ddff1fc6379e0be3_high_performance.json", "text"},
  };
  const fs::path base = root / "asys_output_20250508095626087";
  size_t checked = 0;
  for (const auto& [rel, kind] : expected) {
    const fs::path p = base / rel;
    REQUIRE(fs::exists(p));
    const std::string path = "asys_output_20250508095626087/" + rel;
    const auto c = classifier().classify(path, head_of(p));
    INFO(rel);
    CHECK(c.kind == kind);
    ++checked;
  }
  // every other device-app / device-os file of the bundle too
  for (const auto& e : fs::recursive_directory_iterator(base)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), base).generic_string();
    std::string want;
    if (rel.find("/device-app-") != std::string::npos)
      want = "device_app_log";
    else if (rel.find("/device-os/device-os_") != std::string::npos)
      want = "device_os_log";
    else
      continue;
    INFO(rel);
    CHECK(classifier().classify("asys_output_20250508095626087/" + rel, head_of(e.path())).kind ==
          want);
    ++checked;
  }
  CHECK(checked >= 20);

  // host: one node; the host name comes from the host syslog, not from the device's "(none)"
  const auto sys = base / "dfx/log/host/message/syslog";
  const auto hint = classify::host_from_content(
      "syslog", "asys_output_20250508095626087/dfx/log/host/message/syslog", head_of(sys));
  CHECK(hint.host == "ubuntu78");
  CHECK(hint.root.empty());
  const auto dev = base / "dfx/log/device/dev-os-0/system/message/messages";
  CHECK(classify::host_from_content("syslog", "x/messages", head_of(dev)).host.empty());
}

TEST_CASE("a renamed file is recognised by its content") {
  const std::string plog =
      "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.522.534 [stars_engine.cc:1553]155320 "
      "ProcLogicCqReport:[INIT][DEFAULT]Task run failed, device_id=0, stream_id=2, task_id=1, "
      "sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0\n"
      "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.526.744 "
      "[device_error_proc.cc:1635]155320 "
      "ProcessStarsCoreErrorInfo:[INIT][DEFAULT]report error module_type=5, module_name=EZ9999\n";
  CHECK(classifier().classify("upload/log1.txt", plog).kind == "plog");

  const std::string smi =
      "+-------------------------------------------------------------------------------------------"
      "-----+\n"
      "| npu-smi 24.1.rc3                 Version: 24.1.rc3                                        "
      "     |\n";
  CHECK(classifier().classify("misc/output_3.txt", smi).kind == "npu_smi_info");

  const std::string kern =
      "[2025-05-07-19:54:27.371626] [ascend] [uda] [INFO] [uda_host_ns_init_work 125] "
      "<kworker/4:1:231:231:4> Ns info. (ns=ffff968e9f409780; init.task ns=ffff968e9f409780)\n"
      "[2025-05-07-19:54:27.400027] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
      "<systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"dc\", "
      "driver_name=\"devdrv_device_driver\")\n";
  CHECK(classifier().classify("a/b/kernel_ring.txt", kern).kind == "host_kernel_log");

  const std::string dmesg =
      "[ 2081.843939] [ascend] [devmm] [devmm_alloc_svm_proc_set_to_file 662] <main:42394,42394> "
      "Devmm_set_porcess details. (status=0; proc_idx=3)\n"
      "[ 2081.844043] [ascend] [devmm] [devmm_svm_release_proc 617] <davinci_recycle:42400,42400> "
      "Devmm release create work. (hostpid=-1)\n";
  CHECK(classifier().classify("node/kmsg_dump", dmesg).kind == "dmesg");

  const std::string inst =
      "[Driver] [2025-03-29 04:11:12] [ERROR]current kernel primary version(5.4.0-125-generic) is "
      "different from the driver(6.8.0-41-generic).\n"
      "[Driver] [2025-03-29 04:11:12] [ERROR]driver vermagic check failed.\n";
  CHECK(classifier().classify("install.txt", inst).kind == "install_log");

  const std::string maps =
      "100000000000-180000000000 ---p 00000000 00:00 0 \n"
      "ffff8a000000-ffff8a200000 r-xp 00000000 fd:01 1311 "
      "/usr/local/Ascend/ascend-toolkit/8.5.0/lib64/libascendcl.so (deleted)\n";
  CHECK(classifier().classify("proc/12345/maps", maps).kind == "proc_maps");
  CHECK(classifier().classify("stuff/pid_maps_dump", maps).kind == "proc_maps");
}

TEST_CASE("a known name with other content is not misread") {
  // a file called syslog that holds a plog is read as a plog (content wins over the name)
  const std::string plog =
      "[INFO] TDT(155320,python3):2025-05-08-09:56:08.144.746 "
      "[package_worker_factory.cpp:40][RegisterPackageWorkerCreator][tid:155320] Register[4] "
      "package worker creator success\n";
  CHECK(classifier().classify("var/log/syslog", plog).kind == "plog");
  // binary content
  const std::string bin(
      "\x7f"
      "ELF\x02\x01\x01\x00\x00\x00",
      10);
  CHECK(classifier().classify("bin/npu-smi", bin).kind == "binary");
  // environ is NUL separated and still text
  const std::string env(
      "ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/latest\0LD_LIBRARY_PATH=/usr/local/Ascend/"
      "driver/lib64\0",
      98);
  CHECK(classifier().classify("proc/4242/environ", env).kind == "environ");
  CHECK(classifier().classify("notes.txt", "hello\nworld\n").kind == "text");
}

TEST_CASE("host roots and names from bundle layouts") {
  auto h = classify::host_from_path("fleet/node07.tar.gz!/var/log/syslog");
  CHECK(h.root == "fleet/node07.tar.gz");
  CHECK(h.host == "node07");
  h = classify::host_from_path("node03/asys_output_20250508095626087/dfx/log/host/message/syslog");
  CHECK(h.root == "node03");
  CHECK(h.host == "node03");
  h = classify::host_from_path("asys_output_20250508095626087/dfx/log/host/message/syslog");
  CHECK(h.root.empty());
  CHECK(h.host.empty());
  h = classify::host_from_path("faultline_gpu-a12_20250508095626/cmd/uname.txt");
  CHECK(h.root == "faultline_gpu-a12_20250508095626");
  CHECK(h.host == "gpu-a12");
  h = classify::host_from_path(
      "job42.tar!/faultline_worker-3_20250508095626.tar.zst!/cmd/uname.txt");
  CHECK(h.root == "job42.tar!/faultline_worker-3_20250508095626.tar.zst");
  CHECK(h.host == "worker-3");
  h = classify::host_from_path("ascend_log_20250508095626/host_log/messages");
  CHECK(h.root.empty());
  // node folders named by IP under a dated case folder: two nodes, not one merged host
  h = classify::host_from_path(
      "case_20260410/10.20.0.42/asys_output_20260410153012345/dfx/log/host/message/syslog");
  CHECK(h.root == "case_20260410/10.20.0.42");
  CHECK(h.host == "10.20.0.42");
  h = classify::host_from_path("case_20260410/10.20.0.43/cmds_after_failure.txt");
  CHECK(h.root == "case_20260410/10.20.0.43");
  h = classify::host_from_path("incident-4711/nodes/node07/var/log/messages");
  CHECK(h.root == "incident-4711/nodes/node07");
  // only the outermost node-like folder is the node
  h = classify::host_from_path("node03/worker-1/train.log");
  CHECK(h.root == "node03");
  // uname -a names the host
  const auto u =
      classify::host_from_content("uname", "cmd/uname.txt",
                                  "Linux ubuntu78 5.4.0-125-generic #141-Ubuntu SMP Wed Aug 10 "
                                  "13:42:03 UTC 2022 aarch64 aarch64 aarch64 GNU/Linux\n");
  CHECK(u.host == "ubuntu78");
  CHECK(u.strength > 80);
}

TEST_CASE("a pasted shell session is split per command, whatever its name") {
  // the engineer's transcript after seed 000 (RHEL/openEuler prompt): first the npu-smi table,
  // then version.info, uptime -s, rpm -qa. Read as one npu-smi table it lost every later output.
  const std::string rhel =
      "[root@a2pod-n042 ~]# npu-smi info\n"
      "+-------------------------------------------------------------------------------------------"
      "-----+\n"
      "| npu-smi 24.1.rc3                 Version: 24.1.0.3                                        "
      "     |\n"
      "[root@a2pod-n042 ~]# cat /usr/local/Ascend/driver/version.info\n"
      "Version=24.1.rc3\n"
      "[root@a2pod-n042 ~]# uptime -s\n"
      "2026-03-02 17:00:41\n";
  const auto c =
      classifier().classify("case_20260410_node42/10.20.0.42/cmds_after_failure.txt", rhel);
  CHECK(c.kind == "composite");
  CHECK(c.reason == "content");
  const auto hint = classify::host_from_content(
      "composite", "case_20260410_node42/10.20.0.42/cmds_after_failure.txt", rhel);
  CHECK(hint.host == "a2pod-n042");
  CHECK(hint.source == "prompt");

  // Debian/Ubuntu prompt; the first output would otherwise make it a version_info file
  const std::string deb =
      "root@ai-train-03:~# modinfo -n drv_pcie_host\n"
      "/lib/modules/5.15.0-131-generic/updates/dkms/drv_pcie_host.ko\n"
      "root@ai-train-03:~# cat /usr/local/Ascend/driver/version.info\n"
      "Version=26.0.rc1\n";
  CHECK(classifier().classify("ai-train-03_diag/session_20260305.txt", deb).kind == "composite");
  CHECK(classify::host_from_content("composite", "s.txt", deb).host == "ai-train-03");

  // a file whose name and grammar agree still wins over a prompt line inside it
  const std::string probes =
      "$ timeout 60s python3 probe.py rng\n"
      "exit=124\n";
  CHECK(classifier().classify("case/probes.txt", probes).kind == "probe_output");
  // a container's prompt (`docker exec -it <id> bash -l`) names the container, not the node
  CHECK(classify::host_from_content("composite", "case/docker_exec_bash_-l.txt",
                                    "root@b61c0e3d9a2f:/# source ~/.bashrc\n")
            .host.empty());
  // a localhost prompt names no host
  CHECK(classify::host_from_content("composite", "s.txt", "[root@localhost ~]# uname -r\n5.15.0\n")
            .host.empty());
}

TEST_CASE("a UTF-8 byte order mark does not hide a file's grammar") {
  // ascend_install.log and version.info saved through a Windows editor
  const std::string inst =
      "\xEF\xBB\xBF[Driver] [2026-05-27 14:03:11] [INFO]Start time: 2026-05-27 14:03:11\r\n"
      "[Driver] [2026-05-27 14:03:11] [INFO]base version is 24.1.0.3.\r\n";
  CHECK(classifier().classify("upload/install.txt", inst).kind == "install_log");
  // the log_common.sh template with the user id field: `[Driver] [<date>] [<user>] [INFO]...`
  CHECK(classifier()
            .classify("upload/install_root.txt",
                      "[Driver] [2026-05-27 14:03:40] [root] [INFO]Driver package installed "
                      "successfully! Reboot needed for installation/upgrade to take effect!\n")
            .kind == "install_log");
  const std::string plog =
      "\xEF\xBB\xBF[ERROR] DRV(77012,python3):2026-05-28-10:41:07.551.208 [ascend][curpid: 77012, "
      "77012][drv][devmm][devmm_svm_init 412]Not support svm mem, because asan is opened or os not "
      "support mmap 8T.\r\n";
  const auto c = classifier().classify("bundle/log_0528.txt", plog);
  CHECK(c.kind == "plog");
  CHECK(c.reason == "content");
  CHECK(classify::host_from_content("uname", "uname-a.txt",
                                    "\xEF\xBB\xBFLinux gpu-a12 5.15.0-105-generic #115-Ubuntu SMP "
                                    "Mon Apr 15 09:52:04 UTC 2024 aarch64 GNU/Linux\n")
            .host == "gpu-a12");
}

TEST_CASE("a device event log that starts with drv_tsd_daemon lines is still an event log") {
  // lines 2-4 of the real asys event log (corpus asys-aicerror) come before most event_id lines;
  // a short or freshly rotated event log is all of them and was read as a host plog
  const std::string ev =
      "[EVENT] DRV(3423,dms_poll_task):1970-01-01-00:00:08.876.153 "
      "[dms_event.c:1399][fault_manager][    7.932713] event_id=0x8c2fa009; device_id=0; "
      "node_type=0x617[OS_Linux]; node_id=1; sub_node_id=0; event_type=0x9[OS init]; "
      "severity=0[OK]; assertion=2[One time event]; description=[OS init]; os_id=0; \n"
      "[EVENT] DRV(4898,drv_tsd_daemon):2025-05-07-19:54:56.024.324 "
      "[drv_tsd_hdc_server.c:339][common] [hlt_server_main] [339] hlt_tsd process start\n"
      "[EVENT] DRV(4898,drv_tsd_daemon):2025-05-07-19:54:56.030.210 "
      "[drv_tsd_hdc_server.c:163][common] [hlt_server_wait_pid] start hlt daemon thread...\n"
      "[EVENT] DRV(4902,drv_tsd_daemon):2025-05-07-19:54:56.030.457 "
      "[drv_tsd_hdc_server.c:221][common] [start_hlt_server_daemon] [221] hlt server daemon 0 "
      "start\n";
  const auto c = classifier().classify(
      "2026-04-22-09-06-17/slog/dev-os-0/run/event/event_20260421221047017.log", ev);
  CHECK(c.kind == "device_event_log");
  CHECK(c.reason == "path+content");
  // a host plog of the same grammar keeps its kind (its path says so)
  const std::string plog =
      "[EVENT] HCCL(155320,python3):2025-05-08-09:56:08.124.468 [op_base.cc:1292] "
      "[155320]Entry-HcclCommInitRootInfoInner:ranks[8], rank[0]\n";
  CHECK(classifier().classify("ascend/log/run/plog/plog-155320_20250508095608125.log", plog).kind ==
        "plog");
}

TEST_CASE("journalctl -o short-precise without its header is a journal") {
  // seed 002 §5 `journalctl -k -b | rg 'Unknown symbol|...'`, saved under an ad-hoc name
  const std::string j =
      "Mar 05 09:38:40.118302 ai-train-03 kernel: drv_pcie_host: Unknown symbol "
      "ka_pci_enable_device_mem (err -2)\n"
      "Mar 05 09:38:41.002101 ai-train-03 systemd-modules-load[612]: Failed to insert module "
      "'drv_pcie_host': Unknown symbol in module\n";
  const auto c = classifier().classify("case/kernel_log_0305.txt", j);
  CHECK(c.kind == "journal");
  CHECK(c.reason == "content");
  CHECK(classify::host_from_content("journal", "case/kernel_log_0305.txt", j).host ==
        "ai-train-03");
  // classic rsyslog lines (whole seconds) stay syslog
  const std::string s =
      "May  8 02:28:01 ubuntu78 kernel: [23645.213796] devdrv_device_driver 0000:03:00.4: enabling "
      "device (0000 -> 0002)\n";
  CHECK(classifier().classify("case/kernel_log_0508.txt", s).kind == "syslog");
}

TEST_CASE("a syslog with a NUL block from an unclean shutdown is still a syslog") {
  // rsyslog after a hard reset: the unflushed tail became NULs, the next boot's lines follow.
  // Read as binary, the heartbeat line right before the crash was never looked at.
  std::string m =
      "May 28 10:40:01 gpu-a12 systemd[1]: Started Session 4711 of user root.\n"
      "May 28 10:41:07 gpu-a12 kernel: [  812.118302] [ascend] [ERROR] [drv_soft_fault] "
      "[heart_beat_judge 318] <kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; "
      "new_count=1104; lost_count=4; total_lost_count=4; total_10s_count=0; total_15s_count 0).\n";
  m += std::string(4096, '\0');
  m += "May 28 10:52:33 gpu-a12 kernel: [    0.000000] Booting Linux on physical CPU 0x0000080000 "
       "[0x481fd010]\n";
  const auto c = classifier().classify("node07/var/log/messages", m);
  CHECK(c.kind == "syslog");
  CHECK(c.reason == "path+content");
  // short NUL runs (UTF-16, binary formats) keep a file binary
  const std::string utf16(
      "M\0a\0y\0 \0"
      "2\0"
      "8\0 \0",
      14);
  CHECK(classifier().classify("node07/var/log/messages.1", utf16).kind == "binary");
  std::string elf(
      "\x7f"
      "ELF\x02\x01\x01",
      7);
  elf += std::string(64, '\0');
  elf += "\x02\x00\xb7\x00";
  CHECK(classifier().classify("bin/npu-smi", elf).kind == "binary");
}

TEST_CASE("component logs of the vendor's single-node layout get their kinds") {
  // ascend-fd DlLogSaver / MindieLogSaver / AMCTLogSaver layout (docs/faults.md)
  const std::string hwlog =
      "[INFO]     2024/01/10 03:29:09.354927 1       hwlog/api.go:108    failed to check files, "
      "owner not right /usr/bin/runc xxxx\n";
  CHECK(classifier().classify("dl_log/devicePlugin/devicePlugin.log", hwlog).kind ==
        "mindx_dl_log");
  CHECK(classifier().classify("dl_log/noded/noded-2999-10-01T03-39-17.760.log", hwlog).kind ==
        "mindx_dl_log");
  CHECK(classifier().classify("dl_log/ascend-docker-runtime/runtime-run.log", hwlog).kind ==
        "mindx_dl_log");
  // by content alone (a renamed copy)
  CHECK(classifier().classify("upload/dp.txt", hwlog).kind == "mindx_dl_log");
  const std::string klog =
      "E0111 03:29:15.991928       1 reschedule.go:533]    Failed to get plugin volcano-npu\n";
  CHECK(classifier().classify("dl_log/volcano-scheduler/volcano-scheduler.log", klog).kind ==
        "volcano_log");
  const std::string mindie =
      "[2024-11-05 12:00:00.123456] [11] [1] [MS] [1] [ERROR] : [MIE03E400008] [HttpServer] Http "
      "server on timeout\n";
  CHECK(classifier().classify("mindie/log/debug/mindie-ms_11_202411061400.log", mindie).kind ==
        "mindie_log");
  const std::string amct =
      "2024-10-23 10:47:11,976 - INFO - [AMCT]:[AMCT]: Layer batchmatmul_2 does not support "
      "asymmetric quant, set symmetric, No layer support in the graph\n";
  CHECK(classifier().classify("amct_log/amct_onnx.log", amct).kind == "amct_log");
  CHECK(classifier()
            .classify("dl_log/ttp_log/ttp_log.log.1",
                      "2024-06-18 17:25:32,167 - WARNING - [TTP controller.cpp:1021] x\n")
            .kind == "mindio_log");
  // a renamed MindIO log is still MindIO's by its `- LEVEL - [TTP ...]` records
  CHECK(classifier()
            .classify("logs/controller.out",
                      "2024-06-18 17:25:31,902 - WARNING - [TTP controller.cpp:733] remove broken "
                      "link, rank: 3\n")
            .kind == "mindio_log");
}

TEST_CASE("a training log in Python's logging format is not MindIO's (issue 33)") {
  // the effective configuration (`args: Namespace(...)`) is only read from training logs
  const std::string log =
      "2026-02-26 21:14:09,227 INFO [train.py:44] args: Namespace(cfg='configs/rtdetr_r50.yaml', "
      "amp=True, pin_memory=True)\n"
      "2026-02-26 21:14:10,631 INFO [trainer.py:96] AMP enabled: using "
      "torch.npu.amp.autocast(dtype=torch.float16)\n"
      "2026-02-26 21:15:02,611 INFO [trainer.py:188] epoch 0 iter 20/118287 loss 23.4485 lr "
      "1.0e-05\n";
  CHECK(classifier().classify("amp_off_check/logs/debug_0226_2114.log", log).kind == "train_log");
}

TEST_CASE("fstab and findmnt outputs are mount tables (issue 33)") {
  CHECK(classifier()
            .classify("diag/fstab.txt",
                      "/dev/mapper/datavg-data /data xfs defaults 0 0\n"
                      "/data/ascend-toolkit  /usr/local/Ascend/ascend-toolkit  none  bind  0 0\n")
            .kind == "mountinfo");
  CHECK(classifier()
            .classify("diag/mounts_now.txt",
                      "TARGET                           SOURCE         FSTYPE OPTIONS\n"
                      "/usr/local/Ascend/ascend-toolkit /dev/sdb1[/tk] xfs    rw,relatime\n")
            .kind == "mountinfo");
}

// Issue 17 item 6: a member's kind is decided by its place inside its own (innermost) collection.
// npu_log_collect.sh writes npu_info_log/card_info.log next to the ascend_log_<ts> tree it packs
// (log-formats.md §12); the same files inside a nested ascend_log_<ts>.tar.gz, at any depth.
TEST_CASE("nested collections keep their layout") {
  const std::string table =
      "+-------------------------------------------------------------------------------------------"
      "-----+\n"
      "| npu-smi 24.1.rc3                 Version: 24.1.rc3                                        "
      "     |\n";
  const std::string install =
      "[Driver] [2026-05-27 14:03:11] [INFO]Start time: 2026-05-27 14:03:11\n"
      "[Driver] [2026-05-27 14:03:11] [INFO]LogFile: /var/log/ascend_seclog/ascend_install.log\n";
  const std::string messages =
      "May 27 14:03:11 a2pod-n042 kernel: [812345.123456] drv_pcie_host: loading out-of-tree "
      "module\n"
      "May 27 14:03:12 a2pod-n042 systemd[1]: Started Session 12 of user root.\n";
  for (const std::string outer : {"", "npu_log_collect_20260527140311.tar.gz!/",
                                  "case.tar!/node07.tar.gz!/", "a.tar!/b.tar.gz!/c.zip!/"}) {
    INFO(outer);
    CHECK(classifier()
              .classify(outer + "npu_log_collect_20260527140311/npu_info_log/card_info.log", table)
              .kind == "npu_smi_info");
    const std::string nested =
        outer + "npu_log_collect_20260527140311/ascend_log_20260527140311.tar.gz!/";
    CHECK(
        classifier()
            .classify(
                nested + "ascend_log_20260527140311/install_info/ascend_seclog/ascend_install.log",
                install)
            .kind == "install_log");
    CHECK(classifier()
              .classify(nested + "ascend_log_20260527140311/host_log/messages", messages)
              .kind == "syslog");
  }
  // the folders of the enclosing collection do not decide: a device folder holding an archive
  // of the host's logs is no device syslog, a hisi_logs folder holding one is no black box
  CHECK(classifier()
            .classify("device_log/device-0/hostlogs.tar.gz!/var/log/messages", messages)
            .kind == "syslog");
  CHECK(classifier().classify("hisi_logs/extra.tar.gz!/notes/history.log", "done\n").kind !=
        "bbox_history");
  CHECK(classifier().classify("hisi_logs/device-0/history.log", "").kind == "bbox_history");
}

// Issue 17 items 4 and 5: the new kinds by path and content (man-page / spec line shapes).
TEST_CASE("launch configurations, ldd and modules.dep are recognised") {
  const auto& c = classifier();
  CHECK(c.classify("case/etc/systemd/system/ascend-train.service",
                   "[Unit]\nDescription=x\n[Service]\nEnvironment=A=1\n")
            .kind == "launch_spec");
  CHECK(c.classify("case/systemctl_cat_ascend-train.txt",
                   "# /etc/systemd/system/ascend-train.service\n[Service]\nExecStart=/bin/x\n")
            .kind == "launch_spec");
  CHECK(c.classify("deploy/docker-compose.yml", "services:\n  vllm:\n    image: x\n").kind ==
        "launch_spec");
  CHECK(c.classify("k8s/infer.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n").kind ==
        "launch_spec");
  CHECK(c.classify("jobs/run.sh", "#!/bin/bash\n#SBATCH --job-name=x\nsrun python t.py\n").kind ==
        "launch_spec");
  CHECK(c.classify("k8s/values.yaml", "replicaCount: 1\nimage: x\n").kind != "launch_spec");
  CHECK(c.classify("x/ldd_npu-smi.txt",
                   "\tlinux-vdso.so.1 (0x0000ffffb4a5f000)\n\tlibc_sec.so => not found\n")
            .kind == "ldd");
  CHECK(c.classify("files/lib/modules/5.15.0-131-generic/modules.dep",
                   "updates/dkms/drv_pcie_host.ko: updates/dkms/drv_seclib_host.ko\n")
            .kind == "modules_dep");
  CHECK(c.classify("x/tree_ascend.txt",
                   "/usr/local/Ascend\n├── driver\n│   └── version.info\n└── firmware\n")
            .kind == "ls_listing");
  CHECK(c.classify("x/lsmod_grep.txt", "drv_pcie_host         466944  0\n").kind == "lsmod");
}

TEST_CASE("every kind of rules/classify/kinds.yaml is a kind the signature loader knows") {
  // tag::known_kinds() is what `rules lint` checks a signature's `kinds:` against: a kind missing
  // there makes every signature for it a lint warning ("unknown kind")
  const auto& known = tag::known_kinds();
  for (const auto& [id, description] : classifier().kinds()) {
    INFO(id);
    CHECK(std::find(known.begin(), known.end(), id) != known.end());
  }
}

// Issue 31 item 3: a console capture whose lines share a product log's generic grammar (C++ glog
// lines like klog, Python logging stamps like MindIO's) or that mentions the product once is
// still a console: the product kinds need their own grammar (a .go source position, the [TTP ...]
// position, MindIE's pid/tid/module columns) in a real share of the lines.
TEST_CASE("a console that mentions volcano or mindio once is not their log") {
  // PaddleCustomDevice glog lines (PaddleOCR #9407 / PaddleCustomDevice #1799 pastes)
  const std::string paddle =
      "I0508 10:08:13.724697 81469 init.cc:238] CustomDevice: npu, visible devices count: 1\n"
      "I0508 10:08:13.724812 81469 init.cc:140] scheduler: volcano job npu-train-0, rank 0\n"
      "E0508 10:08:20.102934 81469 runtime.cc:430] Call aclrtSetDevice(device->id) failed : "
      "507033 at file runtime.cc line 430\n";
  CHECK(classifier().classify("job/console.log", paddle).kind != "volcano_log");
  // lmdeploy's Python logging (lmdeploy #2471 paste), once naming mindio
  const std::string lmdeploy =
      "2024-09-20 07:49:20,101 - lmdeploy - INFO - mindio ttp not installed, checkpoint "
      "resume disabled\n"
      "2024-09-20 07:49:24,787 - lmdeploy - ERROR - Engine loop failed with error: The Inner "
      "error is reported as above.\n"
      "2024-09-20 07:49:24,790 - lmdeploy - INFO - shutting down engine\n";
  CHECK(classifier().classify("serve/lmdeploy.out", lmdeploy).kind != "mindio_log");
  // a bare `[stamp] ` console is no MindIE log either
  const std::string stamped =
      "[2025-02-01 10:00:00] loading model\n[2025-02-01 10:00:05] mindie compat layer off\n";
  CHECK(classifier().classify("console.txt", stamped).kind != "mindie_log");
  // the products' own lines by content alone still are (renamed copies)
  CHECK(classifier()
            .classify("upload/vs.txt",
                      "E0111 03:29:15.991928       1 reschedule.go:533]    Failed to get plugin "
                      "volcano-npu\n")
            .kind == "volcano_log");
  CHECK(classifier()
            .classify("upload/ttp.txt",
                      "2024-06-18 17:25:32,167 - WARNING - [TTP controller.cpp:1021] "
                      "NormalCallback found abnormal, ret: 1, againRet: 1\n")
            .kind == "mindio_log");
  CHECK(classifier()
            .classify("upload/ms.txt",
                      "[2024-11-05 12:00:00.123456] [11] [1] [MS] [1] [ERROR] : [MIE03E400008] "
                      "[HttpServer] Http server on timeout\n")
            .kind == "mindie_log");
}

TEST_CASE("the kind table read back from the rule cache's form classifies alike") {
  // issue 38 item 2: the app keeps the table in the rule cache (app/src/rule_cache.cpp)
  const auto files =
      rules_under(read_rule_dir(fs::path(FAULTLINE_SOURCE_DIR) / "rules"), "classify/");
  const auto table = classify::read_kind_table(files);
  REQUIRE(table.size() > 50);
  const std::string form = classify::serialize_kind_table(table);
  const auto back = classify::deserialize_kind_table(form);
  REQUIRE(back);
  CHECK(classify::serialize_kind_table(*back) == form);  // every field read back into its place
  CHECK_FALSE(classify::deserialize_kind_table(""));
  CHECK_FALSE(classify::deserialize_kind_table(form.substr(0, form.size() / 2)));
  CHECK_FALSE(classify::deserialize_kind_table(form + "x"));
  std::string other = form;
  other[0] = static_cast<char>(other[0] + 1);
  CHECK_FALSE(classify::deserialize_kind_table(other));
  // the same kinds for members of the format reference's layouts, with its lines (log-formats.md)
  const classify::Classifier cached(*back);
  CHECK(cached.kinds() == classifier().kinds());
  const std::pair<const char*, const char*> members[] = {
      {"var/log/messages",
       "Aug  1 08:38:31 localhost kernel: [ 1197.584409] [ascend] [ERROR] [drv_soft_fault] "
       "[heart_beat_judge 318] <kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; "
       "new_count=1104; lost_count=4; total_lost_count=4; total_10s_count=0; "
       "total_15s_count 0).\n"},
      {"asys_output_20250508095626087/dfx/log/host/cann/run/plog/plog-14163_20251213121525.log",
       "[ERROR] RUNTIME(14163,python3):2025-12-13 12:15:25.025.554 [stream.cc:1402]14595 "
       "SynchronizeExecutedTask:Stream synchronize timeout, device_id=11, stream_id=103, "
       "timeout=10000, tryCount=10.\n"},
      {"notes/paste.txt", "RuntimeError: ACL stream synchronize failed.\n"}};
  for (const auto& [path, head] : members) {
    INFO(path);
    CHECK(cached.classify(path, head).kind == classifier().classify(path, head).kind);
    CHECK(cached.classify(path, head).reason == classifier().classify(path, head).reason);
    CHECK(cached.classify(path, head).reason != "fallback");  // a kind of the table decided
  }
}
