// The rows of one bundle the correlator reads: hits (with their events and members), facts,
// clocks. Loaded once per run; everything after works in memory.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "faultline/parse/clock.hpp"

struct sqlite3;

namespace faultline::correlate::detail {

struct HitRow {
  int64_t hit_id = 0, event_id = 0, member_id = 0, line = 0;
  std::string signature, host, member, kind, text, time_quality;
  std::optional<int64_t> time_ns;
  std::map<std::string, std::string> captures;
  int sev_rank = 0;
};

struct FactRow {
  int64_t id = 0, member_id = 0, line = 0;
  std::string host, name, value, member, kind;
};

struct HostData {
  std::string name;
  std::map<std::string, std::vector<const HitRow*>> hits;    // by signature, in time order
  std::map<std::string, std::vector<const FactRow*>> facts;  // by name, in member/line order
  std::optional<int64_t> local_offset_ns;  // add to a host-local civil time read as UTC
  std::string offset_source;               // clocks:<method>, host.timezone, or "" (assumed)
  // the zone per time range when it changed within the bundle (clocks rows host_local_span;
  // docs/clock.md "Zones per time range"); empty: local_offset_ns holds for every time
  clock::ClockModel zones;
  // The zone in force when a host-local time (naive ns) was written, or at collection for a
  // member that prints stored instants (journal, dmesg -T, who, last, uptime -s: `kind`).
  // offset_ns nullopt: not pinned (assumed, or a range whose zone the bundle does not show).
  clock::LocalZone zone_at(int64_t local_naive_ns, std::string_view kind = {}) const;
};

// Kinds whose host-local times are printed at collection, in the zone of the collection.
bool rendered_at_collection(std::string_view kind);

struct BundleData {
  int64_t bundle_id = 0;
  std::vector<HitRow> hits;
  std::vector<FactRow> facts;
  std::vector<HostData> hosts;  // sorted by name
  // What the load's bounds left out (hits per host and signature, facts per host and name), as
  // "[correlate-limit] ..." warnings for the bundle's warnings table.
  std::vector<std::string> skipped;
};

// Throws std::runtime_error on SQL errors. Only hits of `signatures` are read (the ones the
// diagnoses refer to); an empty list reads none.
std::unique_ptr<BundleData> load_bundle(sqlite3* db, int64_t bundle_id,
                                        const std::vector<std::string>& signatures);

// Text of line `line` (1-based) of a member, from member_text (plain or zstd) or the events
// table; empty when the database does not hold it.
class LineSource {
 public:
  explicit LineSource(sqlite3* db) : db_(db) {}
  std::string line(int64_t member_id, int64_t line);
  // Event row at that member/line, if any: time_ns (may be absent) and time_quality.
  struct EventTime {
    std::optional<int64_t> time_ns;
    std::string quality;
  };
  std::optional<EventTime> event_time(int64_t member_id, int64_t line);

 private:
  sqlite3* db_;
  std::unordered_map<int64_t, std::vector<std::string>> members_;
};

}  // namespace faultline::correlate::detail
