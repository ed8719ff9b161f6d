// Resource bounds for the worst bundle shapes (docs/fuzzing.md "Bounds"): the CLI analyses
// bundles generated here with libarchive's write API, in a child process whose peak RSS is read
// with wait4(): hundreds of thousands of tiny members, archives nested far deeper than
// max_depth, giant lines, and a member with 200 000 signature hits. Also: capture re-runs carry
// PCRE2 limits (a catastrophic capture pattern returns, without captures), and the correlator's
// output does not grow with the number of hits.
#include <archive.h>
#include <archive_entry.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "faultline/tag/tag.hpp"

namespace fs = std::filesystem;

namespace {

// Documented peak RSS bound of one `faultline analyze` (docs/fuzzing.md). Not checked in
// sanitizer builds: ASan's shadow memory and quarantine make RSS meaningless there.
constexpr long kPeakRssBoundKiB = 256 * 1024;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

// Sanitizer builds run the same shapes smaller (ASan + -O0 is ~30x slower per member): there the
// test is about memory safety on these shapes; the RSS bound is checked in the normal build.
constexpr int scaled(int n) {
  return kAsan ? n / 10 : n;
}

fs::path temp_path(const std::string& name) {
  const fs::path p =
      fs::temp_directory_path() / ("faultline-bounds-" + std::to_string(::getpid()) + "-" + name);
  std::error_code ec;
  fs::remove_all(p, ec);
  return p;
}

// Writes an archive with libarchive. add(name, data) adds one regular member.
class Writer {
 public:
  enum class Kind { tar_zst, tar_gz };
  Writer(const fs::path& file, Kind kind) : a_(archive_write_new()) {
    archive_write_set_format_pax_restricted(a_);
    if (kind == Kind::tar_zst) {
      archive_write_add_filter_zstd(a_);
      archive_write_set_filter_option(a_, "zstd", "compression-level", "1");
    } else {
      archive_write_add_filter_gzip(a_);
    }
    REQUIRE(archive_write_open_filename(a_, file.c_str()) == ARCHIVE_OK);
  }
  ~Writer() { close(); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  void add(const std::string& name, int64_t size, const std::function<void(archive*)>& body) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_size(e, size);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_mtime(e, 1746668178, 0);
    REQUIRE(archive_write_header(a_, e) == ARCHIVE_OK);
    archive_entry_free(e);
    body(a_);
  }
  void add(const std::string& name, const std::string& data) {
    add(name, static_cast<int64_t>(data.size()), [&](archive* a) {
      if (!data.empty())
        REQUIRE(archive_write_data(a, data.data(), data.size()) ==
                static_cast<la_ssize_t>(data.size()));
    });
  }
  void close() {
    if (!a_) return;
    archive_write_close(a_);
    archive_write_free(a_);
    a_ = nullptr;
  }

 private:
  archive* a_;
};

std::string read_file(const fs::path& p) {
  std::string s;
  FILE* f = std::fopen(p.c_str(), "rb");
  REQUIRE(f != nullptr);
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
  std::fclose(f);
  return s;
}

struct RunResult {
  int exit_code = -1;
  long max_rss_kib = 0;
};

// `faultline analyze -q BUNDLE --db DB --no-cache` in a child; its own peak RSS from wait4.
RunResult analyze(const fs::path& bundle, const fs::path& db,
                  const std::vector<std::string>& extra = {}) {
  const std::string bin = FAULTLINE_BINARY;
  std::vector<std::string> args{bin,         "analyze",    "-q", bundle.string(), "--db",
                                db.string(), "--no-cache", "-o", "/dev/null"};
  args.insert(args.end(), extra.begin(), extra.end());
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  REQUIRE(::wait4(pid, &status, 0, &ru) == pid);
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.max_rss_kib = ru.ru_maxrss;
  return r;
}

int64_t count(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(h, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  int64_t v = -1;
  if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(h);
  return v;
}

void check_rss(const RunResult& r) {
  std::printf("peak RSS of the analysis: %ld MiB\n", r.max_rss_kib / 1024);
  INFO("peak RSS " << r.max_rss_kib / 1024 << " MiB, bound " << kPeakRssBoundKiB / 1024 << " MiB");
  if (kAsan) {
    WARN("sanitizer build: peak RSS " << r.max_rss_kib / 1024 << " MiB, bound not checked");
    return;
  }
  CHECK(r.max_rss_kib < kPeakRssBoundKiB);
}

const std::string kSyslogLine =
    "May  8 09:56:18 node01 kernel: [  123.456789] devmm: Svm map va not fixed, "
    "vm_start=0x100000000000, vm_end=0x200000000000\n";

}  // namespace

TEST_CASE("hundreds of thousands of tiny members: bounded memory, every member recorded") {
  const fs::path dir = temp_path("tiny");
  fs::create_directories(dir);
  constexpr int kMembers = scaled(300000);
  {
    Writer w(dir / "tiny.tar.zst", Writer::Kind::tar_zst);
    for (int i = 0; i < kMembers; ++i)
      w.add("node01/var/log/tiny/m" + std::to_string(i) + ".log",
            i % 100 == 0 ? kSyslogLine : std::string("x\n"));
  }
  const RunResult r = analyze(dir / "tiny.tar.zst", dir / "t.db");
  REQUIRE(r.exit_code == 0);
  check_rss(r);
  CHECK(count(dir / "t.db", "SELECT count(*) FROM members") == kMembers);
  CHECK(count(dir / "t.db", "SELECT count(*) FROM bundles WHERE status='complete'") == 1);
  fs::remove_all(dir);
}

TEST_CASE("archives nested far deeper than max_depth: bounded memory, the deep ones reported") {
  const fs::path dir = temp_path("deep");
  fs::create_directories(dir);
  // level 12 innermost; each level holds a log and the next level as a tar.gz
  constexpr int kLevels = 12;
  fs::path inner;
  for (int level = kLevels; level >= 1; --level) {
    const fs::path f = dir / ("level" + std::to_string(level) + ".tar.gz");
    {
      Writer w(f, Writer::Kind::tar_gz);
      w.add("var/log/syslog", kSyslogLine);
      if (!inner.empty()) w.add("nested/" + inner.filename().string(), read_file(inner));
    }
    inner = f;
  }
  const RunResult r = analyze(inner, dir / "d.db");
  REQUIRE(r.exit_code == 0);
  check_rss(r);
  // depth 0 is the bundle file; default max_depth 4 opens levels 2..5 inside it
  CHECK(count(dir / "d.db", "SELECT count(*) FROM members WHERE path LIKE '%syslog'") == 5);
  CHECK(count(dir / "d.db", "SELECT count(*) FROM warnings WHERE message LIKE '[depth]%'") == 1);
  fs::remove_all(dir);
}

TEST_CASE("giant lines: cut at the line limit, bounded memory, later lines still read") {
  const fs::path dir = temp_path("giant");
  fs::create_directories(dir);
  // 3 lines of 24 MiB of pseudo-random letters (incompressible enough to stay under max_ratio),
  // then a signature line that must still be found.
  constexpr int64_t kLine = 24LL << 20;
  constexpr int kGiant = 3;
  {
    Writer w(dir / "giant.tar.zst", Writer::Kind::tar_zst);
    const int64_t size = kGiant * (kLine + 1) + static_cast<int64_t>(kSyslogLine.size());
    w.add("node01/var/log/syslog", size, [&](archive* a) {
      uint64_t x = 88172645463325252ULL;
      std::string buf(1 << 20, 'a');
      for (int g = 0; g < kGiant; ++g) {
        for (int64_t done = 0; done < kLine; done += static_cast<int64_t>(buf.size())) {
          for (char& c : buf) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            c = static_cast<char>('a' + (x % 26));
          }
          REQUIRE(archive_write_data(a, buf.data(), buf.size()) ==
                  static_cast<la_ssize_t>(buf.size()));
        }
        REQUIRE(archive_write_data(a, "\n", 1) == 1);
      }
      archive_write_data(a, kSyslogLine.data(), kSyslogLine.size());
    });
  }
  const RunResult r = analyze(dir / "giant.tar.zst", dir / "g.db");
  REQUIRE(r.exit_code == 0);
  check_rss(r);
  CHECK(count(dir / "g.db", "SELECT long_lines FROM members WHERE path LIKE '%syslog'") == kGiant);
  CHECK(count(dir / "g.db", "SELECT count(*) FROM hits WHERE signature='svm.map_va_not_fixed'") ==
        1);
  fs::remove_all(dir);
}

TEST_CASE(
    "200 000 signature hits: the correlator holds a bounded number of hits (was every hit, ~2.3 KB "
    "each: 931 MiB at 400k)") {
  const fs::path dir = temp_path("hits");
  fs::create_directories(dir);
  auto bundle = [&](const std::string& name, int hits) {
    Writer w(dir / name, Writer::Kind::tar_zst);
    std::string text;
    for (int i = 0; i < hits; ++i) text += kSyslogLine;
    w.add("node01/var/log/syslog", text);
  };
  bundle("few.tar.zst", 50);
  bundle("many.tar.zst", scaled(200000));
  const RunResult few = analyze(dir / "few.tar.zst", dir / "few.db");
  const RunResult many = analyze(dir / "many.tar.zst", dir / "many.db");
  REQUIRE(few.exit_code == 0);
  REQUIRE(many.exit_code == 0);
  check_rss(many);
  const std::string per_finding =
      "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM finding_evidence GROUP BY "
      "finding_id)";
  const int64_t ev_few = count(dir / "few.db", per_finding);
  const int64_t ev_many = count(dir / "many.db", per_finding);
  CHECK(ev_few > 0);
  CHECK(ev_many <= 30);  // correlate.cpp kMaxEvidence
  CHECK(count(dir / "many.db", "SELECT count(*) FROM findings") ==
        count(dir / "few.db", "SELECT count(*) FROM findings"));
  CHECK(count(dir / "many.db", "SELECT count(*) FROM timeline") <=
        count(dir / "few.db", "SELECT count(*) FROM timeline") + 30);
  // what the bound left out is named in the warnings the report lists
  const std::string skipped =
      "SELECT count(*) FROM warnings WHERE member = '' AND message LIKE "
      "'[correlate-limit] host node01, signature svm.map_va_not_fixed: " +
      std::to_string(scaled(200000) - 5000) + " of " + std::to_string(scaled(200000)) +
      " not seen by the diagnoses%'";
  CHECK(count(dir / "many.db", skipped) == 1);
  CHECK(count(dir / "few.db",
              "SELECT count(*) FROM warnings WHERE message LIKE '[correlate-limit]%'") == 0);
  fs::remove_all(dir);
}

TEST_CASE(
    "a member name of 64 MiB in a cpio.gz: short warnings, bounded memory (was: the name copied "
    "whole into messages; a 1 GiB name took 6 GiB and failed the write)") {
  const fs::path dir = temp_path("longname");
  fs::create_directories(dir);
  const size_t kName = static_cast<size_t>(scaled(64 << 20));
  {
    archive* a = archive_write_new();
    archive_write_set_format_cpio_newc(a);
    archive_write_add_filter_gzip(a);
    REQUIRE(archive_write_open_filename(a, (dir / "long.cpio.gz").c_str()) == ARCHIVE_OK);
    // first one ordinary member: a bundle whose only member is skipped is "nothing to analyse"
    // (exit 3); this test is about what the long name costs
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, "var/log/syslog");
    archive_entry_set_size(e, static_cast<la_int64_t>(kSyslogLine.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
    REQUIRE(archive_write_data(a, kSyslogLine.data(), kSyslogLine.size()) ==
            static_cast<la_ssize_t>(kSyslogLine.size()));
    archive_entry_free(e);
    e = archive_entry_new();
    const std::string name = "var/log/" + std::string(kName, 'a');
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(kSyslogLine.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
    REQUIRE(archive_write_data(a, kSyslogLine.data(), kSyslogLine.size()) ==
            static_cast<la_ssize_t>(kSyslogLine.size()));
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
  }
  const RunResult r = analyze(dir / "long.cpio.gz", dir / "l.db");
  REQUIRE(r.exit_code == 0);
  check_rss(r);
  CHECK(count(dir / "l.db", "SELECT count(*) FROM warnings") >= 1);
  CHECK(count(dir / "l.db", "SELECT max(length(message)) FROM warnings") < 16384);
  CHECK(count(dir / "l.db", "SELECT max(length(member)) FROM warnings") <= 4096);
  fs::remove_all(dir);
}

TEST_CASE(
    "capture re-runs carry PCRE2 limits: a catastrophic capture pattern returns without captures") {
  // Hyperscan finds the line; the capture pattern backtracks exponentially on it. Without
  // pcre2_set_match_limit this would not return in any useful time.
  const std::string yaml =
      "family: fuzz\n"
      "signatures:\n"
      "  - id: fuzz.backtrack\n"
      "    title: catastrophic capture\n"
      "    severity: error\n"
      "    patterns: ['Svm map va not fixed']\n"
      "    capture: 'Svm map va not fixed(?<x>(a|aa)+)+$'\n"
      "    examples:\n"
      "      match: [{line: 'Svm map va not fixedaaaa'}]\n"
      "      no_match: ['Svm map va success']\n";
  const auto rs = faultline::tag::load_signatures({{"signatures/fuzz.yaml", yaml}});
  INFO((rs.errors.empty() ? std::string() : rs.errors.front()));
  REQUIRE(rs.errors.empty());
  REQUIRE(rs.signatures.size() == 1);
  std::string err;
  const auto engine = faultline::tag::Engine::build(rs, {}, &err);
  REQUIRE(engine);
  std::string line = "Svm map va not fixed" + std::string(5000, 'a') + "!";
  CHECK(engine->captures(0, line).empty());
  // a well-behaved line still captures
  CHECK(!engine->captures(0, "Svm map va not fixed" + std::string(10, 'a')).empty());
}

TEST_CASE(
    "one pathological member (issue 18 item 9): a /proc/PID/maps of a million lines and a "
    "composite with a huge section keep the peak RSS bounded") {
  const fs::path dir = temp_path("member");
  fs::create_directories(dir);
  // The line shape of proc(5)'s example ("00400000-00452000 r-xp 00000000 08:02 173521
  // /usr/bin/dbus-daemon"): a mapping per line, a library every 4th line (distinct paths, so that
  // the per-process library set is at its bound), anonymous mappings in between.
  const int kLines = scaled(1000000);
  {
    std::string maps;
    maps.reserve(static_cast<size_t>(kLines) * 80);
    char line[160];
    for (int i = 0; i < kLines; ++i) {
      const unsigned long long a = 0x7f0000000000ULL + static_cast<unsigned long long>(i) * 0x1000;
      if (i % 4 == 0)
        std::snprintf(line, sizeof line,
                      "%llx-%llx r-xp 00000000 08:02 %d                    /usr/lib/lib%07d.so\n",
                      a, a + 0x1000, 173521 + i, i);
      else
        std::snprintf(line, sizeof line, "%llx-%llx rw-p 00000000 00:00 0 \n", a, a + 0x1000);
      maps += line;
    }
    // a composite file (a pasted shell session) whose one section is 40 MiB of one command's
    // output, with a signature line after it
    std::string session = "[root@node01 ~]# cat /var/log/messages\n";
    for (size_t n = 0; n < (static_cast<size_t>(scaled(40)) << 20); n += kSyslogLine.size())
      session += kSyslogLine;
    session += "[root@node01 ~]# npu-smi info\n";
    session += kSyslogLine;
    // another process whose every mapping is of a deleted file (a library upgraded under a
    // running job): the parser kept every path and wrote an event per line
    std::string deleted;
    for (int i = 0; i < scaled(50000); ++i) {
      const unsigned long long a = 0x7f0000000000ULL + static_cast<unsigned long long>(i) * 0x1000;
      std::snprintf(line, sizeof line,
                    "%llx-%llx r-xp 00000000 08:02 %d                    /usr/lib/lib%07d.so "
                    "(deleted)\n",
                    a, a + 0x1000, 173521 + i, i);
      deleted += line;
    }
    Writer w(dir / "member.tar.zst", Writer::Kind::tar_zst);
    w.add("node01/proc/4242/maps", maps);
    w.add("node01/proc/4343/maps", deleted);
    w.add("node01/OS_info.log", session);
  }
  const RunResult r = analyze(dir / "member.tar.zst", dir / "m.db");
  REQUIRE(r.exit_code == 0);
  check_rss(r);
  CHECK(count(dir / "m.db", "SELECT count(*) FROM facts WHERE name LIKE 'process.4242.%'") > 0);
  CHECK(count(dir / "m.db", "SELECT lines FROM members WHERE path LIKE '%4242/maps'") == kLines);
  CHECK(
      count(dir / "m.db",
            "SELECT count(*) FROM events WHERE message LIKE 'process 4343 maps deleted file %'") ==
      4096);
  CHECK(count(dir / "m.db",
              "SELECT count(*) FROM events WHERE message = '" +
                  std::to_string(scaled(50000) - 4096) +
                  " more mappings of deleted files not listed (at most 4096 per maps file)'") == 1);
  fs::remove_all(dir);
}
