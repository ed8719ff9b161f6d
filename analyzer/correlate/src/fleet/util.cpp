// Small helpers of the fleet correlation: times, bracket values, signature classes.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "faultline/core/time.hpp"
#include "internal.hpp"

namespace faultline::correlate::fleet {

// ---------------------------------------------------------------------------------------------
// Small helpers

std::string clip(std::string s) {
  if (s.size() > kMaxTextChars) {
    size_t n = kMaxTextChars;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // UTF-8 boundary
    s.resize(n);
    s += "…";
  }
  return s;
}

std::optional<int64_t> to_i64(const std::string& s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

int digits(std::string_view s, size_t pos, size_t n) {
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// `2026-03-14-02:41:16.528.880` (HCCL opData timeStamp, plog header form) as UTC-read civil ns.
std::optional<int64_t> parse_dash_time(std::string_view s) {
  if (s.size() < 19) return std::nullopt;
  const int y = digits(s, 0, 4), mo = digits(s, 5, 2), d = digits(s, 8, 2), h = digits(s, 11, 2),
            mi = digits(s, 14, 2), se = digits(s, 17, 2);
  if (y < 1971 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || se < 0)
    return std::nullopt;
  int64_t nanos = 0;
  // .mmm.uuu
  if (s.size() >= 23 && s[19] == '.') {
    const int ms = digits(s, 20, 3);
    if (ms >= 0) nanos += static_cast<int64_t>(ms) * 1'000'000;
    if (s.size() >= 27 && s[23] == '.') {
      const int us = digits(s, 24, 3);
      if (us >= 0) nanos += static_cast<int64_t>(us) * 1'000;
    }
  }
  return civil_to_ns(y, mo, d, h, mi, se, nanos);
}

// `Sat Mar 14 02:41:47 2026` (HCCL Arrival Time, ctime form) as UTC-read civil ns.
std::optional<int64_t> parse_ctime(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const size_t b = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > b) parts.push_back(s.substr(b, i - b));
  }
  if (parts.size() != 5 || parts[3].size() != 8) return std::nullopt;
  const auto mon = month_from_abbrev(parts[1]);
  const auto day = to_i64(std::string(parts[2]));
  const auto year = to_i64(std::string(parts[4]));
  const int h = digits(parts[3], 0, 2), mi = digits(parts[3], 3, 2), se = digits(parts[3], 6, 2);
  if (!mon || !day || !year || *year < 1971 || *year > 2200 || h < 0 || mi < 0 || se < 0)
    return std::nullopt;
  return civil_to_ns(static_cast<int>(*year), *mon, static_cast<int>(*day), h, mi, se, 0);
}

// "10.30.1.15/35" -> ("10.30.1.15", 35)
std::pair<std::string, std::optional<int64_t>> split_ip_id(const std::string& s) {
  const auto slash = s.rfind('/');
  if (slash == std::string::npos) return {s, std::nullopt};
  return {s.substr(0, slash), to_i64(s.substr(slash + 1))};
}

// Value inside `key[` ... `]` of a text, e.g. bracket_value(t, "index[").
std::string bracket_value(const std::string& text, const std::string& key) {
  const auto p = text.find(key);
  if (p == std::string::npos) return {};
  const auto b = p + key.size();
  const auto e = text.find(']', b);
  if (e == std::string::npos || e - b > 128) return {};
  return text.substr(b, e - b);
}

std::string fmt_s(int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%+.1f s", static_cast<double>(ns) / 1e9);
  return buf;
}

std::string sentence_time(int64_t ns, const std::string& quality) {
  std::string t = format_utc(ns);
  if (quality != "assumed_utc") return t;
  if (!t.empty() && t.back() == 'Z') t.pop_back();
  if (t.size() > 10 && t[10] == 'T') t[10] = ' ';
  return t + " local (zone unknown)";
}

// Severity of heartbeat reports (log-formats.md §8.3: ERROR CQE > STUCK > LOST).
int hb_priority(const std::string& type) {
  std::string t;
  for (char c : type) t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (t.find("cqe") != std::string::npos) return 3;
  if (t.find("stuck") != std::string::npos) return 2;
  if (t.find("lost") != std::string::npos) return 1;
  return 0;
}

const char* hb_status_name(int p) {
  switch (p) {
    case 3:
      return "ERROR CQE";
    case 2:
      return "STUCK";
    case 1:
      return "LOST";
    default:
      return "abnormal";
  }
}

// Signatures that describe the collective failing (someone else's fault as far as this rank can
// tell) or where a failure was merely observed; any other error-level signature is a "fault" of
// the host itself (device, driver, kernel, memory, ECC, link, ...).
bool collective_signature(const std::string& s) {
  static const std::set<std::string> fault_exceptions = {"train.npu_out_of_memory"};
  static const std::set<std::string> observed = {"torch_npu.err_code",
                                                 "torch_npu.npu_function_error",
                                                 "torch_npu.error_hint",
                                                 "torch_npu.hccl_error_in",
                                                 "torch_npu.cpp_exception_origin",
                                                 "torch_npu.shutdown_sync_failed",
                                                 "torch_npu.force_stop",
                                                 "torch_npu.compact_cann_error",
                                                 "torch_npu.inner_error_exit",
                                                 "cann.error_block",
                                                 "cann.ei_inner_error",
                                                 "cann.report_error_module",
                                                 "cann.generic_inner_error",
                                                 "runtime.stream_sync_failed",
                                                 "runtime.stream_sync_task_timeout",
                                                 "runtime.device_sync_task_timeout",
                                                 "runtime.stream_sync_timeout",
                                                 "runtime.api_error_code",
                                                 "runtime.func_error_reason",
                                                 "runtime.failure_abort",
                                                 "runtime.peek_last_error",
                                                 "acl.error_107020",
                                                 "acl.runtime_result_error"};
  if (fault_exceptions.count(s) != 0) return false;
  if (s.rfind("hccl.", 0) == 0 || s.rfind("train.", 0) == 0 || s.rfind("env.", 0) == 0) return true;
  return observed.count(s) != 0;
}

// HCCL signatures whose error-level lines mean "the collective failed here".
std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

bool hccl_error_signature(const std::string& s) {
  static const std::set<std::string> info = {
      "hccl.comm_init_entry",  "hccl.local_rank_info", "hccl.env_setting",
      "hccl.heartbeat_crimer", "hccl.comm_init_trace", "hccl.hcom_init",
      "hccl.comm_init_info",   "hccl.hccp_tls_switch", "hccl.env_config",
      "hccl.vnic_listen",      "hccl.get_root_info"};
  return s.rfind("hccl.", 0) == 0 && info.count(s) == 0;
}

bool host_clock(const std::string& clock) {
  return clock == "host_local" || clock == "utc" || clock == "uptime";
}

std::optional<int64_t> process_of_file(std::string_view path) {
  const auto slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (std::string_view prefix : {"plog-parser-", "plog-", "device-"}) {
    if (name.substr(0, prefix.size()) != prefix) continue;
    size_t i = prefix.size(), j = i;
    while (j < name.size() && j - i < 10 && name[j] >= '0' && name[j] <= '9') ++j;
    if (j == i || j >= name.size() || (name[j] != '_' && name[j] != '-')) return std::nullopt;
    return to_i64(std::string(name.substr(i, j - i)));
  }
  return std::nullopt;
}

}  // namespace faultline::correlate::fleet
