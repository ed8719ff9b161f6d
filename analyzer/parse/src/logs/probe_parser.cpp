// Outputs of minimal device probes (seed 002: `timeout 60s python3 probe.py rng`). Convention
// (docs/events.md): each run is the echoed command line `$ <command>`, its output, then
// `exit status: <N>`; a summary line `probe <name>: pass|fail|timeout` is accepted too. A file
// without `$` lines is one run named after the file.
#include <memory>
#include <string>

#include "faultline/core/text.hpp"
#include "logs/common.hpp"
#include "logs/parsers.hpp"

namespace faultline::parse::logs {

namespace {

std::string clean_name(std::string_view s) {
  std::string o;
  for (char c : s) {
    if (is_alnum(c) || c == '_' || c == '-' || c == '.')
      o.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
    if (o.size() >= 48) break;
  }
  return o;
}

std::string stem(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  if (slash != std::string_view::npos) path = path.substr(slash + 1);
  const size_t dot = path.find('.');
  if (dot != std::string_view::npos && dot > 0) path = path.substr(0, dot);
  for (std::string_view p : {"probe_", "probe-"})
    if (starts_with(path, p)) path = path.substr(p.size());
  return clean_name(path);
}

// "exit status: 124", "exit code: 1", "Exit code 0", "rc=124", "[exit 124]", "returncode=1"
bool exit_line(std::string_view s, int64_t& code) {
  s = trim_blank(s);
  std::string l(s.substr(0, 40));
  for (char& c : l) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  for (std::string_view key :
       {"exit status", "exit code", "exitcode", "returncode", "rc", "[exit", "exit"}) {
    if (!starts_with(l, key)) continue;
    size_t p = key.size();
    while (p < s.size() && (s[p] == ':' || s[p] == '=' || s[p] == ' ')) ++p;
    int64_t v = 0;
    if (!read_int(s, p, v)) return false;
    if (key == "[exit") {
      if (p >= s.size() || s[p] != ']') return false;
      ++p;
    }
    if (p != s.size()) return false;
    code = v;
    return true;
  }
  return false;
}

class ProbeParser final : public Parser {
 public:
  explicit ProbeParser(std::string_view path) : file_name_(stem(path)) {}

  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    text = clip(text);
    const std::string_view t = trim_blank(text);
    if (starts_with(t, "$ ")) {
      close(sink);
      begin(ltrim(t.substr(2)), text, ctx);
      return;
    }
    // "probe rng: timeout"
    if (starts_with(t, "probe ")) {
      const size_t colon = t.find(':');
      if (colon != std::string_view::npos && colon > 6) {
        const std::string_view res = trim_blank(t.substr(colon + 1));
        if (res == "pass" || res == "fail" || res == "timeout") {
          const std::string name = clean_name(t.substr(6, colon - 6));
          if (!name.empty()) {
            close(sink);
            sink.fact(Fact{"probe." + name + ".result", std::string(res), ctx.line});
            Event e;
            e.line = ctx.line;
            e.offset = ctx.offset;
            e.text = text;
            e.message = t;
            e.module = "probe";
            e.keep = true;
            e.severity = res == "pass" ? Severity::info : Severity::error;
            sink.event(e);
            return;
          }
        }
      }
    }
    if (t.empty() && !run_.active()) return;
    if (!run_.active())
      begin({}, text, ctx);
    else
      run_.add(text);
    int64_t code = 0;
    if (exit_line(t, code)) {
      exit_code_ = code;
      has_exit_ = true;
      close(sink);
      return;
    }
    if (starts_with(t, "Traceback (most recent call last)") || contains(t, "Error:") ||
        contains(t, "error code is"))
      saw_error_ = true;
    if (contains(t, "timed out") || contains(t, "Timeout") || contains(t, "timeout!"))
      saw_timeout_ = true;
  }

  void finish(Sink& sink) override { close(sink); }

 private:
  void begin(std::string_view cmd, std::string_view raw, const LineCtx& ctx) {
    run_.start(ctx, raw);
    cmd_.assign(cmd);
    has_exit_ = false;
    saw_error_ = false;
    saw_timeout_ = false;
    exit_code_ = 0;
    timeout_cmd_ = false;
    name_.clear();
    // "date; timeout 60s python3 probe.py rng; echo exit=$?": the part that runs the probe
    for (auto part : faultline::text::split(cmd, ';')) {
      if (part.find(".py") != std::string_view::npos) {
        const size_t amp = part.rfind("&&");
        cmd = amp == std::string_view::npos ? part : part.substr(amp + 2);
        break;
      }
    }
    const auto toks = faultline::text::split_ws(cmd);
    size_t i = 0;
    // skip env assignments, sudo, timeout <dur>
    while (i < toks.size()) {
      if (toks[i] == "sudo" || toks[i] == "env" || toks[i].find('=') != std::string_view::npos) {
        ++i;
      } else if (toks[i] == "timeout") {
        timeout_cmd_ = true;
        ++i;
        while (i < toks.size() && starts_with(toks[i], "-")) ++i;
        if (i < toks.size()) ++i;  // duration
      } else {
        break;
      }
    }
    for (size_t k = i; k < toks.size(); ++k) {
      if (!ends_with(toks[k], ".py")) continue;
      for (size_t a = k + 1; a < toks.size(); ++a)
        if (!starts_with(toks[a], "-")) {
          name_ = clean_name(toks[a]);
          break;
        }
      if (name_.empty()) name_ = stem(toks[k]);
      break;
    }
    if (name_.empty() && i < toks.size()) name_ = stem(toks[i]);
    if (name_.empty()) name_ = file_name_.empty() ? "probe" : file_name_;
  }

  void close(Sink& sink) {
    if (!run_.active()) return;
    std::string result;
    if (has_exit_) {
      if (exit_code_ == 0)
        result = "pass";
      else if (exit_code_ == 124 || ((exit_code_ == 137 || exit_code_ == 143) && timeout_cmd_))
        result = "timeout";  // 124 is what timeout(1) exits with
      else
        result = "fail";
    } else if (saw_error_) {
      result = saw_timeout_ ? "timeout" : "fail";
    }
    if (result.empty()) {
      run_.clear();
      return;
    }
    sink.fact(Fact{"probe." + name_ + ".result", result, run_.first_line()});
    message_ = "probe " + name_ + ": " + result;
    if (has_exit_) message_ += " (exit status " + std::to_string(exit_code_) + ")";
    if (!cmd_.empty()) message_ += ": " + cmd_;
    Event e;
    e.module = "probe";
    e.keep = true;
    e.severity = result == "pass" ? Severity::info : Severity::error;
    e.message = message_;
    run_.emit(e, sink);
  }

  std::string file_name_;
  Block run_;
  std::string cmd_, name_, message_;
  bool has_exit_ = false, saw_error_ = false, saw_timeout_ = false, timeout_cmd_ = false;
  int64_t exit_code_ = 0;
};

}  // namespace

std::unique_ptr<Parser> make_probe_output(std::string_view path) {
  return std::make_unique<ProbeParser>(path);
}

}  // namespace faultline::parse::logs
