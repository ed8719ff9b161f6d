#include "index.hpp"

#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace faultline::serve::detail {

namespace {

constexpr int kIndexVersion = 4;  // 2: the faults column; 3: first_failure; 4: fingerprint

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS analyses (
  id            TEXT PRIMARY KEY,          -- 32 hex digits
  sha256        TEXT NOT NULL UNIQUE,      -- of the uploaded bytes
  name          TEXT NOT NULL,             -- upload name as shown
  file          TEXT NOT NULL,             -- bundle file under analyses/<id>/
  size          INTEGER NOT NULL,
  status        TEXT NOT NULL,             -- queued | running | done | failed
  error         TEXT NOT NULL DEFAULT '',
  uploaded_at   INTEGER NOT NULL,          -- epoch seconds (UTC)
  started_at    INTEGER NOT NULL DEFAULT 0,
  finished_at   INTEGER NOT NULL DEFAULT 0,
  hosts         TEXT NOT NULL DEFAULT '[]',-- JSON array
  verdict_kind  TEXT NOT NULL DEFAULT '',  -- first_failure | root_cause | symptom | fault | none
  verdict_id    TEXT NOT NULL DEFAULT '',
  verdict_title TEXT NOT NULL DEFAULT '',
  root_causes   INTEGER NOT NULL DEFAULT 0,
  symptoms      INTEGER NOT NULL DEFAULT 0,
  warnings      INTEGER NOT NULL DEFAULT 0,
  faults        INTEGER NOT NULL DEFAULT 0,
  first_failure TEXT NOT NULL DEFAULT '',  -- JSON: the fleet answer of a job bundle, '' otherwise
  fingerprint   TEXT NOT NULL DEFAULT ''   -- JSON: "seen before" features (serve/src/similar.hpp)
);
CREATE INDEX IF NOT EXISTS analyses_uploaded ON analyses(uploaded_at);
)sql";

constexpr const char* kColumns =
    "id, sha256, name, file, size, status, error, uploaded_at, started_at, finished_at, hosts, "
    "verdict_kind, verdict_id, verdict_title, root_causes, symptoms, warnings, faults, "
    "first_failure";

class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("index database: ") + sqlite3_errmsg(db));
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  bool step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw std::runtime_error(std::string("index database: ") + sqlite3_errmsg(db_));
  }
  std::string text(int i) const {
    const auto* t = sqlite3_column_text(s_, i);
    return t ? std::string(reinterpret_cast<const char*>(t),
                           static_cast<size_t>(sqlite3_column_bytes(s_, i)))
             : std::string();
  }
  int64_t int64(int i) const { return sqlite3_column_int64(s_, i); }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

Analysis row(const Stmt& s) {
  Analysis a;
  a.id = s.text(0);
  a.sha256 = s.text(1);
  a.name = s.text(2);
  a.file = s.text(3);
  a.size = static_cast<uint64_t>(s.int64(4));
  a.status = s.text(5);
  a.error = s.text(6);
  a.uploaded_at = s.int64(7);
  a.started_at = s.int64(8);
  a.finished_at = s.int64(9);
  const auto hosts = nlohmann::json::parse(s.text(10), nullptr, false);
  if (hosts.is_array())
    for (const auto& h : hosts)
      if (h.is_string()) a.hosts.push_back(h.get<std::string>());
  a.verdict_kind = s.text(11);
  a.verdict_id = s.text(12);
  a.verdict_title = s.text(13);
  a.root_causes = static_cast<int>(s.int64(14));
  a.symptoms = static_cast<int>(s.int64(15));
  a.warnings = static_cast<int>(s.int64(16));
  a.faults = static_cast<int>(s.int64(17));
  a.first_failure = s.text(18);
  return a;
}

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "error";
    sqlite3_free(err);
    throw std::runtime_error("index database: " + msg);
  }
}

}  // namespace

Index::Index(const std::filesystem::path& file) {
  const int rc =
      sqlite3_open_v2(file.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "cannot open";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("index database: " + msg);
  }
  sqlite3_busy_timeout(db_, 5000);
  try {
    exec(db_, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
    int version = 0;
    {
      Stmt s(db_, "PRAGMA user_version");
      if (s.step()) version = static_cast<int>(s.int64(0));
    }
    if (version > kIndexVersion)
      throw std::runtime_error("index database: written by a newer faultline (version " +
                               std::to_string(version) + ")");
    exec(db_, kSchema);
    if (version == 1)  // written before fault events: the table lacks the faults column
      exec(db_, "ALTER TABLE analyses ADD COLUMN faults INTEGER NOT NULL DEFAULT 0");
    if (version >= 1 && version < 3)  // written before the fleet answer of job bundles
      exec(db_, "ALTER TABLE analyses ADD COLUMN first_failure TEXT NOT NULL DEFAULT ''");
    if (version >= 1 && version < 4)  // written before "seen before": no fingerprints
      exec(db_, "ALTER TABLE analyses ADD COLUMN fingerprint TEXT NOT NULL DEFAULT ''");
    exec(db_, ("PRAGMA user_version=" + std::to_string(kIndexVersion)).c_str());
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

Index::~Index() {
  sqlite3_close(db_);
}

std::optional<Analysis> Index::get(const std::string& id) {
  Stmt s(db_, std::string("SELECT ") + kColumns + " FROM analyses WHERE id=?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return row(s);
}

std::optional<Analysis> Index::by_sha256(const std::string& sha256) {
  Stmt s(db_, std::string("SELECT ") + kColumns + " FROM analyses WHERE sha256=?");
  s.bind(1, sha256);
  if (!s.step()) return std::nullopt;
  return row(s);
}

std::vector<Analysis> Index::list(size_t limit) {
  Stmt s(db_, std::string("SELECT ") + kColumns +
                  " FROM analyses ORDER BY uploaded_at DESC, rowid DESC LIMIT ?");
  s.bind(1, static_cast<int64_t>(limit));
  std::vector<Analysis> out;
  while (s.step()) out.push_back(row(s));
  return out;
}

std::vector<std::string> Index::ids_with_status(const std::string& status) {
  Stmt s(db_, "SELECT id FROM analyses WHERE status=? ORDER BY uploaded_at, rowid");
  s.bind(1, status);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

void Index::insert(const Analysis& a) {
  Stmt s(db_,
         "INSERT INTO analyses (id, sha256, name, file, size, status, uploaded_at) "
         "VALUES (?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, a.id).bind(2, a.sha256).bind(3, a.name).bind(4, a.file);
  s.bind(5, static_cast<int64_t>(a.size)).bind(6, a.status).bind(7, a.uploaded_at);
  s.step();
}

void Index::requeue(const std::string& id, const std::string& name, const std::string& file,
                    int64_t uploaded_at) {
  Stmt s(db_,
         "UPDATE analyses SET status='queued', error='', name=?, file=?, uploaded_at=?, "
         "started_at=0, finished_at=0, hosts='[]', verdict_kind='', verdict_id='', "
         "verdict_title='', root_causes=0, symptoms=0, warnings=0, faults=0, first_failure='', "
         "fingerprint='' "
         "WHERE id=?");
  s.bind(1, name).bind(2, file).bind(3, uploaded_at).bind(4, id);
  s.step();
}

void Index::set_running(const std::string& id, int64_t when) {
  Stmt s(db_, "UPDATE analyses SET status='running', started_at=? WHERE id=?");
  s.bind(1, when).bind(2, id);
  s.step();
}

void Index::set_failed(const std::string& id, const std::string& error, int64_t when) {
  Stmt s(db_, "UPDATE analyses SET status='failed', error=?, finished_at=? WHERE id=?");
  s.bind(1, error).bind(2, when).bind(3, id);
  s.step();
}

void Index::set_done(const Analysis& r) {
  Stmt s(db_,
         "UPDATE analyses SET status='done', error='', finished_at=?, hosts=?, verdict_kind=?, "
         "verdict_id=?, verdict_title=?, root_causes=?, symptoms=?, warnings=?, faults=?, "
         "first_failure=?, fingerprint=? WHERE id=?");
  s.bind(1, r.finished_at)
      .bind(2,
            nlohmann::json(r.hosts).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .bind(3, r.verdict_kind)
      .bind(4, r.verdict_id)
      .bind(5, r.verdict_title)
      .bind(6, static_cast<int64_t>(r.root_causes))
      .bind(7, static_cast<int64_t>(r.symptoms))
      .bind(8, static_cast<int64_t>(r.warnings))
      .bind(9, static_cast<int64_t>(r.faults))
      .bind(10, r.first_failure)
      .bind(11, r.fingerprint)
      .bind(12, r.id);
  s.step();
}

std::vector<std::pair<Analysis, std::string>> Index::fingerprints(size_t limit) {
  Stmt s(db_, std::string("SELECT ") + kColumns +
                  ", fingerprint FROM analyses WHERE status='done' AND fingerprint<>'' "
                  "ORDER BY uploaded_at DESC, rowid DESC LIMIT ?");
  s.bind(1, static_cast<int64_t>(limit));
  std::vector<std::pair<Analysis, std::string>> out;
  while (s.step()) out.emplace_back(row(s), s.text(19));
  return out;
}

std::string Index::fingerprint_of(const std::string& id) {
  Stmt s(db_, "SELECT fingerprint FROM analyses WHERE id=? AND status='done'");
  s.bind(1, id);
  return s.step() ? s.text(0) : std::string();
}

}  // namespace faultline::serve::detail
