// proc_maps: /proc/<pid>/maps (kernel format), pid from the member path, seed 002 `(deleted)`
// CANN library still mapped after the files were replaced.
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
const char* kMaps =
    "aaaab4e00000-aaaab5152000 r-xp 00000000 fd:01 1311112                    /usr/bin/python3.11\n"
    "aaaae1f40000-aaaae1f61000 rw-p 00000000 00:00 0                          [heap]\n"
    "ffff7c200000-ffff7c9e0000 r-xp 00000000 fd:01 2623017                    "
    "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libascendcl.so (deleted)\n"
    "ffff7c9e0000-ffff7c9f0000 r--p 007d0000 fd:01 2623017                    "
    "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libascendcl.so (deleted)\n"
    "ffff7ca00000-ffff7d400000 r-xp 00000000 fd:01 2623101                    "
    "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libhccl.so\n"
    "ffff7e000000-ffff7e100000 r-xp 00000000 fd:01 1445001                    "
    "/usr/local/Ascend/driver/lib64/driver/libascend_hal.so\n"
    "ffff80000000-ffff80010000 rw-s 00000000 00:01 4097                       /memfd:shm "
    "(deleted)\n"
    "ffffb7a00000-ffffb7a21000 rw-p 00000000 00:00 0 \n"
    "fffff7ffd000-fffff7fff000 r-xp 00000000 00:00 0                          [vdso]\n";
}  // namespace

TEST_CASE("proc_maps: mappings, libraries, deleted files, CANN loaded",
          "[parse][outputs][proc_maps]") {
  for (const std::string& text : {std::string(kMaps), crlf(kMaps)}) {
    const auto r = run("proc_maps", text, "proc/12345/maps");
    INFO(dump(r));
    CHECK(count(r, "process.12345.mapping") == 9);
    check_facts(
        r, {{"process.12345.mapping", "aaaab4e00000-aaaab5152000 r-xp /usr/bin/python3.11", 1},
            {"process.12345.mapping", "aaaae1f40000-aaaae1f61000 rw-p [heap]", 2},
            {"process.12345.mapping",
             "ffff7c200000-ffff7c9e0000 r-xp "
             "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libascendcl.so (deleted)",
             3},
            {"process.12345.mapping", "ffffb7a00000-ffffb7a21000 rw-p", 8},
            {"process.12345.library", "/usr/bin/python3.11", 1},
            {"process.12345.library",
             "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libascendcl.so", 3},
            {"process.12345.library", "/usr/local/Ascend/driver/lib64/driver/libascend_hal.so", 6},
            {"process.12345.deleted",
             "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libascendcl.so", 3},
            {"cann.version.loaded", "8.5.0", 3}});
    CHECK(count(r, "process.12345.library") == 4);  // distinct files; [heap], memfd excluded
    CHECK(count(r, "process.12345.deleted") == 1);  // memfd shared memory is not a replaced file
    CHECK(count(r, "cann.version.loaded") == 1);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].keep);
    CHECK(r.events[0].severity == faultline::Severity::error);
    CHECK(r.events[0].pid == 12345);
    CHECK(r.events[0].line == 3);
    CHECK(r.events[0].text.find("(deleted)") != std::string::npos);
    CHECK(r.malformed == 0);
  }
}

TEST_CASE("proc_maps: pid from the member path", "[parse][outputs][proc_maps]") {
  const std::string line =
      "ffff7ca00000-ffff7d400000 r-xp 00000000 fd:01 2623101                    "
      "/usr/local/Ascend/cann-9.1.0/aarch64-linux/lib64/libhccl.so\n";
  struct Case {
    const char* path;
    const char* pid;
  };
  for (const auto& c : std::vector<Case>{{"proc/12345/maps", "12345"},
                                         {"bundle/host/proc/12345/maps", "12345"},
                                         {"process/12345/maps", "12345"},
                                         {"maps_12345.txt", "12345"},
                                         {"diag/pid_12345/maps", "12345"},
                                         {"12345/maps", "12345"},
                                         {"maps.txt", "unknown"}}) {
    SECTION(c.path) {
      const auto r = run("proc_maps", line, c.path);
      INFO(dump(r));
      CHECK(has(r, std::string("process.") + c.pid + ".library",
                "/usr/local/Ascend/cann-9.1.0/aarch64-linux/lib64/libhccl.so"));
      CHECK(has(r, "cann.version.loaded", "9.1.0"));
    }
  }
}

TEST_CASE("proc_maps: seed 002 transcript (rg over /proc/$PID/maps)",
          "[parse][outputs][proc_maps]") {
  const std::string t =
      "$ ASCEND_DIAG_PID=12345\n"
      "$ rg 'libascendcl|libge_|libhccl|libopapi|\\(deleted\\)' \"/proc/$ASCEND_DIAG_PID/maps\"\n"
      "ffff7c200000-ffff7c9e0000 r-xp 00000000 fd:01 2623017                    "
      "/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/lib64/libascendcl.so (deleted)\n"
      "ffff7ca00000-ffff7d400000 r-xp 00000000 fd:01 2623101                    "
      "/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/lib64/libhccl.so\n"
      "/proc/777/maps:ffff6c000000-ffff6c100000 r-xp 00000000 fd:01 2623555        "
      "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libge_runner.so (deleted)\n";
  const auto r = run("proc_maps", t, "diag/maps_grep.txt");
  INFO(dump(r));
  check_facts(r, {{"process.12345.deleted",
                   "/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/lib64/libascendcl.so", 3},
                  {"cann.version.loaded", "latest", 3},
                  {"process.777.deleted",
                   "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libge_runner.so", 5},
                  {"cann.version.loaded", "8.5.0", 5}});
  CHECK(r.events.size() == 2);
  CHECK(r.malformed == 0);
}

TEST_CASE("proc_maps: garbage lines are counted, not fatal", "[parse][outputs][proc_maps]") {
  const auto r = run("proc_maps", "zzzz-yyyy r-xp 0 0 0 /x\n\x01\x02\x03\n", "proc/1/maps");
  CHECK(r.facts.empty());
  CHECK(r.malformed == 2);
}
