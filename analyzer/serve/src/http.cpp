// The server's HTTP plumbing (http.hpp).
#include "http.hpp"

#include "pages.hpp"
#include "util.hpp"

namespace faultline::serve::detail {

using json = nlohmann::json;

namespace {

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool is_api(const httplib::Request& req) {
  return req.path.rfind("/api/", 0) == 0;
}

json iso_or_null(int64_t t) {
  const auto s = iso_utc(t);
  return s.empty() ? json(nullptr) : json(s);
}

}  // namespace

void send_json(httplib::Response& res, int status, const json& j) {
  res.status = status;
  res.set_content(dump(j), kJsonType);
}

void send_error(const httplib::Request& req, httplib::Response& res, int status,
                const std::string& message, const std::string& token) {
  res.status = status;
  if (is_api(req))
    res.set_content(dump(json{{"error", message}}), kJsonType);
  else
    res.set_content(error_page(status, message, token), kHtmlType);
}

std::string presented_token(const httplib::Request& req) {
  return req.has_param("token") ? req.get_param_value("token") : std::string();
}

json analysis_json(const Analysis& a) {
  json j;
  j["id"] = a.id;
  j["status"] = a.status;
  j["name"] = a.name;
  j["sha256"] = a.sha256;
  j["size"] = a.size;
  j["uploaded_at"] = iso_or_null(a.uploaded_at);
  j["started_at"] = iso_or_null(a.started_at);
  j["finished_at"] = iso_or_null(a.finished_at);
  if (a.status == "failed") j["error"] = a.error;
  j["hosts"] = a.hosts;
  if (a.status == "done") {
    if (a.verdict_kind == "root_cause" || a.verdict_kind == "symptom" ||
        a.verdict_kind == "fault" || a.verdict_kind == "first_failure")
      j["verdict"] = {{"kind", a.verdict_kind}, {"id", a.verdict_id}, {"title", a.verdict_title}};
    else
      j["verdict"] = nullptr;
    // added (issue 34): the fleet answer of a job bundle, null for a one-node bundle
    const auto ff = json::parse(a.first_failure, nullptr, false);
    j["first_failure"] = ff.is_object() ? ff : json(nullptr);
    j["root_causes"] = a.root_causes;
    j["symptoms"] = a.symptoms;
    j["faults"] = a.faults;
    j["warnings"] = a.warnings;
  }
  const std::string base = "/api/bundles/" + a.id;
  j["links"] = {{"self", base},
                {"page", "/bundles/" + a.id},
                {"md", base + "/report.md"},
                {"html", base + "/report.html"},
                {"json", base + "/report.json"},
                {"db", base + "/db"}};
  return j;
}

}  // namespace faultline::serve::detail
