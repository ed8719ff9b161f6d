// Training / serving stdout: tracebacks, CANN error blocks of every generation, torch_npu ERR
// lines, launcher and logger prefixes, torchrun summaries, configuration facts. Lines from
// log-formats.md §3 and §9 and seed 002.
#include <catch2/catch.hpp>
#include <map>

#include "test_logs_util.hpp"

using faultline::Clock;
using faultline::Severity;
using faultline::parse::parse_text;

namespace {
std::map<std::string, std::string> facts_of(const faultline::parse::ParseResult& r) {
  std::map<std::string, std::string> m;
  for (const auto& f : r.facts) m[f.name] = f.value;
  return m;
}
}  // namespace

TEST_CASE("train_log: torch_npu error output of vllm-ascend #2182 (CI rendering)",
          "[logs][train]") {
  const auto r = parse_text(
      "train_log",
      "Error:  2025-07-31-01:25:19 (PID:12066, Device:0, RankID:-1) ERR00100 PTA call acl api "
      "failed\n"
      "Error: : Model execution failed. \n"
      "        Rectify the fault based on the error information in the ascend log.\n"
      "EE9999: Inner Error!\n"
      "EE9999: [PID: 12066] 2025-07-31-01:25:19.967.079 The error from device(chipId:6, dieId:0), "
      "serial number is 1, event wait timeout occurred during task execution, stream_id:19, "
      "sq_id:19, task_id:16, event_id=73, "
      "timeout=1866s.[FUNC:ProcessStarsWaitTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1400]"
      "\n"
      "        TraceBack (most recent call last):\n"
      "       Task execute failed, device_id=0, stream_id=19, task_id=16, flip_num=0, "
      "task_type=3(EVENT_WAIT).[FUNC:GetError][FILE:stream.cc][LINE:1183]\n"
      "       rtDeviceSynchronizeWithTimeout execute failed, reason=[the model stream execute "
      "failed][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n"
      "       wait for compute device to finish failed, runtime result = "
      "507011.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n"
      "\n"
      "Exception raised from malloc at build/CMakeFiles/torch_npu.dir/compiler_depend.ts:91 (most "
      "recent call first):\n"
      "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xb8 (0xffff7f8fc908 in "
      "/usr/local/python3.11.13/lib/python3.11/site-packages/torch/lib/libc10.so)\n");
  CHECK(r.malformed == 0);
  REQUIRE(r.events.size() == 5);
  const auto& err = r.events[0];
  CHECK(err.module == "torch_npu");
  CHECK(err.severity == Severity::error);
  CHECK(err.pid == 12066);
  CHECK(err.device == 0);
  CHECK(err.rank == -1);
  CHECK(err.time.clock == Clock::host_local);
  CHECK(err.time.hour == 1);
  CHECK(err.time.second == 19);
  CHECK(err.message == "ERR00100 PTA call acl api failed");
  // "Error: : Model execution failed." + its indented hint line
  CHECK(r.events[1].severity == Severity::error);
  CHECK(r.events[2].line == 3);
  const auto& block = r.events[3];
  CHECK(block.line == 4);
  CHECK(block.line_count == 6);
  CHECK(block.module == "CANN");
  CHECK(block.severity == Severity::error);
  CHECK(block.keep);
  CHECK(block.pid == 12066);
  CHECK(block.time.nanos == 967'079'000);
  CHECK(block.time.second == 19);
  CHECK(block.text.rfind("EE9999: Inner Error!\nEE9999: [PID: 12066]", 0) == 0);
  CHECK(block.text.find("runtime result = 507011.") != std::string::npos);
  const auto& cpp = r.events[4];
  CHECK(cpp.line == 11);
  CHECK(cpp.line_count == 2);
  CHECK(cpp.module == "c10");
}

TEST_CASE("train_log: CANN block generations", "[logs][train]") {
  struct Row {
    const char* text;
    uint32_t lines;
    int64_t pid;
    int hour;
  };
  const Row rows[] = {
      {"EI9999: Inner Error!\n"
       "EI9999: 2024-07-03-11:28:40.419.527  The error from device(chipId:0, dieId:0), serial "
       "number is 1, hccl fftsplus task timeout occurred during task execution, stream_id:4, "
       "sq_id:4, task_id:5, stuck notify num:7, "
       "timeout:1836.[FUNC:ProcessStarsHcclFftsPlusTimeoutErrorInfo][FILE:device_error_proc.cc]["
       "LINE:1389]\n",
       2, -1, 11},
      {"EI0006: 2024-08-05-18:15:21.270.506 Getting socket times out. Reason: Remote Rank did not "
       "send the data in time. Please check the reason for the rank being stuck\n",
       1, -1, 18},
      {"EI0002: [PID: 7277] 2024-11-28-11:59:30.645.648 The wait execution of the Notify register "
       "times out. Reason: The Notify register has not received the Notify record from remote rank "
       "[unknown].base information: [streamID:[2282987520], taskID[5], "
       "tag[AllReduce_90.90.92.240%enp189s0f0_60000_0_1732766162316022], AlgType(level "
       "0-1-2):[fullmesh-ring-ring].] task information: [\n"
       "there are(is) 1 abnormal device(s):\n"
       "    Cluster Exception Location[IP/ID]:[90.90.92.240/1], Arrival Time:[Thu Nov 28 11:56:34 "
       "2024], Discoverer:[90.90.92.240/0], ExceptionType:[Heartbeat Lost Occurred], Possible "
       "Reason:1. Process has exited, 2. Network Disconnected\n"
       "]\n"
       "        Possible Cause: 1. An exception occurs during the execution on some NPUs in the "
       "cluster. As a result, collective communication operation failed.2. The execution speed on "
       "some NPU in the cluster is too slow to complete a communication operation within the "
       "timeout interval. (default 1800s, You can set the interval by using HCCL_EXEC_TIMEOUT.)3. "
       "The number of training samples of each NPU is inconsistent.4. Packet loss or other "
       "connectivity problems occur on the communication link.\n",
       5, 7277, 11},
      {"EE9999: [PID: 2750884] 2024-08-30-16:20:38.196.490 Stream destroy failed, stream is not in "
       "current ctx, stream_id=2.[FUNC:StreamDestroy][FILE:api_impl.cc][LINE:1032]\n",
       1, 2750884, 16},
      {"[PID: 749] 2025-12-29-03:16:15.787.356 Get_Socket_Timeout(EI0006): Getting socket times "
       "out. Reason: 1. The remote does not initiate a connect request. some NPUs in the cluster "
       "are abnormal.    2. The remote does not initiate a connect request because the collective "
       "communication operator is started too late or is not started by some NPU in the cluster.   "
       " 3. The communication link is disconnected. (For example, the IP addresses are not on the "
       "same network segment or the TLS configurations are inconsistent.)\n",
       1, 749, 3},
      {"EE9999: Inner Error!\n"
       "EE9999[PID: 818] 2026-08-13-15:31:21.888.208 (EE9999):  The error from device(chipId:5, "
       "dieId:0), serial number is 1, event wait timeout occurred during task execution, "
       "stream_id:44, sq_id:5, task_id:61293, event_id=55, "
       "timeout=234s.[FUNC:ProcessStarsWaitTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1593]"
       "\n",
       2, 818, 15},
      {"EZ9999[PID: 636125] 2026-06-24-12:44:08.922.071 (EZ9999):  The error from device(chipId:1, "
       "dieId:0), serial number is 167, there is an exception of aivec error, core id is 11, error "
       "code = 0, dump info: pc start: 0x124400000000, current: 0x124400000a9c, ...\n",
       1, 636125, 12},
      {"E19999: Internal error!\n"
       "        Unknown error occurred. Please check the log.\n",
       2, -1, -1},
      {"EH9999: Inner Error!\n"
       "        rtDeviceSynchronizeWithTimeout execute failed, reason=[task "
       "timeout][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n"
       "EH9999: [PID: 474] 2025-07-13-21:24:03.362.493 wait for compute device to finish failed, "
       "runtime result = 107020.[FUNC:ReportCallError][FILE:log_inn\n",
       3, 474, 21},
      {"EH9999  wait for compute device to finish failed, runtime result = "
       "107020.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n",
       1, -1, -1},
  };
  for (const Row& row : rows) {
    const auto r = parse_text("train_log", row.text);
    INFO(row.text);
    REQUIRE(r.events.size() == 1);
    const auto& e = r.events[0];
    CHECK(e.line_count == row.lines);
    CHECK(e.module == "CANN");
    CHECK(e.severity == Severity::error);
    CHECK(e.keep);
    CHECK(e.pid == row.pid);
    if (row.hour >= 0) {
      CHECK(e.time.has_civil());
      CHECK(e.time.hour == row.hour);
    } else {
      CHECK_FALSE(e.time.has_civil());
    }
  }
  // two different codes in a row are two blocks
  const auto two = parse_text("train_log",
                              "EE9999: Inner Error!\n"
                              "EE9999: [PID: 12066] 2025-07-31-01:25:19.967.079 The error from "
                              "device(chipId:6, dieId:0), serial number is 1\n"
                              "EI0006: 2024-08-05-18:15:21.270.506 Getting socket times out. "
                              "Reason: Remote Rank did not send the data in time.\n");
  REQUIRE(two.events.size() == 2);
  CHECK(two.events[0].line_count == 2);
  CHECK(two.events[1].line == 3);
}

TEST_CASE("train_log: compact torch_npu output (Ascend/pytorch #72)", "[logs][train]") {
  const auto r =
      parse_text("train_log",
                 "npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:506 NPU "
                 "function error: AclrtSynchronizeDeviceWithTimeout, error code is 107020\n"
                 "[ERROR] 2025-07-13-21:24:03 (PID:474, Device:2, RankID:2) ERR00100 PTA call acl "
                 "api failed.\n"
                 "EH9999: Inner Error!\n"
                 "        rtDeviceSynchronizeWithTimeout execute failed, reason=[task "
                 "timeout][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n"
                 "EH9999: [PID: 474] 2025-07-13-21:24:03.362.493 wait for compute device to finish "
                 "failed, runtime result = 107020.[FUNC:ReportCallError][FILE:log_inn\n");
  REQUIRE(r.events.size() == 3);
  CHECK(r.events[0].severity == Severity::error);
  CHECK(r.events[1].module == "torch_npu");
  CHECK(r.events[1].device == 2);
  CHECK(r.events[1].rank == 2);
  CHECK(r.events[1].pid == 474);
  CHECK(r.events[2].line_count == 3);
}

TEST_CASE("train_log: Python tracebacks with launcher prefixes", "[logs][train]") {
  SECTION("torchrun [rankN]: prefix; frames in the loss function belong to the traceback") {
    const auto r = parse_text(
        "train_log",
        "[rank1]: Traceback (most recent call last):\n"
        "[rank1]:   File \"/workspace/train.py\", line 120, in <module>\n"
        "[rank1]:     loss = criterion(out, target)\n"
        "[rank1]:   File \"/workspace/utils/loss.py\", line 42, in __call__\n"
        "[rank1]:     t = torch.tensor(feat.shape[2:], device=pred.device)\n"
        "[rank1]: RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS "
        "function error: HcclAllreduce, error code is 6\n"
        "[rank1]:[W220 02:16:08.680800943 NPUStream.cpp:487] Warning: NPU warning, error code is "
        "507001[Error]: \n");
    REQUIRE(r.events.size() == 2);
    const auto& tb = r.events[0];
    CHECK(tb.line == 1);
    CHECK(tb.line_count == 6);
    CHECK(tb.rank == 1);
    CHECK(tb.module == "python");
    CHECK(tb.severity == Severity::error);
    CHECK(tb.keep);
    CHECK(tb.message ==
          "RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function "
          "error: HcclAllreduce, error code is 6");
    CHECK(tb.text.find("utils/loss.py") != std::string::npos);
    const auto& w = r.events[1];
    CHECK(w.severity == Severity::warning);  // c10 W level although it carries an error code
    CHECK(w.rank == 1);
    CHECK(w.time.month == 2);
    CHECK(w.time.day == 20);
    CHECK(w.time.hour == 2);
    CHECK(w.time.nanos == 680'800'943);
    CHECK(w.time.year == 0);
    CHECK(w.message == "Warning: NPU warning, error code is 507001[Error]: ");
  }
  SECTION("torchrun --tee [default0]: prefix (role + local rank): stripped, times kept") {
    const auto r = parse_text(
        "train_log",
        "[default0]:Traceback (most recent call last):\n"
        "[default0]:  File \"/workspace/utils/loss.py\", line 171, in build_targets\n"
        "[default0]:    gain = torch.ones(7, device=targets.device)\n"
        "[default0]:RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/"
        "compiler_depend.ts:506 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code "
        "is 107020\n"
        "[default0]:[ERROR] 2026-03-04-10:17:11 (PID:30917, Device:0, RankID:0) ERR00100 PTA call "
        "acl api failed.\n");
    REQUIRE(r.events.size() >= 2);
    const auto& tb = r.events[0];
    CHECK(tb.line == 1);
    CHECK(tb.line_count == 4);
    CHECK(tb.rank == -1);  // a local rank is not the global one
    CHECK(
        tb.message ==
        "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:506 "
        "NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 107020");
    const auto& err = r.events[1];
    CHECK(err.line == 5);
    CHECK(err.pid == 30917);
    CHECK(err.time.year == 2026);
    CHECK(err.time.hour == 10);
    CHECK(err.time.minute == 17);
    CHECK(err.time.clock == Clock::host_local);
  }
  SECTION("interleaved ranks keep separate tracebacks") {
    const auto r = parse_text(
        "train_log",
        "[rank0]: Traceback (most recent call last):\n"
        "[rank1]: Traceback (most recent call last):\n"
        "[rank0]:   File \"/workspace/train.py\", line 120, in <module>\n"
        "[rank1]:   File \"/workspace/train.py\", line 120, in <module>\n"
        "[rank1]:     loss = criterion(out, target)\n"
        "[rank0]:     loss = criterion(out, target)\n"
        "[rank0]: RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:363 NPU "
        "error, error code is 107020\n"
        "[rank1]: RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS "
        "function error: HcclAllreduce, error code is 6\n");
    REQUIRE(r.events.size() == 2);
    CHECK(r.events[0].rank == 0);
    CHECK(r.events[0].line == 1);
    CHECK(r.events[0].line_count == 4);
    CHECK(r.events[0].message.find("107020") != std::string::npos);
    CHECK(r.events[1].rank == 1);
    CHECK(r.events[1].line == 2);
    CHECK(r.events[1].message.find("HcclAllreduce") != std::string::npos);
  }
  SECTION("vLLM worker prefix with logger prefix on every traceback line") {
    const auto r = parse_text(
        "train_log",
        "(VllmWorker rank=3 pid=36368) ERROR 08-21 08:26:21 [multiproc_executor.py:546] Traceback "
        "(most recent call last):\n"
        "(VllmWorker rank=3 pid=36368) ERROR 08-21 08:26:21 [multiproc_executor.py:546]   File "
        "\"/vllm-workspace/vllm/vllm/v1/executor/multiproc_executor.py\", line 541, in "
        "worker_busy_loop\n"
        "(VllmWorker rank=3 pid=36368) ERROR 08-21 08:26:21 [multiproc_executor.py:546]     output "
        "= func(*args, **kwargs)\n"
        "(VllmWorker rank=3 pid=36368) ERROR 08-21 08:26:21 [multiproc_executor.py:546] "
        "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 "
        "NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048\n");
    REQUIRE(r.events.size() == 1);
    const auto& tb = r.events[0];
    CHECK(tb.line_count == 4);
    CHECK(tb.rank == 3);
    CHECK(tb.pid == 36368);
    CHECK(tb.time.month == 8);
    CHECK(tb.time.day == 21);
    CHECK(tb.time.hour == 8);
    CHECK(tb.time.second == 21);
    CHECK(tb.message.rfind("RuntimeError: npuSynchronizeDevice", 0) == 0);
  }
  SECTION("vLLM before 0.6.4: the logger's file without its opening bracket") {
    // LLaMA-Factory #7447, verbatim
    const auto r = parse_text(
        "train_log",
        "(VllmWorkerProcess pid=1743) ERROR 03-25 12:50:16 multiproc_worker_utils.py:242] "
        "RuntimeError: Cannot re-initialize NPU in forked subprocess. To use NPU with "
        "multiprocessing, you must use the 'spawn' start method\n");
    REQUIRE(r.events.size() == 1);
    const auto& e = r.events[0];
    CHECK(e.pid == 1743);
    CHECK(e.severity == Severity::error);
    CHECK(e.time.month == 3);
    CHECK(e.time.day == 25);
    CHECK(e.time.hour == 12);
    CHECK(e.message.rfind("RuntimeError: Cannot re-initialize NPU", 0) == 0);
  }
  SECTION("MindIE service prefix: zoned time, pid, tid, component, level, file") {
    // gpustack/gpustack #2898 (MindIE daemon log), verbatim
    const auto r = parse_text(
        "train_log",
        "[2025-10-12 17:17:33.458+08:00] [26217] [33186] [server] [INFO] [http_server.cpp:54] : "
        "[endpoint] Receive request from 192.168.20.7:46182 ,method is GET, uri is /v1/models\n");
    REQUIRE(r.events.size() == 1);
    const auto& e = r.events[0];
    CHECK(e.severity == Severity::info);
    CHECK(e.time.clock == Clock::utc);
    CHECK(e.time.hour == 9);  // 17:17 at +08:00
    CHECK(e.time.minute == 17);
    CHECK(e.message.rfind("[endpoint] Receive request", 0) == 0);
  }
  SECTION("CRLF endings and Python 3.11 carets") {
    const auto r =
        parse_text("train_log",
                   "Traceback (most recent call last):\r\n"
                   "  File \"/workspace/probe.py\", line 12, in <module>\r\n"
                   "    torch.npu.synchronize()\r\n"
                   "    ^^^^^^^^^^^^^^^^^^^^^^^\r\n"
                   "RuntimeError: synchronize:../torch_npu/csrc/core/npu/NPUEvent.cpp:212 NPU "
                   "function error: aclrtSynchronizeEvent(event_), error code is 107020\r\n");
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].line_count == 5);
    CHECK(r.events[0].message.back() == '0');
  }
}

TEST_CASE("train_log: single lines with prefixes and their severities", "[logs][train]") {
  struct Row {
    const char* line;
    Severity sev;
    int32_t rank;
    int64_t pid;
    const char* process;
  };
  const Row rows[] = {
      {"worker-1: RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:363 NPU "
       "error, error code is 107020",
       Severity::error, -1, -1, "worker-1"},
      {"(train pid=8464) RuntimeError: "
       "npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:363 NPU error, error code is "
       "107020",
       Severity::error, -1, 8464, "train"},
      {"(Worker_DP0_TP5_EP5 pid=818) ERROR 08-13 15:31:21 [multiproc_executor.py:945] EngineCore "
       "encountered a fatal error.",
       Severity::error, -1, 818, "Worker_DP0_TP5_EP5"},
      {"[W NPUStream.cpp:365] Warning: NPU warning, error code is 107020[Error]: .",
       Severity::warning, -1, -1, ""},
      {"[W compiler_depend.ts:487] Warning: NPU warning, error code is 507048[Error]: ",
       Severity::warning, -1, -1, ""},
      {"[rank1]:[E324 13:00:25.428029551 compiler_depend.ts:574] [Rank 1] Watchdog caught "
       "collective operation timeout",
       Severity::error, 1, -1, ""},
      {"2024-10-21 10:42:00,218 - lmdeploy - ERROR - model_agent.py:489 - Rank[2] failed.",
       Severity::error, -1, -1, ""},
      {"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 "
       "(pid: 1622990) of binary: /home/changquan/anaconda3/envs/lang/bin/python",
       Severity::error, -1, -1, ""},
      {"RuntimeError: NPU out of memory. Tried to allocate 88.00 MiB (NPU 0; 60.96 GiB total "
       "capacity; 4.24 GiB already allocated; 4.24 GiB current active; 7.47 MiB free; 4.37 GiB "
       "reserved in total by PyTorch) If reserved memory is >> allocated memory try setting "
       "max_split_size_mb to avoid fragmentation.",
       Severity::error, -1, -1, ""},
      {"[W VariableFallbackKernel.cpp:51] Warning: CAUTION: The operator "
       "'aten::isin.Tensor_Tensor_out' is not currently supported on the NPU backend and will fall "
       "back to run on the CPU. This may have performance implications. (function "
       "npu_cpu_fallback)",
       Severity::warning, -1, -1, ""},
      // seed 002
      {"rtStreamSynchronize execution failed, reason=task timeout", Severity::error, -1, -1, ""},
      {"ACL error: 107020", Severity::error, -1, -1, ""},
      {"SynchronizeExecutedTask: report three minutes timeout!", Severity::warning, -1, -1, ""},
      {"stream_id=47, task_id=1280, sqHead=500, pendingNum=781", Severity::info, -1, -1, ""},
      {"Epoch 1/100", Severity::info, -1, -1, ""},
  };
  for (const Row& row : rows) {
    const auto r = parse_text("train_log", row.line);
    INFO(row.line);
    REQUIRE(r.events.size() == 1);
    const auto& e = r.events[0];
    CHECK(e.severity == row.sev);
    CHECK(e.rank == row.rank);
    CHECK(e.pid == row.pid);
    CHECK(e.process == row.process);
    CHECK(e.text == row.line);
  }
  // the record line of seed 002 is not a configuration
  CHECK(parse_text("train_log", "stream_id=47, task_id=1280, sqHead=500, pendingNum=781")
            .facts.empty());
  const auto py = parse_text(
      "train_log",
      "2024-10-21 10:42:00,218 - lmdeploy - ERROR - model_agent.py:489 - Rank[2] failed.");
  CHECK(py.events[0].time.year == 2024);
  CHECK(py.events[0].time.nanos == 218'000'000);
  CHECK(py.events[0].message == "model_agent.py:489 - Rank[2] failed.");
}

TEST_CASE("train_log: torchrun ChildFailedError summary is one event naming the root-cause rank",
          "[logs][train]") {
  const auto r = parse_text(
      "train_log",
      "Traceback (most recent call last):\n"
      "  File \"/usr/bin/torchrun\", line 8, in <module>\n"
      "    sys.exit(main())\n"
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
      "============================================================\n"
      "train.py FAILED\n"
      "------------------------------------------------------------\n"
      "Failures:\n"
      "[1]:\n"
      "  time      : 2023-05-19_16:39:58\n"
      "  host      : n136-117-136.byted.org\n"
      "  rank      : 1 (local_rank: 1)\n"
      "  exitcode  : 1 (pid: 78971)\n"
      "  error_file: <N/A>\n"
      "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
      "------------------------------------------------------------\n"
      "Root Cause (first observed failure):\n"
      "[0]:\n"
      "  time      : 2023-05-19_16:39:58\n"
      "  host      : n136-117-136.byted.org\n"
      "  rank      : 0 (local_rank: 0)\n"
      "  exitcode  : 1 (pid: 78970)\n"
      "  error_file: <N/A>\n"
      "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
      "============================================================\n"
      "after the summary\n");
  REQUIRE(r.events.size() == 3);
  CHECK(r.events[0].line_count == 4);
  CHECK(r.events[0].message.rfind(
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError", 0) == 0);
  const auto& cf = r.events[1];
  CHECK(cf.line == 5);
  CHECK(cf.line_count == 21);
  CHECK(cf.module == "torchrun");
  CHECK(cf.severity == Severity::error);
  CHECK(cf.rank == 0);
  CHECK(cf.time.year == 2023);
  CHECK(cf.time.hour == 16);
  CHECK(cf.message.find("exitcode 1 (pid: 78970)") != std::string::npos);
  CHECK(r.events[2].line == 26);
  CHECK(r.facts.empty());  // the summary's "key : value" lines are not configuration
}

TEST_CASE("train_log: effective configuration and command line as facts", "[logs][train]") {
  const auto r = parse_text("train_log",
                            "$ python train.py --amp False --workers 0 --pin-memory False --cache\n"
                            "Namespace(amp=True, batch_size=1, workers=0, pin_memory=False, "
                            "cache=None, data='coco.yaml')\n"
                            "amp: True\n"
                            "RuntimeError: x: y\n"
                            "see: http://example.invalid/doc\n");
  const auto f = facts_of(r);
  CHECK(f.at("args.amp") == "False");
  CHECK(f.at("args.workers") == "0");
  CHECK(f.at("args.pin-memory") == "False");
  CHECK(f.at("args.cache") == "true");
  CHECK(f.at("config.amp") == "True");
  CHECK(f.at("config.batch_size") == "1");
  CHECK(f.at("config.workers") == "0");
  CHECK(f.at("config.pin_memory") == "False");
  CHECK(f.at("config.data") == "coco.yaml");
  CHECK(f.count("config.RuntimeError") == 0);
  CHECK(f.count("config.see") == 0);
  CHECK(r.events[0].keep);
  CHECK(r.events[1].keep);

  const auto d = facts_of(parse_text(
      "train_log", "args: {'amp': True, 'workers': 0, 'imgsz': [640, 640]}\nworkers=0\n"));
  CHECK(d.at("config.amp") == "True");
  CHECK(d.at("config.workers") == "0");
  CHECK(d.at("config.imgsz") == "[640, 640]");
  const auto t = facts_of(
      parse_text("train_log", "torchrun --nproc_per_node 8 train.py --batch 1 --amp=False\n"));
  CHECK(t.at("args.batch") == "1");
  CHECK(t.at("args.amp") == "False");
  CHECK(t.count("args.nproc_per_node") == 0);  // a launcher flag, not the program's
  const auto single = facts_of(parse_text("train_log", "workers=0\n"));
  CHECK(single.at("config.workers") == "0");
}

TEST_CASE("train_log: grep -A context prefixes and a traceback without its exception line",
          "[logs][train]") {
  // the layout of `grep -A` over a job's worker logs (`<file>-<line>-` context lines,
  // `<file>:<line>:` matches) in front of the [rankN]: prefix, as in the vendor tool's train-log
  // test input; then a traceback whose exception line never came (the process was killed)
  const auto r = parse_text(
      "train_log",
      "/opt/job/log/worker_1953.log:11454:[rank1953]: Traceback (most recent call last):\n"
      "/opt/job/log/worker_1953.log-11455-[rank1953]:   File \"/cache/mindspeed_llm/training/"
      "training.py\", line 558, in pretrain\n"
      "/opt/job/log/worker_1953.log-11456-[rank1953]:     iteration = train(*train_args)\n"
      "/opt/job/log/worker_1953.log-11457-[rank1953]: RuntimeError: MemcpyAsync failed!\n"
      "Traceback (most recent call last):\n"
      "  File \"/cache/pretrain_vlm.py\", line 782, in <module>\n"
      "    pretrain(\n"
      "\n");
  REQUIRE(r.events.size() >= 3);
  // one traceback block across the numbered prefixes, rank and exception read
  const auto& tb = r.events[0];
  CHECK(tb.module == "python");
  CHECK(tb.line == 1);
  CHECK(tb.line_count == 4);
  CHECK(tb.rank == 1953);
  CHECK(tb.message == "RuntimeError: MemcpyAsync failed!");
  // the second stack ends at a blank line: a derived record says its exception line is missing
  bool incomplete = false;
  for (const auto& e : r.events)
    if (e.derived) {
      incomplete = true;
      CHECK(e.line == 5);
      CHECK(e.text == "Python traceback of 3 lines ended without an exception line");
    }
  CHECK(incomplete);
  // a traceback with its exception line gets no such record
  const auto ok = parse_text("train_log",
                             "Traceback (most recent call last):\n"
                             "  File \"/root/x.py\", line 2, in <module>\n"
                             "ValueError: expected matmul or rng\n");
  for (const auto& e : ok.events) CHECK_FALSE(e.derived);
}
