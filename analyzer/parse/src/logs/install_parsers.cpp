// Install logs: /var/log/ascend_seclog/ascend_install.log and operation.log (log-formats.md §6.1,
// §6.2). Besides line events they emit one `install.event` fact per install/upgrade/downgrade/
// uninstall session, decided from the lines between Start time and End time of one package.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "faultline/core/text.hpp"
#include "logs/common.hpp"
#include "logs/install_util.hpp"
#include "logs/parsers.hpp"

namespace faultline::parse::logs {

namespace {

std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return o;
}

std::string_view after(std::string_view s, std::string_view key) {
  const size_t p = s.find(key);
  return p == std::string_view::npos ? std::string_view{} : s.substr(p + key.size());
}

// A version token: up to ',', ' ', ';' or end; trailing '.' removed.
std::string version_token(std::string_view s) {
  s = ltrim(s);
  size_t i = 0;
  while (i < s.size() && s[i] != ',' && s[i] != ' ' && s[i] != ';' && s[i] != ')') ++i;
  std::string_view v = s.substr(0, i);
  while (!v.empty() && v.back() == '.') v.remove_suffix(1);
  return std::string(v);
}

struct Session {
  std::string pkg;
  std::string time;
  std::string run;
  std::string base, from, to, current;
  std::string
      path_version;  // from an install path (.../ascend-toolkit/8.5.0/..., .../cann-9.1.0/...)
  std::string root;  // --install-path=DIR of the command line ("" = the installer's default)
  bool open = false, uninstall_cmd = false, uninstalled_ok = false, installed_ok = false;
  bool upgraded_ok = false, failed = false, reboot = false, ended = false;
  uint32_t line = 0;
};

class InstallLogParser final : public Parser {
 public:
  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    text = clip(text);
    if (is_blank_line(text)) return;
    Event e;
    e.line = ctx.line;
    e.offset = ctx.offset;
    e.text = text;
    // "[Pkg] [YYYY-MM-DD HH:MM:SS] [LEVEL]msg" / "[LEVEL]: msg" / no level
    if (text.size() > 4 && text[0] == '[' && is_alpha(text[1])) {
      const size_t close = text.find(']');
      bool pkg_ok = close != std::string_view::npos && close < 32 && close + 2 < text.size() &&
                    text[close + 1] == ' ' && text[close + 2] == '[';
      for (size_t i = 1; pkg_ok && i < close; ++i) pkg_ok = is_ident(text[i]);
      if (pkg_ok) {
        const std::string_view pkg = text.substr(1, close - 1);
        size_t p = close + 3;
        RawTime t;
        if (!read_datetime(text, p, t, " ") || p >= text.size() || text[p] != ']') {
          sink.malformed(ctx, "install log line without [YYYY-MM-DD HH:MM:SS]");
          return;
        }
        t.clock = Clock::host_local;
        last_time_ = t;
        ++p;
        if (p < text.size() && text[p] == ' ') ++p;
        e.severity = Severity::info;
        if (p < text.size() && text[p] == '[') {
          const size_t lc = text.find(']', p);
          Severity sev{};
          if (lc != std::string_view::npos && lc - p < 12 &&
              slog_level(text.substr(p + 1, lc - p - 1), sev)) {
            e.severity = sev;
            p = lc + 1;
            if (p < text.size() && text[p] == ':') ++p;
            if (p < text.size() && text[p] == ' ') ++p;
          }
        }
        e.module = pkg;
        e.time = t;
        e.message = text.substr(p);
        e.keep = keep_line(e.message);
        sink.event(e);
        session_line(pkg, text.substr(close + 3, 19), e.message, e.severity, ctx, sink);
        return;
      }
    }
    // un-prefixed output (pip, upgrade-tool JSON, file lists): time of the preceding stamped line
    e.time = last_time_;
    e.message = text;
    e.module = "install";
    const std::string_view m = ltrim(text);
    if (starts_with(m, "ERROR") || contains(m, "Error:"))
      e.severity = Severity::error;
    else if (starts_with(m, "WARNING"))
      e.severity = Severity::warning;
    e.keep = keep_line(m);
    sink.event(e);
  }

  void finish(Sink& sink) override {
    for (auto& s : sessions_)
      if (s.open) close(s, sink);
  }

 private:
  // Lines rules need even at INFO (docs/events.md): results, reboot hints, versions, session
  // boundaries, the command line, and busy-device errors of uninstallers.
  static bool keep_line(std::string_view m) {
    return contains(m, "installed successfully") || contains(m, "uninstalled") ||
           contains(m, "upgraded successfully") || contains(m, "upgrade success") ||
           contains(m, "uninstall driver success") || contains(m, "eboot") ||
           contains(m, "vermagic") || contains(m, "version") || contains(m, "Version") ||
           contains(m, "Start time") || contains(m, "End time") || contains(m, "Start Time") ||
           contains(m, "End Time") || contains(m, "InstallStart") || contains(m, "InstallEnd") ||
           contains(m, "UserCommand") || contains(m, "InputParams") || contains(m, "ERR_NO") ||
           contains(m, "busy");
  }

  Session* find(std::string_view pkg) {
    for (auto& s : sessions_)
      if (s.pkg == pkg) return &s;
    if (sessions_.size() >= 64) return nullptr;
    sessions_.emplace_back();
    sessions_.back().pkg = std::string(pkg);
    return &sessions_.back();
  }

  void session_line(std::string_view pkg, std::string_view stamp, std::string_view m, Severity sev,
                    const LineCtx& ctx, Sink& sink) {
    Session* s = find(pkg);
    if (!s) return;
    // session start: "Start time:" (driver, firmware, most CANN packages), "Start Time:",
    // "InstallStart:" (Fwkplugin), "Command install|upgrade|uninstall" (Opp)
    const bool command = starts_with(m, "Command install") || starts_with(m, "Command upgrade") ||
                         starts_with(m, "Command uninstall");
    if (starts_with(m, "Start time") || starts_with(m, "Start Time") ||
        starts_with(m, "InstallStart:") || command) {
      if (s->open) close(*s, sink);
      begin(*s, stamp, ctx);
      if (starts_with(m, "Command uninstall")) s->uninstall_cmd = true;
      return;
    }
    const bool end =
        starts_with(m, "End time") || starts_with(m, "End Time") || starts_with(m, "InstallEnd:");
    // lines that only an install session prints (not the Server sub-step of a driver run)
    const bool marker = contains(m, "UserCommand") || contains(m, "base version is") ||
                        contains(m, "package installed successfully") ||
                        contains(m, "package uninstalled successfully") ||
                        contains(m, "package upgraded successfully") ||
                        contains(m, "has been installed on the path");
    if (!s->open) {
      if (!marker || end) return;
      begin(*s, stamp, ctx);  // a session whose Start line is missing
    }
    if (const size_t ip = m.find("--install-path=");
        ip != std::string_view::npos &&
        (starts_with(m, "UserCommand:") || starts_with(m, "InputParams:") ||
         starts_with(m, "Input params:"))) {
      std::string_view dir = m.substr(ip + 15);
      dir = dir.substr(0, dir.find_first_of(" ;,'\""));
      while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
      s->root = std::string(dir);
    }
    if (starts_with(m, "UserCommand:")) {
      const std::string_view cmd = ltrim(m.substr(12));
      const size_t sp = cmd.find(' ');
      s->run = std::string(cmd.substr(0, sp));
      if (contains(cmd, "--uninstall")) s->uninstall_cmd = true;
    } else if (starts_with(m, "InputParams:") || starts_with(m, "Input params:")) {
      if (contains(m, "--uninstall")) s->uninstall_cmd = true;
    }
    if (contains(m, "base version is ")) {
      std::string v = version_token(after(m, "base version is "));
      if (v != "none") s->base = v;
    }
    if (contains(m, "has been installed on the path")) {
      s->from = version_token(after(m, "the version is "));
      s->to = version_token(after(m, "the version of this package is "));
    }
    if (s->path_version.empty()) {
      for (std::string_view key : {"/ascend-toolkit/", "/cann-", "/nnae/", "/ascend-cann-"}) {
        const size_t at = m.find(key);
        if (at == std::string_view::npos) continue;
        std::string_view rest = m.substr(at + key.size());
        rest = rest.substr(0, rest.find_first_of("/ ;,'\""));
        if (!rest.empty() && rest[0] >= '0' && rest[0] <= '9' &&
            rest.find('.') != std::string_view::npos) {
          s->path_version = std::string(rest);
          break;
        }
      }
    }
    if (contains(m, "Current package version is "))
      s->current = version_token(after(m, "Current package version is "));
    if (contains(m, "the new opp module version is ")) {
      s->from = version_token(after(m, "Existed opp module version is "));
      s->to = version_token(after(m, "the new opp module version is "));
    }
    if (contains(m, "installed successfully") || contains(m, "upgrade success") ||
        contains(m, "upgradePercentage:100%") || contains(m, "upgradePercentage: 100%") ||
        contains(m, "install success"))
      s->installed_ok = true;
    if (contains(m, "upgraded successfully")) s->upgraded_ok = true;
    if (contains(m, "uninstalled successfully") || contains(m, "uninstall driver success"))
      s->uninstalled_ok = true;
    if (sev >= Severity::error || contains(m, "ERR_NO:") || contains(m, " failed!") ||
        starts_with(m, "Failed to"))
      s->failed = true;
    if (contains(m, "eboot needed") || contains(m, "Reboot now") || contains(m, "reboot needed") ||
        contains(m, "after reboot"))
      s->reboot = true;
    if (end) {
      s->ended = true;
      close(*s, sink);
    }
  }

  static void begin(Session& s, std::string_view stamp, const LineCtx& ctx) {
    const std::string pkg = s.pkg;
    s = Session{};
    s.pkg = pkg;
    s.open = true;
    s.time = std::string(stamp);
    s.line = ctx.line;
  }

  static void close(Session& s, Sink& sink) {
    s.open = false;
    InstallEvent ev;
    ev.package = lower(s.pkg);
    ev.time = s.time;
    std::string to = !s.to.empty() ? s.to : version_from_run(s.run);
    if (to.empty()) to = s.current;
    if (to.empty()) to = s.path_version;
    std::string from = !s.from.empty() ? s.from : s.base;
    if (starts_with(from, "was destroyed") || from == "none") from.clear();
    const bool installish = s.installed_ok || s.upgraded_ok;
    if (s.uninstall_cmd || (s.uninstalled_ok && !installish && s.run.empty() && to.empty())) {
      ev.action = "uninstall";
      ev.from = !from.empty() ? from : to;
    } else {
      ev.from = from;
      ev.to = to;
      if (from.empty() || to.empty()) {
        ev.action = s.upgraded_ok && !from.empty() ? "upgrade" : "install";
      } else {
        const int c = compare_versions(from, to);
        ev.action = c < 0 ? "upgrade" : (c > 0 ? "downgrade" : "install");
      }
    }
    const bool done = s.ended || installish || s.uninstalled_ok;
    ev.result = (s.failed || !done) ? "failed" : "success";
    ev.reboot_required = s.reboot;
    ev.path = s.root;
    // What is installed now is decided per host by replaying every install.event in time order
    // (faultline/parse/install_replay.hpp), not per session here: a version installed and later
    // upgraded or uninstalled is not installed.
    sink.fact(Fact{"install.event", ev.json(), s.line});
  }

  RawTime last_time_;
  std::vector<Session> sessions_;
};

// "Install SUGGESTION root 2025-03-29 04:10:34 127.0.0.1 <run> success install_type=full;
// cmdlist=..."
class OperationLogParser final : public Parser {
 public:
  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    text = clip(text);
    if (is_blank_line(text)) return;
    const auto f = faultline::text::split_ws(text);
    if (f.size() < 8 ||
        !(f[0] == "Install" || f[0] == "Upgrade" || f[0] == "Uninstall" || f[0] == "Rollback")) {
      sink.malformed(ctx, "not an operation.log record");
      return;
    }
    const std::string stamp = std::string(f[3]) + " " + std::string(f[4]);
    size_t p = 0;
    RawTime t;
    if (!read_datetime(stamp, p, t, " ") || p != stamp.size()) {
      sink.malformed(ctx, "operation.log record without YYYY-MM-DD HH:MM:SS");
      return;
    }
    t.clock = Clock::host_local;
    const std::string_view run = f[6];
    const std::string_view result = f[7];
    Event e;
    e.line = ctx.line;
    e.offset = ctx.offset;
    e.text = text;
    e.time = t;
    e.module = "operation";
    e.message = text;
    e.keep = true;
    e.severity = result == "success" ? Severity::info : Severity::error;
    sink.event(e);
    InstallEvent ev;
    ev.package = package_from_run(run);
    ev.time = stamp;
    const std::string ver = version_from_run(run);
    ev.action = lower(f[0]);
    if (ev.action == "uninstall")
      ev.from = ver;
    else
      ev.to = ver;
    ev.result = result == "success" ? "success" : "failed";
    ev.reboot_required = false;
    if (const size_t ip = text.find("--install-path="); ip != std::string_view::npos) {
      std::string_view dir = text.substr(ip + 15);
      dir = dir.substr(0, dir.find_first_of(" ;,'\""));
      while (!dir.empty() && (dir.back() == '.' || dir.back() == '/')) dir.remove_suffix(1);
      ev.path = std::string(dir);
    }
    sink.fact(Fact{"install.event", ev.json(), ctx.line});
  }
};

}  // namespace

std::unique_ptr<Parser> make_install_log(std::string_view) {
  return std::make_unique<InstallLogParser>();
}
std::unique_ptr<Parser> make_operation_log(std::string_view) {
  return std::make_unique<OperationLogParser>();
}

}  // namespace faultline::parse::logs
