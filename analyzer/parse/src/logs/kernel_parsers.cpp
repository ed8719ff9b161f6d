// Kernel and system logs: host_kernel.log (UTC ring buffer), dmesg (uptime), dmesg -T (ctime),
// rsyslog syslog/messages (host and device OS), journalctl (short, short-iso, short-precise,
// short-monotonic, short-full). log-formats.md §2.4, §4, §10.1.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "faultline/core/time.hpp"
#include "logs/common.hpp"
#include "logs/parsers.hpp"

namespace faultline::parse::logs {

namespace {

// Fills severity/module/pid/tid/message of a kernel printk payload.
void apply_kernel_payload(Event& e, std::string_view payload, bool have_level) {
  const KernelPayload k = parse_kernel_payload(payload);
  if (k.has_level) {
    e.severity = have_level && e.severity > k.level ? e.severity : k.level;
  } else if (!have_level) {
    e.severity = kernel_keyword_severity(k.msg);
  }
  e.module = k.module.empty() ? std::string_view("kernel") : k.module;
  if (k.pid >= 0) e.pid = k.pid;
  if (k.tid >= 0) e.tid = k.tid;
  e.message = k.msg;
}

void ids(Event& e, int32_t path_device) {
  int32_t dev = -1, rank = -1;
  find_ids(e.message, dev, rank);
  e.device = dev >= 0 ? dev : path_device;
  e.rank = rank;
}

// "[  T613]" / "[    C0]" caller id printed after the uptime by CONFIG_PRINTK_CALLER kernels.
size_t skip_caller_id(std::string_view s, size_t p) {
  if (p >= s.size() || s[p] != '[') return p;
  const size_t close = s.find(']', p);
  if (close == std::string_view::npos || close - p > 12) return p;
  const std::string_view c = ltrim(s.substr(p + 1, close - p - 1));
  if (c.size() < 2 || (c[0] != 'T' && c[0] != 'C') || !is_digit(c[1])) return p;
  p = close + 1;
  if (p < s.size() && s[p] == ' ') ++p;
  return p;
}

// ---------------------------------------------------------------- host_kernel.log
class HostKernelParser final : public Parser {
 public:
  explicit HostKernelParser(std::string_view path) : path_device_(device_from_path(path)) {}
  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    text = clip(text);
    if (is_blank_line(text)) return;
    size_t p = 1;
    RawTime t;
    if (text.size() > 28 && text[0] == '[' && read_datetime(text, p, t, "- ") && p < text.size() &&
        text[p] == ']') {
      ++p;
      if (p < text.size() && text[p] == ' ') ++p;
      // newer drivers: "[sec.usec] " uptime after the wall time
      if (p + 2 < text.size() && text[p] == '[' && (is_digit(text[p + 1]) || text[p + 1] == ' ')) {
        size_t q = p + 1;
        int64_t up = 0;
        if (read_seconds(text, q, up) && q < text.size() && text[q] == ']') {
          t.uptime_ns = up;
          p = q + 1;
          if (p < text.size() && text[p] == ' ') ++p;
        }
      }
      t.clock = Clock::utc;
      Event e;
      e.line = ctx.line;
      e.offset = ctx.offset;
      e.time = t;
      e.text = text;
      apply_kernel_payload(e, text.substr(p), false);
      ids(e, path_device_);
      sink.event(e);
      cont_.remember(e);
      boot_line(t, e.message, text, ctx);
      return;
    }
    if (cont_.active() && text[0] != '[' && printable_text(text)) {
      cont_.emit(text, ctx, sink);
      return;
    }
    sink.malformed(ctx, "no [YYYY-MM-DD-hh:mm:ss.uuuuuu] prefix");
  }

  // host.boot_time of the newest boot the log shows: the driver's `Insmod host driver` loaded by
  // systemd-udevd at boot (or printing an uptime under 5 minutes), the first one within 5 minutes
  // of the start of the file or of a gap of at least 60 s without driver lines (the host was
  // down); its wall time minus the uptime when the line prints one (newer drivers), else the
  // line's own time (UTC, a few seconds to a minute after the kernel started). An Insmod without
  // a gap before it, or by modprobe/insmod, is a driver reload, not a boot.
  void finish(Sink& sink) override {
    if (load_ns_ > 0)
      sink.fact(Fact{"driver.load_time", std::to_string(load_ns_ / 1'000'000'000), load_lineno_});
    if (boot_ns_ == kNoTime) return;
    const int64_t secs = boot_ns_ >= 0 ? boot_ns_ / 1'000'000'000 : -1;
    if (secs > 0) sink.fact(Fact{"host.boot_time", std::to_string(secs), boot_lineno_});
  }

 private:
  void boot_line(const RawTime& t, std::string_view msg, std::string_view line,
                 const LineCtx& ctx) {
    if (t.year < 2000) return;
    const int64_t ns = civil_to_ns(t.year, t.month, t.day, t.hour, t.minute, t.second, t.nanos);
    constexpr int64_t kGap = 60'000'000'000LL, kWindow = 300'000'000'000LL;
    if (prev_ns_ == kNoTime || ns - prev_ns_ >= kGap) {
      run_start_ns_ = ns;
      run_booted_ = false;
    }
    prev_ns_ = ns;
    // driver.load_time: the newest load of the host driver, by whatever loader (a boot, or a
    // modprobe/insmod after an install): the modules running are at least that new
    if (contains(msg, "Insmod host driver") && (load_ns_ == kNoTime || ns >= load_ns_)) {
      load_ns_ = ns;
      load_lineno_ = ctx.line;
    }
    if (run_booted_ || ns - run_start_ns_ > kWindow || !contains(msg, "Insmod host driver")) return;
    // loaded by udev at boot (`<systemd-udevd:694:694>`), or a small uptime on the line; a
    // `modprobe`/`insmod` by hand or by the installer is a reload
    const bool udev = contains(line, "udevd:");
    if (!udev && !(t.has_uptime() && t.uptime_ns < kWindow)) return;
    run_booted_ = true;
    const int64_t boot = t.has_uptime() ? ns - t.uptime_ns : ns;
    if (boot_ns_ == kNoTime || boot >= boot_ns_) {
      boot_ns_ = boot;
      boot_lineno_ = ctx.line;
    }
  }

  int32_t path_device_;
  Continuation cont_;
  int64_t prev_ns_ = kNoTime, run_start_ns_ = kNoTime, boot_ns_ = kNoTime, load_ns_ = kNoTime;
  bool run_booted_ = false;
  uint32_t boot_lineno_ = 0, load_lineno_ = 0;
};

// ---------------------------------------------------------------- dmesg / dmesg -T
bool printk_level(char c, Severity& s) {
  switch (c) {
    case '0':
    case '1':
    case '2':
      s = Severity::critical;
      return true;
    case '3':
      s = Severity::error;
      return true;
    case '4':
      s = Severity::warning;
      return true;
    case '5':
      s = Severity::notice;
      return true;
    case '6':
      s = Severity::info;
      return true;
    case '7':
      s = Severity::debug;
      return true;
    default:
      return false;
  }
}

class DmesgParser final : public Parser {
 public:
  DmesgParser(bool ctime, std::string_view path)
      : ctime_(ctime), path_device_(device_from_path(path)) {}
  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    text = clip(text);
    if (is_blank_line(text)) return;
    size_t p = 0;
    bool have_level = false;
    Event e;
    // "<3>" raw printk level
    if (text.size() > 3 && text[0] == '<' && text[2] == '>' && printk_level(text[1], e.severity)) {
      have_level = true;
      p = 3;
    } else {
      // dmesg -x: "kern  :err   : "
      const size_t c1 = text.find(':');
      if (c1 != std::string_view::npos && c1 < 10 && c1 + 1 < text.size()) {
        const size_t c2 = text.find(':', c1 + 1);
        if (c2 != std::string_view::npos && c2 - c1 < 10) {
          const std::string_view fac = trim_blank(text.substr(0, c1));
          const std::string_view lvl = trim_blank(text.substr(c1 + 1, c2 - c1 - 1));
          const auto sev = severity_from(lvl);
          if (sev && !fac.empty() && is_lower(fac[0])) {
            e.severity = *sev;
            have_level = true;
            p = c2 + 1;
            if (p < text.size() && text[p] == ' ') ++p;
          }
        }
      }
    }
    RawTime t;
    bool ok = false;
    if (p < text.size() && text[p] == '[') {
      size_t q = p + 1;
      if (ctime_) {
        ok = read_ctime(text, q, t) && q < text.size() && text[q] == ']';
        t.clock = Clock::host_local;
      } else {
        int64_t up = 0;
        ok = read_seconds(text, q, up) && q < text.size() && text[q] == ']';
        t.clock = Clock::uptime;
        t.uptime_ns = up;
      }
      if (ok) p = q + 1;
    }
    if (ok) {
      if (p < text.size() && text[p] == ' ') ++p;
      p = skip_caller_id(text, p);
      e.line = ctx.line;
      e.offset = ctx.offset;
      e.time = t;
      e.text = text;
      apply_kernel_payload(e, text.substr(p), have_level);
      ids(e, path_device_);
      sink.event(e);
      cont_.remember(e);
      // dmesg -T: the kernel's first lines are printed at uptime 0, so their time is the boot
      // time (host-local, as dmesg -T computes it from the current uptime)
      if (ctime_ && (starts_with(e.message, "Linux version ") ||
                     starts_with(e.message, "Booting Linux on physical CPU"))) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d", t.year, t.month, t.day,
                      t.hour, t.minute, t.second);
        boot_local_ = buf;
        boot_lineno_ = ctx.line;
      }
      return;
    }
    if (cont_.active() && text[0] != '[' && printable_text(text)) {
      cont_.emit(text, ctx, sink);
      return;
    }
    sink.malformed(ctx, ctime_ ? "no [Www Mmm dd hh:mm:ss yyyy] prefix" : "no [uptime] prefix");
  }

  void finish(Sink& sink) override {
    if (!boot_local_.empty()) sink.fact(Fact{"host.boot_time_local", boot_local_, boot_lineno_});
  }

 private:
  bool ctime_;
  int32_t path_device_;
  Continuation cont_;
  std::string boot_local_;  // the newest boot's first kernel line (dmesg -T)
  uint32_t boot_lineno_ = 0;
};

// ---------------------------------------------------------------- syslog / messages / journal
enum class SysKind { host_syslog, device_syslog, journal };

bool syslog_priority(std::string_view pri, Severity& s) {
  const size_t dot = pri.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= pri.size()) return false;
  for (size_t i = 0; i < dot; ++i)
    if (!is_lower(pri[i]) && !is_digit(pri[i])) return false;
  const std::string_view lvl = pri.substr(dot + 1);
  if (lvl == "emerg" || lvl == "alert" || lvl == "crit")
    s = Severity::critical;
  else if (lvl == "err" || lvl == "error")
    s = Severity::error;
  else if (lvl == "warn" || lvl == "warning")
    s = Severity::warning;
  else if (lvl == "notice")
    s = Severity::notice;
  else if (lvl == "info")
    s = Severity::info;
  else if (lvl == "debug")
    s = Severity::debug;
  else
    return false;
  return true;
}

// Level written by user-space programs at the start of their message: "[ERROR]...",
// "[ascend][INFO][AML]...", "ERROR: ...".
bool user_level(std::string_view m, Severity& s) {
  const std::string_view head = m.substr(0, 48);
  if (contains(head, "[ERROR]") || starts_with(m, "ERROR:") || starts_with(m, "ERROR ")) {
    s = Severity::error;
    return true;
  }
  if (contains(head, "[WARNING]") || contains(head, "[WARN]") || starts_with(m, "WARNING:")) {
    s = Severity::warning;
    return true;
  }
  return false;
}

class SyslogParser final : public Parser {
 public:
  SyslogParser(SysKind kind, std::string_view path)
      : kind_(kind), path_device_(kind == SysKind::device_syslog ? device_from_path(path) : -1) {}

  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    text = clip(text);
    if (is_blank_line(text)) return;
    if (kind_ == SysKind::journal && starts_with(text, "-- ")) return;  // journal meta lines
    Event e;
    e.line = ctx.line;
    e.offset = ctx.offset;
    e.text = text;
    size_t p = 0;
    if (!stamp(text, p, e.time)) {
      if (cont_.active() && printable_text(text) && !looks_like_stamp(text)) {
        cont_.emit(text, ctx, sink);
        return;
      }
      sink.malformed(ctx, "no syslog time stamp");
      return;
    }
    if (p >= text.size() || text[p] != ' ') {
      sink.malformed(ctx, "no host after the time stamp");
      return;
    }
    ++p;
    const size_t h0 = p;
    while (p < text.size() && text[p] != ' ') ++p;
    const std::string_view host = text.substr(h0, p - h0);
    if (host.empty() || p >= text.size()) {
      sink.malformed(ctx, "no host after the time stamp");
      return;
    }
    ++p;
    if (!host_fact_done_ && kind_ != SysKind::device_syslog && host != "(none)" &&
        host != "localhost") {
      sink.fact(Fact{"host.name", std::string(host), ctx.line});
      host_fact_done_ = true;
    }
    // device OS messages: "kern.err kernel: ..." (facility.priority before the tag)
    bool have_level = false;
    {
      const size_t sp = text.find(' ', p);
      if (sp != std::string_view::npos && sp > p && text[sp - 1] != ':') {
        Severity s{};
        if (syslog_priority(text.substr(p, sp - p), s)) {
          e.severity = s;
          have_level = true;
          p = sp + 1;
        }
      }
    }
    // tag[pid]:
    std::string_view tag;
    {
      size_t q = p;
      while (q < text.size() && text[q] != ':' && text[q] != ' ' && text[q] != '[') ++q;
      size_t tag_end = q;
      if (q < text.size() && text[q] == '[') {
        size_t k = q + 1;
        int64_t pid = 0;
        if (read_uint(text, k, pid) && k < text.size() && text[k] == ']') {
          e.pid = pid;
          q = k + 1;
        }
      }
      if (q < text.size() && text[q] == ':' && tag_end > p) {
        tag = text.substr(p, tag_end - p);
        p = q + 1;
        if (p < text.size() && text[p] == ' ') ++p;
      } else {
        e.pid = -1;
      }
    }
    if (tag == "kernel") {
      if (p < text.size() && text[p] == '[') {
        size_t q = p + 1;
        int64_t up = 0;
        if (read_seconds(text, q, up) && q < text.size() && text[q] == ']') {
          e.time.uptime_ns = up;
          p = q + 1;
          if (p < text.size() && text[p] == ' ') ++p;
          p = skip_caller_id(text, p);
        }
      }
      apply_kernel_payload(e, text.substr(p), have_level);
    } else {
      e.module = tag;
      e.message = text.substr(p);
      if (kind_ != SysKind::device_syslog) zone_change(tag, e, sink);
      Severity s{};
      // user-space programs: only the level they print themselves (keyword guessing is for
      // kernel lines, which carry no level in rsyslog's default format)
      if (!have_level && user_level(e.message, s)) e.severity = s;
    }
    ids(e, path_device_);
    sink.event(e);
    cont_.remember(e);
  }

 private:
  static bool looks_like_stamp(std::string_view s) {
    if (s.size() >= 4 && month_from_abbrev(s.substr(0, 3)) && s[3] == ' ') return true;
    return s.size() >= 5 && fixed_digits(s, 0, 4) >= 0 && s[4] == '-';
  }

  // `systemd-timedated[812]: Changed time zone to 'Asia/Shanghai' (CST).` (systemd >= 239 adds
  // the abbreviation; older ones end at the quote): host.timezone_change, a JSON object with the
  // line's time as printed (`utc` when the stamp carried a zone; year 0 for year-less stamps),
  // whether journalctl printed it (`rendered`: in the zone at collection), the zone and its
  // abbreviation (docs/clock.md "Zones per time range").
  void zone_change(std::string_view tag, const Event& e, Sink& sink) const {
    constexpr std::string_view kPre = "Changed time zone to '";
    if (tag != "systemd-timedated" || !starts_with(e.message, kPre)) return;
    const std::string_view rest = e.message.substr(kPre.size());
    const size_t q = rest.find('\'');
    if (q == std::string_view::npos || q == 0 || q > 64) return;
    std::string abbr;
    if (const size_t o = rest.find('(', q); o != std::string_view::npos) {
      const size_t c = rest.find(')', o);
      if (c != std::string_view::npos && c - o <= 16)
        abbr = std::string(rest.substr(o + 1, c - o - 1));
    }
    const RawTime& t = e.time;
    if (!t.has_civil()) return;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d", t.year, t.month, t.day, t.hour,
                  t.minute, t.second);
    nlohmann::json j{{"time", buf},
                     {"utc", t.clock == Clock::utc},
                     {"rendered", kind_ == SysKind::journal},
                     {"zone", std::string(rest.substr(0, q))}};
    if (!abbr.empty()) j["abbr"] = abbr;
    sink.fact(Fact{"host.timezone_change", j.dump(), e.line});
  }

  bool stamp(std::string_view s, size_t& p, RawTime& t) {
    const Clock local = kind_ == SysKind::device_syslog ? Clock::device_syslog : Clock::host_local;
    t.clock = local;
    if (read_syslog_stamp(s, p, t)) return true;
    p = 0;
    if (s.size() > 19 && is_digit(s[0])) {
      // RFC 3339 (rsyslog high precision, journal short-iso)
      RawTime r;
      if (!read_datetime(s, p, r, "T ")) {
        p = 0;
        return false;
      }
      int32_t off = 0;
      if (read_zone_suffix(s, p, off)) {
        to_utc(r, off);
      } else {
        r.clock = local;
      }
      t = r;
      return true;
    }
    if (kind_ == SysKind::journal && s.size() > 4 && s[0] == '[') {
      // short-monotonic "[ 2081.843939] host kernel: ..."
      size_t q = 1;
      int64_t up = 0;
      if (read_seconds(s, q, up) && q < s.size() && s[q] == ']') {
        t = RawTime{};
        t.clock = Clock::uptime;
        t.uptime_ns = up;
        p = q + 1;
        return true;
      }
    }
    if (kind_ == SysKind::journal && s.size() > 24 && is_upper(s[0]) && s[3] == ' ') {
      // short-full "Thu 2025-05-08 02:28:01 CST host ..."
      size_t q = 4;
      RawTime r;
      if (read_datetime(s, q, r, " ") && q < s.size() && s[q] == ' ') {
        const size_t z0 = q + 1;
        size_t z1 = z0;
        while (z1 < s.size() && s[z1] != ' ') ++z1;
        const auto off = parse_zone(s.substr(z0, z1 - z0));
        if (off) {
          to_utc(r, *off);
        } else {
          r.clock = local;
        }
        t = r;
        p = z1;
        return true;
      }
    }
    p = 0;
    return false;
  }

  SysKind kind_;
  int32_t path_device_;
  bool host_fact_done_ = false;
  Continuation cont_;
};

}  // namespace

std::unique_ptr<Parser> make_host_kernel_log(std::string_view path) {
  return std::make_unique<HostKernelParser>(path);
}
std::unique_ptr<Parser> make_dmesg(std::string_view path) {
  return std::make_unique<DmesgParser>(false, path);
}
std::unique_ptr<Parser> make_dmesg_t(std::string_view path) {
  return std::make_unique<DmesgParser>(true, path);
}
std::unique_ptr<Parser> make_syslog(std::string_view path) {
  return std::make_unique<SyslogParser>(SysKind::host_syslog, path);
}
std::unique_ptr<Parser> make_device_syslog(std::string_view path) {
  return std::make_unique<SyslogParser>(SysKind::device_syslog, path);
}
std::unique_ptr<Parser> make_journal(std::string_view path) {
  return std::make_unique<SyslogParser>(SysKind::journal, path);
}

}  // namespace faultline::parse::logs
