// The `fleet` job: many node bundles of one job, analysed in parallel, merged into one database.
#include "faultline/correlate/fleet.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "faultline/app/app.hpp"
#include "faultline/pipeline/stats.hpp"
#include "prepared.hpp"

namespace faultline::app {

namespace fs = std::filesystem;

namespace {

bool is_archive_name(const std::string& n) {
  for (const char* e : {".tar", ".tar.gz", ".tgz", ".tar.zst", ".tzst", ".tar.xz", ".txz",
                        ".tar.bz2", ".zip", ".gz", ".zst", ".xz"})
    if (n.size() > std::strlen(e) && n.compare(n.size() - std::strlen(e), std::strlen(e), e) == 0)
      return true;
  return false;
}

// Reads one column list of a table (for the generic, id-renumbering merge).
std::vector<std::string> columns(sqlite3* db, const std::string& schema, const std::string& table) {
  std::vector<std::string> out;
  sqlite3_stmt* s = nullptr;
  const std::string sql = "PRAGMA " + schema + ".table_info(" + table + ")";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) return out;
  while (sqlite3_step(s) == SQLITE_ROW)
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)));
  sqlite3_finalize(s);
  return out;
}

int64_t scalar(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  int64_t v = 0;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW)
    v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return v;
}

// Tables in foreign-key order, and which table each id column points at.
const std::vector<std::string>& tables() {
  static const std::vector<std::string> t = {
      "bundles", "hosts",    "members", "member_text", "events",           "hits",
      "facts",   "warnings", "clocks",  "findings",    "finding_evidence", "timeline"};
  return t;
}

std::string ref_table(const std::string& table, const std::string& col) {
  if (col == "id") return table == "member_text" ? "" : table;
  if (col == "bundle_id") return "bundles";
  if (col == "member_id") return "members";
  if (col == "event_id") return "events";
  if (col == "finding_id") return "findings";
  return "";
}

}  // namespace

std::vector<fs::path> expand_fleet_inputs(const std::vector<fs::path>& in) {
  std::vector<fs::path> out;
  for (const auto& p : in) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    std::vector<fs::path> dirs, archives;
    bool has_plain_files = false;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      const std::string name = e.path().filename().string();
      if (name.empty() || name[0] == '.') continue;
      if (e.is_directory(ec) && !e.is_symlink(ec))
        dirs.push_back(e.path());
      else if (e.is_regular_file(ec) && is_archive_name(name))
        archives.push_back(e.path());
      else if (e.is_regular_file(ec) && name != "README.md" && name != "README")
        has_plain_files = true;
    }
    if (has_plain_files || (archives.empty() && dirs.size() <= 1)) {
      out.push_back(p);  // the directory is one node's bundle
      continue;
    }
    out.insert(out.end(), dirs.begin(), dirs.end());
    out.insert(out.end(), archives.begin(), archives.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int64_t> merge_database(store::Db& db, const fs::path& src) {
  sqlite3* h = db.handle();
  const std::string attach = "ATTACH DATABASE '" + [&] {
    std::string s = src.string();
    std::string q;
    for (char c : s) {
      q += c;
      if (c == '\'') q += '\'';
    }
    return q;
  }() + "' AS src";
  db.exec(attach);
  std::vector<int64_t> ids;
  try {
    db.begin();
    // replace bundles analysed before
    db.exec("DELETE FROM main.bundles WHERE sha256 IN (SELECT sha256 FROM src.bundles)");
    std::map<std::string, int64_t> off;
    for (const auto& t : tables())
      if (t != "member_text") off[t] = scalar(h, "SELECT coalesce(max(id),0) FROM main." + t);
    for (const auto& t : tables()) {
      const auto cols = columns(h, "src", t);
      std::string list, select;
      for (const auto& c : cols) {
        if (!list.empty()) {
          list += ",";
          select += ",";
        }
        list += "\"" + c + "\"";
        const std::string ref = ref_table(t, c);
        if (!ref.empty())
          select += "\"" + c + "\"+" + std::to_string(off[ref]);
        else
          select += "\"" + c + "\"";
      }
      db.exec("INSERT INTO main." + t + "(" + list + ") SELECT " + select + " FROM src." + t +
              " ORDER BY rowid");
    }
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(h, "SELECT id FROM src.bundles ORDER BY id", -1, &s, nullptr);
    while (sqlite3_step(s) == SQLITE_ROW)
      ids.push_back(sqlite3_column_int64(s, 0) + off["bundles"]);
    sqlite3_finalize(s);
    db.commit();
  } catch (...) {
    sqlite3_exec(h, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_exec(h, "DETACH DATABASE src", nullptr, nullptr, nullptr);
    throw;
  }
  db.exec("DETACH DATABASE src");
  return ids;
}

FleetOutcome fleet(store::Db& db, const std::vector<fs::path>& bundles, const Options& opts,
                   unsigned jobs) {
  FleetOutcome out;
  if (jobs == 0) jobs = std::max(1U, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, static_cast<unsigned>(std::max<size_t>(1, bundles.size())));
  std::vector<std::vector<int64_t>> ids(bundles.size());
  std::vector<std::string> errors(bundles.size());
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::atomic<uint64_t> bytes{0};
  std::mutex merge_mu;
  std::map<std::string, size_t>
      merged_sha;  // sha256 -> input index (same content twice in one run)
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = pipeline::cpu_seconds();
  std::mutex stats_mu;
  double prepare_s = 0, analyze_s = 0, merge_s = 0, merge_wait_s = 0, merge_cpu_s = 0,
         analyze_cpu_s = 0;
  unsigned prepares = 0;
  const bool tty = opts.progress;

  const fs::path tmpdir = [] {
    const char* t = std::getenv("TMPDIR");
    return fs::path(t && *t ? t : "/tmp");
  }();

  // Without a cache directory (--no-cache) every bundle would compile the signature database
  // again (~0.5 s CPU each): the run keeps one in a private directory, removed at the end.
  fs::path run_cache;
  if (opts.cache_dir.empty() && bundles.size() > 1) {
    run_cache = tmpdir / ("faultline-fleet-" + std::to_string(::getpid()) + "-rules");
    std::error_code ec;
    fs::remove_all(run_cache, ec);
    if (!fs::create_directories(run_cache, ec) || ec) run_cache.clear();
  }
  struct RemoveDir {
    fs::path p;
    ~RemoveDir() {
      std::error_code ec;
      if (!p.empty()) fs::remove_all(p, ec);
    }
  } remove_run_cache{run_cache};

  auto worker = [&](unsigned w) {
    Options o = opts;
    if (!run_cache.empty()) o.cache_dir = run_cache;
    o.progress = false;
    o.stats = false;
    o.pipeline_threads = false;          // one thread per bundle: the workers are the parallelism
    o.job_fleet = false;                 // the fleet correlates all bundles at the end
    std::unique_ptr<Prepared> prepared;  // rules, classifier and engine: once per worker
    double my_prepare = 0, my_analyze = 0, my_merge = 0, my_wait = 0, my_merge_cpu = 0,
           my_analyze_cpu = 0;
    unsigned my_prepares = 0;
    // An empty database with the schema, created once per worker and copied for each bundle:
    // creating one costs a few journal transactions, each with its fsyncs.
    const fs::path empty = tmpdir / ("faultline-fleet-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(w) + "-empty.db");
    bool have_empty = false;
    while (true) {
      const size_t i = next.fetch_add(1);
      if (i >= bundles.size()) break;
      const fs::path tmp = tmpdir / ("faultline-fleet-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(w) + "-" + std::to_string(i) + ".db");
      std::error_code ec;
      for (const char* s : {"", "-wal", "-shm"}) fs::remove(tmp.string() + s, ec);
      try {
        Outcome r;
        if (!have_empty) {
          for (const char* s : {"", "-wal", "-shm"}) fs::remove(empty.string() + s, ec);
          store::Db::open(empty)->exec("PRAGMA wal_checkpoint(TRUNCATE)");
          have_empty = true;
        }
        if (!prepared) {
          prepared = prepare(o);
          my_prepare += prepared->span.wall;
          ++my_prepares;
        }
        {
          pipeline::ScopeTimer t(my_analyze);
          const double c0 = pipeline::thread_cpu_seconds();
          fs::copy_file(empty, tmp, fs::copy_options::overwrite_existing);
          // a scratch file, merged then deleted
          auto part = store::Db::open(tmp, store::Db::Durability::scratch);
          r = analyze_prepared(*part, bundles[i], o, *prepared);
          part.reset();
          my_analyze_cpu += pipeline::thread_cpu_seconds() - c0;
        }
        if (r.exit_code != 0) {
          errors[i] = r.error;
        } else {
          bytes += r.ingest.bytes;
          const auto tw = std::chrono::steady_clock::now();
          std::lock_guard<std::mutex> lock(merge_mu);
          my_wait += std::chrono::duration<double>(std::chrono::steady_clock::now() - tw).count();
          pipeline::ScopeTimer t(my_merge);
          const double c0 = pipeline::thread_cpu_seconds();
          // The database keys bundles by sha256: a second input with the same content would
          // replace the first one's rows. Keep the first input in input order (whichever worker
          // finishes first) and report the other one.
          auto dup = [&](size_t kept, size_t dropped) {
            errors[dropped] = bundles[dropped].string() + ": same content (sha256 " +
                              r.ingest.sha256.substr(0, 12) + "...) as " + bundles[kept].string() +
                              ": analysed once";
          };
          auto it = merged_sha.find(r.ingest.sha256);
          if (it == merged_sha.end()) {
            ids[i] = merge_database(db, tmp);
            merged_sha.emplace(r.ingest.sha256, i);
          } else if (it->second < i) {
            dup(it->second, i);
          } else {
            const size_t later = it->second;
            ids[i] = merge_database(db, tmp);  // replaces the later input's rows (same sha256)
            ids[later].clear();
            dup(i, later);
            it->second = i;
          }
          my_merge_cpu += pipeline::thread_cpu_seconds() - c0;
        }
      } catch (const std::exception& e) {
        errors[i] = bundles[i].string() + ": " + e.what();
      }
      for (const char* s : {"", "-wal", "-shm"}) fs::remove(tmp.string() + s, ec);
      const size_t d = ++done;
      if (tty) {
        std::lock_guard<std::mutex> lock(merge_mu);
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double rate = secs > 0 ? static_cast<double>(d) / secs : 0;
        const double eta = rate > 0 ? static_cast<double>(bundles.size() - d) / rate : 0;
        std::fprintf(stderr, "\rfaultline fleet: %zu/%zu bundles, %.1f MB/s, ETA %.0f s   ", d,
                     bundles.size(),
                     secs > 0 ? static_cast<double>(bytes.load()) / 1e6 / secs : 0.0, eta);
        std::fflush(stderr);
      }
    }
    if (have_empty) {
      std::error_code ec;
      for (const char* s : {"", "-wal", "-shm"}) fs::remove(empty.string() + s, ec);
    }
    std::lock_guard<std::mutex> lock(stats_mu);
    prepare_s += my_prepare;
    analyze_s += my_analyze;
    merge_s += my_merge;
    merge_wait_s += my_wait;
    merge_cpu_s += my_merge_cpu;
    analyze_cpu_s += my_analyze_cpu;
    prepares += my_prepares;
  };
  // Merges commit one bundle at a time: checkpoint the fleet database's WAL every 64 MB instead
  // of every 4 MB (each checkpoint waits for the disk), back to the default afterwards.
  db.exec("PRAGMA wal_autocheckpoint=16384");
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < jobs; ++w) threads.emplace_back(worker, w);
  for (auto& t : threads) t.join();
  db.exec("PRAGMA wal_autocheckpoint=1000");
  if (tty) std::fputs("\n", stderr);

  std::vector<int64_t> failed_ids;
  for (size_t i = 0; i < bundles.size(); ++i) {
    if (!errors[i].empty()) {
      out.failures.push_back({bundles[i].string(), errors[i]});
      // a row for the broken bundle, so that the fleet report lists it with the reason
      const int64_t b =
          db.begin_bundle({bundles[i].string(), bundles[i].filename().string(), "{}"});
      db.add_warning(b, Warning{"", errors[i]});
      db.finish_load(b, "failed:" + bundles[i].string(), 0, 0, 0);
      db.mark_failed(b, errors[i]);
      failed_ids.push_back(b);
      continue;
    }
    out.bundle_ids.insert(out.bundle_ids.end(), ids[i].begin(), ids[i].end());
  }
  // Fleet-level correlation over the merged rows (docs/fleet.md): first failure, clock offsets.
  if (!out.bundle_ids.empty()) {
    try {
      correlate::run_fleet(db.handle(), out.bundle_ids, failed_ids);
    } catch (const std::exception& e) {
      out.correlation_error = e.what();
      // Keep a run without the cross-node inference whose note says why, so that the report
      // (now and from `report --db`) shows the per-node results and the failure instead of
      // running the inference again at render time.
      correlate::FleetResult empty;
      empty.bundle_ids = out.bundle_ids;
      empty.failed_ids = failed_ids;
      std::sort(empty.failed_ids.begin(), empty.failed_ids.end());
      empty.notes.push_back("the cross-node correlation failed (" + out.correlation_error +
                            "): first failure, clock offsets and ranks are not computed; the "
                            "per-node results stand");
      try {
        correlate::store_fleet(db.handle(), empty);
      } catch (const std::exception&) {
        // the database refuses the fleet tables altogether: the caller reports the error
      }
    }
  }
  if (opts.stats) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double mb = static_cast<double>(bytes.load()) / 1e6;
    std::fprintf(stderr, "faultline fleet stats:\n");
    std::fprintf(stderr,
                 "  input      %zu bundles (%zu failed), %.1f MB uncompressed, %u worker(s)\n",
                 bundles.size(), out.failures.size(), mb, jobs);
    std::fprintf(stderr,
                 "  prepare    %8.3f s  rules + classifier + signature database, %u time(s) (once "
                 "per worker)\n",
                 prepare_s, prepares);
    std::fprintf(stderr,
                 "  analyze    %8.3f s  wall, %.3f s CPU, sum over workers (%.1f ms per bundle)\n",
                 analyze_s, analyze_cpu_s,
                 bundles.empty() ? 0.0 : 1000.0 * analyze_s / static_cast<double>(bundles.size()));
    std::fprintf(stderr,
                 "  merge      %8.3f s  wall, %.3f s CPU, into the fleet database one at a time "
                 "(%.3f s waited for the lock)\n",
                 merge_s, merge_cpu_s, merge_wait_s);
    std::fprintf(stderr, "  total      %8.3f s wall, %.3f s CPU, %.0f MB/s, peak RSS %ld MB\n",
                 wall, pipeline::cpu_seconds() - cpu0, wall > 0 ? mb / wall : 0.0,
                 pipeline::peak_rss_kb() / 1024);
  }
  return out;
}

}  // namespace faultline::app
