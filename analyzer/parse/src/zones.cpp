// The host zone per time range (docs/clock.md "Zones per time range"): a host's zone may change
// within what a bundle covers. Each host-local time is read in the zone in force when it was
// written; a time in a range whose zone the bundle does not show is not pinned.
#include <algorithm>
#include <cmath>

#include "faultline/core/time.hpp"
#include "faultline/parse/clock.hpp"

namespace faultline::clock {

namespace {
constexpr int64_t kSec = 1'000'000'000;
constexpr int64_t kQuarter = 900 * kSec;
constexpr int64_t kMaxZone = 14 * 3600 * kSec;

// the difference of one same-line pair as a zone (a whole quarter hour within 120 s), or nullopt
std::optional<int64_t> as_zone(int64_t d) {
  const int64_t s = snap_zone_ns(d);
  if (s % kQuarter != 0 || s > kMaxZone || s < -kMaxZone) return std::nullopt;
  return s;
}

struct Change {
  int64_t at = kNoTime;            // UTC
  std::optional<int64_t> offset;   // the zone from then on (add to local to get UTC)
  int64_t unknown_from = kNoTime;  // inferred changes: the zone is unknown from here until `at`
  std::string method, source;
};

// Runs of same-line pairs whose difference stays one zone; a change between two runs (of two
// pairs at least: one pair alone may be two happenings) is a zone change somewhere in between.
std::vector<Change> inferred_changes(const HostInputs& in) {
  std::vector<std::pair<int64_t, int64_t>> z;  // (utc, zone offset)
  for (const auto& [u, l] : in.utc_local_pairs)
    if (auto o = as_zone(u - l)) z.emplace_back(u, *o);
  std::sort(z.begin(), z.end());
  struct Run {
    int64_t first, last, off;
    size_t n;
  };
  std::vector<Run> runs;
  for (const auto& [u, o] : z) {
    if (!runs.empty() && runs.back().off == o) {
      runs.back().last = u;
      ++runs.back().n;
    } else {
      runs.push_back(Run{u, u, o, 1});
    }
  }
  std::vector<Run> kept;
  for (const Run& r : runs) {
    if (r.n < 2) continue;
    if (!kept.empty() && kept.back().off == r.off) {
      kept.back().last = r.last;
      kept.back().n += r.n;
    } else {
      kept.push_back(r);
    }
  }
  std::vector<Change> out;
  for (size_t i = 1; i < kept.size(); ++i)
    out.push_back(Change{kept[i].first, kept[i].off, kept[i - 1].last + 1, "fitted",
                         "same lines in UTC and host-local clocks"});
  return out;
}

// the zone of same-line pairs within [from, to) (UTC), as their median difference
std::optional<int64_t> fitted_in(const HostInputs& in, int64_t from, int64_t to) {
  std::vector<int64_t> d;
  for (const auto& [u, l] : in.utc_local_pairs)
    if ((from == kNoTime || u >= from) && (to == kNoTime || u < to)) d.push_back(u - l);
  if (d.empty()) return std::nullopt;
  const size_t mid = d.size() / 2;
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(mid), d.end());
  return as_zone(d[mid]);
}
}  // namespace

void fit_zone_spans(const HostInputs& in, ClockModel& m) {
  m.zone_spans.clear();
  const std::optional<int64_t> stated =
      in.zone_offset_s ? std::optional<int64_t>(-static_cast<int64_t>(*in.zone_offset_s) * kSec)
                       : std::nullopt;
  std::vector<Change> changes;
  for (const ZoneChange& c : in.zone_changes) {
    const std::optional<int64_t> to =
        c.to_offset_s ? std::optional<int64_t>(-static_cast<int64_t>(*c.to_offset_s) * kSec)
                      : std::nullopt;
    int64_t at = c.at_utc_ns;
    if (at == kNoTime && c.at_local_naive_ns != kNoTime) {
      // printed at collection: today's zone; written when it happened: the new zone (the
      // program that logs the change does so once it is in force)
      const std::optional<int64_t> off = c.rendered_now ? stated : to;
      if (!off) continue;
      at = c.at_local_naive_ns + *off;
    }
    if (at == kNoTime) continue;
    changes.push_back(Change{at, to, kNoTime, "changed", c.source});
  }
  // inferred changes a stated one explains are dropped (the stated one is the more precise)
  for (Change& c : inferred_changes(in)) {
    const bool explained = std::any_of(changes.begin(), changes.end(), [&](const Change& s) {
      return s.unknown_from == kNoTime && s.at >= c.unknown_from - 120 * kSec &&
             s.at <= c.at + 120 * kSec;
    });
    if (!explained) changes.push_back(std::move(c));
  }
  if (changes.empty()) return;
  std::sort(changes.begin(), changes.end(),
            [](const Change& a, const Change& b) { return a.at < b.at; });
  std::vector<ZoneSpan> spans;
  spans.push_back(ZoneSpan{kNoTime, std::nullopt, "unknown", ""});
  for (const Change& c : changes) {
    if (c.unknown_from != kNoTime)
      spans.push_back(ZoneSpan{c.unknown_from, std::nullopt, "unknown", c.source});
    spans.push_back(ZoneSpan{c.at, c.offset, c.offset ? c.method : "unknown", c.source});
  }
  // spans of unknown zone: fitted from the same lines within them
  for (size_t i = 0; i < spans.size(); ++i) {
    if (spans[i].offset_ns) continue;
    const bool window = i > 0 && i + 1 < spans.size() && spans[i].source == spans[i + 1].source &&
                        spans[i + 1].method == "fitted";
    if (window) continue;  // between two runs of pairs: no pair says which zone it was
    const int64_t to = i + 1 < spans.size() ? spans[i + 1].from_utc_ns : kNoTime;
    if (auto f = fitted_in(in, spans[i].from_utc_ns, to)) {
      spans[i].offset_ns = f;
      spans[i].method = "fitted";
    }  // else left unknown: a change to the zone at collection says nothing of the one before
  }
  // the zone at collection: stated (date, timedatectl) wins for the last span
  if (stated) {
    spans.back().offset_ns = stated;
    spans.back().method = "zone-stated";
  }
  m.zone_spans = std::move(spans);
  const ZoneSpan& now = m.zone_spans.back();
  if (now.offset_ns) {
    m.host_local_offset_ns = *now.offset_ns;
    m.host_local_quality = TimeQuality::local;
    if (!stated) m.host_local_method = now.method;
  }
}

LocalZone zone_at(const ClockModel& m, int64_t naive, bool rendered_now) {
  LocalZone z;
  const bool pinned_now = m.host_local_method != "assumed";
  if (m.zone_spans.empty() || rendered_now) {
    if (pinned_now) z.offset_ns = m.host_local_offset_ns;
    z.span = m.zone_spans.empty() ? 0 : static_cast<int>(m.zone_spans.size()) - 1;
    return z;
  }
  const auto& s = m.zone_spans;
  const size_t n = s.size();
  auto contains = [&](size_t i, int64_t u) {
    return (s[i].from_utc_ns == kNoTime || u >= s[i].from_utc_ns) &&
           (i + 1 == n || u < s[i + 1].from_utc_ns);
  };
  int matches = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!s[i].offset_ns || !contains(i, naive + *s[i].offset_ns)) continue;
    ++matches;
    z.offset_ns = s[i].offset_ns;
    z.span = static_cast<int>(i);
  }
  if (matches == 1) return z;
  z.offset_ns.reset();  // no span of known zone holds it, or two do (the clock was set back)
  if (matches == 0) {
    // the span of unknown zone it lies in, placed with the zone at collection (or UTC)
    const int64_t u = naive + (pinned_now ? m.host_local_offset_ns : 0);
    z.span = static_cast<int>(n) - 1;
    for (size_t i = 0; i < n; ++i)
      if (contains(i, u)) z.span = static_cast<int>(i);
  }
  return z;
}

}  // namespace faultline::clock
