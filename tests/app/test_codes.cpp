// Code tables (rules/codes/, docs/codes.md) and the generic code matcher (rules/signatures/
// codes.yaml): every code of every table, printed in the wordings of real tools, becomes that
// code's fault; a code in a family's range but in no table is still a fault; version strings,
// sizes, timestamps, pids, ret=0 stay quiet; the shell's fatal-signal lines name the process.
#include <sqlite3.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "../common/temp_dir.hpp"
#include "faultline/app/app.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/correlate/codes.hpp"
#include "faultline/tag/tag.hpp"

using namespace faultline;
namespace fs = std::filesystem;

namespace {

const app::Rules& rules() {
  static const app::Rules r = app::load_rules({});
  return r;
}

const tag::Engine& engine() {
  static const auto e = [] {
    std::string err;
    auto p = tag::Engine::build(rules().signatures, {}, &err);
    REQUIRE(p);
    return p;
  }();
  return *e;
}

// fault findings of a one-file bundle: (finding id, code) -> the fault JSON object
std::map<std::pair<std::string, std::string>, nlohmann::json> analyse(
    const std::string& path, const std::vector<std::string>& lines) {
  test::TempDir dir("faultline-codes");
  const fs::path b = dir.path() / "bundle";
  fs::create_directories((b / path).parent_path());
  {
    std::ofstream out(b / path);
    for (const auto& l : lines) out << l << "\n";
  }
  app::Options o;
  o.cache_dir = dir.path() / "cache";
  o.no_kb = true;
  auto db = store::Db::open(dir.path() / "case.db");
  REQUIRE(app::analyze(*db, b, o).exit_code == 0);
  std::map<std::pair<std::string, std::string>, nlohmann::json> out;
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db->handle(),
                             "SELECT finding, title, fault FROM findings WHERE kind = 'fault'", -1,
                             &s, nullptr) == SQLITE_OK);
  while (sqlite3_step(s) == SQLITE_ROW) {
    auto j = nlohmann::json::parse(reinterpret_cast<const char*>(sqlite3_column_text(s, 2)));
    j["title"] = reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
    const std::string code = j["code"].is_string() ? j["code"].get<std::string>() : "";
    out[{reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), code}] = j;
  }
  sqlite3_finalize(s);
  return out;
}

}  // namespace

TEST_CASE("the code tables' cached form reads back the same tables; a damaged one is refused") {
  // issue 38 item 2: the parsed tables are kept in the rule cache (app/rule_cache.hpp)
  const auto book = correlate::load_codes(rules().files);
  REQUIRE(book.errors.empty());
  const std::string text = correlate::serialize_codes(book);
  const auto back = correlate::deserialize_codes(text);
  REQUIRE(back);
  REQUIRE(back->families.size() == book.families.size());
  size_t codes = 0;
  for (const auto& f : book.families) {
    const auto* g = back->family(f.name);
    REQUIRE(g);
    CHECK(g->kind == f.kind);
    CHECK(g->sources == f.sources);
    CHECK(g->codes.size() == f.codes.size());
    CHECK(g->ranges.size() == f.ranges.size());
    CHECK(g->by_code == f.by_code);
    CHECK(g->by_name == f.by_name);
    for (const auto& e : f.codes) {
      const auto token = e.code.empty() ? e.name : e.code;
      const auto x = book.lookup({f.name}, token), y = back->lookup({f.name}, token);
      REQUIRE(x);
      REQUIRE(y);
      CHECK(std::tie(x->code, x->name, x->cls, x->component, x->role, x->severity, x->title,
                     x->cause, x->suggestion, x->source, x->signature, x->known) ==
            std::tie(y->code, y->name, y->cls, y->component, y->role, y->severity, y->title,
                     y->cause, y->suggestion, y->source, y->signature, y->known));
      ++codes;
    }
  }
  CHECK(codes > 1000);
  // a code's own signature survives (the pasted 507015 title line is acl.error_507015's fault)
  const auto own = back->lookup({"acl"}, "507015");
  REQUIRE(own);
  CHECK(own->signature == "acl.error_507015");
  const auto unknown = back->lookup({"aclnn", "acl"}, "507999");  // a range entry
  REQUIRE(unknown);
  CHECK_FALSE(unknown->known);
  CHECK_FALSE(correlate::deserialize_codes(""));
  CHECK_FALSE(correlate::deserialize_codes(text.substr(0, text.size() / 2)));
  CHECK_FALSE(correlate::deserialize_codes(text + "x"));  // a byte more than was written
  std::string other = text;                               // another layout version
  other[0] = static_cast<char>(other[0] + 1);
  CHECK_FALSE(correlate::deserialize_codes(other));
  correlate::CodeBook bad;  // an index past the table
  bad.families.emplace_back();
  bad.families.back().name = "acl";
  bad.families.back().by_code.emplace("1", 5);
  CHECK_FALSE(correlate::deserialize_codes(correlate::serialize_codes(bad)));
  bad.families.back().by_code.clear();
  CHECK(correlate::deserialize_codes(correlate::serialize_codes(bad)));  // and without it, read
}

TEST_CASE("the built-in rules' digests computed at build time equal the ones computed at run") {
  // issue 38 item 2: a run without --rules DIR hashes no rule text (cmake/EmbedFiles.cmake)
  std::vector<RuleFile> sig, other, codes;
  for (const auto& f : embedded_rules()) {
    (f.path.rfind("signatures/", 0) == 0 ? sig : other).push_back(f);
    if (f.path.rfind("codes/", 0) == 0) codes.push_back(f);
  }
  REQUIRE(sig.size() > 10);
  REQUIRE(codes.size() > 5);
  const auto& d = embedded_digests();
  CHECK(d.all == app::rules_digest({sig, other}));
  CHECK(d.signatures == app::rules_digest({sig}));
  CHECK(d.codes == app::rules_digest({codes}));
  // load_rules hashes the texts at run time; --version and prepare() take the build's digest
  CHECK(rules().digest == d.all);
  CHECK(app::rules_digest_of({}) == d.all);
  // the views are the files, sorted by path (merged_rules without a --rules DIR relies on it)
  const auto& views = embedded_rule_views();
  REQUIRE(views.size() == embedded_rules().size());
  for (size_t i = 0; i < views.size(); ++i) {
    CHECK(views[i].path == embedded_rules()[i].path);
    CHECK(views[i].text == embedded_rules()[i].text);
    if (i > 0) CHECK(views[i - 1].path < views[i].path);
  }
  CHECK(merged_rules({}).size() == views.size());
}

TEST_CASE("a truncated or foreign rule cache file is parsed again and rewritten") {
  // the cached packs and code tables are read without hashing their payload (issue 38)
  test::TempDir dir("faultline-codes-cache");
  const fs::path b = dir.path() / "bundle";
  fs::create_directories(b);
  {
    std::ofstream out(b / "console.txt");
    out << "Call aclrtSetDevice(device->id) failed : 507033 at file "
           "/home/Paddle-Lite/lite/backends/nnadapter/nnadapter/src/driver/huawei_ascend_npu/"
           "engine.cc line 430\n";
  }
  app::Options o;
  o.cache_dir = dir.path() / "cache";
  o.no_kb = true;
  const auto findings = [&] {
    auto db = store::Db::open(dir.path() / "case.db");
    REQUIRE(app::analyze(*db, b, o).exit_code == 0);
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(db->handle(), "SELECT finding FROM findings ORDER BY finding", -1,
                               &s, nullptr) == SQLITE_OK);
    std::vector<std::string> out;
    while (sqlite3_step(s) == SQLITE_ROW)
      out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
    sqlite3_finalize(s);
    return out;
  };
  const auto first = findings();
  CHECK(std::count(first.begin(), first.end(), "fault.acl.error_507033") == 1);
  std::map<fs::path, uintmax_t> sizes;
  for (const auto& e : fs::directory_iterator(o.cache_dir))
    if (e.path().extension() == ".rules" || e.path().extension() == ".codes")
      sizes[e.path()] = e.file_size();
  REQUIRE(sizes.size() == 2);
  for (const auto& [p, n] : sizes) fs::resize_file(p, n / 2);
  CHECK(findings() == first);
  for (const auto& [p, n] : sizes) CHECK(fs::file_size(p) == n);  // rewritten whole
  // the right header with another payload (a foreign or damaged layout): refused too
  for (const auto& [p, n] : sizes) {
    std::string head;
    {
      std::ifstream in(p, std::ios::binary);
      head.resize(16 + 130);
      in.read(head.data(), static_cast<std::streamsize>(head.size()));
    }
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << head << "not a serialized form";
  }
  CHECK(findings() == first);
  for (const auto& [p, n] : sizes) CHECK(fs::file_size(p) == n);
}

TEST_CASE("the code tables load, with their sources, and cover every documented family") {
  const auto book = correlate::load_codes(rules().files);
  INFO((book.errors.empty() ? std::string() : book.errors.front()));
  CHECK(book.errors.empty());
  const std::map<std::string, size_t> at_least = {
      {"acl", 200}, {"aclnn", 25},     {"hccl", 20},      {"drv", 90},
      {"dcmi", 15}, {"torch_npu", 70}, {"cann_msg", 450}, {"event", 200},
      {"ge", 200},  {"hixl", 8},       {"mooncake", 20},  {"mindie", 1}};
  for (const auto& [name, n] : at_least) {
    const auto* f = book.family(name);
    REQUIRE(f);
    CHECK(f->codes.size() >= n);
    CHECK_FALSE(f->sources.empty());
    for (const auto& e : f->codes) CHECK_FALSE(e.source.empty());
  }
  // by number, by name, in a range, outside every range
  const auto rt = book.lookup({"aclnn", "acl"}, "ACL_ERROR_RT_AICORE_EXCEPTION");
  REQUIRE(rt);
  CHECK(rt->code == "507015");
  CHECK(rt->component == "aicore");
  const auto hbm = book.lookup({"aclnn", "acl"}, "507054");
  REQUIRE(hbm);
  CHECK(hbm->cls == "hardware");
  const auto nn = book.lookup({"aclnn", "acl"}, "561103");
  REQUIRE(nn);
  CHECK(nn->family == "aclnn");
  CHECK(nn->name == "ACLNN_ERR_INNER_NULLPTR");
  const auto unknown = book.lookup({"aclnn", "acl"}, "507999");
  REQUIRE(unknown);
  CHECK_FALSE(unknown->known);
  CHECK(unknown->title == "Unknown ACL code 507999 (internal class)");
  CHECK_FALSE(book.lookup({"aclnn", "acl"}, "999999"));
  CHECK_FALSE(book.lookup({"aclnn", "acl"}, "ACL_ERROR_NOT_A_NAME"));
  const auto ev = book.lookup({"event"}, "0x80cb8002");
  REQUIRE(ev);
  CHECK(ev->code == "0x80CB8002");
  CHECK(book.lookup({"dcmi"}, "-8005")->name == "DCMI_ERR_CODE_INNER_ERR");
  CHECK(book.lookup({"torch_npu"}, "ERR02200")->component == "hccl");
  CHECK(book.lookup({"cann_msg"}, "EZ3003")->known);
  CHECK_FALSE(book.lookup({"cann_msg"}, "EZ3999")->known);
}

TEST_CASE("every code of every table becomes its fault in every wording") {
  const auto cov = app::code_coverage(rules().files, engine());
  REQUIRE(cov.size() >= 8);
  for (const auto& c : cov) {
    std::string missed;
    for (size_t i = 0; i < c.missed.size() && i < 8; ++i) missed += "\n  " + c.missed[i];
    INFO(c.family << ":" << missed);
    CHECK(c.lines >= 5 * c.codes - c.codes);  // wordings with a name need a named code
    CHECK(c.recognised == c.lines);
    CHECK(c.codes_all == c.codes);
  }
}

TEST_CASE("the generic matcher ignores numbers that are no code") {
  // a version string, a size, a timestamp, a pid, ret=0, "no error", a port, a date
  const std::vector<std::string> quiet = {
      "CANN version 8.0.RC2, driver 24.1.rc2, build 100000 of 2024-05-10 09:13:24.510829",
      "[INFO] ASCENDCL(2326,python3):2025-05-08-09:56:20.507015 [device.cpp:268]2326 "
      "aclrtSetDevice: set device 0 success, ret=0",
      "I0508 10:08:13.724697 150123 init.cc:238] CustomDevice: npu, allocate 507015 bytes, no "
      "error",
      "INFO 05-10 09:13:24 api_server.py:110] server listening on port 50001, pid 207001",
      "[2025-06-30 20:36:02.906+08:00] [507015] [507016] [server] [INFO] model loaded, no error"};
  for (const auto& l : quiet) {
    engine().scan(l, "text", [&](const tag::Hit& h) {
      const auto& s = engine().signatures()[h.signature];
      INFO(l);
      CHECK(s.family != "codes");
    });
  }
}

TEST_CASE("pasted failures become fault events with the table's texts") {
  // issue 31: lines users pasted from onnxruntime's CANN EP, Paddle-Lite, MindX SDK, KsanaLLM,
  // ATC; a console capture (kind text), not a CANN log
  const auto f = analyse(
      "console.txt",
      {"2024-05-10 09:13:24.510829530 [E:onnxruntime:Default, cann_call.cc:139 CannCall] CANN "
       "failure 500001: ACL_ERROR_FAILURE ; NPU=0 ; hostname=localhost ; "
       "expr=aclopCompileAndExecute(op_type, num_inputs, input_desc, input_buffers, num_outputs, "
       "output_desc, output_buffers, attr, ACL_ENGINE_SYS, ACL_COMPILE_SYS, nullptr, stream);",
       "Call aclrtSetDevice(device->id) failed : 507033 at file "
       "/home/Paddle-Lite/lite/backends/nnadapter/nnadapter/src/driver/huawei_ascend_npu/"
       "engine.cc line 430",
       "E20231116 09:50:41.157967  2326 MxOmModelDesc.cpp:855] [507011][Error code unknown] "
       "Failed to model infer execute",
       "[FATAL]  Acl return error "
       "/workspace/KsanaLLM/src/ksana_llm/kernels/ascend/attention.cc:140, with ERROR 561103",
       "ATC run failed, Please check the detail log, Try 'atc --help' for more information",
       "EZ3003: No supported Ops kernel and engine are found for [AddDsl], optype [AddDsl].",
       "CANN failure 507999: (look for ACL_ERROR_xxx in acl. h); NPU=0",
       "run_om.sh: line 7: 257060 Segmentation fault      (core dumped) python3 ./cli_chat.py",
       "aclrtSetDevice success, ret=0, no error"});
  const auto has = [&](const std::string& id, const std::string& code) {
    return f.count({id, code}) == 1;
  };
  CHECK(has("fault.codes.acl_code", "500001"));
  // 507033 and 507011 have signatures of their own (the table entry names them): the matcher's
  // find is reported under that finding (docs/codes.md "One code, one finding")
  CHECK(has("fault.acl.error_507033", "507033"));
  CHECK(has("fault.acl.error_507011", "507011"));
  CHECK_FALSE(has("fault.codes.acl_code", "507033"));
  CHECK(has("fault.codes.acl_code", "561103"));
  CHECK(has("fault.codes.acl_code", "507999"));
  CHECK(has("fault.codes.cann_message", "EZ3003"));
  REQUIRE(has("fault.acl.error_507033", "507033"));
  const auto& dev = f.at({"fault.acl.error_507033", "507033"});
  CHECK(dev["table"] == "acl");
  CHECK(dev["name"] == "ACL_ERROR_RT_DEV_SETUP_ERROR");
  CHECK(dev["title"] == "Failed to start the device (ACL 507033)");
  // a code matcher's code without a signature of its own keeps the table's texts
  REQUIRE(has("fault.codes.acl_code", "500001"));
  const auto& gef = f.at({"fault.codes.acl_code", "500001"});
  CHECK(gef["table"] == "acl");
  CHECK(gef["title"].get<std::string>().find("(500001)") != std::string::npos);
  const auto& nn = f.at({"fault.codes.acl_code", "561103"});
  CHECK(nn["table"] == "aclnn");
  CHECK(f.at({"fault.codes.acl_code", "507999"})["title"] ==
        "Unknown ACL code 507999 (internal class)");
  REQUIRE(f.count({"fault.process.segfault", ""}) == 1);
  CHECK(f.at({"fault.process.segfault", ""})["cause"].get<std::string>().find(
            "257060 (python3 ./cli_chat.py)") != std::string::npos);
  size_t codes = 0;
  for (const auto& [k, v] : f)
    if (k.first.rfind("fault.codes.", 0) == 0) ++codes;
  CHECK(codes == 4);  // ret=0, no error: nothing; 507033 and 507011 under their own findings
}

TEST_CASE("a specific or family signature keeps its line; the table names the family's codes") {
  // one line, one fault event: the specific 507015 signature claims the line, the generic code
  // matcher does not add a second event; `runtime result = N` (acl.runtime_result_error, a
  // family catch-all) takes the table's title for a code without a signature of its own
  const auto f = analyse(
      "plog-2326_20250508095620.log",
      {"[ERROR] ASCENDCL(155320,python3):2025-05-08-09:56:20.779.486 [device.cpp:268]155320 "
       "aclrtSynchronizeDevice: [INIT][DEFAULT]wait for compute device to finish failed, runtime "
       "result = 507015.",
       "[ERROR] ASCENDCL(155320,python3):2025-05-08-09:56:21.779.486 [device.cpp:268]155320 "
       "aclrtSynchronizeDevice: [INIT][DEFAULT]wait for compute device to finish failed, runtime "
       "result = 507016."});
  CHECK(f.count({"fault.acl.error_507015", "507015"}) == 1);
  CHECK(f.count({"fault.codes.acl_code", "507015"}) == 0);
  REQUIRE(f.count({"fault.acl.runtime_result_error", "507016"}) == 1);
  const auto& trap = f.at({"fault.acl.runtime_result_error", "507016"});
  CHECK(trap["title"].get<std::string>().find("ACL_ERROR_RT_AICORE_TRAP_EXCEPTION (507016)") == 0);
  CHECK(trap["component"] == "aicore");
  CHECK(f.count({"fault.codes.acl_code", "507016"}) == 0);
}

TEST_CASE("a bracketed number before a level word that is no error is no code") {
  // issue engines item 3: `[200001][INFO]` heads an INFO line (MindX-style glog); a number with
  // no error word next to it is no code either
  const std::vector<std::string> quiet = {
      "I20231116 09:50:41.157967  2326 MxpiModelInfer.cpp:75] [200001][INFO] model infer started",
      "[INFO] 2025-05-08 10:08:13 ModelProcess: processed 200001 tokens in 3.2 s"};
  for (const auto& l : quiet)
    engine().scan(l, "text", [&](const tag::Hit& h) {
      INFO(l);
      CHECK(engine().signatures()[h.signature].family != "codes");
    });
  const auto f = analyse("console.txt", quiet);
  for (const auto& [k, v] : f) {
    INFO(k.first << " " << k.second);
    CHECK(k.first.rfind("fault.codes.", 0) != 0);
  }
}

TEST_CASE("the engine tables: GE status numbers, HIXL statuses, Mooncake and MindIE codes") {
  const auto book = correlate::load_codes(rules().files);
  REQUIRE(book.errors.empty());
  // ge_inner_error_codes.h: GE_ERRORNO(RT_HOST, ERROR_CODE, COMMON_LEVEL, SYSID_GE, module, v)
  const auto infer = book.lookup({"ge"}, "1343242270");
  REQUIRE(infer);
  CHECK(infer->name == "GE_GRAPH_INFERSHAPE_FAILED");
  CHECK(book.lookup({"ge"}, "1343225857")->name == "PARAM_INVALID");
  CHECK(book.lookup({"ge"}, "1343266819")->name == "GE_GENERATOR_GRAPH_MANAGER_BUILD_GRAPH_FAILED");
  CHECK(book.lookup({"ge"}, "4294967295")->name == "FAILED");
  CHECK(book.lookup({"ge"}, "1343270921")->name == "LLM_LINK_FAILED");  // llm_error_codes.h
  const auto unknown_graph = book.lookup({"ge"}, "1343242999");
  REQUIRE(unknown_graph);
  CHECK_FALSE(unknown_graph->known);
  CHECK(book.lookup({"hixl"}, "103900")->name == "PARAM_INVALID");
  CHECK(book.lookup({"hixl"}, "503900")->name == "FAILED");
  CHECK(book.lookup({"ge", "hixl"}, "103902")->name == "NOT_CONNECTED");
  CHECK(book.lookup({"mooncake"}, "-800")->name == "TRANSFER_FAIL");
  CHECK(book.lookup({"mooncake"}, "-704")->name == "OBJECT_NOT_FOUND");
  CHECK_FALSE(book.lookup({"mooncake"}, "-5000"));
  const auto listen = book.lookup({"mindie"}, "MIE04E02041C");
  REQUIRE(listen);
  CHECK(listen->title == "MindIE Server endpoint error MIE04E02041C");
  CHECK(book.lookup({"mindie"}, "mie05e040000")->cls == "user_config");
  CHECK(book.lookup({"mindie"}, "MIE03E400008")->title.find("MindIE MS") == 0);
  CHECK_FALSE(book.lookup({"mindie"}, "MIE99E000001"));
}

TEST_CASE("a code in any wording is reported under its own signature's finding") {
  // vllm-project/vllm-ascend #16581 (title), #1443; the plog wording the specific signature
  // reads itself, on another line of the same host: one finding, one code, both lines
  const auto f = analyse(
      "paste.txt",
      {"[Bug]: ACL graph capture fails with error code 507015 (MTE DDR address out of range) on "
       "W8A8 large model with default config",
       "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 "
       "NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507015",
       "[Bug]: vllm-ascend v0.23.0rc1 qwen3-32B-w8a8c8 + eagle3, call "
       "aclnnFusedInferAttentionScoreV3 failed, error code is 561002",
       "EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 "
       "Communication_Error_Get_Socket(EI0006)"});
  REQUIRE(f.count({"fault.acl.error_507015", "507015"}) == 1);
  const auto& aic = f.at({"fault.acl.error_507015", "507015"});
  CHECK(aic["count"] == 2);
  CHECK(aic["table"] == "acl");
  CHECK(aic["name"] == "ACL_ERROR_RT_AICORE_EXCEPTION");
  CHECK(f.count({"fault.codes.acl_code", "507015"}) == 0);
  // 561002 is ACLNN_ERR_INNER_TILING_ERROR: the family catch-all gives it to the tiling fault
  CHECK(f.count({"fault.cann.op_tiling_failed", "561002"}) == 1);
  CHECK(f.count({"fault.acl.aclnn_inner_error", "561002"}) == 0);
  CHECK(f.count({"fault.hccl.socket_timeout", "EI0006"}) == 1);
}

TEST_CASE("engine wordings: Mooncake statuses and store codes, GE ErrorNo, glog checks") {
  const auto f = analyse(
      "paste.txt",
      {"E20260106 06:43:02.966156  5793 ascend_direct_transport.cpp:820] Failed to connect to "
       "target: 172.17.0.16:25482, status: 103900",
       "[ERROR] GE(893240,):2026-08-11-07:03:46.027.141 [channel.cc:314]904211 operator(): "
       "ErrorNo: 503900() [GE][MODULE]Failed to invoke HcclBatchPut,",
       "[ERROR] GE(39944,ssd_detection_demo):2021-11-18-01:09:39.548.671 "
       "[ge_generator.cc:624]39944 "
       "GenerateModel: ErrorNo: 1343266819(Graph manager build graph failed.) [COMP][DEFAULT]Build "
       "model failed.",
       "(Worker_TP0 pid=3401) ERROR 03-28 09:06:16 [mooncake_backend.py:85] Failed to put key "
       "['qwen3@pcp0@dc0@tp0@a1b2'],res:[-800]",
       "F20251111 12:28:58.504206 214989 npu_executor.cpp:88] Check failed: ret == ACL_SUCCESS "
       "(507033 vs. 0) aclrtSetDevice failed."});
  REQUIRE(f.count({"fault.mooncake.ascend_transport_status", "103900"}) == 1);
  const auto& st = f.at({"fault.mooncake.ascend_transport_status", "103900"});
  CHECK(st["table"] == "hixl");
  CHECK(st["name"] == "PARAM_INVALID");
  CHECK(st["cause"].get<std::string>().find("172.17.0.16:25482") != std::string::npos);
  REQUIRE(f.count({"fault.codes.ge_error_no", "503900"}) == 1);
  CHECK(f.at({"fault.codes.ge_error_no", "503900"})["table"] == "hixl");
  REQUIRE(f.count({"fault.codes.ge_error_no", "1343266819"}) == 1);
  CHECK(f.at({"fault.codes.ge_error_no", "1343266819"})["name"] ==
        "GE_GENERATOR_GRAPH_MANAGER_BUILD_GRAPH_FAILED");
  REQUIRE(f.count({"fault.mooncake.store_error", "-800"}) == 1);
  CHECK(f.at({"fault.mooncake.store_error", "-800"})["name"] == "TRANSFER_FAIL");
  // 507033 has its own signature: the glog check of xLLM-style engines lands there
  CHECK(f.count({"fault.acl.error_507033", "507033"}) == 1);
}

TEST_CASE("the json report carries the fault's table and name") {
  test::TempDir dir("faultline-codes-json");
  const fs::path b = dir.path() / "bundle";
  fs::create_directories(b);
  {
    std::ofstream out(b / "console.txt");
    out << "2024-05-10 09:13:24.510829530 [E:onnxruntime:Default, cann_call.cc:139 CannCall] CANN "
           "failure 507033: ACL_ERROR_RT_DEV_SETUP_ERROR ; NPU=0 ; hostname=localhost ; "
           "expr=aclrtSetDevice(device_id);\n";
  }
  const fs::path json_path = dir.path() / "r.json";
  const std::string cmd = "FAULTLINE_KB=none '" FAULTLINE_BINARY "' analyze -q --no-kb '" +
                          b.string() + "' --format json --cache-dir '" +
                          (dir.path() / "cache").string() + "' > '" + json_path.string() +
                          "' 2>/dev/null";
  const int rc = std::system(cmd.c_str());
  CHECK(rc != -1);
  std::ifstream in(json_path);
  const auto j = nlohmann::json::parse(in);
  bool seen = false;
  for (const auto& x : j["findings"])
    if (x["id"] == "fault.acl.error_507033" && x.contains("fault")) {
      CHECK(x["fault"]["table"] == "acl");
      CHECK(x["fault"]["name"] == "ACL_ERROR_RT_DEV_SETUP_ERROR");
      seen = true;
    }
  CHECK(seen);
}
