// report: renders findings, evidence, timeline, versions and warnings from the database alone, so
// `faultline report --db` gives the same bytes as `faultline analyze`. Deterministic output
// (sorted, no wall-clock time).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace faultline::report {

enum class Format { md, json, html };
std::optional<Format> format_from(std::string_view s);

std::string render_bundle(sqlite3* db, int64_t bundle_id, Format f);
std::string render_fleet(sqlite3* db, const std::vector<int64_t>& bundle_ids, Format f);

}  // namespace faultline::report
