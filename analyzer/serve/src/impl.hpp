// The state of one server (serve.hpp's Server::Impl), shared by the files that implement it:
// server.cpp (start-up, recovery, the public methods), routes.cpp (pages and API), upload.cpp
// (streamed uploads), worker.cpp (the analysis queue and its workers).
#pragma once

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "conn.hpp"
#include "faultline/app/diff.hpp"
#include "faultline/core/text.hpp"
#include "faultline/report/report.hpp"
#include "faultline/serve/serve.hpp"
#include "http.hpp"
#include "index.hpp"
#include "similar.hpp"
#include "util.hpp"

namespace faultline::serve {

namespace fs = std::filesystem;
using detail::Analysis;
using json = nlohmann::json;

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

  detail::HttpServer http;
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
    if (msg.size() > detail::kMaxErrorChars) msg = msg.substr(0, detail::kMaxErrorChars) + "…";
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
    return detail::most_similar(a, mine, others, detail::kSeenBeforeTop,
                                detail::kSeenBeforeMinScore);
  }
  std::optional<Analysis> lookup(const std::string& id) {
    if (!detail::valid_id(id)) return std::nullopt;
    std::lock_guard<std::mutex> lk(mu);
    return index->get(id);
  }
};

}  // namespace faultline::serve
