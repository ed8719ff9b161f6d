// Timeline export as JSON Lines (docs/timeline-export.md): one object per event and line, in the
// field names Timesketch imports (message, datetime, timestamp, timestamp_desc) plus ours.
#include <nlohmann/json.hpp>

#include "render.hpp"

namespace faultline::report::detail {

std::string render_jsonl(const std::vector<ExportEvent>& events, size_t* untimed) {
  using J = nlohmann::ordered_json;
  std::string out;
  size_t skipped = 0;
  for (const auto& e : events) {
    if (!e.timestamp_us) {  // Timesketch needs a datetime: csv and json keep these
      ++skipped;
      continue;
    }
    J x;
    x["datetime"] = e.datetime;
    x["timestamp"] = *e.timestamp_us;
    x["timestamp_desc"] = e.timestamp_desc;
    x["message"] = e.message;
    x["host"] = e.host;
    x["file"] = e.file;
    x["line"] = e.line;
    x["signature"] = e.signature.empty() ? J(nullptr) : J(e.signature);
    x["finding"] = e.finding.empty() ? J(nullptr) : J(e.finding);
    x["role"] = e.role;
    x["time_quality"] = e.time_quality;
    x["kind"] = e.kind;
    x["bundle"] = e.bundle;
    x["ord"] = e.ord;
    x["level"] = e.level.empty() ? J(nullptr) : J(e.level);
    // the text is terminal_safe (valid UTF-8, no control character): "replace" never fires
    out += x.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
  }
  if (untimed) *untimed = skipped;
  return out;
}

}  // namespace faultline::report::detail
