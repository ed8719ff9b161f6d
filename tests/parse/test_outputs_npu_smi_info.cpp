// npu_smi_info: every layout of log-formats.md 5.1-5.5 (verbatim blocks).
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {

// 5.1, vllm-ascend #1875, 8x910B4, driver 24.1.rc3 (middle NPUs elided in the source)
const char* kA2 =
    R"X(+------------------------------------------------------------------------------------------------+
| npu-smi 24.1.rc3                 Version: 24.1.rc3                                             |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B4               | OK            | 92.1        52                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          2828 / 32768         |
+===========================+===============+====================================================+
| 1     910B4               | OK            | 85.2        51                0    / 0             |
| 0                         | 0000:C2:00.0  | 0           0    / 0          2829 / 32768         |
+===========================+===============+====================================================+
+---------------------------+---------------+----------------------------------------------------+
| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
+===========================+===============+====================================================+
| No running processes found in NPU 0                                                            |
+===========================+===============+====================================================+
| No running processes found in NPU 1                                                            |
+===========================+===============+====================================================+
)X";

// 5.1 process rows (public texts; the last one is a container process without a name)
const char* kA2Processes =
    R"X(+---------------------------+---------------+----------------------------------------------------+
| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
+===========================+===============+====================================================+
| 0       0                 | 19334         | VLLMWorker_TP            | 58472                   |
| 0       0                 | 3755936       | python                   | 114                     |
| 0       0                 | 3104272       |                          | 116                     |
+===========================+===============+====================================================+
)X";

// 5.2, 310P, vllm-ascend #2416
const char* k310P =
    R"X(+--------------------------------------------------------------------------------------------------------+
| npu-smi 25.2.0                                   Version: 25.2.0                                       |
+-------------------------------+-----------------+------------------------------------------------------+
| NPU     Name                  | Health          | Power(W)     Temp(C)           Hugepages-Usage(page) |
| Chip    Device                | Bus-Id          | AICore(%)    Memory-Usage(MB)                        |
+===============================+=================+======================================================+
| 2       310P3                 | OK              | NA           70                0     / 0             |
| 0       0                     | 0000:01:00.0    | 0            1417 / 44216                            |
+-------------------------------+-----------------+------------------------------------------------------+
| 2       310P3                 | OK              | NA           69                0     / 0             |
| 1       1                     | 0000:01:00.0    | 0            1516 / 43757                            |
)X";

// 5.3, A3 (2 dies per NPU), 25.3.rc1
const char* kA3 =
    R"X(| npu-smi 25.3.rc1                 Version: 25.3.rc1                                             |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip  Phy-ID              | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     Ascend910           | OK            | 199.1       32                0    / 0             |
| 0     0                   | 0000:9D:00.0  | 8           0    / 0          51166/ 65536         |
+------------------------------------------------------------------------------------------------+
| 0     Ascend910           | OK            | -           30                0    / 0             |
| 1     1                   | 0000:9F:00.0  | 7           0    / 0          52518/ 65536         |
+===========================+===============+====================================================+
)X";

// 5.4, 118 wide, npu-smi 26.0.rc1; the process row is the A3 row of vllm-ascend #12980 (same
// layout)
const char* k118 =
    R"X(| npu-smi 26.0.rc1                            Version: 26.0.rc1                                                    |
+---------------------------+---------------+----------------------------------------------------------------------+
| NPU   Name                | Health        | Power(W)             Temp(C)                 Hugepages-Usage(page)   |
| Chip                      | Bus-Id        | AICore(%)            Memory-Usage(MB)        HBM-Usage(MB)           |
+===========================+===============+======================================================================+
| 0     910B4               | OK            | 82.6                 32                      0    / 0                |
| 0                         | 0000:C1:00.0  | 0                    0    / 0                2871 / 32768            |
+===========================+===============+======================================================================+
+---------------------------+---------------+----------------------------------------------------------------------+
| NPU     Chip              | Process id    | Process name       | Process memory(MB)    | Process id in container |
+===========================+===============+======================================================================+
| 0       0                 | 632268        | python3.1          | 197                   | NA                      |
)X";

// 5.5, Ascend 950 (documentation placeholders)
const char* k950 =
    R"X(+-------------------------------------------------------------------------------------------------+
| npu-smi x.x.x                           Version: x.x.x                                          |
+---------------------------+---------------+-----------------------------------------------------+
| NPU ID | Name             | Health        | Power(W)    Temp(C)           Hugepages-Usage(page) |
|        |                  | Bus-Id        | NPU Util(%) Memory-Usage(MB)  HBM-Usage(MB)         |
+========+==================+===============+=====================================================+
| 0      | xxx              | OK            | 204.4       56                0     / 0             |
|        |                  | 0000:91:00.0  | 0           0    / 0          4439  / 86016         |
)X";

}  // namespace

TEST_CASE("npu_smi_info: every table layout", "[parse][outputs][npu_smi_info]") {
  struct Case {
    const char* name;
    const char* text;
    std::vector<F> want;
    std::vector<std::string> absent;
  };
  const std::vector<Case> cases = {
      {"A2 96-col",
       kA2,
       {{"driver.version.loaded", "24.1.rc3", 2},
        {"npu.0.name", "910B4", 7},
        {"npu.0.health", "OK", 7},
        {"npu.0.bus_id", "0000:C1:00.0", 8},
        {"npu.0.aicore_util", "0", 8},
        {"npu.0.hbm_usage_mb", "2828/32768", 8},
        {"npu.1.name", "910B4", 10},
        {"npu.1.bus_id", "0000:C2:00.0", 11},
        {"npu.1.hbm_usage_mb", "2829/32768", 11},
        {"npu.count", "2", 7}},
       {"npu.0.process", "npu.0.memory_usage_mb"}},
      {"A2 process rows",
       kA2Processes,
       {{"npu.0.process", "19334 VLLMWorker_TP 58472", 4},
        {"npu.0.process", "3755936 python 114", 5},
        {"npu.0.process", "3104272 - 116", 6}},
       {"npu.count"}},
      {"310P multi-chip card",
       k310P,
       {{"driver.version.loaded", "25.2.0", 2},
        {"npu.2.name", "310P3", 7},
        {"npu.2.name", "310P3", 10},
        {"npu.2.bus_id", "0000:01:00.0", 8},
        {"npu.2.memory_usage_mb", "1417/44216", 8},
        {"npu.2.memory_usage_mb", "1516/43757", 11},
        {"npu.count", "1", 7}},
       {"npu.2.hbm_usage_mb", "npu.0.name"}},
      {"A3 Phy-ID, two dies",
       kA3,
       {{"driver.version.loaded", "25.3.rc1", 1},
        {"npu.0.name", "Ascend910", 6},
        {"npu.0.bus_id", "0000:9D:00.0", 7},
        {"npu.0.bus_id", "0000:9F:00.0", 10},
        {"npu.0.hbm_usage_mb", "51166/65536", 7},
        {"npu.0.hbm_usage_mb", "52518/65536", 10},
        {"npu.0.aicore_util", "8", 7},
        {"npu.count", "1", 6}},
       {"npu.1.name"}},
      {"118-col with container pid",
       k118,
       {{"driver.version.loaded", "26.0.rc1", 1},
        {"npu.0.name", "910B4", 6},
        {"npu.0.bus_id", "0000:C1:00.0", 7},
        {"npu.0.hbm_usage_mb", "2871/32768", 7},
        {"npu.0.process", "632268 python3.1 197", 12},
        {"npu.count", "1", 6}},
       {}},
      {"950 NPU ID column",
       k950,
       {{"npu.0.name", "xxx", 7},
        {"npu.0.health", "OK", 7},
        {"npu.0.bus_id", "0000:91:00.0", 8},
        {"npu.0.hbm_usage_mb", "4439/86016", 8},
        {"npu.count", "1", 7}},
       {"driver.version.loaded"}},  // x.x.x is a placeholder, not a version
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      const auto r = run("npu_smi_info", c.text);
      INFO(dump(r));
      check_facts(r, c.want);
      for (const auto& a : c.absent) CHECK_FALSE(has_name(r, a));
      CHECK(r.events.empty());
      CHECK(r.malformed == 0);
      // CRLF endings give the same facts on the same lines
      const auto rc = run("npu_smi_info", crlf(c.text));
      check_facts(rc, c.want);
      CHECK(rc.facts.size() == r.facts.size());
    }
  }
}

TEST_CASE("npu_smi_info: unhealthy NPU becomes a kept event", "[parse][outputs][npu_smi_info]") {
  // 5.1 rows with the Health cell set to values the npu-smi documentation lists (no real non-OK
  // capture exists, log-formats.md 5.1)
  std::string t = kA2;
  const std::string from = "| OK            | 85.2", to = "| Alarm         | 85.2";
  REQUIRE(t.find(from) != std::string::npos);
  t.replace(t.find(from), from.size(), to);
  const auto r = run("npu_smi_info", t);
  INFO(dump(r));
  CHECK(has(r, "npu.1.health", "Alarm"));
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].device == 1);
  CHECK(r.events[0].keep);
  CHECK(r.events[0].severity == faultline::Severity::error);
  CHECK(r.events[0].line == 10);
  CHECK(r.events[0].message.find("Alarm") != std::string::npos);
}

TEST_CASE("npu_smi_info: driver error and banners", "[parse][outputs][npu_smi_info]") {
  SECTION("dcmi initialisation failure") {
    const auto r = run("npu_smi_info", "dcmi module initialize failed. ret is -8005\n");
    INFO(dump(r));
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].severity == faultline::Severity::error);
    CHECK(r.events[0].keep);
    CHECK(r.events[0].message == "dcmi module initialize failed. ret is -8005");
    CHECK(r.facts.empty());
  }
  SECTION("prompt line, collector banner, two tables in one file (before/after)") {
    std::string t = "[root@localhost ~]# npu-smi info\n";
    t += kA2;
    t += "\n########### npu info after #############\n";
    t += kA3;
    const auto r = run("npu_smi_info", t);
    INFO(dump(r));
    CHECK(r.malformed == 0);
    CHECK(values(r, "npu.count") == std::vector<std::string>{"2", "1"});
    CHECK(values(r, "driver.version.loaded") == std::vector<std::string>{"24.1.rc3", "25.3.rc1"});
    CHECK(line_of(r, "npu.0.name", "910B4") == 8);
  }
  SECTION("card_info.log holds the table and `npu-smi info -l` key-values") {
    std::string t = kA2;
    t += "        Total Count                    : 16\n\n        NPU ID                         : "
         "0\n"
         "        Chip Count                     : 1\n";
    const auto r = run("npu_smi_kv", t);
    INFO(dump(r));
    CHECK(has(r, "npu.count", "2"));
    CHECK(has(r, "npu.count", "16"));
    CHECK(has(r, "npu.0.chip_count", "1"));
  }
}
