// Restarts (docs/faults.md "Restarts"): a signature with a `restart:` block marks a new run of the
// job (a process that initialised its CANN logging a second time, HCCL saying the errors above can
// be ignored). The CANN process-log lines before the mark belong to the earlier run: they are no
// fault events of the bundle and no errors of the fleet's first-failure rules. The bundle
// correlator finds the marks and records each as a fact `run.restart` (docs/facts.md), which the
// fleet correlation reads back (it has the database, not the rules).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "faultline/correlate/correlate.hpp"

namespace faultline::correlate::detail {

// One mark: lines of `kinds` on `host` (of process `pid` only, when set) timed at or before
// `before_ns` are of the earlier run.
struct Restart {
  std::string host;
  std::optional<int64_t> pid;
  int64_t before_ns = 0;
  int64_t mark_ns = 0;
  std::string signature;
  std::vector<std::string> kinds;
  int64_t member_id = 0, line = 0;  // the marking line
};

// Finds the marks of the bundle (at most one per host, or per host and process for
// `scope: process`: the latest).
std::vector<Restart> find_restarts(sqlite3* db, int64_t bundle_id,
                                   const std::vector<RestartDef>& defs);

// History (history.cpp): one mark per host whose clock model states its boot, setting aside the
// lines of every kind timed before it (they are of an earlier boot), signature
// `host.last_boot`; the margin is 2 min, 14 h more when the host zone is not pinned.
std::vector<Restart> find_boot_marks(sqlite3* db, int64_t bundle_id);

// "[history] ..." warnings: per host with a boot mark, the error lines set aside.
std::vector<std::string> history_notes(sqlite3* db, int64_t bundle_id,
                                       const std::vector<Restart>& marks);

// Replaces the bundle's `run.restart` facts with `marks`.
void write_restarts(sqlite3* db, int64_t bundle_id, const std::vector<Restart>& marks);

// The marks recorded for a bundle (what write_restarts wrote).
std::vector<Restart> read_restarts(sqlite3* db, int64_t bundle_id);

// Whether a line of `kind` on `host`, logged by `pid` at `t`, is of an earlier run.
bool before_restart(const std::vector<Restart>& marks, const std::string& host,
                    const std::string& kind, std::optional<int64_t> pid, std::optional<int64_t> t);

// Fills temp.faultline_restarts(host, pid, kind, before_ns) for restart_condition().
void load_restart_table(sqlite3* db, const std::vector<Restart>& marks);

// SQL condition (" AND NOT EXISTS ...") that keeps the events `e` not of an earlier run; "" when
// there are no marks. earlier = true: the opposite (" AND EXISTS ..."), the events of an earlier
// run.
std::string restart_condition(const std::vector<Restart>& marks, bool earlier = false);

}  // namespace faultline::correlate::detail
