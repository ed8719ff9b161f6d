// Facts of a host that need several members: stated once the bundle's hosts are known, before
// clocks are fitted and rules run. docs/facts.md "Derived per host".
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "faultline/parse/clock.hpp"
#include "faultline/store/store.hpp"

namespace faultline::pipeline {

// Installed state from the install history (every install.event of the host replayed in time
// order): install.installed.<package> for every package installed now, and
// driver.version.installed / firmware.version.installed / cann.version.installed when no
// version file or package list of the host states that name. Each cites the install line.
// Also the boot from `uptime` or /proc/uptime and the collection time (host.boot_time_local).
void derive_host_facts(store::Db& db, int64_t bundle, const std::string& host);

// driver.version.at_load: the driver version installed when the modules were last loaded (the
// latest of the boots and driver loads the host states), by replaying the install history up to
// that time. UTC boot times count only where the host's zone is pinned (the model's zone at that
// time; not when assumed). Nothing when no load time orders.
void derive_driver_at_load(store::Db& db, int64_t bundle, const std::string& host,
                           const clock::ClockModel& model);

// Changes of the host zone stated by its facts (host.timezone_change: systemd-timedated lines,
// shell history) into in.zone_changes; set in.reference_ns first (year-less stamps).
// zone_inputs.cpp
void add_zone_changes(store::Db& db, int64_t bundle, const std::string& host,
                      clock::HostInputs& in);

// Members that print stored instants in the zone at collection (journalctl, dmesg -T): their
// host-local times are read in that zone whatever zone was in force when they happened.
std::set<int64_t> rendered_members(store::Db& db, int64_t bundle);

}  // namespace faultline::pipeline
