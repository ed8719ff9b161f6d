#include "logs/common.hpp"

#include <array>
#include <limits>

#include "faultline/core/time.hpp"

namespace faultline::parse::logs {

bool read_seconds(std::string_view s, size_t& pos, int64_t& ns) {
  size_t i = pos;
  while (i < s.size() && s[i] == ' ') ++i;
  int64_t secs = 0;
  if (!read_uint(s, i, secs)) return false;
  // more seconds than nanoseconds in an int64 can hold (292 years) is no uptime or epoch
  if (secs > std::numeric_limits<int64_t>::max() / 1'000'000'000 - 1) return false;
  int64_t frac = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || !is_digit(s[i])) return false;
    frac = read_fraction(s, i);
  }
  ns = secs * 1'000'000'000 + frac;
  pos = i;
  return true;
}

int64_t read_fraction(std::string_view s, size_t& pos) {
  size_t i = pos;
  int64_t v = 0;
  size_t n = 0;
  while (i < s.size() && is_digit(s[i])) {
    if (n < 9) {
      v = v * 10 + (s[i] - '0');
      ++n;
    }
    ++i;
  }
  // CANN "mmm.uuu": milliseconds, a dot, microseconds.
  if (i - pos == 3 && i < s.size() && s[i] == '.' && fixed_digits(s, i + 1, 3) >= 0 &&
      (i + 4 >= s.size() || !is_digit(s[i + 4]))) {
    v = v * 1000 + fixed_digits(s, i + 1, 3);
    n = 6;
    i += 4;
  }
  for (size_t k = n; k < 9; ++k) v *= 10;
  pos = i;
  return v;
}

bool valid_civil(const RawTime& t) {
  return (t.year == 0 || (t.year >= 1900 && t.year <= 2200)) && t.month >= 1 && t.month <= 12 &&
         t.day >= 1 && t.day <= 31 && t.hour >= 0 && t.hour <= 23 && t.minute >= 0 &&
         t.minute <= 59 && t.second >= 0 && t.second <= 60;
}

bool read_clock(std::string_view s, size_t& pos, RawTime& t) {
  const int h = fixed_digits(s, pos, 2);
  if (h < 0 || pos + 8 > s.size() || s[pos + 2] != ':' || s[pos + 5] != ':') return false;
  const int mi = fixed_digits(s, pos + 3, 2);
  const int se = fixed_digits(s, pos + 6, 2);
  if (mi < 0 || se < 0) return false;
  size_t i = pos + 8;
  int64_t nanos = 0;
  if (i + 1 < s.size() && (s[i] == '.' || s[i] == ',') && is_digit(s[i + 1])) {
    ++i;
    nanos = read_fraction(s, i);
  }
  t.hour = h;
  t.minute = mi;
  t.second = se;
  t.nanos = nanos;
  pos = i;
  return true;
}

bool read_datetime(std::string_view s, size_t& pos, RawTime& t, std::string_view seps) {
  const int y = fixed_digits(s, pos, 4);
  if (y < 0 || pos + 10 >= s.size() || s[pos + 4] != '-' || s[pos + 7] != '-') return false;
  const int mo = fixed_digits(s, pos + 5, 2);
  const int d = fixed_digits(s, pos + 8, 2);
  if (mo < 0 || d < 0) return false;
  if (seps.find(s[pos + 10]) == std::string_view::npos) return false;
  RawTime r = t;
  r.year = y;
  r.month = mo;
  r.day = d;
  size_t i = pos + 11;
  if (!read_clock(s, i, r)) return false;
  if (!valid_civil(r)) return false;
  t = r;
  pos = i;
  return true;
}

bool read_syslog_stamp(std::string_view s, size_t& pos, RawTime& t) {
  if (pos + 15 > s.size()) return false;
  const auto mon = month_from_abbrev(s.substr(pos, 3));
  if (!mon || s[pos + 3] != ' ') return false;
  size_t i = pos + 4;
  if (s[i] == ' ') ++i;
  int64_t day = 0;
  const size_t d0 = i;
  if (!read_uint(s, i, day) || i - d0 > 2 || i >= s.size() || s[i] != ' ') return false;
  ++i;
  RawTime r = t;
  r.year = 0;
  r.month = *mon;
  r.day = static_cast<int32_t>(day);
  if (!read_clock(s, i, r) || !valid_civil(r)) return false;
  t = r;
  pos = i;
  return true;
}

bool read_zone_suffix(std::string_view s, size_t& pos, int32_t& offset_s) {
  if (pos >= s.size()) return false;
  if (s[pos] == 'Z') {
    offset_s = 0;
    ++pos;
    return true;
  }
  if (s[pos] != '+' && s[pos] != '-') return false;
  const int h = fixed_digits(s, pos + 1, 2);
  if (h < 0) return false;
  size_t i = pos + 3;
  if (i < s.size() && s[i] == ':') ++i;
  const int m = fixed_digits(s, i, 2);
  if (m < 0 || h > 14 || m > 59) return false;
  offset_s = (h * 3600 + m * 60) * (s[pos] == '-' ? -1 : 1);
  pos = i + 2;
  return true;
}

void to_utc(RawTime& t, int32_t offset_s) {
  const int64_t ns = civil_to_ns(t.year, t.month, t.day, t.hour, t.minute, t.second, t.nanos) -
                     static_cast<int64_t>(offset_s) * 1'000'000'000;
  const Civil c = ns_to_civil(ns);
  t.year = c.year;
  t.month = c.month;
  t.day = c.day;
  t.hour = c.hour;
  t.minute = c.minute;
  t.second = c.second;
  t.nanos = c.nanos;
  t.clock = Clock::utc;
}

bool slog_level(std::string_view lvl, Severity& sev) {
  if (lvl.empty()) return false;
  if (is_digit(lvl[0])) {
    size_t p = 0;
    int64_t n = 0;
    if (!read_uint(lvl, p, n) || p != lvl.size()) return false;
    switch (n) {
      case 0:
        sev = Severity::debug;
        break;
      case 1:
        sev = Severity::info;
        break;
      case 2:
        sev = Severity::warning;
        break;
      case 3:
        sev = Severity::error;
        break;
      case 4:
        sev = Severity::debug;
        break;
      default:
        sev = Severity::info;
        break;
    }
    return true;
  }
  switch (lvl[0]) {
    case 'E':
      if (lvl == "ERROR") {
        sev = Severity::error;
        return true;
      }
      if (lvl == "EVENT") {
        sev = Severity::info;
        return true;
      }
      return false;
    case 'I':
      if (lvl == "INFO") {
        sev = Severity::info;
        return true;
      }
      return false;
    case 'W':
      if (lvl == "WARNING" || lvl == "WARN") {
        sev = Severity::warning;
        return true;
      }
      return false;
    case 'D':
      if (lvl == "DEBUG") {
        sev = Severity::debug;
        return true;
      }
      return false;
    case 'N':
      if (lvl == "NULL") {
        sev = Severity::debug;
        return true;
      }
      if (lvl == "NOTICE") {
        sev = Severity::notice;
        return true;
      }
      return false;
    case 'C':
      if (lvl == "CRITICAL") {
        sev = Severity::critical;
        return true;
      }
      return false;
    case 'F':
      if (lvl == "FATAL") {
        sev = Severity::critical;
        return true;
      }
      return false;
    default:
      return false;
  }
}

namespace {
struct IdNeedle {
  std::string_view text;
  bool device;
};
// First characters: d D c u r R. Scanned once per message.
constexpr std::array<IdNeedle, 26> kIdNeedles = {{
    {"device_id=", true}, {"device_id:", true}, {"device_id[", true}, {"deviceId=", true},
    {"deviceId[", true},  {"deviceId:", true},  {"deviceId(", true},  {"devid=", true},
    {"devid(", true},     {"devId=", true},     {"devId(", true},     {"dev_id=", true},
    {"dev=", true},       {"device=", true},    {"device(", true},    {"deviceLogicId[", true},
    {"Device:", true},    {"chipId:", true},    {"udevid=", true},    {"rankId[", false},
    {"rankId:", false},   {"rankId=", false},   {"RankID:", false},   {"rank[", false},
    {"rank=", false},     {"userRank[", false},
}};
}  // namespace

namespace {
// Tries the needles that start at `start`; returns true and the value when one matches.
bool id_at(std::string_view msg, size_t start, bool device, int64_t& value) {
  if (start > 0 && is_ident(msg[start - 1])) return false;
  for (const auto& nd : kIdNeedles) {
    if (nd.device != device || nd.text[0] != msg[start]) continue;
    if (msg.compare(start, nd.text.size(), nd.text) != 0) continue;
    size_t j = start + nd.text.size();
    while (j < msg.size() && msg[j] == ' ') ++j;
    int64_t v = 0;
    if (j < msg.size() && is_digit(msg[j]) && read_uint(msg, j, v) && v < 1'000'000) {
      value = v;
      return true;
    }
    return false;
  }
  return false;
}
}  // namespace

// memchr on the rare middle letters of the needles ('v' of dev, 'k' of rank, 'I' of chipId)
// instead of testing every byte: this runs on every line of every log.
void find_ids(std::string_view msg, int32_t& device, int32_t& rank) {
  device = -1;
  rank = -1;
  size_t dev_pos = std::string_view::npos;
  int64_t v = 0;
  for (size_t p = msg.find('v'); p != std::string_view::npos; p = msg.find('v', p + 1)) {
    if (p < 2 || msg[p - 1] != 'e' || (msg[p - 2] != 'd' && msg[p - 2] != 'D')) continue;
    size_t s = p - 2;
    if (s >= 1 && msg[s - 1] == 'u') --s;  // udevid=
    if (id_at(msg, s, true, v)) {
      device = static_cast<int32_t>(v);
      dev_pos = s;
      break;
    }
  }
  for (size_t p = msg.find('I'); p != std::string_view::npos && p < dev_pos;
       p = msg.find('I', p + 1)) {
    if (p < 4 || msg.compare(p - 4, 4, "chip") != 0) continue;
    if (id_at(msg, p - 4, true, v)) {
      device = static_cast<int32_t>(v);
      break;
    }
  }
  for (size_t p = msg.find('k'); p != std::string_view::npos; p = msg.find('k', p + 1)) {
    if (p < 3 || msg[p - 1] != 'n' || msg[p - 2] != 'a' || (msg[p - 3] != 'r' && msg[p - 3] != 'R'))
      continue;
    size_t s = p - 3;
    if (s >= 4 && msg.compare(s - 4, 4, "user") == 0) s -= 4;  // userRank[
    if (id_at(msg, s, false, v)) {
      rank = static_cast<int32_t>(v);
      break;
    }
  }
}

int32_t device_from_path(std::string_view path) {
  int32_t found = -1;
  for (std::string_view key : {std::string_view("device-"), std::string_view("dev-os-")}) {
    size_t p = 0;
    while ((p = path.find(key, p)) != std::string_view::npos) {
      size_t j = p + key.size();
      int64_t v = 0;
      if ((p == 0 || path[p - 1] == '/' || path[p - 1] == '\\') && read_uint(path, j, v) &&
          j < path.size() && (path[j] == '/' || path[j] == '\\') && v < 100000) {
        found = static_cast<int32_t>(v);
      }
      p += key.size();
    }
  }
  return found;
}

namespace {
bool kernel_level_word(std::string_view w, Severity& sev) {
  if (w == "ERROR" || w == "ERR")
    sev = Severity::error;
  else if (w == "WARN" || w == "WARNING")
    sev = Severity::warning;
  else if (w == "INFO")
    sev = Severity::info;
  else if (w == "NOTICE")
    sev = Severity::notice;
  else if (w == "DEBUG")
    sev = Severity::debug;
  else if (w == "EVENT")
    sev = Severity::info;
  else if (w == "CRIT" || w == "FATAL")
    sev = Severity::critical;
  else
    return false;
  return true;
}

// "func 123" or "func:123"
bool func_line(std::string_view c) {
  if (c.size() < 3 || !is_digit(c.back())) return false;
  size_t i = c.size();
  while (i > 0 && is_digit(c[i - 1])) --i;
  if (i < 2 || (c[i - 1] != ' ' && c[i - 1] != ':')) return false;
  for (size_t k = 0; k + 1 < i; ++k)
    if (!is_ident(c[k]) && c[k] != '.') return false;
  return true;
}

void parse_task(std::string_view t, int64_t& pid, int64_t& tid) {
  size_t start = 0;
  if (starts_with(t, "kworker/")) {
    const size_t c1 = t.find(':', 8);
    if (c1 == std::string_view::npos) return;
    start = c1 + 1;
  }
  size_t c = start;
  while (true) {
    c = t.find(':', c);
    if (c == std::string_view::npos) return;
    if (c + 1 < t.size() && is_digit(t[c + 1])) break;
    ++c;
  }
  size_t i = c + 1;
  int64_t v = 0;
  if (!read_uint(t, i, v)) return;
  pid = v;
  if (i < t.size() && (t[i] == ',' || t[i] == ':')) {
    ++i;
    if (read_uint(t, i, v)) tid = v;
  }
}
}  // namespace

KernelPayload parse_kernel_payload(std::string_view p) {
  KernelPayload k;
  k.msg = p;
  if (!starts_with(p, "[ascend]")) {
    size_t i = 0;
    while (i < p.size() && i < 40 && (is_ident(p[i]) || p[i] == '-' || p[i] == '.')) ++i;
    if (i > 0 && i < p.size() && (p[i] == ':' || p[i] == ' ')) k.module = p.substr(0, i);
    return k;
  }
  k.ascend = true;
  size_t pos = 8;
  for (int g = 0; g < 5; ++g) {
    size_t q = pos;
    while (q < p.size() && p[q] == ' ') ++q;
    if (q >= p.size() || p[q] != '[') break;
    const size_t close = p.find(']', q);
    if (close == std::string_view::npos) break;
    const std::string_view c = p.substr(q + 1, close - q - 1);
    pos = close + 1;
    Severity sev{};
    if (kernel_level_word(c, sev)) {
      k.level = sev;
      k.has_level = true;
    } else if (func_line(c)) {
      break;
    } else if (k.module.empty()) {
      k.module = c;
    } else if (starts_with(c, "curpid")) {
      continue;
    }
  }
  while (pos < p.size() && p[pos] == ' ') ++pos;
  if (pos < p.size() && p[pos] == '<') {
    const size_t close = p.find('>', pos);
    if (close != std::string_view::npos && close - pos < 128) {
      parse_task(p.substr(pos + 1, close - pos - 1), k.pid, k.tid);
      pos = close + 1;
      if (pos < p.size() && p[pos] == ' ') ++pos;
    }
  } else if (pos + 2 < p.size() && p[pos] == '[' && p[pos + 1] == 'T' && is_digit(p[pos + 2])) {
    const size_t close = p.find(']', pos);
    if (close != std::string_view::npos && close - pos < 16) {
      pos = close + 1;
      if (pos < p.size() && p[pos] == ' ') ++pos;
    }
  }
  k.msg = p.substr(pos);
  return k;
}

namespace {
// w[0] == s[i] is known; test w[1] inline before the full compare (called on frequent letters)
inline bool at(std::string_view s, size_t i, std::string_view w) {
  return i + w.size() <= s.size() && s[i + 1] == w[1] && s.compare(i, w.size(), w) == 0;
}
// Case-insensitive match of a lowercase ASCII word at i.
inline bool iat(std::string_view s, size_t i, std::string_view w) {
  if (i + w.size() > s.size()) return false;
  for (size_t k = 1; k < w.size(); ++k) {
    char c = s[i + k];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    if (c != w[k]) return false;
  }
  return true;
}
}  // namespace

// One pass over the text with a switch on each byte (this runs on every kernel line of dmesg,
// syslog and journal files, so no per-keyword search).
namespace {
// First letters of the keywords below; everything else is skipped without a branch into the switch.
constexpr std::array<bool, 256> kKeywordStart = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("UOoKHCBdsAeEfFtT")) t[c] = true;
  return t;
}();
}  // namespace

Severity kernel_keyword_severity(std::string_view m, Severity base) {
  bool warn = false;
  const size_t n = m.size();
  for (size_t i = 0; i < n; ++i) {
    if (!kKeywordStart[static_cast<unsigned char>(m[i])]) continue;
    switch (m[i]) {
      case 'U':
        if (at(m, i, "Unknown symbol") || at(m, i, "Uncorrected"))
          return Severity::error > base ? Severity::error : base;
        break;
      case 'O':
        if (at(m, i, "Out of memory") || at(m, i, "Oops"))
          return Severity::error > base ? Severity::error : base;
        break;
      case 'o':
        if (at(m, i, "out of memory") || at(m, i, "oom-kill"))
          return Severity::error > base ? Severity::error : base;
        break;
      case 'K':
        if (at(m, i, "Killed process") || at(m, i, "Kernel panic"))
          return Severity::error > base ? Severity::error : base;
        break;
      case 'H':
        if (at(m, i, "Hardware Error") || at(m, i, "Hardware error") || at(m, i, "Heartbeat lost"))
          return Severity::error > base ? Severity::error : base;
        break;
      case 'C':
        if (at(m, i, "Call Trace")) return Severity::error > base ? Severity::error : base;
        if (at(m, i, "Corrected")) warn = true;
        break;
      case 'B':
        if (at(m, i, "BUG:")) return Severity::error > base ? Severity::error : base;
        break;
      case 'd':
        if (at(m, i, "disagrees about version of symbol"))
          return Severity::error > base ? Severity::error : base;
        break;
      case 's':
        if (at(m, i, "segfault")) return Severity::error > base ? Severity::error : base;
        break;
      case 'A':
        if (at(m, i, "AER")) warn = true;
        break;
      default:
        break;
    }
    if (!warn) {
      const char c = m[i];
      if ((c == 'e' || c == 'E') && iat(m, i, "error"))
        warn = true;
      else if ((c == 'f' || c == 'F') && iat(m, i, "fail"))
        warn = true;
      else if ((c == 't' || c == 'T') && (iat(m, i, "timeout") || iat(m, i, "timed out")))
        warn = true;
    }
  }
  const Severity s = warn ? Severity::warning : Severity::info;
  return s > base ? s : base;
}

void Continuation::remember(const Event& e) {
  ev_ = e;
  module_.assign(e.module);
  process_.assign(e.process);
  ev_.module = {};
  ev_.process = {};
  ev_.message = {};
  ev_.text = {};
  active_ = true;
}

void Continuation::emit(std::string_view line, const LineCtx& ctx, Sink& sink) const {
  Event c = ev_;
  c.module = module_;
  c.process = process_;
  c.line = ctx.line;
  c.offset = ctx.offset;
  c.line_count = 1;
  c.text = line;
  c.message = trim_blank(line);
  sink.event(c);
}

void Block::start(const LineCtx& ctx, std::string_view raw) {
  active_ = true;
  truncated_ = false;
  line_ = ctx.line;
  offset_ = ctx.offset;
  lines_ = 1;
  text_.assign(raw.substr(0, kMaxBytes));
  if (raw.size() > kMaxBytes) truncated_ = true;
}

void Block::add(std::string_view raw) {
  ++lines_;
  if (truncated_) return;
  if (lines_ > kMaxLines || text_.size() + 1 + raw.size() > kMaxBytes) {
    truncated_ = true;
    return;
  }
  text_.push_back('\n');
  text_.append(raw);
}

void Block::emit(Event e, Sink& sink) {
  e.line = line_;
  e.offset = offset_;
  e.line_count = lines_;
  e.text = text_;
  if (e.message.empty()) e.message = text_;
  sink.event(e);
  active_ = false;
}

std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out += kHex[(static_cast<unsigned char>(c) >> 4) & 0xF];
          out += kHex[static_cast<unsigned char>(c) & 0xF];
        } else {
          out += c;
        }
    }
  }
  return out;
}

bool printable_text(std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && c != '\t' && c != 0x1b && c != '\r') return false;
    if (c == 0x7f) return false;
  }
  return true;
}

bool read_ctime(std::string_view s, size_t& pos, RawTime& t) {
  if (pos + 24 > s.size() || !is_upper(s[pos]) || s[pos + 3] != ' ') return false;
  size_t p = pos + 4;
  if (!read_syslog_stamp(s, p, t)) return false;
  if (p >= s.size() || s[p] != ' ') return false;
  const int y = fixed_digits(s, p + 1, 4);
  if (y < 0) return false;
  t.year = y;
  pos = p + 5;
  return true;
}

}  // namespace faultline::parse::logs
