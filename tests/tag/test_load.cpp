// Signature pack loader: schema validation, error locations, override rule.
#include <algorithm>
#include <catch2/catch.hpp>

#include "tag_test_util.hpp"

using faultline::RuleFile;
using faultline::tag::load_signature_roots;
using faultline::tag::load_signatures;
using faultline::tag::RuleSet;

namespace {

const char* kGood = R"(family: svm
signatures:
  - id: svm.map_va_not_fixed
    title: SVM mapping of the 8 TB window not fixed
    kinds: [dmesg, plog]
    severity: error
    patterns:
      - 'Svm map va not fixed'
    examples:
      match:
        - 'Svm map va not fixed, vm_start=0x100000000000, vm_end=0x200000000000'
      no_match:
        - 'Svm map va success, vm_start=0x100000000000, vm_end=0x180000000000'
)";

bool any_error_has(const RuleSet& rs, const std::vector<std::string>& parts) {
  return std::any_of(rs.errors.begin(), rs.errors.end(), [&](const std::string& e) {
    return std::all_of(parts.begin(), parts.end(),
                       [&](const std::string& p) { return e.find(p) != std::string::npos; });
  });
}

std::string dump(const RuleSet& rs) {
  std::string s;
  for (const auto& e : rs.errors) s += "E " + e + "\n";
  for (const auto& w : rs.warnings) s += "W " + w + "\n";
  return s;
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto p = s.find(from);
  REQUIRE(p != std::string::npos);
  return s.replace(p, from.size(), to);
}

}  // namespace

TEST_CASE("loader reads the test packs completely") {
  const RuleSet rs = tagtest::test_rules();
  INFO(dump(rs));
  CHECK(rs.errors.empty());
  REQUIRE(rs.signatures.size() == 6);
  const auto& s = *std::find_if(rs.signatures.begin(), rs.signatures.end(),
                                [](const auto& x) { return x.id == "svm.map_va_not_fixed"; });
  CHECK(s.family == "svm");
  CHECK(s.file == "signatures/svm.yaml");
  CHECK(s.file_line == 4);
  CHECK(s.kinds.size() == 9);
  CHECK(s.severity == faultline::Severity::error);
  CHECK(s.patterns == std::vector<std::string>{"Svm map va not fixed"});
  CHECK(s.pattern_lines == std::vector<int>{10});
  CHECK(s.capture_line == 11);
  REQUIRE(s.match.size() == 2);
  CHECK(s.match[0].check_captures);
  CHECK(s.match[0].captures == std::vector<std::pair<std::string, std::string>>{
                                   {"vm_end", "0x200000000000"}, {"vm_start", "0x100000000000"}});
  CHECK(s.no_match.size() == 1);
  const auto& d = *std::find_if(rs.signatures.begin(), rs.signatures.end(),
                                [](const auto& x) { return x.id == "driver.heartbeat_lost"; });
  CHECK(d.caseless);
  CHECK(d.severity == faultline::Severity::critical);
  const auto& old = *std::find_if(rs.signatures.begin(), rs.signatures.end(), [](const auto& x) {
    return x.id == "driver.old_heartbeat_text";
  });
  CHECK_FALSE(old.active());
}

TEST_CASE("bad id names file, line and id") {
  const auto rs = load_signatures(
      {{"signatures/svm.yaml", replace(kGood, "svm.map_va_not_fixed", "svm.Map-VA")}});
  INFO(dump(rs));
  CHECK(rs.signatures.empty());
  CHECK(any_error_has(rs, {"signatures/svm.yaml:3: ", "svm.Map-VA", "bad id"}));
}

TEST_CASE("id family must equal the file stem") {
  const auto rs = load_signatures(
      {{"signatures/svm.yaml", replace(kGood, "svm.map_va_not_fixed", "hccl.map_va_not_fixed")}});
  INFO(dump(rs));
  CHECK(rs.signatures.empty());
  CHECK(any_error_has(rs, {"signatures/svm.yaml:3:", "hccl.map_va_not_fixed", "family"}));
  const auto rs2 = load_signatures({{"signatures/other.yaml", kGood}});
  CHECK(rs2.signatures.empty());
  CHECK(any_error_has(rs2, {"signatures/other.yaml:1:", "`family` must equal the file stem"}));
}

TEST_CASE("duplicate id within one file is an error naming both places") {
  std::string text = kGood;
  text += std::string(kGood).substr(std::string(kGood).find("  - id:"));
  const auto rs = load_signatures({{"signatures/svm.yaml", text}});
  INFO(dump(rs));
  CHECK(rs.signatures.size() == 1);
  CHECK(any_error_has(
      rs, {"signatures/svm.yaml:14: svm.map_va_not_fixed: duplicate id", "signatures/svm.yaml:3"}));
}

TEST_CASE("duplicate id in two files of one root is an error; a later root overrides") {
  const std::string sub =
      replace(kGood, "title: SVM mapping of the 8 TB window not fixed", "title: local override");
  const auto same_root =
      load_signatures({{"signatures/svm.yaml", kGood}, {"signatures/site/svm.yaml", sub}});
  CHECK(same_root.signatures.size() == 1);
  CHECK(any_error_has(same_root, {"signatures/site/svm.yaml:3", "duplicate id"}));

  const auto layered =
      load_signature_roots({{{"signatures/svm.yaml", kGood}}, {{"signatures/site/svm.yaml", sub}}});
  INFO(dump(layered));
  CHECK(layered.errors.empty());
  REQUIRE(layered.signatures.size() == 1);
  CHECK(layered.signatures[0].title == "local override");
  CHECK(layered.signatures[0].file == "signatures/site/svm.yaml");
  REQUIRE(layered.warnings.size() == 1);
  CHECK(layered.warnings[0].find("overrides the definition at signatures/svm.yaml:3") !=
        std::string::npos);
}

TEST_CASE("schema violations are reported with the rule id") {
  SECTION("unknown severity") {
    const auto rs = load_signatures(
        {{"signatures/svm.yaml", replace(kGood, "severity: error", "severity: fatal")}});
    CHECK(any_error_has(rs, {"signatures/svm.yaml:6: svm.map_va_not_fixed: bad severity"}));
    CHECK(rs.signatures.empty());
  }
  SECTION("unknown status") {
    const auto rs =
        load_signatures({{"signatures/svm.yaml",
                          replace(kGood, "severity: error", "severity: error\n    status: beta")}});
    CHECK(any_error_has(rs, {"svm.map_va_not_fixed: bad status"}));
  }
  SECTION("no patterns") {
    const auto rs = load_signatures(
        {{"signatures/svm.yaml", replace(kGood, "      - 'Svm map va not fixed'\n", "")}});
    CHECK(any_error_has(rs, {"svm.map_va_not_fixed", "`patterns` must be a non-empty list"}));
  }
  SECTION("no no_match example") {
    const auto rs = load_signatures(
        {{"signatures/svm.yaml", replace(kGood,
                                         "      no_match:\n        - 'Svm map va success, "
                                         "vm_start=0x100000000000, vm_end=0x180000000000'\n",
                                         "")}});
    CHECK(any_error_has(rs, {"svm.map_va_not_fixed", "no_match"}));
  }
  SECTION("unknown flag") {
    const auto rs =
        load_signatures({{"signatures/svm.yaml", replace(kGood, "severity: error",
                                                         "severity: error\n    flags: [dotall]")}});
    CHECK(any_error_has(rs, {"svm.map_va_not_fixed: unknown flag `dotall`"}));
  }
  SECTION("expected captures without a capture pattern") {
    const auto rs = load_signatures(
        {{"signatures/svm.yaml",
          replace(
              kGood,
              "        - 'Svm map va not fixed, vm_start=0x100000000000, vm_end=0x200000000000'",
              "        - line: 'Svm map va not fixed'\n          captures: {vm_end: '0x1'}")}});
    CHECK(any_error_has(rs, {"svm.map_va_not_fixed", "no `capture`"}));
  }
  SECTION("unknown kind and unknown key only warn") {
    const auto rs = load_signatures(
        {{"signatures/svm.yaml",
          replace(kGood, "kinds: [dmesg, plog]", "kinds: [dmesg, gpu_log]\n    pattern: 'x'")}});
    CHECK(rs.errors.empty());
    CHECK(rs.signatures.size() == 1);
    CHECK(std::any_of(rs.warnings.begin(), rs.warnings.end(), [](const std::string& w) {
      return w.find("unknown kind `gpu_log`") != std::string::npos;
    }));
    CHECK(std::any_of(rs.warnings.begin(), rs.warnings.end(), [](const std::string& w) {
      return w.find("signatures/svm.yaml:6: svm.map_va_not_fixed: unknown key `pattern`") !=
             std::string::npos;
    }));
  }
}

TEST_CASE("YAML syntax error names the file and line; other files still load") {
  const auto rs =
      load_signatures({{"signatures/hccl.yaml",
                        "family: hccl\nsignatures:\n  - id: hccl.x\n    title: [unclosed\n"},
                       {"signatures/svm.yaml", kGood}});
  INFO(dump(rs));
  REQUIRE(rs.errors.size() == 1);
  CHECK(rs.errors[0].rfind("signatures/hccl.yaml:", 0) == 0);
  CHECK(rs.errors[0].find("YAML") != std::string::npos);
  CHECK(rs.signatures.size() == 1);
}

TEST_CASE("malformed packs give errors, never exceptions") {
  const std::vector<std::string> bad = {
      "",
      "- just\n- a list\n",
      "family: svm\nsignatures: 5\n",
      "family: svm\nsignatures: [1, \"x\", [2]]\n",
      "family: svm\nsignatures:\n  - id: [svm.a]\n",
      "family: svm\nsignatures:\n  - id: svm.a\n    title: {a: 1}\n    severity: [error]\n"
      "    kinds: plog\n    patterns: 'x'\n    examples: [1]\n",
      "family: svm\nsignatures:\n  - id: svm.a\n    title: t\n    severity: error\n"
      "    patterns: [[x]]\n    examples: {match: [{line: [1]}, {captures: 1}], no_match: [{}]}\n",
      "family: svm\nsignatures:\n  - id: svm.a\n    title: t\n    severity: error\n"
      "    patterns: ['x']\n    capture: 'x'\n    examples: {match: [{line: 'x', captures: [1]}],"
      " no_match: ['y']}\n",
      std::string("\x00\xff\xfe binary \x01", 13),
      "family: svm\nsignatures:\n  - &a {id: svm.a}\n  - *a\n",
  };
  for (const auto& text : bad) {
    INFO(text);
    RuleSet rs;
    REQUIRE_NOTHROW(rs = load_signatures({{"signatures/svm.yaml", text}}));
    CHECK(rs.signatures.empty());
    CHECK(!(rs.errors.empty() && rs.warnings.empty()));
  }
}

TEST_CASE("the restart block: defaults, values and bad values") {
  SECTION("absent: no restart") {
    const auto rs = load_signatures({{"signatures/svm.yaml", kGood}});
    REQUIRE(rs.signatures.size() == 1);
    CHECK_FALSE(rs.signatures[0].restart.present);
  }
  SECTION("given: its values, the kinds defaulting to the CANN process logs") {
    const auto rs = load_signatures(
        {{"signatures/svm.yaml",
          replace(kGood, "severity: error",
                  "severity: error\n    restart:\n      scope: process\n      from: 2\n"
                  "      margin_s: 10")}});
    REQUIRE(rs.signatures.size() == 1);
    const auto& r = rs.signatures[0].restart;
    CHECK(r.present);
    CHECK(r.scope == "process");
    CHECK(r.from == 2);
    CHECK(r.margin_s == 10);
    CHECK(r.kinds == std::vector<std::string>{"plog", "device_app_log"});
  }
  SECTION("a bad scope, a zero from and a negative margin are errors") {
    for (const char* bad : {"scope: node", "from: 0", "margin_s: -1", "kinds: []"}) {
      const auto rs =
          load_signatures({{"signatures/svm.yaml",
                            replace(kGood, "severity: error",
                                    std::string("severity: error\n    restart:\n      ") + bad)}});
      INFO(bad << "\n" << dump(rs));
      CHECK(rs.signatures.empty());
      CHECK(any_error_has(rs, {"svm.map_va_not_fixed: restart:"}));
    }
  }
}
