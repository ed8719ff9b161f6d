// correlate/fleet: correlation across the node bundles of one job (docs/fleet.md).
// Reads the per-bundle rows (hits, events, findings, timeline, clocks) of a merged database and
// decides which host/rank failed first, by the HCCL root-rank methods of log-formats.md §8.5, with
// per-host clock offsets estimated from events every node logged (so the order does not rest on
// NTP). Results go to the fleet_* tables (schema/002_fleet.sql).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace faultline::correlate {

struct FleetLine {
  std::string host, file, text, signature, quality;
  std::string finding;  // the host's finding that cites the line, when known
  std::string role;     // culprit | corroboration | broadcast | timing | roster
  int64_t line = 0;
  std::optional<int64_t> time_ns;
};

struct FleetIp {
  std::string ip, source;  // source: roster | heartbeat-local | link-local | env | host-name
};

struct FleetHost {
  std::string host;
  int64_t bundle_id = 0;
  std::vector<FleetIp> ips;
  std::vector<int64_t> ranks;
  std::optional<int64_t> offset_ns;  // host clock minus reference clock
  int offset_events = 0;
  std::optional<int64_t> offset_spread_ns;
  std::string offset_method;
  bool offset_applied = false;
  int hccl_errors = 0;
  bool silent = false;
  std::optional<FleetLine> first;  // first error of the incident on this host
  std::optional<int64_t> first_fleet_ns;
  std::string first_class;  // fault | collective
};

struct FleetRank {
  int64_t rank = 0;
  std::string host, ip, group, source;
  std::optional<int64_t> device, pid;
  // added (issue 14): identity of the process holding the rank
  std::optional<int64_t> logic_device, size;
  std::string device_ip, server_ip;
};

struct FleetSuspect {
  std::string host, rule, detail;
  std::optional<int64_t> rank;
};

// One culprit of the first failure (docs/fleet.md "Decision procedure"): a process of a
// collected host, or an address no bundle holds (host empty, address set).
struct FleetCulprit {
  std::string host, device_ip, address;
  std::optional<int64_t> rank, device, logic_device, pid;  // device = physical id
};

struct FleetFirstFailure {
  std::string host, ip, group, quality, rule, rule_text, summary;
  int64_t bundle_id = 0;
  std::optional<int64_t> rank, device, time_ns, fleet_ns;
  double confidence = 0;
  std::string root_cause, root_cause_title;
  double root_cause_confidence = 0;
  std::vector<std::string> explains_hosts, explains_symptoms;
  std::vector<FleetLine> evidence;  // culprit's own lines first, then one broadcast line per host
  // added (issue 14): every culprit (the fields above describe the first), the wait chain
  // followed (hops as "host rank R device D" / an address), and an explicit "no single root"
  std::vector<FleetCulprit> culprits;
  std::vector<std::string> chain;
  bool no_single_root = false;
  std::string reason;  // why there is no single root
  std::optional<int64_t> logic_device;
  std::string device_ip;
  std::vector<std::string> agreed, disagreed;  // other rules that agreed / named someone else
  // added (issue 34): the members of a closed wait cycle (a deadlock: no_single_root)
  std::vector<FleetCulprit> cycle;
  // ascend-fd's root-cluster decision code (101-133) of the same decision, when there is one
  // (docs/fleet.md "Decision procedure"); users of the vendor tool know those numbers
  std::optional<int64_t> vendor_code;
};

// One fault event of the fleet (docs/fleet.md "Fault events", added in issue 34): the per-node
// fault findings (docs/faults.md) of one signature and external code, over every host that has
// them.
struct FleetFault {
  std::string id;    // fault.<signature id>
  std::string code;  // external code (vendor code, ERRxxxxx, event id); "" when none
  std::string title, signature, fault_class, role, severity;
  std::vector<std::string> hosts;   // sorted
  std::optional<int64_t> first_ns;  // earliest timed hit over the hosts (the host's clock, UTC)
  std::string first_host;           // host of that hit (else the first host)
  int64_t count = 0;                // hits over every host
  bool diagnosed = false;           // a diagnosed root cause cites it on some host
  std::optional<FleetLine> first;   // its earliest evidence line
};

struct FleetResult {
  std::vector<int64_t> bundle_ids;  // analysed bundles
  std::vector<int64_t> failed_ids;  // bundles that could not be read (rows with status failed)
  std::string reference;            // host whose clock fleet times are expressed in
  int64_t exec_timeout_s = 0, connect_timeout_s = 0;
  std::string timeouts_source;   // logged | default
  std::vector<FleetHost> hosts;  // sorted by host
  std::vector<FleetRank> ranks;  // sorted by rank, host
  std::optional<FleetFirstFailure> first_failure;
  std::vector<FleetSuspect> suspects;
  std::vector<std::string> notes;  // what the inference could not do (no roster, no offsets, ...)
  std::vector<FleetFault> faults;  // added (issue 34): every fault event, ranked as analyze does
};

// The fault events of the analysed bundles (findings of kind 'fault'), one per id and code over
// every host, ranked as `analyze` ranks them: cited by a diagnosed root cause first, then role
// cause before symptom, the earliest first hit (untimed last), severity, host, id. Read from the
// per-node findings, so a stored run gets them too.
std::vector<FleetFault> load_fleet_faults(sqlite3* db, const std::vector<int64_t>& bundle_ids);

// Inference only: reads the database, writes nothing (the report uses it for databases without a
// stored run). Deterministic for a given database content and bundle set.
FleetResult analyze_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids);

// Writes the result to the fleet_* tables, replacing any run over the same bundles; failed_ids
// are listed as failed members of the run.
void store_fleet(sqlite3* db, const FleetResult& r);

// The stored run over exactly these analysed bundles, if the database holds one.
std::optional<FleetResult> load_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids);

// A bundle that is a job of its own (docs/fleet.md "A job in one bundle"): it was split into two
// hosts or more, or one host's logs announce two ranks or more and an HCCL error was logged (a
// one-node multi-rank job). `analyze` runs the fleet correlation over such a bundle.
bool job_bundle(sqlite3* db, int64_t bundle_id);

// A job in one bundle whose nodes do not all sync their clocks (docs/clock.md "Hosts without time
// sync"): the offset of each host that states no time sync (timedatectl `System clock
// synchronized: no`, NTP service inactive), measured on the events every node logged (the fleet
// clock offsets), is taken out of its host clocks' events before the bundle is correlated, so
// that its findings, first failure and timeline are in the clock of the synced nodes. A `clocks`
// row (clock `shared_events`) records it. Returns one note per aligned host.
std::vector<std::string> align_unsynced_clocks(sqlite3* db, int64_t bundle_id);

// analyze_fleet + store_fleet (what `faultline fleet` runs after merging).
FleetResult run_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids,
                      const std::vector<int64_t>& failed_ids);

}  // namespace faultline::correlate
