#include "logs/errors.hpp"

namespace faultline::parse::logs {

namespace {
bool is_code6(std::string_view s) {
  if (s.size() < 6) return false;
  if (s[0] != 'E' && s[0] != 'W' && s[0] != 'I') return false;
  if (!is_digit(s[1]) && !is_upper(s[1])) return false;
  for (size_t i = 2; i < 6; ++i)
    if (!is_digit(s[i])) return false;
  return s.size() == 6 || !is_alnum(s[6]);
}
}  // namespace

bool cann_block_header(std::string_view s, std::string_view& code) {
  if (starts_with(s, "[PID:")) {
    size_t p = 5;
    if (p < s.size() && s[p] == ' ') ++p;
    int64_t pid = 0;
    if (!read_uint(s, p, pid) || p + 2 >= s.size() || s[p] != ']' || s[p + 1] != ' ') return false;
    p += 2;
    RawTime t;
    if (!read_datetime(s, p, t, "- ")) return false;
    // "<title>(EI0006): " after the time
    size_t q = p;
    while ((q = s.find('(', q)) != std::string_view::npos && q < p + 128) {
      if (q + 7 < s.size() && is_code6(s.substr(q + 1, 6)) && s[q + 7] == ')') {
        code = s.substr(q + 1, 6);
        return true;
      }
      ++q;
    }
    return false;
  }
  if (!is_code6(s)) return false;
  const std::string_view r = s.substr(6);
  if (r.empty()) return false;
  const bool ok = starts_with(r, ": ") || r == ":" || starts_with(r, ":[") ||
                  starts_with(r, "[PID:") || (starts_with(r, "  ") && r.size() > 2 && r[2] != ' ');
  if (ok) code = s.substr(0, 6);
  return ok;
}

bool parse_torch_err(std::string_view s, Event& e) {
  size_t p = 0;
  if (starts_with(s, "[ERROR] ")) {
    p = 8;
  } else if (starts_with(s, "Error:")) {
    p = 6;
    while (p < s.size() && s[p] == ' ') ++p;
  } else {
    return false;
  }
  RawTime t;
  if (!read_datetime(s, p, t, "-")) return false;
  if (s.compare(p, 6, " (PID:") != 0) return false;
  p += 6;
  int64_t pid = 0, dev = 0, rank = 0;
  if (!read_uint(s, p, pid)) return false;
  if (s.compare(p, 9, ", Device:") != 0) return false;
  p += 9;
  if (!read_int(s, p, dev)) return false;
  if (s.compare(p, 9, ", RankID:") != 0) return false;
  p += 9;
  if (!read_int(s, p, rank)) return false;
  if (p >= s.size() || s[p] != ')') return false;
  ++p;
  if (p < s.size() && s[p] == ' ') ++p;
  t.clock = Clock::host_local;
  e.time = t;
  e.pid = pid;
  e.device = dev >= 0 ? static_cast<int32_t>(dev) : -1;
  e.rank = rank >= 0 ? static_cast<int32_t>(rank) : -1;
  e.severity = Severity::error;
  e.module = "torch_npu";
  e.message = s.substr(p);
  return true;
}

bool has_error_code(std::string_view s) {
  const size_t p = find_sub(s, "error code is ");
  return p != std::string_view::npos && p + 14 < s.size() && is_digit(s[p + 14]);
}

bool ErrorBlocks::continues(std::string_view payload) const {
  if (payload.empty()) return false;
  switch (mode_) {
    case Mode::cann:
      if (is_blank(payload[0])) return true;
      if (starts_with(payload, code_)) return true;
      if (starts_with(payload, "TraceBack (most recent call last)")) return true;
      return depth_ > 0 && depth_lines_ < 64;
    case Mode::hint:
      return is_blank(payload[0]);
    case Mode::cpp_stack:
      return starts_with(payload, "frame #") || is_blank(payload[0]);
  }
  return false;
}

void ErrorBlocks::take_time(std::string_view payload) {
  if (time_.has_civil()) return;
  size_t p = payload.find("PID:");
  if (p != std::string_view::npos) {
    p += 4;
    if (p < payload.size() && payload[p] == ' ') ++p;
    int64_t v = 0;
    if (read_uint(payload, p, v) && p + 1 < payload.size() && payload[p] == ']') {
      block_pid_ = v;
      p += 1;
      while (p < payload.size() && payload[p] == ' ') ++p;
      RawTime t;
      if (read_datetime(payload, p, t, "- ")) {
        t.clock = Clock::host_local;
        time_ = t;
      }
    }
    return;
  }
  if (mode_ == Mode::cann && starts_with(payload, code_) && payload.size() > 8 &&
      payload[6] == ':') {
    size_t q = 7;
    while (q < payload.size() && payload[q] == ' ') ++q;
    RawTime t;
    if (q < payload.size() && is_digit(payload[q]) && read_datetime(payload, q, t, "- ")) {
      t.clock = Clock::host_local;
      time_ = t;
    }
  }
}

void ErrorBlocks::start(Mode m, std::string_view raw, std::string_view payload,
                        std::string_view code, const LineCtx& ctx) {
  mode_ = m;
  code_.assign(code);
  block_.start(ctx, raw);
  message_.assign(payload.substr(0, Block::kMaxBytes));
  depth_ = 0;
  depth_lines_ = 0;
  time_ = RawTime{};
  block_pid_ = -1;
  block_rank_ = rank;
  device_ = -1;
  for (char c : payload) depth_ += c == '[' ? 1 : (c == ']' ? -1 : 0);
  if (depth_ < 0) depth_ = 0;
  take_time(payload);
}

bool ErrorBlocks::feed(std::string_view raw, std::string_view payload, const LineCtx& ctx,
                       Sink& sink) {
  if (block_.active()) {
    if (continues(payload)) {
      block_.add(raw);
      if (message_.size() + payload.size() + 1 <= Block::kMaxBytes) {
        message_.push_back('\n');
        message_.append(payload);
      }
      for (char c : payload) depth_ += c == '[' ? 1 : (c == ']' ? -1 : 0);
      if (depth_ < 0) depth_ = 0;
      depth_lines_ = depth_ > 0 ? depth_lines_ + 1 : 0;
      take_time(payload);
      return true;
    }
    flush(sink);
  }
  std::string_view code;
  if (cann_block_header(payload, code)) {
    start(Mode::cann, raw, payload, code, ctx);
    return true;
  }
  if (starts_with(payload, "[Error]:")) {
    start(Mode::hint, raw, payload, {}, ctx);
    return true;
  }
  if (starts_with(payload, "Exception raised from ") &&
      contains(payload, "most recent call first")) {
    start(Mode::cpp_stack, raw, payload, {}, ctx);
    return true;
  }
  return false;
}

void ErrorBlocks::flush(Sink& sink) {
  if (!block_.active()) return;
  Event e;
  e.keep = true;
  switch (mode_) {
    case Mode::cann:
      e.severity = code_.empty() || code_[0] == 'E'
                       ? Severity::error
                       : (code_[0] == 'W' ? Severity::warning : Severity::info);
      e.module = "CANN";
      break;
    case Mode::hint:
      e.severity = Severity::error;
      e.module = "torch_npu";
      break;
    case Mode::cpp_stack:
      e.severity = Severity::error;
      e.module = "c10";
      break;
  }
  e.time = time_;
  e.pid = block_pid_ >= 0 ? block_pid_ : pid;
  int32_t dev = -1, rk = -1;
  find_ids(message_, dev, rk);
  e.device = dev;
  e.rank = block_rank_ >= 0 ? block_rank_ : rk;
  e.message = message_;
  block_.emit(e, sink);
}

}  // namespace faultline::parse::logs
