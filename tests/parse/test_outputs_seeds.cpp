// The evidence chains of the two seed incidents, read member by member as a bundle would hold
// them: the facts the correlator compares must all be stated, with their lines.
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
std::string first(const ParseResult& r, std::string_view name) {
  auto v = values(r, name);
  return v.empty() ? std::string() : v.front();
}
}  // namespace

TEST_CASE("seed 000: driver version loaded differs from installed", "[parse][outputs][seeds]") {
  // npu-smi shows 24.1.rc3 while the installed package is 24.1.0.3 (seed 000 section 5)
  const auto smi = run("npu_smi_info",
                       "| npu-smi 24.1.rc3                 Version: 24.1.rc3                       "
                       "                      |\n",
                       "npu_info_log/card_info.log");
  const auto ver = run("version_info",
                       "Version=24.1.0.3\nInnerversion=V100R001C19SPC002B220\n"
                       "package_version=24.1.0.3\n",
                       "usr/local/Ascend/driver/version.info");
  const auto ulim = run("ulimit", "$ ulimit -v\nunlimited\n");
  const auto sysctl = run("sysctl", "vm.max_map_count = 65530\n");
  CHECK(line_of(smi, "driver.version.loaded", "24.1.rc3") == 1);
  CHECK(line_of(ver, "driver.version.installed", "24.1.0.3") == 1);
  CHECK(first(smi, "driver.version.loaded") != first(ver, "driver.version.installed"));
  CHECK(has(ulim, "ulimit.virtual_memory", "unlimited"));
  CHECK(has(sysctl, "sysctl.vm.max_map_count", "65530"));
  CHECK(ulim.events.empty());
}

TEST_CASE("seed 002: stale DKMS link, deleted CANN library, env at a missing CANN",
          "[parse][outputs][seeds]") {
  const auto uname = run("uname", "$ uname -r\n5.15.0-91-generic\n");
  const auto modinfo = run("modinfo",
                           "$ modinfo -n drv_pcie_host\n"
                           "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko\n"
                           "$ modinfo -F vermagic drv_pcie_host\n"
                           "5.15.0-91-generic SMP mod_unload modversions aarch64\n");
  const auto modprobe =
      run("modprobe",
          "$ modprobe -n -v drv_pcie_host\n"
          "insmod /lib/modules/5.15.0-91-generic/updates/dkms/drv_seclib_host.ko \n"
          "insmod /lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko \n");
  const auto ls = run("ls_listing",
                      "$ ls -lR /lib/modules/5.15.0-91-generic/updates\n"
                      "/lib/modules/5.15.0-91-generic/updates:\n"
                      "total 2176\n"
                      "drwxr-xr-x 2 root root    4096 Mar 29 04:11 dkms\n"
                      "-rw-r--r-- 1 root root 1954816 Jun  3  2026 drv_pcie_host.ko\n"
                      "\n"
                      "/lib/modules/5.15.0-91-generic/updates/dkms:\n"
                      "total 0\n"
                      "lrwxrwxrwx 1 root root 62 Mar 29 04:11 drv_pcie_host.ko -> "
                      "/usr/local/Ascend.bak/driver_24.1.rc3/kernel/drv_pcie_host.ko\n");
  const auto maps =
      run("proc_maps",
          "ffff7c200000-ffff7c9e0000 r-xp 00000000 fd:01 2623017                    "
          "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libascendcl.so (deleted)\n",
          "proc/12345/maps");
  const auto env = run("environ",
                       "ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1\n"
                       "ASCEND_OPP_PATH=/usr/local/Ascend/ascend-toolkit/8.5.1/opp\n",
                       "proc/12345/environ");
  const auto installed =
      run("version_info", "package_name=Ascend-cann-toolkit\nversion=8.5.0\n",
          "usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/ascend_toolkit_install.info");
  const auto pip = run("pip_list", "torch==2.8.0\ntorch_npu==2.8.0.post4\n");

  // what the tools resolve: a path under updates/dkms ...
  const std::string resolved = first(modinfo, "module.drv_pcie_host.resolved_path");
  CHECK(resolved == "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko");
  CHECK(has(modprobe, "module.drv_pcie_host.resolved_path", resolved));
  CHECK(has(modprobe, "module.drv_pcie_host.depends", "drv_seclib_host"));
  // ... which the listing shows to be a link into an old install, while a fresh file sits in
  // updates/
  CHECK(first(ls, "fs." + resolved) ==
        "symlink:/usr/local/Ascend.bak/driver_24.1.rc3/kernel/drv_pcie_host.ko");
  CHECK(has(ls, "fs./lib/modules/5.15.0-91-generic/updates/drv_pcie_host.ko", "file"));
  // vermagic equals the running kernel: it does not rule the stale link out
  const std::string vermagic = first(modinfo, "module.drv_pcie_host.vermagic");
  CHECK(vermagic.rfind(first(uname, "kernel.release") + " ", 0) == 0);
  // the process maps a CANN library that was replaced on disk
  CHECK(has(maps, "process.12345.deleted",
            "/usr/local/Ascend/ascend-toolkit/8.5.0/aarch64-linux/lib64/libascendcl.so"));
  CHECK(has(maps, "cann.version.loaded", "8.5.0"));
  REQUIRE(maps.events.size() == 1);
  CHECK(maps.events[0].keep);
  // the environment names 8.5.1, the installed set holds 8.5.0 only
  CHECK(values(env, "cann.version.env") == std::vector<std::string>{"8.5.1"});
  CHECK(values(installed, "cann.version.installed") == std::vector<std::string>{"8.5.0"});
  CHECK(has(installed, "cann.install_path", "/usr/local/Ascend/ascend-toolkit/8.5.0"));
  // torch_npu 2.8.0.post4 belongs to CANN 9.0.0 while the process loads 8.5.0 (log-formats.md 7)
  CHECK(has(pip, "torch_npu.version", "2.8.0.post4"));
}
