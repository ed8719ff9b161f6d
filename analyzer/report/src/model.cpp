#include "model.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "faultline/core/time.hpp"

namespace faultline::report::detail {
namespace {

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("report SQL: ") + sqlite3_errmsg(db));
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(st_, i, v);
    return *this;
  }
  bool step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw std::runtime_error(std::string("report SQL: ") + sqlite3_errmsg(db_));
  }
  std::string str(int c) const {
    const auto* p = sqlite3_column_text(st_, c);
    return p == nullptr ? std::string()
                        : std::string(reinterpret_cast<const char*>(p),
                                      static_cast<size_t>(sqlite3_column_bytes(st_, c)));
  }
  int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
  double dbl(int c) const { return sqlite3_column_double(st_, c); }
  std::optional<int64_t> opt(int c) const {
    if (sqlite3_column_type(st_, c) == SQLITE_NULL) return std::nullopt;
    return i64(c);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

std::vector<std::string> json_strings(const std::string& s) {
  std::vector<std::string> out;
  const auto j = nlohmann::json::parse(s, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& e : j)
    if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

}  // namespace

Report load(sqlite3* db, int64_t bundle_id) {
  Report r;
  r.bundle_id = bundle_id;
  {
    Stmt st(db, "SELECT path, name, sha256, status, files, bytes FROM bundles WHERE id = ?");
    st.bind(1, bundle_id);
    if (!st.step()) throw std::runtime_error("no bundle with id " + std::to_string(bundle_id));
    r.path = st.str(0);
    r.name = st.str(1);
    r.sha256 = st.str(2);
    r.status = st.str(3);
    r.files = st.i64(4);
    r.bytes = st.i64(5);
  }
  {
    std::set<std::string> hosts;
    Stmt st(db,
            "SELECT name FROM hosts WHERE bundle_id = ?1 UNION SELECT host FROM members WHERE "
            "bundle_id = ?1 UNION SELECT host FROM findings WHERE bundle_id = ?1");
    st.bind(1, bundle_id);
    while (st.step()) hosts.insert(st.str(0));
    r.hosts.assign(hosts.begin(), hosts.end());
  }
  {
    Stmt st(db,
            "SELECT id, finding, kind, severity, confidence, host, title, summary, rank, "
            "COALESCE(explained_by, ''), explains, remediation, missing FROM findings "
            "WHERE bundle_id = ? ORDER BY rank, host, finding, id");
    st.bind(1, bundle_id);
    while (st.step()) {
      FindingR f;
      const int64_t fid = st.i64(0);
      f.id = st.str(1);
      f.kind = st.str(2);
      f.severity = st.str(3);
      f.confidence = st.dbl(4);
      f.host = st.str(5);
      f.title = st.str(6);
      f.summary = st.str(7);
      f.rank = static_cast<int>(st.i64(8));
      f.explained_by = st.str(9);
      f.explains = json_strings(st.str(10));
      f.remediation = json_strings(st.str(11));
      f.missing = json_strings(st.str(12));
      Stmt e(db,
             "SELECT COALESCE(member, ''), COALESCE(line, 0), time_ns, text, COALESCE(signature, ''), "
             "COALESCE(fact, '') FROM finding_evidence WHERE finding_id = ? ORDER BY ord, id");
      e.bind(1, fid);
      while (e.step()) f.evidence.push_back({e.str(0), e.str(3), e.str(4), e.str(5), e.i64(1), e.opt(2)});
      r.findings.push_back(std::move(f));
    }
  }
  {
    Stmt st(db,
            "SELECT t.time_ns, t.time_quality, t.host, COALESCE(t.member, ''), COALESCE(t.line, 0), "
            "t.text, COALESCE(t.signature, ''), COALESCE(t.finding, ''), t.role, t.ord, "
            "COALESCE((SELECT kind FROM members m WHERE m.bundle_id = t.bundle_id AND m.path = t.member "
            "ORDER BY m.id LIMIT 1), '') FROM timeline t WHERE t.bundle_id = ? ORDER BY t.ord, t.id");
    st.bind(1, bundle_id);
    while (st.step()) {
      TimelineR t;
      t.time_ns = st.opt(0);
      t.quality = st.str(1);
      t.host = st.str(2);
      t.file = st.str(3);
      t.line = st.i64(4);
      t.text = st.str(5);
      t.signature = st.str(6);
      t.finding = st.str(7);
      t.role = st.str(8);
      t.ord = static_cast<int>(st.i64(9));
      t.kind = st.str(10);
      r.timeline.push_back(std::move(t));
    }
  }
  {
    Stmt st(db,
            "SELECT f.host, f.name, f.value, COALESCE(m.path, ''), f.line FROM facts f LEFT JOIN "
            "members m ON m.id = f.member_id WHERE f.bundle_id = ? "
            "ORDER BY f.host, f.name, f.value, m.path, f.line, f.id");
    st.bind(1, bundle_id);
    while (st.step()) r.facts.push_back({st.str(0), st.str(1), st.str(2), st.str(3), st.i64(4)});
  }
  {
    Stmt st(db, "SELECT member, message FROM warnings WHERE bundle_id = ? ORDER BY member, message, id");
    st.bind(1, bundle_id);
    while (st.step()) r.warnings.push_back({st.str(0), st.str(1)});
  }
  {
    Stmt st(db,
            "SELECT path, kind, truncated, long_lines, malformed_lines FROM members WHERE bundle_id = ? "
            "AND (truncated != 0 OR long_lines > 0 OR malformed_lines > 0) ORDER BY path, id");
    st.bind(1, bundle_id);
    while (st.step()) r.issues.push_back({st.str(0), st.str(1), st.i64(2) != 0, st.i64(3), st.i64(4)});
  }
  return r;
}

std::string fmt_time(const std::optional<int64_t>& ns) { return ns ? format_utc(*ns) : std::string(); }

std::string fmt_conf(double c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", c);
  return buf;
}

std::string loc(const std::string& file, int64_t line) {
  if (file.empty()) return "(derived)";
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

std::string verdict(const Report& r) {
  std::vector<const FindingR*> causes, unexplained;
  size_t symptoms = 0;
  for (const auto& f : r.findings) {
    if (f.kind == "root_cause") {
      causes.push_back(&f);
    } else {
      ++symptoms;
      if (f.explained_by.empty()) unexplained.push_back(&f);
    }
  }
  std::string v;
  if (!causes.empty()) {
    const auto& top = *causes.front();
    v = top.host + ": " + top.title + " (" + top.id + ", confidence " + fmt_conf(top.confidence) + ")";
    if (!top.explains.empty())
      v += "; explains " + std::to_string(top.explains.size()) + " observed symptom" +
           (top.explains.size() == 1 ? "" : "s");
    if (causes.size() > 1) v += "; " + std::to_string(causes.size() - 1) + " more root cause" +
                                (causes.size() == 2 ? "" : "s") + " below";
    if (!unexplained.empty())
      v += "; " + std::to_string(unexplained.size()) + " symptom" + (unexplained.size() == 1 ? "" : "s") +
           " unexplained";
    v += ".";
  } else if (symptoms > 0) {
    v = "No root cause identified; " + std::to_string(unexplained.size()) + " unexplained symptom" +
        (unexplained.size() == 1 ? "" : "s") + ":";
    for (size_t i = 0; i < unexplained.size(); ++i)
      v += (i == 0 ? " " : ", ") + unexplained[i]->id + " on " + unexplained[i]->host;
    v += ".";
  } else {
    v = "No findings: no known failure signature and no root cause in this bundle.";
  }
  if (r.status != "complete") v += " (bundle load " + r.status + ": the database may be incomplete)";
  return v;
}

const std::vector<std::string>& version_fact_names() {
  static const std::vector<std::string> names = {
      "driver.version.loaded", "driver.version.installed", "firmware.version",
      "firmware.package_version", "cann.version.installed", "cann.version.loaded",
      "cann.latest_target", "torch.version", "torch_npu.version", "torchvision.version",
      "kernel.release", "host.timezone", "npu.count"};
  return names;
}

}  // namespace faultline::report::detail
