// The analysis workers: each takes the next queued upload, analyses it (in a child process with
// limits, or in-process), labels the database and records the outcome in the index; and the
// rendering of a finished analysis's report.
#include <signal.h>
#include <sqlite3.h>

#include "child.hpp"
#include "faultline/correlate/fleet.hpp"
#include "faultline/store/store.hpp"
#include "impl.hpp"
#include "summary.hpp"

namespace faultline::serve {

namespace fs = std::filesystem;
using detail::Analysis;
using json = nlohmann::json;

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
    detail::remove_db_files(dbp);
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
      detail::summarize(db->handle(), out.bundle_id, result);
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
  std::unique_ptr<detail::ReadDb> db = std::make_unique<detail::ReadDb>(p);
  if (db->user_version() != store::schema_version()) {
    // Written by an older faultline: migrate once (store::Db::open applies the migrations).
    std::lock_guard<std::mutex> lk(migrate_mu);
    db.reset();
    {
      auto rw = store::Db::open(p);
      rw->exec("PRAGMA journal_mode=DELETE");
    }
    db = std::make_unique<detail::ReadDb>(p);
  }
  const auto ids = store::bundle_ids(db->get(), false);
  if (ids.empty()) throw std::runtime_error("the analysis database holds no complete analysis");
  return report::render_bundle(db->get(), ids.front(), f, notes);
}
}  // namespace faultline::serve
