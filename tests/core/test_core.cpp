#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "faultline/core/progress.hpp"
#include "faultline/core/rules.hpp"
#include "faultline/core/sha256.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"
#include "faultline/core/types.hpp"
#include "faultline/core/zones.hpp"

using namespace faultline;

TEST_CASE("sha256 matches the FIPS 180-4 test vectors") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // streaming in odd pieces gives the same digest
  Sha256 h;
  const std::string s(1000, 'a');
  for (size_t i = 0; i < s.size(); i += 7) h.update(std::string_view(s).substr(i, 7));
  CHECK(h.hex() == sha256_hex(s));
}

TEST_CASE("sha256 (OpenSSL) gives the FIPS 180-2 answers streamed, one-shot and copied") {
  // FIPS 180-2 appendix B.3: one million 'a'
  const std::string million(1'000'000, 'a');
  const std::string want = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  CHECK(sha256_hex(million) == want);
  // streamed in pieces that straddle the 64-byte blocks in every way, like ingest's reads
  for (const size_t piece :
       {size_t{1}, size_t{55}, size_t{63}, size_t{64}, size_t{65}, size_t{4096}, size_t{1} << 20}) {
    Sha256 h;
    for (size_t i = 0; i < million.size(); i += piece)
      h.update(std::string_view(million).substr(i, piece));
    CHECK(h.hex() == want);
  }
  // raw digest bytes of "abc" (B.1), and empty updates change nothing
  Sha256 abc;
  abc.update("", 0);
  abc.update("ab");
  abc.update(nullptr, 0);
  Sha256 copy = abc;  // a copy carries the running state on independently
  abc.update("c");
  const auto d = abc.digest();
  CHECK(d[0] == 0xba);
  CHECK(d[1] == 0x78);
  CHECK(d[31] == 0xad);
  Sha256 moved = std::move(copy);
  CHECK(moved.hex() == sha256_hex("ab"));
  Sha256 fresh;
  fresh = Sha256();
  fresh.update("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq");
  CHECK(fresh.hex() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // 896-bit message (FIPS 180-2 SHA-384/512 input, SHA-256 answer from its NIST examples)
  CHECK(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmno"
                   "pqklmnopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST_CASE("civil time round trips and formats as UTC") {
  // host_kernel.log line of the real asys bundle: [2025-05-07-19:54:27.371626] is UTC
  const int64_t ns = civil_to_ns(2025, 5, 7, 19, 54, 27, 371626000);
  CHECK(format_utc(ns) == "2025-05-07T19:54:27.371626Z");
  // epoch payload time=1746674705.163997783s of the device slog is 2025-05-08 03:25:05 UTC
  CHECK(format_utc(1746674705LL * 1'000'000'000) == "2025-05-08T03:25:05.000000Z");
  const Civil c = ns_to_civil(civil_to_ns(2024, 2, 29, 23, 59, 59, 1));
  CHECK(c.year == 2024);
  CHECK(c.month == 2);
  CHECK(c.day == 29);
  CHECK(civil_to_ns(1970, 1, 1, 0, 0, 0, 0) == 0);
}

TEST_CASE("zones as Ascend hosts print them") {
  CHECK(parse_zone("+0800") == 8 * 3600);
  CHECK(parse_zone("-05:30") == -(5 * 3600 + 1800));
  CHECK(parse_zone("CST") == 8 * 3600);
  CHECK(parse_zone("UTC") == 0);
  CHECK_FALSE(parse_zone("nonsense").has_value());
  // names of rules/clock/zones.yaml, as timedatectl, /etc/timezone and date print them
  CHECK(zone_table().errors.empty());
  CHECK(zone_table().offsets.size() > 150);
  CHECK(parse_zone("Asia/Shanghai") == 8 * 3600);
  CHECK(parse_zone("asia/singapore") == 8 * 3600);
  CHECK(parse_zone("Asia/Kolkata") == 5 * 3600 + 1800);
  CHECK(parse_zone("Asia/Kathmandu") == 5 * 3600 + 2700);
  CHECK(parse_zone("Asia/Riyadh") == 3 * 3600);
  CHECK(parse_zone("Europe/Istanbul") == 3 * 3600);
  CHECK(parse_zone("America/Sao_Paulo") == -3 * 3600);
  CHECK(parse_zone("CEST") == 2 * 3600);
  CHECK(parse_zone("EDT") == -4 * 3600);
  CHECK(parse_zone("Etc/UTC") == 0);
  // a zone with daylight saving time has two offsets: not one to read times in
  CHECK_FALSE(parse_zone("Europe/Berlin").has_value());
  CHECK_FALSE(parse_zone("America/New_York").has_value());
  // Urumqi is +06:00 in tzdata, not China's +08:00; AST is Arabia or Atlantic
  CHECK_FALSE(parse_zone("Asia/Urumqi").has_value());
  CHECK_FALSE(parse_zone("AST").has_value());
  CHECK(month_from_abbrev("May") == 5);
  CHECK(month_from_abbrev("dec") == 12);
}

TEST_CASE("zones: the table's zone names have its offset all year in the machine's tzdata",
          "[zones]") {
  // Each IANA name of rules/clock/zones.yaml that this machine's tzdata (/usr/share/zoneinfo)
  // holds must have the table's offset in January and in July (one offset: no daylight saving
  // time). Abbreviations (all capitals: CET, EST, ...) name an offset, not a tzdata zone: not
  // checked here. Skipped without tzdata.
  namespace fs = std::filesystem;
  const fs::path zoneinfo = "/usr/share/zoneinfo";
  const char* old_tz = std::getenv("TZ");
  const std::string saved = old_tz ? old_tz : "";
  size_t checked = 0;
  // the table keeps lower-cased names: read the file's own spellings (tzdata's are mixed case)
  std::vector<std::pair<std::string, int32_t>> names;
  for (const auto& v : embedded_rule_views()) {
    if (v.path != "clock/zones.yaml") continue;
    std::string text(v.text);
    std::regex word(R"(([A-Za-z][A-Za-z_+-]*(?:/[A-Za-z_+-]+)+|\b[A-Z][a-z][A-Za-z_-]*\b))");
    int32_t current = 0;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.find('#') != std::string::npos) line.erase(line.find('#'));
      if (auto at = line.find("offset: '"); at != std::string::npos) {
        auto o = parse_zone(line.substr(at + 9, 6));
        REQUIRE(o);
        current = *o;
        continue;
      }
      for (auto it = std::sregex_iterator(line.begin(), line.end(), word);
           it != std::sregex_iterator(); ++it)
        if ((*it)[1] != "names") names.emplace_back((*it)[1], current);
    }
  }
  REQUIRE(names.size() > 100);
  for (const auto& [name, off] : names) {
    if (!fs::is_regular_file(zoneinfo / name)) continue;
    REQUIRE(parse_zone(name) == off);
    ::setenv("TZ", name.c_str(), 1);
    ::tzset();
    for (int month : {0, 6}) {
      std::tm when{};
      when.tm_year = 2025 - 1900;
      when.tm_mon = month;
      when.tm_mday = 15;
      when.tm_hour = 12;
      const std::time_t t = ::timegm(&when);
      std::tm local{};
      ::localtime_r(&t, &local);
      INFO(name << " month " << month + 1);
      CHECK(local.tm_gmtoff == off);
    }
    ++checked;
  }
  if (old_tz)
    ::setenv("TZ", saved.c_str(), 1);
  else
    ::unsetenv("TZ");
  ::tzset();
  if (checked == 0)
    WARN("no tzdata in /usr/share/zoneinfo: zone offsets not checked");
  else
    CHECK(checked > 100);
}

TEST_CASE("a zones file with mistakes says which entries it could not load") {
  const ZoneTable t = load_zone_table(
      "zones:\n"
      "  - offset: '+08:00'\n"
      "    names: [CST, Asia/Shanghai]\n"
      "  - offset: '8'\n"
      "    names: [Asia/Singapore]\n"
      "  - offset: '+09:00'\n"
      "    names: [cst]\n"
      "  - names: [JST]\n");
  CHECK(t.offsets.size() == 2);
  CHECK(t.offsets.at("asia/shanghai") == 8 * 3600);
  REQUIRE(t.errors.size() == 3);
  CHECK(t.errors[0].find("line 4: offset '8'") == 0);
  CHECK(t.errors[1].find("'cst' is listed twice") != std::string::npos);
  CHECK(t.errors[2].find("line 8") == 0);
  CHECK_FALSE(load_zone_table("zones: {").errors.empty());
  CHECK_FALSE(load_zone_table("- a\n").errors.empty());
}

TEST_CASE("severity spellings of plog, kernel and install logs") {
  CHECK(severity_from("ERROR") == Severity::error);
  CHECK(severity_from("WARN") == Severity::warning);
  CHECK(severity_from("EVENT") == Severity::info);
  CHECK(severity_from("NOTICE") == Severity::notice);
  CHECK_FALSE(severity_from("bogus").has_value());
}

TEST_CASE("utf-8 validation and repair") {
  CHECK(text::valid_utf8("驱动升级后未重启"));
  CHECK_FALSE(text::valid_utf8(std::string("ab\xff\xfe", 4)));
  CHECK(text::sanitize_utf8(std::string("a\xffz", 3)) == "a\xEF\xBF\xBDz");
  CHECK(text::trim("  x \r") == "x");
  CHECK(text::split_ws("  a  b\tc ").size() == 3);
}

TEST_CASE(
    "utf-8 validation: a bad byte or a cut sequence anywhere in an ASCII line (8-byte steps)") {
  // a plog line (log-formats.md §1.2); valid_utf8 skips ASCII eight bytes at a time, so every
  // position relative to those steps must still see a bad byte, a cut or a good sequence
  const std::string line =
      "[ERROR] RUNTIME(8953,python):2020-12-24-01:10:54.177.528 [task.cc:544]8958 "
      "PrintErrorInfo:execute failed, device_id=0, stream_id=116";
  REQUIRE(text::valid_utf8(line));
  for (size_t at = 0; at <= line.size(); ++at) {
    std::string bad = line;
    bad.insert(at, "\xff");
    CHECK_FALSE(text::valid_utf8(bad));
    std::string cut = line.substr(0, at) + "\xe9\xa9";  // the first two bytes of 驱
    CHECK_FALSE(text::valid_utf8(cut));
    std::string good = line;
    good.insert(at, "驱动");
    CHECK(text::valid_utf8(good));
  }
}

TEST_CASE("terminal_safe: no control sequence of a log line reaches a terminal (issue 18)") {
  // xterm title (OSC 0), clipboard write (OSC 52), clear screen (CSI 2J), CR overwrite, BEL, BS
  const std::string evil =
      "a\x1b]0;owned\x07"
      "b\x1b]52;c;cm0gLXJmIH4=\x07"
      "c\x1b[2J\r\x08"
      "d\x7f";
  const std::string safe = text::terminal_safe(evil);
  CHECK(safe == "a\\x1b]0;owned\\x07b\\x1b]52;c;cm0gLXJmIH4=\\x07c\\x1b[2J\\x0d\\x08d\\x7f");
  // C1 CSI (U+009B) and the bidi override of "Trojan Source"; a raw byte of invalid UTF-8
  CHECK(text::terminal_safe("x\xc2\x9b"
                            "31my") == "x\\u009b31my");
  CHECK(text::terminal_safe("\xe2\x80\xae"
                            "gnp.exe\xe2\x81\xa6") == "\\u202egnp.exe\\u2066");
  CHECK(text::terminal_safe(std::string("\x9b", 1)) == "\\x9b");
  // newlines and tabs stay (or not), everything printable stays byte for byte
  CHECK(text::terminal_safe("l1\n\tl2") == "l1\n\tl2");
  CHECK(text::terminal_safe("l1\nl2", false) == "l1\\x0al2");
  CHECK(text::terminal_safe("驱动升级后未重启 é ü | ` <b>") == "驱动升级后未重启 é ü | ` <b>");
}

namespace {
// What a progress::Line wrote into a temporary file.
std::string written(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[256];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  std::fclose(f);
  return out;
}
}  // namespace

TEST_CASE("progress texts: bytes of the total, files, rate and ETA; items of all") {
  using namespace faultline::progress;
  CHECK(size_text(0) == "0 KB");
  CHECK(size_text(812'345) == "812 KB");
  CHECK(size_text(12'345'678) == "12.3 MB");
  CHECK(size_text(1'254'000'000) == "1.25 GB");
  CHECK(duration_text(3.2) == "4 s");
  CHECK(duration_text(125) == "2 min 05 s");
  CHECK(duration_text(3725) == "1 h 02 min");
  // the first moments: no rate yet
  CHECK(bytes_text(1'000'000, 3'600'000, 1, 0.1) == "1.0 MB of 3.6 MB (27%), 1 file");
  // 12 MB in 2 s of 48 MB: 6 MB/s, 36 MB left, 6 s
  CHECK(bytes_text(12'000'000, 48'000'000, 1234, 2.0) ==
        "12.0 MB of 48.0 MB (25%), 1234 files, 6.0 MB/s, ETA 6 s");
  // rounded down: 100% only when everything is read, and no ETA then
  CHECK(bytes_text(47'999'999, 48'000'000, 9, 2.0).find("(99%)") != std::string::npos);
  CHECK(bytes_text(48'000'000, 48'000'000, 9, 2.0) ==
        "48.0 MB of 48.0 MB (100%), 9 files, 24.0 MB/s");
  // a pipe: no total, no percentage, no ETA
  CHECK(bytes_text(5'000'000, 0, 3, 1.0) == "5.0 MB, 3 files, 5.0 MB/s");
  CHECK(count_text(3, 8, "bundles", 0.2) == "3/8 bundles (37%)");
  CHECK(count_text(3, 8, "bundles", 6.0) == "3/8 bundles (37%), 0.50 bundles/s, ETA 10 s");
  CHECK(count_text(8, 8, "bundles", 4.0) == "8/8 bundles (100%), 2.0 bundles/s");
}

TEST_CASE("progress line: a line per update into a pipe, redrawn and erased on a terminal") {
  using namespace faultline::progress;
  {
    std::FILE* f = std::tmpfile();
    REQUIRE(f != nullptr);
    {
      Line l(Mode::lines, "faultline: ", f);
      CHECK(l.due());  // the first update is drawn at once
      l.draw("1 of 2");
      CHECK_FALSE(l.due());  // then at most four a second
      l.finish("2 of 2");
      CHECK_FALSE(l.on());
      l.draw("3 of 2");  // nothing after the end
    }
    CHECK(written(f) == "faultline: 1 of 2\nfaultline: 2 of 2\n");
  }
  {
    std::FILE* f = std::tmpfile();
    REQUIRE(f != nullptr);
    {
      Line l(Mode::terminal, "faultline: ", f);
      l.draw("1 of 2");
      l.draw("2 of 2");
      l.finish("2 of 2");  // erased, not printed again
    }
    CHECK(written(f) == "\rfaultline: 1 of 2\033[K\rfaultline: 2 of 2\033[K\r\033[K");
  }
  {
    std::FILE* f = std::tmpfile();
    REQUIRE(f != nullptr);
    {
      Line l(Mode::terminal, "faultline: ", f);
      l.draw("1 of 2");
    }  // an error ended the run: the line does not stay behind
    CHECK(written(f) == "\rfaultline: 1 of 2\033[K\r\033[K");
  }
  {
    std::FILE* f = std::tmpfile();
    REQUIRE(f != nullptr);
    {
      Line l(Mode::off, "faultline: ", f);
      CHECK_FALSE(l.due());
      l.draw("1 of 2");
      l.finish("2 of 2");
    }
    CHECK(written(f).empty());
  }
}
