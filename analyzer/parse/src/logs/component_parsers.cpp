// Logs of the cluster components around the NPU stack, in the layout the vendor's diagnosis tool
// collects (dl_log/<component>/, mindie/, amct_log/, ttp_log): MindX DL daemons (device-plugin,
// noded, npu-exporter, ascend-docker-runtime: the Go "hwlog" grammar), Volcano scheduler and
// controller (klog), MindIE services, MindIO TTP and AMCT (Python-logging style stamps), and the
// switch (LCNE) logs of the vendor's lcne_log collection (`Aug 12 2025 08:53:46+08:00 host
// %%01...`). One scanner recognises every stamp shape at the start of a line; the kind only names
// the module. Lines without a stamp continue the previous record. docs/faults.md (components).
#include <memory>
#include <string>

#include "faultline/core/time.hpp"
#include "logs/common.hpp"
#include "logs/parsers.hpp"

namespace faultline::parse::logs {

namespace {

// Level words as printed: ERROR, WARN, WARNING, INFO, DEBUG, CRITICAL, FATAL, error, info ...
bool level_word(std::string_view w, Severity& sev) {
  if (w.empty() || w.size() > 8) return false;
  const auto s = severity_from(w);
  if (!s || w.size() < 3) return false;  // single letters are klog's, handled apart
  sev = *s;
  return true;
}

// "YYYY/MM/DD hh:mm:ss[.frac]" (hwlog of MindX DL).
bool read_slash_datetime(std::string_view s, size_t& pos, RawTime& t) {
  const int y = fixed_digits(s, pos, 4);
  if (y < 0 || pos + 11 >= s.size() || s[pos + 4] != '/' || s[pos + 7] != '/' || s[pos + 10] != ' ')
    return false;
  const int mo = fixed_digits(s, pos + 5, 2);
  const int d = fixed_digits(s, pos + 8, 2);
  if (mo < 0 || d < 0) return false;
  RawTime r = t;
  r.year = y;
  r.month = mo;
  r.day = d;
  size_t i = pos + 11;
  if (!read_clock(s, i, r) || !valid_civil(r)) return false;
  t = r;
  pos = i;
  return true;
}

struct Header {
  RawTime time;
  Severity sev = Severity::info;
  bool has_level = false;
  size_t msg = 0;  // start of the message
  int64_t pid = -1;
};

// hwlog: "[ERROR]    2023/10/24 09:55:04.458386 1       devmanager/devmanager.go:83    msg"
bool hwlog_header(std::string_view s, Header& h) {
  if (s.size() < 30 || s[0] != '[') return false;
  const size_t close = s.find(']');
  if (close == std::string_view::npos || close > 10) return false;
  if (!level_word(s.substr(1, close - 1), h.sev)) return false;
  size_t p = close + 1;
  while (p < s.size() && is_blank(s[p])) ++p;
  if (!read_slash_datetime(s, p, h.time)) return false;
  h.has_level = true;
  while (p < s.size() && is_blank(s[p])) ++p;
  int64_t pid = 0;
  if (read_uint(s, p, pid)) h.pid = pid;
  while (p < s.size() && is_blank(s[p])) ++p;
  // "file.go:83" then blanks
  const size_t sp = s.find_first_of(" \t", p);
  if (sp != std::string_view::npos && sp > p &&
      s.substr(p, sp - p).find(".go:") != std::string_view::npos) {
    p = sp;
    while (p < s.size() && is_blank(s[p])) ++p;
  }
  h.msg = p;
  return true;
}

// klog: "E0111 03:29:15.991928       1 reschedule.go:533] msg" (no year)
bool klog_header(std::string_view s, Header& h) {
  if (s.size() < 22) return false;
  const char c = s[0];
  if (c != 'I' && c != 'W' && c != 'E' && c != 'F') return false;
  const int mo = fixed_digits(s, 1, 2);
  const int d = fixed_digits(s, 3, 2);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || s[5] != ' ') return false;
  RawTime r;
  r.year = 0;
  r.month = mo;
  r.day = d;
  size_t p = 6;
  if (!read_clock(s, p, r)) return false;
  while (p < s.size() && is_blank(s[p])) ++p;
  int64_t tid = 0;
  if (!read_uint(s, p, tid)) return false;
  const size_t close = s.find("] ", p);
  if (close == std::string_view::npos || close - p > 80) return false;
  h.time = r;
  h.sev = c == 'I'   ? Severity::info
          : c == 'W' ? Severity::warning
          : c == 'E' ? Severity::error
                     : Severity::critical;
  h.has_level = true;
  p = close + 2;
  while (p < s.size() && is_blank(s[p])) ++p;
  h.msg = p;
  return true;
}

// Looks for a level among the next few bracketed or " - "-separated tokens from p; advances p
// past it when found. MindIE: "[11] [1] [MS] [1] [ERROR] : msg"; Python logging:
// " - INFO - msg" or " - name - WARNING - msg".
void find_level(std::string_view s, size_t& p, Header& h) {
  size_t i = p;
  for (int n = 0; n < 6 && i < s.size(); ++n) {
    while (i < s.size() && is_blank(s[i])) ++i;
    if (i >= s.size()) break;
    std::string_view tok;
    size_t next = i;
    if (s[i] == '[') {
      const size_t close = s.find(']', i);
      if (close == std::string_view::npos || close - i > 64) break;
      tok = s.substr(i + 1, close - i - 1);
      next = close + 1;
    } else if (s.compare(i, 2, "- ") == 0) {
      size_t e = s.find(" -", i + 2);
      if (e == std::string_view::npos || e - i > 64) break;
      tok = trim_blank(s.substr(i + 2, e - i - 2));
      next = e + 1;
    } else {
      break;
    }
    if (level_word(tok, h.sev)) {
      h.has_level = true;
      p = next;
      break;
    }
    i = next;
  }
  while (p < s.size() && (is_blank(s[p]) || s[p] == ':' || s[p] == '-')) ++p;
  h.msg = p;
}

// "[2024-11-05 12:00:00.123456] ...", "[2025-06-23 10:53:57.023+0800] ...",
// "2024-10-23 10:47:11,976 - INFO - ...", "2025-01-01 12:00:00.123 [ERROR] ..."
bool iso_header(std::string_view s, Header& h) {
  size_t p = 0;
  const bool bracket = !s.empty() && s[0] == '[';
  if (bracket) p = 1;
  RawTime r;
  if (!read_datetime(s, p, r, " T")) return false;
  int32_t off = 0;
  const bool zoned = read_zone_suffix(s, p, off);
  if (bracket) {
    if (p >= s.size() || s[p] != ']') return false;
    ++p;
  }
  if (zoned) to_utc(r, off);
  h.time = r;
  find_level(s, p, h);
  return true;
}

// LCNE (switch OS): "Aug 12 2025 08:53:46+08:00 Z3_22R_99_30 %%01CLI/5/CMDRECORD(s):CID=...;msg"
// The digit after the module is the VRP severity (0 emergency .. 7 debug).
bool lcne_header(std::string_view s, Header& h) {
  if (s.size() < 24) return false;
  const auto mon = month_from_abbrev(s.substr(0, 3));
  if (!mon || s[3] != ' ') return false;
  const int d = fixed_digits(s, 4, 2);
  const int y = fixed_digits(s, 7, 4);
  if (d < 1 || s[6] != ' ' || y < 0 || s[11] != ' ') return false;
  RawTime r;
  r.year = y;
  r.month = *mon;
  r.day = d;
  size_t p = 12;
  if (!read_clock(s, p, r) || !valid_civil(r)) return false;
  int32_t off = 0;
  if (read_zone_suffix(s, p, off)) to_utc(r, off);
  const size_t mark = s.find(" %%", p);
  if (mark == std::string_view::npos || mark - p > 80) return false;
  h.time = r;
  // "%%01CLI/5/CMDRECORD(s):" -> severity 5
  const size_t slash = s.find('/', mark);
  if (slash != std::string_view::npos && slash + 2 < s.size() && is_digit(s[slash + 1]) &&
      s[slash + 2] == '/') {
    const int v = s[slash + 1] - '0';
    h.sev = v <= 2   ? Severity::critical
            : v == 3 ? Severity::error
            : v == 4 ? Severity::warning
            : v == 5 ? Severity::notice
            : v == 6 ? Severity::info
                     : Severity::debug;
    h.has_level = true;
  }
  h.msg = mark + 1;
  return true;
}

class ComponentParser final : public Parser {
 public:
  explicit ComponentParser(std::string_view module) : module_(module) {}
  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    text = clip(text);
    if (is_blank_line(text)) return;
    Header h;
    const bool ok = hwlog_header(text, h) || klog_header(text, h) || iso_header(text, h) ||
                    lcne_header(text, h);
    if (ok) {
      if (h.time.clock == Clock::none) h.time.clock = Clock::host_local;
      Event e;
      e.line = ctx.line;
      e.offset = ctx.offset;
      e.severity = h.sev;
      e.time = h.time;
      e.module = module_;
      e.process = module_;
      e.pid = h.pid;
      e.text = text;
      e.message = text.substr(std::min(h.msg, text.size()));
      int32_t dev = -1, rank = -1;
      find_ids(e.message, dev, rank);
      e.device = dev;
      e.rank = rank;
      sink.event(e);
      cont_.remember(e);
      return;
    }
    if (cont_.active() && printable_text(text)) {
      cont_.emit(text, ctx, sink);
      return;
    }
    sink.malformed(ctx, "no component log stamp");
  }

 private:
  std::string module_;
  Continuation cont_;
};

}  // namespace

std::unique_ptr<Parser> make_mindx_dl_log(std::string_view) {
  return std::make_unique<ComponentParser>("mindx-dl");
}
std::unique_ptr<Parser> make_volcano_log(std::string_view) {
  return std::make_unique<ComponentParser>("volcano");
}
std::unique_ptr<Parser> make_mindie_log(std::string_view) {
  return std::make_unique<ComponentParser>("mindie");
}
std::unique_ptr<Parser> make_mindio_log(std::string_view) {
  return std::make_unique<ComponentParser>("mindio");
}
std::unique_ptr<Parser> make_amct_log(std::string_view) {
  return std::make_unique<ComponentParser>("amct");
}
std::unique_ptr<Parser> make_lcne_log(std::string_view) {
  return std::make_unique<ComponentParser>("lcne");
}

}  // namespace faultline::parse::logs
