// The server's HTTP plumbing: content types and limits, JSON and error responses, the analysis
// record as the API shows it, and the cpp-httplib server subclass that hands sockets to the Gate.
#pragma once

#include <httplib.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "conn.hpp"
#include "index.hpp"

namespace faultline::serve::detail {

inline constexpr const char* kJsonType = "application/json; charset=utf-8";
inline constexpr const char* kHtmlType = "text/html; charset=utf-8";
inline constexpr uint64_t kMultipartSlack = 1ULL
                                            << 20;  // envelope bytes allowed beyond --max-upload
inline constexpr uint64_t kDrainOversize =
    64ULL << 20;  // an oversize body up to this is read and dropped
inline constexpr size_t kMaxErrorChars = 2000;
// "Seen before": at most this many earlier analyses, each at least this similar (0..1).
inline constexpr size_t kSeenBeforeTop = 5;
inline constexpr double kSeenBeforeMinScore = 0.2;

void send_json(httplib::Response& res, int status, const nlohmann::json& j);
// An error as JSON ({"error": ...}) under /api/, as a page elsewhere.
void send_error(const httplib::Request& req, httplib::Response& res, int status,
                const std::string& message, const std::string& token);
// The token as the request presented it (for links in pages), "" when absent.
std::string presented_token(const httplib::Request& req);
// One analysis as GET /api/bundles/ID shows it (docs/api.md).
nlohmann::json analysis_json(const Analysis& a);

// The HTTP server, with its request processing (protected in cpp-httplib) reachable for
// Server::handle_connection_bytes.
// Accepted sockets go to the Gate (conn.hpp), not to a thread each.
class HttpServer : public httplib::Server {
 public:
  using httplib::Server::process_request;
  detail::Gate* gate = nullptr;
  socket_t listen_socket() const { return svr_sock_; }

 private:
  bool process_and_close_socket(socket_t sock) override {
    if (gate)
      gate->admit(sock);
    else
      ::close(sock);
    return true;
  }
};

// cpp-httplib's accept loop hands each socket to its task queue: straight to the Gate here.
class InlineQueue : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

}  // namespace faultline::serve::detail
