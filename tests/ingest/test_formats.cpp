// The same real-format bundle packed in every supported container reads identically.
#include <locale.h>

#include <catch2/catch.hpp>
#include <thread>

#include "faultline/core/sha256.hpp"
#include "helpers.hpp"

using namespace fltest;

namespace {

Collect walk_mem(const std::string& data, const std::string& name, const Limits& lim = {}) {
  Collect c;
  const Result r = walk_memory(data, name, lim, c);
  INFO(c.dump());
  REQUIRE(r.status == Status::ok);
  CHECK(r.sha256 == sha256_hex(data));
  CHECK(r.size == data.size());
  CHECK(r.members == c.members.size());
  return c;
}

void same_members(const Collect& c, const std::map<std::string, std::string>& want,
                  const std::string& prefix = "") {
  INFO(c.dump());
  REQUIRE(c.members.size() == want.size());
  for (const auto& g : c.members) {
    CHECK_FALSE(g.truncated);
    REQUIRE(g.info.path.rfind(prefix, 0) == 0);
    const std::string inner = g.info.path.substr(prefix.size());
    REQUIRE(want.count(inner) == 1);
    CHECK(g.data == want.at(inner));
  }
  CHECK(c.warnings.empty());
}

}  // namespace

TEST_CASE("a real-format bundle reads identically from a directory and from every container") {
  const auto files = asys_files();
  const auto entries = files_of(files);

  // directory
  TempDir dir;
  for (const auto& [p, d] : files) write_file(dir.path() / p, d);
  Collect from_dir;
  const Result rd = walk(dir.path(), {}, from_dir);
  REQUIRE(rd.status == Status::ok);
  same_members(from_dir, files);
  // sorted by path, no container
  for (size_t i = 1; i < from_dir.members.size(); ++i)
    CHECK(from_dir.members[i - 1].info.path < from_dir.members[i].info.path);
  for (const auto& g : from_dir.members) CHECK(g.info.archives.empty());
  uint64_t total = 0;
  for (const auto& [p, d] : files) total += d.size();
  CHECK(rd.size == total);
  CHECK(rd.bytes == total);
  // documented directory digest: sha256 over sorted "path\0sha256(content)\n"
  Sha256 h;
  for (const auto& [p, d] : files) {  // std::map iterates in byte order
    h.update(p);
    h.update(std::string_view("\0", 1));
    h.update(sha256_hex(d));
    h.update("\n");
  }
  CHECK(rd.sha256 == h.hex());

  const std::vector<std::pair<std::string, std::string>> packs = {
      {"bundle.tar", make(entries, Format::pax)},
      {"bundle.gnu.tar", make(entries, Format::gnutar)},
      {"bundle.tar.gz", make(entries, Format::pax, Filter::gzip)},
      {"bundle.tar.zst", make(entries, Format::pax, Filter::zstd)},
      {"bundle.tar.xz", make(entries, Format::pax, Filter::xz)},
      {"bundle.tar.bz2", make(entries, Format::pax, Filter::bzip2)},
      {"bundle.zip", make(entries, Format::zip)},
      {"bundle.cpio", make(entries, Format::cpio)},
      {"bundle.7z", make(entries, Format::sevenzip)},
  };
  for (const auto& [name, data] : packs) {
    SECTION(name) {
      const Collect c = walk_mem(data, name);
      same_members(c, files);
      for (const auto& g : c.members) {
        REQUIRE(g.info.archives.size() == 1);
        CHECK(g.info.archives[0].empty());
        CHECK(g.info.compressed_name.empty());
        CHECK(g.info.mtime == 1746669368);
        CHECK(g.info.size_hint == static_cast<int64_t>(g.data.size()));
      }
      // and from a file on disk: same members, sha256 of the file
      TempDir t;
      write_file(t.path() / name, data);
      Collect f;
      const Result r = walk(t.path() / name, {}, f);
      REQUIRE(r.status == Status::ok);
      CHECK(r.sha256 == sha256_hex(data));
      CHECK(r.size == data.size());
      same_members(f, files);
    }
  }

  SECTION("tar in tar, and tar.gz in zip") {
    const std::string inner = make(entries, Format::pax);
    const std::string outer = make({{"nodes/node07.tar", inner, Entry::file, {}}}, Format::gnutar);
    const Collect c = walk_mem(outer, "outer.tar");
    same_members(c, files, "nodes/node07.tar!/");
    for (const auto& g : c.members)
      CHECK(g.info.archives == std::vector<std::string>{"", "nodes/node07.tar"});

    const std::string tgz = make(entries, Format::pax, Filter::gzip);
    const std::string zip = make({{"node07.tar.gz", tgz, Entry::file, {}}}, Format::zip);
    same_members(walk_mem(zip, "outer.zip"), files, "node07.tar.gz!/");
  }

  SECTION("nested archives are recognised by content, not by name") {
    const std::string inner = make(entries, Format::pax, Filter::zstd);
    const std::string outer = make({{"collected.bin", inner, Entry::file, {}}}, Format::pax);
    same_members(walk_mem(outer, "outer.tar"), files, "collected.bin!/");
  }

  SECTION("fleet: a tar of per-node tar.gz bundles") {
    std::vector<Entry> nodes;
    for (int i = 1; i <= 3; ++i)
      nodes.push_back({"fleet/node0" + std::to_string(i) + ".tar.gz",
                       make(entries, Format::pax, Filter::gzip),
                       Entry::file,
                       {}});
    const Collect c = walk_mem(make(nodes, Format::pax, Filter::none), "fleet.tar");
    REQUIRE(c.members.size() == 3 * files.size());
    CHECK(c.warnings.empty());
    for (int i = 1; i <= 3; ++i) {
      const std::string pfx = "fleet/node0" + std::to_string(i) + ".tar.gz!/";
      for (const auto& [p, d] : files) {
        const Got* g = c.find(pfx + p);
        REQUIRE(g != nullptr);
        CHECK(g->data == d);
      }
    }
  }

  SECTION("a directory holding archives opens them as nested bundles") {
    TempDir t;
    write_file(t.path() / "node07.tar.zst", make(entries, Format::pax, Filter::zstd));
    write_file(t.path() / "node08.zip", make(entries, Format::zip));
    Collect c;
    const Result r = walk(t.path(), {}, c);
    REQUIRE(r.status == Status::ok);
    INFO(c.dump());
    REQUIRE(c.members.size() == 2 * files.size());
    for (const auto& [p, d] : files) {
      REQUIRE(c.find("node07.tar.zst!/" + p) != nullptr);
      CHECK(c.find("node07.tar.zst!/" + p)->data == d);
      REQUIRE(c.find("node08.zip!/" + p) != nullptr);
      CHECK(c.find("node08.zip!/" + p)->data == d);
      CHECK(c.find("node08.zip!/" + p)->info.archives == std::vector<std::string>{"node08.zip"});
    }
  }
}

TEST_CASE("single compressed files are members named without their suffix") {
  const std::vector<std::pair<Filter, std::string>> kinds = {
      {Filter::gzip, ".gz"}, {Filter::zstd, ".zst"}, {Filter::xz, ".xz"}, {Filter::bzip2, ".bz2"}};
  for (const auto& [flt, ext] : kinds) {
    SECTION("top level " + ext) {
      const std::string data = compress_single(kSyslog, flt);
      const Collect c = walk_mem(data, "syslog.2" + ext);
      REQUIRE(c.members.size() == 1);
      CHECK(c.members[0].info.path == "syslog.2");
      CHECK(c.members[0].info.compressed_name == "syslog.2" + ext);
      CHECK(c.members[0].data == kSyslog);
      CHECK(c.warnings.empty());
    }
    SECTION("inside a tar " + ext) {
      const std::string tar =
          make({{"var/log/syslog.2" + ext, compress_single(kSyslog, flt), Entry::file, {}},
                {"var/log/syslog", kSyslog, Entry::file, {}}},
               Format::pax);
      const Collect c = walk_mem(tar, "node.tar");
      INFO(c.dump());
      REQUIRE(c.members.size() == 2);
      const Got* g = c.find("var/log/syslog.2");
      REQUIRE(g != nullptr);
      CHECK(g->info.compressed_name == "syslog.2" + ext);
      CHECK(g->info.archives == std::vector<std::string>{""});
      CHECK(g->data == kSyslog);
      REQUIRE(c.find("var/log/syslog") != nullptr);
      CHECK(c.warnings.empty());
    }
  }
  SECTION("an empty compressed file is an empty member, at the top level and nested") {
    Collect c;
    CHECK(walk_memory(compress_single("", Filter::gzip), "syslog.1.gz", {}, c).status ==
          Status::ok);
    REQUIRE(c.members.size() == 1);
    CHECK(c.members[0].info.path == "syslog.1");
    CHECK(c.members[0].data.empty());
    CHECK(c.warnings.empty());
    const std::string tar =
        make({{"var/log/syslog.1.zst", compress_single("", Filter::zstd), Entry::file, {}}},
             Format::pax);
    Collect n;
    CHECK(walk_memory(tar, "node.tar", {}, n).status == Status::ok);
    INFO(n.dump());
    REQUIRE(n.members.size() == 1);
    CHECK(n.members[0].info.path == "var/log/syslog.1");
    CHECK(n.members[0].info.compressed_name == "syslog.1.zst");
    CHECK(n.warnings.empty());
  }
  SECTION("a compressed file without a known suffix keeps its name") {
    const std::string tar = make(
        {{"host_log/messages-20250508", compress_single(kSyslog, Filter::gzip), Entry::file, {}}},
        Format::pax);
    const Collect c = walk_mem(tar, "node.tar");
    REQUIRE(c.members.size() == 1);
    CHECK(c.members[0].info.path == "host_log/messages-20250508");
    CHECK(c.members[0].info.compressed_name == "messages-20250508");
    CHECK(c.members[0].data == kSyslog);
  }
}

TEST_CASE("a plain text file given directly is a one-member bundle") {
  TempDir t;
  write_file(t.path() / "host_kernel.log", kHostKernel);
  Collect c;
  const Result r = walk(t.path() / "host_kernel.log", {}, c);
  REQUIRE(r.status == Status::ok);
  REQUIRE(c.members.size() == 1);
  CHECK(c.members[0].info.path == "host_kernel.log");
  CHECK(c.members[0].info.archives.empty());
  CHECK(c.members[0].data == kHostKernel);
  CHECK(r.sha256 == sha256_hex(kHostKernel));
  CHECK(r.bytes == kHostKernel.size());

  // /proc/<pid>/environ style NUL-separated text is text too
  const std::string env_text =
      std::string("ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/latest") + '\0' +
      "LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64" + '\0';
  Collect e;
  CHECK(walk_memory(env_text, "environ", {}, e).status == Status::ok);
  REQUIRE(e.members.size() == 1);
  CHECK(e.members[0].data == env_text);
}

TEST_CASE("binary garbage is unreadable, with a message naming the file") {
  std::mt19937 rng(7);
  std::string junk(100000, '\0');
  for (auto& ch : junk) ch = static_cast<char>(rng());
  junk[0] = 'X';  // no accidental magic
  TempDir t;
  write_file(t.path() / "core.12345", junk);
  Collect c;
  const Result r = walk(t.path() / "core.12345", {}, c);
  CHECK(r.status == Status::unreadable);
  CHECK(static_cast<int>(r.status) == 3);
  CHECK(r.message.find((t.path() / "core.12345").string()) != std::string::npos);
  CHECK(r.message.find("binary") != std::string::npos);
  CHECK(c.members.empty());
  CHECK(r.sha256 == sha256_hex(junk));

  Collect m;
  const Result rm = walk_memory(junk, "junk.bin", {}, m);
  CHECK(rm.status == Status::unreadable);
  CHECK(rm.message.rfind("junk.bin:", 0) == 0);

  Collect missing;
  const Result rx = walk(t.path() / "does-not-exist.tar.gz", {}, missing);
  CHECK(rx.status == Status::unreadable);
  CHECK(rx.message.find("does-not-exist.tar.gz") != std::string::npos);
}

TEST_CASE("empty archives and empty files") {
  for (const auto& [name, data] : std::vector<std::pair<std::string, std::string>>{
           {"empty.tar", make({}, Format::pax)},
           {"empty.tar.gz", make({}, Format::pax, Filter::gzip)},
           {"empty.tar.zst", make({}, Format::pax, Filter::zstd)},
           {"empty.zip", make({}, Format::zip)}}) {
    SECTION(name) {
      Collect c;
      const Result r = walk_memory(data, name, {}, c);
      INFO(c.dump());
      CHECK(r.status == Status::ok);
      CHECK(c.members.empty());
      CHECK(c.count("empty") == 1);
    }
  }
  SECTION("an empty file is an empty one-member bundle, with a warning") {
    Collect c;
    const Result r = walk_memory("", "syslog", {}, c);
    CHECK(r.status == Status::ok);
    REQUIRE(c.members.size() == 1);
    CHECK(c.members[0].data.empty());
    CHECK(c.count("empty") == 1);
  }
  SECTION("an empty archive nested in a tar is reported by its path") {
    const std::string tar = make(
        {{"logs/empty.tar.gz", make({}, Format::pax, Filter::gzip), Entry::file, {}}}, Format::pax);
    Collect c;
    CHECK(walk_memory(tar, "b.tar", {}, c).status == Status::ok);
    CHECK(c.members.empty());
    CHECK(c.count("empty", "logs/empty.tar.gz") == 1);
  }
}

TEST_CASE("directory walk: sorted, symlinks and special files not followed") {
  TempDir t;
  const fs::path root = t.path() / "bundle";
  write_file(root / "b/syslog", kSyslog);
  write_file(root / "a.log", kPlog);
  write_file(root / "a/host_kernel.log", kHostKernel);
  fs::create_symlink("/etc/passwd", root / "passwd-link");
  fs::create_directory_symlink(root / "a", root / "z-dir-link");
  REQUIRE(mkfifo((root / "b/fifo").c_str(), 0600) == 0);
  Collect c;
  const Result r = walk(root, {}, c);
  INFO(c.dump());
  REQUIRE(r.status == Status::ok);
  std::vector<std::string> paths;
  for (const auto& g : c.members) paths.push_back(g.info.path);
  CHECK(paths == std::vector<std::string>{"a.log", "a/host_kernel.log", "b/syslog"});
  CHECK(c.count("symlink", "passwd-link") == 1);
  CHECK(c.count("symlink", "z-dir-link") == 1);
  CHECK(c.count("special", "b/fifo") == 1);
  CHECK(r.warnings == 3);
  // the walk wrote nothing
  CHECK(tree(t.path()) == std::vector<std::string>{"bundle", "bundle/a", "bundle/a.log",
                                                   "bundle/a/host_kernel.log", "bundle/b",
                                                   "bundle/b/fifo", "bundle/b/syslog",
                                                   "bundle/passwd-link", "bundle/z-dir-link"});
}

TEST_CASE("tar -C dir -cf - . style names: './' prefixes and directory entries are silent") {
  const std::string tar = make({{"./", {}, Entry::dir, {}},
                                {"./var/", {}, Entry::dir, {}},
                                {"./var/log/syslog", kSyslog, Entry::file, {}},
                                {"var//log/./host_kernel.log", kHostKernel, Entry::file, {}}},
                               Format::gnutar, Filter::zstd);
  Collect c;
  CHECK(walk_memory(tar, "node.tar.zst", {}, c).status == Status::ok);
  INFO(c.dump());
  CHECK(c.warnings.empty());
  REQUIRE(c.members.size() == 2);
  CHECK(c.members[0].info.path == "var/log/syslog");
  CHECK(c.members[1].info.path == "var/log/host_kernel.log");
}

TEST_CASE("archives that need seeking, nested in a stream, and encrypted members") {
  const auto entries = files_of(asys_files());
  SECTION("7z inside a tar cannot be read as a stream: reported, the tar goes on") {
    const std::string tar = make({{"node07.7z", make(entries, Format::sevenzip), Entry::file, {}},
                                  {"after.log", kSyslog, Entry::file, {}}},
                                 Format::pax);
    Collect c;
    CHECK(walk_memory(tar, "b.tar", {}, c).status == Status::ok);
    INFO(c.dump());
    CHECK(c.find("after.log") != nullptr);
    CHECK(c.count("open-failed", "node07.7z") + c.count("damaged", "node07.7z") == 1);
  }
  SECTION("encrypted zip members are skipped with a warning") {
    Collect c;
    CHECK(walk_memory(make(entries, Format::zip_encrypted), "enc.zip", {}, c).status == Status::ok);
    INFO(c.dump());
    CHECK(c.members.empty());
    CHECK(c.count("member-unreadable") == entries.size());
  }
}

TEST_CASE("a nested archive followed by more than one read block of the enclosing archive") {
  // the enclosing archive's reader is called again after the nested one was opened (regression:
  // its buffer must survive the nested level's allocation)
  const auto files = asys_files();
  const std::string big = many_lines(kHostKernel, 3 << 20);
  const std::string outer =
      make({{"a/node.tar.gz", make(files_of(files), Format::pax, Filter::gzip), Entry::file, {}},
            {"b/big.log", big, Entry::file, {}},
            {"c/node.zip", make(files_of(files), Format::zip), Entry::file, {}},
            {"d/big.log", big, Entry::file, {}}},
           Format::pax, Filter::zstd);
  Collect c;
  CHECK(walk_memory(outer, "outer.tar.zst", {}, c).status == Status::ok);
  INFO(c.dump());
  CHECK(c.warnings.empty());
  REQUIRE(c.members.size() == 2 * files.size() + 2);
  CHECK(c.find("b/big.log")->data == big);
  CHECK(c.find("d/big.log")->data == big);
  for (const auto& [p, d] : files) {
    REQUIRE(c.find("a/node.tar.gz!/" + p) != nullptr);
    CHECK(c.find("a/node.tar.gz!/" + p)->data == d);
    REQUIRE(c.find("c/node.zip!/" + p) != nullptr);
    CHECK(c.find("c/node.zip!/" + p)->data == d);
  }
}

TEST_CASE("walks on several threads at once agree, and visitors run in the caller's locale") {
  const auto files = asys_files();
  const std::string zst = make(files_of(files), Format::pax, Filter::zstd);
  struct LocaleCheck : Collect {
    bool caller_locale = true;
    void member(const MemberInfo& info, MemberReader& r) override {
      caller_locale =
          caller_locale && uselocale(static_cast<locale_t>(nullptr)) == LC_GLOBAL_LOCALE;
      Collect::member(info, r);
    }
  };
  std::vector<LocaleCheck> got(4);
  std::vector<Result> res(got.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { res[i] = walk_memory(zst, "node.tar.zst", {}, got[i]); });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(res[i].status == Status::ok);
    CHECK(got[i].caller_locale);
    CHECK(got[i].by_inner_path() == files);
  }
  // after the walk the thread is back in its own locale
  CHECK(uselocale(static_cast<locale_t>(nullptr)) == LC_GLOBAL_LOCALE);
}
