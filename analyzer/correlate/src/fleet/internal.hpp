// Internal model of the fleet correlation (docs/fleet.md), shared by its files:
//   load.cpp      rows read from the merged database (hits, events of a host)
//   roster.cpp    addresses, ranks and process identities (who is who)
//   waits.cpp     the wait graph: who waited on whom, from every edge source
//   clock.cpp     per-host clock offsets from shared events
//   incident.cpp  the incident window and each host's first error
//   rules.cpp     the decision rules, one function each
//   decide.cpp    the decision procedure: which rule runs when, chains, "no single root"
//   evidence.cpp  the culprit's evidence lines, its node root cause, what it explains
//   faults.cpp    the fleet's fault events (every node's fault findings) and rule earliest-fault
//   analyze.cpp   analyze_fleet: the steps above in order
//   store.cpp     fleet_* tables (store_fleet / load_fleet)
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../restarts.hpp"
#include "../sql.hpp"
#include "faultline/correlate/fleet.hpp"

namespace faultline::correlate::fleet {

using detail::Stmt;
using J = nlohmann::json;

constexpr int64_t kSec = 1'000'000'000;
constexpr size_t kMaxRowsPerSignature = 20000;  // per bundle: bounds memory on huge fleets
constexpr int64_t kDefaultExecTimeout = 1836;   // CANN 8.x default (log-formats.md §8.1)
constexpr int64_t kDefaultConnectTimeout = 120;
constexpr int64_t kOffsetApplyNs = 2 * kSec;  // below this, offsets are within event precision
constexpr size_t kMaxBroadcastLines = 16;     // one line per reporting host, at most this many
constexpr size_t kMaxTextChars = 600;

// ---- small helpers (util.cpp)
std::string clip(std::string s);
std::optional<int64_t> to_i64(const std::string& s);
int digits(std::string_view s, size_t pos, size_t n);
std::optional<int64_t> parse_dash_time(std::string_view s);
std::optional<int64_t> parse_ctime(std::string_view s);
std::pair<std::string, std::optional<int64_t>> split_ip_id(const std::string& s);
std::string bracket_value(const std::string& text, const std::string& key);
std::string fmt_s(int64_t ns);
// A time in a sentence (docs/report.md "Times"): UTC ("...Z") when the line's zone was known,
// else the wall time as written with "local (zone unknown)", never with "Z". quality: the
// time_quality of the line the time came from.
std::string sentence_time(int64_t ns, const std::string& quality);
int hb_priority(const std::string& type);
const char* hb_status_name(int p);
bool collective_signature(const std::string& s);
bool hccl_error_signature(const std::string& s);
std::string join(const std::vector<std::string>& v, const char* sep);
bool host_clock(const std::string& clock);
// The process of a log file: the pid in its name (`plog-<pid>_<ts>.log`, `device-<pid>_<ts>.log`,
// `plog-parser-<pid>-N.log`), else the one printed in the line (threads and forks print others).
std::optional<int64_t> process_of_file(std::string_view path);

template <class T>
T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  if (n == 0) return T{};
  if (n % 2 == 1) return v[n / 2];
  return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

// ---- rows read from the database (load.cpp)

struct HitR {
  std::string sig, host, file, text, quality, clock;
  J cap;
  std::optional<int64_t> t, rank, device;
  std::optional<int64_t> pid;       // the process: from the file name when it names one
  std::optional<int64_t> line_pid;  // as printed in the line
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

const std::vector<std::string>& fleet_signatures();

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
  // (host, process of the file name) -> the first ERROR line of its plogs, any module (ascend-fd
  // counts a device as erring on any ERROR line; decide.cpp's "no timeout" steps)
  std::map<std::pair<std::string, int64_t>, HitR> first_error;
  // per bundle: its restart marks (facts `run.restart`, docs/faults.md "Restarts"); the error
  // lines of an earlier run of the job are not read
  std::map<int64_t, std::vector<detail::Restart>> restarts;
  // error lines left out as lines of an earlier run, per host
  std::map<std::string, int64_t> before_restart;
  // the bundle whose marks temp.faultline_restarts holds now (-1: none), so that repeated
  // queries of one bundle do not refill it
  mutable int64_t restarts_loaded = -1;

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

void load_hosts(Ctx& c);
void load_hits(Ctx& c);
void load_first_errors(Ctx& c);
EventR event_row(const Stmt& st, const std::string& host);
void load_signatures(const Ctx& c, std::vector<EventR>& events);
std::vector<EventR> host_errors(const Ctx& c, const std::string& host, int64_t from_host_ns,
                                int64_t to_host_ns, size_t limit);
std::vector<EventR> host_device_faults(const Ctx& c, const std::string& host,
                                       std::optional<int64_t> device, std::optional<int64_t> rank,
                                       std::optional<int64_t> near_host_ns, bool zone_known);

// ---- addresses and ranks (roster.cpp)
int source_strength(const std::string& s);
void add_ip(Ctx& c, const std::string& ip, const std::string& host, const std::string& source);
std::pair<std::string, std::string> host_of_ip(const Ctx& c, const std::string& ip);
bool has_ip_token(const std::string& text, const std::string& ip);
std::string host_by_own_logs(Ctx& c, const std::string& ip);
void build_roster(Ctx& c, FleetResult& r);
std::optional<int64_t> rank_of(const FleetResult& r, const std::string& host,
                               std::optional<int64_t> device, std::optional<int64_t> pid);
const FleetRank* find_rank(const FleetResult& r, int64_t rank, const std::string& host = "");

// ---- identity roster (roster.cpp): one entry per process (host, pid from the file name)
struct Proc {
  std::string host;
  std::optional<int64_t> pid;
  std::map<std::string, int64_t> rank_in;  // communicator identifier -> rank
  std::string group;                       // the communicator its `rank` is in (the largest)
  std::optional<int64_t> rank, size, logic_dev, phy_dev;
  std::string device_ip, vnic_ip, server_ip, root_ip;
  // `HcclGetRootInfo success ... identifier[g]`: the process made the root info of g ("" when
  // the line names no identifier)
  std::set<std::string> root_of;
  std::optional<FleetLine> line;  // the line that announced it
  // errors
  std::optional<int64_t> first_error;  // fleet clock
  std::optional<FleetLine> first_error_line;
  bool hccl_error = false, timeout = false;
  [[nodiscard]] std::string label() const;  // "worker-1 rank 1 device 0"
};

struct Roster {
  std::vector<Proc> procs;
  std::map<std::pair<std::string, int64_t>, size_t> by_host_pid;
  std::vector<std::string> duplicates;  // identities claimed by two processes
  std::string main_group;               // the communicator with the most collected members

  size_t proc_of(const std::string& host, std::optional<int64_t> pid);  // creates one if needed
  [[nodiscard]] std::optional<size_t> find(const std::string& host,
                                           std::optional<int64_t> pid) const;
  [[nodiscard]] std::optional<size_t> by_device_ip(const std::string& ip) const;
  [[nodiscard]] std::optional<size_t> by_server_device(const std::string& server,
                                                       int64_t phy) const;
  [[nodiscard]] std::optional<size_t> by_host_device(const std::string& host, int64_t phy) const;
  [[nodiscard]] std::optional<size_t> by_rank(const std::string& group, int64_t rank) const;
  [[nodiscard]] bool knows_server(const std::string& server) const;
};

// Reads every identity line (SetupAgent, HcclCommInitRootInfo success/failed, Entry-..., hcom init,
// hcclCommInitInfo, LocalRank Key Info, torch_npu (PID, Device, RankID)) and every error line's
// process; flags identities two processes claim.
Roster build_identities(const Ctx& c);
// Adds the roster's identities to the result's rank table (docs/fleet.md "Identity roster").
void merge_identities(const Roster& ro, FleetResult& r);

// ---- wait graph (waits.cpp): who waited on whom
struct WaitEdge {
  size_t from = 0;
  std::optional<size_t> to;  // the awaited process, when the address resolves to one
  std::string kind;          // link | transport | detect | p2p | notify
  std::string address;       // the awaited address as logged (for one outside the set)
  bool local = false;        // notify wait on its own sub-stream (`remote rank:[local]`)
  const HitR* hit = nullptr;
};

struct WaitGraph {
  std::vector<WaitEdge> edges;
  int unresolvable_transport = 0;  // transport errors without a device id: no edge
  [[nodiscard]] std::vector<const WaitEdge*> out(size_t from,
                                                 const std::set<std::string>& kinds) const;
};

WaitGraph build_waits(const Ctx& c, const Roster& ro);

// ---- clock offsets (clock.cpp)
void estimate_offsets(Ctx& c, FleetResult& r);

// ---- incident window (incident.cpp)

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
Incident find_incident(const Ctx& c, int64_t exec_s);
void fill_first_errors(Ctx& c, FleetResult& r, const Incident& in);

// ---- rules (rules.cpp)
struct Candidate {
  std::string rule, host, ip, text;
  std::optional<int64_t> rank, device, pid;
  double confidence = 0;
  std::optional<EventR> own;  // the host's own first fault, when the rule found it
  std::vector<FleetLine> lines;
  // the decision procedure's answer (decide.cpp); empty for the older rules
  std::vector<FleetCulprit> culprits;
  std::vector<std::string> chain;
  bool no_single_root = false;
  std::string reason;
  std::optional<int64_t> logic_device;
  std::string device_ip;
  std::vector<FleetCulprit> cycle;  // a deadlock's members
};

void attach_timeouts(Ctx& c, FleetResult& r);
std::optional<Candidate> rule_heartbeat(Ctx& c, const FleetResult& r, const Roster& ro);
std::optional<Candidate> rule_different_first(const Ctx& c, const FleetResult& r);
std::optional<Candidate> rule_late_arrival(const Ctx& c, const FleetResult& r, const Incident& in);
std::optional<Candidate> rule_link_target(Ctx& c, const FleetResult& r);
std::optional<Candidate> rule_roce(const Ctx& c, const FleetResult& r);
std::optional<Candidate> rule_silent(const Ctx& c, const FleetResult& r, const Incident& in);
std::optional<Candidate> rule_earliest(const Ctx& c, const FleetResult& r, bool hccl);
// faults.cpp: no HCCL rule decided -> the earliest timed fault event of a cause class
std::optional<Candidate> rule_earliest_fault(const FleetResult& r);

// ---- the decision procedure (decide.cpp): transport-init chain, then by the timeout class of
// the first-erroring process (link setup, op execution / Notify Wait, root-info init)
std::optional<Candidate> decide(Ctx& c, const FleetResult& r, const Incident& in, const Roster& ro,
                                const WaitGraph& g);
FleetCulprit culprit_of(const Proc& p);
// After the decision: the devices of failed MindIE PD links / KV pulls join the culprits
// (mindie.cpp).
void mindie_links(const Ctx& c, const Roster& ro, Candidate& k);
// Before the broadcast rules: no error at all in an HCCL job (no single root), RoCE error CQE
// links (their common remote end, else every device on them).
std::optional<Candidate> decide_first(Ctx& c, const FleetResult& r, const Roster& ro);

// ---- evidence (evidence.cpp)
void culprit_evidence(const Ctx& c, const FleetResult& r, const Incident& in, Candidate& k,
                      FleetFirstFailure& ff);
void broadcast_evidence(const Ctx& c, const Candidate& k, FleetFirstFailure& ff);
void root_cause_of(const Ctx& c, FleetFirstFailure& ff);
void explains_of(const Ctx& c, const Incident& in, FleetFirstFailure& ff);
std::string group_of(const Ctx& c);

}  // namespace faultline::correlate::fleet
