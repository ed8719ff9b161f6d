// pip_list: pip list table, pip freeze, pip show blocks (seed 002: `python3 -m pip show torch
// torch_npu torchvision`), pip list --format=json. Versions from seed 002 and log-formats.md 7.
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
const char* kList = R"X(Package                  Version
------------------------ -------------------
numpy                    1.26.4
torch                    2.9.0
torch-npu                2.9.0.post6
torchvision              0.24.0
zope.interface           6.4
)X";

const char* kFreeze = R"X(numpy==1.26.4
torch==2.8.0
torch_npu==2.8.0.post2
torch-npu @ file:///tmp/torch_npu-2.8.0.post2-cp311-cp311-linux_aarch64.whl
-e git+https://example.invalid/repo.git@abc#egg=mypkg
)X";

const char* kShow = R"X($ python3 -m pip show torch torch_npu torchvision
Name: torch
Version: 2.9.0
Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration
Home-page: https://pytorch.org/
Author: PyTorch Team
Author-email: packages@pytorch.org
License: BSD-3-Clause
Location: /usr/local/lib/python3.11/site-packages
Requires: filelock, fsspec, jinja2, networkx, sympy, typing-extensions
Required-by: torch_npu
---
Name: torch_npu
Version: 2.9.0.post6
Summary: NPU bridge for PyTorch
Home-page: https://gitee.com/ascend/pytorch
Author: PyTorch Team
Author-email: pytorch@huawei.com
License: BSD License
Location: /usr/local/lib/python3.11/site-packages
Requires: 
Required-by: 
WARNING: Package(s) not found: torchvision
)X";
}  // namespace

TEST_CASE("pip_list: list, freeze, show", "[parse][outputs][pip_list]") {
  SECTION("pip list") {
    const auto r = run("pip_list", kList);
    INFO(dump(r));
    check_facts(r, {{"torch.version", "2.9.0", 4},
                    {"torch_npu.version", "2.9.0.post6", 5},
                    {"torchvision.version", "0.24.0", 6},
                    {"package.pip.torch-npu", "2.9.0.post6", 5},
                    {"package.pip.zope-interface", "6.4", 7}});
    CHECK(r.malformed == 0);
    CHECK(r.events.empty());
    check_facts(run("pip_list", crlf(kList)), {{"torch_npu.version", "2.9.0.post6", 5}});
  }
  SECTION("pip freeze") {
    const auto r = run("pip_list", kFreeze);
    INFO(dump(r));
    check_facts(r, {{"torch.version", "2.8.0", 2},
                    {"torch_npu.version", "2.8.0.post2", 3},
                    {"package.pip.torch-npu", "2.8.0.post2", 3}});
    CHECK(values(r, "torch_npu.version").size() == 1);  // the `@ file://` line has no version
    CHECK(r.malformed == 0);
  }
  SECTION("pip show with a missing package") {
    const auto r = run("pip_list", kShow);
    INFO(dump(r));
    check_facts(r, {{"torch.version", "2.9.0", 3}, {"torch_npu.version", "2.9.0.post6", 14}});
    CHECK_FALSE(has_name(r, "torchvision.version"));
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].line == 23);
    CHECK(r.events[0].message.find("torchvision") != std::string::npos);
    CHECK(r.malformed == 0);
  }
  SECTION("nightly wheel version (vllm-ascend #1875)") {
    const auto r = run("pip_list", "torch-npu==2.5.1.post1.dev20250619\n");
    CHECK(has(r, "torch_npu.version", "2.5.1.post1.dev20250619"));
  }
  SECTION("pip list --format=json") {
    const auto r = run(
        "pip_list",
        R"([{"name": "torch", "version": "2.9.0"}, {"name": "torch_npu", "version": "2.9.0.post6"}])");
    INFO(dump(r));
    CHECK(has(r, "torch.version", "2.9.0"));
    CHECK(has(r, "package.pip.torch-npu", "2.9.0.post6"));
  }
}
