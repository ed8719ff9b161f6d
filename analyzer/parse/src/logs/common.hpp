// Shared scanning helpers for the log-line parsers (src/logs/). Hand-written scanners over
// string_view: no std::regex, no allocation on the per-line path.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/core/types.hpp"
#include "faultline/parse/parser.hpp"

namespace faultline::parse::logs {

// Longest line a parser looks at (and reports as event text); the rest of a longer line is
// ignored. Multi-line blocks have their own bound (Block::kMaxBytes).
inline constexpr size_t kMaxLineBytes = 64 * 1024;

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
inline bool is_upper(char c) {
  return c >= 'A' && c <= 'Z';
}
inline bool is_lower(char c) {
  return c >= 'a' && c <= 'z';
}
inline bool is_alpha(char c) {
  return is_upper(c) || is_lower(c);
}
inline bool is_alnum(char c) {
  return is_alpha(c) || is_digit(c);
}
inline bool is_ident(char c) {
  return is_alnum(c) || c == '_';
}
inline bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

inline bool starts_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}
inline bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}
// How common a byte is in log text (higher = rarer), to pick the byte find_sub looks for:
// lower-case letters by their frequency in English, then digits and common separators, then
// upper case, brackets, '=' and other punctuation.
inline constexpr std::array<uint8_t, 256> kByteRarity = [] {
  std::array<uint8_t, 256> r{};
  for (auto& v : r) v = 40;
  const std::string_view by_freq = "etaoinshrdlcumwfgypbvkjxqz";
  for (size_t i = 0; i < by_freq.size(); ++i)
    r[static_cast<unsigned char>(by_freq[i])] = static_cast<uint8_t>(1 + i);
  for (int c = '0'; c <= '9'; ++c) r[c] = 8;
  for (const char c : std::string_view(".,-_/:")) r[static_cast<unsigned char>(c)] = 15;
  for (int c = 'A'; c <= 'Z'; ++c) r[c] = 30;
  r[' '] = 0;
  return r;
}();

// Position of `p` in `s` (npos when absent). string_view::find stops at every occurrence of p's
// first byte, which for needles starting with a space or a common letter is nearly every word of
// a line; glibc's memmem clears a 256-byte table per call, too much for one line. This looks for
// the needle's rarest byte with memchr and compares around it (issue 19: per-line cost).
// A needle with the offset of its rarest byte: computed when the program is compiled for a
// literal (most calls), at the call for a run-time string. Computing it per call cost two
// dependent loads per needle byte on every line (issue 19: the training parser's severity
// words, ~40% of its classify()).
constexpr size_t rarest_byte(std::string_view p) {
  size_t a = 0;
  for (size_t i = 1; i < p.size(); ++i)
    if (kByteRarity[static_cast<unsigned char>(p[i])] >
        kByteRarity[static_cast<unsigned char>(p[a])])
      a = i;
  return a;
}
struct Needle {
  std::string_view p;
  size_t a;
  template <size_t N>
  consteval Needle(const char (&s)[N])  // NOLINT(google-explicit-constructor): literals convert
      : p(s, N - 1), a(rarest_byte(std::string_view(s, N - 1))) {}
  Needle(std::string_view s) : p(s), a(rarest_byte(s)) {}  // NOLINT(google-explicit-constructor)
  Needle(const std::string& s) : Needle(std::string_view(s)) {}  // NOLINT
};

inline size_t find_sub(std::string_view s, const Needle& needle) {
  const std::string_view p = needle.p;
  const size_t n = p.size();
  if (n == 0) return 0;
  if (n > s.size()) return std::string_view::npos;
  const size_t a = needle.a;
  const char* base = s.data();
  const size_t last = s.size() - n + a;  // last position the anchor byte can have
  for (size_t pos = a; pos <= last;) {
    const void* q = std::memchr(base + pos, p[a], last - pos + 1);
    if (q == nullptr) return std::string_view::npos;
    const auto k = static_cast<size_t>(static_cast<const char*>(q) - base);
    if (std::memcmp(base + k - a, p.data(), n) == 0) return k - a;
    pos = k + 1;
  }
  return std::string_view::npos;
}
inline bool contains(std::string_view s, const Needle& p) {
  return find_sub(s, p) != std::string_view::npos;
}

inline std::string_view clip(std::string_view s) {
  return s.substr(0, kMaxLineBytes);
}

inline std::string_view ltrim(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  return s.substr(i);
}
inline std::string_view rtrim_blank(std::string_view s) {
  while (!s.empty() && (is_blank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}
inline std::string_view trim_blank(std::string_view s) {
  return rtrim_blank(ltrim(s));
}
inline bool is_blank_line(std::string_view s) {
  return ltrim(rtrim_blank(s)).empty();
}
inline size_t indent_of(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  return i;
}

// Exactly n digits at s[pos..]; -1 when not all digits.
inline int fixed_digits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return -1;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (!is_digit(c)) return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

// Unsigned decimal at pos (at most 18 digits), advancing pos. False when no digit.
inline bool read_uint(std::string_view s, size_t& pos, int64_t& out) {
  size_t i = pos;
  int64_t v = 0;
  while (i < s.size() && is_digit(s[i]) && i - pos < 18) {
    v = v * 10 + (s[i] - '0');
    ++i;
  }
  if (i == pos) return false;
  out = v;
  pos = i;
  return true;
}
// Optionally signed decimal.
inline bool read_int(std::string_view s, size_t& pos, int64_t& out) {
  size_t i = pos;
  bool neg = false;
  if (i < s.size() && s[i] == '-') {
    neg = true;
    ++i;
  }
  int64_t v = 0;
  if (!read_uint(s, i, v)) return false;
  out = neg ? -v : v;
  pos = i;
  return true;
}

// "  23645.213796" (leading blanks allowed) -> ns; advances pos past the number.
bool read_seconds(std::string_view s, size_t& pos, int64_t& ns);

// Fraction digits after the seconds: "522.534" (ms.us, CANN), "371626" (us), "218" (ms),
// "680800943" (ns). pos points at the first digit; advances it.
int64_t read_fraction(std::string_view s, size_t& pos);

bool valid_civil(const RawTime& t);

// "YYYY-MM-DD<sep>hh:mm:ss[.frac]" at pos with sep in seps ("-", " ", "T", "_"). Advances pos.
bool read_datetime(std::string_view s, size_t& pos, RawTime& t, std::string_view seps = "- T");
// "hh:mm:ss[.frac]" at pos.
bool read_clock(std::string_view s, size_t& pos, RawTime& t);
// "Mon dd hh:mm:ss[.frac]" (syslog / journal short; day space- or zero-padded). Year stays 0.
bool read_syslog_stamp(std::string_view s, size_t& pos, RawTime& t);
// "Thu May  8 02:28:01 2025" (ctime, no zone) at pos; pos moves past the year
bool read_ctime(std::string_view s, size_t& pos, RawTime& t);
// "+0800", "+08:00", "Z", "-0500" right at pos; offset east of UTC in seconds.
bool read_zone_suffix(std::string_view s, size_t& pos, int32_t& offset_s);
// Converts a civil time printed in a stated zone into UTC civil fields and sets clock = utc.
void to_utc(RawTime& t, int32_t offset_s);

// Level words of the CANN slog grammar (and numeric levels). False when unknown.
bool slog_level(std::string_view lvl, Severity& sev);

// Device id and rank found in a message: device_id=, devid=, dev_id=, deviceId=, Device:, chipId:,
// device(N), devid(N), udevid= ...; rankId[..], rank[..], RankID:, rank=, userRank[..].
// -1 when absent.
void find_ids(std::string_view msg, int32_t& device, int32_t& rank);

// Device id named by the member path: device-<N>/ folders (host device-app logs, firmware),
// dev-os-<N>/ (asys device logs), hisi_logs/device-<N>/. -1 when absent.
int32_t device_from_path(std::string_view path);

// Kernel printk payload (dmesg, syslog, journal, host_kernel.log, device sklogd/messages):
// "[ascend] [module] [LEVEL] [func line] <task> msg", "[ascend] [LEVEL] [module] ...",
// "[ascend][DVPP_CMDLIST][DVPP] [func:94] [T1] msg", or any other kernel text.
struct KernelPayload {
  bool ascend = false;
  bool has_level = false;
  Severity level = Severity::info;  // from the bracket level when has_level
  std::string_view module;          // ascend module tag, or the "driver:" prefix of generic lines
  int64_t pid = -1, tid = -1;
  std::string_view msg;
};
KernelPayload parse_kernel_payload(std::string_view payload);
// Severity of a kernel line without a level: keywords (Unknown symbol, Out of memory, Hardware
// Error, AER, Call Trace, error, fail, timeout). `base` is returned when nothing matches.
Severity kernel_keyword_severity(std::string_view msg, Severity base = Severity::info);

// Keeps the header of the previous record so that continuation lines (wrapped text, message
// bodies spread over lines) can be reported as events of that record without re-parsing.
class Continuation {
 public:
  void remember(const Event& e);
  [[nodiscard]] bool active() const { return active_; }
  void reset() { active_ = false; }
  void emit(std::string_view line, const LineCtx& ctx, Sink& sink) const;

 private:
  bool active_ = false;
  Event ev_;
  std::string module_, process_;
};

// A multi-line record being collected (CANN error block, Python traceback, ...). The text is
// bounded: past kMaxBytes / kMaxLines only line_count grows.
class Block {
 public:
  static constexpr size_t kMaxBytes = 256 * 1024;
  static constexpr uint32_t kMaxLines = 2000;
  void start(const LineCtx& ctx, std::string_view raw);
  void add(std::string_view raw);
  [[nodiscard]] bool active() const { return active_; }
  [[nodiscard]] uint32_t lines() const { return lines_; }
  [[nodiscard]] uint32_t first_line() const { return line_; }
  [[nodiscard]] uint64_t first_offset() const { return offset_; }
  [[nodiscard]] const std::string& text() const { return text_; }
  // Emits `e` with line/offset/line_count/text from the block (message and other fields as set
  // by the caller), then clears the block.
  void emit(Event e, Sink& sink);
  void clear() { active_ = false; }

 private:
  bool active_ = false;
  bool truncated_ = false;
  uint32_t line_ = 0;
  uint64_t offset_ = 0;
  uint32_t lines_ = 0;
  std::string text_;
};

// Minimal JSON string escaping for fact values built by parsers (install.event).
std::string json_escape(std::string_view s);

// True when the text is mostly printable (continuation candidates); binary garbage is not.
bool printable_text(std::string_view s);

}  // namespace faultline::parse::logs
