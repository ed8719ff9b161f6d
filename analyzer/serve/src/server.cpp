// faultline serve: HTTP routes, upload streaming, the analysis workers and start-up recovery.
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "child.hpp"
#include "conn.hpp"
#include "faultline/app/diff.hpp"
#include "faultline/core/sha256.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"
#include "faultline/correlate/fleet.hpp"
#include "faultline/report/report.hpp"
#include "faultline/serve/serve.hpp"
#include "faultline/store/store.hpp"
#include "index.hpp"
#include "pages.hpp"
#include "similar.hpp"
#include "util.hpp"

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

// ---------------------------------------------------------------------------------------------

namespace {

constexpr const char* kJsonType = "application/json; charset=utf-8";
constexpr const char* kHtmlType = "text/html; charset=utf-8";
constexpr uint64_t kMultipartSlack = 1ULL << 20;  // envelope bytes allowed beyond --max-upload
constexpr uint64_t kDrainOversize = 64ULL << 20;  // an oversize body up to this is read and dropped
constexpr size_t kMaxErrorChars = 2000;
// "Seen before": at most this many earlier analyses, each at least this similar (0..1).
constexpr size_t kSeenBeforeTop = 5;
constexpr double kSeenBeforeMinScore = 0.2;

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool is_api(const httplib::Request& req) {
  return req.path.rfind("/api/", 0) == 0;
}

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
    res.set_content(detail::error_page(status, message, token), kHtmlType);
}

// The token as the request presented it (for links in pages), "" when absent.
std::string presented_token(const httplib::Request& req) {
  return req.has_param("token") ? req.get_param_value("token") : std::string();
}

json iso_or_null(int64_t t) {
  const auto s = detail::iso_utc(t);
  return s.empty() ? json(nullptr) : json(s);
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

// A partial upload file under tmp/: removed unless released into place.
class UploadFile {
 public:
  explicit UploadFile(const fs::path& dir) {
    for (int attempt = 0; attempt < 8 && fd_ < 0; ++attempt) {
      path_ = dir / ("upload-" + detail::new_id() + ".part");
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    }
    if (fd_ < 0) throw std::runtime_error("cannot create an upload file");
  }
  ~UploadFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!released_) {
      std::error_code ec;
      fs::remove(path_, ec);
    }
  }
  UploadFile(const UploadFile&) = delete;
  UploadFile& operator=(const UploadFile&) = delete;

  bool write(const char* p, size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }
  bool close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0;
  }
  // Moves the file to `to` (same file system).
  void release_to(const fs::path& to) {
    fs::rename(path_, to);
    released_ = true;
  }

 private:
  fs::path path_;
  int fd_ = -1;
  bool released_ = false;
};

void remove_db_files(const fs::path& db) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(db.string() + suffix, ec);
}

// The fleet answer of a job bundle (several nodes, docs/fleet.md "A job in one bundle"): it leads
// every surface (page header, list, API), ahead of the per-node findings (issue 34).
void fleet_answer(sqlite3* db, int64_t bundle, Analysis& a) {
  if (!correlate::job_bundle(db, bundle)) return;
  const auto run = correlate::load_fleet(db, {bundle});
  if (!run || !run->first_failure) return;
  const auto& ff = *run->first_failure;
  std::string who;
  json culprits = json::array();
  for (const auto& u : ff.culprits) {
    std::string one = u.host.empty() ? u.address : u.host;
    if (u.rank) one += " rank " + std::to_string(*u.rank);
    if (u.device) one += " device " + std::to_string(*u.device);
    who += (who.empty() ? "" : ", ") + one;
    culprits.push_back({{"host", u.host.empty() ? json(nullptr) : json(u.host)},
                        {"rank", u.rank ? json(*u.rank) : json(nullptr)},
                        {"device", u.device ? json(*u.device) : json(nullptr)},
                        {"address", u.address.empty() ? json(nullptr) : json(u.address)}});
  }
  if (who.empty() && !ff.host.empty()) who = ff.host;
  a.verdict_kind = "first_failure";
  a.verdict_id = ff.rule;
  a.verdict_title = ff.no_single_root
                        ? "No single root: " + ff.reason
                        : who + (ff.culprits.size() > 1 ? " failed together" : " failed first");
  if (a.verdict_title.size() > 300) a.verdict_title = a.verdict_title.substr(0, 300) + "…";
  json j = {{"host", ff.host.empty() ? json(nullptr) : json(ff.host)},
            {"rank", ff.rank ? json(*ff.rank) : json(nullptr)},
            {"device", ff.device ? json(*ff.device) : json(nullptr)},
            {"time", ff.time_ns ? json(format_utc(*ff.time_ns)) : json(nullptr)},
            {"rule", ff.rule},
            {"vendor_code", ff.vendor_code ? json(*ff.vendor_code) : json(nullptr)},
            {"no_single_root", ff.no_single_root},
            {"reason", ff.reason.empty() ? json(nullptr) : json(ff.reason)},
            {"culprits", std::move(culprits)},
            {"summary", ff.summary}};
  a.first_failure = j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Hosts, verdict and counts of a finished analysis, read from its database.
void summarize(sqlite3* db, int64_t bundle, Analysis& a) {
  auto each = [&](const char* sql, const auto& fn) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) {
      sqlite3_finalize(s);
      return;
    }
    sqlite3_bind_int64(s, 1, bundle);
    while (sqlite3_step(s) == SQLITE_ROW) fn(s);
    sqlite3_finalize(s);
  };
  auto text = [](sqlite3_stmt* s, int i) {
    const auto* t = sqlite3_column_text(s, i);
    return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
  };
  each("SELECT name FROM hosts WHERE bundle_id=? ORDER BY name",
       [&](sqlite3_stmt* s) { a.hosts.push_back(text(s, 0)); });
  each("SELECT kind, count(*) FROM findings WHERE bundle_id=? GROUP BY kind", [&](sqlite3_stmt* s) {
    const auto kind = text(s, 0);
    if (kind == "root_cause") a.root_causes = sqlite3_column_int(s, 1);
    if (kind == "symptom") a.symptoms = sqlite3_column_int(s, 1);
    if (kind == "fault") a.faults = sqlite3_column_int(s, 1);
  });
  // the verdict: the first root cause, else the first symptom, else the first fault event
  a.verdict_kind = "none";
  for (const char* kind : {"root_cause", "symptom", "fault"}) {
    if (a.verdict_kind != "none") break;
    const std::string sql =
        std::string("SELECT finding, title FROM findings WHERE bundle_id=? AND kind='") + kind +
        "' ORDER BY rank, id LIMIT 1";
    each(sql.c_str(), [&](sqlite3_stmt* s) {
      a.verdict_kind = kind;
      a.verdict_id = text(s, 0);
      a.verdict_title = text(s, 1);
    });
  }
  each("SELECT count(*) FROM warnings WHERE bundle_id=?",
       [&](sqlite3_stmt* s) { a.warnings = sqlite3_column_int(s, 0); });
  try {
    fleet_answer(db, bundle, a);
  } catch (const std::exception&) {
    // a database without fleet tables or an unreadable run: the per-node verdict stays
  }
}

// Read-only handle on an analysis database.
class ReadDb {
 public:
  explicit ReadDb(const fs::path& p) {
    if (sqlite3_open_v2(p.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, nullptr) !=
        SQLITE_OK) {
      sqlite3_close(db_);
      db_ = nullptr;
      throw std::runtime_error("the analysis database cannot be opened");
    }
    sqlite3_busy_timeout(db_, 5000);
  }
  ~ReadDb() { sqlite3_close(db_); }
  ReadDb(const ReadDb&) = delete;
  ReadDb& operator=(const ReadDb&) = delete;
  sqlite3* get() const { return db_; }
  int user_version() const {
    sqlite3_stmt* s = nullptr;
    int v = -1;
    if (sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
      v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return v;
  }

 private:
  sqlite3* db_ = nullptr;
};

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

// ---------------------------------------------------------------------------------------------

struct Server::Impl {
  Config cfg;
  fs::path data, tmp_dir, analyses_dir;
  std::unique_ptr<detail::Index> index;
  // rules/compare/ of the server's rules: the fingerprint of each analysis ("seen before");
  // none when they cannot be loaded (reports then list no similar uploads)
  std::optional<correlate::CompareRules> compare_rules;

  std::mutex mu;  // index, queue, counters, flags
  std::condition_variable work_cv;
  std::condition_variable idle_cv;
  std::deque<std::string> queue;
  int running = 0;
  bool stopping = false;
  bool in_run = false;
  bool bound = false;
  int port = -1;
  std::vector<std::thread> workers;
  std::mutex migrate_mu;  // upgrades of an old analysis database, one at a time
  // Held through a whole stop(): a stop() from another thread (the signal thread of `serve`)
  // ends before the destructor's own stop() does, so that nothing is destroyed under it.
  std::mutex stop_mu;
  Recovery recovery;

  HttpServer http;
  std::unique_ptr<detail::Gate> gate;  // after http: stopped and destroyed before it

  explicit Impl(Config c) : cfg(std::move(c)) {}

  fs::path analysis_dir(const std::string& id) const { return analyses_dir / id; }
  fs::path db_path(const std::string& id) const { return analysis_dir(id) / "analysis.db"; }
  fs::path bundle_path(const Analysis& a) const { return analysis_dir(a.id) / "upload" / a.file; }

  // Messages shown to clients never name server paths.
  std::string scrub(std::string msg, const Analysis* a) const {
    if (a) {
      msg = detail::replace_all(std::move(msg), bundle_path(*a).string(), a->name);
      msg = detail::replace_all(std::move(msg), analysis_dir(a->id).string(), "[analysis]");
    }
    msg = detail::replace_all(std::move(msg), data.string(), "[data]");
    if (msg.size() > kMaxErrorChars) msg = msg.substr(0, kMaxErrorChars) + "…";
    return msg;
  }

  void log(const std::string& line) const {
    std::fprintf(stderr, "faultline serve: %s\n", text::terminal_safe(line, false).c_str());
  }

  void open_state();
  void start_workers();
  void worker_loop();
  void run_one(Analysis a);
  std::vector<std::string> analyze_command(const fs::path& bundle, const fs::path& dbp) const;
  std::string analyze_in_child(const fs::path& bundle, const fs::path& dbp);
  std::string render(const Analysis& a, report::Format f, report::RenderNotes* notes = nullptr);
  void setup_routes();
  bool authorized(const httplib::Request& req) const;

  // handlers
  void on_upload(const httplib::Request& req, httplib::Response& res,
                 const httplib::ContentReader& reader);
  // The earlier analyses most like `a` (docs/compare.md "Seen before").
  std::vector<detail::SimilarEntry> seen_before(const Analysis& a) {
    std::string mine;
    std::vector<std::pair<Analysis, std::string>> others;
    {
      std::lock_guard<std::mutex> lk(mu);
      mine = index->fingerprint_of(a.id);
      if (mine.empty()) return {};
      others = index->fingerprints(detail::kMaxComparedAnalyses);
    }
    return detail::most_similar(a, mine, others, kSeenBeforeTop, kSeenBeforeMinScore);
  }
  std::optional<Analysis> lookup(const std::string& id) {
    if (!detail::valid_id(id)) return std::nullopt;
    std::lock_guard<std::mutex> lk(mu);
    return index->get(id);
  }
};

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

void Server::Impl::worker_loop() {
  for (;;) {
    Analysis a;
    {
      std::unique_lock<std::mutex> lk(mu);
      work_cv.wait(lk, [&] { return stopping || !queue.empty(); });
      if (stopping) return;
      const std::string id = queue.front();
      queue.pop_front();
      ++running;
      try {
        index->set_running(id, detail::now_epoch());
        auto got = index->get(id);
        if (!got) {
          --running;
          idle_cv.notify_all();
          continue;
        }
        a = std::move(*got);
      } catch (const std::exception& e) {
        log("index: " + std::string(e.what()));
        --running;
        idle_cv.notify_all();
        continue;
      }
    }
    run_one(std::move(a));
  }
}

// The command line of an analysis process: `faultline analyze` with the server's options.
std::vector<std::string> Server::Impl::analyze_command(const fs::path& bundle,
                                                       const fs::path& dbp) const {
  const app::Options& o = cfg.analyze;
  std::vector<std::string> v = {cfg.analyzer.string(), "analyze",     "--db",
                                dbp.string(),          "--no-report", "-q"};
  for (const auto& d : o.rule_dirs) {
    v.emplace_back("--rules");
    v.push_back(fs::absolute(d).string());
  }
  if (o.cache_dir.empty()) {
    v.emplace_back("--no-cache");
  } else {
    v.emplace_back("--cache-dir");
    v.push_back(fs::absolute(o.cache_dir).string());
  }
  if (o.keep_raw) v.emplace_back("--keep-raw");
  const std::pair<const char*, uint64_t> nums[] = {{"--max-depth", o.limits.max_depth},
                                                   {"--max-members", o.limits.max_members},
                                                   {"--max-member-size", o.limits.max_member_bytes},
                                                   {"--max-total-size", o.limits.max_total_bytes},
                                                   {"--max-ratio", o.limits.max_ratio},
                                                   {"--max-line-length", o.limits.max_line_bytes},
                                                   {"--small-file-size", o.small_member_bytes}};
  for (const auto& [flag, n] : nums) {
    v.emplace_back(flag);
    v.push_back(std::to_string(n));
  }
  v.emplace_back("--");
  v.push_back(bundle.string());
  return v;
}

// Runs the analysis in a child process; "" when it completed, else what went wrong.
std::string Server::Impl::analyze_in_child(const fs::path& bundle, const fs::path& dbp) {
  detail::ChildLimits lim;
  lim.memory_bytes = cfg.analysis_memory;
  lim.timeout_s = cfg.analysis_timeout_s;
  const auto r = detail::run_child(analyze_command(bundle, dbp), lim);
  if (!r.spawn_error.empty()) return r.spawn_error;
  if (r.exited && r.exit_code == 0) return {};
  bool own = false;
  // the loader names the program by its path: a server path the client must not see
  const std::string said = detail::replace_all(detail::child_message(r.stderr_tail, &own),
                                               cfg.analyzer.string(), "faultline");
  const std::string mem =
      cfg.analysis_memory ? " (limit " + std::to_string(cfg.analysis_memory >> 20) + " MiB)" : "";
  if (r.timed_out)
    return "the analysis took longer than the limit of " + std::to_string(cfg.analysis_timeout_s) +
           " s and was stopped";
  if (!r.exited) {
    std::string m = "the analysis process died (" + detail::signal_name(r.signal) + ")";
    if (!said.empty()) m += ": " + said;
    if (r.signal == SIGKILL)
      m += "; it was killed from outside, e.g. by the out-of-memory killer";
    else if (cfg.analysis_memory)
      m += "; it may have run out of memory" + mem;
    return m;
  }
  std::string m =
      said.empty() ? "the analysis failed (exit code " + std::to_string(r.exit_code) + ")" : said;
  if (cfg.analysis_memory && m.find("out of memory") != std::string::npos)
    m += mem;
  else if (cfg.analysis_memory && !own)  // e.g. the loader could not map the libraries
    m += "; it may have run out of memory" + mem;
  return m;
}

void Server::Impl::run_one(Analysis a) {
  const fs::path dbp = db_path(a.id);
  const fs::path bundle = bundle_path(a);
  std::string error;
  Analysis result;
  result.id = a.id;
  log("analysing " + a.id + " (" + a.name + ")");
  try {
    remove_db_files(dbp);
    app::Outcome out;
    std::unique_ptr<store::Db> db;
    if (!cfg.analyzer.empty()) {
      // isolated: the child writes the database; the server only reads and labels it
      out.error = analyze_in_child(bundle, dbp);
      out.exit_code = out.error.empty() ? 0 : 3;
      if (out.exit_code == 0) {
        db = store::Db::open(dbp);
        const auto ids = store::bundle_ids(db->handle(), false);
        if (ids.empty()) {
          out.exit_code = 3;
          out.error = "the analysis ended without a complete result";
        } else {
          out.bundle_id = ids.front();
        }
      }
    } else {
      db = store::Db::open(dbp);
      out = app::analyze(*db, bundle, cfg.analyze);
    }
    if (out.exit_code != 0) {
      error = out.error.empty() ? "the bundle could not be read" : out.error;
    } else {
      // Reports show the upload's name, not where this server keeps it.
      sqlite3_stmt* s = nullptr;
      if (sqlite3_prepare_v2(db->handle(), "UPDATE bundles SET path=?1, name=?1 WHERE id=?2", -1,
                             &s, nullptr) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, a.name.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 2, out.bundle_id);
        sqlite3_step(s);
      }
      sqlite3_finalize(s);
      summarize(db->handle(), out.bundle_id, result);
      if (compare_rules) {
        try {
          result.fingerprint = detail::fingerprint_text(
              correlate::fingerprint({db->handle(), out.bundle_id, a.name}, *compare_rules));
        } catch (const std::exception& e) {
          log("fingerprint " + a.id + ": " + e.what());  // the analysis stands without it
        }
      }
      // One self-contained file: downloads and read-only report rendering need no -wal file.
      db->exec("PRAGMA journal_mode=DELETE");
    }
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unexpected error";
  }

  std::lock_guard<std::mutex> lk(mu);
  try {
    if (!error.empty()) {
      error = scrub(error, &a);
      index->set_failed(a.id, error, detail::now_epoch());
      log("analysis " + a.id + " failed: " + error);
    } else {
      result.finished_at = detail::now_epoch();
      index->set_done(result);
      log("analysis " + a.id +
          " done: " + (result.verdict_id.empty() ? std::string("no finding") : result.verdict_id));
    }
  } catch (const std::exception& e) {
    log("index: " + std::string(e.what()));
  }
  --running;
  idle_cv.notify_all();
}

std::string Server::Impl::render(const Analysis& a, report::Format f, report::RenderNotes* notes) {
  const fs::path p = db_path(a.id);
  std::unique_ptr<ReadDb> db = std::make_unique<ReadDb>(p);
  if (db->user_version() != store::schema_version()) {
    // Written by an older faultline: migrate once (store::Db::open applies the migrations).
    std::lock_guard<std::mutex> lk(migrate_mu);
    db.reset();
    {
      auto rw = store::Db::open(p);
      rw->exec("PRAGMA journal_mode=DELETE");
    }
    db = std::make_unique<ReadDb>(p);
  }
  const auto ids = store::bundle_ids(db->get(), false);
  if (ids.empty()) throw std::runtime_error("the analysis database holds no complete analysis");
  return report::render_bundle(db->get(), ids.front(), f, notes);
}

bool Server::Impl::authorized(const httplib::Request& req) const {
  if (cfg.token.empty()) return true;
  const std::string auth = req.get_header_value("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (auth.size() > kBearer.size() && auth.compare(0, kBearer.size(), kBearer) == 0 &&
      detail::token_equal(std::string_view(auth).substr(kBearer.size()), cfg.token))
    return true;
  return req.has_param("token") && detail::token_equal(req.get_param_value("token"), cfg.token);
}

void Server::Impl::on_upload(const httplib::Request& req, httplib::Response& res,
                             const httplib::ContentReader& reader) {
  const std::string tok = presented_token(req);
  {
    std::lock_guard<std::mutex> lk(mu);
    if (queue.size() >= cfg.max_queued) {
      res.set_header("Retry-After", "60");
      res.set_header("Connection", "close");
      send_error(req, res, 503, "too many analyses are waiting; try again later", tok);
      return;
    }
  }
  const uint64_t declared = req.get_header_value<uint64_t>("Content-Length");
  if (declared > cfg.max_upload + kMultipartSlack + kDrainOversize) {
    // Far too large to read and drop: answer now and close the connection.
    res.set_header("Connection", "close");
    send_error(req, res, 413,
               "the upload is larger than this server accepts (" +
                   detail::human_size(cfg.max_upload) + ")",
               tok);
    return;
  }

  std::string upload_name = req.get_param_value("name");
  if (upload_name.empty()) upload_name = req.get_header_value("X-Filename");

  UploadFile file(tmp_dir);
  Sha256 hash;
  uint64_t bytes = 0;
  bool too_big = false, write_failed = false;
  auto sink = [&](const char* d, size_t n) {
    if (bytes + n > cfg.max_upload) {
      too_big = true;
      return false;
    }
    if (!file.write(d, n)) {
      write_failed = true;
      return false;
    }
    hash.update(d, n);
    bytes += n;
    return true;
  };

  bool ok = false;
  bool have_file = false;
  if (req.is_multipart_form_data()) {
    bool in_file = false;
    ok = reader(
        [&](const httplib::MultipartFormData& part) {
          in_file = !have_file &&
                    (!part.filename.empty() || part.name == "file" || part.name == "bundle");
          if (in_file) {
            have_file = true;
            if (!part.filename.empty()) upload_name = part.filename;
          }
          return true;
        },
        [&](const char* d, size_t n) { return in_file ? sink(d, n) : true; });
  } else {
    have_file = true;
    ok = reader([&](const char* d, size_t n) { return sink(d, n); });
  }

  if (too_big || (!ok && res.status == 413)) {
    res.set_header("Connection", "close");
    send_error(req, res, 413,
               "the upload is larger than this server accepts (" +
                   detail::human_size(cfg.max_upload) + ")",
               tok);
    return;
  }
  if (write_failed) {
    res.set_header("Connection", "close");
    send_error(req, res, 507, "the upload could not be stored (is the server's disk full?)", tok);
    return;
  }
  if (!ok && detail::request_timed_out()) {
    res.set_header("Connection", "close");
    send_error(req, res, 408,
               "the upload arrived too slowly (below " + detail::human_size(cfg.min_transfer_rate) +
                   "/s); nothing was stored",
               tok);
    return;
  }
  if (!ok) {
    res.set_header("Connection", "close");
    send_error(req, res, 400, "the upload was interrupted or is not a valid request body", tok);
    return;
  }
  if (!have_file) {
    send_error(req, res, 400, "the form has no file part (send the bundle in a field named 'file')",
               tok);
    return;
  }
  if (bytes == 0) {
    send_error(req, res, 400, "the upload is empty", tok);
    return;
  }
  if (!file.close()) {
    send_error(req, res, 507, "the upload could not be stored (is the server's disk full?)", tok);
    return;
  }
  const std::string sha = hash.hex();
  const std::string name = detail::display_name(upload_name);
  const std::string fname = detail::safe_file_name(upload_name);

  std::lock_guard<std::mutex> lk(mu);
  try {
    auto existing = index->by_sha256(sha);
    if (existing && existing->status != "failed") {
      json j = analysis_json(*existing);
      j["duplicate"] = true;
      send_json(res, 200, j);
      res.set_header("Location", "/api/bundles/" + existing->id);
      return;
    }
    if (queue.size() >= cfg.max_queued) {
      res.set_header("Retry-After", "60");
      send_error(req, res, 503, "too many analyses are waiting; try again later", tok);
      return;
    }
    const int64_t now = detail::now_epoch();
    std::string id;
    if (existing) {
      // A failed analysis of the same bytes: run it again under the same id.
      id = existing->id;
      if (!detail::valid_id(id)) throw std::runtime_error("bad id in the index");
      std::error_code ec;
      fs::remove_all(analysis_dir(id) / "upload", ec);
      remove_db_files(db_path(id));
      fs::create_directories(analysis_dir(id) / "upload");
      Analysis a = *existing;
      a.file = fname;
      file.release_to(bundle_path(a));
      index->requeue(id, name, fname, now);
    } else {
      for (int attempt = 0; attempt < 8 && id.empty(); ++attempt) {
        std::string cand = detail::new_id();
        if (fs::create_directory(analysis_dir(cand))) id = cand;
      }
      if (id.empty()) throw std::runtime_error("cannot create an analysis directory");
      fs::create_directory(analysis_dir(id) / "upload");
      Analysis a;
      a.id = id;
      a.sha256 = sha;
      a.name = name;
      a.file = fname;
      a.size = bytes;
      a.status = "queued";
      a.uploaded_at = now;
      file.release_to(bundle_path(a));
      index->insert(a);
    }
    queue.push_back(id);
    work_cv.notify_one();
    log("upload " + id + ": " + name + " (" + detail::human_size(bytes) + ") queued");
    res.set_header("Location", "/api/bundles/" + id);
    send_json(res, 202, json{{"id", id}, {"status", "queued"}, {"sha256", sha}, {"size", bytes}});
  } catch (const std::exception& e) {
    log("upload failed: " + std::string(e.what()));
    send_error(req, res, 500, "the upload could not be registered", tok);
  }
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
  http.new_task_queue = [] { return new InlineQueue(); };
  http.set_keep_alive_max_count(lim.keep_alive_max);
  http.set_keep_alive_timeout(std::max<time_t>(1, lim.keep_alive_ms / 1000));
  http.set_payload_max_length(static_cast<size_t>(cfg.max_upload + kMultipartSlack));
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
    const std::string tok = presented_token(req);
    if (!authorized(req)) {
      res.set_header("WWW-Authenticate", "Bearer realm=\"faultline\"");
      send_error(req, res, 401,
                 "a valid token is needed (Authorization: Bearer TOKEN or ?token=TOKEN)", tok);
      return 401;
    }
    if (req.get_header_value<uint64_t>("Content-Length") > cfg.max_upload + kMultipartSlack) {
      send_error(req, res, 413,
                 "the upload is larger than this server accepts (" +
                     detail::human_size(cfg.max_upload) + ")",
                 tok);
      return 413;
    }
    return 100;
  });

  http.set_pre_routing_handler([this](const Request& req, Response& res) {
    const std::string tok = presented_token(req);
    if (!authorized(req)) {
      res.set_header("WWW-Authenticate", "Bearer realm=\"faultline\"");
      if (req.method != "GET" && req.method != "HEAD") res.set_header("Connection", "close");
      send_error(req, res, 401,
                 "a valid token is needed (Authorization: Bearer TOKEN or ?token=TOKEN)", tok);
      return httplib::Server::HandlerResponse::Handled;
    }
    const bool read_only = req.method == "GET" || req.method == "HEAD";
    const bool upload = req.method == "POST" && req.path == "/api/bundles";
    if (!read_only && !upload) {
      // Never let a request body be read into memory by a route that does not stream it.
      res.set_header("Allow", req.path == "/api/bundles" ? "GET, HEAD, POST" : "GET, HEAD");
      res.set_header("Connection", "close");
      send_error(req, res, 405, "method not allowed", tok);
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
        send_error(req, res, res.status, msg, presented_token(req));
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
    send_error(req, res, 500, "internal error (see the server's log)", presented_token(req));
  });

  // Pages -------------------------------------------------------------------------------------
  http.Get("/", [this](const Request& req, Response& res) {
    std::vector<Analysis> recent;
    {
      std::lock_guard<std::mutex> lk(mu);
      recent = index->list(20);
    }
    res.set_content(detail::home_page(recent, cfg.max_upload, presented_token(req)), kHtmlType);
  });

  http.Get("/bundles", [this](const Request& req, Response& res) {
    std::vector<Analysis> all;
    {
      std::lock_guard<std::mutex> lk(mu);
      all = index->list(1000);
    }
    res.set_content(detail::list_page(all, presented_token(req)), kHtmlType);
  });

  http.Get(R"(/bundles/([^/]+))", [this](const Request& req, Response& res) {
    const std::string tok = presented_token(req);
    const auto a = lookup(req.matches[1].str());
    if (!a) return send_error(req, res, 404, "no such analysis", tok);
    if (a->status != "done") {
      res.set_content(detail::status_page(*a, tok), kHtmlType);
      return;
    }
    std::string html;
    try {
      html = render(*a, report::Format::html);
    } catch (const std::exception& e) {
      log("report " + a->id + ": " + e.what());
      return send_error(req, res, 500, "the report could not be rendered", tok);
    }
    res.set_content(detail::report_page(*a, html, tok, detail::similar_html(seen_before(*a), tok)),
                    kHtmlType);
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
      if (!v || *v == 0) return send_error(req, res, 400, "limit: a positive number is needed", "");
      limit = std::min<size_t>(*v, 1000);
    }
    std::vector<Analysis> all;
    {
      std::lock_guard<std::mutex> lk(mu);
      all = index->list(limit);
    }
    json list = json::array();
    for (const auto& a : all) list.push_back(analysis_json(a));
    send_json(res, 200, json{{"analyses", list}, {"count", list.size()}});
  });

  http.Post("/api/bundles",
            [this](const Request& req, Response& res, const httplib::ContentReader& reader) {
              on_upload(req, res, reader);
            });

  http.Get(R"(/api/bundles/([^/]+))", [this](const Request& req, Response& res) {
    const auto a = lookup(req.matches[1].str());
    if (!a) return send_error(req, res, 404, "no such analysis", "");
    json j = analysis_json(*a);
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
    send_json(res, 200, j);
  });

  // jsonl, csv: the timeline export (docs/timeline-export.md)
  http.Get(R"(/api/bundles/([^/]+)/report\.(md|html|json|jsonl|csv))",
           [this](const Request& req, Response& res) {
             const auto a = lookup(req.matches[1].str());
             if (!a) return send_error(req, res, 404, "no such analysis", "");
             if (a->status != "done")
               return send_error(req, res, 409,
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
               return send_error(req, res, 500, "the report could not be rendered", "");
             }
             const char* type = ext == "md"      ? "text/markdown; charset=utf-8"
                                : ext == "json"  ? kJsonType
                                : ext == "jsonl" ? "application/x-ndjson; charset=utf-8"
                                : ext == "csv"   ? "text/csv; charset=utf-8; header=present"
                                                 : kHtmlType;
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
    if (!a) return send_error(req, res, 404, "no such analysis", "");
    if (a->status != "done")
      return send_error(req, res, 409,
                        "the analysis is " + a->status + "; its database is not ready", "");
    const fs::path p = db_path(a->id);
    const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return send_error(req, res, 500, "the analysis database cannot be read", "");
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      return send_error(req, res, 500, "the analysis database cannot be read", "");
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
