// uname: uname -a / -r / -n, hostname, /proc/version, hostnamectl. Host "ubuntu78" and kernel
// 5.4.0-125-generic are those of the real asys sample (syslog host, install log kernel check).
#include "test_outputs_util.hpp"

using namespace fltest;

TEST_CASE("uname: forms", "[parse][outputs][uname]") {
  struct Case {
    const char* name;
    std::string text;
    std::string path;
    std::vector<F> want;
    std::vector<std::string> absent;
  };
  const std::vector<Case> cases = {
      {"uname -a",
       "Linux ubuntu78 5.4.0-125-generic #141-Ubuntu SMP Wed Aug 10 13:44:03 UTC 2022 aarch64 "
       "aarch64 aarch64 GNU/Linux\n",
       "",
       {{"host.name", "ubuntu78", 1}, {"kernel.release", "5.4.0-125-generic", 1}},
       {}},
      {"uname -r after a banner (seed 002)",
       "==> uname -r <==\n5.15.0-91-generic\n",
       "",
       {{"kernel.release", "5.15.0-91-generic", 2}},
       {"host.name"}},
      {"uname -r alone",
       "4.19.90-52.22.v2207.ky10.aarch64\n",
       "uname_r.txt",
       {{"kernel.release", "4.19.90-52.22.v2207.ky10.aarch64", 1}},
       {}},
      {"hostname command", "$ hostname\nnode07\n", "", {{"host.name", "node07", 2}}, {}},
      {"hostname under a collector header",
       "==> hostname <==\nnode07\n",
       "",
       {{"host.name", "node07", 2}},
       {"kernel.release"}},
      {"cat /etc/hostname",
       "==> cat /etc/hostname <==\nnode07\n",
       "",
       {{"host.name", "node07", 2}},
       {}},
      {"hostname file",
       "node07\n",
       "etc/hostname",
       {{"host.name", "node07", 1}},
       {"kernel.release"}},
      {"/proc/version",
       "Linux version 5.15.0-91-generic (buildd@bos02-arm64-035) (gcc (Ubuntu "
       "11.4.0-1ubuntu1~22.04) "
       "11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #101-Ubuntu SMP Tue Nov 14 13:29:11 UTC "
       "2023\n",
       "proc/version",
       {{"kernel.release", "5.15.0-91-generic", 1}},
       {"host.name"}},
      {"hostnamectl",
       "   Static hostname: node07\n         Icon name: computer-server\n"
       "  Operating System: Ubuntu 22.04.4 LTS\n            Kernel: Linux 5.15.0-91-generic\n"
       "      Architecture: arm64\n",
       "",
       {{"host.name", "node07", 1},
        {"kernel.release", "5.15.0-91-generic", 4},
        {"host.os", "Ubuntu 22.04.4 LTS", 3},
        {"host.arch", "arm64", 5}},
       {}},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      const auto r = run("uname", c.text, c.path);
      INFO(dump(r));
      check_facts(r, c.want);
      for (const auto& a : c.absent) CHECK_FALSE(has_name(r, a));
      check_facts(run("uname", crlf(c.text), c.path), c.want);
    }
  }
}
