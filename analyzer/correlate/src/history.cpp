// History is not the incident (docs/faults.md "Restarts", docs/clock.md "History before the last
// boot"): a host's lines timed before its last boot are of an earlier boot. Like the lines of an
// earlier run of the job, they are no fault events of the bundle and no errors of the fleet's
// first failure; the report lists how many were set aside as history.
#include <map>

#include "faultline/core/time.hpp"
#include "restarts.hpp"
#include "sql.hpp"

namespace faultline::correlate::detail {

namespace {
constexpr int64_t kSec = 1'000'000'000;
// a boot's sources differ by seconds to a minute (rsyslog stamps, the driver's load after the
// kernel's start): lines within 2 min before it stay
constexpr int64_t kMargin = 120 * kSec;
// with the host zone unknown, a host-local line read as UTC may be off by up to 14 h against a
// boot stated in UTC: only lines earlier than that are certainly of an earlier boot
constexpr int64_t kZoneUnknown = 14 * 3600 * kSec;
}  // namespace

std::vector<Restart> find_boot_marks(sqlite3* db, int64_t bundle_id) {
  std::map<std::string, std::pair<int64_t, bool>> boot;  // host -> (boot UTC ns, zone pinned)
  {
    Stmt st(db,
            "SELECT u.host, u.offset_ns, COALESCE((SELECT l.method FROM clocks l WHERE "
            "l.bundle_id = u.bundle_id AND l.host = u.host AND l.clock = 'host_local' LIMIT 1), "
            "'assumed') FROM clocks u WHERE u.bundle_id = ? AND u.clock = 'uptime' AND "
            "u.offset_ns IS NOT NULL AND u.method <> 'unknown'");
    st.bind(1, bundle_id);
    while (st.step()) boot[st.str(0)] = {st.i64(1), st.str(2) != "assumed"};
  }
  std::vector<Restart> out;
  for (const auto& [host, b] : boot) {
    Restart r;
    r.host = host;
    r.mark_ns = b.first;
    r.before_ns = b.first - (b.second ? kMargin : kZoneUnknown + kMargin);
    r.signature = "host.last_boot";
    // every kind of the host with a timed error line before it; the line cited is the earliest
    Stmt k(db,
           "SELECT DISTINCT m.kind FROM events e JOIN members m ON m.id = e.member_id WHERE "
           "e.bundle_id = ? AND e.host = ? AND e.sev_rank >= 4 AND e.time_ns IS NOT NULL AND "
           "e.time_ns <= ? AND e.time_quality <> 'device_unsynced' ORDER BY m.kind LIMIT 64");
    k.bind(1, bundle_id).bind(2, host).bind(3, r.before_ns);
    while (k.step()) r.kinds.push_back(k.str(0));
    if (r.kinds.empty()) continue;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> history_notes(sqlite3* db, int64_t bundle_id,
                                       const std::vector<Restart>& marks) {
  std::vector<std::string> out;
  for (const auto& r : marks) {
    if (r.signature != "host.last_boot") continue;
    Stmt st(db,
            "SELECT count(*), min(e.time_ns), max(e.time_ns) FROM events e WHERE e.bundle_id = ? "
            "AND e.host = ? AND e.sev_rank >= 4 AND e.time_ns IS NOT NULL AND e.time_ns <= ? AND "
            "e.time_quality <> 'device_unsynced'");
    st.bind(1, bundle_id).bind(2, r.host).bind(3, r.before_ns);
    if (!st.step() || st.i64(0) == 0) continue;
    out.push_back("[history] " + r.host + ": " + std::to_string(st.i64(0)) +
                  " error line(s) from " + format_utc(st.i64(1)) + " to " + format_utc(st.i64(2)) +
                  " are before its last boot (" + format_utc(r.mark_ns) +
                  "): history of an earlier boot, not symptoms of this incident");
  }
  return out;
}

}  // namespace faultline::correlate::detail
