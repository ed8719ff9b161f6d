// Slow and concurrent clients of `faultline serve` over real loopback sockets (issue 18 items 5,
// 6; docs/api.md "Limits and behaviour under load"): slowloris heads and bodies are cut, idle
// connections hold no thread, floods get 503 with Retry-After, concurrent uploads are stored or
// get an HTTP error, never a reset. Every bound below is generous next to the configured
// timeouts: the assertions are about outcomes, not the machine's speed.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "common/temp_dir.hpp"
#include "faultline/serve/serve.hpp"

namespace fs = std::filesystem;
using faultline::serve::Config;
using faultline::serve::Server;
using Clock = std::chrono::steady_clock;

namespace {

// ascend_install.log lines (log-formats.md §6.1), as in test_serve.cpp.
const char* kInstallLog =
    "[Driver] [2025-03-31 09:51:20] [INFO]Start time: 2025-03-31 09:51:20\n"
    "[Driver] [2025-03-31 09:51:36] [INFO]Driver package installed successfully! Reboot needed for "
    "installation/upgrade to take effect!\n"
    "[Driver] [2025-03-31 09:51:36] [INFO]End time: 2025-03-31 09:51:36\n";

class TempDir : public faultline::test::TempDir {
 public:
  TempDir() : faultline::test::TempDir("faultline-serve-load") {}
};

// Analyses are not what these tests look at: the analysis program exits at once (the analysis
// then fails), so that a hundred uploads cost no CPU.
Config load_config(const fs::path& data) {
  Config c;
  c.host = "127.0.0.1";
  c.port = 0;
  c.data_dir = data;
  c.jobs = 1;
  c.max_queued = 1000;
  c.analyzer = "/bin/true";
  return c;
}

class Running {
 public:
  explicit Running(Config c) : srv_(std::make_unique<Server>(std::move(c))) {
    port_ = srv_->bind();
    thread_ = std::thread([this] { srv_->run(); });
  }
  ~Running() {
    srv_->stop();
    thread_.join();
  }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;
  int port() const { return port_; }

 private:
  std::unique_ptr<Server> srv_;
  std::thread thread_;
  int port_ = 0;
};

// A TCP connection to the server from `from` (any 127.0.0.0/8 address is this machine's).
// Reads time out after 60 s, so that a server that hangs fails the test instead of hanging it.
int connect_to(int port, const char* from = "127.0.0.1") {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_in b{};
  b.sin_family = AF_INET;
  ::inet_pton(AF_INET, from, &b.sin_addr);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&b), sizeof b) == 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  timeval tv{60, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

bool send_all(int fd, std::string_view s) {
  while (!s.empty()) {
    const ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    s.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// What the server sends until it closes (or a reset, or the 60 s receive timeout).
std::string read_until_close(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// `head` at once, then one byte of `trickle` every 200 ms until the server answers or closes;
// returns what it answered and how long that took.
std::pair<std::string, double> slow_client(int port, const std::string& head,
                                           const std::string& trickle) {
  const int fd = connect_to(port);
  const auto t0 = Clock::now();
  send_all(fd, head);
  size_t i = 0;
  std::string out;
  while (std::chrono::duration<double>(Clock::now() - t0).count() < 90) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) > 0) {
      out = read_until_close(fd);
      break;
    }
    if (!send_all(fd, std::string_view(trickle).substr(i++ % trickle.size(), 1))) break;
  }
  ::close(fd);
  return {out, std::chrono::duration<double>(Clock::now() - t0).count()};
}

// A request on its own connection (Connection: close); the raw answer.
std::string raw_get(int port, const char* from, const std::string& path = "/api/bundles") {
  const int fd = connect_to(port, from);
  send_all(fd, "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  std::string r = read_until_close(fd);
  ::close(fd);
  return r;
}

bool starts_with(const std::string& s, std::string_view p) {
  return s.compare(0, p.size(), p) == 0;
}

}  // namespace

TEST_CASE("a slowloris request head is cut with 408 and does not starve other clients",
          "[serve][load]") {
  TempDir tmp;
  Config cfg = load_config(tmp.path() / "data");
  cfg.http_threads = 4;
  cfg.request_head_timeout_ms = 2000;
  Running run(cfg);

  // Twenty clients, five times the workers, trickle one header byte each 200 ms.
  std::vector<std::pair<std::string, double>> got(20);
  std::vector<std::thread> ts;
  for (size_t i = 0; i < got.size(); ++i)
    ts.emplace_back([&, i] {
      got[i] = slow_client(run.port(), "GET /api/bundles HTTP/1.1\r\n", "X-Slow: aaaaaaaa\r\n");
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Meanwhile a real user is served at once (the tricklers hold no worker).
  const auto t0 = Clock::now();
  const std::string ok = raw_get(run.port(), "127.0.0.2");
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  for (auto& t : ts) t.join();
  INFO(ok);
  CHECK(starts_with(ok, "HTTP/1.1 200"));
  CHECK(took < 30);
  for (const auto& [answer, secs] : got) {
    INFO(answer);
    CHECK(starts_with(answer, "HTTP/1.1 408"));
    CHECK(secs < 30);  // configured: 2 s
  }
}

TEST_CASE("a body trickled byte by byte is cut with 408 and nothing is stored", "[serve][load]") {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  Config cfg = load_config(data);
  cfg.io_timeout_ms = 2000;
  cfg.min_transfer_rate = 1024;
  Running run(cfg);
  const auto [answer, secs] =
      slow_client(run.port(),
                  "POST /api/bundles?name=ascend_install.log HTTP/1.1\r\nHost: localhost\r\n"
                  "Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n",
                  kInstallLog);
  INFO(answer);
  CHECK(starts_with(answer, "HTTP/1.1 408"));
  CHECK(answer.find("too slowly") != std::string::npos);
  CHECK(secs < 30);  // configured: 2 s windows
  CHECK(fs::is_empty(data / "analyses"));
  CHECK(fs::is_empty(data / "tmp"));
}

TEST_CASE("an upload succeeds while 50 idle connections are open", "[serve][load]") {
  TempDir tmp;
  const fs::path data = tmp.path() / "data";
  Config cfg = load_config(data);
  cfg.http_threads = 4;
  Running run(cfg);
  // 50 connections that never send a byte and 10 idle after a keep-alive request, from three
  // addresses (each under the per-client bound of 32).
  std::vector<int> idle;
  const char* from[] = {"127.0.0.2", "127.0.0.3", "127.0.0.4"};
  for (int i = 0; i < 50; ++i) idle.push_back(connect_to(run.port(), from[i % 3]));
  for (int i = 0; i < 10; ++i) {
    const int fd = connect_to(run.port(), from[i % 3]);
    send_all(fd, "GET /api/bundles HTTP/1.1\r\nHost: localhost\r\n\r\n");
    char buf[4096];
    CHECK(::recv(fd, buf, sizeof buf, 0) > 0);
    idle.push_back(fd);
  }
  httplib::Client c("127.0.0.1", run.port());
  c.set_read_timeout(60, 0);
  const auto t0 = Clock::now();
  auto r = c.Post("/api/bundles?name=ascend_install.log", kInstallLog, "application/octet-stream");
  REQUIRE(r);
  CHECK(r->status == 202);
  CHECK(std::chrono::duration<double>(Clock::now() - t0).count() < 30);
  for (int fd : idle) ::close(fd);
}

TEST_CASE("beyond the connection bounds new connections get 503 with Retry-After",
          "[serve][load]") {
  TempDir tmp;
  Config cfg = load_config(tmp.path() / "data");
  cfg.max_connections = 8;
  cfg.max_connections_per_client = 4;

  SECTION("per client address") {
    Running run(cfg);
    std::vector<int> held;
    for (int i = 0; i < 4; ++i) held.push_back(connect_to(run.port(), "127.0.0.2"));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const std::string refused = raw_get(run.port(), "127.0.0.2");
    INFO(refused);
    CHECK(starts_with(refused, "HTTP/1.1 503"));
    CHECK(refused.find("\r\nRetry-After: ") != std::string::npos);
    CHECK(refused.find("from your address") != std::string::npos);
    // another address is still served
    CHECK(starts_with(raw_get(run.port(), "127.0.0.3"), "HTTP/1.1 200"));
    for (int fd : held) ::close(fd);
  }
  SECTION("in all: a flood is refused, the server recovers") {
    Running run(cfg);
    std::vector<int> held;
    for (int i = 0; i < 8; ++i)
      held.push_back(connect_to(run.port(), i % 2 ? "127.0.0.2" : "127.0.0.3"));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::vector<std::string> answers(40);
    std::vector<std::thread> ts;
    for (size_t i = 0; i < answers.size(); ++i)
      ts.emplace_back([&, i] { answers[i] = raw_get(run.port(), "127.0.0.4"); });
    for (auto& t : ts) t.join();
    for (const auto& a : answers) {
      INFO(a);
      CHECK(starts_with(a, "HTTP/1.1 503"));
      CHECK(a.find("\r\nRetry-After: ") != std::string::npos);
    }
    for (int fd : held) ::close(fd);
    // once the flood is gone, a client is served again
    std::string after;
    for (int i = 0; i < 100 && !starts_with(after, "HTTP/1.1 200"); ++i) {
      after = raw_get(run.port(), "127.0.0.4");
      if (!starts_with(after, "HTTP/1.1 200"))
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    CHECK(starts_with(after, "HTTP/1.1 200"));
  }
}

TEST_CASE("concurrent uploads are stored or get an HTTP error to retry, never a reset",
          "[serve][load]") {
  for (const int clients : {20, 100}) {
    DYNAMIC_SECTION(clients << " clients") {
      TempDir tmp;
      const fs::path data = tmp.path() / "data";
      Running run(load_config(data));
      std::vector<int> status(static_cast<size_t>(clients), 0);
      std::vector<std::string> retry(static_cast<size_t>(clients));
      std::vector<std::thread> ts;
      for (int i = 0; i < clients; ++i)
        ts.emplace_back([&, i] {
          // distinct bundles (no duplicate answers): the install log repeated i+1 times
          std::string body;
          for (int k = 0; k <= i; ++k) body += kInstallLog;
          httplib::Client c("127.0.0.1", run.port());
          c.set_read_timeout(120, 0);
          c.set_write_timeout(120, 0);
          auto r = c.Post("/api/bundles?name=ascend_install.log", body, "application/octet-stream");
          if (!r) return;  // status stays 0: no HTTP answer
          status[static_cast<size_t>(i)] = r->status;
          retry[static_cast<size_t>(i)] = r->get_header_value("Retry-After");
        });
      for (auto& t : ts) t.join();
      size_t stored = 0;
      for (int i = 0; i < clients; ++i) {
        const int s = status[static_cast<size_t>(i)];
        INFO("client " << i << " status " << s);
        CHECK((s == 202 || s == 503));
        if (s == 503) CHECK_FALSE(retry[static_cast<size_t>(i)].empty());
        if (s == 202) ++stored;
      }
      CHECK(stored >= 1);
      size_t dirs = 0;
      for ([[maybe_unused]] const auto& e : fs::directory_iterator(data / "analyses")) ++dirs;
      CHECK(dirs == stored);
    }
  }
}

TEST_CASE("uploads never take the threads kept for the cheap requests", "[serve][load]") {
  TempDir tmp;
  Config cfg = load_config(tmp.path() / "data");
  cfg.http_threads = 3;  // 2 kept from uploads: one upload at a time
  Running run(cfg);
  // An upload in progress (well above the minimum rate) holds the one upload thread...
  std::atomic<bool> done{false};
  std::thread slow([&] {
    const int fd = connect_to(run.port());
    send_all(fd,
             "POST /api/bundles?name=ascend_install.log HTTP/1.1\r\nHost: localhost\r\n"
             "Content-Type: application/octet-stream\r\nContent-Length: 100000000\r\n\r\n");
    const std::string block(4096, 'x');
    while (!done) {
      if (!send_all(fd, block)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::close(fd);  // abandoned: nothing is stored
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  // ...a second upload waits for it, while pages and the API are served at once.
  std::atomic<int> second{0};
  std::thread up([&] {
    httplib::Client c("127.0.0.1", run.port());
    c.set_read_timeout(120, 0);
    auto r =
        c.Post("/api/bundles?name=ascend_install.log", kInstallLog, "application/octet-stream");
    second = r ? r->status : -1;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (int i = 0; i < 5; ++i) {
    const std::string page = raw_get(run.port(), "127.0.0.2", i % 2 ? "/" : "/api/bundles");
    CHECK(starts_with(page, "HTTP/1.1 200"));
  }
  CHECK(second == 0);  // still waiting for the upload thread
  done = true;
  slow.join();
  up.join();
  CHECK(second == 202);
}
