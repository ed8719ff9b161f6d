// Database fixtures for the correlator and report tests: an in-memory SQLite database created
// from the schema/NNN_*.sql migrations, filled with rows the way the pipeline stores them (members
// with their text, events with real lines, hits with signature ids and captures, facts with
// evidence lines). The store writer is not used on purpose: these tests pin the correlator to the
// schema contract.
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "faultline/core/rules.hpp"
#include "faultline/core/time.hpp"

namespace fixture {

// UTC ns of a civil time "YYYY-MM-DD HH:MM:SS[.ffffff]".
inline int64_t utc(const std::string& s) {
  const int y = std::stoi(s.substr(0, 4)), mo = std::stoi(s.substr(5, 2)),
            d = std::stoi(s.substr(8, 2));
  const int h = std::stoi(s.substr(11, 2)), mi = std::stoi(s.substr(14, 2)),
            se = std::stoi(s.substr(17, 2));
  int64_t ns = 0;
  if (s.size() > 20) {
    std::string frac = s.substr(20);
    while (frac.size() < 9) frac.push_back('0');
    ns = std::stoll(frac.substr(0, 9));
  }
  return faultline::civil_to_ns(y, mo, d, h, mi, se, ns);
}

// UTC ns of a host-local civil time in a zone `hours` east of UTC (+0800 -> 8).
inline int64_t local(const std::string& s, int hours) {
  return utc(s) - static_cast<int64_t>(hours) * 3600 * 1'000'000'000;
}

struct Member {
  int64_t id = 0;
  std::string path, kind, host;
  std::vector<std::string> lines;
};

class Db {
 public:
  Db() {
    if (sqlite3_open(":memory:", &db_) != SQLITE_OK) throw std::runtime_error("sqlite open");
    // every forward migration in order (001_init.sql, 002_fleet.sql, 003_faults.sql, ...), as
    // store::Db::open applies them
    std::vector<std::string> files;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(FAULTLINE_SOURCE_DIR) + "/schema")) {
      const std::string name = e.path().filename().string();
      if (name.size() > 4 && name[3] == '_' && name.compare(name.size() - 4, 4, ".sql") == 0)
        files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      std::stringstream ss;
      ss << in.rdbuf();
      exec(ss.str());
    }
  }
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* handle() { return db_; }

  void exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string m = msg != nullptr ? msg : "?";
      sqlite3_free(msg);
      throw std::runtime_error("fixture SQL: " + m);
    }
  }

  int64_t bundle(const std::string& path, const std::string& sha256, int64_t files = 0,
                 int64_t bytes = 0) {
    Stmt st(db_,
            "INSERT INTO bundles (path, name, sha256, size, read_at, status, files, bytes) "
            "VALUES (?,?,?,?,?,?,?,?)");
    st.text(1, path).text(2, path.substr(path.find_last_of('/') + 1)).text(3, sha256);
    st.i64(4, bytes / 4)
        .text(5, "2026-06-01T10:00:00Z")
        .text(6, "complete")
        .i64(7, files)
        .i64(8, bytes);
    st.run();
    bundle_ = sqlite3_last_insert_rowid(db_);
    return bundle_;
  }

  void host(const std::string& name, const std::string& source = "path") {
    Stmt st(db_, "INSERT INTO hosts (bundle_id, name, source) VALUES (?,?,?)");
    st.i64(1, bundle_).text(2, name).text(3, source).run();
  }

  // A member whose text is stored whole (as the pipeline does for small members).
  Member member(const std::string& path, const std::string& kind, const std::string& host,
                const std::vector<std::string>& lines, bool store_text = true,
                bool truncated = false) {
    Member m{0, path, kind, host, lines};
    std::string text;
    for (const auto& l : lines) text += l + "\n";
    Stmt st(db_,
            "INSERT INTO members (bundle_id, path, kind, kind_reason, host, size, sha256, lines, "
            "parsed_lines, truncated, text_stored) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    st.i64(1, bundle_).text(2, path).text(3, kind).text(4, "path").text(5, host);
    st.i64(6, static_cast<int64_t>(text.size())).text(7, std::string(64, '0'));
    st.i64(8, static_cast<int64_t>(lines.size())).i64(9, static_cast<int64_t>(lines.size()));
    st.i64(10, truncated ? 1 : 0).text(11, store_text ? "whole" : "none").run();
    m.id = sqlite3_last_insert_rowid(db_);
    if (store_text) {
      Stmt t(db_, "INSERT INTO member_text (member_id, encoding, data) VALUES (?,?,?)");
      t.i64(1, m.id).text(2, "plain").blob(3, text).run();
    }
    return m;
  }

  // An event for line `line` (1-based) of m, with its text taken from the member's lines.
  int64_t event(const Member& m, int line, std::optional<int64_t> time_ns,
                const std::string& quality = "exact", const std::string& severity = "error") {
    const std::string& text = m.lines.at(static_cast<size_t>(line - 1));
    const int rank = severity == "critical"  ? 5
                     : severity == "error"   ? 4
                     : severity == "warning" ? 3
                     : severity == "notice"  ? 2
                     : severity == "info"    ? 1
                                             : 0;
    Stmt st(db_,
            "INSERT INTO events (bundle_id, member_id, host, line, offset, time_ns, time_quality, "
            "clock, severity, sev_rank, message, text) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
    st.i64(1, bundle_).i64(2, m.id).text(3, m.host).i64(4, line).i64(5, 0);
    if (time_ns)
      st.i64(6, *time_ns);
    else
      st.null(6);
    st.text(7, time_ns ? quality : "unknown").text(8, "host_local").text(9, severity).i64(10, rank);
    st.text(11, text).text(12, text).run();
    return sqlite3_last_insert_rowid(db_);
  }

  // A signature hit on line `line` of m (creates the event).
  int64_t hit(const Member& m, int line, const std::string& signature, const std::string& captures,
              std::optional<int64_t> time_ns, const std::string& quality = "exact",
              const std::string& severity = "error") {
    const int64_t ev = event(m, line, time_ns, quality, severity);
    Stmt st(db_, "INSERT INTO hits (bundle_id, event_id, signature, captures) VALUES (?,?,?,?)");
    st.i64(1, bundle_).i64(2, ev).text(3, signature).text(4, captures).run();
    return ev;
  }

  void fact(const Member& m, int line, const std::string& name, const std::string& value) {
    Stmt st(
        db_,
        "INSERT INTO facts (bundle_id, host, name, value, member_id, line) VALUES (?,?,?,?,?,?)");
    st.i64(1, bundle_).text(2, m.host).text(3, name).text(4, value).i64(5, m.id).i64(6, line).run();
  }

  void clock(const std::string& host, const std::string& clock, std::optional<int64_t> offset_ns,
             const std::string& method) {
    Stmt st(db_,
            "INSERT INTO clocks (bundle_id, host, clock, offset_ns, method) VALUES (?,?,?,?,?)");
    st.i64(1, bundle_).text(2, host).text(3, clock);
    if (offset_ns)
      st.i64(4, *offset_ns);
    else
      st.null(4);
    st.text(5, method).run();
  }

  void warning(const std::string& member, const std::string& message) {
    Stmt st(db_, "INSERT INTO warnings (bundle_id, member, message) VALUES (?,?,?)");
    st.i64(1, bundle_).text(2, member).text(3, message).run();
  }

  int64_t bundle_id() const { return bundle_; }

 private:
  class Stmt {
   public:
    Stmt(sqlite3* db, const char* sql) : db_(db) {
      if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK)
        throw std::runtime_error(std::string("fixture prepare: ") + sqlite3_errmsg(db));
    }
    ~Stmt() { sqlite3_finalize(st_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    Stmt& text(int i, const std::string& s) {
      sqlite3_bind_text(st_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      return *this;
    }
    Stmt& blob(int i, const std::string& s) {
      sqlite3_bind_blob(st_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      return *this;
    }
    Stmt& i64(int i, int64_t v) {
      sqlite3_bind_int64(st_, i, v);
      return *this;
    }
    Stmt& null(int i) {
      sqlite3_bind_null(st_, i);
      return *this;
    }
    void run() {
      if (sqlite3_step(st_) != SQLITE_DONE)
        throw std::runtime_error(std::string("fixture step: ") + sqlite3_errmsg(db_));
    }

   private:
    sqlite3* db_;
    sqlite3_stmt* st_ = nullptr;
  };

  sqlite3* db_ = nullptr;
  int64_t bundle_ = 0;
};

// The rules of this source tree (rules/), as the binary would embed them.
inline std::vector<faultline::RuleFile> source_rules() {
  return faultline::read_rule_dir(std::string(FAULTLINE_SOURCE_DIR) + "/rules");
}

// Small query helpers for assertions.
struct FindingRow {
  std::string finding, kind, severity, host, title, summary, explained_by, explains, missing;
  double confidence = 0;
  int rank = 0;
  int64_t id = 0;
};

inline std::vector<FindingRow> findings(sqlite3* db, int64_t bundle) {
  std::vector<FindingRow> out;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(
      db,
      "SELECT finding, kind, severity, host, title, summary, COALESCE(explained_by,''), "
      "explains, missing, confidence, rank, id FROM findings WHERE bundle_id = ? "
      "ORDER BY rank",
      -1, &st, nullptr);
  sqlite3_bind_int64(st, 1, bundle);
  auto col = [&](int c) {
    const auto* p = sqlite3_column_text(st, c);
    return p != nullptr ? std::string(reinterpret_cast<const char*>(p)) : std::string();
  };
  while (sqlite3_step(st) == SQLITE_ROW) {
    FindingRow r;
    r.finding = col(0);
    r.kind = col(1);
    r.severity = col(2);
    r.host = col(3);
    r.title = col(4);
    r.summary = col(5);
    r.explained_by = col(6);
    r.explains = col(7);
    r.missing = col(8);
    r.confidence = sqlite3_column_double(st, 9);
    r.rank = sqlite3_column_int(st, 10);
    r.id = sqlite3_column_int64(st, 11);
    out.push_back(r);
  }
  sqlite3_finalize(st);
  return out;
}

inline const FindingRow* find(const std::vector<FindingRow>& v, const std::string& id,
                              const std::string& host = "") {
  for (const auto& f : v)
    if (f.finding == id && (host.empty() || f.host == host)) return &f;
  return nullptr;
}

struct EvidenceRow {
  std::string member, text, signature, fact;
  int64_t line = 0;
};

inline std::vector<EvidenceRow> evidence(sqlite3* db, int64_t finding_id) {
  std::vector<EvidenceRow> out;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT COALESCE(member,''), COALESCE(line,0), text, COALESCE(signature,''), "
                     "COALESCE(fact,'') FROM finding_evidence WHERE finding_id = ? ORDER BY ord",
                     -1, &st, nullptr);
  sqlite3_bind_int64(st, 1, finding_id);
  auto col = [&](int c) {
    const auto* p = sqlite3_column_text(st, c);
    return p != nullptr ? std::string(reinterpret_cast<const char*>(p)) : std::string();
  };
  while (sqlite3_step(st) == SQLITE_ROW)
    out.push_back({col(0), col(2), col(3), col(4), sqlite3_column_int64(st, 1)});
  sqlite3_finalize(st);
  return out;
}

inline bool cites(const std::vector<EvidenceRow>& ev, const std::string& member, int64_t line) {
  for (const auto& e : ev)
    if (e.member == member && e.line == line) return true;
  return false;
}

struct TimelineRow {
  std::optional<int64_t> time_ns;
  std::string quality, host, member, text, signature, finding, role;
  int64_t line = 0;
  int ord = 0;
};

inline std::vector<TimelineRow> timeline(sqlite3* db, int64_t bundle) {
  std::vector<TimelineRow> out;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(
      db,
      "SELECT time_ns, time_quality, host, COALESCE(member,''), COALESCE(line,0), text, "
      "COALESCE(signature,''), COALESCE(finding,''), role, ord FROM timeline "
      "WHERE bundle_id = ? ORDER BY ord",
      -1, &st, nullptr);
  sqlite3_bind_int64(st, 1, bundle);
  auto col = [&](int c) {
    const auto* p = sqlite3_column_text(st, c);
    return p != nullptr ? std::string(reinterpret_cast<const char*>(p)) : std::string();
  };
  while (sqlite3_step(st) == SQLITE_ROW) {
    TimelineRow r;
    if (sqlite3_column_type(st, 0) != SQLITE_NULL) r.time_ns = sqlite3_column_int64(st, 0);
    r.quality = col(1);
    r.host = col(2);
    r.member = col(3);
    r.line = sqlite3_column_int64(st, 4);
    r.text = col(5);
    r.signature = col(6);
    r.finding = col(7);
    r.role = col(8);
    r.ord = sqlite3_column_int(st, 9);
    out.push_back(r);
  }
  sqlite3_finalize(st);
  return out;
}

}  // namespace fixture
