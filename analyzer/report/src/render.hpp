// Renderers of a loaded Report (model.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "faultline/core/types.hpp"
#include "model.hpp"

namespace faultline::report::detail {

inline std::string kFaultlineVersion() {
  return std::string(faultline::kVersion);
}

std::string render_md(const Report& r);
std::string render_json(const Report& r);
std::string render_html(const Report& r);

// Fleet view (fleet.cpp): the stored fleet run over these bundles (correlate/fleet.hpp), or one
// computed from the database when it holds none; bundles are read lightly (no evidence rows).
std::string render_fleet_md(sqlite3* db, const std::vector<int64_t>& bundle_ids);
std::string render_fleet_json(sqlite3* db, const std::vector<int64_t>& bundle_ids);
std::string render_fleet_html(sqlite3* db, const std::vector<int64_t>& bundle_ids);

// The contract's "bundle" object.
nlohmann::ordered_json bundle_json(const Report& r);

// HTML text escaping; also breaks "://" so that no URL-looking text is a resource reference.
std::string html(const std::string& s);

}  // namespace faultline::report::detail
