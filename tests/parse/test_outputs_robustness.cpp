// Untrusted input: every output kind is registered, survives garbage, huge lines and huge members,
// and bounds what it emits.
#include <random>

#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
const std::vector<std::string> kKinds = {
    "npu_smi_info", "npu_smi_kv",   "version_info", "dpkg_list", "rpm_list",  "pip_list",
    "proc_maps",    "proc_cmdline", "environ",      "mountinfo", "modinfo",   "modprobe",
    "lsmod",        "ls_listing",   "uname",        "uptime",    "proc_stat", "date",
    "timedatectl",  "ulimit",       "sysctl",       "lspci",     "manifest",  "modules_dep",
    "ldd",          "launch_spec"};
}  // namespace

TEST_CASE("outputs: every kind has a parser", "[parse][outputs][robustness]") {
  const auto kinds = faultline::parse::parser_kinds();
  for (const auto& k : kKinds) {
    INFO(k);
    CHECK(std::find(kinds.begin(), kinds.end(), k) != kinds.end());
    CHECK(faultline::parse::make_parser(k, "x") != nullptr);
  }
}

TEST_CASE("outputs: garbage, long lines and table debris do not crash",
          "[parse][outputs][robustness]") {
  std::mt19937 rng(12345);  // fixed seed: reproducible
  std::string garbage;
  for (int i = 0; i < 20000; ++i) {
    const auto c = static_cast<char>(rng() % 256);
    garbage.push_back(c);
    if (rng() % 50 == 0) garbage.push_back('\n');
  }
  const std::string long_line = std::string(1 << 20, 'A') + "=" + std::string(1 << 20, 'B') + "\n";
  using namespace std::string_literals;
  const std::string debris =
      "|||||||\n| 0 | OK |\n|\n+\n| npu-smi\n| npu-smi 1 Version:\n==>\n<==\n$\n$ \n#####\n"
      "[root@x ~]#\n: : :\n=\n==\n-1-2-3 r-xp\nlrwxrwxrwx\ninsmod\nbtime\nName:\nVersion:\n"
      "filename:\n\x00\x00\x00\n{\"commands\": [1, \"x\", {\"exit\": \"no\"}]}\n"s;
  for (const auto& k : kKinds) {
    for (const std::string* t : std::vector<const std::string*>{&garbage, &long_line, &debris}) {
      INFO(k);
      const auto r = run(k, *t, "proc/1/maps");
      for (const auto& f : r.facts) {
        CHECK(f.value.size() <= 16 * 1024);
        CHECK(f.name.size() <= 512);
        CHECK(f.line >= 1);
        CHECK(f.line <= r.lines);
      }
    }
  }
}

TEST_CASE("outputs: facts per member are capped", "[parse][outputs][robustness]") {
  std::string t;
  t.reserve(260000 * 24);
  for (int i = 0; i < 260000; ++i) t += "vm.k" + std::to_string(i) + " = 1\n";
  const auto r = run("sysctl", t);
  CHECK(r.facts.size() == 250000);
  CHECK(r.malformed == 1);
  REQUIRE(!r.malformed_reasons.empty());
  CHECK(r.malformed_reasons[0].find("fact limit") != std::string::npos);
}

TEST_CASE("outputs: hostile YAML and listings stay bounded", "[parse][outputs][robustness]") {
  // 200 000 nested list items and keys: no recursion, a bounded key stack, bounded records
  std::string deep = "apiVersion: v1\nkind: Pod\nspec:\n";
  for (int i = 0; i < 2000; ++i)
    deep += std::string(static_cast<size_t>(i), ' ') + "- k" + std::to_string(i) + ":\n";
  for (int i = 0; i < 200000; ++i) deep += "  - name: V" + std::to_string(i) + "\n";
  const auto r = run("launch_spec", deep, "pod.yaml");
  CHECK(r.lines > 200000);
  // a tree drawing 100 000 levels deep and a find printing 300 000 paths
  std::string tree = "$ tree /x\n/x\n";
  for (int i = 0; i < 3000; ++i) {
    std::string l;
    for (int j = 0; j < i; ++j) l += "    ";
    tree += l + "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 d" + std::to_string(i) + "\n";
  }
  const auto t = run("ls_listing", tree);
  for (const auto& f : t.facts) CHECK(f.name.size() <= 512);
  std::string find = "$ find /x -type f\n";
  for (int i = 0; i < 300000; ++i) find += "/x/f" + std::to_string(i) + "\n";
  CHECK(run("ls_listing", find).facts.size() == 250000);
}
