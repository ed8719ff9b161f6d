// Renderers of a loaded Report (model.hpp).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "faultline/core/types.hpp"
#include "model.hpp"

namespace faultline::report::detail {

inline std::string kFaultlineVersion() { return std::string(faultline::kVersion); }

std::string render_md(const Report& r);
std::string render_json(const Report& r);
std::string render_html(const Report& r);

std::string render_fleet_md(const std::vector<Report>& rs);
std::string render_fleet_json(sqlite3* db, const std::vector<Report>& rs);
std::string render_fleet_html(sqlite3* db, const std::vector<Report>& rs);

// The contract's "bundle" object.
nlohmann::ordered_json bundle_json(const Report& r);

// HTML text escaping; also breaks "://" so that no URL-looking text is a resource reference.
std::string html(const std::string& s);

}  // namespace faultline::report::detail
