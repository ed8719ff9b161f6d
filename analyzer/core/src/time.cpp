#include "faultline/core/time.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdio>
#include <limits>

#include "faultline/core/rules.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/zones.hpp"

namespace faultline {

// Howard Hinnant's days_from_civil algorithm (public domain description of the arithmetic).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

int64_t civil_to_ns(int y, int mon, int day, int h, int mi, int s, int64_t nanos) {
  const int64_t days = days_from_civil(y, static_cast<unsigned>(mon), static_cast<unsigned>(day));
  // 64-bit and saturated: a damaged line can print any year (2461, 9999) or field value, and
  // nanoseconds since 1970 only reach the years 1677..2262.
  const int64_t secs = days * 86400 + int64_t{h} * 3600 + int64_t{mi} * 60 + s;
  int64_t ns = 0;
  if (__builtin_mul_overflow(secs, int64_t{1'000'000'000}, &ns) ||
      __builtin_add_overflow(ns, nanos, &ns))
    return secs < 0 ? std::numeric_limits<int64_t>::min() + 1 : std::numeric_limits<int64_t>::max();
  return ns;
}

Civil ns_to_civil(int64_t ns) {
  int64_t secs = ns / 1'000'000'000;
  int64_t rem = ns % 1'000'000'000;
  if (rem < 0) {
    rem += 1'000'000'000;
    secs -= 1;
  }
  int64_t z = secs / 86400;
  int64_t sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    z -= 1;
  }
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  Civil c{};
  c.year = static_cast<int>(y + (m <= 2 ? 1 : 0));
  c.month = static_cast<int>(m);
  c.day = static_cast<int>(d);
  c.hour = static_cast<int>(sod / 3600);
  c.minute = static_cast<int>((sod % 3600) / 60);
  c.second = static_cast<int>(sod % 60);
  c.nanos = rem;
  return c;
}

std::string format_utc(int64_t ns) {
  const Civil c = ns_to_civil(ns);
  std::array<char, 48> buf{};
  std::snprintf(buf.data(), buf.size(), "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", c.year, c.month,
                c.day, c.hour, c.minute, c.second, static_cast<long long>(c.nanos / 1000));
  return std::string(buf.data());
}

std::optional<int> month_from_abbrev(std::string_view s) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  if (s.size() < 3) return std::nullopt;
  const std::string l = text::to_lower(s.substr(0, 3));
  for (size_t i = 0; i < kMonths.size(); ++i)
    if (kMonths[i] == l) return static_cast<int>(i + 1);
  return std::nullopt;
}

namespace {

// "+08:00", "+0800", "-05": the offset east of UTC in seconds.
std::optional<int32_t> numeric_offset(std::string_view s) {
  if (s.empty() || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  std::string digits;
  for (char c : s.substr(1))
    if (c >= '0' && c <= '9') digits.push_back(c);
  if (digits.size() != 4 && digits.size() != 2) return std::nullopt;
  if (digits.size() == 2) digits += "00";
  const int h = (digits[0] - '0') * 10 + (digits[1] - '0');
  const int m = (digits[2] - '0') * 10 + (digits[3] - '0');
  if (h > 14 || m > 59) return std::nullopt;
  const int32_t off = h * 3600 + m * 60;
  return s[0] == '-' ? -off : off;
}

}  // namespace

ZoneTable load_zone_table(std::string_view yaml_text) {
  ZoneTable t;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    t.errors.push_back(std::string("not YAML: ") + e.what());
    return t;
  }
  const YAML::Node zones = root.IsMap() ? root["zones"] : YAML::Node();
  if (!zones || !zones.IsSequence()) {
    t.errors.emplace_back("no 'zones' list");
    return t;
  }
  for (const auto& z : zones) {
    const std::string where = "line " + std::to_string(z.Mark().line + 1);
    if (!z.IsMap() || !z["offset"] || !z["offset"].IsScalar() || !z["names"] ||
        !z["names"].IsSequence()) {
      t.errors.push_back(where + ": an entry needs 'offset' and a 'names' list");
      continue;
    }
    const std::string off_text = z["offset"].as<std::string>();
    const auto off = numeric_offset(off_text);
    if (!off || off_text.size() != 6 || off_text[3] != ':') {
      t.errors.push_back(where + ": offset '" + off_text + "' is not +HH:MM / -HH:MM");
      continue;
    }
    for (const auto& n : z["names"]) {
      if (!n.IsScalar() || n.as<std::string>().empty()) {
        t.errors.push_back(where + ": a name is not a word");
        continue;
      }
      const std::string name = text::to_lower(n.as<std::string>());
      if (!t.offsets.emplace(name, *off).second)
        t.errors.push_back(where + ": '" + n.as<std::string>() + "' is listed twice");
    }
  }
  return t;
}

const ZoneTable& zone_table() {
  static const ZoneTable table = [] {
    for (const auto& v : embedded_rule_views())
      if (v.path == "clock/zones.yaml") return load_zone_table(v.text);
    ZoneTable t;
    t.errors.emplace_back("clock/zones.yaml is not among the embedded rules");
    return t;
  }();
  return table;
}

std::optional<int32_t> parse_zone(std::string_view s) {
  s = text::trim(s);
  if (s.empty()) return std::nullopt;
  const auto& names = zone_table().offsets;
  if (auto it = names.find(text::to_lower(s)); it != names.end()) return it->second;
  return numeric_offset(s);
}

}  // namespace faultline
