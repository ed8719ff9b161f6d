// version_info: version files of log-formats.md 6.3 (verbatim blocks); the member path tells the
// component.
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {

const char* kDriver241 = R"X(Version=24.1.rc1
ascendhal_version=7.35.19
aicpu_version=1.0
tdt_version=1.0
log_version=1.0
prof_version=2.0
dvppkernels_version=1.1
tsfw_version=1.0
Innerversion=V100R001C15SPC006B220
compatible_version=[V100R001C30],[V100R001C13],[V100R001C15],[V100R001C17]
compatible_version_fw=[7.0.0,7.2.99]
)X";

const char* kDriver250 = R"X(Version=25.0.rc1.1
ascendhal_version=7.35.23
Innerversion=V100R001C21SPC002B220
compatible_version=[V100R001C17],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21]
compatible_version_fw=[7.0.0,7.7.99]
package_version=25.0.rc1.1
)X";

const char* kFirmware = R"X(Version=7.1.0.11.220
firmware_version=1.0
package_version=23.0.7
compatible_version_drv=[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]
)X";

const char* kFirmware2 = R"X(Version=7.7.0.1.231
firmware_version=1.0
package_version=25.0.rc1.1
compatible_version_drv=[23.0.0,23.0.0.],[24.0,24.0.],[24.1,24.1.],[25.0,25.0.]
)X";

const char* kToolkitInstall = R"X(package_name=Ascend-cann-toolkit
version=8.1.RC1
innerversion=V100R001C21SPC001B238
compatible_version=[V100R001C15],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21]
arch=aarch64
os=linux
path=/usr/local/Ascend/ascend-toolkit/8.1.RC1/aarch64-linux
)X";

const char* kVersionCfg = R"X(# version: 1.0
runtime_running_version=[7.5.0.1.129:8.0.RC3]
compiler_running_version=[7.5.0.1.129:8.0.RC3]
opp_running_version=[7.5.0.1.129:8.0.RC3]
)X";

// /etc/ascend_install.info: keys written by driver_install.sh updateInstallInfo (no verbatim file
// was found, log-formats.md 6.3; the values are the installer defaults)
const char* kEtcInstallInfo = R"X(UserName=HwHiAiUser
UserGroup=HwHiAiUser
Driver_Install_Type=full
Driver_Install_Path_Param=/usr/local/Ascend
Driver_Install_For_All=no
Driver_Install_Mode=normal
)X";

}  // namespace

TEST_CASE("version_info: files named by their path", "[parse][outputs][version_info]") {
  struct Case {
    const char* name;
    std::string text;
    std::string path;
    std::vector<F> want;
    std::vector<std::string> absent;
  };
  const std::vector<Case> cases = {
      {"driver 24.1.rc1",
       kDriver241,
       "usr/local/Ascend/driver/version.info",
       {{"driver.version.installed", "24.1.rc1", 1},
        {"driver.innerversion", "V100R001C15SPC006B220", 9},
        {"driver.compatible_version", "[V100R001C30],[V100R001C13],[V100R001C15],[V100R001C17]",
         10},
        {"driver.compatible_firmware", "[7.0.0,7.2.99]", 11}},
       {"firmware.version", "cann.version.installed"}},
      {"driver 25.0.rc1.1 with package_version",
       kDriver250,
       "host/driver/version.info",
       {{"driver.version.installed", "25.0.rc1.1", 1},
        {"driver.version.installed", "25.0.rc1.1", 6}},
       {}},
      {"firmware 23.0.7",
       kFirmware,
       "usr/local/Ascend/firmware/version.info",
       {{"firmware.version", "7.1.0.11.220", 1},
        {"firmware.package_version", "23.0.7", 3},
        {"firmware.compatible_driver", "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]", 4}},
       {"driver.version.installed"}},
      {"firmware sniffed from content (flat name)",
       kFirmware2,
       "install_info/fw_ver.txt",
       {{"firmware.version", "7.7.0.1.231", 1}, {"firmware.package_version", "25.0.rc1.1", 3}},
       {}},
      {"driver sniffed from content (flat name)",
       kDriver241,
       "install_info/ver.txt",
       {{"driver.version.installed", "24.1.rc1", 1}},
       {}},
      {"toolkit install info",
       kToolkitInstall,
       "usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info",
       {{"cann.version.installed", "8.1.RC1", 2},
        {"cann.install_path", "/usr/local/Ascend/ascend-toolkit/8.1.RC1", 7},
        {"cann.innerversion", "V100R001C21SPC001B238", 3},
        {"package.run.ascend-cann-toolkit", "8.1.RC1", 2}},
       {}},
      {"version.cfg under latest (no install path: latest is a link)",
       kVersionCfg,
       "usr/local/Ascend/ascend-toolkit/latest/version.cfg",
       {{"cann.version.installed", "8.0.RC3", 2}, {"cann.innerversion", "7.5.0.1.129", 2}},
       {"cann.install_path"}},
      {"version.cfg under a version dir",
       kVersionCfg,
       "usr/local/Ascend/ascend-toolkit/8.0.RC3/version.cfg",
       {{"cann.version.installed", "8.0.RC3", 2},
        {"cann.install_path", "/usr/local/Ascend/ascend-toolkit/8.0.RC3", 2}},
       {}},
      {"toolkit/version.info (CANN 8.2.RC1)",
       "Version=8.2.0.0.201\nversion_dir=8.2.RC1\ntimestamp=20250724_194044950\n",
       "usr/local/Ascend/ascend-toolkit/latest/toolkit/version.info",
       {{"cann.version.installed", "8.2.RC1", 2}},
       {"cann.install_path"}},
      {"runtime/version.info (CANN 9.0.0)",
       "Version=9.0.0\n",
       "usr/local/Ascend/cann-9.0.0/runtime/version.info",
       {{"cann.version.installed", "9.0.0", 1},
        {"cann.install_path", "/usr/local/Ascend/cann-9.0.0", 1}},
       {}},
      {"/etc/ascend_install.info",
       kEtcInstallInfo,
       "etc/ascend_install.info",
       {{"driver.install_path", "/usr/local/Ascend", 4}, {"driver.install_type", "full", 3}},
       {"cann.version.installed"}},
      {"nnal/atb listing",
       "    Ascend-cann-atb : 8.2.RC1\n    Ascend-cann-atb Version : 8.2.RC1.B150\n",
       "nnal/version.txt",
       {{"package.run.ascend-cann-atb", "8.2.RC1", 1}},
       {}},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      const auto r = run("version_info", c.text, c.path);
      INFO(dump(r));
      check_facts(r, c.want);
      for (const auto& a : c.absent) CHECK_FALSE(has_name(r, a));
      CHECK(r.malformed == 0);
      const auto rc = run("version_info", crlf(c.text), c.path);
      check_facts(rc, c.want);
    }
  }
}

TEST_CASE("version_info: several files in one member", "[parse][outputs][version_info]") {
  SECTION("tail-style headers name each file") {
    std::string t = "==> /usr/local/Ascend/driver/version.info <==\n";
    t += kDriver250;
    t += "\n==> /usr/local/Ascend/firmware/version.info <==\n";
    t += kFirmware2;
    t += "\n==> /usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/ascend_toolkit_install.info "
         "<==\n"
         "package_name=Ascend-cann-toolkit\nversion=8.5.0\n";
    const auto r = run("version_info", t, "install_info/install_info.md");
    INFO(dump(r));
    check_facts(r, {{"driver.version.installed", "25.0.rc1.1", 2},
                    {"firmware.version", "7.7.0.1.231", 10},
                    {"firmware.package_version", "25.0.rc1.1", 12},
                    {"cann.version.installed", "8.5.0", 17},
                    {"cann.install_path", "/usr/local/Ascend/ascend-toolkit/8.5.0", 17}});
    CHECK(values(r, "driver.version.installed").size() == 2);  // Version= and package_version=
    CHECK_FALSE(has(r, "driver.version.installed", "7.7.0.1.231"));
    CHECK(r.malformed == 0);
  }
  SECTION("cat of two files without headers: a repeated key starts the next file") {
    std::string t = kDriver241;
    t += kFirmware;
    const auto r = run("version_info", t, "version_info.log");
    INFO(dump(r));
    CHECK(line_of(r, "driver.version.installed", "24.1.rc1") == 1);
    CHECK(line_of(r, "firmware.version", "7.1.0.11.220") == 12);
    CHECK_FALSE(has(r, "driver.version.installed", "7.1.0.11.220"));
  }
  SECTION("version_info.log of npu_log_collect.sh also holds the npu-smi table") {
    std::string t =
        "| npu-smi 24.1.rc3                 Version: 24.1.rc3                                      "
        "       |\n";
    t += kDriver241;
    const auto r = run("version_info", t, "version_info.log");
    INFO(dump(r));
    CHECK(line_of(r, "driver.version.loaded", "24.1.rc3") == 1);
    CHECK(line_of(r, "driver.version.installed", "24.1.rc1") == 2);
  }
}
