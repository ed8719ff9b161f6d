#include "faultline/core/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace faultline::text {

namespace {
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}
char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view rtrim(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (lower(s[i]) != lower(prefix[i])) return false;
  return true;
}

bool icontains(std::string_view s, std::string_view needle) {
  if (needle.empty()) return true;
  auto it = std::search(s.begin(), s.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return lower(a) == lower(b); });
  return it != s.end();
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      out.push_back(s.substr(start));
      break;
    }
    out.push_back(s.substr(start, p - start));
    start = p + 1;
  }
  return out;
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

namespace {
// Length of the valid UTF-8 sequence starting at s[i], or 0 when invalid.
size_t utf8_len(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1Fu;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0Fu;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3Fu);
  }
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
      cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}
}  // namespace

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // fast path for ASCII runs: eight bytes at a time while none has its high bit set (every
    // event text and fact value is checked before it is stored; log text is mostly ASCII)
    while (i + 8 <= s.size()) {
      uint64_t w = 0;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & 0x8080808080808080ULL) != 0) break;
      i += 8;
    }
    if (i >= s.size()) break;
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = utf8_len(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const size_t n = utf8_len(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

namespace {
bool hidden_codepoint(std::string_view seq) {
  const auto b0 = static_cast<unsigned char>(seq[0]);
  if (seq.size() == 2) return b0 == 0xC2 && static_cast<unsigned char>(seq[1]) <= 0x9F;  // C1
  if (seq.size() == 3 && b0 == 0xE2) {
    const auto b1 = static_cast<unsigned char>(seq[1]);
    const auto b2 = static_cast<unsigned char>(seq[2]);
    return (b1 == 0x80 && b2 >= 0xAA && b2 <= 0xAE) ||  // U+202A..U+202E
           (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9);    // U+2066..U+2069
  }
  return false;
}
}  // namespace

std::string terminal_safe(std::string_view s, bool keep_newlines) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    if (c == '\t' || (c == '\n' && keep_newlines)) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    const size_t n = c < 0x80 ? 1 : utf8_len(s, i);
    if (c < 0x80 || n == 0) {  // C0 control, DEL or a byte of invalid UTF-8
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
      ++i;
      continue;
    }
    const std::string_view seq = s.substr(i, n);
    if (hidden_codepoint(seq)) {
      uint32_t cp = 0;
      if (n == 2)
        cp = ((static_cast<unsigned char>(seq[0]) & 0x1Fu) << 6) |
             (static_cast<unsigned char>(seq[1]) & 0x3Fu);
      else
        cp = ((static_cast<unsigned char>(seq[0]) & 0x0Fu) << 12) |
             ((static_cast<unsigned char>(seq[1]) & 0x3Fu) << 6) |
             (static_cast<unsigned char>(seq[2]) & 0x3Fu);
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(cp >> shift) & 0xF]);
    } else {
      out.append(seq);
    }
    i += n;
  }
  return out;
}

}  // namespace faultline::text
