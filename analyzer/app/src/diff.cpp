// `faultline diff` and `fleet --diff`: analyse (or open) both sides, compare, hand the result to
// the renderer.
#include "faultline/app/diff.hpp"

#include <stdlib.h>
#include <unistd.h>

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

}  // namespace faultline::app
