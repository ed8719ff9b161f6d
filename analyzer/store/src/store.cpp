#include "faultline/store/store.hpp"

#include <sqlite3.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <mutex>
#include <utility>

#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"

namespace faultline::store {

namespace detail {
const std::vector<std::pair<std::string, std::string>>& schema_files();
}

namespace {

// Migrations are schema/NNN_<what>.sql; the number is the version the file brings the schema to.
std::vector<std::pair<int, const std::string*>> migrations() {
  std::vector<std::pair<int, const std::string*>> out;
  for (const auto& [name, sql] : detail::schema_files()) {
    if (name.size() < 4 || name[3] != '_') continue;
    const auto v = text::to_int<int>(std::string_view(name).substr(0, 3));
    if (v) out.emplace_back(*v, &sql);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const std::string& index_sql() {
  static const std::string empty;
  for (const auto& [name, sql] : detail::schema_files())
    if (name == "indexes.sql") return sql;
  return empty;
}

// Longest text value stored (docs/fuzzing.md, "Bounds"): 16 MiB, or a quarter of SQLite's length
// limit when that is lower. Above SQLite's limit a bind fails and leaves NULL (a NOT NULL
// constraint error that failed the whole analysis); above 2 GiB the int length of sqlite3_bind_*
// overflows.
constexpr size_t kMaxTextBytes = size_t{16} << 20;
constexpr std::string_view kCutMarker = " [... cut by faultline: value above the 16 MiB bound]";

size_t max_text_bytes(sqlite3* db) {
  // SQLite's limit also bounds a whole row, and an event row holds its text twice (message, text)
  const int limit = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1);
  const size_t sqlite_max = std::max<size_t>(static_cast<size_t>(std::max(limit, 0)) / 4, 4096);
  return std::min(kMaxTextBytes, sqlite_max);
}

bool blob_fits(sqlite3* db, size_t n) {
  return n <= static_cast<size_t>(sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1));
}

// The largest n' <= n that does not split a UTF-8 sequence of s.
size_t utf8_cut(std::string_view s, size_t n) {
  if (n >= s.size()) return s.size();
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s_, nullptr) != SQLITE_OK)
      throw StoreError(std::string("prepare failed: ") + sqlite3_errmsg(db) + " in: " + sql);
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  // Text and blobs are bound without a copy (SQLITE_STATIC): callers keep the data alive until
  // run()/insert(), which steps, resets and clears the bindings before returning.
  // A text above max_text_bytes() is cut to it (at a UTF-8 boundary) and ends with kCutMarker;
  // cut() then says how long the longest cut value was, for the caller's warning.
  Stmt& bind(int i, std::string_view v) {
    if (v.size() > max_text_bytes(db_)) return bind_cut(i, v);
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
    return *this;
  }
  Stmt& bind_text_utf8(int i, std::string_view v) {
    if (v.size() > max_text_bytes(db_)) return bind_cut(i, v);
    if (text::valid_utf8(v)) return bind(i, v);
    const std::string fixed = text::sanitize_utf8(v);  // a temporary: SQLite copies it
    if (fixed.size() > max_text_bytes(db_)) return bind_cut(i, fixed);
    sqlite3_bind_text(s_, i, fixed.data(), static_cast<int>(fixed.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // Blobs are not cut (a cut zstd frame is no frame); callers check blob_fits() first.
  Stmt& bind_blob(int i, std::string_view v) {
    sqlite3_bind_blob(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
    return *this;
  }
  // Bytes of the longest value cut since the last take_cut() (0: none).
  uint64_t take_cut() { return std::exchange(cut_, 0); }
  Stmt& null(int i) {
    sqlite3_bind_null(s_, i);
    return *this;
  }
  void run() {
    const int rc = sqlite3_step(s_);
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
      throw StoreError(std::string("write failed: ") + sqlite3_errmsg(db_));
  }
  int64_t insert() {
    run();
    return sqlite3_last_insert_rowid(db_);
  }
  // Reads (small lookups): step() then the columns; the statement is finalised with the Stmt.
  bool step() { return sqlite3_step(s_) == SQLITE_ROW; }
  int64_t i64(int col) { return sqlite3_column_int64(s_, col); }
  std::string text(int col) {
    const auto* p = sqlite3_column_text(s_, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(s_, col)))
             : std::string();
  }

 private:
  Stmt& bind_cut(int i, std::string_view v) {
    const size_t keep = max_text_bytes(db_) - kCutMarker.size();
    std::string c = text::sanitize_utf8(v.substr(0, utf8_cut(v, keep)));
    if (c.size() > keep) c.resize(utf8_cut(c, keep));
    c += kCutMarker;
    sqlite3_bind_text(s_, i, c.data(), static_cast<int>(c.size()), SQLITE_TRANSIENT);
    cut_ = std::max<uint64_t>(cut_, v.size());
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
  uint64_t cut_ = 0;
};

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

struct Db::Stmts {
  explicit Stmts(sqlite3* db)
      : member(db,
               "INSERT INTO members(bundle_id,path,kind,kind_reason,host,size,sha256,lines,"
               "parsed_lines,malformed_lines,long_lines,truncated,text_stored) "
               "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        member_update(db,
                      "UPDATE members SET kind=?,kind_reason=?,host=?,size=?,sha256=?,lines=?,"
                      "parsed_lines=?,malformed_lines=?,long_lines=?,truncated=?,text_stored=? "
                      "WHERE id=?"),
        text(db, "INSERT OR REPLACE INTO member_text(member_id,encoding,data) VALUES(?,?,?)"),
        event(db,
              "INSERT INTO events(bundle_id,member_id,host,line,line_count,offset,time_ns,"
              "time_quality,clock,raw_civil_ns,raw_has_year,uptime_ns,severity,sev_rank,module,"
              "process,pid,tid,device,rank,message,text) "
              "VALUES(?,?,?,?,?,?,NULL,'unknown',?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        hit(db, "INSERT INTO hits(bundle_id,event_id,signature,captures) VALUES(?,?,?,?)"),
        fact(db, "INSERT INTO facts(bundle_id,host,name,value,member_id,line) VALUES(?,?,?,?,?,?)"),
        warning(db, "INSERT INTO warnings(bundle_id,member,message) VALUES(?,?,?)"),
        host(db, "INSERT OR IGNORE INTO hosts(bundle_id,name,source) VALUES(?,?,?)") {}
  Stmt member, member_update, text, event, hit, fact, warning, host;
};

int schema_version() {
  const auto m = migrations();
  return m.empty() ? 0 : m.back().first;
}

Db::Db(sqlite3* db) : db_(db) {}

Db::~Db() {
  st_.reset();
  if (db_) {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }
}

void Db::exec(std::string_view sql) {
  char* err = nullptr;
  const std::string s(sql);
  if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw StoreError("database error: " + msg);
  }
}

void Db::begin() {
  exec("BEGIN IMMEDIATE");
}
void Db::commit() {
  exec("COMMIT");
}

std::unique_ptr<Db> Db::open(const std::filesystem::path& path, Durability durability) {
  // SQLite counts every allocation under one process-wide mutex unless told not to; with a
  // connection per fleet worker that mutex is taken millions of times. faultline never asks
  // SQLite for its memory statistics. (A no-op once SQLite is initialised: then it keeps counting.)
  static std::once_flag configured;
  std::call_once(configured, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
  sqlite3* raw = nullptr;
  // A connection is used by one thread at a time (the fleet database under the merge lock),
  // so it needs no mutex of its own.
  const int rc =
      sqlite3_open_v2(path.string().c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = raw ? sqlite3_errmsg(raw) : "out of memory";
    sqlite3_close(raw);
    throw StoreError(path.string() + ": cannot open database: " + msg);
  }
  std::unique_ptr<Db> db(new Db(raw));
  sqlite3_busy_timeout(raw, 10000);
  try {
    // New files get 16 KiB pages (a no-op on an existing database): the loads write whole
    // tables, and 4 KiB pages cost a write and a read system call each (1 GiB bench bundle:
    // analyze 4.0 -> 3.6 s, system CPU halved; fleet of 200 x 2 MB -j 1: 9.7 -> 8.8 s).
    db->exec("PRAGMA page_size=16384");
    switch (durability) {
      // A file only this connection uses keeps its lock until it is closed: SQLite otherwise
      // takes and drops a POSIX lock and looks for a hot journal around every statement
      // (fleet of 40 bundles: ~40000 fcntl and stat calls).
      case Durability::scratch:
        db->exec(
            "PRAGMA foreign_keys=ON; PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=OFF; "
            "PRAGMA synchronous=OFF;");
        break;
      case Durability::temporary:
        db->exec(
            "PRAGMA foreign_keys=ON; PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=MEMORY; "
            "PRAGMA synchronous=OFF;");
        break;
      // WAL from the first statement, also for a file this run creates (issue 36). A new file
      // was once loaded with a rollback journal (each page written once, not to the log and
      // again at the checkpoint: ~10% of the load's CPU): a run killed during that load left
      // a hot journal that only a writer can roll back, so `report`, Python's read-only sqlite3
      // and the rerun's read-only probe all failed with "attempt to write a readonly database".
      // A killed WAL run leaves a log that every reader, read-only ones included, opens.
      case Durability::normal:
        db->exec("PRAGMA foreign_keys=ON; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
        break;
    }
    int version = 0;
    {
      sqlite3_stmt* s = nullptr;
      sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &s, nullptr);
      if (sqlite3_step(s) == SQLITE_ROW) version = sqlite3_column_int(s, 0);
      sqlite3_finalize(s);
    }
    if (version > schema_version())
      throw StoreError(path.string() + ": database schema version " + std::to_string(version) +
                       " is newer than this faultline (" + std::to_string(schema_version()) + ")");
    for (const auto& [v, sql] : migrations()) {
      if (v <= version) continue;
      db->exec("BEGIN");
      db->exec(*sql);
      db->exec("PRAGMA user_version=" + std::to_string(v));
      db->exec("COMMIT");
    }
    db->exec(index_sql());
    db->st_ = std::make_unique<Stmts>(raw);
  } catch (const StoreError& e) {
    throw StoreError(std::string(e.what()).find(path.string()) == 0
                         ? e.what()
                         : path.string() + ": " + e.what());
  }
  return db;
}

int64_t Db::begin_bundle(const BundleInfo& info) {
  // Indexes slow the bulk load down by half: drop them, rebuild after the load.
  exec(
      "DROP INDEX IF EXISTS idx_events_bundle_time; DROP INDEX IF EXISTS idx_events_member;"
      "DROP INDEX IF EXISTS idx_hits_signature; DROP INDEX IF EXISTS idx_hits_event;"
      "DROP INDEX IF EXISTS idx_facts_name;");
  // The load only inserts rows that point at rows it inserted before (its bundle, members and
  // events): checking each reference costs B-tree lookups per row, ~30% of an event insert.
  // Checks are back on once the load is committed, before an older load of the same bundle is
  // deleted (ON DELETE CASCADE needs them), and in mark_failed().
  exec("PRAGMA foreign_keys=OFF");
  begin();
  Stmt s(db_,
         "INSERT INTO bundles(path,name,sha256,size,read_at,status,options) "
         "VALUES(?,?,?,0,?,'running',?)");
  // a unique placeholder until the bundle's sha256 is known at the end of the load
  const std::string pending = "pending:" + std::to_string(std::time(nullptr)) + ":" +
                              std::to_string(reinterpret_cast<uintptr_t>(this)) + ":" + info.path;
  return s.bind_text_utf8(1, info.path)
      .bind_text_utf8(2, info.name)
      .bind(3, pending)
      .bind(4, now_utc())
      .bind(5, info.options_json)
      .insert();
}

int64_t Db::add_member(int64_t bundle, const MemberRow& m) {
  return st_->member.bind(1, bundle)
      .bind_text_utf8(2, m.path)
      .bind(3, m.kind)
      .bind(4, m.kind_reason)
      .bind_text_utf8(5, m.host)
      .bind(6, static_cast<int64_t>(m.size))
      .bind(7, m.sha256)
      .bind(8, int64_t{m.lines})
      .bind(9, int64_t{m.parsed_lines})
      .bind(10, int64_t{m.malformed_lines})
      .bind(11, int64_t{m.long_lines})
      .bind(12, int64_t{m.truncated ? 1 : 0})
      .bind(13, m.text_stored)
      .insert();
}

void Db::update_member(int64_t member, const MemberRow& m) {
  st_->member_update.bind(1, m.kind)
      .bind(2, m.kind_reason)
      .bind_text_utf8(3, m.host)
      .bind(4, static_cast<int64_t>(m.size))
      .bind(5, m.sha256)
      .bind(6, int64_t{m.lines})
      .bind(7, int64_t{m.parsed_lines})
      .bind(8, int64_t{m.malformed_lines})
      .bind(9, int64_t{m.long_lines})
      .bind(10, int64_t{m.truncated ? 1 : 0})
      .bind(11, m.text_stored)
      .bind(12, member)
      .run();
}

void Db::add_member_text(int64_t member, std::string_view data, std::string_view encoding) {
  if (!blob_fits(db_, data.size())) {
    note_cut(member, "[store-cut] the member's text (" + std::to_string(data.size()) + " bytes, " +
                         std::string(encoding) + ") is above SQLite's length limit: not stored");
    return;
  }
  st_->text.bind(1, member).bind(2, encoding).bind_blob(3, data).run();
}

void Db::note_cut(int64_t member, const std::string& message) {
  std::string path;
  int64_t bundle = 0;
  {
    Stmt s(db_, "SELECT path, bundle_id FROM members WHERE id=?");
    s.bind(1, member);
    if (s.step()) {
      path = s.text(0);
      bundle = s.i64(1);
    }
  }
  if (bundle > 0) add_warning(bundle, Warning{path, message});
}

std::string Db::cut_message(std::string_view what, int64_t line, uint64_t bytes) const {
  return "[store-cut] " + std::string(what) + (line > 0 ? " of line " + std::to_string(line) : "") +
         ": " + std::to_string(bytes) + " bytes, cut to " + std::to_string(max_text_bytes(db_)) +
         " (the longest text stored)";
}

int64_t Db::add_event(int64_t bundle, int64_t member, std::string_view host, const Event& e) {
  auto& s = st_->event;
  s.bind(1, bundle).bind(2, member).bind_text_utf8(3, host);
  s.bind(4, int64_t{e.line}).bind(5, int64_t{e.line_count}).bind(6, static_cast<int64_t>(e.offset));
  s.bind(7, to_string(e.time.clock));
  if (e.time.has_civil()) {
    const int year = e.time.year == 0 ? 2000 : e.time.year;
    s.bind(8, civil_ns(year, e.time));
    s.bind(9, int64_t{e.time.year == 0 ? 0 : 1});
  } else {
    s.null(8).bind(9, int64_t{1});
  }
  if (e.time.has_uptime())
    s.bind(10, e.time.uptime_ns);
  else
    s.null(10);
  s.bind(11, to_string(e.severity)).bind(12, static_cast<int64_t>(e.severity));
  if (e.module.empty())
    s.null(13);
  else
    s.bind_text_utf8(13, e.module);
  if (e.process.empty())
    s.null(14);
  else
    s.bind_text_utf8(14, e.process);
  if (e.pid >= 0)
    s.bind(15, e.pid);
  else
    s.null(15);
  if (e.tid >= 0)
    s.bind(16, e.tid);
  else
    s.null(16);
  if (e.device >= 0)
    s.bind(17, int64_t{e.device});
  else
    s.null(17);
  if (e.rank >= 0)
    s.bind(18, int64_t{e.rank});
  else
    s.null(18);
  s.bind_text_utf8(19, e.message.empty() ? e.text : e.message);
  s.bind_text_utf8(20, e.text);
  const int64_t id = s.insert();
  if (const uint64_t cut = s.take_cut(); cut > 0)
    note_cut(member, cut_message("an event's text", int64_t{e.line}, cut));
  return id;
}

int64_t Db::civil_ns(int year, const RawTime& t) {
  return civil_to_ns(year, t.month, t.day, t.hour, t.minute, t.second, t.nanos);
}

void Db::add_hit(int64_t bundle, int64_t event, std::string_view signature,
                 std::string_view captures_json) {
  auto& s = st_->hit;
  s.bind(1, bundle).bind(2, event).bind(3, signature).bind_text_utf8(4, captures_json).run();
  if (const uint64_t cut = s.take_cut(); cut > 0) {
    Stmt m(db_, "SELECT member_id, line FROM events WHERE id=?");
    m.bind(1, event);
    if (m.step())
      note_cut(m.i64(0),
               cut_message("the captures of a " + std::string(signature) + " hit", m.i64(1), cut));
  }
}

void Db::add_fact(int64_t bundle, std::string_view host, const Fact& f, int64_t member) {
  auto& s = st_->fact;
  s.bind(1, bundle).bind_text_utf8(2, host).bind_text_utf8(3, f.name).bind_text_utf8(4, f.value);
  if (member > 0)
    s.bind(5, member);
  else
    s.null(5);
  s.bind(6, int64_t{f.line}).run();
  if (const uint64_t cut = s.take_cut(); cut > 0) {
    const std::string what = "fact " + f.name.substr(0, 200);
    if (member > 0)
      note_cut(member, cut_message(what, int64_t{f.line}, cut));
    else
      add_warning(bundle, Warning{"", cut_message(what, int64_t{f.line}, cut)});
  }
}

void Db::add_warning(int64_t bundle, const Warning& w) {
  st_->warning.bind(1, bundle).bind_text_utf8(2, w.member).bind_text_utf8(3, w.message).run();
}

void Db::add_host(int64_t bundle, std::string_view name, std::string_view source) {
  st_->host.bind(1, bundle).bind_text_utf8(2, name).bind(3, source).run();
}

void Db::finish_load(int64_t bundle, std::string_view sha256, uint64_t size, uint64_t files,
                     uint64_t bytes) {
  {
    Stmt upd(db_, "UPDATE bundles SET size=?, files=?, bytes=? WHERE id=?");
    upd.bind(1, static_cast<int64_t>(size))
        .bind(2, static_cast<int64_t>(files))
        .bind(3, static_cast<int64_t>(bytes))
        .bind(4, bundle)
        .run();
  }
  commit();
  exec("PRAGMA foreign_keys=ON");  // a no-op inside a transaction
  begin();
  // indexes first: the cascade below needs the child-side indexes to stay linear. In the same
  // transaction as the replacement: one commit (and, in rollback mode, one fsync) for all.
  exec(index_sql());
  {
    // the same bundle analysed before: its rows are replaced by this load. So are the rows of
    // an earlier run of the same path killed between the two commits of its finish_load (still
    // 'running' with its placeholder sha256: nothing else would ever remove them).
    Stmt del(db_,
             "DELETE FROM bundles WHERE id<>? AND (sha256=? OR (status='running' AND "
             "sha256 LIKE 'pending:%' AND path=(SELECT path FROM bundles WHERE id=?)))");
    del.bind(1, bundle).bind(2, sha256).bind(3, bundle).run();
    Stmt upd(db_, "UPDATE bundles SET sha256=? WHERE id=?");
    upd.bind(1, sha256).bind(2, bundle).run();
  }
  commit();
}

void Db::mark_complete(int64_t bundle) {
  Stmt s(db_, "UPDATE bundles SET status='complete' WHERE id=?");
  s.bind(1, bundle).run();
}

void Db::mark_failed(int64_t bundle, std::string_view why) {
  if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  exec("PRAGMA foreign_keys=ON");
  Stmt s(db_, "UPDATE bundles SET status=? WHERE id=?");
  s.bind_text_utf8(1, "failed: " + std::string(why)).bind(2, bundle).run();
}

std::vector<int64_t> bundle_ids(sqlite3* db, bool all) {
  std::vector<int64_t> out;
  sqlite3_stmt* s = nullptr;
  const char* sql = all ? "SELECT id FROM bundles ORDER BY id"
                        : "SELECT id FROM bundles WHERE status='complete' ORDER BY id";
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) return out;
  while (sqlite3_step(s) == SQLITE_ROW) out.push_back(sqlite3_column_int64(s, 0));
  sqlite3_finalize(s);
  return out;
}

}  // namespace faultline::store
