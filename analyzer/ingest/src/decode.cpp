#include "decode.hpp"

#include <algorithm>
#include <cstring>

#include "detail.hpp"

namespace faultline::ingest::detail {

namespace {

bool starts(std::string_view s, std::string_view magic) {
  return s.size() >= magic.size() && std::memcmp(s.data(), magic.data(), magic.size()) == 0;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Recognising an encoding from the first bytes of a stream (sniff.cpp asks)

Utf16 utf16_text(std::string_view h) {
  if (starts(h, "\xFF\xFE") && !starts(h, std::string_view("\xFF\xFE\x00\x00", 4)))
    return Utf16::le;  // (FF FE 00 00 would be UTF-32LE)
  if (starts(h, "\xFE\xFF")) return Utf16::be;
  // Without a mark: ASCII text as UTF-16 has a NUL in every other byte. At least 32 code units,
  // 95 % of them ASCII printable or whitespace with their high byte NUL.
  const size_t units = std::min<size_t>(h.size(), 8192) / 2;
  if (units < 32) return Utf16::none;
  size_t le = 0, be = 0;
  auto text = [](unsigned char c) {
    return c >= 0x20 ? c < 0x7f : c == '\t' || c == '\n' || c == '\r';
  };
  for (size_t i = 0; i < units; ++i) {
    const auto a = static_cast<unsigned char>(h[2 * i]);
    const auto b = static_cast<unsigned char>(h[2 * i + 1]);
    if (b == 0 && text(a)) ++le;
    if (a == 0 && text(b)) ++be;
  }
  if (le * 100 >= units * 95) return Utf16::le;
  if (be * 100 >= units * 95) return Utf16::be;
  return Utf16::none;
}

bool uuencode_magic(std::string_view h) {
  const bool b64 = starts(h, "begin-base64 ");
  if (!b64 && !starts(h, "begin ")) return false;
  size_t i = b64 ? 13 : 6;
  const size_t mode_at = i;
  while (i < h.size() && h[i] >= '0' && h[i] <= '7') ++i;
  if (i - mode_at < 3 || i - mode_at > 4 || i >= h.size() || h[i] != ' ') return false;
  const size_t nl = h.find('\n', i);
  if (nl == std::string_view::npos || nl - i < 2) return false;
  std::string_view line = h.substr(nl + 1);
  line = line.substr(0, line.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return false;
  if (b64)
    return std::all_of(line.begin(), line.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
             c == '+' || c == '/' || c == '=';
    });
  // uuencode: the first character gives the line's byte count, four characters per three bytes
  const auto n = static_cast<unsigned char>(line[0]);
  if (n < 0x21 || n > 0x60) return false;
  const size_t bytes = (n - 0x20) & 0x3f;
  const size_t chars = (bytes + 2) / 3 * 4;
  return line.size() >= 1 + chars && line.size() <= 2 + chars;
}

// ---------------------------------------------------------------------------------------------
// UTF-16 to UTF-8 (uuencode and base64 are decoded by libarchive's uu filter: only their magic is
// here)

size_t Utf16Source::read(char* buf, size_t n) {
  while (out_.size() - opos_ < n && !eof_) fill();
  const size_t k = std::min(n, out_.size() - opos_);
  std::memcpy(buf, out_.data() + opos_, k);
  opos_ += k;
  if (opos_ == out_.size()) {
    out_.clear();
    opos_ = 0;
  }
  return k;
}

void Utf16Source::put(uint32_t cp) {
  if (cp < 0x80) {
    out_.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out_.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out_.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out_.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out_.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out_.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out_.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}
void Utf16Source::fill() {
  char raw[16 * 1024];
  size_t r = 0;
  if (odd_) raw[r++] = carry_;
  const size_t got = next_.read(raw + r, sizeof raw - r);
  r += got;
  odd_ = false;
  if (got == 0) {
    eof_ = true;
    if (high_) put(0xFFFD);
    if (r == 1) put(0xFFFD);  // a dangling byte
    high_ = 0;
    return;
  }
  size_t i = 0;
  for (; i + 1 < r; i += 2) {
    const auto a = static_cast<unsigned char>(raw[i]);
    const auto b = static_cast<unsigned char>(raw[i + 1]);
    const uint32_t u = be_ ? (a << 8 | b) : (b << 8 | a);
    if (first_) {
      first_ = false;
      if (u == 0xFEFF) continue;  // the byte order mark
    }
    if (high_) {
      if (u >= 0xDC00 && u <= 0xDFFF) {
        put(0x10000 + ((high_ - 0xD800) << 10) + (u - 0xDC00));
        high_ = 0;
        continue;
      }
      put(0xFFFD);
      high_ = 0;
    }
    if (u >= 0xD800 && u <= 0xDBFF)
      high_ = u;
    else if (u >= 0xDC00 && u <= 0xDFFF)
      put(0xFFFD);
    else
      put(u);
  }
  if (i < r) {
    odd_ = true;
    carry_ = raw[i];
  }
}

}  // namespace faultline::ingest::detail
