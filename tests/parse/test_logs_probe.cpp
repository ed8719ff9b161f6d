// probe_output: seed 002's minimal device probes (`timeout 60s python3 probe.py matmul|rng`), one
// run per echoed command, its output and `exit status: N` (convention in docs/events.md).
#include <catch2/catch.hpp>
#include <map>

#include "test_logs_util.hpp"

using faultline::Severity;
using faultline::parse::parse_text;

namespace {
std::map<std::string, std::string> facts_of(const faultline::parse::ParseResult& r) {
  std::map<std::string, std::string> m;
  for (const auto& f : r.facts) m[f.name] = f.value;
  return m;
}
}  // namespace

TEST_CASE("probe_output: matmul passes, rng times out", "[logs][probe]") {
  const auto r = parse_text("probe_output",
                            "$ timeout 60s python3 probe.py matmul\n"
                            "256.0\n"
                            "exit status: 0\n"
                            "$ timeout 60s python3 probe.py rng\n"
                            "exit status: 124\n");
  CHECK(r.malformed == 0);
  const auto f = facts_of(r);
  CHECK(f.at("probe.matmul.result") == "pass");
  CHECK(f.at("probe.rng.result") == "timeout");
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].severity == Severity::info);
  CHECK(r.events[0].line_count == 3);
  const auto& rng = r.events[1];
  CHECK(rng.severity == Severity::error);
  CHECK(rng.keep);
  CHECK(rng.line == 4);
  CHECK(rng.line_count == 2);
  CHECK(rng.module == "probe");
  CHECK(rng.message == "probe rng: timeout (exit status 124): timeout 60s python3 probe.py rng");
  CHECK(rng.text == "$ timeout 60s python3 probe.py rng\nexit status: 124");
  REQUIRE(r.facts.size() == 2);
  CHECK(r.facts[1].line == 4);
}

TEST_CASE("probe_output: failures, summary lines, files named after the probe", "[logs][probe]") {
  SECTION("non-zero exit without timeout is a failure") {
    const auto r =
        parse_text("probe_output",
                   "$ python3 probe.py rng\n"
                   "Traceback (most recent call last):\n"
                   "  File \"probe.py\", line 13, in <module>\n"
                   "    torch.npu.synchronize()\n"
                   "RuntimeError: synchronize:../torch_npu/csrc/core/npu/NPUEvent.cpp:212 NPU "
                   "function error: aclrtSynchronizeEvent(event_), error code is 107020\n"
                   "exit status: 1\n");
    CHECK(facts_of(r).at("probe.rng.result") == "fail");
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].line_count == 6);
  }
  SECTION("summary lines") {
    const auto r = parse_text("probe_output", "probe matmul: pass\nprobe rng: timeout\n");
    const auto f = facts_of(r);
    CHECK(f.at("probe.matmul.result") == "pass");
    CHECK(f.at("probe.rng.result") == "timeout");
    REQUIRE(r.events.size() == 2);
    CHECK(r.events[1].severity == Severity::error);
  }
  SECTION("a file without command lines is one run named after the file") {
    const auto r =
        parse_text("probe_output", "probe timed out\nexit code: 124\n", "probes/probe_rng.txt");
    // 124 is the exit status of timeout(1) even when the command line was not echoed
    CHECK(facts_of(r).at("probe.rng.result") == "timeout");
  }
  SECTION("a run cut off without exit status and without errors states nothing") {
    const auto r = parse_text("probe_output", "$ timeout 60s python3 probe.py matmul\n256.0\n");
    CHECK(r.facts.empty());
    CHECK(r.events.empty());
  }
}
