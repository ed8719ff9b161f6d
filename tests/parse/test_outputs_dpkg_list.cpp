// dpkg_list: `dpkg -l` (Debian 12 header) and `dpkg -l | grep ascend`.
// No real `dpkg -l | grep ascend` output exists (log-formats.md 6.1): the Ascend package names
// below follow the HDK naming and are assumptions; the table format is dpkg's own.
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
const char* kDpkg = R"X(Desired=Unknown/Install/Remove/Purge/Hold
| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend
|/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)
||/ Name                           Version             Architecture Description
+++-==============================-===================-============-=========================================
ii  adduser                        3.134               all          add and remove users and groups
ii  ascend-hdk-910b-npu-driver     24.1.0.3            arm64        Ascend HDK 910B NPU driver
ii  ascend-hdk-910b-npu-firmware   7.5.0.1.129         arm64        Ascend HDK 910B NPU firmware
ii  ascend-cann-toolkit            8.0.RC3-1           arm64        Ascend CANN toolkit
rc  ascend-hdk-910b-npu-driver-old 23.0.rc3            arm64        Ascend HDK 910B NPU driver
ii  libc6:arm64                    2.36-9+deb12u4      arm64        GNU C Library: Shared libraries
iU  python3-numpy                  1:1.24.2-1          arm64        Fast array facility
)X";
}  // namespace

TEST_CASE("dpkg_list: installed packages and Ascend versions", "[parse][outputs][dpkg_list]") {
  for (const std::string& text : {std::string(kDpkg), crlf(kDpkg)}) {
    const auto r = run("dpkg_list", text);
    INFO(dump(r));
    check_facts(r, {{"package.deb.adduser", "3.134", 6},
                    {"package.deb.ascend-hdk-910b-npu-driver", "24.1.0.3", 7},
                    {"driver.version.installed", "24.1.0.3", 7},
                    {"firmware.package_version", "7.5.0.1.129", 8},
                    {"package.deb.ascend-cann-toolkit", "8.0.RC3-1", 9},
                    {"cann.version.installed", "8.0.RC3", 9},
                    {"package.deb.libc6", "2.36-9+deb12u4", 11},
                    {"package.deb.python3-numpy", "1:1.24.2-1", 12}});
    // removed package with config files only: not installed
    CHECK_FALSE(has_name(r, "package.deb.ascend-hdk-910b-npu-driver-old"));
    CHECK(values(r, "driver.version.installed").size() == 1);
    // half-installed package: event
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].line == 12);
    CHECK(r.events[0].severity == faultline::Severity::warning);
    CHECK(r.malformed == 0);
  }
}

TEST_CASE("dpkg_list: grep output without header, with a prompt", "[parse][outputs][dpkg_list]") {
  const auto r =
      run("dpkg_list",
          "$ dpkg -l | grep ascend\n"
          "ii  ascend-hdk-910b-npu-driver     24.1.rc3            arm64        Ascend HDK "
          "910B NPU driver\n");
  INFO(dump(r));
  CHECK(line_of(r, "driver.version.installed", "24.1.rc3") == 2);
  CHECK(r.malformed == 0);
}
