// Untrusted bundles: path tricks, bombs, damage, odd names and entry types. Each must give the
// documented warnings and status (docs/ingest.md), never a crash, never a write.
#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>

#include "faultline/core/sha256.hpp"
#include "helpers.hpp"

using namespace fltest;

namespace {

class Chdir {
 public:
  explicit Chdir(const fs::path& to) : old_(fs::current_path()) { fs::current_path(to); }
  ~Chdir() {
    std::error_code ec;
    fs::current_path(old_, ec);
  }
  Chdir(const Chdir&) = delete;
  Chdir& operator=(const Chdir&) = delete;

 private:
  fs::path old_;
};

bool exists_nofollow(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

// Members of ~`bytes` each, real lines with counters so that they compress like logs.
std::vector<Entry> three_members(size_t bytes) {
  return {
      {"dfx/log/host/driver/host_kernel.log", many_lines(kHostKernel, bytes, 1), Entry::file, {}},
      {"dfx/log/host/message/syslog", many_lines(kSyslog, bytes, 2), Entry::file, {}},
      {"dfx/log/host/install/ascend_install.log", many_lines(kInstall, bytes, 3), Entry::file, {}}};
}

}  // namespace

TEST_CASE("zip-slip and absolute member paths: reported, and nothing is written anywhere") {
  TempDir work;
  const Chdir in(work.path());
  const std::string tag = std::to_string(::getpid());
  const fs::path slip = "/tmp/faultline-slip-" + tag;
  const fs::path abs = "/tmp/faultline-abs-" + tag;
  REQUIRE_FALSE(exists_nofollow(slip));
  REQUIRE_FALSE(exists_nofollow(abs));
  const std::string passwd = "root:x:0:0:root:/root:/bin/bash\n";
  const std::vector<Entry> entries = {
      {"../../etc/x", "x\n", Entry::file, {}},
      {"../../../../../../../../../.." + slip.string(), "slip\n", Entry::file, {}},
      {"logs/../../escape.log", "escape\n", Entry::file, {}},
      {"/etc/passwd", passwd, Entry::file, {}},
      {abs.string(), "abs\n", Entry::file, {}},
      {"var/log/syslog", kSyslog, Entry::file, {}},
  };
  for (const auto& [name, data] : std::vector<std::pair<std::string, std::string>>{
           {"slip.tar", make(entries, Format::pax)},
           {"slip.tar.gz", make(entries, Format::gnutar, Filter::gzip)},
           {"slip.zip", make(entries, Format::zip)}}) {
    SECTION(name) {
      Collect c;
      const Result r = walk_memory(data, name, {}, c);
      INFO(c.dump());
      REQUIRE(r.status == Status::ok);
      // '..' members are skipped
      CHECK(c.count("path-dotdot") == 3);
      CHECK(c.find("etc/x") == nullptr);
      CHECK(c.find("escape.log") == nullptr);
      // absolute members are read under their relative name
      CHECK(c.count("path-absolute") == 2);
      REQUIRE(c.find("etc/passwd") != nullptr);
      CHECK(c.find("etc/passwd")->data == passwd);
      REQUIRE(c.find(abs.relative_path().string()) != nullptr);
      REQUIRE(c.find("var/log/syslog") != nullptr);
      CHECK(c.members.size() == 3);
      for (const auto& g : c.members) {
        CHECK(g.info.path.front() != '/');
        CHECK(g.info.path.find("..") == std::string::npos);
      }
      // and from a file in the (otherwise empty) working directory
      write_file(work.path() / name, data);
      Collect f;
      CHECK(walk(work.path() / name, {}, f).status == Status::ok);
      CHECK(f.members.size() == 3);
      CHECK(tree(work.path()) == std::vector<std::string>{name});
      fs::remove(work.path() / name);
    }
  }
  CHECK(tree(work.path()).empty());
  CHECK_FALSE(exists_nofollow(slip));
  CHECK_FALSE(exists_nofollow(abs));
  CHECK_FALSE(exists_nofollow(work.path().parent_path() / "escape.log"));
}

TEST_CASE("ratio bomb: 8 GiB of zeros in a tar.zst stops at the ratio limit, memory stays flat") {
  // generated streaming with the write API: the zeros never exist in memory as a whole
  static std::string bomb;
  if (bomb.empty()) {
    struct archive* a = writer(Format::pax, Filter::zstd, &bomb);
    add(a, {"dfx/log/host/message/syslog", kSyslog, Entry::file, {}});
    struct archive_entry* en = archive_entry_new();
    archive_entry_copy_pathname(en, "dfx/log/device/vmcore");
    archive_entry_set_filetype(en, AE_IFREG);
    archive_entry_set_perm(en, 0644);
    archive_entry_set_size(en, la_int64_t{8} << 30);
    check(archive_write_header(a, en), a, "header");
    archive_entry_free(en);
    const std::vector<char> zeros(1 << 20, '\0');
    for (int i = 0; i < 8 * 1024; ++i) archive_write_data(a, zeros.data(), zeros.size());
    add(a,
        {"dfx/log/host/cann/run/plog/plog-155320_20250508095608125.log", kPlog, Entry::file, {}});
    finish(a);
  }
  REQUIRE(bomb.size() < (8u << 20));  // it is a bomb: a few hundred KiB for 8 GiB

  SECTION("the member is read") {
    const long rss_before = max_rss_kb();
    Collect c;
    c.keep_data = false;
    const Result r = walk_memory(bomb, "node07.tar.zst", {}, c);
    INFO(c.dump());
    CHECK(r.status == Status::ok);
    CHECK(c.count("ratio") == 1);
    // syslog, then the cut vmcore; the plog after it is lost: skipping the rest of 8 GiB would
    // decompress more than max_skip_bytes (4 GiB)
    REQUIRE(c.members.size() == 2);
    CHECK(c.members[0].info.path == "dfx/log/host/message/syslog");
    CHECK_FALSE(c.members[0].truncated);
    CHECK(c.members[1].info.path == "dfx/log/device/vmcore");
    CHECK(c.members[1].truncated);
    // stopped near the ratio limit, far from 8 GiB
    CHECK(c.members[1].bytes > Limits{}.ratio_grace_bytes);
    CHECK(c.members[1].bytes < (1ULL << 30));
    CHECK(max_rss_kb() - rss_before < 200 * 1024);
  }
  SECTION("the member is not read by the visitor: the skip is bounded too") {
    Collect c;
    c.read_at_most = 0;
    const Result r = walk_memory(bomb, "node07.tar.zst", {}, c);
    CHECK(r.status == Status::ok);
    CHECK(c.count("ratio") == 1);
    CHECK(c.members.size() == 2);
  }
  SECTION("nested in a tar, the ratio warning names the nested archive") {
    const std::string outer = make(
        {{"nodes/node07.tar.zst", bomb, Entry::file, {}}, {"after.log", kSyslog, Entry::file, {}}},
        Format::pax);
    Collect c;
    c.keep_data = false;
    const Result r = walk_memory(outer, "fleet.tar", {}, c);
    INFO(c.dump());
    CHECK(r.status == Status::ok);
    CHECK(c.count("ratio", "nodes/node07.tar.zst") == 1);
    // the outer archive goes on after the nested one stopped
    CHECK(c.find("after.log") != nullptr);
  }
}

TEST_CASE("nesting past max_depth is not opened and is reported") {
  // layer 6 holds only a log; layer k holds a log and layer k+1
  std::string layer = make({{"l6.log", kSyslog, Entry::file, {}}}, Format::pax);
  for (int k = 5; k >= 1; --k)
    layer = make({{"l" + std::to_string(k) + ".log", kSyslog, Entry::file, {}},
                  {"inner.tar", layer, Entry::file, {}}},
                 Format::pax, k % 2 ? Filter::gzip : Filter::none);
  Limits lim;
  lim.max_depth = 3;
  Collect c;
  const Result r = walk_memory(layer, "l1.tar.gz", lim, c);
  INFO(c.dump());
  CHECK(r.status == Status::ok);
  const std::string p2 = "inner.tar!/", p3 = p2 + "inner.tar!/", p4 = p3 + "inner.tar!/";
  CHECK(c.find("l1.log") != nullptr);
  CHECK(c.find(p2 + "l2.log") != nullptr);
  CHECK(c.find(p3 + "l3.log") != nullptr);
  CHECK(c.find(p4 + "l4.log") != nullptr);
  CHECK(c.members.size() == 4);
  CHECK(c.count("depth", p4 + "inner.tar") == 1);
  REQUIRE(c.find(p4 + "l4.log") != nullptr);
  CHECK(c.find(p4 + "l4.log")->info.archives ==
        std::vector<std::string>{"", "inner.tar", "inner.tar!/inner.tar",
                                 "inner.tar!/inner.tar!/inner.tar"});
  // the default limit (4) reads the bundle and 4 nested layers: l6 is in a 5th
  Collect dflt;
  CHECK(walk_memory(layer, "l1.tar.gz", {}, dflt).status == Status::ok);
  CHECK(dflt.members.size() == 5);
  CHECK(dflt.count("depth") == 1);
  lim.max_depth = 5;
  Collect all;
  CHECK(walk_memory(layer, "l1.tar.gz", lim, all).status == Status::ok);
  CHECK(all.members.size() == 6);
  CHECK(all.warnings.empty());
}

TEST_CASE("truncated archives deliver what was read before the damage") {
  // 1 MiB members: bzip2 works in 900 kB blocks, a cut must leave whole blocks before it
  const std::vector<Entry> entries = three_members(1024 * 1024);
  const std::vector<std::tuple<std::string, Format, Filter>> kinds = {
      {"node.tar.gz", Format::pax, Filter::gzip}, {"node.tar.zst", Format::pax, Filter::zstd},
      {"node.tar.xz", Format::pax, Filter::xz},   {"node.tar.bz2", Format::pax, Filter::bzip2},
      {"node.zip", Format::zip, Filter::none},    {"node.tar", Format::pax, Filter::none}};
  for (const auto& [name, fmt, flt] : kinds) {
    SECTION(name) {
      const std::string whole = make(entries, fmt, flt);
      const std::string cut = whole.substr(0, whole.size() * 6 / 10);
      Collect c;
      const Result r = walk_memory(cut, name, {}, c);
      INFO(c.dump());
      CHECK(r.status == Status::ok);
      REQUIRE(!c.members.empty());
      CHECK(c.members.size() < entries.size() + 1);
      // every member before the damage is complete and exact
      for (size_t i = 0; i + 1 < c.members.size(); ++i) {
        CHECK(c.members[i].info.path == entries[i].name);
        CHECK_FALSE(c.members[i].truncated);
        CHECK(c.members[i].data == entries[i].data);
      }
      // the member being read is flagged truncated and holds a prefix of the original
      const Got& last = c.members.back();
      CHECK(last.truncated);
      const auto& orig = entries[c.members.size() - 1].data;
      CHECK(last.data.size() < orig.size());
      CHECK(orig.compare(0, last.data.size(), last.data) == 0);
      // one warning names the archive
      REQUIRE(c.count("damaged") == 1);
      CHECK(c.warnings.back().message.find(name) != std::string::npos);
    }
  }
  SECTION("a truncated archive nested in a tar: the outer one goes on") {
    const std::string tgz = make(entries, Format::pax, Filter::gzip);
    const std::string outer =
        make({{"nodes/node07.tar.gz", tgz.substr(0, tgz.size() / 2), Entry::file, {}},
              {"nodes/after.log", kSyslog, Entry::file, {}}},
             Format::pax);
    Collect c;
    const Result r = walk_memory(outer, "fleet.tar", {}, c);
    INFO(c.dump());
    CHECK(r.status == Status::ok);
    CHECK(c.count("damaged", "nodes/node07.tar.gz") == 1);
    REQUIRE(c.find("nodes/after.log") != nullptr);
    CHECK(c.find("nodes/after.log")->data == kSyslog);
    REQUIRE(c.find("nodes/node07.tar.gz!/" + entries[0].name) != nullptr);
    CHECK(c.find("nodes/node07.tar.gz!/" + entries[0].name)->data == entries[0].data);
  }
  SECTION("a gzip cut inside its header is unreadable at the top level") {
    const std::string tgz = make(entries, Format::pax, Filter::gzip);
    Collect c;
    const Result r = walk_memory(tgz.substr(0, 12), "node.tar.gz", {}, c);
    CHECK(r.status == Status::unreadable);
    CHECK(r.message.rfind("node.tar.gz:", 0) == 0);
  }
}

TEST_CASE("corrupt bytes inside archives never crash the walk") {
  const std::vector<Entry> entries = three_members(64 * 1024);
  const std::vector<std::string> bundles = {make(entries, Format::pax, Filter::gzip),
                                            make(entries, Format::pax, Filter::zstd),
                                            make(entries, Format::zip), make(entries, Format::pax)};
  std::mt19937 rng(12345);
  int runs = 0;
  for (const auto& b : bundles) {
    for (int i = 0; i < 40; ++i) {
      std::string m = b;
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int k = 0; k < flips; ++k) m[rng() % m.size()] = static_cast<char>(rng());
      Collect c;
      const Result r = walk_memory(m, "mutant.tar.gz", {}, c);
      uint64_t bytes = 0;
      for (const auto& g : c.members) bytes += g.bytes;
      CHECK(r.members == c.members.size());
      CHECK(r.bytes == bytes);
      CHECK(r.warnings == c.warnings.size());
      CHECK((r.status == Status::ok || r.status == Status::unreadable));
      ++runs;
    }
  }
  CHECK(runs == 160);
}

TEST_CASE("invalid UTF-8 and control characters in names are sanitized, bytes are kept") {
  const std::string gbk = "\xc4\xe3\xba\xc3 [ERROR] \xff\xfe raw bytes\n";  // GBK text, not UTF-8
  const std::string tar = make({{"logs/bad-\xff\xfe.log", gbk, Entry::file, {}},
                                {"logs/new\nline.log", kSyslog, Entry::file, {}},
                                {"logs/\xe6\x97\xa5\xe5\xbf\x97.log", kPlog, Entry::file, {}}},
                               Format::pax);
  Collect c;
  const Result r = walk_memory(tar, "names.tar", {}, c);
  INFO(c.dump());
  REQUIRE(r.status == Status::ok);
  REQUIRE(c.members.size() == 3);
  const Got* bad = c.find("logs/bad-\xEF\xBF\xBD\xEF\xBF\xBD.log");
  REQUIRE(bad != nullptr);
  CHECK(bad->data == gbk);  // content bytes are never altered
  CHECK(c.find("logs/new\xEF\xBF\xBDline.log") != nullptr);
  CHECK(c.find("logs/\xe6\x97\xa5\xe5\xbf\x97.log") != nullptr);  // valid UTF-8 kept as is
  CHECK(c.count("name") == 2);
  for (const auto& w : c.warnings) CHECK(w.message.find('\n') == std::string::npos);
}

TEST_CASE("symlink, hard link and device members are reported, not read") {
  const std::string tar = make({{"var/log/syslog", kSyslog, Entry::file, {}},
                                {"var/log/link", {}, Entry::symlink, "/etc/shadow"},
                                {"var/log/hard", {}, Entry::hardlink, "var/log/syslog"},
                                {"dev/fifo", {}, Entry::fifo, {}},
                                {"dev/ttyS0", {}, Entry::chardev, {}},
                                {"var/log", {}, Entry::dir, {}}},
                               Format::pax, Filter::gzip);
  Collect c;
  const Result r = walk_memory(tar, "links.tar.gz", {}, c);
  INFO(c.dump());
  REQUIRE(r.status == Status::ok);
  REQUIRE(c.members.size() == 1);
  CHECK(c.members[0].info.path == "var/log/syslog");
  CHECK(c.count("symlink", "var/log/link") == 1);
  CHECK(c.count("hardlink", "var/log/hard") == 1);
  CHECK(c.count("special", "dev/fifo") == 1);
  CHECK(c.count("special", "dev/ttyS0") == 1);
  CHECK(c.warnings.size() == 4);  // directories are normal: no warning

  const std::string zip = make({{"var/log/syslog", kSyslog, Entry::file, {}},
                                {"var/log/link", {}, Entry::symlink, "../../../etc/shadow"}},
                               Format::zip);
  Collect z;
  CHECK(walk_memory(zip, "links.zip", {}, z).status == Status::ok);
  CHECK(z.members.size() == 1);
  CHECK(z.count("symlink", "var/log/link") == 1);
}

TEST_CASE("duplicate names get a suffix and a warning") {
  const std::string tar = make({{"var/log/syslog", "first\n", Entry::file, {}},
                                {"var/log/syslog", "second\n", Entry::file, {}},
                                {"./var/log/syslog", "third\n", Entry::file, {}}},
                               Format::pax);
  Collect c;
  CHECK(walk_memory(tar, "dups.tar", {}, c).status == Status::ok);
  INFO(c.dump());
  REQUIRE(c.members.size() == 3);
  CHECK(c.members[0].info.path == "var/log/syslog");
  CHECK(c.members[0].data == "first\n");
  CHECK(c.members[1].info.path == "var/log/syslog (2)");
  CHECK(c.members[1].data == "second\n");
  CHECK(c.members[2].info.path == "var/log/syslog (3)");
  CHECK(c.members[2].data == "third\n");
  CHECK(c.count("duplicate") == 2);
}

TEST_CASE("limits cut or stop with a warning naming the member") {
  const std::vector<Entry> entries = {{"a.log", many_lines(kSyslog, 5000, 1), Entry::file, {}},
                                      {"b.log", many_lines(kPlog, 5000, 2), Entry::file, {}},
                                      {"c.log", many_lines(kInstall, 5000, 3), Entry::file, {}}};
  const std::string tgz = make(entries, Format::pax, Filter::gzip);

  SECTION("max_member_bytes") {
    Limits lim;
    lim.max_member_bytes = 1000;
    Collect c;
    CHECK(walk_memory(tgz, "b.tar.gz", lim, c).status == Status::ok);
    REQUIRE(c.members.size() == 3);
    for (size_t i = 0; i < 3; ++i) {
      CHECK(c.members[i].truncated);
      CHECK(c.members[i].data == entries[i].data.substr(0, 1000));
    }
    CHECK(c.count("member-size", "a.log") == 1);
    CHECK(c.count("member-size") == 3);
  }
  SECTION("a member of exactly max_member_bytes is not cut") {
    Limits lim;
    lim.max_member_bytes = entries[0].data.size();
    Collect c;
    CHECK(walk_memory(make({entries[0]}, Format::pax), "b.tar", lim, c).status == Status::ok);
    REQUIRE(c.members.size() == 1);
    CHECK_FALSE(c.members[0].truncated);
    CHECK(c.warnings.empty());
  }
  SECTION("max_total_bytes") {
    Limits lim;
    lim.max_total_bytes = entries[0].data.size() + 100;
    Collect c;
    const Result r = walk_memory(tgz, "b.tar.gz", lim, c);
    INFO(c.dump());
    CHECK(r.status == Status::ok);
    REQUIRE(c.members.size() == 2);
    CHECK_FALSE(c.members[0].truncated);
    CHECK(c.members[1].truncated);
    CHECK(c.members[1].data.size() == 100);
    CHECK(c.count("total-size", "b.log") == 1);
    CHECK(r.bytes == lim.max_total_bytes);
  }
  SECTION("max_members") {
    Limits lim;
    lim.max_members = 2;
    Collect c;
    CHECK(walk_memory(tgz, "b.tar.gz", lim, c).status == Status::ok);
    CHECK(c.members.size() == 2);
    CHECK(c.count("members", "c.log") == 1);
  }
  SECTION("max_warnings") {
    std::vector<Entry> links;
    for (int i = 0; i < 5; ++i)
      links.push_back({"l" + std::to_string(i), {}, Entry::symlink, "/x"});
    Limits lim;
    lim.max_warnings = 2;
    Collect c;
    const Result r = walk_memory(make(links, Format::pax), "links.tar", lim, c);
    CHECK(c.count("symlink") == 2);
    CHECK(c.count("warnings") == 1);
    CHECK(r.warnings == 6);
  }
  SECTION("max_member_bytes applies to files of a directory bundle") {
    TempDir t;
    write_file(t.path() / "a.log", entries[0].data);
    Limits lim;
    lim.max_member_bytes = 10;
    Collect c;
    const Result r = walk(t.path(), lim, c);
    REQUIRE(c.members.size() == 1);
    CHECK(c.members[0].data == entries[0].data.substr(0, 10));
    CHECK(c.members[0].truncated);
    // the directory digest still covers the whole file
    CHECK(r.sha256 ==
          sha256_hex("a.log" + std::string(1, '\0') + sha256_hex(entries[0].data) + "\n"));
  }
}

TEST_CASE("archive damaged in the middle of a plain tar") {
  const std::vector<Entry> entries = three_members(8 * 1024);
  std::string tar = make(entries, Format::ustar);
  // the second header starts after the first member's data, rounded up to 512
  const size_t second = 512 + ((entries[0].data.size() + 511) / 512) * 512;
  REQUIRE(tar.compare(second, entries[1].name.size(), entries[1].name) == 0);
  tar[second + 148] = 'X';  // break its checksum
  Collect c;
  const Result r = walk_memory(tar, "node.tar", {}, c);
  INFO(c.dump());
  CHECK(r.status == Status::ok);
  // the member before is intact, the one behind the broken header is lost, reading resumes
  // at the next valid header
  REQUIRE(c.members.size() == 2);
  CHECK(c.members[0].data == entries[0].data);
  CHECK(c.members[1].info.path == entries[2].name);
  CHECK(c.members[1].data == entries[2].data);
  REQUIRE(c.count("damaged") == 1);
  CHECK(c.warnings[0].message.find(entries[2].name) != std::string::npos);
}

TEST_CASE("sparse members: holes read as zeros, skipped for free, not counted as expansion") {
  const int64_t logical = 64LL << 20;
  const std::string head = many_lines(kSyslog, 4096).substr(0, 4096);
  const std::string tail = many_lines(kPlog, 4096).substr(0, 4096);
  auto build = [&](Filter flt) {
    std::string out;
    struct archive* a = writer(Format::pax, flt, &out);
    struct archive_entry* en = archive_entry_new();
    archive_entry_copy_pathname(en, "var/log/lastlog");
    archive_entry_set_filetype(en, AE_IFREG);
    archive_entry_set_perm(en, 0644);
    archive_entry_set_size(en, logical);
    archive_entry_sparse_add_entry(en, 0, 4096);
    archive_entry_sparse_add_entry(en, logical - 4096, 4096);
    check(archive_write_header(a, en), a, "header");
    archive_entry_free(en);
    archive_write_data(a, head.data(), head.size());
    const std::vector<char> zeros(1 << 20, '\0');
    for (int64_t left = logical - 8192; left > 0;) {
      const size_t k =
          static_cast<size_t>(std::min<int64_t>(left, static_cast<int64_t>(zeros.size())));
      archive_write_data(a, zeros.data(), k);
      left -= static_cast<int64_t>(k);
    }
    archive_write_data(a, tail.data(), tail.size());
    add(a, {"var/log/syslog", kSyslog, Entry::file, {}});
    finish(a);
    return out;
  };
  // stored sparse: the uncompressed tar holds only the data blocks
  REQUIRE(build(Filter::none).size() < (1u << 20));
  const std::string tgz = build(Filter::gzip);
  Limits lim;
  lim.ratio_grace_bytes = 1 << 20;  // 64 MiB of holes out of a few KiB would exceed the ratio

  SECTION("read whole") {
    Collect c;
    CHECK(walk_memory(tgz, "node.tar.gz", lim, c).status == Status::ok);
    INFO(c.dump());
    CHECK(c.warnings.empty());
    REQUIRE(c.members.size() == 2);
    const Got& g = c.members[0];
    REQUIRE(g.data.size() == static_cast<size_t>(logical));
    CHECK(g.data.substr(0, 4096) == head);
    CHECK(g.data.substr(g.data.size() - 4096) == tail);
    CHECK(g.data.find_first_not_of('\0', 4096) == g.data.size() - 4096);
    CHECK(c.members[1].data == kSyslog);
  }
  SECTION("not read: skipped without expanding the holes") {
    Collect c;
    c.read_at_most = 0;
    CHECK(walk_memory(tgz, "node.tar.gz", lim, c).status == Status::ok);
    CHECK(c.warnings.empty());
    REQUIRE(c.members.size() == 2);
    CHECK(c.members[1].info.path == "var/log/syslog");
  }
}

TEST_CASE("a visitor that throws: the exception passes through, nothing leaks") {
  auto open_fds = [] {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
    return n;
  };
  TempDir t;
  const auto files = asys_files();
  for (const auto& [p, d] : files) write_file(t.path() / "dir" / p, d);
  write_file(t.path() / "dir/nested.tar.gz", make(files_of(files), Format::pax, Filter::gzip));
  write_file(t.path() / "b.tar.zst", make(files_of(files), Format::pax, Filter::zstd));
  struct Thrower : Collect {
    size_t at = 0;
    void member(const MemberInfo& info, MemberReader& r) override {
      Collect::member(info, r);
      if (members.size() == at) throw std::runtime_error("visitor gave up");
    }
  };
  const size_t before = open_fds();
  // the 6th member of the directory is inside nested.tar.gz
  for (const auto& [p, at] : std::vector<std::pair<fs::path, size_t>>{
           {t.path() / "dir", 6}, {t.path() / "b.tar.zst", 2}}) {
    Thrower v;
    v.at = at;
    CHECK_THROWS_WITH(walk(p, {}, v), "visitor gave up");
    REQUIRE(v.members.size() == at);
    if (at == 6) CHECK(v.members.back().info.path.rfind("nested.tar.gz!/", 0) == 0);
  }
  CHECK(open_fds() == before);
}

TEST_CASE("a header bomb (hundreds of thousands of identical entries) stops at the ratio limit") {
  std::string zst;
  {
    struct archive* a = writer(Format::ustar, Filter::zstd, &zst);
    const Entry d{"var/log/", {}, Entry::dir, {}};
    for (int i = 0; i < 300'000; ++i) add(a, d);  // 150 MB of tar headers
    add(a, {"var/log/syslog", kSyslog, Entry::file, {}});
    finish(a);
  }
  REQUIRE(zst.size() < (1u << 20));
  Collect c;
  const Result r = walk_memory(zst, "hdr.tar.zst", {}, c);
  INFO(c.dump());
  CHECK(r.status == Status::ok);
  CHECK(c.count("ratio") == 1);
  CHECK(c.members.empty());
}

// --- issue 18: nested-archive bombs and the ratio of every container format ---------------------

namespace {

// A visitor that gives up (throws) past a budget of bytes or seconds: a bomb that the walk does
// not bound fails the test in seconds instead of running for minutes.
class Budgeted : public Visitor {
 public:
  Budgeted(uint64_t max_bytes, double max_s) : max_bytes_(max_bytes), max_s_(max_s) {}
  std::vector<Got> members;
  std::vector<Warning> warnings;
  uint64_t bytes = 0;
  void member(const MemberInfo& info, MemberReader& r) override {
    Got g;
    g.info = info;
    std::vector<char> buf(1 << 20);
    for (;;) {
      const size_t n = r.read(buf.data(), buf.size());
      if (n == 0) break;
      g.bytes += n;
      bytes += n;
      if (g.data.size() < 4096) g.data.append(buf.data(), std::min<size_t>(n, 4096));
      guard();
    }
    g.truncated = r.truncated();
    members.push_back(std::move(g));
    guard();
  }
  void warning(const Warning& w) override { warnings.push_back(w); }
  [[nodiscard]] size_t count(std::string_view code, std::string_view text = {}) const {
    const std::string tag = "[" + std::string(code) + "]";
    return static_cast<size_t>(
        std::count_if(warnings.begin(), warnings.end(), [&](const Warning& w) {
          return w.message.rfind(tag, 0) == 0 && w.message.find(text) != std::string::npos;
        }));
  }
  [[nodiscard]] const Got* find(std::string_view path) const {
    for (const auto& m : members)
      if (m.info.path == path) return &m;
    return nullptr;
  }
  [[nodiscard]] double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  void guard() const {
    if (bytes > max_bytes_ || seconds() > max_s_)
      throw std::runtime_error("budget exceeded: " + std::to_string(bytes) + " bytes in " +
                               std::to_string(seconds()) + " s");
  }
  uint64_t max_bytes_;
  double max_s_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The shape of the issue: five levels (the bundle and four nested zips), sixteen copies in each,
// 64 MiB of zeros at the bottom (a deflated zip member): 16^5 x 64 MiB = 64 TiB if walked.
std::string nested_bomb(bool with_logs) {
  std::string level =
      make({{"vmcore", std::string(64U << 20, '\0'), Entry::file, {}}}, Format::zip);
  std::string name = "vmcore.zip";
  for (int d = 0; d < 4; ++d) {
    std::vector<Entry> es;
    for (int i = 0; i < 16; ++i)
      es.push_back({"copy" + std::to_string(i) + "/" + name, level, Entry::file, {}});
    if (d == 3 && with_logs) es.push_back({"var/log/syslog", kSyslog, Entry::file, {}});
    level = make(es, Format::zip);
    name = "level" + std::to_string(d) + ".zip";
  }
  return level;
}

}  // namespace

TEST_CASE("nested-archive bomb (issue 18): identical copies are read once, in seconds") {
  const std::string bomb = nested_bomb(true);
  REQUIRE(bomb.size() < (1U << 20));  // a few dozen KiB
  INFO("bomb of " << bomb.size() << " bytes");
  Budgeted v(2ULL << 30, 30);
  const Result r = walk_memory(bomb, "node07.zip", {}, v);
  INFO(v.count("duplicate-archive")
       << " duplicates, " << v.bytes << " bytes, " << v.seconds() << " s");
  CHECK(r.status == Status::ok);
  CHECK(v.seconds() < 10);
  CHECK(v.bytes < (256ULL << 20));
  // every level: the first copy is read, the 15 others are recognised by their digest
  CHECK(v.count("duplicate-archive", "is identical to 'copy0/") >= 4 * 15);
  // the readable part is still read: the log next to the bomb
  const Got* log = v.find("var/log/syslog");
  REQUIRE(log != nullptr);
  CHECK(log->data == kSyslog);
}

TEST_CASE("nested bomb of distinct copies (issue 18): the ratio of the whole bundle bounds it") {
  // sixteen zstd files of log lines that differ in their last line: no digest is repeated, each
  // nested level on its own is under its ratio grace, the bundle as a whole is far over it
  std::vector<Entry> es;
  for (int i = 0; i < 16; ++i) {
    std::string z;
    while (z.size() < (16U << 20)) z += kSyslog;  // (zeros would be read as an empty tar)
    z += "copy " + std::to_string(i) + "\n";
    es.push_back({"dump/" + std::to_string(i) + ".log.zst",
                  compress_single(z, Filter::zstd),
                  Entry::file,
                  {}});
  }
  es.push_back({"var/log/syslog", kSyslog, Entry::file, {}});
  const std::string bundle = make(es, Format::pax, Filter::zstd);
  Limits lim;
  lim.ratio_grace_bytes = 32U << 20;  // over 16 MiB: a single copy is never cut on its own
  Budgeted v(1ULL << 30, 30);
  const Result r = walk_memory(bundle, "node07.tar.zst", lim, v);
  CHECK(r.status == Status::ok);
  std::string said;
  for (const auto& w : v.warnings) said += w.member + ": " + w.message + "\n";
  INFO(v.bytes << " bytes; warnings:\n" << said);
  // cut once the bundle expanded past the grace, the later copies are not opened
  CHECK(v.bytes < (40ULL << 20));
  CHECK(v.count("ratio", "makes the bundle expand more than 1000 times") == 1);
  CHECK(v.count("ratio", "is not opened: the bundle already expands") >= 12);
  // the warning says what it cost
  for (const auto& w : v.warnings)
    if (w.message.find("makes the bundle expand") != std::string::npos) {
      CHECK(w.message.find(" spent in it") != std::string::npos);
      CHECK(w.member.find("dump/") == 0);
    }
  REQUIRE(v.find("var/log/syslog") != nullptr);
}

TEST_CASE("the ratio limit holds in every container format (issue 18)") {
  // 32 MiB of zeros in one member (deflate: ~1,030 times smaller, just above the limit of 1000;
  // xz, zstd, bzip2 and 7z's LZMA far more), with the grace lowered to 1 MiB
  Limits lim;
  lim.ratio_grace_bytes = 1U << 20;
  struct Case {
    const char* name;
    std::string data;
  };
  static const std::vector<Case> cases = [] {  // built once, not once per section
    const std::vector<Entry> one = {
        {"dfx/log/device/vmcore", std::string(32U << 20, '\0'), Entry::file, {}},
        {"var/log/syslog", kSyslog, Entry::file, {}}};
    std::vector<Case> v;
    v.push_back({"node.tar.gz", make(one, Format::pax, Filter::gzip)});
    v.push_back({"node.tar.zst", make(one, Format::pax, Filter::zstd)});
    v.push_back({"node.tar.xz", make(one, Format::pax, Filter::xz)});
    v.push_back({"node.zip", make(one, Format::zip)});
    v.push_back({"node.7z", make(one, Format::sevenzip)});
    v.push_back({"fleet.tar", make({{"nodes/node.zip", v[3].data, Entry::file, {}}}, Format::pax)});
    return v;
  }();
  for (const auto& c : cases) {
    SECTION(c.name) {
      Budgeted v(1ULL << 30, 30);
      const Result r = walk_memory(c.data, c.name, lim, v);
      INFO(c.name << ": " << v.bytes << " bytes");
      CHECK(r.status == Status::ok);
      CHECK(v.count("ratio") == 1);
      const Got* m = nullptr;
      for (const auto& g : v.members)
        if (g.info.path.find("dfx/log/device/vmcore") != std::string::npos) m = &g;
      REQUIRE(m != nullptr);
      CHECK(m->truncated);
      CHECK(m->bytes < (8U << 20));  // cut soon after the grace, far from 32 MiB
    }
  }
}

// --- issue 36: a member cut by the ratio does not end the walk of its container ---------------

TEST_CASE("a ratio bomb member is cut and the members after it are still read (issue 36)") {
  // The zip: a deflated member of zeros far above max_ratio, then a small plog. With the
  // grace lowered to 1 MiB, 48 MiB of zeros (deflate ~1,030:1; xz, zstd, 7z's LZMA far more) are
  // a bomb in every format and build in a fraction of a second.
  Limits lim;
  lim.ratio_grace_bytes = 1U << 20;
  const std::string plog_path = "dfx/log/host/cann/run/plog/plog-155320_20250508095608125.log";
  struct Case {
    const char* name;
    std::string data;
  };
  static const std::vector<Case> cases = [&] {
    const std::vector<Entry> bomb_first = {
        {"dfx/log/device/vmcore", std::string(48U << 20, '\0'), Entry::file, {}},
        {plog_path, kPlog, Entry::file, {}},
        {"var/log/syslog", kSyslog, Entry::file, {}}};
    std::vector<Case> v;
    v.push_back({"node.zip", make(bomb_first, Format::zip)});
    v.push_back({"node.7z", make(bomb_first, Format::sevenzip)});
    v.push_back({"node.tar.gz", make(bomb_first, Format::pax, Filter::gzip)});
    v.push_back({"node.tar.zst", make(bomb_first, Format::pax, Filter::zstd)});
    v.push_back({"node.tar.xz", make(bomb_first, Format::pax, Filter::xz)});
    v.push_back({"fleet.tar", make({{"nodes/node.zip", v[0].data, Entry::file, {}},
                                    {"after.log", kSyslog, Entry::file, {}}},
                                   Format::pax)});
    return v;
  }();
  for (const auto& c : cases) {
    SECTION(c.name) {
      Budgeted v(1ULL << 30, 30);
      const Result r = walk_memory(c.data, c.name, lim, v);
      INFO(c.name << ": " << v.bytes << " bytes");
      for (const auto& w : v.warnings) INFO(w.member << ": " << w.message);
      CHECK(r.status == Status::ok);
      REQUIRE(v.count("ratio") == 1);
      // the warning names the cut member and says that reading went on
      CHECK(v.count("ratio", "'dfx/log/device/vmcore") +
                v.count("ratio", "!/dfx/log/device/vmcore") ==
            1);
      CHECK(v.count("ratio", "reading goes on with the next member") == 1);
      const std::string prefix = std::string(c.name) == "fleet.tar" ? "nodes/node.zip!/" : "";
      const Got* bomb = v.find(prefix + "dfx/log/device/vmcore");
      REQUIRE(bomb != nullptr);
      CHECK(bomb->truncated);
      CHECK(bomb->bytes < (8U << 20));  // cut soon after the grace, far from 48 MiB
      // the members after the bomb are read whole
      const Got* plog = v.find(prefix + plog_path);
      REQUIRE(plog != nullptr);
      CHECK(plog->data == kPlog);
      CHECK_FALSE(plog->truncated);
      const Got* syslog = v.find(prefix + "var/log/syslog");
      REQUIRE(syslog != nullptr);
      CHECK(syslog->data == kSyslog);
      if (prefix.empty())
        CHECK(v.members.size() == 3);
      else
        CHECK(v.find("after.log") != nullptr);
    }
  }
}

TEST_CASE("skipping the rest of cut members is bounded: past max_skip_bytes the archive stops") {
  // Two bombs in a tar.gz: skipping the rest of each decompresses it (a gzip stream has no index).
  // With max_skip_bytes below what the first one's rest costs, the archive stops there, as before
  // issue 36, and the warning says why.
  Limits lim;
  lim.ratio_grace_bytes = 1U << 20;
  lim.max_skip_bytes = 16U << 20;
  const std::string tgz =
      make({{"dfx/log/device/vmcore", std::string(48U << 20, '\0'), Entry::file, {}},
            {"var/log/syslog", kSyslog, Entry::file, {}}},
           Format::pax, Filter::gzip);
  Budgeted v(1ULL << 30, 30);
  const Result r = walk_memory(tgz, "node.tar.gz", lim, v);
  for (const auto& w : v.warnings) INFO(w.member << ": " << w.message);
  CHECK(r.status == Status::ok);
  CHECK(v.count("ratio", "is cut and the rest of the archive is not read") == 1);
  CHECK(v.find("var/log/syslog") == nullptr);
  // within the budget, the same archive is read to its end
  lim.max_skip_bytes = 64U << 20;
  Budgeted all(1ULL << 30, 30);
  CHECK(walk_memory(tgz, "node.tar.gz", lim, all).status == Status::ok);
  CHECK(all.find("var/log/syslog") != nullptr);
}
