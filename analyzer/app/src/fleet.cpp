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
#include <optional>
#include <set>
#include <thread>

#include "faultline/app/app.hpp"
#include "faultline/core/types.hpp"
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

std::optional<std::string> meta_value(sqlite3* db, const std::string& schema,
                                      const std::string& key) {
  std::optional<std::string> v;
  sqlite3_stmt* s = nullptr;
  const std::string sql = "SELECT value FROM " + schema + ".meta WHERE key=?";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) return v;
  sqlite3_bind_text(s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
    v = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  return v;
}

// The meta value of a database that receives rows made with `incoming`: that value when the
// database holds no other bundle, else "mixed" unless both agree.
void put_meta(sqlite3* db, const std::string& key, const std::optional<std::string>& incoming,
              bool alone) {
  const auto have = meta_value(db, "main", key);
  std::optional<std::string> v = incoming;
  if (!alone && (!have || !incoming || *have != *incoming)) v = kMetaMixed;
  sqlite3_stmt* s = nullptr;
  if (v) {
    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO main.meta(key,value) VALUES(?,?)", -1, &s,
                       nullptr);
    sqlite3_bind_text(s, 2, v->c_str(), -1, SQLITE_TRANSIENT);
  } else {
    sqlite3_prepare_v2(db, "DELETE FROM main.meta WHERE key=?", -1, &s, nullptr);
  }
  sqlite3_bind_text(s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE)
    throw store::StoreError(std::string("database error: cannot write meta: ") +
                            sqlite3_errmsg(db));
}

// A read-only connection to one input database, closed at the end of the scope.
struct ReadOnly {
  sqlite3* h = nullptr;
  explicit ReadOnly(const fs::path& p) {
    if (sqlite3_open_v2(p.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      sqlite3_close(h);
      h = nullptr;
    }
  }
  ~ReadOnly() { sqlite3_close(h); }
  ReadOnly(const ReadOnly&) = delete;
  ReadOnly& operator=(const ReadOnly&) = delete;
};

std::vector<std::pair<std::string, std::string>> strings2(sqlite3* db, const char* sql) {
  std::vector<std::pair<std::string, std::string>> out;
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) return out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    auto col = [&](int i) {
      const auto* t = sqlite3_column_text(s, i);
      return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
    };
    out.emplace_back(col(0), col(1));
  }
  sqlite3_finalize(s);
  return out;
}

// After the merges: a row for every input that failed, then the cross-node correlation.
void finish_fleet(store::Db& db, const std::vector<fs::path>& inputs,
                  const std::vector<std::vector<int64_t>>& ids,
                  const std::vector<std::string>& errors, FleetOutcome& out) {
  std::vector<int64_t> failed_ids;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!errors[i].empty()) {
      out.failures.push_back({inputs[i].string(), errors[i]});
      // a row for the broken bundle, so that the fleet report lists it with the reason
      const int64_t b = db.begin_bundle({inputs[i].string(), inputs[i].filename().string(), "{}"});
      db.add_warning(b, Warning{"", errors[i]});
      db.finish_load(b, "failed:" + inputs[i].string(), 0, 0, 0);
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
}

}  // namespace

void record_meta(store::Db& db, const std::string& rules_digest) {
  sqlite3* h = db.handle();
  const bool alone = scalar(h, "SELECT count(*) FROM bundles") <= 1;
  put_meta(h, kMetaVersion, std::string(kVersion), alone);
  put_meta(h, kMetaRulesDigest, rules_digest, alone);
}

bool is_sqlite_file(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return false;
  std::FILE* f = std::fopen(p.c_str(), "rb");
  if (!f) return false;
  char head[16] = {};
  const size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  return n == sizeof head && std::memcmp(head, "SQLite format 3", 16) == 0;
}

namespace {

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return !b.empty() && fs::equivalent(a, b, ec) && !ec;
}

// A manifest: a small text file (not an archive, not SQLite) whose first entry is a database.
// Returns its entries (resolved against its folder), or nullopt when it is no manifest.
std::optional<std::vector<fs::path>> read_manifest(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec) || is_archive_name(p.filename().string()) ||
      fs::file_size(p, ec) > (16U << 20) || is_sqlite_file(p))
    return std::nullopt;
  std::FILE* f = std::fopen(p.c_str(), "rb");
  if (!f) return std::nullopt;
  std::vector<fs::path> out;
  std::string line;
  size_t lineno = 0;
  bool is_manifest = false;
  auto take = [&]() -> bool {
    ++lineno;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos || line[b] == '#') return true;
    fs::path e = line.substr(b);
    if (e.is_relative()) e = p.parent_path() / e;
    if (!is_manifest) {
      if (!is_sqlite_file(e)) return false;  // not a list of databases: a bundle file
      is_manifest = true;
    }
    if (!fs::exists(e, ec))
      throw std::invalid_argument(p.string() + ":" + std::to_string(lineno) + ": " + e.string() +
                                  ": no such file");
    out.push_back(e);
    return true;
  };
  int c;
  bool ok = true;
  try {
    while (ok && (c = std::fgetc(f)) != EOF) {
      if (c == '\n') {
        ok = take();
        line.clear();
      } else if (c == '\0') {
        ok = false;  // binary
      } else {
        line += static_cast<char>(c);
      }
    }
    if (ok && !line.empty()) ok = take();
  } catch (...) {
    std::fclose(f);
    throw;
  }
  std::fclose(f);
  if (!ok || !is_manifest) return std::nullopt;
  return out;
}

// A folder whose entries (but hidden ones and READMEs) are all *.db files: those, sorted.
std::optional<std::vector<fs::path>> database_folder(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_directory(p, ec)) return std::nullopt;
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(p, ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.' || name == "README.md" || name == "README") continue;
    // the lock, WAL and shared-memory files of a database written beside
    if (name.ends_with(".db-wal") || name.ends_with(".db-shm") || name.ends_with(".db.lock") ||
        name.ends_with(".db-journal"))
      continue;
    if (!name.ends_with(".db") || !e.is_regular_file(ec)) return std::nullopt;
    out.push_back(e.path());
  }
  if (out.empty()) return std::nullopt;
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

FleetInputs split_fleet_inputs(const std::vector<fs::path>& in, const fs::path& exclude) {
  FleetInputs r;
  std::vector<fs::path> others;
  std::set<std::string> seen;
  auto add_db = [&](const fs::path& p) {
    if (same_file(p, exclude)) return;
    if (seen.insert(p.lexically_normal().string()).second) r.databases.push_back(p);
  };
  for (const auto& p : in) {
    if (is_sqlite_file(p)) {
      add_db(p);
    } else if (auto dir = database_folder(p)) {
      for (const auto& d : *dir) add_db(d);
    } else if (auto list = read_manifest(p)) {
      for (const auto& d : *list) add_db(d);
    } else {
      others.push_back(p);
    }
  }
  if (!others.empty()) r.bundles = expand_fleet_inputs(others);
  return r;
}

std::string check_node_databases(const std::vector<fs::path>& dbs) {
  std::vector<std::string> problems;
  // (version, digest) -> files
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> kinds;
  for (const auto& p : dbs) {
    ReadOnly ro(p);
    if (!ro.h) {
      problems.push_back(p.string() + ": cannot be opened");
      continue;
    }
    if (scalar(ro.h,
               "SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN "
               "('bundles','meta','members','findings')") != 4) {
      problems.push_back(p.string() +
                         ": a SQLite database not written by faultline (no bundles table)");
      continue;
    }
    if (const int64_t v = scalar(ro.h, "PRAGMA user_version"); v > store::schema_version()) {
      problems.push_back(p.string() + ": database schema version " + std::to_string(v) +
                         " is newer than this faultline (" +
                         std::to_string(store::schema_version()) + ")");
      continue;
    }
    // a node whose analysis did not complete is reported as such by the merge, not refused
    if (scalar(ro.h, "SELECT count(*) FROM bundles WHERE status='complete'") == 0) continue;
    const auto version = meta_value(ro.h, "main", kMetaVersion);
    const auto digest = meta_value(ro.h, "main", kMetaRulesDigest);
    if (!version || !digest) {
      problems.push_back(p.string() +
                         ": records no faultline version and rules digest (written by a "
                         "faultline before 0.1.0's scale-out, or not by `analyze --db`): analyze "
                         "its bundle again");
      continue;
    }
    if (*version == kMetaMixed || *digest == kMetaMixed) {
      problems.push_back(p.string() +
                         ": holds analyses made by different faultline versions or rules");
      continue;
    }
    kinds[{*version, *digest}].push_back(p.string());
  }
  if (kinds.size() > 1) {
    std::string m =
        "the databases were written by different faultline versions or rules (merge only "
        "analyses made with the same faultline and rules):";
    for (const auto& [k, files] : kinds) {
      m += "\n  faultline " + k.first + ", rules " + k.second.substr(0, 12) + ": ";
      for (size_t i = 0; i < files.size() && i < 5; ++i) m += (i ? ", " : "") + files[i];
      if (files.size() > 5) m += " and " + std::to_string(files.size() - 5) + " more";
    }
    problems.push_back(m);
  }
  std::string out;
  for (const auto& p : problems) out += (out.empty() ? "" : "\n") + p;
  return out;
}

FleetOutcome fleet_merge(store::Db& db, const std::vector<fs::path>& dbs, const Options& opts) {
  FleetOutcome out;
  std::vector<std::vector<int64_t>> ids(dbs.size());
  std::vector<std::string> errors(dbs.size());
  std::map<std::string, size_t> merged_sha;  // sha256 -> input index
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = pipeline::cpu_seconds();
  progress::Line line(opts.progress, "faultline fleet: ");
  db.exec("PRAGMA wal_autocheckpoint=16384");
  for (size_t i = 0; i < dbs.size(); ++i) {
    try {
      std::vector<std::pair<std::string, std::string>> shas;  // sha256, status
      {
        ReadOnly ro(dbs[i]);
        if (!ro.h) throw std::runtime_error("cannot be opened");
        shas = strings2(ro.h, "SELECT sha256, status FROM bundles ORDER BY id");
      }
      std::string dup;
      size_t complete = 0;
      for (const auto& [sha, status] : shas) {
        if (status == "complete") ++complete;
        if (auto it = merged_sha.find(sha); it != merged_sha.end() && dup.empty())
          dup = dbs[i].string() + ": same content (sha256 " + sha.substr(0, 12) + "...) as " +
                dbs[it->second].string() + ": merged once";
      }
      if (shas.empty() || complete < shas.size()) {
        errors[i] = dbs[i].string() +
                    ": holds no complete analysis (the node's `faultline analyze` failed or was "
                    "interrupted: see its log)";
      } else if (!dup.empty()) {
        errors[i] = dup;
      } else {
        ids[i] = merge_database(db, dbs[i]);
        for (const auto& sh : shas) merged_sha.emplace(sh.first, i);
      }
    } catch (const std::exception& e) {
      errors[i] = dbs[i].string() + ": " + e.what();
    }
    if (line.due()) line.draw(progress::count_text(i + 1, dbs.size(), "databases", line.seconds()));
  }
  db.exec("PRAGMA wal_autocheckpoint=1000");
  line.finish(progress::count_text(dbs.size(), dbs.size(), "databases", line.seconds()));
  const double merge_wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  finish_fleet(db, dbs, ids, errors, out);
  if (opts.stats) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "faultline fleet stats:\n");
    std::fprintf(stderr, "  input      %zu databases (%zu failed)\n", dbs.size(),
                 out.failures.size());
    std::fprintf(stderr, "  merge      %8.3f s wall, one database at a time\n", merge_wall);
    std::fprintf(stderr, "  total      %8.3f s wall, %.3f s CPU, peak RSS %ld MB\n", wall,
                 pipeline::cpu_seconds() - cpu0, pipeline::peak_rss_kb() / 1024);
  }
  return out;
}

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

std::vector<int64_t> merge_database(store::Db& db, const fs::path& src, bool own_scratch) {
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
  // Foreign-key checks cost a parent lookup per copied row (~a third of a merge); the merge is
  // the serial part of `fleet -j N` (issue 19). The replacing DELETE below keeps them (its
  // cascade needs them); PRAGMA foreign_keys is a no-op inside a transaction, so it goes first.
  bool fk_off = false;
  try {
    if (own_scratch) {
      if (scalar(h,
                 "SELECT count(*) FROM main.bundles WHERE sha256 IN (SELECT sha256 FROM "
                 "src.bundles)") > 0) {
        db.begin();
        db.exec("DELETE FROM main.bundles WHERE sha256 IN (SELECT sha256 FROM src.bundles)");
        db.commit();
      }
      db.exec("PRAGMA foreign_keys=OFF");
      fk_off = true;
    }
    db.begin();
    // replace bundles analysed before
    db.exec("DELETE FROM main.bundles WHERE sha256 IN (SELECT sha256 FROM src.bundles)");
    // the version and rules the rows were made with (docs/scale-out.md)
    const bool alone = scalar(h, "SELECT count(*) FROM main.bundles") == 0;
    for (const char* k : {kMetaVersion, kMetaRulesDigest})
      put_meta(h, k, meta_value(h, "src", k), alone);
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
    if (fk_off) sqlite3_exec(h, "PRAGMA foreign_keys=ON", nullptr, nullptr, nullptr);
    sqlite3_exec(h, "DETACH DATABASE src", nullptr, nullptr, nullptr);
    throw;
  }
  if (fk_off) db.exec("PRAGMA foreign_keys=ON");
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
  // redrawn when a bundle is done (the ETA is in bundles)
  progress::Line line(opts.progress, "faultline fleet: ");

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
    o.progress = progress::Mode::off;
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
            ids[i] = merge_database(db, tmp, true);
            merged_sha.emplace(r.ingest.sha256, i);
          } else if (it->second < i) {
            dup(it->second, i);
          } else {
            const size_t later = it->second;
            ids[i] =
                merge_database(db, tmp, true);  // replaces the later input's rows (same sha256)
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
      ++done;
      if (line.on()) {
        std::lock_guard<std::mutex> lock(merge_mu);
        // the count under the lock: two workers finishing together never draw it backwards
        if (line.due())
          line.draw(progress::count_text(done.load(), bundles.size(), "bundles", line.seconds()));
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
  line.finish(progress::count_text(done.load(), bundles.size(), "bundles", line.seconds()));

  const auto tc = std::chrono::steady_clock::now();
  const double cpu_c = pipeline::cpu_seconds();
  finish_fleet(db, bundles, ids, errors, out);
  const double corr_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - tc).count();
  const double corr_cpu = pipeline::cpu_seconds() - cpu_c;
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
    std::fprintf(stderr,
                 "  correlate  %8.3f s  wall, %.3f s CPU, the fleet correlation after the merges "
                 "(serial)\n",
                 corr_s, corr_cpu);
    std::fprintf(stderr, "  total      %8.3f s wall, %.3f s CPU, %.0f MB/s, peak RSS %ld MB\n",
                 wall, pipeline::cpu_seconds() - cpu0, wall > 0 ? mb / wall : 0.0,
                 pipeline::peak_rss_kb() / 1024);
  }
  return out;
}

}  // namespace faultline::app
