// Rule files: lint (unknown fields, unknown signature ids, bad templates, compat table shape),
// list, version ordering, and condition types checked in isolation with small rule packs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "faultline/correlate/correlate.hpp"
#include "faultline/correlate/version.hpp"
#include "faultline/tag/tag.hpp"
#include "fixture.hpp"

using namespace fixture;
using faultline::RuleFile;
using faultline::correlate::compare_versions;
using faultline::correlate::same_version;

namespace {

// The signature ids the brief guarantees (COMMON.md "Signature ids the finding catalog relies on").
const std::vector<std::string> kBriefSignatures = {"svm.not_support_svm_mem",
                                                   "svm.map_va_not_fixed",
                                                   "svm.map_va_not_in_range",
                                                   "svm.host_mem_malloc_invalid",
                                                   "hccl.comm_init_failed",
                                                   "runtime.stream_sync_task_timeout",
                                                   "acl.error_107020",
                                                   "runtime.sync_three_minutes_timeout",
                                                   "kernel.unknown_symbol",
                                                   "install.driver_reboot_needed",
                                                   "install.driver_uninstall_reboot",
                                                   "install.firmware_reboot_needed",
                                                   "install.vermagic_check_failed",
                                                   "install.kernel_version_mismatch",
                                                   "install.uninstall_failed",
                                                   "install.device_busy",
                                                   "cann.set_env_missing",
                                                   "asan.runtime",
                                                   "torch_npu.err_code",
                                                   "torch_npu.npu_function_error",
                                                   "cann.error_block",
                                                   "probe.timeout",
                                                   "driver.heartbeat_lost",
                                                   "hccl.heartbeat_abnormal",
                                                   "hccl.notify_wait_timeout",
                                                   "hccl.socket_timeout"};

// Every signature id of the shipped catalog (rules/signatures), which includes the brief's.
const std::vector<std::string>& catalog_signatures() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> out;
    std::vector<RuleFile> sigs;
    for (const auto& f : faultline::read_rule_dir(std::string(FAULTLINE_SOURCE_DIR) + "/rules"))
      if (f.path.rfind("signatures/", 0) == 0) sigs.push_back(f);
    for (const auto& s : faultline::tag::load_signatures(sigs).signatures) out.push_back(s.id);
    return out;
  }();
  return ids;
}

bool has(const std::vector<std::string>& v, const std::string& needle) {
  return std::any_of(v.begin(), v.end(),
                     [&](const std::string& s) { return s.find(needle) != std::string::npos; });
}

std::vector<RuleFile> with(std::vector<RuleFile> base, const std::string& path,
                           const std::string& text) {
  base.push_back({path, text});
  return base;
}

const char* kGood = R"(id: test.good
kind: symptom
severity: warning
title: A test symptom
summary: Saw {x.value} on {host}.
conditions:
  hit: hccl.comm_init_failed
  bind: x
)";

}  // namespace

TEST_CASE("the shipped rules lint clean against the signature catalog", "[rules][lint]") {
  // the catalog holds every id the brief guarantees
  for (const auto& id : kBriefSignatures) {
    INFO(id);
    CHECK(std::find(catalog_signatures().begin(), catalog_signatures().end(), id) !=
          catalog_signatures().end());
  }
  const auto problems = faultline::correlate::lint(source_rules(), catalog_signatures());
  for (const auto& p : problems) INFO(p);
  CHECK(problems.empty());
}

TEST_CASE("list: the 18 catalog findings and the documented additions, with kind and title",
          "[rules][list]") {
  const auto l = faultline::correlate::list(source_rules());
  const std::vector<std::string> roots = {
      "driver.reboot_pending", "driver.stale_module_link", "svm.asan_enabled",
      "svm.address_space_limit", "svm.address_conflict", "cann.env_path_missing",
      "cann.toolkit_mount_shadowed", "framework.version_mismatch", "process.deleted_libraries",
      "cann.partial_install", "install.uninstall_blocked_by_mount", "config.bool_flag_misparsed",
      // additions to the catalog (docs/diagnoses.md)
      "device.heartbeat_lost", "operator.kernel_assert"};
  const std::vector<std::string> symptoms = {
      "hccl.comm_init_failed", "svm.map_failed", "runtime.stream_sync_timeout",
      "runtime.device_queue_stalled", "kernel.module_unknown_symbol", "probe.device_op_failed",
      // additions to the catalog (docs/diagnoses.md)
      "device.task_exception", "hccl.peer_timeout"};
  CHECK(l.size() == roots.size() + symptoms.size());
  for (const auto& d : l) {
    INFO(d.id);
    CHECK(!d.title.empty());
    CHECK(d.file == "diagnoses/" + d.id + ".yaml");
    if (std::find(roots.begin(), roots.end(), d.id) != roots.end())
      CHECK(d.kind == "root_cause");
    else
      CHECK((d.kind == "symptom" &&
             std::find(symptoms.begin(), symptoms.end(), d.id) != symptoms.end()));
  }
  CHECK(
      std::is_sorted(l.begin(), l.end(), [](const auto& a, const auto& b) { return a.id < b.id; }));
}

TEST_CASE("lint: unknown signature id", "[rules][lint]") {
  const auto p =
      faultline::correlate::lint({{"diagnoses/test.good.yaml", kGood}}, {"svm.map_va_not_fixed"});
  REQUIRE(p.size() == 1);
  CHECK(p[0] ==
        "diagnoses/test.good.yaml:7: test.good: unknown signature id 'hccl.comm_init_failed'");
}

TEST_CASE("lint: file name, unknown fields, bad operators and types", "[rules][lint]") {
  const auto p = faultline::correlate::lint(
      {{"diagnoses/test.other.yaml", std::string(kGood) + "colour: red\n"},
       {"diagnoses/test.bad.yaml", R"(id: test.bad
kind: cause
severity: fatal
title: Bad
summary: x
conditions:
  all:
    - fact: ulimit.virtual_memory
      op: smaller
      value: '10'
    - fact: sysctl.vm.max_map_count
      op: lt
      value: lots
      as: number
    - hit: svm.map_va_not_fixed
      where:
        - {capture: vm_end, op: matches, value: '0x(1'}
    - frobnicate: yes
    - compare: {left: driver.version.loaded, right: driver.version.installed, as: semver}
)"}},
      kBriefSignatures);
  for (const auto& x : p) INFO(x);
  CHECK(has(p, "diagnoses/test.other.yaml:1: test.good: file name must be the id"));
  CHECK(has(p, "unknown field 'colour' in diagnosis"));
  CHECK(has(p, "test.bad: kind must be root_cause or symptom"));
  CHECK(has(p, "severity must be critical, error, warning or info"));
  CHECK(has(p, "unknown operator 'smaller'"));
  CHECK(has(p, "value 'lots' is not a number"));
  CHECK(has(p, "bad regex '0x(1'"));
  CHECK(has(p, "diagnoses/test.bad.yaml:18: test.bad: unknown condition"));
  CHECK(has(p, "compare: unknown type 'semver'"));
}

TEST_CASE("lint: templates", "[rules][lint]") {
  const std::string base = R"(id: test.tmpl
kind: symptom
severity: info
title: T
conditions:
  hit: svm.map_va_not_fixed
  bind: m
summary: )";
  auto lint_summary = [&](const std::string& s) {
    return faultline::correlate::lint({{"diagnoses/test.tmpl.yaml", base + "'" + s + "'\n"}},
                                      kBriefSignatures);
  };
  CHECK(lint_summary("vm_end={svm.map_va_not_fixed.vm_end} on {host} ({m.vm_start|=?}) {{literal}}")
            .empty());
  CHECK(lint_summary("{driver.version.loaded|driver.version.installed|=unknown}").empty());
  CHECK(has(lint_summary("unclosed {m.value"), "bad placeholder"));
  CHECK(has(lint_summary("stray } brace"), "'}' without '{'"));
  CHECK(has(lint_summary("{nosuchbind.value}"), "placeholder {nosuchbind.value} is neither"));
  CHECK(has(lint_summary("{hccl.comm_init_failed.group}"),
            "placeholder {hccl.comm_init_failed.group}"));
  // conditional sections
  CHECK(lint_summary("a{?m.vm_start} b {m.vm_start}{/?}{!m.vm_start} none{/!}.").empty());
  CHECK(has(lint_summary("a{?m.vm_start} b"), "unclosed section"));
  CHECK(has(lint_summary("a{?nosuch.x} b{/?}"), "placeholder {nosuch.x} is neither"));
}

TEST_CASE("lint: explains must name symptoms; compat tables must be well formed", "[rules][lint]") {
  const auto p = faultline::correlate::lint(
      {{"diagnoses/test.cause.yaml", R"(id: test.cause
kind: root_cause
severity: error
title: C
summary: s
remediation: [fix it]
explains: [test.nothing, test.cause2]
conditions:
  compat:
    table: torch_npu
    columns: {torch_npu: [torch_npu.version], cuda: [cuda.version]}
)"},
       {"diagnoses/test.cause2.yaml", R"(id: test.cause2
kind: root_cause
severity: error
title: C2
summary: s
remediation: [fix it]
conditions:
  compat: {table: nosuch, columns: {a: [x.y], b: [y.z]}}
)"},
       {"compat/torch_npu.yaml", R"(table: torch_npu
columns: [torch_npu, torch, cann]
rows:
  - ['2.8.0.post2', '2.8.0', '8.5.0']
  - ['2.8.0.post4', '2.8.0']
  - ['2.8.0.post2', '2.8.0', '8.5.0']
history:
  - ['2.1.0', '', '7.0.0']
)"},
       {"compat/other.yaml", "table: different\ncolumns: [a]\nrows: []\n"}},
      kBriefSignatures);
  for (const auto& x : p) INFO(x);
  CHECK(has(p, "explains unknown diagnosis 'test.nothing'"));
  CHECK(has(p, "explains 'test.cause2', which is not a symptom"));
  CHECK(has(p, "table 'torch_npu' has no column 'cuda'"));
  CHECK(has(p, "unknown compat table 'nosuch'"));
  CHECK(has(p, "compat/torch_npu.yaml:5: torch_npu: row has 2 cells, table has 3 columns"));
  CHECK(has(p, "compat/torch_npu.yaml:6: torch_npu: duplicate row"));
  CHECK(has(p, "compat/torch_npu.yaml:8: torch_npu: empty cell"));
  CHECK(has(p, "compat/other.yaml:1: different: file name must be the table name"));
  CHECK(has(p, "columns: at least two"));
}

TEST_CASE("run() refuses bad rules with file and id", "[rules]") {
  Db db;
  const int64_t b = db.bundle("bundles/x.tar", std::string(64, '0'));
  auto rules =
      with(source_rules(), "diagnoses/test.broken.yaml", "id: test.broken\nkind: symptom\n");
  try {
    faultline::correlate::run(db.handle(), b, rules);
    FAIL("expected an exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find(
              "diagnoses/test.broken.yaml:1: test.broken: title is required") != std::string::npos);
  }
}

TEST_CASE("a new diagnosis needs no C++: rule pack added at run time", "[rules]") {
  Db db;
  const int64_t b = db.bundle("bundles/x.tar", std::string(64, '0'));
  db.host("n1");
  auto m = db.member("host_kernel.log", "host_kernel_log", "n1",
                     {"Aug  1 08:38:31 localhost kernel: [ 1197.584409] [ascend] [ERROR] "
                      "[drv_soft_fault] [heart_beat_judge 318] "
                      "<kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; "
                      "new_count=1104; lost_count=4; "
                      "total_lost_count=4; total_10s_count=0; total_15s_count 0)."});
  db.hit(m, 1, "driver.heartbeat_lost", R"({"device":"1"})", utc("2026-08-01 00:38:31"));
  auto rules = with(source_rules(), "diagnoses/driver.device_heartbeat_lost.yaml",
                    R"(id: driver.device_heartbeat_lost
kind: symptom
severity: critical
title: Device heartbeat lost
summary: Device {hb.device} on {host} stopped answering heartbeats.
conditions:
  hit: driver.heartbeat_lost
  bind: hb
)");
  CHECK(faultline::correlate::lint(rules, catalog_signatures()).empty());
  faultline::correlate::run(db.handle(), b, rules);
  const auto all = findings(db.handle(), b);
  std::vector<std::decay_t<decltype(all.front())>> f;
  for (const auto& x : all)
    if (x.finding == "driver.device_heartbeat_lost") f.push_back(x);
  REQUIRE(f.size() == 1);
  CHECK(f[0].summary == "Device 1 on n1 stopped answering heartbeats.");
  CHECK(f[0].explained_by.empty());
  SECTION("conditional sections keep their text only when the name resolves (or does not)") {
    auto sec = with(source_rules(), "diagnoses/driver.device_heartbeat_lost.yaml",
                    R"(id: driver.device_heartbeat_lost
kind: symptom
severity: critical
title: Device heartbeat lost
summary: 'Device {hb.device} stopped.{?hb.device} It is device {hb.device}.{/?}{!hb.device} No device.{/!}{?hb.nosuch} Never.{/?}{!hb.nosuch} No such capture.{/!}'
conditions:
  hit: driver.heartbeat_lost
  bind: hb
)");
    CHECK(faultline::correlate::lint(sec, catalog_signatures()).empty());
    faultline::correlate::run(db.handle(), b, sec);
    bool seen = false;
    for (const auto& x : findings(db.handle(), b))
      if (x.finding == "driver.device_heartbeat_lost") {
        seen = true;
        CHECK(x.summary == "Device 1 stopped. It is device 1. No such capture.");
      }
    CHECK(seen);
  }
}

TEST_CASE("condition types in isolation", "[rules][conditions]") {
  Db db;
  const int64_t b = db.bundle("bundles/x.tar", std::string(64, '0'));
  db.host("n1");
  auto fact = [&](const std::string& text, const std::string& name, const std::string& value) {
    static int n = 0;
    auto m = db.member("f" + std::to_string(++n) + ".txt", "text", "n1", {text});
    db.fact(m, 1, name, value);
  };
  fact("Version=24.1.0.3", "driver.version.installed", "24.1.0.3");
  fact("driver_version=24.1.rc3", "driver.version.installed", "24.1.rc3");
  fact("vm.max_map_count = 65530", "sysctl.vm.max_map_count", "65530");
  fact("x", "npu.count", "8");
  auto pack = [&](const std::string& id, const std::string& cond) {
    return std::vector<RuleFile>{
        {"diagnoses/" + id + ".yaml",
         "id: " + id + "\nkind: symptom\nseverity: info\ntitle: t\nsummary: s\nconditions:\n" +
             cond}};
  };
  auto fires = [&](const std::string& cond) {
    faultline::correlate::run(db.handle(), b, pack("test.c", cond));
    return !findings(db.handle(), b).empty();
  };
  SECTION("compare between the sources of one fact") {
    CHECK(
        fires("  compare: {left: driver.version.installed, op: ne, right: "
              "driver.version.installed, as: version}\n"));
    CHECK(
        !fires("  compare: {left: driver.version.installed, op: eq, right: "
               "driver.version.installed, as: version}\n"));
  }
  SECTION("cite: false counts without listing rows") {
    faultline::correlate::run(db.handle(), b,
                              pack("test.c",
                                   "  all:\n    - fact: npu.count\n      cite: false\n    - fact: "
                                   "sysctl.vm.max_map_count\n"));
    const auto f = findings(db.handle(), b);
    REQUIRE(f.size() == 1);
    const auto ev = evidence(db.handle(), f[0].id);
    REQUIRE(ev.size() == 1);
    CHECK(ev[0].fact == "sysctl.vm.max_map_count");
  }
  SECTION("one hit before another") {
    auto m = db.member(
        "plog.log", "plog", "n1",
        {"[ERROR] RUNTIME(31337,python3):2026-03-12-10:14:07.118.245 [stream.cc:1402]31420 "
         "SynchronizeExecutedTask:report three minutes timeout! stream_id=47, task_id=1280, "
         "sqHead=500, pendingNum=781",
         "RuntimeError: ACL error: 107020"});
    db.hit(m, 1, "runtime.sync_three_minutes_timeout", "{}", local("2026-03-12 10:14:07.118245", 8),
           "local");
    db.hit(m, 2, "acl.error_107020", R"({"code":"107020"})", local("2026-03-12 10:21:07", 8),
           "local");
    CHECK(
        fires("  time_order:\n    first: {hit: runtime.sync_three_minutes_timeout}\n    then: "
              "{hit: acl.error_107020}\n"));
    CHECK(
        !fires("  time_order:\n    first: {hit: acl.error_107020}\n    then: {hit: "
               "runtime.sync_three_minutes_timeout}\n"));
    CHECK(
        !fires("  time_order:\n    first: {hit: runtime.sync_three_minutes_timeout}\n    then: "
               "{hit: acl.error_107020}\n    min_gap_s: 600\n"));
  }
  SECTION("numeric and version predicates, counts, not") {
    CHECK(fires("  fact: sysctl.vm.max_map_count\n  op: lt\n  value: '262144'\n  as: number\n"));
    CHECK(!fires("  fact: sysctl.vm.max_map_count\n  op: gt\n  value: '262144'\n  as: number\n"));
    CHECK(
        fires("  fact: driver.version.installed\n  op: ge\n  value: '24.1.RC3'\n  as: version\n  "
              "min_count: 2\n"));
    CHECK(!fires("  fact: driver.version.installed\n  min_count: 3\n"));
    CHECK(fires("  all:\n    - fact: npu.count\n    - not: {fact: driver.version.loaded}\n"));
    CHECK(!fires("  not: {fact: npu.count}\n"));
    CHECK(fires("  fact: 'driver.*'\n  op: in\n  values: ['24.1.0.3', '25.0.rc1']\n"));
  }
}

TEST_CASE("versions: normalisation and order", "[version]") {
  CHECK(same_version("24.1.rc3", "24.1.RC3"));
  CHECK(!same_version("24.1.0.3", "24.1.rc3"));
  CHECK(compare_versions("24.1.rc3", "24.1.0.3") <
        0);  // seed 000: 24.1.0.3 -> 24.1.rc3 is a downgrade
  CHECK(compare_versions("24.1.rc2", "24.1.rc3") < 0);
  CHECK(compare_versions("24.1.rc3", "24.1") < 0);
  CHECK(same_version("24.1", "24.1.0"));
  CHECK(compare_versions("24.1.0", "24.1.0.3") < 0);
  CHECK(compare_versions("2.8.0", "2.8.0.post2") < 0);
  CHECK(compare_versions("2.8.0.post2", "2.8.0.post4") < 0);
  CHECK(compare_versions("2.8.0.post4", "2.8.1") < 0);
  CHECK(compare_versions("2.10.0", "2.9.0.post6") > 0);
  CHECK(compare_versions("8.0.RC3", "8.0.0") < 0);
  CHECK(same_version("v2.1.0", "2.1.0"));
  CHECK(!same_version("2.1.0+cpu", "2.1.0"));
  CHECK(compare_versions("2.5.1.post1.dev20250619", "2.5.1.post1") < 0);
  CHECK(compare_versions("25.0.rc1.1", "25.0.rc1") > 0);
  CHECK(compare_versions("20250619", "9") > 0);  // numbers of any length
}

TEST_CASE("the commented template of docs/diagnoses.md is a valid rule", "[rules][docs]") {
  std::ifstream in(std::string(FAULTLINE_SOURCE_DIR) + "/docs/diagnoses.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const size_t start = doc.find("```yaml\n");
  REQUIRE(start != std::string::npos);
  const size_t end = doc.find("```", start + 8);
  const std::string yaml = doc.substr(start + 8, end - start - 8);
  std::vector<RuleFile> rules;
  for (auto& f : source_rules())
    if (f.path != "diagnoses/driver.reboot_pending.yaml") rules.push_back(f);
  rules.push_back({"diagnoses/driver.reboot_pending.yaml", yaml});
  const auto problems = faultline::correlate::lint(rules, catalog_signatures());
  for (const auto& p : problems) INFO(p);
  CHECK(problems.empty());
}

TEST_CASE("time_order latest: the last boot of every source, the most exact one cited",
          "[rules][conditions][boot]") {
  Db db;
  const int64_t b = db.bundle("bundles/x.tar", std::string(64, '0'));
  db.host("n1");
  auto fact = [&](const std::string& path, const std::string& kind, const std::string& text,
                  const std::string& name, const std::string& value) {
    auto m = db.member(path, kind, "n1", {text});
    db.fact(m, 1, name, value);
  };
  fact("date.txt", "date", "Thu May 28 11:05:12 CST 2026", "host.timezone", "+0800");
  // this boot, 2026-05-18 01:12:40 UTC, from btime and (31 s later) the driver's load
  fact("proc_stat.txt", "proc_stat", "btime 1779066760", "host.boot_time", "1779066760");
  fact("host_kernel.log", "host_kernel_log",
       "[2026-05-18-01:13:11.746731] [ascend] [drv_pcie] [INFO] [devdrv_init_module 2338] "
       "<systemd-udevd:694:694> Insmod host driver. (type=\"normal\", product=\"dc\", "
       "driver_name=\"devdrv_device_driver\")",
       "host.boot_time", "1779066791");
  // an earlier boot a stale source states (a journal that starts before this boot)
  fact("list_boots.txt", "boot_record",
       " 0 4d2d1f0d8f0e4a8c9c7d0c1b2a3e4f5a Fri 2026-05-01 09:00:03 CST—Mon 2026-05-18 09:10:51 "
       "CST",
       "host.boot_time_local", "2026-05-01 09:00:03");
  auto install = [&](const std::string& when) {
    fact("operation_" + when.substr(0, 10) + ".log", "operation_log",
         "Upgrade MINOR root " + when +
             " 127.0.0.1 Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run success "
             "cmdlist=--full --quiet.",
         "install.event",
         R"({"package":"driver","action":"upgrade","from":"","to":"24.1.rc3","time":")" + when +
             R"(","result":"success","reboot_required":false})");
  };
  const std::string cond = R"(  time_order:
    first: {fact: 'host.boot_time*', latest: true}
    then: {fact: install.event}
  bind: change
)";
  auto run = [&](const std::string& c) {
    faultline::correlate::run(
        db.handle(), b,
        {{"diagnoses/test.c.yaml",
          "id: test.c\nkind: symptom\nseverity: info\ntitle: t\nsummary: s\nconditions:\n" + c}});
    return findings(db.handle(), b);
  };
  SECTION("a change between the old and the new boot is not after the last boot") {
    install("2026-05-10 10:00:00");
    CHECK(run(cond).empty());
    // without latest, any earlier boot would do
    std::string any = cond;
    any.replace(any.find(", latest: true"), 14, "");
    CHECK(run(any).size() == 1);
  }
  SECTION("a change after the last boot: btime cited, the stale source in a note") {
    install("2026-05-27 14:03:11");
    const auto f = run(cond);
    REQUIRE(f.size() == 1);
    const auto ev = evidence(db.handle(), f[0].id);
    REQUIRE(ev.size() == 2);
    CHECK(ev[0].member == "proc_stat.txt");
    CHECK(f[0].missing.find("sources disagree on host.boot_time*: the newest, "
                            "2026-05-18T01:13:11") != std::string::npos);
    CHECK(f[0].missing.find("list_boots.txt:1") != std::string::npos);
  }
}
