// `rules coverage`: the share of each code table (rules/codes/) whose codes, printed in the
// wordings real tools use, the signature engine turns into the right fault (docs/codes.md).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "faultline/app/app.hpp"
#include "faultline/correlate/codes.hpp"
#include "faultline/tag/tag.hpp"

namespace faultline::app {
namespace {

// `{name}` placeholders of a fault's fixed code from the captures ("" when absent)
std::string fill(const std::string& t, const tag::Captures& caps) {
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '{') {
      const size_t e = t.find('}', i);
      if (e != std::string::npos) {
        const std::string name = t.substr(i + 1, e - i - 1);
        for (const auto& [k, v] : caps)
          if (k == name) out += v;
        i = e;
        continue;
      }
    }
    out += t[i];
  }
  return out;
}

int level_of(const tag::Fault& f) {
  return f.generic_last ? 3 : f.generic_code ? 2 : f.generic ? 1 : 0;
}

// Lines of real tools carrying a code: {N} the code, {NAME} its name (docs/codes.md "Wordings").
std::vector<std::string> templates(const std::string& family) {
  if (family == "acl" || family == "aclnn")
    return {
        "2024-05-10 09:13:24.510829530 [E:onnxruntime:Default, cann_call.cc:139 CannCall] CANN "
        "failure {N}: {NAME} ; NPU=0 ; hostname=localhost ; expr=aclrtSynchronizeStream(stream);",
        "Call aclrtSetDevice(device->id) failed : {N} at file "
        "/home/Paddle-Lite/lite/backends/nnadapter/nnadapter/src/driver/huawei_ascend_npu/"
        "engine.cc line 430",
        "E20231116 09:50:41.157967  2326 MxOmModelDesc.cpp:855] [{N}][Error code unknown] Failed "
        "to model infer execute",
        "[FATAL]  Acl return error "
        "/workspace/KsanaLLM/src/ksana_llm/kernels/ascend/attention.cc:140, with ERROR {N}",
        "[ERROR] ASCENDCL(2326,python3):2025-05-08-09:56:20.779.486 [model.cpp:120]2326 "
        "aclmdlExecute: [Exec][Model]execute model failed, error code is {N}",
        "[ERROR] GE(2326,python3):2025-05-08-09:56:20.779.486 [graph_manager.cc:120]2326 "
        "RunGraph: run graph failed, ret={N}"};
  if (family == "hccl")
    return {
        "RuntimeError: create:torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:100 HCCL "
        "function error: HcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, "
        "&(comm->hcclComm_)), error code is {N}",
        "[ERROR] HCCL(2326,python3):2025-05-08-09:56:20.779.486 [hccl_comm.cc:120] "
        "HcclAllReduce failed, ret = {N}",
        "hccl allreduce failed: {NAME}", "Call HcclBroadcast failed: HcclResult {N}",
        "[HCCL] communicator init failed, error code: {N} ({NAME})"};
  if (family == "drv")
    return {"halMemAlloc failed, drvRetCode={N}, size=1073741824",
            "[ERROR] RUNTIME(2326,python3):2025-05-08-09:56:20.779.486 [npu_driver.cc:100]2326 "
            "MallocHostSharedMemory: halHostRegister failed, drv_ret_code={N}",
            "open device failed: {NAME}", "drvError={N} returned by halGetDeviceInfo",
            "[ERROR] DRV(2326,python3):2025-05-08-09:56:20.779.486 [dev.c:88] get info failed, "
            "drvRet={N}"};
  if (family == "dcmi")
    return {"dcmi_get_device_health failed, ret = {N}", "Error code: {N}",
            "Error: dcmi call returned {NAME}", "npu-smi: get device info failed, err = {N}",
            "The query failed: {N}"};
  if (family == "torch_npu")
    return {
        "[ERROR] 2025-07-13-21:24:03 (PID:474, Device:2, RankID:2) {N} {NAME}",
        "TypeError: argument of the wrong type {N} {NAME}", "RuntimeError: call failed {N} {NAME}.",
        "(VllmWorker rank=0 pid=38) ERROR 06-17 14:07:56 [multiproc_executor.py:523] {N} {NAME}",
        "Error:  2025-07-31-01:25:19 (PID:12066, Device:0, RankID:-1) {N} {NAME}"};
  if (family == "cann_msg")
    return {"{N}: the operation failed for [AddDsl].", "RuntimeError: {N}: the operation failed.",
            "Operator build failed, see the error above ({N})",
            "[ERROR] GE(2326,python3):2025-05-08-09:56:20.779.486 [op.cc:12] build failed [{N}]",
            "ATC run failed, error code: {N}"};
  if (family == "ge")
    return {
        "[ERROR] GE(45311,python):2024-05-24-21:17:48.149.129 [graph_prepare.cc:1769]45311 "
        "FormatAndShapeProcess: ErrorNo: {N}(Prepare Graph infershape failed) "
        "[COMP][PRE_OPT][Call][InferShapeForPreprocess] failed",
        "[ERROR] GE(946748,main):2025-05-19-15:59:07.739.753 [host_cpu_engine.cc:288]947062 "
        "LoadLib: ErrorNo: {N}() [INIT][DEFAULT][Invoke][DlOpen] failed.",
        "        build graph failed, graph id:0, ret:{N}[FUNC:BuildModelWithGraphId]"
        "[FILE:ge_generator.cc][LINE:1622]",
        "[ERROR] GE comm_channel.cc:533         TransferSync: ErrorNo: {N} TransferSync failed."};
  if (family == "hixl")
    return {
        "E20260106 06:43:02.966156  5793 ascend_direct_transport.cpp:820] Failed to connect to "
        "target: 172.17.0.16:25482, status: {N}",
        "E20260608 14:45:44.404292 342420 ascend_direct_transport.cpp:836] Transfer slice "
        "failed with status: {N}",
        "E20260608 14:45:44.404398 342420 ascend_direct_transport.cpp:1138] Failed to "
        "disconnect to: 10.24:20033, status: {N}",
        "[ERROR] GE(893240,):2026-08-11-07:03:46.027.141 [channel.cc:314]904211 operator(): "
        "ErrorNo: {N}() [GE][MODULE]Failed to invoke HcclBatchGet,"};
  if (family == "mooncake")
    return {
        "(Worker_TP0 pid=3401) ERROR 03-28 09:06:16 [mooncake_backend.py:85] Failed to put "
        "key ['qwen3@pcp0@dc0@tp0@a1b2'],res:[{N}]",
        "(Worker_TP0 pid=3401) ERROR 03-28 09:06:16 [mooncake_backend.py:99] Failed to get "
        "key ['qwen3@pcp0@dc0@tp0@a1b2'], res: {N}",
        "[Bug][P/D] Intermittent mooncake KV get returns error_code {N} under load",
        "E0328 09:06:16.412760 112112 client_service.cpp:1181] Mooncake store put failed, "
        "error code: {N}"};
  if (family == "mindie")
    return {
        "[2025-12-15 15:19:22.681+08:00] [38] [452] [server] [ERROR] [http_server.cpp:163] : "
        "[{N}] [endpoint] Failed to listen 172.17.0.3:40032",
        "[2025-06-30 20:36:02.906+08:00] [8771] [8775] [server] [ERROR] "
        "[llm_infer_engine.cpp:230] : {N}[llm_backend] get model instance cache block nums "
        "failed.",
        "[2024-11-05 12:00:00.123456] [11] [1] [MS] [1] [ERROR] : [{N}] [HttpServer] Http "
        "server on timeout",
        "[2025-07-18 16:08:07.105+08:00] [1] [1] [server] [ERROR] [llm_daemon.cpp:218] : [{N}] "
        "[daemon] Failed to set process group. errno is 2"};
  if (family == "event")
    return {"fault event: event_id: [{N}], device 3, raised", "npu fault code={N} on chip 0",
            "alarm id: {N} asserted", "device 0 error code is {N}", "dms event id: {N} reported"};
  return {};
}

std::string substitute(std::string t, const std::string& key, const std::string& v) {
  for (size_t at = t.find(key); at != std::string::npos; at = t.find(key, at + v.size()))
    t.replace(at, key.size(), v);
  return t;
}

}  // namespace

// For each code of each table: the lines of templates(); a line is recognised when the fault
// signatures of the lowest precedence level that hit it include one that names this code (its
// lookup, its code capture or its fixed code). Returns per family: codes, lines, recognised
// lines, and the first missed lines.
std::vector<CodeCoverage> code_coverage(const std::vector<RuleFile>& files,
                                        const tag::Engine& engine) {
  const correlate::CodeBook book = correlate::load_codes(files);
  const auto& sigs = engine.signatures();
  std::vector<CodeCoverage> out;
  for (const auto& fam : book.families) {
    CodeCoverage c;
    c.family = fam.name;
    c.codes = static_cast<int>(fam.codes.size());
    const auto tpl = templates(fam.name);
    for (const auto& e : fam.codes) {
      const std::string& num = e.code;
      bool all = !tpl.empty();
      for (const auto& t : tpl) {
        if (t.find("{NAME}") != std::string::npos && e.name.empty()) continue;
        const std::string line = substitute(substitute(t, "{N}", num), "{NAME}", e.name);
        ++c.lines;
        std::vector<uint32_t> hit;
        engine.scan(line, "text", [&](const tag::Hit& h) {
          const auto& s = sigs[h.signature];
          if (s.fault.present && s.fault.kb.empty()) hit.push_back(h.signature);
        });
        int best = 4;
        for (const auto i : hit) best = std::min(best, level_of(sigs[i].fault));
        bool ok = false;
        for (const auto i : hit) {
          const auto& f = sigs[i].fault;
          if (level_of(f) != best) continue;
          const auto caps = engine.captures(i, line);
          std::string code = fill(f.code, caps);
          for (const auto& [k, v] : caps)
            if (k == f.code_capture) code = v;
          if (!f.lookup.empty()) {
            auto entry = book.lookup(f.lookup, code);
            for (const auto& [k, v] : caps)  // a fixed code made of a capture: the capture
              if (!entry && f.code.find("{" + k + "}") != std::string::npos)
                entry = book.lookup(f.lookup, v);
            ok = ok || (entry && entry->family == e.family && entry->code == e.code);
          } else {
            ok = ok || correlate::canonical_code(fam.kind, code) == e.code;
          }
        }
        if (ok) {
          ++c.recognised;
        } else {
          all = false;
          if (c.missed.size() < 20) c.missed.push_back(line);
        }
      }
      if (all) ++c.codes_all;
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string code_coverage_text(const std::vector<RuleFile>& files, const tag::Engine& engine) {
  std::string out =
      "\ncode tables (rules/codes/): codes whose generated lines (the wordings of docs/codes.md) "
      "become the code's fault\nTABLE         CODES  ALL_WORDINGS  LINES  RECOGNISED  SHARE\n";
  int codes = 0, all = 0, lines = 0, rec = 0;
  for (const auto& c : code_coverage(files, engine)) {
    auto pad = [](std::string s, size_t n) {
      if (s.size() < n) s.append(n - s.size(), ' ');
      return s;
    };
    char share[16];
    std::snprintf(share, sizeof share, "%5.1f%%",
                  c.lines ? 100.0 * c.recognised / static_cast<double>(c.lines) : 0.0);
    out += pad(c.family, 13) + " " + pad(std::to_string(c.codes), 6) + " " +
           pad(std::to_string(c.codes_all), 13) + " " + pad(std::to_string(c.lines), 6) + " " +
           pad(std::to_string(c.recognised), 11) + " " + share + "\n";
    codes += c.codes;
    all += c.codes_all;
    lines += c.lines;
    rec += c.recognised;
  }
  char share[16];
  std::snprintf(share, sizeof share, "%.1f%%", lines ? 100.0 * rec / lines : 0.0);
  out += "total: " + std::to_string(codes) + " codes, " + std::to_string(all) +
         " recognised in every wording; " + std::to_string(rec) + " of " + std::to_string(lines) +
         " lines (" + share + ")\n";
  return out;
}

}  // namespace faultline::app
