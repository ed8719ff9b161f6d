// The two seed incidents reproduced as database fixtures: their root cause ranks first with the
// evidence the write-ups cite; symptoms hang under it; a healthy node raises nothing.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "faultline/correlate/correlate.hpp"
#include "seeds.hpp"

using namespace fixture;

TEST_CASE("seed 000: driver downgraded without reboot ranks first and explains SVM and HCCL",
          "[correlate][seed]") {
  Db db;
  const int64_t b = db.bundle("bundles/a2-pod-017.tar.zst", std::string(64, 'a'));
  const auto s = build_seed000(db);
  const auto sum = faultline::correlate::run(db.handle(), b, source_rules());
  const auto f = findings(db.handle(), b);
  REQUIRE(!f.empty());
  CHECK(f[0].finding == "driver.reboot_pending");
  CHECK(f[0].kind == "root_cause");
  CHECK(f[0].rank == 1);
  INFO(f[0].missing);
  CHECK(f[0].confidence >= 0.8);
  CHECK(f[0].summary.find("24.1.rc3") != std::string::npos);
  CHECK(f[0].summary.find("24.1.0.3") != std::string::npos);
  CHECK(f[0].summary.find("downgrade") != std::string::npos);
  const auto explains = nlohmann::json::parse(f[0].explains);
  CHECK(explains == nlohmann::json({"hccl.comm_init_failed", "svm.map_failed"}));

  const auto ev = evidence(db.handle(), f[0].id);
  CHECK(cites(ev, s.smi.path, 2));           // npu-smi Version: 24.1.rc3
  CHECK(cites(ev, s.version_info.path, 1));  // Version=24.1.0.3
  CHECK(cites(ev, s.install.path, 3));       // downgrade + Reboot needed, after boot
  CHECK(cites(ev, s.proc_stat.path, 2));     // btime

  const auto* svm = find(f, "svm.map_failed");
  REQUIRE(svm != nullptr);
  CHECK(svm->explained_by == "driver.reboot_pending");
  CHECK(svm->summary.find("0x200000000000") != std::string::npos);
  const auto sev = evidence(db.handle(), svm->id);
  CHECK(cites(sev, s.device_os.path, 1));
  CHECK(cites(sev, s.plog.path, 2));
  const auto* hccl = find(f, "hccl.comm_init_failed");
  REQUIRE(hccl != nullptr);
  CHECK(hccl->explained_by == "driver.reboot_pending");

  // What the seed ruled out must not fire: ASan, ulimit, address conflicts.
  CHECK(find(f, "svm.asan_enabled") == nullptr);
  CHECK(find(f, "svm.address_space_limit") == nullptr);
  CHECK(find(f, "svm.address_conflict") == nullptr);
  CHECK(sum.root_causes == 1);
  CHECK(sum.symptoms == 2);
  CHECK(sum.unexplained == 0);
  CHECK(sum.max_severity == faultline::Severity::critical);
}

TEST_CASE("seed 000: timeline marks cause, first failure and observation in time order",
          "[correlate][seed][timeline]") {
  Db db;
  const int64_t b = db.bundle("bundles/a2-pod-017.tar.zst", std::string(64, 'a'));
  const auto s = build_seed000(db);
  faultline::correlate::run(db.handle(), b, source_rules());
  const auto t = timeline(db.handle(), b);
  REQUIRE(!t.empty());
  // Ordered by time, untimed rows last.
  for (size_t i = 1; i < t.size(); ++i) {
    CHECK(t[i].ord == t[i - 1].ord + 1);
    if (t[i].time_ns && t[i - 1].time_ns) CHECK(*t[i - 1].time_ns <= *t[i].time_ns);
    if (t[i].time_ns) CHECK(t[i - 1].time_ns.has_value());
  }
  int first_failures = 0;
  for (const auto& r : t) {
    if (r.role == "first_failure") {
      ++first_failures;
      CHECK(r.member == s.device_os.path);  // Svm map va not fixed, the earliest failure line
      CHECK(r.signature == "svm.map_va_not_fixed");
    }
    if (r.member == s.install.path && r.line == 3) CHECK(r.role == "cause");
    if (r.member == s.train.path) CHECK(r.role == "observation");
  }
  CHECK(first_failures == 1);
  // The boot (context of the cause) precedes the install, which precedes the failure.
  size_t boot = 0, inst = 0, fail = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].member == s.proc_stat.path) boot = i + 1;
    if (t[i].member == s.install.path && t[i].line == 3 && inst == 0) inst = i + 1;
    if (t[i].role == "first_failure") fail = i + 1;
  }
  CHECK(boot > 0);
  CHECK(boot < inst);
  CHECK(inst < fail);
}

TEST_CASE("seed 002: stale DKMS module link ranks first; every seed finding is present",
          "[correlate][seed]") {
  Db db;
  const int64_t b = db.bundle("bundles/910b-node3.tar.gz", std::string(64, 'b'));
  const auto s = build_seed002(db);
  const auto sum = faultline::correlate::run(db.handle(), b, source_rules());
  const auto f = findings(db.handle(), b);
  REQUIRE(!f.empty());
  CHECK(f[0].finding == "driver.stale_module_link");
  CHECK(f[0].summary.find("drv_pcie_host") != std::string::npos);
  CHECK(f[0].summary.find("/usr/local/Ascend.bak/driver/kernel/host/drv_pcie_host.ko") !=
        std::string::npos);
  const auto ev = evidence(db.handle(), f[0].id);
  CHECK(cites(ev, s.modinfo.path, 1));
  CHECK(cites(ev, s.ls_updates.path, 9));  // the dkms symlink
  CHECK(cites(ev, s.ls_updates.path, 4));  // the fresh file in updates/
  CHECK(cites(ev, s.journal.path, 1));     // Unknown symbol
  CHECK(cites(ev, s.ls_dev.path, 1));      // /dev/davinci_manager missing

  for (const char* id :
       {"cann.env_path_missing", "framework.version_mismatch", "process.deleted_libraries",
        "cann.toolkit_mount_shadowed", "config.bool_flag_misparsed",
        "install.uninstall_blocked_by_mount", "cann.partial_install"}) {
    INFO(id);
    const auto* r = find(f, id);
    REQUIRE(r != nullptr);
    CHECK(r->kind == "root_cause");
    CHECK(r->rank > 1);
    CHECK(r->confidence < f[0].confidence);
  }
  for (const char* id : {"kernel.module_unknown_symbol", "runtime.stream_sync_timeout",
                         "runtime.device_queue_stalled", "probe.device_op_failed"}) {
    INFO(id);
    const auto* r = find(f, id);
    REQUIRE(r != nullptr);
    CHECK(r->kind == "symptom");
    CHECK(r->explained_by == "driver.stale_module_link");
  }
  CHECK(find(f, "driver.reboot_pending") == nullptr);  // rebooted after the last install
  CHECK(sum.unexplained == 0);

  const auto* env = find(f, "cann.env_path_missing");
  CHECK(env->summary.find("8.5.1") != std::string::npos);
  CHECK(env->summary.find("8.5.0") != std::string::npos);
  const auto* fw = find(f, "framework.version_mismatch");
  CHECK(fw->summary.find("2.8.0.post4") != std::string::npos);
  CHECK(fw->summary.find("9.0.0") != std::string::npos);  // what the table pairs post4 with
  const auto* cfg = find(f, "config.bool_flag_misparsed");
  CHECK(cfg->summary.find("--amp False") != std::string::npos);
  CHECK(cfg->summary.find("config.cache") == std::string::npos);  // --cache False took effect
  const auto* stall = find(f, "runtime.device_queue_stalled");
  CHECK(stall->summary.find("3 times") != std::string::npos);
  CHECK(stall->summary.find("sqHead=500") != std::string::npos);
  const auto* busy = find(f, "install.uninstall_blocked_by_mount");
  CHECK(busy->summary.find("/usr/local/Ascend/nnal") != std::string::npos);
}

TEST_CASE("seed 002: the Python stack in the loss function is an observation, not the cause",
          "[correlate][seed][timeline]") {
  Db db;
  const int64_t b = db.bundle("bundles/910b-node3.tar.gz", std::string(64, 'b'));
  const auto s = build_seed002(db);
  faultline::correlate::run(db.handle(), b, source_rules());
  const auto t = timeline(db.handle(), b);
  bool saw_first = false, saw_acl = false;
  for (const auto& r : t) {
    if (r.role == "first_failure") {
      saw_first = true;
      CHECK(r.member == s.plog.path);  // first three-minute report, not the traceback
      CHECK(r.line == 1);
    }
    if (r.member == s.train.path && r.line == 7) {
      saw_acl = true;
      CHECK(r.role == "observation");
      CHECK(saw_first);  // after the first failure in the ordering
    }
  }
  CHECK(saw_first);
  CHECK(saw_acl);
}

TEST_CASE("healthy node: no root cause, no symptom", "[correlate][healthy]") {
  Db db;
  const int64_t b = db.bundle("bundles/910b-node5.tar.zst", std::string(64, 'c'));
  build_healthy(db);
  const auto sum = faultline::correlate::run(db.handle(), b, source_rules());
  const auto f = findings(db.handle(), b);
  for (const auto& r : f) INFO(r.finding << " " << r.summary);
  CHECK(f.empty());
  CHECK(sum.root_causes == 0);
  CHECK(!sum.any);
  CHECK(timeline(db.handle(), b).empty());
}

TEST_CASE("two hosts in one bundle: findings stay per host", "[correlate][multihost]") {
  Db db;
  const int64_t b = db.bundle("bundles/job-4412.tar", std::string(64, 'd'));
  build_seed000(db, "a2-pod-017");
  build_healthy(db, "a2-pod-018");
  faultline::correlate::run(db.handle(), b, source_rules());
  const auto f = findings(db.handle(), b);
  REQUIRE(!f.empty());
  for (const auto& r : f) CHECK(r.host == "a2-pod-017");
}

TEST_CASE("running twice replaces rows instead of adding them", "[correlate]") {
  Db db;
  const int64_t b = db.bundle("bundles/a2-pod-017.tar.zst", std::string(64, 'a'));
  build_seed000(db);
  auto count = [&](const char* table) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db.handle(), (std::string("SELECT COUNT(*) FROM ") + table).c_str(), -1, &st,
                       nullptr);
    sqlite3_step(st);
    const int64_t n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
  };
  faultline::correlate::run(db.handle(), b, source_rules());
  const auto f1 = findings(db.handle(), b);
  const int64_t ev1 = count("finding_evidence"), tl1 = count("timeline");
  faultline::correlate::run(db.handle(), b, source_rules());
  const auto f2 = findings(db.handle(), b);
  REQUIRE(f1.size() == f2.size());
  for (size_t i = 0; i < f1.size(); ++i) {
    CHECK(f1[i].finding == f2[i].finding);
    CHECK(f1[i].summary == f2[i].summary);
  }
  CHECK(ev1 > 0);
  CHECK(count("finding_evidence") == ev1);  // old evidence rows went with their findings
  CHECK(count("timeline") == tl1);
}
