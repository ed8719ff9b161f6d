// JSON report, exactly the ARCHITECTURE.md contract (schema_version 1); fields are only added.
#include <nlohmann/json.hpp>

#include "render.hpp"

namespace faultline::report::detail {
namespace {

using J = nlohmann::ordered_json;

J opt_str(const std::string& s) {
  return s.empty() ? J(nullptr) : J(s);
}
J opt_time(const std::optional<int64_t>& t) {
  return t ? J(fmt_time(t)) : J(nullptr);
}

}  // namespace

J bundle_json(const Report& r) {
  J b;
  b["path"] = r.path;
  b["sha256"] = r.sha256;
  b["hosts"] = r.hosts;
  b["files"] = r.files;
  b["bytes"] = r.bytes;
  b["name"] = r.name;      // added
  b["status"] = r.status;  // added
  return b;
}

std::string render_json(const Report& r) {
  J j;
  j["schema_version"] = 1;
  j["faultline_version"] = kFaultlineVersion();
  j["bundle"] = bundle_json(r);
  j["verdict"] = verdict(r);  // added
  j["findings"] = J::array();
  for (const auto& f : r.findings) {
    J x;
    x["id"] = f.id;
    x["kind"] = f.kind;
    x["severity"] = f.severity;
    x["confidence"] = std::stod(fmt_conf(f.confidence));
    x["host"] = f.host;
    x["title"] = f.title;
    x["summary"] = f.summary;
    x["explains"] = f.explains;
    x["explained_by"] = opt_str(f.explained_by);  // added
    x["rank"] = f.rank;                           // added
    x["evidence"] = J::array();
    for (const auto& e : f.evidence) {
      J ev;
      ev["file"] = e.file;
      ev["line"] = e.line;
      ev["time"] = opt_time(e.time_ns);
      ev["text"] = e.text;
      ev["signature"] = opt_str(e.signature);
      ev["fact"] = opt_str(e.fact);  // added
      x["evidence"].push_back(std::move(ev));
    }
    x["remediation"] = f.remediation;
    x["missing"] = f.missing;  // added
    j["findings"].push_back(std::move(x));
  }
  j["timeline"] = J::array();
  for (const auto& t : r.timeline) {
    J x;
    x["time"] = opt_time(t.time_ns);
    x["time_quality"] = t.quality;
    x["host"] = t.host;
    x["file"] = t.file;
    x["line"] = t.line;
    x["text"] = t.text;
    x["signature"] = opt_str(t.signature);
    x["finding"] = opt_str(t.finding);
    x["role"] = t.role;
    x["kind"] = t.kind;  // added: member kind (the lane of the html timeline)
    j["timeline"].push_back(std::move(x));
  }
  j["facts"] = J::array();
  for (const auto& f : r.facts)
    j["facts"].push_back(J{{"host", f.host},
                           {"name", f.name},
                           {"value", f.value},
                           {"file", f.file},
                           {"line", f.line}});
  j["warnings"] = J::array();
  for (const auto& w : r.warnings)
    j["warnings"].push_back(J{{"file", w.file}, {"message", w.message}});
  j["unclassified"] = J::array();  // added: error-level signature hits no finding cites
  for (const auto& u : r.unclassified)
    j["unclassified"].push_back(J{{"signature", u.signature},
                                  {"count", u.count},
                                  {"host", u.host},
                                  {"file", u.file},
                                  {"line", u.line},
                                  {"time", opt_time(u.time_ns)}});
  j["issues"] = J::array();  // added: truncated / cut / misunderstood members
  for (const auto& i : r.issues)
    j["issues"].push_back(J{{"file", i.path},
                            {"kind", i.kind},
                            {"truncated", i.truncated},
                            {"long_lines", i.long_lines},
                            {"malformed_lines", i.malformed_lines}});
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace faultline::report::detail
