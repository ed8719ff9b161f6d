// Connections of `faultline serve` (docs/api.md, "Limits and behaviour under load").
//
// cpp-httplib 0.11 gives every accepted connection a worker thread for its whole life, idle or
// not, and restarts its read timeout with every byte: sixteen clients trickling one header byte
// a second hold every thread. The Gate takes the accepted sockets instead: one poller thread
// holds idle connections and collects request heads (no thread per connection), with a deadline
// for a complete head and bounds on connections in all and per client address; only a connection
// with a complete request head goes to a worker, which then reads the body and writes the
// response through a ConnStream that requires a minimum transfer rate. What is over a bound gets
// an HTTP error it can retry (503 with Retry-After, 408, 431) and a graceful close, not a reset.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace faultline::serve::detail {

struct ConnLimits {
  unsigned threads = 16;         // workers serving requests with a complete head
  unsigned reserved = 2;         // workers never given to uploads (POST): for the cheap requests
  size_t max_connections = 512;  // open connections in all; beyond: 503 and close
  size_t max_per_client = 32;    // open connections from one client address; beyond: 503
  size_t max_ready = 64;         // complete heads waiting for a worker; beyond: 503
  size_t max_head_bytes = 64 * 1024;  // request line + headers; beyond: 431
  unsigned head_timeout_ms = 10'000;  // a complete head, from connect or its first byte: 408
  unsigned keep_alive_ms = 5'000;     // idle time between two requests of a connection
  unsigned keep_alive_max = 100;      // requests on one connection
  unsigned io_window_ms = 30'000;     // body and response: each window must move min_rate
  size_t min_rate = 1024;             // bytes per second, averaged over each io window
  unsigned retry_after_s = 5;         // Retry-After of the 503s
};

// The stream of one request on a worker: the bytes the poller already read, then the socket
// (non-blocking; every wait is in slices so that a stop ends it).
class ConnStream : public httplib::Stream {
 public:
  ConnStream(int fd, std::string pending, std::string peer_ip, int peer_port, const ConnLimits& lim,
             const std::atomic<bool>& stopping);
  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }

  // A read or a write failed (end of stream, socket error, too slow, stop): the connection ends.
  bool failed() const { return rfail_ || wfail_; }
  bool write_failed() const { return wfail_; }
  bool timed_out() const { return timed_out_; }
  bool close_requested() const { return close_; }  // a response said Connection: close
  std::string take_pending() { return buf_.substr(pos_); }

 private:
  using Clock = std::chrono::steady_clock;
  struct Window {
    Clock::time_point end;
    size_t bytes = 0;
  };
  // Waits for `events` for at most one slice; false when the window's rate was missed, on a
  // stop or on a socket error.
  bool wait(short events, Window& w, bool& fail);

  int fd_;
  std::string buf_;
  size_t pos_ = 0;
  std::string peer_ip_;
  int peer_port_;
  const ConnLimits& lim_;
  const std::atomic<bool>& stopping_;
  Window rx_, tx_;
  // After a failed read the response may still be written (a slow sender may read fast).
  bool rfail_ = false, wfail_ = false, timed_out_ = false, close_ = false;
};

// True on a worker thread while its request's body stopped arriving in time (the error handler
// then answers 408 instead of cpp-httplib's 400).
bool request_timed_out();

class Gate {
 public:
  // Serves one request: process_request on the stream; `last` asks to close after it. Returns
  // whether the connection may carry another request.
  using Serve = std::function<bool(ConnStream&, bool last)>;
  Gate(ConnLimits lim, Serve serve);
  ~Gate();
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  // Takes an accepted socket (any thread). Never blocks on the client.
  void admit(int fd);
  // Closes every connection and joins the threads; admit() afterwards closes at once.
  void stop();

  struct Stats {
    size_t open = 0;            // connections held now
    size_t refused_busy = 0;    // 503: connections, ready queue
    size_t refused_client = 0;  // 503: per-client bound
    size_t head_timeouts = 0;   // 408 or silent close of an idle connection
    size_t body_timeouts = 0;   // cut while a body or a response was below the rate
  };
  Stats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace faultline::serve::detail
