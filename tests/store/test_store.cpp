// store: schema version, bulk load, replacement on re-analysis, incomplete runs stay visible.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>

#include "faultline/store/lock.hpp"
#include "faultline/store/store.hpp"

using namespace faultline;
namespace fs = std::filesystem;

namespace {

void remove_db(const fs::path& p) {
  std::error_code ec;
  for (const char* s : {"", "-wal", "-shm", "-journal"}) fs::remove(p.string() + s, ec);
}

// A database file of one test, removed again when the test ends (pass or fail).
struct TempDb {
  fs::path path;
  explicit TempDb(const char* name)
      : path(fs::temp_directory_path() /
             (std::string("faultline-test-") + name + "-" + std::to_string(::getpid()) + ".db")) {
    remove_db(path);
  }
  ~TempDb() { remove_db(path); }
  TempDb(const TempDb&) = delete;
  TempDb& operator=(const TempDb&) = delete;
  operator const fs::path&() const { return path; }  // NOLINT: used as the path it names
  std::string string() const { return path.string(); }
};

int64_t count(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  int64_t n = -1;
  if (sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return n;
}

std::string text_of(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  std::string out;
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0) != nullptr)
    out.assign(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)),
               static_cast<size_t>(sqlite3_column_bytes(s, 0)));
  sqlite3_finalize(s);
  return out;
}

// Loads a tiny bundle with one member, one event with a hit, and one fact.
int64_t load(store::Db& db, const std::string& sha) {
  const int64_t b = db.begin_bundle({"/data/node07.tar.zst", "node07.tar.zst", "{}"});
  store::MemberRow m;
  m.path =
      "asys_output_20250508095626087/dfx/log/host/cann/debug/plog/"
      "plog-155320_20250508095618528.log";
  m.kind = "plog";
  m.kind_reason = "path+content";
  m.host = "";
  m.sha256 = std::string(64, 'a');
  const int64_t mid = db.add_member(b, m);
  Event e;
  e.line = 1;
  e.severity = Severity::error;
  e.module = "RUNTIME";
  e.pid = 155320;
  e.time.clock = Clock::host_local;
  e.time.year = 2025;
  e.time.month = 5;
  e.time.day = 8;
  e.time.hour = 9;
  e.time.minute = 56;
  e.time.second = 18;
  e.time.nanos = 522534000;
  e.text =
      "[ERROR] RUNTIME(155320,python3):2025-05-08-09:56:18.522.534 [stars_engine.cc:1553]155320 "
      "ProcLogicCqReport:[INIT][DEFAULT]Task run failed, device_id=0, stream_id=2, task_id=1, "
      "sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0";
  const int64_t ev = db.add_event(b, mid, "", e);
  db.add_hit(b, ev, "runtime.task_run_failed", R"({"stream_id":"2","task_id":"1"})");
  db.add_fact(b, "", Fact{"driver.version.loaded", "24.1.rc3", 2}, mid);
  db.add_warning(b, Warning{"x/../../etc/passwd", "path leaves the bundle: skipped"});
  db.finish_load(b, sha, 1000, 1, 500);
  return b;
}

}  // namespace

TEST_CASE("a new database gets the current schema version") {
  const TempDb p("version");
  {
    auto db = store::Db::open(p);
    CHECK(count(db->handle(), "PRAGMA user_version") == store::schema_version());
    CHECK(store::schema_version() >= 1);
  }
  // reopening applies nothing and keeps the version
  auto db = store::Db::open(p);
  CHECK(count(db->handle(), "PRAGMA user_version") == store::schema_version());
}

TEST_CASE("a database from a newer faultline is refused with a message naming the file") {
  const TempDb p("newer");
  {
    auto db = store::Db::open(p);
    db->exec("PRAGMA user_version=999");
  }
  try {
    store::Db::open(p);
    FAIL("expected an error");
  } catch (const store::StoreError& e) {
    CHECK(std::string(e.what()).find(p.string()) != std::string::npos);
    CHECK(std::string(e.what()).find("newer") != std::string::npos);
  }
}

TEST_CASE("analysing the same bundle again replaces its rows") {
  const TempDb p("replace");
  auto db = store::Db::open(p);
  const int64_t b1 = load(*db, std::string(64, 'f'));
  db->mark_complete(b1);
  CHECK(count(db->handle(), "SELECT count(*) FROM events") == 1);
  const int64_t b2 = load(*db, std::string(64, 'f'));
  db->mark_complete(b2);
  CHECK(b2 != b1);
  CHECK(count(db->handle(), "SELECT count(*) FROM bundles") == 1);
  CHECK(count(db->handle(), "SELECT count(*) FROM members") == 1);
  CHECK(count(db->handle(), "SELECT count(*) FROM events") == 1);
  CHECK(count(db->handle(), "SELECT count(*) FROM hits") == 1);
  CHECK(count(db->handle(), "SELECT count(*) FROM facts") == 1);
  CHECK(count(db->handle(), "SELECT count(*) FROM warnings") == 1);
  // a different bundle is added next to it
  const int64_t b3 = load(*db, std::string(64, 'e'));
  db->mark_complete(b3);
  CHECK(count(db->handle(), "SELECT count(*) FROM bundles") == 2);
  CHECK(store::bundle_ids(db->handle()).size() == 2);
  // indexes exist after the load
  CHECK(count(db->handle(),
              "SELECT count(*) FROM sqlite_master WHERE type='index' AND "
              "name='idx_events_bundle_time'") == 1);
}

TEST_CASE("a database the run creates is in WAL mode from its first statement (issue 36)") {
  const TempDb p("journal");
  {
    auto db = store::Db::open(p);
    CHECK(text_of(db->handle(), "PRAGMA journal_mode") == "wal");
    const int64_t b = load(*db, std::string(64, 'a'));
    db->mark_complete(b);
    CHECK(text_of(db->handle(), "PRAGMA journal_mode") == "wal");
  }
  auto db = store::Db::open(p);
  CHECK(text_of(db->handle(), "PRAGMA journal_mode") == "wal");
  CHECK(count(db->handle(), "SELECT count(*) FROM events") == 1);
  CHECK(count(db->handle(), "SELECT count(*) FROM sqlite_master WHERE type='index'") >= 13);
}

TEST_CASE("a load of a new file killed before its commit leaves a file read-only readers open") {
  // Issue 36: a new file was loaded with a rollback journal; SIGKILL in the load left a hot
  // journal, and every read-only opener (the rerun's probe, report, Python's sqlite3) failed with
  // "attempt to write a readonly database". The child spills pages of its uncommitted load into
  // the file (more than SQLite's page cache), then is killed.
  const TempDb p("killed");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto db = store::Db::open(p);
    const int64_t b = db->begin_bundle({"/data/k.tar", "k.tar", "{}"});
    store::MemberRow m;
    m.path = "var/log/syslog";
    m.kind = "syslog";
    const int64_t mem = db->add_member(b, m);
    std::string big(8U << 20, '\0');
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + (i * 7919 % 26));
    db->add_member_text(mem, big, "plain");
    ::raise(SIGKILL);
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK_FALSE(fs::exists(p.string() + "-journal"));
  sqlite3* ro = nullptr;
  REQUIRE(sqlite3_open_v2(p.string().c_str(), &ro, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  CHECK(count(ro, "SELECT count(*) FROM bundles") == 0);  // the load never committed
  CHECK(text_of(ro, "PRAGMA integrity_check") == "ok");
  sqlite3_close(ro);
  // and the rerun loads into it
  auto db = store::Db::open(p);
  const int64_t b = load(*db, std::string(64, 'k'));
  db->mark_complete(b);
  CHECK(store::bundle_ids(db->handle(), false).size() == 1);
  CHECK(text_of(db->handle(), "PRAGMA integrity_check") == "ok");
}

TEST_CASE("an analysis that did not reach the end is not reported as complete") {
  const TempDb p("incomplete");
  {
    auto db = store::Db::open(p);
    const int64_t b = load(*db, std::string(64, 'c'));
    (void)b;  // loaded but never marked complete (e.g. killed during correlation)
  }
  {
    // killed in the middle of the bulk load: the transaction never commits
    auto db = store::Db::open(p);
    db->begin_bundle({"/data/other.tar", "other.tar", "{}"});
    // the Db goes away without finish_load: its transaction is rolled back
  }
  auto db = store::Db::open(p);
  CHECK(text_of(db->handle(), "PRAGMA journal_mode") == "wal");
  CHECK(store::bundle_ids(db->handle(), false).empty());
  CHECK(store::bundle_ids(db->handle(), true).size() == 1);
  CHECK(count(db->handle(), "SELECT count(*) FROM bundles WHERE status='running'") == 1);
}

TEST_CASE("times are stored as printed, with the clock they were printed in") {
  const TempDb p("times");
  auto db = store::Db::open(p);
  const int64_t b = load(*db, std::string(64, 'd'));
  db->mark_complete(b);
  // 2025-05-08 09:56:18.522534 read as UTC
  CHECK(count(db->handle(), "SELECT raw_civil_ns FROM events") == 1746698178522534000LL);
  CHECK(count(db->handle(),
              "SELECT count(*) FROM events WHERE clock='host_local' AND time_quality='unknown'") ==
        1);
}

namespace {

constexpr const char* kEnvironPath = "npu_log_collect/proc/48213/environ";
constexpr const char* kCutMarker = " [... cut by faultline: value above the 16 MiB bound]";

}  // namespace

TEST_CASE("a text value above SQLite's length limit is cut with a warning, not a failed load") {
  const TempDb p("cut");
  auto db = store::Db::open(p);
  // What a huge environ or a giant multi-line event does against SQLite's 1 GB default, with the
  // limit lowered so that the test stays small. Before the cut, the bind failed, left NULL and
  // the NOT NULL constraint threw.
  sqlite3_limit(db->handle(), SQLITE_LIMIT_LENGTH, 100000);
  const int64_t b = db->begin_bundle({"/data/node07.tar.zst", "node07.tar.zst", "{}"});
  store::MemberRow m;
  m.path = kEnvironPath;
  m.kind = "environ";
  m.kind_reason = "path";
  m.sha256 = std::string(64, 'e');
  const int64_t mid = db->add_member(b, m);
  Fact f;
  f.name = "env.LD_LIBRARY_PATH";
  f.value = std::string(200000, ':') + "é";
  f.line = 7;
  REQUIRE_NOTHROW(db->add_fact(b, "a2pod-n042", f, mid));
  Event e;
  e.line = 3;
  e.severity = Severity::error;
  e.time.clock = Clock::host_local;
  const std::string traceback = "Traceback (most recent call last):\n" + std::string(150000, 'x');
  e.text = traceback;  // a view
  REQUIRE_NOTHROW(db->add_event(b, mid, "a2pod-n042", e));
  db->finish_load(b, std::string(64, 'c'), 1, 1, 1);
  db->mark_complete(b);

  const std::string v = text_of(db->handle(), "SELECT value FROM facts");
  CHECK(v.size() == 25000);  // a quarter of the limit: a row holds an event's text twice
  CHECK(v.substr(v.size() - std::string(kCutMarker).size()) == kCutMarker);
  CHECK(v.substr(0, 100) == std::string(100, ':'));
  const std::string t = text_of(db->handle(), "SELECT text FROM events");
  CHECK(t.size() == 25000);
  CHECK(t.rfind("Traceback (most recent call last):\nxxx", 0) == 0);
  // one warning per cut value, naming the member's file and what was cut
  CHECK(count(db->handle(), "SELECT count(*) FROM warnings WHERE member='" +
                                std::string(kEnvironPath) + "' AND message LIKE '[store-cut]%'") ==
        2);
  CHECK(count(db->handle(),
              "SELECT count(*) FROM warnings WHERE message LIKE '[store-cut] fact "
              "env.LD_LIBRARY_PATH of line 7: 200002 bytes, cut to %'") == 1);
  CHECK(count(db->handle(),
              "SELECT count(*) FROM warnings WHERE message LIKE "
              "'[store-cut] an event''s text of line 3: %'") == 1);
}

TEST_CASE("text values are bounded at 16 MiB whatever SQLite accepts") {
  const TempDb p("cut16");
  auto db = store::Db::open(p);
  const int64_t b = db->begin_bundle({"/data/node07.tar.zst", "node07.tar.zst", "{}"});
  store::MemberRow m;
  m.path = kEnvironPath;
  m.kind = "environ";
  m.kind_reason = "path";
  m.sha256 = std::string(64, 'e');
  const int64_t mid = db->add_member(b, m);
  Fact f;
  f.name = "env.PATH";
  f.value = std::string((16 << 20) + 1, '/');
  db->add_fact(b, "a2pod-n042", f, mid);
  f.name = "env.HOME";
  f.value = std::string(16 << 20, '/');  // at the bound: kept whole
  db->add_fact(b, "a2pod-n042", f, mid);
  db->finish_load(b, std::string(64, 'd'), 1, 1, 1);
  CHECK(count(db->handle(), "SELECT length(value) FROM facts WHERE name='env.PATH'") == 16 << 20);
  CHECK(count(db->handle(), "SELECT length(value) FROM facts WHERE name='env.HOME'") == 16 << 20);
  CHECK(text_of(db->handle(), "SELECT substr(value, -20) FROM facts WHERE name='env.PATH'") ==
        std::string(kCutMarker).substr(std::string(kCutMarker).size() - 20));
  CHECK(count(db->handle(), "SELECT count(*) FROM warnings WHERE message LIKE '[store-cut]%'") ==
        1);
}

TEST_CASE(
    "the writer lock is an flock on the database file: nothing is left beside it (issue 36)") {
  const TempDb p("lock");
  const std::string legacy = p.string() + ".lock";
  {
    // a DB.lock of an older faultline killed during its run: removed once nobody holds it
    std::FILE* f = std::fopen(legacy.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fclose(f);
  }
  {
    store::WriterLock lock(p);
    CHECK(fs::exists(p.path));  // created empty: SQLite takes it as a new database
    CHECK_FALSE(fs::exists(legacy));
    // a second writer is refused and told who holds it
    try {
      store::WriterLock second(p);
      FAIL("a second lock was taken");
    } catch (const store::LockBusy& e) {
      CHECK(std::string(e.what()).find("database in use by another faultline run (pid " +
                                       std::to_string(::getpid()) + ")") != std::string::npos);
    }
    {
      auto db = store::Db::open(p);
      db->mark_complete(load(*db, std::string(64, 'l')));
    }
  }
  // released: the file stays (it holds an analysis), no lock file appears
  CHECK(fs::exists(p.path));
  CHECK_FALSE(fs::exists(legacy));
  CHECK(store::flock_holder(p.path) == 0);
  {
    // a holder killed with SIGKILL: the kernel drops its lock, the next writer takes it
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      store::WriterLock held(p);
      ::raise(SIGKILL);
      ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    store::WriterLock again(p);
    CHECK(store::flock_holder(p.path) == ::getpid());
  }
  const TempDb unused("lock-unused");
  { store::WriterLock lock(unused); }
  // a file the lock created and no run wrote into is removed again
  CHECK_FALSE(fs::exists(unused.path));
}
