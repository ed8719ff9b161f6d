// modinfo: full output, bare `-n` and `-F vermagic` outputs named by a preceding command or by the
// member path (seed 002 section 5). Module names: log-formats.md 4.4.
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
const char* kFull =
    "filename:       /lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko\n"
    "version:        24.1.rc3\n"
    "license:        GPL\n"
    "description:    PCIe host driver\n"
    "author:         Huawei Tech. Co., Ltd.\n"
    "srcversion:     8F1C2B0B5E6A1D3C4B2A190\n"
    "depends:        drv_seclib_host,ascend_kernel_open_adapt\n"
    "retpoline:      Y\n"
    "name:           drv_pcie_host\n"
    "vermagic:       5.15.0-91-generic SMP mod_unload modversions aarch64\n"
    "sig_id:         PKCS#7\n"
    "signer:         DKMS module signing key\n"
    "sig_hashalgo:   sha512\n"
    "signature:      5C:2F:8E:11:90:AA:0B:4D:77:12:3E:5F:60:91:C2:D4:\n"
    "\t\t9A:3D:21:0F:BB:47:8C:E2\n"
    "parm:           msi_mode:int\n";
}  // namespace

TEST_CASE("modinfo: full output", "[parse][outputs][modinfo]") {
  for (const std::string& text : {std::string(kFull), crlf(kFull)}) {
    const auto r = run("modinfo", text, "mod_info/modinfo.txt");
    INFO(dump(r));
    check_facts(r, {{"module.drv_pcie_host.resolved_path",
                     "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko", 1},
                    {"module.drv_pcie_host.version", "24.1.rc3", 2},
                    {"module.drv_pcie_host.depends", "drv_seclib_host,ascend_kernel_open_adapt", 7},
                    {"module.drv_pcie_host.vermagic",
                     "5.15.0-91-generic SMP mod_unload modversions aarch64", 10}});
    CHECK(r.malformed == 0);
    CHECK(r.events.empty());
  }
}

TEST_CASE("modinfo: several modules in one member", "[parse][outputs][modinfo]") {
  std::string t = kFull;
  t += "filename:       /lib/modules/5.15.0-91-generic/updates/drv_devmng_host.ko\n"
       "depends:        drv_pcie_host,drv_seclib_host\n"
       "name:           drv_devmng_host\n"
       "vermagic:       5.15.0-91-generic SMP mod_unload modversions aarch64\n";
  const auto r = run("modinfo", t);
  INFO(dump(r));
  check_facts(r, {{"module.drv_devmng_host.resolved_path",
                   "/lib/modules/5.15.0-91-generic/updates/drv_devmng_host.ko", 17},
                  {"module.drv_devmng_host.depends", "drv_pcie_host,drv_seclib_host", 18}});
  CHECK(count(r, "module.drv_pcie_host.resolved_path") == 1);
}

TEST_CASE("modinfo: bare outputs", "[parse][outputs][modinfo]") {
  SECTION("named by the preceding command (seed 002 transcript)") {
    const auto r = run("modinfo",
                       "$ modinfo -n drv_pcie_host\n"
                       "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko\n"
                       "$ modinfo -F vermagic drv_pcie_host\n"
                       "5.15.0-91-generic SMP mod_unload modversions aarch64\n");
    INFO(dump(r));
    check_facts(r, {{"module.drv_pcie_host.resolved_path",
                     "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko", 2},
                    {"module.drv_pcie_host.vermagic",
                     "5.15.0-91-generic SMP mod_unload modversions aarch64", 4}});
    CHECK(r.malformed == 0);
  }
  SECTION("named by the member path") {
    const auto rv = run("modinfo", "5.15.0-91-generic SMP mod_unload modversions aarch64\n",
                        "mod_info/modinfo_F_vermagic_drv_pcie_host.txt");
    INFO(dump(rv));
    CHECK(line_of(rv, "module.drv_pcie_host.vermagic",
                  "5.15.0-91-generic SMP mod_unload modversions aarch64") == 1);
    const auto rn = run("modinfo", "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko\n",
                        "mod_info/modinfo-n_drv_pcie_host.log");
    CHECK(has(rn, "module.drv_pcie_host.resolved_path",
              "/lib/modules/5.15.0-91-generic/updates/dkms/drv_pcie_host.ko"));
    const auto rd = run("modinfo", "5.15.0-91-generic SMP mod_unload modversions aarch64\n",
                        "modinfo/drv_devmng_host.txt");
    CHECK(has(rd, "module.drv_devmng_host.vermagic",
              "5.15.0-91-generic SMP mod_unload modversions aarch64"));
  }
  SECTION("vermagic without any module name is reported, not guessed") {
    const auto r =
        run("modinfo", "5.15.0-91-generic SMP mod_unload modversions aarch64\n", "x.txt");
    CHECK(r.facts.empty());
    CHECK(r.malformed == 1);
  }
  SECTION("module not found: the probe's answer, not an error of the node (issue 36)") {
    const auto r = run(
        "modinfo", "$ modinfo -n drv_pcie_host\nmodinfo: ERROR: Module drv_pcie_host not found.\n");
    INFO(dump(r));
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].severity == faultline::Severity::info);
    CHECK(r.events[0].keep);
    CHECK(r.events[0].line == 2);
  }
}
