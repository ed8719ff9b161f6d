// npu_smi_kv: key-value subcommands of log-formats.md 5.6 (verbatim blocks).
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {

// `npu-smi info -l`, older (310 doc, tab-indented)
const char* kListTab =
    "\tCard Count                     : 1\n"
    "\n"
    "\tNPU ID                         : 0\n"
    "\tProduct Name                   : NA\n"
    "\tSerial Number                  : 033GWL10LB000840\n"
    "\tChip Count                     : 1\n";

// `npu-smi info -l`, newer (awesome-ascend-skills #78)
const char* kListSpaces = R"X(        Total Count                    : 16

        NPU ID                         : 0
        Chip Count                     : 1
)X";

// `npu-smi info -t board -i 0` (Atlas 910, driver 23.0.5, mind-cluster doc)
const char* kBoard910 = R"X(        NPU ID                         : 0
        Software Version               : 23.0.5
        Firmware Version               : 7.1.0.7.220
        Compatibility                  : OK
        Board ID                       : 0x02
        PCB ID                         : A
        BOM ID                         : 1
        PCIe Bus Info                  : 0000:61:00.0
        Slot ID                        : 0
        Class ID                       : NA
        PCI Vendor ID                  : 0x19e5
        PCI Device ID                  : 0xD801
        Subsystem Vendor ID            : 0x0200
        Subsystem Device ID            : 0x0100
        Chip Count                     : 1
)X";

// `npu-smi info -i 0 -c 0 -t board` (chip level)
const char* kBoardChip = R"X(        NPU ID                         : 0
        Chip ID                        : 0
        Chip Type                      : Ascend
        Chip Name                      : xxx
        Chip Version                   : V1
        Board ID                       : 0x02
        PCB ID                         : NA
        BOM ID                         : 1
        VDie ID                        : 42C711D4 20B03704 4A10C8D4 14CC040A D2102003
        NDie ID                        : 27216594 20401010 4E10C8D4 14CC040A A4102003
        Chip Position ID               : 0
        PCIe Bus Info                  : 0000:61:00.0
        Firmware Version               : 7.1.0.7.220
)X";

// 910B board (Go test fixture captured from a real 910B, driver 25.5.1)
const char* kBoard910B = R"X(        NPU ID                         : 0
        Product Name                   : IT21HMDC_Bin5
        Model                          : NA
        Manufacturer                   : Huawei
        Serial Number                  : 1025C9048791
        Software Version               : 25.5.1
        Firmware Version               : 7.8.0.6.201
        Compatibility                  : OK
        Board ID                       : 0x60
        PCB ID                         : A
        BOM ID                         : 1
        PCIe Bus Info                  : 0000:C1:00.0
        Slot ID                        : 0
        Class ID                       : NA
        PCI Vendor ID                  : 0x19E5
        PCI Device ID                  : 0xD802
        Subsystem Vendor ID            : 0x19E5
        Subsystem Device ID            : 0x3003
        Chip Count                     : 1
)X";

// `npu-smi info -i 0 -c 0 -t health` (A2/910 doc, leading space kept) and the 950 form
const char* kHealthA2 = R"X(         Health Status                  : OK
         Error Code                     : NA
         Error Information              : NA
)X";
const char* kHealth950 = R"X(        NPU ID                         : 0
        Health                         : OK
        Error Code                     : NA
        Error Information              : NA
)X";

const char* kUsages = R"X(        DDR Capacity(MB)               : 13553
        DDR Usage Rate(%)              : 6
        HBM Capacity(MB)               : 32768
        HBM Usage Rate(%)              : 0
        Aicore Usage Rate(%)           : 0
        Chip ID                        : 0
)X";

const char* kEcc = R"X(        NPU ID                                   : 0
        Chip Count                               : 1
        
        DDR Single Bit Error Count               : 0
        DDR Double Bit Error Count               : 0
        HBM Single Bit Error Count               : 0
        HBM Double Bit Error Count               : 0
        HBM Single Bit Isolated Pages Count      : 0
        Chip ID                                  : 0
)X";

}  // namespace

TEST_CASE("npu_smi_kv: documented outputs", "[parse][outputs][npu_smi_kv]") {
  struct Case {
    const char* name;
    std::string text;
    std::string path;
    std::vector<F> want;
    std::vector<std::string> absent;
  };
  const std::vector<Case> cases = {
      {"-l tab-indented",
       kListTab,
       "",
       {{"npu.count", "1", 1},
        {"npu.0.serial_number", "033GWL10LB000840", 5},
        {"npu.0.chip_count", "1", 6}},
       {"npu.0.product_name"}},
      {"-l space-indented",
       kListSpaces,
       "",
       {{"npu.count", "16", 1}, {"npu.0.chip_count", "1", 4}},
       {}},
      {"board 910 23.0.5",
       kBoard910,
       "",
       {{"driver.version.loaded", "23.0.5", 2},
        {"firmware.version", "7.1.0.7.220", 3},
        {"npu.0.compatibility", "OK", 4},
        {"npu.0.bus_id", "0000:61:00.0", 8},
        {"npu.0.kv.pci_device_id", "0xD801", 12},
        {"npu.0.chip_count", "1", 15}},
       {}},
      {"board chip level",
       kBoardChip,
       "",
       {{"npu.0.name", "xxx", 4},
        {"firmware.version", "7.1.0.7.220", 13},
        {"npu.0.bus_id", "0000:61:00.0", 12}},
       {"driver.version.loaded"}},
      {"board 910B 25.5.1",
       kBoard910B,
       "",
       {{"driver.version.loaded", "25.5.1", 6},
        {"firmware.version", "7.8.0.6.201", 7},
        {"npu.0.product_name", "IT21HMDC_Bin5", 2},
        {"npu.0.serial_number", "1025C9048791", 5},
        {"npu.0.bus_id", "0000:C1:00.0", 12}},
       {}},
      {"health A2, npu id from the member path",
       kHealthA2,
       "npu_info_log/npu_smi_3_health.txt",
       {{"npu.3.health", "OK", 1}},
       {"npu.3.health_error_code"}},
      {"health A2, npu id from the collector banner",
       std::string("########### collect npu id 2 chip id 0 health info #############\n") +
           kHealthA2,
       "npu_info_log/card_info.log",
       {{"npu.2.health", "OK", 2}},
       {"npu.0.health"}},
      {"health A2, npu id from the echoed command",
       std::string("npu-smi info -t health -i 5 -c 0\n") + kHealthA2,
       "",
       {{"npu.5.health", "OK", 2}},
       {}},
      {"health 950", kHealth950, "", {{"npu.0.health", "OK", 2}}, {"npu.0.health_error_code"}},
      {"usages", kUsages, "dev_info/npu4_usages.txt", {{"npu.4.aicore_util", "0", 5}}, {}},
      {"ecc",
       kEcc,
       "",
       {{"npu.0.ecc.hbm_double_bit_error_count", "0", 7},
        {"npu.0.ecc.hbm_single_bit_isolated_pages_count", "0", 8},
        {"npu.0.chip_count", "1", 2}},
       {}},
      {"sys-time (950)",
       "        NPU ID                         : 0\n"
       "        System Time(local)             : Thu Apr  9 10:03:04 2026\n",
       "",
       {{"npu.0.system_time", "Thu Apr  9 10:03:04 2026", 2}},
       {}},
      {"npu-smi -v",
       "npu-smi version: 24.1.rc3\n",
       "",
       {{"driver.version.loaded", "24.1.rc3", 1}},
       {}},
      {"npu-smi version with a capital V",
       "npu-smi Version: 25.0.rc1.2\n",
       "",
       {{"driver.version.loaded", "25.0.rc1.2", 1}},
       {}},
      {"npu-smi -v placeholder", "npu-smi version: x.x.x\n", "", {}, {"driver.version.loaded"}},
      {"npu-smi version printing a Version key (seed 000 check)",
       "$ npu-smi version\n        Version                        : 24.1.rc3\n",
       "",
       {{"driver.version.loaded", "24.1.rc3", 2}},
       {}},
      {"a bare Version key without that command is not the driver",
       "        Version : 1.0\n",
       "",
       {},
       {"driver.version.loaded"}},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      const auto r = run("npu_smi_kv", c.text, c.path);
      INFO(dump(r));
      check_facts(r, c.want);
      for (const auto& a : c.absent) CHECK_FALSE(has_name(r, a));
      CHECK(r.events.empty());
      CHECK(r.malformed == 0);
      const auto rc = run("npu_smi_kv", crlf(c.text), c.path);
      check_facts(rc, c.want);
    }
  }
}

TEST_CASE("npu_smi_kv: abnormal values become kept events", "[parse][outputs][npu_smi_kv]") {
  SECTION("health error code (value from a test fixture, log-formats.md 5.6)") {
    const auto r = run("npu_smi_kv",
                       "        NPU ID                         : 1\n"
                       "        Health                         : Warning\n"
                       "        Error Code                     : 80E01801\n"
                       "        Error Information              : NA\n");
    INFO(dump(r));
    CHECK(has(r, "npu.1.health", "Warning"));
    CHECK(line_of(r, "npu.1.health_error_code", "80E01801") == 3);
    REQUIRE(r.events.size() == 2);
    for (const auto& e : r.events) {
      CHECK(e.keep);
      CHECK(e.device == 1);
    }
    CHECK(r.events[1].severity == faultline::Severity::error);
    CHECK(r.events[1].message.find("80E01801") != std::string::npos);
  }
  SECTION("current-fault-event (950)") {
    const auto r =
        run("npu_smi_kv",
            "        Fault Event Count              : 1\n"
            "        Fault Event Information        : event id=0x81AF8000, severity=2, node "
            "type ex=215, node id=0, sub node type ex=0, sub node id=0\n",
            "npu_smi_0_current_fault_event.txt");
    INFO(dump(r));
    CHECK(has(r, "npu.0.fault_event_count", "1"));
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].severity == faultline::Severity::error);
    CHECK(r.events[0].device == 0);
    CHECK(r.events[0].line == 2);
    CHECK(r.events[0].message.find("0x81AF8000") != std::string::npos);
  }
  SECTION("ECC double-bit errors") {
    std::string t = kEcc;
    const std::string from = "HBM Double Bit Error Count               : 0";
    t.replace(t.find(from), from.size(), "HBM Double Bit Error Count               : 3");
    const auto r = run("npu_smi_kv", t);
    INFO(dump(r));
    CHECK(has(r, "npu.0.ecc.hbm_double_bit_error_count", "3"));
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].line == 7);
  }
  SECTION("dcmi failure when the driver is unhealthy") {
    const auto r = run("npu_smi_kv",
                       "npu-smi info -t board -i 0\ndcmi module initialize failed. ret is -8005\n");
    INFO(dump(r));
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].severity == faultline::Severity::error);
    CHECK(r.events[0].line == 2);
    CHECK(r.events[0].device == 0);
    CHECK(r.facts.empty());
  }
}
