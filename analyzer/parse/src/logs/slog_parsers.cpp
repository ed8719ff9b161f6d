// Parsers of the CANN slog grammar: plog, device_app_log, device_os_log (log-formats.md §1.2,
// §2.4), device_fw_log (TSCH/LPM/IMP/MCU/HSM firmware lines) and device_event_log (DMS events).
#include <memory>

#include "logs/common.hpp"
#include "logs/errors.hpp"
#include "logs/parsers.hpp"
#include "logs/slog.hpp"

namespace faultline::parse::logs {

namespace {

enum class SlogKind { plog, device, fw, event };

bool is_file_line_token(std::string_view c) {
  if (c.size() < 3 || !is_digit(c.back())) return false;
  size_t i = c.size();
  while (i > 0 && is_digit(c[i - 1])) --i;
  return i >= 2 && (c[i - 1] == ':' || c[i - 1] == ' ');
}

// Firmware sub-header: "[seq ](dieid:0,cpuid:0) [file.c:363] func: msg", bare "file.c:177 func:",
// LPM "(dieid:0) [mw_pg.c 59] msg", IMP "1 (device_id:0 die_id:0) [IMP] msg", MCU "[f.c:135] f:
// msg".
SlogRest parse_fw_rest(std::string_view r, int32_t& device) {
  SlogRest out;
  size_t p = 0;
  const size_t n = r.size();
  if (p < n && is_digit(r[p])) {
    size_t q = p;
    int64_t seq = 0;
    if (read_uint(r, q, seq) && q < n && r[q] == ' ') p = q + 1;
  }
  if (p < n && r[p] == '(') {
    const size_t q = r.find(')', p);
    if (q != std::string_view::npos && q - p < 64) {
      const std::string_view g = r.substr(p + 1, q - p - 1);
      const size_t d = g.find("device_id:");
      if (d != std::string_view::npos) {
        size_t k = d + 10;
        int64_t v = 0;
        if (read_uint(g, k, v)) device = static_cast<int32_t>(v);
      }
      p = q + 1;
      if (p < n && r[p] == ' ') ++p;
    }
  }
  if (p < n && r[p] == '[') {
    const size_t q = r.find(']', p);
    if (q != std::string_view::npos && is_file_line_token(r.substr(p + 1, q - p - 1))) {
      p = q + 1;
      if (p < n && r[p] == ' ') ++p;
    }
  } else {
    // bare "file.c:177 "
    const size_t sp = r.find(' ', p);
    if (sp != std::string_view::npos && sp > p) {
      const std::string_view tok = r.substr(p, sp - p);
      const size_t colon = tok.rfind(':');
      if (colon != std::string_view::npos && colon > 0 && tok.find('.') < colon &&
          is_file_line_token(tok))
        p = sp + 1;
    }
  }
  size_t i = p;
  while (i < n && is_ident(r[i])) ++i;
  if (i > p && i + 1 < n && r[i] == ':' && r[i + 1] == ' ') p = i + 2;
  out.msg = r.substr(p);
  return out;
}

Severity event_severity(std::string_view msg, Severity dflt) {
  const size_t p = msg.find("severity=");
  if (p == std::string_view::npos) return dflt;
  size_t k = p + 9;
  int64_t v = 0;
  if (!read_uint(msg, k, v)) return dflt;
  switch (v) {
    case 0:
      return Severity::info;
    case 1:
      return Severity::warning;
    case 2:
      return Severity::error;
    default:
      return Severity::critical;
  }
}

class SlogParser final : public Parser {
 public:
  SlogParser(SlogKind kind, Clock clock, std::string_view path)
      : kind_(kind), clock_(clock), path_device_(device_from_path(path)) {}

  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    text = clip(text);
    if (is_blank_line(text)) {
      errors_.flush(sink);
      return;
    }
    SlogHeader h;
    if (parse_slog_header(text, h)) {
      errors_.flush(sink);  // a slog record always ends a pasted error block
      record(h, text, ctx, sink);
      return;
    }
    if (errors_.active() && errors_.feed(text, text, ctx, sink)) return;
    if (kind_ == SlogKind::fw && fw_other(text, ctx, sink)) return;
    if (errors_.feed(text, text, ctx, sink)) return;
    Event e;
    if (parse_torch_err(text, e)) {
      e.line = ctx.line;
      e.offset = ctx.offset;
      e.text = text;
      e.keep = true;
      sink.event(e);
      return;
    }
    if (cont_.active() && !looks_like_slog_header(text) && printable_text(text)) {
      cont_.emit(text, ctx, sink);
      return;
    }
    sink.malformed(ctx, looks_like_slog_header(text) ? "broken slog header"
                                                     : "not a slog line and no record to continue");
  }

  void finish(Sink& sink) override { errors_.flush(sink); }

 private:
  void record(const SlogHeader& h, std::string_view text, const LineCtx& ctx, Sink& sink) {
    Event e;
    e.line = ctx.line;
    e.offset = ctx.offset;
    e.severity = h.severity;
    e.module = h.module;
    e.pid = h.pid;
    e.process = h.process;
    e.time = h.time;
    e.time.clock = clock_;
    e.text = text;
    int32_t fw_device = -1;
    SlogRest r = kind_ == SlogKind::fw ? parse_fw_rest(h.rest, fw_device) : parse_slog_rest(h.rest);
    e.tid = r.tid;
    e.time.uptime_ns = r.uptime_ns;
    e.message = r.msg;
    int32_t dev = -1, rank = -1;
    find_ids(r.msg, dev, rank);
    e.device = dev >= 0 ? dev : (fw_device >= 0 ? fw_device : path_device_);
    e.rank = rank;
    if (r.klogd) {
      const KernelPayload k = parse_kernel_payload(r.msg);
      if (k.has_level && k.level > e.severity) e.severity = k.level;
      if (!k.module.empty() && k.ascend) e.module = k.module;
      if (k.pid >= 0) e.pid = k.pid;
      if (k.tid >= 0) e.tid = k.tid;
      e.message = k.msg;
    }
    if (kind_ == SlogKind::event && contains(r.msg, "event_id=")) {
      e.severity = event_severity(r.msg, e.severity);
      e.keep = true;
    }
    if (e.severity < Severity::warning) e.keep = e.keep || keep_info(h.module, r.msg);
    sink.event(e);
    cont_.remember(e);
  }

  // INFO lines that rules need even though no signature may hit them (docs/events.md).
  static bool keep_info(std::string_view module, std::string_view msg) {
    if (module == "HCCL")
      return contains(msg, "Entry-") || contains(msg, "HCCL_ENV") || contains(msg, "Key Info") ||
             contains(msg, "HeartbeatAbnormal");
    if (module == "CCECPU") return starts_with(msg, "Start para.");
    return false;
  }

  // Firmware lines outside the slog grammar: "[INFO]HSM:1970-01-01 00:03:45.344 msg" and
  // "[00:03:45.344][info] msg".
  bool fw_other(std::string_view text, const LineCtx& ctx, Sink& sink) {
    Event e;
    e.line = ctx.line;
    e.offset = ctx.offset;
    e.text = text;
    e.device = path_device_;
    if (text.size() > 8 && text[0] == '[' && is_upper(text[1])) {
      const size_t close = text.find(']');
      if (close == std::string_view::npos || close > 10) return false;
      Severity sev{};
      if (!slog_level(text.substr(1, close - 1), sev)) return false;
      size_t p = close + 1;
      const size_t m0 = p;
      while (p < text.size() && is_ident(text[p])) ++p;
      if (p == m0 || p >= text.size() || text[p] != ':') return false;
      e.module = text.substr(m0, p - m0);
      ++p;
      RawTime t;
      if (!read_datetime(text, p, t, " -")) return false;
      t.clock = clock_;
      e.time = t;
      e.severity = sev;
      if (p < text.size() && text[p] == ' ') ++p;
      e.message = text.substr(p);
    } else if (text.size() > 14 && text[0] == '[' && is_digit(text[1])) {
      size_t p = 1;
      RawTime t;
      if (!read_clock(text, p, t) || p >= text.size() || text[p] != ']') return false;
      ++p;
      if (p < text.size() && text[p] == '[') {
        const size_t close = text.find(']', p);
        if (close == std::string_view::npos) return false;
        std::string lvl(text.substr(p + 1, close - p - 1));
        for (char& c : lvl) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
        Severity sev{};
        if (slog_level(lvl, sev)) e.severity = sev;
        p = close + 1;
      }
      if (p < text.size() && text[p] == ' ') ++p;
      t.clock = clock_;  // time of day only: no civil date, resolves to unknown
      t.month = 0;
      e.time = t;
      e.message = text.substr(p);
    } else {
      return false;
    }
    sink.event(e);
    cont_.remember(e);
    return true;
  }

  SlogKind kind_;
  Clock clock_;
  int32_t path_device_;
  Continuation cont_;
  ErrorBlocks errors_;
};

}  // namespace

std::unique_ptr<Parser> make_plog(std::string_view path) {
  return std::make_unique<SlogParser>(SlogKind::plog, Clock::host_local, path);
}
std::unique_ptr<Parser> make_device_app_log(std::string_view path) {
  return std::make_unique<SlogParser>(SlogKind::device, Clock::device_local, path);
}
std::unique_ptr<Parser> make_device_os_log(std::string_view path) {
  return std::make_unique<SlogParser>(SlogKind::device, Clock::device_local, path);
}
std::unique_ptr<Parser> make_device_fw_log(std::string_view path) {
  return std::make_unique<SlogParser>(SlogKind::fw, Clock::device_local, path);
}
std::unique_ptr<Parser> make_device_event_log(std::string_view path) {
  return std::make_unique<SlogParser>(SlogKind::event, Clock::device_local, path);
}

}  // namespace faultline::parse::logs
