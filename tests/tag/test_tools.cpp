// rules test / lint / list / import-faultdiag, and the catalog in rules/signatures.
#include <algorithm>
#include <catch2/catch.hpp>

#include "tag_test_util.hpp"

using faultline::tag::Engine;
using faultline::tag::Problem;
using faultline::tag::RuleSet;

namespace {

std::unique_ptr<Engine> build(const RuleSet& rs) {
  std::string err;
  auto e = Engine::build(rs, {}, &err);
  INFO(err);
  REQUIRE(e);
  return e;
}

faultline::tag::Signature& sig(RuleSet& rs, const std::string& id) {
  auto it = std::find_if(rs.signatures.begin(), rs.signatures.end(),
                         [&](const auto& s) { return s.id == id; });
  REQUIRE(it != rs.signatures.end());
  return *it;
}

bool has_problem(const std::vector<Problem>& ps, Problem::Level lv, const std::string& id,
                 const std::string& part) {
  return std::any_of(ps.begin(), ps.end(), [&](const Problem& p) {
    return p.level == lv && p.id == id && p.message.find(part) != std::string::npos;
  });
}

std::string dump(const std::vector<Problem>& ps) {
  std::string s;
  for (const auto& p : ps) s += p.to_string() + "\n";
  return s;
}

}  // namespace

TEST_CASE("run_examples passes on the test packs") {
  const RuleSet rs = tagtest::test_rules();
  auto e = build(rs);
  const auto r = faultline::tag::run_examples(rs, *e);
  INFO(r.text);
  CHECK(r.failures == 0);
  CHECK(r.checked == 11);  // 6 match + 5 no_match; the deprecated signature is skipped
  CHECK(r.text.find("11 examples, 0 failures") != std::string::npos);
}

TEST_CASE("run_examples reports each kind of failure with file:line and id") {
  RuleSet rs = tagtest::test_rules();
  auto& svm = sig(rs, "svm.map_va_not_fixed");
  svm.match[0].captures[0].second = "0x180000000000";               // wrong expected vm_end
  svm.no_match[0] = "Svm map va not fixed (copied into no_match)";  // matches
  auto& hccl = sig(rs, "hccl.comm_init_failed");
  hccl.match[0].line = "RuntimeError: Communicator of group x inited: ok";  // does not match
  auto e = build(rs);
  const auto r = faultline::tag::run_examples(rs, *e);
  INFO(r.text);
  CHECK(r.failures == 3);
  CHECK(r.text.find("signatures/svm.yaml:15: svm.map_va_not_fixed: captures {vm_end: "
                    "'0x200000000000', vm_start: '0x100000000000'} != expected {vm_end: "
                    "'0x180000000000'") != std::string::npos);
  CHECK(r.text.find("signatures/svm.yaml:20: svm.map_va_not_fixed: no_match example matched") !=
        std::string::npos);
  CHECK(r.text.find("hccl.comm_init_failed: match example did not match") != std::string::npos);
}

TEST_CASE("lint is clean on the test packs and finds broken patterns") {
  RuleSet rs = tagtest::test_rules();
  const auto clean = faultline::tag::lint(rs);
  INFO(dump(clean));
  CHECK(std::none_of(clean.begin(), clean.end(),
                     [](const Problem& p) { return p.level == Problem::Level::error; }));

  sig(rs, "svm.not_support_svm_mem").patterns.push_back("(Not support)?");  // empty match
  sig(rs, "svm.not_support_svm_mem").pattern_lines.push_back(99);
  sig(rs, "hccl.heartbeat_abnormal").patterns[1] = "\\[TaskExecStage\\]\\[Timeout\\]";  // unused
  sig(rs, "hccl.comm_init_failed").kinds.push_back("gpu_log");
  sig(rs, "hccl.comm_init_failed").causes.push_back("hccl.no_such_rule");
  sig(rs, "driver.heartbeat_lost").capture = "heartbeat lost! \\(device=\\d+;";  // no names
  sig(rs, "driver.heartbeat_lost").match[0].captures.clear();
  sig(rs, "svm.map_va_not_fixed").patterns.push_back("(va)\\1");
  sig(rs, "svm.map_va_not_fixed").pattern_lines.push_back(98);
  const auto ps = faultline::tag::lint(rs);
  INFO(dump(ps));
  CHECK(has_problem(ps, Problem::Level::error, "svm.not_support_svm_mem",
                    "can match the empty string"));
  CHECK(has_problem(ps, Problem::Level::error, "hccl.heartbeat_abnormal",
                    "matches none of the match examples"));
  CHECK(has_problem(ps, Problem::Level::error, "hccl.comm_init_failed", "unknown kind `gpu_log`"));
  CHECK(has_problem(ps, Problem::Level::warning, "hccl.comm_init_failed",
                    "causes unknown id `hccl.no_such_rule`"));
  CHECK(has_problem(ps, Problem::Level::warning, "driver.heartbeat_lost", "no named group"));
  CHECK(has_problem(ps, Problem::Level::error, "svm.map_va_not_fixed", "pattern `(va)\\1`"));
  const auto bad = std::find_if(ps.begin(), ps.end(), [](const Problem& p) {
    return p.id == "svm.map_va_not_fixed" && p.level == Problem::Level::error;
  });
  REQUIRE(bad != ps.end());
  CHECK(bad->file == "signatures/svm.yaml");
  CHECK(bad->line == 98);
}

TEST_CASE("lint flags fault-text placeholders that name no capture group") {
  RuleSet rs = tagtest::test_rules();
  auto& s = sig(rs, "svm.map_va_not_fixed");  // capture has vm_start and vm_end
  s.fault.present = true;
  s.fault.role = "cause";
  s.fault.cause = "The mapping ends at {vm_end} ({{not a placeholder}}, {2,5} neither).";
  s.fault.suggestion = "Check {vm_start}.";
  CHECK_FALSE(has_problem(faultline::tag::lint(rs), Problem::Level::error, "svm.map_va_not_fixed",
                          "placeholder"));
  s.fault.suggestion = "Check {vm_begin} on device {device}.";
  s.fault.code = "0x{code}";
  const auto ps = faultline::tag::lint(rs);
  INFO(dump(ps));
  CHECK(has_problem(ps, Problem::Level::error, "svm.map_va_not_fixed",
                    "fault.suggestion: placeholder `{vm_begin}` is not a group of `capture`"));
  // `{device}` (and `{npu}`) fall back to the line's device when the capture has none
  // (docs/faults.md): not a problem
  CHECK_FALSE(has_problem(ps, Problem::Level::error, "svm.map_va_not_fixed",
                          "fault.suggestion: placeholder `{device}`"));
  CHECK(has_problem(ps, Problem::Level::error, "svm.map_va_not_fixed",
                    "fault.code: placeholder `{code}`"));
  CHECK_FALSE(
      has_problem(ps, Problem::Level::error, "svm.map_va_not_fixed", "fault.cause: placeholder"));
}

TEST_CASE("lint carries load errors with their location") {
  const auto rs = faultline::tag::load_signatures(
      {{"signatures/svm.yaml",
        "family: svm\nsignatures:\n  - id: svm.x\n    title: t\n    severity: loud\n"
        "    patterns: ['Svm map va not fixed']\n    examples: {match: ['Svm map va not fixed'], "
        "no_match: ['Svm map']}\n"}});
  const auto ps = faultline::tag::lint(rs);
  INFO(dump(ps));
  REQUIRE(!ps.empty());
  CHECK(ps[0].level == Problem::Level::error);
  CHECK(ps[0].file == "signatures/svm.yaml");
  CHECK(ps[0].line == 5);
  CHECK(ps[0].id == "svm.x");
  CHECK(ps[0].message.find("bad severity") != std::string::npos);
  CHECK(ps[0].to_string().rfind("error: signatures/svm.yaml:5: svm.x: bad severity", 0) == 0);
}

TEST_CASE("list_text prints one row per signature") {
  const RuleSet rs = tagtest::test_rules();
  const std::string t = faultline::tag::list_text(rs);
  CHECK(std::count(t.begin(), t.end(), '\n') == 6);
  CHECK(t.find("svm.not_support_svm_mem\terror\tstable\t*\t") != std::string::npos);
  CHECK(t.find("driver.old_heartbeat_text\twarning\tdeprecated\t") != std::string::npos);
  CHECK(t.find("signatures/svm.yaml:4\n") != std::string::npos);
}

TEST_CASE("import_faultdiag turns a knowledge base into a pack that passes its own examples") {
  const std::string json = tagtest::slurp(tagtest::data_dir() / "faultdiag_kb.json");
  REQUIRE(!json.empty());
  faultline::tag::ImportStats st;
  const std::string yaml = faultline::tag::import_faultdiag(json, "faultdiag", &st);
  INFO(yaml);
  CHECK(st.imported == 5);
  CHECK(st.skipped == 1);  // Comp_Network_Custom_01 has no regex
  const auto rs = faultline::tag::load_signatures({{"signatures/faultdiag.yaml", yaml}});
  for (const auto& e : rs.errors) UNSCOPED_INFO(e);
  REQUIRE(rs.errors.empty());
  REQUIRE(rs.signatures.size() == 5);

  RuleSet copy = rs;
  auto& hccl029 = sig(copy, "faultdiag.aisw_cann_hccl_029");
  CHECK(hccl029.patterns == std::vector<std::string>{"\\[Heartbeat\\]cqe err status",
                                                     "\\[Heartbeat\\]cqe error status",
                                                     "cqe error status\\[12\\]"});
  CHECK(hccl029.kinds == std::vector<std::string>{"plog"});
  CHECK(hccl029.status == "experimental");
  auto& pcie = sig(copy, "faultdiag.aisw_cann_drv_pcie_018");
  CHECK(pcie.patterns ==
        std::vector<std::string>{"devdrv_sync_non_trans_msg_send.*Device is abnormal"});
  CHECK(pcie.kinds == std::vector<std::string>{"device_os_log", "device_syslog"});
  // rule dst_code edges inside the pack become causes; unknown codes are dropped with a note.
  CHECK(pcie.causes == std::vector<std::string>{"faultdiag.aisw_cann_hccl_029"});
  CHECK(std::any_of(st.notes.begin(), st.notes.end(), [](const std::string& n) {
    return n.find("AISW_CANN_Runtime_999") != std::string::npos;
  }));
  auto& os = sig(copy, "faultdiag.comp_os_hw_pcie_02");
  CHECK(os.kinds == std::vector<std::string>{"dmesg", "dmesg_t", "syslog", "journal"});
  auto& net = sig(copy, "faultdiag.comp_network_custom_11");
  // NPU_Device (device-side [EVENT] counters) maps to the device log kinds
  CHECK(net.kinds == std::vector<std::string>{"device_os_log", "device_event_log", "device_syslog",
                                              "device_fw_log", "slogd_log"});
  // every code is a fault of the ascend-fd pack, with the KB code as its external code
  CHECK(pcie.fault.present);
  CHECK(pcie.fault.kb == "ascend-fd");
  CHECK(pcie.fault.code == "AISW_CANN_DRV_PCIE_018");
  CHECK(pcie.fault.cls == "hardware");
  CHECK(pcie.fault.role == "cause");  // it has `rule` edges
  CHECK(hccl029.fault.cls == "network");
  CHECK(hccl029.fault.role == "symptom");                          // only the target of edges
  CHECK(hccl029.fault.cause == "Excessive RDMA retransmissions");  // no description: the cause
  CHECK(os.fault.cls == "hardware");
  CHECK(os.fault.component == "hostos");
  CHECK(net.capture.find("(?P<rf_lf>[12])") != std::string::npos);

  auto e = build(rs);
  const auto r = faultline::tag::run_examples(rs, *e);
  INFO(r.text);
  CHECK(r.failures == 0);
  CHECK(r.checked == 12);  // 7 match (one per pattern) + 5 no_match

  // Real kernel AER line (log-formats.md §4.5) hits; the substrings in reverse order do not.
  const auto hits = tagtest::scan_all(
      *e,
      "[   30.100251] pcieport 0000:00:1d.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), "
      "type=Transaction Layer, (Requester ID)\n"
      "[   30.100252] severity=Uncorrected reported before PCIe Bus Error: line\n",
      "dmesg");
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].id == "faultdiag.comp_os_hw_pcie_02");
  CHECK(hits[0].line_begin == 0);
  // attr_regex becomes the capture pattern.
  const auto caps = e->captures(static_cast<uint32_t>(e->find("faultdiag.comp_network_custom_11")),
                                "port 3 link down, rf_lf 2, pcs_err_cnt 117, state 5");
  CHECK(caps ==
        std::vector<std::pair<std::string, std::string>>{{"pcs_err_cnt", "117"}, {"rf_lf", "2"}});
}

TEST_CASE("import_faultdiag rejects malformed input") {
  CHECK_THROWS_AS(faultline::tag::import_faultdiag("{not json", "faultdiag"),
                  std::invalid_argument);
  CHECK_THROWS_AS(faultline::tag::import_faultdiag("{\"other\": {}}", "faultdiag"),
                  std::invalid_argument);
  CHECK_THROWS_AS(faultline::tag::import_faultdiag("{\"knowledge-repository\": {}}", "Fault-Diag"),
                  std::invalid_argument);
  faultline::tag::ImportStats st;
  const auto yaml = faultline::tag::import_faultdiag(
      R"({"knowledge-repository": {"X": 1, "Y": {"regex": {"in": [""]}}}})", "fd", &st);
  CHECK(st.imported == 0);
  CHECK(st.skipped == 2);
  const auto rs = faultline::tag::load_signatures({{"signatures/fd.yaml", yaml}});
  CHECK(rs.errors.empty());
  CHECK(rs.signatures.empty());
}

TEST_CASE(
    "import_faultdiag: full regexes are imported with a built example, hostile ones dropped") {
  const std::string deep = std::string(5000, '(') + "a" + std::string(5000, ')');
  const std::string json = R"J({"knowledge-repository": {
      "A": {"attribute": {"class": "Software", "component": "MindIE", "module": "x",
                          "cause_en": "t", "description_en": "code {} seen",
                          "suggestion_en": ["1. do x;", "2. do y"]},
            "source_file": "MindIE",
            "regex": {"regex": "MIE[0-9A-Za-z]{2}E[0-9A-Za-z]{6}"},
            "attr_regex": "(?P<error_code>MIE[0-9A-Za-z]{2}E[0-9A-Za-z]{6})"},
      "B": {"source_file": "TrainLog", "regex": {"regex": ")J" +
                           deep + R"J("}},
      "C": {"source_file": "TrainLog", "regex": {"regex": "((a{64}){64}){64}"}}}})J";
  faultline::tag::ImportStats st;
  const std::string yaml = faultline::tag::import_faultdiag(json, "fd", &st);
  INFO(yaml);
  CHECK(st.imported == 1);
  CHECK(st.full_regex == 1);
  CHECK(st.skipped == 2);
  const auto rs = faultline::tag::load_signatures({{"signatures/fd.yaml", yaml}});
  REQUIRE(rs.errors.empty());
  REQUIRE(rs.signatures.size() == 1);
  const auto& a = rs.signatures.front();
  CHECK(a.patterns == std::vector<std::string>{"MIE[0-9A-Za-z]{2}E[0-9A-Za-z]{6}"});
  CHECK(a.kinds == std::vector<std::string>{"train_log"});
  CHECK(a.fault.cls == "framework");
  CHECK(a.fault.cause == "code {error_code} seen");  // positional {} -> the capture's groups
  CHECK(a.fault.suggestion == "1. do x; 2. do y");
  REQUIRE(a.match.size() == 1);
  CHECK(a.match.front().line == "MIE00E000000");
  auto e = build(rs);
  CHECK(faultline::tag::run_examples(rs, *e).failures == 0);
}

TEST_CASE("escape_literal keeps text literal for Hyperscan") {
  CHECK(faultline::tag::escape_literal("cqe error status[12] (x.y)*") ==
        "cqe error status\\[12\\] \\(x\\.y\\)\\*");
  CHECK(faultline::tag::escape_literal("a\tb") == "a\\x09b");
  CHECK(faultline::tag::escape_literal("执行任务超时") == "执行任务超时");
}

TEST_CASE("every signature pack in rules/signatures passes its examples") {
  const auto dir = std::filesystem::path(FAULTLINE_SOURCE_DIR) / "rules";
  if (!std::filesystem::is_directory(dir / "signatures")) {
    WARN("no rules/signatures in the source tree yet: nothing to check");
    return;
  }
  const auto files = faultline::rules_under(faultline::read_rule_dir(dir), "signatures/");
  const RuleSet rs = faultline::tag::load_signatures(files);
  for (const auto& e : rs.errors) UNSCOPED_INFO(e);
  CHECK(rs.errors.empty());
  std::string err;
  auto e = Engine::build(rs, {}, &err);
  INFO(err);
  REQUIRE(e);
  const auto r = faultline::tag::run_examples(rs, *e);
  INFO(r.text);
  CHECK(r.failures == 0);
  // Lint findings are shown, not enforced here: `faultline rules lint` is the gate for them.
  for (const auto& p : faultline::tag::lint(rs))
    if (p.level == Problem::Level::error) WARN(p.to_string());
}

TEST_CASE("lint checks kinds against the classifier's list when given one") {
  RuleSet rs = tagtest::test_rules();
  sig(rs, "hccl.comm_init_failed").kinds.push_back("proc_limits");
  CHECK_FALSE(has_problem(faultline::tag::lint(rs), Problem::Level::error, "hccl.comm_init_failed",
                          "unknown kind"));
  const std::vector<std::string> only = {"plog", "dmesg"};
  const auto ps = faultline::tag::lint(rs, only);
  CHECK(
      has_problem(ps, Problem::Level::error, "hccl.comm_init_failed", "unknown kind `train_log`"));
  CHECK(has_problem(ps, Problem::Level::error, "hccl.comm_init_failed",
                    "unknown kind `proc_limits`"));
  CHECK_FALSE(has_problem(ps, Problem::Level::error, "svm.not_support_svm_mem", "unknown kind"));
}
