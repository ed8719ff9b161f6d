#include "conn.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace faultline::serve::detail {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

thread_local const ConnStream* t_stream = nullptr;

void peer_of(int fd, std::string& ip, int& port) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ip = "?";
  port = 0;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return;
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    ::inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf);
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    ::inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf);
    port = ntohs(a->sin6_port);
  }
  ip = buf;
}

// The head of an HTTP error the gate answers itself (before cpp-httplib saw the request).
void send_refusal(int fd, int status, const char* reason, const std::string& message,
                  unsigned retry_after) {
  const std::string body = "{\"error\":\"" + message + "\"}";
  std::string r =
      "HTTP/1.1 " + std::to_string(status) + " " + reason +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nConnection: close\r\nCache-Control: no-store\r\n"
      "X-Content-Type-Options: nosniff\r\n";
  if (retry_after) r += "Retry-After: " + std::to_string(retry_after) + "\r\n";
  r += "\r\n" + body;
  // A fresh socket's send buffer takes this at once; a client that does not read loses it.
  [[maybe_unused]] const ssize_t n = ::send(fd, r.data(), r.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

// End of the request head in `b` (after leading empty lines, which are skipped), or npos.
size_t head_end(const std::string& b) {
  const size_t crlf = b.find("\r\n\r\n");
  const size_t lf = b.find("\n\n");
  return std::min(crlf == std::string::npos ? crlf : crlf + 4,
                  lf == std::string::npos ? lf : lf + 2);
}

bool ieq_prefix(const char* p, size_t n, std::string_view lower) {
  if (n < lower.size()) return false;
  for (size_t i = 0; i < lower.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(p[i])) != lower[i]) return false;
  return true;
}

}  // namespace

bool request_timed_out() {
  return t_stream && t_stream->timed_out();
}

// ---------------------------------------------------------------------------------------------

ConnStream::ConnStream(int fd, std::string pending, std::string peer_ip, int peer_port,
                       const ConnLimits& lim, const std::atomic<bool>& stopping)
    : fd_(fd),
      buf_(std::move(pending)),
      peer_ip_(std::move(peer_ip)),
      peer_port_(peer_port),
      lim_(lim),
      stopping_(stopping) {
  const auto end = Clock::now() + milliseconds(lim_.io_window_ms);
  rx_.end = end;
  tx_.end = end;
}

bool ConnStream::is_readable() const {
  return pos_ < buf_.size() || !rfail_;
}

bool ConnStream::is_writable() const {
  return !wfail_;
}

bool ConnStream::wait(short events, Window& w, bool& fail) {
  auto now = Clock::now();
  if (now >= w.end) {
    const size_t need = lim_.min_rate * lim_.io_window_ms / 1000;
    if (w.bytes < need) {
      timed_out_ = fail = true;
      return false;
    }
    w.end = now + milliseconds(lim_.io_window_ms);
    w.bytes = 0;
  }
  if (stopping_) {
    fail = true;
    return false;
  }
  const auto left = std::chrono::duration_cast<milliseconds>(w.end - now).count();
  pollfd p{fd_, events, 0};
  const int r = ::poll(&p, 1, static_cast<int>(std::clamp<long long>(left + 1, 1, 250)));
  if ((r < 0 && errno != EINTR) || (r > 0 && (p.revents & (POLLERR | POLLNVAL)))) {
    fail = true;
    return false;
  }
  return true;
}

ssize_t ConnStream::read(char* ptr, size_t size) {
  if (pos_ >= buf_.size()) {
    if (rfail_) return -1;
    buf_.resize(16 * 1024);
    pos_ = 0;
    for (;;) {
      const ssize_t r = ::recv(fd_, buf_.data(), buf_.size(), MSG_DONTWAIT);
      if (r > 0) {
        buf_.resize(static_cast<size_t>(r));
        rx_.bytes += static_cast<size_t>(r);
        break;
      }
      buf_.clear();
      if (r == 0) {
        rfail_ = true;
        return 0;
      }
      if (errno == EINTR) continue;
      if ((errno != EAGAIN && errno != EWOULDBLOCK) || !wait(POLLIN, rx_, rfail_)) {
        rfail_ = true;
        return -1;
      }
      buf_.resize(16 * 1024);
    }
  }
  const size_t n = std::min(size, buf_.size() - pos_);
  std::memcpy(ptr, buf_.data() + pos_, n);
  pos_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t ConnStream::write(const char* ptr, size_t size) {
  if (wfail_) return -1;
  if (ieq_prefix(ptr, size, "http/1.") && !(size >= 12 && std::memcmp(ptr + 9, "100", 3) == 0)) {
    // A response begins: its own rate window; does it close the connection?
    tx_.end = Clock::now() + milliseconds(lim_.io_window_ms);
    tx_.bytes = 0;
    const std::string_view out(ptr, size);
    std::string head(out.substr(0, std::min(out.find("\r\n\r\n"), size_t{16384})));
    std::transform(head.begin(), head.end(), head.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (head.find("\r\nconnection: close") != std::string::npos) close_ = true;
  }
  for (;;) {
    const ssize_t r = ::send(fd_, ptr, size, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (r >= 0) {
      tx_.bytes += static_cast<size_t>(r);
      return r;
    }
    if (errno == EINTR) continue;
    if ((errno != EAGAIN && errno != EWOULDBLOCK) || !wait(POLLOUT, tx_, wfail_)) {
      wfail_ = true;
      return -1;
    }
  }
}

void ConnStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = peer_ip_;
  port = peer_port_;
}

void ConnStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ip.clear();
  port = 0;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return;
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    ::inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf);
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    ::inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf);
    port = ntohs(a->sin6_port);
  }
  ip = buf;
}

// ---------------------------------------------------------------------------------------------

namespace {

struct Conn {
  int fd = -1;
  std::string ip;
  int port = 0;
  std::string buf;  // bytes of the next request head (and what followed it)
  Clock::time_point deadline;
  bool got_byte = false;   // of the current head
  bool lingering = false;  // answered and shut down for writing: drain, then close
  size_t drained = 0;
  unsigned served = 0;
  bool heavy = false;  // an upload (POST): not given the reserved workers
};

constexpr size_t kMaxDrain = 4 << 20;
constexpr unsigned kLingerMs = 2000;

}  // namespace

struct Gate::Impl {
  ConnLimits lim;
  Serve serve;

  mutable std::mutex mu;
  std::condition_variable cv;
  std::vector<std::unique_ptr<Conn>> incoming;  // for the poller
  std::deque<std::unique_ptr<Conn>> ready;      // complete heads for the workers
  std::map<std::string, size_t> per_client;
  size_t lingering = 0;
  unsigned heavy_active = 0;
  Stats stats;

  std::vector<std::unique_ptr<Conn>> parked;  // the poller's only
  std::atomic<bool> stopping{false};
  bool stopped = false;
  int wake_fd = -1;
  std::thread poller;
  std::vector<std::thread> workers;

  unsigned max_heavy() const { return lim.threads > lim.reserved ? lim.threads - lim.reserved : 1; }

  void wake() const {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_fd, &one, sizeof one);
  }

  // The connection no longer counts as open (under mu).
  void forget(const Conn& c) {
    --stats.open;
    auto it = per_client.find(c.ip);
    if (it != per_client.end() && --it->second == 0) per_client.erase(it);
  }

  // Shut down for writing and drain what the client still sends (so that our answer is not
  // lost to a reset), or close now when too many are draining. Under mu; the Conn is forgotten.
  std::unique_ptr<Conn> linger(std::unique_ptr<Conn> c) {
    ::shutdown(c->fd, SHUT_WR);
    if (lingering >= lim.max_connections) {
      ::close(c->fd);
      return nullptr;
    }
    ++lingering;
    c->lingering = true;
    c->deadline = Clock::now() + milliseconds(kLingerMs);
    return c;
  }

  void close_lingering(Conn& c) {
    ::close(c.fd);
    std::lock_guard<std::mutex> lk(mu);
    --lingering;
  }

  // Refuse an open connection with an HTTP error, then linger (poller thread).
  std::unique_ptr<Conn> refuse(std::unique_ptr<Conn> c, int status, const char* reason,
                               const std::string& msg, unsigned retry) {
    send_refusal(c->fd, status, reason, msg, retry);
    std::lock_guard<std::mutex> lk(mu);
    forget(*c);
    return linger(std::move(c));
  }

  void close_open(std::unique_ptr<Conn> c) {
    ::close(c->fd);
    std::lock_guard<std::mutex> lk(mu);
    forget(*c);
  }

  // A complete head: to the workers, or 503 when too many wait (poller thread).
  std::unique_ptr<Conn> dispatch(std::unique_ptr<Conn> c) {
    c->heavy = ieq_prefix(c->buf.data(), c->buf.size(), "post ");
    std::unique_lock<std::mutex> lk(mu);
    if (ready.size() >= lim.max_ready) {
      ++stats.refused_busy;
      lk.unlock();
      return refuse(std::move(c), 503, "Service Unavailable",
                    "the server is busy; try again in a few seconds", lim.retry_after_s);
    }
    ready.push_back(std::move(c));
    lk.unlock();
    cv.notify_all();
    return nullptr;
  }

  // Bytes from a parked connection (poller thread); returns the Conn when it stays parked.
  std::unique_ptr<Conn> on_readable(std::unique_ptr<Conn> c) {
    char tmp[16 * 1024];
    if (c->lingering) {
      for (;;) {
        const ssize_t r = ::recv(c->fd, tmp, sizeof tmp, MSG_DONTWAIT);
        if (r > 0) {
          c->drained += static_cast<size_t>(r);
          if (c->drained > kMaxDrain) break;
          continue;
        }
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return c;
        if (r < 0 && errno == EINTR) continue;
        break;
      }
      close_lingering(*c);
      return nullptr;
    }
    for (;;) {
      const ssize_t r = ::recv(c->fd, tmp, sizeof tmp, MSG_DONTWAIT);
      if (r > 0) {
        c->buf.append(tmp, static_cast<size_t>(r));
        if (c->buf.size() > lim.max_head_bytes) break;
        continue;
      }
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      close_open(std::move(c));  // end of stream or a socket error
      return nullptr;
    }
    return on_bytes(std::move(c));
  }

  std::unique_ptr<Conn> on_bytes(std::unique_ptr<Conn> c) {
    const size_t skip = c->buf.find_first_not_of("\r\n");
    c->buf.erase(0, skip == std::string::npos ? c->buf.size() : skip);
    if (c->buf.empty()) return c;
    if (!c->got_byte) {
      c->got_byte = true;
      c->deadline = std::min(c->deadline, Clock::now() + milliseconds(lim.head_timeout_ms));
    }
    const size_t end = head_end(c->buf);
    if (end != std::string::npos && end <= lim.max_head_bytes) return dispatch(std::move(c));
    if (c->buf.size() > lim.max_head_bytes)
      return refuse(std::move(c), 431, "Request Header Fields Too Large",
                    "the request head is larger than this server accepts", 0);
    return c;
  }

  std::unique_ptr<Conn> on_deadline(std::unique_ptr<Conn> c) {
    if (c->lingering) {
      close_lingering(*c);
      return nullptr;
    }
    {
      std::lock_guard<std::mutex> lk(mu);
      ++stats.head_timeouts;
    }
    if (c->buf.empty()) {  // idle: a keep-alive connection or one that never sent anything
      close_open(std::move(c));
      return nullptr;
    }
    return refuse(std::move(c), 408, "Request Timeout", "the request head did not arrive in time",
                  0);
  }

  void poll_loop() {
    std::vector<pollfd> fds;
    while (!stopping) {
      {
        std::lock_guard<std::mutex> lk(mu);
        for (auto& c : incoming) parked.push_back(std::move(c));
        incoming.clear();
      }
      // Pipelined requests may already be complete.
      for (auto& c : parked)
        if (c && !c->lingering && !c->buf.empty() && head_end(c->buf) != std::string::npos)
          c = on_bytes(std::move(c));
      std::erase(parked, nullptr);

      auto now = Clock::now();
      auto next = now + milliseconds(1000);
      fds.assign(1, pollfd{wake_fd, POLLIN, 0});
      for (const auto& c : parked) {
        fds.push_back(pollfd{c->fd, POLLIN, 0});
        next = std::min(next, c->deadline);
      }
      const auto wait_ms = std::chrono::duration_cast<milliseconds>(next - now).count();
      const int r =
          ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(wait_ms, 0, 1000)));
      if (r < 0 && errno != EINTR) break;
      if (fds[0].revents & POLLIN) {
        uint64_t v = 0;
        [[maybe_unused]] const ssize_t n = ::read(wake_fd, &v, sizeof v);
      }
      now = Clock::now();
      for (size_t i = 0; i < parked.size(); ++i) {
        auto& c = parked[i];
        if (fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR))
          c = on_readable(std::move(c));
        else if (now >= c->deadline)
          c = on_deadline(std::move(c));
      }
      std::erase(parked, nullptr);
    }
  }

  bool can_pick() const {
    for (const auto& c : ready)
      if (!c->heavy || heavy_active < max_heavy()) return true;
    return false;
  }

  void worker_loop() {
    for (;;) {
      std::unique_ptr<Conn> c;
      {
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return stopping || can_pick(); });
        if (stopping) return;
        for (auto it = ready.begin(); it != ready.end(); ++it)
          if (!(*it)->heavy || heavy_active < max_heavy()) {
            c = std::move(*it);
            ready.erase(it);
            break;
          }
        if (c->heavy) ++heavy_active;
      }
      const bool last = c->served + 1 >= lim.keep_alive_max;
      ConnStream s(c->fd, std::move(c->buf), c->ip, c->port, lim, stopping);
      bool keep = false;
      t_stream = &s;
      try {
        keep = serve(s, last);
      } catch (...) {
        keep = false;
      }
      t_stream = nullptr;
      ++c->served;
      std::unique_lock<std::mutex> lk(mu);
      if (c->heavy) {
        --heavy_active;
        cv.notify_all();
      }
      if (s.timed_out()) ++stats.body_timeouts;
      if (s.write_failed() || stopping) {
        forget(*c);
        ::close(c->fd);
      } else if (s.failed() || !keep || last || s.close_requested()) {
        // what the client still sends is drained, so that the answer is not lost to a reset
        forget(*c);
        c = linger(std::move(c));
        if (c) incoming.push_back(std::move(c));
      } else {
        c->buf = s.take_pending();
        c->got_byte = false;
        c->heavy = false;
        c->deadline = Clock::now() + milliseconds(lim.keep_alive_ms);
        incoming.push_back(std::move(c));
      }
      lk.unlock();
      wake();
    }
  }
};

Gate::Gate(ConnLimits lim, Serve serve) : impl_(std::make_unique<Impl>()) {
  impl_->lim = lim;
  if (impl_->lim.threads == 0) impl_->lim.threads = 1;
  impl_->serve = std::move(serve);
  impl_->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (impl_->wake_fd < 0) throw std::runtime_error("eventfd: " + std::string(strerror(errno)));
  impl_->poller = std::thread([this] { impl_->poll_loop(); });
  for (unsigned i = 0; i < impl_->lim.threads; ++i)
    impl_->workers.emplace_back([this] { impl_->worker_loop(); });
}

Gate::~Gate() {
  stop();
  ::close(impl_->wake_fd);
}

void Gate::admit(int fd) {
  auto& m = *impl_;
  if (m.stopping) {
    ::close(fd);
    return;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  auto c = std::make_unique<Conn>();
  c->fd = fd;
  peer_of(fd, c->ip, c->port);
  c->deadline = Clock::now() + milliseconds(m.lim.head_timeout_ms);
  {
    std::lock_guard<std::mutex> lk(m.mu);
    const bool full = m.stats.open >= m.lim.max_connections;
    const bool client_full = !full && m.per_client[c->ip] >= m.lim.max_per_client;
    if (full || client_full) {
      if (m.per_client[c->ip] == 0) m.per_client.erase(c->ip);
      ++(full ? m.stats.refused_busy : m.stats.refused_client);
      send_refusal(fd, 503, "Service Unavailable",
                   full ? "the server has too many connections; try again in a few seconds"
                        : "too many connections from your address; try again in a few seconds",
                   m.lim.retry_after_s);
      c = m.linger(std::move(c));
      if (c) m.incoming.push_back(std::move(c));
    } else {
      ++m.stats.open;
      ++m.per_client[c->ip];
      m.incoming.push_back(std::move(c));
    }
  }
  m.wake();
}

void Gate::stop() {
  auto& m = *impl_;
  {
    std::lock_guard<std::mutex> lk(m.mu);
    if (m.stopped) return;
    m.stopped = true;
    m.stopping = true;
  }
  m.cv.notify_all();
  m.wake();
  if (m.poller.joinable()) m.poller.join();
  for (auto& t : m.workers)
    if (t.joinable()) t.join();
  std::lock_guard<std::mutex> lk(m.mu);
  for (auto& c : m.parked) ::close(c->fd);
  for (auto& c : m.incoming) ::close(c->fd);
  for (auto& c : m.ready) ::close(c->fd);
  m.parked.clear();
  m.incoming.clear();
  m.ready.clear();
}

Gate::Stats Gate::stats() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  return impl_->stats;
}

}  // namespace faultline::serve::detail
