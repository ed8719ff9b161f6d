// modprobe: `modprobe -n -v` and `modprobe --show-depends` (insmod lines, seed 002 section 5).
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
const char* kDryRun =
    "$ modprobe -n -v drv_pcie_host\n"
    "insmod /lib/modules/5.15.0-91-generic/updates/dkms/drv_seclib_host.ko \n"
    "insmod /lib/modules/5.15.0-91-generic/updates/dkms/ascend_kernel_open_adapt.ko \n"
    "insmod /lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko \n"
    "$ modprobe --show-depends drv_pcie_host\n"
    "insmod /lib/modules/5.15.0-91-generic/updates/dkms/drv_seclib_host.ko \n"
    "insmod /lib/modules/5.15.0-91-generic/updates/dkms/ascend_kernel_open_adapt.ko \n"
    "insmod /lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko \n";
}  // namespace

TEST_CASE("modprobe: resolved paths and dependency chain", "[parse][outputs][modprobe]") {
  for (const std::string& text : {std::string(kDryRun), crlf(kDryRun)}) {
    const auto r = run("modprobe", text);
    INFO(dump(r));
    check_facts(r,
                {{"module.drv_pcie_host.resolved_path",
                  "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko", 4},
                 {"module.drv_seclib_host.resolved_path",
                  "/lib/modules/5.15.0-91-generic/updates/dkms/drv_seclib_host.ko", 2},
                 {"module.drv_pcie_host.depends", "drv_seclib_host,ascend_kernel_open_adapt", 4},
                 {"module.drv_pcie_host.depends", "drv_seclib_host,ascend_kernel_open_adapt", 8}});
    CHECK(count(r, "module.drv_pcie_host.resolved_path") == 2);
    CHECK(count(r, "module.drv_pcie_host.depends") == 2);
    CHECK(r.malformed == 0);
    CHECK(r.events.empty());
  }
}

TEST_CASE("modprobe: target from the member path, errors", "[parse][outputs][modprobe]") {
  SECTION("path names the target") {
    const auto r = run("modprobe",
                       "insmod /lib/modules/5.15.0-91-generic/updates/dkms/drv_seclib_host.ko \n"
                       "insmod /lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko \n",
                       "mod_info/modprobe_show_depends_drv_pcie_host.txt");
    INFO(dump(r));
    CHECK(line_of(r, "module.drv_pcie_host.depends", "drv_seclib_host") == 2);
  }
  SECTION("module without dependencies") {
    const auto r = run("modprobe",
                       "$ modprobe -n -v drv_seclib_host\n"
                       "insmod /lib/modules/5.15.0-91-generic/updates/dkms/drv_seclib_host.ko \n");
    CHECK(line_of(r, "module.drv_seclib_host.depends", "") == 2);
  }
  SECTION("FATAL and ERROR lines") {
    const auto r = run(
        "modprobe",
        "modprobe: FATAL: Module drv_pcie_host not found in directory "
        "/lib/modules/5.15.0-91-generic\n"
        "modprobe: ERROR: could not insert 'drv_pcie_host': Unknown symbol in module, or unknown "
        "parameter (see dmesg)\n");
    INFO(dump(r));
    REQUIRE(r.events.size() == 2);
    for (const auto& e : r.events) CHECK(e.keep);
    // a dry run's "not found" is the probe's answer (issue 36); a failed insert is an error
    CHECK(r.events[0].severity == faultline::Severity::info);
    CHECK(r.events[1].severity == faultline::Severity::error);
    CHECK(r.events[1].message.find("Unknown symbol") != std::string::npos);
  }
}
