// What is installed now, from the install history: every install.event of a host (from
// ascend_install.log, operation.log and the installers' own logs, any number of members) replayed
// in time order. The last successful install/upgrade/downgrade of a package in an install root
// gives its version; a failed step changes nothing; a successful uninstall removes it.
// docs/facts.md "Installed state from the install history".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::parse {

// One install.event fact of a host, with where it was stated.
struct InstallRecord {
  std::string package, action, from, to, time, result, path;
  int64_t member_id = 0;
  int64_t line = 0;
};

// The install.event JSON value ({"package","action","from","to","time","result",...}); nullopt
// when it is not one.
std::optional<InstallRecord> install_record(std::string_view json);

// One package installed now: its version, install root ("" = the installer's default root) and
// the record (member, line, time) that installed it.
struct Installed {
  std::string package, version, path, time;
  int64_t member_id = 0;
  int64_t line = 0;
};

// Replays `records` in time order ("YYYY-MM-DD HH:MM:SS", host-local; equal times keep their
// given order: pass them in member and line order). Versions compare as Ascend versions
// (7.7.T16.0.B099 > 7.7.T15.0.B092, 8.1.RC1 > 8.0.0) by the parser that decided each event's
// action. A successful install whose `to` is empty (the session did not say what it installed,
// as CANN `--full` runs without a package name) removes the earlier state of that package and
// root: what is there now is not known, so nothing is stated. The driver and the firmware have
// one state per host whatever the root (their installers remove the previous install); other
// packages one per install root. Result in package, path order.
std::vector<Installed> replay_installs(const std::vector<InstallRecord>& records);

// The fact a package's installed version is stated as: driver -> driver.version.installed,
// firmware -> firmware.version.installed, toolkit/nnae/nnrt/runtime/kernels/cann ->
// cann.version.installed; "" for other packages (they get install.installed.<package> only).
std::string_view installed_fact_name(std::string_view package);

}  // namespace faultline::parse
