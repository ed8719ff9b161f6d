// Clock: turns the times parsers saw (RawTime, in their own clocks) into UTC with a quality.
// Pure functions; the app gathers the inputs of one host from the store and applies the model.
// docs/clock.md explains every rule and log-formats.md section 10 the evidence for it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "faultline/core/types.hpp"

namespace faultline::clock {

// A printed civil time read as if it were UTC, or kNoTime. Year-less times use `year_hint`.
int64_t naive_ns(const RawTime& t, int year_hint = 2000);

// A line that printed both a wall time and an uptime (syslog kernel lines, device sklogd/event
// lines): the basis for fitting a boot time or a zone offset.
struct Pair {
  Clock clock = Clock::none;  // clock of the wall time
  int64_t wall_naive_ns = 0;  // naive_ns of the wall time (year already resolved)
  int64_t uptime_ns = 0;
};

struct HostInputs {
  std::optional<int64_t> boot_time_ns;   // from /proc/stat btime (UTC epoch)
  std::optional<int64_t> boot_local_naive_ns;  // from `uptime -s` (host-local civil, read as UTC)
  std::optional<int32_t> zone_offset_s;  // host zone stated by the bundle (date +%z, timedatectl)
  std::optional<int64_t> reference_ns;   // a dated UTC time of the bundle (collection time, newest
                                         // fully dated line) used to give year-less lines a year
  std::vector<Pair> pairs;
  // Events that carry a UTC time by construction (host_kernel.log, epoch payloads) matched with
  // the host-local time of the same happening, when known: (utc_ns, local_naive_ns).
  std::vector<std::pair<int64_t, int64_t>> utc_local_pairs;
};

struct ClockModel {
  // offset to add to a naive host-local time to get UTC (= -zone offset)
  int64_t host_local_offset_ns = 0;
  TimeQuality host_local_quality = TimeQuality::assumed_utc;
  std::string host_local_method = "assumed";  // zone-stated | fitted | assumed
  std::optional<int64_t> boot_ns;             // host boot time, UTC
  std::string boot_method;                    // btime | uptime-s | fitted
  int64_t device_local_offset_ns = 0;
  std::string device_local_method = "assumed";
  int64_t device_syslog_offset_ns = 0;
  std::string device_syslog_method = "assumed";
  std::optional<int64_t> device_boot_ns;
  std::optional<int64_t> reference_ns;
};

ClockModel fit(const HostInputs& in);

struct Resolved {
  int64_t ns = kNoTime;
  TimeQuality quality = TimeQuality::unknown;
};

// UTC time of one event of the host. `raw_has_year` false means the year must be inferred from
// the model's reference time (with the December-to-January rollover).
Resolved resolve(const ClockModel& m, const RawTime& t);

}  // namespace faultline::clock
