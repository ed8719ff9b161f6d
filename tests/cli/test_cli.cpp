// The command line with wrong input: every message names the file and the problem, exit codes
// follow the contract (0 done, 1 finding at/above --fail-on, 2 usage or rule error, 3 input
// unreadable), and no C++ exception type or library tag reaches the user. Also: a --rules DIR
// that restates built-in signatures unchanged does not warn about overriding them.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

// A syslog line of a real host (log-formats.md §3): enough for a one-member bundle.
const char* kSyslog =
    "May  8 02:28:01 ubuntu78 kernel: [23645.213796] devdrv_device_driver 0000:03:00.4: enabling "
    "device (0000 -> 0002)\n";

// the shared temporary directory, named for this test area
class TempDir : public faultline::test::TempDir {
 public:
  TempDir() : faultline::test::TempDir("faultline-cli-test", true) {}
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string q(const fs::path& p) {
  return "'" + p.string() + "'";
}

struct Run {
  int code = -1;
  std::string err;
};

// Runs `faultline ARGS` (stdout to /dev/null unless redirected in args), stderr captured.
Run run_faultline(const TempDir& t, const std::string& args, const std::string& prefix = "") {
  const fs::path err = t.path() / "stderr.txt";
  const std::string cmd = prefix + "'" FAULTLINE_BINARY "' " + args + " > /dev/null 2> " + q(err);
  const int rc = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.err = slurp(err);
  return r;
}

// What every message must not show.
void check_clean(const Run& r) {
  INFO(r.err);
  CHECK(r.err.find("std::") == std::string::npos);
  CHECK(r.err.find("exception") == std::string::npos);
  CHECK(r.err.find("what()") == std::string::npos);
  CHECK(r.err.find("terminate") == std::string::npos);
  CHECK(r.err.find("basic_string") == std::string::npos);
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

int exec_sql(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  int rc = sqlite3_open(db.c_str(), &h);
  if (rc == SQLITE_OK) rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(h);
  return rc;
}

}  // namespace

TEST_CASE("analyze: wrong input names the file and the problem, exit 3 or 2", "[cli]") {
  TempDir t;
  const fs::path d = t.path();
  const std::string cache =
      " --cache-dir " + q(fs::temp_directory_path() / "faultline-cli-test-cache");

  SECTION("missing file") {
    const Run r = run_faultline(t, "analyze -q " + q(d / "node07.tar.zst") + cache);
    CHECK(r.code == 3);
    CHECK(contains(r.err, (d / "node07.tar.zst").string() + ": no such file or directory"));
    check_clean(r);
  }
  SECTION("a directory without files (e.g. a folder of empty node folders)") {
    fs::create_directories(d / "bundles" / "node01");
    fs::create_directories(d / "bundles" / "node02");
    const Run r = run_faultline(t, "analyze -q " + q(d / "bundles") + cache);
    CHECK(r.code == 3);
    CHECK(contains(r.err,
                   (d / "bundles").string() + ": no file to analyse (a directory without files)"));
    check_clean(r);
  }
  SECTION("an empty file (a failed collection): nothing to analyse is not a healthy node") {
    write(d / "node07.tar.gz", "");
    const Run r = run_faultline(t, "analyze -q " + q(d / "node07.tar.gz") + cache);
    CHECK(r.code == 3);
    CHECK(contains(r.err, (d / "node07.tar.gz").string() +
                              ": the file is empty (0 bytes): nothing to analyse"));
    check_clean(r);
  }
  SECTION("a named pipe is refused at once instead of waiting for a writer") {
    REQUIRE(::mkfifo((d / "node07.tar").c_str(), 0600) == 0);
    // (without the check it would block on open: timeout(1) ends it, exit 124)
    const Run r = run_faultline(t, "analyze -q " + q(d / "node07.tar") + cache, "timeout 120 ");
    CHECK(r.code == 3);
    CHECK(contains(r.err,
                   (d / "node07.tar").string() + ": a named pipe, not a bundle file or directory"));
    check_clean(r);
  }
  SECTION("a file that is no archive and no text") {
    std::string bin(4096, '\0');
    for (size_t i = 0; i < bin.size(); ++i) bin[i] = static_cast<char>((i * 7919) % 251);
    write(d / "node07.bin", bin);
    const Run r = run_faultline(t, "analyze -q " + q(d / "node07.bin") + cache);
    CHECK(r.code == 3);
    CHECK(contains(r.err, (d / "node07.bin").string() + ": not a bundle"));
    check_clean(r);
  }
  SECTION("a corrupt tar.zst (cut after 60 bytes)") {
    write(d / "good/var/log/syslog", kSyslog);
    REQUIRE(std::system(
                ("tar -C " + q(d / "good") + " -cf - var | zstd -q -c > " + q(d / "full.tar.zst"))
                    .c_str()) == 0);
    const std::string full = slurp(d / "full.tar.zst");
    REQUIRE(full.size() > 60);
    write(d / "node07.tar.zst", full.substr(0, 60));
    const Run r = run_faultline(t, "analyze -q " + q(d / "node07.tar.zst") + cache);
    CHECK(r.code == 3);
    CHECK(contains(r.err, (d / "node07.tar.zst").string() + ": cannot read the archive"));
    check_clean(r);
  }
  SECTION("an unreadable file") {
    write(d / "syslog", kSyslog);
    fs::permissions(d / "syslog", fs::perms::none);
    std::string prefix;
    if (::geteuid() == 0) {
      // root reads anything: run as nobody when setpriv is there
      if (std::system("command -v setpriv > /dev/null 2>&1") != 0) return;
      prefix = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    }
    const Run r = run_faultline(t, "analyze -q --no-cache " + q(d / "syslog"), prefix);
    CHECK(r.code == 3);
    CHECK(contains(r.err, (d / "syslog").string() + ": cannot open: Permission denied"));
    check_clean(r);
  }
  SECTION("--db in a directory that does not exist: usage error before any work") {
    write(d / "syslog", kSyslog);
    const Run r = run_faultline(
        t, "analyze -q " + q(d / "syslog") + " --db " + q(d / "nowhere/case.db") + cache);
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--db: " + (d / "nowhere/case.db").string() + ": the directory " +
                              (d / "nowhere").string() + " does not exist"));
    check_clean(r);
  }
  SECTION("--db naming a SQLite database of something else is left untouched") {
    write(d / "syslog", kSyslog);
    REQUIRE(exec_sql(d / "other.db", "CREATE TABLE inventory(host TEXT)") == SQLITE_OK);
    const std::string before = slurp(d / "other.db");
    const Run r =
        run_faultline(t, "analyze -q " + q(d / "syslog") + " --db " + q(d / "other.db") + cache);
    CHECK(r.code == 2);
    CHECK(contains(r.err,
                   (d / "other.db").string() + ": a SQLite database not written by faultline"));
    CHECK(slurp(d / "other.db") == before);
    check_clean(r);
  }
  SECTION("-o in a directory that does not exist: usage error before any work") {
    write(d / "syslog", kSyslog);
    const Run r =
        run_faultline(t, "analyze -q " + q(d / "syslog") + " -o " + q(d / "nowhere/r.md") + cache);
    CHECK(r.code == 2);
    CHECK(contains(r.err, (d / "nowhere/r.md").string() + ": the directory"));
    check_clean(r);
  }
  SECTION("--format bogus") {
    write(d / "syslog", kSyslog);
    const Run r = run_faultline(t, "analyze -q " + q(d / "syslog") + " --format bogus" + cache);
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--format: 'bogus' is not one of md, json, html"));
    check_clean(r);
  }
}

TEST_CASE("report: wrong databases are input errors (3) that say what the file is", "[cli]") {
  TempDir t;
  const fs::path d = t.path();
  const std::string cache =
      " --cache-dir " + q(fs::temp_directory_path() / "faultline-cli-test-cache");

  SECTION("missing database") {
    const Run r = run_faultline(t, "report --db " + q(d / "case.db"));
    CHECK(r.code == 3);
    CHECK(contains(r.err, (d / "case.db").string() + ": no such file"));
    check_clean(r);
  }
  SECTION("a file that is not SQLite") {
    write(d / "case.db", "[Driver] [2025-03-31 09:51:20] [INFO]Start time: 2025-03-31 09:51:20\n");
    const Run r = run_faultline(t, "report --db " + q(d / "case.db"));
    CHECK(r.code == 3);
    CHECK(contains(r.err, (d / "case.db").string() + ": not a SQLite database"));
    check_clean(r);
  }
  SECTION("an empty file is not turned into a database") {
    write(d / "case.db", "");
    const Run r = run_faultline(t, "report --db " + q(d / "case.db"));
    CHECK(r.code == 3);
    CHECK(contains(r.err, (d / "case.db").string() + ": an empty database"));
    CHECK(fs::file_size(d / "case.db") == 0);
    check_clean(r);
  }
  SECTION("the database of a run that was killed") {
    write(d / "syslog", kSyslog);
    REQUIRE(run_faultline(t, "analyze -q " + q(d / "syslog") + " --db " + q(d / "case.db") + cache)
                .code == 0);
    // what a kill before the end leaves: the bundle row still 'running'
    REQUIRE(exec_sql(d / "case.db", "UPDATE bundles SET status='running'") == SQLITE_OK);
    const Run r = run_faultline(t, "report --db " + q(d / "case.db"));
    CHECK(r.code == 3);
    CHECK(contains(r.err, "1 analysis(es) in " + (d / "case.db").string() + " did not complete"));
    CHECK(contains(r.err, (d / "case.db").string() + ": no complete analysis in this database"));
    check_clean(r);
  }
  SECTION("--format bogus") {
    const Run r = run_faultline(t, "report --db " + q(d / "case.db") + " --format bogus");
    CHECK(r.code == 2);
    check_clean(r);
  }
}

TEST_CASE("fleet and rules: wrong input", "[cli]") {
  TempDir t;
  const fs::path d = t.path();
  SECTION("fleet over a directory without bundles") {
    fs::create_directories(d / "job42");
    const Run r = run_faultline(t, "fleet --no-cache " + q(d / "job42"));
    CHECK(r.code == 3);
    CHECK(contains(r.err, (d / "job42").string() + ": no file to analyse"));
    CHECK(contains(r.err, "no bundle could be read"));
    check_clean(r);
  }
  SECTION("fleet -q (as analyze -q): quiet, yet a skipped bundle is still named") {
    write(d / "job42" / "node01" / "var" / "log" / "syslog", kSyslog);
    write(d / "job42" / "node02.tar.gz", "");
    const Run r = run_faultline(t, "fleet -q --no-cache " + q(d / "job42"));
    CHECK(r.code == 0);
    CHECK(contains(r.err, "skipped " + (d / "job42" / "node02.tar.gz").string()));
    check_clean(r);
  }
  SECTION("fleet over a missing input: 3, as analyze (issue 36)") {
    const Run r = run_faultline(t, "fleet --no-cache " + q(d / "job42"));
    CHECK(r.code == 3);
    CHECK(contains(r.err, "faultline: " + (d / "job42").string()));
    CHECK(contains(r.err, (d / "job42").string() + ": no such file or directory"));
    check_clean(r);
  }
  SECTION("import-faultdiag of a file that is not JSON") {
    write(d / "kg-config.json", "not json at all\n");
    const Run r = run_faultline(t, "rules import-faultdiag " + q(d / "kg-config.json"));
    CHECK(r.code == 3);
    CHECK(contains(r.err, (d / "kg-config.json").string() + ": "));
    CHECK_FALSE(contains(r.err, "[json."));
    check_clean(r);
  }
  SECTION("a broken pack in --rules DIR is a rule error (2) naming that directory's file") {
    write(d / "site/signatures/svm.yaml",
          "family: svm\nsignatures:\n  - id: svm.map_va_not_fixed\n    patterns: [\n");
    write(d / "syslog", kSyslog);
    for (const std::string& cmd :
         std::vector<std::string>{"rules test", "analyze -q --no-cache " + q(d / "syslog")}) {
      INFO(cmd);
      const Run r = run_faultline(t, cmd + " --rules " + q(d / "site"));
      CHECK(r.code == 2);
      CHECK(contains(r.err, (d / "site/signatures/svm.yaml").string() + ":"));
      CHECK_FALSE(contains(r.err, "(built-in)"));
      check_clean(r);
    }
  }
  SECTION("import-faultdiag of a missing file") {
    const Run r = run_faultline(t, "rules import-faultdiag " + q(d / "kg-config.json"));
    CHECK(r.code == 3);
    CHECK(contains(r.err, (d / "kg-config.json").string() + ": no such file"));
    check_clean(r);
  }
}

TEST_CASE("--rules DIR: only signatures that really differ are reported as overrides",
          "[cli][rules]") {
  TempDir t;
  const fs::path d = t.path();
  const fs::path src = fs::path(FAULTLINE_SOURCE_DIR) / "rules";
  // a site copy of the built-in rules: same definitions, so no warning at all
  fs::copy(src, d / "site", fs::copy_options::recursive);
  Run r = run_faultline(t, "rules lint --rules " + q(d / "site"));
  CHECK(r.code == 0);
  CHECK_FALSE(contains(r.err, "overrides"));

  // `--rules DIR BUNDLE`: the bundle is not taken for a second rules directory
  write(d / "syslog", kSyslog);
  r = run_faultline(t, "analyze -q --no-cache --rules " + q(d / "site") + " " + q(d / "syslog"));
  CHECK(r.code == 0);
  CHECK(r.err.empty());

  // one changed title: one warning, naming the id and both places
  const fs::path svm = d / "site/signatures/svm.yaml";
  std::string text = slurp(svm);
  const std::string title = "title: SVM mapping of the 8 TB window not at its fixed address";
  const auto at = text.find(title);
  REQUIRE(at != std::string::npos);
  text.replace(at, title.size(), "title: SVM window not fixed (site wording)");
  write(svm, text);
  r = run_faultline(t, "rules lint --rules " + q(d / "site"));
  CHECK(r.code == 0);
  INFO(r.err);
  size_t warnings = 0;
  for (size_t p = 0; (p = r.err.find("overrides the definition", p)) != std::string::npos; ++p)
    ++warnings;
  CHECK(warnings == 1);
  CHECK(contains(r.err, "svm.map_va_not_fixed: overrides the definition at signatures/svm.yaml:"));
}

TEST_CASE("two writers on one database: the second says who holds it, exit 2 (issue 18)", "[cli]") {
  TempDir t;
  const fs::path d = t.path();
  const std::string cache =
      " --cache-dir " + q(fs::temp_directory_path() / "faultline-cli-test-cache");
  write(d / "node07/var/log/syslog", kSyslog);
  const fs::path db = d / "case.db";

  SECTION("a run holding the database: the other exits 2 at once with its pid") {
    // hold the lock as a running `analyze --db` does (issue 36: an flock on case.db itself)
    const int fd = ::open(db.c_str(), O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
    const std::string pid = std::to_string(::getpid());
    const Run r = run_faultline(t, "analyze -q " + q(d / "node07") + " --db " + q(db) + cache);
    ::close(fd);
    CHECK(r.code == 2);
    CHECK(contains(r.err,
                   db.string() + ": database in use by another faultline run (pid " + pid + ")"));
    check_clean(r);
    // released: the next run writes, and leaves nothing beside the database
    const Run ok = run_faultline(t, "analyze -q " + q(d / "node07") + " --db " + q(db) + cache);
    CHECK(ok.code == 0);
    std::vector<std::string> beside;
    for (const auto& e : fs::directory_iterator(d))
      if (e.path().filename().string().rfind("case.db", 0) == 0)
        beside.push_back(e.path().filename().string());
    CHECK(beside == std::vector<std::string>{"case.db"});
  }
  SECTION("two runs at once: each ends done or with the message, never half-way") {
    const std::string cmd = "'" FAULTLINE_BINARY "' analyze -q " + q(d / "node07") + " --db " +
                            q(db) + cache + " > /dev/null 2> ";
    const std::string both = "(" + cmd + q(d / "e1") + "; echo $? > " + q(d / "rc1") + ") & (" +
                             cmd + q(d / "e2") + "; echo $? > " + q(d / "rc2") + "); wait";
    write(d / "both.sh", both + "\n");
    REQUIRE(std::system(("sh " + q(d / "both.sh")).c_str()) == 0);
    for (const char* n : {"1", "2"}) {
      const std::string rc = slurp(d / (std::string("rc") + n));
      const std::string err = slurp(d / (std::string("e") + n));
      INFO(err);
      CHECK((rc == "0\n" || rc == "2\n"));
      if (rc == "2\n") CHECK(contains(err, "database in use by another faultline run (pid "));
      CHECK_FALSE(contains(err, "FOREIGN KEY"));
    }
  }
}

TEST_CASE("command line edges (issue 36)", "[cli]") {
  TempDir t;
  const fs::path d = t.path();
  const std::string cache =
      " --cache-dir " + q(fs::temp_directory_path() / "faultline-cli-test-cache");

  SECTION("an unknown command is named, with the closest one") {
    const Run r = run_faultline(t, "frobnicate");
    CHECK(r.code == 2);
    CHECK(contains(r.err, "faultline: unknown command 'frobnicate'"));
    CHECK(contains(r.err, "analyze, fleet, report, rules, diff, similar, serve"));
    const Run typo = run_faultline(t, "analyse node07.tar.zst");
    CHECK(typo.code == 2);
    CHECK(contains(typo.err, "faultline: unknown command 'analyse'; did you mean 'analyze'?"));
    const Run prefix = run_faultline(t, "rep --db x.db");
    CHECK(contains(prefix.err, "did you mean 'report'?"));
    check_clean(typo);
  }
  SECTION("every message starts with faultline:, CLI11's own included") {
    for (const std::string& args :
         {std::string("analyze"), std::string("analyze --format pdf x"), std::string("report"),
          std::string("fleet --jobs many x"), std::string("--frob")}) {
      INFO(args);
      const Run r = run_faultline(t, args);
      CHECK(r.code == 2);
      CHECK(r.err.rfind("faultline: ", 0) == 0);
    }
    const Run r = run_faultline(t, "analyze");
    CHECK(contains(r.err, "faultline: analyze: BUNDLE is required"));
  }
  SECTION("analyze - reads the bundle from standard input (a tar stream from ssh or kubectl)") {
    write(d / "node07/var/log/syslog", kSyslog);
    const fs::path db = d / "piped.db";
    const Run r = run_faultline(t, "analyze - --db " + q(db) + " --format json -q" + cache,
                                "tar -C " + q(d / "node07") + " -cf - var | ");
    INFO(r.err);
    REQUIRE(r.code == 0);
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(h,
                               "SELECT b.path, b.name, m.path FROM bundles b JOIN members m "
                               "ON m.bundle_id=b.id",
                               -1, &s, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(s) == SQLITE_ROW);
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))) == "-");
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 1))) == "stdin");
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 2))) ==
          "var/log/syslog");
    sqlite3_finalize(s);
    sqlite3_close(h);
    // an empty stream is an unreadable input (3), named as "-"
    const Run empty = run_faultline(t, "analyze - -q" + cache, ": | ");
    CHECK(empty.code == 3);
    CHECK(contains(empty.err, "faultline: -"));
    CHECK_FALSE(contains(empty.err, "faultline-stdin-"));
  }
}
