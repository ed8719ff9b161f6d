// lsmod and /proc/modules (older HDK module names, log-formats.md 4.4).
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
const char* kLsmod = R"X(Module                  Size  Used by
drv_devdrv_host       614400  0
drv_devmng_host       409600  1 drv_devdrv_host
drv_pcie_host         466944  2 drv_devmng_host,drv_devdrv_host
drv_seclib_host        28672  3 drv_pcie_host,drv_devmng_host,drv_devdrv_host
ip_tables              32768  0
)X";
}  // namespace

TEST_CASE("lsmod: loaded modules", "[parse][outputs][lsmod]") {
  for (const std::string& text : {std::string(kLsmod), crlf(kLsmod)}) {
    const auto r = run("lsmod", text);
    INFO(dump(r));
    check_facts(r, {{"module.drv_devdrv_host.loaded", "size=614400 used_by=", 2},
                    {"module.drv_pcie_host.loaded",
                     "size=466944 used_by=drv_devmng_host,drv_devdrv_host", 4},
                    {"module.ip_tables.loaded", "size=32768 used_by=", 6}});
    CHECK(r.facts.size() == 5);
    CHECK(r.malformed == 0);
  }
}

TEST_CASE("lsmod: grep output and /proc/modules", "[parse][outputs][lsmod]") {
  const auto r =
      run("lsmod",
          "$ lsmod | rg 'ascend|drv_pcie|drv_devmm|davinci'\n"
          "drv_pcie_host         466944  2 drv_devmng_host,drv_devdrv_host\n"
          "drv_pcie_host 466944 2 drv_devmng_host,drv_devdrv_host, Live 0x0000000000000000 (OE)\n"
          "drv_seclib_host 28672 0 - Live 0x0000000000000000 (OE)\n");
  INFO(dump(r));
  CHECK(values(r, "module.drv_pcie_host.loaded") ==
        std::vector<std::string>{"size=466944 used_by=drv_devmng_host,drv_devdrv_host",
                                 "size=466944 used_by=drv_devmng_host,drv_devdrv_host"});
  CHECK(line_of(r, "module.drv_seclib_host.loaded", "size=28672 used_by=") == 4);
  CHECK(r.malformed == 0);
}
