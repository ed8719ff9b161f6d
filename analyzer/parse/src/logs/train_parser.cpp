// Training / serving stdout (log-formats.md §3, §9): Python tracebacks, CANN error blocks,
// torch_npu ERR lines, c10 / vLLM / python-logging prefixes, launcher prefixes, torchrun's
// ChildFailedError summary, and the effective configuration / command line as facts.
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "faultline/core/text.hpp"
#include "logs/common.hpp"
#include "logs/errors.hpp"
#include "logs/parsers.hpp"

namespace faultline::parse::logs {

namespace {

// ------------------------------------------------------------------ launcher prefixes
struct Launcher {
  size_t end = 0;  // payload starts here
  int32_t rank = -1;
  int64_t pid = -1;
  std::string_view process;
  // a `grep -n` / `grep -A` prefix `<file>-<line>-` / `<file>:<line>:`: [file_end, grep_end) is
  // the line number (not part of the stream's key: every line has its own)
  size_t file_end = 0, grep_end = 0;
};

// `worker_1953.log-11454-` (context line of `grep -A/-B/-C` over several files) and
// `worker_1953.log:11454:` (matching line): the length of the prefix (0 when none) and the end of
// the file name. The name must look like a log file (.log, .txt, .out, .err) and hold no blank.
size_t grep_prefix(std::string_view s, size_t& file_end) {
  const std::string_view tok = s.substr(0, std::min(s.find(' '), size_t{512}));
  for (std::string_view ext : {".log", ".txt", ".out", ".err"}) {
    for (size_t e = tok.find(ext); e != std::string_view::npos; e = tok.find(ext, e + 1)) {
      const size_t k = e + ext.size();
      if (k >= tok.size() || (tok[k] != '-' && tok[k] != ':')) continue;
      size_t d = k + 1;
      while (d < tok.size() && d - k <= 10 && is_digit(tok[d])) ++d;
      if (d > k + 1 && d < tok.size() && tok[d] == tok[k]) {
        file_end = k;
        return d + 1;
      }
    }
  }
  return 0;
}

bool host_like(std::string_view tok) {
  if (tok.empty() || tok.size() > 48) return false;
  if (is_lower(tok[0])) {
    // worker-1, node-03, gpu-node-12, worker1
    size_t i = tok.size();
    while (i > 0 && is_digit(tok[i - 1])) --i;
    if (i == tok.size()) return false;
    for (size_t k = 0; k < i; ++k)
      if (!is_alnum(tok[k]) && tok[k] != '-' && tok[k] != '.' && tok[k] != '_') return false;
    return tok[i - 1] == '-' || starts_with(tok, "worker") || starts_with(tok, "node");
  }
  // 10.0.0.1
  int dots = 0;
  for (char c : tok) {
    if (c == '.')
      ++dots;
    else if (!is_digit(c))
      return false;
  }
  return dots == 3;
}

Launcher strip_launcher(std::string_view s) {
  Launcher l;
  size_t p = grep_prefix(s, l.file_end);
  l.grep_end = p;
  for (int round = 0; round < 4; ++round) {
    const std::string_view r = s.substr(p);
    if (starts_with(r, "[rank")) {
      size_t k = 5;
      int64_t v = 0;
      if (read_uint(r, k, v) && k + 1 < r.size() + 1 && k < r.size() && r[k] == ']' &&
          k + 1 < r.size() && r[k + 1] == ':') {
        l.rank = static_cast<int32_t>(v);
        p += k + 2;
        if (p < s.size() && s[p] == ' ') ++p;
        continue;
      }
    }
    // torchrun --tee / elastic agents: `[<role><local rank>]:` — `[default0]:`, `[trainer3]:`
    // (the local rank, not the global one: no rank is taken from it)
    if (!r.empty() && r[0] == '[') {
      size_t k = 1;
      while (k < r.size() && k < 24 && is_lower(r[k])) ++k;
      const size_t letters = k - 1;
      while (k < r.size() && is_digit(r[k])) ++k;
      if (letters > 0 && k > letters + 1 && k + 1 < r.size() && r[k] == ']' && r[k + 1] == ':') {
        p += k + 2;  // no blank follows: the payload's own indentation starts here
        continue;
      }
    }
    if (!r.empty() && r[0] == '(') {
      const size_t close = r.find(')');
      if (close != std::string_view::npos && close < 96 && close + 1 < r.size() &&
          r[close + 1] == ' ') {
        const std::string_view in = r.substr(1, close - 1);
        const size_t pp = in.find("pid=");
        if (pp != std::string_view::npos && pp > 0 && in[pp - 1] == ' ') {
          size_t k = pp + 4;
          int64_t v = 0;
          if (read_uint(in, k, v) && k == in.size()) {
            l.pid = v;
            const size_t sp = in.find(' ');
            l.process = in.substr(0, sp);
            const size_t rk = in.find("rank=");
            if (rk != std::string_view::npos) {
              size_t q = rk + 5;
              int64_t rv = 0;
              if (read_uint(in, q, rv)) l.rank = static_cast<int32_t>(rv);
            }
            p += close + 2;
            continue;
          }
        }
      }
    }
    {
      const size_t colon = r.find(": ");
      if (colon != std::string_view::npos && colon > 0 && colon < 48 &&
          host_like(r.substr(0, colon))) {
        l.process = r.substr(0, colon);
        p += colon + 2;
        continue;
      }
    }
    break;
  }
  l.end = p;
  return l;
}

// ------------------------------------------------------------------ logger prefixes
struct Logger {
  size_t end = 0;
  bool has_level = false;
  Severity level = Severity::info;
  RawTime time;
};

bool level_word(std::string_view w, Severity& s) {
  if (w == "ERROR")
    s = Severity::error;
  else if (w == "WARNING" || w == "WARN")
    s = Severity::warning;
  else if (w == "INFO")
    s = Severity::info;
  else if (w == "DEBUG")
    s = Severity::debug;
  else if (w == "CRITICAL" || w == "FATAL")
    s = Severity::critical;
  else
    return false;
  return true;
}

bool c10_level(char c, Severity& s) {
  switch (c) {
    case 'E':
      s = Severity::error;
      return true;
    case 'W':
      s = Severity::warning;
      return true;
    case 'I':
      s = Severity::info;
      return true;
    case 'F':
      s = Severity::critical;
      return true;
    default:
      return false;
  }
}

Logger strip_logger(std::string_view s) {
  Logger g;
  const size_t n = s.size();
  // MindIE service / backend: "[2025-10-12 17:17:33.458+08:00] [26217] [33186] [server] [INFO]
  // [http_server.cpp:54] : msg" (time with its zone, pid, tid, component, level, file:line)
  if (n > 30 && s[0] == '[' && is_digit(s[1])) {
    size_t p = 1;
    RawTime t;
    if (read_datetime(s, p, t, " T")) {
      int32_t off = 0;
      const bool zoned = read_zone_suffix(s, p, off);
      if (p < n && s[p] == ']') {
        size_t q = p + 1;
        Severity lv{};
        bool has = false;
        for (int k = 0; k < 6 && q + 1 < n && s[q] == ' ' && s[q + 1] == '['; ++k) {
          const size_t close = s.find(']', q + 2);
          if (close == std::string_view::npos || close - q > 64) break;
          if (!has && level_word(s.substr(q + 2, close - q - 2), lv)) has = true;
          q = close + 1;
        }
        if (has && valid_civil(t)) {
          if (zoned)
            to_utc(t, off);
          else
            t.clock = Clock::host_local;
          g.time = t;
          g.has_level = true;
          g.level = lv;
          if (s.substr(q, 3) == " : ")
            q += 3;
          else if (q < n && s[q] == ' ')
            ++q;
          g.end = q;
          return g;
        }
      }
    }
  }
  // c10: "[W220 02:16:08.680800943 NPUStream.cpp:487] " / "[W NPUStream.cpp:365] "
  if (n > 6 && s[0] == '[' && c10_level(s[1], g.level)) {
    size_t p = 2;
    RawTime t;
    bool ok = false;
    if (is_digit(s[p])) {
      size_t q = p;
      int64_t md = 0;
      if (read_uint(s, q, md) && (q - p == 3 || q - p == 4) && q < n && s[q] == ' ') {
        t.month = static_cast<int32_t>(md / 100);
        t.day = static_cast<int32_t>(md % 100);
        size_t c = q + 1;
        if (read_clock(s, c, t) && c < n && s[c] == ' ' && valid_civil(t)) {
          p = c + 1;
          ok = true;
        }
      }
    } else if (s[p] == ' ') {
      ++p;
      ok = true;
      t = RawTime{};
    }
    if (ok) {
      const size_t close = s.find(']', p);
      if (close != std::string_view::npos && close - p < 96 &&
          s.substr(p, close - p).find(':') != std::string_view::npos) {
        g.has_level = true;
        if (t.month != 0) {
          t.clock = Clock::host_local;
          g.time = t;
        }
        g.end = close + 1;
        if (g.end < n && s[g.end] == ' ') ++g.end;
        return g;
      }
    }
    g.level = Severity::info;
  }
  // vLLM: "ERROR 08-21 08:26:21 [multiproc_executor.py:546] "; vLLM before 0.6.4 printed the
  // file without the opening bracket: "ERROR 03-25 12:50:16 multiproc_worker_utils.py:242] "
  {
    const size_t sp = s.find(' ');
    Severity lv{};
    if (sp != std::string_view::npos && sp <= 8 && level_word(s.substr(0, sp), lv) && sp + 16 < n &&
        s[sp + 3] == '-') {
      RawTime t;
      const int mo = fixed_digits(s, sp + 1, 2);
      const int d = fixed_digits(s, sp + 4, 2);
      size_t c = sp + 7;
      if (mo > 0 && d > 0 && s[sp + 6] == ' ' && read_clock(s, c, t) && c + 1 < n && s[c] == ' ') {
        t.month = mo;
        t.day = d;
        const size_t close = s.find("] ", c);
        const std::string_view file =
            close == std::string_view::npos ? std::string_view() : s.substr(c + 1, close - c - 1);
        const bool bracketed = s[c + 1] == '[';
        const bool bare = !bracketed && !file.empty() && file.find(' ') == std::string_view::npos &&
                          file.find(".py:") != std::string_view::npos;
        if ((bracketed || bare) && close != std::string_view::npos && close - c < 96 &&
            valid_civil(t)) {
          t.clock = Clock::host_local;
          g.time = t;
          g.has_level = true;
          g.level = lv;
          g.end = close + 2;
          return g;
        }
      }
    }
  }
  // python logging: "2024-10-21 10:42:00,218 - lmdeploy - ERROR - msg", "<dt> [LEVEL] msg",
  // "<dt> LEVEL msg"
  if (n > 20 && is_digit(s[0])) {
    size_t p = 0;
    RawTime t;
    if (read_datetime(s, p, t, " T") && p < n && s[p] == ' ') {
      t.clock = Clock::host_local;
      const std::string_view r = s.substr(p + 1);
      Severity lv{};
      if (starts_with(r, "- ")) {
        const size_t a = r.find(" - ", 2);
        if (a != std::string_view::npos) {
          const size_t b = r.find(" - ", a + 3);
          if (b != std::string_view::npos && level_word(r.substr(a + 3, b - a - 3), lv)) {
            g.time = t;
            g.has_level = true;
            g.level = lv;
            g.end = p + 1 + b + 3;
            return g;
          }
        }
      } else if (!r.empty() && r[0] == '[') {
        const size_t close = r.find(']');
        if (close != std::string_view::npos && level_word(r.substr(1, close - 1), lv)) {
          g.time = t;
          g.has_level = true;
          g.level = lv;
          g.end = p + 1 + close + 1;
          if (g.end < n && s[g.end] == ' ') ++g.end;
          return g;
        }
      } else {
        const size_t sp = r.find(' ');
        if (sp != std::string_view::npos && level_word(r.substr(0, sp), lv)) {
          g.time = t;
          g.has_level = true;
          g.level = lv;
          g.end = p + 1 + sp + 1;
          return g;
        }
      }
      g.time = t;  // a dated line without a level word
      return g;
    }
  }
  // python default format "ERROR:torch.distributed.elastic.multiprocessing.api:failed ..."
  {
    const size_t c = s.find(':');
    Severity lv{};
    if (c != std::string_view::npos && c <= 8 && level_word(s.substr(0, c), lv) && c + 1 < n &&
        s[c + 1] != ' ') {
      g.has_level = true;
      g.level = lv;
      return g;  // keep the text whole: the logger name is part of the message
    }
  }
  return g;
}

// ------------------------------------------------------------------ classification helpers
bool is_exception_line(std::string_view b) {
  size_t i = 0;
  if (i >= b.size() || !(is_alpha(b[i]) || b[i] == '_')) return false;
  while (i < b.size() && (is_ident(b[i]) || b[i] == '.')) ++i;
  if (i == b.size()) return true;
  return b[i] == ':' && (i + 1 == b.size() || b[i + 1] == ' ');
}

bool exception_name_line(std::string_view b) {
  // "RuntimeError: ...", "torch.OutOfMemoryError: ...", "KeyError: 'x'"
  if (!is_exception_line(b)) return false;
  const size_t c = b.find(':');
  const std::string_view name = b.substr(0, c);
  return ends_with(name, "Error") || ends_with(name, "Exception") || ends_with(name, "Interrupt") ||
         ends_with(name, "Exit") || ends_with(name, "Failure");
}

// Case-insensitive search of lowercase ASCII words. Each word is looked for at its rarest
// letter, in both cases, with memchr, and compared around it: a byte-by-byte pass with case
// folding cost ~5 instructions per byte of every unlevelled training line (issue 19).
bool icontains_word(std::string_view s, std::string_view w) {
  const size_t n = w.size();
  if (n == 0) return true;
  if (n > s.size()) return false;
  const size_t a = rarest_byte(w);
  const char* base = s.data();
  const size_t last = s.size() - n + a;
  const auto folded_equal = [&](size_t at) {
    for (size_t k = 0; k < n; ++k) {
      char d = base[at + k];
      if (d >= 'A' && d <= 'Z') d = static_cast<char>(d + 32);
      if (d != w[k]) return false;
    }
    return true;
  };
  const char lo = w[a];
  const char up = lo >= 'a' && lo <= 'z' ? static_cast<char>(lo - 32) : lo;
  for (const char c : {lo, up}) {
    for (size_t pos = a; pos <= last;) {
      const void* q = std::memchr(base + pos, c, last - pos + 1);
      if (q == nullptr) break;
      const auto k = static_cast<size_t>(static_cast<const char*>(q) - base);
      if (folded_equal(k - a)) return true;
      pos = k + 1;
    }
    if (up == lo) break;
  }
  return false;
}
bool icontains_any(std::string_view s, std::initializer_list<std::string_view> words) {
  for (const auto w : words)
    if (icontains_word(s, w)) return true;
  return false;
}

bool rule_line(std::string_view b, char c) {
  b = trim_blank(b);
  if (b.size() < 20) return false;
  for (char x : b)
    if (x != c) return false;
  return true;
}

std::string_view unquote(std::string_view v) {
  v = trim_blank(v);
  if (v.size() >= 2 &&
      ((v.front() == '\'' && v.back() == '\'') || (v.front() == '"' && v.back() == '"')))
    v = v.substr(1, v.size() - 2);
  return v;
}

bool config_key(std::string_view k) {
  if (k.empty() || k.size() > 64 || !(is_alpha(k[0]) || k[0] == '_')) return false;
  for (char c : k)
    if (!is_ident(c) && c != '.' && c != '-') return false;
  if (ends_with(k, "Error") || ends_with(k, "Exception") || ends_with(k, "Warning")) return false;
  static constexpr std::string_view kNot[] = {
      "Traceback", "Error", "ERROR", "WARNING", "INFO",     "DEBUG",    "Warning",
      "Note",      "http",  "https", "File",    "Possible", "Solution", "TraceBack"};
  for (auto w : kNot)
    if (k == w) return false;
  return true;
}

// Splits "a=1, b='x, y', c=[1, 2]" at top-level commas.
std::vector<std::string_view> split_top(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  char quote = 0;
  size_t b = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == quote && (i == 0 || s[i - 1] != '\\')) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"')
      quote = c;
    else if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(s.substr(b, i - b));
      b = i + 1;
    }
  }
  if (b < s.size()) out.push_back(s.substr(b));
  return out;
}

// Index of the bracket closing the one at `open`, or npos.
size_t matching(std::string_view s, size_t open) {
  const char o = s[open];
  const char c = o == '(' ? ')' : (o == '[' ? ']' : '}');
  int depth = 0;
  char quote = 0;
  for (size_t i = open; i < s.size(); ++i) {
    const char x = s[i];
    if (quote) {
      if (x == quote) quote = 0;
      continue;
    }
    if (x == '\'' || x == '"')
      quote = x;
    else if (x == o)
      ++depth;
    else if (x == c && --depth == 0)
      return i;
  }
  return std::string_view::npos;
}

const std::set<std::string_view>& launchers() {
  static const std::set<std::string_view> k = {
      "python", "python3", "torchrun", "deepspeed", "accelerate", "mpirun", "msrun", "bash", "sh"};
  return k;
}

bool launcher_token(std::string_view t) {
  const size_t slash = t.find_last_of('/');
  if (slash != std::string_view::npos) t = t.substr(slash + 1);
  if (launchers().count(t)) return true;
  return starts_with(t, "python3.") || starts_with(t, "python2.");
}

// ------------------------------------------------------------------ per-stream state
struct Traceback {
  Block block;
  bool active = false;
  size_t indent = 0;
  RawTime time;
  int32_t rank = -1;
  int64_t pid = -1;
  std::string exc;
};

struct ChildFailed {
  Block block;
  bool active = false;
  bool expect = false;  // a ChildFailedError line was seen, its box may follow
  int rules = 0;
  bool in_root = false;
  int32_t rank = -1;
  int32_t root_rank = -1;
  int64_t pid = -1;
  RawTime time;
  std::string summary;
};

struct Stream {
  std::string key;
  ErrorBlocks errors;
  Traceback tb;
  ChildFailed cf;
};

class TrainParser final : public Parser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    raw = clip(raw);
    const Launcher l = strip_launcher(raw);
    const std::string_view payload = raw.substr(l.end);
    Stream& st = l.grep_end == 0 ? stream(raw.substr(0, l.end))
                                 : stream(std::string(raw.substr(0, l.file_end)) +
                                          std::string(raw.substr(l.grep_end, l.end - l.grep_end)));
    const Logger g = strip_logger(payload);
    const std::string_view body = payload.substr(g.end);

    if (is_blank_line(body)) {
      st.errors.flush(sink);
      if (st.tb.active) end_tb(st, sink);
      return;
    }
    if (st.tb.active && tb_continue(st, raw, body, sink)) return;
    if (st.cf.active) {
      cf_add(st, raw, body, sink);
      return;
    }
    if (st.cf.expect) {
      st.cf.expect = false;
      if (rule_line(body, '=')) {
        cf_start(st, raw, l, g, ctx);
        return;
      }
    }
    st.errors.rank = l.rank;
    st.errors.pid = l.pid;
    if (st.errors.feed(raw, body, ctx, sink)) return;

    if (trim_blank(body) == "Traceback (most recent call last):") {
      Traceback& tb = st.tb;
      tb.active = true;
      tb.block.start(ctx, raw);
      tb.indent = indent_of(body);
      tb.time = g.time;
      tb.rank = l.rank;
      tb.pid = l.pid;
      tb.exc.clear();
      return;
    }

    Event e;
    e.line = ctx.line;
    e.offset = ctx.offset;
    e.text = raw;
    e.rank = l.rank;
    e.pid = l.pid;
    e.process = l.process;
    e.module = "train";
    e.time = g.time;
    e.message = body;
    if (parse_torch_err(body, e)) {
      if (e.rank < 0) e.rank = l.rank;
      if (e.pid < 0) e.pid = l.pid;
      e.keep = true;
      sink.event(e);
      return;
    }
    e.severity = classify(body, g);
    if (contains(body, "ChildFailedError")) {
      st.cf.expect = true;
      e.severity = Severity::error;
      e.keep = true;
    }
    int32_t dev = -1, rank = -1;
    find_ids(body, dev, rank);
    e.device = dev;
    if (e.rank < 0) e.rank = rank;
    if (facts(body, ctx, sink)) e.keep = true;
    sink.event(e);
  }

  void finish(Sink& sink) override {
    for (auto& s : streams_) {
      s.errors.flush(sink);
      if (s.tb.active) end_tb(s, sink);
      if (s.cf.active) end_cf(s, sink);
    }
  }

 private:
  Stream& stream(std::string_view key) {
    for (auto& s : streams_)
      if (s.key == key) return s;
    if (streams_.size() >= 128) {
      // too many distinct prefixes: fold the rest into the unprefixed stream
      for (auto& s : streams_)
        if (s.key.empty()) return s;
      return streams_.front();
    }
    streams_.emplace_back();
    streams_.back().key = std::string(key);
    return streams_.back();
  }

  static Severity classify(std::string_view body, const Logger& g) {
    if (g.has_level) {
      // a c10 warning that carries an error code stays a warning; a bare level word wins
      if (g.level >= Severity::warning || !exception_name_line(body)) return g.level;
    }
    const std::string_view b = ltrim(body);
    if (exception_name_line(b)) return Severity::error;
    if (starts_with(b, "[ERROR]") || starts_with(b, "ERROR") || starts_with(b, "Error:") ||
        starts_with(b, "[Error]") || contains(b, "NPU out of memory") ||
        contains(b, "failed (exitcode:"))
      return Severity::error;
    if (has_error_code(b) || contains(b, " error: ") || contains(b, " Error: ") ||
        contains(b, "execution failed") || contains(b, "execute failed"))
      return Severity::error;
    if (starts_with(b, "[WARNING]") || starts_with(b, "[WARN]") || starts_with(b, "WARNING") ||
        starts_with(b, "Warning:") || contains(b, "Warning: "))
      return Severity::warning;
    if (g.has_level) return g.level;
    if (contains(b, ": No such file or directory") || contains(b, ": command not found") ||
        icontains_any(b, {"timeout", "timed out", "failed", "exception"}))
      return Severity::warning;
    return Severity::info;
  }

  // ---------------------------------------------------------------- traceback
  bool tb_continue(Stream& st, std::string_view raw, std::string_view body, Sink& sink) {
    Traceback& tb = st.tb;
    const size_t ind = indent_of(body);
    const std::string_view b = body.substr(ind);
    if (ind > tb.indent || starts_with(b, "File \"") || starts_with(b, "[Previous line repeated") ||
        starts_with(b, "^")) {
      tb.block.add(raw);
      return true;
    }
    if (is_exception_line(b)) {
      tb.block.add(raw);
      tb.exc.assign(b.substr(0, 4096));
      if (contains(b, "ChildFailedError")) st.cf.expect = true;
      end_tb(st, sink);
      return true;
    }
    end_tb(st, sink);
    return false;
  }

  static void end_tb(Stream& st, Sink& sink) {
    Traceback& tb = st.tb;
    Event e;
    e.severity = Severity::error;
    e.keep = true;
    e.module = "python";
    e.time = tb.time;
    e.rank = tb.rank;
    e.pid = tb.pid;
    e.message = tb.exc;
    int32_t dev = -1, rank = -1;
    find_ids(tb.exc, dev, rank);
    e.device = dev;
    const uint32_t first = tb.block.first_line(), lines = tb.block.lines();
    const uint64_t offset = tb.block.first_offset();
    tb.block.emit(e, sink);
    tb.active = false;
    if (!tb.exc.empty() || lines < 2) return;
    // a stack with no exception line after it: the process died while printing it, or another
    // output cut it off (a derived record, docs/events.md: no line of the file says so)
    const std::string msg =
        "Python traceback of " + std::to_string(lines) + " lines ended without an exception line";
    Event d = derived_record(LineCtx{first, offset}, "python", Severity::warning, msg);
    d.time = tb.time;
    d.rank = tb.rank;
    d.pid = tb.pid;
    sink.event(d);
  }

  // ---------------------------------------------------------------- torchrun summary
  static void cf_start(Stream& st, std::string_view raw, const Launcher& l, const Logger& g,
                       const LineCtx& ctx) {
    ChildFailed& cf = st.cf;
    cf.active = true;
    cf.block.start(ctx, raw);
    cf.rules = 1;
    cf.in_root = false;
    cf.rank = -1;
    cf.root_rank = l.rank;
    cf.pid = l.pid;
    cf.time = g.time;
    cf.summary = "ChildFailedError";
  }

  static void cf_add(Stream& st, std::string_view raw, std::string_view body, Sink& sink) {
    ChildFailed& cf = st.cf;
    cf.block.add(raw);
    const std::string_view b = trim_blank(body);
    if (starts_with(b, "Root Cause")) cf.in_root = true;
    const size_t colon = b.find(':');
    if (colon != std::string_view::npos) {
      const std::string_view key = trim_blank(b.substr(0, colon));
      const std::string_view val = trim_blank(b.substr(colon + 1));
      if (key == "rank") {
        size_t p = 0;
        int64_t v = 0;
        if (read_uint(val, p, v) && (cf.in_root || cf.rank < 0)) cf.rank = static_cast<int32_t>(v);
      } else if (key == "time" && (cf.in_root || !cf.time.has_civil())) {
        size_t p = 0;
        RawTime t;
        if (read_datetime(val, p, t, "_ ")) {
          t.clock = Clock::host_local;
          cf.time = t;
        }
      } else if (key == "exitcode" && cf.in_root) {
        cf.summary = "ChildFailedError root cause exitcode " + std::string(val.substr(0, 64));
      } else if (key.size() > 2 && b.find(" FAILED") != std::string_view::npos) {
        cf.summary.append(": ").append(b.substr(0, 128));
      }
    } else if (ends_with(b, " FAILED")) {
      cf.summary = std::string(b.substr(0, 128));
    }
    if (rule_line(body, '=') && ++cf.rules >= 2)
      end_cf(st, sink);
    else if (cf.block.lines() > 400)
      end_cf(st, sink);
  }

  static void end_cf(Stream& st, Sink& sink) {
    ChildFailed& cf = st.cf;
    Event e;
    e.severity = Severity::error;
    e.keep = true;
    e.module = "torchrun";
    e.time = cf.time;
    e.rank = cf.rank >= 0 ? cf.rank : cf.root_rank;
    e.pid = cf.pid;
    e.message = cf.summary;
    cf.block.emit(e, sink);
    cf.active = false;
  }

  // ---------------------------------------------------------------- facts
  bool emit_fact(std::string_view prefix, std::string_view key, std::string_view value,
                 const LineCtx& ctx, Sink& sink) {
    if (!config_key(key) || value.empty() || value.size() > 512) return false;
    std::string name(prefix);
    name.append(key);
    if (seen_.count(name)) return true;
    if (seen_.size() < 4096) seen_.insert(name);
    sink.fact(Fact{name, std::string(unquote(value)), ctx.line});
    return true;
  }

  bool kv_list(std::string_view s, const LineCtx& ctx, Sink& sink, bool colon_ok) {
    bool any = false;
    for (std::string_view item : split_top(s)) {
      item = trim_blank(item);
      // "key=value" (Namespace) or, in dicts, "'key': value"
      size_t eq = item.find('=');
      if (colon_ok) {
        const size_t c = item.find(':');
        if (c != std::string_view::npos && (eq == std::string_view::npos || c < eq)) eq = c;
      }
      if (eq == std::string_view::npos || eq == 0) continue;
      const std::string_view k = unquote(item.substr(0, eq));
      const std::string_view v = trim_blank(item.substr(eq + 1));
      if (emit_fact("config.", k, v, ctx, sink)) any = true;
    }
    return any;
  }

  bool facts(std::string_view body, const LineCtx& ctx, Sink& sink) {
    const std::string_view b = trim_blank(body);
    if (b.empty() || b.size() > 16384) return false;
    // Namespace(amp=True, batch_size=1, ...)
    const size_t ns = b.find("Namespace(");
    if (ns != std::string_view::npos) {
      const size_t close = matching(b, ns + 9);
      if (close != std::string_view::npos)
        return kv_list(b.substr(ns + 10, close - ns - 10), ctx, sink, false);
    }
    // args: {...} / config = {...}
    {
      size_t i = 0;
      while (i < b.size() && (is_ident(b[i]) || b[i] == '.')) ++i;
      size_t j = i;
      while (j < b.size() && b[j] == ' ') ++j;
      if (i > 0 && j < b.size() && (b[j] == ':' || b[j] == '=')) {
        size_t k = j + 1;
        while (k < b.size() && b[k] == ' ') ++k;
        if (k < b.size() && b[k] == '{') {
          const size_t close = matching(b, k);
          if (close != std::string_view::npos)
            return kv_list(b.substr(k + 1, close - k - 1), ctx, sink, true);
        }
      }
    }
    // command line: "python train.py --amp False --workers 0" (optionally after "$ " / "+ ")
    {
      std::string_view c = b;
      if (starts_with(c, "$ ") || starts_with(c, "+ ") || starts_with(c, "# "))
        c = ltrim(c.substr(2));
      const std::string_view first = c.substr(0, c.find(' '));
      const auto toks =
          launcher_token(first) ? faultline::text::split_ws(c) : std::vector<std::string_view>{};
      if (toks.size() >= 3) {
        bool script = false;
        bool any = false;
        for (size_t i = 1; i < toks.size(); ++i) {
          const std::string_view t = toks[i];
          if (ends_with(t, ".py") || ends_with(t, ".sh") || t == "-m") script = true;
          if (!script || !starts_with(t, "--") || t.size() < 3) continue;
          std::string_view name = t.substr(2);
          std::string_view val = "true";
          const size_t eq = name.find('=');
          if (eq != std::string_view::npos) {
            val = name.substr(eq + 1);
            name = name.substr(0, eq);
          } else if (i + 1 < toks.size() && !starts_with(toks[i + 1], "-")) {
            val = toks[i + 1];
            ++i;
          }
          if (emit_fact("args.", name, val, ctx, sink)) any = true;
        }
        if (script) return any;
      }
    }
    // whole-line "key: value" / "key=value" / "a=1, b=2"
    {
      size_t i = 0;
      while (i < b.size() && (is_ident(b[i]) || b[i] == '.' || b[i] == '-')) ++i;
      if (i == 0 || i >= b.size()) return false;
      size_t j = i;
      while (j < b.size() && b[j] == ' ') ++j;
      if (j >= b.size() || (b[j] != ':' && b[j] != '=')) return false;
      const std::string_view key = b.substr(0, i);
      std::string_view val = trim_blank(b.substr(j + 1));
      if (val.empty() || val.size() > 200 || contains(val, "://")) return false;
      // "stream_id=47, task_id=1280, sqHead=500" is a record, not a setting
      if (contains(val, ": ") || contains(val, "=")) return false;
      return emit_fact("config.", key, val, ctx, sink);
    }
  }

  std::vector<Stream> streams_;
  std::set<std::string> seen_;
};

}  // namespace

std::unique_ptr<Parser> make_train_log(std::string_view) {
  return std::make_unique<TrainParser>();
}

}  // namespace faultline::parse::logs
