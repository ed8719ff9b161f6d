// rpm_list: rpm -qa (name-version-release.arch), dnf "Installed:" list (log-formats.md 6.1),
// rpm -qi blocks.
#include "test_outputs_util.hpp"

using namespace fltest;

TEST_CASE("rpm_list: forms", "[parse][outputs][rpm_list]") {
  struct Case {
    const char* name;
    std::string text;
    std::vector<F> want;
  };
  const std::vector<Case> cases = {
      {"rpm -qa",
       "kernel-4.19.90-52.22.v2207.ky10.aarch64\n"
       "Ascend910B-driver-25.5.2-1.aarch64\n"
       "gpg-pubkey-e2ec1a40-5e7dc4a2\n",
       {{"package.rpm.kernel", "4.19.90-52.22.v2207.ky10", 1},
        {"package.rpm.ascend910b-driver", "25.5.2-1", 2},
        {"driver.version.installed", "25.5.2", 2}}},
      {"dnf install transcript",
       "Installed:\n  Ascend910B-driver-25.5.2-1.aarch64\n\nComplete!\n",
       {{"driver.version.installed", "25.5.2", 2}}},
      {"dnf list installed",
       "Ascend910B-driver.aarch64              25.5.2-1               @System\n",
       {{"package.rpm.ascend910b-driver", "25.5.2-1", 1},
        {"driver.version.installed", "25.5.2", 1}}},
      {"rpm -qi",
       "Name        : Ascend910B-driver\nVersion     : 25.5.2\nRelease     : 1\nArchitecture: "
       "aarch64\n",
       {{"package.rpm.ascend910b-driver", "25.5.2-1", 2},
        {"driver.version.installed", "25.5.2", 2}}},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      const auto r = run("rpm_list", c.text);
      check_facts(r, c.want);
      check_facts(run("rpm_list", crlf(c.text)), c.want);
      CHECK(r.events.empty());
    }
  }
}

TEST_CASE("rpm_list: gpg keys are packages too, nonsense is malformed",
          "[parse][outputs][rpm_list]") {
  const auto r = run("rpm_list", "gpg-pubkey-e2ec1a40-5e7dc4a2\nthis is not a package\n");
  INFO(dump(r));
  CHECK(values(r, "driver.version.installed").empty());
  CHECK(r.malformed == 1);
}
