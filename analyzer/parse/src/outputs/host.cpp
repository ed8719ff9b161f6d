// Host state: uname, uptime, /proc/stat, date, timedatectl, ulimit, sysctl, lspci.
#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <map>

#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"
#include "outputs/common.hpp"
#include "outputs/outputs.hpp"

namespace faultline::parse::outputs {
namespace {

using text::trim;

bool is_upper_word(std::string_view w) {
  if (w.size() < 2 || w.size() > 5) return false;
  for (char c : w)
    if (c < 'A' || c > 'Z') return false;
  return true;
}

bool has_clock_time(std::string_view s) {
  // HH:MM:SS somewhere
  for (size_t i = 0; i + 8 <= s.size(); ++i)
    if (is_digit(s[i]) && is_digit(s[i + 1]) && s[i + 2] == ':' && is_digit(s[i + 3]) &&
        is_digit(s[i + 4]) && s[i + 5] == ':' && is_digit(s[i + 6]) && is_digit(s[i + 7]))
      return true;
  return false;
}

bool release_like(std::string_view w) {
  return w.size() >= 3 && is_digit(w[0]) && w.find('.') != std::string_view::npos;
}

// ---------------------------------------------------------------------------------------------
// uname -a / -r / -n, /proc/version, hostname, hostnamectl

class UnameParser final : public OutputParser {
 public:
  explicit UnameParser(std::string_view path) {
    const std::string b = text::to_lower(basename(path));
    hostname_file_ = b.find("hostname") != std::string::npos && b.find("ctl") == std::string::npos;
    // `uname -n` saved as uname-n.txt / uname_n.log / "uname -n" / uname_nodename: the node name
    // (not uname-nr, uname-a)
    if (const size_t u = b.find("uname"); u != std::string::npos) {
      std::string rest = b.substr(u + 5);
      if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
      const bool n = rest.size() >= 2 && (rest[0] == '-' || rest[0] == '_') && rest[1] == 'n' &&
                     (rest.size() == 2 || rest[2] == '.' || rest[2] == '_' || rest[2] == '-');
      if (n || rest.find("nodename") != std::string::npos) hostname_file_ = true;
    }
  }

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    const auto w = text::split_ws(s);
    if (w[0] == "Linux" && w.size() >= 3 && w[1] == "version" && release_like(w[2])) {
      fact(sink, "kernel.release", w[2], ctx.line);  // /proc/version
      return;
    }
    if (w[0] == "Linux" && w.size() >= 3 && release_like(w[2])) {
      fact(sink, "host.name", w[1], ctx.line);  // uname -a
      fact(sink, "kernel.release", w[2], ctx.line);
      return;
    }
    if (w[0] == "Linux" && w.size() == 2 && release_like(w[1])) {
      fact(sink, "kernel.release", w[1], ctx.line);  // uname -sr
      return;
    }
    std::string_view k, v;
    if (split_kv(s, ':', k, v) && !v.empty()) {  // hostnamectl
      const std::string lk = text::to_lower(k);
      if (lk == "static hostname" || lk == "transient hostname") {
        fact(sink, "host.name", v, ctx.line);
        return;
      }
      if (lk == "kernel") {
        const auto kw = text::split_ws(v);
        if (kw.size() >= 2 && release_like(kw[1])) fact(sink, "kernel.release", kw[1], ctx.line);
        return;
      }
      if (lk == "operating system") {
        fact(sink, "host.os", v, ctx.line);
        return;
      }
      if (lk == "architecture") {
        fact(sink, "host.arch", v, ctx.line);
        return;
      }
    }
    if (auto b = parse_banner(s)) {
      mode_ = Mode::any;
      const bool hostname_file =
          b->path.size() >= 9 && b->path.substr(b->path.size() - 9) == "/hostname";
      if (b->is_command("hostname") || (b->is_command("uname") && b->has_arg("-n")) ||
          hostname_file)  // `cat /etc/hostname`, `==> /etc/hostname <==`
        mode_ = Mode::name;
      else if (b->is_command("uname") && b->has_arg("-r"))
        mode_ = Mode::release;
      return;
    }
    if (w.size() == 1) {
      if (mode_ == Mode::name || (hostname_file_ && mode_ == Mode::any)) {
        fact(sink, "host.name", w[0], ctx.line);
        return;
      }
      if (release_like(w[0])) {
        fact(sink, "kernel.release", w[0], ctx.line);
        return;
      }
    }
    sink.malformed(ctx, "not a uname line");
  }

 private:
  enum class Mode { any, name, release };
  Mode mode_ = Mode::any;
  bool hostname_file_ = false;
};

// ---------------------------------------------------------------------------------------------
// uptime -s / uptime / uptime -p / /proc/uptime

class UptimeParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    // uptime -s: 2025-05-08 07:10:21
    if (s.size() == 19 && s[4] == '-' && s[7] == '-' && s[10] == ' ' && s[13] == ':' &&
        s[16] == ':' && is_digit(s[0])) {
      fact(sink, "host.boot_time_local", s, ctx.line);
      return;
    }
    const auto w = text::split_ws(s);
    // /proc/uptime: "9963.64 39251.10"
    if (w.size() == 2 && starts_with_digit(w[0]) && w[0].find('.') != std::string_view::npos &&
        starts_with_digit(w[1]) && w[1].find(':') == std::string_view::npos) {
      fact(sink, "host.uptime_seconds", w[0], ctx.line);
      return;
    }
    std::string_view rest;
    if (s.substr(0, 3) == "up ") {
      rest = s.substr(3);  // uptime -p
    } else if (const size_t up = s.find(" up "); up != std::string_view::npos) {
      rest = s.substr(up + 4);
    } else {
      if (!parse_banner(s)) sink.malformed(ctx, "not an uptime line");
      return;
    }
    if (const size_t la = rest.find("load average"); la != std::string_view::npos)
      rest = rest.substr(0, la);
    rest = trim(rest);
    while (!rest.empty() && rest.back() == ',') rest = trim(rest.substr(0, rest.size() - 1));
    // drop ",  3 users"
    if (const size_t c = rest.rfind(','); c != std::string_view::npos) {
      const std::string_view tail = trim(rest.substr(c + 1));
      const auto tw = text::split_ws(tail);
      if (tw.size() == 2 && text::to_int<int>(tw[0]) && text::istarts_with(tw[1], "user"))
        rest = trim(rest.substr(0, c));
    } else {
      const auto tw = text::split_ws(rest);
      if (tw.size() == 2 && text::istarts_with(tw[1], "user")) rest = {};
    }
    std::string v;
    for (auto x : text::split_ws(rest)) {
      if (!v.empty()) v.push_back(' ');
      v += x;
    }
    if (!v.empty()) fact(sink, "host.uptime", v, ctx.line);
  }
};

// ---------------------------------------------------------------------------------------------
// who -b / last reboot / last -x / journalctl --list-boots: host.boot_time_local of the current
// (newest) boot, host-local civil time as printed (docs/clock.md "Boot time").

class BootRecordParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& /*sink*/) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    const auto w = text::split_ws(s);
    // who -b: "system boot  2025-05-08 07:10" (minutes only)
    if (w.size() >= 4 && w[0] == "system" && w[1] == "boot" && iso_date(w[2]) &&
        hhmm(w[3], false)) {
      state(std::string(w[2]) + " " + std::string(w[3]) + (w[3].size() == 5 ? ":00" : ""), ctx,
            true);
      return;
    }
    // last reboot / last -x: "reboot system boot <kernel> Thu May  8 07:10[:21 2025] ..."; last
    // prints the newest first; without -F (no year) the row is skipped: its year is a guess
    if (w.size() >= 8 && w[0] == "reboot" && w[1] == "system" && w[2] == "boot") {
      if (!last_seen_) {
        last_seen_ = true;
        const auto mon = month_from_abbrev(w[5]);
        const auto day = text::to_int<int>(w[6]);
        if (mon && day && hhmm(w[7], true) && w.size() >= 9 && w[8].size() == 4 &&
            text::to_int<int>(w[8])) {
          char buf[40];
          std::snprintf(buf, sizeof buf, "%s-%02d-%02d %s", std::string(w[8]).c_str(), *mon, *day,
                        std::string(w[7]).c_str());
          state(buf, ctx, false);
        }
      }
      return;
    }
    // journalctl --list-boots: "IDX BOOT ID FIRST ENTRY LAST ENTRY" header, then
    // " 0 <32 hex> Thu 2025-05-08 07:10:21 CST—Thu 2025-05-08 09:56:26 CST"; index 0 = this boot
    if (w.size() >= 5 && w[1].size() == 32 && iso_date(w[3]) && w[4].size() >= 8 &&
        hhmm(w[4].substr(0, 8), true)) {
      if (w[0] == "0") state(std::string(w[3]) + " " + std::string(w[4].substr(0, 8)), ctx, false);
      return;
    }
    // systemd-analyze dump: "Timestamp kernel: Thu 2025-05-08 07:10:21 CST" (the realtime
    // clock when the kernel started, as PID 1 computed it); systemctl show (manager properties):
    // "KernelTimestamp=Thu 2025-05-08 07:10:21 CST". In the zone of the collection; a UTC zone
    // word states the boot in UTC.
    if (w.size() >= 4 && ((w[0] == "Timestamp" && w[1] == "kernel:") ||
                          (w[0].substr(0, 16) == "KernelTimestamp=" && w[0].size() > 16))) {
      const size_t d = w[0] == "Timestamp" ? 3 : 1;  // the date field (after the weekday)
      if (d + 1 < w.size() && iso_date(w[d]) && hhmm(w[d + 1], true)) {
        const bool utc = d + 2 < w.size() && (w[d + 2] == "UTC" || w[d + 2] == "GMT");
        kernel_ = std::string(w[d]) + " " + std::string(w[d + 1]);
        kernel_utc_ = utc;
        kernel_line_ = ctx.line;
      }
      return;
    }
    // anything else is not its business: headers, "wtmp begins ...", shutdown/runlevel rows of
    // last -x, login rows, other boots of --list-boots, the rest of a systemd dump
  }

  void finish(Sink& sink) override {
    if (!value_.empty()) fact(sink, "host.boot_time_local", value_, line_);
    if (kernel_.empty()) return;
    if (!kernel_utc_) {
      fact(sink, "host.boot_time_local", kernel_, kernel_line_);
      return;
    }
    int y, mo, d, hh, mi, ss;
    if (std::sscanf(kernel_.c_str(), "%d-%d-%d %d:%d:%d", &y, &mo, &d, &hh, &mi, &ss) == 6)
      fact(sink, "host.boot_time",
           std::to_string(civil_to_ns(y, mo, d, hh, mi, ss, 0) / 1'000'000'000), kernel_line_);
  }

 private:
  static bool iso_date(std::string_view d) {
    return d.size() == 10 && d[4] == '-' && d[7] == '-' && is_digit(d[0]) && is_digit(d[9]);
  }
  // "07:10" or "07:10:21" (`seconds` = seconds required)
  static bool hhmm(std::string_view t, bool seconds) {
    if (t.size() != 5 && t.size() != 8) return false;
    if (seconds && t.size() != 8) return false;
    for (size_t i = 0; i < t.size(); ++i)
      if ((i == 2 || i == 5) ? t[i] != ':' : !is_digit(t[i])) return false;
    return true;
  }
  // who -b prints one line: the last one wins; last and --list-boots name it once
  void state(std::string v, const LineCtx& ctx, bool replace) {
    if (!value_.empty() && !replace) return;
    value_ = std::move(v);
    line_ = ctx.line;
  }

  bool last_seen_ = false;
  std::string value_;
  uint32_t line_ = 0;
  std::string kernel_;  // systemd's kernel timestamp
  bool kernel_utc_ = false;
  uint32_t kernel_line_ = 0;
};

// ---------------------------------------------------------------------------------------------
// /proc/stat

class ProcStatParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (s.substr(0, 6) != "btime ") return;  // cpu, intr, ctxt ... lines carry no fact
    const std::string_view v = trim(s.substr(6));
    // epoch seconds that the clocks and the correlator turn into int64 nanoseconds (<= 2262)
    const auto secs = text::to_int<int64_t>(v);
    if (secs && *secs >= 0 && *secs < std::numeric_limits<int64_t>::max() / 1'000'000'000)
      fact(sink, "host.boot_time", v, ctx.line);
    else
      sink.malformed(ctx, "btime without epoch seconds");
  }
};

// ---------------------------------------------------------------------------------------------
// date, date -R, date +%s%z, ISO forms, zh_CN locale

class DateParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    std::string zone;
    bool is_date = false;
    // 1746669386+0800 | 1746669386
    {
      size_t i = 0;
      while (i < s.size() && is_digit(s[i])) ++i;
      if (i >= 9 && i <= 11) {
        const std::string_view rest = s.substr(i);
        if (rest.empty()) {
          is_date = true;
        } else if (rest.size() == 5 && (rest[0] == '+' || rest[0] == '-') && parse_zone(rest)) {
          is_date = true;
          zone = std::string(rest);
        }
      }
    }
    // date prints short lines; `uname -a` and log lines also carry HH:MM:SS
    if (!is_date && s.size() <= 80 && has_clock_time(s) && s.substr(0, 6) != "Linux ") {
      is_date = true;
      for (auto w : text::split_ws(s)) {
        std::string_view t = w;
        while (!t.empty() && (t.back() == ',' || t.back() == ')')) t.remove_suffix(1);
        if (is_upper_word(t) && parse_zone(t)) {
          zone = std::string(t);
          break;
        }
        if (is_upper_word(t) && t.size() >= 3 && t.back() == 'T') {
          zone = std::string(t);  // a zone abbreviation the clock stage may not know (EDT, BST)
          break;
        }
        if ((t.size() == 5 || t.size() == 6) && (t[0] == '+' || t[0] == '-') && parse_zone(t)) {
          zone = std::string(t);
          break;
        }
        // 2025-05-08T09:56:26+08:00 / ...Z
        const size_t T = t.find('T');
        if (T != std::string_view::npos && T == 10 && t.size() > 19) {
          const std::string_view tail = t.substr(19);
          size_t z = 0;
          while (z < tail.size() && (tail[z] == '.' || is_digit(tail[z]))) ++z;
          if (z < tail.size() && parse_zone(tail.substr(z))) {
            zone = std::string(tail.substr(z));
            break;
          }
        }
      }
    }
    if (!is_date) {
      if (auto b = parse_banner(s)) {
        utc_ = b->is_command("date") && (b->has_arg("-u") || b->has_arg("--utc"));
        return;
      }
      sink.malformed(ctx, "not a date line");
      return;
    }
    fact(sink, "host.collected_at", s, ctx.line);
    if (!zone.empty() && !utc_) fact(sink, "host.timezone", zone, ctx.line);
  }

 private:
  bool utc_ = false;
};

// ---------------------------------------------------------------------------------------------
// timedatectl

class TimedatectlParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    std::string_view k, v;
    if (!split_kv(s, ':', k, v)) {
      if (!parse_banner(s)) sink.malformed(ctx, "not a timedatectl line");
      return;
    }
    const std::string lk = text::to_lower(k);
    if (lk == "time zone" || lk == "timezone") {
      // Asia/Shanghai (CST, +0800)
      const size_t p = v.find('(');
      const std::string_view name = trim(v.substr(0, p));
      if (!name.empty()) fact(sink, "host.timezone", name, ctx.line);
      if (p != std::string_view::npos) {
        std::string_view in = v.substr(p + 1);
        if (const size_t e = in.find(')'); e != std::string_view::npos) in = in.substr(0, e);
        for (auto part : text::split(in, ',')) {
          part = trim(part);
          if ((part.front() == '+' || part.front() == '-') && parse_zone(part))
            fact(sink, "host.timezone", part, ctx.line);
        }
      }
    } else if (lk == "local time") {
      fact(sink, "host.collected_at", v, ctx.line);
    } else if (lk == "system clock synchronized" || lk == "ntp synchronized") {
      fact(sink, "host.clock_synchronized", v, ctx.line);
      if (text::to_lower(v) == "no")
        event(sink, Ev{ctx.line, 1, ctx.offset, Severity::warning, false, "timedatectl",
                       "system clock not synchronized", s, -1, -1});
    } else if (lk == "ntp service" || lk == "network time on" || lk == "ntp enabled") {
      fact(sink, "host.ntp_service", v, ctx.line);
    } else if (lk == "rtc in local tz") {
      fact(sink, "host.rtc_local_tz", v, ctx.line);
    }
  }
};

// ---------------------------------------------------------------------------------------------
// ulimit -a (bash, zsh/dash forms) and bare `ulimit -v`

std::string_view ulimit_name(char letter) {
  switch (letter) {
    case 'c':
      return "core_file_size";
    case 'd':
      return "data_seg_size";
    case 'e':
      return "scheduling_priority";
    case 'f':
      return "file_size";
    case 'i':
      return "pending_signals";
    case 'l':
      return "max_locked_memory";
    case 'm':
      return "max_memory_size";
    case 'n':
      return "open_files";
    case 'p':
      return "pipe_size";
    case 'q':
      return "posix_message_queues";
    case 'r':
      return "real_time_priority";
    case 's':
      return "stack_size";
    case 't':
      return "cpu_time";
    case 'u':
      return "max_user_processes";
    case 'v':
      return "virtual_memory";
    case 'x':
      return "file_locks";
    case 'R':
      return "real_time_non_blocking_time";
    default:
      return {};
  }
}

class UlimitParser final : public OutputParser {
 public:
  explicit UlimitParser(std::string_view path) {
    // ulimit_v.txt, ulimit-v.log
    const std::string b(basename(path));
    const size_t p = b.find("ulimit");
    if (p != std::string::npos && p + 8 <= b.size() && (b[p + 6] == '_' || b[p + 6] == '-') &&
        (p + 8 == b.size() || b[p + 8] == '.'))
      path_letter_ = b[p + 7];
    letter_ = path_letter_;
  }

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    // zsh/dash: "-v: address space (kbytes)     unlimited"
    if (s.size() > 3 && s[0] == '-' && s[2] == ':') {
      const std::string_view name = ulimit_name(s[1]);
      const auto w = text::split_ws(s);
      if (!name.empty() && w.size() >= 2) {
        emit(std::string(name), w.back(), s, ctx, sink);
        return;
      }
    }
    // bash: "virtual memory          (kbytes, -v) unlimited"
    const size_t lp = s.find('(');
    const size_t rp = s.find(')', lp == std::string_view::npos ? 0 : lp);
    if (lp != std::string_view::npos && rp != std::string_view::npos && lp > 0) {
      const std::string_view inside = s.substr(lp + 1, rp - lp - 1);
      const size_t dash = inside.rfind('-');
      char letter = 0;
      if (dash != std::string_view::npos && dash + 2 == inside.size()) letter = inside[dash + 1];
      std::string name(ulimit_name(letter));
      if (name.empty()) name = snake(s.substr(0, lp));
      const std::string_view v = trim(s.substr(rp + 1));
      if (!name.empty() && !v.empty()) {
        emit(name, v, s, ctx, sink);
        return;
      }
    }
    if (auto b = parse_banner(s)) {
      letter_ = path_letter_;
      if (b->is_command("ulimit"))
        for (size_t i = 1; i < b->argv.size(); ++i)
          if (b->argv[i].size() == 2 && b->argv[i][0] == '-' && b->argv[i][1] != 'a' &&
              b->argv[i][1] != 'S' && b->argv[i][1] != 'H')
            letter_ = b->argv[i][1];
      return;
    }
    if (letter_ && (s == "unlimited" || text::to_int<int64_t>(s))) {
      emit(std::string(ulimit_name(letter_)), s, s, ctx, sink);
      return;
    }
    sink.malformed(ctx, "not a ulimit line");
  }

 private:
  void emit(const std::string& name, std::string_view v, std::string_view s, const LineCtx& ctx,
            Sink& sink) {
    if (name.empty()) return;
    fact(sink, "ulimit." + name, v, ctx.line);
    if (name == "virtual_memory" && v != "unlimited") {
      const std::string msg = "virtual memory limited to " + std::string(v) +
                              " kB (ulimit -v); the 8 TB SVM reservation needs it unlimited";
      event(sink, Ev{ctx.line, 1, ctx.offset, Severity::warning, true, "ulimit", msg, s, -1, -1});
    }
  }

  char path_letter_ = 0;
  char letter_ = 0;
};

// ---------------------------------------------------------------------------------------------
// sysctl -a / sysctl key / sysctl -n key / cat /proc/sys/...

bool sysctl_key_ok(std::string_view k) {
  if (k.empty() || k.size() > 200 || k.find('.') == std::string_view::npos) return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
          c == '/' || c == '*'))
      return false;
  return true;
}

std::string key_from_proc_sys(std::string_view p) {
  const size_t at = p.find("proc/sys/");
  if (at == std::string_view::npos) return {};
  std::string k(p.substr(at + 9));
  for (char& c : k)
    if (c == '/') c = '.';
  return k;
}

class SysctlParser final : public OutputParser {
 public:
  explicit SysctlParser(std::string_view path) : path_key_(key_from_proc_sys(path)) {
    key_ = path_key_;
  }

  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view s = trim(raw);
    if (is_blank(s)) return;
    if (text::istarts_with(s, "sysctl:")) return;  // permission denied / cannot stat
    std::string_view k, v;
    if (split_kv(s, '=', k, v) && sysctl_key_ok(k)) {
      fact(sink, "sysctl." + std::string(k), v, ctx.line);
      return;
    }
    if (auto b = parse_banner(s)) {
      key_ = path_key_;
      if (b->is_command("sysctl")) {
        const auto ops = b->operands();
        if (ops.size() == 1 && sysctl_key_ok(ops[0])) key_ = ops[0];
      } else if (!b->path.empty()) {
        key_ = key_from_proc_sys(b->path);
      }
      return;
    }
    if (!key_.empty()) {
      fact(sink, "sysctl." + key_, s, ctx.line);
      return;
    }
    sink.malformed(ctx, "not a sysctl line");
  }

 private:
  std::string path_key_;
  std::string key_;
};

// ---------------------------------------------------------------------------------------------
// lspci (-n, -nn, -k, -v, -D)

std::string_view npu_model(std::string_view dev) {
  if (dev == "d100") return "310";
  if (dev == "d500") return "310P";
  if (dev == "d801") return "910";
  if (dev == "d802") return "910B";
  if (dev == "d803") return "910_93";
  if (dev == "d806") return "950";
  return {};
}

bool bdf_like(std::string_view w) {
  // 01:00.0 | 0000:01:00.0
  const size_t dot = w.rfind('.');
  if (dot == std::string_view::npos || dot + 2 != w.size()) return false;
  const auto parts = text::split(w.substr(0, dot), ':');
  if (parts.size() < 2 || parts.size() > 3) return false;
  for (auto p : parts)
    if (!is_hex(p)) return false;
  return is_digit(w.back());
}

class LspciParser final : public OutputParser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    if (is_blank(raw)) return;
    if (raw.front() == '\t' || raw.front() == ' ') {
      detail(trim(raw), ctx, sink);
      return;
    }
    const std::string_view s = trim(raw);
    const auto w = text::split_ws(s);
    if (!bdf_like(w[0])) {
      if (!parse_banner(s)) sink.malformed(ctx, "not an lspci line");
      return;
    }
    end_block(sink);
    std::string bdf = text::to_lower(w[0]);
    if (std::count(bdf.begin(), bdf.end(), ':') == 1) bdf = "0000:" + bdf;
    // vendor:device
    std::string dev;
    if (const size_t p = text::to_lower(s).find("19e5:");
        p != std::string_view::npos && p + 9 <= s.size())
      dev = text::to_lower(s.substr(p + 5, 4));
    const bool huawei = !dev.empty() || text::icontains(s, "Huawei");
    if (dev.empty() && huawei) {
      const size_t d = s.find("Device ");
      if (d != std::string_view::npos && d + 11 <= s.size() && is_hex(s.substr(d + 7, 4)))
        dev = text::to_lower(s.substr(d + 7, 4));
    }
    const std::string_view model = npu_model(dev);
    const bool npu = huawei && (!model.empty() || text::icontains(s, "accelerator"));
    if (!npu) return;
    cur_ = bdf;
    cur_line_ = ctx.line;
    cur_offset_ = ctx.offset;
    if (npus_++ == 0) first_line_ = ctx.line;
    if (!dev.empty()) fact(sink, "pci." + bdf + ".id", "19e5:" + dev, ctx.line);
    if (!model.empty()) fact(sink, "pci." + bdf + ".npu_model", model, ctx.line);
  }

  void finish(Sink& sink) override {
    end_block(sink);
    if (npus_ > 0) fact(sink, "npu.pci_count", std::to_string(npus_), first_line_);
  }

 private:
  void detail(std::string_view s, const LineCtx& ctx, Sink& sink) {
    if (cur_.empty()) return;
    std::string_view k, v;
    if (!split_kv(s, ':', k, v)) return;
    if (k == "Kernel driver in use") {
      driver_ = true;
      fact(sink, "pci." + cur_ + ".driver", v, ctx.line);
    } else if (k == "Kernel modules") {
      kmods_ = true;
      fact(sink, "pci." + cur_ + ".kernel_modules", v, ctx.line);
    }
  }

  void end_block(Sink& sink) {
    if (!cur_.empty() && kmods_ && !driver_) {
      fact(sink, "pci." + cur_ + ".driver", "none", cur_line_);
      const std::string msg = "NPU PCI function " + cur_ + " has no kernel driver bound";
      event(sink, Ev{cur_line_, 1, cur_offset_, Severity::error, true, "lspci", msg, msg, -1, -1});
    }
    cur_.clear();
    driver_ = kmods_ = false;
  }

  std::string cur_;
  uint32_t cur_line_ = 0;
  uint64_t cur_offset_ = 0;
  bool driver_ = false, kmods_ = false;
  size_t npus_ = 0;
  uint32_t first_line_ = 0;
};

}  // namespace

std::unique_ptr<Parser> make_uname(std::string_view path) {
  return std::make_unique<UnameParser>(path);
}
std::unique_ptr<Parser> make_boot_record(std::string_view /*path*/) {
  return std::make_unique<BootRecordParser>();
}
std::unique_ptr<Parser> make_uptime(std::string_view /*path*/) {
  return std::make_unique<UptimeParser>();
}
std::unique_ptr<Parser> make_proc_stat(std::string_view /*path*/) {
  return std::make_unique<ProcStatParser>();
}
std::unique_ptr<Parser> make_date(std::string_view /*path*/) {
  return std::make_unique<DateParser>();
}
std::unique_ptr<Parser> make_timedatectl(std::string_view /*path*/) {
  return std::make_unique<TimedatectlParser>();
}
std::unique_ptr<Parser> make_ulimit(std::string_view path) {
  return std::make_unique<UlimitParser>(path);
}
std::unique_ptr<Parser> make_sysctl(std::string_view path) {
  return std::make_unique<SysctlParser>(path);
}
std::unique_ptr<Parser> make_lspci(std::string_view /*path*/) {
  return std::make_unique<LspciParser>();
}

}  // namespace faultline::parse::outputs
