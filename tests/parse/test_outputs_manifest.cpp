// manifest: faultline-collect manifest.json (ARCHITECTURE contract; probe commands of seed 002).
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
const char* kManifest = R"X({
  "host": "node07",
  "collected_at": "2025-05-08T09:56:26+08:00",
  "collector_version": "0.1.0",
  "commands": [
    {"cmd": "npu-smi info", "file": "npu_smi_info.txt", "exit": 0, "seconds": 1.8},
    {"cmd": "modinfo -n drv_pcie_host", "file": "modinfo_n_drv_pcie_host.txt", "exit": 1, "seconds": 0.1},
    {"cmd": "timeout 60s python3 probe.py matmul", "file": "probe_matmul.txt", "exit": 0, "seconds": 9.2},
    {"cmd": "timeout 60s python3 probe.py rng", "file": "probe_rng.txt", "exit": 124, "seconds": 60.0},
    {"cmd": "timeout 10s npu-smi info -t health -i 0", "file": "npu_health_0.txt", "exit": null, "seconds": 10.0, "timed_out": true}
  ]
}
)X";
}  // namespace

TEST_CASE("manifest: host facts and failed commands", "[parse][outputs][manifest]") {
  for (const std::string& text : {std::string(kManifest), crlf(kManifest)}) {
    const auto r = run("manifest", text, "manifest.json");
    INFO(dump(r));
    check_facts(r, {{"host.name", "node07", 2},
                    {"host.collected_at", "2025-05-08T09:56:26+08:00", 3},
                    {"collector.version", "0.1.0", 4},
                    {"probe.matmul.result", "pass", 8},
                    {"probe.rng.result", "timeout", 9}});
    REQUIRE(r.events.size() == 3);
    CHECK(r.events[0].line == 7);
    CHECK(r.events[0].severity == faultline::Severity::warning);
    CHECK(r.events[0].message.find("modinfo -n drv_pcie_host") != std::string::npos);
    CHECK(r.events[1].line == 9);
    CHECK(r.events[1].severity == faultline::Severity::error);
    CHECK(r.events[2].line == 10);
    CHECK(r.events[2].message.find("timed out") != std::string::npos);
    for (const auto& e : r.events) CHECK(e.keep);
    CHECK(r.malformed == 0);
  }
}

TEST_CASE("manifest: not JSON", "[parse][outputs][manifest]") {
  const auto r = run("manifest", "{\"host\": \"node07\", \"commands\": [\n");
  CHECK(r.facts.empty());
  CHECK(r.malformed == 1);
}
