// ulimit and sysctl (seed 000: `ulimit -v`, vm.max_map_count checked while chasing the SVM
// mapping failure).
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
// bash 5.1 `ulimit -a`
const char* kUlimit = R"X(real-time non-blocking time  (microseconds, -R) unlimited
core file size              (blocks, -c) 0
data seg size               (kbytes, -d) unlimited
scheduling priority                 (-e) 0
file size                   (blocks, -f) unlimited
pending signals                     (-i) 1030387
max locked memory           (kbytes, -l) 8192
max memory size             (kbytes, -m) unlimited
open files                          (-n) 1024
pipe size                (512 bytes, -p) 8
POSIX message queues         (bytes, -q) 819200
real-time priority                  (-r) 0
stack size                  (kbytes, -s) 8192
cpu time                   (seconds, -t) unlimited
max user processes                  (-u) 1030387
virtual memory              (kbytes, -v) unlimited
file locks                          (-x) unlimited
)X";
}  // namespace

TEST_CASE("ulimit: -a and bare -v", "[parse][outputs][ulimit]") {
  SECTION("bash ulimit -a") {
    for (const std::string& text : {std::string(kUlimit), crlf(kUlimit)}) {
      const auto r = run("ulimit", text);
      INFO(dump(r));
      check_facts(r, {{"ulimit.virtual_memory", "unlimited", 16},
                      {"ulimit.open_files", "1024", 9},
                      {"ulimit.pipe_size", "8", 10},
                      {"ulimit.scheduling_priority", "0", 4},
                      {"ulimit.real_time_non_blocking_time", "unlimited", 1},
                      {"ulimit.stack_size", "8192", 13}});
      CHECK(r.facts.size() == 17);
      CHECK(r.events.empty());
      CHECK(r.malformed == 0);
    }
  }
  SECTION("a limited address space is an event") {
    std::string t = kUlimit;
    const std::string from = "(kbytes, -v) unlimited";
    t.replace(t.find(from), from.size(), "(kbytes, -v) 1024000");
    const auto r = run("ulimit", t);
    CHECK(has(r, "ulimit.virtual_memory", "1024000"));
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].keep);
    CHECK(r.events[0].line == 16);
  }
  SECTION("zsh form") {
    const auto r = run("ulimit",
                       "-v: address space (kbytes)          unlimited\n-n: file descriptors        "
                       "        1024\n");
    INFO(dump(r));
    check_facts(r, {{"ulimit.virtual_memory", "unlimited", 1}, {"ulimit.open_files", "1024", 2}});
  }
  SECTION("bare ulimit -v after its command, and from the member path") {
    const auto r = run("ulimit", "$ ulimit -v\nunlimited\n");
    check_facts(r, {{"ulimit.virtual_memory", "unlimited", 2}});
    const auto rp = run("ulimit", "unlimited\n", "host_info/ulimit_v.txt");
    check_facts(rp, {{"ulimit.virtual_memory", "unlimited", 1}});
  }
}

TEST_CASE("sysctl: forms", "[parse][outputs][sysctl]") {
  SECTION("sysctl -a excerpt") {
    const char* t =
        "vm.max_map_count = 65530\n"
        "vm.overcommit_memory = 0\n"
        "net.ipv4.tcp_rmem = 4096\t131072\t6291456\n"
        "sysctl: permission denied on key 'fs.protected_fifos'\n";
    const auto r = run("sysctl", t);
    INFO(dump(r));
    check_facts(r, {{"sysctl.vm.max_map_count", "65530", 1},
                    {"sysctl.net.ipv4.tcp_rmem", "4096\t131072\t6291456", 3}});
    CHECK(r.facts.size() == 3);
    CHECK(r.malformed == 0);
  }
  SECTION("sysctl -n after its command") {
    const auto r = run("sysctl", "$ sysctl -n vm.max_map_count\n65530\n");
    check_facts(r, {{"sysctl.vm.max_map_count", "65530", 2}});
  }
  SECTION("/proc/sys file") {
    const auto r = run("sysctl", "262144\n", "proc/sys/vm/max_map_count");
    check_facts(r, {{"sysctl.vm.max_map_count", "262144", 1}});
  }
}
