// ls_listing: ls -l / ls -lR / readlink -f (GNU coreutils formats). Seed 002: updates/dkms holds
// links to an older install directory while updates/ holds the fresh modules.
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
const char* kDkms =
    "$ ls -l /lib/modules/5.15.0-91-generic/updates/dkms\n"
    "total 0\n"
    "lrwxrwxrwx 1 root root 62 Mar 29 04:11 drv_pcie_host.ko -> "
    "/usr/local/Ascend.bak/driver_24.1.rc3/kernel/drv_pcie_host.ko\n"
    "lrwxrwxrwx 1 root root 64 Mar 29 04:11 drv_seclib_host.ko -> "
    "/usr/local/Ascend.bak/driver_24.1.rc3/kernel/drv_seclib_host.ko\n";

const char* kRecursive = R"X($ ls -lR /lib/modules/5.15.0-91-generic/updates
/lib/modules/5.15.0-91-generic/updates:
total 2176
drwxr-xr-x 2 root root    4096 Mar 29 04:11 dkms
-rw-r--r-- 1 root root 1954816 Jun  3  2026 drv_pcie_host.ko
-rw-r--r-- 1 root root   90112 Jun  3  2026 drv_seclib_host.ko

/lib/modules/5.15.0-91-generic/updates/dkms:
total 0
lrwxrwxrwx 1 root root 62 Mar 29 04:11 drv_pcie_host.ko -> /usr/local/Ascend.bak/driver_24.1.rc3/kernel/drv_pcie_host.ko
)X";
}  // namespace

TEST_CASE("ls_listing: ls -l of a directory named by the command", "[parse][outputs][ls_listing]") {
  for (const std::string& text : {std::string(kDkms), crlf(kDkms)}) {
    const auto r = run("ls_listing", text);
    INFO(dump(r));
    check_facts(r,
                {{"fs./lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko",
                  "symlink:/usr/local/Ascend.bak/driver_24.1.rc3/kernel/drv_pcie_host.ko", 3},
                 {"fs./lib/modules/5.15.0-91-generic/updates/dkms/drv_seclib_host.ko",
                  "symlink:/usr/local/Ascend.bak/driver_24.1.rc3/kernel/drv_seclib_host.ko", 4}});
    // plus the complete listing: `total 0` then two entries (docs/facts.md "Complete listings")
    check_facts(r, {{"dir.entries./lib/modules/5.15.0-91-generic/updates/dkms", "2", 2}});
    CHECK(r.facts.size() == 3);
    CHECK(r.malformed == 0);
  }
}

TEST_CASE("ls_listing: ls -lR with directory headers", "[parse][outputs][ls_listing]") {
  const auto r = run("ls_listing", kRecursive);
  INFO(dump(r));
  check_facts(r, {{"fs./lib/modules/5.15.0-91-generic/updates/dkms", "dir", 4},
                  {"fs./lib/modules/5.15.0-91-generic/updates/drv_pcie_host.ko", "file", 5},
                  {"fs./lib/modules/5.15.0-91-generic/updates/drv_seclib_host.ko", "file", 6},
                  {"fs./lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko",
                   "symlink:/usr/local/Ascend.bak/driver_24.1.rc3/kernel/drv_pcie_host.ko", 10}});
  CHECK(r.malformed == 0);
}

TEST_CASE("ls_listing: CANN latest link, readlink, devices, time styles",
          "[parse][outputs][ls_listing]") {
  SECTION("ls -l of the toolkit directory") {
    const auto r = run("ls_listing",
                       "$ ls -l /usr/local/Ascend/ascend-toolkit/\n"
                       "total 12\n"
                       "drwxr-xr-x 6 root root 4096 May  8 09:30 8.5.0\n"
                       "drwxr-xr-x 2 root root 4096 May  8 09:30 9.1.0\n"
                       "lrwxrwxrwx 1 root root    5 May  8 09:31 latest -> 8.5.0\n"
                       "-rw-r--r-- 1 root root 1234 May  8 09:31 set_env.sh\n");
    INFO(dump(r));
    check_facts(r, {{"fs./usr/local/Ascend/ascend-toolkit/8.5.0", "dir", 3},
                    {"fs./usr/local/Ascend/ascend-toolkit/latest", "symlink:8.5.0", 5},
                    {"cann.latest_target", "/usr/local/Ascend/ascend-toolkit/8.5.0", 5},
                    {"fs./usr/local/Ascend/ascend-toolkit/set_env.sh", "file", 6}});
  }
  SECTION("separate options before the directory (ls -l -t DIR)") {
    const auto r = run("ls_listing",
                       "$ ls -l -t /usr/local/Ascend/ascend-toolkit\n"
                       "lrwxrwxrwx 1 root root    5 May  8 09:31 latest -> 8.5.0\n");
    CHECK(has(r, "cann.latest_target", "/usr/local/Ascend/ascend-toolkit/8.5.0"));
  }
  SECTION("readlink -f (seed 002)") {
    const auto r = run("ls_listing",
                       "$ readlink -f /usr/local/Ascend/ascend-toolkit/latest\n"
                       "/usr/local/Ascend/ascend-toolkit/8.5.0\n");
    INFO(dump(r));
    check_facts(r, {{"cann.latest_target", "/usr/local/Ascend/ascend-toolkit/8.5.0", 2},
                    {"fs./usr/local/Ascend/ascend-toolkit/latest",
                     "symlink:/usr/local/Ascend/ascend-toolkit/8.5.0", 2}});
  }
  SECTION("device nodes present and missing") {
    const auto r =
        run("ls_listing",
            "$ ls -l /dev/davinci*\n"
            "crw-rw---- 1 HwHiAiUser HwHiAiUser 236, 0 May  8 07:10 /dev/davinci0\n"
            "crw-rw---- 1 HwHiAiUser HwHiAiUser 237, 0 May  8 07:10 /dev/davinci_manager\n"
            "ls: cannot access '/dev/davinci1': No such file or directory\n");
    INFO(dump(r));
    check_facts(r, {{"fs./dev/davinci0", "chardev", 2},
                    {"fs./dev/davinci_manager", "chardev", 3},
                    {"fs./dev/davinci1", "missing", 4}});
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].keep);
    CHECK(r.events[0].severity == faultline::Severity::warning);
  }
  SECTION("long-iso, full-iso and zh_CN dates") {
    const auto r = run("ls_listing",
                       "$ ls -l --time-style=long-iso /usr/local/Ascend/ascend-toolkit\n"
                       "lrwxrwxrwx 1 root root 5 2025-05-08 09:31 latest -> 9.1.0\n"
                       "-rw-r--r--. 1 root root 0 2025-05-08 09:56:26.123456789 +0800 my file.txt\n"
                       "drwxr-xr-x 2 root root 4096 3\xe6\x9c\x88 29 04:11 dkms\n");
    INFO(dump(r));
    check_facts(r, {{"cann.latest_target", "/usr/local/Ascend/ascend-toolkit/9.1.0", 2},
                    {"fs./usr/local/Ascend/ascend-toolkit/my file.txt", "file", 3},
                    {"fs./usr/local/Ascend/ascend-toolkit/dkms", "dir", 4}});
    CHECK(r.malformed == 0);
  }
}
