// Small string helpers used by every parser. No allocation unless the name says so.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::text {

std::string_view trim(std::string_view s);
std::string_view rtrim(std::string_view s);  // also strips '\r'
bool istarts_with(std::string_view s, std::string_view prefix);
bool icontains(std::string_view s, std::string_view needle);
std::string to_lower(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
std::vector<std::string_view> split_ws(std::string_view s);

template <typename T>
std::optional<T> to_int(std::string_view s, int base = 10) {
  T v{};
  const char* b = s.data();
  const char* e = s.data() + s.size();
  auto [p, ec] = std::from_chars(b, e, v, base);
  if (ec != std::errc{} || p != e) return std::nullopt;
  return v;
}

// True when every byte sequence is valid UTF-8.
bool valid_utf8(std::string_view s);
// Replaces invalid UTF-8 sequences by U+FFFD so the text can go into JSON and SQLite TEXT.
std::string sanitize_utf8(std::string_view s);

// Text that is safe to print on a terminal (and to paste into a ticket): every C0 control
// character (ESC, CR, BEL, backspace, ...; '\t' is kept, and '\n' when keep_newlines), DEL and
// every byte of invalid UTF-8 is shown as "\xNN"; every C1 control (U+0080..U+009F) and every
// bidirectional override or isolate (U+202A..U+202E, U+2066..U+2069) as "\uNNNN". Nothing else
// changes, so text without such characters comes back byte for byte, and JSON stays the same JSON
// (the characters can only occur inside its strings, where "\uNNNN" means the same).
std::string terminal_safe(std::string_view s, bool keep_newlines = true);

}  // namespace faultline::text
