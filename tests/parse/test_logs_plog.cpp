// plog / device_app_log / device_os_log: the CANN slog grammar and its module sub-grammars, on
// verbatim lines from log-formats.md §1.2-§2.4 and the real asys bundle.
#include <catch2/catch.hpp>

#include "test_logs_util.hpp"

using faultline::Clock;
using faultline::Severity;
using faultline::parse::parse_text;

namespace {
struct Row {
  const char* line;
  Severity sev;
  const char* module;
  int64_t pid;
  const char* process;
  int64_t tid;
  const char* msg_prefix;
  int32_t device;
  int32_t rank;
};

faultline::OwnedEvent one(std::string_view kind, std::string_view line,
                          std::string_view path = {}) {
  auto r = parse_text(kind, line, path);
  INFO(line);
  REQUIRE(r.malformed == 0);
  REQUIRE(r.events.size() == 1);
  return r.events[0];
}
}  // namespace

TEST_CASE("plog header and module sub-grammars", "[logs][plog]") {
  const Row rows[] = {
      {"[ERROR] TEFUSION(12940,atc):2021-10-17-05:54:07.599.074 "
       "[tensor_engine/te_fusion/pywrapper.cc:33]InitPyLogger Failed to import "
       "te.platform.log_util",
       Severity::error, "TEFUSION", 12940, "atc", -1, "InitPyLogger Failed", -1, -1},
      {"[ERROR] RUNTIME(16243,msame):2022-09-22-11:27:01.791.865 [engine.cc:1103]16282 "
       "ReportExceptProc:Task exception! device_id=0, stream_id=7, task_id=2, type=1, "
       "retCode=0x2a, [aicpu exception].",
       Severity::error, "RUNTIME", 16243, "msame", 16282, "Task exception! device_id=0", 0, -1},
      {"[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.522.534 [stars_engine.cc:1553]155320 "
       "ProcLogicCqReport:[INIT][DEFAULT]Task run failed, device_id=0, stream_id=2, task_id=1, "
       "sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0",
       Severity::error, "RUNTIME", 155320, "python3", 155320, "[INIT][DEFAULT]Task run failed", 0,
       -1},
      {"[INFO] RUNTIME(278,python3):2025-08-26-03:01:18.167.925 [api_impl.cc:7464] 278 "
       "PeekLastErr: level=0 err=507008.",
       Severity::info, "RUNTIME", 278, "python3", 278, "level=0 err=507008.", -1, -1},
      {"[ERROR] GE(69072,python3):2025-03-18-14:35:48.619.348 [model_utils.cc:1313]69072 "
       "GetHbmFeatureMapMemInfo: ErrorNo: 4294967295(failed) [LOAD][DEFAULT]Assert "
       "(sub_memory_info.size() == 3U) failed, expect 3 actual 4",
       Severity::error, "GE", 69072, "python3", 69072, "ErrorNo: 4294967295(failed)", -1, -1},
      {"[ERROR] ASCENDCL(278,python3):2025-08-26-03:01:18.167.116 [acl.cpp:370]278 aclInit: "
       "[INIT][DEFAULT][Init][Version]init soc version failed, ret = 507008",
       Severity::error, "ASCENDCL", 278, "python3", 278, "[INIT][DEFAULT][Init][Version]init soc",
       -1, -1},
      {"[ERROR] HCCL(2111665,all_reduce_test):2025-10-24-11:18:29.499.235 "
       "[task_exception_handler.cc:908] [2111665][TaskExecStage][Timeout][Host]Task run failed, "
       "base information is streamID:[2], taskID[21], "
       "tag[AllReduce_127.10.0.1%enp_60000_0_1761275812718970], AlgType(level "
       "0-1-2):[fullmesh-ring-NHR].",
       Severity::error, "HCCL", 2111665, "all_reduce_test", 2111665,
       "[TaskExecStage][Timeout][Host]Task run failed", -1, -1},
      {"[ERROR] HCCL(2111665,all_reduce_test):2025-10-24-11:18:29.499.247 "
       "[task_exception_handler.cc:771] [2111665][TaskExecStage][Timeout][Host]Task run failed, "
       "groupRank information is group:[127.10.0.1%enp_60000_0_1761275812718970], user define "
       "information[], rankSize[4], rankId[0].",
       Severity::error, "HCCL", 2111665, "all_reduce_test", 2111665, "[TaskExecStage]", -1, 0},
      {"[ERROR] HCCL(2111665,all_reduce_test):2025-10-24-11:18:29.499.283 "
       "[task_exception_handler.cc:704] [2111665][TaskExecStage][Timeout][Host]Task run failed, "
       "opData information is timeStamp:[2025-10-24-11:16:55.493.816], deviceId[0], index[21], "
       "count[256], reduceType[sum], src[0x12c0c0013000], dst[0x12c0c0014000], dataType[float32].",
       Severity::error, "HCCL", 2111665, "all_reduce_test", 2111665, "[TaskExecStage]", 0, -1},
      {"[ERROR] HCCL(17381,python):2022-12-01-03:02:29.001.054 "
       "[network_manager.cc:64][hccl-17381-0-1669834948-hccl_world_group][0]call trace: ret -> 7",
       Severity::error, "HCCL", 17381, "python", -1, "[0]call trace: ret -> 7", -1, -1},
      // no spaces at all (hccl docs)
      {"[ERROR]HCCL(835695,all_reduce_test):2025-10-23-17:28:06.049.385[task_exception_handler.cc:"
       "610][835695][TaskExecStage][HeartbeatAbnormal]Cluster Exception "
       "Location[IP/ID]:[127.10.0.1/1], Arrival Time:[Thu Oct 23 17:25:58 2025], "
       "Discoverer:[127.10.0.1/2], ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. "
       "Process has exited, 2. Network Disconnected",
       Severity::error, "HCCL", 835695, "all_reduce_test", 835695,
       "[TaskExecStage][HeartbeatAbnormal]Cluster Exception", -1, -1},
      // ' ' instead of '-' between date and time (hixl docs)
      {"[ERROR] RUNTIME(14163,python3):2025-12-13 12:15:25.025.554 [stream.cc:1402]14595 "
       "SynchronizeExecutedTask:Stream synchronize timeout, device_id=11, stream_id=103, "
       "timeout=10000, tryCount=10.",
       Severity::error, "RUNTIME", 14163, "python3", 14595, "Stream synchronize timeout", 11, -1},
      {"[ERROR] AICPU(28880,aicpu_scheduler):2025-03-05-17:32:22.832.371 "
       "[gatherv2.cc:157][GetInputAndCheck][tid:28891]Shape must be at least rank [1] but is rank "
       "[0]",
       Severity::error, "AICPU", 28880, "aicpu_scheduler", 28891, "Shape must be at least rank [1]",
       -1, -1},
      {"[ERROR] CCECPU(28880,aicpu_scheduler):2025-03-05-17:32:22.832.408 "
       "[ae_kernel_lib_aicpu.cc:300][TransformKernelErrorCode][tid:28891][AICPU_PROCESSER] call "
       "aicpu api RunCpuKernel in libcpu_kernels.so failed, ret:4294967295.",
       Severity::error, "CCECPU", 28880, "aicpu_scheduler", 28891,
       "[AICPU_PROCESSER] call aicpu api", -1, -1},
      {"[INFO] TDT(155320,python3):2025-05-08-09:56:08.144.746 "
       "[package_worker_factory.cpp:40][RegisterPackageWorkerCreator][tid:155320] Register[4] "
       "package worker creator success",
       Severity::info, "TDT", 155320, "python3", 155320, "Register[4] package worker", -1, -1},
      {"[ERROR] PROFILING(278,python3):2025-08-26-03:01:18.166.038 [ai_drv_dev_api.cpp:78] >>> "
       "(tid:278) Failed to drvGetPlatformInfo, ret=87",
       Severity::error, "PROFILING", 278, "python3", 278, "Failed to drvGetPlatformInfo", -1, -1},
      {"[INFO] ATRACE(155320,python3):2025-05-08-09:56:08.124.468 [trace_attr.c:190](tid:155320) "
       "attr init success, timeout=0ms.",
       Severity::info, "ATRACE", 155320, "python3", 155320, "attr init success", -1, -1},
      {"[ERROR] DRV(4176881,python3.7):2024-06-29-16:19:28.520.037 [ascend][curpid: 4176881, "
       "4176881][drv][devmm][share_log_read_in_single_module 634]Msg send failed. (ret=-12; "
       "devid=0; vfid=0; host_pid=4176881)",
       Severity::error, "DRV", 4176881, "python3.7", -1, "[ascend][curpid: 4176881", 0, -1},
      {"[INFO] DRV(155320,python3):2025-05-08-09:56:12.529.914 "
       "[drv_log_user.c:623][ascend][curpid:155320,155351][drv][hdc][share_log_read_in_single_"
       "module]Server create success.(dev_id=0; fid=0; service_type=\"service_dump\"; pid=155320)",
       Severity::info, "DRV", 155320, "python3", 155351, "[curpid:155320,155351][drv][hdc]", 0, -1},
      {"[ERROR] DRV(9,npu-smi):2025-03-29-11:21:16.865.482 [dm_udp.c:91][dmp] [__dm_send_msg 91] "
       "sendmsg fail:2.",
       Severity::error, "DRV", 9, "npu-smi", -1, "[dmp] [__dm_send_msg 91] sendmsg fail:2.", -1,
       -1},
      {"[ERROR] DRV(13489,rtstest\\_host):2020-10-29-05:26:01.002.033 "
       "[hardware/dev\\_plat/../dev\\_core/tsdrv/ tsdrv\\_id.c:172][devdrv] [drvStreamIdAlloc 172] "
       "ioctl failed, devId(0) tsid(0), strategy(0), ret(-1).",
       Severity::error, "DRV", 13489, "rtstest\\_host", -1,
       "[devdrv] [drvStreamIdAlloc 172] ioctl failed", 0, -1},
      {"[INFO] HCCL(2111665,all_reduce_test):2025-10-24-11:16:52.724.374 [op_base.cc:1292] "
       "[2111667]Entry-HcclCommInitRootInfoInner:ranks[4], rank[2], rootinfo: host ip[127.10.0.1] "
       "port[60000] nicDeploy[1] identifier[127.10.0.1%enp_60000_0_1761275812718970], "
       "deviceLogicId[2]",
       Severity::info, "HCCL", 2111665, "all_reduce_test", 2111667,
       "Entry-HcclCommInitRootInfoInner", 2, 2},
      {"[ERROR] RUNTIME(8953,None):2020-12-24-01:10:54.177.528 "
       "[../../../../../../runtime/feature/src/task.cc:544]8958 PrintErrorInfo:execute failed, "
       "fault kernel_name=-1_0_1_trans_TransData_0, ",
       Severity::error, "RUNTIME", 8953, "None", 8958, "execute failed, fault kernel_name", -1, -1},
      {"[ERROR] DEVICE(170414,fffe397fa1e0,python):2021-09-13-15:29:07.466.049 "
       "[mindspore/ccsrc/...:375] Init] ...",
       Severity::error, "DEVICE", 170414, "fffe397fa1e0,python", -1, "Init] ...", -1, -1},
      // template forms: numeric level, numeric module id, empty process name
      {"[3] RUNTIME(2933,):2025-05-08-09:56:18.526.881 [stream.cc:3287]2933 "
       "EnterFailureAbort:[INIT][DEFAULT]stream_id=2 enter failure abort.",
       Severity::error, "RUNTIME", 2933, "", 2933, "[INIT][DEFAULT]stream_id=2", -1, -1},
      {"[WARNING] 7(60570,):2025-05-08-09:56:18.526.881 [stream.cc:3287]60570 "
       "EnterFailureAbort:stream_id=2 enter failure abort.",
       Severity::warning, "7", 60570, "", 60570, "stream_id=2 enter", -1, -1},
  };
  for (const Row& row : rows) {
    const auto e = one("plog", row.line);
    INFO(row.line);
    CHECK(e.severity == row.sev);
    CHECK(e.module == row.module);
    CHECK(e.pid == row.pid);
    CHECK(e.process == row.process);
    CHECK(e.tid == row.tid);
    CHECK(e.message.rfind(row.msg_prefix, 0) == 0);
    CHECK(e.device == row.device);
    CHECK(e.rank == row.rank);
    CHECK(e.time.clock == Clock::host_local);
    CHECK(e.text == row.line);
    CHECK(e.line == 1);
  }
}

TEST_CASE("plog time stamps: ms.us fields, both date/time separators", "[logs][plog]") {
  const auto a =
      one("plog",
          "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.522.534 "
          "[stars_engine.cc:1553]155320 ProcLogicCqReport:[INIT][DEFAULT]Task run failed");
  CHECK(a.time.year == 2025);
  CHECK(a.time.month == 5);
  CHECK(a.time.day == 8);
  CHECK(a.time.hour == 9);
  CHECK(a.time.minute == 56);
  CHECK(a.time.second == 18);
  CHECK(a.time.nanos == 522'534'000);
  CHECK_FALSE(a.time.has_uptime());
  const auto b = one("plog",
                     "[ERROR] RUNTIME(14163,python3):2025-12-13 12:15:25.025.554 "
                     "[stream.cc:1402]14595 SynchronizeExecutedTask:Stream synchronize timeout, "
                     "device_id=11, stream_id=103, timeout=10000, tryCount=10.");
  CHECK(b.time.month == 12);
  CHECK(b.time.hour == 12);
  CHECK(b.time.nanos == 25'554'000);
}

TEST_CASE("plog: CRLF, wrapped lines, blank lines, malformed lines", "[logs][plog]") {
  SECTION("CRLF endings are not part of the message") {
    const auto r =
        parse_text("plog",
                   "[INFO] ATRACE(155320,python3):2025-05-08-09:56:08.124.468 "
                   "[trace_attr.c:190](tid:155320) attr init success, timeout=0ms.\r\n"
                   "[INFO] ATRACE(155320,python3):2025-05-08-09:56:08.124.569 "
                   "[trace_recorder.c:52](tid:155320) get path by env ASCEND_WORK_PATH: ./new\r\n");
    REQUIRE(r.events.size() == 2);
    CHECK(r.malformed == 0);
    CHECK(r.events[0].message == "attr init success, timeout=0ms.");
    CHECK(r.events[1].message == "get path by env ASCEND_WORK_PATH: ./new");
    CHECK(r.events[1].line == 2);
  }
  SECTION("a wrapped line continues the previous record, not malformed") {
    const auto r = parse_text(
        "plog",
        "[ERROR] DRV(17381,python):2022-12-01-03:02:29.391.021 [ascend][curpid: 17381, "
        "17381][drv][tsdrv][share_log_read 552]hdc connect down, devid(0) fid(0) tsid(0)\n"
        " hdc connect down, devid(0) fid(0) tsid(0)\n"
        "[INFO] ATRACE(155320,python3):2025-05-08-09:56:08.124.468 [trace_attr.c:190](tid:155320) "
        "attr init success, timeout=0ms.\n");
    CHECK(r.malformed == 0);
    REQUIRE(r.events.size() == 3);
    CHECK(r.events[1].line == 2);
    CHECK(r.events[1].severity == Severity::error);  // inherits the record it continues
    CHECK(r.events[1].module == "DRV");
    CHECK(r.events[1].pid == 17381);
    CHECK(r.events[1].time.second == 29);
    CHECK(r.events[1].message == "hdc connect down, devid(0) fid(0) tsid(0)");
  }
  SECTION("the real debug plog's empty line after an ASSERT line is skipped") {
    const auto r = parse_text(
        "plog",
        "[ERROR] IDEDD(155320,python3):2025-05-08-09:56:20.763.494 "
        "[dump_printf.cpp:548][tid:155320] [ASSERT] [CANN_VERSION : 7.8][TimeStamp : 0] "
        "/home/phisik3/Ascend/CANN-7.8/opp/built-in/op_impl/ai_core/tbe/impl/dynamic/../ascendc/"
        "gather_v3/gather_v3_base.h:137: Assertion `(0 <= val && val < this->gxSize_)' Index "
        "100000000 out of range[0 655360)!\n"
        "\n"
        "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:20.764.545 [stars_engine.cc:1423]155320 "
        "StarsResumeRtsq:[INIT][DEFAULT]stop scheduling in abort failure mode: stream_id=2, "
        "sq_id=2, sq_head=1, task_id=1, taskType=66.\n");
    CHECK(r.malformed == 0);
    REQUIRE(r.events.size() == 2);
    CHECK(r.events[0].tid == 155320);
    CHECK(r.events[1].line == 3);
  }
  SECTION("a broken header and text before any record are malformed") {
    const auto r =
        parse_text("plog",
                   "garbage before the first record\n"
                   "[ERROR] RUNTIME(155320,python3):2025-05-0\n"
                   "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:20.764.545 "
                   "[stars_engine.cc:1423]155320 StarsResumeRtsq:[INIT][DEFAULT]stop scheduling\n"
                   "[ERROR] RUNTIME(155320,python3):2025-13-08-09:56:20.764.545 "
                   "[stars_engine.cc:1423]155320 bad month\n");
    CHECK(r.malformed == 3);
    CHECK(r.events.size() == 1);
  }
}

TEST_CASE("device_app_log: device clock, device id from the folder, kept lines", "[logs][plog]") {
  const std::string path = "dfx/log/host/cann/run/device-0/device-155320_20250508095615632.log";
  const auto a = one("device_app_log",
                     "[INFO] CCECPU(12790,aicpu_scheduler):2025-05-08-09:56:12.714.696 "
                     "[main.cpp:317][main][tid:12790] Start para. deviceId=0, hostPid=155320, "
                     "pidSign=000000000000000000000000000000000000000000000000, profilingMode=0, "
                     "vfId=0, logLevel=3, ccecpulogLevel=-1, aicpulogLevel=-1, deviceMode=0, "
                     "aicpuSchedMode=0, hostProcName=, grpNameNum=0, ",
                     path);
  CHECK(a.time.clock == Clock::device_local);
  CHECK(a.keep);  // host pid <-> device pid mapping
  CHECK(a.device == 0);
  CHECK(a.pid == 12790);
  const auto b = one("device_app_log",
                     "[INFO] CCECPU(12790,aicpu_scheduler):2025-05-08-09:56:12.735.154 "
                     "[aicpusd_drv_manager.cpp:321][InitSocType][tid:12790] Soc type is 0",
                     "ascend/log/debug/device-3/device-6495_20251222194004973.log");
  CHECK(b.device == 3);
  CHECK_FALSE(b.keep);
  const auto c = one("device_app_log",
                     "[INFO] HCCP(2988,hccp_service.bin):2025-10-24-15:39:26.133.826 "
                     "[rs_ssl.c:1529]tid:2988,rs_ssl_init(1529) : TLS SWITCH (1)");
  CHECK(c.tid == 2988);
  CHECK(c.module == "HCCP");
  CHECK(c.message == "rs_ssl_init(1529) : TLS SWITCH (1)");
}

TEST_CASE("device_os_log: sklogd KERNEL lines carry device uptime and a printk payload",
          "[logs][plog]") {
  const std::string path =
      "dfx/log/device/dev-os-0/system/debug/device-os/device-os_20250508024510859.log";
  const auto a = one(
      "device_os_log",
      "[ERROR] KERNEL(4723,sklogd):2025-05-08-04:23:57.773.589 [klogd.c:247][30561.363911] "
      "[ascend] [ERROR] [devmm] [devmm_svm_vm_fault_device 546] <kworker/u16:1:21433,21433> "
      "Devmm_svm_get_heap by start failed. (hostpid=22323; devid=0; vfid=0; start=0x12d9d7840000)",
      path);
  CHECK(a.time.clock == Clock::device_local);
  CHECK(a.time.uptime_ns == 30561'363'911'000LL);
  CHECK(a.module == "devmm");
  CHECK(a.pid == 21433);
  CHECK(a.tid == 21433);
  CHECK(a.device == 0);
  CHECK(a.message.rfind("Devmm_svm_get_heap by start failed.", 0) == 0);
  const auto b = one("device_os_log",
                     "[ERROR] KERNEL(4723,sklogd):2025-05-08-02:45:10.858.289 "
                     "[klogd.c:247][24634.433552] OOM_NOTIFIER: oom type 2",
                     path);
  CHECK(b.module == "KERNEL");
  CHECK(b.message == "OOM_NOTIFIER: oom type 2");
  CHECK(b.device == 0);  // from dev-os-0/
  CHECK(b.time.uptime_ns == 24634'433'552'000LL);
  // EVENT level, but the printk payload says ERROR
  const auto c =
      one("device_os_log",
          "[EVENT] KERNEL(4128,sklogd):2025-05-08-04:23:57.773.589 [klogd.c:253][2572550.901383] "
          "[ascend] [ERROR] [devmm] [devmm_svm_device_fault 438] <kworker/u16:186:9871,9871> Vm "
          "fault failed. (...)");
  CHECK(c.severity == Severity::error);
  CHECK(c.pid == 9871);
  const auto d =
      one("device_os_log",
          "[INFO] ROS(4794,proc_launcher):2025-05-08-02:33:54.254.399 "
          "[procmgr_agent_impl.cpp:359][24189.624467s][BOOT_TRACE][PM_AGENT] ProcMgrAgent receive "
          "appState msg from PM appState=TERMINATED_NORMAL_EXIT, appName=TSDaemon@36, pid=26138");
  CHECK(d.time.uptime_ns == 24189'624'467'000LL);
  CHECK(d.message.rfind("[BOOT_TRACE][PM_AGENT] ProcMgrAgent", 0) == 0);
  const auto e =
      one("device_os_log",
          "[INFO] TDT(4866,tsdaemon):2025-05-08-07:13:08.746.841 "
          "[tsd_common.cpp:918][StartRspProc][tid:1201] [TSDaemon] device index in os[0] "
          "sessId[66] fmkPid[98209] StartRspProc() "
          "[subProcPid=1179][procType=1(0:HCCP,1:COMPUTE,2:CUSTOM_COMPUTE,3.QUEUE_SCHEDULE)].");
  CHECK(e.tid == 1201);
  CHECK(e.pid == 4866);
}

TEST_CASE("plog parses the real asys plogs completely", "[logs][plog][corpus]") {
  if (!fltest::have_asys()) {
    WARN("no asys bundle: skipped");
    return;
  }
  const auto r = fltest::parse_asys("debug/plog/plog-155320_20250508095618528.log");
  CHECK(r.lines == 78);
  CHECK(r.malformed == 0);
  CHECK(r.events.size() == 77);  // one blank line
  size_t errors = 0;
  for (const auto& e : r.events) errors += e.severity == Severity::error;
  CHECK(errors == 77);
  const auto run = fltest::parse_asys("run/plog/plog-155320_20250508095608125.log");
  CHECK(run.malformed == 0);
  CHECK(run.events.size() == 367);
}
