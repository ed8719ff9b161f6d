// environ: /proc/<pid>/environ (NUL separated), printenv/env, export, declare -x.
// Seed 002: several ASCEND_* variables pointed at a CANN 8.5.1 that was never installed.
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
// variable names as CANN's set_env.sh sets them; values point at the missing 8.5.1 (seed 002)
const char* kPrintenv = R"X($ printenv | rg '^(ASCEND|PATH=|PYTHONPATH=|LD_LIBRARY_PATH=)'
ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/8.5.1
ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1
ASCEND_OPP_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1/opp
ASCEND_AICPU_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1
LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/driver/lib64/common:/usr/local/Ascend/ascend-toolkit/8.5.1/lib64:/usr/local/Ascend/ascend-toolkit/8.5.1/lib64/plugin/opskernel
PATH=/usr/local/Ascend/ascend-toolkit/8.5.1/bin:/usr/local/Ascend/ascend-toolkit/8.5.1/compiler/ccec_compiler/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PYTHONPATH=/usr/local/Ascend/ascend-toolkit/8.5.1/python/site-packages:/usr/local/Ascend/ascend-toolkit/8.5.1/opp/built-in/op_impl/ai_core/tbe
)X";
}  // namespace

TEST_CASE("environ: printenv pointing at a missing CANN 8.5.1", "[parse][outputs][environ]") {
  for (const std::string& text : {std::string(kPrintenv), crlf(kPrintenv)}) {
    const auto r = run("environ", text, "env/printenv.txt");
    INFO(dump(r));
    check_facts(r,
                {{"env.ASCEND_TOOLKIT_HOME", "/usr/local/Ascend/ascend-toolkit/8.5.1", 2},
                 {"env.ASCEND_HOME_PATH", "/usr/local/Ascend/ascend-toolkit/8.5.1", 3},
                 {"env.ASCEND_OPP_PATH", "/usr/local/Ascend/ascend-toolkit/8.5.1/opp", 4},
                 {"env.PYTHONPATH",
                  "/usr/local/Ascend/ascend-toolkit/8.5.1/python/site-packages:/usr/local/Ascend/"
                  "ascend-toolkit/8.5.1/opp/built-in/op_impl/ai_core/tbe",
                  8},
                 {"cann.version.env", "8.5.1", 2}});
    CHECK(count(r, "cann.version.env") == 1);
    CHECK(r.facts.size() == 8);  // 7 variables + one referenced CANN version
    CHECK(r.events.empty());
    CHECK(r.malformed == 0);
  }
}

TEST_CASE("environ: forms", "[parse][outputs][environ]") {
  SECTION("/proc/<pid>/environ") {
    const auto r = run("environ",
                       nul_joined({"ASCEND_HOME_PATH=/usr/local/Ascend/cann-9.1.0",
                                   "HF_TOKEN=<redacted>", "LS_COLORS=rs=0:di=01;34", "EMPTY="}),
                       "proc/12345/environ");
    INFO(dump(r));
    check_facts(r, {{"env.ASCEND_HOME_PATH", "/usr/local/Ascend/cann-9.1.0", 1},
                    {"env.HF_TOKEN", "<redacted>", 1},
                    {"env.LS_COLORS", "rs=0:di=01;34", 1},
                    {"cann.version.env", "9.1.0", 1}});
    CHECK(values(r, "env.EMPTY") == std::vector<std::string>{""});
  }
  SECTION("export lines (seed 002 debugging switches)") {
    const auto r = run("environ",
                       "export ASCEND_LAUNCH_BLOCKING=1\nexport TASK_QUEUE_ENABLE=0\n"
                       "export ASCEND_GLOBAL_LOG_LEVEL='3'\n");
    check_facts(r, {{"env.ASCEND_LAUNCH_BLOCKING", "1", 1},
                    {"env.TASK_QUEUE_ENABLE", "0", 2},
                    {"env.ASCEND_GLOBAL_LOG_LEVEL", "3", 3}});
  }
  SECTION("declare -x (bash `export -p`)") {
    const auto r = run("environ",
                       "declare -x OLDPWD\n"
                       "declare -x ASCEND_HOME_PATH=\"/usr/local/Ascend/ascend-toolkit/latest\"\n"
                       "declare -x MSG=\"say \\\"hi\\\" for \\$5\"\n");
    INFO(dump(r));
    check_facts(r, {{"env.ASCEND_HOME_PATH", "/usr/local/Ascend/ascend-toolkit/latest", 2},
                    {"env.MSG", "say \"hi\" for $5", 3},
                    {"cann.version.env", "latest", 2}});
    CHECK_FALSE(has_name(r, "env.OLDPWD"));
  }
  SECTION("printenv keeps quotes and leading spaces of values verbatim") {
    const auto r = run("environ", "PS1='\\u@\\h:\\w\\$ '\nX=  spaced\n");
    INFO(dump(r));
    CHECK(has(r, "env.PS1", "'\\u@\\h:\\w\\$ '"));
    CHECK(has(r, "env.X", "  spaced"));
  }
  SECTION("an environment file read as environ: quoted paths lose their quotes (issue 33)") {
    // systemd EnvironmentFile= / compose env-file lines under a name the environ kind takes
    const auto r = run("environ",
                       "ASCEND_HOME_PATH=\"/usr/local/Ascend/cann-8.5.1\"\n"
                       "LD_LIBRARY_PATH='/usr/local/Ascend/cann-8.5.1/lib64:/usr/local/Ascend/"
                       "driver/lib64/driver'\n"
                       "GREETING=\"hello\"\n",
                       "deploy/mindie/environment");
    INFO(dump(r));
    CHECK(has(r, "env.ASCEND_HOME_PATH", "/usr/local/Ascend/cann-8.5.1"));
    CHECK(has(r, "env.LD_LIBRARY_PATH",
              "/usr/local/Ascend/cann-8.5.1/lib64:/usr/local/Ascend/driver/lib64/driver"));
    CHECK(has(r, "cann.version.env", "8.5.1"));
    CHECK(has(r, "env.GREETING", "\"hello\""));  // not a path: verbatim, as printenv shows it
  }
}
