// Issue 33 item 3: where a premise cannot be read, the report says which sources were looked for
// and not found. An unexplained symptom lists, in its `missing` ("Looked for, not found"), each
// root cause that could explain it on that host and the premises of that cause the bundle did
// not state, so that an engineer knows what to collect.
#include <catch2/catch.hpp>

#include "faultline/correlate/correlate.hpp"
#include "fixture.hpp"

using namespace fixture;

namespace {
struct Case {
  Db db;
  int64_t b = 0;
  Case() {
    b = db.bundle("bundles/case.tar.gz", std::string(64, '7'));
    db.host("node01");
  }
  std::vector<FindingRow> run() {
    faultline::correlate::run(db.handle(), b, source_rules());
    return findings(db.handle(), b);
  }
};
}  // namespace

TEST_CASE("an unexplained symptom names the causes looked for and their unread premises",
          "[correlate][premises]") {
  Case c;
  auto m = c.db.member("host_log/dmesg.log", "dmesg", "node01",
                       {"[   21.774315] drv_devmm_host: Unknown symbol "
                        "devdrv_manager_register_client (err -22)"});
  c.db.hit(m, 1, "kernel.unknown_symbol",
           R"({"module":"drv_devmm_host","symbol":"devdrv_manager_register_client"})",
           std::nullopt);
  const auto f = c.run();
  const auto* s = find(f, "kernel.module_unknown_symbol");
  REQUIRE(s != nullptr);
  CHECK(s->explained_by.empty());
  INFO(s->missing);
  // driver.stale_module_link explains it; its module-resolution premise was not in the bundle
  CHECK(s->missing.find("cause driver.stale_module_link not established") != std::string::npos);
  CHECK(s->missing.find("updates/dkms/") != std::string::npos);
}

TEST_CASE("an explained symptom lists no unread causes", "[correlate][premises]") {
  Case c;
  auto dep = c.db.member("mod_info/modules.dep", "modules_dep", "node01",
                         {"updates/dkms/drv_devmm_host.ko: updates/drv_seclib_host.ko"});
  c.db.fact(dep, 1, "module.drv_devmm_host.resolved_path", "updates/dkms/drv_devmm_host.ko");
  auto link = c.db.member("mod_info/updates/dkms/drv_devmm_host.ko", "symlink", "node01", {""});
  c.db.fact(link, 0, "fs.updates/dkms/drv_devmm_host.ko",
            "symlink:/opt/Ascend-24.1.rc2/driver/host/drv_devmm_host.ko");
  auto m = c.db.member("host_log/dmesg.log", "dmesg", "node01",
                       {"[   21.774315] drv_devmm_host: Unknown symbol "
                        "devdrv_manager_register_client (err -22)"});
  c.db.hit(m, 1, "kernel.unknown_symbol",
           R"({"module":"drv_devmm_host","symbol":"devdrv_manager_register_client"})",
           std::nullopt);
  const auto f = c.run();
  REQUIRE(!f.empty());
  CHECK(f[0].finding == "driver.stale_module_link");
  const auto* s = find(f, "kernel.module_unknown_symbol");
  REQUIRE(s != nullptr);
  CHECK(s->explained_by == "driver.stale_module_link");
  CHECK(s->missing.find("not established") == std::string::npos);
}
