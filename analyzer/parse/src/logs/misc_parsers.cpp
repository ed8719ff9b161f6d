// Small device-side logs: slogd's own log (slogd/slogdlog) and the black-box history
// (hisi_logs/device-N/history.log). log-formats.md §2.4.
#include <memory>

#include "logs/common.hpp"
#include "logs/parsers.hpp"

namespace faultline::parse::logs {

namespace {

// "2025-05-07 19:54:54.608[INFO] log_path_mgr.c:123: logWorkspace = /usr/slog."
class SlogdParser final : public Parser {
 public:
  explicit SlogdParser(std::string_view path) : path_device_(device_from_path(path)) {}
  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    text = clip(text);
    if (is_blank_line(text)) return;
    size_t p = 0;
    RawTime t;
    if (read_datetime(text, p, t, " -") && p < text.size() && text[p] == '[') {
      const size_t close = text.find(']', p);
      Severity sev{};
      if (close != std::string_view::npos && close - p < 12 &&
          slog_level(text.substr(p + 1, close - p - 1), sev)) {
        p = close + 1;
        if (p < text.size() && text[p] == ' ') ++p;
        t.clock = Clock::device_local;
        Event e;
        e.line = ctx.line;
        e.offset = ctx.offset;
        e.severity = sev;
        e.time = t;
        e.module = "slogd";
        e.process = "slogd";
        e.text = text;
        // "file.c:123: msg"
        std::string_view msg = text.substr(p);
        const size_t c = msg.find(": ");
        if (c != std::string_view::npos && c < 64 && c > 0 && is_digit(msg[c - 1]))
          msg = msg.substr(c + 2);
        e.message = msg;
        int32_t dev = -1, rank = -1;
        find_ids(msg, dev, rank);
        e.device = dev >= 0 ? dev : path_device_;
        sink.event(e);
        cont_.remember(e);
        return;
      }
    }
    if (cont_.active() && printable_text(text) &&
        !(text.size() > 4 && fixed_digits(text, 0, 4) >= 0)) {
      cont_.emit(text, ctx, sink);
      return;
    }
    sink.malformed(ctx, "not a slogd line");
  }

 private:
  int32_t path_device_;
  Continuation cont_;
};

// "[2023-07-13-16:20:44.081811] system exception code [0xB4060007]: ModuleName [TS],
//  ExceptionReason [TS_EXCEPTION], TimeStamp [20230713162044-070000011]."
class BboxHistoryParser final : public Parser {
 public:
  explicit BboxHistoryParser(std::string_view path) : path_device_(device_from_path(path)) {}
  void line(std::string_view text, const LineCtx& ctx, Sink& sink) override {
    text = clip(text);
    if (is_blank_line(text)) return;
    size_t p = 1;
    RawTime t;
    if (text.size() > 22 && text[0] == '[' && read_datetime(text, p, t, "- ") && p < text.size() &&
        text[p] == ']') {
      ++p;
      if (p < text.size() && text[p] == ' ') ++p;
      t.clock = Clock::device_local;
      Event e;
      e.line = ctx.line;
      e.offset = ctx.offset;
      e.time = t;
      e.text = text;
      e.message = text.substr(p);
      e.device = path_device_;
      e.module = "bbox";
      const size_t m = e.message.find("ModuleName [");
      if (m != std::string_view::npos) {
        const size_t close = e.message.find(']', m + 12);
        if (close != std::string_view::npos) e.module = e.message.substr(m + 12, close - m - 12);
      }
      const bool exception = contains(e.message, "exception");
      e.severity = exception ? Severity::error : Severity::info;
      e.keep = true;
      sink.event(e);
      cont_.remember(e);
      return;
    }
    if (cont_.active() && printable_text(text) && text[0] != '[') {
      cont_.emit(text, ctx, sink);
      return;
    }
    sink.malformed(ctx, "no [YYYY-MM-DD-hh:mm:ss.uuuuuu] prefix");
  }

 private:
  int32_t path_device_;
  Continuation cont_;
};

}  // namespace

std::unique_ptr<Parser> make_slogd_log(std::string_view path) {
  return std::make_unique<SlogdParser>(path);
}
std::unique_ptr<Parser> make_bbox_history(std::string_view path) {
  return std::make_unique<BboxHistoryParser>(path);
}

}  // namespace faultline::parse::logs
