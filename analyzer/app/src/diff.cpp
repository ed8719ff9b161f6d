// `faultline diff` and `fleet --diff`: analyse (or open) both sides, compare, hand the result to
// the renderer.
#include "faultline/app/diff.hpp"

#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "faultline/core/rules.hpp"

namespace faultline::app {

namespace fs = std::filesystem;

correlate::CompareRules compare_rules(const std::vector<fs::path>& rule_dirs) {
  return correlate::load_compare_rules(rules_under(merged_rules(rule_dirs), "compare/"));
}

namespace {

// A private directory for the temporary databases, removed with them.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/faultline-diff-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr)
      throw std::runtime_error("cannot create a temporary directory in " + tmpl);
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct Opened {
  std::unique_ptr<store::Db> db;
  int64_t bundle_id = -1;
  std::string error;
};

Opened open_side(const fs::path& in, const fs::path& scratch, const char* which,
                 const Options& opts) {
  Opened o;
  std::error_code ec;
  if (!fs::exists(in, ec)) {
    o.error = in.string() + ": no such file or directory";
    return o;
  }
  if (fs::is_regular_file(in, ec) && is_sqlite_file(in)) {
    try {
      o.db = store::Db::open(in);
    } catch (const std::exception& e) {
      o.error = in.string() + ": " + e.what();
      return o;
    }
    const auto ids = store::bundle_ids(o.db->handle());
    if (ids.empty()) {
      o.error = in.string() + ": holds no complete analysis";
      return o;
    }
    o.bundle_id = ids.back();
    return o;
  }
  o.db = store::Db::open(scratch / (std::string(which) + ".db"), store::Db::Durability::scratch);
  const Outcome out = analyze(*o.db, in, opts);
  if (out.exit_code != 0) {
    o.error = out.error.empty() ? in.string() + ": cannot be analysed" : out.error;
    return o;
  }
  o.bundle_id = out.bundle_id;
  return o;
}

}  // namespace

DiffOutcome diff(const fs::path& good, const fs::path& bad, const Options& opts) {
  DiffOutcome r;
  const auto rules = compare_rules(opts.rule_dirs);
  ScratchDir scratch;
  Options o = opts;
  o.job_fleet = false;  // the comparison does not need a job's cross-node correlation
  Opened g = open_side(good, scratch.path(), "good", o);
  if (!g.error.empty()) {
    r.exit_code = 3;
    r.error = g.error;
    return r;
  }
  Opened b = open_side(bad, scratch.path(), "bad", o);
  if (!b.error.empty()) {
    r.exit_code = 3;
    r.error = b.error;
    return r;
  }
  r.diff = correlate::compare_bundles({g.db->handle(), g.bundle_id, good.string()},
                                      {b.db->handle(), b.bundle_id, bad.string()}, rules);
  return r;
}

correlate::FleetDiff fleet_diff(store::Db& db, const std::vector<int64_t>& bundle_ids,
                                const Options& opts) {
  return correlate::fleet_differences(db.handle(), bundle_ids, compare_rules(opts.rule_dirs));
}

SimilarOutcome similar(const fs::path& bundle, const fs::path& db_dir, const Options& opts,
                       size_t top) {
  SimilarOutcome r;
  const auto rules = compare_rules(opts.rule_dirs);
  ScratchDir scratch;
  Options o = opts;
  o.job_fleet = false;
  Opened q = open_side(bundle, scratch.path(), "query", o);
  if (!q.error.empty()) {
    r.exit_code = 3;
    r.error = q.error;
    return r;
  }
  r.query = correlate::fingerprint({q.db->handle(), q.bundle_id, bundle.string()}, rules);
  std::vector<fs::path> dbs;
  std::error_code ec;
  // the databases of DIR and of its sub-folders (serve keeps DIR/analyses/<id>/analysis.db)
  for (fs::recursive_directory_iterator it(db_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it.depth() >= 1) it.disable_recursion_pending();
    if (it->is_symlink(e2) || !it->is_regular_file(e2) || !is_sqlite_file(it->path())) continue;
    if (fs::equivalent(it->path(), bundle, e2)) continue;  // the query itself
    dbs.push_back(it->path());
  }
  if (ec) {
    r.exit_code = 3;
    r.error = db_dir.string() + ": " + ec.message();
    return r;
  }
  std::sort(dbs.begin(), dbs.end());
  for (const auto& p : dbs) {
    sqlite3* h = nullptr;
    // read-only: the databases belong to earlier runs (or to a running serve)
    if (sqlite3_open_v2(p.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      r.skipped.push_back(p.string() + ": " + (h ? sqlite3_errmsg(h) : "cannot open"));
      sqlite3_close(h);
      continue;
    }
    sqlite3_busy_timeout(h, 2000);
    try {
      for (int64_t id : store::bundle_ids(h)) {
        correlate::SimilarMatch m;
        m.database = p.string();
        m.bundle_id = id;
        m.fingerprint = correlate::fingerprint({h, id, p.string()}, rules);
        m.similarity = correlate::similarity(r.query, m.fingerprint);
        m.same_content = m.fingerprint.sha256 == r.query.sha256;
        r.matches.push_back(std::move(m));
        ++r.analyses;
      }
    } catch (const std::exception& e) {
      r.skipped.push_back(p.string() + ": " + e.what());
    }
    sqlite3_close(h);
  }
  std::stable_sort(r.matches.begin(), r.matches.end(), [](const auto& a, const auto& b) {
    return a.similarity.score > b.similarity.score;
  });
  if (r.matches.size() > top) r.matches.resize(top);
  return r;
}

}  // namespace faultline::app
