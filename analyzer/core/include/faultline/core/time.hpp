// Calendar arithmetic without the C library's time zone state (thread-safe, no TZ lookups).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace faultline {

// Days since 1970-01-01 of a proleptic Gregorian date.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);

// Nanoseconds since the epoch of a civil time read as UTC. Outside the int64 range (before 1677,
// after 2262, or absurd fields from a damaged line) it saturates at INT64_MIN + 1 (not kNoTime)
// or INT64_MAX.
int64_t civil_to_ns(int y, int mon, int day, int h, int mi, int s, int64_t nanos);

struct Civil {
  int year, month, day, hour, minute, second;
  int64_t nanos;
};
Civil ns_to_civil(int64_t ns);

// "2025-05-08T09:56:18.522534Z" (microsecond precision; stable text for reports).
std::string format_utc(int64_t ns);

// Month abbreviation (Jan..Dec, case-insensitive) to 1..12.
std::optional<int> month_from_abbrev(std::string_view s);

// "+0800", "+08:00", "-05", or a zone name / abbreviation of rules/clock/zones.yaml ("UTC",
// "Asia/Singapore", "CST": China Standard Time, as Ascend hosts print it; case-insensitive).
// Returns the offset east of UTC in seconds; nullopt for a zone of two offsets (daylight saving
// time) or an unknown word. The table: core/zones.hpp.
std::optional<int32_t> parse_zone(std::string_view s);

}  // namespace faultline
