// The pages and the API (docs/api.md): the connection limits, the headers every response
// carries, the token check, and one handler per route.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "impl.hpp"
#include "pages.hpp"

namespace faultline::serve {

namespace fs = std::filesystem;
using detail::Analysis;
using json = nlohmann::json;

bool Server::Impl::authorized(const httplib::Request& req) const {
  if (cfg.token.empty()) return true;
  const std::string auth = req.get_header_value("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (auth.size() > kBearer.size() && auth.compare(0, kBearer.size(), kBearer) == 0 &&
      detail::token_equal(std::string_view(auth).substr(kBearer.size()), cfg.token))
    return true;
  return req.has_param("token") && detail::token_equal(req.get_param_value("token"), cfg.token);
}
void Server::Impl::setup_routes() {
  using httplib::Request;
  using httplib::Response;

  detail::ConnLimits lim;
  lim.threads = std::max(2U, cfg.http_threads);
  lim.reserved = std::min(2U, lim.threads - 1);
  lim.max_connections = std::max<size_t>(1, cfg.max_connections);
  lim.max_per_client = std::max<size_t>(1, cfg.max_connections_per_client);
  lim.head_timeout_ms = std::max(1U, cfg.request_head_timeout_ms);
  lim.io_window_ms = std::max(1U, cfg.io_timeout_ms);
  lim.min_rate = cfg.min_transfer_rate;
  lim.keep_alive_ms = std::max(1U, cfg.keep_alive_ms);
  gate = std::make_unique<detail::Gate>(lim, [this](detail::ConnStream& s, bool last) {
    bool closed = false;
    const bool ok = http.process_request(s, last, closed, nullptr);
    return ok && !closed;
  });
  http.gate = gate.get();
  http.new_task_queue = [] { return new detail::InlineQueue(); };
  http.set_keep_alive_max_count(lim.keep_alive_max);
  http.set_keep_alive_timeout(std::max<time_t>(1, lim.keep_alive_ms / 1000));
  http.set_payload_max_length(static_cast<size_t>(cfg.max_upload + detail::kMultipartSlack));
  http.set_read_timeout(60, 0);
  http.set_write_timeout(60, 0);
  http.set_default_headers({
      {"Content-Security-Policy", detail::content_security_policy()},
      {"X-Content-Type-Options", "nosniff"},
      {"X-Frame-Options", "DENY"},
      {"Referrer-Policy", "no-referrer"},
      {"Cache-Control", "no-store"},
  });

  // Uploads that announce themselves (curl does for large bodies): refuse before the body.
  http.set_expect_100_continue_handler([this](const Request& req, Response& res) {
    const std::string tok = detail::presented_token(req);
    if (!authorized(req)) {
      res.set_header("WWW-Authenticate", "Bearer realm=\"faultline\"");
      detail::send_error(req, res, 401,
                         "a valid token is needed (Authorization: Bearer TOKEN or ?token=TOKEN)",
                         tok);
      return 401;
    }
    if (req.get_header_value<uint64_t>("Content-Length") >
        cfg.max_upload + detail::kMultipartSlack) {
      detail::send_error(req, res, 413,
                         "the upload is larger than this server accepts (" +
                             detail::human_size(cfg.max_upload) + ")",
                         tok);
      return 413;
    }
    return 100;
  });

  http.set_pre_routing_handler([this](const Request& req, Response& res) {
    const std::string tok = detail::presented_token(req);
    if (!authorized(req)) {
      res.set_header("WWW-Authenticate", "Bearer realm=\"faultline\"");
      if (req.method != "GET" && req.method != "HEAD") res.set_header("Connection", "close");
      detail::send_error(req, res, 401,
                         "a valid token is needed (Authorization: Bearer TOKEN or ?token=TOKEN)",
                         tok);
      return httplib::Server::HandlerResponse::Handled;
    }
    const bool read_only = req.method == "GET" || req.method == "HEAD";
    const bool upload = req.method == "POST" && req.path == "/api/bundles";
    if (!read_only && !upload) {
      // Never let a request body be read into memory by a route that does not stream it.
      res.set_header("Allow", req.path == "/api/bundles" ? "GET, HEAD, POST" : "GET, HEAD");
      res.set_header("Connection", "close");
      detail::send_error(req, res, 405, "method not allowed", tok);
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });

  http.set_error_handler(
      httplib::Server::HandlerWithResponse([this](const Request& req, Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        // A body that stopped arriving (conn.hpp): cpp-httplib says 400, the client was slow.
        if (res.status == 400 && detail::request_timed_out()) {
          res.status = 408;
          res.set_header("Connection", "close");
        }
        std::string msg = res.status == 404   ? "not found"
                          : res.status == 413 ? "the upload is larger than this server accepts (" +
                                                    detail::human_size(cfg.max_upload) + ")"
                          : res.status == 400 ? "bad request"
                          : res.status == 408 ? "the request did not arrive in time"
                          : res.status == 405 ? "method not allowed"
                                              : "request failed";
        detail::send_error(req, res, res.status, msg, detail::presented_token(req));
        return httplib::Server::HandlerResponse::Handled;
      }));

  http.set_exception_handler([this](const Request& req, Response& res, std::exception_ptr ep) {
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      log("error on " + req.method + " " + req.path + ": " + e.what());
    } catch (...) {
      log("error on " + req.method + " " + req.path);
    }
    detail::send_error(req, res, 500, "internal error (see the server's log)",
                       detail::presented_token(req));
  });

  // Pages -------------------------------------------------------------------------------------
  http.Get("/", [this](const Request& req, Response& res) {
    std::vector<Analysis> recent;
    {
      std::lock_guard<std::mutex> lk(mu);
      recent = index->list(20);
    }
    res.set_content(detail::home_page(recent, cfg.max_upload, detail::presented_token(req)),
                    detail::kHtmlType);
  });

  http.Get("/bundles", [this](const Request& req, Response& res) {
    std::vector<Analysis> all;
    {
      std::lock_guard<std::mutex> lk(mu);
      all = index->list(1000);
    }
    res.set_content(detail::list_page(all, detail::presented_token(req)), detail::kHtmlType);
  });

  http.Get(R"(/bundles/([^/]+))", [this](const Request& req, Response& res) {
    const std::string tok = detail::presented_token(req);
    const auto a = lookup(req.matches[1].str());
    if (!a) return detail::send_error(req, res, 404, "no such analysis", tok);
    if (a->status != "done") {
      res.set_content(detail::status_page(*a, tok), detail::kHtmlType);
      return;
    }
    std::string html;
    try {
      html = render(*a, report::Format::html);
    } catch (const std::exception& e) {
      log("report " + a->id + ": " + e.what());
      return detail::send_error(req, res, 500, "the report could not be rendered", tok);
    }
    res.set_content(detail::report_page(*a, html, tok, detail::similar_html(seen_before(*a), tok)),
                    detail::kHtmlType);
  });

  // Browsers ask for it on pages without an icon link (the reports).
  http.Get("/favicon.ico", [](const Request&, Response& res) {
    res.set_content(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\"><rect width=\"16\" "
        "height=\"16\" "
        "rx=\"3\" fill=\"#102a43\"/><path d=\"M5 13V3h6v2H7v2h3v2H7v4z\" fill=\"#fff\"/></svg>",
        "image/svg+xml");
  });

  // API ---------------------------------------------------------------------------------------
  http.Get("/api/bundles", [this](const Request& req, Response& res) {
    size_t limit = 100;
    if (req.has_param("limit")) {
      const auto v = text::to_int<size_t>(req.get_param_value("limit"));
      if (!v || *v == 0)
        return detail::send_error(req, res, 400, "limit: a positive number is needed", "");
      limit = std::min<size_t>(*v, 1000);
    }
    std::vector<Analysis> all;
    {
      std::lock_guard<std::mutex> lk(mu);
      all = index->list(limit);
    }
    json list = json::array();
    for (const auto& a : all) list.push_back(detail::analysis_json(a));
    detail::send_json(res, 200, json{{"analyses", list}, {"count", list.size()}});
  });

  http.Post("/api/bundles",
            [this](const Request& req, Response& res, const httplib::ContentReader& reader) {
              on_upload(req, res, reader);
            });

  http.Get(R"(/api/bundles/([^/]+))", [this](const Request& req, Response& res) {
    const auto a = lookup(req.matches[1].str());
    if (!a) return detail::send_error(req, res, 404, "no such analysis", "");
    json j = detail::analysis_json(*a);
    // added (issue 37): the earlier analyses most like this one, best first
    if (a->status == "done") j["similar"] = detail::similar_json(seen_before(*a));
    if (a->status == "done" && req.get_param_value("report") != "0") {
      try {
        j["report"] = json::parse(render(*a, report::Format::json));
      } catch (const std::exception& e) {
        log("report " + a->id + ": " + e.what());
        j["report"] = nullptr;
        j["report_error"] = "the report could not be rendered";
      }
    }
    detail::send_json(res, 200, j);
  });

  // jsonl, csv: the timeline export (docs/timeline-export.md)
  http.Get(R"(/api/bundles/([^/]+)/report\.(md|html|json|jsonl|csv))", [this](const Request& req,
                                                                              Response& res) {
    const auto a = lookup(req.matches[1].str());
    if (!a) return detail::send_error(req, res, 404, "no such analysis", "");
    if (a->status != "done")
      return detail::send_error(req, res, 409,
                                a->status == "failed"
                                    ? "the analysis failed: " + a->error
                                    : "the analysis is " + a->status + "; the report is not ready",
                                "");
    const std::string ext = req.matches[2];
    const auto fmt = *report::format_from(ext);
    std::string body;
    report::RenderNotes notes;
    try {
      body = render(*a, fmt, &notes);
    } catch (const std::exception& e) {
      log("report " + a->id + ": " + e.what());
      return detail::send_error(req, res, 500, "the report could not be rendered", "");
    }
    const char* type = ext == "md"      ? "text/markdown; charset=utf-8"
                       : ext == "json"  ? detail::kJsonType
                       : ext == "jsonl" ? "application/x-ndjson; charset=utf-8"
                       : ext == "csv"   ? "text/csv; charset=utf-8; header=present"
                                        : detail::kHtmlType;
    // the events without a usable time the jsonl export left out (the csv keeps them)
    if (fmt == report::Format::jsonl)
      res.set_header("X-Faultline-Untimed-Skipped", std::to_string(notes.untimed_skipped));
    if (req.get_param_value("download") == "1")
      res.set_header("Content-Disposition", "attachment; filename=\"" +
                                                detail::safe_file_name(a->name) + "." +
                                                a->id.substr(0, 8) + "." + ext + "\"");
    res.set_content(body, type);
  });

  http.Get(R"(/api/bundles/([^/]+)/db)", [this](const Request& req, Response& res) {
    const auto a = lookup(req.matches[1].str());
    if (!a) return detail::send_error(req, res, 404, "no such analysis", "");
    if (a->status != "done")
      return detail::send_error(req, res, 409,
                                "the analysis is " + a->status + "; its database is not ready", "");
    const fs::path p = db_path(a->id);
    const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
      return detail::send_error(req, res, 500, "the analysis database cannot be read", "");
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      return detail::send_error(req, res, 500, "the analysis database cannot be read", "");
    }
    auto shared_fd = std::make_shared<int>(fd);
    res.set_header("Content-Disposition", "attachment; filename=\"" +
                                              detail::safe_file_name(a->name) + "." +
                                              a->id.substr(0, 8) + ".db\"");
    res.set_content_provider(
        static_cast<size_t>(st.st_size), "application/vnd.sqlite3",
        [shared_fd](size_t offset, size_t length, httplib::DataSink& sink) {
          char buf[64 * 1024];
          const size_t want = std::min(length, sizeof buf);
          const ssize_t n = ::pread(*shared_fd, buf, want, static_cast<off_t>(offset));
          if (n <= 0) return false;
          return sink.write(buf, static_cast<size_t>(n));
        },
        [shared_fd](bool) { ::close(*shared_fd); });
  });
}
}  // namespace faultline::serve
