// The decoders between byte sources (analyzer/ingest/src/decode.hpp): UTF-16 to UTF-8, and the
// recognition of UTF-16 text and uuencoded / base64 streams by their first bytes.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "decode.hpp"
#include "detail.hpp"

using namespace faultline::ingest::detail;

namespace {

// A Source over a string, handing out at most `step` bytes per read (odd splits of code units).
class StringSource final : public Source {
 public:
  StringSource(std::string s, size_t step) : s_(std::move(s)), step_(step) {}
  size_t read(char* buf, size_t n) override {
    const size_t k = std::min({n, step_, s_.size() - pos_});
    std::memcpy(buf, s_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  std::string s_;
  size_t step_;
  size_t pos_ = 0;
};

std::string utf16(const std::u16string& u, bool be, bool bom) {
  std::string out;
  auto put = [&](char16_t c) {
    const char hi = static_cast<char>(c >> 8), lo = static_cast<char>(c & 0xff);
    out += be ? hi : lo;
    out += be ? lo : hi;
  };
  if (bom) put(0xFEFF);
  for (char16_t c : u) put(c);
  return out;
}

std::string decode(const std::string& bytes, bool be, size_t step) {
  StringSource src(bytes, step);
  Utf16Source u(src, be);
  std::string out;
  char buf[7];
  for (size_t n; (n = u.read(buf, sizeof buf)) > 0;) out.append(buf, n);
  return out;
}

}  // namespace

TEST_CASE("UTF-16 LE and BE decode to UTF-8, the byte order mark dropped", "[decode]") {
  // a line of a Windows-side export of an NPU log (PowerShell Out-File writes UTF-16 LE)
  const std::u16string line =
      u"[ERROR] RUNTIME(38291,python3):2026-03-04-15:09:41.733.998 report three minutes timeout!\n";
  const std::string want =
      "[ERROR] RUNTIME(38291,python3):2026-03-04-15:09:41.733.998 report three minutes timeout!\n";
  for (size_t step : {1, 2, 3, 4096}) {
    INFO("step " << step);
    CHECK(decode(utf16(line, false, true), false, step) == want);
    CHECK(decode(utf16(line, true, true), true, step) == want);
    CHECK(decode(utf16(line, false, false), false, step) == want);
  }
}

TEST_CASE("UTF-16: surrogate pairs join, unpaired ones and a dangling byte become U+FFFD",
          "[decode]") {
  const std::u16string pair = u"\U0001F600 \u00e9\u4e2d";  // 4-, 2- and 3-byte UTF-8
  CHECK(decode(utf16(pair, false, false), false, 1) == "\xF0\x9F\x98\x80 \xC3\xA9\xE4\xB8\xAD");
  std::u16string lone;
  lone += static_cast<char16_t>(0xD800);
  lone += u"a";
  lone += static_cast<char16_t>(0xDC00);
  CHECK(decode(utf16(lone, false, false), false, 4096) ==
        "\xEF\xBF\xBD"
        "a"
        "\xEF\xBF\xBD");
  CHECK(decode(utf16(u"ab", false, false) + "x", false, 4096) == "ab\xEF\xBF\xBD");
}

TEST_CASE("encodings are recognised from the first bytes", "[decode]") {
  CHECK(utf16_text(utf16(u"x", false, true)) == Utf16::le);
  CHECK(utf16_text(utf16(u"x", true, true)) == Utf16::be);
  CHECK(utf16_text(std::string("\xFF\xFE\x00\x00", 4)) == Utf16::none);  // UTF-32LE
  const std::u16string text =
      u"May  8 00:00:01 ubuntu78 systemd[1]: logrotate.service: Succeeded.\n";
  CHECK(utf16_text(utf16(text, false, false)) == Utf16::le);
  CHECK(utf16_text(utf16(text, true, false)) == Utf16::be);
  CHECK(utf16_text("May  8 00:00:01 ubuntu78 systemd[1]: logrotate.service: Succeeded.\n") ==
        Utf16::none);
  // the first 45 bytes of a syslog line, uuencoded (a member mailed as `uuencode syslog`)
  CHECK(uuencode_magic(
      "begin 644 syslog\nM36%Y(\" X(# P.C P.C Q('5B=6YT=3<X('-Y<W1E;61;,5TZ(&QO9W)O=&%T\n"));
  CHECK(uuencode_magic("begin-base64 644 syslog\nTWF5ICA4IDAwOjAwOjAx\n"));
  CHECK_FALSE(uuencode_magic("begin the analysis\nnot encoded\n"));
  CHECK_FALSE(uuencode_magic("begin 644 syslog\n"));  // no encoded line
}
