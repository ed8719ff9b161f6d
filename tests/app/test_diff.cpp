// `faultline diff` and `fleet --diff` (docs/compare.md) on pairs of real-format bundles built
// here from samples/healthy-node (a faultline-collect bundle of a 910B node): the second
// collection changes what an engineer changes on a real node (seed write-ups 000 and 002), in
// the formats the node prints — a driver upgraded without a reboot (ascend_install.log session,
// operation.log record, version.info, npu-smi header with the tool of the new files over the old
// running driver), only the environment of the training processes, only the torch_npu wheel, and
// only what differs on every collection (uptime, load, utilisation, temperatures, HBM use, pids).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "common/temp_dir.hpp"
#include "faultline/app/diff.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/correlate/compare.hpp"
#include "faultline/report/diff.hpp"
#include "faultline/store/store.hpp"

using namespace faultline;
namespace fs = std::filesystem;

namespace {

const fs::path kSample = fs::path(FAULTLINE_SOURCE_DIR) / "samples/healthy-node";
const char* kNode = "faultline_npu-node-11_20260409132247";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  REQUIRE(out.good());
}

// Replaces every occurrence of from in the file; requires at least one.
void replace_in(const fs::path& p, const std::string& from, const std::string& to) {
  std::string s = slurp(p);
  size_t at = 0, n = 0;
  while ((at = s.find(from, at)) != std::string::npos) {
    s.replace(at, from.size(), to);
    at += to.size();
    ++n;
  }
  INFO(p.string() << ": " << from);
  REQUIRE(n > 0);
  spit(p, s);
}

struct Pair {
  test::TempDir dir{"faultline-diff"};
  fs::path good, bad;
  Pair() {
    good = dir.path() / "good";
    bad = dir.path() / "bad";
    fs::copy(kSample, good, fs::copy_options::recursive);
    fs::copy(kSample, bad, fs::copy_options::recursive);
  }
  [[nodiscard]] fs::path node() const { return bad / kNode; }
};

app::Options options(const fs::path& cache) {
  app::Options o;
  o.cache_dir = cache;
  o.no_kb = true;
  return o;
}

correlate::Diff run_diff(const Pair& p) {
  const auto out = app::diff(p.good, p.bad, options(p.dir.path() / "cache"));
  INFO(out.error);
  REQUIRE(out.exit_code == 0);
  return out.diff;
}

const correlate::FactChange* fact(const correlate::Diff& d, const std::string& name) {
  for (const auto& f : d.facts)
    if (f.name == name) return &f;
  return nullptr;
}

std::string fact_names(const correlate::Diff& d) {
  std::string s;
  for (const auto& f : d.facts) s += f.group + " " + f.name + " " + f.change + "\n";
  return s;
}

}  // namespace

TEST_CASE("diff: a driver upgraded without a reboot leads the verdict, with its install event",
          "[diff]") {
  if (!fs::exists(kSample)) {
    WARN("samples/healthy-node not present");
    return;
  }
  Pair p;
  const fs::path n = p.node();
  // the installer's session of the new driver, after the boot of 2026-04-02 07:51:09
  const fs::path log = n / "files/var/log/ascend_seclog/ascend_install.log";
  spit(log,
       slurp(log) +
           "[Driver] [2026-04-08 14:03:09] [INFO]Start time: 2026-04-08 14:03:09\n"
           "[Driver] [2026-04-08 14:03:09] [INFO]UserCommand: "
           "Ascend-hdk-910b-npu-driver_25.5.2_linux-aarch64.run --upgrade --quiet\n"
           "[Driver] [2026-04-08 14:03:09] [INFO]base version is 25.5.1.\n"
           "[Driver] [2026-04-08 14:03:09] [INFO]Driver package has been installed on the path "
           "/usr/local/Ascend, the version is 25.5.1, and the version of this package is "
           "25.5.2,do you want to continue?  [y/n] \n"
           "[Driver] [2026-04-08 14:03:20] [INFO]upgradePercentage:100%\n"
           "[Driver] [2026-04-08 14:03:20] [INFO]Driver package installed successfully! Reboot "
           "needed for installation/upgrade to take effect!\n"
           "[Driver] [2026-04-08 14:03:20] [INFO]End time: 2026-04-08 14:03:20\n");
  const fs::path op = n / "files/var/log/ascend_seclog/operation.log";
  spit(op, slurp(op) +
               "Upgrade MINOR root 2026-04-08 14:03:09 127.0.0.1 "
               "Ascend-hdk-910b-npu-driver_25.5.2_linux-aarch64.run success cmdlist=--upgrade "
               "--quiet.\n");
  replace_in(n / "files/usr/local/Ascend/driver/version.info", "Version=25.5.1", "Version=25.5.2");
  replace_in(n / "files/usr/local/Ascend/driver/version.info", "package_version=25.5.1",
             "package_version=25.5.2");
  // the npu-smi of the new files over the driver still running (seed 000)
  replace_in(n / "cmd/npu-smi_info.txt", "| npu-smi 25.5.1                   Version: 25.5.1",
             "| npu-smi 25.5.2                   Version: 25.5.1");

  const auto d = run_diff(p);
  INFO(d.verdict << "\n" << fact_names(d));
  CHECK(d.meaningful);
  CHECK(d.verdict.rfind("driver 25.5.1 -> 25.5.2 upgraded 04-08 14:03, no reboot since; ", 0) == 0);
  const auto* inst = fact(d, "driver.version.installed");
  REQUIRE(inst != nullptr);
  CHECK(inst->group == "driver");
  CHECK(inst->change == "changed");
  INFO(inst->explained_by);
  CHECK(inst->explained_by.find("25.5.1 -> 25.5.2 at 2026-04-08 14:03:09") != std::string::npos);
  CHECK(inst->explained_by.find("no reboot since") != std::string::npos);
  // the running driver did not change: not a change
  CHECK(fact(d, "driver.version.loaded") == nullptr);
  CHECK(fact(d, "host.boot_time") == nullptr);
  // only driver facts changed
  for (const auto& f : d.facts) CHECK(f.group == "driver");
  // the installs between the collections
  bool driver_install = false;
  for (const auto& i : d.installs)
    driver_install |= i.package == "driver" && i.to == "25.5.2" && i.reboot == "no reboot since";
  CHECK(driver_install);
  // the renderers lead with the verdict
  const auto md = report::render_diff(d, report::Format::md);
  CHECK(md.find("**driver 25.5.1 -> 25.5.2 upgraded 04-08 14:03, no reboot since") !=
        std::string::npos);
  CHECK(md.find("### driver/firmware") != std::string::npos);
  const auto js = report::render_diff(d, report::Format::json);
  CHECK(js.find("\"verdict\": \"driver 25.5.1 -> 25.5.2") != std::string::npos);
  const auto html = report::render_diff(d, report::Format::html);
  CHECK(html.find("<div class=\"verdict\">driver 25.5.1 -&gt; 25.5.2") != std::string::npos);
}

TEST_CASE("diff: only the environment of the training processes changed", "[diff]") {
  if (!fs::exists(kSample)) return;
  Pair p;
  // the driver's libraries dropped from LD_LIBRARY_PATH in every process's environ
  size_t changed = 0;
  for (const auto& e : fs::directory_iterator(p.node() / "proc")) {
    const fs::path env = e.path() / "environ";
    if (!fs::exists(env)) continue;
    replace_in(env,
               "/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/driver/lib64/common:", "");
    ++changed;
  }
  REQUIRE(changed > 0);
  const auto d = run_diff(p);
  INFO(d.verdict << "\n" << fact_names(d));
  // environ states the variable twice, as the environment (env.X) and as the process's
  // (process.*.env.X): one fact (compare.yaml `same_fact`), one change citing both sources
  CHECK(d.verdict.rfind("environment changed: env.LD_LIBRARY_PATH; "
                        "0 new fault events, 0 new error templates",
                        0) == 0);
  for (const auto& f : d.facts) CHECK(f.group == "environment");
  CHECK(fact(d, "process.*.env.LD_LIBRARY_PATH") == nullptr);
  const auto* ld = fact(d, "env.LD_LIBRARY_PATH");
  REQUIRE(ld != nullptr);
  CHECK(ld->good.front().value.find("/usr/local/Ascend/driver/lib64/driver") != std::string::npos);
  CHECK(ld->bad.front().value.find("/usr/local/Ascend/driver/lib64/driver") == std::string::npos);
  CHECK(ld->bad.front().source.find("/environ") != std::string::npos);
}

TEST_CASE("diff: only the torch_npu wheel changed, CANN stayed", "[diff]") {
  if (!fs::exists(kSample)) return;
  Pair p;
  size_t changed = 0;
  for (const auto& e : fs::directory_iterator(p.node() / "cmd")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("pip_list_pid", 0) != 0) continue;
    replace_in(e.path(), "torch-npu          2.8.0.post2", "torch-npu          2.8.0.post4");
    ++changed;
  }
  REQUIRE(changed > 0);
  const auto d = run_diff(p);
  INFO(d.verdict << "\n" << fact_names(d));
  CHECK(d.verdict.rfind("torch_npu 2.8.0.post2 -> 2.8.0.post4", 0) == 0);
  CHECK(d.verdict.find("driver") == std::string::npos);
  CHECK(d.verdict.find("CANN") == std::string::npos);
  for (const auto& f : d.facts) CHECK(f.group == "frameworks");
  REQUIRE(fact(d, "package.pip.torch-npu") != nullptr);
  CHECK(d.installs.empty());
}

TEST_CASE("diff: noise only (uptime, load, utilisation, temperatures, HBM use, pids) is no change",
          "[diff]") {
  if (!fs::exists(kSample)) return;
  Pair p;
  const fs::path n = p.node();
  replace_in(n / "cmd/uptime.txt", " 13:22:47 up 7 days,  5:31,  2 users,  load average: 3.41",
             " 15:40:02 up 7 days,  7:48,  3 users,  load average: 7.02");
  replace_in(n / "files/proc/uptime", "624697.89", "632932.41");
  // ... collected 2 h 17 min later: the clock moved with the uptime (the boot derived from
  // uptime + collection time stays where it was)
  replace_in(n / "cmd/date.txt", "13:22:47", "15:40:02");
  replace_in(n / "cmd/date_-R.txt", "13:22:47", "15:40:02");
  replace_in(n / "cmd/date_epoch_zone.txt", "1775740967", "1775749202");
  // npu 0: power, temperature, AICore and HBM use of a busier moment
  replace_in(n / "cmd/npu-smi_info.txt",
             "| 0     910B2               | OK            | 288.2       50 ",
             "| 0     910B2               | OK            | 301.7       57 ");
  replace_in(n / "cmd/npu-smi_info.txt",
             "| 0                         | 0000:C1:00.0  | 51          0    / 0          54120/ "
             "65536",
             "| 0                         | 0000:C1:00.0  | 88          0    / 0          61002/ "
             "65536");
  // the same training processes under other pids (a restarted job)
  fs::rename(n / "proc/71404", n / "proc/91404");
  const auto d = run_diff(p);
  INFO(d.verdict << "\n" << fact_names(d));
  CHECK(d.verdict.rfind("no meaningful change", 0) == 0);
  CHECK_FALSE(d.meaningful);
  CHECK(d.facts.empty());
  CHECK(d.noise_differences > 0);
  CHECK(d.compared_facts > 100);
  CHECK(report::render_diff_summary(d).rfind("no meaningful change", 0) == 0);
}

TEST_CASE("compare rules: globs, normalisation and groups are data", "[diff]") {
  const auto r = app::compare_rules({});
  CHECK(correlate::glob_match("npu.*.kv.*temp*", "npu.3.kv.chip_temperature_c"));
  CHECK_FALSE(correlate::glob_match("npu.*.health", "npu.3.health_error_code"));
  CHECK(correlate::normalise_fact(r, "process.19334.env.ASCEND_HOME_PATH") ==
        "process.*.env.ASCEND_HOME_PATH");
  // one environment variable, whatever states it (docs/facts.md names)
  CHECK(correlate::same_fact_name(r, "process.*.env.LD_LIBRARY_PATH") == "env.LD_LIBRARY_PATH");
  CHECK(correlate::same_fact_name(r, "unit.mindie-server.service.env.ASCEND_HOME_PATH") ==
        "env.ASCEND_HOME_PATH");
  CHECK(correlate::same_fact_name(r, "container.infer-0/server.env.ASCEND_HOME_PATH") ==
        "env.ASCEND_HOME_PATH");
  CHECK(correlate::same_fact_name(r, "driver.version.installed") == "driver.version.installed");
  CHECK(correlate::fact_group(r, "host.uptime") == "noise");
  CHECK(correlate::fact_group(r, "npu.*.process") == "noise");
  CHECK(correlate::fact_group(r, "driver.version.installed") == "driver");
  CHECK(correlate::fact_group(r, "package.pip.torch-npu") == "frameworks");
  CHECK(correlate::fact_group(r, "process.*.env.LD_LIBRARY_PATH") == "environment");
  CHECK(correlate::fact_group(r, "mount./usr/local/Ascend/ascend-toolkit") == "mounts");
  CHECK(correlate::fact_group(r, "npu.0.health") == "devices");
  CHECK(correlate::lint_compare(rules_under(embedded_rules(), "compare/")).empty());
}

TEST_CASE("fleet --diff: the one node whose processes have another LD_LIBRARY_PATH is named",
          "[diff][fleet]") {
  if (!fs::exists(kSample)) return;
  test::TempDir dir("faultline-fleetdiff");
  // three nodes of one job: the sample under three host names (every file that names the host)
  std::vector<fs::path> nodes;
  for (const char* host : {"npu-node-11", "npu-node-12", "npu-node-13"}) {
    const fs::path root = dir.path() / host;
    fs::copy(kSample, root, fs::copy_options::recursive);
    const fs::path from = root / kNode;
    const fs::path to =
        root / std::regex_replace(std::string(kNode), std::regex("npu-node-11"), host);
    if (from != to) fs::rename(from, to);
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file()) continue;
      std::string s = slurp(e.path());
      if (s.find("npu-node-11") == std::string::npos) continue;
      spit(e.path(), std::regex_replace(s, std::regex("npu-node-11"), host));
    }
    nodes.push_back(root);
  }
  // npu-node-13: its training processes point LD_LIBRARY_PATH at a CANN that is not installed
  for (const auto& e :
       fs::directory_iterator(nodes[2] / "faultline_npu-node-13_20260409132247/proc")) {
    if (fs::exists(e.path() / "environ"))
      replace_in(e.path() / "environ",
                 "LD_LIBRARY_PATH=/usr/local/Ascend/ascend-toolkit/8.5.0/lib64:",
                 "LD_LIBRARY_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1/lib64:");
  }
  auto db = store::Db::open(dir.path() / "job.db");
  std::vector<int64_t> ids;
  for (const auto& n : nodes) {
    const auto out = app::analyze(*db, n, options(dir.path() / "cache"));
    INFO(out.error);
    REQUIRE(out.exit_code == 0);
    ids.push_back(out.bundle_id);
  }
  const auto fd = app::fleet_diff(*db, ids, options(dir.path() / "cache"));
  CHECK(fd.hosts == 3);
  REQUIRE(fd.nodes.size() == 1);
  CHECK(fd.nodes[0].host == "npu-node-13");
  bool ld = false;
  for (const auto& x : fd.nodes[0].differences) {
    INFO(x.name << " = " << x.value << " vs " << x.majority);
    if (x.name == "process.*.env.LD_LIBRARY_PATH") {
      ld = true;
      CHECK(x.value.find("ascend-toolkit/8.5.1/lib64") != std::string::npos);
      CHECK(x.majority.find("ascend-toolkit/8.5.0/lib64:") != std::string::npos);
      CHECK(x.majority_hosts == 2);
      CHECK(x.hosts == 3);
    }
  }
  CHECK(ld);
  const std::string md = report::add_fleet_diff("# fleet\n", fd, report::Format::md);
  CHECK(md.find("Odd node: **npu-node-13** (") != std::string::npos);
  const std::string js = report::add_fleet_diff("{\"a\": 1}", fd, report::Format::json);
  CHECK(js.find("\"node_diff\"") != std::string::npos);
  CHECK(js.find("\"host\": \"npu-node-13\"") != std::string::npos);
}

TEST_CASE("similar: an earlier analysis of the same failure is listed first, with its diagnosis",
          "[diff][similar]") {
  const fs::path samples = fs::path(FAULTLINE_SOURCE_DIR) / "samples";
  if (!fs::exists(samples / "seed-driver-reboot-pending")) return;
  test::TempDir dir("faultline-similar");
  const fs::path dbs = dir.path() / "cases";
  fs::create_directories(dbs);
  // earlier analyses: the seed 000 node, a healthy node, a framework mismatch
  for (const char* s :
       {"seed-driver-reboot-pending", "healthy-node", "framework-version-mismatch"}) {
    // one in a sub-folder, as serve keeps them (DATA/analyses/<id>/analysis.db)
    const fs::path sub = std::string(s) == "healthy-node" ? dbs / "2" : dbs;
    fs::create_directories(sub);
    auto db = store::Db::open(sub / (std::string(s) + ".db"));
    REQUIRE(app::analyze(*db, samples / s, options(dir.path() / "cache")).exit_code == 0);
  }
  // the same bundle uploaded again
  const fs::path again = dir.path() / "again";
  fs::copy(samples / "seed-driver-reboot-pending", again, fs::copy_options::recursive);
  const auto out = app::similar(again, dbs, options(dir.path() / "cache"), 3);
  INFO(out.error);
  REQUIRE(out.exit_code == 0);
  CHECK(out.analyses == 3);
  REQUIRE(out.matches.size() == 3);
  CHECK(out.matches[0].fingerprint.name == "seed-driver-reboot-pending");
  CHECK(out.matches[0].similarity.score > 0.9);
  CHECK(out.matches[0].similarity.score > out.matches[1].similarity.score);
  bool shared_rc = false;
  for (const auto& f : out.matches[0].similarity.shared_findings)
    shared_rc |= f == "driver.reboot_pending";
  CHECK(shared_rc);
  REQUIRE_FALSE(out.matches[0].fingerprint.root_causes.empty());
  CHECK(out.matches[0].fingerprint.root_causes[0].rfind("driver.reboot_pending: ", 0) == 0);
  const auto md =
      report::render_similar(out.query, out.matches, out.analyses, out.skipped, report::Format::md);
  CHECK(md.find("| 1 | ") != std::string::npos);
  CHECK(md.find("driver.reboot_pending: ") != std::string::npos);
}
