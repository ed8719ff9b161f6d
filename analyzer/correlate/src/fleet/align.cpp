// Clock alignment of unsynced hosts in a job bundle, before its correlation (docs/clock.md
// "Hosts without time sync"): the fleet offsets of shared events, applied to the events of the
// hosts that state no time sync.
#include <cstdlib>
#include <set>

#include "internal.hpp"

namespace faultline::correlate {

using namespace fleet;  // NOLINT(google-build-using-namespace)

std::vector<std::string> align_unsynced_clocks(sqlite3* db, int64_t bundle_id) {
  std::vector<std::string> notes;
  // hosts that state they keep no time sync
  std::set<std::string> unsynced;
  {
    Stmt st(db,
            "SELECT DISTINCT host FROM facts WHERE bundle_id = ? AND ((name = "
            "'host.clock_synchronized' AND lower(value) IN ('no', 'false', '0')) OR (name = "
            "'host.ntp_service' AND lower(value) IN ('inactive', 'no', 'n/a', 'failed')))");
    st.bind(1, bundle_id);
    while (st.step()) unsynced.insert(st.str(0));
  }
  if (unsynced.empty()) return notes;
  Ctx c;
  c.db = db;
  c.bundles = {bundle_id};
  load_hosts(c);
  if (c.host_bundles.size() < 2) return notes;
  load_hits(c);
  FleetResult r;
  for (const auto& [host, bs] : c.host_bundles) {
    FleetHost fh;
    fh.host = host;
    fh.bundle_id = bs.front();
    r.hosts.push_back(std::move(fh));
  }
  estimate_offsets(c, r);
  // the reference must keep time itself: offsets against an unsynced clock align nothing
  if (r.reference.empty() || unsynced.count(r.reference) != 0) return notes;
  Stmt upd(db,
           "UPDATE events SET time_ns = time_ns - ?1 WHERE bundle_id = ?2 AND host = ?3 AND "
           "time_ns IS NOT NULL AND clock IN ('host_local', 'utc', 'uptime')");
  Stmt ins(db,
           "INSERT INTO clocks(bundle_id, host, clock, offset_ns, method, detail) VALUES(?, ?, "
           "'shared_events', ?, ?, ?)");
  for (const auto& fh : r.hosts) {
    if (!fh.offset_ns || !fh.offset_applied || unsynced.count(fh.host) == 0) continue;
    upd.reset();
    upd.bind(1, *fh.offset_ns).bind(2, bundle_id).bind(3, std::string_view(fh.host));
    upd.step();
    const std::string detail = "host clock " + fmt_s(*fh.offset_ns) + " from " + r.reference +
                               "'s, " + std::to_string(fh.offset_events) +
                               " shared event(s): " + fh.offset_method +
                               "; the host states no time sync";
    ins.reset();
    ins.bind(1, bundle_id)
        .bind(2, std::string_view(fh.host))
        .bind(3, *fh.offset_ns)
        .bind(4, std::string_view(fh.offset_method))
        .bind(5, std::string_view(detail));
    ins.step();
    notes.push_back(fh.host + ": clock aligned before correlation, " + detail);
  }
  return notes;
}

}  // namespace faultline::correlate
