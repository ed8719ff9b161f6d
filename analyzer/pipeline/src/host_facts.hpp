// Facts of a host that need several members: stated once the bundle's hosts are known, before
// clocks are fitted and rules run. docs/facts.md "Derived per host".
#pragma once

#include <cstdint>
#include <string>

#include "faultline/store/store.hpp"

namespace faultline::pipeline {

// Installed state from the install history (every install.event of the host replayed in time
// order): install.installed.<package> for every package installed now, and
// driver.version.installed / firmware.version.installed / cann.version.installed when no
// version file or package list of the host states that name. Each cites the install line.
void derive_host_facts(store::Db& db, int64_t bundle, const std::string& host);

}  // namespace faultline::pipeline
