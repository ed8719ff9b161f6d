// Sections of the fleet report kept apart from fleet.cpp (docs/fleet.md "Report"): the fleet's
// fault events (issue 34).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>

#include "faultline/correlate/fleet.hpp"

namespace faultline::report::detail {

// json `faults`: every fault event of the fleet, ranked (docs/fleet.md "Fault events")
nlohmann::ordered_json fleet_faults_json(const correlate::FleetResult& f);
// "## Fault events" (md) / "<h2>Fault events</h2>" (html): only when there are fault events
void fleet_faults_md(std::ostream& o, const correlate::FleetResult& f);
void fleet_faults_html(std::ostream& o, const correlate::FleetResult& f);

}  // namespace faultline::report::detail

namespace faultline::report::detail {

// " (ascend-fd decision 124)" beside the rule name, "" when the decision has no vendor code
std::string vendor_words(const correlate::FleetFirstFailure& ff);
// "rank 0 (worker-0, device 0), rank 1 (...)": the members of a deadlock's cycle
std::string cycle_words(const correlate::FleetFirstFailure& ff);
// first_failure json: the fields added in issue 34 (vendor_code, cycle)
void add_answer_json(nlohmann::ordered_json& jf, const correlate::FleetFirstFailure& ff);

}  // namespace faultline::report::detail

namespace faultline::report::detail {

// The pictures of the fleet html (issue 34), inline SVG: the wait chain or cycle of the first
// failure (hosts as boxes, ranks as nodes, edges with the wait kind and time) and a host x time
// strip of every host's first error (root, chain, others coloured). Nothing when there is no
// chain / no timed first error.
void fleet_pictures_html(std::ostream& o, const correlate::FleetResult& f,
                         std::string_view fleet_quality);

}  // namespace faultline::report::detail
