// Text that is not UTF-8 on the wire (issue 18 item 8): UTF-16 members (a syslog saved by a
// Windows editor, PowerShell 5's `>` / Out-File, which write UTF-16LE with a byte order mark) are
// decoded to UTF-8 with a "[utf-16]" warning; uuencoded and base64 ("begin-base64") members are
// decoded by libarchive's uu filter and read as what they hold (a tar's members, a text).
#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace fltest;

namespace {

class Texts : public Visitor {
 public:
  std::map<std::string, std::string> got;
  std::vector<Warning> warnings;
  void member(const MemberInfo& info, MemberReader& r) override {
    std::string& t = got[info.path];
    char buf[4096];
    for (size_t n; (n = r.read(buf, sizeof buf)) > 0;) t.append(buf, n);
  }
  void warning(const Warning& w) override { warnings.push_back(w); }
  size_t count(std::string_view code) const {
    size_t n = 0;
    for (const auto& w : warnings)
      if (w.message.find("[" + std::string(code) + "]") != std::string::npos) ++n;
    return n;
  }
};

// UTF-8 (BMP and astral code points) to UTF-16 code units, serialized LE or BE.
std::string utf16(std::string_view utf8, bool be, bool bom) {
  std::u16string u;
  for (size_t i = 0; i < utf8.size();) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    uint32_t cp = c;
    size_t len = 1;
    if (c >= 0xF0) {
      cp = c & 0x07;
      len = 4;
    } else if (c >= 0xE0) {
      cp = c & 0x0F;
      len = 3;
    } else if (c >= 0xC0) {
      cp = c & 0x1F;
      len = 2;
    }
    for (size_t k = 1; k < len; ++k)
      cp = cp << 6 | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
    i += len;
    if (cp >= 0x10000) {
      u.push_back(static_cast<char16_t>(0xD800 + ((cp - 0x10000) >> 10)));
      u.push_back(static_cast<char16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF)));
    } else {
      u.push_back(static_cast<char16_t>(cp));
    }
  }
  if (bom) u.insert(u.begin(), u'\uFEFF');
  std::string out;
  for (const char16_t ch : u) {
    const char hi = static_cast<char>(ch >> 8), lo = static_cast<char>(ch & 0xFF);
    out += be ? hi : lo;
    out += be ? lo : hi;
  }
  return out;
}

// uuencode(1) and `uuencode -m` (base64) output of `data` named `name`.
std::string uuencode(std::string_view data, std::string_view name) {
  auto enc = [](unsigned v) { return static_cast<char>(v ? 0x20 + v : '`'); };
  std::string out = "begin 644 " + std::string(name) + "\n";
  for (size_t i = 0; i < data.size(); i += 45) {
    const size_t n = std::min<size_t>(45, data.size() - i);
    out += static_cast<char>(0x20 + n);
    for (size_t j = 0; j < n; j += 3) {
      const auto a = static_cast<unsigned char>(data[i + j]);
      const auto b = j + 1 < n ? static_cast<unsigned char>(data[i + j + 1]) : 0U;
      const auto c = j + 2 < n ? static_cast<unsigned char>(data[i + j + 2]) : 0U;
      out += enc(a >> 2);
      out += enc(((a & 3U) << 4) | (b >> 4));
      out += enc(((b & 15U) << 2) | (c >> 6));
      out += enc(c & 63U);
    }
    out += '\n';
  }
  return out + "`\nend\n";
}

std::string base64_uu(std::string_view data, std::string_view name) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string b;
  for (size_t i = 0; i < data.size(); i += 3) {
    uint32_t v = static_cast<unsigned char>(data[i]) << 16;
    if (i + 1 < data.size()) v |= static_cast<unsigned char>(data[i + 1]) << 8;
    if (i + 2 < data.size()) v |= static_cast<unsigned char>(data[i + 2]);
    b += k[v >> 18 & 63];
    b += k[v >> 12 & 63];
    b += i + 1 < data.size() ? k[v >> 6 & 63] : '=';
    b += i + 2 < data.size() ? k[v & 63] : '=';
  }
  std::string out = "begin-base64 644 " + std::string(name) + "\n";
  for (size_t i = 0; i < b.size(); i += 76) out += b.substr(i, 76) + "\n";
  return out + "====\n";
}

const Texts& walk_one(Texts& v, const std::string& member, const std::string& data) {
  const std::string tar = make({{member, data, Entry::file, {}}}, Format::pax, Filter::gzip);
  REQUIRE(walk_memory(tar, "node.tar.gz", {}, v).status == Status::ok);
  return v;
}

}  // namespace

TEST_CASE("UTF-16 members are decoded to UTF-8, with a warning naming the encoding") {
  // kSyslog: real lines; one more with a non-ASCII host name part and an astral code point
  const std::string text =
      kSyslog + "May  8 02:30:11 ubuntu78 sshd[4121]: 登录 user \xF0\x9F\x98\x80\n";
  struct Case {
    const char* name;
    bool be, bom;
    const char* enc;
  };
  for (const Case c : {Case{"LE with BOM (PowerShell Out-File)", false, true, "UTF-16LE"},
                       Case{"BE with BOM", true, true, "UTF-16BE"},
                       Case{"LE without BOM", false, false, "UTF-16LE"},
                       Case{"BE without BOM", true, false, "UTF-16BE"}}) {
    SECTION(c.name) {
      Texts v;
      walk_one(v, "var/log/syslog", utf16(text, c.be, c.bom));
      REQUIRE(v.got.count("var/log/syslog") == 1);
      CHECK(v.got["var/log/syslog"] == text);
      REQUIRE(v.count("utf-16") == 1);
      CHECK(v.warnings[0].message.find(c.enc) != std::string::npos);
      CHECK(v.warnings[0].member == "var/log/syslog");
    }
  }
  SECTION("in a directory bundle, and as the bundle file itself") {
    TempDir tmp;
    fs::create_directories(tmp.path() / "node01/var/log");
    {
      std::ofstream(tmp.path() / "node01/var/log/syslog", std::ios::binary)
          << utf16(text, false, true);
    }
    Texts v;
    REQUIRE(walk(tmp.path(), {}, v).status == Status::ok);
    CHECK(v.got["node01/var/log/syslog"] == text);
    CHECK(v.count("utf-16") == 1);
    Texts top;
    REQUIRE(walk(tmp.path() / "node01/var/log/syslog", {}, top).status == Status::ok);
    REQUIRE(top.got.size() == 1);
    CHECK(top.got.begin()->second == text);
  }
  SECTION("unpaired surrogates and a dangling byte become U+FFFD") {
    Texts v;
    std::string bad = utf16("May  8 00:00:01 ubuntu78 systemd[1]: x\n", false, true);
    bad += std::string("\x00\xD8", 2) + "A" + std::string(1, '\0') + "\x01";  // lone high, 'A', odd
    walk_one(v, "var/log/syslog", bad);
    CHECK(v.got["var/log/syslog"] ==
          "May  8 00:00:01 ubuntu78 systemd[1]: x\n\xEF\xBF\xBD"
          "A\xEF\xBF\xBD");
  }
}

TEST_CASE("binary members and UTF-8 text are not taken for UTF-16") {
  Texts v;
  std::string elf(
      "\x7F"
      "ELF\x02\x01\x01",
      7);
  elf += std::string(57, '\0');
  for (int i = 0; i < 4000; ++i) elf += static_cast<char>((i * 7919) & 0xFF);
  const std::string tar = make(
      {{"usr/bin/npu-smi", elf, Entry::file, {}}, {"var/log/syslog", kSyslog, Entry::file, {}}},
      Format::pax);
  REQUIRE(walk_memory(tar, "node.tar", {}, v).status == Status::ok);
  CHECK(v.count("utf-16") == 0);
  CHECK(v.got["usr/bin/npu-smi"] == elf);
  CHECK(v.got["var/log/syslog"] == kSyslog);
}

TEST_CASE("uuencoded and base64 members are decoded, not read as one unknown text") {
  SECTION("a uuencoded tar: its members are read") {
    const std::string inner = make({{"var/log/syslog", kSyslog, Entry::file, {}},
                                    {"ascend_install.log", kInstall, Entry::file, {}}},
                                   Format::pax);
    Texts v;
    const std::string outer = make(
        {{"upload/node07.tar.uu", uuencode(inner, "node07.tar"), Entry::file, {}}}, Format::pax);
    REQUIRE(walk_memory(outer, "bundle.tar", {}, v).status == Status::ok);
    INFO(v.warnings.size());
    std::string syslog, install;
    for (const auto& [p, t] : v.got) {
      if (p.ends_with("!/var/log/syslog")) syslog = t;
      if (p.ends_with("!/ascend_install.log")) install = t;
    }
    CHECK(syslog == kSyslog);
    CHECK(install == kInstall);
    CHECK(v.got.count("upload/node07.tar.uu") == 0);  // not one unknown text file
  }
  SECTION("a base64 (begin-base64) text file, and one as the bundle itself") {
    Texts v;
    walk_one(v, "var/log/syslog.b64", base64_uu(kSyslog, "syslog"));
    bool found = false;
    for (const auto& [p, t] : v.got)
      if (t == kSyslog) found = true;
    CHECK(found);
    Texts top;
    REQUIRE(walk_memory(uuencode(kSyslog, "syslog"), "syslog.uu", {}, top).status == Status::ok);
    REQUIRE(top.got.size() == 1);
    CHECK(top.got.begin()->second == kSyslog);
  }
  SECTION("text that merely starts with 'begin' stays text") {
    Texts v;
    const std::string t = "begin 644 of the night shift\n" + kSyslog;
    walk_one(v, "notes.txt", t);
    CHECK(v.got["notes.txt"] == t);
  }
}

TEST_CASE("a member named like an archive that is none is read as it is, with a warning") {
  // a plain log saved under an archive name (a collector that failed to pack, a renamed file),
  // and a truncated download whose bytes have no archive or compression header
  std::string noise(4096, '\0');
  for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((i * 131U + 7U) & 0xFFU);
  SECTION("inside an archive") {
    Texts v;
    const std::string tar = make({{"var/log/syslog.1.gz", kSyslog, Entry::file, {}},
                                  {"dfx/node.tar.zst", noise, Entry::file, {}},
                                  {"var/log/syslog", kSyslog, Entry::file, {}}},
                                 Format::pax, Filter::gzip);
    REQUIRE(walk_memory(tar, "node.tar.gz", {}, v).status == Status::ok);
    CHECK(v.got["var/log/syslog.1.gz"] == kSyslog);  // read as text, not lost
    CHECK(v.count("not-archive") == 2);
    bool text = false, binary = false;
    for (const auto& w : v.warnings) {
      if (w.member == "var/log/syslog.1.gz")
        text = w.message.find("read as text") != std::string::npos;
      if (w.member == "dfx/node.tar.zst") binary = w.message.find("binary") != std::string::npos;
    }
    CHECK(text);
    CHECK(binary);
  }
  SECTION("in a directory bundle; a real archive and a plain file raise nothing") {
    TempDir tmp;
    write_file(tmp.path() / "node01/logs.tar.gz", kSyslog);
    write_file(tmp.path() / "node01/real.tar.gz",
               make({{"syslog", kSyslog, Entry::file, {}}}, Format::pax, Filter::gzip));
    write_file(tmp.path() / "node01/syslog", kSyslog);
    Texts v;
    REQUIRE(walk(tmp.path(), {}, v).status == Status::ok);
    CHECK(v.count("not-archive") == 1);
    REQUIRE(!v.warnings.empty());
    CHECK(v.warnings[0].member == "node01/logs.tar.gz");
  }
}
