// Clock: turns the times parsers saw (RawTime, in their own clocks) into UTC with a quality.
// Pure functions; the app gathers the inputs of one host from the store and applies the model.
// docs/clock.md explains every rule and log-formats.md section 10 the evidence for it.
//
// Typical use (one host):
//   HostInputs in;  in.reference_ns = ...;            // collection time, first (year-less lines)
//   for (each event e of the host) observe(in, e);    // (wall, uptime) pairs, epoch payloads
//   in.boot_time_ns / zone_offset_s / ... from facts; // when the bundle states them
//   ClockModel m = fit(in);
//   Resolved r = resolve(m, e.time);
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "faultline/core/types.hpp"

namespace faultline::clock {

// A printed civil time read as if it were UTC, or kNoTime. Year-less times use `year_hint`.
int64_t naive_ns(const RawTime& t, int year_hint = 2000);

// The year of a year-less time: the reference's year, or the one before when the time would
// otherwise lie more than 30 days after the reference (December lines read in January).
int infer_year(const RawTime& t, int64_t reference_ns);

// An epoch time carried in a message: `time=1746674705.163997783s` (tsdrv payloads) or
// `event_raised_time=1746671295066 ms` (DMS events). Only values between 2000 and 2100.
std::optional<int64_t> epoch_payload_ns(std::string_view message);

// A line that printed both a wall time and an uptime (syslog kernel lines, device sklogd/event
// lines): the basis for fitting a boot time or a zone offset.
struct Pair {
  Clock clock = Clock::none;  // clock of the wall time
  int64_t wall_naive_ns = 0;  // naive_ns of the wall time (year already resolved)
  int64_t uptime_ns = 0;
};

// A line that printed a wall time and an epoch payload of the same happening.
struct EpochPair {
  Clock clock = Clock::none;
  int64_t epoch_ns = 0;
  int64_t wall_naive_ns = 0;
};

// A change of the host's zone the bundle shows (docs/clock.md "Zones per time range"): a
// `systemd-timedated` line (`Changed time zone to 'Asia/Shanghai' (CST).`), a shell history
// entry with its `#<epoch>` stamp (`timedatectl set-timezone ...`, `ln -sf .../zoneinfo/...
// /etc/localtime`), the mtime of an `/etc/localtime` listing. When it happened: in UTC, or as a
// host-local wall time (printed in the new zone when `rendered_now` is false, in the zone at
// collection when true: journalctl, ls -l and history print stored instants in today's zone).
struct ZoneChange {
  int64_t at_utc_ns = kNoTime;
  int64_t at_local_naive_ns = kNoTime;
  bool rendered_now = false;
  std::optional<int32_t> to_offset_s;  // the new zone's offset, when the bundle names it
  std::string source;                  // what stated it (member:line)
};

// The zone in force from a moment on: spans are sorted by `from_utc_ns` (kNoTime: since ever).
struct ZoneSpan {
  int64_t from_utc_ns = kNoTime;
  std::optional<int64_t> offset_ns;  // add to a host-local time to get UTC; nullopt: not known
  std::string method;                // zone-stated | changed | fitted | unknown
  std::string source;
};

struct HostInputs {
  std::optional<int64_t> boot_time_ns;         // from /proc/stat btime (UTC epoch)
  std::optional<int64_t> boot_local_naive_ns;  // from `uptime -s` (host-local civil, read as UTC)
  std::optional<int32_t> zone_offset_s;  // host zone stated by the bundle (date +%z, timedatectl)
  std::optional<int64_t> reference_ns;   // a dated UTC time of the bundle (collection time, newest
                                         // fully dated line) used to give year-less lines a year
  std::vector<Pair> pairs;
  std::vector<EpochPair> epoch_pairs;
  // Events that carry a UTC time by construction (host_kernel.log, epoch payloads) matched with
  // the host-local time of the same happening, when known: (utc_ns, local_naive_ns).
  std::vector<std::pair<int64_t, int64_t>> utc_local_pairs;
  std::vector<ZoneChange> zone_changes;  // changes of the host zone the bundle shows
};

// Records what one parsed event offers the fit: a (wall, uptime) pair when the line printed both,
// an epoch pair when the message carries an epoch payload. Set in.reference_ns first: year-less
// wall times (syslog) take their year from it and are skipped without it. 1970 stamps (device
// clock not yet set) are never used. Bounded: at most 200000 pairs of each sort are kept.
void observe(HostInputs& in, const Event& e);

// The same kernel line printed in two clocks: host_kernel.log (UTC by construction, §4.3) and the
// host's syslog / journal / dmesg -T (host-local) or plain dmesg (uptime only). A message that
// occurs once in a UTC source and once in a host-local one fixes the host zone; once in a UTC
// source and once with an uptime only, the boot in UTC. Messages seen twice in one clock are not
// used (the pairing would be a guess). Bounded: at most kMaxLines messages per clock.
class SameLines {
 public:
  static constexpr size_t kMaxLines = 20000;
  static constexpr size_t kMaxKey = 256;  // bytes of a message kept in its key
  // The key of a message: for driver lines (`[ascend] ...`) the `[func line]` token and the text
  // after the task field, which the ring-buffer copy and printk print alike; else the message.
  // Kept as a 64-bit hash of those bytes (no copy of the text; a collision of two messages in
  // 20000 has odds of ~1e-11). 0 for messages too short to tell apart.
  static uint64_t key(std::string_view message);
  void add(const Event& e);
  void merge(const SameLines& o);
  // Adds the matches to `in` (after in.reference_ns is set: year-less times need it):
  // UTC + host-local -> utc_local_pairs, UTC + uptime-only -> pairs (clock utc).
  void match(HostInputs& in) const;

 private:
  using Map = std::unordered_map<uint64_t, RawTime>;  // clock none = seen more than once
  static void put(Map& m, uint64_t key, const RawTime& t);
  Map utc_, local_, uptime_;
};

struct ClockModel {
  // offset to add to a naive host-local time to get UTC (= -zone offset)
  int64_t host_local_offset_ns = 0;
  TimeQuality host_local_quality = TimeQuality::assumed_utc;
  std::string host_local_method = "assumed";  // zone-stated | fitted | assumed
  std::optional<int64_t> boot_ns;             // host boot time, UTC
  std::string boot_method;                    // btime | uptime-s | fitted
  int64_t device_local_offset_ns = 0;
  std::string device_local_method = "assumed";  // fitted | assumed (UTC)
  int64_t device_syslog_offset_ns = 0;
  std::string device_syslog_method = "assumed";  // fitted | assumed (same as device_local)
  std::optional<int64_t> device_boot_ns;         // device boot time, UTC (fitted)
  std::optional<int64_t> reference_ns;
  // The host zone per time range, when it changed within the bundle (a stated change, or
  // same-line pairs whose difference moves from one quarter hour to another); empty when one zone
  // holds for every time (host_local_offset_ns). host_local_offset_ns is the zone at collection.
  std::vector<ZoneSpan> zone_spans;
};

ClockModel fit(const HostInputs& in);

// The zone spans of a host (zones.cpp), called by fit once the current zone is known.
void fit_zone_spans(const HostInputs& in, ClockModel& m);

// The zone in force when a host-local time was written: its span's offset (nullopt when that
// span's zone is not known, or the time lies where two spans overlap: the clock was set back)
// and the span's index (0 without spans). `rendered_now`: the time was printed at collection
// (journalctl, dmesg -T, who, last, uptime -s), in the zone of the collection.
struct LocalZone {
  std::optional<int64_t> offset_ns;
  int span = 0;
};
LocalZone zone_at(const ClockModel& m, int64_t local_naive_ns, bool rendered_now = false);

struct Resolved {
  int64_t ns = kNoTime;
  TimeQuality quality = TimeQuality::unknown;
};

// UTC time of one event of the host. Year-less times (year == 0) take their year from the
// model's reference time (with the December-to-January rollover), quality year_inferred.
// `rendered_now`: see zone_at. A host-local time in a span of unknown zone resolves with the
// zone at collection (or UTC) and quality assumed_utc: an order against it is not pinned.
Resolved resolve(const ClockModel& m, const RawTime& t, bool rendered_now = false);

// An offset within `tolerance_s` of a multiple of 900 s is a zone difference: snapped to it.
int64_t snap_zone_ns(int64_t offset_ns, int64_t tolerance_s = 120);

}  // namespace faultline::clock
