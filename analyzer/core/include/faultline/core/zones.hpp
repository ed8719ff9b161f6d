// The zone words parse_zone (core/time.hpp) knows: rules/clock/zones.yaml (docs/clock.md "Zones").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace faultline {

// Lower-cased zone name or abbreviation -> offset east of UTC in seconds.
struct ZoneTable {
  std::map<std::string, int32_t> offsets;
  std::vector<std::string> errors;  // "line N: ..." for each entry or name not loaded
};

// Parses a zones file (rules lint, tests).
ZoneTable load_zone_table(std::string_view yaml_text);

// The embedded rules/clock/zones.yaml, loaded at the first call (thread-safe).
const ZoneTable& zone_table();

}  // namespace faultline
