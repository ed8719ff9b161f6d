#include "serve_cmd.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "commands.hpp"
#include "faultline/core/sanitizer.hpp"
#include "faultline/core/text.hpp"
#include "faultline/serve/serve.hpp"

namespace faultline::cli {

namespace fs = std::filesystem;

namespace {

// The server the signal thread stops (cleared before the server is destroyed).
std::atomic<serve::Server*> g_server{nullptr};

fs::path default_data_dir() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
    return fs::path(x) / "faultline" / "serve";
  if (const char* h = std::getenv("HOME"); h && *h)
    return fs::path(h) / ".local/share/faultline/serve";
  return "faultline-serve-data";
}

}  // namespace

void add_serve_options(CLI::App& cmd, ServeArgs& a) {
  cmd.add_option("--listen", a.listen,
                 "ADDRESS:PORT to listen on (default 127.0.0.1:8080; port 0 picks a free port). A "
                 "non-loopback address needs --token");
  cmd.add_option("--data", a.data_dir,
                 "Directory for uploads, one database per analysis and the index (default "
                 "$XDG_DATA_HOME/faultline/serve or ~/.local/share/faultline/serve)");
  cmd.add_option("--max-upload", a.max_upload, "Largest bundle accepted (default 4G); 413 beyond");
  cmd.add_option("-j,--jobs", a.jobs,
                 "Analyses run in parallel (default: half the cores, at least 1)");
  cmd.add_option("--token", a.token,
                 "Access token required on every request (Authorization: Bearer TOKEN or "
                 "?token=TOKEN); required on a non-loopback address")
      ->envname("FAULTLINE_TOKEN");
  cmd.add_option("--rules", a.rule_dirs,
                 "Extra rules directory overriding the built-in rules. Repeatable.")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);  // one DIR per --rules: `--rules DIR BUNDLE` works
  cmd.add_option("--cache-dir", a.cache_dir, "Where compiled signature databases are cached");
  cmd.add_flag("--no-cache", a.no_cache, "Compile the signature database for every analysis");
  cmd.add_option("--analysis-memory", a.analysis_memory,
                 "Address space of one analysis process (default 4G; 0: no limit); an analysis "
                 "that needs more fails, the server goes on");
  cmd.add_option("--analysis-timeout", a.analysis_timeout,
                 "Wall time of one analysis (default 2h; 90m, 600s, 0: no limit); a longer one "
                 "is stopped and marked failed");
  cmd.add_option("--max-connections", a.max_connections,
                 "Open connections held at once (default 512); 503 with Retry-After beyond");
  cmd.add_option("--max-per-client", a.max_per_client,
                 "Open connections from one client address (default 32); 503 beyond");
  cmd.add_option("--request-timeout", a.request_timeout,
                 "Time a client has to send a complete request head, from the connect or from "
                 "the first byte of a later request on the connection (default 10s); 408 beyond");
}

namespace {

// "2h", "90m", "600s", "600" -> seconds; "0" -> 0.
unsigned parse_duration(const std::string& s, const char* option) {
  std::string v = s;
  unsigned mult = 1;
  if (!v.empty() && (v.back() == 's' || v.back() == 'm' || v.back() == 'h')) {
    mult = v.back() == 'h' ? 3600 : v.back() == 'm' ? 60 : 1;
    v.pop_back();
  }
  const auto n = text::to_int<uint64_t>(v);
  if (!n || *n * mult > 30ULL * 24 * 3600)
    throw UsageError(std::string(option) + ": '" + s +
                     "' is not a duration (examples: 600s, 90m, 2h; 0 for no limit)");
  return static_cast<unsigned>(*n * mult);
}

}  // namespace

int run_serve(const ServeArgs& a) {
  serve::Config cfg;
  try {
    const auto addr = serve::parse_listen(a.listen);
    cfg.host = addr.host;
    cfg.port = addr.port;
  } catch (const serve::ConfigError& e) {
    throw UsageError(e.what());
  }
  cfg.data_dir = a.data_dir.empty() ? default_data_dir() : fs::path(a.data_dir);
  cfg.max_upload = parse_size(a.max_upload, "--max-upload");
  const unsigned hw = std::thread::hardware_concurrency();
  cfg.jobs = a.jobs != 0 ? a.jobs : std::max(1U, hw / 2);
  cfg.token = a.token;
  for (const auto& d : a.rule_dirs) cfg.analyze.rule_dirs.emplace_back(d);
  if (!a.no_cache)
    cfg.analyze.cache_dir = a.cache_dir.empty() ? app::default_cache_dir() : fs::path(a.cache_dir);
  // Every analysis runs in a child process of this very binary (docs/api.md, "Isolation").
  cfg.analyzer = "/proc/self/exe";
  if (::access(cfg.analyzer.c_str(), X_OK) != 0) {
    std::fprintf(stderr,
                 "faultline serve: /proc/self/exe is not available (no /proc?): analyses run in "
                 "the server process, without memory and time limits\n");
    cfg.analyzer.clear();
  }
  cfg.analysis_memory =
      text::trim(a.analysis_memory) == "0" ? 0 : parse_size(a.analysis_memory, "--analysis-memory");
#if FL_ASAN
  cfg.analysis_memory = 0;  // AddressSanitizer reserves terabytes of address space up front
#endif
  cfg.analysis_timeout_s = parse_duration(a.analysis_timeout, "--analysis-timeout");
  cfg.max_connections = a.max_connections;
  cfg.max_connections_per_client = a.max_per_client;
  const unsigned head_s = parse_duration(a.request_timeout, "--request-timeout");
  if (head_s == 0 || head_s > 3600)
    throw UsageError("--request-timeout: between 1s and 1h (got '" + a.request_timeout + "')");
  cfg.request_head_timeout_ms = head_s * 1000;

  // Signals are taken by one thread (sigwait) so that every other thread runs undisturbed:
  // the first SIGINT/SIGTERM stops serving and lets running analyses end; a second one quits now
  // (the interrupted analyses are marked failed at the next start).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<serve::Server> server;
  int port = 0;
  try {
    server = std::make_unique<serve::Server>(cfg);
    port = server->bind();
  } catch (const serve::ConfigError& e) {
    throw UsageError(e.what());
  }

  g_server = server.get();
  std::thread([set]() mutable {
    int sig = 0;
    sigwait(&set, &sig);
    std::fprintf(stderr,
                 "faultline serve: stopping; running analyses are allowed to end (signal again to "
                 "quit now)\n");
    if (serve::Server* srv = g_server.load()) srv->stop();
    sigwait(&set, &sig);
    std::fprintf(stderr, "faultline serve: quitting now\n");
    std::_Exit(130);
  }).detach();

  const auto rec = server->recovery();
  if (rec.interrupted > 0)
    std::fprintf(stderr,
                 "faultline serve: %d analysis(es) interrupted by the last stop marked failed\n",
                 rec.interrupted);
  if (rec.requeued > 0)
    std::fprintf(stderr, "faultline serve: %d queued analysis(es) queued again\n", rec.requeued);
  const bool v6 = cfg.host.find(':') != std::string::npos;
  std::fprintf(
      stderr,
      "faultline serve: listening on http://%s%s%s:%d/ (data %s, %u worker(s), uploads up to "
      "%s, each analysis in its own process: memory %s, time %s)%s\n",
      v6 ? "[" : "", cfg.host.c_str(), v6 ? "]" : "", port,
      fs::absolute(cfg.data_dir).string().c_str(), cfg.jobs, a.max_upload.c_str(),
      cfg.analysis_memory ? a.analysis_memory.c_str() : "no limit",
      cfg.analysis_timeout_s ? a.analysis_timeout.c_str() : "no limit",
      cfg.token.empty() ? "" : "; requests need the token");
  std::fflush(stderr);
  const bool ok = server->run();
  g_server = nullptr;
  server.reset();  // waits for running analyses
  if (!ok) {
    std::fprintf(stderr, "faultline serve: the listening socket failed\n");
    return 2;
  }
  return 0;
}

}  // namespace faultline::cli
