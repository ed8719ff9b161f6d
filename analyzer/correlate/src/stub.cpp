// Placeholder until the correlator lands.
#include "faultline/correlate/correlate.hpp"

namespace faultline::correlate {

Summary run(sqlite3*, int64_t, const std::vector<RuleFile>&) { return {}; }
std::vector<std::string> lint(const std::vector<RuleFile>&, const std::vector<std::string>&) {
  return {};
}
std::vector<DiagnosisInfo> list(const std::vector<RuleFile>&) { return {}; }

}  // namespace faultline::correlate
