// Code tables (rules/codes/, docs/codes.md) and the generic code matcher (rules/signatures/
// codes.yaml): every code of every table, printed in the wordings of real tools, becomes that
// code's fault; a code in a family's range but in no table is still a fault; version strings,
// sizes, timestamps, pids, ret=0 stay quiet; the shell's fatal-signal lines name the process.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "../common/temp_dir.hpp"
#include "faultline/app/app.hpp"
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
                     x->cause, x->suggestion, x->source, x->known) ==
            std::tie(y->code, y->name, y->cls, y->component, y->role, y->severity, y->title,
                     y->cause, y->suggestion, y->source, y->known));
      ++codes;
    }
  }
  CHECK(codes > 1000);
  const auto unknown = back->lookup({"aclnn", "acl"}, "507999");  // a range entry
  REQUIRE(unknown);
  CHECK_FALSE(unknown->known);
  CHECK_FALSE(correlate::deserialize_codes(""));
  CHECK_FALSE(correlate::deserialize_codes(text.substr(0, text.size() / 2)));
  CHECK_FALSE(correlate::deserialize_codes("{\"format\": 99, \"families\": [], \"errors\": []}"));
  CHECK_FALSE(correlate::deserialize_codes(
      R"({"format": 1, "errors": [], "families": [{"name": "acl", "title": "", "file": "", )"
      R"("kind": "number", "sources": [], "codes": [], "ranges": [], "by_code": {"1": 5}, )"
      R"("by_name": {}}]})"));  // an index past the table
}

TEST_CASE("the code tables load, with their sources, and cover every documented family") {
  const auto book = correlate::load_codes(rules().files);
  INFO((book.errors.empty() ? std::string() : book.errors.front()));
  CHECK(book.errors.empty());
  const std::map<std::string, size_t> at_least = {
      {"acl", 200}, {"aclnn", 25},     {"hccl", 20},      {"drv", 90},
      {"dcmi", 15}, {"torch_npu", 70}, {"cann_msg", 450}, {"event", 200}};
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
  CHECK(has("fault.codes.acl_code", "507033"));
  CHECK(has("fault.codes.acl_code", "507011"));
  CHECK(has("fault.codes.acl_code", "561103"));
  CHECK(has("fault.codes.acl_code", "507999"));
  CHECK(has("fault.codes.cann_message", "EZ3003"));
  REQUIRE(has("fault.codes.acl_code", "507033"));
  const auto& dev = f.at({"fault.codes.acl_code", "507033"});
  CHECK(dev["class"] == "driver");
  CHECK(dev["component"] == "device");
  CHECK(dev["table"] == "acl");
  CHECK(dev["name"] == "ACL_ERROR_RT_DEV_SETUP_ERROR");
  CHECK(dev["title"].get<std::string>().find("ACL_ERROR_RT_DEV_SETUP_ERROR (507033)") == 0);
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
  CHECK(codes == 6);  // ret=0, no error: nothing
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
