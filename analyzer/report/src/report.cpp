#include "faultline/report/report.hpp"

#include "render.hpp"

namespace faultline::report {

std::optional<Format> format_from(std::string_view s) {
  if (s == "md" || s == "markdown") return Format::md;
  if (s == "json") return Format::json;
  if (s == "html") return Format::html;
  return std::nullopt;
}

std::string render_bundle(sqlite3* db, int64_t bundle_id, Format f) {
  const detail::Report r = detail::load(db, bundle_id);
  switch (f) {
    case Format::md:
      return detail::render_md(r);
    case Format::json:
      return detail::render_json(r);
    case Format::html:
      return detail::render_html(r);
  }
  return {};
}

std::string render_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids, Format f) {
  switch (f) {
    case Format::md:
      return detail::render_fleet_md(db, bundle_ids);
    case Format::json:
      return detail::render_fleet_json(db, bundle_ids);
    case Format::html:
      return detail::render_fleet_html(db, bundle_ids);
  }
  return {};
}

}  // namespace faultline::report
