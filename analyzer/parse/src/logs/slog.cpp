#include "logs/slog.hpp"

#include "logs/common.hpp"

namespace faultline::parse::logs {

bool parse_slog_header(std::string_view line, SlogHeader& h) {
  const size_t n = line.size();
  if (n < 30 || line[0] != '[') return false;
  const size_t close = line.find(']', 1);
  if (close == std::string_view::npos || close > 12) return false;
  h.level = line.substr(1, close - 1);
  if (!slog_level(h.level, h.severity)) return false;
  size_t p = close + 1;
  if (p < n && line[p] == ' ') ++p;
  const size_t m0 = p;
  while (p < n && is_ident(line[p])) ++p;
  if (p == m0 || p >= n || line[p] != '(') return false;
  h.module = line.substr(m0, p - m0);
  ++p;
  if (!read_int(line, p, h.pid)) return false;
  if (p >= n || line[p] != ',') return false;
  ++p;
  if (p < n && line[p] == ' ') ++p;
  const size_t pend = line.find("):", p);
  if (pend == std::string_view::npos || pend - p > 256) return false;
  h.process = line.substr(p, pend - p);
  p = pend + 2;
  while (p < n && line[p] == ' ') ++p;
  h.time = RawTime{};
  if (!read_datetime(line, p, h.time, "- ")) return false;
  if (p < n && line[p] == ' ') ++p;
  h.rest = line.substr(p);
  return true;
}

bool looks_like_slog_header(std::string_view line) {
  if (line.size() < 4 || line[0] != '[') return false;
  const size_t close = line.find(']', 1);
  if (close == std::string_view::npos || close > 12) return false;
  Severity s{};
  if (!slog_level(line.substr(1, close - 1), s)) return false;
  size_t p = close + 1;
  if (p < line.size() && line[p] == ' ') ++p;
  const size_t m0 = p;
  while (p < line.size() && is_ident(line[p])) ++p;
  return p > m0 && p < line.size() && line[p] == '(';
}

namespace {
// [file:line] / [file line] / [path/with spaces/file.c:172]
bool is_file_line(std::string_view c) {
  if (c.size() < 3 || !is_digit(c.back())) return false;
  size_t i = c.size();
  while (i > 0 && is_digit(c[i - 1])) --i;
  return i >= 2 && (c[i - 1] == ':' || c[i - 1] == ' ');
}

bool is_uptime(std::string_view c, int64_t& ns) {
  size_t p = 0;
  while (p < c.size() && c[p] == ' ') ++p;
  if (p >= c.size() || !is_digit(c[p])) return false;
  if (!read_seconds(c, p, ns)) return false;
  if (p < c.size() && c[p] == 's') ++p;
  return p == c.size() && contains(c, ".");
}

// "tid Func:msg" starting at p (p at the tid digits).
bool runtime_style(std::string_view r, size_t p, SlogRest& out) {
  int64_t tid = 0;
  size_t i = p;
  if (!read_uint(r, i, tid)) return false;
  if (i >= r.size() || r[i] != ' ') return false;
  ++i;
  const size_t f0 = i;
  while (i < r.size() && (is_ident(r[i]) || r[i] == '~')) ++i;
  out.tid = tid;
  if (i > f0 && i < r.size() && r[i] == ':') {
    size_t m = i + 1;
    if (m < r.size() && r[m] == ' ') ++m;
    out.msg = r.substr(m);
  } else {
    out.msg = r.substr(f0);
  }
  return true;
}
}  // namespace

SlogRest parse_slog_rest(std::string_view r) {
  SlogRest out;
  out.msg = r;
  if (r.empty() || r[0] != '[') return out;
  const size_t close = r.find(']');
  if (close == std::string_view::npos) return out;
  const std::string_view inner = r.substr(1, close - 1);
  if (!is_file_line(inner)) return out;
  out.klogd = starts_with(inner, "klogd.c");
  size_t p = close + 1;
  const size_t n = r.size();
  if (p >= n) {
    out.msg = {};
    return out;
  }
  const char c = r[p];
  if (is_digit(c)) {
    if (runtime_style(r, p, out)) return out;
    out.msg = r.substr(p);
    return out;
  }
  if (c == ' ' && p + 1 < n && is_digit(r[p + 1])) {
    if (runtime_style(r, p + 1, out)) return out;
  }
  if (c == ' ' && p + 1 < n && r[p + 1] == '[') {
    // HCCL: " [tid][Stage]..." (tid numeric), else plain text starting with a bracket
    const size_t q = r.find(']', p + 2);
    int64_t tid = 0;
    size_t k = p + 2;
    if (q != std::string_view::npos && read_uint(r, k, tid) && k == q) {
      out.tid = tid;
      out.msg = r.substr(q + 1);
      return out;
    }
    out.msg = r.substr(p + 1);
    return out;
  }
  if (c == '[') {
    int groups = 0;
    while (p < n && r[p] == '[' && groups < 6) {
      const size_t q = r.find(']', p);
      if (q == std::string_view::npos) break;
      const std::string_view g = r.substr(p + 1, q - p - 1);
      int64_t v = 0;
      if (starts_with(g, "tid:")) {
        size_t k = 4;
        if (read_uint(g, k, v)) out.tid = v;
        p = q + 1;
        break;
      }
      if (groups == 0 && !g.empty() && g.size() <= 10 && is_digit(g[0])) {
        size_t k = 0;
        if (read_uint(g, k, v) && k == g.size()) {
          out.tid = v;  // HCCL printed without the space: "[file:line][tid][Stage]..."
          p = q + 1;
          break;
        }
      }
      if (starts_with(g, "curpid:")) {
        // DRV share-log read-back "[ascend][curpid:155320,155351][drv]...": keep as text, take tid
        size_t k = 7;
        while (k < g.size() && g[k] == ' ') ++k;
        if (read_uint(g, k, v) && k < g.size() && g[k] == ',') {
          ++k;
          while (k < g.size() && g[k] == ' ') ++k;
          if (read_uint(g, k, v)) out.tid = v;
        }
        break;
      }
      if (is_uptime(g, v)) {
        out.uptime_ns = v;
        p = q + 1;
        ++groups;
        continue;
      }
      if (groups == 0 && q + 1 < n && r[q + 1] == '[' && !contains(g, " ")) {
        p = q + 1;  // AICPU function name / event tag before [tid:N] or [uptime]
        ++groups;
        continue;
      }
      break;
    }
    if (p < n && r[p] == ' ') ++p;
    out.msg = r.substr(p);
    return out;
  }
  // PROFILING " >>> (tid:N) ", ATRACE "(tid:N) ", HCCP "tid:N,func(line) : "
  size_t k = p;
  if (c == ' ') ++k;
  if (starts_with(r.substr(k), ">>> ")) k += 4;
  if (starts_with(r.substr(k), "(tid:")) {
    size_t t = k + 5;
    int64_t v = 0;
    if (read_uint(r, t, v) && t < n && r[t] == ')') {
      out.tid = v;
      ++t;
      if (t < n && r[t] == ' ') ++t;
      out.msg = r.substr(t);
      return out;
    }
  }
  if (starts_with(r.substr(k), "tid:")) {
    size_t t = k + 4;
    int64_t v = 0;
    if (read_uint(r, t, v)) {
      out.tid = v;
      if (t < n && r[t] == ',') ++t;
      out.msg = r.substr(t);
      return out;
    }
  }
  out.msg = ltrim(r.substr(p));
  return out;
}

}  // namespace faultline::parse::logs
