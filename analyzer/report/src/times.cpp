// Honest time text (shared.hpp): UTC where the time is UTC, local and "zone unknown" where the
// bundle states no zone for a host-local clock (docs/clock.md, docs/report.md "Times").
#include <string>

#include "faultline/core/time.hpp"
#include "shared.hpp"

namespace faultline::report::detail {

bool zone_unknown(std::string_view quality) {
  return quality == "assumed_utc";
}

std::string iso_time_q(int64_t ns, std::string_view quality) {
  std::string s = format_utc(ns);  // "YYYY-MM-DDTHH:MM:SS.ffffffZ"
  if (zone_unknown(quality) && !s.empty() && s.back() == 'Z') s.pop_back();
  return s;
}

std::string fmt_time_q(const std::optional<int64_t>& ns, std::string_view quality) {
  if (!ns) return {};
  if (!zone_unknown(quality)) return format_utc(*ns);
  std::string s = iso_time_q(*ns, quality);
  if (s.size() > 10 && s[10] == 'T') s[10] = ' ';
  return s + " local (zone unknown)";
}

}  // namespace faultline::report::detail
