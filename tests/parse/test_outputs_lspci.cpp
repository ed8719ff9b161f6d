// lspci: Huawei NPU functions (vendor 19e5, device ids log-formats.md 4.4); `lspci -k` without a
// bound driver (seed 002: the PCI bus still saw the cards, the main driver did not bind).
#include "test_outputs_util.hpp"

using namespace fltest;

TEST_CASE("lspci: NPU functions", "[parse][outputs][lspci]") {
  SECTION("plain, -nn, -n forms; Huawei NIC ignored") {
    const char* t =
        "01:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)\n"
        "0000:c1:00.0 Processing accelerators [1200]: Huawei Technologies Co., Ltd. Device "
        "[19e5:d802] (rev 20)\n"
        "c2:00.0 1200: 19e5:d803 (rev 20)\n"
        "3d:00.0 Ethernet controller: Huawei Technologies Co., Ltd. Hi1822 Family (4*25GE) (rev "
        "45)\n";
    for (const std::string& text : {std::string(t), crlf(t)}) {
      const auto r = run("lspci", text);
      INFO(dump(r));
      check_facts(r, {{"pci.0000:01:00.0.id", "19e5:d802", 1},
                      {"pci.0000:01:00.0.npu_model", "910B", 1},
                      {"pci.0000:c1:00.0.id", "19e5:d802", 2},
                      {"pci.0000:c2:00.0.npu_model", "910_93", 3},
                      {"npu.pci_count", "3", 1}});
      CHECK_FALSE(has_name(r, "pci.0000:3d:00.0.id"));
      CHECK(r.events.empty());
      CHECK(r.malformed == 0);
    }
  }
  SECTION("lspci -k: driver bound vs not bound") {
    const char* t =
        "01:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)\n"
        "\tSubsystem: Huawei Technologies Co., Ltd. Device 3003\n"
        "\tKernel driver in use: devdrv_device_driver\n"
        "\tKernel modules: drv_pcie_host\n"
        "02:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)\n"
        "\tSubsystem: Huawei Technologies Co., Ltd. Device 3003\n"
        "\tKernel modules: drv_pcie_host\n";
    const auto r = run("lspci", t);
    INFO(dump(r));
    check_facts(r, {{"pci.0000:01:00.0.driver", "devdrv_device_driver", 3},
                    {"pci.0000:01:00.0.kernel_modules", "drv_pcie_host", 4},
                    {"pci.0000:02:00.0.driver", "none", 5}});
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].line == 5);
    CHECK(r.events[0].keep);
    CHECK(r.events[0].severity == faultline::Severity::error);
  }
}
