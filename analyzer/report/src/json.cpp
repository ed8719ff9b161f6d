// JSON report, exactly the ARCHITECTURE.md contract (schema_version 1); fields are only added.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "render.hpp"
#include "shared.hpp"

namespace faultline::report::detail {
namespace {

using J = nlohmann::ordered_json;

J opt_str(const std::string& s) {
  return s.empty() ? J(nullptr) : J(s);
}
// UTC with "Z"; a host-local time of unknown zone without any offset (docs/report.md "Times")
J opt_time(const std::optional<int64_t>& t, const std::string& quality) {
  return t ? J(iso_time_q(*t, quality)) : J(nullptr);
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
  j["rules_digest"] = opt_str(r.rules_digest);  // added: sha256 of the rules the analysis used
  j["bundle"] = bundle_json(r);
  j["verdict"] = verdict(r);            // added
  j["summary"] = render_summary_md(r);  // added (issue 35): the ticket view, markdown
  if (r.kb)                             // added: the knowledge-base pack used (absent: none)
    j["knowledge_base"] = J{{"name", r.kb->name},   {"file", r.kb->file},
                            {"how", r.kb->how},     {"sha256", opt_str(r.kb->sha256)},
                            {"codes", r.kb->codes}, {"skipped", r.kb->skipped}};
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
      ev["time"] = opt_time(e.time_ns, e.shown_quality());
      ev["text"] = e.text;
      ev["signature"] = opt_str(e.signature);
      ev["fact"] = opt_str(e.fact);                                         // added
      if (e.time_ns && !e.quality.empty()) ev["time_quality"] = e.quality;  // added
      x["evidence"].push_back(std::move(ev));
    }
    x["remediation"] = f.remediation;
    x["missing"] = f.missing;  // added
    if (f.fault) {             // added: kind "fault" only (docs/faults.md)
      const FaultR& d = *f.fault;
      x["fault"] = J{{"signature", d.signature},
                     {"class", d.cls},
                     {"component", d.component},
                     {"role", d.role},
                     {"code", opt_str(d.code)},
                     {"cause", d.cause},
                     {"suggestion", d.suggestion},
                     {"count", d.count},
                     {"first_time", opt_time(f.first_time_ns, f.first_quality)},
                     {"causes", d.causes},
                     {"caused_by", d.caused_by},
                     {"diagnosed_by", d.diagnosed_by}};
      // the code table that named the code and the code's name (docs/codes.md), when one did
      if (!d.table.empty()) x["fault"]["table"] = d.table;
      if (!d.name.empty()) x["fault"]["name"] = d.name;
      // knowledge-base additions (docs/faults.md), only when a KB pack is involved
      if (!d.pack.empty()) x["fault"]["pack"] = d.pack;
      if (!d.native.empty()) x["fault"]["native"] = d.native;
      if (!d.kb.empty()) {
        J kb = J::array();
        for (const auto& k : d.kb)
          kb.push_back(J{{"pack", k.pack},
                         {"code", k.code},
                         {"signature", k.signature},
                         {"title", k.title},
                         {"cause", k.cause},
                         {"suggestion", k.suggestion},
                         {"count", k.count}});
        x["fault"]["kb"] = std::move(kb);
      }
    }
    j["findings"].push_back(std::move(x));
  }
  j["timeline"] = J::array();
  for (const auto& t : r.timeline) {
    J x;
    x["time"] = opt_time(t.time_ns, t.shown_quality());
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
                                  {"time", opt_time(u.time_ns, u.quality)}});
  if (!r.unknown.empty()) {  // added (docs/faults.md): absent when every error line is known
    J u = J::array();
    for (const auto& t : r.unknown) {
      J ex = J::array();
      for (const auto& e : t.examples)
        ex.push_back(J{{"file", e.file}, {"line", e.line}, {"host", e.host}, {"text", e.text}});
      u.push_back(J{{"id", t.id},
                    {"template", t.text},
                    {"kind", t.kind},
                    {"count", t.count},
                    {"hosts", t.hosts},
                    {"first_time", opt_time(t.first_ns, t.first_quality)},
                    {"last_time", opt_time(t.last_ns, t.last_quality)},
                    {"examples", std::move(ex)}});
    }
    j["unrecognised_errors"] = std::move(u);
  }
  if (!r.suppress_file.empty() || r.min_severity_rank) {  // docs/suppress.md
    static const char* names[] = {"debug", "info", "notice", "warning", "error", "critical"};
    J e = J::array();
    for (const auto& x : r.suppressed)
      e.push_back(J{{"reason", x.reason},
                    {"action", x.demote ? "demote" : "drop"},
                    {"line", x.line},
                    {"findings", x.findings},
                    {"lines", x.lines},
                    {"demoted", x.demoted}});
    j["suppressed"] =
        J{{"file", r.suppress_file.empty() ? J(nullptr) : J(r.suppress_file)},
          {"min_severity",
           r.min_severity_rank ? J(names[std::clamp(*r.min_severity_rank, 0, 5)]) : J(nullptr)},
          {"total", suppressed_total(r)},
          {"below_min_severity",
           J{{"evidence_lines", r.below_min_lines}, {"fault_events", r.below_min_faults}}},
          {"entries", std::move(e)}};
  }
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
