// serve: the upload page and HTTP API of `faultline serve` (docs/api.md).
//
// Uploads are streamed to a file under the data directory while they are hashed (never held in
// memory), analysed by a bounded pool of workers, each running `faultline analyze` in a child
// process with memory and time limits (Config::analyzer), and kept:
// one SQLite database per analysis plus an index database, so that the list and the reports
// survive a restart. Nothing is written outside the data directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "faultline/app/app.hpp"

namespace faultline::serve {

// A configuration the server refuses to run with (the CLI exits 2 with the message).
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ListenAddress {
  std::string host;  // as given, without the brackets of an IPv6 literal
  int port = 0;      // 0: any free port
};

// "127.0.0.1:8080", "localhost:8080", "[::1]:8080", "0.0.0.0:80"; throws ConfigError.
ListenAddress parse_listen(std::string_view s);

// True for "localhost", 127.0.0.0/8 and ::1 (an address only this machine can reach).
bool is_loopback(std::string_view host);

// Smallest token length accepted for a non-loopback address.
inline constexpr size_t kMinTokenLength = 16;

struct Config {
  std::string host = "127.0.0.1";
  int port = 8080;                   // 0: any free port (see Server::port())
  std::filesystem::path data_dir;    // created when missing
  uint64_t max_upload = 4ULL << 30;  // bytes of one uploaded bundle (413 beyond)
  unsigned jobs = 1;                 // analyses run in parallel
  size_t max_queued = 256;           // analyses waiting for a worker (503 beyond)
  std::string token;                 // required unless host is loopback; checked on every request
  unsigned http_threads = 16;        // requests served at once (2 of them never for uploads)
  // Connections (docs/api.md, "Limits and behaviour under load"): beyond the counts a client gets
  // 503 with Retry-After; a request head that is not complete within request_head_timeout_ms
  // gets 408; a body or a response that moves less than min_transfer_rate bytes/s over an
  // io_timeout_ms window is cut. Idle connections hold no thread.
  size_t max_connections = 512;
  size_t max_connections_per_client = 32;
  unsigned request_head_timeout_ms = 10'000;
  unsigned io_timeout_ms = 30'000;
  size_t min_transfer_rate = 1024;
  unsigned keep_alive_ms = 5'000;
  app::Options analyze;  // options of every analysis (rules, cache, limits)
  // Each analysis runs as `analyzer analyze BUNDLE --db ... --no-report` in a child process, so
  // that a crash or a stage that exhausts memory fails that analysis only. The CLI sets
  // /proc/self/exe (the running faultline). Empty: analyses run in the server process (embedding).
  std::filesystem::path analyzer;
  uint64_t analysis_memory = 0;  // address-space limit (RLIMIT_AS) of an analysis process; 0: none
  unsigned analysis_timeout_s = 0;  // wall time of an analysis, then it is killed; 0: none
};

class Server {
 public:
  // Checks the configuration (ConfigError), creates/opens the data directory and its index,
  // removes partial uploads, marks analyses interrupted by a stop as failed and re-queues the
  // ones that never started.
  explicit Server(Config cfg);
  // Stops serving and waits for the running analyses to end.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the listening socket; returns the port (useful with port 0). Throws ConfigError.
  int bind();
  // Serves until stop() (binds first when bind() was not called). Returns false on a socket error.
  bool run();
  // Thread-safe; run() returns soon after. Queued analyses stay queued for the next start.
  void stop();
  // Blocks until no analysis is queued or running, or the server stops.
  void wait_idle();

  int port() const;
  const Config& config() const;
  // Counts from the start-up recovery (for the start-up message and tests).
  struct Recovery {
    int interrupted = 0;  // were running: now failed
    int requeued = 0;     // were queued: queued again
    int removed_partial_uploads = 0;
  };
  Recovery recovery() const;

  // Test seam (fuzz/harness/serve.cpp): handles `bytes` as what a client sent on one connection
  // (one or more HTTP/1.1 requests, then end of input) and returns what the server wrote back.
  // The bytes go through the same request parsing, pre-routing (token check, method filter),
  // routes and upload streaming as a socket's bytes; only accept() and the connection threads are
  // left out. Analyses of uploads are queued as usual (wait_idle() to let them end).
  std::string handle_connection_bytes(std::string_view bytes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace faultline::serve
