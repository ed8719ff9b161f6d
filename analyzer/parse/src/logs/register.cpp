// Log-line parsers (plog, device logs, kernel, syslog, journal, install logs, training stdout).
#include "faultline/parse/registry_detail.hpp"

namespace faultline::parse::detail {

void register_log_parsers(std::vector<Entry>& /*out*/) {}

}  // namespace faultline::parse::detail
