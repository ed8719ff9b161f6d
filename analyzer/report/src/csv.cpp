// Timeline export as CSV (docs/timeline-export.md): RFC 4180 (header row, CRLF records, fields
// with , " CR LF quoted, quotes doubled), the same columns as the jsonl export, every event.
#include "render.hpp"

namespace faultline::report::detail {

std::string csv_cell(std::string_view s, bool text) {
  std::string v(s);
  // OWASP CSV injection: a spreadsheet runs a cell starting with one of these as a formula
  if (text && !v.empty() &&
      (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@' || v[0] == '\t' || v[0] == '\r'))
    v.insert(0, 1, '\'');
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) {
    if (c == '"') q.push_back('"');
    q.push_back(c);
  }
  q.push_back('"');
  return q;
}

std::string render_csv(const std::vector<ExportEvent>& events) {
  std::string out;
  const auto& cols = export_columns();
  for (size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + cols[i];
  out += "\r\n";
  for (const auto& e : events) {
    const std::string ts = e.timestamp_us ? std::to_string(*e.timestamp_us) : std::string();
    const std::string cells[] = {csv_cell(e.datetime),
                                 csv_cell(ts, false),
                                 csv_cell(e.timestamp_desc),
                                 csv_cell(e.message),
                                 csv_cell(e.host),
                                 csv_cell(e.file),
                                 csv_cell(std::to_string(e.line), false),
                                 csv_cell(e.signature),
                                 csv_cell(e.finding),
                                 csv_cell(e.role),
                                 csv_cell(e.time_quality),
                                 csv_cell(e.kind),
                                 csv_cell(e.bundle),
                                 csv_cell(std::to_string(e.ord), false),
                                 csv_cell(e.level)};
    bool first = true;
    for (const auto& c : cells) {
      if (!first) out += ',';
      out += c;
      first = false;
    }
    out += "\r\n";
  }
  return out;
}

}  // namespace faultline::report::detail
