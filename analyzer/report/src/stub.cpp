// Placeholder until the reports land.
#include "faultline/report/report.hpp"

namespace faultline::report {

std::optional<Format> format_from(std::string_view s) {
  if (s == "md") return Format::md;
  if (s == "json") return Format::json;
  if (s == "html") return Format::html;
  return std::nullopt;
}

std::string render_bundle(sqlite3*, int64_t, Format) { return {}; }
std::string render_fleet(sqlite3*, const std::vector<int64_t>&, Format) { return {}; }

}  // namespace faultline::report
