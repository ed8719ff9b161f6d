// Placeholder: the clock model lands with the log parsers.
#include "faultline/parse/clock.hpp"

#include "faultline/core/time.hpp"

namespace faultline::clock {

int64_t naive_ns(const RawTime& t, int year_hint) {
  if (!t.has_civil()) return kNoTime;
  return civil_to_ns(t.year == 0 ? year_hint : t.year, t.month, t.day, t.hour, t.minute, t.second,
                     t.nanos);
}

ClockModel fit(const HostInputs& in) {
  ClockModel m;
  m.boot_ns = in.boot_time_ns;
  m.reference_ns = in.reference_ns;
  return m;
}

Resolved resolve(const ClockModel& m, const RawTime& t) {
  Resolved r;
  if (t.has_civil()) {
    r.ns = naive_ns(t) + m.host_local_offset_ns;
    r.quality = TimeQuality::assumed_utc;
  }
  return r;
}

}  // namespace faultline::clock
