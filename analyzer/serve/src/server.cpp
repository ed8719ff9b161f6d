// faultline serve: the server's life (start-up checks, recovery of an earlier run's uploads and
// analyses, bind/run/stop) and its listen address. The parts of Server::Impl live beside it:
// routes.cpp, upload.cpp, worker.cpp (impl.hpp).
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "impl.hpp"

namespace faultline::serve {

namespace fs = std::filesystem;
using detail::Analysis;
using json = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Addresses

ListenAddress parse_listen(std::string_view s) {
  ListenAddress a;
  std::string_view port;
  if (!s.empty() && s.front() == '[') {
    const auto close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ':')
      throw ConfigError("--listen: '" + std::string(s) + "' is not [IPv6]:PORT");
    a.host = std::string(s.substr(1, close - 1));
    port = s.substr(close + 2);
  } else {
    const auto colon = s.rfind(':');
    if (colon == std::string_view::npos)
      throw ConfigError("--listen: '" + std::string(s) +
                        "' is not ADDRESS:PORT (e.g. 127.0.0.1:8080)");
    a.host = std::string(s.substr(0, colon));
    port = s.substr(colon + 1);
    if (a.host.find(':') != std::string::npos)
      throw ConfigError("--listen: write an IPv6 address in brackets, e.g. [::1]:8080");
  }
  if (a.host.empty()) throw ConfigError("--listen: the address is missing (e.g. 127.0.0.1:8080)");
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw ConfigError("--listen: '" + std::string(port) + "' is not a port number");
  a.port = std::stoi(std::string(port));
  if (a.port > 65535) throw ConfigError("--listen: port " + std::string(port) + " is above 65535");
  return a;
}

bool is_loopback(std::string_view host) {
  if (host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1") return true;
  // 127.0.0.0/8 as a dotted quad
  if (host.substr(0, 4) != "127.") return false;
  int parts = 0;
  size_t i = 0;
  while (i <= host.size()) {
    size_t j = host.find('.', i);
    if (j == std::string_view::npos) j = host.size();
    const auto p = host.substr(i, j - i);
    if (p.empty() || p.size() > 3 ||
        !std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        std::stoi(std::string(p)) > 255)
      return false;
    ++parts;
    i = j + 1;
  }
  return parts == 4;
}

namespace {

// One connection's bytes in memory: reads consume `in`, writes append to `out`.
class MemoryStream : public httplib::Stream {
 public:
  explicit MemoryStream(std::string_view in) : in_(in) {}
  bool is_readable() const override { return pos_ < in_.size(); }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, in_.size() - pos_);
    std::copy_n(in_.data() + pos_, n, ptr);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    out_.append(ptr, size);
    return static_cast<ssize_t>(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 0;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 0;
  }
  socket_t socket() const override { return INVALID_SOCKET; }
  bool exhausted() const { return pos_ >= in_.size(); }
  std::string take_output() { return std::move(out_); }

 private:
  std::string_view in_;
  size_t pos_ = 0;
  std::string out_;
};
}  // namespace

void Server::Impl::open_state() {
  if (cfg.data_dir.empty()) throw ConfigError("--data: a data directory is needed");
  std::error_code ec;
  if (fs::exists(cfg.data_dir, ec) && !fs::is_directory(cfg.data_dir, ec))
    throw ConfigError("--data: " + cfg.data_dir.string() + " exists and is not a directory");
  fs::create_directories(cfg.data_dir, ec);
  if (ec || !fs::is_directory(cfg.data_dir))
    throw ConfigError("--data: " + cfg.data_dir.string() + ": cannot create the directory" +
                      (ec ? ": " + ec.message() : std::string()));
  data = fs::weakly_canonical(fs::absolute(cfg.data_dir));
  tmp_dir = data / "tmp";
  analyses_dir = data / "analyses";
  for (const auto& d : {tmp_dir, analyses_dir}) {
    fs::create_directory(d, ec);
    if (fs::is_symlink(d) || !fs::is_directory(d))
      throw ConfigError("--data: " + d.string() + " is not a directory");
  }
  if (::access(data.c_str(), W_OK) != 0)
    throw ConfigError("--data: " + data.string() + " is not writable");
  try {
    index = std::make_unique<detail::Index>(data / "index.sqlite");
    try {
      compare_rules = app::compare_rules(cfg.analyze.rule_dirs);
    } catch (const std::exception& e) {
      log(std::string("seen before: the compare rules cannot be loaded: ") + e.what());
    }
  } catch (const std::exception& e) {
    throw ConfigError("--data: " + data.string() + ": " + e.what());
  }

  // Partial uploads of an earlier run.
  for (const auto& e : fs::directory_iterator(tmp_dir, ec)) {
    std::error_code rec;
    if (fs::remove(e.path(), rec)) ++recovery.removed_partial_uploads;
  }
  // Analyses interrupted by the stop: failed (their bundle may be what stopped the server).
  const auto now = detail::now_epoch();
  for (const auto& id : index->ids_with_status("running")) {
    index->set_failed(id,
                      "interrupted: the server stopped during the analysis; upload the bundle "
                      "again to retry",
                      now);
    ++recovery.interrupted;
  }
  // Analyses that never started: queued again when their bundle is still there.
  for (const auto& id : index->ids_with_status("queued")) {
    const auto a = index->get(id);
    if (a && detail::valid_id(a->id) && fs::is_regular_file(bundle_path(*a), ec)) {
      queue.push_back(id);
      ++recovery.requeued;
    } else {
      index->set_failed(id, "the uploaded bundle is missing; upload it again", now);
    }
  }
}

void Server::Impl::start_workers() {
  const unsigned n = std::max(1U, cfg.jobs);
  for (unsigned i = 0; i < n; ++i) workers.emplace_back([this] { worker_loop(); });
}
// ---------------------------------------------------------------------------------------------

Server::Server(Config cfg) : impl_(std::make_unique<Impl>(std::move(cfg))) {
  auto& c = impl_->cfg;
  if (c.host.empty()) throw ConfigError("--listen: the address is missing");
  if (c.port < 0 || c.port > 65535) throw ConfigError("--listen: the port is out of range");
  if (!is_loopback(c.host)) {
    if (c.token.empty())
      throw ConfigError("listening on " + c.host +
                        " (not a loopback address) needs --token TOKEN (or FAULTLINE_TOKEN): every "
                        "request must then carry it. Example: --token $(openssl rand -hex 16)");
    if (c.token.size() < kMinTokenLength)
      throw ConfigError("--token: at least " + std::to_string(kMinTokenLength) +
                        " characters are needed on a non-loopback address");
  }
  for (char ch : c.token)
    if (static_cast<unsigned char>(ch) <= 0x20 || static_cast<unsigned char>(ch) >= 0x7f)
      throw ConfigError("--token: use printable ASCII characters without spaces");
  if (c.max_upload == 0) throw ConfigError("--max-upload: must be above 0");
  if (c.jobs == 0) c.jobs = 1;
  impl_->open_state();
  impl_->setup_routes();
  impl_->start_workers();
}

Server::~Server() {
  stop();
  for (auto& t : impl_->workers)
    if (t.joinable()) t.join();
}

int Server::bind() {
  std::lock_guard<std::mutex> lk(impl_->mu);
  if (impl_->bound) return impl_->port;
  auto& c = impl_->cfg;
  int port = -1;
  if (c.port == 0)
    port = impl_->http.bind_to_any_port(c.host);
  else if (impl_->http.bind_to_port(c.host, c.port))
    port = c.port;
  if (port <= 0)
    throw ConfigError("cannot listen on " + c.host + ":" + std::to_string(c.port) +
                      " (address in use, or not an address of this machine)");
  // cpp-httplib listens with a backlog of 5: a burst of clients would see resets.
  ::listen(impl_->http.listen_socket(), 1024);
  impl_->bound = true;
  impl_->port = port;
  return port;
}

bool Server::run() {
  bind();
  {
    std::lock_guard<std::mutex> lk(impl_->mu);
    if (impl_->stopping) return true;
    impl_->in_run = true;
  }
  const bool ok = impl_->http.listen_after_bind();
  {
    std::lock_guard<std::mutex> lk(impl_->mu);
    impl_->in_run = false;
  }
  return ok;
}

void Server::stop() {
  std::lock_guard<std::mutex> stop_lk(impl_->stop_mu);
  {
    std::lock_guard<std::mutex> lk(impl_->mu);
    impl_->stopping = true;
  }
  impl_->work_cv.notify_all();
  impl_->idle_cv.notify_all();
  // The listener may be between run() and its accept loop: wait until it runs or has returned.
  for (;;) {
    {
      std::lock_guard<std::mutex> lk(impl_->mu);
      if (!impl_->in_run) break;
    }
    if (impl_->http.is_running()) {
      impl_->http.stop();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (impl_->gate) impl_->gate->stop();
}

void Server::wait_idle() {
  std::unique_lock<std::mutex> lk(impl_->mu);
  impl_->idle_cv.wait(
      lk, [&] { return impl_->stopping || (impl_->queue.empty() && impl_->running == 0); });
}

int Server::port() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  return impl_->port;
}

const Config& Server::config() const {
  return impl_->cfg;
}

Server::Recovery Server::recovery() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  return impl_->recovery;
}

std::string Server::handle_connection_bytes(std::string_view bytes) {
  MemoryStream strm(bytes);
  bool closed = false;
  // As a keep-alive connection: requests one after the other until the client's bytes end or a
  // response closes the connection.
  while (!closed && !strm.exhausted()) {
    if (!impl_->http.process_request(strm, false, closed, nullptr)) break;
  }
  return strm.take_output();
}

}  // namespace faultline::serve
