#include "faultline/core/types.hpp"

#include "faultline/core/text.hpp"

namespace faultline {

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::debug:
      return "debug";
    case Severity::info:
      return "info";
    case Severity::notice:
      return "notice";
    case Severity::warning:
      return "warning";
    case Severity::error:
      return "error";
    case Severity::critical:
      return "critical";
  }
  return "info";
}

std::optional<Severity> severity_from(std::string_view s) {
  const std::string l = text::to_lower(text::trim(s));
  if (l == "debug" || l == "trace" || l == "null") return Severity::debug;
  if (l == "info" || l == "event" || l == "information") return Severity::info;
  if (l == "notice") return Severity::notice;
  if (l == "warn" || l == "warning" || l == "w") return Severity::warning;
  if (l == "error" || l == "err" || l == "e") return Severity::error;
  if (l == "crit" || l == "critical" || l == "fatal" || l == "alert" || l == "emerg" ||
      l == "panic")
    return Severity::critical;
  return std::nullopt;
}

std::string_view to_string(TimeQuality q) {
  switch (q) {
    case TimeQuality::exact:
      return "exact";
    case TimeQuality::local:
      return "local";
    case TimeQuality::assumed_utc:
      return "assumed_utc";
    case TimeQuality::boot_relative:
      return "boot_relative";
    case TimeQuality::year_inferred:
      return "year_inferred";
    case TimeQuality::device_unsynced:
      return "device_unsynced";
    case TimeQuality::unknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view to_string(Clock c) {
  switch (c) {
    case Clock::none:
      return "none";
    case Clock::host_local:
      return "host_local";
    case Clock::utc:
      return "utc";
    case Clock::device_local:
      return "device_local";
    case Clock::device_syslog:
      return "device_syslog";
    case Clock::uptime:
      return "uptime";
    case Clock::device_uptime:
      return "device_uptime";
    case Clock::epoch:
      return "epoch";
  }
  return "none";
}

OwnedEvent::OwnedEvent(const Event& e)
    : line(e.line),
      line_count(e.line_count),
      offset(e.offset),
      severity(e.severity),
      keep(e.keep),
      derived(e.derived),
      time(e.time),
      module(e.module),
      pid(e.pid),
      tid(e.tid),
      device(e.device),
      rank(e.rank),
      process(e.process),
      message(e.message),
      text(e.text) {}

Event OwnedEvent::view() const {
  Event e;
  e.line = line;
  e.line_count = line_count;
  e.offset = offset;
  e.severity = severity;
  e.keep = keep;
  e.derived = derived;
  e.time = time;
  e.module = module;
  e.pid = pid;
  e.tid = tid;
  e.device = device;
  e.rank = rank;
  e.process = process;
  e.message = message;
  e.text = text;
  return e;
}

}  // namespace faultline
