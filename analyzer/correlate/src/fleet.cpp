// Fleet correlation (docs/fleet.md): which host/rank of a multi-node job failed first.
//
// Inputs are the per-bundle rows a merged database already holds (signature hits with their
// captures, events, clocks, findings, timeline). The rules follow log-formats.md §8.5:
//   heartbeat-broadcast    `Cluster Exception Location[IP/ID]` / `crimer rank` names the culprit
//                          (ERROR CQE > STUCK > LOST, then how many hosts agree)
//   different-first-error  a member whose first error of the incident is a device/host fault
//                          while the others first logged HCCL errors
//   late-arrival           all ranks timed out; one issued the op (opData timeStamp) or timed out
//                          more than HCCL_EXEC_TIMEOUT after the others
//   link-wait-target       link-setup timeouts all point at one remote rank (hop by hop)
//   roce-cqe               RoCE error CQE (cqe error status 12: retransmission exceeded)
//   silent-rank            a communicator member logged no error while the others failed
//   earliest-first-failure fallback: earliest per-host first failure of the bundle timelines
// Cross-host order uses per-host clock offsets estimated from events every node logged (the
// heartbeat Arrival Time, the broadcast `crimer rank` lines, the same op's opData timeStamp, the
// communicator init), not the hosts' absolute clocks.
#include "faultline/correlate/fleet.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "faultline/core/time.hpp"
#include "sql.hpp"

namespace faultline::correlate {
namespace {

using detail::Stmt;
using J = nlohmann::json;

constexpr int64_t kSec = 1'000'000'000;
constexpr size_t kMaxRowsPerSignature = 20000;  // per bundle: bounds memory on huge fleets
constexpr int64_t kDefaultExecTimeout = 1836;   // CANN 8.x default (log-formats.md §8.1)
constexpr int64_t kDefaultConnectTimeout = 120;
constexpr int64_t kOffsetApplyNs = 2 * kSec;  // below this, offsets are within event precision
constexpr size_t kMaxBroadcastLines = 16;     // one line per reporting host, at most this many
constexpr size_t kMaxTextChars = 600;

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

template <class T>
T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  if (n == 0) return T{};
  if (n % 2 == 1) return v[n / 2];
  return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

std::string fmt_s(int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%+.1f s", static_cast<double>(ns) / 1e9);
  return buf;
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
bool hccl_error_signature(const std::string& s) {
  static const std::set<std::string> info = {"hccl.comm_init_entry", "hccl.local_rank_info",
                                             "hccl.env_setting", "hccl.heartbeat_crimer"};
  return s.rfind("hccl.", 0) == 0 && info.count(s) == 0;
}

bool host_clock(const std::string& clock) {
  return clock == "host_local" || clock == "utc" || clock == "uptime";
}

// ---------------------------------------------------------------------------------------------
// Rows read from the database

struct HitR {
  std::string sig, host, file, text, quality, clock;
  J cap;
  std::optional<int64_t> t, rank, device, pid;
  int64_t line = 0, bundle = 0;
  int sev = 0;
  [[nodiscard]] std::string c(const char* k) const {
    if (!cap.is_object()) return {};
    auto it = cap.find(k);
    if (it == cap.end()) return {};
    return it->is_string() ? it->get<std::string>() : it->dump();
  }
  [[nodiscard]] FleetLine as_line(const std::string& role) const {
    FleetLine l;
    l.host = host;
    l.file = file;
    l.line = line;
    l.text = text;
    l.signature = sig;
    l.quality = quality;
    l.time_ns = t;
    l.role = role;
    return l;
  }
};

struct EventR {
  int64_t id = 0, line = 0;
  std::string host, file, text, quality, clock;
  std::optional<int64_t> t, rank, device, pid;
  std::vector<std::string> sigs;
  [[nodiscard]] bool fault() const {
    return std::any_of(sigs.begin(), sigs.end(),
                       [](const std::string& s) { return !collective_signature(s); });
  }
  // The most specific fault signature of the line (catch-alls such as driver.kernel_error last).
  [[nodiscard]] std::string main_sig() const {
    static const std::set<std::string> generic = {"driver.kernel_error", "driver.user_lib_error",
                                                  "driver.benign_warning", "kernel.call_trace"};
    std::string fallback;
    for (const auto& s : sigs) {
      if (collective_signature(s)) continue;
      if (generic.count(s) == 0) return s;
      if (fallback.empty()) fallback = s;
    }
    if (!fallback.empty()) return fallback;
    return sigs.empty() ? std::string() : sigs.front();
  }
  [[nodiscard]] FleetLine as_line(const std::string& role) const {
    FleetLine l;
    l.host = host;
    l.file = file;
    l.line = line;
    l.text = text;
    l.signature = main_sig();
    l.quality = quality;
    l.time_ns = t;
    l.role = role;
    return l;
  }
};

const std::vector<std::string>& fleet_signatures() {
  static const std::vector<std::string> s = {
      "hccl.heartbeat_abnormal",       "hccl.heartbeat_crimer",
      "hccl.notify_wait_timeout",      "hccl.task_failed_group_rank",
      "hccl.task_failed_op_data",      "hccl.socket_timeout",
      "hccl.topo_exchange_timeout",    "hccl.roce_error_cqe",
      "hccl.link_error_info",          "hccl.transport_init_error",
      "hccl.connect_detect_result",    "hccl.comm_init_entry",
      "hccl.local_rank_info",          "hccl.env_setting",
      "hccl.cluster_info_recv_failed", "hccl.op_error",
      "hccl.fftsplus_timeout",         "hccl.sdma_exception",
      "hccl.comm_init_failed",         "torch_npu.err_code"};
  return s;
}

struct Ctx {
  sqlite3* db = nullptr;
  std::vector<int64_t> bundles;
  std::map<std::string, std::vector<int64_t>> host_bundles;    // host -> bundles holding it
  std::map<std::string, int64_t> local_off;                    // host_local clock offset (ns)
  std::map<std::string, std::vector<HitR>> hits;               // by signature
  std::map<std::string, std::map<std::string, int>> ip_hosts;  // ip -> host -> best source rank
  std::map<std::string, std::map<std::string, std::string>> ip_source;  // ip -> host -> source
  std::map<std::string, int64_t> off;                                   // applied offset per host
  std::vector<std::string> notes;

  [[nodiscard]] int64_t to_fleet(const std::string& host, int64_t t) const {
    auto it = off.find(host);
    return it == off.end() ? t : t - it->second;
  }
  [[nodiscard]] int64_t to_host(const std::string& host, int64_t t) const {
    auto it = off.find(host);
    return it == off.end() ? t : t + it->second;
  }
  [[nodiscard]] const std::vector<HitR>& of(const std::string& sig) const {
    static const std::vector<HitR> none;
    auto it = hits.find(sig);
    return it == hits.end() ? none : it->second;
  }
  [[nodiscard]] int64_t local(const std::string& host) const {
    auto it = local_off.find(host);
    return it == local_off.end() ? 0 : it->second;
  }
};

void load_hosts(Ctx& c) {
  for (int64_t b : c.bundles) {
    Stmt st(c.db,
            "SELECT name FROM hosts WHERE bundle_id = ?1 UNION SELECT host FROM members WHERE "
            "bundle_id = ?1");
    st.bind(1, b);
    while (st.step()) {
      const std::string h = st.str(0);
      if (h.empty()) continue;
      auto& v = c.host_bundles[h];
      if (std::find(v.begin(), v.end(), b) == v.end()) v.push_back(b);
    }
    Stmt ck(c.db,
            "SELECT host, offset_ns FROM clocks WHERE bundle_id = ? AND clock = 'host_local' AND "
            "offset_ns IS NOT "
            "NULL ORDER BY id");
    ck.bind(1, b);
    while (ck.step()) c.local_off.emplace(ck.str(0), ck.i64(1));
  }
}

void load_hits(Ctx& c) {
  Stmt st(c.db,
          "SELECT h.captures, e.host, e.time_ns, e.time_quality, e.clock, e.rank, e.device, e.pid, "
          "e.sev_rank, "
          "COALESCE(m.path, ''), e.line, substr(e.text, 1, 2000) FROM hits h JOIN events e ON e.id "
          "= h.event_id "
          "LEFT JOIN members m ON m.id = e.member_id WHERE h.bundle_id = ?1 AND h.signature = ?2 "
          "ORDER BY e.time_ns IS NULL, e.time_ns, m.path, e.line, h.id LIMIT ?3");
  for (int64_t b : c.bundles) {
    for (const auto& sig : fleet_signatures()) {
      st.reset();
      st.bind(1, b)
          .bind(2, std::string_view(sig))
          .bind(3, static_cast<int64_t>(kMaxRowsPerSignature));
      size_t n = 0;
      while (st.step()) {
        HitR h;
        h.sig = sig;
        h.cap = J::parse(st.str(0), nullptr, false);
        h.host = st.str(1);
        h.t = st.opt_i64(2);
        h.quality = st.str(3);
        h.clock = st.str(4);
        h.rank = st.opt_i64(5);
        h.device = st.opt_i64(6);
        h.pid = st.opt_i64(7);
        h.sev = static_cast<int>(st.i64(8));
        h.file = st.str(9);
        h.line = st.i64(10);
        h.text = clip(st.str(11));
        h.bundle = b;
        if (!host_clock(h.clock)) h.t.reset();  // cross-host order uses host clocks only
        c.hits[sig].push_back(std::move(h));
        ++n;
      }
      if (n >= kMaxRowsPerSignature)
        c.notes.push_back(sig + ": more than " + std::to_string(kMaxRowsPerSignature) +
                          " lines in one bundle; the first ones were used");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Addresses and ranks

// Lower is stronger.
int source_strength(const std::string& s) {
  if (s == "roster") return 0;
  if (s == "heartbeat-local") return 1;
  if (s == "link-local") return 2;
  if (s == "env") return 3;
  if (s == "own-log") return 5;
  return 4;  // host-name
}

void add_ip(Ctx& c, const std::string& ip, const std::string& host, const std::string& source) {
  if (ip.empty() || host.empty() || ip == "0.0.0.0" || ip.rfind("127.", 0) == 0 || ip.size() > 64)
    return;
  auto& m = c.ip_source[ip];
  auto it = m.find(host);
  if (it == m.end() || source_strength(source) < source_strength(it->second)) m[host] = source;
}

// The host an IP belongs to: the strongest source wins; several hosts at the same strength = none.
std::pair<std::string, std::string> host_of_ip(const Ctx& c, const std::string& ip) {
  auto it = c.ip_source.find(ip);
  if (it == c.ip_source.end()) return {};
  int best = 99;
  for (const auto& [h, s] : it->second) best = std::min(best, source_strength(s));
  std::vector<std::string> hs;
  std::string src;
  for (const auto& [h, s] : it->second)
    if (source_strength(s) == best) {
      hs.push_back(h);
      src = s;
    }
  if (hs.size() != 1) return {};
  return {hs.front(), src};
}

// True when `ip` appears in `text` as a whole address (not inside 110.30.1.150).
bool has_ip_token(const std::string& text, const std::string& ip) {
  for (size_t p = text.find(ip); p != std::string::npos; p = text.find(ip, p + 1)) {
    const bool left =
        p == 0 || !(std::isdigit(static_cast<unsigned char>(text[p - 1])) || text[p - 1] == '.');
    const size_t e = p + ip.size();
    const bool right =
        e >= text.size() || !(std::isdigit(static_cast<unsigned char>(text[e])) ||
                              (text[e] == '.' && e + 1 < text.size() &&
                               std::isdigit(static_cast<unsigned char>(text[e + 1]))));
    if (left && right) return true;
  }
  return false;
}

// Last resort for an address no roster names: the one host whose own system logs (syslog,
// journal, kernel log) or facts mention it, HCCL lines excluded (they name peers).
std::string host_by_own_logs(Ctx& c, const std::string& ip) {
  if (ip.empty() || ip.size() > 64) return {};
  std::set<std::string> hosts;
  const std::string like = "%" + ip + "%";
  for (int64_t b : c.bundles) {
    Stmt ev(c.db,
            "SELECT e.host, substr(e.text, 1, 2000) FROM events e JOIN members m ON m.id = "
            "e.member_id WHERE "
            "e.bundle_id = ? AND m.kind IN ('syslog', 'journal', 'dmesg', 'dmesg_t', "
            "'host_kernel_log') AND "
            "e.text LIKE ? AND e.text NOT LIKE '%HCCL%' LIMIT 50");
    ev.bind(1, b).bind(2, std::string_view(like));
    while (ev.step())
      if (has_ip_token(ev.str(1), ip)) hosts.insert(ev.str(0));
    Stmt fa(c.db,
            "SELECT host, value FROM facts WHERE bundle_id = ? AND value LIKE ? AND name NOT LIKE "
            "'env.MASTER%' "
            "AND name NOT LIKE 'args.%' AND name NOT LIKE 'config.%' LIMIT 50");
    fa.bind(1, b).bind(2, std::string_view(like));
    while (fa.step())
      if (has_ip_token(fa.str(1), ip)) hosts.insert(fa.str(0));
  }
  if (hosts.size() != 1) return {};
  add_ip(c, ip, *hosts.begin(), "own-log");
  return *hosts.begin();
}

void build_roster(Ctx& c, FleetResult& r) {
  std::map<std::pair<int64_t, std::string>, FleetRank> ranks;  // (rank, host)
  auto put = [&](int64_t rank, const std::string& host, const std::string& ip,
                 std::optional<int64_t> device, std::optional<int64_t> pid,
                 const std::string& group, const std::string& source) {
    auto& fr = ranks[{rank, host}];
    fr.rank = rank;
    fr.host = host;
    if (fr.ip.empty()) fr.ip = ip;
    if (!fr.device) fr.device = device;
    if (!fr.pid) fr.pid = pid;
    if (fr.group.empty()) fr.group = group;
    if (fr.source.empty() || source == "roster") fr.source = source;
  };
  // LocalRank Key Info: userRank + hostIp, in the host's own plog.
  for (const auto& h : c.of("hccl.local_rank_info")) {
    const auto rank = to_i64(h.c("user_rank"));
    const std::string ip = h.c("host_ip");
    add_ip(c, ip, h.host, "roster");
    const std::string server = bracket_value(h.text, "server[");
    if (!server.empty() && server != ip) add_ip(c, server, h.host, "roster");
    if (rank) put(*rank, h.host, ip, to_i64(h.c("device_phy")), h.pid, "", "local_rank");
  }
  // Entry-HcclCommInitRootInfoInner: ranks[N], rank[r], identifier, deviceLogicId.
  for (const auto& h : c.of("hccl.comm_init_entry")) {
    const auto rank = to_i64(h.c("rank"));
    if (rank) put(*rank, h.host, "", to_i64(h.c("device")), h.pid, h.c("identifier"), "roster");
  }
  // torch_npu ERR lines: (PID, Device, RankID).
  for (const auto& h : c.of("torch_npu.err_code")) {
    const auto rank = to_i64(h.c("rank"));
    if (rank) put(*rank, h.host, "", to_i64(h.c("device")), to_i64(h.c("pid")), "", "err_line");
  }
  // Own-log addresses: the local side of heartbeat reports and of link error tables.
  for (const auto& h : c.of("hccl.heartbeat_crimer"))
    add_ip(c, split_ip_id(h.c("local")).first, h.host, "heartbeat-local");
  for (const auto& h : c.of("hccl.link_error_info")) add_ip(c, h.c("src_ip"), h.host, "link-local");
  // HCCL_IF_IP of the host's environment.
  for (int64_t b : c.bundles) {
    Stmt st(c.db,
            "SELECT host, value FROM facts WHERE bundle_id = ? AND name IN ('env.HCCL_IF_IP', "
            "'host.ip')");
    st.bind(1, b);
    while (st.step()) add_ip(c, st.str(1), st.str(0), "env");
  }
  // Host named after its address (bundles named 10.30.1.15, node-10-30-1-15, ...).
  for (const auto& [host, bs] : c.host_bundles) {
    std::string dotted;
    for (char ch : host) dotted.push_back(ch == '-' || ch == '_' ? '.' : ch);
    for (size_t i = 0; i < dotted.size(); ++i) {
      if (i > 0 && dotted[i - 1] != '.' && !std::isalpha(static_cast<unsigned char>(dotted[i - 1])))
        continue;
      size_t j = i;
      int dots = 0;
      while (j < dotted.size() &&
             (std::isdigit(static_cast<unsigned char>(dotted[j])) || dotted[j] == '.')) {
        if (dotted[j] == '.') ++dots;
        ++j;
      }
      std::string cand = dotted.substr(i, j - i);
      while (!cand.empty() && cand.back() == '.') {
        cand.pop_back();
        --dots;
      }
      if (dots == 3) add_ip(c, cand, host, "host-name");
      i = j;
    }
  }
  for (auto& [k, fr] : ranks) {
    if (fr.ip.empty()) {
      // the host's roster address
      for (const auto& [ip, hs] : c.ip_source) {
        auto it = hs.find(fr.host);
        if (it != hs.end() && it->second == "roster") {
          fr.ip = ip;
          break;
        }
      }
    }
    r.ranks.push_back(fr);
  }
}

// Rank on a host by device or pid.
std::optional<int64_t> rank_of(const FleetResult& r, const std::string& host,
                               std::optional<int64_t> device, std::optional<int64_t> pid) {
  std::optional<int64_t> by_dev;
  for (const auto& fr : r.ranks) {
    if (fr.host != host) continue;
    if (pid && fr.pid && *pid == *fr.pid) return fr.rank;
    if (device && fr.device && *device == *fr.device && !by_dev) by_dev = fr.rank;
  }
  return by_dev;
}

const FleetRank* find_rank(const FleetResult& r, int64_t rank, const std::string& host = "") {
  const FleetRank* any = nullptr;
  for (const auto& fr : r.ranks) {
    if (fr.rank != rank) continue;
    if (host.empty() || fr.host == host) return &fr;
    if (!any) any = &fr;
  }
  return host.empty() ? any : nullptr;
}

// ---------------------------------------------------------------------------------------------
// Clock offsets from shared events

void estimate_offsets(Ctx& c, FleetResult& r) {
  // key -> host -> times (host frame, UTC as resolved on that host)
  std::map<std::string, std::map<std::string, std::vector<int64_t>>> obs;
  std::map<std::string, std::string> key_kind;
  auto add = [&](const std::string& kind, const std::string& key, const std::string& host,
                 int64_t t) {
    obs[kind + "|" + key][host].push_back(t);
    key_kind[kind + "|" + key] = kind;
  };
  for (const auto& h : c.of("hccl.heartbeat_abnormal")) {
    const auto a = parse_ctime(h.c("arrival"));
    if (!a) continue;
    // Arrival Time is stamped by the discoverer; it is usually the reporting rank itself.
    std::string host = h.host;
    const auto [dip, did] = split_ip_id(h.c("discoverer"));
    const auto [dh, dsrc] = host_of_ip(c, dip);
    if (!dh.empty()) host = dh;
    add("heartbeat arrival", h.c("location") + "|" + h.c("type"), host, *a + c.local(host));
  }
  for (const auto& h : c.of("hccl.heartbeat_crimer"))
    if (h.t) add("heartbeat broadcast", h.c("crimer") + "|" + h.c("status"), h.host, *h.t);
  {
    // the same op on every rank: opData timeStamp keyed by index, count and data type
    std::map<std::string, std::map<std::string, std::vector<int64_t>>> ops;
    for (const auto& h : c.of("hccl.task_failed_op_data")) {
      const auto t = parse_dash_time(h.c("issued"));
      if (!t) continue;
      const std::string key =
          bracket_value(h.text, "index[") + "|" + h.c("count") + "|" + h.c("data_type");
      ops[key][h.host].push_back(*t + c.local(h.host));
    }
    for (auto& [key, per_host] : ops)
      for (auto& [host, ts] : per_host)
        if (ts.size() >= 3)  // a median over several ranks: one late rank does not move it
          for (auto t : ts) add("op issue", key, host, t);
  }
  for (const auto& h : c.of("hccl.comm_init_entry"))
    if (h.t) add("communicator init", h.c("identifier"), h.host, *h.t);

  // per host: differences to the per-event median of hosts
  struct D {
    std::vector<int64_t> d;
    std::set<std::string> kinds;
    std::vector<int64_t> weak;  // communicator init only (launch skew)
  };
  std::map<std::string, D> diffs;
  for (const auto& [key, per_host] : obs) {
    if (per_host.size() < 2) continue;
    std::vector<int64_t> vals;
    std::map<std::string, int64_t> hv;
    for (const auto& [host, ts] : per_host) {
      hv[host] = median(ts);
      vals.push_back(hv[host]);
    }
    const int64_t m = median(vals);
    const bool weak = key_kind[key] == "communicator init";
    for (const auto& [host, v] : hv) {
      auto& d = diffs[host];
      (weak ? d.weak : d.d).push_back(v - m);
      if (!weak) d.kinds.insert(key_kind[key]);
    }
  }
  std::map<std::string, int64_t> raw;
  std::map<std::string, int> events;
  for (auto& [host, d] : diffs) {
    if (!d.d.empty()) {
      raw[host] = median(d.d);
      events[host] = static_cast<int>(d.d.size());
    } else if (!d.weak.empty()) {
      raw[host] = median(d.weak);
      events[host] = static_cast<int>(d.weak.size());
      d.kinds.insert("communicator init");
      d.d = d.weak;
    }
  }
  // reference: the host with the most shared events (then the first by name)
  std::string ref;
  int best = -1;
  for (const auto& [host, n] : events)
    if (n > best) {
      best = n;
      ref = host;
    }
  r.reference = ref;
  for (auto& fh : r.hosts) {
    auto it = raw.find(fh.host);
    if (it == raw.end() || ref.empty()) continue;
    auto& d = diffs[fh.host];
    fh.offset_ns = it->second - raw[ref];
    fh.offset_events = events[fh.host];
    const auto [mn, mx] = std::minmax_element(d.d.begin(), d.d.end());
    fh.offset_spread_ns = *mx - *mn;
    std::string kinds;
    for (const auto& k : d.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
    fh.offset_method = kinds;
    fh.offset_applied = std::llabs(*fh.offset_ns) >= kOffsetApplyNs;
    if (fh.offset_applied) c.off[fh.host] = *fh.offset_ns;
  }
  const bool hccl =
      !c.of("hccl.comm_init_entry").empty() || !c.of("hccl.notify_wait_timeout").empty() ||
      !c.of("hccl.heartbeat_abnormal").empty() || !c.of("hccl.heartbeat_crimer").empty();
  if (ref.empty() && r.hosts.size() > 1 && hccl)
    c.notes.push_back(
        "no event shared by two hosts (heartbeat, op issue, communicator init): cross-host order "
        "uses the hosts' own clocks");
}

// ---------------------------------------------------------------------------------------------
// Incident window and per-host first errors

struct Incident {
  bool hccl = false;              // any HCCL error or heartbeat report
  std::optional<int64_t> start;   // fleet frame
  std::optional<int64_t> detect;  // earliest HCCL error / heartbeat report (fleet frame)
  // timeouts of ops (EI0002, against HCCL_EXEC_TIMEOUT) and of link setup / negotiation (EI0006,
  // topo exchange, against HCCL_CONNECT_TIMEOUT): the first and the last one of the fleet
  struct Span {
    std::optional<int64_t> first, last;
    const HitR* last_hit = nullptr;
  } op, link;
  std::optional<int64_t> first_timeout;
  std::map<std::string, int> errors_per_host;
  std::set<std::pair<std::string, int64_t>> erring_pids;  // (host, pid) with an error line
};

Incident find_incident(const Ctx& c, int64_t exec_s) {
  Incident in;
  std::optional<int64_t> first_issue, first_report;
  for (const auto& [sig, hs] : c.hits) {
    if (!hccl_error_signature(sig)) continue;
    for (const auto& h : hs) {
      if (h.sev < 4) continue;
      in.hccl = true;
      in.errors_per_host[h.host]++;
      if (h.pid) in.erring_pids.insert({h.host, *h.pid});
      if (!h.t) continue;
      const int64_t t = c.to_fleet(h.host, *h.t);
      if (!in.detect || t < *in.detect) in.detect = t;
      Incident::Span* span = sig == "hccl.notify_wait_timeout" ? &in.op
                             : (sig == "hccl.socket_timeout" || sig == "hccl.topo_exchange_timeout")
                                 ? &in.link
                                 : nullptr;
      if (span) {
        if (!in.first_timeout || t < *in.first_timeout) in.first_timeout = t;
        if (!span->first || t < *span->first) span->first = t;
        if (!span->last || t > *span->last || (t == *span->last && h.host < span->last_hit->host)) {
          span->last = t;
          span->last_hit = &h;
        }
      }
    }
  }
  for (const auto& h : c.of("torch_npu.err_code"))
    if (h.pid) in.erring_pids.insert({h.host, *h.pid});
  for (const auto& sig : {"hccl.heartbeat_crimer", "hccl.heartbeat_abnormal"})
    for (const auto& h : c.of(sig)) {
      in.hccl = true;
      if (!h.t) continue;
      const int64_t t = c.to_fleet(h.host, *h.t);
      if (!first_report || t < *first_report) first_report = t;
    }
  for (const auto& h : c.of("hccl.task_failed_op_data")) {
    const auto t = parse_dash_time(h.c("issued"));
    if (!t) continue;
    const int64_t f = c.to_fleet(h.host, *t + c.local(h.host));
    if (!first_issue || f < *first_issue) first_issue = f;
  }
  if (first_report && (!in.detect || *first_report < *in.detect)) in.detect = first_report;
  if (first_issue)
    in.start = *first_issue - 120 * kSec;
  else if (first_report)
    in.start = *first_report - (exec_s / 3 + 120) * kSec;
  else if (in.first_timeout)
    in.start = *in.first_timeout - (exec_s + 120) * kSec;
  else if (in.detect)
    in.start = *in.detect - 600 * kSec;
  return in;
}

// The columns event_row() reads, and the join they need; the caller appends its WHERE clause.
constexpr const char* kEventCols =
    "SELECT e.id, e.time_ns, e.time_quality, e.clock, e.rank, e.device, e.pid, "
    "COALESCE(m.path, ''), e.line, substr(e.text, 1, 2000) "
    "FROM events e LEFT JOIN members m ON m.id = e.member_id WHERE ";

EventR event_row(const Stmt& st, const std::string& host) {
  EventR e;
  e.id = st.i64(0);
  e.t = st.opt_i64(1);
  e.quality = st.str(2);
  e.clock = st.str(3);
  e.rank = st.opt_i64(4);
  e.device = st.opt_i64(5);
  e.pid = st.opt_i64(6);
  e.file = st.str(7);
  e.line = st.i64(8);
  e.text = clip(st.str(9));
  e.host = host;
  return e;
}

void load_signatures(const Ctx& c, std::vector<EventR>& events) {
  Stmt sg(c.db, "SELECT signature FROM hits WHERE event_id = ? ORDER BY signature");
  for (auto& e : events) {
    sg.reset();
    sg.bind(1, e.id);
    while (sg.step()) e.sigs.push_back(sg.str(0));
  }
}

std::vector<EventR> host_errors(const Ctx& c, const std::string& host, int64_t from_host_ns,
                                int64_t to_host_ns, size_t limit) {
  std::vector<EventR> out;
  auto bit = c.host_bundles.find(host);
  if (bit == c.host_bundles.end()) return out;
  for (int64_t b : bit->second) {
    Stmt st(
        c.db,
        std::string(kEventCols) +
            "e.bundle_id = ?1 "
            "AND e.host = ?2 AND e.sev_rank >= 4 AND e.time_ns IS NOT NULL AND e.time_ns >= ?3 AND "
            "e.time_ns <= ?4 "
            "AND e.clock IN ('host_local', 'utc', 'uptime') AND EXISTS (SELECT 1 FROM hits h WHERE "
            "h.event_id = e.id) "
            "ORDER BY e.time_ns, m.path, e.line LIMIT ?5");
    st.bind(1, b).bind(2, std::string_view(host)).bind(3, from_host_ns);
    st.bind(4, to_host_ns).bind(5, static_cast<int64_t>(limit));
    while (st.step()) {
      EventR e = event_row(st, host);
      out.push_back(std::move(e));
    }
  }
  load_signatures(c, out);
  std::sort(out.begin(), out.end(), [](const EventR& a, const EventR& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.file != b.file) return a.file < b.file;
    return a.line < b.line;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

// Fault lines on the device's own clock (device slog, events, black box) or without a time, for
// corroboration: same device, or the rank's stdout lines. When the host zone is not known the
// device clock and the host clock may differ by whole hours: the shift is taken from the device
// fault line closest to a whole-hour difference from the host-side fault, and only lines within
// 60 s of the host-side fault at that shift are kept.
std::vector<EventR> host_device_faults(const Ctx& c, const std::string& host,
                                       std::optional<int64_t> device, std::optional<int64_t> rank,
                                       std::optional<int64_t> near_host_ns, bool zone_known) {
  std::vector<EventR> out;
  auto bit = c.host_bundles.find(host);
  if (bit == c.host_bundles.end()) return out;
  for (int64_t b : bit->second) {
    Stmt st(c.db,
            std::string(kEventCols) +
                "e.bundle_id = ?1 "
                "AND e.host = ?2 AND e.sev_rank >= 4 AND ((e.clock IN ('device_local', "
                "'device_syslog') AND e.device = ?3) "
                "OR (e.time_ns IS NULL AND e.rank = ?4)) AND EXISTS (SELECT 1 FROM hits h WHERE "
                "h.event_id = e.id) "
                "ORDER BY e.time_ns IS NULL, e.time_ns, m.path, e.line LIMIT 400");
    st.bind(1, b)
        .bind(2, std::string_view(host))
        .bind(3, device.value_or(-1))
        .bind(4, rank.value_or(-1));
    while (st.step()) {
      EventR e = event_row(st, host);
      if (e.t && !near_host_ns) continue;
      out.push_back(std::move(e));
    }
  }
  load_signatures(c, out);
  out.erase(std::remove_if(out.begin(), out.end(), [](const EventR& e) { return !e.fault(); }),
            out.end());
  if (!near_host_ns) return out;
  constexpr int64_t kHour = 3600 * kSec;
  constexpr int64_t kNear = 60 * kSec;
  auto shift_of = [&](int64_t d) {
    return zone_known ? 0 : ((d >= 0 ? d + kHour / 2 : d - kHour / 2) / kHour) * kHour;
  };
  std::optional<int64_t> shift;
  int64_t best = INT64_MAX;
  for (const auto& e : out) {
    if (!e.t) continue;
    const int64_t d = *e.t - *near_host_ns;
    const int64_t s = shift_of(d);
    if (std::llabs(s) > 14 * kHour) continue;
    if (std::llabs(d - s) < best) {
      best = std::llabs(d - s);
      shift = s;
    }
  }
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const EventR& e) {
                             if (!e.t) return false;
                             return !shift || std::llabs(*e.t - *near_host_ns - *shift) > kNear;
                           }),
            out.end());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rules

struct Candidate {
  std::string rule, host, ip, text;
  std::optional<int64_t> rank, device, pid;
  double confidence = 0;
  std::optional<EventR> own;  // the host's own first fault, when the rule found it
  std::vector<FleetLine> lines;
};

void attach_timeouts(Ctx& c, FleetResult& r) {
  std::vector<int64_t> exec, conn;
  for (const auto& h : c.of("hccl.env_setting")) {
    const auto v = to_i64(h.c("value"));
    if (!v) continue;
    if (h.c("name") == "HCCL_EXEC_TIMEOUT") exec.push_back(*v);
    if (h.c("name") == "HCCL_CONNECT_TIMEOUT") conn.push_back(*v);
  }
  r.timeouts_source = exec.empty() ? "default" : "logged";
  r.exec_timeout_s = exec.empty() ? kDefaultExecTimeout : median(exec);
  r.connect_timeout_s = conn.empty() ? kDefaultConnectTimeout : median(conn);
  std::sort(exec.begin(), exec.end());
  if (!exec.empty() && exec.front() != exec.back())
    c.notes.push_back("HCCL_EXEC_TIMEOUT differs between ranks (" + std::to_string(exec.front()) +
                      " s to " + std::to_string(exec.back()) + " s); the median is used");
  if (r.connect_timeout_s >= r.exec_timeout_s)
    c.notes.push_back(
        "HCCL_CONNECT_TIMEOUT >= HCCL_EXEC_TIMEOUT: the first error may not be reported correctly "
        "(log-formats.md §8.1)");
}

std::optional<Candidate> rule_heartbeat(Ctx& c, const FleetResult& r) {
  struct Score {
    int prio = 0;
    std::set<std::string> hosts;
    int reports = 0;
    std::string type;
  };
  std::map<std::string, Score> cand;
  for (const auto& h : c.of("hccl.heartbeat_abnormal")) {
    const std::string loc = h.c("location");
    if (loc.empty()) continue;
    auto& s = cand[loc];
    const int p = hb_priority(h.c("type"));
    if (p > s.prio) {
      s.prio = p;
      s.type = h.c("type");
    }
    s.hosts.insert(h.host);
    s.reports++;
  }
  for (const auto& h : c.of("hccl.heartbeat_crimer")) {
    const std::string loc = h.c("crimer");
    if (loc.empty()) continue;
    auto& s = cand[loc];
    const int p = hb_priority(h.c("status"));
    if (p > s.prio) {
      s.prio = p;
      s.type = "status " + h.c("status");
    }
    s.hosts.insert(h.host);
    s.reports++;
  }
  if (cand.empty()) return std::nullopt;
  const std::pair<const std::string, Score>* best = nullptr;
  for (const auto& kv : cand) {
    if (!best) {
      best = &kv;
      continue;
    }
    const auto& a = kv.second;
    const auto& b = best->second;
    if (std::make_tuple(a.prio, a.hosts.size(), a.reports) >
        std::make_tuple(b.prio, b.hosts.size(), b.reports))
      best = &kv;
  }
  Candidate k;
  k.rule = "heartbeat-broadcast";
  const auto [ip, id] = split_ip_id(best->first);
  k.ip = ip;
  k.rank = id;
  auto [host, src] = host_of_ip(c, ip);
  if (host.empty()) {
    host = host_by_own_logs(c, ip);
    if (!host.empty()) src = "own-log";
  }
  k.host = host;
  if (k.host.empty() && id) {
    if (const auto* fr = find_rank(r, *id)) k.host = fr->host;
  }
  if (id) {
    if (const auto* fr = find_rank(r, *id, k.host)) {
      k.device = fr->device;
      k.pid = fr->pid;
    }
  }
  const auto& s = best->second;
  k.text = "heartbeat broadcast: " + std::to_string(s.reports) + " report(s) on " +
           std::to_string(s.hosts.size()) + " host(s) name " + best->first + " (" + s.type + ", " +
           hb_status_name(s.prio) +
           "; priority ERROR CQE > "
           "STUCK > LOST, log-formats.md §8.5 step 2); " +
           ip +
           (k.host.empty() ? " is not an address of any bundle of the fleet"
                           : " is " + k.host + " (" + (src.empty() ? "rank roster" : src) + ")");
  k.confidence = 0.6;
  if (s.hosts.size() >= 2) k.confidence += 0.1;
  if (cand.size() == 1) k.confidence += 0.1;
  if (k.host.empty()) k.confidence -= 0.1;
  if (src == "host-name" || src == "own-log") k.confidence -= 0.05;
  return k;
}

std::optional<Candidate> rule_different_first(const Ctx& c, const FleetResult& r) {
  std::vector<const FleetHost*> fault, collective;
  for (const auto& fh : r.hosts) {
    if (!fh.first || !fh.first_fleet_ns) continue;
    (fh.first_class == "fault" ? fault : collective).push_back(&fh);
  }
  if (fault.empty() || collective.empty()) return std::nullopt;
  // a fault signature that many failing hosts share first is background, not "different"
  std::map<std::string, int> first_sig;
  for (const auto* fh : fault) first_sig[fh->first->signature]++;
  const size_t failing = fault.size() + collective.size();
  const FleetHost* best = nullptr;
  for (const auto* fh : fault) {
    if (first_sig[fh->first->signature] * 2 > static_cast<int>(failing) && failing > 2) continue;
    if (!best || *fh->first_fleet_ns < *best->first_fleet_ns ||
        (*fh->first_fleet_ns == *best->first_fleet_ns && fh->host < best->host))
      best = fh;
  }
  if (!best) return std::nullopt;
  Candidate k;
  k.rule = "different-first-error";
  k.host = best->host;
  std::optional<int64_t> earliest_collective;
  for (const auto* fh : collective)
    if (!earliest_collective || *fh->first_fleet_ns < *earliest_collective)
      earliest_collective = fh->first_fleet_ns;
  k.text = "the first error of " + best->host + " in the incident is " + best->first->signature +
           " (a device/host "
           "fault) at " +
           format_utc(*best->first_fleet_ns) + " (fleet clock), while " +
           std::to_string(collective.size()) +
           " other host(s) first logged collective errors (earliest " +
           format_utc(*earliest_collective) +
           "): their HCCL errors are collateral (log-formats.md §8.5 step 4)";
  k.confidence = 0.7;
  if (*best->first_fleet_ns + kSec < *earliest_collective) k.confidence += 0.1;
  (void)c;
  return k;
}

std::optional<Candidate> rule_late_arrival(const Ctx& c, const FleetResult& r, const Incident& in) {
  struct Op {
    std::string host;
    std::optional<int64_t> rank;
    int64_t t = 0;
    const HitR* h = nullptr;
  };
  // rankId of the groupRank line preceding each opData line of the same file
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<int64_t, int64_t>>>
      ranks_by_file;
  for (const auto& h : c.of("hccl.task_failed_group_rank"))
    if (auto rk = to_i64(h.c("rank_id"))) ranks_by_file[{h.host, h.file}].push_back({h.line, *rk});
  std::map<std::string, std::vector<Op>> ops;
  for (const auto& h : c.of("hccl.task_failed_op_data")) {
    const auto t = parse_dash_time(h.c("issued"));
    if (!t) continue;
    Op o;
    o.host = h.host;
    o.t = c.to_fleet(h.host, *t + c.local(h.host));
    o.h = &h;
    auto it = ranks_by_file.find({h.host, h.file});
    if (it != ranks_by_file.end())
      for (const auto& [line, rk] : it->second)
        if (line < h.line) o.rank = rk;
    if (!o.rank) o.rank = h.rank;
    ops[bracket_value(h.text, "index[") + "|" + h.c("count") + "|" + h.c("data_type")].push_back(o);
  }
  const int64_t limit = r.exec_timeout_s * kSec;
  for (auto& [key, v] : ops) {
    if (v.size() < 2) continue;
    std::vector<int64_t> ts;
    for (const auto& o : v) ts.push_back(o.t);
    const int64_t m = median(ts);
    const auto late = std::max_element(v.begin(), v.end(), [](const Op& a, const Op& b) {
      return a.t != b.t ? a.t < b.t : a.host > b.host;
    });
    if (late->t - m <= limit) continue;
    Candidate k;
    k.rule = "late-arrival";
    k.host = late->host;
    k.rank = late->rank;
    k.lines.push_back(late->h->as_line("timing"));
    k.text = "all ranks timed out; " + late->host +
             (late->rank ? " rank " + std::to_string(*late->rank) : "") +
             " issued the op (opData timeStamp) " + fmt_s(late->t - m) +
             " after the median rank, more than "
             "HCCL_EXEC_TIMEOUT (" +
             std::to_string(r.exec_timeout_s) +
             " s): it arrived late and the others "
             "timed out waiting (log-formats.md §8.5 step 4)";
    k.confidence = 0.75;
    return k;
  }
  // without issue times: the timeouts themselves. A rank that timed out more than the timeout
  // after the first one started waiting after the others had given up: it came late.
  const std::pair<const Incident::Span*, std::pair<const char*, int64_t>> spans[] = {
      {&in.op, {"HCCL_EXEC_TIMEOUT", r.exec_timeout_s}},
      {&in.link, {"HCCL_CONNECT_TIMEOUT", r.connect_timeout_s}}};
  for (const auto& [span, what] : spans) {
    if (!span->first || !span->last || *span->last - *span->first <= what.second * kSec) continue;
    const HitR& h = *span->last_hit;
    Candidate k;
    k.rule = "late-arrival";
    k.host = h.host;
    k.pid = h.pid;
    k.rank = h.rank ? h.rank : rank_of(r, h.host, h.device, h.pid);
    k.lines.push_back(h.as_line("timing"));
    k.text = std::string("all ranks timed out; the last timeout (") + h.host +
             (k.rank ? " rank " + std::to_string(*k.rank) : std::string()) + ") came " +
             fmt_s(*span->last - *span->first) + " after the first, more than " + what.first +
             " (" + std::to_string(what.second) +
             " s): that rank started waiting after the others had given up "
             "(log-formats.md §8.5 steps 4-5)";
    k.confidence = 0.6;
    return k;
  }
  return std::nullopt;
}

std::optional<Candidate> rule_link_target(Ctx& c, const FleetResult& r) {
  std::map<std::string, int> targets;  // "ip/rank" -> reports
  std::set<std::string> waiting;       // "ip/rank" of the sides that waited
  std::map<std::string, const HitR*> sample;
  for (const auto& h : c.of("hccl.link_error_info")) {
    if (h.c("status").find("time") == std::string::npos) continue;
    const std::string t = h.c("dest_ip") + "/" + h.c("dest_rank");
    targets[t]++;
    sample.emplace(t, &h);
    waiting.insert(h.c("src_ip") + "/" + h.c("src_rank"));
  }
  for (const auto& h : c.of("hccl.transport_init_error")) {
    const std::string t = h.c("remote_ip") + "/" + h.c("remote_rank");
    targets[t]++;
    sample.emplace(t, &h);
  }
  for (const auto& h : c.of("hccl.connect_detect_result")) {
    const std::string t = h.c("dst_server") + "/dev" + h.c("dst_device");
    targets[t]++;
    sample.emplace(t, &h);
    waiting.insert(h.c("src_server") + "/dev" + h.c("src_device"));
  }
  if (targets.empty()) return std::nullopt;
  std::string best;
  int n = -1;
  for (const auto& [t, k] : targets) {
    const bool waits = waiting.count(t) != 0;
    const int score = k * 2 + (waits ? 0 : 1);
    if (score > n) {
      n = score;
      best = t;
    }
  }
  Candidate k;
  k.rule = "link-wait-target";
  const auto slash = best.rfind('/');
  k.ip = best.substr(0, slash);
  const std::string id = best.substr(slash + 1);
  if (id.rfind("dev", 0) == 0)
    k.device = to_i64(id.substr(3));
  else
    k.rank = to_i64(id);
  k.host = host_of_ip(c, k.ip).first;
  if (k.host.empty()) k.host = host_by_own_logs(c, k.ip);
  if (k.host.empty() && k.rank)
    if (const auto* fr = find_rank(r, *k.rank)) k.host = fr->host;
  k.lines.push_back(sample[best]->as_line("broadcast"));
  k.text = std::to_string(targets[best]) + " link-setup timeout report(s) point at " + best +
           (waiting.count(best) ? "" : ", which reports no link timeout of its own") +
           ": follow CONNECT TIMEOUT DETECT RESULT / remoteIpAddr hop by hop (log-formats.md §8.5 "
           "step 5)";
  k.confidence = waiting.count(best) ? 0.5 : 0.6;
  return k;
}

std::optional<Candidate> rule_roce(const Ctx& c, const FleetResult& r) {
  const HitR* first = nullptr;
  std::optional<int64_t> tf;
  std::set<std::string> hosts;
  for (const auto& h : c.of("hccl.roce_error_cqe")) {
    hosts.insert(h.host);
    const std::optional<int64_t> t =
        h.t ? std::optional<int64_t>(c.to_fleet(h.host, *h.t)) : std::nullopt;
    if (!first || (t && (!tf || *t < *tf))) {
      first = &h;
      tf = t;
    }
  }
  if (!first) return std::nullopt;
  Candidate k;
  k.rule = "roce-cqe";
  k.host = first->host;
  k.rank = first->rank ? first->rank : rank_of(r, first->host, first->device, first->pid);
  const std::string status = first->c("cqe_status");
  const std::string remote = bracket_value(first->text, "remote rank [");
  k.lines.push_back(first->as_line("culprit"));
  k.text =
      "RoCE error CQE" + (status.empty() ? std::string() : " (cqe error status " + status + ")") +
      " first on " + first->host + " (" + std::to_string(hosts.size()) +
      " host(s) report CQE errors)" +
      (status == "12"
           ? ": status 12 = retransmission retries exceeded, a link/switch problem between the "
             "two ends"
           : "") +
      (remote.empty() ? "" : "; remote rank " + remote);
  k.confidence = 0.5;
  return k;
}

std::optional<Candidate> rule_silent(const Ctx& c, const FleetResult& r, const Incident& in) {
  if (in.errors_per_host.empty()) return std::nullopt;
  std::vector<const FleetRank*> silent;
  for (const auto& fr : r.ranks) {
    if (!fr.pid) continue;
    if (in.erring_pids.count({fr.host, *fr.pid}) != 0) continue;
    // any error of that process at all (a device fault is not silence)
    bool erred = false;
    auto bit = c.host_bundles.find(fr.host);
    if (bit != c.host_bundles.end())
      for (int64_t b : bit->second) {
        Stmt st(c.db,
                "SELECT 1 FROM events WHERE bundle_id = ? AND host = ? AND pid = ? AND sev_rank >= "
                "4 LIMIT 1");
        st.bind(1, b).bind(2, std::string_view(fr.host)).bind(3, *fr.pid);
        if (st.step()) erred = true;
      }
    if (!erred) silent.push_back(&fr);
  }
  if (silent.empty() || silent.size() * 2 >= r.ranks.size()) return std::nullopt;
  Candidate k;
  k.rule = "silent-rank";
  k.host = silent.front()->host;
  k.rank = silent.front()->rank;
  k.device = silent.front()->device;
  k.pid = silent.front()->pid;
  std::string list;
  for (size_t i = 0; i < silent.size() && i < 8; ++i)
    list += (i ? ", " : "") + silent[i]->host + "/rank " + std::to_string(silent[i]->rank);
  if (silent.size() > 8) list += ", ...";
  k.text =
      std::to_string(silent.size()) +
      " communicator member(s) logged no error while the others failed (" + list +
      "): a member with no error at all never issued the collective (log-formats.md §8.5 step 4)";
  k.confidence = silent.size() == 1 ? 0.6 : 0.4;
  return k;
}

std::optional<Candidate> rule_earliest(const Ctx& c, const FleetResult& r, bool hccl) {
  struct Row {
    std::string host, file, text, quality, sig, finding;
    int64_t line = 0, t = 0, fleet = 0, bundle = 0;
  };
  std::optional<Row> best;
  std::optional<Row> second;
  for (int64_t b : c.bundles) {
    Stmt st(c.db,
            "SELECT host, time_ns, time_quality, COALESCE(member, ''), COALESCE(line, 0), text, "
            "COALESCE(signature, ''), "
            "COALESCE(finding, '') FROM timeline WHERE bundle_id = ? AND role = 'first_failure' "
            "AND time_ns IS NOT NULL ORDER BY time_ns, ord");
    st.bind(1, b);
    std::set<std::string> seen;
    while (st.step()) {
      Row x;
      x.host = st.str(0);
      if (!seen.insert(x.host).second) continue;
      x.t = st.i64(1);
      x.quality = st.str(2);
      x.file = st.str(3);
      x.line = st.i64(4);
      x.text = clip(st.str(5));
      x.sig = st.str(6);
      x.finding = st.str(7);
      x.bundle = b;
      x.fleet = c.to_fleet(x.host, x.t);
      auto less = [](const Row& a, const Row& b2) {
        return a.fleet != b2.fleet ? a.fleet < b2.fleet : a.host < b2.host;
      };
      if (!best || less(x, *best)) {
        if (best && best->host != x.host) second = best;
        best = x;
      } else if (x.host != best->host && (!second || less(x, *second))) {
        second = x;
      }
    }
  }
  if (!best) return std::nullopt;
  Candidate k;
  k.rule = "earliest-first-failure";
  k.host = best->host;
  FleetLine l;
  l.host = best->host;
  l.file = best->file;
  l.line = best->line;
  l.text = best->text;
  l.signature = best->sig;
  l.finding = best->finding;
  l.quality = best->quality;
  l.time_ns = best->t;
  l.role = "culprit";
  k.lines.push_back(l);
  {
    Stmt st(c.db,
            "SELECT e.rank, e.device, e.pid FROM events e JOIN members m ON m.id = e.member_id "
            "WHERE m.bundle_id = ? "
            "AND m.path = ? AND e.line = ? ORDER BY e.id LIMIT 1");
    st.bind(1, best->bundle).bind(2, std::string_view(best->file)).bind(3, best->line);
    if (st.step()) {
      if (!st.null(0) && st.i64(0) >= 0) k.rank = st.i64(0);
      k.device = st.opt_i64(1);
      k.pid = st.opt_i64(2);
    }
  }
  if (!k.rank) k.rank = rank_of(r, k.host, k.device, k.pid);
  k.text = std::string(hccl ? "no rule of log-formats.md §8.5 applies (no heartbeat report, no "
                              "distinct first error, "
                              "no late rank, no link target, no silent rank); "
                            : "") +
           "earliest first failure of the per-host timelines: " + best->host + " at " +
           format_utc(best->fleet) + " (fleet clock)" +
           (second ? "; next: " + second->host + " " + fmt_s(second->fleet - best->fleet) + " later"
                   : std::string());
  k.confidence = (second && second->fleet - best->fleet > kSec) || !second ? 0.5 : 0.4;
  if (hccl) k.confidence -= 0.1;
  if (r.hosts.size() > 1 && r.reference.empty()) k.confidence -= 0.1;
  k.own = std::nullopt;
  return k;
}

// ---------------------------------------------------------------------------------------------
// Assembling the result

void fill_first_errors(Ctx& c, FleetResult& r, const Incident& in) {
  for (auto& fh : r.hosts) {
    auto it = in.errors_per_host.find(fh.host);
    fh.hccl_errors = it == in.errors_per_host.end() ? 0 : it->second;
    const int64_t from = in.start ? c.to_host(fh.host, *in.start) : INT64_MIN;
    auto ev = host_errors(c, fh.host, from, INT64_MAX, 64);
    if (ev.empty()) continue;
    const EventR& e = ev.front();
    fh.first = e.as_line("timing");
    fh.first_fleet_ns = c.to_fleet(fh.host, *e.t);
    fh.first_class = e.fault() ? "fault" : "collective";
  }
  // silent hosts: ranks in the roster, no error of any kind while others failed
  if (!in.errors_per_host.empty())
    for (auto& fh : r.hosts)
      if (!fh.ranks.empty() && fh.hccl_errors == 0 && !fh.first) fh.silent = true;
}

void culprit_evidence(const Ctx& c, const FleetResult& r, const Incident& in, Candidate& k,
                      FleetFirstFailure& ff) {
  std::set<std::pair<std::string, int64_t>> seen;
  auto push = [&](FleetLine l) {
    if (!seen.insert({l.host + "\n" + l.file, l.line}).second) return;
    ff.evidence.push_back(std::move(l));
  };
  // Rules that found the failing line themselves (timeline first failure, first CQE error):
  // that line is the time; otherwise the host's own first fault in the incident is.
  const bool rule_line =
      (k.rule == "earliest-first-failure" || k.rule == "roce-cqe") && !k.lines.empty();
  if (rule_line) {
    ff.time_ns = k.lines.front().time_ns;
    ff.quality = k.lines.front().quality;
    for (auto& l : k.lines) push(l);
  }
  if (k.host.empty()) {
    for (auto& l : k.lines) push(l);
    return;
  }
  if (!rule_line) {
    const int64_t from = in.start ? c.to_host(k.host, *in.start) : INT64_MIN;
    const int64_t to = in.detect ? c.to_host(k.host, *in.detect + 5 * kSec) : INT64_MAX;
    auto ev = host_errors(c, k.host, from, to, 200);
    // the host's own faults, the culprit device/pid/rank first
    auto mine = [&](const EventR& e) {
      return (k.device && e.device && *e.device == *k.device) ||
             (k.pid && e.pid && *e.pid == *k.pid) || (k.rank && e.rank && *e.rank == *k.rank);
    };
    std::vector<EventR> own;
    for (const auto& e : ev)
      if (e.fault() && mine(e)) own.push_back(e);
    if (own.empty())
      for (const auto& e : ev)
        if (e.fault()) own.push_back(e);
    if (!own.empty()) {
      const EventR& f = own.front();
      k.own = f;
      ff.time_ns = f.t;
      ff.quality = f.quality;
      if (!k.device && f.device) k.device = f.device;
      if (!k.rank) k.rank = f.rank ? f.rank : rank_of(r, k.host, f.device, f.pid);
    }
    for (size_t i = 0; i < own.size() && i < 4; ++i) push(own[i].as_line("culprit"));
    for (auto& l : k.lines) push(l);
  }
  // corroboration on the device clock, and untimed stdout lines of the rank
  const bool zone_known = ff.quality == "local" || ff.quality == "exact";
  size_t added = 0;
  for (const auto& e : host_device_faults(c, k.host, k.device, k.rank, ff.time_ns, zone_known)) {
    if (added >= 4) break;
    const size_t before = ff.evidence.size();
    push(e.as_line("corroboration"));
    if (ff.evidence.size() > before) ++added;
  }
}

void broadcast_evidence(const Ctx& c, const Candidate& k, FleetFirstFailure& ff) {
  if (k.rule != "heartbeat-broadcast") return;
  const std::string key = k.ip + (k.rank ? "/" + std::to_string(*k.rank) : "");
  std::map<std::string, const HitR*> per_host;
  for (const auto* sig : {"hccl.heartbeat_abnormal", "hccl.heartbeat_crimer"})
    for (const auto& h : c.of(sig)) {
      const std::string loc =
          h.c(std::string(sig) == "hccl.heartbeat_abnormal" ? "location" : "crimer");
      if (loc != key) continue;
      auto it = per_host.find(h.host);
      if (it == per_host.end() || (h.t && (!it->second->t || *h.t < *it->second->t)))
        per_host[h.host] = &h;
    }
  size_t n = 0;
  for (const auto& [host, h] : per_host) {
    if (n++ >= kMaxBroadcastLines) break;
    ff.evidence.push_back(h->as_line("broadcast"));
  }
  // the roster line that names the culprit's address on its host
  for (const auto& h : c.of("hccl.local_rank_info"))
    if (h.host == k.host && h.c("host_ip") == k.ip &&
        (!k.rank || to_i64(h.c("user_rank")) == k.rank)) {
      ff.evidence.push_back(h.as_line("roster"));
      break;
    }
}

void root_cause_of(const Ctx& c, FleetFirstFailure& ff) {
  auto it = c.host_bundles.find(ff.host);
  if (it == c.host_bundles.end()) return;
  for (int64_t b : it->second) {
    Stmt st(c.db,
            "SELECT finding, title, confidence FROM findings WHERE bundle_id = ? AND host = ? AND "
            "kind = 'root_cause' "
            "ORDER BY rank, finding LIMIT 1");
    st.bind(1, b).bind(2, std::string_view(ff.host));
    if (st.step() && (ff.root_cause.empty() || st.dbl(2) > ff.root_cause_confidence)) {
      ff.root_cause = st.str(0);
      ff.root_cause_title = st.str(1);
      ff.root_cause_confidence = st.dbl(2);
    }
  }
}

void explains_of(const Ctx& c, const Incident& in, FleetFirstFailure& ff) {
  std::set<std::string> hosts, symptoms;
  for (const auto& [h, n] : in.errors_per_host)
    if (n > 0) hosts.insert(h);
  std::set<std::string> cause_explains;
  {
    auto it = c.host_bundles.find(ff.host);
    if (it != c.host_bundles.end() && !ff.root_cause.empty())
      for (int64_t b : it->second) {
        Stmt st(c.db,
                "SELECT explains FROM findings WHERE bundle_id = ? AND host = ? AND finding = ?");
        st.bind(1, b).bind(2, std::string_view(ff.host)).bind(3, std::string_view(ff.root_cause));
        while (st.step()) {
          const auto j = J::parse(st.str(0), nullptr, false);
          if (j.is_array())
            for (const auto& x : j)
              if (x.is_string()) cause_explains.insert(x.get<std::string>());
        }
      }
  }
  for (const auto& h : hosts) {
    auto it = c.host_bundles.find(h);
    if (it == c.host_bundles.end()) continue;
    for (int64_t b : it->second) {
      Stmt st(c.db,
              "SELECT DISTINCT finding FROM findings WHERE bundle_id = ? AND host = ? AND kind = "
              "'symptom'");
      st.bind(1, b).bind(2, std::string_view(h));
      while (st.step()) {
        const std::string s = st.str(0);
        if (s.rfind("hccl.", 0) == 0 || cause_explains.count(s) != 0) symptoms.insert(s);
      }
    }
  }
  hosts.erase(ff.host);
  ff.explains_hosts.assign(hosts.begin(), hosts.end());
  ff.explains_symptoms.assign(symptoms.begin(), symptoms.end());
}

std::string group_of(const Ctx& c) {
  std::map<std::string, int> g;
  for (const auto& h : c.of("hccl.task_failed_group_rank")) g[h.c("group")]++;
  if (g.empty())
    for (const auto& h : c.of("hccl.comm_init_entry")) g[h.c("identifier")]++;
  std::string best;
  int n = 0;
  for (const auto& [k, v] : g)
    if (v > n && !k.empty()) {
      n = v;
      best = k;
    }
  return best;
}

}  // namespace

FleetResult analyze_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids) {
  Ctx c;
  c.db = db;
  c.bundles = bundle_ids;
  std::sort(c.bundles.begin(), c.bundles.end());
  c.bundles.erase(std::unique(c.bundles.begin(), c.bundles.end()), c.bundles.end());
  FleetResult r;
  r.bundle_ids = c.bundles;
  load_hosts(c);
  load_hits(c);
  for (const auto& [host, bs] : c.host_bundles) {
    FleetHost fh;
    fh.host = host;
    fh.bundle_id = bs.front();
    r.hosts.push_back(std::move(fh));
  }
  attach_timeouts(c, r);
  build_roster(c, r);
  for (auto& fh : r.hosts) {
    std::set<int64_t> rk;
    for (const auto& fr : r.ranks)
      if (fr.host == fh.host) rk.insert(fr.rank);
    fh.ranks.assign(rk.begin(), rk.end());
    for (const auto& [ip, hs] : c.ip_source) {
      auto it = hs.find(fh.host);
      if (it != hs.end()) fh.ips.push_back({ip, it->second});
    }
    std::sort(fh.ips.begin(), fh.ips.end(), [](const FleetIp& a, const FleetIp& b) {
      return source_strength(a.source) != source_strength(b.source)
                 ? source_strength(a.source) < source_strength(b.source)
                 : a.ip < b.ip;
    });
  }
  estimate_offsets(c, r);
  const Incident in = find_incident(c, r.exec_timeout_s);
  fill_first_errors(c, r, in);

  std::vector<Candidate> found;
  if (in.hccl) {
    if (auto k = rule_heartbeat(c, r)) found.push_back(*k);
    if (auto k = rule_different_first(c, r)) found.push_back(*k);
    if (auto k = rule_late_arrival(c, r, in)) found.push_back(*k);
    if (auto k = rule_link_target(c, r)) found.push_back(*k);
    if (auto k = rule_roce(c, r)) found.push_back(*k);
    if (auto k = rule_silent(c, r, in)) found.push_back(*k);
  }
  if (auto k = rule_earliest(c, r, in.hccl)) found.push_back(*k);

  if (!found.empty()) {
    Candidate k = found.front();
    FleetFirstFailure ff;
    ff.host = k.host;
    ff.rule = k.rule;
    ff.group = group_of(c);
    culprit_evidence(c, r, in, k, ff);
    broadcast_evidence(c, k, ff);
    ff.rank = k.rank;
    ff.device = k.device;
    ff.ip = k.ip;
    if (ff.ip.empty() && !k.host.empty()) {
      auto it = std::find_if(r.hosts.begin(), r.hosts.end(),
                             [&](const FleetHost& h) { return h.host == k.host; });
      if (it != r.hosts.end() && !it->ips.empty()) ff.ip = it->ips.front().ip;
    }
    if (!ff.time_ns) {
      // no fault line of its own: the rule's line, else the earliest report naming it
      for (const auto& l : ff.evidence)
        if (l.time_ns && (!ff.time_ns || *l.time_ns < *ff.time_ns) && l.host == k.host) {
          ff.time_ns = l.time_ns;
          ff.quality = l.quality;
        }
    }
    if (ff.time_ns && !k.host.empty()) ff.fleet_ns = c.to_fleet(k.host, *ff.time_ns);
    auto bit = c.host_bundles.find(k.host);
    if (bit != c.host_bundles.end()) ff.bundle_id = bit->second.front();
    ff.confidence = k.confidence;
    if (k.rule == "heartbeat-broadcast" && k.own) ff.confidence += 0.1;
    if (k.rule == "heartbeat-broadcast" && !k.own) ff.confidence -= 0.05;
    // another rule pointing at the same host agrees; at a different host it is a suspect
    for (size_t i = 1; i < found.size(); ++i) {
      const auto& o = found[i];
      if (o.rule == "earliest-first-failure" && k.rule != "earliest-first-failure") continue;
      if (o.host == k.host && (!o.rank || !k.rank || *o.rank == *k.rank)) {
        ff.confidence += 0.05;
        continue;
      }
      r.suspects.push_back({o.host, o.rule, o.text, o.rank});
    }
    ff.confidence = std::clamp(std::round(ff.confidence * 100.0) / 100.0, 0.05, 0.95);
    ff.rule_text = k.text;
    root_cause_of(c, ff);
    explains_of(c, in, ff);
    std::string who = k.host.empty() ? "an address outside the fleet (" + k.ip + ")" : k.host;
    if (k.rank) who += " rank " + std::to_string(*k.rank);
    if (k.device) who += " (device " + std::to_string(*k.device) + ")";
    ff.summary = who + " failed first" +
                 (ff.time_ns ? " at " + format_utc(*ff.time_ns) + " (" + ff.quality + ")" : "") +
                 ", by " + k.rule + ".";
    if (k.own)
      ff.summary += " Its own first fault: " + k.own->main_sig() + " (" + k.own->file + ":" +
                    std::to_string(k.own->line) + ").";
    if (!ff.root_cause.empty()) ff.summary += " Node root cause: " + ff.root_cause + ".";
    if (!ff.explains_hosts.empty())
      ff.summary += " The collective errors on " + std::to_string(ff.explains_hosts.size()) +
                    " other host(s) are its consequence.";
    // the finding of the line's own bundle that cites it (per-node diagnosis), when there is one
    for (auto& l : ff.evidence) {
      if (!l.finding.empty() || l.host.empty() || l.file.empty()) continue;
      auto hb = c.host_bundles.find(l.host);
      if (hb == c.host_bundles.end()) continue;
      for (int64_t b : hb->second) {
        Stmt st(
            db,
            "SELECT f.finding FROM finding_evidence fe JOIN findings f ON f.id = fe.finding_id "
            "WHERE f.bundle_id = ? "
            "AND f.host = ? AND fe.member = ? AND fe.line = ? ORDER BY f.rank, f.finding LIMIT 1");
        st.bind(1, b)
            .bind(2, std::string_view(l.host))
            .bind(3, std::string_view(l.file))
            .bind(4, l.line);
        if (st.step()) {
          l.finding = st.str(0);
          break;
        }
      }
    }
    r.first_failure = std::move(ff);
  }
  if (in.hccl) {
    // ranks announced by the communicator but logged by no bundle
    int64_t size = 0;
    for (const auto& h : c.of("hccl.comm_init_entry"))
      if (auto n = to_i64(h.c("ranks"))) size = std::max(size, *n);
    std::set<int64_t> known;
    for (const auto& fr : r.ranks) known.insert(fr.rank);
    if (size > 0 && static_cast<int64_t>(known.size()) < size)
      c.notes.push_back(std::to_string(size - static_cast<int64_t>(known.size())) + " of " +
                        std::to_string(size) +
                        " ranks of the communicator appear in no bundle of the fleet (their nodes' "
                        "logs are missing)");
    for (const auto& fh : r.hosts)
      if (fh.silent)
        r.suspects.push_back({fh.host, "silent-rank",
                              fh.host + " holds communicator ranks and logged no error while "
                                        "others failed",
                              std::nullopt});
  }
  // addresses, including those the rules resolved from the hosts' own logs
  for (auto& fh : r.hosts) {
    fh.ips.clear();
    for (const auto& [ip, hs] : c.ip_source) {
      auto it = hs.find(fh.host);
      if (it != hs.end()) fh.ips.push_back({ip, it->second});
    }
    std::sort(fh.ips.begin(), fh.ips.end(), [](const FleetIp& a, const FleetIp& b) {
      return source_strength(a.source) != source_strength(b.source)
                 ? source_strength(a.source) < source_strength(b.source)
                 : a.ip < b.ip;
    });
  }
  r.notes = c.notes;
  std::sort(r.ranks.begin(), r.ranks.end(), [](const FleetRank& a, const FleetRank& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.host < b.host;
  });
  return r;
}

// ---------------------------------------------------------------------------------------------
// Storage

namespace {

std::string bundles_key(sqlite3* db, const std::vector<int64_t>& ids) {
  std::vector<std::string> shas;
  Stmt st(db, "SELECT sha256 FROM bundles WHERE id = ?");
  for (int64_t id : ids) {
    st.reset();
    st.bind(1, id);
    if (st.step())
      shas.push_back(st.str(0));
    else
      shas.push_back("#" + std::to_string(id));
  }
  std::sort(shas.begin(), shas.end());
  std::string k;
  for (const auto& s : shas) k += (k.empty() ? "" : ",") + s;
  return k;
}

void bind_opt(Stmt& st, int i, const std::optional<int64_t>& v) {
  if (v)
    st.bind(i, *v);
  else
    st.bind_null(i);
}

bool has_fleet_tables(sqlite3* db) {
  Stmt st(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fleet_runs'");
  return st.step();
}

}  // namespace

void store_fleet(sqlite3* db, const FleetResult& r) {
  if (!has_fleet_tables(db))
    throw std::runtime_error("database has no fleet tables (schema older than 2)");
  detail::exec(db, "SAVEPOINT fleet_store");
  try {
    const std::string key = bundles_key(db, r.bundle_ids);
    {
      Stmt del(db, "DELETE FROM fleet_runs WHERE bundles_key = ?");
      del.bind(1, std::string_view(key));
      del.step();
    }
    // runs that lost a member bundle (replaced by a later analysis) are stale
    detail::exec(db,
                 "DELETE FROM fleet_runs WHERE bundles > (SELECT COUNT(*) FROM fleet_members fm "
                 "WHERE fm.run_id = "
                 "fleet_runs.id AND fm.status = 'analysed')");
    int64_t run = 0;
    {
      Stmt ins(db,
               "INSERT INTO fleet_runs(bundles_key, bundles, reference, exec_timeout_s, "
               "connect_timeout_s, "
               "timeouts_source, notes) VALUES(?,?,?,?,?,?,?)");
      ins.bind(1, std::string_view(key)).bind(2, static_cast<int64_t>(r.bundle_ids.size()));
      ins.bind(3, std::string_view(r.reference))
          .bind(4, r.exec_timeout_s)
          .bind(5, r.connect_timeout_s);
      ins.bind(6, std::string_view(r.timeouts_source)).bind(7, J(r.notes).dump());
      ins.step();
      run = sqlite3_last_insert_rowid(db);
    }
    {
      Stmt ins(db, "INSERT OR IGNORE INTO fleet_members(run_id, bundle_id, status) VALUES(?,?,?)");
      for (int64_t b : r.bundle_ids) {
        ins.reset();
        ins.bind(1, run).bind(2, b).bind(3, std::string_view("analysed"));
        ins.step();
      }
      for (int64_t b : r.failed_ids) {
        ins.reset();
        ins.bind(1, run).bind(2, b).bind(3, std::string_view("failed"));
        ins.step();
      }
    }
    {
      Stmt ins(
          db,
          "INSERT INTO fleet_hosts(run_id, host, bundle_id, ips, ranks, offset_ns, offset_events, "
          "offset_spread_ns, offset_method, offset_applied, hccl_errors, silent, first_time_ns, "
          "first_fleet_ns, "
          "first_quality, first_member, first_line, first_text, first_signature, first_class) "
          "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      for (const auto& h : r.hosts) {
        ins.reset();
        J ips = J::array();
        for (const auto& ip : h.ips) ips.push_back(J{{"ip", ip.ip}, {"source", ip.source}});
        ins.bind(1, run).bind(2, std::string_view(h.host)).bind(3, h.bundle_id).bind(4, ips.dump());
        ins.bind(5, J(h.ranks).dump());
        bind_opt(ins, 6, h.offset_ns);
        ins.bind(7, static_cast<int64_t>(h.offset_events));
        bind_opt(ins, 8, h.offset_spread_ns);
        ins.bind(9, std::string_view(h.offset_method))
            .bind(10, static_cast<int64_t>(h.offset_applied ? 1 : 0));
        ins.bind(11, static_cast<int64_t>(h.hccl_errors))
            .bind(12, static_cast<int64_t>(h.silent ? 1 : 0));
        if (h.first) {
          bind_opt(ins, 13, h.first->time_ns);
          bind_opt(ins, 14, h.first_fleet_ns);
          ins.bind(15, std::string_view(h.first->quality))
              .bind(16, std::string_view(h.first->file));
          ins.bind(17, h.first->line).bind(18, std::string_view(h.first->text));
          ins.bind(19, std::string_view(h.first->signature))
              .bind(20, std::string_view(h.first_class));
        } else {
          for (int i = 13; i <= 20; ++i) ins.bind_null(i);
        }
        ins.step();
      }
    }
    {
      Stmt ins(db,
               "INSERT OR IGNORE INTO fleet_ranks(run_id, rank, host, ip, device, pid, grp, "
               "source) VALUES(?,?,?,?,?,?,?,?)");
      for (const auto& fr : r.ranks) {
        ins.reset();
        ins.bind(1, run)
            .bind(2, fr.rank)
            .bind(3, std::string_view(fr.host))
            .bind(4, std::string_view(fr.ip));
        bind_opt(ins, 5, fr.device);
        bind_opt(ins, 6, fr.pid);
        ins.bind(7, std::string_view(fr.group)).bind(8, std::string_view(fr.source));
        ins.step();
      }
    }
    if (r.first_failure) {
      const auto& f = *r.first_failure;
      Stmt ins(db,
               "INSERT INTO fleet_first_failure(run_id, host, bundle_id, rank, device, ip, grp, "
               "time_ns, fleet_ns, "
               "time_quality, rule, rule_text, confidence, root_cause, root_cause_title, "
               "root_cause_confidence, "
               "summary, explains) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      ins.bind(1, run).bind(2, std::string_view(f.host));
      if (f.bundle_id > 0)
        ins.bind(3, f.bundle_id);
      else
        ins.bind_null(3);
      bind_opt(ins, 4, f.rank);
      bind_opt(ins, 5, f.device);
      ins.bind(6, std::string_view(f.ip)).bind(7, std::string_view(f.group));
      bind_opt(ins, 8, f.time_ns);
      bind_opt(ins, 9, f.fleet_ns);
      ins.bind(10, std::string_view(f.quality))
          .bind(11, std::string_view(f.rule))
          .bind(12, std::string_view(f.rule_text));
      ins.bind(13, f.confidence);
      if (f.root_cause.empty()) {
        ins.bind_null(14).bind_null(15).bind_null(16);
      } else {
        ins.bind(14, std::string_view(f.root_cause)).bind(15, std::string_view(f.root_cause_title));
        ins.bind(16, f.root_cause_confidence);
      }
      ins.bind(17, std::string_view(f.summary));
      ins.bind(18, J{{"hosts", f.explains_hosts}, {"symptoms", f.explains_symptoms}}.dump());
      ins.step();
      Stmt ev(db,
              "INSERT INTO fleet_evidence(run_id, ord, host, member, line, time_ns, time_quality, "
              "text, signature, "
              "finding, role) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
      int64_t ord = 0;
      for (const auto& l : f.evidence) {
        ev.reset();
        ev.bind(1, run)
            .bind(2, ord++)
            .bind(3, std::string_view(l.host))
            .bind(4, std::string_view(l.file));
        ev.bind(5, l.line);
        bind_opt(ev, 6, l.time_ns);
        ev.bind(7, std::string_view(l.quality))
            .bind(8, std::string_view(l.text))
            .bind(9, std::string_view(l.signature));
        ev.bind(10, std::string_view(l.finding)).bind(11, std::string_view(l.role));
        ev.step();
      }
    }
    {
      Stmt ins(
          db,
          "INSERT INTO fleet_suspects(run_id, ord, host, rank, rule, detail) VALUES(?,?,?,?,?,?)");
      int64_t ord = 0;
      for (const auto& s : r.suspects) {
        ins.reset();
        ins.bind(1, run).bind(2, ord++).bind(3, std::string_view(s.host));
        bind_opt(ins, 4, s.rank);
        ins.bind(5, std::string_view(s.rule)).bind(6, std::string_view(s.detail));
        ins.step();
      }
    }
    detail::exec(db, "RELEASE fleet_store");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK TO fleet_store; RELEASE fleet_store", nullptr, nullptr, nullptr);
    throw;
  }
}

std::optional<FleetResult> load_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids) {
  if (!has_fleet_tables(db)) return std::nullopt;
  std::vector<int64_t> ids = bundle_ids;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const std::string key = bundles_key(db, ids);
  FleetResult r;
  r.bundle_ids = ids;
  int64_t run = 0;
  {
    Stmt st(db,
            "SELECT id, bundles, COALESCE(reference, ''), COALESCE(exec_timeout_s, 0), "
            "COALESCE(connect_timeout_s, 0), "
            "COALESCE(timeouts_source, ''), notes FROM fleet_runs WHERE bundles_key = ?");
    st.bind(1, std::string_view(key));
    if (!st.step()) return std::nullopt;
    run = st.i64(0);
    if (st.i64(1) != static_cast<int64_t>(ids.size())) return std::nullopt;
    r.reference = st.str(2);
    r.exec_timeout_s = st.i64(3);
    r.connect_timeout_s = st.i64(4);
    r.timeouts_source = st.str(5);
    const auto n = J::parse(st.str(6), nullptr, false);
    if (n.is_array())
      for (const auto& x : n)
        if (x.is_string()) r.notes.push_back(x.get<std::string>());
  }
  {
    Stmt st(db, "SELECT bundle_id, status FROM fleet_members WHERE run_id = ? ORDER BY bundle_id");
    st.bind(1, run);
    int64_t analysed = 0;
    while (st.step()) {
      if (st.str(1) == "failed")
        r.failed_ids.push_back(st.i64(0));
      else
        ++analysed;
    }
    if (analysed != static_cast<int64_t>(ids.size())) return std::nullopt;  // a member was replaced
  }
  {
    Stmt st(db,
            "SELECT host, COALESCE(bundle_id, 0), ips, ranks, offset_ns, offset_events, "
            "offset_spread_ns, "
            "COALESCE(offset_method, ''), offset_applied, hccl_errors, silent, first_time_ns, "
            "first_fleet_ns, "
            "COALESCE(first_quality, ''), COALESCE(first_member, ''), COALESCE(first_line, 0), "
            "first_text, "
            "COALESCE(first_signature, ''), COALESCE(first_class, '') FROM fleet_hosts WHERE "
            "run_id = ? ORDER BY host");
    st.bind(1, run);
    while (st.step()) {
      FleetHost h;
      h.host = st.str(0);
      h.bundle_id = st.i64(1);
      const auto ips = J::parse(st.str(2), nullptr, false);
      if (ips.is_array())
        for (const auto& x : ips)
          if (x.is_object()) h.ips.push_back({x.value("ip", ""), x.value("source", "")});
      const auto rk = J::parse(st.str(3), nullptr, false);
      if (rk.is_array())
        for (const auto& x : rk)
          if (x.is_number_integer()) h.ranks.push_back(x.get<int64_t>());
      h.offset_ns = st.opt_i64(4);
      h.offset_events = static_cast<int>(st.i64(5));
      h.offset_spread_ns = st.opt_i64(6);
      h.offset_method = st.str(7);
      h.offset_applied = st.i64(8) != 0;
      h.hccl_errors = static_cast<int>(st.i64(9));
      h.silent = st.i64(10) != 0;
      if (!st.null(16)) {
        FleetLine l;
        l.host = h.host;
        l.time_ns = st.opt_i64(11);
        l.quality = st.str(13);
        l.file = st.str(14);
        l.line = st.i64(15);
        l.text = st.str(16);
        l.signature = st.str(17);
        l.role = "timing";
        h.first = l;
        h.first_fleet_ns = st.opt_i64(12);
        h.first_class = st.str(18);
      }
      r.hosts.push_back(std::move(h));
    }
  }
  {
    Stmt st(db,
            "SELECT rank, host, COALESCE(ip, ''), device, pid, COALESCE(grp, ''), source FROM "
            "fleet_ranks WHERE run_id = ? "
            "ORDER BY rank, host");
    st.bind(1, run);
    while (st.step()) {
      FleetRank fr;
      fr.rank = st.i64(0);
      fr.host = st.str(1);
      fr.ip = st.str(2);
      fr.device = st.opt_i64(3);
      fr.pid = st.opt_i64(4);
      fr.group = st.str(5);
      fr.source = st.str(6);
      r.ranks.push_back(std::move(fr));
    }
  }
  {
    Stmt st(db,
            "SELECT host, COALESCE(bundle_id, 0), rank, device, COALESCE(ip, ''), COALESCE(grp, "
            "''), time_ns, fleet_ns, "
            "COALESCE(time_quality, ''), rule, rule_text, confidence, COALESCE(root_cause, ''), "
            "COALESCE(root_cause_title, ''), COALESCE(root_cause_confidence, 0), summary, explains "
            "FROM fleet_first_failure WHERE run_id = ?");
    st.bind(1, run);
    if (st.step()) {
      FleetFirstFailure f;
      f.host = st.str(0);
      f.bundle_id = st.i64(1);
      f.rank = st.opt_i64(2);
      f.device = st.opt_i64(3);
      f.ip = st.str(4);
      f.group = st.str(5);
      f.time_ns = st.opt_i64(6);
      f.fleet_ns = st.opt_i64(7);
      f.quality = st.str(8);
      f.rule = st.str(9);
      f.rule_text = st.str(10);
      f.confidence = st.dbl(11);
      f.root_cause = st.str(12);
      f.root_cause_title = st.str(13);
      f.root_cause_confidence = st.dbl(14);
      f.summary = st.str(15);
      const auto ex = J::parse(st.str(16), nullptr, false);
      if (ex.is_object()) {
        for (const auto& x : ex.value("hosts", J::array()))
          if (x.is_string()) f.explains_hosts.push_back(x.get<std::string>());
        for (const auto& x : ex.value("symptoms", J::array()))
          if (x.is_string()) f.explains_symptoms.push_back(x.get<std::string>());
      }
      Stmt ev(db,
              "SELECT host, COALESCE(member, ''), COALESCE(line, 0), time_ns, "
              "COALESCE(time_quality, ''), text, "
              "COALESCE(signature, ''), role, COALESCE(finding, '') FROM fleet_evidence WHERE "
              "run_id = ? "
              "ORDER BY ord, id");
      ev.bind(1, run);
      while (ev.step()) {
        FleetLine l;
        l.host = ev.str(0);
        l.file = ev.str(1);
        l.line = ev.i64(2);
        l.time_ns = ev.opt_i64(3);
        l.quality = ev.str(4);
        l.text = ev.str(5);
        l.signature = ev.str(6);
        l.role = ev.str(7);
        l.finding = ev.str(8);
        f.evidence.push_back(std::move(l));
      }
      r.first_failure = std::move(f);
    }
  }
  {
    Stmt st(db,
            "SELECT COALESCE(host, ''), rank, rule, detail FROM fleet_suspects WHERE run_id = ? "
            "ORDER BY ord");
    st.bind(1, run);
    while (st.step()) r.suspects.push_back({st.str(0), st.str(2), st.str(3), st.opt_i64(1)});
  }
  return r;
}

FleetResult run_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids,
                      const std::vector<int64_t>& failed_ids) {
  FleetResult r = analyze_fleet(db, bundle_ids);
  r.failed_ids = failed_ids;
  std::sort(r.failed_ids.begin(), r.failed_ids.end());
  store_fleet(db, r);
  return r;
}

}  // namespace faultline::correlate
