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
    case Format::md: return detail::render_md(r);
    case Format::json: return detail::render_json(r);
    case Format::html: return detail::render_html(r);
  }
  return {};
}

std::string render_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids, Format f) {
  std::vector<detail::Report> rs;
  rs.reserve(bundle_ids.size());
  for (int64_t id : bundle_ids) rs.push_back(detail::load(db, id));
  std::stable_sort(rs.begin(), rs.end(), [](const detail::Report& a, const detail::Report& b) {
    return a.path != b.path ? a.path < b.path : a.sha256 < b.sha256;
  });
  switch (f) {
    case Format::md: return detail::render_fleet_md(rs);
    case Format::json: return detail::render_fleet_json(db, rs);
    case Format::html: return detail::render_fleet_html(db, rs);
  }
  return {};
}

}  // namespace faultline::report
