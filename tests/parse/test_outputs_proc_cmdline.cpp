// proc_cmdline: /proc/<pid>/cmdline (NUL separated), the `tr '\0' ' '` copy, several records.
// Seed 002: `--amp False` passed to an argparse type=bool flag.
#include "test_outputs_util.hpp"

using namespace fltest;

TEST_CASE("proc_cmdline: NUL separated", "[parse][outputs][proc_cmdline]") {
  const std::string text = nul_joined({"python3", "train.py", "--amp", "False", "--batch-size=1",
                                       "--workers", "0", "--pin-memory", "--lr", "-0.5"});
  const auto r = run("proc_cmdline", text, "proc/4242/cmdline");
  INFO(dump(r));
  check_facts(
      r, {{"process.4242.cmdline",
           "python3 train.py --amp False --batch-size=1 --workers 0 --pin-memory --lr -0.5", 1},
          {"args.amp", "False", 1},
          {"args.batch-size", "1", 1},
          {"args.workers", "0", 1},
          {"args.pin-memory", "", 1},
          {"args.lr", "-0.5", 1}});
  CHECK(count(r, "process.4242.cmdline") == 1);
  CHECK(r.malformed == 0);
}

TEST_CASE("proc_cmdline: other forms", "[parse][outputs][proc_cmdline]") {
  SECTION("tr '\\0' ' ' copy") {
    const auto r = run("proc_cmdline", "python3 train.py --amp False\n", "process/4242/cmdline");
    check_facts(
        r, {{"process.4242.cmdline", "python3 train.py --amp False", 1}, {"args.amp", "False", 1}});
  }
  SECTION("two records (cat; echo per pid) under headers") {
    std::string t = "==> /proc/100/cmdline <==\n" + nul_joined({"python3", "probe.py", "rng"}) +
                    "\n==> /proc/200/cmdline <==\n" + nul_joined({"sleep", "60"}) + "\n";
    const auto r = run("proc_cmdline", t, "cmdlines.txt");
    INFO(dump(r));
    check_facts(r, {{"process.100.cmdline", "python3 probe.py rng", 2},
                    {"process.200.cmdline", "sleep 60", 4}});
  }
  SECTION("an argument holding a newline stays one record") {
    const auto r = run("proc_cmdline", nul_joined({"python3", "-c", "import torch\nprint(1)"}),
                       "proc/9/cmdline");
    INFO(dump(r));
    CHECK(values(r, "process.9.cmdline") ==
          std::vector<std::string>{"python3 -c import torch\nprint(1)"});
  }
}
