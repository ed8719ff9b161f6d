// Clock model: log-formats.md §10, docs/clock.md.
#include "faultline/parse/clock.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "faultline/core/time.hpp"
#include "logs/common.hpp"

namespace faultline::clock {

namespace {
constexpr int64_t kSec = 1'000'000'000;
constexpr int64_t kDay = 86400 * kSec;
constexpr size_t kMaxPairs = 200000;
// 2000-01-01T00:00:00Z: device stamps before it are the unset device clock (1970-01-01 ...).
constexpr int64_t kSyncedFloor = 946684800LL * kSec;

int64_t median(std::vector<int64_t> v) {
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  return v[mid];
}

bool unsynced(const RawTime& t) {
  return t.year != 0 && t.year < 2000;
}
size_t next_sub(std::string_view s, std::string_view p, size_t from) {
  if (from > s.size()) return std::string_view::npos;
  const size_t at = parse::logs::find_sub(s.substr(from), p);
  return at == std::string_view::npos ? at : from + at;
}
}  // namespace

int64_t naive_ns(const RawTime& t, int year_hint) {
  if (!t.has_civil()) return kNoTime;
  const int y = t.year != 0 ? t.year : year_hint;
  return civil_to_ns(y, t.month, t.day, t.hour, t.minute, t.second, t.nanos);
}

int infer_year(const RawTime& t, int64_t reference_ns) {
  const int ry = ns_to_civil(reference_ns).year;
  const int64_t cand = naive_ns(t, ry);
  return cand > reference_ns + 30 * kDay ? ry - 1 : ry;
}

std::optional<int64_t> epoch_payload_ns(std::string_view m) {
  size_t p = 0;
  // find_sub, not find: find() stops at every "t" of the message (every event passes here)
  while ((p = next_sub(m, "time=", p)) != std::string_view::npos) {
    const size_t start = p;
    p += 5;
    // "time=" as a word or as the end of "event_raised_time="
    if (start > 0) {
      const char b = m[start - 1];
      const bool word = !(std::isalnum(static_cast<unsigned char>(b)) || b == '_');
      const bool raised = start >= 13 && m.compare(start - 13, 13, "event_raised_") == 0;
      if (!word && !raised) continue;
    }
    size_t i = p;
    int64_t secs = 0;
    size_t nd = 0;
    while (i < m.size() && m[i] >= '0' && m[i] <= '9' && nd < 19) {
      secs = secs * 10 + (m[i] - '0');
      ++i;
      ++nd;
    }
    if (nd == 0) continue;
    int64_t ns = 0;
    if (i < m.size() && m[i] == '.') {
      ++i;
      int64_t frac = 0;
      size_t fd = 0;
      while (i < m.size() && m[i] >= '0' && m[i] <= '9') {
        if (fd < 9) {
          frac = frac * 10 + (m[i] - '0');
          ++fd;
        }
        ++i;
      }
      for (size_t k = fd; k < 9; ++k) frac *= 10;
      if (i < m.size() && m[i] == 's') ns = secs * kSec + frac;
    } else if (m.compare(i, 3, " ms") == 0) {
      ns = secs * 1'000'000;
    } else if (i < m.size() && m[i] == 's') {
      ns = secs * kSec;
    }
    if (ns >= kSyncedFloor && ns < 4102444800LL * kSec) return ns;
  }
  return std::nullopt;
}

void observe(HostInputs& in, const Event& e) {
  const RawTime& t = e.time;
  if (!t.has_civil() || unsynced(t)) return;
  if (t.clock == Clock::none || t.clock == Clock::uptime || t.clock == Clock::device_uptime) return;
  int year = t.year;
  if (year == 0) {
    if (!in.reference_ns) return;
    year = infer_year(t, *in.reference_ns);
  }
  const int64_t wall = naive_ns(t, year);
  if (t.has_uptime() && in.pairs.size() < kMaxPairs)
    in.pairs.push_back(Pair{t.clock, wall, t.uptime_ns});
  if (in.epoch_pairs.size() < kMaxPairs) {
    if (const auto ep = epoch_payload_ns(e.message))
      in.epoch_pairs.push_back(EpochPair{t.clock, *ep, wall});
  }
}

int64_t snap_zone_ns(int64_t offset_ns, int64_t tolerance_s) {
  const double q = static_cast<double>(offset_ns) / static_cast<double>(900 * kSec);
  const int64_t snapped = static_cast<int64_t>(std::llround(q)) * 900 * kSec;
  const int64_t diff = offset_ns > snapped ? offset_ns - snapped : snapped - offset_ns;
  return diff <= tolerance_s * kSec ? snapped : offset_ns;
}

namespace {
// 64-bit hash of the bytes of a..b (std::hash of a string_view: one pass, no copy)
uint64_t hash2(std::string_view a, std::string_view b) {
  const uint64_t h = std::hash<std::string_view>{}(a);
  const uint64_t k = std::hash<std::string_view>{}(b);
  const uint64_t x = h ^ (k + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  return x == 0 ? 1 : x;
}
}  // namespace

uint64_t SameLines::key(std::string_view m) {
  while (!m.empty() && (m.back() == ' ' || m.back() == '\t')) m.remove_suffix(1);
  const size_t asc = parse::logs::find_sub(m, "[ascend]");
  if (asc != std::string_view::npos) {
    // the `[func line]` token: '[' identifier ' ' digits ']'
    for (size_t b = m.find('[', asc + 8); b != std::string_view::npos; b = m.find('[', b + 1)) {
      size_t i = b + 1;
      while (i < m.size() && (std::isalnum(static_cast<unsigned char>(m[i])) || m[i] == '_')) ++i;
      if (i == b + 1 || i >= m.size() || m[i] != ' ') continue;
      size_t j = i + 1;
      while (j < m.size() && std::isdigit(static_cast<unsigned char>(m[j]))) ++j;
      if (j == i + 1 || j >= m.size() || m[j] != ']') continue;
      std::string_view rest = m.substr(j + 1);
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      if (!rest.empty() && rest.front() == '<') {  // task field: <comm:pid:tid> or <comm:tgid,pid>
        const size_t gt = rest.find("> ");
        if (gt != std::string_view::npos) rest = rest.substr(gt + 2);
      }
      if (rest.size() < 8) return 0;
      return hash2(m.substr(b, j + 1 - b), rest.substr(0, kMaxKey));
    }
    return 0;
  }
  if (m.size() < 24) return 0;
  return hash2({}, m.substr(0, kMaxKey));
}

void SameLines::put(Map& m, uint64_t key, const RawTime& t) {
  const auto it = m.find(key);
  if (it != m.end()) {
    it->second.clock = Clock::none;
    return;
  }
  if (m.size() < kMaxLines) m.emplace(key, t);
}

void SameLines::add(const Event& e) {
  const RawTime& t = e.time;
  Map* m = nullptr;
  if (t.has_civil() && !unsynced(t) && (t.clock == Clock::utc || t.clock == Clock::epoch))
    m = &utc_;
  else if (t.has_civil() && t.clock == Clock::host_local)
    m = &local_;
  else if (!t.has_civil() && t.has_uptime() && t.clock == Clock::uptime)
    m = &uptime_;
  if (m == nullptr) return;
  // host-local lines that a UTC source can also hold: driver lines (host_kernel.log) and kernel
  // lines with their uptime; the bulk of host-local lines (plog, training stdout) is neither
  // ("[ascend]" follows the stamps, host name and uptime: at most ~100 bytes into the line;
  // looking further would scan every plog line whole)
  if (m == &local_ && !t.has_uptime() &&
      parse::logs::find_sub(e.text.substr(0, 160), "[ascend]") == std::string_view::npos)
    return;
  const uint64_t k = key(e.message);
  if (k != 0) put(*m, k, t);
}

void SameLines::merge(const SameLines& o) {
  for (const auto& [mine, theirs] :
       {std::pair<Map*, const Map*>{&utc_, &o.utc_}, {&local_, &o.local_}, {&uptime_, &o.uptime_}})
    for (const auto& [k, t] : *theirs) {
      if (t.clock == Clock::none) {
        (*mine)[k].clock = Clock::none;
        continue;
      }
      put(*mine, k, t);
    }
}

void SameLines::match(HostInputs& in) const {
  const auto wall = [&](const RawTime& t) -> int64_t {
    if (t.year != 0) return naive_ns(t);
    return in.reference_ns ? naive_ns(t, infer_year(t, *in.reference_ns)) : kNoTime;
  };
  // in key order: which pairs are kept at kMaxPairs must not depend on the hash table's layout
  std::vector<uint64_t> keys;
  keys.reserve(utc_.size());
  for (const auto& [k, u] : utc_)
    if (u.clock != Clock::none) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  for (const uint64_t k : keys) {
    const RawTime& u = utc_.at(k);
    const int64_t uw = wall(u);
    if (uw == kNoTime || uw < kSyncedFloor) continue;
    if (const auto l = local_.find(k); l != local_.end() && l->second.clock != Clock::none) {
      const int64_t lw = wall(l->second);
      if (lw != kNoTime && lw >= kSyncedFloor && in.utc_local_pairs.size() < kMaxPairs)
        in.utc_local_pairs.emplace_back(uw, lw);
    }
    if (const auto up = uptime_.find(k);
        up != uptime_.end() && up->second.clock != Clock::none && in.pairs.size() < kMaxPairs)
      in.pairs.push_back(Pair{Clock::utc, uw, up->second.uptime_ns});
  }
}

ClockModel fit(const HostInputs& in) {
  ClockModel m;
  m.reference_ns = in.reference_ns;

  std::vector<int64_t> local_boot, utc_boot, dev_boot, sys_boot, dev_epoch, sys_epoch, host_epoch;
  for (const Pair& p : in.pairs) {
    if (p.wall_naive_ns < kSyncedFloor) continue;
    const int64_t b = p.wall_naive_ns - p.uptime_ns;
    switch (p.clock) {
      case Clock::host_local:
        local_boot.push_back(b);
        break;
      case Clock::utc:
      case Clock::epoch:
        utc_boot.push_back(b);
        break;
      case Clock::device_local:
        dev_boot.push_back(b);
        break;
      case Clock::device_syslog:
        sys_boot.push_back(b);
        break;
      default:
        break;
    }
  }
  for (const EpochPair& p : in.epoch_pairs) {
    if (p.wall_naive_ns < kSyncedFloor) continue;
    const int64_t d = p.epoch_ns - p.wall_naive_ns;
    if (p.clock == Clock::device_local)
      dev_epoch.push_back(d);
    else if (p.clock == Clock::device_syslog)
      sys_epoch.push_back(d);
    else if (p.clock == Clock::host_local)
      host_epoch.push_back(d);
  }

  // Host zone: stated, else fitted from two views of the same boot (UTC vs local), else assumed.
  if (in.zone_offset_s) {
    m.host_local_offset_ns = -static_cast<int64_t>(*in.zone_offset_s) * kSec;
    m.host_local_quality = TimeQuality::local;
    m.host_local_method = "zone-stated";
  } else {
    std::optional<int64_t> off;
    if (!local_boot.empty() && !utc_boot.empty())
      off = median(utc_boot) - median(local_boot);
    else if (!local_boot.empty() && in.boot_time_ns)
      off = *in.boot_time_ns - median(local_boot);
    else if (!host_epoch.empty())
      off = median(host_epoch);
    else if (!in.utc_local_pairs.empty()) {
      // the same line in both clocks: the difference is the zone, a whole quarter hour (a line
      // stamped a few seconds late by rsyslog moves it little); anything else is not a zone
      std::vector<int64_t> d;
      d.reserve(in.utc_local_pairs.size());
      for (const auto& [u, l] : in.utc_local_pairs) d.push_back(u - l);
      const int64_t mid = median(d);
      const int64_t snapped = snap_zone_ns(mid);
      if (snapped % (900 * kSec) == 0 && snapped <= 14 * 3600 * kSec &&
          snapped >= -14 * 3600 * kSec)
        off = snapped;
    }
    if (off) {
      m.host_local_offset_ns = snap_zone_ns(*off);
      m.host_local_quality = TimeQuality::local;
      m.host_local_method = "fitted";
    }
  }

  // Host boot: btime, else `uptime -s` (local civil), else fitted from (wall, uptime) pairs.
  if (in.boot_time_ns) {
    m.boot_ns = in.boot_time_ns;
    m.boot_method = "btime";
  } else if (in.boot_local_naive_ns) {
    m.boot_ns = *in.boot_local_naive_ns + m.host_local_offset_ns;
    m.boot_method = "uptime-s";
  } else if (!utc_boot.empty()) {
    m.boot_ns = median(utc_boot);
    m.boot_method = "fitted";
  } else if (!local_boot.empty()) {
    m.boot_ns = median(local_boot) + m.host_local_offset_ns;
    m.boot_method = "fitted";
  }

  // Device clock: assumed UTC unless epoch payloads show otherwise.
  if (!dev_epoch.empty()) {
    m.device_local_offset_ns = snap_zone_ns(median(dev_epoch));
    m.device_local_method = "fitted";
  }
  if (!dev_boot.empty()) m.device_boot_ns = median(dev_boot) + m.device_local_offset_ns;

  // Device OS syslog: its zone may differ from the device slog clock (UTC+8 vs UTC, §10.2).
  if (m.device_boot_ns && !sys_boot.empty()) {
    m.device_syslog_offset_ns = snap_zone_ns(*m.device_boot_ns - median(sys_boot));
    m.device_syslog_method = "fitted";
  } else if (!sys_epoch.empty()) {
    m.device_syslog_offset_ns = snap_zone_ns(median(sys_epoch));
    m.device_syslog_method = "fitted";
  } else {
    m.device_syslog_offset_ns = m.device_local_offset_ns;
  }
  fit_zone_spans(in, m);
  if (m.zone_spans.empty() || m.boot_method != "uptime-s") return m;
  // `uptime -s` prints the boot in the zone at collection
  m.boot_ns = *in.boot_local_naive_ns + m.host_local_offset_ns;
  return m;
}

Resolved resolve(const ClockModel& m, const RawTime& t, bool rendered_now) {
  Resolved r;
  auto boot_relative = [&](const std::optional<int64_t>& boot) {
    if (t.has_uptime() && boot) {
      r.ns = *boot + t.uptime_ns;
      r.quality = TimeQuality::boot_relative;
    }
    return r;
  };
  // The year of a year-less time, or 0 when it cannot be inferred.
  auto year = [&]() -> int {
    if (t.year != 0) return t.year;
    return m.reference_ns ? infer_year(t, *m.reference_ns) : 0;
  };
  switch (t.clock) {
    case Clock::none:
      return r;
    case Clock::uptime:
      return boot_relative(m.boot_ns);
    case Clock::device_uptime:
      return boot_relative(m.device_boot_ns);
    case Clock::utc:
    case Clock::epoch: {
      if (!t.has_civil()) return boot_relative(m.boot_ns);
      const int y = year();
      if (y == 0) return r;
      r.ns = naive_ns(t, y);
      r.quality = t.year == 0 ? TimeQuality::year_inferred : TimeQuality::exact;
      return r;
    }
    case Clock::host_local: {
      if (!t.has_civil()) return boot_relative(m.boot_ns);
      const int y = year();
      if (y == 0) return r;
      if (m.zone_spans.empty()) {
        r.ns = naive_ns(t, y) + m.host_local_offset_ns;
        r.quality = t.year == 0 ? TimeQuality::year_inferred : m.host_local_quality;
        return r;
      }
      // the zone in force when it was written; a range of unknown zone: read as printed
      const int64_t naive = naive_ns(t, y);
      const LocalZone z = zone_at(m, naive, rendered_now);
      r.ns = naive + z.offset_ns.value_or(0);
      r.quality = !z.offset_ns  ? TimeQuality::assumed_utc
                  : t.year == 0 ? TimeQuality::year_inferred
                                : TimeQuality::local;
      return r;
    }
    case Clock::device_local: {
      if (!t.has_civil()) return boot_relative(m.device_boot_ns);
      if (unsynced(t)) {
        r.quality = TimeQuality::device_unsynced;
        if (m.device_boot_ns) {
          // a 1970 stamp counts from the moment the device clock started, i.e. about its boot
          r.ns = *m.device_boot_ns + (t.has_uptime() ? t.uptime_ns : naive_ns(t));
        }
        return r;
      }
      const int y = year();
      if (y == 0) return r;
      r.ns = naive_ns(t, y) + m.device_local_offset_ns;
      r.quality = t.year == 0 ? TimeQuality::year_inferred
                              : (m.device_local_method == "fitted" ? TimeQuality::local
                                                                   : TimeQuality::assumed_utc);
      return r;
    }
    case Clock::device_syslog: {
      if (!t.has_civil()) return boot_relative(m.device_boot_ns);
      if (unsynced(t)) {
        r.quality = TimeQuality::device_unsynced;
        if (m.device_boot_ns && t.has_uptime()) r.ns = *m.device_boot_ns + t.uptime_ns;
        return r;
      }
      const int y = year();
      if (y == 0) return r;
      r.ns = naive_ns(t, y) + m.device_syslog_offset_ns;
      r.quality = t.year == 0 ? TimeQuality::year_inferred
                              : (m.device_syslog_method == "fitted" ? TimeQuality::local
                                                                    : TimeQuality::assumed_utc);
      return r;
    }
  }
  return r;
}

}  // namespace faultline::clock
