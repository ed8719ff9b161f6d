// Core vocabulary shared by every pipeline stage: severities, clocks, events, facts, warnings.
// Nothing here does I/O; every stage library depends on this one only (plus its predecessors).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace faultline {

inline constexpr std::string_view kVersion = "0.1.0";

enum class Severity : uint8_t {
  debug = 0,
  info = 1,
  notice = 2,
  warning = 3,
  error = 4,
  critical = 5
};

std::string_view to_string(Severity s);
// Accepts the spellings found in logs: DEBUG, INFO, NOTICE, WARN, WARNING, ERROR, ERR, CRIT,
// CRITICAL, FATAL, EVENT (-> info), alert/emerg; case-insensitive.
std::optional<Severity> severity_from(std::string_view s);

// How a stored time was obtained. Every assumption made while converting a printed time to UTC is
// visible through this value (docs/clock.md).
enum class TimeQuality : uint8_t {
  exact = 0,            // UTC by construction (host_kernel.log, epoch payloads) or zone stated
  local = 1,            // host-local wall clock converted with the zone the bundle states
  assumed_utc = 2,      // host-local wall clock, bundle states no zone: taken as UTC
  boot_relative = 3,    // seconds since boot converted through the host's boot time
  year_inferred = 4,    // printed without a year (syslog, journal short); year taken from context
  device_unsynced = 5,  // device clock not yet set (1970 stamps); ordered by sequence/uptime only
  unknown = 6           // no usable time
};
std::string_view to_string(TimeQuality q);

// Which clock a printed time belongs to, as the parser saw it. The clock stage turns these into
// UTC.
enum class Clock : uint8_t {
  none = 0,
  host_local = 1,     // host local wall clock (plog, install log, syslog, journal, stdout)
  utc = 2,            // UTC wall clock (host_kernel.log)
  device_local = 3,   // device wall clock (device slog / firmware / event logs; usually UTC)
  device_syslog = 4,  // device OS syslog `messages` (zone of the device OS, e.g. UTC+8)
  uptime = 5,         // seconds since host boot only (dmesg)
  device_uptime = 6,  // seconds since device boot only
  epoch = 7           // seconds since the Unix epoch (UTC)
};
std::string_view to_string(Clock c);

inline constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

// A time exactly as printed, before any zone/boot conversion.
struct RawTime {
  Clock clock = Clock::none;
  // Civil fields as printed; year == 0 means the format has no year (syslog, journal short).
  int32_t year = 0;
  int32_t month = 0, day = 0, hour = 0, minute = 0, second = 0;
  int64_t nanos = 0;
  // Uptime carried on the same line (dmesg, syslog kernel lines, device sklogd/event lines), or -1.
  int64_t uptime_ns = -1;
  [[nodiscard]] bool has_civil() const { return month != 0; }
  [[nodiscard]] bool has_uptime() const { return uptime_ns >= 0; }
};

// One event (a line, or a multi-line block such as a CANN error block or a Python traceback).
// String fields are views valid only during the Sink callback that receives the event.
struct Event {
  uint32_t line = 0;        // 1-based line number of the first line in the member
  uint32_t line_count = 1;  // number of lines covered
  uint64_t offset = 0;      // byte offset of the first line in the member
  Severity severity = Severity::info;
  bool keep = false;  // parser asks for the row even below WARNING (a rule needs it)
  // `text` is a record the parser derived from several lines (a pairing only the whole file
  // shows, docs/events.md), not a line of the file: the signatures are matched against it.
  bool derived = false;
  RawTime time;
  std::string_view module;  // RUNTIME, HCCL, devmm, kernel, Driver, ...
  int64_t pid = -1;
  int64_t tid = -1;
  int32_t device = -1;
  int32_t rank = -1;
  std::string_view process;  // process name where printed
  std::string_view message;  // payload after the header
  std::string_view text;     // full text as in the file (block lines joined with '\n')
};

// An owning copy of Event, for tests and for code that keeps events beyond the callback.
struct OwnedEvent {
  uint32_t line = 0, line_count = 1;
  uint64_t offset = 0;
  Severity severity = Severity::info;
  bool keep = false;
  bool derived = false;
  RawTime time;
  std::string module;
  int64_t pid = -1, tid = -1;
  int32_t device = -1, rank = -1;
  std::string process, message, text;
  OwnedEvent() = default;
  explicit OwnedEvent(const Event& e);
  [[nodiscard]] Event view() const;
};

// A named fact with its evidence (docs/facts.md lists the names).
struct Fact {
  std::string name;  // dotted, stable: driver.version.loaded, env.ASCEND_HOME_PATH, ...
  std::string value;
  uint32_t line = 0;  // line in the member that stated it (0 = whole member / derived)
};

// Something skipped, truncated or suspicious, always tied to a member path.
struct Warning {
  std::string member;  // path inside the bundle ("" for the bundle itself)
  std::string message;
};

}  // namespace faultline
